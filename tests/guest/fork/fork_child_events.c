// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Asynchronous events of a fork child's own objects, and of the parent's.
 *
 * The event: an SRQ with 8 receives armed with a limit of 4
 * (ibv_modify_srq(IBV_SRQ_LIMIT)); 5 UD datagrams rxe0 -> rxe1 consume
 * 5 of them, and rxe raises IBV_EVENT_SRQ_LIMIT_REACHED when the count
 * drops below the limit.  The parent first shows that its own event
 * arrives (on both libraries: the test's mechanism works), with its
 * async_fd made non-blocking as libfabric does.
 *
 * The parent's event reaches only the parent: a child (fork(), _Fork(),
 * raw clone()) makes a CQ on the inherited rxe1 context and waits; the
 * parent fires its SRQ's event and sees it pending on its async_fd; then
 * the child's poll() of the inherited context's async_fd does not wake
 * and ibv_get_async_event() on it gives EAGAIN (the descriptor is as
 * non-blocking as the parent's was), and after the child the parent
 * reads its event, naming its SRQ.
 *
 * A child's own event reaches the child: a child (the three above) makes
 * a CQ, an SRQ, UD QPs and an AH on the INHERITED contexts and PDs,
 * fires the SRQ's event, and poll() on the inherited context's async_fd
 * wakes; ibv_get_async_event() on that context gives the event naming
 * the child's SRQ (the proxy it holds), acknowledged with
 * ibv_ack_async_event(); then the SRQ is destroyed, which waits for that
 * acknowledgement (without it the destroy hangs and the watchdog ends
 * the child).  The child keeps the inherited descriptor number, now
 * naming its own file.  After each child the parent's async_fd still
 * names its own file, holds no event, the parent's traffic runs and the
 * kernel's object counts are back.
 *
 * A child made by clone(CLONE_FILES), which shares the parent's
 * descriptor table, gets no context of its own (its descriptors would
 * outlive it in the parent's table): its creating verbs and event reads
 * on the inherited context give EPERM.  Last, such a child closes the
 * inherited context, and the parent's descriptors stay open and its
 * context takes commands.
 *
 * On Debian's library the child's verbs reach the parent's kernel
 * context and read the parent's event file: the child's checks, and the
 * parent's event after the child, are guards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fork_proc.h"

#define RECVS 8 /* receives in the SRQ when it is armed */
#define LIMIT 4
#define SENDS 5 /* the fifth leaves 3 < LIMIT */
#define SLOT 256 /* one receive: the 40-byte GRH, then the payload */
#define LEN (RECVS * SLOT)
#define PAYLOAD 64

/* The kinds of child: fork_proc's, and clone(CLONE_FILES). */
enum kind {
	K_FORK = FP_FORK,
	K_UFORK = FP_UFORK,
	K_CLONE = FP_CLONE,
	K_FILES,
};

static const char *kind_name(enum kind k)
{
	return k == K_FILES ? "clone(CLONE_FILES)" :
			      fp_kind_name((enum fp_kind)k);
}

/* An SRQ on side b fed by UD datagrams from side a. */
struct ud {
	struct ibv_cq *cqa, *cqb;
	struct ibv_srq *srq;
	struct ibv_qp *qa, *qb;
	struct ibv_ah *ah;
	struct gc_buf ba, bb;
	int left; /* receives still in the SRQ */
};

static struct fp_pair parent;
static struct ud pu; /* the parent's */
static int parent_fd; /* the parent's rxe1 async_fd */
static int parent_dup; /* the same file, a number no library touches */
static int parent_cmd_fd; /* the parent's rxe1 cmd_fd */
static struct ibv_comp_channel *parent_ch; /* a channel on rxe1 */
static uint8_t seed = 0x40;
static enum kind cur_kind;
static int sync_tp[2], sync_tc[2]; /* child -> parent, parent -> child */

static bool buf_make(struct gc_buf *b, struct ibv_pd *pd)
{
	b->addr = fu_map(LEN);
	b->len = LEN;
	if (!b->addr)
		return false;
	b->mr = ibv_reg_mr(pd, b->addr, LEN, IBV_ACCESS_LOCAL_WRITE);
	return b->mr;
}

static struct ibv_qp *ud_qp(struct gc_dev *d, struct ibv_cq *cq,
			    struct ibv_srq *srq)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = RECVS,
			 .max_recv_wr = RECVS,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &attr);

	if (qp && gc_ud_ready(qp)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* @u on devices @a and @b: those of the parent, inherited in a child. */
static bool ud_make(struct ud *u, struct gc_dev *a, struct gc_dev *b)
{
	struct ibv_srq_init_attr sattr = {
		.srq_context = u,
		.attr = { .max_wr = RECVS, .max_sge = 1 },
	};

	memset(u, 0, sizeof(*u));
	u->cqa = ibv_create_cq(a->ctx, 2 * RECVS, NULL, NULL, 0);
	u->cqb = ibv_create_cq(b->ctx, 2 * RECVS, NULL, NULL, 0);
	if (!u->cqa || !u->cqb)
		return false;
	u->srq = ibv_create_srq(b->pd, &sattr);
	if (!u->srq)
		return false;
	u->qa = ud_qp(a, u->cqa, NULL);
	u->qb = ud_qp(b, u->cqb, u->srq);
	u->ah = gc_create_ah(a, b);
	return u->qa && u->qb && u->ah && buf_make(&u->ba, a->pd) &&
	       buf_make(&u->bb, b->pd);
}

/* True when everything @u holds was destroyed (what is NULL counts). */
static bool ud_destroy(struct ud *u)
{
	bool ok = true;

	ok &= !u->qa || !ibv_destroy_qp(u->qa);
	ok &= !u->qb || !ibv_destroy_qp(u->qb);
	/* Waits for the acknowledgement of its events. */
	ok &= !u->srq || !ibv_destroy_srq(u->srq);
	ok &= !u->ah || !ibv_destroy_ah(u->ah);
	ok &= !u->ba.mr || !ibv_dereg_mr(u->ba.mr);
	ok &= !u->bb.mr || !ibv_dereg_mr(u->bb.mr);
	ok &= !u->cqa || !ibv_destroy_cq(u->cqa);
	ok &= !u->cqb || !ibv_destroy_cq(u->cqb);
	fu_unmap(u->ba.addr, LEN);
	fu_unmap(u->bb.addr, LEN);
	memset(u, 0, sizeof(*u));
	return ok;
}

/* Poll @n successful completions from @cq. */
static bool reap(struct ibv_cq *cq, int n)
{
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		if (gc_poll(cq, 1, &wc, GC_TIMEOUT_MS) != 1 ||
		    wc.status != IBV_WC_SUCCESS) {
			fp_diag("completion %d of %d: %s", i, n,
				gc_status_str(wc.status));
			return false;
		}
	}
	return true;
}

/*
 * Fill the SRQ to RECVS receives, arm its limit and send SENDS
 * datagrams into it: rxe raises IBV_EVENT_SRQ_LIMIT_REACHED at the last.
 */
static bool ud_fire(struct ud *u, uint32_t b_qpn)
{
	struct ibv_srq_attr sa = { .srq_limit = LIMIT };
	struct ibv_send_wr swr = { 0 }, *sbad;
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	struct ibv_sge sge;
	int ret;

	for (int i = u->left; i < RECVS; i++) {
		sge.addr = (uintptr_t)u->bb.addr + i * SLOT;
		sge.length = SLOT;
		sge.lkey = u->bb.mr->lkey;
		rwr.wr_id = i;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		if (ibv_post_srq_recv(u->srq, &rwr, &rbad))
			return false;
	}
	u->left = RECVS;
	ret = ibv_modify_srq(u->srq, &sa, IBV_SRQ_LIMIT);
	if (ret) {
		fp_diag("ibv_modify_srq(IBV_SRQ_LIMIT): %s", strerror(ret));
		return false;
	}
	gc_fill(u->ba.addr, LEN, seed);
	for (int i = 0; i < SENDS; i++) {
		sge.addr = (uintptr_t)u->ba.addr + i * PAYLOAD;
		sge.length = PAYLOAD;
		sge.lkey = u->ba.mr->lkey;
		swr.wr_id = i;
		swr.sg_list = &sge;
		swr.num_sge = 1;
		swr.opcode = IBV_WR_SEND;
		swr.send_flags = IBV_SEND_SIGNALED;
		swr.wr.ud.ah = u->ah;
		swr.wr.ud.remote_qpn = b_qpn;
		swr.wr.ud.remote_qkey = GC_QKEY;
		if (ibv_post_send(u->qa, &swr, &sbad))
			return false;
	}
	u->left -= SENDS;
	return reap(u->cqa, SENDS) && reap(u->cqb, SENDS);
}

/*
 * Whether @fd names the parent's rxe1 asynchronous event file: the same
 * open file as parent_dup, by kcmp(2) (every such file is an anonymous
 * inode, so fstat() cannot tell them apart).
 */
static bool is_parent_file(int fd)
{
	return syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fd,
		       parent_dup) == 0;
}

static pid_t spawn(enum kind k)
{
	if (k != K_FILES)
		return fp_spawn((enum fp_kind)k);
	fflush(NULL);
	/* Same stack, copied memory, the parent's descriptor table. */
	return syscall(SYS_clone, CLONE_FILES | SIGCHLD, NULL, NULL, NULL,
		       NULL);
}

/* In a child: tell the parent it is ready, and wait for its go. */
static bool child_sync(void)
{
	char c = 'r';

	return write(sync_tp[1], &c, 1) == 1 &&
	       gc_read_fd(sync_tc[0], &c, 1, GC_TIMEOUT_MS,
			  "the parent's go") == 1;
}

/*
 * fp_run() for every kind, with a rendezvous: when @mid is set the
 * parent runs it once the child called child_sync(), then lets it go on.
 * A child sharing the descriptor table closes nothing of it but the
 * report pipe's write end, at its very end (which closes the parent's
 * too: the relay's end of file).
 */
static int run(enum kind k, void (*fn)(void *), void (*mid)(void),
	       const char *who)
{
	long deadline = gc_now_ms() + GC_CHILD_TIMEOUT_MS;
	int rp[2], status;
	char c = 'g';
	pid_t pid;

	if (pipe(rp) || pipe(sync_tp) || pipe(sync_tc))
		return -1;
	cur_kind = k;
	pid = spawn(k);
	if (pid == 0) {
		fp_report_to(rp[1]);
		alarm(FP_WATCHDOG);
		fn((void *)who);
		if (k == K_FILES)
			close(rp[1]);
		_exit(0);
	}
	if (k != K_FILES || pid < 0)
		close(rp[1]);
	if (pid > 0 && mid &&
	    gc_read_fd(sync_tp[0], &c, 1, GC_TIMEOUT_MS, "the child's ready") ==
		    1) {
		mid();
		c = 'g';
		if (write(sync_tc[1], &c, 1) != 1)
			gc_diag("go to the child: %s", strerror(errno));
	}
	if (pid > 0)
		fp_relay_until(rp[0], deadline);
	close(rp[0]);
	close(sync_tp[0]);
	close(sync_tp[1]);
	close(sync_tc[0]);
	close(sync_tc[1]);
	if (pid < 0)
		return -1;
	status = fu_wait_until(pid, fp_reap_deadline(deadline));
	gc_ok(status == 0, "%s exited normally (%d)", who, status);
	return status;
}

/*
 * The next event on @ctx within @timeout_ms (0: one already pending): 0,
 * or -1 with errno.
 */
static int next_event(struct ibv_context *ctx, struct ibv_async_event *ev,
		      int timeout_ms)
{
	if (gc_wait_fd(ctx->async_fd, POLLIN, timeout_ms,
		       "an asynchronous event") != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	return ibv_get_async_event(ctx, ev);
}

static bool is_limit_of(const struct ibv_async_event *ev, struct ibv_srq *srq)
{
	return ev->event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
	       ev->element.srq == srq;
}

static void describe(const char *who, const struct ibv_async_event *ev)
{
	fp_diag("%s: event %s, element %p", who,
		ibv_event_type_str(ev->event_type), (void *)ev->element.srq);
}

/*
 * The parent's own event, read by the parent; @pending: it was pending
 * before a child ran, so it is there now unless the child took it.
 */
static bool parent_event(const char *when, bool pending)
{
	struct ibv_async_event ev = { 0 };
	bool ok;

	ok = next_event(parent.p.b.ctx, &ev, pending ? 0 : GC_TIMEOUT_MS) == 0;
	if (ok && !is_limit_of(&ev, pu.srq)) {
		describe(when, &ev);
		ok = false;
	}
	if (ok)
		ibv_ack_async_event(&ev);
	if (pending)
		gc_guard(ok,
			 "%s: the parent reads its SRQ's limit event, which "
			 "was pending before the child (%s)",
			 when, ok ? "ok" : strerror(errno));
	else
		gc_ok(ok, "%s: the parent reads its SRQ's limit event (%s)",
		      when, ok ? "ok" : strerror(errno));
	return ok;
}

/* After a child: the parent's async_fd is its own file, with no event. */
static void parent_file_intact(const char *who)
{
	struct pollfd p = { .fd = parent.p.b.ctx->async_fd, .events = POLLIN };

	gc_ok(parent.p.b.ctx->async_fd == parent_fd &&
		      is_parent_file(parent_fd),
	      "after %s: the parent's async_fd %d still names its own file",
	      who, parent_fd);
	gc_ok(poll(&p, 1, 0) == 0,
	      "after %s: no event waiting on the parent's async_fd", who);
}

/* The parent's SRQ fires while the child watches (run()'s @mid). */
static void parent_fires(void)
{
	bool ok = ud_fire(&pu, pu.qb->qp_num) &&
		  gc_wait_fd(parent_fd, POLLIN, GC_TIMEOUT_MS,
			     "the parent's event") == 1;

	gc_ok(ok, "parent: its SRQ's limit event is pending on its async_fd");
}

static void child_watches(void *arg)
{
	const char *who = arg;
	struct ibv_context *ctx = parent.p.b.ctx;
	struct ibv_async_event ev = { 0 };
	struct pollfd p = { .events = POLLIN };
	struct ibv_cq *cq;
	int r;

	/* A child doing RDMA of its own on the inherited context. */
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	fp_guard(cq, "%s: a CQ on the inherited rxe1 context (%s)", who,
		 cq ? "ok" : strerror(errno));
	if (!child_sync())
		return;
	p.fd = ctx->async_fd;
	r = poll(&p, 1, 0);
	fp_guard(r == 0,
		 "%s: poll() on the inherited async_fd does not wake for the "
		 "parent's pending event (%d)",
		 who, r);
	errno = 0;
	r = ibv_get_async_event(ctx, &ev);
	fp_guard(r == -1 && errno == EAGAIN,
		 "%s: ibv_get_async_event() on the inherited context reads "
		 "none of the parent's events: EAGAIN, non-blocking as the "
		 "parent's descriptor (%d, %s)",
		 who, r, strerror(errno));
	if (!r)
		describe(who, &ev);
	if (cq && cur_kind == K_FORK)
		fp_guard(!ibv_destroy_cq(cq), "%s: destroys its CQ", who);
}

static void child_fires(void *arg)
{
	const char *who = arg;
	struct ibv_context *ctx = parent.p.b.ctx;
	struct ibv_async_event ev = { 0 };
	struct pollfd p = { .events = POLLIN };
	struct ud u;
	bool ok;
	int r;

	ok = ud_make(&u, &parent.p.a, &parent.p.b);
	fp_guard(ok,
		 "%s: CQs, an SRQ, UD QPs, MRs and an AH on the inherited "
		 "contexts and PDs (%s)",
		 who, ok ? "ok" : strerror(errno));
	if (!ok)
		goto out;
	fp_guard(ctx->async_fd == parent_fd,
		 "%s: the inherited context's async_fd keeps its number %d "
		 "(%d)",
		 who, parent_fd, ctx->async_fd);
	fp_guard(!is_parent_file(ctx->async_fd),
		 "%s: it names the child's own event file, not the parent's",
		 who);
	ok = ud_fire(&u, u.qb->qp_num);
	fp_guard(ok, "%s: %d receives through its SRQ armed at %d", who, SENDS,
		 LIMIT);
	if (!ok)
		goto out;
	p.fd = ctx->async_fd;
	r = gc_wait_fd(p.fd, POLLIN, GC_TIMEOUT_MS, "the child's event");
	fp_guard(r == 1, "%s: poll() on the inherited async_fd wakes (%d)", who,
		 r);
	r = ibv_get_async_event(ctx, &ev);
	ok = !r && is_limit_of(&ev, u.srq) && u.srq->srq_context == &u;
	fp_guard(ok,
		 "%s: ibv_get_async_event() on the inherited context gives "
		 "IBV_EVENT_SRQ_LIMIT_REACHED naming its own SRQ (%s)",
		 who, r ? strerror(errno) : "read");
	if (!r && !ok)
		describe(who, &ev);
	if (!r)
		ibv_ack_async_event(&ev);
	r = poll(&p, 1, 0);
	fp_guard(r == 0, "%s: no further event (%d)", who, r);
out:
	/* Destroying the SRQ waits for its event's acknowledgement. */
	ok = ud_destroy(&u);
	fp_guard(ok,
		 "%s: destroys its QPs, SRQ (after acknowledging its event), "
		 "AH, MRs and CQs",
		 who);
}

/*
 * A child sharing the parent's descriptor table (clone(CLONE_FILES)
 * without CLONE_VM) gets no context of its own: its descriptors would
 * stay open in the parent's table, a kernel context the parent holds,
 * once it is gone.  Its creating verbs and event reads on the inherited
 * context are refused.
 */
static void child_files(void *arg)
{
	const char *who = arg;
	struct ibv_context *ctx = parent.p.b.ctx;
	struct ibv_async_event ev = { 0 };
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	int r;

	errno = 0;
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	fp_guard(!cq && errno == EPERM,
		 "%s: a CQ on the inherited context: EPERM (%s)", who,
		 cq ? "made" : strerror(errno));
	errno = 0;
	pd = ibv_alloc_pd(ctx);
	fp_guard(!pd && errno == EPERM,
		 "%s: a PD on the inherited context: EPERM (%s)", who,
		 pd ? "made" : strerror(errno));
	errno = 0;
	r = ibv_get_async_event(ctx, &ev);
	fp_guard(r == -1 && errno == EPERM,
		 "%s: ibv_get_async_event() on the inherited context: EPERM "
		 "(%d, %s)",
		 who, r, strerror(errno));
	if (!r)
		describe(who, &ev);
}

/*
 * Such a child closing the inherited context: the provider's
 * free_context closes the context's descriptors, which in a shared table
 * are the parent's.  Run last: on Debian's library the parent loses its
 * context here.
 */
static void child_closes(void *arg)
{
	const char *who = arg;

	fp_ok(!ibv_destroy_comp_channel(parent_ch),
	      "%s: ibv_destroy_comp_channel() of an inherited channel", who);
	fp_ok(!ibv_close_device(parent.p.b.ctx),
	      "%s: ibv_close_device() on the inherited rxe1 context", who);
}

int main(void)
{
	static const enum kind kinds[] = { K_FORK, K_UFORK, K_CLONE, K_FILES };
	struct fp_counts before;
	struct ibv_pd *pd;
	int fl, stolen = 0;
	char who[80];

	if (!fp_parent_start("fork_child_events", &parent))
		return gc_finish();
	parent_fd = parent.p.b.ctx->async_fd;
	parent_cmd_fd = parent.p.b.ctx->cmd_fd;
	fl = fcntl(parent_fd, F_GETFL);
	parent_dup = fcntl(parent_fd, F_DUPFD_CLOEXEC, 0);
	if (!gc_ok(parent_fd >= 0 && parent_dup >= 0 && fl >= 0 &&
			   !fcntl(parent_fd, F_SETFL, fl | O_NONBLOCK),
		   "parent: rxe1's async_fd %d made non-blocking", parent_fd))
		return gc_finish();
	if (!gc_ok(is_parent_file(parent_fd),
		   "kcmp(KCMP_FILE) tells the async_fd's file"))
		return gc_finish();
	if (!gc_ok(ud_make(&pu, &parent.p.a, &parent.p.b),
		   "parent: an SRQ fed by UD datagrams rxe0 -> rxe1"))
		return gc_finish();
	/* The mechanism, on both libraries. */
	gc_ok(ud_fire(&pu, pu.qb->qp_num),
	      "parent: %d receives through its "
	      "SRQ armed at %d",
	      SENDS, LIMIT);
	parent_event("before any child", false);
	fp_traffic(&parent, "parent before any child", seed++);
	if (!gc_ok(fp_counts_read(&before), "rdma resource show"))
		return gc_finish();

	for (int i = 0; i < 3; i++) {
		snprintf(who, sizeof(who), "child of %s watching",
			 kind_name(kinds[i]));
		run(kinds[i], child_watches, parent_fires, who);
		if (!parent_event(who, true))
			stolen++;
		parent_file_intact(who);
		fp_parent_unharmed(&parent, who, &before, seed++);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(who, sizeof(who), "child of %s", kind_name(kinds[i]));
		run(kinds[i], kinds[i] == K_FILES ? child_files : child_fires,
		    NULL, who);
		parent_file_intact(who);
		fp_parent_unharmed(&parent, who, &before, seed++);
	}
	gc_ok(ud_fire(&pu, pu.qb->qp_num), "parent: its SRQ fires again");
	parent_event("after the children", false);
	/*
	 * A destroy waits for the acknowledgement of every event read for
	 * the SRQ, by whichever process read it: one a child took can never
	 * be acknowledged (upstream's children do take them).
	 */
	if (stolen)
		gc_diag("the parent's SRQ is left to the exit: children read "
			"%d of its events, its destroy would wait forever",
			stolen);
	else
		gc_ok(ud_destroy(&pu), "parent: destroys its SRQ and the rest");

	parent_ch = ibv_create_comp_channel(parent.p.b.ctx);
	gc_ok(parent_ch, "parent: a completion channel on rxe1");
	snprintf(who, sizeof(who), "child of %s closing", kind_name(K_FILES));
	run(K_FILES, child_closes, NULL, who);
	pd = ibv_alloc_pd(parent.p.b.ctx);
	gc_guard(fcntl(parent_cmd_fd, F_GETFD) >= 0 &&
			 is_parent_file(parent_fd) && pd,
		 "after %s: the parent's cmd_fd %d and async_fd %d are open, "
		 "the latter its own file, and its context takes commands "
		 "(ibv_alloc_pd: %s)",
		 who, parent_cmd_fd, parent_fd, pd ? "ok" : strerror(errno));
	if (pd)
		ibv_dealloc_pd(pd);
	gc_guard(parent_ch && fcntl(parent_ch->fd, F_GETFD) >= 0,
		 "after %s: the parent's completion channel's descriptor is "
		 "open",
		 who);
	if (parent_ch)
		ibv_destroy_comp_channel(parent_ch);
	fp_pair_close(&parent);
	return gc_finish();
}
