// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The members of a fork child's extended CQ and QP proxies
 * (fork_child.c): ibv_cq_ex pollers and readers, ibv_qp_ex builders and
 * setters, each of which forwards to the real object's own.  The
 * application calls them through the proxy it was given, so they reach
 * the real object from the proxy itself, without the proxy table.
 */
#include "fork_child_priv.h"
#include "ibverbs.h"

/*
 * Extended CQs.  The provider's pollers read and write their own struct
 * (container_of() of the pointer they get), so the proxy's members call
 * the real CQ's with the real pointer and copy back what the provider
 * fills in the public struct: status and wr_id.
 */
static struct ibv_cq_ex *rcqx(struct ibv_cq_ex *cq)
{
	return container_of(cq, struct child_cq, v.cq_ex)->realx;
}

static void cqx_copy(struct ibv_cq_ex *cq, struct ibv_cq_ex *r)
{
	cq->status = r->status;
	cq->wr_id = r->wr_id;
}

static int fw_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	struct ibv_cq_ex *r = rcqx(cq);
	int ret = r->start_poll(r, attr);

	if (!ret)
		cqx_copy(cq, r);
	return ret;
}

static int fw_next_poll(struct ibv_cq_ex *cq)
{
	struct ibv_cq_ex *r = rcqx(cq);
	int ret = r->next_poll(r);

	if (!ret)
		cqx_copy(cq, r);
	return ret;
}

static void fw_end_poll(struct ibv_cq_ex *cq)
{
	struct ibv_cq_ex *r = rcqx(cq);

	r->end_poll(r);
}

#define FW_READ(name, type)                         \
	static type fw_##name(struct ibv_cq_ex *cq) \
	{                                           \
		struct ibv_cq_ex *r = rcqx(cq);     \
		return r->name(r);                  \
	}
FW_READ(read_opcode, enum ibv_wc_opcode)
FW_READ(read_vendor_err, uint32_t)
FW_READ(read_byte_len, uint32_t)
FW_READ(read_imm_data, __be32)
FW_READ(read_qp_num, uint32_t)
FW_READ(read_src_qp, uint32_t)
FW_READ(read_wc_flags, unsigned int)
FW_READ(read_slid, uint32_t)
FW_READ(read_sl, uint8_t)
FW_READ(read_dlid_path_bits, uint8_t)
FW_READ(read_completion_ts, uint64_t)
FW_READ(read_cvlan, uint16_t)
FW_READ(read_flow_tag, uint32_t)
FW_READ(read_completion_wallclock_ns, uint64_t)
#undef FW_READ

static void fw_read_tm_info(struct ibv_cq_ex *cq, struct ibv_wc_tm_info *info)
{
	struct ibv_cq_ex *r = rcqx(cq);

	r->read_tm_info(r, info);
}

/* A member the provider left NULL stays NULL: the application checks. */
#define FW_SET(px, r, name) ((px)->name = (r)->name ? fw_##name : NULL)

void verbs_child_cqx_fill(struct ibv_cq_ex *px, struct ibv_cq_ex *r)
{
	px->comp_mask = r->comp_mask;
	FW_SET(px, r, start_poll);
	FW_SET(px, r, next_poll);
	FW_SET(px, r, end_poll);
	FW_SET(px, r, read_opcode);
	FW_SET(px, r, read_vendor_err);
	FW_SET(px, r, read_byte_len);
	FW_SET(px, r, read_imm_data);
	FW_SET(px, r, read_qp_num);
	FW_SET(px, r, read_src_qp);
	FW_SET(px, r, read_wc_flags);
	FW_SET(px, r, read_slid);
	FW_SET(px, r, read_sl);
	FW_SET(px, r, read_dlid_path_bits);
	FW_SET(px, r, read_completion_ts);
	FW_SET(px, r, read_cvlan);
	FW_SET(px, r, read_flow_tag);
	FW_SET(px, r, read_tm_info);
	FW_SET(px, r, read_completion_wallclock_ns);
}

/*
 * Extended QPs.  Builders and setters forward to the real QP's, which
 * read the real struct's wr_id and wr_flags: they are copied there
 * before each builder.  An AH handed to ibv_wr_set_ud_addr() is
 * exchanged for the real one, as are a window and its MR handed to
 * ibv_wr_bind_mw(); one that is no proxy of this process spoils the
 * batch: the builder cannot refuse, so ibv_wr_complete() aborts it and
 * fails with the errno the first refusal had, as ibv_post_send() would:
 * EPERM for one that is not the child's, EINVAL for one of another
 * context.
 */
static struct child_qp *cqp(struct ibv_qp_ex *qp)
{
	return container_of(qp, struct child_qp, v.qp_ex);
}

static struct ibv_qp_ex *rqpx(struct ibv_qp_ex *qp)
{
	return cqp(qp)->realx;
}

/* The real QP, with the next request's wr_id and flags. */
static struct ibv_qp_ex *rqpx_wr(struct ibv_qp_ex *qp)
{
	struct ibv_qp_ex *r = rqpx(qp);

	r->wr_id = qp->wr_id;
	r->wr_flags = qp->wr_flags;
	return r;
}

/* The batch fails at ibv_wr_complete() with the first refusal's errno. */
static void spoil(struct ibv_qp_ex *qp, int err)
{
	if (!cqp(qp)->bad)
		cqp(qp)->bad = err;
}

static void fw_wr_start(struct ibv_qp_ex *qp)
{
	struct ibv_qp_ex *r = rqpx(qp);

	/*
	 * Another thread's batch may be open: the provider's wr_start waits
	 * for it to end, and only then is the spoilt mark ours to clear.
	 */
	r->wr_start(r);
	cqp(qp)->bad = 0;
}

static int fw_wr_complete(struct ibv_qp_ex *qp)
{
	struct ibv_qp_ex *r = rqpx(qp);
	int bad = cqp(qp)->bad;

	if (bad) {
		cqp(qp)->bad = 0;
		r->wr_abort(r);
		return bad;
	}
	return r->wr_complete(r);
}

static void fw_wr_abort(struct ibv_qp_ex *qp)
{
	struct ibv_qp_ex *r = rqpx(qp);

	cqp(qp)->bad = 0;
	r->wr_abort(r);
}

static void fw_wr_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey,
				 uint64_t remote_addr, uint64_t compare,
				 uint64_t swap)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_atomic_cmp_swp(r, rkey, remote_addr, compare, swap);
}

static void fw_wr_atomic_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey,
				   uint64_t remote_addr, uint64_t add)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_atomic_fetch_add(r, rkey, remote_addr, add);
}

/*
 * The child's own window, bound to its own MR: exchanged for the real
 * ones (no window is passed on as none, for the provider to refuse).
 * Any other spoils the batch.
 */
static void fw_wr_bind_mw(struct ibv_qp_ex *qp, struct ibv_mw *mw,
			  uint32_t rkey,
			  const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);
	struct ibv_mw_bind_info info;
	struct ibv_mw *rmw;
	int err;

	if (!bind_info) {
		r->wr_bind_mw(r, NULL, rkey, NULL);
		return;
	}
	err = verbs_child_bind_parts(&r->qp_base, mw, bind_info, &rmw, &info);
	if (err) {
		spoil(qp, err);
		return;
	}
	r->wr_bind_mw(r, rmw, rkey, &info);
	if (mw)
		verbs_child_mw_synced(mw, rmw);
}

static void fw_wr_local_inv(struct ibv_qp_ex *qp, uint32_t invalidate_rkey)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_local_inv(r, invalidate_rkey);
}

static void fw_wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey,
			    uint64_t remote_addr)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_rdma_read(r, rkey, remote_addr);
}

static void fw_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey,
			     uint64_t remote_addr)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_rdma_write(r, rkey, remote_addr);
}

static void fw_wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey,
				 uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_rdma_write_imm(r, rkey, remote_addr, imm_data);
}

static void fw_wr_send(struct ibv_qp_ex *qp)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_send(r);
}

static void fw_wr_send_imm(struct ibv_qp_ex *qp, __be32 imm_data)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_send_imm(r, imm_data);
}

static void fw_wr_send_inv(struct ibv_qp_ex *qp, uint32_t invalidate_rkey)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_send_inv(r, invalidate_rkey);
}

static void fw_wr_send_tso(struct ibv_qp_ex *qp, void *hdr, uint16_t hdr_sz,
			   uint16_t mss)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_send_tso(r, hdr, hdr_sz, mss);
}

static void fw_wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah,
			      uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ibv_qp_ex *r = rqpx(qp);
	struct ibv_ah *real = NULL;
	int err = verbs_child_ud_real_ah(&r->qp_base, ah, &real);

	if (err) {
		spoil(qp, err);
		return;
	}
	r->wr_set_ud_addr(r, real, remote_qpn, remote_qkey);
}

static void fw_wr_set_xrc_srqn(struct ibv_qp_ex *qp, uint32_t remote_srqn)
{
	struct ibv_qp_ex *r = rqpx(qp);

	r->wr_set_xrc_srqn(r, remote_srqn);
}

static void fw_wr_set_inline_data(struct ibv_qp_ex *qp, void *addr,
				  size_t length)
{
	struct ibv_qp_ex *r = rqpx(qp);

	r->wr_set_inline_data(r, addr, length);
}

static void fw_wr_set_inline_data_list(struct ibv_qp_ex *qp, size_t num_buf,
				       const struct ibv_data_buf *buf_list)
{
	struct ibv_qp_ex *r = rqpx(qp);

	r->wr_set_inline_data_list(r, num_buf, buf_list);
}

static void fw_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr,
			  uint32_t length)
{
	struct ibv_qp_ex *r = rqpx(qp);

	r->wr_set_sge(r, lkey, addr, length);
}

static void fw_wr_set_sge_list(struct ibv_qp_ex *qp, size_t num_sge,
			       const struct ibv_sge *sg_list)
{
	struct ibv_qp_ex *r = rqpx(qp);

	r->wr_set_sge_list(r, num_sge, sg_list);
}

static void fw_wr_atomic_write(struct ibv_qp_ex *qp, uint32_t rkey,
			       uint64_t remote_addr, const void *atomic_wr)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_atomic_write(r, rkey, remote_addr, atomic_wr);
}

#if IBV_RDMA_CORE_RELEASE >= 56
static void fw_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey,
			uint64_t remote_addr, size_t len, uint8_t type,
			uint8_t level)
{
	struct ibv_qp_ex *r = rqpx_wr(qp);

	r->wr_flush(r, rkey, remote_addr, len, type, level);
}
#endif

void verbs_child_qpx_fill(struct ibv_qp_ex *px, struct ibv_qp_ex *r)
{
	px->comp_mask = r->comp_mask;
	FW_SET(px, r, wr_atomic_cmp_swp);
	FW_SET(px, r, wr_atomic_fetch_add);
	FW_SET(px, r, wr_bind_mw);
	FW_SET(px, r, wr_local_inv);
	FW_SET(px, r, wr_rdma_read);
	FW_SET(px, r, wr_rdma_write);
	FW_SET(px, r, wr_rdma_write_imm);
	FW_SET(px, r, wr_send);
	FW_SET(px, r, wr_send_imm);
	FW_SET(px, r, wr_send_inv);
	FW_SET(px, r, wr_send_tso);
	FW_SET(px, r, wr_set_ud_addr);
	FW_SET(px, r, wr_set_xrc_srqn);
	FW_SET(px, r, wr_set_inline_data);
	FW_SET(px, r, wr_set_inline_data_list);
	FW_SET(px, r, wr_set_sge);
	FW_SET(px, r, wr_set_sge_list);
	FW_SET(px, r, wr_start);
	FW_SET(px, r, wr_complete);
	FW_SET(px, r, wr_abort);
	FW_SET(px, r, wr_atomic_write);
#if IBV_RDMA_CORE_RELEASE >= 56
	FW_SET(px, r, wr_flush);
#endif
}
#undef FW_SET
