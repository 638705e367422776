/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The command layer: the only code that talks to /dev/infiniband/uverbsN.
 *
 * One file per kernel object (cmd_pd.c, cmd_mr.c, cmd_cq.c, ...) over two
 * transports: the legacy write() commands of <rdma/ib_user_verbs.h>
 * (cmd_write.c) and the ioctl() methods of <rdma/ib_user_ioctl_cmds.h>
 * (cmd_ioctl.c), chosen per command by what the kernel offers.
 *
 * Providers call these from their ops.  A command carries the provider's
 * private request and response (struct vcmd_udata) behind the core ones;
 * on success the common fields of the object (context, handle, keys,
 * queue sizes granted by the kernel) are filled in.
 *
 * Every function returns 0 or a positive errno and never prints.
 */
#ifndef IBV_CMD_H
#define IBV_CMD_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "driver.h"

/* The provider's private part of one command; NULL when it has none. */
struct vcmd_udata {
	const void *in;
	size_t in_len;
	void *out;
	size_t out_len;
	/*
	 * Where the core response is copied too on success, or NULL: a
	 * plug-in passes the kernel's core response and its own as one
	 * buffer and reads both (at most core_out_len bytes are written).
	 */
	void *core_out;
	size_t core_out_len;
};

/* Context and device (cmd_device.c) */
int vcmd_get_context(struct verbs_context *vctx, struct vcmd_udata *udata)
	IBV_HIDDEN;
int vcmd_query_context(struct verbs_context *vctx) IBV_HIDDEN;
int vcmd_query_device_ex(struct ibv_context *ctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
	IBV_HIDDEN;
/*
 * The same, leaving the kernel's response in @resp (response_length set
 * for the legacy command too) and the provider's part of the extended
 * response in @udata_out (may be NULL); @full is the whole struct.
 */
struct ib_uverbs_ex_query_device_resp;
int vcmd_query_device_resp(struct ibv_context *ctx,
			   struct ibv_device_attr_ex *full,
			   struct ib_uverbs_ex_query_device_resp *resp,
			   const struct vcmd_udata *udata_out) IBV_HIDDEN;
int vcmd_query_port(struct ibv_context *ctx, uint8_t port_num,
		    struct ibv_port_attr *attr) IBV_HIDDEN;
int vcmd_query_gid_entry(struct ibv_context *ctx, uint32_t port_num,
			 uint32_t gid_index, struct ibv_gid_entry *entry)
	IBV_HIDDEN;
/* Returns the number of entries (>= 0) or a negative errno. */
ssize_t vcmd_query_gid_table(struct ibv_context *ctx,
			     struct ibv_gid_entry *entries,
			     size_t max_entries) IBV_HIDDEN;
int vcmd_create_comp_channel(struct ibv_context *ctx, int *fd) IBV_HIDDEN;

/* Protection domains (cmd_pd.c) */
int vcmd_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		  struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_dealloc_pd(struct ibv_pd *pd) IBV_HIDDEN;

/* Memory regions (cmd_mr.c); access is IBV_ACCESS_* */
int vcmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		uint64_t hca_va, int access, struct verbs_mr *vmr,
		struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
		       uint64_t iova, int fd, int access,
		       struct verbs_mr *vmr) IBV_HIDDEN;
int vcmd_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, uint64_t hca_va, int access,
		  struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_dereg_mr(struct verbs_mr *vmr) IBV_HIDDEN;
/* For ibv_import_mr(): fills lkey, rkey, length, addr from the kernel. */
int vcmd_query_mr(struct ibv_pd *pd, uint32_t mr_handle,
		  struct verbs_mr *vmr) IBV_HIDDEN;

/* Memory windows (cmd_mw.c) */
int vcmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		  struct ibv_mw *mw, struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_dealloc_mw(struct ibv_mw *mw) IBV_HIDDEN;

/* Completion queues (cmd_cq.c) */
int vcmd_create_cq(struct ibv_context *ctx, int cqe,
		   struct ibv_comp_channel *channel, int comp_vector,
		   struct ibv_cq *cq, struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_create_cq_ex(struct ibv_context *ctx,
		      const struct ibv_cq_init_attr_ex *attr,
		      struct verbs_cq *cq, struct vcmd_udata *udata) IBV_HIDDEN;
/* The kernel's IB_UVERBS_CQ_FLAGS_* for an extended CQ's attributes. */
uint32_t vcmd_cq_kernel_flags(const struct ibv_cq_init_attr_ex *attr)
	IBV_HIDDEN;
int vcmd_resize_cq(struct ibv_cq *cq, int cqe, struct vcmd_udata *udata)
	IBV_HIDDEN;
int vcmd_req_notify_cq(struct ibv_cq *cq, int solicited_only) IBV_HIDDEN;
int vcmd_modify_cq(struct ibv_cq *cq, const struct ibv_modify_cq_attr *attr,
		   struct vcmd_udata *udata) IBV_HIDDEN;
/*
 * The POLL_CQ command of providers without a mapped CQ: the number of
 * completions (>= 0) or a negative errno.
 */
int vcmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc) IBV_HIDDEN;
int vcmd_destroy_cq(struct ibv_cq *cq) IBV_HIDDEN;

/* Shared receive queues (cmd_srq.c) */
int vcmd_create_srq(struct ibv_pd *pd, struct verbs_srq *srq,
		    struct ibv_srq_init_attr *attr,
		    struct vcmd_udata *udata) IBV_HIDDEN;
/* The same for an SRQ that is only a struct ibv_srq: nothing else set. */
int vcmd_create_srq_plain(struct ibv_pd *pd, struct ibv_srq *srq,
			  struct ibv_srq_init_attr *attr,
			  struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_create_srq_ex(struct ibv_context *ctx, struct verbs_srq *srq,
		       struct ibv_srq_init_attr_ex *attr,
		       struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		    int attr_mask, struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
	IBV_HIDDEN;
int vcmd_destroy_srq(struct ibv_srq *srq) IBV_HIDDEN;
/*
 * The POST_SRQ_RECV command; on failure *bad_wr is the first work
 * request not posted.
 */
int vcmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr) IBV_HIDDEN;

/* Queue pairs (cmd_qp.c) */
int vcmd_create_qp(struct ibv_pd *pd, struct verbs_qp *qp,
		   struct ibv_qp_init_attr *attr,
		   struct vcmd_udata *udata) IBV_HIDDEN;
/* The same for a QP that is only a struct ibv_qp: nothing else set. */
int vcmd_create_qp_plain(struct ibv_pd *pd, struct ibv_qp *qp,
			 struct ibv_qp_init_attr *attr,
			 struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_create_qp_ex(struct ibv_context *ctx, struct verbs_qp *qp,
		      struct ibv_qp_init_attr_ex *attr,
		      struct vcmd_udata *udata) IBV_HIDDEN;
/* Open the XRC target QP @attr->qp_num of an XRC domain (OPEN_QP). */
int vcmd_open_qp(struct ibv_context *ctx, struct ibv_qp *qp,
		 const struct ibv_qp_open_attr *attr, uint32_t xrcd_handle,
		 struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr) IBV_HIDDEN;
int vcmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask, struct vcmd_udata *udata) IBV_HIDDEN;
/* Always the extended MODIFY_QP, which has a response. */
int vcmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_destroy_qp(struct ibv_qp *qp) IBV_HIDDEN;
/*
 * The send doorbell of software providers: a POST_SEND command with no
 * work requests, telling the kernel to process the mapped send queue.
 */
int vcmd_post_send_doorbell(struct ibv_qp *qp) IBV_HIDDEN;

/*
 * The same doorbell built once per QP, for the data path: the legacy
 * POST_SEND command (struct ib_uverbs_cmd_hdr, then the first fields of
 * struct ib_uverbs_post_send) lies ready, and ringing it is one write().
 * vcmd_doorbell_init() fills it once the QP has its handle.  The kernel
 * writes its response (the index of a bad work request, always 0 here)
 * into @bad_wr, which nobody reads: threads ringing at once all write 0.
 * A context imported from another process cannot write() to its command
 * fd (the kernel checks the opener's credentials), so there @fd is -1 and
 * the doorbell goes through vcmd_post_send_doorbell().
 */
struct vcmd_doorbell {
	struct ib_uverbs_cmd_hdr hdr;
	uint64_t response;
	uint32_t qp_handle;
	uint32_t wr_count;
	uint32_t sge_count;
	uint32_t wqe_size;
	int fd;
	uint32_t bad_wr;
};

#define VCMD_DOORBELL_LEN offsetof(struct vcmd_doorbell, fd)

void vcmd_doorbell_init(struct vcmd_doorbell *db, struct ibv_qp *qp)
	IBV_HIDDEN;

static inline int vcmd_doorbell_ring(struct vcmd_doorbell *db,
				     struct ibv_qp *qp)
{
	ssize_t n;

	if (__builtin_expect(db->fd < 0, 0))
		return vcmd_post_send_doorbell(qp);
	n = write(db->fd, db, VCMD_DOORBELL_LEN);
	if (__builtin_expect(n == VCMD_DOORBELL_LEN, 1))
		return 0;
	return n < 0 ? errno : EIO;
}
/*
 * The POST_SEND and POST_RECV commands of providers without mapped
 * queues; on failure *bad_wr is the first work request not posted.
 */
int vcmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr) IBV_HIDDEN;
int vcmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr) IBV_HIDDEN;

/* Address handles (cmd_ah.c) */
int vcmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		   struct ibv_ah_attr *attr, struct vcmd_udata *udata)
	IBV_HIDDEN;
int vcmd_destroy_ah(struct ibv_ah *ah) IBV_HIDDEN;

/* Multicast (cmd_mcast.c) */
int vcmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid) IBV_HIDDEN;
int vcmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid) IBV_HIDDEN;

/* XRC domains (cmd_xrcd.c) */
int vcmd_open_xrcd(struct ibv_context *ctx, int fd, int oflags,
		   uint32_t *handle, struct vcmd_udata *udata) IBV_HIDDEN;
int vcmd_close_xrcd(struct ibv_context *ctx, uint32_t handle) IBV_HIDDEN;

#endif /* IBV_CMD_H */
