// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The child guard through the IBVERBS_1.0 entries.  A parent opens rxe0
 * with the 1.0 API and makes a PD, an MR, a CQ, an SRQ and a UD QP in RTS;
 * its fork child then tries each of them through the 1.0 entries and
 * through the 1.0 context's data-path ops.  Every verb fails with EPERM
 * (poll_cq with a negative count), each destroy returns 0 without
 * reaching the parent's kernel object, and the parent's objects still
 * work afterwards.  The child can open the device afresh through 1.0.
 *
 * What the parent keeps is read from the kernel: its object counts
 * (`rdma resource show`) before the fork and after the child, and the
 * count of each kind around each of the child's destroys.  Upstream's
 * destroys return 0 too, after destroying the parent's object through the
 * kernel's ioctl path; the destroys the kernel cannot show (AH, context)
 * are upstream behaviour.
 *
 * Upstream has no child guard: against Debian's libibverbs this test
 * fails in exactly its gc_guard() checks (ctest label "guard").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_common.h"
#include "verbs_1_0.h"

#define LEN 4096

struct objs {
	struct ibv_device_1_0 **list;
	struct ibv_context_1_0 *ctx;
	struct ibv_pd_1_0 *pd;
	struct ibv_mr_1_0 *mr;
	struct ibv_cq_1_0 *cq;
	struct ibv_srq_1_0 *srq;
	struct ibv_qp_1_0 *qp;
	struct ibv_ah_1_0 *ah;
	void *buf;
	/* `rdma resource show` before the fork */
	char counts[1024];
};

/* The kernel's count of @type objects on rxe0 now, or -1. */
static long count_of(const char *type)
{
	char buf[1024];

	return gc_rdma_counts(buf, sizeof(buf)) ?
		       gc_rdma_count(buf, "rxe0", type) :
		       -1;
}

static struct ibv_device_1_0 *rxe0(struct ibv_device_1_0 **list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v10_get_device_name(list[i]), "rxe0"))
			return list[i];
	return NULL;
}

static int setup(struct objs *o)
{
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 4,
						     .max_sge = 1 } };
	struct ibv_qp_init_attr_1_0 qinit = {
		.cap = { .max_send_wr = 4,
			 .max_recv_wr = 4,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT,
				    .port_num = GC_PORT,
				    .qkey = GC_QKEY };
	struct ibv_ah_attr ah_attr = { .is_global = 1,
				       .port_num = GC_PORT,
				       .grh = { .hop_limit = 1 } };
	struct ibv_device_1_0 *dev;
	int n = 0, index;

	memset(o, 0, sizeof(*o));
	o->list = v10_get_device_list(&n);
	dev = o->list ? rxe0(o->list, n) : NULL;
	o->ctx = dev ? v10_open_device(dev) : NULL;
	o->pd = o->ctx ? v10_alloc_pd(o->ctx) : NULL;
	o->buf = aligned_alloc(LEN, LEN);
	if (!o->pd || !o->buf)
		return -1;
	o->mr = v10_reg_mr(o->pd, o->buf, LEN, IBV_ACCESS_LOCAL_WRITE);
	o->cq = v10_create_cq(o->ctx, 8, NULL, NULL, 0);
	o->srq = v10_create_srq(o->pd, &sinit);
	if (!o->mr || !o->cq || !o->srq)
		return -1;
	/* An AH to this port itself, so that a request names a real one. */
	index = gc_find_gid(o->ctx->real_context, GC_PORT, "198.18.0.1",
			    &ah_attr.grh.dgid);
	if (index < 0)
		return -1;
	ah_attr.grh.sgid_index = index;
	o->ah = v10_create_ah(o->pd, &ah_attr);
	if (!o->ah)
		return -1;
	qinit.send_cq = qinit.recv_cq = o->cq;
	o->qp = v10_create_qp(o->pd, &qinit);
	if (!o->qp || v10_modify_qp(o->qp, &attr,
				    IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					    IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	attr.qp_state = IBV_QPS_RTR;
	if (v10_modify_qp(o->qp, &attr, IBV_QP_STATE))
		return -1;
	attr.qp_state = IBV_QPS_RTS;
	return v10_modify_qp(o->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN) ? -1 :
									   0;
}

static void want_eperm(int ret, const char *verb)
{
	gc_guard(ret == EPERM, "child: 1.0 %s -> EPERM (%d: %s)", verb, ret,
		 strerror(ret));
}

static void want_null_eperm(void *obj, const char *verb)
{
	int err = errno;

	gc_guard(!obj && err == EPERM, "child: 1.0 %s -> NULL/EPERM (%s)", verb,
		 obj ? "got an object" : strerror(err));
}

/* The 1.0 context's ops, as a 1.0 program's inline functions call them. */
static void child_data_path(struct objs *o)
{
	struct ibv_sge sge = { (uintptr_t)o->buf, 64, o->mr->lkey };
	struct ibv_send_wr_1_0 swr = { .wr_id = 1,
				       .sg_list = &sge,
				       .num_sge = 1,
				       .opcode = IBV_WR_SEND },
			       *sbad = NULL;
	struct ibv_recv_wr_1_0 rwr = { NULL, 2, &sge, 1 }, *rbad = NULL;
	struct ibv_wc wc;
	int ret;

	swr.wr.ud.ah = o->ah;
	swr.wr.ud.remote_qpn = o->qp->qp_num;
	swr.wr.ud.remote_qkey = GC_QKEY;
	ret = o->ctx->ops.post_send(o->qp, &swr, &sbad);
	want_eperm(ret, "post_send");
	gc_guard(sbad == &swr, "child: post_send names the 1.0 request");
	ret = o->ctx->ops.post_recv(o->qp, &rwr, &rbad);
	want_eperm(ret, "post_recv");
	gc_guard(rbad == &rwr, "child: post_recv names the 1.0 request");
	rbad = NULL;
	want_eperm(o->ctx->ops.post_srq_recv(o->srq, &rwr, &rbad),
		   "post_srq_recv");
	ret = o->ctx->ops.poll_cq(o->cq, 1, &wc);
	gc_guard(ret < 0, "child: 1.0 poll_cq -> %d (< 0)", ret);
	want_eperm(o->ctx->ops.req_notify_cq(o->cq, 0), "req_notify_cq");
}

/*
 * Creating verbs on the inherited 1.0 context and PD give the child
 * objects of its own, which it can destroy again.
 */
static void child_own_objects(struct objs *o, void *buf, size_t len)
{
	struct ibv_pd_1_0 *pd = v10_alloc_pd(o->ctx);
	struct ibv_mr_1_0 *mr =
		v10_reg_mr(o->pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_cq_1_0 *cq = v10_create_cq(o->ctx, 4, NULL, NULL, 0);
	bool made = pd && mr && cq;
	long parent_ctx = gc_rdma_count(o->counts, "rxe0", "ctx");
	long ctx = count_of("ctx");

	/*
	 * Upstream makes them too, in the parent's kernel context; ours are
	 * on a fresh open of rxe0, which the kernel counts.
	 */
	gc_guard(made && parent_ctx >= 0 && ctx == parent_ctx + 1,
		 "child: 1.0 alloc_pd, reg_mr, create_cq give it its own, on "
		 "a kernel context of its own (%s; rxe0 ctx: %ld before the "
		 "fork, %ld now)",
		 made ? "made" : strerror(errno), parent_ctx, ctx);
	made = made && parent_ctx >= 0 && ctx == parent_ctx + 1;
	gc_guard(made && !v10_destroy_cq(cq) && !v10_dereg_mr(mr) &&
			 !v10_dealloc_pd(pd),
		 "child: 1.0 destroys its own objects -> 0");
	if (!made) {
		if (cq)
			v10_destroy_cq(cq);
		if (mr)
			v10_dereg_mr(mr);
		if (pd)
			v10_dealloc_pd(pd);
	}
}

static void child_control_path(struct objs *o)
{
	struct ibv_qp_attr qattr = { .qp_state = IBV_QPS_ERR };
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_srq_attr sattr;
	struct ibv_qp_init_attr_1_0 qinit = { .send_cq = o->cq,
					      .recv_cq = o->cq,
					      .cap = { 1, 1, 1, 1, 0 },
					      .qp_type = IBV_QPT_UD };
	struct ibv_srq_1_0 *srq;
	char scratch[64];

	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 4,
						     .max_sge = 1 } };

	child_own_objects(o, scratch, sizeof(scratch));
	/*
	 * An SRQ on the inherited PD is the child's own (fork_child.c);
	 * upstream makes it too, in the parent's kernel context, which
	 * child_own_objects() tells apart by the kernel's context count.
	 */
	srq = v10_create_srq(o->pd, &sinit);
	gc_ok(srq && !v10_destroy_srq(srq),
	      "child: create_srq on the inherited PD, destroy_srq -> 0 (%s)",
	      srq ? "made" : strerror(errno));
	/* A QP on the parent's CQ: its completions are the parent's. */
	want_null_eperm(v10_create_qp(o->pd, &qinit), "create_qp");
	want_eperm(v10_query_device(o->ctx, &dattr), "query_device");
	want_eperm(v10_query_port(o->ctx, GC_PORT, &pattr), "query_port");
	want_eperm(v10_query_srq(o->srq, &sattr), "query_srq");
	want_eperm(v10_modify_qp(o->qp, &qattr, IBV_QP_STATE), "modify_qp");
}

/*
 * A destroy in the child: 0, and the parent's object still in the kernel,
 * by the count of its kind on rxe0.  @own is how many objects of the
 * child's own it also frees: the PD the child made for the inherited PD
 * it registered on (fork-support.md, "Destroying").  A kernel that does
 * not count the kind (5.10 has no SRQ count) leaves only the return value;
 * the parent's checks still see the object.
 */
#define KEPT(call, what, type, own)                                           \
	do {                                                                  \
		long before_ = count_of(type), after_;                        \
		int ret_ = (call);                                            \
                                                                              \
		after_ = count_of(type);                                      \
		if (before_ < 0 && after_ < 0)                                \
			gc_guard(ret_ == 0,                                   \
				 "child: 1.0 %s -> 0 (%d; this kernel does "  \
				 "not count %s objects)",                     \
				 what, ret_, type);                           \
		else                                                          \
			gc_guard(ret_ == 0 && before_ >= 0 &&                 \
					 after_ == before_ - (own),           \
				 "child: 1.0 %s -> 0 (%d), the parent's %s "  \
				 "stays in the kernel (rxe0 %s: %ld -> %ld)", \
				 what, ret_, type, type, before_, after_);    \
	} while (0)

/*
 * An AH has no count, and the kernel keeps a context while the parent
 * holds it: those two destroys returning 0 is upstream behaviour.
 */
static void child_cleanup(struct objs *o)
{
	gc_ok(!v10_destroy_ah(o->ah), "child: 1.0 destroy_ah -> 0");
	KEPT(v10_destroy_qp(o->qp), "destroy_qp", "qp", 0);
	KEPT(v10_destroy_srq(o->srq), "destroy_srq", "srq", 0);
	KEPT(v10_destroy_cq(o->cq), "destroy_cq", "cq", 0);
	KEPT(v10_dereg_mr(o->mr), "dereg_mr", "mr", 0);
	KEPT(v10_dealloc_pd(o->pd), "dealloc_pd", "pd", 1);
	gc_ok(!v10_close_device(o->ctx), "child: 1.0 close_device -> 0");
}

/* A child that wants RDMA opens the device itself, through 1.0 too. */
static void child_own(void)
{
	struct ibv_device_1_0 **list, *dev;
	struct ibv_context_1_0 *ctx;
	struct ibv_pd_1_0 *pd;
	int n = 0;

	list = v10_get_device_list(&n);
	dev = list ? rxe0(list, n) : NULL;
	ctx = dev ? v10_open_device(dev) : NULL;
	pd = ctx ? v10_alloc_pd(ctx) : NULL;
	gc_ok(pd != NULL, "child: 1.0 open_device and alloc_pd afresh (%s)",
	      pd ? "ok" : strerror(errno));
	if (pd)
		v10_dealloc_pd(pd);
	if (ctx)
		v10_close_device(ctx);
	v10_free_device_list(list);
}

int main(void)
{
	struct ibv_qp_attr qattr;
	struct ibv_qp_init_attr qinit;
	struct ibv_srq_attr sattr;
	struct ibv_pd_1_0 *pd;
	struct objs o;
	char now[1024];
	pid_t pid;
	int status, err;
	bool same;

	gc_start("compat_1_0_fork");
	if (!gc_ok(!setup(&o), "parent: 1.0 context, PD, MR, CQ, SRQ, UD QP"))
		return gc_finish();

	gc_ok(gc_rdma_counts(o.counts, sizeof(o.counts)) &&
		      gc_rdma_count(o.counts, "rxe0", "qp") > 0,
	      "parent: the kernel's object counts (rdma resource show)");

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		child_data_path(&o);
		child_control_path(&o);
		child_cleanup(&o);
		child_own();
		_exit(gc_finish());
	}
	if (pid > 0 && gc_wait_child(pid, &status, GC_CHILD_TIMEOUT_MS,
				     "child using the inherited objects") == pid)
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	else
		status = -1;
	gc_guard(status == 0, "child: every check passed (exit %d)", status);

	same = gc_rdma_counts(now, sizeof(now)) && !strcmp(now, o.counts);
	gc_guard(same,
		 "parent: the kernel's object counts are those before the "
		 "fork");
	if (!same)
		gc_diag("before the fork:\n%safter the child:\n%s", o.counts,
			now);

	/*
	 * The parent's objects survived the child's destroys.  The QP is
	 * asked through 1.1: rdma-core's 1.0 query_qp reads through the SRQ
	 * even when the QP has none.
	 */
	err = ibv_query_qp(o.qp->real_qp, &qattr, IBV_QP_STATE, &qinit);
	gc_guard(!err && qattr.qp_state == IBV_QPS_RTS,
		 "parent: its QP is still in RTS (%s)", strerror(err));
	err = v10_query_srq(o.srq, &sattr);
	gc_guard(!err, "parent: its SRQ still answers (%s)", strerror(err));
	pd = v10_alloc_pd(o.ctx);
	gc_ok(pd != NULL, "parent: its 1.0 context still allocates");
	if (pd)
		v10_dealloc_pd(pd);

	v10_destroy_ah(o.ah);
	v10_destroy_qp(o.qp);
	v10_destroy_srq(o.srq);
	v10_destroy_cq(o.cq);
	v10_dereg_mr(o.mr);
	v10_dealloc_pd(o.pd);
	v10_close_device(o.ctx);
	v10_free_device_list(o.list);
	free(o.buf);
	return gc_finish();
}
