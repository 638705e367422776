// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Protection domains: ALLOC_PD and DEALLOC_PD write() commands.
 */
#include "cmd_transport.h"

static int dealloc_pd_handle(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_dealloc_pd cmd = { .pd_handle = handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_DEALLOC_PD,
		VCMD_REQ_CORE(cmd),
	};

	return vcmd_write_ctx(ctx, &req);
}

int vcmd_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		  struct vcmd_udata *udata)
{
	struct ib_uverbs_alloc_pd cmd = {};
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_ALLOC_PD,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err = vcmd_write_create(ctx, &req, &resp.pd_handle,
				    dealloc_pd_handle);

	if (err)
		return err;
	pd->context = ctx;
	pd->handle = resp.pd_handle;
	return 0;
}

int vcmd_dealloc_pd(struct ibv_pd *pd)
{
	/* In a fork child the kernel object is the parent's: send nothing. */
	if (verbs_inherited_strict(pd->context))
		return 0;

	return dealloc_pd_handle(pd->context, pd->handle);
}

/* The provider ABI (kern_abi.h). */

IBV_EXPORT int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
				struct ibv_alloc_pd *cmd, size_t cmd_size,
				struct ib_uverbs_alloc_pd_resp *resp,
				size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(vcmd_alloc_pd(context, pd, &u));
}

IBV_EXPORT int ibv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	return vcmd_destroy_errno(vcmd_dealloc_pd(pd));
}
