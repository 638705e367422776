// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The commands rdma-core 56's provider interface added or extended with a
 * plug-in's driver attributes, without a device: ibv_cmd_create_cq_ex2()
 * (trixie's libmlx5 passes its UAR index that way) and the eighth
 * argument of ibv_cmd_reg_dmabuf_mr().  Built for -DRDMA_CORE_RELEASE=56.
 *
 * ioctl() and write() are redirected (-Wl,--wrap) to a stand-in for the
 * kernel that records what it is given.  For UVERBS_METHOD_CQ_CREATE and
 * UVERBS_METHOD_REG_DMABUF_MR it answers as the kernel does: the new
 * handle into the handle attribute, the CQ's size or the keys into the
 * buffers the output attributes point at, and a byte pattern into the
 * driver's response (UHW_OUT).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd_transport.h"
#include "provider_cmd.h"
#include "tap.h"
#include "child_guard_stub.h"

/* rdma-core 65's extra arguments of the provider commands (NULL: none). */
#if IBV_RDMA_CORE_RELEASE >= 65
#define CMD65_CQ_PROV NULL,
#define CMD65_QP_DRIVER , NULL
#define CMD65_FD_ARR NULL,
#else
#define CMD65_CQ_PROV
#define CMD65_QP_DRIVER
#define CMD65_FD_ARR
#endif

#define CMD_FD 1000
#define ASYNC_FD 1001
#define NEW_HANDLE 77
#define KERNEL_CQE 128
/*
 * A driver attribute in the driver's namespace, after UHW_IN / UHW_OUT.
 * Spelled with the shift: Linux 6.1's UAPI names the namespace bit
 * UVERBS_UDATA_DRIVER_DATA_FLAG, 6.12's (trixie) UVERBS_ID_DRIVER_NS.
 */
#define DRV_ATTR ((1UL << UVERBS_ID_NS_SHIFT) | 2)

static struct {
	int ioctls, writes;
	int fail; /* errno for ioctl(), 0 for success */
	uint32_t write_cmd; /* the last write() command */
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[32];
} kern;

int __real_ioctl(int fd, unsigned long request, ...);
int __wrap_ioctl(int fd, unsigned long request, ...);
ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);

static void answer(struct ib_uverbs_attr *a)
{
	switch (a->attr_id) {
	case UVERBS_ATTR_CREATE_CQ_HANDLE: /* == REG_DMABUF_MR_HANDLE */
		a->data = NEW_HANDLE;
		break;
	case UVERBS_ATTR_UHW_OUT:
		memset((void *)(uintptr_t)a->data, 0x5a, a->len);
		break;
	default:
		return;
	}
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
}

static void answer_ptr(struct ib_uverbs_attr *a, uint16_t id, uint32_t v)
{
	if (a->attr_id != id || a->len != sizeof(v))
		return;
	memcpy((void *)(uintptr_t)a->data, &v, sizeof(v));
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
}

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	struct ib_uverbs_ioctl_hdr *hdr;
	unsigned int i;
	va_list ap;

	va_start(ap, request);
	hdr = va_arg(ap, struct ib_uverbs_ioctl_hdr *);
	va_end(ap);
	if (fd != CMD_FD || request != RDMA_VERBS_IOCTL) {
		errno = ENOTTY;
		return -1;
	}
	kern.ioctls++;
	kern.hdr = *hdr;
	if (hdr->num_attrs <= 32)
		memcpy(kern.attrs, hdr->attrs,
		       hdr->num_attrs * sizeof(hdr->attrs[0]));
	if (kern.fail) {
		errno = kern.fail;
		return -1;
	}
	for (i = 0; i < hdr->num_attrs; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];

		answer(a);
		if (hdr->object_id == UVERBS_OBJECT_CQ)
			answer_ptr(a, UVERBS_ATTR_CREATE_CQ_RESP_CQE,
				   KERNEL_CQE);
		if (hdr->object_id == UVERBS_OBJECT_MR) {
			answer_ptr(a, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, 11);
			answer_ptr(a, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, 22);
		}
	}
	return 0;
}

/* The write() path is only recorded: it answers EINVAL. */
ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;

	if (fd != CMD_FD)
		return __real_write(fd, buf, count);
	kern.writes++;
	kern.write_cmd = hdr->command;
	errno = EINVAL;
	return -1;
}

static struct verbs_device vdev = { .driver_id = RDMA_DRIVER_MLX5 };
static struct verbs_plugin_device dev_hdr;
static struct verbs_context vctx;
static struct ibv_context *ctx = &vctx.context;

/* A plug-in's command buffer with room for 4 attributes. */
union cmdb {
	struct ibv_command_buffer cmd;
	uint8_t room[sizeof(struct ibv_command_buffer) +
		     4 * sizeof(struct ib_uverbs_attr)];
};

static struct ibv_command_buffer *driver_buf(union cmdb *b, uint16_t object,
					     uint16_t method, bool one)
{
	struct ibv_command_buffer *c = &b->cmd;

	memset(b, 0, sizeof(*b));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	c->uhw_in_idx = IBV_COMMAND_UHW_NO_INDEX;
	c->uhw_out_idx = IBV_COMMAND_UHW_NO_INDEX;
	c->next_attr = c->hdr.attrs;
	c->last_attr = c->hdr.attrs + 4;
	if (one)
		*c->next_attr++ = (struct ib_uverbs_attr){
			.attr_id = DRV_ATTR,
			.len = sizeof(uint32_t),
			.flags = UVERBS_ATTR_F_MANDATORY,
			.data = 3, /* mlx5's UAR index, say */
		};
	return c;
}

/* A plug-in's CQ command and response: the library's, then its own. */
struct drv_create_cq {
	struct ibv_create_cq_ex ibv_cmd;
	uint64_t buf_addr;
	uint64_t db_addr;
};

struct drv_create_cq_resp {
	struct ib_uverbs_ex_create_cq_resp ibv_resp;
	uint32_t cqn;
	uint32_t reserved;
};

static const struct ib_uverbs_attr *sent(uint16_t id)
{
	unsigned int i;

	for (i = 0; i < kern.hdr.num_attrs && i < 32; i++)
		if (kern.attrs[i].attr_id == id)
			return &kern.attrs[i];
	return NULL;
}

static void reset(int fail)
{
	memset(&kern, 0, sizeof(kern));
	kern.fail = fail;
	stub_be_child(false);
	errno = 0;
}

static void test_create_cq_ex2(void)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 100,
		.comp_vector = 2,
		.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	struct drv_create_cq cmd = { .buf_addr = 0x1000, .db_addr = 0x2000 };
	struct drv_create_cq_resp resp = {};
	const struct ib_uverbs_attr *a;
	struct verbs_cq vcq = {};
	union cmdb drv;
	int ret;

	reset(0);
	ret = ibv_cmd_create_cq_ex2(ctx, &attr, CMD65_CQ_PROV & vcq,
				    &cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				    sizeof(resp), 0,
				    driver_buf(&drv, UVERBS_OBJECT_CQ,
					       UVERBS_METHOD_CQ_CREATE, true));
	CHECK(ret == 0 && kern.ioctls == 1 && !kern.writes,
	      "create_cq_ex2: one ioctl, no write (ret %d)", ret);
	CHECK(kern.hdr.object_id == UVERBS_OBJECT_CQ &&
		      kern.hdr.method_id == UVERBS_METHOD_CQ_CREATE &&
		      kern.hdr.driver_id == RDMA_DRIVER_MLX5,
	      "UVERBS_METHOD_CQ_CREATE for the context's driver");
	CHECK(kern.hdr.num_attrs == 10, "10 attributes (%u)",
	      kern.hdr.num_attrs);
	CHECK(kern.attrs[0].attr_id == UVERBS_ATTR_CREATE_CQ_HANDLE,
	      "the new handle first");
	a = sent(UVERBS_ATTR_CREATE_CQ_CQE);
	CHECK(a && a->data == 100, "CQE is the requested size");
	a = sent(UVERBS_ATTR_CREATE_CQ_USER_HANDLE);
	CHECK(a && a->data == (uintptr_t)&vcq.cq,
	      "the user handle is the ibv_cq's address");
	a = sent(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR);
	CHECK(a && a->data == 2, "the completion vector");
	CHECK(!sent(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL),
	      "no channel attribute without a channel");
	a = sent(UVERBS_ATTR_CREATE_CQ_EVENT_FD);
	CHECK(a && a->data == ASYNC_FD, "the context's async event fd");
	a = sent(UVERBS_ATTR_CREATE_CQ_FLAGS);
	CHECK(a && a->data == IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION,
	      "a timestamp CQ asks the kernel for timestamps");
	a = sent(UVERBS_ATTR_UHW_IN);
	CHECK(a && a->len == sizeof(cmd) - sizeof(cmd.ibv_cmd) &&
		      !memcmp(a->len <= 8 ? (const void *)&a->data :
					    (const void *)(uintptr_t)a->data,
			      &cmd.buf_addr, a->len),
	      "UHW_IN carries the plug-in's request tail");
	a = sent(UVERBS_ATTR_UHW_OUT);
	CHECK(a && a->len == sizeof(resp) - sizeof(resp.ibv_resp) &&
		      a->data == (uintptr_t)&resp.cqn,
	      "UHW_OUT points at the plug-in's response tail");
	CHECK(kern.attrs[kern.hdr.num_attrs - 1].attr_id == DRV_ATTR &&
		      kern.attrs[kern.hdr.num_attrs - 1].data == 3,
	      "the driver's attribute last, unchanged");
	CHECK(vcq.cq.handle == NEW_HANDLE && vcq.cq.cqe == KERNEL_CQE &&
		      vcq.cq.context == ctx,
	      "handle, size and context from the kernel's answer");
	CHECK(resp.cqn == 0x5a5a5a5a, "the driver's response written");

	/* A kernel without the method: write() only with an empty chain. */
	reset(EPROTONOSUPPORT);
	ret = ibv_cmd_create_cq_ex2(ctx, &attr, CMD65_CQ_PROV & vcq,
				    &cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				    sizeof(resp), 0,
				    driver_buf(&drv, UVERBS_OBJECT_CQ,
					       UVERBS_METHOD_CQ_CREATE, true));
	CHECK(ret == EOPNOTSUPP && errno == EOPNOTSUPP && !kern.writes,
	      "no method, driver attributes: EOPNOTSUPP, no write (%d)", ret);
	reset(EPROTONOSUPPORT);
	ret = ibv_cmd_create_cq_ex2(ctx, &attr, CMD65_CQ_PROV & vcq,
				    &cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				    sizeof(resp), 0,
				    driver_buf(&drv, UVERBS_OBJECT_CQ,
					       UVERBS_METHOD_CQ_CREATE, false));
	CHECK(kern.writes == 1 &&
		      kern.write_cmd == (IB_USER_VERBS_CMD_FLAG_EXTENDED |
					 IB_USER_VERBS_EX_CMD_CREATE_CQ) &&
		      ret == EINVAL,
	      "no method, empty chain: the extended write() command");

	reset(EINVAL);
	ret = ibv_cmd_create_cq_ex2(ctx, &attr, CMD65_CQ_PROV & vcq,
				    &cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				    sizeof(resp), 0, NULL);
	CHECK(ret == EINVAL && errno == EINVAL && !kern.writes,
	      "the kernel's errno returned and left in errno");

	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD << 1;
	reset(0);
	ret = ibv_cmd_create_cq_ex2(ctx, &attr, CMD65_CQ_PROV & vcq,
				    &cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				    sizeof(resp), 0, NULL);
	CHECK(ret == EOPNOTSUPP && !kern.ioctls,
	      "unknown comp_mask: EOPNOTSUPP before the kernel");
	attr.comp_mask = 0;

	reset(0);
	stub_be_child(true);
	ret = ibv_cmd_create_cq_ex2(ctx, &attr, CMD65_CQ_PROV & vcq,
				    &cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				    sizeof(resp), 0, NULL);
	CHECK(ret == EPERM && errno == EPERM && !kern.ioctls && !kern.writes,
	      "fork child: EPERM, nothing sent");
}

static void test_reg_dmabuf_mr(void)
{
	struct ibv_pd pd = { .context = ctx, .handle = 5 };
	struct verbs_mr vmr = {};
	const struct ib_uverbs_attr *a;
	union cmdb drv;
	int ret;

	reset(0);
	ret = ibv_cmd_reg_dmabuf_mr(
		&pd, 4096, 8192, 0x10000, 9, IBV_ACCESS_LOCAL_WRITE, &vmr,
		driver_buf(&drv, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR,
			   true));
	CHECK(ret == 0 && kern.ioctls == 1 &&
		      kern.hdr.object_id == UVERBS_OBJECT_MR &&
		      kern.hdr.method_id == UVERBS_METHOD_REG_DMABUF_MR,
	      "reg_dmabuf_mr: one REG_DMABUF_MR ioctl (ret %d)", ret);
	CHECK(kern.hdr.num_attrs == 10, "9 attributes and the driver's (%u)",
	      kern.hdr.num_attrs);
	a = sent(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE);
	CHECK(a && a->data == 5, "the PD's handle");
	a = sent(UVERBS_ATTR_REG_DMABUF_MR_FD);
	CHECK(a && a->data == 9, "the dma-buf fd");
	CHECK(kern.attrs[9].attr_id == DRV_ATTR,
	      "the driver's attribute after the library's");
	CHECK(vmr.ibv_mr.handle == NEW_HANDLE && vmr.ibv_mr.lkey == 11 &&
		      vmr.ibv_mr.rkey == 22,
	      "handle and keys from the kernel's answer");

	reset(0);
	ret = ibv_cmd_reg_dmabuf_mr(&pd, 0, 8, 0, 9, 0, &vmr, NULL);
	CHECK(ret == 0 && kern.hdr.num_attrs == 9,
	      "without driver attributes: the library's 9");

	reset(0);
	stub_be_child(true);
	ret = ibv_cmd_reg_dmabuf_mr(&pd, 0, 8, 0, 9, 0, &vmr,
				    driver_buf(&drv, UVERBS_OBJECT_MR,
					       UVERBS_METHOD_REG_DMABUF_MR,
					       true));
	CHECK(ret == EPERM && errno == EPERM && !kern.ioctls,
	      "fork child: EPERM, nothing sent");
}

int main(void)
{
	dev_hdr.sysfs = &vdev.sysfs;
	vdev.pub = &dev_hdr;
	ctx->device = &dev_hdr.device;
	ctx->cmd_fd = CMD_FD;
	ctx->async_fd = ASYNC_FD;
	stub_own_context(&vctx);

	test_create_cq_ex2();
	test_reg_dmabuf_mr();
	return tap_done();
}
