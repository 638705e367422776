// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The child guard: a fork child cannot use, or harm, the verbs objects it
 * inherited.
 *
 * In the child every verb on an inherited object fails with EPERM at once
 * (creating verbs on the inherited context and PD excepted: they give the
 * child objects of its own, fork_child_objects.c), and cleanup (dereg,
 * destroy, dealloc, close) returns 0 but reaches no kernel object.  The
 * parent then proves that nothing of it was touched: its QP and MRs still
 * move data, and no completion of the child's attempts ever shows up on
 * its CQs.  The child meanwhile opens the devices afresh and does RDMA of
 * its own.
 *
 * What the parent keeps is also read from the kernel: its object counts
 * (`rdma resource show`) are taken before the fork and compared after the
 * child, each of the child's destroys is checked against the count of its
 * kind, and the parent asks its QPs and SRQ for their state.  A destroy
 * that returned 0 proves nothing by itself: upstream returns 0 too, after
 * destroying the parent's object through the kernel's ioctl path.
 *
 * Upstream libibverbs has no such guard: this test is expected to fail
 * against it (ctest label "guard"), in exactly its gc_guard() checks.  The
 * set-up, the child's own RDMA, the return values of destroys that the
 * kernel cannot show (AH, MW, channel, context) and, in legacy mode, the
 * MADV_DONTFORK on every MR (parent's and child's) are upstream
 * behaviour: gc_ok().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_util.h"

#define LEN 4096
#define CHILD_WR_ID 0xc41dc41dULL

struct parent_objs {
	struct gc_pair p;
	struct gc_buf a, b;
	void *map_a, *map_b;
	struct ibv_comp_channel *channel;
	struct ibv_cq *ev_cq;
	struct ibv_srq *srq;
	struct ibv_qp *ud;
	struct ibv_ah *ah;
	struct ibv_mw *mw;
	/* `rdma resource show` before the fork */
	char counts[1024];
};

/* The kernel's count of @type objects on @dev now, or -1. */
static long count_of(const char *dev, const char *type)
{
	char buf[1024];

	return gc_rdma_counts(buf, sizeof(buf)) ?
		       gc_rdma_count(buf, dev, type) :
		       -1;
}

static int reg(struct gc_buf *buf, void **map, struct ibv_pd *pd)
{
	*map = fu_map(LEN);
	if (!*map)
		return -1;
	buf->addr = *map;
	buf->len = LEN;
	buf->mr = ibv_reg_mr(pd, buf->addr, LEN, GC_ACCESS_ALL);
	return buf->mr ? 0 : -1;
}

static int setup(struct parent_objs *o)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 8,
						     .max_sge = 1 } };
	struct gc_qp_caps caps = { .max_send_wr = 16, .max_recv_wr = 16 };
	int flags;

	memset(o, 0, sizeof(*o));
	if (gc_pair_open(&o->p, IBV_QPT_RC, &caps) ||
	    reg(&o->a, &o->map_a, o->p.a.pd) ||
	    reg(&o->b, &o->map_b, o->p.b.pd))
		return -1;
	o->channel = ibv_create_comp_channel(o->p.a.ctx);
	if (!o->channel)
		return -1;
	/*
	 * Non-blocking, so that a library without the guard makes the
	 * child's ibv_get_cq_event() fail instead of hang.
	 */
	flags = fcntl(o->channel->fd, F_GETFL);
	fcntl(o->channel->fd, F_SETFL, flags | O_NONBLOCK);
	o->ev_cq = ibv_create_cq(o->p.a.ctx, 4, NULL, o->channel, 0);
	o->srq = ibv_create_srq(o->p.a.pd, &sattr);
	o->ud = gc_create_qp(&o->p.a, o->p.cq_a, IBV_QPT_UD, NULL);
	o->ah = gc_create_ah(&o->p.a, &o->p.b);
	/* Memory windows are optional for a device; rxe has them. */
	o->mw = ibv_alloc_mw(o->p.a.pd, IBV_MW_TYPE_1);
	return o->ev_cq && o->srq && o->ud && !gc_ud_ready(o->ud) && o->ah ? 0 :
									     -1;
}

/* An int verb: must return EPERM. */
static void want_eperm(int ret, const char *verb)
{
	gc_guard(ret == EPERM,
		 "child: %s on inherited object -> EPERM (%d: %s)", verb, ret,
		 strerror(ret));
}

/* A constructor: must return NULL with errno EPERM. */
static void want_null_eperm(void *obj, const char *verb)
{
	int err = errno;

	gc_guard(!obj && err == EPERM,
		 "child: %s on inherited object -> NULL/EPERM (%s)", verb,
		 obj ? "got an object" : strerror(err));
}

static void child_data_path(struct parent_objs *o)
{
	struct ibv_sge sge = { (uintptr_t)o->a.addr, 64, o->a.mr->lkey };
	struct ibv_send_wr swr = { .wr_id = CHILD_WR_ID, .sg_list = &sge,
				   .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				   .send_flags = IBV_SEND_SIGNALED },
			   *sbad = NULL;
	struct ibv_recv_wr rwr = { .wr_id = CHILD_WR_ID, .sg_list = &sge,
				   .num_sge = 1 }, *rbad = NULL;
	struct ibv_wc wc;
	int ret;

	swr.wr.rdma.remote_addr = (uintptr_t)o->b.addr;
	swr.wr.rdma.rkey = o->b.mr->rkey;
	ret = ibv_post_send(o->p.qp_a, &swr, &sbad);
	want_eperm(ret, "ibv_post_send");
	gc_guard(sbad == &swr,
		 "child: ibv_post_send sets *bad_wr to the first");
	ret = ibv_post_recv(o->p.qp_b, &rwr, &rbad);
	want_eperm(ret, "ibv_post_recv");
	gc_guard(rbad == &rwr,
		 "child: ibv_post_recv sets *bad_wr to the first");
	rbad = NULL;
	want_eperm(ibv_post_srq_recv(o->srq, &rwr, &rbad),
		   "ibv_post_srq_recv");
	ret = ibv_poll_cq(o->p.cq_a, 1, &wc);
	gc_guard(ret < 0, "child: ibv_poll_cq on inherited CQ -> %d (< 0)",
		 ret);
	want_eperm(ibv_req_notify_cq(o->ev_cq, 0), "ibv_req_notify_cq");
}

/*
 * Creating verbs on the inherited context and PD give the child objects
 * of its own (fork_child.c), which it can destroy again.
 */
static void child_own_objects(struct parent_objs *o, void *buf, size_t len)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(o->p.a.ctx);
	struct ibv_pd *pd = ibv_alloc_pd(o->p.a.ctx);
	struct ibv_cq *cq = ch ? ibv_create_cq(o->p.a.ctx, 4, NULL, ch, 0) :
				 NULL;
	struct ibv_mr *mr =
		ibv_reg_mr(o->p.a.pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *mr2 =
		pd ? ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE) : NULL;
	bool made = ch && pd && cq && mr && mr2;
	long parent_ctx = gc_rdma_count(o->counts, "rxe0", "ctx");
	long ctx = count_of("rxe0", "ctx");

	/*
	 * Upstream makes them too, in the parent's kernel context (the
	 * ioctl path does not check the caller); ours are on a fresh open
	 * of rxe0, which the kernel counts.
	 */
	gc_guard(made && parent_ctx >= 0 && ctx == parent_ctx + 1,
		 "child: its own channel, PD, CQ and MRs on the inherited "
		 "context and PD, on a kernel context of its own (%s; rxe0 "
		 "ctx: %ld before the fork, %ld now)",
		 made ? "made" : strerror(errno), parent_ctx, ctx);
	made = made && parent_ctx >= 0 && ctx == parent_ctx + 1;
	gc_guard(made && !ibv_dereg_mr(mr2) && !ibv_dereg_mr(mr) &&
			 !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd) &&
			 !ibv_destroy_comp_channel(ch),
		 "child: destroys its own objects -> 0");
	if (!made) {
		if (mr2)
			ibv_dereg_mr(mr2);
		if (mr)
			ibv_dereg_mr(mr);
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		if (ch)
			ibv_destroy_comp_channel(ch);
	}
}

static void child_control_path(struct parent_objs *o)
{
	struct ibv_qp_attr qattr = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_init_attr qinit;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_srq_attr sattr = { .srq_limit = 1 };
	struct ibv_qp_init_attr init = { .send_cq = o->p.cq_a,
					 .recv_cq = o->p.cq_a,
					 .qp_type = IBV_QPT_RC,
					 .cap = { 1, 1, 1, 1, 0 } };
	struct ibv_srq_init_attr sinit = { .attr = { 4, 1, 0 } };
	struct ibv_srq *srq;
	struct ibv_mw *mw;
	struct ibv_cq *cq;
	void *cq_ctx;
	char scratch[64];
	int ret;

	child_own_objects(o, scratch, sizeof(scratch));
	/* A QP on the parent's CQ: its completions are the parent's. */
	want_null_eperm(ibv_create_qp(o->p.a.pd, &init), "ibv_create_qp");
	/* The child's own SRQ on the inherited PD (fork_child.c). */
	srq = ibv_create_srq(o->p.a.pd, &sinit);
	gc_ok(srq && !ibv_destroy_srq(srq),
	      "child: ibv_create_srq on the inherited PD, destroy -> 0 (%s)",
	      srq ? "made" : strerror(errno));
	/* The child's own window on the inherited PD, where rxe has them. */
	errno = 0;
	mw = ibv_alloc_mw(o->p.a.pd, IBV_MW_TYPE_2);
	gc_ok(mw ? !ibv_dealloc_mw(mw) : errno == EOPNOTSUPP,
	      "child: ibv_alloc_mw on the inherited PD, dealloc -> 0 (%s)",
	      mw ? "made" : strerror(errno));
	want_eperm(ibv_modify_qp(o->p.qp_a, &qattr, IBV_QP_STATE),
		   "ibv_modify_qp");
	want_eperm(ibv_query_qp(o->p.qp_a, &qattr, IBV_QP_STATE, &qinit),
		   "ibv_query_qp");
	want_eperm(ibv_query_device(o->p.a.ctx, &dattr), "ibv_query_device");
	want_eperm(ibv_query_port(o->p.a.ctx, 1, &pattr), "ibv_query_port");
	want_eperm(ibv_modify_srq(o->srq, &sattr, IBV_SRQ_LIMIT),
		   "ibv_modify_srq");
	want_eperm(ibv_query_srq(o->srq, &sattr), "ibv_query_srq");
	want_eperm(ibv_resize_cq(o->p.cq_a, 64), "ibv_resize_cq");
	ret = ibv_get_cq_event(o->channel, &cq, &cq_ctx);
	gc_guard(
		ret == -1 && errno == EPERM,
		"child: ibv_get_cq_event on inherited channel -> -1/EPERM (%s)",
		strerror(errno));
}

/*
 * A destroy in the child: 0, and the parent's object still in the kernel,
 * by the count of its kind on its device.  @own is how many objects of
 * the child's own the destroy also frees there: the PD the child made for
 * an inherited PD it registered on (fork-support.md, "Destroying").  A
 * kernel that does not count the kind (5.10 has no SRQ count) leaves only
 * the return value; the parent's checks still see the object.
 */
#define KEPT(call, what, dev, type, own)                                     \
	do {                                                                 \
		long before_ = count_of(dev, type), after_;                  \
		int ret_ = (call);                                           \
                                                                             \
		after_ = count_of(dev, type);                                \
		if (before_ < 0 && after_ < 0)                               \
			gc_guard(ret_ == 0,                                  \
				 "child: %s -> 0 (%d; this kernel does not " \
				 "count %s objects)",                        \
				 what, ret_, type);                          \
		else                                                         \
			gc_guard(ret_ == 0 && before_ >= 0 &&                \
					 after_ == before_ - (own),          \
				 "child: %s -> 0 (%d), the parent's %s "     \
				 "stays in the kernel (%s %s: %ld -> %ld)",  \
				 what, ret_, type, dev, type, before_,       \
				 after_);                                    \
	} while (0)

/*
 * Cleanup in the child: 0, and harmless, which the kernel's counts show
 * here and the parent checks again after the child.  AHs, MWs and
 * channels have no count, and a context stays open in the kernel while
 * the parent holds it (upstream's close frees the child's copy too): for
 * those the 0 is upstream behaviour, and the parent checks what it can.
 */
static void child_cleanup(struct parent_objs *o)
{
	if (o->mw)
		gc_ok(ibv_dealloc_mw(o->mw) == 0, "child: ibv_dealloc_mw -> 0");
	gc_ok(ibv_destroy_ah(o->ah) == 0, "child: ibv_destroy_ah -> 0");
	KEPT(ibv_destroy_qp(o->ud), "ibv_destroy_qp (UD)", "rxe0", "qp", 0);
	KEPT(ibv_destroy_srq(o->srq), "ibv_destroy_srq", "rxe0", "srq", 0);
	KEPT(ibv_destroy_cq(o->ev_cq), "ibv_destroy_cq (channel's)", "rxe0",
	     "cq", 0);
	gc_ok(ibv_destroy_comp_channel(o->channel) == 0,
	      "child: ibv_destroy_comp_channel -> 0");
	KEPT(ibv_dereg_mr(o->a.mr), "ibv_dereg_mr (rxe0)", "rxe0", "mr", 0);
	KEPT(ibv_dereg_mr(o->b.mr), "ibv_dereg_mr (rxe1)", "rxe1", "mr", 0);
	KEPT(ibv_destroy_qp(o->p.qp_a), "ibv_destroy_qp (rxe0)", "rxe0", "qp",
	     0);
	KEPT(ibv_destroy_qp(o->p.qp_b), "ibv_destroy_qp (rxe1)", "rxe1", "qp",
	     0);
	KEPT(ibv_destroy_cq(o->p.cq_a), "ibv_destroy_cq (rxe0)", "rxe0", "cq",
	     0);
	KEPT(ibv_destroy_cq(o->p.cq_b), "ibv_destroy_cq (rxe1)", "rxe1", "cq",
	     0);
	/* child_own_objects() registered on it: its own PD for it goes. */
	KEPT(ibv_dealloc_pd(o->p.a.pd), "ibv_dealloc_pd (rxe0)", "rxe0", "pd",
	     1);
	KEPT(ibv_dealloc_pd(o->p.b.pd), "ibv_dealloc_pd (rxe1)", "rxe1", "pd",
	     0);
	gc_ok(ibv_close_device(o->p.a.ctx) == 0,
	      "child: ibv_close_device -> 0");
	gc_ok(ibv_close_device(o->p.b.ctx) == 0,
	      "child: ibv_close_device -> 0");
}

/* The child's own objects work like any process's. */
static void child_own_rdma(void)
{
	struct gc_pair p;
	struct gc_buf a, b;
	struct ibv_wc wc;
	bool ok;

	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_RC, NULL),
		   "child: opens rxe0 and rxe1 afresh"))
		return;
	ok = !gc_buf_alloc(&a, p.a.pd, LEN, GC_ACCESS_ALL, 7) &&
	     !gc_buf_alloc(&b, p.b.pd, LEN, GC_ACCESS_ALL, 8) &&
	     !gc_post_send(p.qp_a, IBV_WR_RDMA_WRITE, &a, 0, LEN, 5,
			   IBV_SEND_SIGNALED, (uintptr_t)b.addr, b.mr->rkey) &&
	     gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	     wc.status == IBV_WC_SUCCESS && !memcmp(a.addr, b.addr, LEN);
	gc_ok(ok, "child: RDMA WRITE on its own QP and MRs");
	gc_ok(a.mr && b.mr && fu_marked_as_mode(a.addr, LEN) &&
		      fu_marked_as_mode(b.addr, LEN),
	      "child: its own MRs are %s",
	      fu_legacy_mode() ? "MADV_DONTFORK (smaps dc)" :
				 "not MADV_DONTFORK");
	gc_buf_free(&a);
	gc_buf_free(&b);
	gc_pair_close(&p);
}

static int child(struct parent_objs *o)
{
	child_data_path(o);
	child_control_path(o);
	child_cleanup(o);
	child_own_rdma();
	return gc_finish();
}

/* The parent's RDMA after the child: same QP, same MRs, checked. */
static void parent_after(struct parent_objs *o, const char *when)
{
	struct ibv_wc wc[4];
	int n, i;
	bool stray = false, done;

	gc_fill(o->a.addr, LEN, 0x33);
	n = gc_post_send(o->p.qp_a, IBV_WR_RDMA_WRITE, &o->a, 0, LEN, 9,
			 IBV_SEND_SIGNALED, (uintptr_t)o->b.addr,
			 o->b.mr->rkey);
	gc_guard(!n, "parent %s: ibv_post_send on its QP", when);
	n = gc_poll(o->p.cq_a, 1, wc, GC_TIMEOUT_MS);
	done = n == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 9;
	gc_guard(done, "parent %s: its RDMA WRITE completes (wr_id %llu, %s)",
		 when, n == 1 ? (unsigned long long)wc[0].wr_id : 0ULL,
		 n == 1 ? ibv_wc_status_str(wc[0].status) : "no completion");
	gc_guard(!memcmp(o->a.addr, o->b.addr, LEN),
		 "parent %s: bytes arrived in its MR", when);

	/* Anything else on the CQs would be the child's doing. */
	n = ibv_poll_cq(o->p.cq_a, 4, wc);
	for (i = 0; i < n; i++)
		stray |= wc[i].wr_id == CHILD_WR_ID;
	n = ibv_poll_cq(o->p.cq_b, 4, wc);
	for (i = 0; i < n; i++)
		stray |= wc[i].wr_id == CHILD_WR_ID;
	/*
	 * Only a CQ that still completes the parent's requests can show
	 * that none of the child's ran: a destroyed one shows nothing.
	 */
	gc_guard(done && !stray,
		 "parent %s: its CQs complete its requests and none of the "
		 "child's",
		 when);
}

static bool qp_in(struct ibv_qp *qp, enum ibv_qp_state want)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	return !ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) &&
	       attr.qp_state == want;
}

/* What the kernel holds of the parent after the child. */
static void parent_kernel_state(struct parent_objs *o)
{
	struct ibv_srq_attr sattr;
	char now[1024];
	bool same;

	same = gc_rdma_counts(now, sizeof(now)) && !strcmp(now, o->counts);
	gc_guard(same,
		 "parent: the kernel's object counts are those before the "
		 "fork");
	if (!same)
		gc_diag("before the fork:\n%safter the child:\n%s", o->counts,
			now);
	gc_guard(qp_in(o->p.qp_a, IBV_QPS_RTS) && qp_in(o->p.qp_b, IBV_QPS_RTS),
		 "parent: ibv_query_qp: its RC QPs are still in RTS");
	gc_guard(qp_in(o->ud, IBV_QPS_RTS),
		 "parent: ibv_query_qp: its UD QP is still in RTS");
	gc_guard(!ibv_query_srq(o->srq, &sattr) && sattr.max_wr >= 8,
		 "parent: ibv_query_srq: its SRQ still answers");
}

int main(void)
{
	struct parent_objs o;
	struct ibv_mr *mr, *mr2;
	pid_t pid;
	int status;

	if (!fu_start("fork_child_guard"))
		return gc_finish();
	if (!gc_ok(!setup(&o), "parent: set up QPs, MRs, SRQ, AH, channel"))
		return gc_finish();
	gc_ok(fu_marked_as_mode(o.a.addr, LEN) &&
		      fu_marked_as_mode(o.b.addr, LEN),
	      "parent: its MRs are %s",
	      fu_legacy_mode() ? "MADV_DONTFORK (smaps dc)" :
				 "not MADV_DONTFORK");

	gc_ok(gc_rdma_counts(o.counts, sizeof(o.counts)) &&
		      gc_rdma_count(o.counts, "rxe0", "qp") > 0,
	      "parent: the kernel's object counts (rdma resource show)");

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child(&o));
	status = fu_wait(pid);
	gc_guard(status == 0, "child: every check passed (exit %d)", status);

	parent_after(&o, "after child");
	parent_kernel_state(&o);
	mr = ibv_reg_mr(o.p.a.pd, o.a.addr, LEN, IBV_ACCESS_LOCAL_WRITE);
	mr2 = ibv_reg_mr(o.p.b.pd, o.b.addr, LEN, IBV_ACCESS_LOCAL_WRITE);
	gc_guard(mr && mr2,
		 "parent: its PDs on rxe0 and rxe1 still register memory "
		 "(%s, %s)",
		 mr ? "ok" : "failed", mr2 ? "ok" : "failed");
	if (mr)
		ibv_dereg_mr(mr);
	if (mr2)
		ibv_dereg_mr(mr2);
	gc_guard(!ibv_req_notify_cq(o.ev_cq, 0),
		 "parent: its channel CQ can still be armed");

	if (o.mw)
		ibv_dealloc_mw(o.mw);
	ibv_destroy_ah(o.ah);
	ibv_destroy_qp(o.ud);
	ibv_destroy_srq(o.srq);
	ibv_destroy_cq(o.ev_cq);
	ibv_destroy_comp_channel(o.channel);
	ibv_dereg_mr(o.a.mr);
	ibv_dereg_mr(o.b.mr);
	fu_unmap(o.map_a, LEN);
	fu_unmap(o.map_b, LEN);
	gc_pair_close(&o.p);
	return gc_finish();
}
