// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: RC, UC and UD.  The kernel creates the send and receive
 * rings (no receive ring for a QP on an SRQ) and we map both; the send
 * path is in rxe_send.c, the receive path in rxe_recv.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe.h"

#define RXE_SEND_HDR	offsetof(struct rxe_send_wqe, dma.sge)
#define RXE_RECV_HDR	offsetof(struct rxe_recv_wqe, dma.sge)

/*
 * A type the kernel knows but rxe lacks is EOPNOTSUPP; any other number
 * the kernel refuses as EINVAL, as rdma-core 44, which passes it on, says.
 */
static bool rxe_qp_type_known(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
	case IBV_QPT_DRIVER:
		return true;
	default:
		return false;
	}
}

static bool rxe_qp_type_ok(enum ibv_qp_type type)
{
	return type == IBV_QPT_RC || type == IBV_QPT_UC || type == IBV_QPT_UD;
}

static struct rxe_qp *rxe_qp_alloc(void)
{
	struct rxe_qp *qp;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	rxe_wq_init(&qp->sq);
	rxe_wq_init(&qp->rq);
	return qp;
}

static void rxe_qp_free(struct rxe_qp *qp)
{
	rxe_wq_fini(&qp->sq);
	rxe_wq_fini(&qp->rq);
	free(qp);
}

/*
 * After the kernel created the QP: map its rings with the limits it
 * granted (the command layer wrote them back into @cap), or undo it.
 */
static int rxe_qp_map(struct rxe_qp *qp, const struct rxe_create_qp_resp *resp,
		      const struct ibv_qp_cap *cap, bool has_srq)
{
	int fd = qp->vqp.qp.context->cmd_fd;
	int err;

	err = rxe_wq_map(&qp->sq, fd, &resp->sq_mi, RXE_SEND_HDR,
			 cap->max_send_sge, cap->max_inline_data);
	if (!err && !has_srq)
		err = rxe_wq_map(&qp->rq, fd, &resp->rq_mi, RXE_RECV_HDR,
				 cap->max_recv_sge, 0);
	if (err) {
		rxe_ring_unmap(&qp->sq.ring);
		rxe_ring_unmap(&qp->rq.ring);
		vcmd_destroy_qp(&qp->vqp.qp);
		return err;
	}
	vcmd_doorbell_init(&qp->db, &qp->vqp.qp);
	return 0;
}

/* The send opcodes rxe executes for each QP type (ibv_qp_ex builders). */
#if IBV_RDMA_CORE_RELEASE >= 56
#define RXE_RC_SEND_OPS_SINCE_56 IBV_QP_EX_WITH_FLUSH
#else
#define RXE_RC_SEND_OPS_SINCE_56 0
#endif

static uint64_t rxe_send_ops_for(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return IBV_QP_EX_WITH_RDMA_WRITE |
		       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		       IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW |
		       IBV_QP_EX_WITH_SEND_WITH_INV |
		       IBV_QP_EX_WITH_ATOMIC_WRITE | RXE_RC_SEND_OPS_SINCE_56;
	case IBV_QPT_UC:
		return IBV_QP_EX_WITH_RDMA_WRITE |
		       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		       IBV_QP_EX_WITH_BIND_MW;
	case IBV_QPT_UD:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	default:
		return 0;
	}
}

static int rxe_check_qp_attr_ex(const struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t known = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_CREATE_FLAGS |
			       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;

	if (attr->comp_mask & ~known)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if (!rxe_qp_type_known(attr->qp_type))
		return EINVAL;
	if (!rxe_qp_type_ok(attr->qp_type))
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~rxe_send_ops_for(attr->qp_type)))
		return EOPNOTSUPP;
	return 0;
}

struct ibv_qp *rxe_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct rxe_create_qp_resp resp = {};
	struct vcmd_udata udata = {
		.out = &resp,
		.out_len = sizeof(resp),
	};
	struct rxe_qp *qp;
	int err;

	err = rxe_check_qp_attr_ex(attr);
	if (err) {
		errno = err;
		return NULL;
	}
	qp = rxe_qp_alloc();
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	err = vcmd_create_qp_ex(ctx, &qp->vqp, attr, &udata);
	if (!err)
		err = rxe_qp_map(qp, &resp, &attr->cap, attr->srq != NULL);
	if (err) {
		rxe_qp_free(qp);
		errno = err;
		return NULL;
	}
	qp->op_type = rxe_type_bit(attr->qp_type);
	/*
	 * As every provider: the ibv_qp_ex is valid once its callbacks are
	 * in, which lets the library guard them (verbs_qp.c).
	 */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		rxe_qp_ex_setup(qp, attr->send_ops_flags);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	return &qp->vqp.qp;
}

/*
 * The classic verb is the extended one with only a PD: one creation path,
 * and the kernel gets the same legacy command either way.
 */
struct ibv_qp *rxe_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp = rxe_create_qp_ex(pd->context, &ex);

	if (qp)
		attr->cap = ex.cap;
	return qp;
}

int rxe_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	return vcmd_query_qp(qp, attr, attr_mask, init_attr);
}

/*
 * Nothing to do on our side: a move to RESET empties the rings in the
 * kernel, and we read both indices from the shared header every time.
 */
int rxe_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	return vcmd_modify_qp(qp, attr, attr_mask, NULL);
}

int rxe_destroy_qp(struct ibv_qp *ibqp)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	int err;

	err = vcmd_destroy_qp(ibqp);
	if (err)
		return err;
	rxe_qp_free(qp);
	return 0;
}

int rxe_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	/*
	 * As rdma-core 44's librxe: an empty list is EINVAL, and so is a QP
	 * in RESET, whose receive queue the kernel empties on the next
	 * move to INIT (IB spec C10-97.2.1 lets a CA refuse it).
	 */
	if (!wr || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	return rxe_wq_post_recv(&to_rqp(ibqp)->rq, wr, bad_wr);
}

int rxe_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return vcmd_attach_mcast(qp, gid, lid);
}

int rxe_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return vcmd_detach_mcast(qp, gid, lid);
}
