// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * UD between rxe0 and rxe1 through address handles: SEND, SEND_WITH_IMM,
 * inline, the 40-byte GRH area in front of the payload, the source QP in
 * the completion, and a reply through ibv_create_ah_from_wc().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

#define GRH	40

static void ud_send(struct gc_pair *p, struct ibv_qp *from,
		    struct ibv_cq *from_cq, struct ibv_ah *ah,
		    struct ibv_qp *to, struct ibv_cq *to_cq,
		    struct gc_buf *src, struct gc_buf *dst, uint32_t len,
		    bool imm, bool inl, const char *what)
{
	struct ibv_sge sge = { (uintptr_t)src->addr, len, src->mr->lkey };
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc;

	memset(dst->addr, 0, dst->len);
	gc_ok(!gc_post_recv(to, dst, 0, GRH + len, 0x77), "%s: post_recv",
	      what);
	wr.wr_id = 0x66;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
	wr.imm_data = htonl(0xabcdef01);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = to->qp_num;
	wr.wr.ud.remote_qkey = GC_QKEY;
	gc_ok(!ibv_post_send(from, &wr, &bad), "%s: post_send", what);
	gc_ok(gc_poll(from_cq, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND,
	      "%s: send completed", what);
	if (!gc_ok(gc_poll(to_cq, 1, &wc, GC_TIMEOUT_MS) == 1,
		   "%s: receive completion", what))
		return;
	gc_ok(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
	      wc.byte_len == GRH + len && wc.wr_id == 0x77,
	      "%s: status %s, %u bytes (payload + GRH)", what,
	      gc_status_str(wc.status), wc.byte_len);
	gc_ok(wc.src_qp == from->qp_num && (wc.wc_flags & IBV_WC_GRH),
	      "%s: source QP %u and GRH flag", what, wc.src_qp);
	if (imm)
		gc_ok((wc.wc_flags & IBV_WC_WITH_IMM) &&
		      ntohl(wc.imm_data) == 0xabcdef01, "%s: immediate",
		      what);
	gc_ok(!memcmp(dst->addr + GRH, src->addr, len),
	      "%s: payload byte for byte after the GRH", what);
	(void)p;
}

/* Reply from b to a with an AH made from the completion a sent. */
static void test_reply(struct gc_pair *p, struct ibv_ah *ah,
		       struct gc_buf *sa, struct gc_buf *da,
		       struct gc_buf *sb, struct gc_buf *db)
{
	struct ibv_sge sge = { (uintptr_t)sa->addr, 100, sa->mr->lkey };
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc, rwc;
	struct ibv_ah *back;

	memset(db->addr, 0, db->len);
	gc_post_recv(p->qp_b, db, 0, GRH + 100, 1);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = p->qp_b->qp_num;
	wr.wr.ud.remote_qkey = GC_QKEY;
	ibv_post_send(p->qp_a, &wr, &bad);
	gc_poll(p->cq_a, 1, &wc, GC_TIMEOUT_MS);
	if (!gc_ok(gc_poll(p->cq_b, 1, &rwc, GC_TIMEOUT_MS) == 1 &&
		   rwc.status == IBV_WC_SUCCESS, "reply: request arrived"))
		return;
	back = ibv_create_ah_from_wc(p->b.pd, &rwc,
				     (struct ibv_grh *)db->addr, GC_PORT);
	if (!gc_ok(back != NULL, "ibv_create_ah_from_wc (%s)",
		   back ? "ok" : strerror(errno)))
		return;
	ud_send(p, p->qp_b, p->cq_b, back, p->qp_a, p->cq_a, sb, da, 300,
		false, false, "reply through AH from wc");
	gc_ok(!ibv_destroy_ah(back), "destroy AH from wc");
}

int main(void)
{
	struct gc_qp_caps caps = { .max_inline_data = 64 };
	struct gc_buf sa, da, sb, db;
	struct gc_pair p;
	struct ibv_ah *ah;

	gc_start("rxe_ud");
	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_UD, &caps), "UD pair rxe0-rxe1"))
		return gc_finish();
	ah = gc_create_ah(&p.a, &p.b);
	if (!gc_ok(ah != NULL, "create AH rxe0 -> rxe1"))
		goto out;
	if (gc_buf_alloc(&sa, p.a.pd, 4096, GC_ACCESS_ALL, 0x51) ||
	    gc_buf_alloc(&da, p.a.pd, 4096, GC_ACCESS_ALL, 0) ||
	    gc_buf_alloc(&sb, p.b.pd, 4096, GC_ACCESS_ALL, 0x61) ||
	    gc_buf_alloc(&db, p.b.pd, 4096, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "buffers");
		goto out;
	}
	ud_send(&p, p.qp_a, p.cq_a, ah, p.qp_b, p.cq_b, &sa, &db, 1000,
		false, false, "UD SEND");
	ud_send(&p, p.qp_a, p.cq_a, ah, p.qp_b, p.cq_b, &sa, &db, 1, true,
		false, "UD SEND_WITH_IMM");
	ud_send(&p, p.qp_a, p.cq_a, ah, p.qp_b, p.cq_b, &sa, &db, 48, false,
		true, "UD inline SEND");
	test_reply(&p, ah, &sa, &da, &sb, &db);
	gc_buf_free(&sa);
	gc_buf_free(&da);
	gc_buf_free(&sb);
	gc_buf_free(&db);
	gc_ok(!ibv_destroy_ah(ah), "destroy AH");
out:
	gc_pair_close(&p);
	return gc_finish();
}
