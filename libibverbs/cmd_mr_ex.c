// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_cmd_reg_mr_ex() (rdma-core 65): the kernel's UVERBS_METHOD_REG_MR,
 * one method for process memory (ADDR) and a dma-buf (FD, FD_OFFSET),
 * with an optional DMA handle.  A kernel without the method gets process
 * memory through the write() REG_MR command instead, as upstream does; a
 * dma-buf or a DMA handle has no write() form there, and fails with
 * EOPNOTSUPP.
 */
#include <stdint.h>

#include "cmd.h"
#include "cmd_transport.h"
#include "provider_cmd.h"
#include "uverbs_ioctl_65.h"

/* Upstream's checks of the address / dma-buf combination: EINVAL. */
static int check_mr_attr(const struct ibv_mr_init_attr *attr, bool fd_based)
{
	uint64_t mask = attr->comp_mask;

	if (fd_based)
		return ((mask & IBV_REG_MR_MASK_FD_OFFSET) &&
			!(mask & IBV_REG_MR_MASK_ADDR) &&
			(mask & IBV_REG_MR_MASK_IOVA)) ?
			       0 :
			       EINVAL;
	if ((mask & IBV_REG_MR_MASK_FD_OFFSET) ||
	    !(mask & IBV_REG_MR_MASK_ADDR))
		return EINVAL;
	/* An implicit ODP region covers everything, from address 0. */
	if ((attr->access & IBV_ACCESS_ON_DEMAND) && attr->length == SIZE_MAX &&
	    attr->addr)
		return EINVAL;
	return 0;
}

static int reg_mr_ex(struct ibv_pd *pd, struct verbs_mr *vmr,
		     const struct ibv_mr_init_attr *attr)
{
	bool fd_based = attr->comp_mask & IBV_REG_MR_MASK_FD;
	uint64_t length = attr->length;
	uint64_t iova = (attr->comp_mask & IBV_REG_MR_MASK_IOVA) ?
				attr->iova :
				(uintptr_t)attr->addr;
	struct ibv_context *ctx = pd->context;
	struct ib_uverbs_attr *handle;
	uint32_t lkey = 0, rkey = 0;
	struct vcmd_ioctl c;
	int err;

	err = check_mr_attr(attr, fd_based);
	if (err)
		return err;
	if (!fd_based && (attr->access & IBV_ACCESS_ON_DEMAND) &&
	    attr->length == SIZE_MAX)
		length = UINT64_MAX;

	vcmd_ioctl_start(&c, ctx, IBV_K65_OBJECT_MR, IBV_K65_METHOD_REG_MR);
	if (fd_based) {
		vcmd_attr_in_u64(&c, IBV_K65_ATTR_REG_MR_FD_OFFSET,
				 attr->fd_offset);
		vcmd_attr_fd(&c, IBV_K65_ATTR_REG_MR_FD, attr->fd);
	} else {
		vcmd_attr_in_u64(&c, IBV_K65_ATTR_REG_MR_ADDR,
				 (uintptr_t)attr->addr);
	}
	/* The kernel needs an IOVA; process memory defaults to its address. */
	vcmd_attr_in_u64(&c, IBV_K65_ATTR_REG_MR_IOVA, iova);
	handle = vcmd_attr_new_idr(&c, IBV_K65_ATTR_REG_MR_HANDLE);
	vcmd_attr_out(&c, IBV_K65_ATTR_REG_MR_RESP_LKEY, &lkey, sizeof(lkey),
		      true);
	vcmd_attr_out(&c, IBV_K65_ATTR_REG_MR_RESP_RKEY, &rkey, sizeof(rkey),
		      true);
	vcmd_attr_idr(&c, IBV_K65_ATTR_REG_MR_PD_HANDLE, pd->handle);
	vcmd_attr_in_u64(&c, IBV_K65_ATTR_REG_MR_LENGTH, length);
	vcmd_attr_in_u32(&c, IBV_K65_ATTR_REG_MR_ACCESS_FLAGS, attr->access);
	if (attr->comp_mask & IBV_REG_MR_MASK_DMAH)
		vcmd_attr_idr(&c, IBV_K65_ATTR_REG_MR_DMA_HANDLE,
			      ((struct verbs_dmah *)attr->dmah)->handle);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err == EPROTONOSUPPORT || err == ENOTTY) {
		/* A kernel older than the method (before Linux 6.17). */
		if (fd_based || (attr->comp_mask & IBV_REG_MR_MASK_DMAH))
			return EOPNOTSUPP;
		return vcmd_reg_mr(pd, attr->addr, length, iova, attr->access,
				   vmr, NULL);
	}
	if (err)
		return err;

	vmr->ibv_mr.handle = vcmd_attr_handle(handle);
	vmr->ibv_mr.context = ctx;
	vmr->ibv_mr.lkey = lkey;
	vmr->ibv_mr.rkey = rkey;
	vmr->mr_type = fd_based ? IBV_MR_TYPE_DMABUF_MR : IBV_MR_TYPE_MR;
	vmr->access = attr->access;
	return 0;
}

IBV_EXPORT int ibv_cmd_reg_mr_ex(struct ibv_pd *pd, struct verbs_mr *vmr,
				 struct ibv_mr_init_attr *mr_init_attr)
{
	if (verbs_inherited_strict(pd->context))
		return vcmd_set_errno(EPERM);
	return vcmd_set_errno(reg_mr_ex(pd, vmr, mr_init_attr));
}
