// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device memory, for provider plug-ins: allocation, free and the MR over
 * it, ioctl methods only, the plug-in's driver attributes chained behind
 * the library's.  Devices without device memory (rxe) answer the
 * kernel's errno, passed on unchanged.
 */
#include "cmd_transport.h"
#include "provider_cmd.h"

IBV_EXPORT int ibv_cmd_alloc_dm(struct ibv_context *ctx,
				const struct ibv_alloc_dm_attr *dm_attr,
				struct verbs_dm *dm,
				struct ibv_command_buffer *link)
{
	struct ib_uverbs_attr *handle;
	struct vcmd_ioctl c;
	int err;

	if (verbs_inherited_strict(ctx))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC);
	handle = vcmd_attr_new_idr(&c, UVERBS_ATTR_ALLOC_DM_HANDLE);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_ALLOC_DM_LENGTH, dm_attr->length);
	vcmd_attr_in_u32(&c, UVERBS_ATTR_ALLOC_DM_ALIGNMENT,
			 dm_attr->log_align_req);
	err = vcmd_ioctl_link(ctx, &c, link);
	if (err)
		return vcmd_set_errno(err);

	dm->handle = vcmd_attr_handle(handle);
	/* The handle is public too (ibv_import_dm() in another process). */
	dm->dm.handle = dm->handle;
	dm->dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->dm.context = ctx;
	return 0;
}

IBV_EXPORT int ibv_cmd_free_dm(struct verbs_dm *dm)
{
	struct ibv_context *ctx = dm->dm.context;
	struct vcmd_ioctl c;

	/* The parent's memory: nothing to send. */
	if (verbs_inherited_strict(ctx))
		return 0;
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE);
	vcmd_attr_idr(&c, UVERBS_ATTR_FREE_DM_HANDLE, dm->handle);
	return vcmd_destroy_errno(vcmd_ioctl_ctx(ctx, &c));
}

IBV_EXPORT int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
				 uint64_t offset, size_t length,
				 unsigned int access, struct verbs_mr *vmr,
				 struct ibv_command_buffer *link)
{
	struct ib_uverbs_attr *handle;
	uint32_t lkey = 0, rkey = 0;
	struct vcmd_ioctl c;
	int err;

	if (verbs_inherited_strict(pd->context))
		return vcmd_set_errno(EPERM);
	/*
	 * Device memory has no address in this process (any mapping of it is
	 * the plug-in's), so its MRs are addressed from 0 (ibv_reg_dm_mr(3)).
	 */
	if (!(access & IBV_ACCESS_ZERO_BASED))
		return vcmd_set_errno(EINVAL);

	vcmd_ioctl_start(&c, pd->context, UVERBS_OBJECT_MR,
			 UVERBS_METHOD_DM_MR_REG);
	handle = vcmd_attr_new_idr(&c, UVERBS_ATTR_REG_DM_MR_HANDLE);
	vcmd_attr_out(&c, UVERBS_ATTR_REG_DM_MR_RESP_LKEY, &lkey, sizeof(lkey),
		      true);
	vcmd_attr_out(&c, UVERBS_ATTR_REG_DM_MR_RESP_RKEY, &rkey, sizeof(rkey),
		      true);
	vcmd_attr_idr(&c, UVERBS_ATTR_REG_DM_MR_PD_HANDLE, pd->handle);
	vcmd_attr_idr(&c, UVERBS_ATTR_REG_DM_MR_DM_HANDLE, dm->handle);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_REG_DM_MR_OFFSET, offset);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_REG_DM_MR_LENGTH, length);
	vcmd_attr_in_u32(&c, UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, access);
	err = vcmd_ioctl_link(pd->context, &c, link);
	if (err)
		return vcmd_set_errno(err);

	vmr->ibv_mr.context = pd->context;
	vmr->ibv_mr.pd = pd;
	vmr->ibv_mr.addr = NULL;
	vmr->ibv_mr.length = length;
	vmr->ibv_mr.handle = vcmd_attr_handle(handle);
	vmr->ibv_mr.lkey = lkey;
	vmr->ibv_mr.rkey = rkey;
	/* rdma-core 44 files these under plain MRs; not process memory. */
	vmr->mr_type = IBV_MR_TYPE_MR;
	vmr->access = access;
	return 0;
}
