// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XRC domains: OPEN_XRCD and CLOSE_XRCD write() commands.  An XRC domain
 * is shared between processes through a file (@fd, O_CREAT/O_EXCL in
 * @oflags) or private to the caller (fd -1); its handle replaces the PD
 * handle of XRC target QPs and names the domain of XRC SRQs.
 */
#include "cmd_transport.h"

int vcmd_close_xrcd(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_close_xrcd cmd = { .xrcd_handle = handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_CLOSE_XRCD,
		VCMD_REQ_CORE(cmd),
	};

	return vcmd_write_ctx(ctx, &req);
}

int vcmd_open_xrcd(struct ibv_context *ctx, int fd, int oflags,
		   uint32_t *handle, struct vcmd_udata *udata)
{
	struct ib_uverbs_open_xrcd cmd = { .fd = fd, .oflags = oflags };
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_OPEN_XRCD,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err = vcmd_write_create(ctx, &req, &resp.xrcd_handle,
				    vcmd_close_xrcd);

	if (!err)
		*handle = resp.xrcd_handle;
	return err;
}
