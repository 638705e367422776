// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ibv_qp_ex builders (ibv_wr_start ... ibv_wr_complete / ibv_wr_abort)
 * on RC and UD QPs made with ibv_create_qp_ex(): every opcode in one batch,
 * SGE lists, inline data, UD addressing, abort, an error in a batch, and
 * two threads building batches on one QP.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

#define RC_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
		 IBV_QP_EX_WITH_RDMA_WRITE | \
		 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
		 IBV_QP_EX_WITH_RDMA_READ | \
		 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static struct ibv_qp *create_ex(struct gc_dev *dev, struct ibv_cq *cq,
				enum ibv_qp_type type, uint64_t ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = type,
		.cap = {
			.max_send_wr = 64,
			.max_recv_wr = 64,
			.max_send_sge = 4,
			.max_recv_sge = 4,
			.max_inline_data = 64,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = dev->pd,
		.send_ops_flags = ops,
	};

	return ibv_create_qp_ex(dev->ctx, &attr);
}

struct ex_test {
	struct gc_pair p;
	struct gc_buf a, b;
	struct ibv_qp_ex *qx;
};

static void test_rc_batch(struct ex_test *t)
{
	struct ibv_qp_ex *qx = t->qx;
	uint64_t bb = (uintptr_t)t->b.addr;
	uint32_t lk = t->a.mr->lkey, rk = t->b.mr->rkey;
	uint8_t *a = t->a.addr, *b = t->b.addr;
	struct ibv_sge list[1];
	char inl[] = "inline payload, copied at build time";
	struct ibv_wc wc[16];
	int i, n, err, ok;

	memset(b, 0, t->b.len);
	gc_fill(b + 14336, 1500, 0x6b);
	for (i = 0; i < 4; i++)
		gc_post_recv(t->p.qp_b, &t->b, 8192 + i * 1024, 1024, 50 + i);
	*(uint64_t *)(b + 4096) = 7;
	*(uint64_t *)(b + 4104) = 1000;

	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, lk, (uintptr_t)a, 300);

	/* Several SGEs in a list: see test_sge_list(). */
	qx->wr_id = 2;
	ibv_wr_send_imm(qx, htonl(0x1020304));
	list[0] = (struct ibv_sge){ (uintptr_t)a + 1000, 150, lk };
	ibv_wr_set_sge_list(qx, 1, list);

	qx->wr_id = 3;
	ibv_wr_rdma_write(qx, rk, bb + 100);
	ibv_wr_set_sge(qx, lk, (uintptr_t)a + 2000, 700);

	qx->wr_id = 4;
	ibv_wr_rdma_write_imm(qx, rk, bb + 1000, htonl(0xbeef));
	ibv_wr_set_sge(qx, lk, (uintptr_t)a + 3000, 64);

	qx->wr_id = 5;
	ibv_wr_rdma_read(qx, rk, bb + 14336);
	ibv_wr_set_sge(qx, lk, (uintptr_t)a + 12288, 1500);

	qx->wr_id = 6;
	ibv_wr_atomic_cmp_swp(qx, rk, bb + 4096, 7, 99);
	ibv_wr_set_sge(qx, lk, (uintptr_t)a + 4096, 8);

	qx->wr_id = 7;
	ibv_wr_atomic_fetch_add(qx, rk, bb + 4104, 5);
	ibv_wr_set_sge(qx, lk, (uintptr_t)a + 4104, 8);

	/* IBV_SEND_INLINE is redundant here: see test_strict(). */
	qx->wr_id = 8;
	qx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(qx);
	ibv_wr_set_inline_data(qx, inl, sizeof(inl));

	memset(a + 12288, 0, 1500);
	*(uint64_t *)(a + 4096) = 0;
	*(uint64_t *)(a + 4104) = 0;
	err = ibv_wr_complete(qx);
	gc_ok(!err, "RC batch of 8: ibv_wr_complete (%s)", strerror(err));
	memset(inl, 0, sizeof(inl));

	n = gc_poll(t->p.cq_a, 8, wc, GC_REPLY_TIMEOUT_MS);
	ok = n == 8;
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].wr_id != (uint64_t)i + 1)
			gc_diag("send wc %d: wr_id %llu status %s", i,
				(unsigned long long)wc[i].wr_id,
				gc_status_str(wc[i].status));
		ok &= wc[i].status == IBV_WC_SUCCESS &&
		      wc[i].wr_id == (uint64_t)i + 1;
	}
	gc_ok(ok, "RC batch: 8 send completions in order (%d)", n);
	n = gc_poll(t->p.cq_b, 4, wc, GC_TIMEOUT_MS);
	gc_ok(n == 4, "RC batch: 4 receive completions (%d)", n);
	ok = n == 4;
	for (i = 0; ok && i < n; i++)
		ok &= wc[i].status == IBV_WC_SUCCESS;
	ok = ok && wc[0].byte_len == 300 && wc[1].byte_len == 150 &&
	     ntohl(wc[1].imm_data) == 0x1020304 &&
	     wc[2].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	     ntohl(wc[2].imm_data) == 0xbeef &&
	     wc[3].byte_len == sizeof(inl);
	if (!gc_ok(ok, "RC batch: receive lengths, immediates, opcodes"))
		for (i = 0; i < n; i++)
			gc_diag("recv wc %d: wr_id %llu %s len %u opcode %d",
				i, (unsigned long long)wc[i].wr_id,
				gc_status_str(wc[i].status), wc[i].byte_len,
				wc[i].opcode);
	gc_ok(!memcmp(b + 8192, a, 300), "wr_send + wr_set_sge: data");
	gc_ok(!memcmp(b + 9216, a + 1000, 150), "wr_set_sge_list: data");
	gc_ok(!memcmp(b + 100, a + 2000, 700), "wr_rdma_write: data");
	gc_ok(!memcmp(b + 1000, a + 3000, 64), "wr_rdma_write_imm: data");
	gc_ok(!memcmp(a + 12288, b + 14336, 1500), "wr_rdma_read: data");
	gc_ok(*(uint64_t *)(a + 4096) == 7 && *(uint64_t *)(b + 4096) == 99,
	      "wr_atomic_cmp_swp: original 7 returned, 99 stored");
	gc_ok(*(uint64_t *)(a + 4104) == 1000 &&
	      *(uint64_t *)(b + 4104) == 1005,
	      "wr_atomic_fetch_add: original 1000 returned, 1005 stored");
	gc_ok(!strcmp((char *)b + 8192 + 3 * 1024,
		      "inline payload, copied at build time"),
	      "wr_set_inline_data: data");
}

static void test_abort_and_errors(struct ex_test *t)
{
	struct ibv_qp_ex *qx = t->qx;
	struct ibv_sge list[8];
	struct ibv_wc wc;
	int i, err;

	ibv_wr_start(qx);
	qx->wr_id = 60;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, t->b.mr->rkey, (uintptr_t)t->b.addr);
	ibv_wr_set_sge(qx, t->a.mr->lkey, (uintptr_t)t->a.addr, 16);
	ibv_wr_abort(qx);
	gc_ok(gc_poll(t->p.cq_a, 1, &wc, 300) == 0,
	      "ibv_wr_abort: nothing was posted");

	for (i = 0; i < 8; i++)
		list[i] = (struct ibv_sge){ (uintptr_t)t->a.addr, 8,
					    t->a.mr->lkey };
	ibv_wr_start(qx);
	qx->wr_id = 61;
	ibv_wr_rdma_write(qx, t->b.mr->rkey, (uintptr_t)t->b.addr);
	ibv_wr_set_sge_list(qx, 8, list);
	err = ibv_wr_complete(qx);
	gc_ok(err != 0, "batch with too many SGEs fails (%s)", strerror(err));
	gc_ok(gc_poll(t->p.cq_a, 1, &wc, 300) == 0,
	      "failed batch: nothing was posted");

	/* The QP is still fine. */
	ibv_wr_start(qx);
	qx->wr_id = 62;
	ibv_wr_rdma_write(qx, t->b.mr->rkey, (uintptr_t)t->b.addr);
	ibv_wr_set_sge(qx, t->a.mr->lkey, (uintptr_t)t->a.addr, 16);
	err = ibv_wr_complete(qx);
	gc_ok(!err && gc_poll(t->p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.wr_id == 62 && wc.status == IBV_WC_SUCCESS,
	      "batch after the failed one posts fine");
}

/*
 * A fresh RC pair, rxe0's QP with the builders, and a 4 KiB buffer on
 * each side (a's filled from @seed): false, with a failed check, if not.
 */
static bool fresh_pair(struct gc_pair *p, struct gc_buf *a, struct gc_buf *b,
		       uint8_t seed, const char *what)
{
	if (!gc_ok(!gc_pair_open(p, 0, NULL), "%s: devices", what))
		return false;
	p->qp_a = create_ex(&p->a, p->cq_a, IBV_QPT_RC, RC_OPS);
	p->qp_b = gc_create_qp(&p->b, p->cq_b, IBV_QPT_RC, NULL);
	if (p->qp_a && p->qp_b && !gc_connect(p->qp_a, &p->a, p->qp_b, &p->b) &&
	    !gc_buf_alloc(a, p->a.pd, 4096, GC_ACCESS_ALL, seed)) {
		if (!gc_buf_alloc(b, p->b.pd, 4096, GC_ACCESS_ALL, 0))
			return true;
		gc_buf_free(a);
	}
	gc_ok(false, "%s: setup", what);
	gc_pair_close(p);
	return false;
}

enum strict_case { SGE_LIST, INLINE_NO_FLAG, INLINE_LIST };

/*
 * Setters that rdma-core 44's librxe gets wrong, each on a fresh pair
 * since a failure breaks the connection: a list of several SGEs, inline
 * data without IBV_SEND_INLINE in wr_flags (the setter alone must be
 * enough, says ibv_wr_post(3)), and a list of several inline buffers.
 */
static void test_strict(enum strict_case c)
{
	static const char *const names[] = {
		[SGE_LIST] = "SGE list of 3",
		[INLINE_NO_FLAG] = "inline setter without IBV_SEND_INLINE",
		[INLINE_LIST] = "inline list of 3",
	};
	const char *what = names[c];
	struct gc_pair p;
	struct gc_buf a, b;
	struct ibv_qp_ex *qx;
	struct ibv_sge list[3];
	struct ibv_data_buf bufs[3];
	struct ibv_wc wc;
	uint8_t expect[220];
	uint32_t len = 0;
	bool ok;
	int err, i;

	if (!fresh_pair(&p, &a, &b, 0x19, what))
		return;
	gc_post_recv(p.qp_b, &b, 0, 4096, 1);
	list[0] = (struct ibv_sge){ (uintptr_t)a.addr + 3000, 100, a.mr->lkey };
	list[1] = (struct ibv_sge){ (uintptr_t)a.addr + 100, 50, a.mr->lkey };
	list[2] = (struct ibv_sge){ (uintptr_t)a.addr + 2000, 70, a.mr->lkey };
	/* Inline pieces stay within max_inline_data (64). */
	for (i = 0; i < 3; i++)
		bufs[i] = (struct ibv_data_buf){
			(void *)(uintptr_t)list[i].addr, 24 - 6 * i };
	if (c == INLINE_NO_FLAG)
		bufs[0].length = 40;
	for (i = 0; i < 3; i++) {
		uint32_t l = c == SGE_LIST ? list[i].length : bufs[i].length;

		if (c == INLINE_NO_FLAG && i)
			break;
		memcpy(expect + len, bufs[i].addr, l);
		len += l;
	}
	qx = ibv_qp_to_qp_ex(p.qp_a);
	ibv_wr_start(qx);
	qx->wr_id = 3;
	qx->wr_flags = IBV_SEND_SIGNALED |
		       (c == INLINE_LIST ? IBV_SEND_INLINE : 0);
	ibv_wr_send(qx);
	if (c == SGE_LIST)
		ibv_wr_set_sge_list(qx, 3, list);
	else if (c == INLINE_NO_FLAG)
		ibv_wr_set_inline_data(qx, bufs[0].addr, bufs[0].length);
	else
		ibv_wr_set_inline_data_list(qx, 3, bufs);
	err = ibv_wr_complete(qx);
	gc_ok(!err, "%s: ibv_wr_complete (%s)", what, strerror(err));
	ok = gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1;
	if (ok)
		gc_diag("%s: send status %s", what, gc_status_str(wc.status));
	ok = ok && wc.status == IBV_WC_SUCCESS;
	ok = ok && gc_poll(p.cq_b, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	     wc.status == IBV_WC_SUCCESS && wc.byte_len == len &&
	     !memcmp(b.addr, expect, len);
	gc_known_librxe_bug(ok, "rdma-core 44 librxe",
			    "%s: sent and received byte for byte", what);
	gc_buf_free(&a);
	gc_buf_free(&b);
	gc_pair_close(&p);
}

static void test_ud(void)
{
	struct gc_pair p;
	struct gc_buf a, b;
	struct ibv_qp_ex *qx;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	int err;

	if (!gc_ok(!gc_pair_open(&p, 0, NULL), "UD: devices"))
		return;
	p.qp_a = create_ex(&p.a, p.cq_a, IBV_QPT_UD,
			   IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM);
	p.qp_b = gc_create_qp(&p.b, p.cq_b, IBV_QPT_UD, NULL);
	if (!gc_ok(p.qp_a && p.qp_b && !gc_ud_ready(p.qp_a) &&
		   !gc_ud_ready(p.qp_b), "UD: extended QP ready")) {
		gc_pair_close(&p);
		return;
	}
	ah = gc_create_ah(&p.a, &p.b);
	gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 0x44);
	gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 0);
	gc_post_recv(p.qp_b, &b, 0, 40 + 512, 1);

	qx = ibv_qp_to_qp_ex(p.qp_a);
	ibv_wr_start(qx);
	qx->wr_id = 2;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(qx, htonl(42));
	ibv_wr_set_ud_addr(qx, ah, p.qp_b->qp_num, GC_QKEY);
	ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.addr, 512);
	err = ibv_wr_complete(qx);
	gc_ok(!err, "UD: ibv_wr_complete (%s)", strerror(err));
	gc_ok(gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS && wc.wr_id == 2,
	      "UD: send completed");
	gc_ok(gc_poll(p.cq_b, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS && wc.byte_len == 40 + 512 &&
	      ntohl(wc.imm_data) == 42 && wc.src_qp == p.qp_a->qp_num,
	      "UD: received with immediate and source QP");
	gc_ok(!memcmp(b.addr + 40, a.addr, 512), "UD: data byte for byte");
	ibv_destroy_ah(ah);
	gc_buf_free(&a);
	gc_buf_free(&b);
	gc_pair_close(&p);
}

/* The second thread's batch: one SEND of 64 bytes from a's offset 1024. */
static void second_batch(struct gc_batch_thread *t)
{
	struct gc_buf *a = t->arg;

	t->qx->wr_id = 5;
	t->qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(t->qx);
	ibv_wr_set_sge(t->qx, a->mr->lkey, (uintptr_t)a->addr + 1024, 64);
}

/*
 * Two threads on one QP: ibv_wr_start() holds the send queue until
 * ibv_wr_complete() (ibv_wr_post(3)), so a second thread's
 * ibv_wr_start() waits there, and must leave the open batch alone
 * meanwhile: the first thread's setter, called while the second waits,
 * still completes the SEND it built.
 */
static void test_threads(void)
{
	const char *what = "two threads";
	struct gc_batch_thread s = { .build = second_batch };
	struct gc_pair p;
	struct gc_buf a, b;
	struct ibv_qp_ex *qx;
	struct ibv_wc wc[2];
	bool ok;
	int err, serr;

	if (!fresh_pair(&p, &a, &b, 0x27, what))
		return;
	gc_post_recv(p.qp_b, &b, 0, 1024, 1);
	gc_post_recv(p.qp_b, &b, 2048, 1024, 2);
	qx = ibv_qp_to_qp_ex(p.qp_a);
	s.qx = qx;
	s.arg = &a;
	ibv_wr_start(qx);
	qx->wr_id = 4;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	if (!gc_ok(!gc_batch_thread_start(&s), "%s: second thread", what)) {
		ibv_wr_abort(qx);
		goto out;
	}
	ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.addr, 512);
	err = ibv_wr_complete(qx);
	serr = gc_batch_thread_join(&s);
	gc_ok(!err && !serr, "%s: both batches complete (%s, %s)", what,
	      strerror(err), strerror(serr));
	ok = gc_poll(p.cq_b, 2, wc, GC_TIMEOUT_MS) == 2 &&
	     wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 1 &&
	     wc[1].status == IBV_WC_SUCCESS && wc[1].wr_id == 2;
	gc_ok(ok && wc[0].byte_len == 512 && !memcmp(b.addr, a.addr, 512),
	      "%s: the first batch's SEND carries its 512 bytes (%u)", what,
	      ok ? wc[0].byte_len : 0);
	gc_ok(ok && wc[1].byte_len == 64 &&
		      !memcmp(b.addr + 2048, a.addr + 1024, 64),
	      "%s: then the second's, 64 bytes", what);
	gc_ok(gc_poll(p.cq_a, 2, wc, GC_TIMEOUT_MS) == 2 && wc[0].wr_id == 4 &&
		      wc[1].wr_id == 5,
	      "%s: the sender completes both, in order", what);
out:
	gc_buf_free(&a);
	gc_buf_free(&b);
	gc_pair_close(&p);
}

int main(void)
{
	struct ex_test t;
	struct ibv_qp *qp;

	gc_start("rxe_qp_ex");
	if (!gc_ok(!gc_pair_open(&t.p, 0, NULL), "devices"))
		return gc_finish();
	t.p.qp_a = create_ex(&t.p.a, t.p.cq_a, IBV_QPT_RC, RC_OPS);
	gc_ok(t.p.qp_a != NULL, "ibv_create_qp_ex RC with send_ops_flags (%s)",
	      t.p.qp_a ? "ok" : strerror(errno));
	t.p.qp_b = gc_create_qp(&t.p.b, t.p.cq_b, IBV_QPT_RC, NULL);
	/* Each way to the end below says why, as a failed check. */
	if (!t.p.qp_a ||
	    !gc_ok(t.p.qp_b != NULL, "RC QP on rxe1 (%s)",
		   t.p.qp_b ? "ok" : strerror(errno)) ||
	    !gc_ok(!gc_connect(t.p.qp_a, &t.p.a, t.p.qp_b, &t.p.b),
		   "connect the RC QPs"))
		goto out;
	t.qx = ibv_qp_to_qp_ex(t.p.qp_a);
	if (!gc_ok(t.qx != NULL, "ibv_qp_to_qp_ex"))
		goto out;
	if (!gc_ok(!gc_buf_alloc(&t.a, t.p.a.pd, 16384, GC_ACCESS_ALL, 0x33) &&
			   !gc_buf_alloc(&t.b, t.p.b.pd, 16384, GC_ACCESS_ALL,
					 0x55),
		   "register two 16 KiB buffers"))
		goto out;
	test_rc_batch(&t);
	test_abort_and_errors(&t);
	gc_buf_free(&t.a);
	gc_buf_free(&t.b);

	qp = create_ex(&t.p.a, t.p.cq_a, IBV_QPT_UD,
		       IBV_QP_EX_WITH_RDMA_WRITE);
	gc_ok(!qp, "UD with RDMA_WRITE in send_ops_flags refused (%s)",
	      qp ? "created" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
out:
	gc_pair_close(&t.p);
	test_strict(SGE_LIST);
	test_strict(INLINE_NO_FLAG);
	test_strict(INLINE_LIST);
	test_ud();
	test_threads();
	return gc_finish();
}
