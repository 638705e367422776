// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The child guard on a plug-in's object callbacks.
 *
 * A plug-in installs data-path functions in the objects it creates: the
 * ibv_wr_*() batch of an ibv_qp_ex, the ibv_start_poll() family of an
 * ibv_cq_ex, ibv_post_wq_recv() of an ibv_wq.  Inline verbs call them
 * straight from the application, so in a fork child they would run on the
 * parent's queues: ring its doorbell through the inherited device mapping,
 * or wait for a lock a parent thread held at fork().
 *
 * When such an object is created the library saves the plug-in's entry
 * and exit points (those that take locks or ring doorbells: wr_start,
 * wr_complete, wr_abort; start_poll, next_poll, end_poll; post_recv) in
 * the context's handle table and installs its own, which refuse an
 * inherited object with one load and compare and otherwise call the
 * plug-in's function.  A plug-in such as librxe gives every object of a
 * kind the same entry points; the context keeps that set, so the wrapper
 * finds the function with one more load.  Once an object brings other
 * ones, the context's set becomes functions that look them up per object
 * in the handle table (two loads).  The accessors between
 * (ibv_wr_send(), ibv_wc_read_*() ...) are left alone: without the entry
 * point they only touch the child's private copy of the queue memory.
 */
#include <errno.h>
#include <stdlib.h>

#include "ibverbs.h"
#include "plugin_guard.h"

enum {
	QPX_START,
	QPX_COMPLETE,
	QPX_ABORT
};
enum {
	CQX_START,
	CQX_NEXT,
	CQX_END
};
enum {
	WQ_POST_RECV
};

typedef void (*wr_start_fn)(struct ibv_qp_ex *qp);
typedef int (*wr_complete_fn)(struct ibv_qp_ex *qp);
typedef void (*wr_abort_fn)(struct ibv_qp_ex *qp);
typedef int (*start_poll_fn)(struct ibv_cq_ex *cq,
			     struct ibv_poll_cq_attr *attr);
typedef int (*next_poll_fn)(struct ibv_cq_ex *cq);
typedef void (*end_poll_fn)(struct ibv_cq_ex *cq);
typedef int (*wq_post_recv_fn)(struct ibv_wq *wq, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr);

/*
 * The plug-in's record for @obj, found from the private state loaded
 * once for the guard too; NULL with *err EPERM for an inherited object,
 * EINVAL for one the library did not wrap.  Inlined into each wrapper.
 */
static inline __attribute__((always_inline)) const struct ht_rec *
rec_of(struct ibv_context *ctx, uint32_t handle, const void *obj, int *err)
{
	const struct verbs_ex_private *priv = verbs_priv(ctx);
	const struct ht_rec *r;

	if (verbs_inherited(ctx)) {
		*err = EPERM;
		return NULL;
	}
	r = ht_get(priv->cb_table, handle, obj);
	if (__builtin_expect(!r, 0))
		*err = EINVAL;
	return r;
}

/*
 * The look-ups, for a context whose objects do not all share one set of
 * entry points.
 */

static void lookup_wr_start(struct ibv_qp_ex *qpx)
{
	const struct ht_rec *r;
	int err;

	r = rec_of(qpx->qp_base.context, qpx->qp_base.handle, qpx, &err);
	if (r)
		((wr_start_fn)r->fn[QPX_START])(qpx);
}

static int lookup_wr_complete(struct ibv_qp_ex *qpx)
{
	const struct ht_rec *r;
	int err;

	r = rec_of(qpx->qp_base.context, qpx->qp_base.handle, qpx, &err);
	return r ? ((wr_complete_fn)r->fn[QPX_COMPLETE])(qpx) : err;
}

static void lookup_wr_abort(struct ibv_qp_ex *qpx)
{
	const struct ht_rec *r;
	int err;

	r = rec_of(qpx->qp_base.context, qpx->qp_base.handle, qpx, &err);
	if (r)
		((wr_abort_fn)r->fn[QPX_ABORT])(qpx);
}

static int lookup_start_poll(struct ibv_cq_ex *cq,
			     struct ibv_poll_cq_attr *attr)
{
	const struct ht_rec *r;
	int err;

	r = rec_of(cq->context, cq->handle, cq, &err);
	return r ? ((start_poll_fn)r->fn[CQX_START])(cq, attr) : err;
}

static int lookup_next_poll(struct ibv_cq_ex *cq)
{
	const struct ht_rec *r;
	int err;

	r = rec_of(cq->context, cq->handle, cq, &err);
	return r ? ((next_poll_fn)r->fn[CQX_NEXT])(cq) : err;
}

static void lookup_end_poll(struct ibv_cq_ex *cq)
{
	const struct ht_rec *r;
	int err;

	r = rec_of(cq->context, cq->handle, cq, &err);
	if (r)
		((end_poll_fn)r->fn[CQX_END])(cq);
}

static const ht_fn qpx_lookup[3] = { (ht_fn)lookup_wr_start,
				     (ht_fn)lookup_wr_complete,
				     (ht_fn)lookup_wr_abort };
static const ht_fn cqx_lookup[3] = { (ht_fn)lookup_start_poll,
				     (ht_fn)lookup_next_poll,
				     (ht_fn)lookup_end_poll };

/*
 * The wrappers: the guard, then the context's entry point (the plug-in's
 * own, or a look-up above), from the private state loaded once.
 */
#define GUARD_FN(priv, set, i) \
	__atomic_load_n(&(priv)->set[i], __ATOMIC_RELAXED)

/* ibv_qp_ex */

static void guard_wr_start(struct ibv_qp_ex *qpx)
{
	const struct verbs_ex_private *priv = verbs_priv(qpx->qp_base.context);

	if (!verbs_inherited(qpx->qp_base.context))
		((wr_start_fn)GUARD_FN(priv, qpx_fn, QPX_START))(qpx);
}

static int guard_wr_complete(struct ibv_qp_ex *qpx)
{
	const struct verbs_ex_private *priv = verbs_priv(qpx->qp_base.context);

	if (verbs_inherited(qpx->qp_base.context))
		return EPERM;
	return ((wr_complete_fn)GUARD_FN(priv, qpx_fn, QPX_COMPLETE))(qpx);
}

static void guard_wr_abort(struct ibv_qp_ex *qpx)
{
	const struct verbs_ex_private *priv = verbs_priv(qpx->qp_base.context);

	if (!verbs_inherited(qpx->qp_base.context))
		((wr_abort_fn)GUARD_FN(priv, qpx_fn, QPX_ABORT))(qpx);
}

/* ibv_cq_ex */

static int guard_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	const struct verbs_ex_private *priv = verbs_priv(cq->context);

	if (verbs_inherited(cq->context))
		return EPERM;
	return ((start_poll_fn)GUARD_FN(priv, cqx_fn, CQX_START))(cq, attr);
}

static int guard_next_poll(struct ibv_cq_ex *cq)
{
	const struct verbs_ex_private *priv = verbs_priv(cq->context);

	if (verbs_inherited(cq->context))
		return EPERM;
	return ((next_poll_fn)GUARD_FN(priv, cqx_fn, CQX_NEXT))(cq);
}

static void guard_end_poll(struct ibv_cq_ex *cq)
{
	const struct verbs_ex_private *priv = verbs_priv(cq->context);

	if (!verbs_inherited(cq->context))
		((end_poll_fn)GUARD_FN(priv, cqx_fn, CQX_END))(cq);
}

/* ibv_wq */

static int guard_wq_post_recv(struct ibv_wq *wq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	const struct ht_rec *r;
	int err;

	r = rec_of(wq->context, wq->handle, wq, &err);
	if (!r) {
		*bad_wr = wr;
		return err;
	}
	return ((wq_post_recv_fn)r->fn[WQ_POST_RECV])(wq, wr, bad_wr);
}

/* Saving and restoring records, under the context's cb_lock. */

/*
 * Keep @set the entry points every object of the context shares, or the
 * look-ups once one differs.  A reader may see a mix of the two for a
 * moment, which is right for every object published before: their
 * entry points are the shared ones, which the look-ups find too.
 */
static void share_fns(ht_fn *set, const ht_fn *fn, const ht_fn *lookup)
{
	const ht_fn *use = fn;
	int i;

	if (set[0] == lookup[0])
		return;
	if (set[0])
		for (i = 0; i < 3; i++)
			if (set[i] != fn[i])
				use = lookup;
	for (i = 0; i < 3; i++)
		__atomic_store_n(&set[i], use[i], __ATOMIC_RELAXED);
}

static int save_rec(struct ibv_context *ctx, uint32_t handle,
		    const struct ht_rec *rec, ht_fn *set, const ht_fn *lookup)
{
	struct verbs_ex_private *priv = verbs_priv(ctx);
	int err = 0;

	verbs_proc_enter();
	pthread_mutex_lock(&priv->cb_lock);
	if (!priv->cb_table) {
		/* Readers load it only through objects created after this. */
		priv->cb_table = calloc(1, sizeof(*priv->cb_table));
		if (!priv->cb_table)
			err = ENOMEM;
	}
	if (!err)
		err = ht_set(priv->cb_table, handle, rec);
	if (!err && set)
		share_fns(set, rec->fn, lookup);
	pthread_mutex_unlock(&priv->cb_lock);
	return err;
}

/*
 * Before a plug-in destroys an object: forget its record, keeping a copy
 * in @saved so that a failed destroy can put it back
 * (verbs_guard_restore()).  The record never outlives the object, so a
 * new object at the same address and handle cannot find a stale one.  In
 * a fork child the table is the parent's business (and its lock may have
 * been held at fork()): it is left alone.
 */
void verbs_guard_drop(struct ibv_context *ctx, uint32_t handle, const void *obj,
		      struct ht_rec *saved)
{
	struct verbs_ex_private *priv = verbs_priv(ctx);
	const struct ht_rec *r;

	saved->obj = NULL;
	if (verbs_inherited_strict(ctx) || !priv->cb_table)
		return;
	verbs_proc_enter();
	pthread_mutex_lock(&priv->cb_lock);
	r = ht_get(priv->cb_table, handle, obj);
	if (r) {
		*saved = *r;
		ht_clear(priv->cb_table, handle, obj);
	}
	pthread_mutex_unlock(&priv->cb_lock);
}

void verbs_guard_restore(struct ibv_context *ctx, uint32_t handle,
			 const struct ht_rec *saved)
{
	if (saved->obj)
		save_rec(ctx, handle, saved, NULL, NULL);
}

int verbs_guard_qp_ex(struct ibv_qp_ex *qpx)
{
	struct ht_rec rec = {
		.obj = qpx,
		.fn = { (ht_fn)qpx->wr_start, (ht_fn)qpx->wr_complete,
			(ht_fn)qpx->wr_abort },
	};
	int err;

	if (!qpx->wr_start || !qpx->wr_complete || !qpx->wr_abort)
		return 0;
	err = save_rec(qpx->qp_base.context, qpx->qp_base.handle, &rec,
		       verbs_priv(qpx->qp_base.context)->qpx_fn, qpx_lookup);
	if (err)
		return err;
	qpx->wr_start = guard_wr_start;
	qpx->wr_complete = guard_wr_complete;
	qpx->wr_abort = guard_wr_abort;
	return 0;
}

int verbs_guard_cq_ex(struct ibv_cq_ex *cq)
{
	struct ht_rec rec = {
		.obj = cq,
		.fn = { (ht_fn)cq->start_poll, (ht_fn)cq->next_poll,
			(ht_fn)cq->end_poll },
	};
	int err;

	if (!cq->start_poll || !cq->next_poll || !cq->end_poll)
		return 0;
	err = save_rec(cq->context, cq->handle, &rec,
		       verbs_priv(cq->context)->cqx_fn, cqx_lookup);
	if (err)
		return err;
	cq->start_poll = guard_start_poll;
	cq->next_poll = guard_next_poll;
	cq->end_poll = guard_end_poll;
	return 0;
}

int verbs_guard_wq(struct ibv_wq *wq)
{
	struct ht_rec rec = {
		.obj = wq,
		.fn = { (ht_fn)wq->post_recv },
	};
	int err;

	if (!wq->post_recv)
		return 0;
	err = save_rec(wq->context, wq->handle, &rec, NULL, NULL);
	if (err)
		return err;
	wq->post_recv = guard_wq_post_recv;
	return 0;
}

void verbs_guard_table_free(struct verbs_ex_private *priv)
{
	if (!priv->cb_table)
		return;
	ht_free(priv->cb_table);
	free(priv->cb_table);
	priv->cb_table = NULL;
}
