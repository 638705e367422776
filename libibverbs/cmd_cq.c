// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: CREATE_CQ (legacy and extended), RESIZE_CQ,
 * REQ_NOTIFY_CQ and DESTROY_CQ write() commands.
 *
 * A CQ's user handle is its address: completion events and asynchronous
 * events carry it back, and the library turns it into the struct ibv_cq.
 */
#include <string.h>

#include "cmd_transport.h"

/* Destroy by handle; the counts only matter to vcmd_destroy_cq(). */
static int destroy_cq_handle(struct ibv_context *ctx, uint32_t handle,
			     struct ib_uverbs_destroy_cq_resp *resp)
{
	struct ib_uverbs_destroy_cq cmd = { .cq_handle = handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_DESTROY_CQ,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(*resp),
	};

	return vcmd_write_ctx(ctx, &req);
}

/* A vcmd_destroy_fn: a CQ that never reached the caller had no events. */
static int discard_cq(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_destroy_cq_resp resp;

	return destroy_cq_handle(ctx, handle, &resp);
}

/*
 * Issue a create command whose response starts with struct
 * ib_uverbs_create_cq_resp, and fill @cq from it.
 */
static int create_cq(struct ibv_context *ctx, struct vcmd_write_req *req,
		     struct ib_uverbs_create_cq_resp *resp,
		     struct ibv_comp_channel *channel, struct ibv_cq *cq)
{
	int err;

	err = vcmd_write_create_events(ctx, req, &resp->cq_handle, discard_cq,
				       &cq->mutex, &cq->cond);
	if (err)
		return err;
	cq->context = ctx;
	cq->channel = channel;
	cq->handle = resp->cq_handle;
	cq->cqe = resp->cqe;
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	return 0;
}

int vcmd_create_cq(struct ibv_context *ctx, int cqe,
		   struct ibv_comp_channel *channel, int comp_vector,
		   struct ibv_cq *cq, struct vcmd_udata *udata)
{
	struct ib_uverbs_create_cq cmd = {
		.user_handle = vcmd_user_handle(cq),
		.cqe = cqe,
		.comp_vector = comp_vector,
		.comp_channel = channel ? channel->fd : -1,
	};
	struct ib_uverbs_create_cq_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_CREATE_CQ,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};

	return create_cq(ctx, &req, &resp, channel, cq);
}

/* The kernel's CQ flags for what the application asked of the CQ. */
uint32_t vcmd_cq_kernel_flags(const struct ibv_cq_init_attr_ex *attr)
{
	uint32_t flags = 0;

	if (attr->wc_flags & (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			      IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK))
		flags |= IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	/* SINGLE_THREADED is the provider's business, not the kernel's. */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
		flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
	return flags;
}

int vcmd_create_cq_ex(struct ibv_context *ctx,
		      const struct ibv_cq_init_attr_ex *attr,
		      struct verbs_cq *cq, struct vcmd_udata *udata)
{
	struct ib_uverbs_ex_create_cq cmd = {
		.user_handle = vcmd_user_handle(&cq->cq),
		.cqe = attr->cqe,
		.comp_vector = attr->comp_vector,
		.comp_channel = attr->channel ? attr->channel->fd : -1,
		.flags = vcmd_cq_kernel_flags(attr),
	};
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_CREATE_CQ,
		.extended = true,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err;

	err = create_cq(ctx, &req, &resp.base, attr->channel, &cq->cq);
	/* Without flags the legacy command does the same job. */
	if (vcmd_unsupported(err) && !cmd.flags)
		err = vcmd_create_cq(ctx, attr->cqe, attr->channel,
				     attr->comp_vector, &cq->cq, udata);
	return err;
}

int vcmd_resize_cq(struct ibv_cq *cq, int cqe, struct vcmd_udata *udata)
{
	struct ib_uverbs_resize_cq cmd = {
		.cq_handle = cq->handle,
		.cqe = cqe,
	};
	struct ib_uverbs_resize_cq_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_RESIZE_CQ,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err = vcmd_write_ctx(cq->context, &req);

	if (err)
		return err;
	cq->cqe = resp.cqe;
	return 0;
}

int vcmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct ib_uverbs_req_notify_cq cmd = {
		.cq_handle = cq->handle,
		.solicited_only = !!solicited_only,
	};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_REQ_NOTIFY_CQ,
		VCMD_REQ_CORE(cmd),
	};

	return vcmd_write_ctx(cq->context, &req);
}

int vcmd_destroy_cq(struct ibv_cq *cq)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	int err;

	/* In a fork child the kernel object is the parent's: send nothing. */
	if (verbs_inherited_strict(cq->context))
		return 0;

	err = destroy_cq_handle(cq->context, cq->handle, &resp);
	if (err)
		return err;
	vcmd_events_drain(&cq->mutex, &cq->cond, &cq->comp_events_completed,
			  resp.comp_events_reported,
			  &cq->async_events_completed,
			  resp.async_events_reported);
	return 0;
}

int vcmd_modify_cq(struct ibv_cq *cq, const struct ibv_modify_cq_attr *attr,
		   struct vcmd_udata *udata)
{
	struct ib_uverbs_ex_modify_cq cmd = {
		.cq_handle = cq->handle,
		.attr_mask = attr->attr_mask,
		.attr.cq_count = attr->moderate.cq_count,
		.attr.cq_period = attr->moderate.cq_period,
	};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_MODIFY_CQ,
		.extended = true,
		VCMD_REQ_CORE(cmd),
		.udata = udata,
	};

	if (attr->attr_mask >= IBV_CQ_ATTR_RESERVED)
		return EINVAL;
	return vcmd_write_ctx(cq->context, &req);
}

static void wc_from_uverbs(struct ibv_wc *wc, const struct ib_uverbs_wc *k)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = k->wr_id;
	wc->status = k->status;
	wc->opcode = k->opcode;
	wc->vendor_err = k->vendor_err;
	wc->byte_len = k->byte_len;
	wc->imm_data = k->ex.imm_data;
	wc->qp_num = k->qp_num;
	wc->src_qp = k->src_qp;
	wc->wc_flags = k->wc_flags;
	wc->pkey_index = k->pkey_index;
	wc->slid = k->slid;
	wc->sl = k->sl;
	wc->dlid_path_bits = k->dlid_path_bits;
}

/* Completions one POLL_CQ command carries: its response fits the stack. */
#define POLL_CQ_BATCH (VCMD_MAX_UDATA / sizeof(struct ib_uverbs_wc))

/*
 * The kernel writes the completions right after the core response, where
 * a provider's response would go, so they travel as the private part.
 * More than a batch are polled in several commands; the CQ is drained
 * when one returns fewer than it asked for.
 */
static int poll_cq_batch(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	struct ib_uverbs_wc kwc[POLL_CQ_BATCH];
	struct ib_uverbs_poll_cq cmd = { .cq_handle = cq->handle, .ne = ne };
	struct ib_uverbs_poll_cq_resp resp = {};
	struct vcmd_udata u = {
		.out = kwc,
		.out_len = ne * sizeof(kwc[0]),
	};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_POLL_CQ,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = &u,
	};
	uint32_t i;
	int err;

	err = vcmd_write_ctx(cq->context, &req);
	if (err)
		return -err;
	if (resp.count > (uint32_t)ne)
		return -EIO;
	for (i = 0; i < resp.count; i++)
		wc_from_uverbs(&wc[i], &kwc[i]);
	return resp.count;
}

int vcmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	int total = 0;

	if (ne < 0 || (ne && !wc))
		return -EINVAL;
	while (total < ne) {
		int want = ne - total < (int)POLL_CQ_BATCH ? ne - total :
							     (int)POLL_CQ_BATCH;
		int got = poll_cq_batch(cq, want, wc + total);

		if (got < 0)
			return total ? total : got;
		total += got;
		if (got < want)
			break;
	}
	return total;
}

/* The provider ABI (kern_abi.h). */

IBV_EXPORT int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
				 struct ibv_comp_channel *channel,
				 int comp_vector, struct ibv_cq *cq,
				 struct ibv_create_cq *cmd, size_t cmd_size,
				 struct ib_uverbs_create_cq_resp *resp,
				 size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(
		vcmd_create_cq(context, cqe, channel, comp_vector, cq, &u));
}

/*
 * @cmd_flags (CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX) only matters to a kernel
 * without the extended command, which every kernel this library runs
 * on has.
 */
#if IBV_RDMA_CORE_RELEASE >= 65
IBV_EXPORT int ibv_cmd_create_cq_ex(struct ibv_context *context,
				    const struct ibv_cq_init_attr_ex *cq_attr,
				    struct verbs_create_cq_prov_attr *prov_attr,
				    struct verbs_cq *cq,
				    struct ibv_create_cq_ex *cmd,
				    size_t cmd_size,
				    struct ib_uverbs_ex_create_cq_resp *resp,
				    size_t resp_size, uint32_t cmd_flags)
{
	/* The child guard and the CQ buffer are checked there. */
	return ibv_cmd_create_cq_ex2(context, cq_attr, prov_attr, cq, cmd,
				     cmd_size, resp, resp_size, cmd_flags,
				     NULL);
}
#else
IBV_EXPORT int ibv_cmd_create_cq_ex(struct ibv_context *context,
				    const struct ibv_cq_init_attr_ex *cq_attr,
				    struct verbs_cq *cq,
				    struct ibv_create_cq_ex *cmd,
				    size_t cmd_size,
				    struct ib_uverbs_ex_create_cq_resp *resp,
				    size_t resp_size, uint32_t cmd_flags)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (cq_attr->comp_mask &
	    ~(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD))
		return vcmd_set_errno(EOPNOTSUPP);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(vcmd_create_cq_ex(context, cq_attr, cq, &u));
}
#endif

/* Returns the number of completions, or -1 with errno set. */
IBV_EXPORT int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	int ret = verbs_inherited_strict(cq->context) ? EPERM : 0;

	if (!ret) {
		ret = vcmd_poll_cq(cq, ne, wc);
		if (ret >= 0)
			return ret;
		ret = -ret;
	}
	errno = ret;
	return -1;
}

IBV_EXPORT int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	int err = verbs_inherited_strict(cq->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	return vcmd_set_errno(vcmd_req_notify_cq(cq, solicited_only));
}

IBV_EXPORT int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe,
				 struct ibv_resize_cq *cmd, size_t cmd_size,
				 struct ib_uverbs_resize_cq_resp *resp,
				 size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(cq->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(vcmd_resize_cq(cq, cqe, &u));
}

IBV_EXPORT int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
	return vcmd_destroy_errno(vcmd_destroy_cq(cq));
}

IBV_EXPORT int ibv_cmd_modify_cq(struct ibv_cq *cq,
				 struct ibv_modify_cq_attr *attr,
				 struct ibv_modify_cq *cmd, size_t cmd_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(cq->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	vcmd_plugin_udata(&u, cmd, sizeof(*cmd), cmd_size, NULL, 0, 0);
	return vcmd_set_errno(vcmd_modify_cq(cq, attr, &u));
}
