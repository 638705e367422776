// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DMA handles (IBVERBS_1.15, rdma-core 65): the provider's alloc_dmah and
 * dealloc_dmah ops, EOPNOTSUPP where the provider has none, as upstream.
 * An inherited context or handle gets EPERM; dealloc on an inherited one
 * reaches the provider, whose ibv_cmd_free_dmah() sends nothing, so that
 * the child frees only its copy.
 */
#include "ibverbs.h"

IBV_EXPORT struct ibv_dmah *ibv_alloc_dmah(struct ibv_context *context,
					   struct ibv_dmah_init_attr *attr)
{
	if (verbs_refuse_ctx(context))
		return NULL;
	if (!attr)
		return verbs_null_errno(EINVAL);
	if (!verbs_ops(context)->alloc_dmah)
		return verbs_null_errno(EOPNOTSUPP);
	return verbs_ops(context)->alloc_dmah(context, attr);
}

IBV_EXPORT int ibv_dealloc_dmah(struct ibv_dmah *dmah)
{
	if (!dmah || !dmah->context)
		return EINVAL;
	if (!verbs_ops(dmah->context)->dealloc_dmah)
		return EOPNOTSUPP;
	return verbs_ops(dmah->context)->dealloc_dmah(dmah);
}
