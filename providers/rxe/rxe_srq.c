// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues.  One mapped ring of struct rxe_recv_wqe, filled
 * like a QP's receive queue.  Resizing (IBV_SRQ_MAX_WR) makes the kernel
 * build a new ring, copy the pending entries over and write the new
 * ring's mmap info to an address we pass in struct rxe_modify_srq_cmd;
 * we then swap our mapping under the SRQ lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe.h"

#define RXE_RECV_HDR	offsetof(struct rxe_recv_wqe, dma.sge)

static void rxe_srq_free(struct rxe_srq *srq)
{
	rxe_wq_fini(&srq->rq);
	free(srq);
}

struct ibv_srq *rxe_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct rxe_create_srq_resp resp = {};
	struct vcmd_udata udata = {
		.out = &resp,
		.out_len = sizeof(resp),
	};
	struct rxe_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	rxe_wq_init(&srq->rq);
	err = vcmd_create_srq(pd, &srq->vsrq, attr, &udata);
	if (err)
		goto out_free;
	err = rxe_wq_map(&srq->rq, pd->context->cmd_fd, &resp.mi,
			 RXE_RECV_HDR, attr->attr.max_sge, 0);
	if (err) {
		vcmd_destroy_srq(&srq->vsrq.srq);
		goto out_free;
	}
	srq->vsrq.srq_type = IBV_SRQT_BASIC;
	srq->vsrq.srq_num = resp.srq_num;
	return &srq->vsrq.srq;

out_free:
	rxe_srq_free(srq);
	errno = err;
	return NULL;
}

static int rxe_srq_resize(struct rxe_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask)
{
	struct mminfo mi = {};
	struct rxe_modify_srq_cmd cmd = {
		.mmap_info_addr = (uintptr_t)&mi,
	};
	struct vcmd_udata udata = {
		.in = &cmd,
		.in_len = sizeof(cmd),
	};
	struct rxe_wq *wq = &srq->rq;
	struct rxe_ring old;
	int err;

	rxe_lock(&wq->lock);
	err = vcmd_modify_srq(&srq->vsrq.srq, attr, attr_mask, &udata);
	if (err)
		goto out;
	/*
	 * The kernel now fills the new ring and the old one is dead: if the
	 * new one cannot be mapped, posting fails rather than get lost.
	 */
	old = wq->ring;
	err = rxe_ring_map(&wq->ring, srq->vsrq.srq.context->cmd_fd, &mi);
	if (err)
		wq->ring.buf = NULL;
	rxe_ring_unmap(&old);
out:
	rxe_unlock(&wq->lock);
	return err;
}

int rxe_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		   int attr_mask)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	struct rxe_modify_srq_cmd cmd = {};
	struct vcmd_udata udata = {
		.in = &cmd,
		.in_len = sizeof(cmd),
	};

	if (attr_mask & IBV_SRQ_MAX_WR)
		return rxe_srq_resize(srq, attr, attr_mask);
	/* The kernel wants the command even when it will not resize. */
	return vcmd_modify_srq(ibsrq, attr, attr_mask, &udata);
}

int rxe_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	return vcmd_query_srq(srq, attr);
}

int rxe_destroy_srq(struct ibv_srq *ibsrq)
{
	int err;

	err = vcmd_destroy_srq(ibsrq);
	if (err)
		return err;
	rxe_srq_free(to_rsrq(ibsrq));
	return 0;
}

/*
 * Only basic SRQs: rxe has neither XRC nor tag matching.  Having the op
 * makes the library check a request's arguments first, as rdma-core 44
 * does (EINVAL for an XRC SRQ without XRCD and CQ), before EOPNOTSUPP.
 */
struct ibv_srq *rxe_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr basic = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
	};
	struct ibv_srq *srq;

	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    attr->srq_type != IBV_SRQT_BASIC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = rxe_create_srq(attr->pd, &basic);
	if (srq)
		attr->attr = basic.attr;
	return srq;
}

int rxe_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	return rxe_wq_post_recv(&to_rsrq(ibsrq)->rq, wr, bad_wr);
}
