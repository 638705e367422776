// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RC work requests rxe gained after the plain atomics, built with the
 * ibv_qp_ex builders: ATOMIC_WRITE (ibv_wr_atomic_write(), in rdma-core 44
 * already) and, in a build for rdma-core 56, FLUSH (ibv_wr_flush(), with
 * the MR access flags IBV_ACCESS_FLUSH_GLOBAL/PERSISTENT and the
 * completion opcode IBV_WC_FLUSH).
 *
 * Whether the kernel executes them is what its rxe reports in
 * device_cap_flags_ex (the uAPI's IB_UVERBS_DEVICE_FLUSH_GLOBAL,
 * _FLUSH_PERSISTENT and _ATOMIC_WRITE, bits 38 to 40, since Linux 6.2):
 * without a bit, the requests that need it are skipped, as a kernel
 * without them fails them at its end.  What does not depend on the
 * kernel is checked always: a QP asking for the opcodes in its
 * send_ops_flags is created, as by rdma-core's librxe, and the legacy
 * ibv_post_send() never carries them out (test_legacy_post()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

/* <rdma/ib_user_verbs.h> since Linux 6.2; older uAPI headers lack them. */
#define DEV_FLUSH_GLOBAL	(1ULL << 38)
#define DEV_FLUSH_PERSISTENT	(1ULL << 39)
#define DEV_ATOMIC_WRITE	(1ULL << 40)

#if IBV_RDMA_CORE_RELEASE >= 56
#define FLUSH_OPS	IBV_QP_EX_WITH_FLUSH
#else
#define FLUSH_OPS	0
#endif

#define RC_OPS	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_ATOMIC_WRITE | \
		 FLUSH_OPS)

struct flush_test {
	struct gc_pair p;
	struct gc_buf a, b;
	struct ibv_qp_ex *qx;
	uint64_t caps;
};

static struct ibv_qp *create_ex(struct gc_dev *dev, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = dev->pd,
		.send_ops_flags = RC_OPS,
	};

	return ibv_create_qp_ex(dev->ctx, &attr);
}

/* Post what the caller built after ibv_wr_start(), wait for one wc. */
static bool complete_one(struct flush_test *t, const char *what,
			 struct ibv_wc *wc)
{
	int err = ibv_wr_complete(t->qx);

	if (!gc_ok(!err, "%s: ibv_wr_complete (%s)", what, strerror(err)))
		return false;
	return gc_ok(gc_poll(t->p.cq_a, 1, wc, GC_TIMEOUT_MS) == 1,
		     "%s: one completion", what);
}

static void test_atomic_write(struct flush_test *t)
{
	uint64_t *dst = (uint64_t *)(t->b.addr + 64);
	uint64_t val = 0x0123456789abcdefULL;
	struct ibv_wc wc;

	if (!(t->caps & DEV_ATOMIC_WRITE)) {
		gc_skip("ATOMIC_WRITE: the kernel's rxe does not report it "
			"(device_cap_flags_ex bit 40)");
		return;
	}
	*dst = 0;
	ibv_wr_start(t->qx);
	t->qx->wr_id = 21;
	t->qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(t->qx, t->b.mr->rkey, (uintptr_t)dst, &val);
	/* The value is taken at build time, as inline data is. */
	val = 0;
	if (!complete_one(t, "ATOMIC_WRITE", &wc))
		return;
	gc_ok(wc.status == IBV_WC_SUCCESS && wc.wr_id == 21 &&
		      wc.opcode == IBV_WC_ATOMIC_WRITE,
	      "ATOMIC_WRITE completes: status %s, opcode %d (want %d)",
	      gc_status_str(wc.status), wc.opcode, IBV_WC_ATOMIC_WRITE);
	gc_ok(__atomic_load_n(dst, __ATOMIC_ACQUIRE) == 0x0123456789abcdefULL,
	      "ATOMIC_WRITE placed the 8 bytes (%#llx)",
	      (unsigned long long)*dst);
}

/* Both QPs from whatever state back to RTS, their CQs emptied. */
static bool reconnect(struct flush_test *t)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc;

	if (ibv_modify_qp(t->p.qp_a, &attr, IBV_QP_STATE) ||
	    ibv_modify_qp(t->p.qp_b, &attr, IBV_QP_STATE))
		return false;
	while (ibv_poll_cq(t->p.cq_a, 1, &wc) > 0 ||
	       ibv_poll_cq(t->p.cq_b, 1, &wc) > 0)
		;
	return !gc_connect(t->p.qp_a, &t->p.a, t->p.qp_b, &t->p.b);
}

/*
 * ATOMIC_WRITE and FLUSH through the legacy ibv_post_send(): struct
 * ibv_send_wr has no fields for their operands (the 8 bytes, the
 * placement type and level), and rdma-core's librxe (v44.0, v56.0:
 * post_one_send(), convert_send_wr()) checks no opcode and fills in no
 * remote key for them, so it queues them with key 0, which no MR has:
 * they fail at the responder, or at the requester of a kernel without
 * the opcode.  This library refuses them at the post (EINVAL).  What
 * both libraries share, on every kernel: such a request never succeeds
 * and places nothing.  An error moves the QPs to the error state, so
 * each check starts from fresh connections and these come last.
 */
static void test_legacy_post(struct flush_test *t, enum ibv_wr_opcode op,
			     const char *name)
{
	uint8_t *target = t->b.addr + 12288, before[64];
	struct ibv_sge sge = { .addr = (uintptr_t)t->a.addr,
			       .length = 8,
			       .lkey = t->a.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 41,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad = NULL;
	struct ibv_wc wc = {};
	int err, n = 0;

	if (!gc_ok(reconnect(t), "%s: the QPs reconnected", name))
		return;
	wr.wr.rdma.remote_addr = (uintptr_t)target;
	wr.wr.rdma.rkey = t->b.mr->rkey;
	memcpy(before, target, sizeof(before));
	err = ibv_post_send(t->p.qp_a, &wr, &bad);
	if (!err)
		n = gc_poll(t->p.cq_a, 1, &wc, GC_TIMEOUT_MS);
	gc_ok((err || n != 1 || wc.status != IBV_WC_SUCCESS) &&
		      !memcmp(before, target, sizeof(before)),
	      "%s through the legacy ibv_post_send() does not succeed and "
	      "places nothing (%s)",
	      name,
	      err    ? strerror(err) :
	      n == 1 ? gc_status_str(wc.status) :
		       "no completion");
}

#if IBV_RDMA_CORE_RELEASE >= 56
static void test_flush(struct flush_test *t)
{
	const int access = GC_ACCESS_ALL | IBV_ACCESS_FLUSH_GLOBAL;
	struct ibv_qp_attr qattr = {};
	struct ibv_mr *mr;
	int err;
	struct ibv_wc wc;
	uint64_t bb = (uintptr_t)t->b.addr;

	if (!(t->caps & DEV_FLUSH_GLOBAL)) {
		gc_skip("FLUSH: the kernel's rxe does not report "
			"FLUSH_GLOBAL (device_cap_flags_ex bit 38)");
		return;
	}
	/*
	 * The responder takes a FLUSH only on a QP whose access flags
	 * allow its placement type, as for RDMA READ and WRITE (rxe's
	 * responder answers "invalid request" otherwise).  RTS to RTS may
	 * change them.
	 */
	qattr.qp_access_flags = access;
	err = ibv_modify_qp(t->p.qp_b, &qattr, IBV_QP_ACCESS_FLAGS);
	if (!gc_ok(!err, "responder QP's access flags get "
			 "IBV_ACCESS_FLUSH_GLOBAL (%s)", strerror(err)))
		return;
	mr = ibv_reg_mr(t->p.b.pd, t->b.addr + 4096, 4096, access);
	if (!gc_ok(mr != NULL, "ibv_reg_mr with IBV_ACCESS_FLUSH_GLOBAL (%s)",
		   mr ? "ok" : strerror(errno)))
		return;

	/* A WRITE, then a FLUSH of its range for global visibility. */
	ibv_wr_start(t->qx);
	t->qx->wr_id = 31;
	t->qx->wr_flags = 0;
	ibv_wr_rdma_write(t->qx, mr->rkey, bb + 4096 + 100);
	ibv_wr_set_sge(t->qx, t->a.mr->lkey, (uintptr_t)t->a.addr, 200);
	t->qx->wr_id = 32;
	t->qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(t->qx, mr->rkey, bb + 4096 + 100, 200, IBV_FLUSH_GLOBAL,
		     IBV_FLUSH_RANGE);
	if (complete_one(t, "WRITE + FLUSH range", &wc)) {
		gc_ok(wc.status == IBV_WC_SUCCESS && wc.wr_id == 32 &&
			      wc.opcode == IBV_WC_FLUSH,
		      "FLUSH (range, global) completes: status %s, opcode %d "
		      "(want %d)",
		      gc_status_str(wc.status), wc.opcode, IBV_WC_FLUSH);
		gc_ok(!memcmp(t->b.addr + 4096 + 100, t->a.addr, 200),
		      "the WRITE's data is there after the FLUSH");
	}

	/* The whole MR: the range is ignored. */
	ibv_wr_start(t->qx);
	t->qx->wr_id = 33;
	t->qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(t->qx, mr->rkey, bb + 4096, 0, IBV_FLUSH_GLOBAL,
		     IBV_FLUSH_MR);
	if (complete_one(t, "FLUSH MR", &wc))
		gc_ok(wc.status == IBV_WC_SUCCESS && wc.wr_id == 33 &&
			      wc.opcode == IBV_WC_FLUSH,
		      "FLUSH (MR, global) completes: status %s, opcode %d",
		      gc_status_str(wc.status), wc.opcode);
	ibv_dereg_mr(mr);

	/*
	 * Persistence needs persistent memory behind the MR: rxe refuses
	 * the access flag on ordinary pages.  Where it does not report
	 * FLUSH_PERSISTENT at all, the flag is not checked here.
	 */
	if (t->caps & DEV_FLUSH_PERSISTENT) {
		mr = ibv_reg_mr(t->p.b.pd, t->b.addr + 8192, 4096,
				GC_ACCESS_ALL | IBV_ACCESS_FLUSH_PERSISTENT);
		gc_ok(!mr, "ibv_reg_mr with IBV_ACCESS_FLUSH_PERSISTENT on "
			   "anonymous memory is refused (%s)",
		      mr ? "registered" : strerror(errno));
		if (mr)
			ibv_dereg_mr(mr);
	}

	/*
	 * Last, as the error moves both QPs to the error state: a FLUSH to
	 * an MR registered without a FLUSH access flag fails at the
	 * responder (which error is the kernel's choice; not a flush of
	 * the queue, which would mean an earlier request failed).
	 */
	ibv_wr_start(t->qx);
	t->qx->wr_id = 34;
	t->qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(t->qx, t->b.mr->rkey, bb, 64, IBV_FLUSH_GLOBAL,
		     IBV_FLUSH_RANGE);
	if (complete_one(t, "FLUSH without access", &wc))
		gc_ok(wc.status != IBV_WC_SUCCESS &&
			      wc.status != IBV_WC_WR_FLUSH_ERR && wc.wr_id == 34,
		      "FLUSH to an MR without IBV_ACCESS_FLUSH_GLOBAL fails "
		      "at the responder: %s",
		      gc_status_str(wc.status));
}
#endif

int main(void)
{
	struct ibv_device_attr_ex dattr = {};
	struct flush_test t = {};
	int err;

	gc_start("rxe_flush");
	if (!gc_ok(!gc_pair_open(&t.p, 0, NULL), "devices"))
		return gc_finish();
	err = ibv_query_device_ex(t.p.a.ctx, NULL, &dattr);
	gc_ok(!err, "ibv_query_device_ex (%s)", strerror(err));
	t.caps = dattr.device_cap_flags_ex;
	gc_diag("rxe reports FLUSH_GLOBAL %d, FLUSH_PERSISTENT %d, "
		"ATOMIC_WRITE %d",
		!!(t.caps & DEV_FLUSH_GLOBAL),
		!!(t.caps & DEV_FLUSH_PERSISTENT),
		!!(t.caps & DEV_ATOMIC_WRITE));

	t.p.qp_a = create_ex(&t.p.a, t.p.cq_a);
	gc_ok(t.p.qp_a != NULL,
	      "ibv_create_qp_ex RC with ATOMIC_WRITE%s in send_ops_flags (%s)",
	      FLUSH_OPS ? " and FLUSH" : "",
	      t.p.qp_a ? "ok" : strerror(errno));
	t.p.qp_b = gc_create_qp(&t.p.b, t.p.cq_b, IBV_QPT_RC, NULL);
	if (!t.p.qp_a || !gc_ok(t.p.qp_b != NULL, "RC QP on rxe1") ||
	    !gc_ok(!gc_connect(t.p.qp_a, &t.p.a, t.p.qp_b, &t.p.b),
		   "connect the RC QPs"))
		goto out;
	t.qx = ibv_qp_to_qp_ex(t.p.qp_a);
	if (!gc_ok(t.qx != NULL, "ibv_qp_to_qp_ex") ||
	    !gc_ok(!gc_buf_alloc(&t.a, t.p.a.pd, 4096, GC_ACCESS_ALL, 0x33) &&
			   !gc_buf_alloc(&t.b, t.p.b.pd, 16384, GC_ACCESS_ALL,
					 0x55),
		   "register the buffers"))
		goto out;
	test_atomic_write(&t);
#if IBV_RDMA_CORE_RELEASE >= 56
	test_flush(&t);
#endif
	test_legacy_post(&t, IBV_WR_ATOMIC_WRITE, "ATOMIC_WRITE");
#if IBV_RDMA_CORE_RELEASE >= 56
	test_legacy_post(&t, IBV_WR_FLUSH, "FLUSH");
#endif
out:
	gc_buf_free(&t.a);
	gc_buf_free(&t.b);
	gc_pair_close(&t.p);
	return gc_finish();
}
