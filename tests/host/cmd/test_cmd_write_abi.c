// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The write() commands of the provider ABI (IBVERBS_PRIVATE_34) as a
 * plug-in built for rdma-core 44 calls them, without a device: what they
 * return, what they leave in errno, and what they refuse before anything
 * reaches the kernel.
 *
 * write() and ioctl() are redirected (-Wl,--wrap) to a stand-in for the
 * kernel that only counts the commands it is given and fails them with
 * EIO: every case here must be decided before a command is sent.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cmd_transport.h"
#include "tap.h"

/* The prototypes a plug-in compiles against (rdma-core 44's driver.h). */
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);

#define CMD_FD 1000

static int commands;

ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);
int __wrap_ioctl(int fd, unsigned long request, ...);

ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	if (fd != CMD_FD)
		return __real_write(fd, buf, count);
	commands++;
	errno = EIO;
	return -1;
}

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	commands++;
	errno = EIO;
	return -1;
}

static bool inherited;

bool verbs_ctx_inherited(struct ibv_context *ctx)
{
	return inherited;
}

static struct verbs_device vdev = { .driver_id = RDMA_DRIVER_RXE };
static struct verbs_context vctx;
static struct ibv_context *ctx = &vctx.context;

static void reset(bool child)
{
	commands = 0;
	inherited = child;
	errno = 0;
}

/*
 * rdma-core 44's plug-ins return NULL from a create when the command
 * fails, and the application reads errno: every refusal must set it.
 */
static void test_errno(void)
{
	struct ib_uverbs_alloc_pd_resp pd_resp;
	struct ib_uverbs_create_qp_resp qp_resp;
	struct ibv_qp_init_attr_ex attr = {
		.comp_mask = IBV_QP_INIT_ATTR_RX_HASH,
	};
	struct ibv_alloc_pd pd_cmd;
	struct ibv_create_qp qp_cmd;
	struct verbs_qp qp;
	struct ibv_pd pd;
	int ret;

	reset(true);
	ret = ibv_cmd_alloc_pd(ctx, &pd, &pd_cmd, sizeof(pd_cmd), &pd_resp,
			       sizeof(pd_resp));
	CHECK(ret == EPERM && errno == EPERM && !commands,
	      "alloc_pd in a child: EPERM returned and in errno (%d, %d)",
	      ret, errno);

	reset(false);
	ret = ibv_cmd_create_qp_ex(ctx, &qp, &attr, &qp_cmd, sizeof(qp_cmd),
				   &qp_resp, sizeof(qp_resp));
	CHECK(ret == EINVAL && errno == EINVAL && !commands,
	      "create_qp_ex, unknown comp_mask: EINVAL returned and in "
	      "errno (%d, %d)",
	      ret, errno);

	reset(false);
	ret = ibv_cmd_alloc_pd(ctx, &pd, &pd_cmd, sizeof(pd_cmd), &pd_resp,
			       sizeof(pd_resp));
	CHECK(ret == EIO && errno == EIO && commands == 1,
	      "alloc_pd: the kernel's errno returned and in errno");
}

int main(void)
{
	vdev.own.sysfs = &vdev.sysfs;
	vdev.pub = &vdev.own;
	vctx.context.device = &vdev.own.device;
	vctx.context.cmd_fd = CMD_FD;
	vctx.context.async_fd = -1;

	test_errno();
	return tap_done();
}
