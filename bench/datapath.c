/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * datapath: what posting and polling cost, where the child guard sits on
 * every call.
 *
 * One process, one thread, two RC QPs connected between two devices
 * ($BENCH_DEVICE, default rxe0, and $BENCH_PEER, default rxe1): side A
 * and side B, each with its own CQ.  One thread drives both sides, so the
 * guest's two CPUs are left to the kernel's Soft-RoCE work and no thread
 * scheduling lands in the numbers.
 *
 *   lat.OP.LEN       ping-pong, half the median round trip (us): A sends
 *                    (SEND/RECV) or writes (RDMA WRITE, the peer spins on
 *                    the last byte) LEN bytes to B, B answers in kind.
 *   rate.OP.bK       64-byte SENDs or RDMA WRITEs from A to B, K work
 *                    requests per post call, every 16th signalled
 *                    (thousands of messages a second).
 *   cpu.OP.bK        user + system CPU time (getrusage) of that loop per
 *                    message: every post_send and poll_cq on both sides,
 *                    and the kernel work done in this process's context.
 *   poll_empty       one poll of an empty CQ (ns): the library and the
 *                    provider alone, no kernel.
 *
 * The same again through the extended API ("ex." after the first dot:
 * ibv_wr_* on an ibv_qp_ex, ibv_start_poll on an ibv_cq_ex) when the
 * device creates extended QPs and CQs.  Then a child is forked and reaped
 * and every loop runs again in the parent, suffix ".forked": the guard's
 * cost after a fork.  The loops after the fork run on QPs made after it:
 * on the 6.1 guest kernel the first SEND on a QP that just ran the rate
 * loops may stall for good (no completion, no error) with either library,
 * which "qp_across_fork ok|stalled" records for each pair.  It is rxe's
 * doing, not the fork's: with $BENCH_NO_FORK=1 a 100 ms sleep stands in
 * for the fork, and the SEND stalls the same way.
 *
 * Each loop runs for $BENCH_SECONDS (default 0.5).  The program prints the
 * object that holds the provider's functions ("# provider:"), so that
 * bench/run can tell a built-in provider from a plug-in.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_rc.h"
#include "bench_util.h"

#define PORT 1
#define SQ_DEPTH 256
#define RQ_DEPTH 512
#define SIG_EVERY 16
/* At most this many sends in flight: Soft-RoCE drops beyond its queues. */
#define WINDOW 128
#define BUF_SIZE (64 * 1024)
#define RECV_FLAG (1ull << 63)
#define MAX_LAT_ITERS 200000

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx;		/* set when the CQ is extended */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;		/* set when the QP is extended */
	struct ibv_mr *mr;
	char *buf;		/* first half source, second half target */
	struct bench_port port;
	unsigned int posted;		/* sends posted so far */
	unsigned int retired;		/* of which known complete */
	unsigned int recvs_seen;
	unsigned int recv_free;		/* receives to post again */
};

struct pair {
	struct side a, b;
	bool ex;
	const char *tag;		/* "" or "ex." */
	const char *suffix;		/* "" or ".forked" */
};

static double budget_ns;

/*
 * A loop that stops making progress (a lost completion, a QP in error
 * without one) must fail the run with a message, not hang the guest: every
 * loop arms an alarm of its budget plus a generous margin.
 */
static char stage[64];
static struct pair *stage_pair;

static void stuck(int sig)
{
	char msg[256];
	struct pair *p = stage_pair;
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg),
		     "datapath: no progress in %s: A posted %u retired %u "
		     "recvs %u, B posted %u retired %u recvs %u\n",
		     stage, p ? p->a.posted : 0, p ? p->a.retired : 0,
		     p ? p->a.recvs_seen : 0, p ? p->b.posted : 0,
		     p ? p->b.retired : 0, p ? p->b.recvs_seen : 0);
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	_exit(3);
}

static void __attribute__((format(printf, 2, 3)))
arm(struct pair *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(stage, sizeof(stage), fmt, ap);
	va_end(ap);
	stage_pair = p;
	alarm((unsigned int)(budget_ns / 1e9) * 4 + 30);
}

static double now_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

static int side_open(struct side *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->ctx = bench_open_named(name, false);
	if (!s->ctx || bench_ipv4_port(s->ctx, PORT, &s->port))
		return -1;
	s->pd = ibv_alloc_pd(s->ctx);
	if (posix_memalign((void **)&s->buf, 4096, BUF_SIZE)) {
		s->buf = NULL;
		return -1;
	}
	if (!s->pd)
		return -1;
	memset(s->buf, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr)
		fprintf(stderr, "ibv_reg_mr: %s\n", strerror(errno));
	return s->mr ? 0 : -1;
}

static int create_qp(struct side *s, bool ex)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = SQ_DEPTH,
			.max_recv_wr = RQ_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = s->pd,
	};

	if (ex) {
		struct ibv_cq_init_attr_ex ca = {
			.cqe = SQ_DEPTH + RQ_DEPTH,
			.wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
		};

		s->cqx = ibv_create_cq_ex(s->ctx, &ca);
		if (!s->cqx)
			return -1;
		s->cq = ibv_cq_ex_to_cq(s->cqx);
		qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_RDMA_WRITE;
	} else {
		s->cq = ibv_create_cq(s->ctx, SQ_DEPTH + RQ_DEPTH, NULL, NULL,
				      0);
		if (!s->cq)
			return -1;
	}
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	if (ex) {
		s->qp = ibv_create_qp_ex(s->ctx, &qa);
	} else {
		struct ibv_qp_init_attr qi = {
			.send_cq = s->cq,
			.recv_cq = s->cq,
			.cap = qa.cap,
			.qp_type = IBV_QPT_RC,
		};

		s->qp = ibv_create_qp(s->pd, &qi);
	}
	if (!s->qp)
		return -1;
	if (ex) {
		s->qpx = ibv_qp_to_qp_ex(s->qp);
		if (!s->qpx)
			return -1;
	}
	return 0;
}

/* Receives all land on the target half: only their count matters. */
static int post_recvs(struct side *s, unsigned int n)
{
	struct ibv_recv_wr wr[64], *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + BUF_SIZE / 2,
		.length = BUF_SIZE / 2,
		.lkey = s->mr->lkey,
	};
	unsigned int i, k;
	int ret;

	while (n) {
		k = n < 64 ? n : 64;
		for (i = 0; i < k; i++) {
			wr[i].wr_id = RECV_FLAG;
			wr[i].sg_list = &sge;
			wr[i].num_sge = 1;
			wr[i].next = i + 1 < k ? &wr[i + 1] : NULL;
		}
		ret = ibv_post_recv(s->qp, wr, &bad);
		if (ret) {
			fprintf(stderr, "ibv_post_recv: %s\n", strerror(ret));
			return -1;
		}
		n -= k;
	}
	return 0;
}

static int pair_open(struct pair *p, bool ex)
{
	const char *an = getenv("BENCH_DEVICE"), *bn = getenv("BENCH_PEER");

	memset(p, 0, sizeof(*p));
	p->ex = ex;
	p->tag = ex ? "ex." : "";
	p->suffix = "";
	if (side_open(&p->a, an && *an ? an : "rxe0") ||
	    side_open(&p->b, bn && *bn ? bn : "rxe1"))
		return -1;
	if (create_qp(&p->a, ex) || create_qp(&p->b, ex)) {
		if (!ex)
			fprintf(stderr, "creating the QPs: %s\n",
				strerror(errno));
		return -1;
	}
	if (bench_rc_connect(p->a.qp, PORT, &p->a.port, &p->b.port,
			     p->b.qp->qp_num) ||
	    bench_rc_connect(p->b.qp, PORT, &p->b.port, &p->a.port,
			     p->a.qp->qp_num)) {
		fprintf(stderr, "connecting the QPs failed\n");
		return -1;
	}
	if (post_recvs(&p->a, RQ_DEPTH) || post_recvs(&p->b, RQ_DEPTH))
		return -1;
	return 0;
}

static void side_close(struct side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	free(s->buf);
}

static void pair_close(struct pair *p)
{
	side_close(&p->a);
	side_close(&p->b);
}

/* --- posting: one function per API ------------------------------------ */

/*
 * K work requests of LEN bytes from the source half to the peer's target
 * half; the one that makes posted a multiple of SIG_EVERY is signalled.
 * Its wr_id is the posted count after it, which retires everything before.
 */
static int post_legacy(struct side *s, const struct side *peer,
		       enum ibv_wr_opcode op, uint32_t len, unsigned int k,
		       uint32_t off)
{
	struct ibv_send_wr wr[64], *bad;
	struct ibv_sge sge[64];
	unsigned int i;
	int ret;

	for (i = 0; i < k; i++) {
		unsigned int n = ++s->posted;

		sge[i].addr = (uintptr_t)s->buf + off;
		sge[i].length = len;
		sge[i].lkey = s->mr->lkey;
		wr[i].wr_id = n;
		wr[i].next = i + 1 < k ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = op;
		wr[i].send_flags = n % SIG_EVERY ? 0 : IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr =
			(uintptr_t)peer->buf + BUF_SIZE / 2 + off;
		wr[i].wr.rdma.rkey = peer->mr->rkey;
	}
	ret = ibv_post_send(s->qp, wr, &bad);
	if (ret)
		fprintf(stderr, "ibv_post_send: %s\n", strerror(ret));
	return ret;
}

static int post_ex(struct side *s, const struct side *peer,
		   enum ibv_wr_opcode op, uint32_t len, unsigned int k,
		   uint32_t off)
{
	struct ibv_qp_ex *q = s->qpx;
	uint64_t raddr = (uintptr_t)peer->buf + BUF_SIZE / 2 + off;
	unsigned int i;
	int ret;

	ibv_wr_start(q);
	for (i = 0; i < k; i++) {
		unsigned int n = ++s->posted;

		q->wr_id = n;
		q->wr_flags = n % SIG_EVERY ? 0 : IBV_SEND_SIGNALED;
		if (op == IBV_WR_SEND)
			ibv_wr_send(q);
		else
			ibv_wr_rdma_write(q, peer->mr->rkey, raddr);
		ibv_wr_set_sge(q, s->mr->lkey, (uintptr_t)s->buf + off, len);
	}
	ret = ibv_wr_complete(q);
	if (ret)
		fprintf(stderr, "ibv_wr_complete: %s\n", strerror(ret));
	return ret;
}

static int post(struct pair *p, struct side *s, enum ibv_wr_opcode op,
		uint32_t len, unsigned int k, uint32_t off)
{
	const struct side *peer = s == &p->a ? &p->b : &p->a;

	if (p->ex)
		return post_ex(s, peer, op, len, k, off);
	return post_legacy(s, peer, op, len, k, off);
}

/* --- polling ---------------------------------------------------------- */

static int completed(struct side *s, uint64_t wr_id, int status)
{
	if (status != IBV_WC_SUCCESS) {
		fprintf(stderr, "completion %s: %s\n",
			wr_id & RECV_FLAG ? "recv" : "send",
			ibv_wc_status_str(status));
		return -1;
	}
	if (wr_id & RECV_FLAG) {
		s->recvs_seen++;
		s->recv_free++;
	} else if ((unsigned int)wr_id - s->retired < 0x80000000u) {
		s->retired = (unsigned int)wr_id;
	}
	return 0;
}

static int poll_legacy(struct side *s)
{
	struct ibv_wc wc[32];
	int i, n;

	n = ibv_poll_cq(s->cq, 32, wc);
	if (n < 0) {
		fprintf(stderr, "ibv_poll_cq: %d\n", n);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (completed(s, wc[i].wr_id, wc[i].status))
			return -1;
	return n;
}

/*
 * One completion per start_poll/end_poll session, never ibv_next_poll():
 * rdma-core 44's librxe advances its CQ twice when ibv_end_poll() follows
 * an ibv_next_poll() that returned ENOENT, as the man page's loop does
 * (tests/guest/rxe/rxe_cq_ex.c records it), which corrupts the CQ.  The
 * same code runs against every library, so the comparison stays fair.
 */
static int poll_ex(struct side *s)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_cq_ex *cq = s->cqx;
	int n, ret = 0, err;

	for (n = 0; n < 32; n++) {
		ret = ibv_start_poll(cq, &attr);
		if (ret)
			break;
		err = completed(s, cq->wr_id, cq->status);
		ibv_end_poll(cq);
		if (err)
			return -1;
	}
	if (ret && ret != ENOENT) {
		fprintf(stderr, "ibv_start_poll: %s\n", strerror(ret));
		return -1;
	}
	return n;
}

/* Poll once; give receives back to the QP in batches. */
static int poll_side(struct pair *p, struct side *s)
{
	int n = p->ex ? poll_ex(s) : poll_legacy(s);

	if (n > 0 && s->recv_free >= 32) {
		if (post_recvs(s, s->recv_free))
			return -1;
		s->recv_free = 0;
	}
	return n;
}

/* Wait until A has room for K more; the loops never block. */
static int make_room(struct pair *p, struct side *s, unsigned int k)
{
	while (s->posted - s->retired + k > WINDOW)
		if (poll_side(p, s) < 0 ||
		    poll_side(p, s == &p->a ? &p->b : &p->a) < 0)
			return -1;
	return 0;
}

/* Until every send posted on both sides has completed. */
static int drain(struct pair *p)
{
	struct side *s[2] = { &p->a, &p->b };
	int i;

	for (i = 0; i < 2; i++) {
		/* A signalled one last, so the tail completes too. */
		if (s[i]->posted != s[i]->retired && s[i]->posted % SIG_EVERY) {
			unsigned int pad = SIG_EVERY - s[i]->posted % SIG_EVERY;

			/* Zero-length writes: no byte of the peer changes. */
			if (make_room(p, s[i], pad) ||
			    post(p, s[i], IBV_WR_RDMA_WRITE, 0, pad, 0))
				return -1;
		}
	}
	while (p->a.posted != p->a.retired || p->b.posted != p->b.retired)
		if (poll_side(p, &p->a) < 0 || poll_side(p, &p->b) < 0)
			return -1;
	return 0;
}

/* --- the loops -------------------------------------------------------- */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static const char *op_name(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND ? "send" : "write";
}

/* One round trip: A to B, B to A.  Returns 0 or -1. */
static int round_trip(struct pair *p, enum ibv_wr_opcode op, uint32_t len,
		      unsigned int seq)
{
	struct side *s[2] = { &p->a, &p->b };
	volatile uint8_t *flag;
	unsigned int spins;
	int i;

	for (i = 0; i < 2; i++) {
		struct side *from = s[i], *to = s[1 - i];

		if (make_room(p, from, 1))
			return -1;
		if (op == IBV_WR_SEND) {
			unsigned int want = to->recvs_seen + 1;

			if (post(p, from, op, len, 1, 0))
				return -1;
			/* The sender's CQ too: an error shows there first. */
			while (to->recvs_seen != want)
				if (poll_side(p, to) < 0 ||
				    poll_side(p, from) < 0)
					return -1;
		} else {
			/* The last byte carries the sequence number. */
			from->buf[len - 1] = (char)seq;
			flag = (volatile uint8_t *)to->buf + BUF_SIZE / 2 +
			       len - 1;
			if (post(p, from, op, len, 1, 0))
				return -1;
			/* Now and then the sender's CQ: errors show there. */
			for (spins = 1; *flag != (uint8_t)seq; spins++)
				if (!(spins & 1023) && poll_side(p, from) < 0)
					return -1;
			/* Retire the signalled writes now and then. */
			if (from->posted % SIG_EVERY == 0 &&
			    poll_side(p, from) < 0)
				return -1;
		}
	}
	return 0;
}

static int latency(struct pair *p, enum ibv_wr_opcode op, uint32_t len)
{
	uint64_t *rtt = malloc(MAX_LAT_ITERS * sizeof(*rtt));
	uint64_t t0, start;
	unsigned int n = 0, seq = 0;
	int ret = 0;

	arm(p, "lat.%s%s.%u%s", p->tag, op_name(op), len, p->suffix);
	if (!rtt || drain(p)) {
		free(rtt);
		return -1;
	}
	/* Nothing in flight: clear the flags a previous loop left. */
	p->a.buf[BUF_SIZE / 2 + len - 1] = 0;
	p->b.buf[BUF_SIZE / 2 + len - 1] = 0;
	/* Warm up: first touches, the rings, the kernel's caches. */
	for (n = 0; n < 20 && !ret; n++)
		ret = round_trip(p, op, len, ++seq % 255 + 1);
	start = bench_now_ns();
	for (n = 0; !ret && n < MAX_LAT_ITERS; n++) {
		t0 = bench_now_ns();
		ret = round_trip(p, op, len, ++seq % 255 + 1);
		rtt[n] = bench_now_ns() - t0;
		if (t0 - start > budget_ns)
			break;
	}
	if (!ret)
		ret = drain(p);
	if (!ret) {
		qsort(rtt, n, sizeof(*rtt), cmp_u64);
		printf("lat.%s%s.%u%s %.2f us\n", p->tag, op_name(op), len,
		       p->suffix, rtt[n / 2] / 2000.0);
		printf("# lat.%s%s.%u%s: %u round trips\n", p->tag, op_name(op),
		       len, p->suffix, n);
	}
	free(rtt);
	return ret;
}

static int rate(struct pair *p, enum ibv_wr_opcode op, unsigned int batch)
{
	uint64_t t0, t1, msgs = 0;
	double c0, c1;
	int ret = 0;

	arm(p, "rate.%s%s.b%u%s", p->tag, op_name(op), batch, p->suffix);
	if (drain(p))
		return -1;
	c0 = now_cpu_ns();
	t0 = bench_now_ns();
	do {
		unsigned int i;

		/* Check the clock every few posts only. */
		for (i = 0; i < 64 / batch + 1 && !ret; i++) {
			ret = make_room(p, &p->a, batch);
			if (!ret)
				ret = post(p, &p->a, op, 64, batch, 0);
			if (!ret && poll_side(p, &p->a) < 0)
				ret = -1;
			if (!ret && op == IBV_WR_SEND &&
			    poll_side(p, &p->b) < 0)
				ret = -1;
			msgs += batch;
		}
	} while (!ret && bench_now_ns() - t0 < budget_ns);
	if (!ret)
		ret = drain(p);
	t1 = bench_now_ns();
	c1 = now_cpu_ns();
	if (ret)
		return ret;
	printf("rate.%s%s.b%u%s %.1f kmsg/s\n", p->tag, op_name(op), batch,
	       p->suffix, msgs * 1e6 / (double)(t1 - t0));
	printf("cpu.%s%s.b%u%s %.0f ns\n", p->tag, op_name(op), batch,
	       p->suffix, (c1 - c0) / (double)msgs);
	return 0;
}

static void poll_empty(struct pair *p)
{
	uint64_t t0, best = UINT64_MAX;
	int r;

	arm(p, "poll_empty%s%s", p->ex ? ".ex" : "", p->suffix);
	if (drain(p))
		return;
	/* The fastest of 10 slices: the pure cost, without the host's noise. */
	for (r = 0; r < 10; r++) {
		unsigned int i;

		t0 = bench_now_ns();
		for (i = 0; i < 10000; i++)
			if (poll_side(p, &p->a) != 0)
				return;
		t0 = bench_now_ns() - t0;
		if (t0 < best)
			best = t0;
	}
	printf("poll_empty%s%s %.1f ns\n", p->ex ? ".ex" : "", p->suffix,
	       best / 10000.0);
}

static int run_all(struct pair *p)
{
	static const unsigned int batches[] = { 1, 16, 64 };
	static const enum ibv_wr_opcode ops[] = { IBV_WR_SEND,
						  IBV_WR_RDMA_WRITE };
	unsigned int o, b;

	for (o = 0; o < 2; o++) {
		if (latency(p, ops[o], 8) || latency(p, ops[o], 4096))
			return -1;
	}
	for (o = 0; o < 2; o++)
		for (b = 0; b < 3; b++)
			if (rate(p, ops[o], batches[b]))
				return -1;
	poll_empty(p);
	return 0;
}

/* The object that holds FN: a library or a provider plug-in. */
static const char *object_of(const void *fn)
{
	Dl_info info;

	if (!fn || !dladdr(fn, &info) || !info.dli_fname)
		return "?";
	return info.dli_fname;
}

/*
 * Does a QP made before the fork still move data in the parent?  One SEND
 * from A to B, a few seconds to arrive.  On the 6.1 guest kernel it may
 * stall (no completion, no error) with either library, fork or no fork
 * (BENCH_NO_FORK), so the timed loops after the fork run on fresh QPs
 * instead; this line records it.
 */
static void probe_across_fork(struct pair *p)
{
	uint64_t t0 = bench_now_ns();
	unsigned int want = p->b.recvs_seen + 1;
	const char *what = "ok";
	int r = 0;

	arm(p, "probe%s", p->ex ? ".ex" : "");
	if (post(p, &p->a, IBV_WR_SEND, 8, 1, 0))
		r = -1;
	while (!r && p->b.recvs_seen != want &&
	       bench_now_ns() - t0 < 5000000000ull)
		if (poll_side(p, &p->b) < 0 || poll_side(p, &p->a) < 0)
			r = -1;
	if (r)
		what = "error";
	if (!r && p->b.recvs_seen != want)
		what = "stalled";
	printf("qp_across_fork%s %s -\n", p->ex ? ".ex" : "", what);
}

/*
 * The loops, before a fork and after one, in the parent: the child
 * guard's cost.  The parent's library is the same either way; only the
 * fork lies between.
 */
/* One child, made and reaped at once; 0 or -1. */
static int fork_and_reap(void)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		perror("fork");
		return -1;
	}
	if (!pid)
		_exit(0);
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		return -1;
	}
	return 0;
}

static int both_phases(struct pair *pairs, int n)
{
	const char *nf = getenv("BENCH_NO_FORK");
	int i;

	for (i = 0; i < n; i++)
		if (run_all(&pairs[i]))
			return -1;
	arm(NULL, "fork");
	fflush(stdout);
	/* The control: the same pause without a child (about a fork's). */
	if (nf && !strcmp(nf, "1"))
		usleep(100000);
	else if (fork_and_reap())
		return -1;
	for (i = 0; i < n; i++) {
		bool ex = pairs[i].ex;

		probe_across_fork(&pairs[i]);
		pair_close(&pairs[i]);
		arm(NULL, "set-up after the fork");
		if (pair_open(&pairs[i], ex)) {
			fprintf(stderr, "a new pair after the fork: %s\n",
				strerror(errno));
			return -1;
		}
		pairs[i].suffix = ".forked";
		if (run_all(&pairs[i]))
			return -1;
	}
	return 0;
}

int main(void)
{
	const char *s = getenv("BENCH_SECONDS");
	struct pair pairs[2];
	int n = 1, ret;

	budget_ns = (s ? strtod(s, NULL) : 0.0) * 1e9;
	if (budget_ns <= 0)
		budget_ns = 0.5e9;
	signal(SIGALRM, stuck);
	arm(NULL, "set-up");
	if (pair_open(&pairs[0], false))
		return 1;
	bench_print_library();
	/*
	 * The library wraps every function pointer a provider hands out
	 * (post_send, the extended QP's builders, ...), so the provider is
	 * told by its device's ops (bench_provider_probe()).
	 */
	printf("# post_send: %s\n",
	       object_of((void *)pairs[0].a.ctx->ops.post_send));
	if (pair_open(&pairs[1], true)) {
		int err = errno;

		/*
		 * No builder to tell the provider by (post_send may be the
		 * library's wrapper): no "# provider:" line, which bench/run
		 * takes as unknown, not as the provider it wants.
		 */
		printf("# no extended QP or CQ on this device: %s\n",
		       strerror(err));
		pair_close(&pairs[1]);
	} else {
		printf("# provider: %s\n",
		       object_of(bench_provider_probe(
			       pairs[1].a.ctx,
			       (void *)pairs[1].a.qpx->wr_send)));
		n = 2;
	}
	printf("# BENCH_SECONDS per loop: %.2f\n", budget_ns / 1e9);
	ret = both_phases(pairs, n);
	arm(NULL, "tear-down");
	while (n--)
		pair_close(&pairs[n]);
	return ret ? 1 : 0;
}
