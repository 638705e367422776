// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_wr_opcode_str(): the name of a send work request's opcode, which
 * rdma-core 49 added to IBVERBS_PRIVATE_34 (providers use it in their
 * messages) and which rdma-core 56's verbs.h declares.  The names are
 * upstream's, since programs print them and tests compare them.
 *
 * Built from rdma-core 56 on (libibverbs/CMakeLists.txt).
 */
#include <infiniband/verbs.h>

#include "ibverbs.h"

IBV_EXPORT const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode)
{
	static const char *const names[] = {
		[IBV_WR_RDMA_WRITE] = "rdma-write",
		[IBV_WR_RDMA_WRITE_WITH_IMM] = "rdma-write-with-imm",
		[IBV_WR_SEND] = "send",
		[IBV_WR_SEND_WITH_IMM] = "send-with-imm",
		[IBV_WR_RDMA_READ] = "rdma-read",
		[IBV_WR_ATOMIC_CMP_AND_SWP] = "atomic-cmp-and-swp",
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = "atomic-fetch-and-add",
		[IBV_WR_LOCAL_INV] = "local-inv",
		[IBV_WR_BIND_MW] = "bind-mw",
		[IBV_WR_SEND_WITH_INV] = "send-with-inv",
		[IBV_WR_TSO] = "tso",
		[IBV_WR_DRIVER1] = "driver1",
		[IBV_WR_FLUSH] = "flush",
		[IBV_WR_ATOMIC_WRITE] = "atomic-write",
	};
	unsigned int i = (unsigned int)opcode;

	/*
	 * Values 12 and 13 have no opcode: "unknown", like any value out
	 * of range, where rdma-core 56 returns NULL for them.
	 */
	if (i >= sizeof(names) / sizeof(names[0]) || !names[i])
		return "unknown";
	return names[i];
}
