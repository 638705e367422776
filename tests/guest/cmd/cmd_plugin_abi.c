// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The write() commands of the provider ABI (ibv_cmd_*@IBVERBS_PRIVATE_34),
 * called the way a provider plug-in calls them: the command struct of
 * kern_abi.h followed by the driver's request, the kernel's core response
 * followed by the driver's response (rxe's, <rdma/rdma_user_rxe.h>).
 *
 * The context is rxe0 opened with the public API, so against Debian's
 * libibverbs it belongs to librxe and against ours to the built-in
 * provider; only effects that are the same on both are checked with
 * gc_ok(): return values, handles and keys filled in, the driver's
 * response (rxe's mmap information, AH number) written, objects
 * destroyable, and the errno of bad input.  The core response is checked
 * only for commands rdma-core 44 always sends with write() (for the
 * others it uses ioctl(), which does not write it).
 *
 * The child guard is ours (gc_guard()): in a fork child the commands on
 * the inherited context fail with EPERM, destroys return 0, and the
 * parent's objects still work afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_user_rxe.h>

#include "guest_common.h"
#include "kern_abi.h"

/* rdma-core 65's extra arguments of the provider commands (NULL: none). */
#if IBV_RDMA_CORE_RELEASE >= 65
#define CMD65_CQ_PROV NULL,
#define CMD65_QP_DRIVER , NULL
#define CMD65_FD_ARR NULL,
#else
#define CMD65_CQ_PROV
#define CMD65_QP_DRIVER
#define CMD65_FD_ARR
#endif

#define LEN 4096

/*
 * Kernels before 5.11 still let user space issue POLL_CQ, POST_RECV and
 * POST_SRQ_RECV on rxe's objects (rxe answers no completion, and EINVAL),
 * and gate the extended commands per driver, rxe lacking MODIFY_QP_EX
 * (EOPNOTSUPP): 628c02bf38aa ("RDMA: Remove uverbs cmds from drivers that
 * don't use them") and bd2a40cc2463 ("RDMA/core Remove
 * uverbs_ex_cmd_mask") changed both.  rxe returns an AH number from
 * create_ah since 5.16 (73a549321003, "RDMA/rxe: Create AH index and
 * return to user space"); before, 0.  The library passes each answer on.
 */
static bool old_rxe_cmds(void)
{
	return !gc_kernel_at_least(5, 11);
}

struct objs {
	struct gc_dev dev, dev1;
	struct ibv_pd pd;
	struct verbs_mr mr;
	struct ibv_cq cq;
	struct ibv_qp qp;
	struct ibv_srq srq;
	void *buf;
	int max_mw; /* what rxe0 reports: 0 without memory windows */
};

static void test_pd_mr_mw(struct objs *o)
{
	struct ibv_context *ctx = o->dev.ctx;
	struct ibv_alloc_pd pd_cmd = {};
	struct ib_uverbs_alloc_pd_resp pd_resp = {};
	struct ibv_reg_mr mr_cmd = {};
	struct ib_uverbs_reg_mr_resp mr_resp = {};
	struct ibv_rereg_mr rr_cmd = {};
	struct ib_uverbs_rereg_mr_resp rr_resp = {};
	struct ibv_alloc_mw mw_cmd = {};
	struct ib_uverbs_alloc_mw_resp mw_resp = {};
	struct ibv_mw mw = {};
	int err;

	pd_resp.pd_handle = UINT32_MAX;
	err = ibv_cmd_alloc_pd(ctx, &o->pd, &pd_cmd, sizeof(pd_cmd), &pd_resp,
			       sizeof(pd_resp));
	gc_ok(!err && o->pd.context == ctx,
	      "alloc_pd: %s, context set", strerror(err));
	gc_ok(o->pd.handle == pd_resp.pd_handle,
	      "alloc_pd: handle %u is the core response's %u", o->pd.handle,
	      pd_resp.pd_handle);

	o->buf = calloc(1, LEN);
	mr_resp.mr_handle = UINT32_MAX;
	err = ibv_cmd_reg_mr(&o->pd, o->buf, LEN, (uintptr_t)o->buf,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
			     &o->mr, &mr_cmd, sizeof(mr_cmd), &mr_resp,
			     sizeof(mr_resp));
	gc_ok(!err && o->mr.ibv_mr.context == ctx && o->mr.ibv_mr.lkey &&
		      o->mr.ibv_mr.rkey,
	      "reg_mr on the command's PD: %s, lkey 0x%x rkey 0x%x",
	      strerror(err), o->mr.ibv_mr.lkey, o->mr.ibv_mr.rkey);
	gc_ok(o->mr.ibv_mr.handle == mr_resp.mr_handle &&
		      o->mr.ibv_mr.lkey == mr_resp.lkey &&
		      o->mr.ibv_mr.rkey == mr_resp.rkey &&
		      o->mr.mr_type == IBV_MR_TYPE_MR &&
		      o->mr.access ==
			      (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ),
	      "reg_mr: handle and keys are the core response's, type and "
	      "access recorded");
	err = ibv_cmd_reg_mr(&o->pd, o->buf, SIZE_MAX, 0,
			     IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE,
			     &o->mr, &mr_cmd, sizeof(mr_cmd), &mr_resp,
			     sizeof(mr_resp));
	gc_ok(err == EINVAL, "reg_mr: implicit ODP at an address: %s",
	      strerror(err));

	/*
	 * The kernel's answer: rxe changes an MR's access in place since 6.5
	 * (544c7f62cf32, "RDMA/rxe: Implement rereg_user_mr"), and has no
	 * rereg_user_mr before.
	 */
	err = ibv_cmd_rereg_mr(&o->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, 0, 0,
			       IBV_ACCESS_LOCAL_WRITE, NULL, &rr_cmd,
			       sizeof(rr_cmd), &rr_resp, sizeof(rr_resp));
	gc_ok(err == (gc_kernel_at_least(6, 5) ? 0 : EOPNOTSUPP),
	      "rereg_mr (access) on rxe of kernel %s: %s", gc_kernel_release(),
	      strerror(err));

	mw_resp.mw_handle = UINT32_MAX;
	err = ibv_cmd_alloc_mw(&o->pd, IBV_MW_TYPE_1, &mw, &mw_cmd,
			       sizeof(mw_cmd), &mw_resp, sizeof(mw_resp));
	if (!o->max_mw) {
		/* This rxe has no memory windows: the kernel says so. */
		gc_ok(err == EOPNOTSUPP, "alloc_mw on rxe with max_mw 0: %s",
		      strerror(err));
		return;
	}
	gc_ok(!err && mw.context == ctx && mw.pd == &o->pd &&
		      mw.type == IBV_MW_TYPE_1 && mw.rkey == mw_resp.rkey &&
		      mw.handle == mw_resp.mw_handle,
	      "alloc_mw: %s, rkey 0x%x and handle from the core response",
	      strerror(err), mw.rkey);
	if (!err) {
		err = ibv_cmd_dealloc_mw(&mw);
		gc_ok(!err, "dealloc_mw: %s", strerror(err));
	}
}

static void test_cq(struct objs *o)
{
	struct ibv_context *ctx = o->dev.ctx;
	struct {
		struct ibv_create_cq ibv;
	} cmd = {};
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct rxe_create_cq_resp drv;
	} resp = {};
	struct ibv_resize_cq rs_cmd = {};
	struct {
		struct ib_uverbs_resize_cq_resp core;
		struct rxe_resize_cq_resp drv;
	} rs_resp = {};
	struct ibv_create_cq_ex x_cmd = {};
	struct {
		struct ib_uverbs_ex_create_cq_resp core;
		struct rxe_create_cq_resp drv;
	} x_resp = {};
	struct ibv_cq_init_attr_ex xattr = { .cqe = 16 };
	struct ibv_modify_cq mod_cmd = {};
	struct ibv_modify_cq_attr mod = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = 1, .cq_period = 1 },
	};
	struct verbs_cq xcq = {};
	struct ibv_wc wc[4];
	int err, n;

	err = ibv_cmd_create_cq(ctx, 32, NULL, 0, &o->cq, &cmd.ibv,
				sizeof(cmd), &resp.core, sizeof(resp));
	gc_ok(!err && o->cq.context == ctx && o->cq.cqe >= 32,
	      "create_cq: %s, cqe %d", strerror(err), o->cq.cqe);
	gc_ok(resp.drv.mi.size > 0,
	      "create_cq: rxe's response (queue of %u bytes) written",
	      resp.drv.mi.size);

	err = ibv_cmd_resize_cq(&o->cq, 100, &rs_cmd, sizeof(rs_cmd),
				&rs_resp.core, sizeof(rs_resp));
	gc_ok(!err && o->cq.cqe >= 100 && o->cq.cqe == (int)rs_resp.core.cqe,
	      "resize_cq: %s, cqe %d from the core response", strerror(err),
	      o->cq.cqe);
	gc_ok(rs_resp.drv.mi.size > 0, "resize_cq: rxe's response written");

	err = ibv_cmd_req_notify_cq(&o->cq, 0);
	gc_ok(!err, "req_notify_cq: %s", strerror(err));
	/* rxe's CQs live in user memory: no POLL_CQ command for them. */
	errno = 0;
	n = ibv_cmd_poll_cq(&o->cq, 4, wc);
	if (old_rxe_cmds())
		gc_ok(n == 0, "poll_cq on rxe of kernel %s: %d (%s)",
		      gc_kernel_release(), n, strerror(errno));
	else
		gc_ok(n == -1 && errno == EOPNOTSUPP, "poll_cq on rxe: %d (%s)",
		      n, strerror(errno));

	/* rxe cannot moderate: the kernel says so. */
	err = ibv_cmd_modify_cq(&o->cq, &mod, &mod_cmd, sizeof(mod_cmd));
	gc_ok(err == EOPNOTSUPP, "modify_cq on rxe: %s", strerror(err));
	mod.attr_mask = IBV_CQ_ATTR_RESERVED;
	err = ibv_cmd_modify_cq(&o->cq, &mod, &mod_cmd, sizeof(mod_cmd));
	gc_ok(err == EINVAL, "modify_cq: unknown attribute: %s",
	      strerror(err));

	err = ibv_cmd_create_cq_ex(ctx, &xattr, CMD65_CQ_PROV & xcq, &x_cmd,
				   sizeof(x_cmd), &x_resp.core, sizeof(x_resp),
				   0);
	gc_ok(!err && xcq.cq.context == ctx && xcq.cq.cqe >= 16 &&
		      x_resp.drv.mi.size > 0,
	      "create_cq_ex: %s, cqe %d, rxe's response written",
	      strerror(err), xcq.cq.cqe);
	if (!err) {
		err = ibv_cmd_destroy_cq(&xcq.cq);
		gc_ok(!err, "destroy_cq (ex): %s", strerror(err));
	}
	xattr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD << 1;
	err = ibv_cmd_create_cq_ex(ctx, &xattr, CMD65_CQ_PROV & xcq, &x_cmd,
				   sizeof(x_cmd), &x_resp.core, sizeof(x_resp),
				   0);
	gc_ok(err == EOPNOTSUPP, "create_cq_ex: unknown comp_mask: %s",
	      strerror(err));
}

static void test_srq(struct objs *o)
{
	struct ibv_srq_init_attr attr = { .attr = { .max_wr = 8,
						    .max_sge = 1 } };
	struct ibv_srq_init_attr_ex xattr = {
		.attr = { .max_wr = 8, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.pd = &o->pd,
	};
	struct ibv_create_srq cmd = {};
	struct {
		struct ib_uverbs_create_srq_resp core;
		struct rxe_create_srq_resp drv;
	} resp = {};
	struct ibv_create_xsrq x_cmd = {};
	struct {
		struct ibv_modify_srq ibv;
		struct rxe_modify_srq_cmd drv;
	} mcmd = {};
	struct ibv_query_srq qcmd = {};
	struct ibv_srq_attr sattr = { .srq_limit = 2 };
	struct verbs_srq xsrq = {};
	struct ibv_sge sge = { .addr = (uintptr_t)o->buf, .length = 8,
			       .lkey = o->mr.ibv_mr.lkey };
	struct ibv_sge sges[2] = { sge, sge };
	struct ibv_recv_wr wr2 = { .wr_id = 2, .sg_list = sges,
				   .num_sge = 2 };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = sges, .num_sge = 2,
				  .next = &wr2 };
	struct ibv_recv_wr *bad = NULL;
	int err;

	err = ibv_cmd_create_srq(&o->pd, &o->srq, &attr, &cmd, sizeof(cmd),
				 &resp.core, sizeof(resp));
	gc_ok(!err && o->srq.context == o->dev.ctx && attr.attr.max_wr >= 8 &&
		      resp.drv.mi.size > 0,
	      "create_srq: %s, max_wr %u, rxe's response written",
	      strerror(err), attr.attr.max_wr);

	err = ibv_cmd_modify_srq(&o->srq, &sattr, IBV_SRQ_LIMIT, &mcmd.ibv,
				 sizeof(mcmd));
	gc_ok(!err, "modify_srq (limit, with rxe's request): %s",
	      strerror(err));
	memset(&sattr, 0, sizeof(sattr));
	err = ibv_cmd_query_srq(&o->srq, &sattr, &qcmd, sizeof(qcmd));
	gc_ok(!err && sattr.srq_limit == 2 && sattr.max_wr >= 8 &&
		      sattr.max_sge >= 1,
	      "query_srq: %s, limit %u max_wr %u", strerror(err),
	      sattr.srq_limit, sattr.max_wr);

	/* Nor for its receive queues: the first request is the bad one. */
	err = ibv_cmd_post_srq_recv(&o->srq, &wr, &bad);
	gc_ok(err == (old_rxe_cmds() ? EINVAL : EOPNOTSUPP) && bad == &wr,
	      "post_srq_recv on rxe: %s, bad_wr is the first", strerror(err));

	memset(&resp, 0, sizeof(resp));
	err = ibv_cmd_create_srq_ex(o->dev.ctx, &xsrq, &xattr, &x_cmd,
				    sizeof(x_cmd), &resp.core, sizeof(resp));
	gc_ok(!err && xsrq.srq.context == o->dev.ctx &&
		      resp.drv.mi.size > 0,
	      "create_srq_ex (basic): %s, rxe's response written",
	      strerror(err));
	if (!err) {
		err = ibv_cmd_destroy_srq(&xsrq.srq);
		gc_ok(!err, "destroy_srq (ex): %s", strerror(err));
	}
	xattr.comp_mask = IBV_SRQ_INIT_ATTR_RESERVED;
	err = ibv_cmd_create_srq_ex(o->dev.ctx, &xsrq, &xattr, &x_cmd,
				    sizeof(x_cmd), &resp.core, sizeof(resp));
	gc_ok(err == EOPNOTSUPP, "create_srq_ex: unknown comp_mask: %s",
	      strerror(err));
}

static void test_qp(struct objs *o)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = &o->cq,
		.recv_cq = &o->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_init_attr_ex xattr = {
		.send_cq = &o->cq,
		.recv_cq = &o->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = &o->pd,
	};
	struct ibv_create_qp cmd = {};
	struct {
		struct ib_uverbs_create_qp_resp core;
		struct rxe_create_qp_resp drv;
	} resp = {};
	struct ibv_create_qp_ex x_cmd = {};
	struct {
		struct ib_uverbs_ex_create_qp_resp core;
		struct rxe_create_qp_resp drv;
	} x_resp = {};
	struct ibv_modify_qp mcmd = {};
	struct ibv_modify_qp_ex mx_cmd = {};
	struct ib_uverbs_ex_modify_qp_resp mx_resp = {};
	struct ibv_query_qp qcmd = {};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = GC_PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_qp_attr q = {};
	struct ibv_qp_init_attr qi = {};
	const int init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			      IBV_QP_ACCESS_FLAGS;
	struct verbs_qp xqp = {};
	struct ibv_sge sge = { .addr = (uintptr_t)o->buf, .length = 8,
			       .lkey = o->mr.ibv_mr.lkey };
	struct ibv_send_wr swr2 = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				    .opcode = IBV_WR_SEND };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .next = &swr2 };
	struct ibv_send_wr *sbad = NULL;
	struct ibv_recv_wr rwr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad = NULL;
	union ibv_gid mgid = { .raw = { 0xff, 0x0e } };
	int err;

	err = ibv_cmd_create_qp(&o->pd, &o->qp, &attr, &cmd, sizeof(cmd),
				&resp.core, sizeof(resp));
	gc_ok(!err && o->qp.context == o->dev.ctx && o->qp.qp_num > 1 &&
		      o->qp.state == IBV_QPS_RESET &&
		      o->qp.qp_type == IBV_QPT_RC && o->qp.pd == &o->pd &&
		      o->qp.send_cq == &o->cq,
	      "create_qp: %s, qpn %u, state, type, PD and CQ set",
	      strerror(err), o->qp.qp_num);
	gc_ok(attr.cap.max_send_wr >= 4 && attr.cap.max_recv_wr >= 4 &&
		      resp.drv.sq_mi.size > 0 && resp.drv.rq_mi.size > 0,
	      "create_qp: granted caps (send %u recv %u), rxe's response "
	      "written",
	      attr.cap.max_send_wr, attr.cap.max_recv_wr);

	/* RESET: rxe refuses to send and names the first request. */
	err = ibv_cmd_post_send(&o->qp, &swr, &sbad);
	gc_ok(err == EINVAL && sbad == &swr,
	      "post_send in RESET: %s, bad_wr is the first", strerror(err));
	/* Receive queues are in user memory: no POST_RECV on rxe. */
	err = ibv_cmd_post_recv(&o->qp, &rwr, &rbad);
	gc_ok(err == (old_rxe_cmds() ? EINVAL : EOPNOTSUPP) && rbad == &rwr,
	      "post_recv on rxe: %s, bad_wr is the first", strerror(err));

	err = ibv_cmd_modify_qp(&o->qp, &a, init_mask, &mcmd, sizeof(mcmd));
	gc_ok(!err, "modify_qp to INIT: %s", strerror(err));
	err = ibv_cmd_query_qp(&o->qp, &q, IBV_QP_STATE | IBV_QP_PORT, &qi,
			       &qcmd, sizeof(qcmd));
	gc_ok(!err && q.qp_state == IBV_QPS_INIT && q.port_num == GC_PORT &&
		      qi.send_cq == &o->cq && qi.qp_type == IBV_QPT_RC,
	      "query_qp: %s, state %d port %u, init attributes from the QP",
	      strerror(err), q.qp_state, q.port_num);
	err = ibv_cmd_modify_qp(&o->qp, &a, IBV_QP_RATE_LIMIT, &mcmd,
				sizeof(mcmd));
	gc_ok(err == EOPNOTSUPP, "modify_qp: rate limit needs _ex: %s",
	      strerror(err));
	err = ibv_cmd_query_qp(&o->qp, &q, IBV_QP_RATE_LIMIT, &qi, &qcmd,
			       sizeof(qcmd));
	gc_ok(err == EOPNOTSUPP, "query_qp: rate limit: %s", strerror(err));

	/* Multicast needs a UD QP. */
	err = ibv_cmd_attach_mcast(&o->qp, &mgid, 0);
	gc_ok(err == EINVAL, "attach_mcast on an RC QP: %s", strerror(err));

	err = ibv_cmd_create_qp_ex2(o->dev.ctx, &xqp, &xattr, &x_cmd,
				    sizeof(x_cmd), &x_resp.core,
				    sizeof(x_resp) CMD65_QP_DRIVER);
	gc_ok(!err && xqp.qp.context == o->dev.ctx && xqp.qp.qp_num > 1 &&
		      xqp.comp_mask == 0 && x_resp.drv.sq_mi.size > 0,
	      "create_qp_ex2: %s, comp_mask %u, rxe's response written",
	      strerror(err), xqp.comp_mask);
	if (!err) {
		err = ibv_cmd_modify_qp_ex(&xqp.qp, &a, init_mask, &mx_cmd,
					   sizeof(mx_cmd), &mx_resp,
					   sizeof(mx_resp));
		gc_ok(err == (old_rxe_cmds() ? EOPNOTSUPP : 0),
		      "modify_qp_ex to INIT: %s", strerror(err));
		err = ibv_cmd_destroy_qp(&xqp.qp);
		gc_ok(!err, "destroy_qp (ex2): %s", strerror(err));
	}
	xattr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS << 1;
	err = ibv_cmd_create_qp_ex2(o->dev.ctx, &xqp, &xattr, &x_cmd,
				    sizeof(x_cmd), &x_resp.core,
				    sizeof(x_resp) CMD65_QP_DRIVER);
	gc_ok(err == EINVAL, "create_qp_ex2: unknown comp_mask: %s",
	      strerror(err));
}

static void test_ah(struct objs *o)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = GC_PORT,
		.grh = { .dgid = o->dev1.gid, .sgid_index = o->dev.gid_index,
			 .hop_limit = 1 },
	};
	struct {
		struct ib_uverbs_create_ah_resp core;
		struct rxe_create_ah_resp drv;
	} resp = {};
	struct ibv_ah ah = {};
	int err;

	resp.core.ah_handle = UINT32_MAX;
	err = ibv_cmd_create_ah(&o->pd, &ah, &attr, &resp.core, sizeof(resp));
	gc_ok(!err && ah.context == o->dev.ctx &&
		      ah.handle == resp.core.ah_handle &&
		      (resp.drv.ah_num || !gc_kernel_at_least(5, 16)),
	      "create_ah: %s, handle from the core response, rxe's AH "
	      "number %u",
	      strerror(err), resp.drv.ah_num);
	if (!err) {
		err = ibv_cmd_destroy_ah(&ah);
		gc_ok(!err, "destroy_ah: %s", strerror(err));
	}
}

static void test_xrc(struct objs *o)
{
	struct ibv_xrcd_init_attr attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_open_xrcd cmd = {};
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct verbs_xrcd xrcd = {};
	struct ibv_qp_open_attr oattr = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM,
		.qp_num = o->qp.qp_num,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_open_qp ocmd = {};
	struct ib_uverbs_create_qp_resp oresp = {};
	struct verbs_qp oqp = {};
	int err;

	/* rxe has no XRC: the kernel's answer. */
	err = ibv_cmd_open_xrcd(o->dev.ctx, &xrcd, sizeof(xrcd), &attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	gc_ok(err == EOPNOTSUPP, "open_xrcd on rxe: %s", strerror(err));
	attr.comp_mask = IBV_XRCD_INIT_ATTR_FD;
	err = ibv_cmd_open_xrcd(o->dev.ctx, &xrcd, sizeof(xrcd), &attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	gc_ok(err == EINVAL, "open_xrcd without oflags: %s", strerror(err));
	attr.comp_mask = IBV_XRCD_INIT_ATTR_RESERVED;
	err = ibv_cmd_open_xrcd(o->dev.ctx, &xrcd, sizeof(xrcd), &attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	gc_ok(err == EOPNOTSUPP, "open_xrcd: unknown comp_mask: %s",
	      strerror(err));
	err = ibv_cmd_open_qp(o->dev.ctx, &oqp, sizeof(oqp), &oattr, &ocmd,
			      sizeof(ocmd), &oresp, sizeof(oresp));
	gc_ok(err == EINVAL, "open_qp without an XRC domain: %s",
	      strerror(err));
}

/* In a fork child: nothing reaches the kernel, destroys are no-ops. */
static int child(struct objs *o)
{
	struct ibv_alloc_pd pd_cmd = {};
	struct ib_uverbs_alloc_pd_resp pd_resp = {};
	struct ibv_reg_mr mr_cmd = {};
	struct ib_uverbs_reg_mr_resp mr_resp = {};
	struct ibv_modify_qp mcmd = {};
	struct ibv_query_qp qcmd = {};
	struct ibv_create_cq cq_cmd = {};
	struct ib_uverbs_create_cq_resp cq_resp = {};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_init_attr qi;
	struct ibv_pd pd = {};
	struct verbs_mr mr = {};
	struct ibv_cq cq = {};
	struct ibv_sge sge = { .addr = (uintptr_t)o->buf, .length = 8,
			       .lkey = o->mr.ibv_mr.lkey };
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr *sbad = NULL;
	struct ibv_wc wc;
	int err, n;

	err = ibv_cmd_alloc_pd(o->dev.ctx, &pd, &pd_cmd, sizeof(pd_cmd),
			       &pd_resp, sizeof(pd_resp));
	gc_guard(err == EPERM, "child: alloc_pd: %s", strerror(err));
	err = ibv_cmd_reg_mr(&o->pd, o->buf, LEN, (uintptr_t)o->buf,
			     IBV_ACCESS_LOCAL_WRITE, &mr, &mr_cmd,
			     sizeof(mr_cmd), &mr_resp, sizeof(mr_resp));
	gc_guard(err == EPERM, "child: reg_mr: %s", strerror(err));
	err = ibv_cmd_create_cq(o->dev.ctx, 8, NULL, 0, &cq, &cq_cmd,
				sizeof(cq_cmd), &cq_resp, sizeof(cq_resp));
	gc_guard(err == EPERM, "child: create_cq: %s", strerror(err));
	err = ibv_cmd_modify_qp(&o->qp, &a, IBV_QP_STATE, &mcmd, sizeof(mcmd));
	gc_guard(err == EPERM, "child: modify_qp: %s", strerror(err));
	err = ibv_cmd_query_qp(&o->qp, &a, IBV_QP_STATE, &qi, &qcmd,
			       sizeof(qcmd));
	gc_guard(err == EPERM, "child: query_qp: %s", strerror(err));
	err = ibv_cmd_req_notify_cq(&o->cq, 0);
	gc_guard(err == EPERM, "child: req_notify_cq: %s", strerror(err));
	errno = 0;
	n = ibv_cmd_poll_cq(&o->cq, 1, &wc);
	gc_guard(n == -1 && errno == EPERM, "child: poll_cq: %d (%s)", n,
		 strerror(errno));
	err = ibv_cmd_post_send(&o->qp, &swr, &sbad);
	gc_guard(err == EPERM && sbad == &swr, "child: post_send: %s",
		 strerror(err));

	/* The parent's objects: "destroyed" here, alive there. */
	err = ibv_cmd_destroy_qp(&o->qp);
	gc_guard(!err, "child: destroy_qp returns 0: %s", strerror(err));
	err = ibv_cmd_destroy_srq(&o->srq);
	gc_guard(!err, "child: destroy_srq returns 0: %s", strerror(err));
	err = ibv_cmd_destroy_cq(&o->cq);
	gc_guard(!err, "child: destroy_cq returns 0: %s", strerror(err));
	err = ibv_cmd_dereg_mr(&o->mr);
	gc_guard(!err, "child: dereg_mr returns 0: %s", strerror(err));
	err = ibv_cmd_dealloc_pd(&o->pd);
	gc_guard(!err, "child: dealloc_pd returns 0: %s", strerror(err));
	return gc_finish();
}

static void test_fork(struct objs *o)
{
	struct ibv_query_qp qcmd = {};
	struct ibv_query_srq scmd = {};
	struct ibv_reg_mr mr_cmd = {};
	struct ib_uverbs_reg_mr_resp mr_resp = {};
	struct ibv_qp_attr q = {};
	struct ibv_qp_init_attr qi;
	struct ibv_srq_attr sattr;
	struct verbs_mr mr = {};
	int status = -1, err;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child(o) ? 1 : 0);
	gc_ok(pid > 0 && gc_wait_child(pid, &status, GC_CHILD_TIMEOUT_MS,
				       "child issuing the commands") == pid,
	      "child ran");
	gc_guard(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "child: every command refused or skipped");

	err = ibv_cmd_query_qp(&o->qp, &q, IBV_QP_STATE, &qi, &qcmd,
			       sizeof(qcmd));
	gc_guard(!err && q.qp_state == IBV_QPS_INIT,
		 "parent: its QP is alive and unchanged: %s, state %d",
		 strerror(err), q.qp_state);
	err = ibv_cmd_query_srq(&o->srq, &sattr, &scmd, sizeof(scmd));
	gc_guard(!err, "parent: its SRQ is alive: %s", strerror(err));
	err = ibv_cmd_req_notify_cq(&o->cq, 0);
	gc_guard(!err, "parent: its CQ is alive: %s", strerror(err));
	err = ibv_cmd_reg_mr(&o->pd, o->buf, LEN, (uintptr_t)o->buf,
			     IBV_ACCESS_LOCAL_WRITE, &mr, &mr_cmd,
			     sizeof(mr_cmd), &mr_resp, sizeof(mr_resp));
	gc_guard(!err, "parent: its PD is alive: %s", strerror(err));
	if (!err)
		ibv_cmd_dereg_mr(&mr);
}

int main(void)
{
	struct objs o = {};
	int err;

	gc_start("cmd_plugin_abi");
	if (gc_dev_open(&o.dev, 0) || gc_dev_open(&o.dev1, 1)) {
		gc_ok(false, "open rxe0 and rxe1");
		return gc_finish();
	}
	{
		struct ibv_device_attr attr;

		err = ibv_query_device(o.dev.ctx, &attr);
		gc_ok(!err, "query rxe0: %s, max_mw %d", strerror(err),
		      err ? 0 : attr.max_mw);
		o.max_mw = err ? 0 : attr.max_mw;
	}
	test_pd_mr_mw(&o);
	test_cq(&o);
	test_srq(&o);
	test_qp(&o);
	test_ah(&o);
	test_xrc(&o);
	test_fork(&o);

	/* Upstream's child destroyed them already: a guarantee of ours. */
	err = ibv_cmd_destroy_qp(&o.qp);
	gc_guard(!err, "parent: destroy_qp: %s", strerror(err));
	err = ibv_cmd_destroy_srq(&o.srq);
	gc_guard(!err, "parent: destroy_srq: %s", strerror(err));
	err = ibv_cmd_destroy_cq(&o.cq);
	gc_guard(!err, "parent: destroy_cq: %s", strerror(err));
	err = ibv_cmd_dereg_mr(&o.mr);
	gc_guard(!err, "parent: dereg_mr: %s", strerror(err));
	err = ibv_cmd_dealloc_pd(&o.pd);
	gc_guard(!err, "parent: dealloc_pd: %s", strerror(err));
	free(o.buf);
	gc_dev_close(&o.dev1);
	gc_dev_close(&o.dev);
	return gc_finish();
}
