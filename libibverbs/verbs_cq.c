// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues.  Polling and arming are data-path verbs, inline in
 * verbs.h and served by the provider directly.
 */
#include "fork_child.h"
#include "ibverbs.h"
#include "provider_guard.h"

/*
 * A channel counts the CQs that use it.  Atomics rather than ctx->mutex:
 * a fork child destroying inherited CQs must not wait for a mutex that a
 * thread of its parent held at fork().
 */
static void channel_get(struct ibv_comp_channel *channel)
{
	if (channel)
		__atomic_add_fetch(&channel->refcnt, 1, __ATOMIC_RELAXED);
}

static void channel_put(struct ibv_comp_channel *channel)
{
	if (channel)
		__atomic_sub_fetch(&channel->refcnt, 1, __ATOMIC_RELEASE);
}

static bool comp_vector_ok(struct ibv_context *ctx, int comp_vector)
{
	return comp_vector >= 0 && comp_vector < ctx->num_comp_vectors;
}

IBV_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe,
					void *cq_context,
					struct ibv_comp_channel *channel,
					int comp_vector)
{
	struct ibv_cq *cq;

	if (ctx && verbs_inherited(ctx)) {
		if (cqe <= 0 || !comp_vector_ok(ctx, comp_vector))
			return verbs_null_errno(EINVAL);
		return verbs_child_create_cq(ctx, cqe, cq_context, channel,
					     comp_vector);
	}
	if (verbs_refuse_ctx(ctx))
		return NULL;
	if (cqe <= 0 || !comp_vector_ok(ctx, comp_vector) ||
	    (channel && channel->context != ctx))
		return verbs_null_errno(EINVAL);
	if (!verbs_ops(ctx)->create_cq)
		return verbs_null_errno(EOPNOTSUPP);

	cq = verbs_ops(ctx)->create_cq(ctx, cqe, channel, comp_vector);
	if (!cq)
		return NULL;
	cq->cq_context = cq_context;
	channel_get(channel);
	return cq;
}

#define CQ_INIT_ATTR_MASK_SUPPORTED                                          \
	(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD)

/*
 * An extended CQ's callbacks reach the application only through the
 * library's wrappers (provider_guard.c): they go in when the provider has
 * made the CQ and come out before it frees it.
 */
static struct ibv_cq_ex *create_cq_guarded(struct ibv_context *ctx,
					   struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cq = verbs_ops(ctx)->create_cq_ex(ctx, attr);
	int err;

	if (!cq)
		return NULL;
	err = verbs_guard_cq_ex(cq);
	if (err) {
		verbs_ops(ctx)->destroy_cq(ibv_cq_ex_to_cq(cq));
		return verbs_null_errno(err);
	}
	return cq;
}

static int destroy_cq_guarded(struct ibv_cq *cq)
{
	struct ibv_context *ctx = cq->context;
	uint32_t handle = cq->handle;
	struct ht_rec saved;
	int err;

	/* A CQ made by create_cq has no record: nothing is dropped. */
	verbs_guard_drop(ctx, handle, cq, &saved);
	err = verbs_ops(ctx)->destroy_cq(cq);
	if (err)
		verbs_guard_restore(ctx, handle, &saved);
	return err;
}

struct ibv_cq_ex *verbs_create_cq_ex(struct ibv_context *ctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cq;

	/* A fork child's CQ goes to a context of its own (fork_child.c). */
	if (ctx && verbs_inherited(ctx))
		return verbs_child_create_cq_ex(ctx, attr);
	if (verbs_refuse_ctx(ctx))
		return NULL;
	if (!attr || attr->cqe == 0 ||
	    (attr->comp_mask & ~CQ_INIT_ATTR_MASK_SUPPORTED) ||
	    !comp_vector_ok(ctx, attr->comp_vector) ||
	    (attr->channel && attr->channel->context != ctx) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	     attr->parent_domain && attr->parent_domain->context != ctx))
		return verbs_null_errno(EINVAL);

	cq = create_cq_guarded(ctx, attr);
	if (!cq)
		return NULL;
	cq->cq_context = attr->cq_context;
	channel_get(attr->channel);
	return cq;
}

IBV_EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	int err;

	if (!cq || !cq->context)
		return EINVAL;
	/* A fork child's own CQ is resized through its real one. */
	if (verbs_inherited(cq->context) &&
	    verbs_child_resize_cq(cq, cqe, &err))
		return err;
	err = verbs_check_ctx(cq->context);
	if (err)
		return err;
	if (cqe <= 0)
		return EINVAL;
	if (!verbs_ops(cq->context)->resize_cq)
		return EOPNOTSUPP;
	return verbs_ops(cq->context)->resize_cq(cq, cqe);
}

IBV_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct ibv_comp_channel *channel;
	int err;

	if (!cq || !cq->context)
		return EINVAL;
	if (verbs_inherited(cq->context) && verbs_child_destroy_cq(cq, &err))
		return err;
	channel = cq->channel;
	/* In a fork child the provider frees only its user-space copy. */
	err = destroy_cq_guarded(cq);
	if (!err)
		channel_put(channel);
	return err;
}

IBV_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	/*
	 * In a child, an inherited CQ's count is the parent's business, and
	 * its mutex may have been held by a thread the child does not have.
	 */
	struct ibv_cq *real;

	if (!cq)
		return;
	if (verbs_inherited(cq->context)) {
		/* A child's own CQ counts on its real one. */
		real = verbs_child_real_cq(cq);
		if (real)
			ibv_ack_cq_events(real, nevents);
		return;
	}
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}
