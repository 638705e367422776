// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The send queue: ibv_post_send(), ibv_bind_mw() and the ibv_qp_ex
 * builders.  Each fills struct rxe_send_wqe entries in the mapped ring,
 * publishes them with one release store of the producer index and then
 * rings the doorbell once: a POST_SEND command with no work requests,
 * which makes the kernel process the ring.
 *
 * The kernel computes its own view of each WQE (the opcode mask, the
 * packet state) when it takes it, so we fill the request, the remote
 * address (iova), the data (SGEs or inline bytes) and the sequence number,
 * and zero everything else.
 */
#include <errno.h>
#include <string.h>

#include "rxe.h"

#define RXE_SEND_HDR	offsetof(struct rxe_send_wqe, dma.sge)

/* Which QP types each opcode runs on in rxe, and how it is built. */
enum {
	RXE_OP_RC	= 1 << 0,
	RXE_OP_UC	= 1 << 1,
	RXE_OP_UD	= 1 << 2,
	RXE_OP_INLINE	= 1 << 3,	/* may carry inline data */
	RXE_OP_LOCAL	= 1 << 4,	/* no data, no remote side */
	RXE_OP_ATOMIC	= 1 << 5,
	RXE_OP_RDMA	= 1 << 6,	/* remote address and rkey */
	/*
	 * Built by an ibv_qp_ex builder alone, which carries all it needs:
	 * struct ibv_send_wr has no field for ATOMIC_WRITE's value or
	 * FLUSH's placement type and level, so ibv_post_send() refuses it,
	 * and it takes no SGE or inline data.
	 */
	RXE_OP_BUILDER	= 1 << 7,
};

static const uint8_t rxe_op_info[] = {
	[IBV_WR_RDMA_WRITE] = RXE_OP_RC | RXE_OP_UC | RXE_OP_INLINE |
			      RXE_OP_RDMA,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = RXE_OP_RC | RXE_OP_UC | RXE_OP_INLINE |
				       RXE_OP_RDMA,
	[IBV_WR_SEND] = RXE_OP_RC | RXE_OP_UC | RXE_OP_UD | RXE_OP_INLINE,
	[IBV_WR_SEND_WITH_IMM] = RXE_OP_RC | RXE_OP_UC | RXE_OP_UD |
				 RXE_OP_INLINE,
	[IBV_WR_RDMA_READ] = RXE_OP_RC | RXE_OP_RDMA,
	[IBV_WR_ATOMIC_CMP_AND_SWP] = RXE_OP_RC | RXE_OP_ATOMIC,
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = RXE_OP_RC | RXE_OP_ATOMIC,
	[IBV_WR_LOCAL_INV] = RXE_OP_RC | RXE_OP_LOCAL,
	[IBV_WR_BIND_MW] = RXE_OP_RC | RXE_OP_UC | RXE_OP_LOCAL,
	[IBV_WR_SEND_WITH_INV] = RXE_OP_RC | RXE_OP_INLINE,
#if IBV_RDMA_CORE_RELEASE >= 56
	[IBV_WR_FLUSH] = RXE_OP_RC | RXE_OP_BUILDER,
#endif
	[IBV_WR_ATOMIC_WRITE] = RXE_OP_RC | RXE_OP_BUILDER,
};

unsigned int rxe_type_bit(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return RXE_OP_RC;
	case IBV_QPT_UC:
		return RXE_OP_UC;
	case IBV_QPT_UD:
		return RXE_OP_UD;
	default:
		return 0;
	}
}

/*
 * The opcode's info if the QP type may use it, else 0.  The type's bit is
 * taken once, when the QP is created (the type never changes).
 */
static unsigned int rxe_op_lookup(const struct rxe_qp *qp, unsigned int op)
{
	unsigned int info;

	if (op >= sizeof(rxe_op_info) / sizeof(rxe_op_info[0]))
		return 0;
	info = rxe_op_info[op];
	return info & qp->op_type ? info : 0;
}

/* Filling WQEs */

/*
 * Zero the WQE up to its SGEs in 64-byte pieces: as one memset() of that
 * size the compiler emits "rep stos", which counts an instruction per
 * word and a start-up cost; pieces it stores with a handful of vector
 * moves.  The empty asm keeps it from merging them back.
 */
_Static_assert(RXE_SEND_HDR > 192 && RXE_SEND_HDR <= 256, "WQE header");
/*
 * An ATOMIC_WRITE carries its 8 bytes behind the header (the kernel's
 * dma.atomic_wr, where inline data goes).  The kernel rounds a send queue
 * element up to a power of two, so with a header above 192 bytes every
 * element has at least 256: room for them even with no SGE and no inline
 * data asked for.
 */
_Static_assert(RXE_SEND_HDR + sizeof(uint64_t) <= 256, "atomic write value");

static inline void rxe_wqe_zero(struct rxe_send_wqe *wqe)
{
	unsigned char *p = (unsigned char *)wqe;

	memset(p, 0, 64);
	__asm__("" : "+r"(p));
	memset(p + 64, 0, 64);
	__asm__("" : "+r"(p));
	memset(p + 128, 0, 64);
	__asm__("" : "+r"(p));
	memset(p + 192, 0, RXE_SEND_HDR - 192);
}

static void rxe_wqe_init(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			 uint64_t wr_id, unsigned int opcode,
			 unsigned int send_flags)
{
	rxe_wqe_zero(wqe);
	wqe->wr.wr_id = wr_id;
	wqe->wr.opcode = opcode;
	wqe->wr.send_flags = send_flags;
	wqe->ssn = qp->ssn++;
}

static void rxe_wqe_rdma(struct rxe_send_wqe *wqe, uint32_t rkey,
			 uint64_t remote_addr)
{
	wqe->wr.wr.rdma.remote_addr = remote_addr;
	wqe->wr.wr.rdma.rkey = rkey;
	wqe->iova = remote_addr;
}

static void rxe_wqe_atomic(struct rxe_send_wqe *wqe, uint32_t rkey,
			   uint64_t remote_addr, uint64_t compare_add,
			   uint64_t swap)
{
	wqe->wr.wr.atomic.remote_addr = remote_addr;
	wqe->wr.wr.atomic.compare_add = compare_add;
	wqe->wr.wr.atomic.swap = swap;
	wqe->wr.wr.atomic.rkey = rkey;
	wqe->iova = remote_addr;
}

static void rxe_wqe_ud(struct rxe_send_wqe *wqe, struct ibv_ah *ibah,
		       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct rxe_ah *ah = to_rah(ibah);

	wqe->wr.wr.ud.remote_qpn = remote_qpn;
	wqe->wr.wr.ud.remote_qkey = remote_qkey;
	wqe->wr.wr.ud.ah_num = ah->ah_num;
	if (!ah->ah_num)
		memcpy(&wqe->wr.wr.ud.av, &ah->av, sizeof(ah->av));
}

/*
 * Bind @mw to the range in @info under @rkey (only its low byte is the
 * new key).  The kernel finds the window by its current rkey; once the
 * bind is posted that is the new one, so our copy follows.
 */
static void rxe_wqe_bind(struct rxe_send_wqe *wqe, struct ibv_mw *mw,
			 uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	wqe->wr.wr.mw.addr = info->addr;
	wqe->wr.wr.mw.length = info->length;
	wqe->wr.wr.mw.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.wr.mw.mw_rkey = mw->rkey;
	wqe->wr.wr.mw.rkey = rkey;
	wqe->wr.wr.mw.access = info->mw_access_flags;
	mw->rkey = (mw->rkey & ~0xffu) | (rkey & 0xffu);
}

static void rxe_wqe_sges(struct rxe_send_wqe *wqe, const struct ibv_sge *sg,
			 size_t num, uint32_t length)
{
	size_t i;

	for (i = 0; i < num; i++) {
		wqe->dma.sge[i].addr = sg[i].addr;
		wqe->dma.sge[i].length = sg[i].length;
		wqe->dma.sge[i].lkey = sg[i].lkey;
	}
	wqe->wr.send_flags &= ~IBV_SEND_INLINE;
	wqe->dma.num_sge = num;
	wqe->dma.length = length;
	wqe->dma.resid = length;
}

/*
 * Inline data is mostly a few bytes (a flag, a counter, a small header):
 * up to 16 of them are copied with two possibly overlapping loads and
 * stores, without a call to memcpy() (around which the posting loop would
 * also save and restore its registers).
 */
static inline void rxe_inline_copy(uint8_t *dst, const void *src, size_t len)
{
	const uint8_t *s = src;
	uint64_t a, b;
	uint32_t c, d;

	if (len > 16) {
		memcpy(dst, src, len);
	} else if (len >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + len - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + len - 8, &b, 8);
	} else if (len >= 4) {
		memcpy(&c, s, 4);
		memcpy(&d, s + len - 4, 4);
		memcpy(dst, &c, 4);
		memcpy(dst + len - 4, &d, 4);
	} else if (len) {
		dst[0] = s[0];
		dst[len / 2] = s[len / 2];
		dst[len - 1] = s[len - 1];
	}
}

/* After @length inline bytes were copied in. */
static void rxe_wqe_inline_done(struct rxe_send_wqe *wqe, uint32_t length)
{
	wqe->wr.send_flags |= IBV_SEND_INLINE;
	wqe->dma.num_sge = 0;
	wqe->dma.length = length;
	wqe->dma.resid = length;
}

/* The caller checked that @length bytes fit. */
static void rxe_wqe_inline(struct rxe_send_wqe *wqe,
			   const struct ibv_data_buf *bufs, size_t num,
			   uint32_t length)
{
	uint8_t *p = wqe->dma.inline_data;
	size_t i;

	for (i = 0; i < num; i++) {
		rxe_inline_copy(p, bufs[i].addr, bufs[i].length);
		p += bufs[i].length;
	}
	rxe_wqe_inline_done(wqe, length);
}

/* The same, from the SGE list of a classic work request. */
static void rxe_wqe_inline_sges(struct rxe_send_wqe *wqe,
				const struct ibv_send_wr *wr, uint32_t length)
{
	uint8_t *p = wqe->dma.inline_data;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		rxe_inline_copy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
				wr->sg_list[i].length);
		p += wr->sg_list[i].length;
	}
	wqe->wr.send_flags |= IBV_SEND_INLINE;
	wqe->dma.length = length;
	wqe->dma.resid = length;
}

/* ibv_post_send() */

/* Check one request before it touches the ring.  0 or EINVAL. */
static int rxe_check_send_wr(const struct rxe_qp *qp,
			     const struct ibv_send_wr *wr, uint32_t *length)
{
	unsigned int info = rxe_op_lookup(qp, wr->opcode);
	uint64_t len = 0;
	int i;

	if (!info || (info & RXE_OP_BUILDER))
		return EINVAL;
	if (info & RXE_OP_LOCAL) {
		if (wr->opcode == IBV_WR_BIND_MW &&
		    (!wr->bind_mw.mw || wr->bind_mw.mw->type != IBV_MW_TYPE_2))
			return EINVAL;
		*length = 0;
		return 0;
	}
	if (wr->num_sge < 0 || (wr->num_sge && !wr->sg_list))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > UINT32_MAX)
		return EINVAL;

	if (wr->send_flags & IBV_SEND_INLINE) {
		if (!(info & RXE_OP_INLINE) || len > qp->sq.max_inline)
			return EINVAL;
	} else if ((uint32_t)wr->num_sge > qp->sq.max_sge) {
		return EINVAL;
	}
	if ((info & RXE_OP_ATOMIC) &&
	    (len < sizeof(uint64_t) || (wr->wr.atomic.remote_addr & 7)))
		return EINVAL;
	if (qp->vqp.qp.qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	*length = len;
	return 0;
}

static void rxe_fill_send_wqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			      const struct ibv_send_wr *wr, uint32_t length)
{
	rxe_wqe_init(qp, wqe, wr->wr_id, wr->opcode, wr->send_flags);

	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->wr.ex.imm_data = wr->imm_data;
		/* fall through */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		rxe_wqe_rdma(wqe, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_SEND_WITH_IMM:
		wqe->wr.ex.imm_data = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->wr.ex.invalidate_rkey = wr->invalidate_rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		rxe_wqe_atomic(wqe, wr->wr.atomic.rkey,
			       wr->wr.atomic.remote_addr,
			       wr->wr.atomic.compare_add, wr->wr.atomic.swap);
		break;
	case IBV_WR_BIND_MW:
		rxe_wqe_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
			     &wr->bind_mw.bind_info);
		return;
	default:
		break;
	}
	if (wr->opcode == IBV_WR_LOCAL_INV)
		return;

	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		rxe_wqe_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
			   wr->wr.ud.remote_qkey);
	if (wr->send_flags & IBV_SEND_INLINE)
		rxe_wqe_inline_sges(wqe, wr, length);
	else
		rxe_wqe_sges(wqe, wr->sg_list, wr->num_sge, length);
}

/* A free slot at @prod, refreshing our view of the kernel's consumer. */
static bool rxe_sq_has_room(struct rxe_qp *qp, uint32_t prod, uint32_t *cons)
{
	if (!rxe_ring_full(&qp->sq.ring, prod, *cons))
		return true;
	*cons = rxe_ring_peer_consumer(&qp->sq.ring);
	return !rxe_ring_full(&qp->sq.ring, prod, *cons);
}

/*
 * The kernel refuses the doorbell before RTS (EINVAL, as rdma-core 44's
 * librxe reports), but only after the requests sit in the ring, where a
 * later doorbell would run them.  Refuse them first.  The cached state is
 * enough: only the caller moves a QP to RESET, INIT or RTR.
 */
static bool rxe_sq_open(struct ibv_qp *ibqp)
{
	return ibqp->state != IBV_QPS_RESET && ibqp->state != IBV_QPS_INIT &&
	       ibqp->state != IBV_QPS_RTR;
}

int rxe_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct ibv_send_wr *first = wr;
	uint32_t prod, cons, start, length;
	int err = 0, dberr;

	if (!wr || !rxe_sq_open(ibqp)) {
		*bad_wr = wr;
		return EINVAL;
	}

	rxe_lock(&qp->sq.lock);
	start = prod = rxe_ring_own_producer(&qp->sq.ring);
	cons = rxe_ring_peer_consumer(&qp->sq.ring);
	for (; wr; wr = wr->next) {
		err = rxe_check_send_wr(qp, wr, &length);
		if (err)
			break;
		if (!rxe_sq_has_room(qp, prod, &cons)) {
			err = ENOMEM;
			break;
		}
		rxe_fill_send_wqe(qp, rxe_ring_elem(&qp->sq.ring, prod), wr,
				  length);
		prod = rxe_ring_next(&qp->sq.ring, prod);
	}
	if (prod != start)
		rxe_ring_publish_producer(&qp->sq.ring, prod);
	rxe_unlock(&qp->sq.lock);

	if (err)
		*bad_wr = wr;
	if (prod == start)
		return err;

	/* One doorbell for everything this call published. */
	dberr = vcmd_doorbell_ring(&qp->db, ibqp);
	if (dberr && !err) {
		*bad_wr = first;
		err = dberr;
	}
	return err;
}

/* ibv_bind_mw(): a type 1 window, through a BIND_MW WQE of our own. */
int rxe_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_send_wqe *wqe;
	uint32_t prod, cons;

	if (mw->type != IBV_MW_TYPE_1 || !rxe_op_lookup(qp, IBV_WR_BIND_MW) ||
	    !rxe_sq_open(ibqp))
		return EINVAL;

	rxe_lock(&qp->sq.lock);
	prod = rxe_ring_own_producer(&qp->sq.ring);
	cons = rxe_ring_peer_consumer(&qp->sq.ring);
	if (rxe_ring_full(&qp->sq.ring, prod, cons)) {
		rxe_unlock(&qp->sq.lock);
		return ENOMEM;
	}
	wqe = rxe_ring_elem(&qp->sq.ring, prod);
	rxe_wqe_init(qp, wqe, mw_bind->wr_id, IBV_WR_BIND_MW,
		     mw_bind->send_flags);
	rxe_wqe_bind(wqe, mw, ibv_inc_rkey(mw->rkey), &mw_bind->bind_info);
	rxe_ring_publish_producer(&qp->sq.ring,
				  rxe_ring_next(&qp->sq.ring, prod));
	rxe_unlock(&qp->sq.lock);

	return vcmd_doorbell_ring(&qp->db, ibqp);
}

/*
 * The ibv_qp_ex builders.  wr_start takes the send queue lock and
 * remembers where the batch starts; each builder claims the next slot and
 * each setter completes the entry just claimed; wr_complete publishes the
 * batch and rings the doorbell, wr_abort drops it.  The first error sticks:
 * later calls do nothing and wr_complete reports it, posting nothing.
 *
 * None of them runs in a fork child: the library's wrappers refuse an
 * inherited QP first, so no builder writes into the ring the child shares
 * with its parent.
 */

static struct rxe_send_wqe *rxe_batch_new(struct ibv_qp_ex *qpx,
					  unsigned int opcode)
{
	struct rxe_qp *qp = to_rqp_ex(qpx);
	struct rxe_send_wqe *wqe;
	unsigned int info;
	uint32_t cons;

	/* Outside a batch batch_err is never 0 (rxe_batch_close()). */
	if (qp->batch_err)
		return NULL;
	info = rxe_op_lookup(qp, opcode);
	if (!info) {
		qp->batch_err = EINVAL;
		return NULL;
	}
	cons = rxe_ring_peer_consumer(&qp->sq.ring);
	if (rxe_ring_full(&qp->sq.ring, qp->batch_prod, cons)) {
		qp->batch_err = ENOMEM;
		qp->batch_wqe = NULL;
		return NULL;
	}
	wqe = rxe_ring_elem(&qp->sq.ring, qp->batch_prod);
	rxe_wqe_init(qp, wqe, qpx->wr_id, opcode,
		     qpx->wr_flags & ~IBV_SEND_INLINE);
	qp->batch_prod = rxe_ring_next(&qp->sq.ring, qp->batch_prod);
	qp->batch_wqe = wqe;
	qp->batch_info = info;
	return wqe;
}

/* The entry the setters complete: one that carries data. */
static struct rxe_send_wqe *rxe_batch_cur(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = to_rqp_ex(qpx);

	if (qp->batch_err || !qp->batch_wqe)
		return NULL;
	if (qp->batch_info & (RXE_OP_LOCAL | RXE_OP_BUILDER))
		return NULL;
	return qp->batch_wqe;
}

static void rxe_batch_fail(struct ibv_qp_ex *qpx, int err)
{
	to_rqp_ex(qpx)->batch_err = err;
}

static void rxe_wr_start(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = to_rqp_ex(qpx);

	/*
	 * The batch state is another thread's until the lock is ours: it
	 * may be between its own wr_start and wr_complete.
	 */
	rxe_lock(&qp->sq.lock);
	qp->batch_wqe = NULL;
	qp->batch_locked = true;
	qp->batch_err = 0;
	qp->batch_prod = rxe_ring_own_producer(&qp->sq.ring);
}

/*
 * Leave a batch: outside one, batch_err holds EINVAL, so that a builder
 * or setter called without wr_start does nothing and the next
 * wr_complete reports it, without a second test in each builder.
 */
static void rxe_batch_close(struct rxe_qp *qp)
{
	qp->batch_wqe = NULL;
	qp->batch_err = EINVAL;
	qp->batch_locked = false;
	rxe_unlock(&qp->sq.lock);
}

static int rxe_wr_complete(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = to_rqp_ex(qpx);
	bool posted = false;
	int err;

	/* No batch of this thread's: nothing to read, not even batch_err. */
	if (!qp->batch_locked)
		return EINVAL;
	err = qp->batch_err;
	/* Before RTS the batch is dropped, as post_send refuses it. */
	if (!err && !rxe_sq_open(&qp->vqp.qp))
		err = EINVAL;
	if (!err && qp->batch_prod != rxe_ring_own_producer(&qp->sq.ring)) {
		rxe_ring_publish_producer(&qp->sq.ring, qp->batch_prod);
		posted = true;
	}
	rxe_batch_close(qp);
	if (posted)
		err = vcmd_doorbell_ring(&qp->db, &qp->vqp.qp);
	return err;
}

/*
 * Without wr_start there is no batch of this thread's to drop, and the
 * state is as rxe_batch_close() left it; another thread's batch may be
 * open, so nothing is written without the lock.
 */
static void rxe_wr_abort(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = to_rqp_ex(qpx);

	if (qp->batch_locked)
		rxe_batch_close(qp);
}

static void rxe_wr_send(struct ibv_qp_ex *qpx)
{
	rxe_batch_new(qpx, IBV_WR_SEND);
}

static void rxe_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct rxe_send_wqe *wqe = rxe_batch_new(qpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->wr.ex.imm_data = imm_data;
}

static void rxe_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct rxe_send_wqe *wqe = rxe_batch_new(qpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = invalidate_rkey;
}

static void rxe_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = rxe_batch_new(qpx, IBV_WR_RDMA_WRITE);

	if (wqe)
		rxe_wqe_rdma(wqe, rkey, remote_addr);
}

static void rxe_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm_data)
{
	struct rxe_send_wqe *wqe =
		rxe_batch_new(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);

	if (wqe) {
		rxe_wqe_rdma(wqe, rkey, remote_addr);
		wqe->wr.ex.imm_data = imm_data;
	}
}

static void rxe_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = rxe_batch_new(qpx, IBV_WR_RDMA_READ);

	if (wqe)
		rxe_wqe_rdma(wqe, rkey, remote_addr);
}

static void rxe_wr_atomic(struct ibv_qp_ex *qpx, unsigned int opcode,
			  uint32_t rkey, uint64_t remote_addr,
			  uint64_t compare_add, uint64_t swap)
{
	struct rxe_send_wqe *wqe;

	if (remote_addr & 7) {
		rxe_batch_fail(qpx, EINVAL);
		return;
	}
	wqe = rxe_batch_new(qpx, opcode);
	if (wqe)
		rxe_wqe_atomic(wqe, rkey, remote_addr, compare_add, swap);
}

static void rxe_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, uint64_t compare,
				  uint64_t swap)
{
	rxe_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
		      compare, swap);
}

static void rxe_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add)
{
	rxe_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
		      add, 0);
}

/*
 * ATOMIC_WRITE: the 8 bytes at @atomic_wr are written to @remote_addr as
 * one unit.  As with rdma-core's librxe, the kernel checks the address
 * and the rkey; whether it executes the request at all it says in
 * device_cap_flags_ex (IB_UVERBS_DEVICE_ATOMIC_WRITE, Linux 6.2 on), and
 * the request is posted the same either way.
 */
static void rxe_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr, const void *atomic_wr)
{
	struct rxe_send_wqe *wqe;

	if (!atomic_wr) {
		rxe_batch_fail(qpx, EINVAL);
		return;
	}
	wqe = rxe_batch_new(qpx, IBV_WR_ATOMIC_WRITE);
	if (!wqe)
		return;
	rxe_wqe_rdma(wqe, rkey, remote_addr);
	memcpy(wqe->dma.inline_data, atomic_wr, sizeof(uint64_t));
	wqe->dma.length = sizeof(uint64_t);
	wqe->dma.resid = sizeof(uint64_t);
}

#if IBV_RDMA_CORE_RELEASE >= 56
/*
 * FLUSH (rdma-core 45): make @len bytes at @remote_addr (IBV_FLUSH_RANGE)
 * or the whole MR of @rkey (IBV_FLUSH_MR) globally visible or persistent
 * (@type) at the responder.  The kernel reads the length from the
 * WQE's dma.length, as for other requests; wr.flush.length gets it too.
 */
static void rxe_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level)
{
	struct rxe_send_wqe *wqe;
	struct rxe_wr_flush *flush;

	if (len > UINT32_MAX) {
		rxe_batch_fail(qpx, EINVAL);
		return;
	}
	wqe = rxe_batch_new(qpx, IBV_WR_FLUSH);
	if (!wqe)
		return;
	/* The union is zeroed (rxe_wqe_init()); fill its flush member. */
	flush = (struct rxe_wr_flush *)&wqe->wr.wr;
	flush->remote_addr = remote_addr;
	flush->length = (uint32_t)len;
	flush->rkey = rkey;
	flush->type = type;
	flush->level = level;
	wqe->iova = remote_addr;
	wqe->dma.length = (uint32_t)len;
	wqe->dma.resid = (uint32_t)len;
}
#endif

static void rxe_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			   uint32_t rkey,
			   const struct ibv_mw_bind_info *bind_info)
{
	struct rxe_send_wqe *wqe;

	if (!mw || !bind_info) {
		rxe_batch_fail(qpx, EINVAL);
		return;
	}
	wqe = rxe_batch_new(qpx, IBV_WR_BIND_MW);
	if (wqe)
		rxe_wqe_bind(wqe, mw, rkey, bind_info);
}

static void rxe_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct rxe_send_wqe *wqe = rxe_batch_new(qpx, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = invalidate_rkey;
}

/* An atomic needs room for the 8 bytes of the original value. */
static bool rxe_length_ok(const struct rxe_send_wqe *wqe, uint64_t length)
{
	if (length > UINT32_MAX)
		return false;
	if (wqe->wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
		return length >= sizeof(uint64_t);
	return true;
}

static void rxe_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	struct rxe_send_wqe *wqe = rxe_batch_cur(qpx);
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	if (!wqe)
		return;
	if (!rxe_length_ok(wqe, length) || !to_rqp_ex(qpx)->sq.max_sge) {
		rxe_batch_fail(qpx, EINVAL);
		return;
	}
	rxe_wqe_sges(wqe, &sge, 1, length);
}

static void rxe_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	struct rxe_send_wqe *wqe = rxe_batch_cur(qpx);
	uint64_t length = 0;
	size_t i;

	if (!wqe)
		return;
	if (num_sge > to_rqp_ex(qpx)->sq.max_sge) {
		rxe_batch_fail(qpx, EINVAL);
		return;
	}
	for (i = 0; i < num_sge; i++)
		length += sg_list[i].length;
	if (!rxe_length_ok(wqe, length)) {
		rxe_batch_fail(qpx, EINVAL);
		return;
	}
	rxe_wqe_sges(wqe, sg_list, num_sge, length);
}

/*
 * The entry inline data goes to, if @length bytes of it may: else the
 * batch fails (NULL also when the entry carries no data or the batch
 * failed already).
 */
static struct rxe_send_wqe *rxe_batch_inline(struct ibv_qp_ex *qpx,
					     uint64_t length)
{
	struct rxe_qp *qp = to_rqp_ex(qpx);
	struct rxe_send_wqe *wqe = rxe_batch_cur(qpx);

	if (!wqe)
		return NULL;
	if (!(qp->batch_info & RXE_OP_INLINE) ||
	    length > qp->sq.max_inline) {
		rxe_batch_fail(qpx, EINVAL);
		return NULL;
	}
	return wqe;
}

static void rxe_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct rxe_send_wqe *wqe;
	uint64_t length = 0;
	size_t i;

	/* Stop at any sum past 32 bits: a wrapped sum could pass the check. */
	for (i = 0; i < num_buf && length <= UINT32_MAX; i++)
		length += buf_list[i].length > UINT32_MAX ?
				  (uint64_t)UINT32_MAX + 1 :
				  buf_list[i].length;
	wqe = rxe_batch_inline(qpx, length);
	if (wqe)
		rxe_wqe_inline(wqe, buf_list, num_buf, length);
}

/* The common case of one buffer, without the list's loops. */
static void rxe_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				   size_t length)
{
	struct rxe_send_wqe *wqe = rxe_batch_inline(qpx, length);

	if (wqe) {
		rxe_inline_copy(wqe->dma.inline_data, addr, length);
		rxe_wqe_inline_done(wqe, length);
	}
}

static void rxe_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct rxe_send_wqe *wqe = rxe_batch_cur(qpx);

	if (!wqe)
		return;
	if (qpx->qp_base.qp_type != IBV_QPT_UD || !ah) {
		rxe_batch_fail(qpx, EINVAL);
		return;
	}
	rxe_wqe_ud(wqe, ah, remote_qpn, remote_qkey);
}

/*
 * Install the builders.  All of the ones rxe supports are set whatever
 * @send_ops_flags asked for; an opcode the QP type cannot run fails the
 * batch with EINVAL.
 */
int rxe_qp_ex_setup(struct rxe_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qp->send_ops = send_ops_flags;
	qp->batch_err = EINVAL;
	qpx->wr_start = rxe_wr_start;
	qpx->wr_complete = rxe_wr_complete;
	qpx->wr_abort = rxe_wr_abort;
	qpx->wr_send = rxe_wr_send;
	qpx->wr_send_imm = rxe_wr_send_imm;
	qpx->wr_send_inv = rxe_wr_send_inv;
	qpx->wr_rdma_write = rxe_wr_rdma_write;
	qpx->wr_rdma_write_imm = rxe_wr_rdma_write_imm;
	qpx->wr_rdma_read = rxe_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = rxe_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = rxe_wr_atomic_fetch_add;
	qpx->wr_bind_mw = rxe_wr_bind_mw;
	qpx->wr_local_inv = rxe_wr_local_inv;
	qpx->wr_set_sge = rxe_wr_set_sge;
	qpx->wr_set_sge_list = rxe_wr_set_sge_list;
	qpx->wr_set_inline_data = rxe_wr_set_inline_data;
	qpx->wr_set_inline_data_list = rxe_wr_set_inline_data_list;
	qpx->wr_set_ud_addr = rxe_wr_set_ud_addr;
	qpx->wr_atomic_write = rxe_wr_atomic_write;
#if IBV_RDMA_CORE_RELEASE >= 56
	qpx->wr_flush = rxe_wr_flush;
#endif
	return 0;
}
