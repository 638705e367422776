// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Protection domains, including PDs imported from another process. */
#include <stdlib.h>

#include "fork_child.h"
#include "ibverbs.h"

IBV_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	/* A fork child gets a PD of its own (fork_child.c). */
	if (ctx && verbs_inherited(ctx))
		return verbs_child_alloc_pd(ctx);
	if (verbs_refuse_ctx(ctx))
		return NULL;
	if (!verbs_ops(ctx)->alloc_pd)
		return verbs_null_errno(EOPNOTSUPP);
	return verbs_ops(ctx)->alloc_pd(ctx);
}

IBV_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	void *note;
	int ret;

	if (!pd || !pd->context)
		return EINVAL;
	/* A parent domain's note goes with it (fork_child.c). */
	note = verbs_child_parent_domain_note(pd);
	if (!verbs_inherited(pd->context) || !verbs_child_dealloc_pd(pd, &ret))
		/*
		 * In a fork child the provider frees only its user-space
		 * copy: the PD belongs to the parent.
		 */
		ret = verbs_ops(pd->context)->dealloc_pd(pd);
	if (!ret)
		verbs_child_drop_note(note);
	return ret;
}

IBV_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *ctx,
					uint32_t pd_handle)
{
	struct verbs_pd *vpd;

	if (verbs_refuse_ctx(ctx))
		return NULL;
	/*
	 * The handle is valid on the shared command FD as it is; nothing
	 * needs to be asked of the kernel.
	 */
	vpd = calloc(1, sizeof(*vpd));
	if (!vpd)
		return verbs_null_errno(ENOMEM);
	vpd->pd.context = ctx;
	vpd->pd.handle = pd_handle;
	return &vpd->pd;
}

IBV_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	/* A child's proxy stays linked: ibv_dealloc_pd() frees it. */
	if (pd && pd->context && verbs_inherited(pd->context) &&
	    verbs_child_is_proxy_pd(pd))
		return;
	free(pd);
}
