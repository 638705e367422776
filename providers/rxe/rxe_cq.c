// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues.  The kernel produces struct ib_uverbs_wc entries into
 * the mapped ring; we consume them without a system call.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rxe.h"

/* What the extended polling API can report (ibv_create_cq_ex). */
#define RXE_SUPPORTED_WC_FLAGS	IBV_WC_STANDARD_FLAGS

/*
 * The kernel writes its own enum ib_wc_flags into the CQE, and two of its
 * bits differ from enum ibv_wc_flags: "with invalidate" is bit 2 there and
 * bit 3 here, "IP checksum OK" the other way round.
 */
enum {
	RXE_KWC_GRH		= 1 << 0,
	RXE_KWC_WITH_IMM	= 1 << 1,
	RXE_KWC_WITH_INV	= 1 << 2,
	RXE_KWC_IP_CSUM_OK	= 1 << 3,
};

/*
 * Swap the two bits and drop the kernel's others (WITH_SMAC, WITH_VLAN,
 * WITH_NETWORK_HDR_TYPE), whose positions mean tag matching here.
 */
#define RXE_WC_FLAGS(k)                                                      \
	(((k) & (RXE_KWC_GRH | RXE_KWC_WITH_IMM)) |                          \
	 (((k) & RXE_KWC_WITH_INV) << 1) | (((k) & RXE_KWC_IP_CSUM_OK) >> 1))
#define RXE_WC_FLAGS4(k)                                                     \
	RXE_WC_FLAGS(k), RXE_WC_FLAGS((k) + 1), RXE_WC_FLAGS((k) + 2),       \
		RXE_WC_FLAGS((k) + 3)

/* One load per completion: the answer for each value of the four bits. */
static const uint8_t rxe_wc_flags_map[16] = {
	RXE_WC_FLAGS4(0), RXE_WC_FLAGS4(4), RXE_WC_FLAGS4(8),
	RXE_WC_FLAGS4(12),
};

static inline unsigned int rxe_wc_flags(uint32_t kflags)
{
	return rxe_wc_flags_map[kflags & 15];
}

_Static_assert((int)IBV_WC_GRH == RXE_KWC_GRH &&
		       (int)IBV_WC_WITH_IMM == RXE_KWC_WITH_IMM &&
		       (int)IBV_WC_WITH_INV == RXE_KWC_WITH_INV << 1 &&
		       (int)IBV_WC_IP_CSUM_OK == RXE_KWC_IP_CSUM_OK >> 1,
	       "wc_flags bits");

/*
 * struct ib_uverbs_wc has struct ibv_wc's layout up to dlid_path_bits,
 * then two bytes (port_num, reserved) where ibv_wc has its tail padding:
 * one 48-byte copy, then the flags put right.
 */
#define RXE_WC_SAME(f, kf)                                                   \
	_Static_assert(offsetof(struct ibv_wc, f) ==                         \
			       offsetof(struct ib_uverbs_wc, kf) &&          \
		       sizeof(((struct ibv_wc *)0)->f) ==                    \
			       sizeof(((struct ib_uverbs_wc *)0)->kf),       \
		       "ibv_wc." #f)
RXE_WC_SAME(wr_id, wr_id);
RXE_WC_SAME(status, status);
RXE_WC_SAME(opcode, opcode);
RXE_WC_SAME(vendor_err, vendor_err);
RXE_WC_SAME(byte_len, byte_len);
RXE_WC_SAME(imm_data, ex.imm_data);
RXE_WC_SAME(qp_num, qp_num);
RXE_WC_SAME(src_qp, src_qp);
RXE_WC_SAME(wc_flags, wc_flags);
RXE_WC_SAME(pkey_index, pkey_index);
RXE_WC_SAME(slid, slid);
RXE_WC_SAME(sl, sl);
RXE_WC_SAME(dlid_path_bits, dlid_path_bits);
_Static_assert(sizeof(struct ibv_wc) == sizeof(struct ib_uverbs_wc),
	       "ibv_wc size");

static inline void rxe_copy_wc(struct ibv_wc *wc,
			       const struct ib_uverbs_wc *cqe)
{
	memcpy(wc, cqe, sizeof(*wc));
	wc->wc_flags = rxe_wc_flags(cqe->wc_flags);
}

/*
 * Empty is decided before the lock: our consumer index, read first, can
 * only trail the kernel's producer, so equal values mean the ring was
 * empty when the producer was read -- an answer a locked poll could have
 * given as well.  Both indices come from one load of the ring pointer: a
 * resize may swap the ring meanwhile, but keeps the old one mapped (see
 * rxe_resize_cq()).  Two threads polling one CQ while it fills up can
 * see it empty for a moment (the other consumed, the kernel wrapped the
 * producer round to our stale consumer): a spurious empty answer, never
 * a lost completion, as a poll racing the kernel may always give.
 */
static inline bool rxe_cq_empty(const struct rxe_cq *cq)
{
	const struct rxe_queue_buf *b =
		__atomic_load_n(&cq->ring.buf, __ATOMIC_ACQUIRE);
	uint32_t cons, prod;

	/* Both sides store their index masked: no mask to read here. */
	cons = __atomic_load_n(&b->consumer_index, __ATOMIC_RELAXED);
	prod = __atomic_load_n(&b->producer_index, __ATOMIC_ACQUIRE);
	return cons == prod;
}

int rxe_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	uint32_t cons, prod;
	int n;

	if (rxe_cq_empty(cq))
		return 0;

	rxe_lock(&cq->lock);
	cons = rxe_ring_own_consumer(&cq->ring);
	prod = rxe_ring_peer_producer(&cq->ring);
	for (n = 0; n < num_entries && cons != prod; n++) {
		rxe_copy_wc(&wc[n], rxe_ring_elem(&cq->ring, cons));
		cons = rxe_ring_next(&cq->ring, cons);
	}
	/* Hand the slots back only once the entries are copied out. */
	if (n)
		rxe_ring_publish_consumer(&cq->ring, cons);
	rxe_unlock(&cq->lock);
	return n;
}

int rxe_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return vcmd_req_notify_cq(ibcq, solicited_only);
}

/* Extended polling */

/* Load the entry at the consumer index into the public fields, if any. */
static int rxe_cq_load(struct rxe_cq *cq)
{
	uint32_t cons = rxe_ring_own_consumer(&cq->ring);

	if (cons == rxe_ring_peer_producer(&cq->ring)) {
		cq->cur = NULL;
		return ENOENT;
	}
	cq->cur = rxe_ring_elem(&cq->ring, cons);
	cq->cur_index = cons;
	cq->vcq.cq_ex.wr_id = cq->cur->wr_id;
	cq->vcq.cq_ex.status = cq->cur->status;
	return 0;
}

static void rxe_cq_consume(struct rxe_cq *cq)
{
	if (!cq->cur)
		return;
	rxe_ring_publish_consumer(&cq->ring,
				  rxe_ring_next(&cq->ring, cq->cur_index));
	cq->cur = NULL;
}

static int rxe_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct rxe_cq *cq = to_rcq_ex(ibcq);
	int err;

	if (attr->comp_mask)
		return EINVAL;
	if (rxe_cq_empty(cq))
		return ENOENT;

	rxe_lock(&cq->lock);
	err = rxe_cq_load(cq);
	/* No end_poll follows a failed start_poll. */
	if (err)
		rxe_unlock(&cq->lock);
	return err;
}

static int rxe_next_poll(struct ibv_cq_ex *ibcq)
{
	struct rxe_cq *cq = to_rcq_ex(ibcq);

	rxe_cq_consume(cq);
	return rxe_cq_load(cq);
}

static void rxe_end_poll(struct ibv_cq_ex *ibcq)
{
	struct rxe_cq *cq = to_rcq_ex(ibcq);

	rxe_cq_consume(cq);
	rxe_unlock(&cq->lock);
}

static enum ibv_wc_opcode rxe_read_opcode(struct ibv_cq_ex *ibcq)
{
	return to_rcq_ex(ibcq)->cur->opcode;
}

static uint32_t rxe_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_rcq_ex(ibcq)->cur->vendor_err;
}

static uint32_t rxe_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return to_rcq_ex(ibcq)->cur->byte_len;
}

static __be32 rxe_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return to_rcq_ex(ibcq)->cur->ex.imm_data;
}

static uint32_t rxe_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return to_rcq_ex(ibcq)->cur->qp_num;
}

static uint32_t rxe_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return to_rcq_ex(ibcq)->cur->src_qp;
}

static unsigned int rxe_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return rxe_wc_flags(to_rcq_ex(ibcq)->cur->wc_flags);
}

static uint32_t rxe_read_slid(struct ibv_cq_ex *ibcq)
{
	return to_rcq_ex(ibcq)->cur->slid;
}

static uint8_t rxe_read_sl(struct ibv_cq_ex *ibcq)
{
	return to_rcq_ex(ibcq)->cur->sl;
}

static uint8_t rxe_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return to_rcq_ex(ibcq)->cur->dlid_path_bits;
}

static void rxe_cq_ex_setup(struct rxe_cq *cq)
{
	struct ibv_cq_ex *cx = &cq->vcq.cq_ex;

	cx->start_poll = rxe_start_poll;
	cx->next_poll = rxe_next_poll;
	cx->end_poll = rxe_end_poll;
	cx->read_opcode = rxe_read_opcode;
	cx->read_vendor_err = rxe_read_vendor_err;
	cx->read_byte_len = rxe_read_byte_len;
	cx->read_imm_data = rxe_read_imm_data;
	cx->read_qp_num = rxe_read_qp_num;
	cx->read_src_qp = rxe_read_src_qp;
	cx->read_wc_flags = rxe_read_wc_flags;
	cx->read_slid = rxe_read_slid;
	cx->read_sl = rxe_read_sl;
	cx->read_dlid_path_bits = rxe_read_dlid_path_bits;
}

/* Creation and teardown */

static struct rxe_cq *rxe_cq_alloc(void)
{
	struct rxe_cq *cq;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	rxe_lock_init(&cq->lock);
	return cq;
}

static void rxe_cq_free(struct rxe_cq *cq)
{
	struct rxe_old_ring *o;

	while ((o = cq->old_rings)) {
		cq->old_rings = o->next;
		rxe_ring_unmap(&o->ring);
		free(o);
	}
	free(cq);
}

/* After the kernel created the CQ: map its ring, or undo the creation. */
static int rxe_cq_map(struct rxe_cq *cq, const struct rxe_create_cq_resp *resp)
{
	int err;

	err = rxe_ring_map(&cq->ring, cq->vcq.cq.context->cmd_fd, &resp->mi);
	if (err)
		vcmd_destroy_cq(&cq->vcq.cq);
	return err;
}

struct ibv_cq *rxe_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct rxe_create_cq_resp resp = {};
	struct vcmd_udata udata = {
		.out = &resp,
		.out_len = sizeof(resp),
	};
	struct rxe_cq *cq;
	int err;

	cq = rxe_cq_alloc();
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	err = vcmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq,
			     &udata);
	if (!err)
		err = rxe_cq_map(cq, &resp);
	if (err) {
		rxe_cq_free(cq);
		errno = err;
		return NULL;
	}
	rxe_cq_ex_setup(cq);
	return &cq->vcq.cq;
}

static int rxe_check_cq_attr(const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->wc_flags & ~(uint64_t)RXE_SUPPORTED_WC_FLAGS)
		return EOPNOTSUPP;
	if (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return EOPNOTSUPP;
	return 0;
}

struct ibv_cq_ex *rxe_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct rxe_create_cq_resp resp = {};
	struct vcmd_udata udata = {
		.out = &resp,
		.out_len = sizeof(resp),
	};
	struct ibv_cq_init_attr_ex kattr;
	struct rxe_cq *cq;
	int err;

	err = rxe_check_cq_attr(attr);
	if (err) {
		errno = err;
		return NULL;
	}
	/*
	 * Single-threaded use is a promise to us, not to the kernel (which
	 * refuses every flag); the lock stays, uncontended it is cheap.
	 */
	kattr = *attr;
	kattr.comp_mask = 0;
	kattr.flags = 0;

	cq = rxe_cq_alloc();
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	err = vcmd_create_cq_ex(ctx, &kattr, &cq->vcq, &udata);
	if (!err)
		err = rxe_cq_map(cq, &resp);
	if (err) {
		rxe_cq_free(cq);
		errno = err;
		return NULL;
	}
	rxe_cq_ex_setup(cq);
	return &cq->vcq.cq_ex;
}

/*
 * The kernel copies the pending entries into a new ring and hands us its
 * mapping; the lock keeps pollers off both rings meanwhile, but not the
 * unlocked empty check, so the old ring stays mapped until the CQ is
 * destroyed (its kernel memory is freed with the last mapping): a CQ
 * holds the memory of every ring it had until then, which resizes, rare
 * and growing as a rule, keep small.
 */
int rxe_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct vcmd_udata udata = {
		.out = &resp,
		.out_len = sizeof(resp),
	};
	struct rxe_old_ring *old;
	struct rxe_ring ring = {};
	int err;

	/* Allocated first: once the kernel resized, nothing may fail. */
	old = malloc(sizeof(*old));
	if (!old)
		return ENOMEM;
	rxe_lock(&cq->lock);
	err = vcmd_resize_cq(ibcq, cqe, &udata);
	if (err)
		goto out;
	err = rxe_ring_map(&ring, ibcq->context->cmd_fd, &resp.mi);
	if (err)
		goto out;
	old->ring = cq->ring;
	old->next = cq->old_rings;
	cq->old_rings = old;
	old = NULL;
	cq->ring.map_len = ring.map_len;
	cq->ring.log2_elem = ring.log2_elem;
	cq->ring.mask = ring.mask;
	__atomic_store_n(&cq->ring.buf, ring.buf, __ATOMIC_RELEASE);
out:
	rxe_unlock(&cq->lock);
	free(old);
	return err;
}

int rxe_destroy_cq(struct ibv_cq *ibcq)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	int err;

	err = vcmd_destroy_cq(ibcq);
	if (err)
		return err;
	rxe_ring_unmap(&cq->ring);
	rxe_cq_free(cq);
	return 0;
}
