// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * More of a fork child's own objects on the contexts it inherited: SRQs,
 * UD QPs, address handles, extended CQs and QPs with send ops
 * (fork_child_objects covers PDs, channels, CQs, RC QPs and MRs).
 *
 * The parent connects rxe0 and rxe1 by an RC QP and moves bytes, and
 * makes an SRQ and an AH of its own.  Then a child made by fork(),
 * _Fork() and a raw clone() in turn, on the INHERITED contexts and PDs,
 * creates an SRQ (ibv_create_srq() on the inherited PD), a second one
 * with ibv_create_srq_ex() and a CQ (queried and modified), UD QPs, one
 * receiving through the SRQ, and an AH on the inherited PD; it sends a
 * datagram rxe0 -> rxe1 through that AH into the SRQ, answers it through
 * an AH built from the completion (ibv_create_ah_from_wc()), and sends a
 * chain of more requests than the library exchanges AHs for at once.
 * With ibv_create_cq_ex() and ibv_create_qp_ex() (send ops) it sends and
 * writes through ibv_wr_*() on RC and through its AH on UD, polling with
 * ibv_start_poll(); a batch naming the parent's AH is aborted (EPERM),
 * one naming its AH of the other device too (EINVAL), the first refusal
 * deciding the errno, also while another thread waits to start a batch
 * of its own (not in the raw clone() child, which glibc did not set up
 * for threads).  It checks what its objects name (the inherited context
 * and PD), that the parent's SRQ and AH stay refused (EPERM, also as a
 * UD request's AH or a new QP's SRQ), that XRC domains, thread and
 * parent domains and XRC send QPs give the errno the parent got for
 * them on this device, and that an XRC target QP or SRQ in the parent's
 * XRC domain (a stand-in: Soft-RoCE has none) is refused with EPERM,
 * one in rxe1's with EINVAL.
 * The fork() child destroys everything it made; the others exit without
 * cleaning up.  After each child the parent's traffic still runs and the
 * kernel's object counts (`rdma resource show`) are what they were
 * before it.
 *
 * On Debian's library the child's creating verbs reach the parent's
 * kernel context and its data path that context's queues: the child's
 * checks are guards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fork_proc.h"

#define LEN 8192
#define SLOT 256 /* one receive: the 40-byte GRH, then the payload */
#define GRH_LEN 40
#define FIRST_LEN 200
#define CHAIN 20 /* more than fork_child.c exchanges AHs for at once */
#define CHAIN_LEN 64
#define QUEUE 64

static struct fp_pair parent;
static struct ibv_srq *parent_srq;
static struct ibv_ah *parent_ah;
static uint8_t seed = 0x30;
/* Whether the child about to run destroys what it made. */
static bool child_cleans_up;
/* Not in a raw clone() child: glibc's thread state is the parent's. */
static bool child_threads;

/*
 * What the parent got for each domain verb on rxe0, and for an XRC send
 * QP (ibv_create_qp() and with send ops): 0 or its errno.
 */
static int parent_xrcd, parent_td, parent_pad, parent_xrc_send[2];

/* Stand-ins for an XRC domain of the parent's on rxe0 and one of rxe1. */
static struct fp_xrcd xrcd_a, xrcd_b;

/* What one child makes on one inherited device. */
struct side {
	struct gc_dev dev; /* the parent's, with its context and PD */
	struct ibv_cq *cq;
	struct ibv_srq *srq; /* side b only */
	struct ibv_qp *qp;
	struct gc_buf buf;
};

static bool side_make(struct side *s, struct gc_dev *inherited, bool srq)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = QUEUE,
						     .max_sge = 1 } };
	struct ibv_qp_init_attr attr = { 0 };

	s->dev = *inherited;
	s->cq = ibv_create_cq(inherited->ctx, 2 * QUEUE, s, NULL, 0);
	if (!s->cq)
		return false;
	if (srq) {
		sattr.srq_context = s;
		s->srq = ibv_create_srq(inherited->pd, &sattr);
		if (!s->srq)
			return false;
	}
	attr.send_cq = s->cq;
	attr.recv_cq = s->cq;
	attr.srq = s->srq;
	attr.qp_type = IBV_QPT_UD;
	attr.cap.max_send_wr = QUEUE;
	attr.cap.max_recv_wr = QUEUE;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	s->qp = ibv_create_qp(inherited->pd, &attr);
	s->buf.addr = fu_map(LEN);
	s->buf.len = LEN;
	if (!s->qp || !s->buf.addr)
		return false;
	s->buf.mr = ibv_reg_mr(inherited->pd, s->buf.addr, LEN, GC_ACCESS_ALL);
	return s->buf.mr && !gc_ud_ready(s->qp);
}

static bool side_fields_ok(struct side *s)
{
	return s->cq->context == s->dev.ctx && s->qp->context == s->dev.ctx &&
	       s->qp->pd == s->dev.pd && s->qp->qp_type == IBV_QPT_UD &&
	       s->qp->srq == s->srq &&
	       (!s->srq ||
		(s->srq->context == s->dev.ctx && s->srq->pd == s->dev.pd &&
		 s->srq->srq_context == s));
}

static int recv_slot(struct side *s, int slot, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)s->buf.addr + slot * SLOT, SLOT,
			       s->buf.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1 },
			   *bad = NULL;

	if (s->srq)
		return ibv_post_srq_recv(s->srq, &wr, &bad);
	return ibv_post_recv(s->qp, &wr, &bad);
}

/* @n UD SENDs of @len bytes from @off on, chained, through @ah. */
static int send_ud(struct side *s, struct ibv_ah *ah, uint32_t qpn, size_t off,
		   uint32_t len, int n, int *bad_idx)
{
	struct ibv_send_wr wr[CHAIN], *bad = NULL;
	struct ibv_sge sge[CHAIN];
	int ret;

	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)s->buf.addr + off + i * len;
		sge[i].length = len;
		sge[i].lkey = s->buf.mr->lkey;
		wr[i].wr_id = 100 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.ud.ah = ah;
		wr[i].wr.ud.remote_qpn = qpn;
		wr[i].wr.ud.remote_qkey = GC_QKEY;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_send(s->qp, wr, &bad);
	/* Which request of the chain *bad_wr named, -1 for none of them. */
	if (bad_idx)
		*bad_idx = (ret && bad >= wr && bad < wr + n) ? bad - wr : -1;
	return ret;
}

/* Poll @n successful completions, receives or not, from @s's CQ. */
static bool reap(struct side *s, int n, bool recv, struct ibv_wc *last)
{
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		if (gc_poll(s->cq, 1, &wc, GC_TIMEOUT_MS) != 1 ||
		    wc.status != IBV_WC_SUCCESS ||
		    !!(wc.opcode & IBV_WC_RECV) != recv) {
			fp_diag("completion %d of %d: %s", i, n,
				gc_status_str(wc.status));
			return false;
		}
		*last = wc;
	}
	return true;
}

/* The datagram a -> b into the SRQ, and b's answer through ah_from_wc. */
static bool ud_traffic(struct side *a, struct side *b, struct ibv_ah *ab,
		       struct ibv_ah **ba, uint8_t sd)
{
	struct ibv_wc wc, rwc;

	gc_fill(a->buf.addr, LEN, sd);
	gc_fill(b->buf.addr + LEN / 2, LEN / 2, sd + 1);
	if (recv_slot(b, 0, 1) || recv_slot(a, 0, 2) ||
	    send_ud(a, ab, b->qp->qp_num, 0, FIRST_LEN, 1, NULL))
		return false;
	if (!reap(b, 1, true, &rwc) || !reap(a, 1, false, &wc) ||
	    rwc.byte_len != GRH_LEN + FIRST_LEN ||
	    rwc.qp_num != b->qp->qp_num || rwc.src_qp != a->qp->qp_num ||
	    memcmp(b->buf.addr + GRH_LEN, a->buf.addr, FIRST_LEN))
		return false;
	/* The path back, from what arrived: as a UD server answers. */
	*ba = ibv_create_ah_from_wc(b->dev.pd, &rwc,
				    (struct ibv_grh *)b->buf.addr, GC_PORT);
	if (!*ba || (*ba)->context != b->dev.ctx || (*ba)->pd != b->dev.pd) {
		fp_diag("ibv_create_ah_from_wc: %s", strerror(errno));
		return false;
	}
	if (send_ud(b, *ba, rwc.src_qp, LEN / 2, FIRST_LEN, 1, NULL) ||
	    !reap(a, 1, true, &rwc) || !reap(b, 1, false, &wc) ||
	    memcmp(a->buf.addr + GRH_LEN, b->buf.addr + LEN / 2, FIRST_LEN))
		return false;
	return true;
}

/* A chain longer than one batch of the library's AH exchange. */
static bool ud_chain(struct side *a, struct side *b, struct ibv_ah *ab)
{
	struct ibv_wc wc;
	int got = 0;

	for (int i = 0; i < CHAIN; i++)
		if (recv_slot(b, i, 10 + i))
			return false;
	if (send_ud(a, ab, b->qp->qp_num, 0, CHAIN_LEN, CHAIN, NULL) ||
	    !reap(a, CHAIN, false, &wc))
		return false;
	for (int i = 0; i < CHAIN; i++) {
		if (!reap(b, 1, true, &wc))
			return false;
		/* The SRQ fills its slots in posting order. */
		int slot = (int)wc.wr_id - 10;

		if (slot >= 0 && slot < CHAIN &&
		    !memcmp(b->buf.addr + slot * SLOT + GRH_LEN,
			    a->buf.addr + slot * CHAIN_LEN, CHAIN_LEN))
			got++;
	}
	return got == CHAIN;
}

/* ibv_create_srq_ex() with a PD and a CQ, queried, modified, destroyed. */
static bool srq_ex(struct side *b, bool destroy, struct ibv_srq **out)
{
	struct ibv_srq_init_attr_ex attr = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ |
			     IBV_SRQ_INIT_ATTR_TYPE,
		.srq_type = IBV_SRQT_BASIC,
		.pd = b->dev.pd,
		.cq = b->cq,
	};
	struct ibv_srq_attr sa = { .srq_limit = 4 };
	struct ibv_srq *srq;

	*out = NULL;
	srq = ibv_create_srq_ex(b->dev.ctx, &attr);
	if (!srq) {
		fp_diag("ibv_create_srq_ex: %s", strerror(errno));
		return false;
	}
	*out = srq;
	if (srq->context != b->dev.ctx || srq->pd != b->dev.pd ||
	    ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT))
		return false;
	memset(&sa, 0, sizeof(sa));
	if (ibv_query_srq(srq, &sa) || sa.max_wr < 16 || sa.srq_limit != 4)
		return false;
	if (!destroy)
		return true;
	*out = NULL;
	return ibv_destroy_srq(srq) == 0;
}

/* An extended CQ on @ctx that reports byte counts and QP numbers. */
static struct ibv_cq_ex *make_cqx(struct ibv_context *ctx)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = QUEUE,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM,
	};

	return ibv_create_cq_ex(ctx, &attr);
}

/* A QP with send ops on the inherited PD of @dev. */
static struct ibv_qp *make_qpx(struct gc_dev *dev, struct ibv_cq_ex *cq,
			       enum ibv_qp_type type, uint64_t ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = type,
		.send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq),
		.cap = { .max_send_wr = QUEUE,
			 .max_recv_wr = QUEUE,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = dev->pd,
		.send_ops_flags = ops,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(dev->ctx, &attr);

	if (!qp)
		fp_diag("ibv_create_qp_ex on %s: %s", dev->name,
			strerror(errno));
	return qp;
}

/* One successful completion from @cq, read through the ibv_wc_read_*(). */
static bool poll_one_ex(struct ibv_cq_ex *cq, struct ibv_wc *wc)
{
	struct ibv_poll_cq_attr attr = {};
	long deadline = gc_now_ms() + GC_TIMEOUT_MS;
	int r;

	while ((r = ibv_start_poll(cq, &attr)) == ENOENT &&
	       gc_now_ms() < deadline)
		usleep(1000);
	if (r) {
		fp_diag("ibv_start_poll: %d", r);
		return false;
	}
	wc->status = cq->status;
	wc->wr_id = cq->wr_id;
	wc->opcode = ibv_wc_read_opcode(cq);
	wc->byte_len = ibv_wc_read_byte_len(cq);
	wc->qp_num = ibv_wc_read_qp_num(cq);
	/* One entry per ibv_start_poll(): see gc_poll_ex(). */
	ibv_end_poll(cq);
	return wc->status == IBV_WC_SUCCESS;
}

struct ex_objs {
	struct ibv_cq_ex *cxa, *cxb;
	struct ibv_qp *qa, *qb, *ua;
};

/* SEND and RDMA WRITE through ibv_wr_*() on an RC QP, both CQs ex. */
static bool ex_rc(struct side *a, struct side *b, struct ex_objs *x)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(x->qa);
	struct ibv_wc wc;
	bool ok;

	if (!qx || gc_connect(x->qa, &a->dev, x->qb, &b->dev))
		return false;
	gc_fill(a->buf.addr, LEN, 0x5c);
	memset(b->buf.addr, 0, LEN);
	if (gc_post_recv(x->qb, &b->buf, 0, 1024, 7))
		return false;
	ibv_wr_start(qx);
	qx->wr_id = 21;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, a->buf.mr->lkey, (uintptr_t)a->buf.addr, 1024);
	qx->wr_id = 22;
	ibv_wr_rdma_write(qx, b->buf.mr->rkey, (uintptr_t)b->buf.addr + 2048);
	ibv_wr_set_sge(qx, a->buf.mr->lkey, (uintptr_t)a->buf.addr + 2048,
		       1024);
	if (ibv_wr_complete(qx))
		return false;
	ok = poll_one_ex(x->cxb, &wc) && wc.wr_id == 7 &&
	     wc.opcode == IBV_WC_RECV && wc.byte_len == 1024 &&
	     wc.qp_num == x->qb->qp_num;
	ok = ok && poll_one_ex(x->cxa, &wc) && wc.wr_id == 21 &&
	     wc.qp_num == x->qa->qp_num && poll_one_ex(x->cxa, &wc) &&
	     wc.wr_id == 22 && wc.opcode == IBV_WC_RDMA_WRITE;
	return ok && !memcmp(a->buf.addr, b->buf.addr, 1024) &&
	       !memcmp(a->buf.addr + 2048, b->buf.addr + 2048, 1024);
}

/* In the open batch: a SEND of 64 bytes from a's @off through @ah to b. */
static void ud_send_ex(struct ibv_qp_ex *qx, struct side *a, struct side *b,
		       struct ibv_ah *ah, size_t off)
{
	ibv_wr_send(qx);
	ibv_wr_set_ud_addr(qx, ah, b->qp->qp_num, GC_QKEY);
	ibv_wr_set_sge(qx, a->buf.mr->lkey, (uintptr_t)a->buf.addr + off, 64);
}

/*
 * A UD QP ex: a batch naming the parent's AH is aborted (nothing
 * arrives), then one through the child's AH lands in b's SRQ.
 */
static bool ex_ud(struct side *a, struct side *b, struct ibv_ah *ab,
		  struct ex_objs *x, const char *who)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(x->ua);
	struct ibv_wc wc;
	int ret;

	if (!qx || gc_ud_ready(x->ua) || recv_slot(b, 0, 31))
		return false;
	gc_fill(a->buf.addr, LEN, 0x6d);
	ibv_wr_start(qx);
	qx->wr_id = 41;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ud_send_ex(qx, a, b, parent_ah, 0);
	ret = ibv_wr_complete(qx);
	fp_guard(ret == EPERM,
		 "%s: a batch naming the inherited AH is aborted, "
		 "ibv_wr_complete() -> EPERM (%d)",
		 who, ret);
	ibv_wr_start(qx);
	qx->wr_id = 42;
	ud_send_ex(qx, a, b, ab, 512);
	if (ibv_wr_complete(qx))
		return false;
	/* Only the second batch's request went out. */
	return poll_one_ex(x->cxa, &wc) && wc.wr_id == 42 &&
	       reap(b, 1, true, &wc) && wc.wr_id == 31 &&
	       wc.byte_len == GRH_LEN + 64 &&
	       !memcmp(b->buf.addr + GRH_LEN, a->buf.addr + 512, 64);
}

/* Two SENDs through AHs @first and @second in one batch: its result. */
static int two_sends(struct ibv_qp_ex *qx, struct side *a, struct side *b,
		     struct ibv_ah *first, struct ibv_ah *second)
{
	ibv_wr_start(qx);
	qx->wr_id = 51;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ud_send_ex(qx, a, b, first, 0);
	ud_send_ex(qx, a, b, second, 0);
	return ibv_wr_complete(qx);
}

/* Another thread's batch on the same QP: one SEND through @ah. */
struct other {
	struct side *a, *b;
	struct ibv_ah *ah;
};

static void other_batch(struct gc_batch_thread *t)
{
	struct other *o = t->arg;

	t->qx->wr_id = 53;
	t->qx->wr_flags = IBV_SEND_SIGNALED;
	ud_send_ex(t->qx, o->a, o->b, o->ah, 1024);
}

/*
 * A batch spoilt by the parent's AH stays spoilt while another thread
 * waits in ibv_wr_start() for the QP (the provider's lock): only the
 * other thread's SEND goes out.
 */
static bool spoilt_while_waiting(struct side *a, struct side *b,
				 struct ibv_ah *ab, struct ex_objs *x, int *ret)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(x->ua);
	struct other o = { a, b, ab };
	struct gc_batch_thread t = { .qx = qx,
				     .build = other_batch,
				     .arg = &o };
	struct ibv_wc wc;

	if (recv_slot(b, 0, 33))
		return false;
	ibv_wr_start(qx);
	qx->wr_id = 52;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_ud_addr(qx, parent_ah, b->qp->qp_num, GC_QKEY);
	if (gc_batch_thread_start(&t)) {
		ibv_wr_abort(qx);
		return false;
	}
	ibv_wr_set_sge(qx, a->buf.mr->lkey, (uintptr_t)a->buf.addr, 64);
	*ret = ibv_wr_complete(qx);
	return !gc_batch_thread_join(&t) && poll_one_ex(x->cxa, &wc) &&
	       wc.wr_id == 53 && reap(b, 1, true, &wc) && wc.wr_id == 33 &&
	       !memcmp(b->buf.addr + GRH_LEN, a->buf.addr + 1024, 64);
}

/*
 * An AH on a device the child opened itself is of another context than
 * its UD QP on the inherited one: EINVAL, through ibv_wr_set_ud_addr()
 * as through ibv_post_send(), not the EPERM of the parent's AH.
 */
static void opened_ah_refused(struct side *a, struct side *b, struct ex_objs *x,
			      const char *who)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(x->ua);
	struct ibv_sge sge = { (uintptr_t)a->buf.addr, 64, a->buf.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 54,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND },
			   *bad = NULL;
	struct gc_dev own = { 0 };
	int ret, pret;

	if (!fp_guard(!gc_dev_open(&own, 0), "%s: opens rxe0 itself", who))
		return;
	wr.wr.ud.ah = gc_create_ah(&own, &b->dev);
	wr.wr.ud.remote_qpn = b->qp->qp_num;
	wr.wr.ud.remote_qkey = GC_QKEY;
	if (wr.wr.ud.ah) {
		ret = two_sends(qx, a, b, wr.wr.ud.ah, wr.wr.ud.ah);
		pret = ibv_post_send(x->ua, &wr, &bad);
		fp_guard(ret == EINVAL && pret == EINVAL && bad == &wr,
			 "%s: its AH on rxe0 it opened itself, on its UD QP "
			 "on the inherited rxe0: ibv_wr_complete() -> %s, "
			 "ibv_post_send() -> %s",
			 who, strerror(ret), strerror(pret));
		ibv_destroy_ah(wr.wr.ud.ah);
	} else {
		fp_guard(false, "%s: an AH on rxe0 it opened itself (%s)", who,
			 strerror(errno));
	}
	gc_dev_close(&own);
}

/*
 * What spoils a batch on its UD QP ex decides ibv_wr_complete()'s errno:
 * its AH on rxe1's PD on rxe0's QP (EINVAL), the parent's AH (EPERM),
 * the first of them when a batch names both.
 */
static void ex_ud_refusals(struct side *a, struct side *b, struct ibv_ah *ab,
			   struct ibv_ah *ba, struct ex_objs *x,
			   const char *who)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(x->ua);
	int ret = 0;
	bool ok;

	if (ba) {
		ret = two_sends(qx, a, b, ab, ba);
		fp_guard(ret == EINVAL,
			 "%s: a batch naming its AH on rxe1's PD on rxe0's "
			 "QP ex: ibv_wr_complete() -> %s",
			 who, strerror(ret));
		ret = two_sends(qx, a, b, ba, parent_ah);
		fp_guard(ret == EINVAL,
			 "%s: a batch naming that AH, then the parent's: %s",
			 who, strerror(ret));
		ret = two_sends(qx, a, b, parent_ah, ba);
		fp_guard(ret == EPERM,
			 "%s: a batch naming the parent's AH, then that one: "
			 "%s",
			 who, strerror(ret));
	}
	opened_ah_refused(a, b, x, who);
	if (!child_threads)
		return;
	ret = 0;
	ok = spoilt_while_waiting(a, b, ab, x, &ret);
	fp_guard(ret == EPERM && ok,
		 "%s: a spoilt batch fails (%s) while another thread waits "
		 "to start one, whose SEND alone arrives",
		 who, strerror(ret));
}

/* Extended CQs and QPs of the child's, with traffic. */
static void ex_objects(struct side *a, struct side *b, struct ibv_ah *ab,
		       struct ibv_ah *ba, struct ex_objs *x, const char *who)
{
	const uint64_t rc_ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	bool ok;

	x->cxa = make_cqx(a->dev.ctx);
	x->cxb = make_cqx(b->dev.ctx);
	if (x->cxa && x->cxb) {
		x->qa = make_qpx(&a->dev, x->cxa, IBV_QPT_RC, rc_ops);
		x->qb = make_qpx(&b->dev, x->cxb, IBV_QPT_RC, rc_ops);
		x->ua = make_qpx(&a->dev, x->cxa, IBV_QPT_UD,
				 IBV_QP_EX_WITH_SEND);
	}
	ok = x->cxa && x->cxb && x->qa && x->qb && x->ua &&
	     ibv_cq_ex_to_cq(x->cxa)->context == a->dev.ctx &&
	     x->qa->context == a->dev.ctx && x->qa->pd == a->dev.pd &&
	     x->qa->send_cq == ibv_cq_ex_to_cq(x->cxa);
	fp_guard(ok,
		 "%s: ibv_create_cq_ex(), ibv_create_qp_ex() with send ops "
		 "on inherited contexts and PDs (%s)",
		 who, ok ? "ok" : strerror(errno));
	if (!ok)
		return;
	fp_guard(ex_rc(a, b, x),
		 "%s: ibv_wr_send(), ibv_wr_rdma_write() on its QP ex, "
		 "completions through ibv_start_poll() and ibv_wc_read_*()",
		 who);
	fp_guard(ex_ud(a, b, ab, x, who),
		 "%s: ibv_wr_set_ud_addr() with its AH on a UD QP ex", who);
	ex_ud_refusals(a, b, ab, ba, x, who);
}

static bool ex_destroy(struct ex_objs *x)
{
	return !ibv_destroy_qp(x->qa) && !ibv_destroy_qp(x->qb) &&
	       !ibv_destroy_qp(x->ua) &&
	       !ibv_destroy_cq(ibv_cq_ex_to_cq(x->cxa)) &&
	       !ibv_destroy_cq(ibv_cq_ex_to_cq(x->cxb));
}

/* The parent's SRQ and AH stay the parent's. */
static void inherited_refused(struct side *a, struct side *b, const char *who)
{
	struct ibv_recv_wr rwr = { .wr_id = FP_CHILD_WR_ID }, *rbad = NULL;
	struct ibv_qp_init_attr qattr = {
		.send_cq = a->cq,
		.recv_cq = a->cq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1,
			 .max_recv_wr = 1,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_srq_attr sa;
	struct ibv_qp *qp;
	int ret, bad;

	ret = ibv_post_srq_recv(parent_srq, &rwr, &rbad);
	fp_guard(ret == EPERM && rbad == &rwr,
		 "%s: ibv_post_srq_recv on the inherited SRQ -> EPERM (%d)",
		 who, ret);
	ret = ibv_query_srq(parent_srq, &sa);
	fp_guard(ret == EPERM,
		 "%s: ibv_query_srq on the inherited SRQ -> "
		 "EPERM (%d)",
		 who, ret);
	ret = send_ud(a, parent_ah, 1, 0, 8, 1, &bad);
	fp_guard(ret == EPERM && bad == 0,
		 "%s: a UD request naming the inherited AH -> EPERM (%d)", who,
		 ret);
	qattr.srq = parent_srq;
	qattr.send_cq = b->cq;
	qattr.recv_cq = b->cq;
	qp = ibv_create_qp(parent.p.b.pd, &qattr);
	fp_guard(!qp && errno == EPERM,
		 "%s: a QP on the inherited SRQ -> EPERM (%s)", who,
		 qp ? "created" : strerror(errno));
}

/* A new QP: 0, its errno, or -1 when made but not destroyed. */
static int qp_made(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp_ex(ctx, attr);
	if (!qp)
		return errno;
	return ibv_destroy_qp(qp) ? -1 : 0;
}

/*
 * An XRC send QP on @pd and @cq: with a PD only, the inline
 * ibv_create_qp_ex() takes it to ibv_create_qp(); with send ops it stays.
 */
static int xrc_send_qp(struct ibv_context *ctx, struct ibv_pd *pd,
		       struct ibv_cq *cq, bool send_ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_XRC_SEND,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};

	if (send_ops) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = IBV_QP_EX_WITH_SEND;
	}
	return qp_made(ctx, &attr);
}

/* An XRC target QP in @xrcd. */
static int xrc_recv_qp(struct ibv_context *ctx, struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = xrcd,
	};

	return qp_made(ctx, &attr);
}

/* An XRC SRQ in @xrcd, on @pd and @cq: 0 or the errno (-1: not freed). */
static int xrc_srq(struct ibv_context *ctx, struct ibv_pd *pd,
		   struct ibv_cq *cq, struct ibv_xrcd *xrcd)
{
	struct ibv_srq_init_attr_ex attr = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_XRCD,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.cq = cq,
		.xrcd = xrcd,
	};
	struct ibv_srq *srq;

	errno = 0;
	srq = ibv_create_srq_ex(ctx, &attr);
	if (!srq)
		return errno;
	return ibv_destroy_srq(srq) ? -1 : 0;
}

static const char *made_str(int err)
{
	return err > 0 ? strerror(err) : err ? "not destroyed" : "ok";
}

/*
 * XRC QPs and SRQs: a send QP is made on the child's own context and
 * refused there as the parent's was; the parent's XRC domain is refused
 * (EPERM), one of rxe1 too (EINVAL), before any provider sees it.
 */
static void xrc(struct side *a, const char *who)
{
	int err;

	for (int ex = 0; ex < 2; ex++) {
		err = xrc_send_qp(a->dev.ctx, a->dev.pd, a->cq, ex);
		fp_ok(err == parent_xrc_send[ex],
		      "%s: an XRC send QP%s on the inherited PD and its CQ "
		      "-> %s, as the parent got",
		      who, ex ? " with send ops" : "", made_str(err));
	}
	err = xrc_recv_qp(a->dev.ctx, &xrcd_a.xrcd);
	fp_guard(err == EPERM,
		 "%s: an XRC target QP in the parent's XRC domain -> EPERM "
		 "(%s)",
		 who, made_str(err));
	err = xrc_srq(a->dev.ctx, a->dev.pd, a->cq, &xrcd_a.xrcd);
	fp_guard(err == EPERM,
		 "%s: an XRC SRQ in the parent's XRC domain -> EPERM (%s)",
		 who, made_str(err));
	err = xrc_recv_qp(a->dev.ctx, &xrcd_b.xrcd);
	fp_guard(err == EINVAL,
		 "%s: an XRC target QP in an XRC domain of rxe1 -> EINVAL "
		 "(%s)",
		 who, made_str(err));
	err = xrc_srq(a->dev.ctx, a->dev.pd, a->cq, &xrcd_b.xrcd);
	fp_guard(err == EINVAL,
		 "%s: an XRC SRQ in an XRC domain of rxe1 -> EINVAL (%s)",
		 who, made_str(err));
}

/* XRC, thread and parent domains: what the device gave the parent. */
static void domains(struct side *a, const char *who)
{
	struct ibv_xrcd_init_attr xattr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_parent_domain_init_attr pattr = { .pd = a->dev.pd };
	struct ibv_td_init_attr tattr = { 0 };
	struct ibv_xrcd *xrcd;
	struct ibv_pd *pad;
	struct ibv_td *td;

	if (parent_xrcd || parent_td || parent_pad) {
		errno = 0;
		xrcd = ibv_open_xrcd(a->dev.ctx, &xattr);
		fp_ok(!xrcd && errno == parent_xrcd,
		      "%s: ibv_open_xrcd -> %s, as the parent got", who,
		      strerror(errno));
		errno = 0;
		td = ibv_alloc_td(a->dev.ctx, &tattr);
		fp_ok(!td && errno == parent_td,
		      "%s: ibv_alloc_td -> %s, as the parent got", who,
		      strerror(errno));
		errno = 0;
		pad = ibv_alloc_parent_domain(a->dev.ctx, &pattr);
		fp_ok(!pad && errno == parent_pad,
		      "%s: ibv_alloc_parent_domain -> %s, as the parent got",
		      who, strerror(errno));
	}
	if (!parent_xrcd || !parent_td || !parent_pad)
		fp_skip("%s: the device has a domain verb the parent could "
			"use; not covered in a child",
			who);
	xrc(a, who);
}

static void child_main(void *arg)
{
	const char *who = arg;
	bool cleanup = child_cleans_up;
	struct side a = { 0 }, b = { 0 };
	struct ibv_ah *ab = NULL, *ba = NULL;
	struct ibv_srq *srq2 = NULL;
	struct ex_objs x = { 0 };
	bool ok;

	ok = side_make(&a, &parent.p.a, false) &&
	     side_make(&b, &parent.p.b, true);
	if (ok)
		ab = gc_create_ah(&a.dev, &b.dev);
	ok = ok && ab;
	fp_guard(ok,
		 "%s: SRQ, CQs, UD QPs, MRs and an AH on inherited "
		 "contexts and PDs (%s)",
		 who, ok ? "ok" : strerror(errno));
	if (!ok)
		goto attack;
	fp_guard(side_fields_ok(&a) && side_fields_ok(&b) &&
			 ab->context == a.dev.ctx && ab->pd == a.dev.pd,
		 "%s: the objects name the inherited context and PD", who);
	fp_guard(ud_traffic(&a, &b, ab, &ba, seed),
		 "%s: UD SEND through its AH into its SRQ, answered through "
		 "ibv_create_ah_from_wc()",
		 who);
	fp_guard(ud_chain(&a, &b, ab),
		 "%s: a chain of %d UD SENDs, every one received", who, CHAIN);
	fp_guard(srq_ex(&b, cleanup, &srq2),
		 "%s: ibv_create_srq_ex() with a PD and a CQ, modified and "
		 "queried",
		 who);
	ex_objects(&a, &b, ab, ba, &x, who);
	inherited_refused(&a, &b, who);
	domains(&a, who);
	if (cleanup && x.cxa && x.cxb && x.qa && x.qb && x.ua) {
		ok = ex_destroy(&x);
		fp_guard(ok, "%s: destroys its QPs ex and CQs ex (%s)", who,
			 ok ? "ok" : strerror(errno));
	}
	if (cleanup) {
		ok = (!ba || !ibv_destroy_ah(ba)) && !ibv_destroy_ah(ab) &&
		     !ibv_destroy_qp(a.qp) && !ibv_destroy_qp(b.qp) &&
		     !ibv_destroy_srq(b.srq) && !ibv_dereg_mr(a.buf.mr) &&
		     !ibv_dereg_mr(b.buf.mr) && !ibv_destroy_cq(a.cq) &&
		     !ibv_destroy_cq(b.cq);
		fp_guard(ok, "%s: destroys its AHs, QPs, SRQ, MRs and CQs (%s)",
			 who, ok ? "ok" : strerror(errno));
	}
attack:
	fp_child_attack(&parent, who);
}

static void run_kind(enum fp_kind kind, const struct fp_counts *before)
{
	child_cleans_up = kind == FP_FORK;
	child_threads = kind != FP_CLONE;
	fp_run_unharmed(kind, child_main, &parent, before, seed++);
}

/* The parent's own SRQ, AH and domain verbs, before any child. */
static bool parent_objects(void)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 4,
						     .max_sge = 1 } };
	struct ibv_xrcd_init_attr xattr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_parent_domain_init_attr pattr = { .pd = parent.p.a.pd };
	struct ibv_td_init_attr tattr = { 0 };
	struct ibv_xrcd *xrcd;
	struct ibv_pd *pad;
	struct ibv_td *td;

	errno = 0;
	xrcd = ibv_open_xrcd(parent.p.a.ctx, &xattr);
	parent_xrcd = xrcd ? 0 : errno;
	if (xrcd)
		ibv_close_xrcd(xrcd);
	errno = 0;
	td = ibv_alloc_td(parent.p.a.ctx, &tattr);
	parent_td = td ? 0 : errno;
	if (td)
		ibv_dealloc_td(td);
	errno = 0;
	pad = ibv_alloc_parent_domain(parent.p.a.ctx, &pattr);
	parent_pad = pad ? 0 : errno;
	if (pad)
		ibv_dealloc_pd(pad);
	for (int ex = 0; ex < 2; ex++)
		parent_xrc_send[ex] = xrc_send_qp(parent.p.a.ctx, parent.p.a.pd,
						  parent.p.cq_a, ex);
	fp_xrcd_stand_in(&xrcd_a, parent.p.a.ctx);
	fp_xrcd_stand_in(&xrcd_b, parent.p.b.ctx);
	gc_diag("parent on %s: ibv_open_xrcd %s, ibv_alloc_td %s, "
		"ibv_alloc_parent_domain %s, an XRC send QP %s, with send "
		"ops %s",
		parent.p.a.name, strerror(parent_xrcd), strerror(parent_td),
		strerror(parent_pad), made_str(parent_xrc_send[0]),
		made_str(parent_xrc_send[1]));
	parent_srq = ibv_create_srq(parent.p.b.pd, &sattr);
	parent_ah = gc_create_ah(&parent.p.a, &parent.p.b);
	return parent_srq && parent_ah;
}

int main(void)
{
	struct fp_counts before;

	if (!fp_parent_start("fork_child_more", &parent))
		return gc_finish();
	if (!gc_ok(parent_objects(), "parent: an SRQ and an AH of its own"))
		return gc_finish();
	fp_traffic(&parent, "parent before any child", seed++);
	if (!gc_ok(fp_counts_read(&before), "rdma resource show"))
		return gc_finish();

	run_kind(FP_FORK, &before);
	run_kind(FP_UFORK, &before);
	run_kind(FP_CLONE, &before);

	ibv_destroy_ah(parent_ah);
	ibv_destroy_srq(parent_srq);
	fp_pair_close(&parent);
	return gc_finish();
}
