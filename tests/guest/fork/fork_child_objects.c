// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fork child does RDMA of its own through the contexts it inherited.
 *
 * librdmacm and libfabric keep one context and PD per device for the
 * whole process, so their users' children only have inherited ones.  The
 * parent here connects rxe0 and rxe1 by an RC QP with an MR on each side
 * and moves bytes; then a child made by fork(), _Fork() and a raw clone()
 * in turn, on the INHERITED contexts and PDs, allocates a PD, a
 * completion channel, CQs, QPs (one on the inherited PD), registers
 * memory on the inherited PD and on its new one, connects its two QPs
 * rxe0 -> rxe1 and moves bytes by SEND and RDMA WRITE, waits for a
 * completion event, checks that its objects name the inherited context
 * and PD as the application passed them, that the parent's objects stay
 * refused (EPERM), and exits without cleaning up.  After each child the
 * parent's traffic still runs, and the kernel's object counts
 * (`rdma resource show`) are what they were before the child: nothing the
 * child made was charged to the parent's context.  Last, several fork
 * children do the same at once, forked while a thread of the parent is in
 * the middle of its own verbs on the same context.
 *
 * On Debian's library the child's creating verbs reach the parent's
 * kernel context (some succeed through the ioctl path, the write() path
 * refuses the child with EACCES): the child's checks are guards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fork_proc.h"

#define CHILDREN 4
#define LEN 4096

static struct fp_pair parent;
static uint8_t seed = 0x40;

/* What one child makes on one inherited device. */
struct side {
	struct gc_dev dev; /* the parent's, with its context and PD */
	struct ibv_pd *pd; /* a new PD on the inherited context */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct gc_buf buf;
};

static bool side_make(struct side *s, struct gc_dev *inherited,
		      struct ibv_comp_channel *ch, bool on_inherited_pd)
{
	struct ibv_qp_init_attr attr = { 0 };

	s->dev = *inherited;
	s->pd = ibv_alloc_pd(inherited->ctx);
	s->cq = ibv_create_cq(inherited->ctx, 16, s, ch, 0);
	if (!s->pd || !s->cq)
		return false;
	attr.send_cq = s->cq;
	attr.recv_cq = s->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 8;
	attr.cap.max_recv_wr = 8;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	s->qp = ibv_create_qp(on_inherited_pd ? inherited->pd : s->pd, &attr);
	s->buf.addr = fu_map(LEN);
	s->buf.len = LEN;
	if (!s->qp || !s->buf.addr)
		return false;
	s->buf.mr = ibv_reg_mr(on_inherited_pd ? inherited->pd : s->pd,
			       s->buf.addr, LEN, GC_ACCESS_ALL);
	return s->buf.mr != NULL;
}

/* What the application sees of its new objects (fork-support.md). */
static bool side_fields_ok(struct side *s, bool on_inherited_pd)
{
	struct ibv_pd *want = on_inherited_pd ? s->dev.pd : s->pd;

	return s->pd->context == s->dev.ctx && s->cq->context == s->dev.ctx &&
	       s->cq->cq_context == s && s->qp->context == s->dev.ctx &&
	       s->qp->pd == want && s->qp->send_cq == s->cq &&
	       s->buf.mr->pd == want && s->buf.mr->context == s->dev.ctx;
}

static bool child_traffic(struct side *a, struct side *b,
			  struct ibv_comp_channel *ch, uint8_t sd)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	struct ibv_wc wc;
	void *ev_ctx;
	bool ok;

	gc_fill(a->buf.addr, LEN, sd);
	memset(b->buf.addr, 0, LEN);
	if (gc_post_recv(b->qp, &b->buf, 0, LEN / 2, 2) ||
	    ibv_req_notify_cq(b->cq, 0) ||
	    gc_post_send(a->qp, IBV_WR_SEND, &a->buf, 0, LEN / 2, 1,
			 IBV_SEND_SIGNALED, 0, 0))
		return false;
	/* Bounded: a lost event must fail the check, not hang the guest. */
	if (poll(&pfd, 1, GC_TIMEOUT_MS) != 1) {
		fprintf(stderr, "completion event on channel: none in %d ms\n",
			GC_TIMEOUT_MS);
		return false;
	}
	/* The event names the child's CQ as the application knows it. */
	if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx) || ev_cq != b->cq ||
	    ev_ctx != b)
		return false;
	ibv_ack_cq_events(ev_cq, 1);
	ok = gc_poll(b->cq, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	     wc.status == IBV_WC_SUCCESS && wc.wr_id == 2 &&
	     gc_poll(a->cq, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	     wc.status == IBV_WC_SUCCESS;
	if (!ok ||
	    gc_post_send(a->qp, IBV_WR_RDMA_WRITE, &a->buf, LEN / 2, LEN / 2, 3,
			 IBV_SEND_SIGNALED, (uintptr_t)b->buf.addr + LEN / 2,
			 b->buf.mr->rkey))
		return false;
	ok = gc_poll(a->cq, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	     wc.status == IBV_WC_SUCCESS && wc.wr_id == 3;
	return ok && !memcmp(a->buf.addr, b->buf.addr, LEN);
}

/*
 * The child's work, reported as one check each; false at the first
 * failure.  Nothing is destroyed: the child exits with all of it.
 */
static bool child_rdma(const char *who, uint8_t sd, bool report)
{
	struct ibv_comp_channel *ch;
	struct side a = { 0 }, b = { 0 };
	bool ok;

	/* For side b's CQ: a channel and its CQs share a context. */
	ch = ibv_create_comp_channel(parent.p.b.ctx);
	ok = ch && ch->context == parent.p.b.ctx;
	if (report)
		fp_guard(ok, "%s: completion channel on the inherited context",
			 who);
	ok = ok && side_make(&a, &parent.p.a, NULL, true) &&
	     side_make(&b, &parent.p.b, ch, false);
	if (report)
		fp_guard(ok,
			 "%s: PD, CQs, QPs, MRs on inherited contexts and "
			 "PDs (%s)",
			 who, ok ? "ok" : strerror(errno));
	if (!ok)
		return false;
	ok = side_fields_ok(&a, true) && side_fields_ok(&b, false);
	if (report)
		fp_guard(ok,
			 "%s: the objects name the inherited context and "
			 "PD",
			 who);
	ok = ok && !gc_connect(a.qp, &a.dev, b.qp, &b.dev);
	if (report)
		fp_guard(ok, "%s: connects its QPs rxe0 -> rxe1", who);
	ok = ok && child_traffic(&a, &b, ch, sd);
	if (report)
		fp_guard(ok,
			 "%s: SEND, completion event and RDMA WRITE on its "
			 "own QPs",
			 who);
	return ok;
}

static void child_main(void *arg)
{
	const char *who = arg;

	child_rdma(who, 0x77, true);
	/* The parent's own objects are as refused as before. */
	fp_child_attack(&parent, who);
}

static void run_kind(enum fp_kind kind, const struct fp_counts *before)
{
	fp_run_unharmed(kind, child_main, &parent, before, seed++);
}

/*
 * A thread of the parent in the middle of its own verbs - creating and
 * destroying PDs, CQs and MRs on the parent's context - while the
 * children are forked: whatever library lock it holds at fork(), the
 * child must still get its own objects.
 */
static int busy_stop;
static long busy_rounds;

static void *busy_main(void *arg)
{
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;

	while (!__atomic_load_n(&busy_stop, __ATOMIC_RELAXED)) {
		pd = ibv_alloc_pd(parent.p.a.ctx);
		cq = ibv_create_cq(parent.p.a.ctx, 4, NULL, NULL, 0);
		mr = ibv_reg_mr(parent.p.a.pd, arg, 4096,
				IBV_ACCESS_LOCAL_WRITE);
		if (mr)
			ibv_dereg_mr(mr);
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		if (pd && cq && mr)
			__atomic_add_fetch(&busy_rounds, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Several children at once, each with its own objects and traffic. */
static void run_many(const struct fp_counts *before)
{
	void *page = fu_map(4096);
	pid_t pids[CHILDREN];
	pthread_t busy;
	bool started;
	int ok = 0;

	started = page && !pthread_create(&busy, NULL, busy_main, page);
	gc_ok(started, "parent: a thread creating and destroying PDs, CQs "
		       "and MRs");
	/* Let it get going, so that the forks find it mid-verb. */
	while (started && !__atomic_load_n(&busy_rounds, __ATOMIC_RELAXED))
		usleep(1000);
	for (int i = 0; i < CHILDREN; i++) {
		pids[i] = fp_spawn(FP_FORK);
		if (pids[i] == 0) {
			alarm(FP_WATCHDOG);
			_exit(child_rdma("child", 0x80 + i, false) ? 0 : 1);
		}
	}
	/* The parent's traffic runs while they do theirs. */
	fp_traffic(&parent, "parent while children run", seed++);
	for (int i = 0; i < CHILDREN; i++)
		if (pids[i] > 0 && fu_wait(pids[i]) == 0)
			ok++;
	if (started) {
		__atomic_store_n(&busy_stop, 1, __ATOMIC_RELAXED);
		pthread_join(busy, NULL);
		gc_ok(busy_rounds > 0,
		      "parent's thread: %ld rounds of its own "
		      "verbs",
		      busy_rounds);
	}
	if (page)
		fu_unmap(page, 4096);
	gc_guard(ok == CHILDREN,
		 "%d children at once: %d did RDMA of their "
		 "own",
		 CHILDREN, ok);
	fp_parent_unharmed(&parent, "many children", before, seed++);
}

int main(void)
{
	struct fp_counts before;

	if (!fp_parent_start("fork_child_objects", &parent))
		return gc_finish();
	fp_traffic(&parent, "parent before any child", seed++);
	if (!gc_ok(fp_counts_read(&before), "rdma resource show"))
		return gc_finish();

	run_kind(FP_FORK, &before);
	run_kind(FP_UFORK, &before);
	run_kind(FP_CLONE, &before);
	run_many(&before);

	fp_pair_close(&parent);
	return gc_finish();
}
