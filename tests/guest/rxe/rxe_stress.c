// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stress: four threads post signaled RDMA WRITEs, in chains of up to
 * eight, on one RC QP while a fifth thread polls its CQ; 10^5 operations
 * (GC_STRESS_OPS overrides the count).  Every wr_id must complete exactly
 * once, and each thread's slot on the target must end up holding its last
 * value (writes on one QP land in order).  A full send queue shows as
 * ENOMEM with *bad_wr at the first request that did not fit, and the
 * poster retries from there.  That path is made certain, not left to
 * timing: the run starts behind a SEND the target has no receive for, so
 * the send queue fills up (RNR retries without end) until the main thread
 * posts that receive.  Posters hold credits so that the CQ never
 * holds more than MAX_INFLIGHT completions.  A watchdog ends the run if
 * nothing moves for GC_STALL_S seconds, so a stall is reported instead of
 * hanging.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guest_common.h"

#define THREADS		4
#define DEFAULT_TOTAL	100000
#define CHAIN		8
#define SQ_DEPTH	128
/*
 * Completions not yet polled: kept below the CQ size, or the kernel would
 * drop completions on a full CQ.  Above the send queue's depth, so that
 * posters do run into a full send queue.
 */
#define MAX_INFLIGHT	(GC_CQ_SIZE / 2)
#define GC_STALL_S	20
/* How long the gate stays shut at most, waiting for a full send queue. */
#define GATE_MS		10000

static int total = DEFAULT_TOTAL;
static int per_thread = DEFAULT_TOTAL / THREADS;

struct stress {
	struct gc_pair p;
	struct gc_buf a, b;
	uint8_t *seen;			/* per wr_id: completions seen */
	atomic_int progress[THREADS];	/* requests each poster got out */
	atomic_int posters_done;
	atomic_int post_errors;
	atomic_int full;		/* ENOMEM returns seen */
	atomic_int polled;
	atomic_int inflight;		/* posted, completion not polled */
	atomic_bool stop;
	int dup, unknown, bad_status, poll_error;
};

struct poster_arg {
	struct stress *s;
	int t;
};

/*
 * wr_id = thread * per_thread + seq; the payload is seq + 1, from a word
 * reused only every 512 requests: by then, with at most MAX_INFLIGHT
 * requests outstanding, the request that used it before is long done.
 */
static bool take_credits(struct stress *s, int n)
{
	int cur = atomic_load(&s->inflight);

	while (cur + n <= MAX_INFLIGHT)
		if (atomic_compare_exchange_weak(&s->inflight, &cur, cur + n))
			return true;
	return false;
}

static void *poster(void *arg)
{
	struct stress *s = ((struct poster_arg *)arg)->s;
	int t = ((struct poster_arg *)arg)->t;
	uint64_t *src = (uint64_t *)(s->a.addr + t * 4096);
	struct ibv_send_wr wr[CHAIN], *bad;
	struct ibv_sge sge[CHAIN];
	int seq = 0, i, n, err;

	while (seq < per_thread && !atomic_load(&s->stop)) {
		n = per_thread - seq < CHAIN ? per_thread - seq : CHAIN;
		for (i = 0; i < n; i++) {
			src[(seq + i) % 512] = seq + i + 1;
			sge[i] = (struct ibv_sge){
				(uintptr_t)&src[(seq + i) % 512], 8,
				s->a.mr->lkey };
			memset(&wr[i], 0, sizeof(wr[i]));
			wr[i].wr_id = (uint64_t)t * per_thread + seq + i;
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			wr[i].send_flags = IBV_SEND_SIGNALED;
			wr[i].wr.rdma.remote_addr =
				(uintptr_t)s->b.addr + t * 64;
			wr[i].wr.rdma.rkey = s->b.mr->rkey;
			wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		}
		if (!take_credits(s, n)) {
			sched_yield();
			continue;
		}
		bad = NULL;
		err = ibv_post_send(s->p.qp_a, wr, &bad);
		if (!err) {
			seq += n;
		} else if (err == ENOMEM && bad >= wr && bad < wr + n) {
			/* Those before *bad_wr went out; retry from there. */
			seq += bad - wr;
			atomic_fetch_add(&s->full, 1);
			atomic_fetch_sub(&s->inflight, n - (int)(bad - wr));
			sched_yield();
		} else {
			atomic_fetch_add(&s->post_errors, 1);
			break;
		}
		atomic_store(&s->progress[t], seq);
	}
	atomic_fetch_add(&s->posters_done, 1);
	return NULL;
}

static void *poller(void *arg)
{
	struct stress *s = arg;
	struct ibv_wc wc[64];
	int i, n;

	while (atomic_load(&s->polled) < total && !atomic_load(&s->stop)) {
		n = ibv_poll_cq(s->p.cq_a, 64, wc);
		if (n < 0) {
			s->poll_error = n;
			break;
		}
		if (!n) {
			sched_yield();
			continue;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS &&
			    s->bad_status++ < 5)
				gc_diag("wr_id %llu: %s",
					(unsigned long long)wc[i].wr_id,
					gc_status_str(wc[i].status));
			if (wc[i].wr_id >= (uint64_t)total)
				s->unknown++;
			else if (s->seen[wc[i].wr_id]++)
				s->dup++;
		}
		atomic_fetch_add(&s->polled, n);
		atomic_fetch_sub(&s->inflight, n);
	}
	return NULL;
}

static int posted(struct stress *s)
{
	int i, sum = 0;

	for (i = 0; i < THREADS; i++)
		sum += atomic_load(&s->progress[i]);
	return sum;
}

/*
 * The gate: an unsignaled SEND at the head of the send queue, which the
 * target answers with RNR NAKs (rnr_retry 7 retries forever) until it has
 * a receive.  Nothing behind it completes, so the posters fill the queue.
 */
static int shut_gate(struct stress *s)
{
	return gc_post_send(s->p.qp_a, IBV_WR_SEND, &s->a, 0, 8, total, 0, 0,
			    0);
}

static int open_gate(struct stress *s)
{
	int waited = 0;

	while (!atomic_load(&s->full) && waited < GATE_MS) {
		usleep(10000);
		waited += 10;
	}
	return gc_post_recv(s->p.qp_b, &s->b, 2048, 64, 0);
}

/* Wait for the run to finish; false if it stalled. */
static bool watchdog(struct stress *s)
{
	int last = -1, now, still = 0;

	for (;;) {
		if (atomic_load(&s->polled) >= total ||
		    (atomic_load(&s->posters_done) == THREADS &&
		     atomic_load(&s->polled) >= posted(s)))
			return true;
		usleep(100000);
		now = posted(s) + atomic_load(&s->polled);
		still = now == last ? still + 1 : 0;
		last = now;
		if (still >= GC_STALL_S * 10) {
			gc_diag("stalled: posted %d, polled %d", posted(s),
				atomic_load(&s->polled));
			atomic_store(&s->stop, true);
			return false;
		}
	}
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

int main(void)
{
	struct gc_qp_caps caps = { .max_send_wr = SQ_DEPTH };
	struct poster_arg args[THREADS];
	pthread_t post[THREADS], poll;
	struct timespec t0;
	struct ibv_wc extra;
	struct stress s;
	int i, missing = 0, slots_ok = 1;
	bool moving;
	double secs;

	gc_start("rxe_stress");
	if (getenv("GC_STRESS_OPS"))
		total = atoi(getenv("GC_STRESS_OPS")) / THREADS * THREADS;
	if (total < THREADS)
		total = DEFAULT_TOTAL;
	per_thread = total / THREADS;
	memset(&s, 0, sizeof(s));
	if (!gc_ok(!gc_pair_open(&s.p, IBV_QPT_RC, &caps),
		   "RC pair with a %d-deep send queue", SQ_DEPTH))
		return gc_finish();
	s.seen = calloc(total, 1);
	if (!s.seen || gc_buf_alloc(&s.a, s.p.a.pd, THREADS * 4096,
				    GC_ACCESS_ALL, 0) ||
	    gc_buf_alloc(&s.b, s.p.b.pd, 4096, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "buffers");
		goto out;
	}
	memset(s.b.addr, 0, 4096);

	gc_ok(!shut_gate(&s), "gate: a SEND without a receive at the head");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_create(&poll, NULL, poller, &s);
	for (i = 0; i < THREADS; i++) {
		args[i] = (struct poster_arg){ &s, i };
		pthread_create(&post[i], NULL, poster, &args[i]);
	}
	gc_ok(!open_gate(&s), "gate: the receive that lets it through");
	moving = watchdog(&s);
	atomic_store(&s.stop, true);
	for (i = 0; i < THREADS; i++)
		pthread_join(post[i], NULL);
	pthread_join(poll, NULL);
	secs = elapsed(&t0);
	gc_diag("%d operations in %.1f s (%.0f/s), send queue full %d times",
		atomic_load(&s.polled), secs,
		atomic_load(&s.polled) / (secs > 0 ? secs : 1),
		atomic_load(&s.full));

	if (!moving) {
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;

		if (!ibv_query_qp(s.p.qp_a, &qa, IBV_QP_STATE, &qi))
			gc_diag("sender QP state %d", qa.qp_state);
		if (!ibv_query_qp(s.p.qp_b, &qa, IBV_QP_STATE, &qi))
			gc_diag("target QP state %d", qa.qp_state);
	}
	gc_ok(moving, "no stall of %d s", GC_STALL_S);
	gc_ok(!s.post_errors && !s.poll_error,
	      "no unexpected post (%d) or poll (%d) errors", s.post_errors,
	      s.poll_error);
	gc_ok(posted(&s) == total, "%d of %d requests posted", posted(&s),
	      total);
	gc_ok(atomic_load(&s.full) > 0,
	      "the send queue ran full: ENOMEM %d times, resumed at *bad_wr",
	      atomic_load(&s.full));
	for (i = 0; i < total; i++) {
		if (!s.seen[i] && missing++ < 8)
			gc_diag("missing wr_id %d (thread %d seq %d)", i,
				i / per_thread, i % per_thread);
	}
	gc_ok(s.polled == total && !missing,
	      "every request completed (%d completions, %d missing)",
	      atomic_load(&s.polled), missing);
	gc_ok(!s.dup && !s.unknown, "no duplicate (%d) or unknown (%d) wr_id",
	      s.dup, s.unknown);
	gc_ok(!s.bad_status, "no error completions (%d)", s.bad_status);
	gc_ok(gc_poll(s.p.cq_a, 1, &extra, 300) == 0, "nothing left over");
	for (i = 0; i < THREADS; i++)
		slots_ok &= *(uint64_t *)(s.b.addr + i * 64) ==
			    (uint64_t)per_thread;
	gc_ok(slots_ok, "each thread's last write is what the target holds");
out:
	if (s.a.mr)
		gc_buf_free(&s.a);
	if (s.b.mr)
		gc_buf_free(&s.b);
	free(s.seen);
	gc_pair_close(&s.p);
	return gc_finish();
}
