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

/* The provider ABI (kern_abi.h). */

IBV_EXPORT int ibv_cmd_open_xrcd(struct ibv_context *context,
				 struct verbs_xrcd *xrcd, int vxrcd_size,
				 struct ibv_xrcd_init_attr *attr,
				 struct ibv_open_xrcd *cmd, size_t cmd_size,
				 struct ib_uverbs_open_xrcd_resp *resp,
				 size_t resp_size)
{
	const uint32_t needed = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	struct vcmd_udata u;
	uint32_t handle;
	int err = verbs_inherited_strict(context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (attr->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED)
		return vcmd_set_errno(EOPNOTSUPP);
	if ((attr->comp_mask & needed) != needed)
		return vcmd_set_errno(EINVAL);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	err = vcmd_open_xrcd(context, attr->fd, attr->oflags, &handle, &u);
	if (err)
		return vcmd_set_errno(err);
	xrcd->xrcd.context = context;
	xrcd->comp_mask = 0;
	/* A plug-in's struct may predate the handle. */
	if (vxrcd_size >= 0 &&
	    (size_t)vxrcd_size >= offsetof(struct verbs_xrcd, handle) +
					  sizeof(xrcd->handle)) {
		xrcd->comp_mask = VERBS_XRCD_HANDLE;
		xrcd->handle = handle;
	}
	return 0;
}

IBV_EXPORT int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)
{
	if (verbs_inherited_strict(xrcd->xrcd.context))
		return 0;
	return vcmd_destroy_errno(
		vcmd_close_xrcd(xrcd->xrcd.context, xrcd->handle));
}
