// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast: ATTACH_MCAST and DETACH_MCAST write() commands.  The kernel
 * remembers the attachments of each QP and drops them with the QP.
 */
#include <string.h>

#include "cmd_transport.h"

static int mcast_cmd(struct ibv_qp *qp, uint32_t command,
		     const union ibv_gid *gid, uint16_t lid)
{
	/* The attach and detach commands have one layout. */
	struct ib_uverbs_attach_mcast cmd = {
		.qp_handle = qp->handle,
		.mlid = lid,
	};
	struct vcmd_write_req req = {
		.command = command,
		VCMD_REQ_CORE(cmd),
	};

	memcpy(cmd.gid, gid->raw, sizeof(cmd.gid));
	return vcmd_write_ctx(qp->context, &req);
}

_Static_assert(sizeof(struct ib_uverbs_attach_mcast) ==
		       sizeof(struct ib_uverbs_detach_mcast),
	       "mcast command layout");

int vcmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid)
{
	return mcast_cmd(qp, IB_USER_VERBS_CMD_ATTACH_MCAST, gid, lid);
}

int vcmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid)
{
	return mcast_cmd(qp, IB_USER_VERBS_CMD_DETACH_MCAST, gid, lid);
}

/*
 * The provider ABI (kern_abi.h).  Detaching changes the parent's QP, so
 * a child is refused both ways.
 */

IBV_EXPORT int ibv_cmd_attach_mcast(struct ibv_qp *qp,
				    const union ibv_gid *gid, uint16_t lid)
{
	int err = verbs_inherited_strict(qp->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	return vcmd_set_errno(vcmd_attach_mcast(qp, gid, lid));
}

IBV_EXPORT int ibv_cmd_detach_mcast(struct ibv_qp *qp,
				    const union ibv_gid *gid, uint16_t lid)
{
	int err = verbs_inherited_strict(qp->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	return vcmd_set_errno(vcmd_detach_mcast(qp, gid, lid));
}
