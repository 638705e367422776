// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows.  ibv_alloc_mw() and ibv_dealloc_mw() are inline in
 * verbs.h and reach these through struct ibv_context_ops; binding is a
 * data-path operation and goes straight to the provider.
 */
#include "ibverbs.h"

struct ibv_mw *verbs_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	if (verbs_refuse_pd(pd))
		return NULL;
	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2)
		return verbs_null_errno(EINVAL);
	return verbs_ops(pd->context)->alloc_mw(pd, type);
}

int verbs_dealloc_mw(struct ibv_mw *mw)
{
	if (!mw || !mw->context)
		return EINVAL;
	/* In a fork child the provider frees only its user-space copy. */
	return verbs_ops(mw->context)->dealloc_mw(mw);
}
