// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions.
 *
 * Every registration of user memory, whatever verb it came through, goes
 * through register_user_memory(), which hands the range to fork support
 * first: where the kernel does not copy pinned pages on fork, the range is
 * marked MADV_DONTFORK for as long as the MR lives.  Not an on-demand
 * paging MR: the kernel pins none of its pages, it faults them in and
 * follows the process's page tables, fork() included, so there is nothing
 * to keep from a child (rdma-core v44.0 libibverbs/verbs.c tracks no
 * IBV_ACCESS_ON_DEMAND registration either).
 */
#include <stdlib.h>

#include "cmd.h"
#include "fork_child.h"
#include "ibverbs.h"

static struct verbs_mr *to_vmr(struct ibv_mr *mr)
{
	return (struct verbs_mr *)mr;
}

static struct ibv_mr *register_user_memory(struct ibv_pd *pd, void *addr,
					   size_t length, uint64_t iova,
					   unsigned int access)
{
	const struct verbs_context_ops *ops;
	struct verbs_fork_mr *rec = NULL;
	struct ibv_mr *mr;
	int err;

	if (pd && pd->context && verbs_inherited(pd->context))
		return verbs_child_reg_mr(pd, addr, length, iova, access);
	if (verbs_refuse_pd(pd))
		return NULL;
	ops = verbs_ops(pd->context);
	if (!ops->reg_mr)
		return verbs_null_errno(EOPNOTSUPP);

	/*
	 * Optional access flags are hints: a kernel that cannot take them
	 * (core_support from GET_CONTEXT lacks the bit, or the kernel
	 * predates the method) gets the registration without them, as from
	 * rdma-core 44 (libibverbs/verbs.c ibv_reg_mr_iova2).
	 */
	if (!(verbs_get_device(pd->context->device)->pub->core_support &
	      IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS))
		access &= ~IBV_ACCESS_OPTIONAL_RANGE;

	if (!(access & IBV_ACCESS_ON_DEMAND)) {
		err = verbs_fork_mr_protect(addr, length, &rec);
		if (err)
			return verbs_null_errno(err);
	}

	mr = ops->reg_mr(pd, addr, length, iova, access);
	if (!mr) {
		err = errno;
		verbs_fork_mr_unprotect(rec);
		return verbs_null_errno(err);
	}
	verbs_fork_mr_attach(rec, mr);
	return mr;
}

#undef ibv_reg_mr
IBV_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
				     size_t length, int access)
{
	return register_user_memory(pd, addr, length, (uintptr_t)addr,
				    access);
}

#undef ibv_reg_mr_iova
IBV_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					  size_t length, uint64_t iova,
					  int access)
{
	return register_user_memory(pd, addr, length, iova, access);
}

IBV_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					   size_t length, uint64_t iova,
					   unsigned int access)
{
	return register_user_memory(pd, addr, length, iova, access);
}

IBV_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd,
					    uint64_t offset, size_t length,
					    uint64_t iova, int fd, int access)
{
	if (verbs_refuse_pd(pd))
		return NULL;
	/* A dma-buf is not process memory: nothing for fork to protect. */
	if (!verbs_ops(pd->context)->reg_dmabuf_mr)
		return verbs_null_errno(EOPNOTSUPP);
	return verbs_ops(pd->context)->reg_dmabuf_mr(pd, offset, length, iova,
						     fd, access);
}

IBV_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct verbs_fork_mr *rec = NULL;
	struct ibv_context *ctx;
	int err;

	if (!mr || !mr->context)
		return EINVAL;
	ctx = mr->context;
	if (verbs_inherited(ctx) && verbs_child_dereg_mr(mr, &err))
		return err;
	/*
	 * A fork child frees only its copy (the provider sees that) and
	 * leaves the fork tracker alone: the range is the parent's.  A child
	 * made by fork() starts with an empty table; the pid check covers
	 * one that shares the parent's memory.  The record leaves the table
	 * before the MR is freed, as another thread may get the same address
	 * for a new MR at once.  Without tracking there is no record, and
	 * the provider makes the verb's one inheritance check.
	 */
	if (verbs_fork_mr_state() == VERBS_FORK_TRACKING &&
	    !verbs_inherited_strict(ctx))
		rec = verbs_fork_mr_detach(mr);

	err = verbs_ops(ctx)->dereg_mr(to_vmr(mr));
	if (err)
		verbs_fork_mr_attach(rec, mr);
	else
		verbs_fork_mr_unprotect(rec);
	return err;
}

/*
 * Validate flags and arguments as the man page defines them.  Access
 * flags without IBV_REREG_MR_CHANGE_ACCESS are an input error in
 * rdma-core 44 too.
 */
static bool rereg_args_ok(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			  void *addr, size_t length, int access)
{
	if (!mr || !mr->context || !flags ||
	    (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED))
		return false;
	if (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS))
		return false;
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!addr || !length))
		return false;
	/* A fork child's proxy PD has another (inherited) context. */
	if ((flags & IBV_REREG_MR_CHANGE_PD) &&
	    (!pd || pd->context != mr->context))
		return false;
	return to_vmr(mr)->mr_type == IBV_MR_TYPE_MR;
}

IBV_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			    void *addr, size_t length, int access)
{
	struct verbs_mr *vmr = to_vmr(mr);
	bool move = flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	struct verbs_fork_mr *rec = NULL;
	int err;

	if (!rereg_args_ok(mr, flags, pd, addr, length, access)) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	/* A fork child's own MR is re-registered through its real one. */
	if (verbs_inherited(mr->context) &&
	    verbs_child_rereg_mr(mr, flags, pd, addr, length, access, &err))
		return err;
	err = verbs_check_ctx(mr->context);
	if (err) {
		errno = err;
		return IBV_REREG_MR_ERR_INPUT;
	}
	/*
	 * A provider without the op (Debian's librxe) fails the command, as
	 * rdma-core 44's stub for it does: ERR_CMD with EOPNOTSUPP.
	 */
	if (!verbs_ops(mr->context)->rereg_mr) {
		errno = EOPNOTSUPP;
		return IBV_REREG_MR_ERR_CMD;
	}

	if (move && !((flags & IBV_REREG_MR_CHANGE_ACCESS ? access
							 : vmr->access) &
		      IBV_ACCESS_ON_DEMAND)) {
		err = verbs_fork_mr_protect(addr, length, &rec);
		if (err) {
			errno = err;
			return IBV_REREG_MR_ERR_DONT_FORK_NEW;
		}
	}

	err = verbs_ops(mr->context)->rereg_mr(vmr, flags, pd, addr, length,
					       access);
	if (err) {
		/* Best effort, as upstream: never ERR_CMD_AND_DO_FORK_NEW. */
		verbs_fork_mr_unprotect(rec);
		errno = err;
		return IBV_REREG_MR_ERR_CMD;
	}

	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		vmr->access = access;
	if (!move)
		return 0;

	mr->addr = addr;
	mr->length = length;
	/* The MR now holds the new range only; the old one is released. */
	verbs_fork_mr_unprotect(verbs_fork_mr_detach(mr));
	verbs_fork_mr_attach(rec, mr);
	return 0;
}

IBV_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct verbs_mr *vmr;
	int err;

	if (verbs_refuse_pd(pd))
		return NULL;
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return verbs_null_errno(ENOMEM);
	err = vcmd_query_mr(pd, mr_handle, vmr);
	if (err) {
		free(vmr);
		return verbs_null_errno(err);
	}
	/* The exporting process pinned and protects the memory. */
	vmr->mr_type = IBV_MR_TYPE_IMPORTED_MR;
	return &vmr->ibv_mr;
}

IBV_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	/* A child's proxy stays linked: ibv_dereg_mr() frees it. */
	if (mr && mr->context && verbs_inherited(mr->context) &&
	    verbs_child_is_proxy_mr(mr))
		return;
	free(mr);
}

IBV_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *ctx,
					uint32_t dm_handle)
{
	if (verbs_refuse_ctx(ctx))
		return NULL;
	/* No built-in provider has device memory. */
	return verbs_null_errno(EOPNOTSUPP);
}

IBV_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	/* ibv_import_dm() never hands one out, so there is nothing to free. */
}
