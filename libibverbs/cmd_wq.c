// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Work queues and receive indirection tables, for provider plug-ins.
 *
 * As rdma-core 44 does: a WQ is created with the ioctl method
 * UVERBS_METHOD_WQ_CREATE (the plug-in's request and response tails as
 * UHW_IN / UHW_OUT), falling back to the extended write() command where
 * the kernel lacks the method, and destroyed likewise; modifying a WQ and
 * creating a table exist only as extended write() commands.  The WQ's
 * event mutex and condition variable are set up before the kernel can
 * report an event for it, and destroying it waits until every event the
 * kernel reported has been acknowledged.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd_transport.h"
#include "provider_cmd.h"

/* Undo a create whose answer was lost (short write). */
static int destroy_wq_handle(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_ex_destroy_wq cmd = { .wq_handle = handle };
	struct ib_uverbs_ex_destroy_wq_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_DESTROY_WQ,
		.extended = true,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
	};

	return vcmd_write_ctx(ctx, &req);
}

static int create_wq_write(struct ibv_context *ctx,
			   const struct ibv_wq_init_attr *attr,
			   struct ibv_wq *wq, struct vcmd_udata *udata,
			   struct ib_uverbs_ex_create_wq_resp *resp)
{
	struct ib_uverbs_ex_create_wq cmd = {
		.wq_type = attr->wq_type,
		.user_handle = vcmd_user_handle(wq),
		.pd_handle = attr->pd->handle,
		.cq_handle = attr->cq->handle,
		.max_wr = attr->max_wr,
		.max_sge = attr->max_sge,
		.create_flags = attr->create_flags,
	};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_CREATE_WQ,
		.extended = true,
		VCMD_REQ_CORE(cmd),
		.resp = resp,
		.resp_len = sizeof(*resp),
		.udata = udata,
	};

	return vcmd_write_create(ctx, &req, &resp->wq_handle,
				 destroy_wq_handle);
}

static int create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr,
		     struct ibv_wq *wq, struct vcmd_udata *udata,
		     struct ib_uverbs_ex_create_wq_resp *resp)
{
	uint32_t max_wr = 0, max_sge = 0, wq_num = 0, flags = 0;
	struct ib_uverbs_attr *handle;
	struct vcmd_ioctl c;
	int err;

	if (attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) {
		if (attr->create_flags & ~(IBV_WQ_FLAGS_RESERVED - 1))
			return EOPNOTSUPP;
		flags = attr->create_flags;
	}

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE);
	handle = vcmd_attr_new_idr(&c, UVERBS_ATTR_CREATE_WQ_HANDLE);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_CREATE_WQ_USER_HANDLE,
			 vcmd_user_handle(wq));
	vcmd_attr_idr(&c, UVERBS_ATTR_CREATE_WQ_PD_HANDLE, attr->pd->handle);
	vcmd_attr_idr(&c, UVERBS_ATTR_CREATE_WQ_CQ_HANDLE, attr->cq->handle);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_CREATE_WQ_TYPE, attr->wq_type);
	vcmd_attr_in_u32(&c, UVERBS_ATTR_CREATE_WQ_MAX_WR, attr->max_wr);
	vcmd_attr_in_u32(&c, UVERBS_ATTR_CREATE_WQ_MAX_SGE, attr->max_sge);
	if (ctx->async_fd != -1)
		vcmd_attr_fd(&c, UVERBS_ATTR_CREATE_WQ_EVENT_FD, ctx->async_fd);
	vcmd_attr_in_u32(&c, UVERBS_ATTR_CREATE_WQ_FLAGS, flags);
	vcmd_attr_out(&c, UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR, &max_wr,
		      sizeof(max_wr), true);
	vcmd_attr_out(&c, UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE, &max_sge,
		      sizeof(max_sge), true);
	vcmd_attr_out(&c, UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM, &wq_num,
		      sizeof(wq_num), true);
	vcmd_attr_udata(&c, udata);

	err = vcmd_ioctl_ctx(ctx, &c);
	if (err == EPROTONOSUPPORT || err == ENOTTY) {
		/* rdma-core: an imported context has no write() fallback. */
		if (verbs_get_ctx(ctx)->priv && verbs_priv(ctx)->imported)
			return EOPNOTSUPP;
		err = create_wq_write(ctx, attr, wq, udata, resp);
		if (err)
			return err;
		wq->handle = resp->wq_handle;
		wq->wq_num = resp->wqn;
		attr->max_wr = resp->max_wr;
		attr->max_sge = resp->max_sge;
		return 0;
	}
	if (err)
		return err;
	wq->handle = vcmd_attr_handle(handle);
	wq->wq_num = wq_num;
	attr->max_wr = max_wr;
	attr->max_sge = max_sge;
	return 0;
}

IBV_EXPORT int ibv_cmd_create_wq(struct ibv_context *context,
				 struct ibv_wq_init_attr *wq_init_attr,
				 struct ibv_wq *wq, struct ibv_create_wq *cmd,
				 size_t cmd_size,
				 struct ib_uverbs_ex_create_wq_resp *resp,
				 size_t resp_size)
{
	struct vcmd_udata udata;
	int err;

	if (verbs_inherited_strict(context))
		return vcmd_set_errno(EPERM);
	if (wq_init_attr->comp_mask >= IBV_WQ_INIT_ATTR_RESERVED)
		return vcmd_set_errno(EINVAL);

	VCMD_PLUGIN_UDATA(&udata, cmd, cmd_size, resp, resp_size);
	wq->context = context;
	wq->cq = wq_init_attr->cq;
	wq->pd = wq_init_attr->pd;
	wq->wq_type = wq_init_attr->wq_type;
	wq->state = IBV_WQS_RESET;
	wq->events_completed = 0;
	err = vcmd_events_init(&wq->mutex, &wq->cond);
	if (err)
		return vcmd_set_errno(err);

	err = create_wq(context, wq_init_attr, wq, &udata, resp);
	if (err) {
		pthread_cond_destroy(&wq->cond);
		pthread_mutex_destroy(&wq->mutex);
	}
	return vcmd_set_errno(err);
}

IBV_EXPORT int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
				 struct ibv_modify_wq *cmd, size_t cmd_size)
{
	struct vcmd_udata udata;
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_MODIFY_WQ,
		.extended = true,
		.core = &cmd->core_payload,
		.core_len = sizeof(cmd->core_payload),
		.udata = &udata,
	};
	int err;

	if (verbs_inherited_strict(wq->context))
		return vcmd_set_errno(EPERM);
	if (attr->attr_mask >= IBV_WQ_ATTR_RESERVED)
		return vcmd_set_errno(EINVAL);

	/* The core part is the library's: it is written here, in place. */
	memset(&cmd->core_payload, 0, sizeof(cmd->core_payload));
	if (attr->attr_mask & IBV_WQ_ATTR_FLAGS) {
		if (attr->flags_mask & ~(IBV_WQ_FLAGS_RESERVED - 1))
			return vcmd_set_errno(EOPNOTSUPP);
		cmd->core_payload.flags = attr->flags;
		cmd->core_payload.flags_mask = attr->flags_mask;
	}
	cmd->core_payload.attr_mask = attr->attr_mask;
	cmd->core_payload.wq_handle = wq->handle;
	cmd->core_payload.wq_state = attr->wq_state;
	cmd->core_payload.curr_wq_state = attr->curr_wq_state;
	vcmd_plugin_udata(&udata, cmd, sizeof(*cmd), cmd_size, NULL, 0, 0);

	err = vcmd_write_ctx(wq->context, &req);
	if (err)
		return vcmd_set_errno(err);
	if (attr->attr_mask & IBV_WQ_ATTR_STATE)
		wq->state = attr->wq_state;
	return 0;
}

static int destroy_wq(struct ibv_wq *wq, uint32_t *events_reported)
{
	struct ib_uverbs_ex_destroy_wq_resp resp = {};
	struct ib_uverbs_ex_destroy_wq cmd = { .wq_handle = wq->handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_DESTROY_WQ,
		.extended = true,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
	};
	struct vcmd_ioctl c;
	int err;

	vcmd_ioctl_start(&c, wq->context, UVERBS_OBJECT_WQ,
			 UVERBS_METHOD_WQ_DESTROY);
	vcmd_attr_idr(&c, UVERBS_ATTR_DESTROY_WQ_HANDLE, wq->handle);
	vcmd_attr_out(&c, UVERBS_ATTR_DESTROY_WQ_RESP, events_reported,
		      sizeof(*events_reported), true);
	err = vcmd_ioctl_ctx(wq->context, &c);
	if (err != EPROTONOSUPPORT && err != ENOTTY)
		return err;

	err = vcmd_write_ctx(wq->context, &req);
	if (!err)
		*events_reported = resp.events_reported;
	return err;
}

IBV_EXPORT int ibv_cmd_destroy_wq(struct ibv_wq *wq)
{
	uint32_t events_reported = 0;
	int err;

	/* The parent's WQ: nothing to send, the plug-in frees its copy. */
	if (verbs_inherited_strict(wq->context))
		return 0;
	err = destroy_wq(wq, &events_reported);
	if (err)
		return vcmd_destroy_errno(err);
	vcmd_events_drain(&wq->mutex, &wq->cond, &wq->events_completed,
			  events_reported, NULL, 0);
	return 0;
}

static int destroy_ind_tbl_handle(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_ex_destroy_rwq_ind_table cmd = {
		.ind_tbl_handle = handle,
	};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL,
		.extended = true,
		VCMD_REQ_CORE(cmd),
	};
	struct vcmd_ioctl c;
	int err;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_RWQ_IND_TBL,
			 UVERBS_METHOD_RWQ_IND_TBL_DESTROY);
	vcmd_attr_idr(&c, UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE, handle);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err == EPROTONOSUPPORT || err == ENOTTY)
		err = vcmd_write_ctx(ctx, &req);
	return err;
}

static int create_rwq_ind_table(struct ibv_context *ctx,
				const struct ibv_rwq_ind_table_init_attr *attr,
				struct vcmd_write_req *req)
{
	struct ib_uverbs_ex_create_rwq_ind_table *cmd;
	uint32_t i, n = 1U << attr->log_ind_tbl_size;
	size_t len = sizeof(*cmd) + n * sizeof(cmd->wq_handles[0]);
	int err;

	/* Extended commands count in 8-byte words. */
	len = (len + 7) / 8 * 8;
	/* Up to 32 KiB: not for the stack of whatever thread calls. */
	cmd = calloc(1, len);
	if (!cmd)
		return ENOMEM;
	cmd->log_ind_tbl_size = attr->log_ind_tbl_size;
	for (i = 0; i < n; i++)
		cmd->wq_handles[i] = attr->ind_tbl[i]->handle;
	req->core = cmd;
	req->core_len = len;
	err = vcmd_write_ctx_any(ctx, req);
	free(cmd);
	return err;
}

IBV_EXPORT int ibv_cmd_create_rwq_ind_table(
	struct ibv_context *context,
	struct ibv_rwq_ind_table_init_attr *init_attr,
	struct ibv_rwq_ind_table *rwq_ind_table,
	struct ib_uverbs_ex_create_rwq_ind_table_resp *resp, size_t resp_size)
{
	struct vcmd_udata udata;
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL,
		.extended = true,
		.resp = resp,
		.resp_len = sizeof(*resp),
		.udata = &udata,
	};
	int err;

	if (verbs_inherited_strict(context))
		return vcmd_set_errno(EPERM);
	if (init_attr->comp_mask >= IBV_CREATE_IND_TABLE_RESERVED)
		return vcmd_set_errno(EINVAL);
	vcmd_plugin_udata(&udata, NULL, 0, 0, resp, sizeof(*resp), resp_size);
	/* The kernel refuses a larger table with EINVAL as well. */
	if (init_attr->log_ind_tbl_size > IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE)
		return vcmd_set_errno(EINVAL);

	/* Left so unless the kernel wrote a handle. */
	resp->ind_tbl_handle = VCMD_NO_HANDLE;
	err = create_rwq_ind_table(context, init_attr, &req);
	/*
	 * A short write, or a response too short to trust, may still have
	 * left a table in the kernel: it must not outlive the failure.
	 */
	if (!err && resp->response_length < sizeof(*resp)) {
		destroy_ind_tbl_handle(context, resp->ind_tbl_handle);
		err = EINVAL;
	} else if (err && req.short_write &&
		   resp->ind_tbl_handle != VCMD_NO_HANDLE) {
		destroy_ind_tbl_handle(context, resp->ind_tbl_handle);
	}
	if (err)
		return vcmd_set_errno(err);
	rwq_ind_table->context = context;
	rwq_ind_table->ind_tbl_handle = resp->ind_tbl_handle;
	rwq_ind_table->ind_tbl_num = resp->ind_tbl_num;
	return 0;
}

IBV_EXPORT int ibv_cmd_destroy_rwq_ind_table(
	struct ibv_rwq_ind_table *rwq_ind_table)
{
	struct ibv_context *ctx = rwq_ind_table->context;

	if (verbs_inherited_strict(ctx))
		return 0;
	return vcmd_destroy_errno(
		destroy_ind_tbl_handle(ctx, rwq_ind_table->ind_tbl_handle));
}
