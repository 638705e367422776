// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SEND and RECV between rxe0 and rxe1: plain, with immediate data,
 * gathered and scattered over several SGEs, inline, unsignaled, chained,
 * zero-length, and over UC.  Data is checked byte for byte on both sides.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"

static void test_send(struct gc_pair *p, uint32_t len, bool imm)
{
	struct gc_buf src, dst;
	struct ibv_wc wa, wb;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {}, *bad;
	const char *what = imm ? "SEND_WITH_IMM" : "SEND";

	if (gc_buf_alloc(&src, p->a.pd, len, GC_ACCESS_ALL, 0x11) ||
	    gc_buf_alloc(&dst, p->b.pd, len + 64, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "%s %u: buffers", what, len);
		return;
	}
	memset(dst.addr, 0xee, dst.len);
	gc_ok(!gc_post_recv(p->qp_b, &dst, 0, len + 64, 0xb0b), "%s: post_recv",
	      what);

	sge = (struct ibv_sge){ (uintptr_t)src.addr, len, src.mr->lkey };
	wr.wr_id = 0xa11ce;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(0x12345678);
	gc_ok(!ibv_post_send(p->qp_a, &wr, &bad), "%s %u: post_send", what,
	      len);

	if (gc_ok(gc_poll(p->cq_a, 1, &wa, GC_TIMEOUT_MS) == 1,
		  "%s: sender completion", what))
		gc_ok(wa.status == IBV_WC_SUCCESS && wa.opcode == IBV_WC_SEND &&
		      wa.wr_id == 0xa11ce && wa.qp_num == p->qp_a->qp_num,
		      "%s: sender wc status %s opcode %d", what,
		      gc_status_str(wa.status), wa.opcode);
	if (gc_ok(gc_poll(p->cq_b, 1, &wb, GC_TIMEOUT_MS) == 1,
		  "%s: receiver completion", what)) {
		gc_ok(wb.status == IBV_WC_SUCCESS && wb.opcode == IBV_WC_RECV &&
		      wb.wr_id == 0xb0b && wb.byte_len == len &&
		      wb.qp_num == p->qp_b->qp_num,
		      "%s: receiver wc status %s opcode %d len %u", what,
		      gc_status_str(wb.status), wb.opcode, wb.byte_len);
		if (imm)
			gc_ok((wb.wc_flags & IBV_WC_WITH_IMM) &&
			      ntohl(wb.imm_data) == 0x12345678,
			      "%s: immediate 0x%x flags 0x%x", what,
			      ntohl(wb.imm_data), wb.wc_flags);
		else
			gc_ok(!(wb.wc_flags & IBV_WC_WITH_IMM),
			      "%s: no immediate flag", what);
	}
	gc_ok(!memcmp(src.addr, dst.addr, len), "%s %u: data received intact",
	      what, len);
	gc_ok(dst.addr[len] == 0xee && dst.addr[len + 63] == 0xee,
	      "%s: nothing written past the message", what);
	gc_buf_free(&src);
	gc_buf_free(&dst);
}

/* Three source pieces gathered, scattered into two receive pieces. */
static void test_sge(struct gc_pair *p)
{
	static const uint32_t slen[3] = { 100, 200, 300 };
	struct gc_buf src, dst;
	struct ibv_sge s[3], r[2];
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_wc wc;
	uint8_t expect[600];
	size_t off = 0;
	int i;

	if (gc_buf_alloc(&src, p->a.pd, 4096, GC_ACCESS_ALL, 0x21) ||
	    gc_buf_alloc(&dst, p->b.pd, 4096, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "multi-SGE: buffers");
		return;
	}
	memset(dst.addr, 0, dst.len);
	/* Pieces at scattered offsets, in reverse address order. */
	for (i = 0; i < 3; i++) {
		size_t at = 3000 - i * 1000;

		s[i] = (struct ibv_sge){ (uintptr_t)src.addr + at, slen[i],
					 src.mr->lkey };
		memcpy(expect + off, src.addr + at, slen[i]);
		off += slen[i];
	}
	r[0] = (struct ibv_sge){ (uintptr_t)dst.addr + 2048, 250,
				 dst.mr->lkey };
	r[1] = (struct ibv_sge){ (uintptr_t)dst.addr + 16, 350, dst.mr->lkey };
	rwr.wr_id = 2;
	rwr.sg_list = r;
	rwr.num_sge = 2;
	gc_ok(!ibv_post_recv(p->qp_b, &rwr, &rbad), "multi-SGE: post_recv");

	wr.wr_id = 1;
	wr.sg_list = s;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	gc_ok(!ibv_post_send(p->qp_a, &wr, &bad), "multi-SGE: post_send");
	gc_ok(gc_poll(p->cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS, "multi-SGE: send completed");
	gc_ok(gc_poll(p->cq_b, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS && wc.byte_len == 600,
	      "multi-SGE: recv completed, %u bytes", wc.byte_len);
	gc_ok(!memcmp(dst.addr + 2048, expect, 250) &&
	      !memcmp(dst.addr + 16, expect + 250, 350),
	      "multi-SGE: gathered and scattered byte for byte");
	gc_ok(dst.addr[15] == 0 && dst.addr[366] == 0 && dst.addr[2047] == 0 &&
	      dst.addr[2298] == 0, "multi-SGE: nothing outside the pieces");
	gc_buf_free(&src);
	gc_buf_free(&dst);
}

/* Inline data is copied at post time: changing it afterwards is harmless. */
static void test_inline(void)
{
	struct gc_qp_caps caps = { .max_inline_data = 128 };
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qattr;
	struct gc_pair p;
	struct gc_buf dst;
	uint8_t data[100], expect[100];
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc;

	if (gc_pair_open(&p, IBV_QPT_RC, &caps)) {
		gc_ok(false, "inline: QP pair with max_inline_data 128");
		return;
	}
	gc_ok(!ibv_query_qp(p.qp_a, &qattr, IBV_QP_CAP, &init) &&
	      init.cap.max_inline_data >= 100,
	      "inline: max_inline_data granted %u", init.cap.max_inline_data);
	if (gc_buf_alloc(&dst, p.b.pd, 256, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "inline: buffer");
		gc_pair_close(&p);
		return;
	}
	gc_fill(data, sizeof(data), 0x5a);
	memcpy(expect, data, sizeof(data));
	gc_post_recv(p.qp_b, &dst, 0, 256, 7);

	/* No MR for inline sources: the lkey is never looked at. */
	sge[0] = (struct ibv_sge){ (uintptr_t)data, 60, 0 };
	sge[1] = (struct ibv_sge){ (uintptr_t)data + 60, 40, 0 };
	wr.wr_id = 8;
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	gc_ok(!ibv_post_send(p.qp_a, &wr, &bad), "inline: post_send");
	memset(data, 0, sizeof(data));
	gc_ok(gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS, "inline: send completed");
	gc_ok(gc_poll(p.cq_b, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS && wc.byte_len == 100,
	      "inline: recv completed, %u bytes", wc.byte_len);
	gc_ok(!memcmp(dst.addr, expect, 100),
	      "inline: data as it was at post time");
	gc_buf_free(&dst);
	gc_pair_close(&p);
}

/* A chain of five in one call; only the last one is signaled. */
static void test_chain_unsignaled(struct gc_pair *p)
{
	struct gc_buf src, dst;
	struct ibv_sge sge[5];
	struct ibv_send_wr wr[5], *bad;
	struct ibv_wc wc[5];
	int i, n, ok = 1;

	if (gc_buf_alloc(&src, p->a.pd, 5 * 64, GC_ACCESS_ALL, 0x31) ||
	    gc_buf_alloc(&dst, p->b.pd, 5 * 64, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "chain: buffers");
		return;
	}
	memset(dst.addr, 0, dst.len);
	for (i = 0; i < 5; i++)
		gc_post_recv(p->qp_b, &dst, i * 64, 64, 100 + i);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 5; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)src.addr + i * 64, 64,
					   src.mr->lkey };
		wr[i].wr_id = 200 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = i == 4 ? IBV_SEND_SIGNALED : 0;
		wr[i].next = i < 4 ? &wr[i + 1] : NULL;
	}
	gc_ok(!ibv_post_send(p->qp_a, wr, &bad), "chain: post_send of 5");
	n = gc_poll(p->cq_b, 5, wc, GC_TIMEOUT_MS);
	gc_ok(n == 5, "chain: 5 receive completions (%d)", n);
	for (i = 0; i < n; i++)
		ok &= wc[i].status == IBV_WC_SUCCESS &&
		      wc[i].wr_id == (uint64_t)(100 + i);
	gc_ok(ok, "chain: received in order");
	n = gc_poll(p->cq_a, 1, wc, GC_TIMEOUT_MS);
	gc_ok(n == 1 && wc[0].wr_id == 204 && wc[0].status == IBV_WC_SUCCESS,
	      "chain: one send completion, for the signaled request");
	gc_ok(gc_poll(p->cq_a, 1, wc, 300) == 0,
	      "chain: no completion for the unsignaled ones");
	gc_ok(!memcmp(src.addr, dst.addr, 5 * 64), "chain: data intact");
	gc_buf_free(&src);
	gc_buf_free(&dst);
}

static void test_zero_length(struct gc_pair *p)
{
	struct ibv_recv_wr rwr = { .wr_id = 9 }, *rbad;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc;

	gc_ok(!ibv_post_recv(p->qp_b, &rwr, &rbad), "zero-length: post_recv");
	wr.wr_id = 10;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	gc_ok(!ibv_post_send(p->qp_a, &wr, &bad), "zero-length: post_send");
	gc_ok(gc_poll(p->cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS, "zero-length: send completed");
	gc_ok(gc_poll(p->cq_b, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS && wc.byte_len == 0 &&
	      wc.wr_id == 9, "zero-length: recv completed with 0 bytes");
}

int main(void)
{
	struct gc_pair p;

	gc_start("rxe_send_recv");
	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_RC, NULL), "RC pair rxe0-rxe1"))
		return gc_finish();
	test_send(&p, 1, false);
	test_send(&p, 4096, false);
	test_send(&p, 3000, true);
	test_sge(&p);
	test_chain_unsignaled(&p);
	test_zero_length(&p);
	gc_pair_close(&p);

	test_inline();

	if (gc_ok(!gc_pair_open(&p, IBV_QPT_UC, NULL), "UC pair rxe0-rxe1")) {
		test_send(&p, 2000, false);
		test_send(&p, 500, true);
		gc_pair_close(&p);
	}
	return gc_finish();
}
