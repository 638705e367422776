/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The Soft-RoCE (rxe) provider: its objects and the functions its files
 * share.  See README.md beside this file for the ops it implements and the
 * ring protocol.
 */
#ifndef RXE_H
#define RXE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"
#include "cmd.h"
#include "rxe_queue.h"

#define RXE_MIN_ABI	1	/* versions 1 and 2 agree on 64-bit hosts */
#define RXE_MAX_ABI	2

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/*
 * Resolves the destination MAC of a RoCE address (libibverbs); used only
 * for kernels that return no AH number, where we build the address vector.
 * Our <infiniband/verbs.h> declares it; Debian's (used for quick syntax
 * checks) does not.
 */
#ifndef ETHERNET_LL_SIZE
int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
				struct ibv_ah_attr *attr, uint8_t eth_mac[6],
				uint16_t *vid);
#endif

#if IBV_RDMA_CORE_RELEASE >= 56
/*
 * A FLUSH request's member of the send WQE's wr.wr union: struct
 * rxe_send_wr's "flush" in the kernel's <rdma/rdma_user_rxe.h> since
 * Linux 6.2 (older linux-libc-dev lacks it, so it is spelled out here
 * with the uAPI's layout; uAPI layouts never change).
 */
struct rxe_wr_flush {
	__aligned_u64 remote_addr;
	__u32 length;
	__u32 rkey;
	__u8 type;
	__u8 level;
};

_Static_assert(sizeof(struct rxe_wr_flush) <=
		       sizeof(((struct rxe_send_wr *)0)->wr),
	       "flush fits the work request union");
#endif

struct rxe_device {
	struct verbs_plugin_device ibv_dev;
};

struct rxe_context {
	struct verbs_context vctx;
};

struct rxe_ah {
	struct verbs_ah vah;
	/* The kernel's handle for the WQE; 0 means use av instead. */
	uint32_t ah_num;
	struct rxe_av av;
};

/*
 * A work queue as user space produces it: the send queue, a receive queue
 * or a shared receive queue.  The lock serialises producers; the kernel
 * consumes without it.
 *
 * The queue and CQ locks are spinlocks (struct rxe_lock): they guard a
 * few dozen instructions (but an ibv_qp_ex batch holds the send queue's
 * from ibv_wr_start() to ibv_wr_complete() or ibv_wr_abort(), as
 * upstream's librxe does) and never a system call on the data path (the
 * send doorbell is rung after the unlock; resize, which does call the
 * kernel, takes the CQ or SRQ lock only on the control path).  A fork
 * child never takes the lock of an inherited object: the library refuses
 * such an object before any op that locks runs (its child guard wraps
 * every data-path function this provider installs), so a lock a parent
 * thread held at fork() time is never waited on, whether the child ran
 * atfork handlers or not.  Objects the child creates get fresh locks.
 */
struct rxe_wq {
	struct rxe_ring ring;
	struct rxe_lock lock;
	uint32_t max_sge;
	uint32_t max_inline;
};

/* A CQ ring replaced by a resize, kept mapped until the CQ is destroyed. */
struct rxe_old_ring {
	struct rxe_ring ring;
	struct rxe_old_ring *next;
};

struct rxe_cq {
	struct verbs_cq vcq;
	struct rxe_ring ring;
	struct rxe_lock lock;
	/*
	 * Rings that resizes replaced: the empty check reads the ring
	 * without the lock, so a resize must not unmap one under it.
	 */
	struct rxe_old_ring *old_rings;
	/* Extended polling: the entry between start_poll and end_poll. */
	const struct ib_uverbs_wc *cur;
	uint32_t cur_index;
};

struct rxe_srq {
	struct verbs_srq vsrq;
	struct rxe_wq rq;
};

struct rxe_qp {
	struct verbs_qp vqp;
	struct rxe_wq sq;
	struct rxe_wq rq;	/* ring.buf NULL when the QP uses an SRQ */
	struct vcmd_doorbell db;
	uint32_t ssn;
	/* ibv_qp_ex batch, between wr_start and wr_complete/wr_abort */
	uint64_t send_ops;
	struct rxe_send_wqe *batch_wqe;
	uint32_t batch_prod;
	int batch_err;
	bool batch_locked;
	/*
	 * Set once the QP exists: the RXE_OP_* bit of its type (rxe_send.c),
	 * and the info of the entry the batch's setters complete.  Both sit
	 * in what was tail padding.
	 */
	uint8_t op_type;
	uint8_t batch_info;
};

static inline struct rxe_cq *to_rcq(struct ibv_cq *cq)
{
	return container_of(cq, struct rxe_cq, vcq.cq);
}

static inline struct rxe_cq *to_rcq_ex(struct ibv_cq_ex *cq)
{
	return container_of(cq, struct rxe_cq, vcq.cq_ex);
}

static inline struct rxe_qp *to_rqp(struct ibv_qp *qp)
{
	return container_of(qp, struct rxe_qp, vqp.qp);
}

static inline struct rxe_qp *to_rqp_ex(struct ibv_qp_ex *qp)
{
	return container_of(qp, struct rxe_qp, vqp.qp_ex);
}

static inline struct rxe_srq *to_rsrq(struct ibv_srq *srq)
{
	return container_of(srq, struct rxe_srq, vsrq.srq);
}

static inline struct rxe_ah *to_rah(struct ibv_ah *ah)
{
	return container_of(ah, struct rxe_ah, vah.ah);
}

/* rxe.c: memory, windows, address handles */
struct ibv_pd *rxe_alloc_pd(struct ibv_context *ctx) IBV_HIDDEN;
int rxe_dealloc_pd(struct ibv_pd *pd) IBV_HIDDEN;
struct ibv_mr *rxe_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  uint64_t hca_va, int access) IBV_HIDDEN;
int rxe_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access) IBV_HIDDEN;
int rxe_dereg_mr(struct verbs_mr *vmr) IBV_HIDDEN;
struct ibv_mw *rxe_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
	IBV_HIDDEN;
int rxe_dealloc_mw(struct ibv_mw *mw) IBV_HIDDEN;
struct ibv_ah *rxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
	IBV_HIDDEN;
int rxe_destroy_ah(struct ibv_ah *ah) IBV_HIDDEN;

/* rxe_cq.c */
struct ibv_cq *rxe_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel,
			     int comp_vector) IBV_HIDDEN;
struct ibv_cq_ex *rxe_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr)
	IBV_HIDDEN;
int rxe_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
	IBV_HIDDEN;
int rxe_req_notify_cq(struct ibv_cq *cq, int solicited_only) IBV_HIDDEN;
int rxe_resize_cq(struct ibv_cq *cq, int cqe) IBV_HIDDEN;
int rxe_destroy_cq(struct ibv_cq *cq) IBV_HIDDEN;

/* rxe_srq.c */
struct ibv_srq *rxe_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr) IBV_HIDDEN;
struct ibv_srq *rxe_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr) IBV_HIDDEN;
int rxe_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		   int attr_mask) IBV_HIDDEN;
int rxe_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
	IBV_HIDDEN;
int rxe_destroy_srq(struct ibv_srq *srq) IBV_HIDDEN;
int rxe_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr) IBV_HIDDEN;

/* rxe_qp.c */
struct ibv_qp *rxe_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *attr) IBV_HIDDEN;
struct ibv_qp *rxe_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr) IBV_HIDDEN;
int rxe_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr) IBV_HIDDEN;
int rxe_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		  int attr_mask) IBV_HIDDEN;
int rxe_destroy_qp(struct ibv_qp *qp) IBV_HIDDEN;
int rxe_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr) IBV_HIDDEN;
int rxe_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid) IBV_HIDDEN;
int rxe_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid) IBV_HIDDEN;

/* rxe_send.c: the send queue */
int rxe_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr) IBV_HIDDEN;
int rxe_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind) IBV_HIDDEN;
int rxe_qp_ex_setup(struct rxe_qp *qp, uint64_t send_ops_flags) IBV_HIDDEN;
unsigned int rxe_type_bit(enum ibv_qp_type type) IBV_HIDDEN;

/* rxe_recv.c: receive queues, shared or not */
int rxe_wq_post_recv(struct rxe_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr) IBV_HIDDEN;

/*
 * Work queue helpers (rxe_recv.c): init the lock, map the ring (limits
 * clamped to what one element holds past @hdr_size), unmap and fini.
 */
void rxe_wq_init(struct rxe_wq *wq) IBV_HIDDEN;
int rxe_wq_map(struct rxe_wq *wq, int fd, const struct mminfo *mi,
	       size_t hdr_size, uint32_t max_sge, uint32_t max_inline)
	IBV_HIDDEN;
void rxe_wq_fini(struct rxe_wq *wq) IBV_HIDDEN;

#endif /* RXE_H */
