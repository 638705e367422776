// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD interposer of ioctl() and write() for rxe_optional_access.
 *
 * It records the access flags of every REG_MR command sent to a uverbs
 * device, by write() or carried by the ioctl method INVOKE_WRITE (which
 * rdma-core 44 prefers where the kernel has it), so the test sees what
 * reached the kernel.  With
 * OPTACC_OLD_KERNEL=1 set it also answers the method
 * UVERBS_OBJECT_DEVICE/UVERBS_METHOD_GET_CONTEXT as a kernel without it
 * does (EPROTONOSUPPORT, the errno of an unknown method); every other
 * call goes to the kernel unchanged.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>

/* Read by the test through dlsym(). */
int optacc_reg_mr_count;
unsigned int optacc_reg_mr_access;
int optacc_get_context_refused;

static int old_kernel(void)
{
	const char *v = getenv("OPTACC_OLD_KERNEL");

	return v && !strcmp(v, "1");
}

static int is_uverbs(int fd)
{
	char link[64], target[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = 0;
	return !strncmp(target, "/dev/infiniband/uverbs", 22);
}

static void record(const void *reg_mr)
{
	uint32_t flags;

	memcpy(&flags,
	       (const char *)reg_mr +
		       offsetof(struct ib_uverbs_reg_mr, access_flags),
	       sizeof(flags));
	optacc_reg_mr_access = flags;
	optacc_reg_mr_count++;
}

/* REG_MR through UVERBS_METHOD_INVOKE_WRITE: its CORE_IN attribute. */
static void record_invoke_write(const struct ib_uverbs_ioctl_hdr *hdr)
{
	const struct ib_uverbs_attr *core = NULL;
	bool reg_mr = false;
	unsigned int i;

	if (hdr->object_id != UVERBS_OBJECT_DEVICE ||
	    hdr->method_id != UVERBS_METHOD_INVOKE_WRITE)
		return;
	for (i = 0; i < hdr->num_attrs; i++) {
		const struct ib_uverbs_attr *a = &hdr->attrs[i];

		if (a->attr_id == UVERBS_ATTR_WRITE_CMD)
			reg_mr = (uint32_t)a->data == IB_USER_VERBS_CMD_REG_MR;
		else if (a->attr_id == UVERBS_ATTR_CORE_IN)
			core = a;
	}
	if (reg_mr && core && core->len >= sizeof(struct ib_uverbs_reg_mr))
		record((const void *)(uintptr_t)core->data);
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (request == RDMA_VERBS_IOCTL && arg)
		record_invoke_write(arg);
	if (request == RDMA_VERBS_IOCTL && arg && old_kernel()) {
		const struct ib_uverbs_ioctl_hdr *hdr = arg;

		if (hdr->object_id == UVERBS_OBJECT_DEVICE &&
		    hdr->method_id == UVERBS_METHOD_GET_CONTEXT) {
			optacc_get_context_refused++;
			errno = EPROTONOSUPPORT;
			return -1;
		}
	}
	return syscall(SYS_ioctl, fd, request, arg);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	struct ib_uverbs_cmd_hdr hdr;

	if (buf && count >= sizeof(hdr) + sizeof(struct ib_uverbs_reg_mr)) {
		memcpy(&hdr, buf, sizeof(hdr));
		if (hdr.command == IB_USER_VERBS_CMD_REG_MR && is_uverbs(fd))
			record((const char *)buf + sizeof(hdr));
	}
	return syscall(SYS_write, fd, buf, count);
}
