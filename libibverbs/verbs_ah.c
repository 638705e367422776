// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles.  Building one from a received completion is in ah.c.
 */
#include "fork_child.h"
#include "ibverbs.h"

IBV_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
					struct ibv_ah_attr *attr)
{
	/* A fork child's AH goes to a context of its own (fork_child.c). */
	if (pd && pd->context && verbs_inherited(pd->context))
		return verbs_child_create_ah(pd, attr);
	if (verbs_refuse_pd(pd))
		return NULL;
	if (!attr)
		return verbs_null_errno(EINVAL);
	if (!verbs_ops(pd->context)->create_ah)
		return verbs_null_errno(EOPNOTSUPP);
	return verbs_ops(pd->context)->create_ah(pd, attr);
}

IBV_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	int ret;

	if (!ah || !ah->context)
		return EINVAL;
	if (verbs_inherited(ah->context) && verbs_child_destroy_ah(ah, &ret))
		return ret;
	/* In a fork child the provider frees only its user-space copy. */
	return verbs_ops(ah->context)->destroy_ah(ah);
}
