// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion counters (IBVERBS_1.18, rdma-core 65): each verb is the
 * provider's op of the same name, EOPNOTSUPP where it has none (NULL and
 * errno for ibv_create_comp_cntr()), as upstream.  A counter, QP or
 * context inherited across fork() gets EPERM; ibv_destroy_comp_cntr() on
 * an inherited counter reaches the provider, whose
 * ibv_cmd_destroy_comp_cntr() sends nothing, so the child frees only its
 * copy and the parent's counter lives on.
 */
#include <string.h>

#include "ibverbs.h"

IBV_EXPORT int _ibv_query_comp_cntr_caps(struct ibv_context *context,
					 struct ibv_comp_cntr_caps *caps,
					 size_t caps_size)
{
	int err = verbs_check_ctx(context);

	if (err)
		return err;
	if (!caps)
		return EINVAL;
	/* Members a provider does not know stay 0, as upstream. */
	memset(caps, 0, caps_size);
	if (!verbs_ops(context)->query_comp_cntr_caps)
		return EOPNOTSUPP;
	return verbs_ops(context)->query_comp_cntr_caps(context, caps,
							caps_size);
}

IBV_EXPORT struct ibv_comp_cntr *
ibv_create_comp_cntr(struct ibv_context *context,
		     struct ibv_comp_cntr_init_attr *cc_attr)
{
	if (verbs_refuse_ctx(context))
		return NULL;
	if (!cc_attr)
		return verbs_null_errno(EINVAL);
	if (!verbs_ops(context)->create_comp_cntr)
		return verbs_null_errno(EOPNOTSUPP);
	return verbs_ops(context)->create_comp_cntr(context, cc_attr);
}

IBV_EXPORT int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)
{
	if (!comp_cntr || !comp_cntr->context)
		return EINVAL;
	if (!verbs_ops(comp_cntr->context)->destroy_comp_cntr)
		return EOPNOTSUPP;
	return verbs_ops(comp_cntr->context)->destroy_comp_cntr(comp_cntr);
}

/* The provider's ops for a counter's verb, or NULL and the errno. */
static const struct verbs_context_ops *cntr_ops(struct ibv_comp_cntr *cntr,
						int *err)
{
	*err = cntr ? verbs_check_ctx(cntr->context) : EINVAL;
	return *err ? NULL : verbs_ops(cntr->context);
}

#define CNTR_VERB(name, type, arg)                                           \
	IBV_EXPORT int ibv_##name(struct ibv_comp_cntr *comp_cntr, type arg) \
	{                                                                    \
		const struct verbs_context_ops *ops;                         \
		int err;                                                     \
                                                                             \
		ops = cntr_ops(comp_cntr, &err);                             \
		if (!ops)                                                    \
			return err;                                          \
		if (!ops->name)                                              \
			return EOPNOTSUPP;                                   \
		return ops->name(comp_cntr, arg);                            \
	}

CNTR_VERB(set_comp_cntr, uint64_t, value)
CNTR_VERB(set_err_comp_cntr, uint64_t, value)
CNTR_VERB(inc_comp_cntr, uint64_t, amount)
CNTR_VERB(inc_err_comp_cntr, uint64_t, amount)

/* The reads write *value: NULL is EINVAL before the provider sees it. */
#define CNTR_READ_VERB(name)                                       \
	IBV_EXPORT int ibv_##name(struct ibv_comp_cntr *comp_cntr, \
				  uint64_t *value)                 \
	{                                                          \
		const struct verbs_context_ops *ops;               \
		int err;                                           \
                                                                   \
		ops = cntr_ops(comp_cntr, &err);                   \
		if (!ops)                                          \
			return err;                                \
		if (!value)                                        \
			return EINVAL;                             \
		if (!ops->name)                                    \
			return EOPNOTSUPP;                         \
		return ops->name(comp_cntr, value);                \
	}

CNTR_READ_VERB(read_comp_cntr)
CNTR_READ_VERB(read_err_comp_cntr)

IBV_EXPORT int
ibv_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr,
			struct ibv_qp_attach_comp_cntr_attr *attr)
{
	int err;

	if (!qp || !comp_cntr || !attr)
		return EINVAL;
	err = verbs_check_ctx(qp->context);
	if (!err)
		err = verbs_check_ctx(comp_cntr->context);
	if (err)
		return err;
	if (!verbs_ops(qp->context)->qp_attach_comp_cntr)
		return EOPNOTSUPP;
	return verbs_ops(qp->context)->qp_attach_comp_cntr(qp, comp_cntr, attr);
}
