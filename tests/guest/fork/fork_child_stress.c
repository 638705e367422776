// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fork child's data path on its own objects under concurrent creates
 * and destroys: the proxy table (libibverbs/fork_child.c) is looked up
 * by every post and poll while other entries are linked and unlinked.
 *
 * The parent opens rxe0 (context and PD).  A fork() child, on that
 * INHERITED context and PD, makes a CQ, an MR and one RC QP (in INIT)
 * per worker thread, then runs WORKERS threads that each post
 * ITERATIONS receives on their own QP and poll the shared CQ (empty)
 * between them, while one more thread creates and destroys CQs, QPs and
 * MRs on the same inherited context and PD ROUNDS times.  Every post
 * must succeed, every poll return 0 and every create and destroy
 * succeed; nothing may crash or hang (the child's watchdog).  The child
 * then destroys what it made.  Iterations are bounded, never timed.
 *
 * Upstream's child makes its objects on the parent's kernel context and
 * its data path passes them straight to the provider, which does the
 * same: the test passes on Debian's library too and is no guard.  What
 * it proves here is that the proxies' look-ups stay right while the
 * table changes under them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fork_proc.h"

#define WORKERS 3
#define ITERATIONS 2000
#define ROUNDS 200
#define SLOT 64

static struct gc_dev parent;

struct worker {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
	int post_err; /* first failure: errno value, or 0 */
	int poll_err;
	int done;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct ibv_sge sge = { .addr = (uintptr_t)w->buf,
			       .length = SLOT,
			       .lkey = w->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc;
	int ret;

	for (int i = 0; i < ITERATIONS; i++) {
		wr.wr_id = i;
		ret = ibv_post_recv(w->qp, &wr, &bad);
		if (ret && !w->post_err)
			w->post_err = ret;
		ret = ibv_poll_cq(w->cq, 1, &wc);
		if (ret && !w->poll_err)
			w->poll_err = ret < 0 ? -ret : 1000 + ret;
		w->done++;
	}
	return NULL;
}

struct churn {
	char *buf;
	int rounds;
	char what[128]; /* the first failure */
};

static void *churn_main(void *arg)
{
	struct churn *c = arg;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;

	for (; c->rounds < ROUNDS; c->rounds++) {
		cq = ibv_create_cq(parent.ctx, 4, NULL, NULL, 0);
		if (!cq) {
			snprintf(c->what, sizeof(c->what), "create_cq: %s",
				 strerror(errno));
			return NULL;
		}
		qp = gc_create_qp(&parent, cq, IBV_QPT_RC, NULL);
		mr = ibv_reg_mr(parent.pd, c->buf, SLOT,
				IBV_ACCESS_LOCAL_WRITE);
		if (!qp || !mr) {
			snprintf(c->what, sizeof(c->what), "create %s: %s",
				 qp ? "mr" : "qp", strerror(errno));
			return NULL;
		}
		if (ibv_dereg_mr(mr) || ibv_destroy_qp(qp) ||
		    ibv_destroy_cq(cq)) {
			snprintf(c->what, sizeof(c->what), "destroy: %s",
				 strerror(errno));
			return NULL;
		}
	}
	return NULL;
}

static bool make_worker(struct worker *w, struct ibv_cq *cq, char *buf)
{
	struct gc_qp_caps caps = { .max_send_wr = 1,
				   .max_recv_wr = ITERATIONS,
				   .max_send_sge = 1,
				   .max_recv_sge = 1 };

	memset(w, 0, sizeof(*w));
	w->cq = cq;
	w->buf = buf;
	w->mr = ibv_reg_mr(parent.pd, buf, SLOT, IBV_ACCESS_LOCAL_WRITE);
	if (!w->mr)
		return false;
	w->qp = gc_create_qp(&parent, cq, IBV_QPT_RC, &caps);
	return w->qp && !gc_qp_init(w->qp, IBV_ACCESS_LOCAL_WRITE);
}

static void child_main(void *arg)
{
	static char bufs[WORKERS + 1][SLOT];
	struct worker w[WORKERS] = { 0 };
	pthread_t t[WORKERS], ct;
	struct churn c = { .buf = bufs[WORKERS] };
	struct ibv_cq *cq;
	bool made = true, ok = true, churning;
	int i, started;

	cq = ibv_create_cq(parent.ctx, 2 * WORKERS * ITERATIONS, NULL, NULL, 0);
	if (!fp_ok(cq != NULL, "child: a CQ on the inherited context (%s)",
		   cq ? "made" : strerror(errno)))
		return;
	for (i = 0; i < WORKERS && made; i++)
		made = make_worker(&w[i], cq, bufs[i]);
	if (!fp_ok(made, "child: %d QPs in INIT and MRs on the inherited PD",
		   WORKERS))
		return;
	for (i = 0; i < WORKERS; i++)
		if (pthread_create(&t[i], NULL, worker_main, &w[i]))
			break;
	started = i;
	churning = started == WORKERS &&
		   !pthread_create(&ct, NULL, churn_main, &c);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	if (churning)
		pthread_join(ct, NULL);
	if (!fp_ok(churning, "child: %d threads started", WORKERS + 1))
		return;

	for (i = 0; i < WORKERS; i++) {
		if (w[i].post_err || w[i].poll_err || w[i].done != ITERATIONS)
			ok = false;
		if (!ok)
			fp_diag("worker %d: %d done, post %d, poll %d", i,
				w[i].done, w[i].post_err, w[i].poll_err);
	}
	fp_ok(ok,
	      "child: %d threads x %d post_recv + poll_cq on its own QPs and CQ, every one succeeded",
	      WORKERS, ITERATIONS);
	fp_ok(c.rounds == ROUNDS,
	      "child: meanwhile %d of %d rounds of CQ, QP and MR create + destroy (%s)",
	      c.rounds, ROUNDS, c.what[0] ? c.what : "all succeeded");

	ok = true;
	for (i = 0; i < WORKERS; i++) {
		if (ibv_destroy_qp(w[i].qp) || ibv_dereg_mr(w[i].mr))
			ok = false;
	}
	if (ibv_destroy_cq(cq))
		ok = false;
	fp_ok(ok, "child: destroys its QPs, MRs and CQ");
}

int main(void)
{
	int status;

	if (!fu_start("fork_child_stress"))
		return gc_finish();
	if (!gc_ok(!gc_dev_open(&parent, 0), "parent: rxe0 context and PD"))
		return gc_finish();
	fp_diag_provider();
	status = fp_run(FP_FORK, child_main, NULL, "child of fork()");
	gc_ok(status == 0, "child of fork() exited normally (%d)", status);
	gc_dev_close(&parent);
	return gc_finish();
}
