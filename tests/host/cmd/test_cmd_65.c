// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma-core 65's commands, without a device: the ioctl each builds (the
 * object, method and attribute ids of the kernel's uAPI, as
 * kernel-headers/uverbs_ioctl_65.h records them from rdma-core v65.0's
 * copy of the uAPI headers) and what each does with the answer, their
 * refusals before anything is sent, and the child guard.  Built for
 * -DRDMA_CORE_RELEASE=65.
 *
 * Also the arguments rdma-core 65 added to older provider commands: the
 * fd array of ibv_cmd_get_context(), the provider CQ buffer of
 * ibv_cmd_create_cq_ex()/_ex2() and the driver chain of
 * ibv_cmd_create_qp_ex2(): exactly the attributes each sends, none when
 * it is empty, and what happens on a kernel without them.
 *
 * ioctl() and write() are redirected (-Wl,--wrap) to a stand-in for the
 * kernel that records the first command and answers as the kernel does:
 * a new object's handle (or a new fd) into its attribute, values into
 * the buffers output attributes point at.
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
#include "uverbs_ioctl_65.h"
#include "tap.h"
#include "child_guard_stub.h"

#define CMD_FD 1000
#define NEW_HANDLE 77
#define NEW_FD 55
/*
 * A driver attribute, in the driver's namespace: spelled with the shift,
 * as test_cmd_driver_attrs.c does (Linux 6.1's uAPI names the bit
 * UVERBS_UDATA_DRIVER_DATA_FLAG, 6.12's on UVERBS_ID_DRIVER_NS).
 */
#define DRV_ATTR ((1UL << UVERBS_ID_NS_SHIFT) | 2)

#define NEW_QPN 0x123
#define NUM_COMP_VECTORS 4

static struct {
	int ioctls, writes;
	int fail; /* errno for ioctl(), 0 for success */
	uint32_t write_cmd; /* the first write() command */
	/* The first ioctl() (GET_CONTEXT is followed by ASYNC_EVENT_ALLOC) */
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[32];
} kern;

int __wrap_ioctl(int fd, unsigned long request, ...);
ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);

static void put(struct ib_uverbs_attr *a, const void *v, size_t len)
{
	if (a->len != len)
		return;
	memcpy((void *)(uintptr_t)a->data, v, len);
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
}

/* What the kernel writes for the attributes of each method tested. */
static void answer(uint16_t obj, uint16_t method, struct ib_uverbs_attr *a)
{
	uint64_t v64;
	uint32_t v32;

	switch (obj << 8 | method) {
	case IBV_K65_OBJECT_DMAH << 8 | IBV_K65_METHOD_DMAH_ALLOC:
	case IBV_K65_OBJECT_COMP_CNTR << 8 | IBV_K65_METHOD_COMP_CNTR_CREATE:
		if (a->attr_id == 0)
			a->data = NEW_HANDLE;
		break;
	case IBV_K65_OBJECT_DMABUF << 8 | IBV_K65_METHOD_DMABUF_ALLOC:
		if (a->attr_id == IBV_K65_ATTR_ALLOC_DMABUF_HANDLE)
			a->data_s64 = NEW_FD;
		break;
	case IBV_K65_OBJECT_MR << 8 | IBV_K65_METHOD_REG_MR:
		if (a->attr_id == IBV_K65_ATTR_REG_MR_HANDLE)
			a->data = NEW_HANDLE;
		v32 = a->attr_id == IBV_K65_ATTR_REG_MR_RESP_LKEY ? 11 : 22;
		if (a->attr_id == IBV_K65_ATTR_REG_MR_RESP_LKEY ||
		    a->attr_id == IBV_K65_ATTR_REG_MR_RESP_RKEY)
			put(a, &v32, sizeof(v32));
		break;
	case IBV_K65_OBJECT_DEVICE << 8 | IBV_K65_METHOD_QUERY_PORT_SPEED:
		v64 = 400000;
		if (a->attr_id == IBV_K65_ATTR_QUERY_PORT_SPEED_RESP)
			put(a, &v64, sizeof(v64));
		break;
	case IBV_K65_OBJECT_DEVICE << 8 | IBV_K65_METHOD_QUERY_COMP_CNTR_CAPS:
		v64 = 1ULL << 40;
		v32 = a->attr_id == IBV_K65_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS ?
			      64 :
			      (IBV_K65_QP_ATTACH_COMP_CNTR_OP_SEND |
			       IBV_K65_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE);
		if (a->attr_id == IBV_K65_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE)
			put(a, &v64, sizeof(v64));
		else
			put(a, &v32, sizeof(v32));
		break;
	case UVERBS_OBJECT_DEVICE << 8 | UVERBS_METHOD_GET_CONTEXT:
		v32 = NUM_COMP_VECTORS;
		if (a->attr_id == UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS)
			put(a, &v32, sizeof(v32));
		break;
	case UVERBS_OBJECT_ASYNC_EVENT << 8 | UVERBS_METHOD_ASYNC_EVENT_ALLOC:
		if (a->attr_id == UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE)
			a->data_s64 = NEW_FD;
		break;
	case UVERBS_OBJECT_CQ << 8 | UVERBS_METHOD_CQ_CREATE:
		if (a->attr_id == UVERBS_ATTR_CREATE_CQ_HANDLE)
			a->data = NEW_HANDLE;
		v32 = 256;
		if (a->attr_id == UVERBS_ATTR_CREATE_CQ_RESP_CQE)
			put(a, &v32, sizeof(v32));
		break;
	case UVERBS_OBJECT_QP << 8 | UVERBS_METHOD_QP_CREATE: {
		struct ib_uverbs_qp_cap cap = { .max_send_wr = 64,
						.max_recv_wr = 32,
						.max_send_sge = 2,
						.max_recv_sge = 1,
						.max_inline_data = 60 };

		if (a->attr_id == UVERBS_ATTR_CREATE_QP_HANDLE)
			a->data = NEW_HANDLE;
		v32 = NEW_QPN;
		if (a->attr_id == UVERBS_ATTR_CREATE_QP_RESP_QP_NUM)
			put(a, &v32, sizeof(v32));
		if (a->attr_id == UVERBS_ATTR_CREATE_QP_RESP_CAP)
			put(a, &cap, sizeof(cap));
		break;
	}
	case IBV_K65_OBJECT_COMP_CNTR << 8 | IBV_K65_METHOD_COMP_CNTR_READ:
		v64 = a->attr_id == IBV_K65_ATTR_READ_COMP_CNTR_RESP_VALUE ?
			      1234 :
			      0;
		if (a->attr_id == IBV_K65_ATTR_READ_COMP_CNTR_RESP_VALUE)
			put(a, &v64, sizeof(v64));
		break;
	}
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
	if (!kern.ioctls++) {
		kern.hdr = *hdr;
		if (hdr->num_attrs <= 32)
			memcpy(kern.attrs, hdr->attrs,
			       hdr->num_attrs * sizeof(hdr->attrs[0]));
	}
	if (kern.fail) {
		errno = kern.fail;
		return -1;
	}
	for (i = 0; i < hdr->num_attrs; i++)
		answer(hdr->object_id, hdr->method_id, &hdr->attrs[i]);
	return 0;
}

/*
 * The write() commands of a kernel without the ioctl method: REG_MR and
 * GET_CONTEXT answered, every other one recorded and refused (EINVAL).
 */
ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const struct ib_uverbs_reg_mr *cmd = (const void *)(hdr + 1);
	struct ib_uverbs_reg_mr_resp resp = { .mr_handle = NEW_HANDLE + 1,
					      .lkey = 33,
					      .rkey = 44 };
	struct ib_uverbs_get_context_resp ctx_resp = {
		.async_fd = NEW_FD + 1,
		.num_comp_vectors = NUM_COMP_VECTORS + 1,
	};

	if (fd != CMD_FD)
		return __real_write(fd, buf, count);
	if (!kern.writes++)
		kern.write_cmd = hdr->command;
	/* Both commands start with the response address. */
	switch (hdr->command) {
	case IB_USER_VERBS_CMD_REG_MR:
		memcpy((void *)(uintptr_t)cmd->response, &resp, sizeof(resp));
		return count;
	case IB_USER_VERBS_CMD_GET_CONTEXT:
		memcpy((void *)(uintptr_t)cmd->response, &ctx_resp,
		       sizeof(ctx_resp));
		return count;
	}
	errno = EINVAL;
	return -1;
}

static struct verbs_device vdev = { .driver_id = RDMA_DRIVER_MLX5 };
static struct verbs_plugin_device dev_hdr;
static struct verbs_context vctx;
static struct ibv_context *ctx = &vctx.context;

static const struct ib_uverbs_attr *sent(uint16_t id)
{
	unsigned int i;

	for (i = 0; i < kern.hdr.num_attrs && i < 32; i++)
		if (kern.attrs[i].attr_id == id)
			return &kern.attrs[i];
	return NULL;
}

static bool method(uint16_t obj, uint16_t meth, unsigned int nattrs)
{
	return kern.ioctls == 1 && !kern.writes && kern.hdr.object_id == obj &&
	       kern.hdr.method_id == meth &&
	       kern.hdr.driver_id == RDMA_DRIVER_MLX5 &&
	       kern.hdr.num_attrs == nattrs;
}

/* A mandatory attribute @id carrying @value inline. */
static bool in_val(uint16_t id, uint64_t value, uint16_t len)
{
	const struct ib_uverbs_attr *a = sent(id);

	return a && a->len == len && a->data == value &&
	       (a->flags & UVERBS_ATTR_F_MANDATORY);
}

static void reset(int fail)
{
	memset(&kern, 0, sizeof(kern));
	kern.fail = fail;
	stub_be_child(false);
	/* No event fd: no EVENT_FD attributes to count. */
	ctx->async_fd = -1;
	errno = 0;
}

static void test_dmah(void)
{
	struct ibv_dmah_init_attr attr = {
		.comp_mask = IBV_DMAH_INIT_ATTR_MASK_CPU_ID |
			     IBV_DMAH_INIT_ATTR_MASK_PH |
			     IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE,
		.cpu_id = 3,
		.ph = 2,
		.tph_mem_type = IBV_TPH_MEM_TYPE_PM,
	};
	const struct ib_uverbs_attr *a;
	struct verbs_dmah dmah = {};
	int ret;

	reset(0);
	ret = ibv_cmd_alloc_dmah(ctx, &dmah, &attr);
	CHECK(ret == 0 &&
		      method(IBV_K65_OBJECT_DMAH, IBV_K65_METHOD_DMAH_ALLOC, 4),
	      "alloc_dmah: DMAH_ALLOC, handle and three hints (ret %d)", ret);
	CHECK(in_val(IBV_K65_ATTR_ALLOC_DMAH_CPU_ID, 3, 4), "the CPU, a u32");
	CHECK(in_val(IBV_K65_ATTR_ALLOC_DMAH_PH, 2, 1), "the PH, one byte");
	a = sent(IBV_K65_ATTR_ALLOC_DMAH_TPH_MEM_TYPE);
	CHECK(a && a->len == 0 &&
		      a->attr_data.enum_data.elem_id == IBV_TPH_MEM_TYPE_PM,
	      "the memory type as the enum attribute's element");
	CHECK(dmah.handle == NEW_HANDLE && dmah.dmah.context == ctx,
	      "handle and context from the answer");

	reset(0);
	attr.comp_mask = IBV_DMAH_INIT_ATTR_MASK_CPU_ID;
	ret = ibv_cmd_alloc_dmah(ctx, &dmah, &attr);
	CHECK(ret == 0 && kern.hdr.num_attrs == 2 &&
		      !sent(IBV_K65_ATTR_ALLOC_DMAH_PH),
	      "hints comp_mask leaves out are not sent");

	reset(EOPNOTSUPP);
	ret = ibv_cmd_alloc_dmah(ctx, &dmah, &attr);
	CHECK(ret == EOPNOTSUPP && errno == EOPNOTSUPP,
	      "the kernel's errno, returned and in errno");

	reset(0);
	ret = ibv_cmd_free_dmah(&dmah);
	CHECK(ret == 0 &&
		      method(IBV_K65_OBJECT_DMAH, IBV_K65_METHOD_DMAH_FREE,
			     1) &&
		      in_val(IBV_K65_ATTR_FREE_DMA_HANDLE, NEW_HANDLE, 0),
	      "free_dmah: DMAH_FREE of the handle");

	reset(0);
	stub_be_child(true);
	ret = ibv_cmd_alloc_dmah(ctx, &dmah, &attr);
	CHECK(ret == EPERM && errno == EPERM && !kern.ioctls,
	      "fork child: alloc_dmah EPERM, nothing sent");
	ret = ibv_cmd_free_dmah(&dmah);
	CHECK(ret == 0 && !kern.ioctls,
	      "fork child: free_dmah frees the copy only, nothing sent");
}

static void test_reg_mr_ex(void)
{
	struct ibv_pd pd = { .context = ctx, .handle = 5 };
	struct verbs_dmah dmah = { .dmah.context = ctx, .handle = 8 };
	char mem[64];
	struct ibv_mr_init_attr attr = {
		.length = sizeof(mem),
		.access = IBV_ACCESS_LOCAL_WRITE,
		.comp_mask = IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_DMAH,
		.addr = mem,
		.dmah = &dmah.dmah,
	};
	struct verbs_mr vmr = {};
	int ret;

	reset(0);
	ret = ibv_cmd_reg_mr_ex(&pd, &vmr, &attr);
	CHECK(ret == 0 && method(IBV_K65_OBJECT_MR, IBV_K65_METHOD_REG_MR, 9),
	      "reg_mr_ex: one REG_MR ioctl, 9 attributes (ret %d, %u)", ret,
	      kern.hdr.num_attrs);
	CHECK(in_val(IBV_K65_ATTR_REG_MR_ADDR, (uintptr_t)mem, 8) &&
		      in_val(IBV_K65_ATTR_REG_MR_IOVA, (uintptr_t)mem, 8),
	      "process memory: its address, and as the IOVA by default");
	CHECK(in_val(IBV_K65_ATTR_REG_MR_LENGTH, sizeof(mem), 8) &&
		      in_val(IBV_K65_ATTR_REG_MR_ACCESS_FLAGS,
			     IBV_ACCESS_LOCAL_WRITE, 4) &&
		      in_val(IBV_K65_ATTR_REG_MR_PD_HANDLE, 5, 0) &&
		      in_val(IBV_K65_ATTR_REG_MR_DMA_HANDLE, 8, 0),
	      "length, access, the PD's and the DMA handle's handles");
	CHECK(!sent(IBV_K65_ATTR_REG_MR_FD) &&
		      !sent(IBV_K65_ATTR_REG_MR_FD_OFFSET),
	      "no dma-buf attributes for process memory");
	CHECK(vmr.ibv_mr.handle == NEW_HANDLE && vmr.ibv_mr.lkey == 11 &&
		      vmr.ibv_mr.rkey == 22 && vmr.mr_type == IBV_MR_TYPE_MR,
	      "handle and keys from the answer");

	reset(0);
	attr = (struct ibv_mr_init_attr){
		.length = 4096,
		.comp_mask = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET |
			     IBV_REG_MR_MASK_IOVA,
		.fd = 9,
		.fd_offset = 8192,
		.iova = 0x10000,
	};
	ret = ibv_cmd_reg_mr_ex(&pd, &vmr, &attr);
	CHECK(ret == 0 && method(IBV_K65_OBJECT_MR, IBV_K65_METHOD_REG_MR, 9) &&
		      in_val(IBV_K65_ATTR_REG_MR_FD, 9, 0) &&
		      in_val(IBV_K65_ATTR_REG_MR_FD_OFFSET, 8192, 8) &&
		      in_val(IBV_K65_ATTR_REG_MR_IOVA, 0x10000, 8) &&
		      !sent(IBV_K65_ATTR_REG_MR_ADDR) &&
		      !sent(IBV_K65_ATTR_REG_MR_DMA_HANDLE) &&
		      vmr.mr_type == IBV_MR_TYPE_DMABUF_MR,
	      "a dma-buf: fd, offset and IOVA, no address (ret %d)", ret);

	reset(0);
	attr.comp_mask &= ~IBV_REG_MR_MASK_IOVA;
	ret = ibv_cmd_reg_mr_ex(&pd, &vmr, &attr);
	CHECK(ret == EINVAL && !kern.ioctls,
	      "a dma-buf without an IOVA: EINVAL, nothing sent");
	reset(0);
	attr.comp_mask |= IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_ADDR;
	ret = ibv_cmd_reg_mr_ex(&pd, &vmr, &attr);
	CHECK(ret == EINVAL && !kern.ioctls,
	      "an fd and an address: EINVAL, nothing sent");

	/* A kernel before UVERBS_METHOD_REG_MR: write() REG_MR. */
	reset(EPROTONOSUPPORT);
	attr = (struct ibv_mr_init_attr){
		.length = sizeof(mem),
		.comp_mask = IBV_REG_MR_MASK_ADDR,
		.addr = mem,
	};
	ret = ibv_cmd_reg_mr_ex(&pd, &vmr, &attr);
	CHECK(ret == 0 && kern.writes == 1 &&
		      kern.write_cmd == IB_USER_VERBS_CMD_REG_MR &&
		      vmr.ibv_mr.handle == NEW_HANDLE + 1 &&
		      vmr.ibv_mr.lkey == 33,
	      "no REG_MR method: process memory through write() REG_MR");
	reset(EPROTONOSUPPORT);
	attr.comp_mask |= IBV_REG_MR_MASK_DMAH;
	attr.dmah = &dmah.dmah;
	ret = ibv_cmd_reg_mr_ex(&pd, &vmr, &attr);
	CHECK(ret == EOPNOTSUPP && !kern.writes,
	      "no REG_MR method: a DMA handle is EOPNOTSUPP");

	reset(0);
	stub_be_child(true);
	ret = ibv_cmd_reg_mr_ex(&pd, &vmr, &attr);
	CHECK(ret == EPERM && errno == EPERM && !kern.ioctls && !kern.writes,
	      "fork child: EPERM, nothing sent");
}

static void test_dmabuf_and_port_speed(void)
{
	uint64_t speed = 0;
	int ret;

	reset(0);
	ret = ibv_cmd_export_dmabuf_fd(ctx, 3);
	CHECK(ret == NEW_FD &&
		      method(IBV_K65_OBJECT_DMABUF, IBV_K65_METHOD_DMABUF_ALLOC,
			     2) &&
		      in_val(IBV_K65_ATTR_ALLOC_DMABUF_PGOFF, 3, 8),
	      "export_dmabuf_fd: DMABUF_ALLOC at the page offset, the new fd");
	reset(ENOTTY);
	ret = ibv_cmd_export_dmabuf_fd(ctx, 3);
	CHECK(ret == -1 && errno == ENOTTY, "failure: -1 and the errno");
	reset(0);
	stub_be_child(true);
	ret = ibv_cmd_export_dmabuf_fd(ctx, 3);
	CHECK(ret == -1 && errno == EPERM && !kern.ioctls,
	      "fork child: -1 with EPERM, nothing sent");

	reset(0);
	ret = ibv_cmd_query_port_speed(ctx, 2, &speed);
	CHECK(ret == 0 &&
		      method(IBV_K65_OBJECT_DEVICE,
			     IBV_K65_METHOD_QUERY_PORT_SPEED, 2) &&
		      in_val(IBV_K65_ATTR_QUERY_PORT_SPEED_PORT_NUM, 2, 8) &&
		      speed == 400000,
	      "query_port_speed: the port as a u64, the speed answered");
	reset(0);
	stub_be_child(true);
	ret = ibv_cmd_query_port_speed(ctx, 2, &speed);
	CHECK(ret == EPERM && !kern.ioctls, "fork child: EPERM, nothing sent");
}

/* A plug-in's command buffer with room for 4 attributes. */
union cmdb {
	struct ibv_command_buffer cmd;
	uint8_t room[sizeof(struct ibv_command_buffer) +
		     4 * sizeof(struct ib_uverbs_attr)];
};

static struct ibv_command_buffer *driver_buf(union cmdb *b)
{
	struct ibv_command_buffer *c = &b->cmd;

	memset(b, 0, sizeof(*b));
	c->hdr.object_id = IBV_K65_OBJECT_COMP_CNTR;
	c->hdr.method_id = IBV_K65_METHOD_COMP_CNTR_CREATE;
	c->uhw_in_idx = IBV_COMMAND_UHW_NO_INDEX;
	c->uhw_out_idx = IBV_COMMAND_UHW_NO_INDEX;
	c->next_attr = c->hdr.attrs;
	c->last_attr = c->hdr.attrs + 4;
	*c->next_attr++ = (struct ib_uverbs_attr){
		.attr_id = DRV_ATTR,
		.len = sizeof(uint32_t),
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = 3,
	};
	return c;
}

static void test_comp_cntr(void)
{
	struct ibv_qp_attach_comp_cntr_attr attach = {
		.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_RECV |
			   IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE,
	};
	struct ibv_qp qp = { .context = ctx, .handle = 6 };
	struct ibv_comp_cntr_caps caps;
	struct ibv_comp_cntr cc = {};
	uint64_t value = 0;
	union cmdb drv;
	int ret;

	reset(0);
	memset(&caps, 0xff, sizeof(caps));
	ret = ibv_cmd_query_comp_cntr_caps(ctx, &caps, sizeof(caps));
	CHECK(ret == 0 && method(IBV_K65_OBJECT_DEVICE,
				 IBV_K65_METHOD_QUERY_COMP_CNTR_CAPS, 3),
	      "query_comp_cntr_caps: one ioctl, three outputs (ret %d)", ret);
	CHECK(caps.max_counters == 64 && caps.max_value == 1ULL << 40 &&
		      caps.supported_qp_attach_ops ==
			      (IBV_QP_ATTACH_COMP_CNTR_OP_SEND |
			       IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE),
	      "caps from the answer, the ops mapped");
	reset(0);
	ret = ibv_cmd_query_comp_cntr_caps(ctx, &caps, sizeof(caps) - 1);
	CHECK(ret == EINVAL && !kern.ioctls, "a short caps struct: EINVAL");

	reset(0);
	ret = ibv_cmd_create_comp_cntr(ctx, &cc, driver_buf(&drv));
	CHECK(ret == 0 &&
		      method(IBV_K65_OBJECT_COMP_CNTR,
			     IBV_K65_METHOD_COMP_CNTR_CREATE, 2) &&
		      kern.attrs[0].attr_id ==
			      IBV_K65_ATTR_CREATE_COMP_CNTR_HANDLE &&
		      kern.attrs[1].attr_id == DRV_ATTR,
	      "create: the handle, then the driver's attribute (ret %d)", ret);
	CHECK(cc.handle == NEW_HANDLE && cc.context == ctx,
	      "handle and context from the answer");

	reset(0);
	ret = ibv_cmd_inc_err_comp_cntr(&cc, 7);
	CHECK(ret == 0 &&
		      method(IBV_K65_OBJECT_COMP_CNTR,
			     IBV_K65_METHOD_COMP_CNTR_MODIFY, 4) &&
		      in_val(IBV_K65_ATTR_MODIFY_COMP_CNTR_HANDLE, NEW_HANDLE,
			     0) &&
		      in_val(IBV_K65_ATTR_MODIFY_COMP_CNTR_ENTRY,
			     IBV_K65_COMP_CNTR_ENTRY_ERR, 8) &&
		      in_val(IBV_K65_ATTR_MODIFY_COMP_CNTR_OP,
			     IBV_K65_COMP_CNTR_MODIFY_OP_INC, 8) &&
		      in_val(IBV_K65_ATTR_MODIFY_COMP_CNTR_VALUE, 7, 8),
	      "inc_err: MODIFY of the error entry, INC by the amount");
	reset(0);
	ret = ibv_cmd_set_comp_cntr(&cc, 9);
	CHECK(ret == 0 &&
		      in_val(IBV_K65_ATTR_MODIFY_COMP_CNTR_ENTRY,
			     IBV_K65_COMP_CNTR_ENTRY_COMP, 8) &&
		      in_val(IBV_K65_ATTR_MODIFY_COMP_CNTR_OP,
			     IBV_K65_COMP_CNTR_MODIFY_OP_SET, 8),
	      "set: the completion entry, SET");
	reset(0);
	ret = ibv_cmd_set_err_comp_cntr(&cc, 9) ||
	      !in_val(IBV_K65_ATTR_MODIFY_COMP_CNTR_ENTRY,
		      IBV_K65_COMP_CNTR_ENTRY_ERR, 8);
	reset(0);
	ret |= ibv_cmd_inc_comp_cntr(&cc, 9) ||
	       !in_val(IBV_K65_ATTR_MODIFY_COMP_CNTR_OP,
		       IBV_K65_COMP_CNTR_MODIFY_OP_INC, 8);
	CHECK(!ret, "set_err and inc: their entry and op");

	reset(0);
	ret = ibv_cmd_read_comp_cntr(&cc, &value);
	CHECK(ret == 0 &&
		      method(IBV_K65_OBJECT_COMP_CNTR,
			     IBV_K65_METHOD_COMP_CNTR_READ, 3) &&
		      in_val(IBV_K65_ATTR_READ_COMP_CNTR_ENTRY,
			     IBV_K65_COMP_CNTR_ENTRY_COMP, 8) &&
		      value == 1234,
	      "read: READ of the completion entry, the value answered");
	reset(0);
	ret = ibv_cmd_read_err_comp_cntr(&cc, &value);
	CHECK(ret == 0 && in_val(IBV_K65_ATTR_READ_COMP_CNTR_ENTRY,
				 IBV_K65_COMP_CNTR_ENTRY_ERR, 8),
	      "read_err: the error entry");

	reset(0);
	ret = ibv_cmd_qp_attach_comp_cntr(&qp, &cc, &attach);
	CHECK(ret == 0 &&
		      method(IBV_K65_OBJECT_QP,
			     IBV_K65_METHOD_QP_ATTACH_COMP_CNTR, 3) &&
		      in_val(IBV_K65_ATTR_QP_ATTACH_COMP_CNTR_HANDLE, 6, 0) &&
		      in_val(IBV_K65_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE,
			     NEW_HANDLE, 0) &&
		      in_val(IBV_K65_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK,
			     IBV_K65_QP_ATTACH_COMP_CNTR_OP_RECV |
				     IBV_K65_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE,
			     4),
	      "qp_attach: the QP's and counter's handles, the ops mapped");

	reset(0);
	ret = ibv_cmd_destroy_comp_cntr(&cc);
	CHECK(ret == 0 &&
		      method(IBV_K65_OBJECT_COMP_CNTR,
			     IBV_K65_METHOD_COMP_CNTR_DESTROY, 1) &&
		      in_val(IBV_K65_ATTR_DESTROY_COMP_CNTR_HANDLE, NEW_HANDLE,
			     0),
	      "destroy: DESTROY of the handle");

	reset(0);
	stub_be_child(true);
	CHECK(ibv_cmd_create_comp_cntr(ctx, &cc, NULL) == EPERM &&
		      ibv_cmd_set_comp_cntr(&cc, 1) == EPERM &&
		      ibv_cmd_inc_err_comp_cntr(&cc, 1) == EPERM &&
		      ibv_cmd_read_comp_cntr(&cc, &value) == EPERM &&
		      ibv_cmd_query_comp_cntr_caps(ctx, &caps, sizeof(caps)) ==
			      EPERM &&
		      ibv_cmd_qp_attach_comp_cntr(&qp, &cc, &attach) == EPERM &&
		      ibv_cmd_destroy_comp_cntr(&cc) == 0 && !kern.ioctls,
	      "fork child: EPERM (destroy: 0, the copy only), nothing sent");
}

/* A plug-in's GET_CONTEXT command and response, with a private tail. */
struct drv_get_context {
	struct ibv_get_context ibv_cmd;
	uint64_t drv;
};

struct drv_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	uint64_t drv;
};

static int get_context(struct ibv_fd_arr *fds)
{
	struct drv_get_context cmd = { .drv = 0xabc };
	struct drv_get_context_resp resp = {};

	return ibv_cmd_get_context(&vctx, &cmd.ibv_cmd, sizeof(cmd), fds,
				   &resp.ibv_resp, sizeof(resp));
}

/*
 * ibv_cmd_get_context()'s fd array: UVERBS_ATTR_GET_CONTEXT_FD_ARR, the
 * ints inline up to 8 bytes, by address beyond, sent whenever the array
 * is (rdma-core 65's cmd_get_context()); GET_CONTEXT's own attributes
 * are NUM_COMP_VECTORS, CORE_SUPPORT, UHW_IN and UHW_OUT.
 */
static void test_get_context_fds(void)
{
	int one[] = { 7 }, three[] = { 7, 8, 9 };
	struct ibv_fd_arr fds = { .arr = one, .count = 1 };
	const struct ib_uverbs_attr *a;
	int ret;

	reset(0);
	ret = get_context(NULL);
	CHECK(ret == 0 && kern.ioctls == 2 &&
		      kern.hdr.object_id == UVERBS_OBJECT_DEVICE &&
		      kern.hdr.method_id == UVERBS_METHOD_GET_CONTEXT &&
		      kern.hdr.num_attrs == 4 &&
		      !sent(IBV_K65_ATTR_GET_CONTEXT_FD_ARR),
	      "get_context without fds: GET_CONTEXT, 4 attributes, no "
	      "FD_ARR (ret %d, %u)",
	      ret, kern.hdr.num_attrs);
	CHECK(ctx->async_fd == NEW_FD &&
		      ctx->num_comp_vectors == NUM_COMP_VECTORS,
	      "the event fd from ASYNC_EVENT_ALLOC, the vectors answered");

	reset(0);
	ret = get_context(&fds);
	a = sent(IBV_K65_ATTR_GET_CONTEXT_FD_ARR);
	CHECK(ret == 0 && kern.hdr.method_id == UVERBS_METHOD_GET_CONTEXT &&
		      kern.hdr.num_attrs == 5 && a && a->len == sizeof(int) &&
		      a->data == 7 && (a->flags & UVERBS_ATTR_F_MANDATORY),
	      "one fd: FD_ARR (id 2), 4 bytes inline, mandatory (ret %d)", ret);

	reset(0);
	fds = (struct ibv_fd_arr){ .arr = three, .count = 3 };
	ret = get_context(&fds);
	a = sent(IBV_K65_ATTR_GET_CONTEXT_FD_ARR);
	CHECK(ret == 0 && kern.hdr.num_attrs == 5 && a &&
		      a->len == sizeof(three) && a->data == (uintptr_t)three &&
		      (a->flags & UVERBS_ATTR_F_MANDATORY),
	      "three fds: FD_ARR of 12 bytes by address");

	reset(0);
	fds.count = 0;
	ret = get_context(&fds);
	a = sent(IBV_K65_ATTR_GET_CONTEXT_FD_ARR);
	CHECK(ret == 0 && kern.hdr.num_attrs == 5 && a && a->len == 0 &&
		      a->data == 0,
	      "an array of no fds: FD_ARR of length 0, as rdma-core 65");

	reset(0);
	fds = (struct ibv_fd_arr){ .arr = three,
				   .count = UINT16_MAX / sizeof(int) + 1 };
	ret = get_context(&fds);
	CHECK(ret == EINVAL && errno == EINVAL && !kern.ioctls && !kern.writes,
	      "more fds than an attribute holds: EINVAL, nothing sent");

	/* A kernel without FD_ARR: the write() command, without the fds. */
	reset(EPROTONOSUPPORT);
	fds = (struct ibv_fd_arr){ .arr = one, .count = 1 };
	ret = get_context(&fds);
	CHECK(ret == 0 && kern.ioctls == 1 && kern.writes == 1 &&
		      kern.write_cmd == IB_USER_VERBS_CMD_GET_CONTEXT &&
		      ctx->async_fd == NEW_FD + 1 &&
		      ctx->num_comp_vectors == NUM_COMP_VECTORS + 1,
	      "EPROTONOSUPPORT: write() GET_CONTEXT, as rdma-core 65 falls "
	      "back (ret %d)",
	      ret);

	reset(0);
	stub_be_child(true);
	ret = get_context(&fds);
	CHECK(ret == EPERM && !kern.ioctls && !kern.writes,
	      "fork child: EPERM, nothing sent");
}

static int create_cq(struct verbs_create_cq_prov_attr *prov, uint32_t flags,
		     struct ibv_command_buffer *driver)
{
	struct ibv_cq_init_attr_ex attr = { .cqe = 16 };
	struct ibv_create_cq_ex cmd = {};
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct verbs_cq vcq = {};
	int ret;

	if (driver)
		return ibv_cmd_create_cq_ex2(ctx, &attr, prov, &vcq, &cmd,
					     sizeof(cmd), &resp, sizeof(resp),
					     flags, driver);
	ret = ibv_cmd_create_cq_ex(ctx, &attr, prov, &vcq, &cmd, sizeof(cmd),
				   &resp, sizeof(resp), flags);
	if (!ret && (vcq.cq.handle != NEW_HANDLE || vcq.cq.cqe != 256))
		return -1;
	return ret;
}

/* CQ_CREATE's own attributes here: handle, CQE, user handle, vector, resp. */
#define CQ_ATTRS 5

/* A plug-in's command buffer (with room for 4) and what it holds. */
static struct ibv_command_buffer *chain(union cmdb *b, uint16_t obj,
					uint16_t meth, uint16_t attr_flags)
{
	struct ibv_command_buffer *c = driver_buf(b);

	c->hdr.object_id = obj;
	c->hdr.method_id = meth;
	c->hdr.attrs[0].flags = attr_flags;
	return c;
}

/*
 * The provider CQ buffer (rdma-core 65's ibv_icmd_create_cq()): at an
 * address, BUFFER_VA and BUFFER_LENGTH; in a dma-buf, BUFFER_FD,
 * BUFFER_OFFSET and BUFFER_LENGTH; nothing without a WITH_MEM_* flag.
 */
static void test_cq_buffer(void)
{
	static uint8_t ring[4096];
	struct verbs_create_cq_prov_attr prov = {
		.buffer = { .length = sizeof(ring), .ptr = ring },
	};
	const struct ib_uverbs_attr *a;
	union cmdb drv;
	int ret;

	reset(0);
	ret = create_cq(&prov, 0, NULL);
	CHECK(ret == 0 &&
		      method(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
			     CQ_ATTRS) &&
		      !sent(IBV_K65_ATTR_CREATE_CQ_BUFFER_VA) &&
		      !sent(IBV_K65_ATTR_CREATE_CQ_BUFFER_LENGTH),
	      "create_cq_ex, no WITH_MEM flag: no buffer attribute (ret %d)",
	      ret);

	reset(0);
	ret = create_cq(&prov, VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA, NULL);
	CHECK(ret == 0 &&
		      method(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
			     CQ_ATTRS + 2) &&
		      in_val(IBV_K65_ATTR_CREATE_CQ_BUFFER_VA, (uintptr_t)ring,
			     8) &&
		      in_val(IBV_K65_ATTR_CREATE_CQ_BUFFER_LENGTH, sizeof(ring),
			     8),
	      "WITH_MEM_VA: BUFFER_VA (8) and BUFFER_LENGTH (9), u64 (ret %d, "
	      "%u)",
	      ret, kern.hdr.num_attrs);

	reset(0);
	prov.buffer.dmabuf.fd = 12;
	prov.buffer.dmabuf.offset = 8192;
	ret = create_cq(&prov, VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF, NULL);
	a = sent(IBV_K65_ATTR_CREATE_CQ_BUFFER_FD);
	CHECK(ret == 0 &&
		      method(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
			     CQ_ATTRS + 3) &&
		      a && a->len == 0 && a->data_s64 == 12 &&
		      (a->flags & UVERBS_ATTR_F_MANDATORY) &&
		      in_val(IBV_K65_ATTR_CREATE_CQ_BUFFER_OFFSET, 8192, 8) &&
		      in_val(IBV_K65_ATTR_CREATE_CQ_BUFFER_LENGTH, sizeof(ring),
			     8) &&
		      !sent(IBV_K65_ATTR_CREATE_CQ_BUFFER_VA),
	      "WITH_MEM_DMABUF: BUFFER_FD (10), BUFFER_OFFSET (11), "
	      "BUFFER_LENGTH (ret %d)",
	      ret);

	reset(0);
	ret = create_cq(&prov,
			VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA |
				VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF,
			NULL);
	CHECK(ret == 0 && kern.hdr.num_attrs == CQ_ATTRS + 2 &&
		      sent(IBV_K65_ATTR_CREATE_CQ_BUFFER_VA) &&
		      !sent(IBV_K65_ATTR_CREATE_CQ_BUFFER_FD),
	      "both flags: the address, as rdma-core 65");

	reset(0);
	ret = create_cq(NULL, VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA, NULL);
	CHECK(ret == EINVAL && errno == EINVAL && !kern.ioctls,
	      "WITH_MEM_VA without the buffer: EINVAL, nothing sent");

	reset(0);
	ret = create_cq(&prov, VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF,
			chain(&drv, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
			      UVERBS_ATTR_F_MANDATORY));
	CHECK(ret == 0 &&
		      method(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
			     CQ_ATTRS + 4) &&
		      sent(IBV_K65_ATTR_CREATE_CQ_BUFFER_FD) &&
		      kern.attrs[CQ_ATTRS + 3].attr_id == DRV_ATTR,
	      "create_cq_ex2: the buffer, then the driver's chain (ret %d)",
	      ret);

	/* A kernel without them: no write() command carries the buffer. */
	reset(EPROTONOSUPPORT);
	ret = create_cq(&prov, VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA, NULL);
	CHECK(ret == EOPNOTSUPP && errno == EOPNOTSUPP && kern.ioctls == 1 &&
		      !kern.writes,
	      "EPROTONOSUPPORT with a buffer: EOPNOTSUPP, no write()");
	reset(EPROTONOSUPPORT);
	ret = create_cq(&prov, 0, NULL);
	CHECK(kern.writes == 1 &&
		      kern.write_cmd == (IB_USER_VERBS_CMD_FLAG_EXTENDED |
					 IB_USER_VERBS_EX_CMD_CREATE_CQ),
	      "EPROTONOSUPPORT without: the extended write() CREATE_CQ");

	reset(0);
	stub_be_child(true);
	ret = create_cq(&prov, VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA, NULL);
	CHECK(ret == EPERM && !kern.ioctls && !kern.writes,
	      "fork child: EPERM, nothing sent");
}

/* A plug-in's QP command, with a private tail (UHW_IN). */
struct drv_create_qp {
	struct ibv_create_qp_ex ibv_cmd;
	uint64_t drv;
};

static struct ibv_pd qp_pd = { .context = &vctx.context, .handle = 5 };
static struct ibv_cq qp_scq = { .handle = 6 }, qp_rcq = { .handle = 7 };
static struct verbs_qp vqp;

static int create_qp(struct ibv_command_buffer *driver, int sq_sig_all)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = &qp_scq,
		.recv_cq = &qp_rcq,
		.cap = { .max_send_wr = 10,
			 .max_recv_wr = 11,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = &qp_pd,
	};
	struct drv_create_qp cmd = { .drv = 0x1234 };
	struct ib_uverbs_ex_create_qp_resp resp = {};
	int ret;

	memset(&vqp, 0, sizeof(vqp));
	ret = ibv_cmd_create_qp_ex2(ctx, &vqp, &attr, &cmd.ibv_cmd, sizeof(cmd),
				    &resp, sizeof(resp), driver);
	if (!ret && (attr.cap.max_send_wr != 64 || attr.cap.max_recv_wr != 32 ||
		     attr.cap.max_inline_data != 60))
		return -1;
	return ret;
}

/*
 * QP_CREATE's attributes here: handle, PD, send CQ, receive CQ, type,
 * user handle, capabilities, granted capabilities, QP number, UHW_IN.
 */
#define QP_ATTRS 10

/*
 * ibv_cmd_create_qp_ex2()'s driver chain: UVERBS_METHOD_QP_CREATE with
 * the library's attributes (rdma-core 65's ibv_icmd_create_qp()) and the
 * chain's after them; without a chain, the write() command as before.
 */
static void test_qp_driver_chain(void)
{
	const struct ib_uverbs_attr *a;
	union cmdb drv;
	int ret;

	reset(0);
	ret = create_qp(chain(&drv, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
			      UVERBS_ATTR_F_MANDATORY),
			0);
	CHECK(ret == 0 && method(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
				 QP_ATTRS + 1),
	      "a driver chain: one QP_CREATE ioctl, %d attributes (ret %d, %u)",
	      QP_ATTRS + 1, ret, kern.hdr.num_attrs);
	CHECK(in_val(UVERBS_ATTR_CREATE_QP_PD_HANDLE, 5, 0) &&
		      in_val(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, 6, 0) &&
		      in_val(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, 7, 0) &&
		      in_val(UVERBS_ATTR_CREATE_QP_TYPE, IBV_QPT_RC, 8) &&
		      in_val(UVERBS_ATTR_CREATE_QP_USER_HANDLE,
			     (uintptr_t)&vqp.qp, 8),
	      "the PD, the CQs, the type and the user handle");
	a = sent(UVERBS_ATTR_CREATE_QP_CAP);
	CHECK(a && a->len == sizeof(struct ib_uverbs_qp_cap) &&
		      (a->flags & UVERBS_ATTR_F_MANDATORY) &&
		      sent(UVERBS_ATTR_CREATE_QP_RESP_CAP) &&
		      sent(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM) &&
		      in_val(UVERBS_ATTR_UHW_IN, 0x1234, 8),
	      "the capabilities in and out, the QP number, the driver's data");
	CHECK(!sent(UVERBS_ATTR_CREATE_QP_FLAGS) &&
		      !sent(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE) &&
		      !sent(UVERBS_ATTR_CREATE_QP_EVENT_FD) &&
		      kern.attrs[QP_ATTRS].attr_id == DRV_ATTR,
	      "no flags, SRQ or event fd; the chain's attribute last");
	CHECK(vqp.qp.handle == NEW_HANDLE && vqp.qp.qp_num == NEW_QPN &&
		      vqp.qp.context == ctx && vqp.qp.pd == &qp_pd &&
		      vqp.qp.state == IBV_QPS_RESET && vqp.comp_mask == 0,
	      "the QP from the answer");

	reset(0);
	ret = create_qp(chain(&drv, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
			      UVERBS_ATTR_F_MANDATORY),
			1);
	CHECK(ret == 0 && in_val(UVERBS_ATTR_CREATE_QP_FLAGS,
				 IB_UVERBS_QP_CREATE_SQ_SIG_ALL, 4),
	      "sq_sig_all: FLAGS with SQ_SIG_ALL");

	reset(0);
	ret = create_qp(NULL, 0);
	CHECK(!kern.ioctls && kern.writes == 1 &&
		      kern.write_cmd == IB_USER_VERBS_CMD_CREATE_QP,
	      "no chain: the write() CREATE_QP, no ioctl");
	reset(0);
	drv.cmd.next_attr = drv.cmd.hdr.attrs;
	ret = create_qp(&drv.cmd, 0);
	CHECK(!kern.ioctls && kern.writes == 1 &&
		      kern.write_cmd == IB_USER_VERBS_CMD_CREATE_QP,
	      "an empty chain: the same");

	/* Kernels without the method: rdma-core 65's fallback rules. */
	reset(EPROTONOSUPPORT);
	ret = create_qp(chain(&drv, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
			      UVERBS_ATTR_F_MANDATORY),
			0);
	CHECK(ret == EOPNOTSUPP && errno == EOPNOTSUPP && kern.ioctls == 1 &&
		      !kern.writes,
	      "EPROTONOSUPPORT, a mandatory driver attribute: EOPNOTSUPP");
	reset(ENOTTY);
	ret = create_qp(
		chain(&drv, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 0), 0);
	CHECK(kern.writes == 1 && kern.write_cmd == IB_USER_VERBS_CMD_CREATE_QP,
	      "ENOTTY, an optional one: the write() CREATE_QP without it");
	reset(ENOTTY);
	chain(&drv, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 0);
	drv.cmd.fallback_require_ex = 1;
	ret = create_qp(&drv.cmd, 0);
	CHECK(kern.writes == 1 &&
		      kern.write_cmd == (IB_USER_VERBS_CMD_FLAG_EXTENDED |
					 IB_USER_VERBS_EX_CMD_CREATE_QP),
	      "a chain that asks for it: the extended write() CREATE_QP");
	reset(ENOTTY);
	chain(&drv, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 0);
	drv.cmd.fallback_ioctl_only = 1;
	ret = create_qp(&drv.cmd, 0);
	CHECK(ret == EOPNOTSUPP && !kern.writes,
	      "a chain marked ioctl-only: EOPNOTSUPP");

	reset(0);
	stub_be_child(true);
	ret = create_qp(chain(&drv, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
			      UVERBS_ATTR_F_MANDATORY),
			0);
	CHECK(ret == EPERM && !kern.ioctls && !kern.writes,
	      "fork child: EPERM, nothing sent");
}

int main(void)
{
	dev_hdr.sysfs = &vdev.sysfs;
	vdev.pub = &dev_hdr;
	ctx->device = &dev_hdr.device;
	ctx->cmd_fd = CMD_FD;
	ctx->async_fd = -1;
	stub_own_context(&vctx);

	test_dmah();
	test_reg_mr_ex();
	test_dmabuf_and_port_speed();
	test_comp_cntr();
	test_get_context_fds();
	test_cq_buffer();
	test_qp_driver_chain();
	return tap_done();
}
