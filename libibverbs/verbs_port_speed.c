// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_query_port_speed() (IBVERBS_1.16, rdma-core 65): a port's effective
 * speed, from the provider's query_port_speed op (which plug-ins build on
 * ibv_cmd_query_port_speed()).  0 or an errno, as upstream: EOPNOTSUPP
 * without the op, EPERM on a context inherited across fork().
 */
#include "ibverbs.h"

IBV_EXPORT int ibv_query_port_speed(struct ibv_context *context,
				    uint32_t port_num, uint64_t *port_speed)
{
	int err = verbs_check_ctx(context);

	if (err)
		return err;
	if (!port_speed)
		return EINVAL;
	if (!verbs_ops(context)->query_port_speed)
		return EOPNOTSUPP;
	return verbs_ops(context)->query_port_speed(context, port_num,
						    port_speed);
}
