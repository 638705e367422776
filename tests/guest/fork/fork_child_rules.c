// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The rules around a child's own objects (fork-support.md, "A child's own
 * objects on inherited contexts"), each tested as written:
 *
 * 1. The pid rule.  A vfork() child and a clone(CLONE_VM) child share the
 *    parent's memory, token page included, so only the owner pid that
 *    the control path compares tells them from the parent: every
 *    creating verb on an inherited context or PD gives them EPERM.  The
 *    same for a vfork() child of a fork child that has made objects of
 *    its own: only the process that adopted the table may use it.  The
 *    parent's objects are untouched afterwards: its traffic runs, its QP
 *    is still in RTS, and the kernel's object counts (`rdma resource
 *    show`) are those before.
 *
 * 2. Destroying under load.  A destroy marks a proxy dying and leaves it
 *    in the table while the real object goes; a destroy that fails
 *    (EBUSY) leaves the proxy as it was.  In a fork child, a thread moves
 *    bytes on the child's QP (post and poll) while another thread, up to
 *    200 times, tries to destroy that QP's CQ and deallocate its PD
 *    (EBUSY from the kernel: both are in use), and creates and destroys
 *    a QP on the same CQ and a CQ beside it (0).  The traffic never
 *    fails, the proxies work afterwards and destroy with 0 in order, and
 *    the kernel's counts of the child's QPs, CQs, MRs and PDs are back to
 *    those before it made them.  A post on a QP that another thread
 *    destroys is the application's use after free, with any library, and
 *    is not tested.
 *
 * 3. Cross-context arguments.  A child's own QP on a PD of one context
 *    with a CQ of another (the child's own, or an inherited one), or on
 *    the inherited PD of another context, is refused with EINVAL; a QP on
 *    an inherited CQ of its own context with EPERM (the CQ's completions
 *    are the parent's); a CQ on a channel of another context with EINVAL.
 *    Its SRQ on the inherited rxe0, named for a QP on rxe0 opened afresh,
 *    is refused with EINVAL, also where an SRQ there has its handle.
 *    Nothing reaches the kernel: its counts are the same before and after
 *    the refused calls, and a QP with matching arguments is then made.
 *
 * Upstream has no child guard and no own objects for a child: on Debian's
 * library the checks of each rule are guards (gc_guard, fp_guard).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fork_proc.h"

#define RACE_ROUNDS 200
/*
 * The race child's own watchdog: it fires inside the parent's wait for
 * the child (GC_CHILD_TIMEOUT_MS), with time left to report.  Only a
 * hang reaches it: the rounds end RACE_RESERVE_MS before it, and what
 * comes after them (the traffic thread's last completion, one more WRITE
 * and the teardown) waits at most GC_TIMEOUT_MS per wait.
 */
#define RACE_WATCHDOG (GC_CHILD_TIMEOUT_MS / 1000 - 10)
#define RACE_RESERVE_MS (3 * GC_TIMEOUT_MS)
#define CLONE_STACK (256 * 1024)

static struct fp_pair parent;
static uint8_t seed = 0x20;
/* `rdma resource show` in the parent before any child. */
static char parent_counts[1024];

/*
 * Whether the kernel now has @a more contexts on rxe0 and @b more on rxe1
 * than the parent had: a child's own objects are on fresh opens of the
 * devices (upstream makes them in the parent's kernel context).
 */
static bool own_contexts(int a, int b, long *got_a, long *got_b)
{
	char now[1024];
	long pa = gc_rdma_count(parent_counts, "rxe0", "ctx");
	long pb = gc_rdma_count(parent_counts, "rxe1", "ctx");

	*got_a = *got_b = -1;
	if (!gc_rdma_counts(now, sizeof(now)))
		return false;
	*got_a = gc_rdma_count(now, "rxe0", "ctx") - pa;
	*got_b = gc_rdma_count(now, "rxe1", "ctx") - pb;
	return pa >= 0 && pb >= 0 && *got_a == a && *got_b == b;
}

/*
 * The parent's objects and the kernel's counts, after each rule.  Its
 * traffic and its QP's state are upstream behaviour here (no child in
 * this test touches them); the counts tell the libraries apart.
 */
static void parent_traffic(const char *when)
{
	struct gc_buf *a = &parent.a, *b = &parent.b;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_wc wc;

	gc_fill(a->addr, FP_LEN, seed++);
	gc_ok(!gc_post_send(parent.p.qp_a, IBV_WR_RDMA_WRITE, a, 0, FP_LEN, 1,
			    IBV_SEND_SIGNALED, (uintptr_t)b->addr,
			    b->mr->rkey) &&
		      gc_poll(parent.p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
		      wc.status == IBV_WC_SUCCESS &&
		      !memcmp(a->addr, b->addr, FP_LEN),
	      "%s: its RDMA WRITE rxe0 -> rxe1, bytes checked", when);
	gc_ok(!ibv_query_qp(parent.p.qp_a, &attr, IBV_QP_STATE, &init) &&
		      attr.qp_state == IBV_QPS_RTS,
	      "%s: ibv_query_qp: its QP is in RTS", when);
}

static void check_parent(const char *when)
{
	char now[1024];
	bool same;

	parent_traffic(when);
	same = gc_rdma_counts(now, sizeof(now)) && !strcmp(now, parent_counts);
	gc_guard(same, "%s: the kernel's object counts are those before", when);
	if (!same)
		gc_diag("before:\n%snow:\n%s", parent_counts, now);
}

/* ---- 1. the pid rule ---- */

/*
 * What a child sharing the memory got from the creating verbs.  Written
 * by the child, read by the parent after the child is gone.
 */
struct shared_try {
	void *obj[4];
	int err[4];
};

static const char *const try_names[4] = { "ibv_alloc_pd",
					  "ibv_create_comp_channel",
					  "ibv_create_cq", "ibv_reg_mr" };

/* Runs in the child that shares memory: no stdio, no reports. */
static void try_creating(struct shared_try *t, struct ibv_context *ctx,
			 struct ibv_pd *pd, void *page)
{
	errno = 0;
	t->obj[0] = ibv_alloc_pd(ctx);
	t->err[0] = errno;
	errno = 0;
	t->obj[1] = ibv_create_comp_channel(ctx);
	t->err[1] = errno;
	errno = 0;
	t->obj[2] = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	t->err[2] = errno;
	errno = 0;
	t->obj[3] = ibv_reg_mr(pd, page, 4096, IBV_ACCESS_LOCAL_WRITE);
	t->err[3] = errno;
}

static void report_tries(const struct shared_try *t, const char *who)
{
	for (int i = 0; i < 4; i++)
		fp_guard(!t->obj[i] && t->err[i] == EPERM,
			 "%s: %s on an inherited object -> NULL/EPERM (%s)",
			 who, try_names[i],
			 t->obj[i] ? "got an object" : strerror(t->err[i]));
}

/*
 * Destroy a channel that a child sharing this memory made.  Its fd was
 * opened in the child's own file table and went with the child; here the
 * same number may be a file of ours, which the destroy must not close:
 * it closes a stand-in on that number, and ours is put back.
 */
static void destroy_foreign_channel(struct ibv_comp_channel *ch)
{
	int fd = ch->fd, flags, saved = -1, stand_in;

	if (fd < 0)
		return;
	flags = fcntl(fd, F_GETFD);
	if (flags >= 0) {
		saved = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (saved < 0)
			return; /* keep our file: leave the channel */
	}
	stand_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (stand_in >= 0 && stand_in != fd) {
		if (dup3(stand_in, fd, O_CLOEXEC) < 0) {
			close(stand_in);
			stand_in = -1;
		} else {
			close(stand_in);
		}
	}
	if (stand_in >= 0)
		ibv_destroy_comp_channel(ch);
	if (saved >= 0) {
		dup3(saved, fd, (flags & FD_CLOEXEC) ? O_CLOEXEC : 0);
		close(saved);
	}
}

/*
 * Free what a child sharing this memory made: on Debian's library its
 * objects are in this process's context and memory, and stay there.
 * Single-threaded here, so no other thread takes the fd numbers.
 */
static void free_tries(struct shared_try *t)
{
	if (t->obj[3])
		ibv_dereg_mr(t->obj[3]);
	if (t->obj[2])
		ibv_destroy_cq(t->obj[2]);
	if (t->obj[1])
		destroy_foreign_channel(t->obj[1]);
	if (t->obj[0])
		ibv_dealloc_pd(t->obj[0]);
	memset(t, 0, sizeof(*t));
}

static struct shared_try vf_try;
static struct ibv_context *vf_ctx;
static struct ibv_pd *vf_pd;
static void *vf_page;

/* A vfork() child of this process; false if it could not be made. */
static bool run_vfork(void)
{
	int status;
	pid_t pid;

	memset(&vf_try, 0, sizeof(vf_try));
	fflush(NULL);
	pid = vfork();
	if (pid == 0) {
		/* Kills the child, and so frees the parent, if it hangs. */
		alarm(FP_WATCHDOG);
		try_creating(&vf_try, vf_ctx, vf_pd, vf_page);
		_exit(0);
	}
	if (pid < 0)
		return false;
	status = fu_wait(pid);
	return status == 0;
}

static int clone_main(void *arg)
{
	alarm(FP_WATCHDOG);
	try_creating(arg, parent.p.a.ctx, parent.p.a.pd, vf_page);
	return 0;
}

static void pid_rule_parent(void)
{
	struct shared_try t = { 0 };
	char *stack;
	pid_t pid;

	vf_ctx = parent.p.a.ctx;
	vf_pd = parent.p.a.pd;
	if (gc_ok(run_vfork(), "vfork() child exited normally"))
		report_tries(&vf_try, "vfork() child");
	check_parent("parent after its vfork() child");
	free_tries(&vf_try);

	stack = mmap(NULL, CLONE_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (!gc_ok(stack != MAP_FAILED,
		   "a stack for the clone(CLONE_VM) child"))
		return;
	fflush(NULL);
	pid = clone(clone_main, stack + CLONE_STACK, CLONE_VM | SIGCHLD, &t);
	if (gc_ok(pid > 0 && fu_wait(pid) == 0,
		  "clone(CLONE_VM) child exited normally"))
		report_tries(&t, "clone(CLONE_VM) child");
	munmap(stack, CLONE_STACK);
	check_parent("parent after its clone(CLONE_VM) child");
	free_tries(&t);
}

/* A fork child with objects of its own, and a vfork() child of it. */
static void pid_rule_grandchild(void *arg)
{
	const char *who = arg;
	struct ibv_pd *own = ibv_alloc_pd(parent.p.a.ctx);
	struct ibv_mr *mr;
	long ca = -1, cb = -1;
	bool vf, ok;

	ok = own && own_contexts(1, 0, &ca, &cb);
	fp_guard(ok,
		 "%s: its own PD on the inherited context, on a kernel "
		 "context of its own (%s; new contexts %ld and %ld)",
		 who, own ? "made" : strerror(errno), ca, cb);
	if (!ok) {
		if (own)
			ibv_dealloc_pd(own);
		return;
	}
	vf_ctx = parent.p.a.ctx;
	vf_pd = own;
	vf = run_vfork();
	fp_ok(vf, "%s: its vfork() child exited normally", who);
	if (vf)
		report_tries(&vf_try, "vfork() child of a fork child");
	free_tries(&vf_try);
	/* The fork child's table is its own still. */
	mr = ibv_reg_mr(own, vf_page, 4096, IBV_ACCESS_LOCAL_WRITE);
	fp_guard(mr && !ibv_dereg_mr(mr) && !ibv_dealloc_pd(own),
		 "%s: registers on its own PD and frees it after its vfork() "
		 "child",
		 who);
}

/* ---- 2. destroying under load ---- */

struct race {
	struct fp_pair *fp; /* the child's own pair, on inherited contexts */
	struct ibv_pd *pd_a, *pd_b;
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *qp_a, *qp_b;
	int stop;
	long ops, failures;
};

/* One RDMA WRITE on the child's QP, polled to its completion. */
static bool race_write(struct race *r)
{
	struct gc_buf *a = &r->fp->a, *b = &r->fp->b;
	struct ibv_wc wc;

	if (gc_post_send(r->qp_a, IBV_WR_RDMA_WRITE, a, 0, 64, 7,
			 IBV_SEND_SIGNALED, (uintptr_t)b->addr, b->mr->rkey) ||
	    gc_poll(r->cq_a, 1, &wc, GC_TIMEOUT_MS) != 1 ||
	    wc.status != IBV_WC_SUCCESS) {
		__atomic_add_fetch(&r->failures, 1, __ATOMIC_RELAXED);
		return false;
	}
	__atomic_add_fetch(&r->ops, 1, __ATOMIC_RELAXED);
	return true;
}

static void *race_traffic(void *arg)
{
	struct race *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) && race_write(r))
		;
	return NULL;
}

static struct ibv_qp *race_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr attr = { .send_cq = cq,
					 .recv_cq = cq,
					 .qp_type = IBV_QPT_RC,
					 .cap = { .max_send_wr = 8,
						  .max_recv_wr = 8,
						  .max_send_sge = 1,
						  .max_recv_sge = 1 } };

	return ibv_create_qp(pd, &attr);
}

static bool race_make(struct race *r, struct fp_pair *fp)
{
	memset(fp, 0, sizeof(*fp));
	r->fp = fp;
	fp->p.a = parent.p.a;
	fp->p.b = parent.p.b;
	r->pd_a = ibv_alloc_pd(parent.p.a.ctx);
	r->pd_b = ibv_alloc_pd(parent.p.b.ctx);
	r->cq_a = ibv_create_cq(parent.p.a.ctx, 16, NULL, NULL, 0);
	r->cq_b = ibv_create_cq(parent.p.b.ctx, 16, NULL, NULL, 0);
	if (!r->pd_a || !r->pd_b || !r->cq_a || !r->cq_b)
		return false;
	r->qp_a = race_qp(r->pd_a, r->cq_a);
	r->qp_b = race_qp(r->pd_b, r->cq_b);
	fp->p.a.pd = r->pd_a;
	fp->p.b.pd = r->pd_b;
	return r->qp_a && r->qp_b && !fp_buf_map(&fp->a, r->pd_a, FP_LEN) &&
	       !fp_buf_map(&fp->b, r->pd_b, FP_LEN) &&
	       !gc_connect(r->qp_a, &fp->p.a, r->qp_b, &fp->p.b);
}

struct round_result {
	int rounds, qp_ok, cq_ok;
	int cq_err, pd_err; /* the last destroy's results */
};

/*
 * Up to RACE_ROUNDS rounds, at least one, until @deadline: a bound, not
 * a check.  A destroy of the CQ or PD in use that does anything but
 * refuse ends them at once and stops the traffic: whatever it freed is
 * not touched again.
 */
static void race_rounds(struct race *r, struct round_result *res, long deadline)
{
	struct ibv_qp *qp;
	struct ibv_cq *cq;

	memset(res, 0, sizeof(*res));
	do {
		res->rounds++;
		/* In use by both QPs: the kernel refuses, the proxy stays. */
		res->cq_err = ibv_destroy_cq(r->cq_a);
		if (res->cq_err == EBUSY)
			res->pd_err = ibv_dealloc_pd(r->pd_a);
		if (res->cq_err != EBUSY || res->pd_err != EBUSY) {
			__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
			break;
		}
		/* A QP on the CQ the traffic thread polls, made and gone. */
		qp = race_qp(r->pd_a, r->cq_a);
		res->qp_ok += qp && !ibv_destroy_qp(qp);
		/* A CQ beside it: the table changes under the lookups. */
		cq = ibv_create_cq(parent.p.a.ctx, 4, NULL, NULL, 0);
		res->cq_ok += cq && !ibv_destroy_cq(cq);
	} while (res->rounds < RACE_ROUNDS && gc_now_ms() < deadline &&
		 !__atomic_load_n(&r->failures, __ATOMIC_RELAXED));
}

static bool counts_equal(const char *before, const char *now,
			 const char *const *types)
{
	for (; *types; types++)
		for (int d = 0; d < 2; d++) {
			const char *dev = d ? "rxe1" : "rxe0";
			long b = gc_rdma_count(before, dev, *types);

			if (b < 0 || b != gc_rdma_count(now, dev, *types))
				return false;
		}
	return true;
}

static void race_child(void *arg)
{
	static const char *const types[] = { "qp", "cq", "mr", "pd", NULL };
	const char *who = arg;
	struct round_result res;
	char before[1024], now[1024];
	long ca = -1, cb = -1;
	struct fp_pair fp;
	struct race r = { 0 };
	pthread_t t;
	bool ok, own, started, written, refused;
	long deadline = gc_now_ms() + RACE_WATCHDOG * 1000L - RACE_RESERVE_MS;

	alarm(RACE_WATCHDOG);
	if (!fp_ok(gc_rdma_counts(before, sizeof(before)),
		   "%s: the kernel's object counts", who))
		return;
	ok = race_make(&r, &fp);
	own = ok && own_contexts(1, 1, &ca, &cb);
	fp_guard(own,
		 "%s: PDs, CQs, connected QPs and MRs of its own on the "
		 "inherited contexts, on kernel contexts of its own (%s; new "
		 "contexts %ld and %ld)",
		 who, ok ? "made" : strerror(errno), ca, cb);
	/* Upstream's are the parent's: the exit leaves them there. */
	if (!ok || ca != 1 || cb != 1)
		return;
	started = !pthread_create(&t, NULL, race_traffic, &r);
	fp_ok(started, "%s: a thread posting and polling on its QP", who);
	if (!started)
		return;
	race_rounds(&r, &res, deadline);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	fp_diag("%s: %d rounds, %ld RDMA WRITEs meanwhile", who, res.rounds,
		r.ops);
	refused = res.cq_err == EBUSY && res.pd_err == EBUSY;
	fp_guard(refused,
		 "%s: destroying its CQ and PD in use -> EBUSY each time (%d "
		 "rounds; last: %s, %s)",
		 who, res.rounds, strerror(res.cq_err),
		 res.cq_err == EBUSY ? strerror(res.pd_err) : "not tried");
	/* What such a destroy freed is not touched: the exit frees the rest. */
	if (!refused)
		return;
	fp_guard(res.rounds > 0 && res.qp_ok == res.rounds &&
			 res.cq_ok == res.rounds,
		 "%s: a QP on the polled CQ and a CQ beside it made and "
		 "destroyed -> 0 each time (%d and %d of %d)",
		 who, res.qp_ok, res.cq_ok, res.rounds);
	fp_guard(!r.failures && r.ops > 0,
		 "%s: the other thread's traffic never failed meanwhile (%ld "
		 "WRITEs, %ld failed)",
		 who, r.ops, r.failures);
	/* The refused destroys left the proxies as they were. */
	written = race_write(&r);
	ok = !ibv_destroy_qp(r.qp_a) && !ibv_destroy_qp(r.qp_b);
	fp_buf_unmap(&fp.a);
	fp_buf_unmap(&fp.b);
	ok = ok && !ibv_destroy_cq(r.cq_a) && !ibv_destroy_cq(r.cq_b) &&
	     !ibv_dealloc_pd(r.pd_a) && !ibv_dealloc_pd(r.pd_b);
	fp_guard(written && ok,
		 "%s: its objects still work, then destroy in order -> 0", who);
	ok = gc_rdma_counts(now, sizeof(now)) &&
	     counts_equal(before, now, types);
	fp_ok(ok,
	      "%s: the kernel's counts of QPs, CQs, MRs and PDs are those "
	      "before it made them",
	      who);
	if (!ok)
		fp_diag("before: %s now: %s", before, now);
}

/* ---- 3. cross-context arguments ---- */

static struct ibv_qp *qp_on(struct ibv_pd *pd, struct ibv_cq *send,
			    struct ibv_cq *recv)
{
	struct ibv_qp_init_attr attr = { .send_cq = send,
					 .recv_cq = recv,
					 .qp_type = IBV_QPT_RC,
					 .cap = { 4, 4, 1, 1, 0 } };

	errno = 0;
	return ibv_create_qp(pd, &attr);
}

static void want_refused(void *obj, int want, const char *who, const char *what)
{
	int err = errno;

	fp_guard(!obj && err == want, "%s: %s -> NULL/%s (%s)", who, what,
		 want == EINVAL ? "EINVAL" : "EPERM",
		 obj ? "got an object" : strerror(err));
}

/*
 * The child's SRQ on the inherited rxe0 (a proxy, whose handle is its
 * real SRQ's on the child's own context) named for a QP on rxe0 opened
 * afresh: refused before the provider reads it.  SRQs are made there
 * until one has the proxy's handle (the kernel gives the lowest free
 * one), so that the kernel would find an SRQ by it: only the library's
 * check can refuse the QP then.
 */
static void srq_of_other_context(struct ibv_pd *pd_a, const char *who)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 4,
						     .max_sge = 1 } };
	struct ibv_qp_init_attr qattr = { .qp_type = IBV_QPT_RC,
					  .cap = { 4, 4, 1, 1, 0 } };
	struct ibv_srq *srq, *mine[16];
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct gc_dev own;
	bool aligned = false;
	int n = 0, err = 0;

	srq = ibv_create_srq(pd_a, &sattr);
	if (!fp_guard(srq, "%s: its SRQ on the inherited rxe0 (%s)", who,
		      srq ? "ok" : strerror(errno)) ||
	    !fp_ok(!gc_dev_open(&own, 0), "%s: rxe0 opened afresh", who))
		goto out_srq;
	cq = ibv_create_cq(own.ctx, 4, NULL, NULL, 0);
	while (cq && n < 16) {
		mine[n] = ibv_create_srq(own.pd, &sattr);
		if (!mine[n])
			break;
		aligned = mine[n]->handle == srq->handle;
		if (mine[n++]->handle >= srq->handle)
			break;
	}
	qattr.send_cq = qattr.recv_cq = cq;
	qattr.srq = srq;
	if (cq) {
		errno = 0;
		qp = ibv_create_qp(own.pd, &qattr);
		err = qp ? 0 : errno;
	}
	fp_guard(cq && aligned && !qp && err == EINVAL,
		 "%s: a QP there with its SRQ of the inherited rxe0, an SRQ "
		 "there having the same handle -> EINVAL (%s; %s)",
		 who, qp ? "made" : strerror(err),
		 aligned ? "aligned" : "no SRQ there got its handle");
	if (qp)
		ibv_destroy_qp(qp);
	while (n)
		ibv_destroy_srq(mine[--n]);
	if (cq)
		ibv_destroy_cq(cq);
	gc_dev_close(&own);
out_srq:
	if (srq)
		ibv_destroy_srq(srq);
}

static void cross_child(void *arg)
{
	const char *who = arg;
	struct ibv_context *ctx_a = parent.p.a.ctx, *ctx_b = parent.p.b.ctx;
	struct ibv_comp_channel *ch_b;
	struct ibv_pd *pd_a;
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *qp;
	char before[1024], now[1024];
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	long ca = -1, cb = -1;
	bool made, own, same;

	pd_a = ibv_alloc_pd(ctx_a);
	cq_a = ibv_create_cq(ctx_a, 4, NULL, NULL, 0);
	cq_b = ibv_create_cq(ctx_b, 4, NULL, NULL, 0);
	ch_b = ibv_create_comp_channel(ctx_b);
	made = pd_a && cq_a && cq_b && ch_b;
	own = made && own_contexts(1, 1, &ca, &cb);
	fp_guard(own,
		 "%s: its own PD, CQs and channel on rxe0 and rxe1, on "
		 "kernel contexts of its own (%s; new contexts %ld and %ld)",
		 who, made ? "made" : strerror(errno), ca, cb);
	/* Upstream's are the parent's: the exit leaves them there. */
	if (!made || ca != 1 || cb != 1)
		return;
	if (!fp_ok(gc_rdma_counts(before, sizeof(before)),
		   "%s: the kernel's object counts", who))
		return;

	want_refused(qp_on(pd_a, cq_b, cq_b), EINVAL, who,
		     "QP on its rxe0 PD with its CQ of rxe1");
	want_refused(qp_on(pd_a, cq_a, cq_b), EINVAL, who,
		     "QP on its rxe0 PD, send CQ of rxe0, recv CQ of rxe1");
	want_refused(qp_on(parent.p.a.pd, cq_a, cq_b), EINVAL, who,
		     "QP on the inherited rxe0 PD with a recv CQ of rxe1");
	want_refused(qp_on(parent.p.b.pd, cq_a, cq_a), EINVAL, who,
		     "QP on the inherited rxe1 PD with its CQ of rxe0");
	want_refused(qp_on(pd_a, parent.p.cq_b, parent.p.cq_b), EINVAL, who,
		     "QP on its rxe0 PD with the inherited CQ of rxe1");
	want_refused(qp_on(pd_a, parent.p.cq_a, cq_a), EPERM, who,
		     "QP on its rxe0 PD with the inherited CQ of rxe0");
	want_refused(qp_on(parent.p.a.pd, cq_a, parent.p.cq_a), EPERM, who,
		     "QP on the inherited rxe0 PD with the inherited recv CQ");
	errno = 0;
	want_refused(ibv_create_cq(ctx_a, 4, NULL, ch_b, 0), EINVAL, who,
		     "CQ on rxe0 with its channel of rxe1");

	same = gc_rdma_counts(now, sizeof(now)) && !strcmp(now, before);
	fp_guard(same,
		 "%s: the refused calls left the kernel's counts as they "
		 "were",
		 who);
	if (!same)
		fp_diag("before: %s now: %s", before, now);
	qp = qp_on(pd_a, cq_a, cq_a);
	fp_guard(qp && !ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) &&
			 attr.qp_state == IBV_QPS_RESET && !ibv_destroy_qp(qp),
		 "%s: with matching arguments the QP is made, answers "
		 "ibv_query_qp and goes (%s)",
		 who, qp ? "ok" : strerror(errno));
	srq_of_other_context(pd_a, who);
	fp_guard(!ibv_destroy_cq(cq_a) && !ibv_destroy_cq(cq_b) &&
			 !ibv_destroy_comp_channel(ch_b) &&
			 !ibv_dealloc_pd(pd_a),
		 "%s: destroys its objects -> 0", who);
}

static void run_child(void (*fn)(void *), const char *who)
{
	char when[96];
	int status = fp_run(FP_FORK, fn, (void *)who, who);

	gc_ok(status == 0, "%s exited normally (%d)", who, status);
	snprintf(when, sizeof(when), "parent after the %s", who);
	check_parent(when);
}

int main(void)
{
	if (!fp_parent_start("fork_child_rules", &parent))
		return gc_finish();
	vf_page = fu_map(4096);
	parent_traffic("parent before any child");
	if (!gc_ok(vf_page &&
			   gc_rdma_counts(parent_counts, sizeof(parent_counts)),
		   "parent: the kernel's object counts"))
		return gc_finish();

	pid_rule_parent();
	run_child(pid_rule_grandchild, "fork child with a vfork() child");
	run_child(race_child, "fork child destroying under load");
	run_child(cross_child, "fork child passing other contexts' objects");

	fu_unmap(vf_page, 4096);
	fp_pair_close(&parent);
	return gc_finish();
}
