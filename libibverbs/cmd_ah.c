// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles: CREATE_AH and DESTROY_AH write() commands.  A provider
 * that keeps AHs in the kernel (rxe) gets its AH number back in the
 * private response.
 */
#include <string.h>

#include "cmd_transport.h"

static int destroy_ah_handle(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_destroy_ah cmd = { .ah_handle = handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_DESTROY_AH,
		VCMD_REQ_CORE(cmd),
	};

	return vcmd_write_ctx(ctx, &req);
}

static void uverbs_ah_attr(struct ib_uverbs_ah_attr *k,
			   const struct ibv_ah_attr *a)
{
	memcpy(k->grh.dgid, a->grh.dgid.raw, sizeof(k->grh.dgid));
	k->grh.flow_label = a->grh.flow_label;
	k->grh.sgid_index = a->grh.sgid_index;
	k->grh.hop_limit = a->grh.hop_limit;
	k->grh.traffic_class = a->grh.traffic_class;
	k->dlid = a->dlid;
	k->sl = a->sl;
	k->src_path_bits = a->src_path_bits;
	k->static_rate = a->static_rate;
	k->is_global = a->is_global;
	k->port_num = a->port_num;
}

int vcmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		   struct ibv_ah_attr *attr, struct vcmd_udata *udata)
{
	struct ib_uverbs_create_ah cmd = {
		.user_handle = vcmd_user_handle(ah),
		.pd_handle = pd->handle,
	};
	struct ib_uverbs_create_ah_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_CREATE_AH,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err;

	uverbs_ah_attr(&cmd.attr, attr);
	err = vcmd_write_create(pd->context, &req, &resp.ah_handle,
				destroy_ah_handle);
	if (err)
		return err;
	ah->context = pd->context;
	ah->pd = pd;
	ah->handle = resp.ah_handle;
	return 0;
}

int vcmd_destroy_ah(struct ibv_ah *ah)
{
	/* In a fork child the kernel object is the parent's: send nothing. */
	if (verbs_inherited_strict(ah->context))
		return 0;

	return destroy_ah_handle(ah->context, ah->handle);
}

/* The provider ABI (kern_abi.h); CREATE_AH takes no private request. */

IBV_EXPORT int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
				 struct ibv_ah_attr *attr,
				 struct ib_uverbs_create_ah_resp *resp,
				 size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(pd->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	vcmd_plugin_udata(&u, NULL, 0, 0, resp, sizeof(*resp), resp_size);
	return vcmd_set_errno(vcmd_create_ah(pd, ah, attr, &u));
}

IBV_EXPORT int ibv_cmd_destroy_ah(struct ibv_ah *ah)
{
	return vcmd_destroy_errno(vcmd_destroy_ah(ah));
}
