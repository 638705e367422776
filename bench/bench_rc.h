/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Connecting RC QPs over RoCE v2 for the benchmarks that move data: the
 * port's IPv4 GID, and a QP taken from RESET to RTS towards a peer QP.
 */
#ifndef BENCH_RC_H
#define BENCH_RC_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

struct bench_port {
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
};

/* RoCE v2 over IPv4: the GID that maps the port's IPv4 address. */
static inline int bench_ipv4_port(struct ibv_context *ctx, uint8_t port,
				  struct bench_port *p)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pa;
	union ibv_gid g;
	int i;

	if (ibv_query_port(ctx, port, &pa))
		return -1;
	p->mtu = pa.active_mtu;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid(ctx, port, i, &g))
			continue;
		if (!memcmp(g.raw, prefix, sizeof(prefix))) {
			p->gid = g;
			p->gid_index = i;
			return 0;
		}
	}
	fprintf(stderr, "no IPv4 GID on port %d\n", port);
	return -1;
}

/* @qp (on @self's port) from RESET to RTS, connected to @peer_qpn. */
static inline int bench_rc_connect(struct ibv_qp *qp, uint8_t port,
				   const struct bench_port *self,
				   const struct bench_port *peer,
				   uint32_t peer_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = self->mtu < peer->mtu ? self->mtu : peer->mtu;
	a.dest_qp_num = peer_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = port;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = self->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

#endif /* BENCH_RC_H */
