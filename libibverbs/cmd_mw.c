// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows: ALLOC_MW and DEALLOC_MW write() commands.
 */
#include "cmd_transport.h"

static int dealloc_mw_handle(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_dealloc_mw cmd = { .mw_handle = handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_DEALLOC_MW,
		VCMD_REQ_CORE(cmd),
	};

	return vcmd_write_ctx(ctx, &req);
}

int vcmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		  struct ibv_mw *mw, struct vcmd_udata *udata)
{
	struct ib_uverbs_alloc_mw cmd = {
		.pd_handle = pd->handle,
		.mw_type = type,
	};
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_ALLOC_MW,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err = vcmd_write_create(pd->context, &req, &resp.mw_handle,
				    dealloc_mw_handle);

	if (err)
		return err;
	mw->context = pd->context;
	mw->pd = pd;
	mw->handle = resp.mw_handle;
	mw->rkey = resp.rkey;
	mw->type = type;
	return 0;
}

int vcmd_dealloc_mw(struct ibv_mw *mw)
{
	/* In a fork child the kernel object is the parent's: send nothing. */
	if (verbs_inherited_strict(mw->context))
		return 0;

	return dealloc_mw_handle(mw->context, mw->handle);
}

/* The provider ABI (kern_abi.h). */

IBV_EXPORT int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
				struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
				size_t cmd_size,
				struct ib_uverbs_alloc_mw_resp *resp,
				size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(pd->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(vcmd_alloc_mw(pd, type, mw, &u));
}

IBV_EXPORT int ibv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	return vcmd_destroy_errno(vcmd_dealloc_mw(mw));
}
