// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows.  ibv_alloc_mw() and ibv_dealloc_mw() are inline in
 * verbs.h and reach these through struct ibv_context_ops; binding is a
 * data-path operation and goes to the provider through the library's
 * wrapper (provider_context.c).  A fork child's own windows on inherited
 * PDs are made and bound through fork_child.c.
 */
#include "fork_child.h"
#include "ibverbs.h"

struct ibv_mw *verbs_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	if (!pd || !pd->context)
		return verbs_null_errno(EINVAL);
	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2)
		return verbs_null_errno(EINVAL);
	/* A fork child's window goes to a context of its own. */
	if (verbs_inherited(pd->context))
		return verbs_child_alloc_mw(pd, type);
	if (verbs_refuse_pd(pd))
		return NULL;
	return verbs_ops(pd->context)->alloc_mw(pd, type);
}

int verbs_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	if (!mw || !mw->context)
		return EINVAL;
	if (verbs_inherited(mw->context) && verbs_child_dealloc_mw(mw, &ret))
		return ret;
	/* In a fork child the provider frees only its user-space copy. */
	return verbs_ops(mw->context)->dealloc_mw(mw);
}
