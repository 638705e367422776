// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_query_qp_data_in_order() on an rxe RC QP.  rxe promises no
 * in-order placement (neither rdma-core's librxe nor the built-in
 * provider has the provider op), so the answer is 0 for every opcode: at
 * rdma-core 44 with flags 0, at 56 also with
 * IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS (no capability bit) and with a
 * flag rdma-core does not know (0 too, not an error).  A library that
 * claimed an order rxe does not give, or took an unknown flag for
 * RETURN_CAPS, fails here; Debian's library of the same release passes.
 */
#include <stdio.h>

#include "guest_common.h"

static const struct {
	enum ibv_wr_opcode op;
	const char *name;
} ops[] = {
	{ IBV_WR_RDMA_WRITE, "RDMA_WRITE" },
	{ IBV_WR_SEND, "SEND" },
	{ IBV_WR_RDMA_READ, "RDMA_READ" },
};

int main(void)
{
	struct gc_pair p = {};
	size_t i;

	gc_start("rxe_in_order");
	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_RC, NULL), "RC pair"))
		return gc_finish();
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int r = ibv_query_qp_data_in_order(p.qp_a, ops[i].op, 0);

		gc_ok(r == 0, "%s, flags 0: %d (rxe promises no order)",
		      ops[i].name, r);
#if IBV_RDMA_CORE_RELEASE >= 56
		r = ibv_query_qp_data_in_order(
			p.qp_a, ops[i].op,
			IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);
		gc_ok(r == 0, "%s, RETURN_CAPS: %#x (no capability)",
		      ops[i].name, r);
		r = ibv_query_qp_data_in_order(p.qp_a, ops[i].op, 1U << 7);
		gc_ok(r == 0, "%s, an unknown flag: %d", ops[i].name, r);
#endif
	}
	gc_pair_close(&p);
	return gc_finish();
}
