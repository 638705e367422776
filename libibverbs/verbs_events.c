// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Events: completion channels, completion events and asynchronous events.
 *
 * Both kinds arrive by read() on a descriptor the kernel gave the process.
 * A fork child shares those open files with its parent, so a read in the
 * child would steal the parent's events: the child guard refuses it.  The
 * events of the child's own objects arrive on its own context
 * (fork_child.c), and are read there.
 */
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "fork_child.h"
#include "ibverbs.h"

IBV_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *ctx)
{
	struct ibv_comp_channel *channel;
	int fd, err;

	if (ctx && verbs_inherited(ctx))
		return verbs_child_create_channel(ctx);
	if (verbs_refuse_ctx(ctx))
		return NULL;
	channel = calloc(1, sizeof(*channel));
	if (!channel)
		return verbs_null_errno(ENOMEM);
	err = vcmd_create_comp_channel(ctx, &fd);
	if (err) {
		free(channel);
		return verbs_null_errno(err);
	}
	channel->context = ctx;
	channel->fd = fd;
	return channel;
}

IBV_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	int busy, ret;

	if (!channel || !channel->context)
		return EINVAL;
	if (verbs_inherited(channel->context) &&
	    verbs_child_destroy_channel(channel, &ret))
		return ret;
	/* No ctx->mutex, see channel_get() in verbs_cq.c. */
	busy = __atomic_load_n(&channel->refcnt, __ATOMIC_ACQUIRE);
	if (busy)
		return EBUSY;
	/*
	 * Closing an inherited channel's descriptor in a fork child leaves
	 * the parent's copy open, unless the child shares the parent's
	 * descriptor table: then the number is the parent's.
	 */
	if (!verbs_inherited(channel->context) ||
	    !verbs_child_fd_table_shared(channel->context))
		close(channel->fd);
	free(channel);
	return 0;
}

/* read() exactly one event record; -1 with errno otherwise. */
static int read_event(int fd, void *ev, size_t len)
{
	ssize_t n = read(fd, ev, len);

	if (n == (ssize_t)len)
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

IBV_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
				struct ibv_cq **cq, void **cq_context)
{
	struct ib_uverbs_comp_event_desc ev;
	struct ibv_cq *ecq;
	int err;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	/* A child's own channel: its events name the child's proxies. */
	if (channel->context && verbs_inherited(channel->context) &&
	    verbs_child_get_cq_event(channel, cq, cq_context, &err))
		return err;
	err = verbs_check_ctx(channel->context);
	if (err) {
		errno = err;
		return -1;
	}
	if (read_event(channel->fd, &ev, sizeof(ev)))
		return -1;

	/* The CQ's user handle is its address in this process. */
	ecq = (struct ibv_cq *)(uintptr_t)ev.cq_handle;
	*cq = ecq;
	*cq_context = ecq->cq_context;
	if (verbs_ops(ecq->context)->cq_event)
		verbs_ops(ecq->context)->cq_event(ecq);
	return 0;
}

enum event_object event_object_of(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return EV_CQ;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return EV_QP;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return EV_SRQ;
	case IBV_EVENT_WQ_FATAL:
		return EV_WQ;
	default:
		/* Port and device events carry a port number or nothing. */
		return EV_NONE;
	}
}

/*
 * Name the object an event is about by its user context instead: the
 * layers that put an object of their own in front of the real one (the
 * 1.0 shells, a fork child's proxies) make the real one with theirs as
 * its user context.  A WQ event stays as it is: neither has a WQ.
 */
void verbs_event_to_user_objects(struct ibv_async_event *event)
{
	switch (event_object_of(event->event_type)) {
	case EV_CQ:
		event->element.cq = event->element.cq->cq_context;
		break;
	case EV_QP:
		event->element.qp = event->element.qp->qp_context;
		break;
	case EV_SRQ:
		event->element.srq = event->element.srq->srq_context;
		break;
	case EV_WQ:
	case EV_NONE:
		break;
	}
}

static void fill_element(struct ibv_async_event *event, uint64_t element)
{
	/* Object events carry the user handle: the object's address. */
	void *obj = (void *)(uintptr_t)element;

	switch (event_object_of(event->event_type)) {
	case EV_CQ:
		event->element.cq = obj;
		break;
	case EV_QP:
		event->element.qp = obj;
		break;
	case EV_SRQ:
		event->element.srq = obj;
		break;
	case EV_WQ:
		event->element.wq = obj;
		break;
	case EV_NONE:
		event->element.port_num = element;
		break;
	}
}

IBV_EXPORT int ibv_get_async_event(struct ibv_context *ctx,
				   struct ibv_async_event *event)
{
	struct ib_uverbs_async_event_desc ev;
	int err;

	if (!ctx || !event) {
		errno = EINVAL;
		return -1;
	}
	/* A child's: the events of its own objects, never the parent's. */
	if (verbs_inherited(ctx))
		return verbs_child_get_async_event(ctx, event);
	err = verbs_check_ctx(ctx);
	if (err) {
		errno = err;
		return -1;
	}
	if (read_event(ctx->async_fd, &ev, sizeof(ev)))
		return -1;

	event->event_type = ev.event_type;
	fill_element(event, ev.element);
	if (verbs_ops(ctx)->async_event)
		verbs_ops(ctx)->async_event(ctx, event);
	return 0;
}

/*
 * Count one more acknowledged event on the object's counter; nothing for
 * an object inherited across fork() (see ibv_ack_cq_events()).  A fork
 * child's proxy counts on its real object, whose destroy waits for it.
 */
static void ack_one(struct ibv_context *ctx, pthread_mutex_t *mutex,
		    pthread_cond_t *cond, uint32_t *completed)
{
	if (verbs_inherited(ctx))
		return;
	pthread_mutex_lock(mutex);
	(*completed)++;
	pthread_cond_signal(cond);
	pthread_mutex_unlock(mutex);
}

IBV_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_wq *wq;

	if (!event)
		return;
	switch (event_object_of(event->event_type)) {
	case EV_CQ:
		cq = event->element.cq;
		if (verbs_inherited(cq->context))
			cq = verbs_child_real_cq(cq);
		if (cq)
			ack_one(cq->context, &cq->mutex, &cq->cond,
				&cq->async_events_completed);
		break;
	case EV_QP:
		qp = event->element.qp;
		if (verbs_inherited(qp->context))
			qp = verbs_child_real_qp(qp);
		if (qp)
			ack_one(qp->context, &qp->mutex, &qp->cond,
				&qp->events_completed);
		break;
	case EV_SRQ:
		srq = event->element.srq;
		if (verbs_inherited(srq->context))
			srq = verbs_child_real_srq(srq);
		if (srq)
			ack_one(srq->context, &srq->mutex, &srq->cond,
				&srq->events_completed);
		break;
	case EV_WQ:
		wq = event->element.wq;
		ack_one(wq->context, &wq->mutex, &wq->cond,
			&wq->events_completed);
		break;
	case EV_NONE:
		break;
	}
}
