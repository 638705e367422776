// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues.  Posting is a data-path verb, inline in verbs.h
 * and served by the provider directly.
 */
#include "fork_child.h"
#include "ibverbs.h"

/*
 * The real SRQ behind a fork child's own SRQ (fork_child.c), whose verbs
 * go there; NULL for any other SRQ.
 */
static struct ibv_srq *child_srq(struct ibv_srq *srq)
{
	if (!srq || !srq->context || !verbs_inherited(srq->context))
		return NULL;
	return verbs_child_real_srq(srq);
}

static int check_srq(struct ibv_srq *srq)
{
	if (!srq)
		return EINVAL;
	return verbs_check_ctx(srq->context);
}

IBV_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					  struct ibv_srq_init_attr *attr)
{
	struct ibv_srq *srq;

	/* A fork child's SRQ goes to a context of its own (fork_child.c). */
	if (pd && pd->context && verbs_inherited(pd->context))
		return verbs_child_create_srq(pd, attr);
	if (verbs_refuse_pd(pd))
		return NULL;
	if (!attr)
		return verbs_null_errno(EINVAL);
	if (!verbs_ops(pd->context)->create_srq)
		return verbs_null_errno(EOPNOTSUPP);

	srq = verbs_ops(pd->context)->create_srq(pd, attr);
	if (srq)
		srq->srq_context = attr->srq_context;
	return srq;
}

/*
 * What rdma-core 44's command layer checks before the kernel sees the
 * request: unknown comp_mask bits, then the attributes each SRQ type
 * needs.  A request that could never work is EINVAL even on a provider
 * that lacks the type (EOPNOTSUPP comes after these checks).
 */
static int check_srq_ex(struct ibv_context *ctx,
			const struct ibv_srq_init_attr_ex *attr)
{
	uint32_t mask = attr->comp_mask;
	enum ibv_srq_type type = (mask & IBV_SRQ_INIT_ATTR_TYPE) ?
					 attr->srq_type : IBV_SRQT_BASIC;

	if (mask >= IBV_SRQ_INIT_ATTR_RESERVED)
		return EOPNOTSUPP;
	if (!(mask & IBV_SRQ_INIT_ATTR_PD))
		return EINVAL;
	/* A fork child's proxies have another (inherited) context. */
	if (!attr->pd || attr->pd->context != ctx ||
	    ((mask & IBV_SRQ_INIT_ATTR_CQ) && attr->cq &&
	     attr->cq->context != ctx) ||
	    ((mask & IBV_SRQ_INIT_ATTR_XRCD) && attr->xrcd &&
	     attr->xrcd->context != ctx))
		return EINVAL;
	if (type == IBV_SRQT_XRC && (!(mask & IBV_SRQ_INIT_ATTR_XRCD) ||
				     !(mask & IBV_SRQ_INIT_ATTR_CQ)))
		return EINVAL;
	if (type == IBV_SRQT_TM && (!(mask & IBV_SRQ_INIT_ATTR_CQ) ||
				    !(mask & IBV_SRQ_INIT_ATTR_TM) ||
				    !attr->tm_cap.max_num_tags))
		return EINVAL;
	return 0;
}

struct ibv_srq *verbs_create_srq_ex(struct ibv_context *ctx,
				    struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;
	int err;

	if (ctx && verbs_inherited(ctx))
		return verbs_child_create_srq_ex(ctx, attr);
	if (verbs_refuse_ctx(ctx))
		return NULL;
	if (!attr)
		return verbs_null_errno(EINVAL);
	err = check_srq_ex(ctx, attr);
	if (err)
		return verbs_null_errno(err);

	srq = verbs_ops(ctx)->create_srq_ex(ctx, attr);
	if (srq)
		srq->srq_context = attr->srq_context;
	return srq;
}

int verbs_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	struct ibv_srq *real = child_srq(srq);
	int err;

	if (real)
		return ibv_get_srq_num(real, srq_num);
	err = check_srq(srq);
	if (err)
		return err;
	if (!srq_num)
		return EINVAL;
	return verbs_ops(srq->context)->get_srq_num(srq, srq_num);
}

IBV_EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			      int attr_mask)
{
	struct ibv_srq *real = child_srq(srq);
	int err;

	if (real)
		return ibv_modify_srq(real, attr, attr_mask);
	err = check_srq(srq);

	if (err)
		return err;
	/* An empty mask is a no-op the kernel accepts (rdma-core 44 too). */
	if (!attr || (attr_mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)))
		return EINVAL;
	if (!verbs_ops(srq->context)->modify_srq)
		return EOPNOTSUPP;
	return verbs_ops(srq->context)->modify_srq(srq, attr, attr_mask);
}

IBV_EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_srq *real = child_srq(srq);
	int err;

	if (real)
		return ibv_query_srq(real, attr);
	err = check_srq(srq);

	if (err)
		return err;
	if (!attr)
		return EINVAL;
	if (!verbs_ops(srq->context)->query_srq)
		return EOPNOTSUPP;
	return verbs_ops(srq->context)->query_srq(srq, attr);
}

IBV_EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	int ret;

	if (!srq || !srq->context)
		return EINVAL;
	if (verbs_inherited(srq->context) && verbs_child_destroy_srq(srq, &ret))
		return ret;
	/* In a fork child the provider frees only its user-space copy. */
	return verbs_ops(srq->context)->destroy_srq(srq);
}
