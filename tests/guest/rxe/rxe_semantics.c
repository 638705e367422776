// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Upstream's answers to calls made at the wrong time or with too little
 * room, measured with rdma-core 44 on the 6.1 kernel: a GID table buffer
 * smaller than the table, posting to a QP that is not ready (RESET, INIT,
 * RTR), empty request lists, receives on a QP that uses an SRQ, a full or
 * misused SRQ, ibv_get_srq_num() on a provider without XRC, a GID index or
 * port out of range, a QP type nobody knows, a QP modify with an empty
 * mask (QP or SRQ), access flags for ibv_rereg_mr() without CHANGE_ACCESS,
 * and XRC or TM SRQs requested without the attributes their type needs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

#define GID_ENTRIES 64

static void test_gid_table(void)
{
	struct ibv_gid_entry ent[GID_ENTRIES];
	struct gc_dev dev;
	ssize_t n, r;

	if (!gc_ok(!gc_dev_open(&dev, 0), "gid table: open rxe0"))
		return;
	n = ibv_query_gid_table(dev.ctx, ent, GID_ENTRIES, 0);
	gc_ok(n >= 2, "gid table: %zd valid entries (link-local and IPv4)",
	      n);
	r = ibv_query_gid_table(dev.ctx, ent, 0, 0);
	gc_ok(r == -EINVAL, "gid table: 0 entries is EINVAL (%zd)", r);
	if (n >= 2) {
		r = ibv_query_gid_table(dev.ctx, ent, n - 1, 0);
		gc_ok(r == -EINVAL, "gid table: %zd entries is EINVAL (%zd)",
		      n - 1, r);
		r = ibv_query_gid_table(dev.ctx, ent, n, 0);
		gc_ok(r == n, "gid table: exactly %zd entries fit (%zd)", n, r);
	}
	gc_dev_close(&dev);
}

/*
 * Whether ERR is the right refusal of an XRC_SEND QP.  Our rxe refuses the
 * type itself, with EOPNOTSUPP; Debian's librxe (Debian's library, or the
 * plug-in pass) leaves it to the kernel, whose rxe answers EOPNOTSUPP on
 * 6.1 and 6.12 but EINVAL on 5.10 (seen in the guest); kernels between are
 * allowed either.
 */
static bool xrc_refused(int err)
{
	if (!gc_librxe_mapped() || gc_kernel_at_least(6, 1))
		return err == EOPNOTSUPP;
	if (!gc_kernel_at_least(5, 11))
		return err == EINVAL;
	return err == EINVAL || err == EOPNOTSUPP;
}

static void test_misc(void)
{
	struct ibv_qp_init_attr init = {};
	struct ibv_port_attr pa;
	struct ibv_qp_attr attr;
	union ibv_gid gid;
	struct gc_pair p;
	struct gc_buf b;
	struct ibv_qp *qp;
	int r;

	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_RC, NULL), "misc: RC pair"))
		return;
	gc_ok(!ibv_query_port(p.a.ctx, GC_PORT, &pa), "misc: query_port");
	errno = 0;
	r = ibv_query_gid(p.a.ctx, GC_PORT, pa.gid_tbl_len, &gid);
	gc_ok(r == -1 && errno == EINVAL,
	      "misc: query_gid past the table is -1, EINVAL (%s)",
	      strerror(errno));
	errno = 0;
	r = ibv_query_gid(p.a.ctx, GC_PORT + 1, 0, &gid);
	gc_ok(r == -1 && errno == EINVAL,
	      "misc: query_gid on port 2 is -1, EINVAL (%s)", strerror(errno));

	init.send_cq = init.recv_cq = p.cq_a;
	init.cap = (struct ibv_qp_cap){ 4, 4, 1, 1, 0 };
	init.qp_type = 77;
	errno = 0;
	qp = ibv_create_qp(p.a.pd, &init);
	gc_ok(!qp && errno == EINVAL, "misc: QP type 77 is EINVAL (%s)",
	      strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	init.qp_type = IBV_QPT_XRC_SEND;
	errno = 0;
	qp = ibv_create_qp(p.a.pd, &init);
	gc_ok(!qp && xrc_refused(errno),
	      "misc: XRC, known but not rxe's, is refused (%s)",
	      strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);

	memset(&attr, 0, sizeof(attr));
	r = ibv_modify_qp(p.qp_a, &attr, 0);
	gc_ok(!r, "misc: modify_qp with an empty mask is a no-op (%s)",
	      strerror(r));
	gc_ok(!ibv_query_qp(p.qp_a, &attr, IBV_QP_STATE, &init) &&
	      attr.qp_state == IBV_QPS_RTS, "misc: the QP is still in RTS");

	if (gc_ok(!gc_buf_alloc(&b, p.a.pd, 4096, IBV_ACCESS_LOCAL_WRITE, 1),
		  "misc: MR")) {
		errno = 0;
		r = ibv_rereg_mr(b.mr, IBV_REREG_MR_CHANGE_PD, p.a.pd, NULL, 0,
				 IBV_ACCESS_LOCAL_WRITE);
		gc_ok(r == IBV_REREG_MR_ERR_INPUT && errno == EINVAL,
		      "misc: rereg_mr with access but no CHANGE_ACCESS is an "
		      "input error (%d, %s)", r, strerror(errno));
		gc_buf_free(&b);
	}
	gc_pair_close(&p);
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE);
}

static int try_recv(struct ibv_qp *qp, struct gc_buf *buf)
{
	return gc_post_recv(qp, buf, 0, 64, 1);
}

static int try_send(struct gc_pair *p, struct gc_buf *buf, uint64_t wr_id,
		    struct ibv_ah *ah, struct ibv_send_wr **bad)
{
	struct ibv_sge sge = { (uintptr_t)buf->addr, 64, buf->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	int err;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = p->qp_b->qp_num;
	wr.wr.ud.remote_qkey = GC_QKEY;
	*bad = NULL;
	err = ibv_post_send(p->qp_a, &wr, bad);
	/* Report "the request itself" without keeping its address. */
	if (*bad == &wr)
		*bad = (struct ibv_send_wr *)1;
	return err;
}

/*
 * A QP moved back to RESET, then up again without passing RESET: receives
 * only outside RESET, sends only from RTS on; a refused send must not sit
 * in the ring and run with the first send that is accepted.
 */
static void test_states(enum ibv_qp_type type, const char *t)
{
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS };
	struct ibv_send_wr *bad;
	struct ibv_ah *ah = NULL;
	struct gc_buf a, b;
	struct gc_pair p;
	struct ibv_wc wc;
	int err;

	if (!gc_ok(!gc_pair_open(&p, type, NULL), "%s: QP pair", t))
		return;
	if (gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 1) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 2)) {
		gc_ok(false, "%s: buffers", t);
		gc_pair_close(&p);
		return;
	}
	if (type == IBV_QPT_UD)
		ah = gc_create_ah(&p.a, &p.b);

	gc_ok(!to_state(p.qp_a, IBV_QPS_RESET), "%s: back to RESET", t);
	err = try_recv(p.qp_a, &a);
	gc_ok(err == EINVAL, "%s: post_recv in RESET is EINVAL (%s)", t,
	      strerror(err));
	err = try_send(&p, &a, 1, ah, &bad);
	gc_ok(err == EINVAL, "%s: post_send in RESET is EINVAL (%s)", t,
	      strerror(err));

	gc_ok(!gc_qp_init(p.qp_a, type == IBV_QPT_UD ? 0 : GC_ACCESS_ALL),
	      "%s: to INIT", t);
	err = try_recv(p.qp_a, &a);
	gc_ok(!err, "%s: post_recv in INIT (%s)", t, strerror(err));
	err = try_send(&p, &a, 2, ah, &bad);
	gc_ok(err == EINVAL, "%s: post_send in INIT is EINVAL (%s)", t,
	      strerror(err));
	gc_builtin_guard(bad == (struct ibv_send_wr *)1,
			 "%s: *bad_wr is the refused request", t);

	if (type == IBV_QPT_UD) {
		gc_ok(!to_state(p.qp_a, IBV_QPS_RTR), "%s: to RTR", t);
		err = try_send(&p, &a, 3, ah, &bad);
		gc_ok(err == EINVAL, "%s: post_send in RTR is EINVAL (%s)", t,
		      strerror(err));
		gc_ok(!ibv_modify_qp(p.qp_a, &rts, IBV_QP_STATE |
				     IBV_QP_SQ_PSN), "%s: to RTS", t);
	} else {
		/* INIT to INIT is allowed: qp_a keeps its ring as it is. */
		gc_ok(!to_state(p.qp_b, IBV_QPS_RESET) &&
		      !gc_connect(p.qp_a, &p.a, p.qp_b, &p.b),
		      "%s: connected again", t);
	}
	/* Only the send posted in RTS may arrive and complete. */
	gc_ok(!try_recv(p.qp_b, &b), "%s: peer post_recv", t);
	err = try_send(&p, &a, 4, ah, &bad);
	gc_ok(!err, "%s: post_send in RTS (%s)", t, strerror(err));
	gc_ok(gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS, "%s: a send completes", t);
	gc_builtin_guard(wc.wr_id == 4 && gc_poll(p.cq_a, 1, &wc, 500) == 0,
			 "%s: the sends refused before RTS never ran", t);

	err = ibv_post_send(p.qp_a, NULL, &bad);
	gc_ok(err == EINVAL, "%s: post_send of no request is EINVAL (%s)", t,
	      strerror(err));
	err = ibv_post_recv(p.qp_a, NULL, &(struct ibv_recv_wr *){ NULL });
	gc_ok(err == EINVAL, "%s: post_recv of no request is EINVAL (%s)", t,
	      strerror(err));

	if (ah)
		ibv_destroy_ah(ah);
	gc_buf_free(&a);
	gc_buf_free(&b);
	gc_pair_close(&p);
}

/* An XRC or TM SRQ without what its type needs: EINVAL before EOPNOTSUPP. */
static void test_srq_ex(void)
{
	struct ibv_srq_init_attr_ex attr = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
	};
	struct ibv_srq *srq;
	struct gc_dev dev;

	if (!gc_ok(!gc_dev_open(&dev, 0), "srq_ex: open rxe0"))
		return;
	attr.pd = dev.pd;
	attr.srq_type = IBV_SRQT_XRC;
	errno = 0;
	srq = ibv_create_srq_ex(dev.ctx, &attr);
	gc_ok(!srq && errno == EINVAL,
	      "srq_ex: XRC without an XRCD and a CQ is EINVAL (%s)",
	      strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);
	attr.srq_type = IBV_SRQT_TM;
	errno = 0;
	srq = ibv_create_srq_ex(dev.ctx, &attr);
	gc_ok(!srq && errno == EINVAL,
	      "srq_ex: TM without a CQ and tag caps is EINVAL (%s)",
	      strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);

	/* A basic SRQ with a CQ named: the provider's create_srq_ex. */
	attr.srq_type = IBV_SRQT_BASIC;
	attr.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
	attr.cq = ibv_create_cq(dev.ctx, 4, NULL, NULL, 0);
	srq = attr.cq ? ibv_create_srq_ex(dev.ctx, &attr) : NULL;
	gc_ok(srq != NULL, "srq_ex: a basic SRQ through create_srq_ex (%s)",
	      srq ? "ok" : strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);
	if (attr.cq)
		ibv_destroy_cq(attr.cq);
	gc_dev_close(&dev);
}

/*
 * The other ways onto the send queue before RTS: an ibv_qp_ex batch and
 * ibv_bind_mw() of a type 1 window.  Both are EINVAL; neither may run once
 * the QP is connected.
 */
static void test_states_ex(void)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_mw_bind mb = { .wr_id = 3, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_mw *mw = NULL;
	struct ibv_device_attr dattr;
	struct ibv_qp_ex *qx;
	struct gc_buf a, b;
	struct gc_pair p;
	struct ibv_wc wc;
	bool has_mw;
	int err;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!gc_ok(!gc_pair_open(&p, 0, NULL), "qp_ex: devices"))
		return;
	/* An rxe without memory windows (max_mw 0, as on 5.10) has no bind. */
	has_mw = !ibv_query_device(p.a.ctx, &dattr) && dattr.max_mw > 0;
	attr.send_cq = attr.recv_cq = p.cq_a;
	attr.pd = p.a.pd;
	p.qp_a = ibv_create_qp_ex(p.a.ctx, &attr);
	p.qp_b = gc_create_qp(&p.b, p.cq_b, IBV_QPT_RC, NULL);
	qx = p.qp_a ? ibv_qp_to_qp_ex(p.qp_a) : NULL;
	if (!qx || !p.qp_b || gc_qp_init(p.qp_a, GC_ACCESS_ALL) ||
	    gc_buf_alloc(&a, p.a.pd, 4096,
			 GC_ACCESS_ALL | IBV_ACCESS_MW_BIND, 1) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 0) ||
	    (has_mw && !(mw = ibv_alloc_mw(p.a.pd, IBV_MW_TYPE_1)))) {
		gc_ok(false, "qp_ex: setup (%s)", strerror(errno));
		goto out;
	}

	ibv_wr_start(qx);
	qx->wr_id = 2;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.addr, 64);
	err = ibv_wr_complete(qx);
	gc_ok(err == EINVAL, "qp_ex: wr_complete in INIT is EINVAL (%s)",
	      strerror(err));
	mb.bind_info = (struct ibv_mw_bind_info){
		.mr = a.mr, .addr = (uintptr_t)a.addr, .length = 4096,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	if (mw) {
		err = ibv_bind_mw(p.qp_a, mw, &mb);
		gc_ok(err == EINVAL, "qp_ex: bind_mw in INIT is EINVAL (%s)",
		      strerror(err));
	} else {
		gc_skip("qp_ex: bind_mw in INIT: rxe0 has no memory windows "
			"(max_mw 0)");
	}

	gc_ok(!gc_connect(p.qp_a, &p.a, p.qp_b, &p.b), "qp_ex: connected");
	gc_ok(!gc_post_recv(p.qp_b, &b, 0, 64, 1), "qp_ex: peer post_recv");
	gc_ok(!try_send(&p, &a, 4, NULL, &bad), "qp_ex: post_send in RTS");
	gc_ok(gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS, "qp_ex: a send completes");
	gc_builtin_guard(wc.wr_id == 4 && gc_poll(p.cq_a, 1, &wc, 500) == 0,
			 "qp_ex: the batch and the bind refused in INIT never ran");
out:
	if (mw)
		ibv_dealloc_mw(mw);
	if (a.mr)
		gc_buf_free(&a);
	if (b.mr)
		gc_buf_free(&b);
	gc_pair_close(&p);
}

static void test_srq(void)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4,
						   .max_sge = 1 } };
	struct gc_qp_caps caps = {};
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_srq_attr sattr;
	struct ibv_qp *qp = NULL;
	struct ibv_srq *srq;
	struct ibv_sge sge;
	struct gc_pair p;
	struct gc_buf a;
	uint32_t num;
	unsigned int i;
	int err = 0;

	if (!gc_ok(!gc_pair_open(&p, 0, NULL), "srq: devices"))
		return;
	srq = ibv_create_srq(p.a.pd, &sia);
	if (!gc_ok(srq != NULL, "srq: create") ||
	    !gc_ok(!gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 1),
		   "srq: buffer"))
		goto out;
	caps.srq = srq;
	qp = gc_create_qp(&p.a, p.cq_a, IBV_QPT_RC, &caps);
	gc_ok(qp && !gc_qp_init(qp, GC_ACCESS_ALL), "srq: QP in INIT");
	if (qp) {
		err = try_recv(qp, &a);
		gc_ok(err == EINVAL,
		      "srq: post_recv on a QP with an SRQ is EINVAL (%s)",
		      strerror(err));
	}

	num = 0x5a5a;
	err = ibv_get_srq_num(srq, &num);
	gc_ok(err == EOPNOTSUPP,
	      "srq: get_srq_num without XRC is EOPNOTSUPP (%s)",
	      strerror(err));

	bad = (struct ibv_recv_wr *)1;
	err = ibv_post_srq_recv(srq, NULL, &bad);
	gc_ok(!err, "srq: post_srq_recv of no request succeeds (%s)",
	      strerror(err));

	sge = (struct ibv_sge){ (uintptr_t)a.addr, 64, a.mr->lkey };
	wr.sg_list = &sge;
	gc_ok(!ibv_query_srq(srq, &sattr), "srq: query");
	wr.num_sge = sattr.max_sge + 1;
	bad = NULL;
	err = ibv_post_srq_recv(srq, &wr, &bad);
	gc_ok(err == EINVAL && bad == &wr,
	      "srq: %u SGEs (max %u) is EINVAL, *bad_wr set (%s)",
	      wr.num_sge, sattr.max_sge, strerror(err));
	wr.num_sge = 1;
	for (i = 0; i <= sattr.max_wr + 1; i++) {
		err = ibv_post_srq_recv(srq, &wr, &bad);
		if (err)
			break;
	}
	gc_ok(err == ENOMEM && i >= sattr.max_wr && bad == &wr,
	      "srq: full after %u of max_wr %u: ENOMEM (%s)", i,
	      sattr.max_wr, strerror(err));
	err = ibv_modify_srq(srq, &sattr, 0);
	gc_ok(!err, "srq: modify_srq with an empty mask is a no-op (%s)",
	      strerror(err));
	gc_buf_free(&a);
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
	gc_pair_close(&p);
}

int main(void)
{
	gc_start("rxe_semantics");
	test_gid_table();
	test_misc();
	test_states(IBV_QPT_RC, "RC");
	test_states(IBV_QPT_UD, "UD");
	test_states_ex();
	test_srq();
	test_srq_ex();
	return gc_finish();
}
