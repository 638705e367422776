// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion counters (rdma-core 65), for provider plug-ins: their
 * capabilities (UVERBS_OBJECT_DEVICE), UVERBS_OBJECT_COMP_CNTR's create,
 * destroy, modify (set or add to the completion or the error count) and
 * read, and a QP's attachment (UVERBS_OBJECT_QP).  Each returns 0 or the
 * kernel's errno, also in errno; EPERM, sending nothing, on an inherited
 * context, whose destroy only lets the child free its copy.
 */
#include "cmd_transport.h"
#include "provider_cmd.h"
#include "uverbs_ioctl_65.h"

/* The uAPI's op bits, verbs.h's in the same places (uverbs_ioctl_65.h). */
static const struct {
	uint32_t verbs, kernel;
} attach_ops[] = {
	{ IBV_QP_ATTACH_COMP_CNTR_OP_SEND,
	  IBV_K65_QP_ATTACH_COMP_CNTR_OP_SEND },
	{ IBV_QP_ATTACH_COMP_CNTR_OP_RECV,
	  IBV_K65_QP_ATTACH_COMP_CNTR_OP_RECV },
	{ IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ,
	  IBV_K65_QP_ATTACH_COMP_CNTR_OP_RDMA_READ },
	{ IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ,
	  IBV_K65_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ },
	{ IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE,
	  IBV_K65_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE },
	{ IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
	  IBV_K65_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE },
};

static uint32_t ops_to_kernel(uint32_t ops)
{
	uint32_t out = 0;
	size_t i;

	for (i = 0; i < sizeof(attach_ops) / sizeof(attach_ops[0]); i++)
		if (ops & attach_ops[i].verbs)
			out |= attach_ops[i].kernel;
	return out;
}

static uint32_t ops_from_kernel(uint32_t ops)
{
	uint32_t out = 0;
	size_t i;

	for (i = 0; i < sizeof(attach_ops) / sizeof(attach_ops[0]); i++)
		if (ops & attach_ops[i].kernel)
			out |= attach_ops[i].verbs;
	return out;
}

IBV_EXPORT int ibv_cmd_query_comp_cntr_caps(struct ibv_context *context,
					    struct ibv_comp_cntr_caps *caps,
					    size_t caps_size)
{
	uint32_t max_counters = 0, kernel_ops = 0;
	uint64_t max_value = 0;
	struct vcmd_ioctl c;
	int err;

	if (verbs_inherited_strict(context))
		return vcmd_set_errno(EPERM);
	if (caps_size < sizeof(*caps))
		return vcmd_set_errno(EINVAL);
	vcmd_ioctl_start(&c, context, IBV_K65_OBJECT_DEVICE,
			 IBV_K65_METHOD_QUERY_COMP_CNTR_CAPS);
	vcmd_attr_out(&c, IBV_K65_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
		      &max_counters, sizeof(max_counters), true);
	vcmd_attr_out(&c, IBV_K65_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
		      &max_value, sizeof(max_value), true);
	vcmd_attr_out(&c,
		      IBV_K65_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS,
		      &kernel_ops, sizeof(kernel_ops), true);
	err = vcmd_ioctl_ctx(context, &c);
	if (err)
		return vcmd_set_errno(err);
	caps->max_counters = max_counters;
	caps->max_value = max_value;
	caps->supported_qp_attach_ops = ops_from_kernel(kernel_ops);
	return 0;
}

IBV_EXPORT int ibv_cmd_create_comp_cntr(struct ibv_context *context,
					struct ibv_comp_cntr *comp_cntr,
					struct ibv_command_buffer *link)
{
	struct ib_uverbs_attr *handle;
	struct vcmd_ioctl c;
	int err;

	if (verbs_inherited_strict(context))
		return vcmd_set_errno(EPERM);
	comp_cntr->context = context;
	vcmd_ioctl_start(&c, context, IBV_K65_OBJECT_COMP_CNTR,
			 IBV_K65_METHOD_COMP_CNTR_CREATE);
	handle = vcmd_attr_new_idr(&c, IBV_K65_ATTR_CREATE_COMP_CNTR_HANDLE);
	err = vcmd_ioctl_link(context, &c, link);
	if (err)
		return vcmd_set_errno(err);
	comp_cntr->handle = vcmd_attr_handle(handle);
	return 0;
}

IBV_EXPORT int ibv_cmd_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)
{
	struct ibv_context *ctx = comp_cntr->context;
	struct vcmd_ioctl c;

	/* The parent's counter: nothing to send, the child frees its copy. */
	if (verbs_inherited_strict(ctx))
		return 0;
	vcmd_ioctl_start(&c, ctx, IBV_K65_OBJECT_COMP_CNTR,
			 IBV_K65_METHOD_COMP_CNTR_DESTROY);
	vcmd_attr_idr(&c, IBV_K65_ATTR_DESTROY_COMP_CNTR_HANDLE,
		      comp_cntr->handle);
	return vcmd_destroy_errno(vcmd_ioctl_ctx(ctx, &c));
}

static int modify_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint8_t entry,
			    uint8_t op, uint64_t value)
{
	struct ibv_context *ctx = comp_cntr->context;
	struct vcmd_ioctl c;

	if (verbs_inherited_strict(ctx))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, ctx, IBV_K65_OBJECT_COMP_CNTR,
			 IBV_K65_METHOD_COMP_CNTR_MODIFY);
	vcmd_attr_idr(&c, IBV_K65_ATTR_MODIFY_COMP_CNTR_HANDLE,
		      comp_cntr->handle);
	/* Kernel "const" attributes: u64s. */
	vcmd_attr_in_u64(&c, IBV_K65_ATTR_MODIFY_COMP_CNTR_ENTRY, entry);
	vcmd_attr_in_u64(&c, IBV_K65_ATTR_MODIFY_COMP_CNTR_OP, op);
	vcmd_attr_in_u64(&c, IBV_K65_ATTR_MODIFY_COMP_CNTR_VALUE, value);
	return vcmd_set_errno(vcmd_ioctl_ctx(ctx, &c));
}

IBV_EXPORT int ibv_cmd_set_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				     uint64_t value)
{
	return modify_comp_cntr(comp_cntr, IBV_K65_COMP_CNTR_ENTRY_COMP,
				IBV_K65_COMP_CNTR_MODIFY_OP_SET, value);
}

IBV_EXPORT int ibv_cmd_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
					 uint64_t value)
{
	return modify_comp_cntr(comp_cntr, IBV_K65_COMP_CNTR_ENTRY_ERR,
				IBV_K65_COMP_CNTR_MODIFY_OP_SET, value);
}

IBV_EXPORT int ibv_cmd_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				     uint64_t amount)
{
	return modify_comp_cntr(comp_cntr, IBV_K65_COMP_CNTR_ENTRY_COMP,
				IBV_K65_COMP_CNTR_MODIFY_OP_INC, amount);
}

IBV_EXPORT int ibv_cmd_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
					 uint64_t amount)
{
	return modify_comp_cntr(comp_cntr, IBV_K65_COMP_CNTR_ENTRY_ERR,
				IBV_K65_COMP_CNTR_MODIFY_OP_INC, amount);
}

static int read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint8_t entry,
			  uint64_t *value)
{
	struct ibv_context *ctx = comp_cntr->context;
	struct vcmd_ioctl c;

	if (verbs_inherited_strict(ctx))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, ctx, IBV_K65_OBJECT_COMP_CNTR,
			 IBV_K65_METHOD_COMP_CNTR_READ);
	vcmd_attr_idr(&c, IBV_K65_ATTR_READ_COMP_CNTR_HANDLE,
		      comp_cntr->handle);
	vcmd_attr_in_u64(&c, IBV_K65_ATTR_READ_COMP_CNTR_ENTRY, entry);
	vcmd_attr_out(&c, IBV_K65_ATTR_READ_COMP_CNTR_RESP_VALUE, value,
		      sizeof(*value), true);
	return vcmd_set_errno(vcmd_ioctl_ctx(ctx, &c));
}

IBV_EXPORT int ibv_cmd_read_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				      uint64_t *value)
{
	return read_comp_cntr(comp_cntr, IBV_K65_COMP_CNTR_ENTRY_COMP, value);
}

IBV_EXPORT int ibv_cmd_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
					  uint64_t *value)
{
	return read_comp_cntr(comp_cntr, IBV_K65_COMP_CNTR_ENTRY_ERR, value);
}

IBV_EXPORT int
ibv_cmd_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr,
			    struct ibv_qp_attach_comp_cntr_attr *attr)
{
	struct vcmd_ioctl c;

	if (verbs_inherited_strict(qp->context))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, qp->context, IBV_K65_OBJECT_QP,
			 IBV_K65_METHOD_QP_ATTACH_COMP_CNTR);
	vcmd_attr_idr(&c, IBV_K65_ATTR_QP_ATTACH_COMP_CNTR_HANDLE, qp->handle);
	vcmd_attr_idr(&c, IBV_K65_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE,
		      comp_cntr->handle);
	vcmd_attr_in_u32(&c, IBV_K65_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK,
			 ops_to_kernel(attr->op_mask));
	return vcmd_set_errno(vcmd_ioctl_ctx(qp->context, &c));
}
