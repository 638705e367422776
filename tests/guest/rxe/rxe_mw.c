// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows on rxe1, used by rxe0: type 1 bound with ibv_bind_mw(),
 * type 2 bound with a BIND_MW work request, invalidated remotely by
 * SEND_WITH_INV and locally by LOCAL_INV, and refused once invalid.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

struct mw_test {
	struct gc_pair p;
	struct gc_buf a, b;
};

static bool poll_b(struct mw_test *t, enum ibv_wc_opcode op, uint64_t wr_id,
		   const char *what, struct ibv_wc *out)
{
	struct ibv_wc wc;

	if (gc_poll(t->p.cq_b, 1, &wc, GC_TIMEOUT_MS) != 1)
		return gc_ok(false, "%s: completion", what);
	if (out)
		*out = wc;
	return gc_ok(wc.status == IBV_WC_SUCCESS && wc.opcode == op &&
		     wc.wr_id == wr_id, "%s: status %s opcode %d", what,
		     gc_status_str(wc.status), wc.opcode);
}

/* An RDMA request from a through @rkey; returns the completion status. */
static enum ibv_wc_status rdma_a(struct mw_test *t, enum ibv_wr_opcode op,
				 size_t loff, uint32_t len, uint64_t raddr,
				 uint32_t rkey)
{
	struct ibv_wc wc;

	gc_post_send(t->p.qp_a, op, &t->a, loff, len, 31, IBV_SEND_SIGNALED,
		     raddr, rkey);
	if (gc_poll(t->p.cq_a, 1, &wc, GC_TIMEOUT_MS) != 1)
		return (enum ibv_wc_status)-1;
	return wc.status;
}

static void test_type1(struct mw_test *t)
{
	uint64_t base = (uintptr_t)t->b.addr + 4096;
	struct ibv_mw_bind mb = {
		.wr_id = 21,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = t->b.mr,
			.addr = base,
			.length = 4096,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ,
		},
	};
	enum ibv_wc_status st;
	struct ibv_mw *mw;
	uint32_t old;
	int err;

	mw = ibv_alloc_mw(t->p.b.pd, IBV_MW_TYPE_1);
	if (!gc_ok(mw != NULL, "type 1: alloc (%s)",
		   mw ? "ok" : strerror(errno)))
		return;
	old = mw->rkey;
	err = ibv_bind_mw(t->p.qp_b, mw, &mb);
	gc_ok(!err, "type 1: ibv_bind_mw (%s)", strerror(err));
	gc_ok(mw->rkey != old, "type 1: rkey moved 0x%x -> 0x%x", old,
	      mw->rkey);
	poll_b(t, IBV_WC_BIND_MW, 21, "type 1: bind", NULL);

	st = rdma_a(t, IBV_WR_RDMA_WRITE, 0, 1000, base + 100, mw->rkey);
	gc_ok(st == IBV_WC_SUCCESS, "type 1: WRITE through the window (%s)",
	      gc_status_str(st));
	gc_ok(!memcmp(t->b.addr + 4096 + 100, t->a.addr, 1000),
	      "type 1: written byte for byte");
	memset(t->a.addr + 2048, 0, 512);
	st = rdma_a(t, IBV_WR_RDMA_READ, 2048, 512, base + 3000, mw->rkey);
	gc_ok(st == IBV_WC_SUCCESS, "type 1: READ through the window (%s)",
	      gc_status_str(st));
	gc_ok(!memcmp(t->a.addr + 2048, t->b.addr + 4096 + 3000, 512),
	      "type 1: read byte for byte");
	gc_ok(!ibv_dealloc_mw(mw), "type 1: dealloc");
}

static int bind2(struct mw_test *t, struct ibv_mw *mw, uint32_t rkey,
		 uint64_t addr, uint64_t wr_id)
{
	struct ibv_send_wr wr = {}, *bad;

	wr.wr_id = wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = t->b.mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = 4096;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					       IBV_ACCESS_REMOTE_READ;
	return ibv_post_send(t->p.qp_b, &wr, &bad);
}

static void test_type2(struct mw_test *t)
{
	uint64_t base = (uintptr_t)t->b.addr + 8192;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc;
	enum ibv_wc_status st;
	uint32_t rkey2, rkey3;
	struct ibv_mw *mw;

	mw = ibv_alloc_mw(t->p.b.pd, IBV_MW_TYPE_2);
	if (!gc_ok(mw != NULL, "type 2: alloc (%s)",
		   mw ? "ok" : strerror(errno)))
		return;
	rkey2 = ibv_inc_rkey(mw->rkey);
	gc_ok(!bind2(t, mw, rkey2, base, 22), "type 2: post BIND_MW");
	poll_b(t, IBV_WC_BIND_MW, 22, "type 2: bind", NULL);

	memset(t->a.addr, 0, 256);
	st = rdma_a(t, IBV_WR_RDMA_READ, 0, 256, base + 8, rkey2);
	gc_ok(st == IBV_WC_SUCCESS, "type 2: READ through the window (%s)",
	      gc_status_str(st));
	gc_ok(!memcmp(t->a.addr, t->b.addr + 8192 + 8, 256),
	      "type 2: read byte for byte");

	/* Remote invalidation. */
	gc_post_recv(t->p.qp_b, &t->b, 0, 64, 23);
	gc_fill(t->a.addr, 64, 0x71);
	wr.wr_id = 24;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey2;
	{
		struct ibv_sge sge = { (uintptr_t)t->a.addr, 64,
				       t->a.mr->lkey };

		wr.sg_list = &sge;
		wr.num_sge = 1;
		gc_ok(!ibv_post_send(t->p.qp_a, &wr, &bad),
		      "SEND_WITH_INV: post_send");
	}
	gc_ok(gc_poll(t->p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS, "SEND_WITH_INV: send completed");
	if (poll_b(t, IBV_WC_RECV, 23, "SEND_WITH_INV: received", &wc)) {
		gc_ok(wc.invalidated_rkey == rkey2,
		      "SEND_WITH_INV: invalidated rkey 0x%x",
		      wc.invalidated_rkey);
		/*
		 * The kernel's "with invalidate" bit is IBV_WC_IP_CSUM_OK
		 * in libibverbs' numbering; a library that copies the CQE
		 * flags unchanged reports that one.
		 */
		gc_ok(wc.wc_flags & (IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK),
		      "SEND_WITH_INV: wc_flags 0x%x%s", wc.wc_flags,
		      wc.wc_flags & IBV_WC_WITH_INV ? "" :
		      " (kernel bit passed through untranslated)");
		gc_ok(!memcmp(t->b.addr, t->a.addr, 64),
		      "SEND_WITH_INV: data byte for byte");
	}

	/*
	 * A second window, then invalidate it locally.  (Binding the first
	 * one again would need the library to track the key the kernel now
	 * holds; Debian's librxe does not, so the test does not rely on it.)
	 */
	gc_ok(!ibv_dealloc_mw(mw), "type 2: dealloc");
	mw = ibv_alloc_mw(t->p.b.pd, IBV_MW_TYPE_2);
	if (!gc_ok(mw != NULL, "type 2: second window"))
		return;
	rkey3 = ibv_inc_rkey(mw->rkey);
	gc_ok(!bind2(t, mw, rkey3, base, 25), "type 2: bind second window");
	poll_b(t, IBV_WC_BIND_MW, 25, "type 2: second bind", NULL);
	st = rdma_a(t, IBV_WR_RDMA_WRITE, 0, 128, base, rkey3);
	gc_ok(st == IBV_WC_SUCCESS, "type 2: WRITE with the new key (%s)",
	      gc_status_str(st));

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 26;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey3;
	gc_ok(!ibv_post_send(t->p.qp_b, &wr, &bad), "LOCAL_INV: post_send");
	poll_b(t, IBV_WC_LOCAL_INV, 26, "LOCAL_INV", NULL);

	/* Now the key is dead: the access fails (and ends the connection). */
	st = rdma_a(t, IBV_WR_RDMA_WRITE, 0, 128, base, rkey3);
	gc_ok(st == IBV_WC_REM_ACCESS_ERR,
	      "WRITE through an invalidated window: %s", gc_status_str(st));
	gc_ok(!ibv_dealloc_mw(mw), "type 2: dealloc");
}

/* A device without memory windows refuses them with EOPNOTSUPP. */
static void no_windows(struct gc_pair *p)
{
	struct ibv_mw *mw;

	errno = 0;
	mw = ibv_alloc_mw(p->b.pd, IBV_MW_TYPE_1);
	gc_ok(!mw && errno == EOPNOTSUPP,
	      "max_mw 0 on kernel %s: ibv_alloc_mw fails with EOPNOTSUPP (%s)",
	      gc_kernel_release(), strerror(errno));
	if (mw)
		ibv_dealloc_mw(mw);
}

int main(void)
{
	struct ibv_device_attr attr;
	struct mw_test t;
	int err;

	gc_start("rxe_mw");
	if (!gc_ok(!gc_pair_open(&t.p, IBV_QPT_RC, NULL), "RC pair rxe0-rxe1"))
		return gc_finish();
	/*
	 * What the running rxe supports decides: one without memory windows
	 * (bullseye's 5.10) says max_mw 0, and then allocating one must fail
	 * as the kernel refuses it.
	 */
	err = ibv_query_device(t.p.b.ctx, &attr);
	if (!gc_ok(!err, "ibv_query_device (%s)", strerror(err)))
		goto out;
	if (!attr.max_mw) {
		no_windows(&t.p);
		goto out;
	}
	gc_diag("rxe1 has memory windows (max_mw %d)", attr.max_mw);
	if (gc_buf_alloc(&t.a, t.p.a.pd, 16384, GC_ACCESS_ALL, 0x11) ||
	    gc_buf_alloc(&t.b, t.p.b.pd, 16384,
			 GC_ACCESS_ALL | IBV_ACCESS_MW_BIND, 0x22)) {
		gc_ok(false, "buffers");
		goto out;
	}
	test_type1(&t);
	test_type2(&t);
	gc_buf_free(&t.a);
	gc_buf_free(&t.b);
out:
	gc_pair_close(&t.p);
	return gc_finish();
}
