// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Errors: requests refused at post time (with *bad_wr and errno), and
 * error completions with the right ibv_wc_status -- bad rkey, missing
 * remote access rights, a message too long for the receive buffer, a bad
 * lkey.  Every completion error breaks the connection, so each case uses
 * a fresh QP pair.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

static bool fresh(struct gc_pair *p, enum ibv_qp_type type,
		  const struct gc_qp_caps *caps, const char *what)
{
	return gc_ok(!gc_pair_open(p, type, caps), "%s: QP pair", what);
}

/* Two requests, the second bad: the first is posted, *bad_wr = second. */
static void post_pair(struct gc_pair *p, struct ibv_send_wr *bad_one,
		      const char *what, int want_err)
{
	struct gc_buf src, dst;
	struct ibv_sge sge;
	struct ibv_send_wr good = {}, *bad = NULL;
	struct ibv_wc wc;
	int err;

	if (gc_buf_alloc(&src, p->a.pd, 64, GC_ACCESS_ALL, 1)) {
		gc_ok(false, "%s: buffer", what);
		return;
	}
	if (gc_buf_alloc(&dst, p->b.pd, 64, GC_ACCESS_ALL, 1)) {
		gc_ok(false, "%s: buffer", what);
		gc_buf_free(&src);
		return;
	}
	gc_post_recv(p->qp_b, &dst, 0, 64, 1);
	sge = (struct ibv_sge){ (uintptr_t)src.addr, 16, src.mr->lkey };
	good.wr_id = 1;
	good.sg_list = &sge;
	good.num_sge = 1;
	good.opcode = IBV_WR_SEND;
	good.send_flags = IBV_SEND_SIGNALED;
	good.next = bad_one;
	err = ibv_post_send(p->qp_a, &good, &bad);
	gc_ok(err == want_err, "%s: post_send returns %s (%s)", what,
	      strerror(want_err), strerror(err));
	gc_ok(bad == bad_one, "%s: *bad_wr is the bad request", what);
	gc_ok(gc_poll(p->cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.wr_id == 1 && wc.status == IBV_WC_SUCCESS,
	      "%s: the request before it was posted", what);
	gc_ok(gc_poll(p->cq_a, 1, &wc, 200) == 0,
	      "%s: nothing after it was posted", what);
	gc_ok(gc_poll(p->cq_b, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS, "%s: the receiver got it", what);
	gc_buf_free(&src);
	gc_buf_free(&dst);
}

static void test_post_errors(void)
{
	struct gc_qp_caps caps = { .max_send_sge = 2,
				   .max_inline_data = 64 };
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qattr;
	struct ibv_sge sge[8];
	struct ibv_send_wr wr;
	struct gc_pair p;
	uint8_t big[4096];
	int i;

	if (!fresh(&p, IBV_QPT_RC, &caps, "post errors"))
		return;
	ibv_query_qp(p.qp_a, &qattr, IBV_QP_CAP, &init);
	gc_diag("granted max_send_sge %u max_inline_data %u",
		init.cap.max_send_sge, init.cap.max_inline_data);

	for (i = 0; i < 8; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)big, 8, 0 };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.sg_list = sge;
	wr.num_sge = init.cap.max_send_sge + 1;
	wr.opcode = IBV_WR_SEND;
	post_pair(&p, &wr, "too many SGEs", EINVAL);

	memset(&wr, 0, sizeof(wr));
	sge[0] = (struct ibv_sge){ (uintptr_t)big, sizeof(big), 0 };
	wr.wr_id = 3;
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE;
	if (init.cap.max_inline_data < sizeof(big))
		post_pair(&p, &wr, "inline data too long", EINVAL);
	else
		gc_skip("inline limit is %u", init.cap.max_inline_data);
	gc_pair_close(&p);
}

static void test_bad_opcode_for_type(void)
{
	struct ibv_send_wr wr = {}, *bad = NULL;
	struct gc_pair p;
	struct ibv_ah *ah;
	uint64_t word;
	struct ibv_sge sge = { (uintptr_t)&word, 8, 0 };
	int err;

	if (!fresh(&p, IBV_QPT_UD, NULL, "UD opcode"))
		return;
	ah = gc_create_ah(&p.a, &p.b);
	wr.wr_id = 4;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = p.qp_b->qp_num;
	wr.wr.ud.remote_qkey = GC_QKEY;
	err = ibv_post_send(p.qp_a, &wr, &bad);
	/*
	 * Refusing it at once is best; a library that lets it through
	 * must at least see the kernel fail it.
	 */
	if (err) {
		gc_ok(err == EINVAL && bad == &wr,
		      "RDMA_WRITE on a UD QP refused with EINVAL (%s)",
		      strerror(err));
	} else {
		struct ibv_wc wc;

		gc_diag("RDMA_WRITE on a UD QP accepted by post_send");
		gc_ok(gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
		      wc.status != IBV_WC_SUCCESS,
		      "RDMA_WRITE on a UD QP completes in error");
	}
	if (ah)
		ibv_destroy_ah(ah);
	gc_pair_close(&p);
}

/* Filling the receive queue beyond its size: ENOMEM at the first extra. */
static void test_rq_full(void)
{
	struct gc_qp_caps caps = { .max_recv_wr = 8 };
	struct ibv_recv_wr wr[300], *bad = NULL;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qattr;
	struct gc_pair p;
	uint64_t word;
	struct ibv_sge sge = { (uintptr_t)&word, 8, 0 };
	int i, err, at;

	if (!fresh(&p, IBV_QPT_RC, &caps, "RQ full"))
		return;
	ibv_query_qp(p.qp_b, &qattr, IBV_QP_CAP, &init);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 300; i++) {
		wr[i].wr_id = i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 299 ? &wr[i + 1] : NULL;
	}
	err = ibv_post_recv(p.qp_b, wr, &bad);
	at = bad ? (int)(bad - wr) : -1;
	gc_ok(err == ENOMEM, "RQ full: post_recv returns ENOMEM (%s)",
	      strerror(err));
	gc_ok(at >= 8 && at >= (int)init.cap.max_recv_wr && at < 300,
	      "RQ full: *bad_wr is the first request that did not fit (#%d, "
	      "max_recv_wr %u)", at, init.cap.max_recv_wr);
	gc_pair_close(&p);
}

/* One RDMA request that must fail on the remote side. */
static void remote_error(const char *what, enum ibv_wr_opcode op,
			 int target_access, uint32_t rkey_xor,
			 enum ibv_wc_status want)
{
	struct gc_buf a, b;
	struct gc_pair p;
	struct ibv_wc wc;

	if (!fresh(&p, IBV_QPT_RC, NULL, what))
		return;
	if (gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 1) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, target_access, 2)) {
		gc_ok(false, "%s: buffers", what);
		gc_pair_close(&p);
		return;
	}
	memcpy(a.addr, "untouched", 10);
	memset(b.addr, 0x3c, 4096);
	gc_post_send(p.qp_a, op, &a, 0, 256, 6, IBV_SEND_SIGNALED,
		     (uintptr_t)b.addr, b.mr->rkey ^ rkey_xor);
	if (gc_ok(gc_poll(p.cq_a, 1, &wc, GC_REPLY_TIMEOUT_MS) == 1,
		  "%s: completion", what))
		gc_ok(wc.status == want && wc.wr_id == 6,
		      "%s: status %s (want %s)", what,
		      gc_status_str(wc.status), gc_status_str(want));
	if (op == IBV_WR_RDMA_WRITE)
		gc_ok(b.addr[0] == 0x3c && b.addr[255] == 0x3c,
		      "%s: target memory untouched", what);
	else
		gc_ok(!memcmp(a.addr, "untouched", 10),
		      "%s: local memory untouched", what);
	gc_buf_free(&a);
	gc_buf_free(&b);
	gc_pair_close(&p);
}

static void test_too_long(void)
{
	struct gc_buf a, b;
	struct gc_pair p;
	struct ibv_wc wc;

	if (!fresh(&p, IBV_QPT_RC, NULL, "too long"))
		return;
	if (gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 1) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 2)) {
		gc_ok(false, "too long: buffers");
		gc_pair_close(&p);
		return;
	}
	gc_post_recv(p.qp_b, &b, 0, 16, 7);
	gc_post_send(p.qp_a, IBV_WR_SEND, &a, 0, 64, 8, IBV_SEND_SIGNALED, 0,
		     0);
	if (gc_ok(gc_poll(p.cq_b, 1, &wc, GC_TIMEOUT_MS) == 1,
		  "too long: receiver completion"))
		gc_ok((wc.status == IBV_WC_LOC_LEN_ERR ||
		       wc.status == IBV_WC_LOC_QP_OP_ERR) && wc.wr_id == 7,
		      "too long: receiver status %s (want local length "
		      "or, as rxe in 6.1 says, local QP operation error)",
		      gc_status_str(wc.status));
	if (gc_ok(gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1,
		  "too long: sender completion"))
		gc_ok(wc.status == IBV_WC_REM_INV_REQ_ERR ||
		      wc.status == IBV_WC_REM_OP_ERR,
		      "too long: sender status %s (want remote invalid "
		      "request or, as rxe in 6.1 says, remote operation error)",
		      gc_status_str(wc.status));
	gc_buf_free(&a);
	gc_buf_free(&b);
	gc_pair_close(&p);
}

/* A bad lkey fails on our side; later requests are flushed. */
static void test_bad_lkey(void)
{
	struct gc_buf a, b;
	struct gc_pair p;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc;

	if (!fresh(&p, IBV_QPT_RC, NULL, "bad lkey"))
		return;
	if (gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 1) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 2)) {
		gc_ok(false, "bad lkey: buffers");
		gc_pair_close(&p);
		return;
	}
	gc_post_recv(p.qp_b, &b, 0, 4096, 9);
	sge = (struct ibv_sge){ (uintptr_t)a.addr, 64, a.mr->lkey ^ 0x5500 };
	wr.wr_id = 10;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	gc_ok(!ibv_post_send(p.qp_a, &wr, &bad), "bad lkey: post_send");
	if (gc_ok(gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1,
		  "bad lkey: completion"))
		gc_ok((wc.status == IBV_WC_LOC_PROT_ERR ||
		       wc.status == IBV_WC_LOC_QP_OP_ERR) && wc.wr_id == 10,
		      "bad lkey: status %s (want local protection or, as rxe "
		      "in 6.1 says, local QP operation error)",
		      gc_status_str(wc.status));

	sge.lkey = a.mr->lkey;
	wr.wr_id = 11;
	gc_ok(!ibv_post_send(p.qp_a, &wr, &bad), "after error: post_send");
	if (gc_ok(gc_poll(p.cq_a, 1, &wc, GC_REPLY_TIMEOUT_MS) == 1,
		  "after error: completion"))
		gc_ok(wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 11,
		      "after error: status %s (want %s)",
		      gc_status_str(wc.status),
		      gc_status_str(IBV_WC_WR_FLUSH_ERR));
	gc_buf_free(&a);
	gc_buf_free(&b);
	gc_pair_close(&p);
}

int main(void)
{
	gc_start("rxe_errors");
	test_post_errors();
	test_bad_opcode_for_type();
	test_rq_full();
	remote_error("WRITE with a bad rkey", IBV_WR_RDMA_WRITE, GC_ACCESS_ALL,
		     0x4400, IBV_WC_REM_ACCESS_ERR);
	remote_error("READ with a bad rkey", IBV_WR_RDMA_READ, GC_ACCESS_ALL,
		     0x4400, IBV_WC_REM_ACCESS_ERR);
	remote_error("WRITE without REMOTE_WRITE", IBV_WR_RDMA_WRITE,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, 0,
		     IBV_WC_REM_ACCESS_ERR);
	remote_error("READ without REMOTE_READ", IBV_WR_RDMA_READ,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 0,
		     IBV_WC_REM_ACCESS_ERR);
	test_too_long();
	test_bad_lkey();
	return gc_finish();
}
