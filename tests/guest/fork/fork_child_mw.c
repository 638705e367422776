// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fork child's memory windows, and the verbs that change the objects it
 * made on inherited contexts (fork_child_objects covers making them).
 *
 * The parent connects rxe0 and rxe1 by an RC QP and moves bytes, and
 * allocates a window of its own.  Then a child made by fork(), _Fork() and
 * a raw clone() in turn, on the INHERITED contexts and PDs, makes CQs, MRs
 * and RC QPs (rxe1's with send ops) and connects them; it allocates type 1
 * and type 2 windows on the inherited PD, binds them to its MR by
 * ibv_bind_mw(), by a BIND_MW request of ibv_post_send() and by
 * ibv_wr_bind_mw(), and moves bytes through each window by RDMA WRITE and
 * READ from rxe0, its window's rkey following each bind.  It resizes its
 * CQ and sends through it, re-registers its MR (its access, then to a PD
 * of its own) and joins and leaves a multicast group with a UD QP of its
 * own, each with the result the parent got for the same verb on its own
 * object.  Binding the parent's window (by each of the three ways; in a
 * list, after one of its own, which is bound), or a window to the parent's
 * MR, and resizing a CQ of the parent's stay refused (EPERM); a bind
 * mixing its own objects of the two devices (rxe1's window on rxe0's QP,
 * or to rxe0's MR), and a re-registration to rxe1's PD, with EINVAL.  The
 * fork() child then forks a grandchild, which binds windows on the
 * grandparent's PD and on a PD of the child's through QPs of its own and
 * moves bytes through them, and is refused the child's window and MR
 * (EPERM); the child's window works after it.  The fork() child frees its
 * windows; the others exit without cleaning up.  After each child the
 * parent's traffic still runs and the kernel's object counts (`rdma
 * resource show`) are what they were before it.
 *
 * A kernel whose rxe has no memory windows (max_mw 0, bullseye's 5.10)
 * refuses them to the parent; the child must get the same errno.
 *
 * On Debian's library the child's creating verbs reach the parent's
 * kernel context: the child's checks are guards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fork_proc.h"

#define LEN 16384
#define WIN 4096
#define MW_ACCESS (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

static struct fp_pair parent;
static uint8_t seed = 0x50;
static bool child_cleans_up;
/* Only the fork() child forks a grandchild: one is enough, and slow. */
static bool child_forks;

/* What the parent got on its own objects, before any child. */
static int parent_max_mw;
static int parent_mw_errno; /* ibv_alloc_mw() when max_mw is 0 */
static struct ibv_mw *parent_mw;
/*
 * A CQ of the parent's that no traffic uses: upstream's child resizes
 * it, which would lose the parent's completions on one that did.
 */
static struct ibv_cq *parent_cq;
static int parent_rereg, parent_rereg_errno;
static int parent_rereg_pd, parent_rereg_pd_errno; /* to a PD of its own */
static int parent_attach, parent_detach;
/*
 * Whether the provider moves a type 2 window's rkey to the one a posted
 * bind gives it (the built-in rxe does, Debian's librxe leaves it): the
 * child's window must do as the parent's does.
 */
static bool parent_type2_moves;

/* A multicast group, in the site-local scope; rxe joins it on its netdev. */
static const union ibv_gid mgid = { .raw = { 0xff, 0x15, 0, 0, 0, 0, 0, 0, 0, 0,
					     0, 0, 0, 0, 0x4c, 0x31 } };

struct side {
	struct gc_dev dev; /* the parent's, with its context and PD */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct gc_buf buf;
};

/* A window and an MR that a process may not bind: not its own. */
struct others {
	const char *whose;
	struct ibv_mw *mw;
	struct gc_buf *buf;
};

static bool side_make(struct side *s, struct gc_dev *inherited, bool ex)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = inherited->pd,
	};

	s->dev = *inherited;
	s->cq = ibv_create_cq(inherited->ctx, 16, s, NULL, 0);
	if (!s->cq)
		return false;
	attr.send_cq = s->cq;
	attr.recv_cq = s->cq;
	if (ex) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = IBV_QP_EX_WITH_BIND_MW |
				      IBV_QP_EX_WITH_RDMA_WRITE;
	}
	s->qp = ibv_create_qp_ex(inherited->ctx, &attr);
	s->buf.addr = fu_map(LEN);
	s->buf.len = LEN;
	if (!s->qp || !s->buf.addr)
		return false;
	s->buf.mr = ibv_reg_mr(inherited->pd, s->buf.addr, LEN,
			       GC_ACCESS_ALL | IBV_ACCESS_MW_BIND);
	return s->buf.mr != NULL;
}

/* One completion of @op on @cq. */
static bool reap(struct ibv_cq *cq, enum ibv_wc_opcode op, uint64_t wr_id)
{
	struct ibv_wc wc;

	return gc_poll(cq, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	       wc.status == IBV_WC_SUCCESS && wc.opcode == op &&
	       wc.wr_id == wr_id;
}

/*
 * rxe0 WRITEs into, then READs back, window @off of rxe1's buffer through
 * @rkey: every byte must arrive.
 */
static bool through_window(struct side *a, struct side *b, size_t off,
			   uint32_t rkey, uint8_t sd)
{
	uint64_t raddr = (uintptr_t)b->buf.addr + off;

	gc_fill(a->buf.addr, WIN, sd);
	memset(b->buf.addr + off, 0, WIN);
	if (gc_post_send(a->qp, IBV_WR_RDMA_WRITE, &a->buf, 0, WIN, 11,
			 IBV_SEND_SIGNALED, raddr, rkey) ||
	    !reap(a->cq, IBV_WC_RDMA_WRITE, 11) ||
	    memcmp(b->buf.addr + off, a->buf.addr, WIN))
		return false;
	memset(a->buf.addr + WIN, 0, WIN);
	return !gc_post_send(a->qp, IBV_WR_RDMA_READ, &a->buf, WIN, WIN, 12,
			     IBV_SEND_SIGNALED, raddr, rkey) &&
	       reap(a->cq, IBV_WC_RDMA_READ, 12) &&
	       !memcmp(a->buf.addr + WIN, b->buf.addr + off, WIN);
}

static struct ibv_mw_bind_info window(struct side *b, size_t off)
{
	return (struct ibv_mw_bind_info){
		.mr = b->buf.mr,
		.addr = (uintptr_t)b->buf.addr + off,
		.length = WIN,
		.mw_access_flags = MW_ACCESS,
	};
}

static bool type1(struct side *a, struct side *b, struct ibv_mw *mw)
{
	struct ibv_mw_bind mb = { .wr_id = 21,
				  .send_flags = IBV_SEND_SIGNALED,
				  .bind_info = window(b, 0) };
	uint32_t old = mw->rkey;

	return !ibv_bind_mw(b->qp, mw, &mb) && mw->rkey != old &&
	       reap(b->cq, IBV_WC_BIND_MW, 21) &&
	       through_window(a, b, 0, mw->rkey, 0x61);
}

/* The rkey a type 2 window has after a posted bind to @rkey. */
static uint32_t after_bind(uint32_t old, uint32_t rkey)
{
	return parent_type2_moves ? rkey : old;
}

static bool type2_post(struct side *a, struct side *b, struct ibv_mw *mw)
{
	struct ibv_send_wr wr = { .wr_id = 22,
				  .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad = NULL;
	uint32_t old = mw->rkey, rkey = ibv_inc_rkey(old);

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = window(b, WIN);
	return !ibv_post_send(b->qp, &wr, &bad) &&
	       reap(b->cq, IBV_WC_BIND_MW, 22) &&
	       mw->rkey == after_bind(old, rkey) &&
	       through_window(a, b, WIN, rkey, 0x62);
}

static bool type2_ex(struct side *a, struct side *b, struct ibv_mw *mw)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(b->qp);
	struct ibv_mw_bind_info info = window(b, 2 * WIN);
	uint32_t old = mw->rkey, rkey = ibv_inc_rkey(old);

	if (!qpx)
		return false;
	ibv_wr_start(qpx);
	qpx->wr_id = 23;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, mw, rkey, &info);
	return !ibv_wr_complete(qpx) && reap(b->cq, IBV_WC_BIND_MW, 23) &&
	       mw->rkey == after_bind(old, rkey) &&
	       through_window(a, b, 2 * WIN, rkey, 0x63);
}

/*
 * A list binding the child's window, then the parent's: the first is
 * posted, the second refused with *bad_wr at it.
 */
static bool list_refused(struct side *a, struct side *b, struct ibv_mw *mw)
{
	struct ibv_send_wr wr[2] = { { .wr_id = 25,
				       .opcode = IBV_WR_BIND_MW,
				       .send_flags = IBV_SEND_SIGNALED },
				     { .wr_id = 26,
				       .opcode = IBV_WR_BIND_MW,
				       .send_flags = IBV_SEND_SIGNALED } },
			   *bad = NULL;
	uint32_t old = mw->rkey, rkey = ibv_inc_rkey(old);

	wr[0].next = &wr[1];
	wr[0].bind_mw.mw = mw;
	wr[0].bind_mw.rkey = rkey;
	wr[0].bind_mw.bind_info = window(b, 3 * WIN);
	wr[1].bind_mw.mw = parent_mw;
	wr[1].bind_mw.rkey = ibv_inc_rkey(parent_mw->rkey);
	wr[1].bind_mw.bind_info = window(b, 3 * WIN);
	return ibv_post_send(b->qp, wr, &bad) == EPERM && bad == &wr[1] &&
	       reap(b->cq, IBV_WC_BIND_MW, 25) &&
	       mw->rkey == after_bind(old, rkey) &&
	       through_window(a, b, 3 * WIN, rkey, 0x66);
}

/* ibv_wr_bind_mw() of a window not its own spoils the batch. */
static int ex_refused(struct ibv_qp *qp, struct ibv_mw *mw,
		      const struct ibv_mw_bind_info *info)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);

	if (!qpx)
		return -1;
	ibv_wr_start(qpx);
	qpx->wr_id = 27;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, mw, ibv_inc_rkey(mw->rkey), info);
	return ibv_wr_complete(qpx);
}

/*
 * The window and MR of @o (the parent's, or a grandchild's parent's) are
 * not @who's to bind, though on @b's PD.
 */
static void windows_refused(struct side *b, struct ibv_mw *mine,
			    const struct others *o, const char *who)
{
	struct ibv_mw_bind mb = { .wr_id = 24, .bind_info = window(b, 0) };
	int ret;

	if (o->mw) {
		ret = ibv_bind_mw(b->qp, o->mw, &mb);
		fp_guard(ret == EPERM,
			 "%s: binding %s window on its own QP: %s", who,
			 o->whose, strerror(ret));
		ret = ex_refused(b->qp, o->mw, &mb.bind_info);
		fp_guard(ret == EPERM,
			 "%s: ibv_wr_bind_mw() of %s window: "
			 "ibv_wr_complete() -> %s",
			 who, o->whose, strerror(ret));
	}
	mb.bind_info.mr = o->buf->mr;
	mb.bind_info.addr = (uintptr_t)o->buf->addr;
	ret = ibv_bind_mw(b->qp, mine, &mb);
	fp_guard(ret == EPERM, "%s: binding its window to %s MR: %s", who,
		 o->whose, strerror(ret));
}

/*
 * Its own windows, QPs and MRs of the two devices mixed in one bind:
 * refused (EINVAL) before a provider reads another device's object as
 * its own, the window's key left as it was.  ibv_bind_mw() of a window
 * to an MR of another PD is refused by the header already (EPERM, as
 * rdma-core v44's libibverbs/verbs.h does).
 */
static void cross_refused(struct side *a, struct side *b, struct ibv_mw *w1,
			  struct ibv_mw *w2, const char *who)
{
	struct ibv_mw_bind mb = { .wr_id = 28, .bind_info = window(b, 0) };
	struct ibv_send_wr wr = { .wr_id = 29, .opcode = IBV_WR_BIND_MW },
			   *bad = NULL;
	uint32_t k1 = w1->rkey, k2 = w2->rkey;
	int ret;

	ret = ibv_bind_mw(a->qp, w1, &mb);
	fp_guard(ret == EINVAL && w1->rkey == k1,
		 "%s: ibv_bind_mw() of rxe1's window on rxe0's QP: %s", who,
		 strerror(ret));
	wr.bind_mw.mw = w2;
	wr.bind_mw.rkey = ibv_inc_rkey(k2);
	wr.bind_mw.bind_info = window(b, WIN);
	ret = ibv_post_send(a->qp, &wr, &bad);
	fp_guard(ret == EINVAL && bad == &wr && w2->rkey == k2,
		 "%s: BIND_MW of rxe1's window posted on rxe0's QP: %s", who,
		 strerror(ret));
	wr.bind_mw.bind_info.mr = a->buf.mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)a->buf.addr;
	bad = NULL;
	ret = ibv_post_send(b->qp, &wr, &bad);
	fp_guard(ret == EINVAL && bad == &wr && w2->rkey == k2,
		 "%s: BIND_MW of its window to rxe0's MR: %s", who,
		 strerror(ret));
	ret = ex_refused(b->qp, w2, &wr.bind_mw.bind_info);
	fp_guard(ret == EINVAL && w2->rkey == k2,
		 "%s: ibv_wr_bind_mw() of its window to rxe0's MR: "
		 "ibv_wr_complete() -> %s",
		 who, strerror(ret));
	mb.bind_info.mr = a->buf.mr;
	mb.bind_info.addr = (uintptr_t)a->buf.addr;
	/* Whatever the first bind did on a library without the guard. */
	k1 = w1->rkey;
	ret = ibv_bind_mw(b->qp, w1, &mb);
	fp_ok(ret == EPERM && w1->rkey == k1,
	      "%s: ibv_bind_mw() of its window to rxe0's MR: %s (another PD)",
	      who, strerror(ret));
}

static bool pair_make(struct side *a, struct gc_dev *da, struct side *b,
		      struct gc_dev *db)
{
	return side_make(a, da, false) && side_make(b, db, true) &&
	       !gc_connect(a->qp, &a->dev, b->qp, &b->dev);
}

/*
 * A batch on the child's QP, which a grandchild inherited, naming an AH
 * of the grandchild's own: refused as the QP is (EPERM), not for the
 * AH's context (EINVAL).  Nothing else spoils the batch, and the QP's
 * ibv_wr_complete() refuses it anyway: what this tells is that the QP
 * is looked at before the AH.
 */
static int own_ah_on_childs_qp(struct ibv_qp *qp, struct gc_dev *src,
			       struct gc_dev *dst)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct ibv_ah *ah = gc_create_ah(src, dst);
	int ret = -1;

	if (qpx && ah) {
		ibv_wr_start(qpx);
		qpx->wr_id = 26;
		qpx->wr_flags = 0;
		/* The QP was made for RDMA WRITE and BIND_MW requests. */
		ibv_wr_rdma_write(qpx, 1, 0);
		ibv_wr_set_ud_addr(qpx, ah, 1, GC_QKEY);
		ret = ibv_wr_complete(qpx);
	}
	if (ah)
		ibv_destroy_ah(ah);
	return ret;
}

/* What a grandchild inherits from the child, by name. */
struct from_child {
	struct side *cb;
	struct ibv_mw *cmw;
	struct ibv_pd *cpd;
};

/*
 * A grandchild: windows on the grandparent's PD and on a PD of the
 * child's (@cpd), bound through QPs of its own to MRs of its own and
 * used; the child's window @cmw and its MR (@cb's) refused.
 */
static void grandchild_main(void *arg)
{
	const struct from_child *fc = arg;
	struct side *cb = fc->cb;
	struct ibv_pd *cpd = fc->cpd;
	const struct others child = { "the child's", fc->cmw, &cb->buf };
	struct side a = { 0 }, b = { 0 }, a2 = { 0 }, c = { 0 };
	struct gc_dev on_cpd = parent.p.b;
	struct ibv_mw *w1 = NULL, *w2 = NULL;
	const char *who = "grandchild";
	bool ok;
	int ret;

	on_cpd.pd = cpd;
	ok = pair_make(&a, &parent.p.a, &b, &parent.p.b) &&
	     pair_make(&a2, &parent.p.a, &c, &on_cpd);
	fp_guard(ok,
		 "%s: two pairs of its own, rxe1's on the grandparent's PD "
		 "and on the child's (%s)",
		 who, ok ? "ok" : strerror(errno));
	if (ok) {
		w1 = ibv_alloc_mw(parent.p.b.pd, IBV_MW_TYPE_1);
		w2 = ibv_alloc_mw(cpd, IBV_MW_TYPE_2);
	}
	ok = w1 && w2;
	fp_guard(ok, "%s: windows on the grandparent's PD and the child's (%s)",
		 who, ok ? "ok" : strerror(errno));
	if (!ok)
		return;
	fp_guard(type1(&a, &b, w1),
		 "%s: ibv_bind_mw() of the window on the grandparent's PD, "
		 "WRITE and READ through it",
		 who);
	fp_guard(type2_post(&a2, &c, w2),
		 "%s: BIND_MW of the window on the child's PD, WRITE and READ "
		 "through it",
		 who);
	windows_refused(&b, w1, &child, who);
	ret = own_ah_on_childs_qp(cb->qp, &b.dev, &a.dev);
	fp_guard(ret == EPERM,
		 "%s: ibv_wr_set_ud_addr() with its own AH on the child's QP: "
		 "ibv_wr_complete() -> %s",
		 who, strerror(ret));
}

/*
 * A grandchild of the child's, forked with the child's objects and a PD
 * of its own on rxe1 in place; then the child's window still works.
 */
static void grandchild(struct side *a, struct side *b, struct ibv_mw *mw,
		       const char *who)
{
	struct ibv_pd *pd = ibv_alloc_pd(b->dev.ctx);
	struct from_child fc = { b, mw, pd };
	int status;

	if (!fp_guard(pd, "%s: a PD of its own on rxe1 (%s)", who,
		      pd ? "ok" : strerror(errno)))
		return;
	status = fp_run_grandchild(grandchild_main, &fc);
	/* It ran to its end: no crash, no hang. */
	fp_guard(status == 0, "%s: its grandchild exited normally (%d)", who,
		 status);
	fp_guard(through_window(a, b, 0, mw->rkey, 0x67),
		 "%s: WRITE and READ through its window after the grandchild",
		 who);
	fp_guard(!ibv_dealloc_pd(pd), "%s: frees its PD on rxe1", who);
}

static void windows(struct side *a, struct side *b, const char *who)
{
	const struct others par = { "the parent's", parent_mw, &parent.b };
	struct ibv_mw *w1, *w2, *w3, *w4;
	bool ok;

	errno = 0;
	w1 = ibv_alloc_mw(b->dev.pd, IBV_MW_TYPE_1);
	if (!parent_max_mw) {
		fp_guard(!w1 && errno == parent_mw_errno,
			 "%s: ibv_alloc_mw -> %s, as the parent got (max_mw 0)",
			 who, strerror(errno));
		return;
	}
	w2 = ibv_alloc_mw(b->dev.pd, IBV_MW_TYPE_2);
	w3 = ibv_alloc_mw(b->dev.pd, IBV_MW_TYPE_2);
	w4 = ibv_alloc_mw(b->dev.pd, IBV_MW_TYPE_2);
	ok = w1 && w2 && w3 && w4;
	fp_guard(ok, "%s: type 1 and type 2 windows on the inherited PD (%s)",
		 who, ok ? "ok" : strerror(errno));
	if (!ok)
		return;
	fp_guard(w1->context == b->dev.ctx && w1->pd == b->dev.pd &&
			 w1->type == IBV_MW_TYPE_1 && w2->type == IBV_MW_TYPE_2,
		 "%s: the windows name the inherited context and PD", who);
	fp_guard(type1(a, b, w1),
		 "%s: ibv_bind_mw() of type 1, WRITE and READ through it", who);
	fp_guard(type2_post(a, b, w2),
		 "%s: BIND_MW by ibv_post_send(), WRITE and READ through it",
		 who);
	fp_guard(type2_ex(a, b, w3),
		 "%s: ibv_wr_bind_mw(), WRITE and READ through it", who);
	if (parent_mw)
		fp_guard(list_refused(a, b, w4),
			 "%s: a list binding its window then the parent's: "
			 "EPERM at the second, the first bound and used",
			 who);
	windows_refused(b, w1, &par, who);
	cross_refused(a, b, w1, w2, who);
	if (child_forks)
		grandchild(a, b, w1, who);
	if (child_cleans_up) {
		ok = !ibv_dealloc_mw(w1) && !ibv_dealloc_mw(w2) &&
		     !ibv_dealloc_mw(w3) && !ibv_dealloc_mw(w4);
		fp_guard(ok, "%s: frees its windows (%s)", who,
			 ok ? "ok" : strerror(errno));
	}
}

/* A SEND from rxe0 to rxe1 on the child's QPs, every byte received. */
static bool send_one(struct side *a, struct side *b, uint8_t sd)
{
	gc_fill(a->buf.addr, 256, sd);
	memset(b->buf.addr, 0, 256);
	return !gc_post_recv(b->qp, &b->buf, 0, 256, 31) &&
	       !gc_post_send(a->qp, IBV_WR_SEND, &a->buf, 0, 256, 32,
			     IBV_SEND_SIGNALED, 0, 0) &&
	       reap(a->cq, IBV_WC_SEND, 32) && reap(b->cq, IBV_WC_RECV, 31) &&
	       !memcmp(a->buf.addr, b->buf.addr, 256);
}

/* ibv_resize_cq() of its own CQ, then a SEND through it. */
static void resize(struct side *a, struct side *b, const char *who)
{
	int ret = ibv_resize_cq(b->cq, 64);

	fp_guard(!ret && b->cq->cqe >= 64,
		 "%s: ibv_resize_cq() of its own CQ to 64: %s (cqe %d)", who,
		 strerror(ret), b->cq->cqe);
	fp_guard(send_one(a, b, 0x64),
		 "%s: SEND received through the resized CQ", who);
	ret = ibv_resize_cq(parent_cq, 64);
	fp_guard(ret == EPERM, "%s: ibv_resize_cq() of the parent's CQ: %s",
		 who, strerror(ret));
}

/* ibv_rereg_mr() of @mr to @pd, nothing else: its result, errno in @err. */
static int rereg_pd(struct ibv_mr *mr, struct ibv_pd *pd, int *err)
{
	int ret;

	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd, NULL, 0, 0);
	*err = errno;
	return ret;
}

/*
 * Its MR on the inherited PD moved to a PD of its own, as the parent's
 * moved to another of the parent's; where the kernel moves it, back to
 * the inherited PD and a SEND from it.  A PD of another context is
 * refused (EINVAL) before any kernel sees it.
 */
static void change_pd(struct side *a, struct side *b, const char *who)
{
	struct ibv_pd *pd = ibv_alloc_pd(a->dev.ctx);
	bool back = true;
	int ret, err;

	if (!fp_guard(pd, "%s: a PD of its own on rxe0 (%s)", who,
		      pd ? "ok" : strerror(errno)))
		return;
	ret = rereg_pd(a->buf.mr, pd, &err);
	fp_guard(ret == parent_rereg_pd &&
			 (!ret || err == parent_rereg_pd_errno),
		 "%s: ibv_rereg_mr() of its own MR to that PD -> %d (%s), as "
		 "the parent got",
		 who, ret, strerror(ret ? err : 0));
	if (!ret) {
		fp_guard(a->buf.mr->pd == pd, "%s: the MR names that PD", who);
		ret = rereg_pd(a->buf.mr, a->dev.pd, &err);
		back = !ret && a->buf.mr->pd == a->dev.pd;
		fp_guard(back && send_one(a, b, 0x68),
			 "%s: back on the inherited PD (%s), a SEND from it",
			 who, strerror(ret ? err : 0));
	}
	/* An MR left on @pd would make what follows fail for that. */
	if (!back)
		return;
	ret = rereg_pd(a->buf.mr, b->dev.pd, &err);
	fp_guard(ret == IBV_REREG_MR_ERR_INPUT && err == EINVAL,
		 "%s: ibv_rereg_mr() of its MR to rxe1's PD -> %d (%s)", who,
		 ret, strerror(err));
	if (child_cleans_up)
		fp_guard(!ibv_dealloc_pd(pd), "%s: frees its PD on rxe0", who);
}

/*
 * Re-registration (where the kernel re-registers, then a SEND from the
 * MR through the keys the proxy carries) and multicast: what the parent
 * got on its own objects.
 */
static void changes(struct side *a, struct side *b, const char *who)
{
	struct ibv_qp *ud;
	int ret;

	errno = 0;
	ret = ibv_rereg_mr(a->buf.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE);
	fp_guard(ret == parent_rereg && (!ret || errno == parent_rereg_errno),
		 "%s: ibv_rereg_mr() of its own MR -> %d (%s), as the parent "
		 "got",
		 who, ret, strerror(ret ? errno : 0));
	if (!ret)
		fp_guard(send_one(a, b, 0x65),
			 "%s: SEND from the re-registered MR", who);
	change_pd(a, b, who);
	ud = gc_create_qp(&a->dev, a->cq, IBV_QPT_UD, NULL);
	if (!fp_guard(ud && !gc_ud_ready(ud), "%s: a UD QP of its own", who))
		return;
	ret = ibv_attach_mcast(ud, &mgid, 0);
	fp_guard(ret == parent_attach,
		 "%s: ibv_attach_mcast() of its own UD QP: %s, as the parent "
		 "got",
		 who, strerror(ret));
	ret = ibv_detach_mcast(ud, &mgid, 0);
	fp_guard(ret == parent_detach,
		 "%s: ibv_detach_mcast() of it: %s, as the parent got", who,
		 strerror(ret));
	if (child_cleans_up)
		fp_guard(!ibv_destroy_qp(ud), "%s: destroys its UD QP", who);
}

static void child_main(void *arg)
{
	const char *who = arg;
	struct side a = { 0 }, b = { 0 };
	bool ok;

	ok = side_make(&a, &parent.p.a, false) &&
	     side_make(&b, &parent.p.b, true);
	fp_guard(ok, "%s: CQs, QPs and MRs on inherited contexts and PDs (%s)",
		 who, ok ? "ok" : strerror(errno));
	ok = ok && !gc_connect(a.qp, &a.dev, b.qp, &b.dev);
	fp_guard(ok, "%s: connects its QPs rxe0 -> rxe1", who);
	if (!ok)
		return;
	windows(&a, &b, who);
	resize(&a, &b, who);
	changes(&a, &b, who);
	fp_child_attack(&parent, who);
}

static void run_kind(enum fp_kind kind, const struct fp_counts *before)
{
	child_cleans_up = kind == FP_FORK;
	child_forks = kind == FP_FORK;
	fp_run_unharmed(kind, child_main, &parent, before, seed++);
}

/*
 * A type 2 window of the parent's bound by a posted request on a pair of
 * QPs of its own made for it (its main pair stays untouched): whether
 * the provider moved the window's rkey; false if the bind failed.
 */
static bool parent_type2_bind(bool *moved)
{
	struct ibv_cq *ca = ibv_create_cq(parent.p.a.ctx, 4, NULL, NULL, 0);
	struct ibv_cq *cb = ibv_create_cq(parent.p.b.ctx, 4, NULL, NULL, 0);
	struct ibv_send_wr wr = { .wr_id = 41,
				  .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_mw *mw = NULL;
	struct gc_buf buf = { 0 };
	uint32_t old = 0, rkey = 0;
	bool ok = false;

	if (ca && cb) {
		qa = gc_create_qp(&parent.p.a, ca, IBV_QPT_RC, NULL);
		qb = gc_create_qp(&parent.p.b, cb, IBV_QPT_RC, NULL);
	}
	if (qa && qb && !gc_connect(qa, &parent.p.a, qb, &parent.p.b) &&
	    !gc_buf_alloc(&buf, parent.p.b.pd, WIN,
			  GC_ACCESS_ALL | IBV_ACCESS_MW_BIND, 0x12)) {
		mw = ibv_alloc_mw(parent.p.b.pd, IBV_MW_TYPE_2);
		if (mw) {
			old = mw->rkey;
			rkey = ibv_inc_rkey(old);
			wr.bind_mw.mw = mw;
			wr.bind_mw.rkey = rkey;
			wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
				.mr = buf.mr,
				.addr = (uintptr_t)buf.addr,
				.length = WIN,
				.mw_access_flags = MW_ACCESS,
			};
			ok = !ibv_post_send(qb, &wr, &bad) &&
			     reap(cb, IBV_WC_BIND_MW, 41);
			*moved = mw->rkey == rkey;
			ok = ok && (mw->rkey == rkey || mw->rkey == old);
		}
	}
	if (mw)
		ibv_dealloc_mw(mw);
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (buf.mr)
		gc_buf_free(&buf);
	if (ca)
		ibv_destroy_cq(ca);
	if (cb)
		ibv_destroy_cq(cb);
	return ok;
}

/* The parent's answers for the same verbs on objects of its own. */
static bool parent_objects(void)
{
	struct ibv_device_attr attr;
	struct ibv_qp *ud;
	struct ibv_pd *pd;
	struct gc_buf buf;
	bool ok = true;

	if (ibv_query_device(parent.p.b.ctx, &attr))
		return false;
	parent_cq = ibv_create_cq(parent.p.b.ctx, 16, NULL, NULL, 0);
	if (!parent_cq)
		return false;
	parent_max_mw = attr.max_mw;
	errno = 0;
	parent_mw = ibv_alloc_mw(parent.p.b.pd, IBV_MW_TYPE_1);
	parent_mw_errno = errno;
	if (parent_max_mw &&
	    (!parent_mw || !parent_type2_bind(&parent_type2_moves)))
		ok = false;
	if (gc_buf_alloc(&buf, parent.p.a.pd, 4096, GC_ACCESS_ALL, 0x11))
		return false;
	errno = 0;
	parent_rereg = ibv_rereg_mr(buf.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				    NULL, 0, IBV_ACCESS_LOCAL_WRITE);
	parent_rereg_errno = errno;
	pd = ibv_alloc_pd(parent.p.a.ctx);
	if (pd)
		parent_rereg_pd = rereg_pd(buf.mr, pd, &parent_rereg_pd_errno);
	gc_buf_free(&buf);
	if (!pd || ibv_dealloc_pd(pd))
		return false;
	ud = gc_create_qp(&parent.p.a, parent.p.cq_a, IBV_QPT_UD, NULL);
	if (!ud || gc_ud_ready(ud))
		return false;
	parent_attach = ibv_attach_mcast(ud, &mgid, 0);
	parent_detach = ibv_detach_mcast(ud, &mgid, 0);
	ibv_destroy_qp(ud);
	gc_diag("parent on %s: max_mw %d, ibv_alloc_mw %s (a posted type 2 "
		"bind %s the rkey), ibv_rereg_mr %d (%s), to another PD %d "
		"(%s), ibv_attach_mcast %s, ibv_detach_mcast %s",
		parent.p.b.name, parent_max_mw,
		parent_mw ? "ok" : strerror(parent_mw_errno),
		parent_type2_moves ? "moves" : "leaves", parent_rereg,
		strerror(parent_rereg ? parent_rereg_errno : 0),
		parent_rereg_pd,
		strerror(parent_rereg_pd ? parent_rereg_pd_errno : 0),
		strerror(parent_attach), strerror(parent_detach));
	return ok;
}

int main(void)
{
	struct fp_counts before;

	if (!fp_parent_start("fork_child_mw", &parent))
		return gc_finish();
	if (!gc_ok(parent_objects(),
		   "parent: its own CQ, windows, MR, UD QP and second PD"))
		return gc_finish();
	fp_traffic(&parent, "parent before any child", seed++);
	if (!gc_ok(fp_counts_read(&before), "rdma resource show"))
		return gc_finish();

	run_kind(FP_FORK, &before);
	run_kind(FP_UFORK, &before);
	run_kind(FP_CLONE, &before);

	if (parent_mw)
		ibv_dealloc_mw(parent_mw);
	ibv_destroy_cq(parent_cq);
	fp_pair_close(&parent);
	return gc_finish();
}
