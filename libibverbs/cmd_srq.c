// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: CREATE_SRQ / CREATE_XSRQ, MODIFY_SRQ, QUERY_SRQ
 * and DESTROY_SRQ write() commands.
 *
 * An SRQ's user handle is the address of its struct ibv_srq, which
 * asynchronous events carry back.  XRC SRQs need an XRC domain, which
 * only a plug-in opens (ibv_cmd_open_xrcd()).
 */
#include "cmd_transport.h"

static int destroy_srq_handle(struct ibv_context *ctx, uint32_t handle,
			      struct ib_uverbs_destroy_srq_resp *resp)
{
	struct ib_uverbs_destroy_srq cmd = { .srq_handle = handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_DESTROY_SRQ,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(*resp),
	};

	return vcmd_write_ctx(ctx, &req);
}

/* A vcmd_destroy_fn: an SRQ that never reached the caller had no events. */
static int discard_srq(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_destroy_srq_resp resp;

	return destroy_srq_handle(ctx, handle, &resp);
}

/*
 * Issue @req (CREATE_SRQ or CREATE_XSRQ, both answered by struct
 * ib_uverbs_create_srq_resp) and fill @srq and the granted sizes.
 */
static int create_srq(struct ibv_pd *pd, struct vcmd_write_req *req,
		      struct ib_uverbs_create_srq_resp *resp,
		      struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_context *ctx = pd ? pd->context : srq->context;
	int err;

	err = vcmd_write_create_events(ctx, req, &resp->srq_handle,
				       discard_srq, &srq->mutex, &srq->cond);
	if (err)
		return err;
	srq->context = ctx;
	srq->pd = pd;
	srq->handle = resp->srq_handle;
	srq->events_completed = 0;
	attr->max_wr = resp->max_wr;
	attr->max_sge = resp->max_sge;
	return 0;
}

static int create_srq_basic(struct ibv_pd *pd, struct ibv_srq *srq,
			    struct ibv_srq_attr *attr,
			    struct vcmd_udata *udata, uint32_t *srqn)
{
	struct ib_uverbs_create_srq cmd = {
		.user_handle = vcmd_user_handle(srq),
		.pd_handle = pd->handle,
		.max_wr = attr->max_wr,
		.max_sge = attr->max_sge,
		.srq_limit = attr->srq_limit,
	};
	struct ib_uverbs_create_srq_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_CREATE_SRQ,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err = create_srq(pd, &req, &resp, srq, attr);

	if (!err)
		*srqn = resp.srqn;
	return err;
}

static int create_vsrq_basic(struct ibv_pd *pd, struct verbs_srq *vsrq,
			     struct ibv_srq_attr *attr,
			     struct vcmd_udata *udata)
{
	int err = create_srq_basic(pd, &vsrq->srq, attr, udata,
				   &vsrq->srq_num);

	if (err)
		return err;
	vsrq->srq_type = IBV_SRQT_BASIC;
	vsrq->xrcd = NULL;
	vsrq->cq = NULL;
	return 0;
}

int vcmd_create_srq(struct ibv_pd *pd, struct verbs_srq *srq,
		    struct ibv_srq_init_attr *attr, struct vcmd_udata *udata)
{
	return create_vsrq_basic(pd, srq, &attr->attr, udata);
}

int vcmd_create_srq_plain(struct ibv_pd *pd, struct ibv_srq *srq,
			  struct ibv_srq_init_attr *attr,
			  struct vcmd_udata *udata)
{
	uint32_t srqn;

	return create_srq_basic(pd, srq, &attr->attr, udata, &srqn);
}

/*
 * A tag-matching SRQ (with its CQ and list size) or an XRC SRQ (with its
 * CQ and XRC domain): CREATE_XSRQ.
 */
static int create_srq_x(struct verbs_srq *vsrq,
			struct ibv_srq_init_attr_ex *attr, uint32_t type,
			struct vcmd_udata *udata)
{
	struct ib_uverbs_create_xsrq cmd = {
		.user_handle = vcmd_user_handle(&vsrq->srq),
		.srq_type = type,
		.pd_handle = attr->pd->handle,
		.max_wr = attr->attr.max_wr,
		.max_sge = attr->attr.max_sge,
		.srq_limit = attr->attr.srq_limit,
		.cq_handle = attr->cq->handle,
	};
	struct ib_uverbs_create_srq_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_CREATE_XSRQ,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err;

	if (type == IB_UVERBS_SRQT_TM)
		cmd.max_num_tags = attr->tm_cap.max_num_tags;
	else
		cmd.xrcd_handle = vcmd_xrcd_handle(attr->xrcd);
	err = create_srq(attr->pd, &req, &resp, &vsrq->srq, &attr->attr);
	if (err)
		return err;
	vsrq->srq_type = type == IB_UVERBS_SRQT_TM ? IBV_SRQT_TM : IBV_SRQT_XRC;
	vsrq->xrcd = type == IB_UVERBS_SRQT_TM ? NULL : attr->xrcd;
	vsrq->cq = attr->cq;
	vsrq->srq_num = resp.srqn;
	return 0;
}

int vcmd_create_srq_ex(struct ibv_context *ctx, struct verbs_srq *srq,
		       struct ibv_srq_init_attr_ex *attr,
		       struct vcmd_udata *udata)
{
	enum ibv_srq_type type = IBV_SRQT_BASIC;

	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx)
		return EINVAL;
	switch (type) {
	case IBV_SRQT_BASIC:
		return create_vsrq_basic(attr->pd, srq, &attr->attr, udata);
	case IBV_SRQT_TM:
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq ||
		    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_TM))
			return EINVAL;
		return create_srq_x(srq, attr, IB_UVERBS_SRQT_TM, udata);
	case IBV_SRQT_XRC:
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq ||
		    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd)
			return EINVAL;
		return create_srq_x(srq, attr, IB_UVERBS_SRQT_XRC, udata);
	default:
		return EINVAL;
	}
}

int vcmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		    int attr_mask, struct vcmd_udata *udata)
{
	struct ib_uverbs_modify_srq cmd = {
		.srq_handle = srq->handle,
		.attr_mask = attr_mask,
	};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_MODIFY_SRQ,
		VCMD_REQ_CORE(cmd),
		.udata = udata,
	};

	if (attr_mask & IBV_SRQ_MAX_WR)
		cmd.max_wr = attr->max_wr;
	if (attr_mask & IBV_SRQ_LIMIT)
		cmd.srq_limit = attr->srq_limit;
	/* MODIFY_SRQ has no response, so no room for the provider's. */
	return vcmd_write_ctx(srq->context, &req);
}

int vcmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ib_uverbs_query_srq cmd = { .srq_handle = srq->handle };
	struct ib_uverbs_query_srq_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_QUERY_SRQ,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
	};
	int err = vcmd_write_ctx(srq->context, &req);

	if (err)
		return err;
	attr->max_wr = resp.max_wr;
	attr->max_sge = resp.max_sge;
	attr->srq_limit = resp.srq_limit;
	return 0;
}

int vcmd_destroy_srq(struct ibv_srq *srq)
{
	struct ib_uverbs_destroy_srq_resp resp = {};
	int err;

	/* In a fork child the kernel object is the parent's: send nothing. */
	if (verbs_inherited_strict(srq->context))
		return 0;

	err = destroy_srq_handle(srq->context, srq->handle, &resp);
	if (err)
		return err;
	vcmd_events_drain(&srq->mutex, &srq->cond, &srq->events_completed,
			  resp.events_reported, NULL, 0);
	return 0;
}

/* The provider ABI (kern_abi.h). */

IBV_EXPORT int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
				  struct ibv_srq_init_attr *attr,
				  struct ibv_create_srq *cmd, size_t cmd_size,
				  struct ib_uverbs_create_srq_resp *resp,
				  size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(pd->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	/* A plug-in may embed a bare struct ibv_srq: only that is set. */
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(vcmd_create_srq_plain(pd, srq, attr, &u));
}

IBV_EXPORT int ibv_cmd_create_srq_ex(struct ibv_context *context,
				     struct verbs_srq *srq,
				     struct ibv_srq_init_attr_ex *attr_ex,
				     struct ibv_create_xsrq *cmd,
				     size_t cmd_size,
				     struct ib_uverbs_create_srq_resp *resp,
				     size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (attr_ex->comp_mask >= IBV_SRQ_INIT_ATTR_RESERVED)
		return vcmd_set_errno(EOPNOTSUPP);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(vcmd_create_srq_ex(context, srq, attr_ex, &u));
}

IBV_EXPORT int ibv_cmd_modify_srq(struct ibv_srq *srq,
				  struct ibv_srq_attr *srq_attr,
				  int srq_attr_mask,
				  struct ibv_modify_srq *cmd, size_t cmd_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(srq->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	vcmd_plugin_udata(&u, cmd, sizeof(*cmd), cmd_size, NULL, 0, 0);
	return vcmd_set_errno(
		vcmd_modify_srq(srq, srq_attr, srq_attr_mask, &u));
}

IBV_EXPORT int ibv_cmd_query_srq(struct ibv_srq *srq,
				 struct ibv_srq_attr *srq_attr,
				 struct ibv_query_srq *cmd, size_t cmd_size)
{
	int err = verbs_inherited_strict(srq->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	return vcmd_set_errno(vcmd_query_srq(srq, srq_attr));
}

IBV_EXPORT int ibv_cmd_destroy_srq(struct ibv_srq *srq)
{
	return vcmd_destroy_errno(vcmd_destroy_srq(srq));
}

IBV_EXPORT int ibv_cmd_post_srq_recv(struct ibv_srq *srq,
				     struct ibv_recv_wr *wr,
				     struct ibv_recv_wr **bad_wr)
{
	int err = verbs_inherited_strict(srq->context) ? EPERM : 0;

	if (err) {
		*bad_wr = wr;
		return vcmd_set_errno(err);
	}
	return vcmd_set_errno(vcmd_post_srq_recv(srq, wr, bad_wr));
}
