// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DMA handles (rdma-core 65), for provider plug-ins: UVERBS_OBJECT_DMAH's
 * ALLOC and FREE methods.  A handle carries the CPU and the TPH steering
 * hints the device uses for the MRs registered with it; each hint is sent
 * only when the caller's comp_mask names it, as the kernel takes a
 * missing attribute for "no hint".
 */
#include "cmd_transport.h"
#include "provider_cmd.h"
#include "uverbs_ioctl_65.h"

IBV_EXPORT int ibv_cmd_alloc_dmah(struct ibv_context *ctx,
				  struct verbs_dmah *dmah,
				  struct ibv_dmah_init_attr *attr)
{
	struct ib_uverbs_attr *handle;
	struct vcmd_ioctl c;
	int err;

	if (verbs_inherited_strict(ctx))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, ctx, IBV_K65_OBJECT_DMAH,
			 IBV_K65_METHOD_DMAH_ALLOC);
	handle = vcmd_attr_new_idr(&c, IBV_K65_ATTR_ALLOC_DMAH_HANDLE);
	if (attr->comp_mask & IBV_DMAH_INIT_ATTR_MASK_CPU_ID)
		vcmd_attr_in_u32(&c, IBV_K65_ATTR_ALLOC_DMAH_CPU_ID,
				 attr->cpu_id);
	/* An enum attribute: the value is the element index, no data. */
	if (attr->comp_mask & IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE)
		vcmd_attr_enum(&c, IBV_K65_ATTR_ALLOC_DMAH_TPH_MEM_TYPE,
			       attr->tph_mem_type);
	if (attr->comp_mask & IBV_DMAH_INIT_ATTR_MASK_PH)
		vcmd_attr_in(&c, IBV_K65_ATTR_ALLOC_DMAH_PH, &attr->ph,
			     sizeof(attr->ph), true);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err)
		return vcmd_set_errno(err);

	dmah->handle = vcmd_attr_handle(handle);
	dmah->dmah.context = ctx;
	return 0;
}

IBV_EXPORT int ibv_cmd_free_dmah(struct verbs_dmah *dmah)
{
	struct ibv_context *ctx = dmah->dmah.context;
	struct vcmd_ioctl c;

	/* The parent's handle: nothing to send, the child frees its copy. */
	if (verbs_inherited_strict(ctx))
		return 0;
	vcmd_ioctl_start(&c, ctx, IBV_K65_OBJECT_DMAH,
			 IBV_K65_METHOD_DMAH_FREE);
	vcmd_attr_idr(&c, IBV_K65_ATTR_FREE_DMA_HANDLE, dmah->handle);
	return vcmd_destroy_errno(vcmd_ioctl_ctx(ctx, &c));
}
