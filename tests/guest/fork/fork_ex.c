// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_ex.h"

/* Every builder rxe runs on RC, with and without atomic write. */
#define FX_RC_OPS                                                         \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
	 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |             \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |   \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV | \
	 IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV)

static struct ibv_qp *create_qp_ex(struct fx *x, uint64_t ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC,
		.send_cq = ibv_cq_ex_to_cq(x->cqx),
		.recv_cq = ibv_cq_ex_to_cq(x->cqx),
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 2,
			 .max_recv_sge = 1,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = x->p.a.pd,
		.send_ops_flags = ops,
	};

	return ibv_create_qp_ex(x->p.a.ctx, &attr);
}

int fx_open(struct fx *x)
{
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = 64,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct gc_qp_caps caps = { .max_send_wr = 16, .max_recv_wr = 16 };

	memset(x, 0, sizeof(*x));
	if (gc_pair_open(&x->p, 0, NULL))
		return -1;
	x->cqx = ibv_create_cq_ex(x->p.a.ctx, &cq_attr);
	if (!x->cqx) {
		gc_diag("ibv_create_cq_ex: %s", strerror(errno));
		return -1;
	}
	/* Atomic write is newer than some kernels' rxe: without it then. */
	x->qp = create_qp_ex(x, FX_RC_OPS | IBV_QP_EX_WITH_ATOMIC_WRITE);
	if (!x->qp)
		x->qp = create_qp_ex(x, FX_RC_OPS);
	if (!x->qp) {
		gc_diag("ibv_create_qp_ex: %s", strerror(errno));
		return -1;
	}
	x->qx = ibv_qp_to_qp_ex(x->qp);
	x->p.qp_b = gc_create_qp(&x->p.b, x->p.cq_b, IBV_QPT_RC, &caps);
	if (!x->qx || !x->p.qp_b ||
	    gc_connect(x->qp, &x->p.a, x->p.qp_b, &x->p.b))
		return -1;
	if (fp_buf_map(&x->a, x->p.a.pd, FP_LEN) ||
	    fp_buf_map(&x->b, x->p.b.pd, FP_LEN)) {
		gc_diag("registering memory: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void fx_close(struct fx *x)
{
	/* Also a mapping whose registration failed. */
	fp_buf_unmap(&x->a);
	fp_buf_unmap(&x->b);
	if (x->qp)
		ibv_destroy_qp(x->qp);
	if (x->cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(x->cqx));
	gc_pair_close(&x->p);
	memset(x, 0, sizeof(*x));
}

void fx_batch_open(struct fx *x, uint64_t wr_id, size_t off, uint32_t len,
		   const void *inl)
{
	ibv_wr_start(x->qx);
	x->qx->wr_id = wr_id;
	x->qx->wr_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
	ibv_wr_send(x->qx);
	if (inl)
		ibv_wr_set_inline_data(x->qx, (void *)inl, len);
	else
		ibv_wr_set_sge(x->qx, x->a.mr->lkey, (uintptr_t)x->a.addr + off,
			       len);
}

int fx_send_batch(struct fx *x, uint64_t wr_id, size_t off, uint32_t len,
		  const void *inl)
{
	fx_batch_open(x, wr_id, off, len, inl);
	return ibv_wr_complete(x->qx);
}

int fx_shared_find(struct fx_shared *s)
{
	char line[512], perm[8], path[256];
	unsigned long lo, hi;
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &lo, &hi,
			   perm, path) < 3)
			continue;
		if (strncmp(path, "/dev/infiniband/uverbs", 22) ||
		    perm[0] != 'r' || perm[3] != 's' || s->n == FX_MAX_SHARED)
			continue;
		s->r[s->n].addr = (uint8_t *)lo;
		s->r[s->n].len = hi - lo;
		s->r[s->n].copy = malloc(hi - lo);
		if (!s->r[s->n].copy)
			break;
		s->n++;
	}
	fclose(f);
	return s->n;
}

void fx_shared_save(struct fx_shared *s)
{
	for (int i = 0; i < s->n; i++)
		memcpy(s->r[i].copy, s->r[i].addr, s->r[i].len);
}

size_t fx_shared_changed(const struct fx_shared *s)
{
	size_t n = 0;

	for (int i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->r[i].len; j++)
			n += s->r[i].copy[j] != s->r[i].addr[j];
	return n;
}

void fx_shared_free(struct fx_shared *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->r[i].copy);
	memset(s, 0, sizeof(*s));
}
