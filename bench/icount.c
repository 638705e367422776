/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * icount: the user-space instructions of one verbs operation, for
 * callgrind.
 *
 * Under TCG the guest's clock is noise; instruction counts are exact.
 * Every measured call sits in a noinline function named op_*, and
 * bench/run runs this program under
 *
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='op_*'
 *
 * so that only those functions and what they call are counted.  Each row
 * runs W warm-up operations, then N1, then N2, with a dump after each
 * (CALLGRIND_DUMP_STATS_AT "ROW/warm", "ROW/n1=N1", "ROW/n2=N2"); the cost
 * per operation is (Ir(N2) - Ir(N1)) / (N2 - N1), in which whatever a
 * dump costs once cancels.  The first ibv_is_fork_initialized() of the
 * process happens once only: its dump is "ROW/once=1", and bench/run
 * counts its syscalls from valgrind's --trace-syscalls between the two
 * markers written around it (write(-1, NULL, MARK_BEGIN / MARK_END)).
 *
 * Completions are awaited with completion events (ibv_req_notify_cq,
 * ibv_get_cq_event) outside the op_* functions, so that a counted poll
 * always finds exactly the completion it is there for and no empty
 * busy-poll is counted.  All QPs are on one device ($BENCH_DEVICE, default
 * rxe0), connected to each other over its IPv4 GID.
 *
 * Without valgrind the program runs the same operations and dumps
 * nothing; a "# valgrind:" line says which.  Like the other benchmarks it
 * prints the libibverbs.so.1 it mapped ("# library:") and the object that
 * holds the provider serving the device ("# provider:").
 *
 * BENCH_IC_N1 and BENCH_IC_N2 (defaults 20 and 60) set the loop lengths,
 * BENCH_IC_WARM (default 10) the warm-up.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <valgrind/callgrind.h>

#include "bench_rc.h"
#include "bench_util.h"

#define PORT 1
#define SQ_DEPTH 64
#define RQ_DEPTH 1024
#define BUF_SIZE 8192
#define MSG_LEN 8
#define MARK_BEGIN 0x1c0de1
#define MARK_END 0x1c0de2

/* One QP with the CQ (and completion channel) of both its queues. */
struct end {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	unsigned int armed;
};

struct rig {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf; /* first half source, second half target */
	char *reg_buf; /* the 4 KiB that op_reg_dereg registers */
	struct bench_port port;
	struct end a, b; /* a legacy pair */
	struct end xa, xb; /* xa extended QP and CQ, xb its peer */
};

static unsigned int warm = 10, n1 = 20, n2 = 60;
static const char *row = "set-up";

static void stuck(int sig)
{
	char msg[128];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "icount: no progress in %s\n", row);
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	_exit(3);
}

static unsigned int env_count(const char *name, unsigned int def)
{
	const char *s = getenv(name);
	unsigned long v;
	char *end;

	if (!s || !*s)
		return def;
	v = strtoul(s, &end, 10);
	return *end || !v || v > 100000 ? def : (unsigned int)v;
}

/* --- the counted operations --------------------------------------------- */

/*
 * noinline, and nothing the compiler could fold into the caller: each is
 * one call of the public API (or a few, as a program would make them)
 * with the arguments a program would pass.
 */
#ifdef __clang__
#define OP __attribute__((noinline))
#else
#define OP __attribute__((noinline, noclone))
#endif

static OP int op_poll_cq(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, 1, wc);
}

static OP int op_post_recv(struct ibv_qp *qp, struct ibv_sge *sge)
{
	struct ibv_recv_wr wr = {
		.wr_id = 1,
		.sg_list = sge,
		.num_sge = 1,
	}, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static OP int op_post_send(struct ibv_qp *qp, enum ibv_wr_opcode opcode,
			   struct ibv_sge *sge, uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = 2,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.wr.rdma.remote_addr = raddr,
		.wr.rdma.rkey = rkey,
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Seven calls: four to post, three to take the completion. */
static OP int op_wr_rdma_write(struct ibv_qp_ex *qpx, const void *data,
			       uint64_t raddr, uint32_t rkey)
{
	ibv_wr_start(qpx);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_rdma_write(qpx, rkey, raddr);
	ibv_wr_set_inline_data(qpx, (void *)data, MSG_LEN);
	return ibv_wr_complete(qpx);
}

static OP int op_poll_ex(struct ibv_cq_ex *cqx)
{
	struct ibv_poll_cq_attr attr = {};
	int ret;

	ret = ibv_start_poll(cqx, &attr);
	if (ret)
		return -ret;
	ret = 1;
	if (cqx->status != IBV_WC_SUCCESS ||
	    ibv_wc_read_opcode(cqx) != IBV_WC_RDMA_WRITE)
		ret = -EIO;
	ibv_end_poll(cqx);
	return ret;
}

static OP int op_start_poll(struct ibv_cq_ex *cqx)
{
	struct ibv_poll_cq_attr attr = {};

	return ibv_start_poll(cqx, &attr);
}

static OP int op_reg_dereg(struct ibv_pd *pd, void *buf)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);

	if (!mr)
		return -1;
	return ibv_dereg_mr(mr);
}

static OP enum ibv_fork_status op_fork_status(void)
{
	return ibv_is_fork_initialized();
}

/* --- set-up ------------------------------------------------------------ */

static int make_end(struct rig *r, struct end *e, bool ex)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = SQ_DEPTH,
			.max_recv_wr = RQ_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = MSG_LEN,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = r->pd,
	};

	e->ch = ibv_create_comp_channel(r->ctx);
	if (!e->ch)
		return -1;
	if (ex) {
		struct ibv_cq_init_attr_ex ca = {
			.cqe = SQ_DEPTH + RQ_DEPTH,
			.channel = e->ch,
			.wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
		};

		e->cqx = ibv_create_cq_ex(r->ctx, &ca);
		if (!e->cqx)
			return -1;
		e->cq = ibv_cq_ex_to_cq(e->cqx);
		qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_RDMA_WRITE;
	} else {
		e->cq = ibv_create_cq(r->ctx, SQ_DEPTH + RQ_DEPTH, NULL, e->ch,
				      0);
		if (!e->cq)
			return -1;
	}
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	e->qp = ibv_create_qp_ex(r->ctx, &qa);
	if (!e->qp)
		return -1;
	if (ex) {
		e->qpx = ibv_qp_to_qp_ex(e->qp);
		if (!e->qpx)
			return -1;
	}
	return 0;
}

static void free_end(struct end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->cq) {
		/* Every event taken was acknowledged at once. */
		ibv_destroy_cq(e->cq);
	}
	if (e->ch)
		ibv_destroy_comp_channel(e->ch);
}

static struct ibv_sge rx_sge(struct rig *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf + BUF_SIZE / 2,
		.length = BUF_SIZE / 2,
		.lkey = r->mr->lkey,
	};

	return sge;
}

/* Receives for the SENDs to come, outside any counted function. */
static int fill_rq(struct rig *r, struct end *e, unsigned int n)
{
	struct ibv_sge sge = rx_sge(r);
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	while (n--)
		if (ibv_post_recv(e->qp, &wr, &bad))
			return -1;
	return 0;
}

static int rig_open(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	r->ctx = bench_open_device();
	if (!r->ctx || bench_ipv4_port(r->ctx, PORT, &r->port))
		return -1;
	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->pd)
		return -1;
	if (posix_memalign((void **)&r->buf, 4096, BUF_SIZE) ||
	    posix_memalign((void **)&r->reg_buf, 4096, 4096))
		return -1;
	memset(r->buf, 0x5a, BUF_SIZE);
	memset(r->reg_buf, 0, 4096);
	r->mr = ibv_reg_mr(r->pd, r->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!r->mr)
		return -1;
	if (make_end(r, &r->a, false) || make_end(r, &r->b, false))
		return -1;
	if (bench_rc_connect(r->a.qp, PORT, &r->port, &r->port,
			     r->b.qp->qp_num) ||
	    bench_rc_connect(r->b.qp, PORT, &r->port, &r->port,
			     r->a.qp->qp_num))
		return -1;
	if (fill_rq(r, &r->a, RQ_DEPTH / 2) || fill_rq(r, &r->b, RQ_DEPTH / 2))
		return -1;
	if (make_end(r, &r->xa, true) || make_end(r, &r->xb, false))
		return -1;
	if (bench_rc_connect(r->xa.qp, PORT, &r->port, &r->port,
			     r->xb.qp->qp_num) ||
	    bench_rc_connect(r->xb.qp, PORT, &r->port, &r->port,
			     r->xa.qp->qp_num))
		return -1;
	return 0;
}

static void rig_close(struct rig *r)
{
	free_end(&r->xb);
	free_end(&r->xa);
	free_end(&r->b);
	free_end(&r->a);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	free(r->buf);
	free(r->reg_buf);
}

/* --- completions, outside the counted functions --------------------------- */

static int arm(struct end *e)
{
	if (e->armed)
		return 0;
	if (ibv_req_notify_cq(e->cq, 0)) {
		fprintf(stderr, "%s: ibv_req_notify_cq failed\n", row);
		return -1;
	}
	e->armed = 1;
	return 0;
}

/* Block until the armed CQ of @e reports a completion. */
static int await(struct end *e)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	if (ibv_get_cq_event(e->ch, &cq, &cq_ctx)) {
		fprintf(stderr, "%s: ibv_get_cq_event: %s\n", row,
			strerror(errno));
		return -1;
	}
	ibv_ack_cq_events(cq, 1);
	e->armed = 0;
	return 0;
}

/* Take @e's one completion without counting it (the peer's side). */
static int drain_one(struct end *e)
{
	struct ibv_wc wc;

	if (await(e))
		return -1;
	if (ibv_poll_cq(e->cq, 1, &wc) != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: peer completion missing or failed\n", row);
		return -1;
	}
	return 0;
}

/* A counted poll that must find exactly one successful completion. */
static int poll_one(struct end *e)
{
	struct ibv_wc wc;
	int n = op_poll_cq(e->cq, &wc);

	if (n != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: poll found %d completions (status %s)\n",
			row, n, n == 1 ? ibv_wc_status_str(wc.status) : "-");
		return -1;
	}
	return 0;
}

/* --- the rows ---------------------------------------------------------- */

/* Say what an operation returned that it should not have. */
static int unexpected(const char *what, int ret)
{
	fprintf(stderr, "%s: %s returned %d\n", row, what, ret);
	return -1;
}

static int step_poll_empty(struct rig *r)
{
	struct ibv_wc wc;
	int n = op_poll_cq(r->a.cq, &wc);

	return n ? unexpected("ibv_poll_cq on an empty CQ", n) : 0;
}

static int step_post_recv(struct rig *r)
{
	struct ibv_sge sge = rx_sge(r);
	int ret = op_post_recv(r->b.qp, &sge);

	return ret ? unexpected("ibv_post_recv", ret) : 0;
}

static int step_send(struct rig *r, enum ibv_wr_opcode opcode)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf,
		.length = MSG_LEN,
		.lkey = r->mr->lkey,
	};
	uint64_t raddr = (uintptr_t)r->buf + BUF_SIZE / 2;
	int ret;

	if (arm(&r->a) || (opcode == IBV_WR_SEND && arm(&r->b)))
		return -1;
	ret = op_post_send(r->a.qp, opcode, &sge, raddr, r->mr->rkey);
	if (ret)
		return unexpected("ibv_post_send", ret);
	if (await(&r->a) || poll_one(&r->a))
		return -1;
	/* The receive it consumed, back outside the count. */
	if (opcode == IBV_WR_SEND && (drain_one(&r->b) || fill_rq(r, &r->b, 1)))
		return -1;
	return 0;
}

static int step_write(struct rig *r)
{
	return step_send(r, IBV_WR_RDMA_WRITE);
}

static int step_send_msg(struct rig *r)
{
	return step_send(r, IBV_WR_SEND);
}

static int step_wr_write(struct rig *r)
{
	uint64_t raddr = (uintptr_t)r->buf + BUF_SIZE / 2;
	int ret;

	if (arm(&r->xa))
		return -1;
	ret = op_wr_rdma_write(r->xa.qpx, r->buf, raddr, r->mr->rkey);
	if (ret)
		return unexpected("ibv_wr_complete", ret);
	if (await(&r->xa))
		return -1;
	ret = op_poll_ex(r->xa.cqx);
	return ret == 1 ? 0 : unexpected("ibv_start_poll (negated)", ret);
}

static int step_start_poll_empty(struct rig *r)
{
	int ret = op_start_poll(r->xa.cqx);

	return ret == ENOENT ? 0 : unexpected("ibv_start_poll, empty", ret);
}

/*
 * One round trip of an RC ping-pong: A sends to B, B takes the receive
 * and posts another, A takes its send completion; then the same from B
 * to A.  Eight calls: two post_send, two post_recv, four polls.
 */
static int half_trip(struct rig *r, struct end *from, struct end *to)
{
	struct ibv_sge tx = {
		.addr = (uintptr_t)r->buf,
		.length = MSG_LEN,
		.lkey = r->mr->lkey,
	}, rx = rx_sge(r);
	int ret;

	if (arm(from) || arm(to))
		return -1;
	ret = op_post_send(from->qp, IBV_WR_SEND, &tx, 0, 0);
	if (ret)
		return unexpected("ibv_post_send", ret);
	if (await(to) || poll_one(to) || op_post_recv(to->qp, &rx))
		return -1;
	if (await(from) || poll_one(from))
		return -1;
	return 0;
}

static int step_round_trip(struct rig *r)
{
	if (half_trip(r, &r->a, &r->b) || half_trip(r, &r->b, &r->a))
		return -1;
	return 0;
}

static int step_reg_dereg(struct rig *r)
{
	if (op_reg_dereg(r->pd, r->reg_buf))
		return unexpected("ibv_reg_mr or ibv_dereg_mr, errno", errno);
	return 0;
}

static int step_fork_status(struct rig *r)
{
	(void)r;
	return op_fork_status() == (enum ibv_fork_status) - 1 ? -1 : 0;
}

struct row {
	const char *name;
	int (*step)(struct rig *r);
};

/* The names are bench/run's metric names (ic.NAME) and its targets'. */
static const struct row rows[] = {
	{ "poll_cq.empty", step_poll_empty },
	{ "post_recv", step_post_recv },
	{ "write_inline8.poll", step_write },
	{ "send_inline8.poll", step_send_msg },
	{ "ex.write_inline8.poll", step_wr_write },
	{ "ex.start_poll.empty", step_start_poll_empty },
	{ "rc_pingpong.round_trip", step_round_trip },
	{ "reg_dereg.4k", step_reg_dereg },
	{ "fork_status.later", step_fork_status },
};

static int run_steps(struct rig *r, const struct row *rw, unsigned int n)
{
	while (n--)
		if (rw->step(r))
			return -1;
	return 0;
}

static void dump(const char *name, const char *what, unsigned int n)
{
	char label[96];

	snprintf(label, sizeof(label), "%s/%s=%u", name, what, n);
	CALLGRIND_DUMP_STATS_AT(label);
}

static int run_row(struct rig *r, const struct row *rw)
{
	row = rw->name;
	alarm(300);
	/* Whatever was collected before belongs to no row. */
	CALLGRIND_DUMP_STATS_AT("idle");
	if (run_steps(r, rw, warm))
		return -1;
	dump(rw->name, "warm", warm);
	if (run_steps(r, rw, n1))
		return -1;
	dump(rw->name, "n1", n1);
	if (run_steps(r, rw, n2))
		return -1;
	dump(rw->name, "n2", n2);
	alarm(0);
	return 0;
}

/*
 * The first call in the process, after the library's own start-up
 * (ibv_get_device_list), as bench/fork_status measures it.  The markers
 * are syscalls that fail at once (EBADF) and that no library makes.
 */
static int first_fork_status(void)
{
	struct ibv_device **list;
	enum ibv_fork_status st;
	int n;

	list = ibv_get_device_list(&n);
	if (!list)
		return -1;
	ibv_free_device_list(list);
	CALLGRIND_DUMP_STATS_AT("idle");
	syscall(SYS_write, -1, NULL, MARK_BEGIN);
	st = op_fork_status();
	syscall(SYS_write, -1, NULL, MARK_END);
	dump("fork_status.first", "once", 1);
	printf("# fork status: %s\n", bench_fork_status_name(st));
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

int main(void)
{
	struct rig r;
	size_t i;
	int ret = 0;

	warm = env_count("BENCH_IC_WARM", warm);
	n1 = env_count("BENCH_IC_N1", n1);
	n2 = env_count("BENCH_IC_N2", n2);
	if (n2 <= n1) {
		fprintf(stderr,
			"icount: BENCH_IC_N2 must exceed BENCH_IC_N1\n");
		return 2;
	}
	signal(SIGALRM, stuck);
	printf("# valgrind: %s\n", RUNNING_ON_VALGRIND ? "yes" : "no");
	printf("# loops: warm %u n1 %u n2 %u\n", warm, n1, n2);
	/* Under callgrind in an emulated guest a row takes seconds. */
	alarm(300);
	if (first_fork_status())
		return 1;
	if (rig_open(&r)) {
		fprintf(stderr, "icount: set-up failed: %s\n", strerror(errno));
		rig_close(&r);
		return 1;
	}
	bench_print_library();
	printf("# provider: %s\n",
	       object_of(bench_provider_probe(r.ctx,
					      (void *)r.xa.qpx->wr_send)));
	fflush(stdout);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]) && !ret; i++)
		ret = run_row(&r, &rows[i]);
	row = "tear-down";
	rig_close(&r);
	if (ret)
		return 1;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		printf("# row %s\n", rows[i].name);
	return 0;
}
