// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: CREATE_QP (legacy and extended), QUERY_QP, MODIFY_QP
 * (legacy and extended), DESTROY_QP and the POST_SEND doorbell, all
 * write() commands; from rdma-core 65 on, a plug-in's QP with driver
 * attributes is made with the ioctl method QP_CREATE, which carries them.
 *
 * A QP's user handle is the address of its struct ibv_qp, which
 * asynchronous events carry back.  XRC QPs need an XRC domain, which
 * only a plug-in opens (ibv_cmd_open_xrcd()); the public verbs refuse
 * them with EOPNOTSUPP.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd_transport.h"
#if IBV_RDMA_CORE_RELEASE >= 65
#include "provider_cmd.h" /* __ioctl_final_num_attrs() */
#endif

/* The attribute bits the legacy MODIFY_QP takes (up to IBV_QP_DEST_QPN). */
#define LEGACY_QP_ATTR_MASK ((IBV_QP_DEST_QPN << 1) - 1)

static int destroy_qp_handle(struct ibv_context *ctx, uint32_t handle,
			     struct ib_uverbs_destroy_qp_resp *resp)
{
	struct ib_uverbs_destroy_qp cmd = { .qp_handle = handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_DESTROY_QP,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(*resp),
	};

	return vcmd_write_ctx(ctx, &req);
}

/* A vcmd_destroy_fn: a QP that never reached the caller had no events. */
static int discard_qp(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_destroy_qp_resp resp;

	return destroy_qp_handle(ctx, handle, &resp);
}

/* What the public create verbs have in common. */
struct qp_create_args {
	struct ibv_pd *pd;
	/* The PD's, or for an XRC target QP the XRC domain's */
	uint32_t pd_handle;
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	struct ibv_srq *srq;
	struct ibv_qp_cap *cap;
	enum ibv_qp_type qp_type;
	bool ind_tbl;
};

/*
 * The kernel looks a CQ up by handle, and handle 0 may well be some other
 * CQ: a missing send CQ is refused unless the QP has no send queue (an
 * RSS QP), a missing receive CQ means the send CQ, as in the kernel.
 */
static int cq_handles(const struct qp_create_args *a, uint32_t *send,
		      uint32_t *recv)
{
	/* An XRC target QP has no CQ, an XRC initiator no receive queue. */
	*send = 0;
	*recv = 0;
	if (a->qp_type == IBV_QPT_XRC_RECV)
		return 0;
	if (a->qp_type == IBV_QPT_XRC_SEND) {
		if (!a->send_cq)
			return EINVAL;
		*send = a->send_cq->handle;
		return 0;
	}
	if (!a->send_cq && !(a->ind_tbl && !a->cap->max_send_wr))
		return EINVAL;
	*send = a->send_cq ? a->send_cq->handle : 0;
	*recv = a->recv_cq ? a->recv_cq->handle : *send;
	return 0;
}

/* Fill @qp and the granted capabilities from what the kernel answered. */
static void qp_created(struct ibv_context *ctx, struct ibv_qp *qp,
		       const struct qp_create_args *a,
		       const struct ib_uverbs_create_qp_resp *resp)
{
	qp->context = ctx;
	qp->pd = a->pd;
	qp->send_cq = a->send_cq;
	qp->recv_cq = a->recv_cq;
	qp->srq = a->srq;
	qp->handle = resp->qp_handle;
	qp->qp_num = resp->qpn;
	qp->state = IBV_QPS_RESET;
	qp->qp_type = a->qp_type;
	qp->events_completed = 0;

	a->cap->max_send_wr = resp->max_send_wr;
	a->cap->max_recv_wr = resp->max_recv_wr;
	a->cap->max_send_sge = resp->max_send_sge;
	a->cap->max_recv_sge = resp->max_recv_sge;
	a->cap->max_inline_data = resp->max_inline_data;
}

/*
 * Issue @req (answered by struct ib_uverbs_create_qp_resp first) and
 * fill the QP and the granted capabilities.
 */
static int create_qp(struct ibv_context *ctx, struct vcmd_write_req *req,
		     struct ib_uverbs_create_qp_resp *resp, struct ibv_qp *qp,
		     const struct qp_create_args *a)
{
	int err;

	err = vcmd_write_create_events(ctx, req, &resp->qp_handle, discard_qp,
				       &qp->mutex, &qp->cond);
	if (err)
		return err;
	qp_created(ctx, qp, a, resp);
	return 0;
}

/*
 * The fields the legacy and the extended create commands share.  The two
 * structs name them alike but lay them out differently (only the legacy
 * one starts with a response address), so they are initialised by name.
 */
#define CREATE_QP_FIELDS(qp, a)                                              \
	.user_handle = vcmd_user_handle(qp),                                  \
	.pd_handle = (a)->pd_handle,                                          \
	.srq_handle = (a)->srq ? (a)->srq->handle : 0,                        \
	.max_send_wr = (a)->cap->max_send_wr,                                 \
	.max_recv_wr = (a)->cap->max_recv_wr,                                 \
	.max_send_sge = (a)->cap->max_send_sge,                               \
	.max_recv_sge = (a)->cap->max_recv_sge,                               \
	.max_inline_data = (a)->cap->max_inline_data,                         \
	.qp_type = (a)->qp_type,                                              \
	.is_srq = !!(a)->srq

static bool is_xrc(enum ibv_qp_type type)
{
	return type == IBV_QPT_XRC_SEND || type == IBV_QPT_XRC_RECV;
}

static int create_qp_legacy(struct ibv_context *ctx, struct ibv_qp *qp,
			    const struct qp_create_args *a, int sq_sig_all,
			    struct vcmd_udata *udata)
{
	struct ib_uverbs_create_qp cmd = {
		CREATE_QP_FIELDS(qp, a),
		.sq_sig_all = !!sq_sig_all,
	};
	struct ib_uverbs_create_qp_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_CREATE_QP,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err;

	err = cq_handles(a, &cmd.send_cq_handle, &cmd.recv_cq_handle);
	if (err)
		return err;
	return create_qp(ctx, &req, &resp, qp, a);
}

int vcmd_create_qp_plain(struct ibv_pd *pd, struct ibv_qp *qp,
			 struct ibv_qp_init_attr *attr,
			 struct vcmd_udata *udata)
{
	struct qp_create_args a = {
		.pd = pd,
		.pd_handle = pd->handle,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = &attr->cap,
		.qp_type = attr->qp_type,
	};

	/* An XRC QP needs the XRC domain of the extended attributes. */
	if (is_xrc(attr->qp_type))
		return EOPNOTSUPP;
	return create_qp_legacy(pd->context, qp, &a, attr->sq_sig_all, udata);
}

int vcmd_create_qp(struct ibv_pd *pd, struct verbs_qp *qp,
		   struct ibv_qp_init_attr *attr, struct vcmd_udata *udata)
{
	int err = vcmd_create_qp_plain(pd, &qp->qp, attr, udata);

	if (!err)
		qp->xrcd = NULL;
	return err;
}

/* The extended command, for creation flags and indirection tables. */
static int create_qp_extended(struct ibv_context *ctx, struct ibv_qp *qp,
			      const struct qp_create_args *a,
			      const struct ibv_qp_init_attr_ex *attr,
			      struct vcmd_udata *udata)
{
	struct ib_uverbs_ex_create_qp cmd = {
		CREATE_QP_FIELDS(qp, a),
		.sq_sig_all = !!attr->sq_sig_all,
	};
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_CREATE_QP,
		.extended = true,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err;

	err = cq_handles(a, &cmd.send_cq_handle, &cmd.recv_cq_handle);
	if (err)
		return err;
	/* IBV_QP_CREATE_* are the kernel's IB_QP_CREATE_* bits. */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) {
		cmd.create_flags = attr->create_flags;
		if (attr->create_flags & IBV_QP_CREATE_SOURCE_QPN)
			cmd.source_qpn = attr->source_qpn;
	}
	if (a->ind_tbl) {
		cmd.comp_mask |= IB_UVERBS_CREATE_QP_MASK_IND_TABLE;
		cmd.rwq_ind_tbl_handle = attr->rwq_ind_tbl->ind_tbl_handle;
	}
	return create_qp(ctx, &req, &resp.base, qp, a);
}

/*
 * The arguments of @attr's QP and its XRC domain (NULL for none); EINVAL
 * without the PD or the XRC domain its type needs.
 */
static int qp_args_of(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr,
		      struct qp_create_args *a, struct ibv_xrcd **xrcd)
{
	*a = (struct qp_create_args){
		.pd = attr->pd,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = &attr->cap,
		.qp_type = attr->qp_type,
		.ind_tbl = (attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) &&
			   attr->rwq_ind_tbl,
	};
	*xrcd = (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) ? attr->xrcd : NULL;

	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		/* The kernel takes the XRC domain in place of the PD. */
		if (!*xrcd)
			return EINVAL;
		a->pd = NULL;
		a->pd_handle = vcmd_xrcd_handle(*xrcd);
	} else {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
		    attr->pd->context != ctx)
			return EINVAL;
		a->pd_handle = attr->pd->handle;
	}
	if (attr->qp_type == IBV_QPT_XRC_SEND) {
		attr->cap.max_recv_wr = 0;
		attr->cap.max_recv_sge = 0;
	}
	return 0;
}

/*
 * The write() commands: the extended one where creation flags, an
 * indirection table or @extended ask for it, the legacy one otherwise.
 */
static int create_qp_write(struct ibv_context *ctx, struct ibv_qp *qp,
			   const struct qp_create_args *a,
			   const struct ibv_qp_init_attr_ex *attr,
			   bool extended, struct vcmd_udata *udata)
{
	bool flags = (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
		     attr->create_flags;

	/* The send-ops flags and TSO/RSS settings are the provider's. */
	if (flags || a->ind_tbl || extended)
		return create_qp_extended(ctx, qp, a, attr, udata);
	return create_qp_legacy(ctx, qp, a, attr->sq_sig_all, udata);
}

int vcmd_create_qp_ex(struct ibv_context *ctx, struct verbs_qp *qp,
		      struct ibv_qp_init_attr_ex *attr,
		      struct vcmd_udata *udata)
{
	struct qp_create_args a;
	struct ibv_xrcd *xrcd;
	int err = qp_args_of(ctx, attr, &a, &xrcd);

	if (err)
		return err;
	err = create_qp_write(ctx, &qp->qp, &a, attr, false, udata);
	if (!err)
		qp->xrcd = xrcd;
	return err;
}

#if IBV_RDMA_CORE_RELEASE >= 65
/* The creation flags rdma-core 65's QP_CREATE passes on (cmd_qp.c). */
#define QP_CREATE_IOCTL_FLAGS                                            \
	(IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_SCATTER_FCS | \
	 IBV_QP_CREATE_CVLAN_STRIPPING | IBV_QP_CREATE_SOURCE_QPN |      \
	 IBV_QP_CREATE_PCI_WRITE_END_PADDING)

_Static_assert(
	(int)IBV_QP_CREATE_BLOCK_SELF_MCAST_LB ==
			(int)IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK &&
		(int)IBV_QP_CREATE_SCATTER_FCS ==
			(int)IB_UVERBS_QP_CREATE_SCATTER_FCS &&
		(int)IBV_QP_CREATE_CVLAN_STRIPPING ==
			(int)IB_UVERBS_QP_CREATE_CVLAN_STRIPPING &&
		(int)IBV_QP_CREATE_PCI_WRITE_END_PADDING ==
			(int)IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING,
	"the verbs' creation flags are the kernel's bits");

/*
 * The kernel's flags for @attr (sq_sig_all among them, the source QPN an
 * attribute of its own), or EINVAL for a flag the method does not take.
 */
static int qp_ioctl_flags(const struct ibv_qp_init_attr_ex *attr,
			  uint32_t *flags)
{
	*flags = attr->sq_sig_all ? IB_UVERBS_QP_CREATE_SQ_SIG_ALL : 0;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS))
		return 0;
	if (attr->create_flags & ~QP_CREATE_IOCTL_FLAGS)
		return EINVAL;
	*flags |= attr->create_flags & ~IBV_QP_CREATE_SOURCE_QPN;
	return 0;
}

/*
 * The objects the QP is made of, as rdma-core 65's QP_CREATE names them:
 * an XRC target's domain; otherwise the PD and either the indirection
 * table (with the send CQ only for a send queue) or the send CQ and, but
 * for an XRC initiator, the receive CQ.
 */
static int add_qp_objects(struct vcmd_ioctl *c, const struct qp_create_args *a,
			  const struct ibv_qp_init_attr_ex *attr)
{
	uint32_t send, recv;
	int err = cq_handles(a, &send, &recv);

	if (err)
		return err;
	if (a->qp_type == IBV_QPT_XRC_RECV) {
		vcmd_attr_idr(c, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE,
			      a->pd_handle);
		return 0;
	}
	vcmd_attr_idr(c, UVERBS_ATTR_CREATE_QP_PD_HANDLE, a->pd_handle);
	if (a->ind_tbl) {
		/* An RSS QP receives through its table alone. */
		if (a->cap->max_recv_wr || a->cap->max_recv_sge || a->recv_cq ||
		    a->srq)
			return EINVAL;
		vcmd_attr_idr(c, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE,
			      attr->rwq_ind_tbl->ind_tbl_handle);
		if (a->cap->max_send_wr)
			vcmd_attr_idr(c, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE,
				      send);
		return 0;
	}
	vcmd_attr_idr(c, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, send);
	if (a->qp_type != IBV_QPT_XRC_SEND)
		vcmd_attr_idr(c, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, recv);
	return 0;
}

/*
 * UVERBS_METHOD_QP_CREATE with the plug-in's driver chain behind the
 * library's attributes (rdma-core 65's ibv_cmd_create_qp_ex2() sends the
 * same set).  0, a kernel errno, EINVAL for what the method refuses, or
 * ENOTTY / EPROTONOSUPPORT without the method or one of its attributes.
 */
static int create_qp_ioctl(struct ibv_context *ctx, struct ibv_qp *qp,
			   const struct qp_create_args *a,
			   const struct ibv_qp_init_attr_ex *attr,
			   const struct vcmd_udata *udata,
			   struct ibv_command_buffer *driver)
{
	struct ib_uverbs_qp_cap cap = {
		.max_send_wr = a->cap->max_send_wr,
		.max_recv_wr = a->cap->max_recv_wr,
		.max_send_sge = a->cap->max_send_sge,
		.max_recv_sge = a->cap->max_recv_sge,
		.max_inline_data = a->cap->max_inline_data,
	};
	struct ib_uverbs_qp_cap granted = {};
	struct ib_uverbs_create_qp_resp resp = {};
	struct ib_uverbs_attr *handle;
	struct vcmd_ioctl c;
	uint32_t flags, qpn = 0;
	int err;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE);
	handle = vcmd_attr_new_idr(&c, UVERBS_ATTR_CREATE_QP_HANDLE);
	err = add_qp_objects(&c, a, attr);
	if (!err)
		err = qp_ioctl_flags(attr, &flags);
	if (err)
		return err;
	vcmd_attr_in_u64(&c, UVERBS_ATTR_CREATE_QP_TYPE, a->qp_type);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_CREATE_QP_USER_HANDLE,
			 vcmd_user_handle(qp));
	vcmd_attr_in(&c, UVERBS_ATTR_CREATE_QP_CAP, &cap, sizeof(cap), true);
	if (ctx->async_fd != -1)
		vcmd_attr_fd(&c, UVERBS_ATTR_CREATE_QP_EVENT_FD, ctx->async_fd);
	if (flags)
		vcmd_attr_in_u32(&c, UVERBS_ATTR_CREATE_QP_FLAGS, flags);
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    (attr->create_flags & IBV_QP_CREATE_SOURCE_QPN))
		vcmd_attr_in_u32(&c, UVERBS_ATTR_CREATE_QP_SOURCE_QPN,
				 attr->source_qpn);
	if (a->srq)
		vcmd_attr_idr(&c, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE,
			      a->srq->handle);
	vcmd_attr_out(&c, UVERBS_ATTR_CREATE_QP_RESP_CAP, &granted,
		      sizeof(granted), true);
	vcmd_attr_out(&c, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, &qpn, sizeof(qpn),
		      true);
	vcmd_attr_udata(&c, udata);

	/* The kernel may report events as soon as the QP exists. */
	err = vcmd_events_init(&qp->mutex, &qp->cond);
	if (err)
		return err;
	err = vcmd_ioctl_link(ctx, &c, driver);
	if (err) {
		pthread_cond_destroy(&qp->cond);
		pthread_mutex_destroy(&qp->mutex);
		return err;
	}
	resp.qp_handle = vcmd_attr_handle(handle);
	resp.qpn = qpn;
	resp.max_send_wr = granted.max_send_wr;
	resp.max_recv_wr = granted.max_recv_wr;
	resp.max_send_sge = granted.max_send_sge;
	resp.max_recv_sge = granted.max_recv_sge;
	resp.max_inline_data = granted.max_inline_data;
	qp_created(ctx, qp, a, &resp);
	return 0;
}

/*
 * A plug-in's QP with its driver chain (@driver holds attributes): the
 * method, and on a kernel without it (or without an attribute sent) the
 * write() command, as rdma-core 65 falls back, where the chain allows it
 * (vcmd_chain_writable(): nothing in it the kernel must see) and the
 * context is this process's own; EOPNOTSUPP where not.
 */
static int create_qp_chain(struct ibv_context *ctx, struct verbs_qp *qp,
			   struct ibv_qp_init_attr_ex *attr,
			   struct vcmd_udata *udata,
			   struct ibv_command_buffer *driver)
{
	struct qp_create_args a;
	struct ibv_xrcd *xrcd;
	bool extended = false;
	int err = qp_args_of(ctx, attr, &a, &xrcd);

	if (err)
		return err;
	err = create_qp_ioctl(ctx, &qp->qp, &a, attr, udata, driver);
	if (err == ENOTTY || err == EPROTONOSUPPORT) {
		if (!vcmd_chain_writable(driver, &extended) ||
		    vcmd_ctx_imported(ctx))
			return EOPNOTSUPP;
		err = create_qp_write(ctx, &qp->qp, &a, attr, extended, udata);
	}
	if (!err)
		qp->xrcd = xrcd;
	return err;
}
#endif

int vcmd_open_qp(struct ibv_context *ctx, struct ibv_qp *qp,
		 const struct ibv_qp_open_attr *attr, uint32_t xrcd_handle,
		 struct vcmd_udata *udata)
{
	struct ib_uverbs_open_qp cmd = {
		.user_handle = vcmd_user_handle(qp),
		.pd_handle = xrcd_handle,
		.qpn = attr->qp_num,
		.qp_type = attr->qp_type,
	};
	struct ib_uverbs_create_qp_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_OPEN_QP,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err;

	err = vcmd_write_create_events(ctx, &req, &resp.qp_handle, discard_qp,
				       &qp->mutex, &qp->cond);
	if (err)
		return err;
	/* Another process's QP: none of its objects are ours. */
	qp->context = ctx;
	qp->qp_context = attr->qp_context;
	qp->pd = NULL;
	qp->send_cq = NULL;
	qp->recv_cq = NULL;
	qp->srq = NULL;
	qp->handle = resp.qp_handle;
	qp->qp_num = attr->qp_num;
	qp->qp_type = attr->qp_type;
	qp->state = IBV_QPS_UNKNOWN;
	qp->events_completed = 0;
	return 0;
}

static void ah_attr_from_dest(struct ibv_ah_attr *ah,
			      const struct ib_uverbs_qp_dest *d)
{
	memcpy(ah->grh.dgid.raw, d->dgid, sizeof(ah->grh.dgid.raw));
	ah->grh.flow_label = d->flow_label;
	ah->grh.sgid_index = d->sgid_index;
	ah->grh.hop_limit = d->hop_limit;
	ah->grh.traffic_class = d->traffic_class;
	ah->dlid = d->dlid;
	ah->sl = d->sl;
	ah->src_path_bits = d->src_path_bits;
	ah->static_rate = d->static_rate;
	ah->is_global = d->is_global;
	ah->port_num = d->port_num;
}

static void dest_from_ah_attr(struct ib_uverbs_qp_dest *d,
			      const struct ibv_ah_attr *ah)
{
	memcpy(d->dgid, ah->grh.dgid.raw, sizeof(d->dgid));
	d->flow_label = ah->grh.flow_label;
	d->sgid_index = ah->grh.sgid_index;
	d->hop_limit = ah->grh.hop_limit;
	d->traffic_class = ah->grh.traffic_class;
	d->dlid = ah->dlid;
	d->sl = ah->sl;
	d->src_path_bits = ah->src_path_bits;
	d->static_rate = ah->static_rate;
	d->is_global = ah->is_global;
	d->port_num = ah->port_num;
}

static void qp_attr_from_resp(struct ibv_qp_attr *a,
			      const struct ib_uverbs_query_qp_resp *r)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = r->qp_state;
	a->cur_qp_state = r->cur_qp_state;
	a->path_mtu = r->path_mtu;
	a->path_mig_state = r->path_mig_state;
	a->qkey = r->qkey;
	a->rq_psn = r->rq_psn;
	a->sq_psn = r->sq_psn;
	a->dest_qp_num = r->dest_qp_num;
	a->qp_access_flags = r->qp_access_flags;
	a->cap.max_send_wr = r->max_send_wr;
	a->cap.max_recv_wr = r->max_recv_wr;
	a->cap.max_send_sge = r->max_send_sge;
	a->cap.max_recv_sge = r->max_recv_sge;
	a->cap.max_inline_data = r->max_inline_data;
	ah_attr_from_dest(&a->ah_attr, &r->dest);
	ah_attr_from_dest(&a->alt_ah_attr, &r->alt_dest);
	a->pkey_index = r->pkey_index;
	a->alt_pkey_index = r->alt_pkey_index;
	a->sq_draining = r->sq_draining;
	a->max_rd_atomic = r->max_rd_atomic;
	a->max_dest_rd_atomic = r->max_dest_rd_atomic;
	a->min_rnr_timer = r->min_rnr_timer;
	a->port_num = r->port_num;
	a->timeout = r->timeout;
	a->retry_cnt = r->retry_cnt;
	a->rnr_retry = r->rnr_retry;
	a->alt_port_num = r->alt_port_num;
	a->alt_timeout = r->alt_timeout;
}

int vcmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr)
{
	struct ib_uverbs_query_qp cmd = {
		.qp_handle = qp->handle,
		.attr_mask = attr_mask,
	};
	struct ib_uverbs_query_qp_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_QUERY_QP,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
	};
	int err = vcmd_write_ctx(qp->context, &req);

	if (err)
		return err;
	qp_attr_from_resp(attr, &resp);
	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = qp->qp_type;
		init_attr->sq_sig_all = resp.sq_sig_all;
	}
	return 0;
}

/* The legacy command body: only the fields @mask names are sent. */
static void modify_qp_body(struct ib_uverbs_modify_qp *c,
			   const struct ibv_qp_attr *a, int mask)
{
	if (mask & IBV_QP_STATE)
		c->qp_state = a->qp_state;
	if (mask & IBV_QP_CUR_STATE)
		c->cur_qp_state = a->cur_qp_state;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		c->en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & IBV_QP_ACCESS_FLAGS)
		c->qp_access_flags = a->qp_access_flags;
	if (mask & IBV_QP_PKEY_INDEX)
		c->pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT)
		c->port_num = a->port_num;
	if (mask & IBV_QP_QKEY)
		c->qkey = a->qkey;
	if (mask & IBV_QP_AV)
		dest_from_ah_attr(&c->dest, &a->ah_attr);
	if (mask & IBV_QP_PATH_MTU)
		c->path_mtu = a->path_mtu;
	if (mask & IBV_QP_TIMEOUT)
		c->timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		c->retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		c->rnr_retry = a->rnr_retry;
	if (mask & IBV_QP_RQ_PSN)
		c->rq_psn = a->rq_psn;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		c->max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_ALT_PATH) {
		dest_from_ah_attr(&c->alt_dest, &a->alt_ah_attr);
		c->alt_pkey_index = a->alt_pkey_index;
		c->alt_port_num = a->alt_port_num;
		c->alt_timeout = a->alt_timeout;
	}
	if (mask & IBV_QP_MIN_RNR_TIMER)
		c->min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_SQ_PSN)
		c->sq_psn = a->sq_psn;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		c->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_PATH_MIG_STATE)
		c->path_mig_state = a->path_mig_state;
	if (mask & IBV_QP_DEST_QPN)
		c->dest_qp_num = a->dest_qp_num;
}

static int modify_qp_legacy(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			    int attr_mask, struct vcmd_udata *udata)
{
	struct ib_uverbs_modify_qp cmd = {
		.qp_handle = qp->handle,
		.attr_mask = attr_mask,
	};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_MODIFY_QP,
		VCMD_REQ_CORE(cmd),
		.udata = udata,
	};

	modify_qp_body(&cmd, attr, attr_mask);
	return vcmd_write_ctx(qp->context, &req);
}

/* Attribute bits past IBV_QP_DEST_QPN (the rate limit) need this one. */
static int modify_qp_extended(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			      int attr_mask, struct vcmd_udata *udata)
{
	struct ib_uverbs_ex_modify_qp cmd = {
		.base.qp_handle = qp->handle,
		.base.attr_mask = attr_mask,
	};
	struct ib_uverbs_ex_modify_qp_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_MODIFY_QP,
		.extended = true,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};

	modify_qp_body(&cmd.base, attr, attr_mask);
	if (attr_mask & IBV_QP_RATE_LIMIT)
		cmd.rate_limit = attr->rate_limit;
	return vcmd_write_ctx(qp->context, &req);
}

int vcmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask, struct vcmd_udata *udata)
{
	int err;

	if (attr_mask & ~LEGACY_QP_ATTR_MASK)
		err = modify_qp_extended(qp, attr, attr_mask, udata);
	else
		err = modify_qp_legacy(qp, attr, attr_mask, udata);
	if (err)
		return err;
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

int vcmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct vcmd_udata *udata)
{
	int err = modify_qp_extended(qp, attr, attr_mask, udata);

	if (!err && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return err;
}

int vcmd_destroy_qp(struct ibv_qp *qp)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	int err;

	/* In a fork child the kernel object is the parent's: send nothing. */
	if (verbs_inherited_strict(qp->context))
		return 0;

	err = destroy_qp_handle(qp->context, qp->handle, &resp);
	if (err)
		return err;
	vcmd_events_drain(&qp->mutex, &qp->cond, &qp->events_completed,
			  resp.events_reported, NULL, 0);
	return 0;
}

int vcmd_post_send_doorbell(struct ibv_qp *qp)
{
	struct ib_uverbs_post_send cmd = {
		.qp_handle = qp->handle,
		.wr_count = 0,
		.sge_count = 0,
		.wqe_size = sizeof(struct ib_uverbs_send_wr),
	};
	struct ib_uverbs_post_send_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_POST_SEND,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
	};

	return vcmd_write_ctx(qp->context, &req);
}

#define DOORBELL_FIELD(f)                                                    \
	_Static_assert(offsetof(struct vcmd_doorbell, f) ==                  \
			       sizeof(struct ib_uverbs_cmd_hdr) +            \
				       offsetof(struct ib_uverbs_post_send, f), \
		       "doorbell " #f)
DOORBELL_FIELD(response);
DOORBELL_FIELD(qp_handle);
DOORBELL_FIELD(wr_count);
DOORBELL_FIELD(sge_count);
DOORBELL_FIELD(wqe_size);
_Static_assert(VCMD_DOORBELL_LEN == sizeof(struct ib_uverbs_cmd_hdr) +
					    sizeof(struct ib_uverbs_post_send),
	       "doorbell length");

void vcmd_doorbell_init(struct vcmd_doorbell *db, struct ibv_qp *qp)
{
	memset(db, 0, sizeof(*db));
	db->hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	db->hdr.in_words = VCMD_DOORBELL_LEN / 4;
	db->hdr.out_words = sizeof(struct ib_uverbs_post_send_resp) / 4;
	db->response = (uintptr_t)&db->bad_wr;
	db->qp_handle = qp->handle;
	db->wqe_size = sizeof(struct ib_uverbs_send_wr);
	db->fd = vcmd_ctx_imported(qp->context) ? -1 : qp->context->cmd_fd;
}

/*
 * The post commands: the core command, then wr_count work requests of
 * wqe_size bytes each, then all their scatter/gather entries, which have
 * the layout of struct ibv_sge.  The work requests travel as the
 * command's private part, which may be larger than the stack allows.
 * The kernel names the first one it did not post by its 1-based index.
 */
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct ib_uverbs_sge),
	       "sge layout");

struct post_buf {
	void *buf;
	size_t len;
	uint32_t wr_count;
	uint32_t sge_count;
	/* More than one command can carry: the counts stopped growing. */
	bool too_big;
};

/*
 * Count one work request (@num_sge >= 0).  The totals are checked as they
 * grow: summed unchecked, the application's num_sge values could wrap
 * them around to a buffer smaller than the lists then copied into it.
 */
static void post_buf_count(struct post_buf *p, size_t wqe_size, int num_sge)
{
	const uint32_t max_sge = VCMD_MAX_UDATA_IN / sizeof(struct ibv_sge);

	if (p->too_big || p->wr_count >= VCMD_MAX_UDATA_IN / wqe_size ||
	    (uint32_t)num_sge > max_sge - p->sge_count) {
		p->too_big = true;
		return;
	}
	p->wr_count++;
	p->sge_count += num_sge;
}

static int post_buf_alloc(struct post_buf *p, size_t wqe_size)
{
	if (p->too_big || p->wr_count > VCMD_MAX_UDATA_IN / wqe_size ||
	    p->sge_count > VCMD_MAX_UDATA_IN / sizeof(struct ibv_sge))
		return ENOMEM;
	p->len = p->wr_count * wqe_size +
		 p->sge_count * sizeof(struct ibv_sge);
	if (p->len > VCMD_MAX_UDATA_IN)
		return ENOMEM;
	p->buf = calloc(1, p->len ? p->len : 1);
	return p->buf ? 0 : ENOMEM;
}

/* Which work request *bad_wr must name after a failed post. */
static unsigned int post_bad_index(int err, uint32_t bad_wr)
{
	if (bad_wr)
		return bad_wr - 1;
	return err ? 0 : UINT32_MAX;
}

static void send_wr_to_uverbs(struct ib_uverbs_send_wr *k,
			      const struct ibv_send_wr *w,
			      enum ibv_qp_type type)
{
	k->wr_id = w->wr_id;
	k->num_sge = w->num_sge;
	k->opcode = w->opcode;
	k->send_flags = w->send_flags;
	k->ex.imm_data = w->imm_data;
	if (type == IBV_QPT_UD) {
		k->wr.ud.ah = w->wr.ud.ah->handle;
		k->wr.ud.remote_qpn = w->wr.ud.remote_qpn;
		k->wr.ud.remote_qkey = w->wr.ud.remote_qkey;
		return;
	}
	switch (w->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		k->wr.rdma.remote_addr = w->wr.rdma.remote_addr;
		k->wr.rdma.rkey = w->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		k->wr.atomic.remote_addr = w->wr.atomic.remote_addr;
		k->wr.atomic.compare_add = w->wr.atomic.compare_add;
		k->wr.atomic.swap = w->wr.atomic.swap;
		k->wr.atomic.rkey = w->wr.atomic.rkey;
		break;
	default:
		break;
	}
}

int vcmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct post_buf p = {};
	struct ib_uverbs_post_send cmd = {
		.qp_handle = qp->handle,
		.wqe_size = sizeof(struct ib_uverbs_send_wr),
	};
	struct ib_uverbs_post_send_resp resp = {};
	struct vcmd_udata u = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_POST_SEND,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = &u,
	};
	struct ib_uverbs_send_wr *k;
	struct ibv_send_wr *w;
	struct ibv_sge *sge;
	unsigned int bad;
	int err;

	for (w = wr; w; w = w->next) {
		if (w->num_sge < 0 ||
		    (qp->qp_type == IBV_QPT_UD && !w->wr.ud.ah)) {
			*bad_wr = w;
			return EINVAL;
		}
		post_buf_count(&p, sizeof(*k), w->num_sge);
	}
	err = post_buf_alloc(&p, sizeof(*k));
	if (err) {
		*bad_wr = wr;
		return err;
	}
	k = p.buf;
	sge = (struct ibv_sge *)(k + p.wr_count);
	for (w = wr; w; w = w->next, k++) {
		send_wr_to_uverbs(k, w, qp->qp_type);
		memcpy(sge, w->sg_list, w->num_sge * sizeof(*sge));
		sge += w->num_sge;
	}
	cmd.wr_count = p.wr_count;
	cmd.sge_count = p.sge_count;
	u.in = p.buf;
	u.in_len = p.len;
	err = vcmd_write_ctx(qp->context, &req);
	free(p.buf);

	bad = post_bad_index(err, resp.bad_wr);
	for (w = wr; w && bad && bad != UINT32_MAX; bad--)
		w = w->next;
	if (bad != UINT32_MAX)
		*bad_wr = w ? w : wr;
	return err;
}

/* The receive work requests of POST_RECV and POST_SRQ_RECV. */
static int recv_wrs(struct ibv_recv_wr *wr, struct post_buf *p,
		    struct ibv_recv_wr **bad_wr)
{
	struct ib_uverbs_recv_wr *k;
	struct ibv_recv_wr *w;
	struct ibv_sge *sge;
	int err;

	for (w = wr; w; w = w->next) {
		if (w->num_sge < 0) {
			*bad_wr = w;
			return EINVAL;
		}
		post_buf_count(p, sizeof(*k), w->num_sge);
	}
	err = post_buf_alloc(p, sizeof(*k));
	if (err) {
		*bad_wr = wr;
		return err;
	}
	k = p->buf;
	sge = (struct ibv_sge *)(k + p->wr_count);
	for (w = wr; w; w = w->next, k++) {
		k->wr_id = w->wr_id;
		k->num_sge = w->num_sge;
		memcpy(sge, w->sg_list, w->num_sge * sizeof(*sge));
		sge += w->num_sge;
	}
	return 0;
}

static int post_recv_cmd(struct ibv_context *ctx, uint32_t command,
			 uint32_t handle, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	struct post_buf p = {};
	/* POST_RECV and POST_SRQ_RECV have the same layout. */
	struct ib_uverbs_post_recv cmd = {
		.qp_handle = handle,
		.wqe_size = sizeof(struct ib_uverbs_recv_wr),
	};
	struct ib_uverbs_post_recv_resp resp = {};
	struct vcmd_udata u = {};
	struct vcmd_write_req req = {
		.command = command,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = &u,
	};
	struct ibv_recv_wr *w;
	unsigned int bad;
	int err = recv_wrs(wr, &p, bad_wr);

	if (err)
		return err;
	cmd.wr_count = p.wr_count;
	cmd.sge_count = p.sge_count;
	u.in = p.buf;
	u.in_len = p.len;
	err = vcmd_write_ctx(ctx, &req);
	free(p.buf);

	bad = post_bad_index(err, resp.bad_wr);
	for (w = wr; w && bad && bad != UINT32_MAX; bad--)
		w = w->next;
	if (bad != UINT32_MAX)
		*bad_wr = w ? w : wr;
	return err;
}

_Static_assert(sizeof(struct ib_uverbs_post_recv) ==
			       sizeof(struct ib_uverbs_post_srq_recv) &&
		       offsetof(struct ib_uverbs_post_recv, qp_handle) ==
			       offsetof(struct ib_uverbs_post_srq_recv,
					srq_handle) &&
		       sizeof(struct ib_uverbs_post_recv_resp) ==
			       sizeof(struct ib_uverbs_post_srq_recv_resp),
	       "post recv command layout");

int vcmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	return post_recv_cmd(qp->context, IB_USER_VERBS_CMD_POST_RECV,
			     qp->handle, wr, bad_wr);
}

int vcmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	return post_recv_cmd(srq->context, IB_USER_VERBS_CMD_POST_SRQ_RECV,
			     srq->handle, wr, bad_wr);
}

/* The provider ABI (kern_abi.h). */

/* Attribute bits from IBV_QP_RATE_LIMIT on need the extended command. */
#define QP_ATTR_EX_ONLY (~(IBV_QP_RATE_LIMIT - 1))

IBV_EXPORT int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
				 struct ibv_qp_init_attr *attr,
				 struct ibv_create_qp *cmd, size_t cmd_size,
				 struct ib_uverbs_create_qp_resp *resp,
				 size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(pd->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	/* A plug-in may embed a bare struct ibv_qp: only that is set. */
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	err = vcmd_create_qp_plain(pd, qp, attr, &u);
	if (!err)
		qp->qp_context = attr->qp_context;
	return vcmd_set_errno(err);
}

/* What a plug-in's new QP gets beyond what the kernel answered. */
static void plugin_qp_created(struct verbs_qp *qp,
			      const struct ibv_qp_init_attr_ex *attr)
{
	qp->qp.qp_context = attr->qp_context;
	/* rdma-core 44 starts the mask afresh; a plug-in adds VERBS_QP_EX. */
	qp->comp_mask = qp->xrcd ? VERBS_QP_XRCD : 0;
}

static int plugin_create_qp_ex(struct ibv_context *context,
			       struct verbs_qp *qp,
			       struct ibv_qp_init_attr_ex *attr,
			       struct vcmd_udata *u)
{
	int err = vcmd_create_qp_ex(context, qp, attr, u);

	if (!err)
		plugin_qp_created(qp, attr);
	return err;
}

IBV_EXPORT int ibv_cmd_create_qp_ex(struct ibv_context *context,
				    struct verbs_qp *qp,
				    struct ibv_qp_init_attr_ex *attr_ex,
				    struct ibv_create_qp *cmd, size_t cmd_size,
				    struct ib_uverbs_create_qp_resp *resp,
				    size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (attr_ex->comp_mask &
	    ~(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
	      IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return vcmd_set_errno(EINVAL);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(plugin_create_qp_ex(context, qp, attr_ex, &u));
}

IBV_EXPORT int
ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
		      struct ibv_qp_init_attr_ex *qp_attr,
		      struct ibv_create_qp_ex *cmd, size_t cmd_size,
		      struct ib_uverbs_ex_create_qp_resp *resp,
#if IBV_RDMA_CORE_RELEASE >= 65
		      size_t resp_size, struct ibv_command_buffer *driver)
#else
		      size_t resp_size)
#endif
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (qp_attr->comp_mask &
	    ~(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
	      IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_MAX_TSO_HEADER |
	      IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH |
	      IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return vcmd_set_errno(EINVAL);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
#if IBV_RDMA_CORE_RELEASE >= 65
	/*
	 * rdma-core 65 added @driver, the plug-in's attributes for the
	 * QP_CREATE method (mlx5: its QP buffers in a dma-buf).  Without any
	 * the QP is made as before, with the write() command.
	 */
	if (driver && __ioctl_final_num_attrs(0, driver)) {
		err = create_qp_chain(context, qp, qp_attr, &u, driver);
		if (!err)
			plugin_qp_created(qp, qp_attr);
		return vcmd_set_errno(err);
	}
#endif
	return vcmd_set_errno(plugin_create_qp_ex(context, qp, qp_attr, &u));
}

IBV_EXPORT int ibv_cmd_open_qp(struct ibv_context *context,
			       struct verbs_qp *qp, int vqp_sz,
			       struct ibv_qp_open_attr *attr,
			       struct ibv_open_qp *cmd, size_t cmd_size,
			       struct ib_uverbs_create_qp_resp *resp,
			       size_t resp_size)
{
	const uint32_t needed = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM |
				IBV_QP_OPEN_ATTR_TYPE;
	struct vcmd_udata u;
	int err = verbs_inherited_strict(context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED)
		return vcmd_set_errno(EOPNOTSUPP);
	if ((attr->comp_mask & needed) != needed || !attr->xrcd)
		return vcmd_set_errno(EINVAL);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	err = vcmd_open_qp(context, &qp->qp, attr,
			   vcmd_xrcd_handle(attr->xrcd), &u);
	if (err)
		return vcmd_set_errno(err);
	/* A plug-in's QP struct may end before the XRC fields. */
	if (vqp_sz >= 0 && (size_t)vqp_sz >= offsetof(struct verbs_qp, xrcd) +
						     sizeof(qp->xrcd)) {
		qp->comp_mask = VERBS_QP_XRCD;
		qp->xrcd = attr->xrcd;
	} else if (vqp_sz >= 0 &&
		   (size_t)vqp_sz >= offsetof(struct verbs_qp, comp_mask) +
					     sizeof(qp->comp_mask)) {
		qp->comp_mask = 0;
	}
	return 0;
}

IBV_EXPORT int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				int attr_mask,
				struct ibv_qp_init_attr *init_attr,
				struct ibv_query_qp *cmd, size_t cmd_size)
{
	int err = verbs_inherited_strict(qp->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (attr_mask & QP_ATTR_EX_ONLY)
		return vcmd_set_errno(EOPNOTSUPP);
	return vcmd_set_errno(vcmd_query_qp(qp, attr, attr_mask, init_attr));
}

IBV_EXPORT int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				 int attr_mask, struct ibv_modify_qp *cmd,
				 size_t cmd_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(qp->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (attr_mask & QP_ATTR_EX_ONLY)
		return vcmd_set_errno(EOPNOTSUPP);
	vcmd_plugin_udata(&u, cmd, sizeof(*cmd), cmd_size, NULL, 0, 0);
	return vcmd_set_errno(vcmd_modify_qp(qp, attr, attr_mask, &u));
}

IBV_EXPORT int ibv_cmd_modify_qp_ex(struct ibv_qp *qp,
				    struct ibv_qp_attr *attr, int attr_mask,
				    struct ibv_modify_qp_ex *cmd,
				    size_t cmd_size,
				    struct ib_uverbs_ex_modify_qp_resp *resp,
				    size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(qp->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	/* The rate limit lives in the command; a short one has no room. */
	if ((attr_mask & IBV_QP_RATE_LIMIT) &&
	    cmd_size < offsetof(struct ibv_modify_qp_ex,
				core_payload.rate_limit) +
			       sizeof(cmd->core_payload.rate_limit))
		return vcmd_set_errno(EINVAL);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(vcmd_modify_qp_ex(qp, attr, attr_mask, &u));
}

IBV_EXPORT int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	return vcmd_destroy_errno(vcmd_destroy_qp(qp));
}

IBV_EXPORT int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				 struct ibv_send_wr **bad_wr)
{
	int err = verbs_inherited_strict(ibqp->context) ? EPERM : 0;

	if (err) {
		*bad_wr = wr;
		return vcmd_set_errno(err);
	}
	return vcmd_set_errno(vcmd_post_send(ibqp, wr, bad_wr));
}

IBV_EXPORT int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				 struct ibv_recv_wr **bad_wr)
{
	int err = verbs_inherited_strict(ibqp->context) ? EPERM : 0;

	if (err) {
		*bad_wr = wr;
		return vcmd_set_errno(err);
	}
	return vcmd_set_errno(vcmd_post_recv(ibqp, wr, bad_wr));
}
