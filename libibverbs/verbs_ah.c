// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles.  Building one from a received completion is in ah.c.
 */
#include "ibverbs.h"

IBV_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
					struct ibv_ah_attr *attr)
{
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
	if (!ah || !ah->context)
		return EINVAL;
	/* In a fork child the provider frees only its user-space copy. */
	return verbs_ops(ah->context)->destroy_ah(ah);
}
