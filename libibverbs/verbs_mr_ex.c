// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_reg_mr_ex() (IBVERBS_1.15, rdma-core 65): one registration verb for
 * process memory, a dma-buf, an ibv_alloc_buf() buffer, with a DMA handle.
 *
 * As upstream (rdma-core 65 libibverbs/verbs.c and dummy_ops.c): only the
 * members comp_mask names are read, and the caller's struct is never
 * written; a buffer is turned into its address or, when it is a dma-buf's,
 * into the fd path; process memory other than on-demand paging is
 * protected from fork first, like every other registration here
 * (verbs_mr.c); a provider without a reg_mr_ex op gets the request through
 * its reg_mr or reg_dmabuf_mr op, and what those cannot express (a DMA
 * handle) fails with EOPNOTSUPP.
 */
#include <stdint.h>

#include "fork.h"
#include "ibverbs.h"

#define LEGACY_MASK                                                         \
	(IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD | \
	 IBV_REG_MR_MASK_FD_OFFSET)

/* A buffer's range as address or dma-buf members; 0 or EINVAL. */
static int resolve_buf(struct ibv_pd *pd, struct ibv_mr_init_attr *attr)
{
	struct ibv_buf *buf = attr->buf;
	uintptr_t base, addr = (uintptr_t)attr->addr;
	size_t off;

	if (!buf || buf->pd != pd || !(attr->comp_mask & IBV_REG_MR_MASK_ADDR))
		return EINVAL;
	if (attr->comp_mask & (IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET))
		return EINVAL;
	/* The range must lie inside the buffer. */
	base = (uintptr_t)buf->addr;
	if (addr < base)
		return EINVAL;
	off = addr - base;
	if (off > buf->size || attr->length > buf->size - off)
		return EINVAL;

	attr->comp_mask &= ~IBV_REG_MR_MASK_BUF;
	if (buf->dmabuf_fd == -1)
		return 0;
	/* A dma-buf's memory: registered by fd, its address as the IOVA. */
	if (attr->comp_mask & IBV_REG_MR_MASK_IOVA)
		return EINVAL;
	attr->comp_mask &= ~IBV_REG_MR_MASK_ADDR;
	attr->comp_mask |= IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET |
			   IBV_REG_MR_MASK_IOVA;
	attr->fd = buf->dmabuf_fd;
	attr->fd_offset = off;
	attr->iova = addr;
	return 0;
}

/* Upstream's default op: the request through the older registration ops. */
static struct ibv_mr *reg_mr_legacy(struct ibv_pd *pd,
				    const struct ibv_mr_init_attr *attr)
{
	const struct verbs_context_ops *ops = verbs_ops(pd->context);
	uint64_t mask = attr->comp_mask;

	if (mask & ~(uint64_t)LEGACY_MASK)
		return verbs_null_errno(EOPNOTSUPP);
	if (mask & IBV_REG_MR_MASK_FD) {
		if ((mask & IBV_REG_MR_MASK_ADDR) ||
		    !(mask & IBV_REG_MR_MASK_FD_OFFSET) ||
		    !(mask & IBV_REG_MR_MASK_IOVA))
			return verbs_null_errno(EINVAL);
		if (!ops->reg_dmabuf_mr)
			return verbs_null_errno(EOPNOTSUPP);
		return ops->reg_dmabuf_mr(pd, attr->fd_offset, attr->length,
					  attr->iova, attr->fd, attr->access);
	}
	if (!(mask & IBV_REG_MR_MASK_ADDR) ||
	    (mask & IBV_REG_MR_MASK_FD_OFFSET))
		return verbs_null_errno(EINVAL);
	if (!ops->reg_mr)
		return verbs_null_errno(EOPNOTSUPP);
	return ops->reg_mr(pd, attr->addr, attr->length,
			   (mask & IBV_REG_MR_MASK_IOVA) ?
				   attr->iova :
				   (uintptr_t)attr->addr,
			   attr->access);
}

IBV_EXPORT struct ibv_mr *ibv_reg_mr_ex(struct ibv_pd *pd,
					struct ibv_mr_init_attr *mr_init_attr)
{
	struct verbs_fork_mr *rec = NULL;
	struct ibv_mr_init_attr attr;
	bool protect;
	uint64_t mask;
	struct ibv_mr *mr;
	int err;

	if (verbs_refuse_pd(pd))
		return NULL;
	if (!mr_init_attr)
		return verbs_null_errno(EINVAL);

	mask = mr_init_attr->comp_mask;
	attr = (struct ibv_mr_init_attr){
		.length = mr_init_attr->length,
		.access = mr_init_attr->access,
		.comp_mask = mask,
		.iova = (mask & IBV_REG_MR_MASK_IOVA) ? mr_init_attr->iova : 0,
		.addr = (mask & IBV_REG_MR_MASK_ADDR) ? mr_init_attr->addr :
							NULL,
		.fd = (mask & IBV_REG_MR_MASK_FD) ? mr_init_attr->fd : 0,
		.fd_offset = (mask & IBV_REG_MR_MASK_FD_OFFSET) ?
				     mr_init_attr->fd_offset :
				     0,
		.dmah = (mask & IBV_REG_MR_MASK_DMAH) ? mr_init_attr->dmah :
							NULL,
		.buf = (mask & IBV_REG_MR_MASK_BUF) ? mr_init_attr->buf : NULL,
	};
	if (mask & IBV_REG_MR_MASK_BUF) {
		err = resolve_buf(pd, &attr);
		if (err)
			return verbs_null_errno(err);
	}
	/*
	 * A DMA handle of another process's context is the parent's.  A
	 * NULL one is the provider's to judge, as upstream leaves it.
	 */
	if (attr.dmah && verbs_refuse_ctx(attr.dmah->context))
		return NULL;

	if (!(verbs_get_device(pd->context->device)->pub->core_support &
	      IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS))
		attr.access &= ~IBV_ACCESS_OPTIONAL_RANGE;

	/*
	 * Process memory the kernel pins: protect it from fork first.  A
	 * request naming neither memory nor a dma-buf has no range to
	 * protect; the provider (or reg_mr_legacy()) refuses it.
	 */
	protect = !(attr.access & IBV_ACCESS_ON_DEMAND) &&
		  (attr.comp_mask & IBV_REG_MR_MASK_ADDR) &&
		  !(attr.comp_mask & IBV_REG_MR_MASK_FD);
	if (protect) {
		err = verbs_fork_mr_protect(attr.addr, attr.length, &rec);
		if (err)
			return verbs_null_errno(err);
	}

	if (verbs_ops(pd->context)->reg_mr_ex)
		mr = verbs_ops(pd->context)->reg_mr_ex(pd, &attr);
	else
		mr = reg_mr_legacy(pd, &attr);
	if (!mr) {
		err = errno;
		verbs_fork_mr_unprotect(rec);
		return verbs_null_errno(err);
	}

	mr->context = pd->context;
	mr->pd = pd;
	mr->length = attr.length;
	/* A dma-buf MR's address is its offset, as ibv_reg_dmabuf_mr()'s. */
	mr->addr = (attr.comp_mask & IBV_REG_MR_MASK_ADDR) ?
			   attr.addr :
			   (void *)(uintptr_t)attr.fd_offset;
	verbs_fork_mr_attach(rec, mr);
	return mr;
}
