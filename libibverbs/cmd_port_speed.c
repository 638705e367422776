// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_cmd_query_port_speed() (rdma-core 65): a port's effective speed,
 * from UVERBS_OBJECT_DEVICE's QUERY_PORT_SPEED method (Linux 6.19).
 * Returns 0 or the kernel's errno, as upstream's.
 */
#include "cmd_transport.h"
#include "provider_cmd.h"
#include "uverbs_ioctl_65.h"

IBV_EXPORT int ibv_cmd_query_port_speed(struct ibv_context *context,
					uint32_t port_num, uint64_t *speed)
{
	struct vcmd_ioctl c;

	if (verbs_inherited_strict(context))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, context, IBV_K65_OBJECT_DEVICE,
			 IBV_K65_METHOD_QUERY_PORT_SPEED);
	/* A kernel "const" attribute: a u64, whatever the value's range. */
	vcmd_attr_in_u64(&c, IBV_K65_ATTR_QUERY_PORT_SPEED_PORT_NUM, port_num);
	vcmd_attr_out(&c, IBV_K65_ATTR_QUERY_PORT_SPEED_RESP, speed,
		      sizeof(*speed), true);
	return vcmd_set_errno(vcmd_ioctl_ctx(context, &c));
}
