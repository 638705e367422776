// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: creation, state changes, multicast membership and ECE.
 * Posting is a data-path verb, inline in verbs.h and served by the
 * provider directly.
 */
#include "fork_child.h"
#include "ibverbs.h"
#include "provider_guard.h"

static struct verbs_qp *to_vqp(struct ibv_qp *qp)
{
	return (struct verbs_qp *)qp;
}

/* Check a QP and return the errno an int verb on it must return. */
static int check_qp(struct ibv_qp *qp)
{
	if (!qp)
		return EINVAL;
	return verbs_check_ctx(qp->context);
}

/*
 * The real QP behind a fork child's own QP (fork_child.c), whose verbs
 * go there; NULL for any other QP.
 */
static struct ibv_qp *child_qp(struct ibv_qp *qp)
{
	if (!qp || !qp->context || !verbs_inherited(qp->context))
		return NULL;
	return verbs_child_real_qp(qp);
}

/* What a query of the real QP names, as the application knows it. */
static void child_qp_translate(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			       int attr_mask,
			       struct ibv_qp_init_attr *init_attr)
{
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
}

/*
 * A new QP's CQs and SRQ are of its context.  A fork child's proxies are
 * of another (inherited) one: a provider would read them as its own.
 */
static bool cq_belongs(struct ibv_cq *cq, struct ibv_context *ctx)
{
	return !cq || cq->context == ctx;
}

static bool srq_belongs(struct ibv_srq *srq, struct ibv_context *ctx)
{
	return !srq || srq->context == ctx;
}

IBV_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	if (qp && (to_vqp(qp)->comp_mask & VERBS_QP_EX))
		return &to_vqp(qp)->qp_ex;
	return NULL;
}

/*
 * A QP its provider marked extended (VERBS_QP_EX, as rdma-core's
 * providers do for a QP created with send ops) hands the application the
 * members of its ibv_qp_ex; they reach it only through the library's
 * wrappers (provider_guard.c), which go in when the provider has made the
 * QP and come out before it frees it.  The library never marks a QP
 * itself: members the provider did not fill must not become reachable.
 */
static struct ibv_qp *guard_new_qp(struct ibv_context *ctx, struct ibv_qp *qp)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	int err;

	if (!qpx)
		return qp;
	err = verbs_guard_qp_ex(qpx);
	if (err) {
		verbs_ops(ctx)->destroy_qp(qp);
		return verbs_null_errno(err);
	}
	return qp;
}

static int destroy_qp_guarded(struct ibv_qp *qp)
{
	struct ibv_context *ctx = qp->context;
	uint32_t handle = qp->handle;
	struct ht_rec saved;
	int err;

	verbs_guard_drop(ctx, handle, qp, &saved);
	err = verbs_ops(ctx)->destroy_qp(qp);
	if (err)
		verbs_guard_restore(ctx, handle, &saved);
	return err;
}

IBV_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
					struct ibv_qp_init_attr *attr)
{
	struct ibv_context *ctx;
	struct ibv_qp *qp;

	/* A fork child's QP goes to a context of its own (fork_child.c). */
	if (pd && pd->context && verbs_inherited(pd->context))
		return verbs_child_create_qp(pd, attr);
	if (verbs_refuse_pd(pd))
		return NULL;
	ctx = pd->context;
	if (!attr || !cq_belongs(attr->send_cq, ctx) ||
	    !cq_belongs(attr->recv_cq, ctx) || !srq_belongs(attr->srq, ctx))
		return verbs_null_errno(EINVAL);
	if (!verbs_ops(ctx)->create_qp)
		return verbs_null_errno(EOPNOTSUPP);

	qp = guard_new_qp(ctx, verbs_ops(ctx)->create_qp(pd, attr));
	if (qp)
		qp->qp_context = attr->qp_context;
	return qp;
}

struct ibv_qp *verbs_create_qp_ex(struct ibv_context *ctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *qp;

	if (ctx && verbs_inherited(ctx))
		return verbs_child_create_qp_ex(ctx, attr);
	if (verbs_refuse_ctx(ctx))
		return NULL;
	if (!attr || !cq_belongs(attr->send_cq, ctx) ||
	    !cq_belongs(attr->recv_cq, ctx) || !srq_belongs(attr->srq, ctx))
		return verbs_null_errno(EINVAL);
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_PD) &&
	    (!attr->pd || attr->pd->context != ctx))
		return verbs_null_errno(EINVAL);
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) && attr->xrcd &&
	    attr->xrcd->context != ctx)
		return verbs_null_errno(EINVAL);

	qp = guard_new_qp(ctx, verbs_ops(ctx)->create_qp_ex(ctx, attr));
	if (qp)
		qp->qp_context = attr->qp_context;
	return qp;
}

IBV_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			    int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_qp *real = child_qp(qp);
	int err;

	if (real) {
		err = ibv_query_qp(real, attr, attr_mask, init_attr);
		if (!err)
			child_qp_translate(qp, attr, attr_mask, init_attr);
		return err;
	}
	err = check_qp(qp);
	if (err)
		return err;
	if (!attr || !init_attr)
		return EINVAL;
	if (!verbs_ops(qp->context)->query_qp)
		return EOPNOTSUPP;
	err = verbs_ops(qp->context)->query_qp(qp, attr, attr_mask, init_attr);
	if (!err && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return err;
}

IBV_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			     int attr_mask)
{
	struct ibv_qp *real = child_qp(qp);
	int err;

	if (real) {
		err = ibv_modify_qp(real, attr, attr_mask);
		if (!err && (attr_mask & IBV_QP_STATE))
			qp->state = attr->qp_state;
		return err;
	}
	err = check_qp(qp);
	if (err)
		return err;
	/* An empty mask is a no-op the kernel accepts (rdma-core 44 too). */
	if (!attr)
		return EINVAL;
	err = verbs_ops(qp->context)->modify_qp(qp, attr, attr_mask);
	if (!err && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return err;
}

IBV_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	int ret;

	if (!qp || !qp->context)
		return EINVAL;
	if (verbs_inherited(qp->context) && verbs_child_destroy_qp(qp, &ret))
		return ret;
	/* In a fork child the provider frees only its user-space copy. */
	return destroy_qp_guarded(qp);
}

#if IBV_RDMA_CORE_RELEASE >= 56
/*
 * rdma-core 56: the provider's answer, with the capabilities it returns
 * when @flags asks for them (IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS),
 * else 1 for a whole message in order.  Whole-message order implies
 * order in 128-byte units.  Upstream asks only on x86, as other CPUs may
 * see the device's writes out of order; an unknown flag, a provider
 * without the op and a QP a fork child inherited answer 0, "no
 * guarantee" (no errno: the verb has none).
 */
static int data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			 uint32_t flags)
{
#if defined(__i386__) || defined(__x86_64__)
	struct ibv_qp *real = child_qp(qp);
	int (*query)(struct ibv_qp *, enum ibv_wr_opcode, uint32_t);
	int caps;

	if (real)
		qp = real;
	if (check_qp(qp) ||
	    (flags & ~(uint32_t)IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS))
		return 0;
	query = verbs_ops(qp->context)->query_qp_data_in_order;
	if (!query)
		return 0;
	caps = query(qp, op, flags);
	if (caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG)
		caps |= IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
	if (flags)
		return caps;
	return !!(caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG);
#else
	return 0;
#endif
}
#endif

IBV_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp,
					  enum ibv_wr_opcode op,
					  uint32_t flags)
{
#if IBV_RDMA_CORE_RELEASE >= 56
	return data_in_order(qp, op, flags);
#else
	/* No built-in provider promises in-order data placement. */
	return 0;
#endif
}

/* Attach or detach: the same checks, one of two provider ops. */
static int mcast_membership(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid, bool attach)
{
	const struct verbs_context_ops *ops;
	struct ibv_qp *real = child_qp(qp);
	int err;

	/* A fork child's own UD QP joins through its real one. */
	if (real)
		return mcast_membership(real, gid, lid, attach);
	err = check_qp(qp);
	if (err)
		return err;
	if (!gid)
		return EINVAL;
	ops = verbs_ops(qp->context);
	if (attach)
		return ops->attach_mcast ? ops->attach_mcast(qp, gid, lid) :
					   EOPNOTSUPP;
	return ops->detach_mcast ? ops->detach_mcast(qp, gid, lid) :
				   EOPNOTSUPP;
}

IBV_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				uint16_t lid)
{
	return mcast_membership(qp, gid, lid, true);
}

IBV_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				uint16_t lid)
{
	return mcast_membership(qp, gid, lid, false);
}

IBV_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	struct ibv_qp *real = child_qp(qp);
	int err;

	if (real)
		return ibv_query_ece(real, ece);
	err = check_qp(qp);

	if (err)
		return err;
	if (!ece)
		return EINVAL;
	if (!verbs_ops(qp->context)->query_ece)
		return EOPNOTSUPP;
	return verbs_ops(qp->context)->query_ece(qp, ece);
}

IBV_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	struct ibv_qp *real = child_qp(qp);
	int err;

	if (real)
		return ibv_set_ece(real, ece);
	err = check_qp(qp);

	if (err)
		return err;
	if (!ece)
		return EINVAL;
	/*
	 * No vendor means no ECE to set: librdmacm passes what the peer
	 * sent and counts on EOPNOTSUPP, as upstream returns, to go on.
	 */
	if (!ece->vendor_id || !verbs_ops(qp->context)->set_ece)
		return EOPNOTSUPP;
	return verbs_ops(qp->context)->set_ece(qp, ece);
}
