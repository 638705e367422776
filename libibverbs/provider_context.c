// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Contexts of providers, the built-in ones and plug-ins alike.
 *
 * A provider allocates its context struct with
 * _verbs_init_and_alloc_context(), which sets up the library's part
 * (verbs_init_context(): private state, the fork guard's process token, a
 * device reference), and hands its ops to verbs_set_ops(), possibly
 * several times, each call adding the ops it sets.  The library copies
 * them into its own memory, the context's one ops table (completed with
 * stubs), and never lets an application reach them unguarded:
 *
 *  - the public verbs (verbs_*.c) call through that table after checking
 *    arguments and the child guard;
 *  - the data-path slots of struct ibv_context_ops that inline verbs call
 *    (poll_cq, req_notify_cq, post_send, post_recv, post_srq_recv,
 *    bind_mw) get library wrappers that refuse an inherited context with
 *    one load and compare, then call the provider; in a fork child the
 *    refusal's cold branch first lets a child's own object through to
 *    its real one (fork_child.c), else it fails with EPERM;
 *  - every extended slot of struct verbs_context the provider provides
 *    gets a wrapper that checks the child guard (the full check, control
 *    path) before the provider runs.  Destroy-type ops are not refused:
 *    in a child the command layer sends no kernel command for them and
 *    the provider frees its user-space copy.
 *
 *  - every function pointer it installs in an object (each member of
 *    ibv_qp_ex and ibv_cq_ex, ibv_wq's post_recv, ibv_dm's copy
 *    functions) is replaced at create time by a wrapper with the same
 *    guard (provider_guard.c).
 *
 * What an application can still reach unguarded is a plug-in's
 * direct-verbs functions (mlx5dv_* and the like), which the library never
 * sees; see Documentation/provider-abi.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_child.h"
#include "ibverbs.h"
#include "provider_guard.h"

/*
 * verbs_allow_disassociate_destroy (defined with the command layer that
 * reads it, cmd_write.c) is set from RDMAV_ALLOW_DISASSOC_DESTROY or
 * mlx4's old variable; plug-ins may set it too.
 */

static bool env_on(const char *name)
{
	const char *v = getenv(name);

	return v && strcmp(v, "0");
}

__attribute__((constructor)) static void disassoc_init(void)
{
	verbs_allow_disassociate_destroy =
		env_on("RDMAV_ALLOW_DISASSOC_DESTROY") ||
		env_on("MLX4_DEVICE_FATAL_CLEANUP");
}

/*
 * The library's part of every context, set up before the provider fills
 * its own (verbs_init_context(), from _verbs_init_and_alloc_context())
 * and undone by verbs_uninit_context(), which the provider calls.
 */
int verbs_init_context(struct verbs_context *vctx, struct verbs_device *vdev,
		       int cmd_fd)
{
	struct ibv_context *ctx = &vctx->context;
	struct verbs_ex_private *priv;

	/* Opening and importing alike: RDMAV_FORK_SAFE applies here too. */
	verbs_fork_setup();
	priv = calloc(1, sizeof(*priv));
	if (!priv)
		return ENOMEM;

	priv->owner.proc_token = verbs_proc_enter();
	priv->owner.pid = getpid();
	pthread_mutex_init(&priv->cb_lock, NULL);

	vctx->priv = priv;
	vctx->sz = sizeof(*vctx);
	ctx->device = verbs_dev_ibv(vdev);
	ctx->cmd_fd = cmd_fd;
	ctx->async_fd = -1;
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	pthread_mutex_init(&ctx->mutex, NULL);
	verbs_device_get(vdev);
	return 0;
}

/*
 * rdma-core's semantics: the context's descriptors go with it.  Closing
 * them touches only this process's file table, so the same teardown is
 * right in a fork child: the parent's open file descriptions, and with
 * them its kernel objects, stay alive.  A child sharing the parent's
 * table (clone(CLONE_FILES)) is the exception: ibv_close_device() sets
 * the numbers to -1 before it gets here (verbs_child_close_device()).
 */
IBV_EXPORT void verbs_uninit_context(struct verbs_context *vctx)
{
	struct ibv_context *ctx = &vctx->context;

	if (ctx->cmd_fd >= 0)
		close(ctx->cmd_fd);
	ctx->cmd_fd = -1;
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	ctx->async_fd = -1;
	pthread_mutex_destroy(&ctx->mutex);
	verbs_device_put(verbs_get_device(ctx->device));
	verbs_guard_table_free(vctx->priv);
	pthread_mutex_destroy(&vctx->priv->cb_lock);
	free(vctx->priv);
	vctx->priv = NULL;
}

/*
 * The slots rdma-core 44 fills on every context after the provider's
 * alloc_context (facts: its device.c, set_lib_ops()): binaries built
 * against libibverbs 1.1 call query_device and query_port through the
 * _compat_ slots, and those built against 1.1.8 find create_flow and
 * destroy_flow in the two placeholders.  Called after each change of the
 * flow slots, so the placeholders always mirror them.
 */
void verbs_install_compat_ops(struct verbs_context *vctx)
{
	struct ibv_context_ops *pub = &vctx->context.ops;

	pub->_compat_query_device = ibv_query_device;
	pub->_compat_query_port = ibv_query_port;
	vctx->ABI_placeholder1 = (void (*)(void))vctx->ibv_create_flow;
	vctx->ABI_placeholder2 = (void (*)(void))vctx->ibv_destroy_flow;
}

/*
 * Data path.  The plug-in's slots are never NULL here: its table starts
 * out filled with the stubs below.  Each wrapper loads the context's
 * private state once, for the guard and the plug-in's op alike.
 */
static int pl_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	const struct verbs_ex_private *priv = verbs_priv(cq->context);

	if (verbs_inherited(cq->context))
		return verbs_child_poll_cq(cq, n, wc);
	return priv->ops.poll_cq(cq, n, wc);
}

static int pl_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	const struct verbs_ex_private *priv = verbs_priv(cq->context);

	if (verbs_inherited(cq->context))
		return verbs_child_req_notify_cq(cq, solicited_only);
	return priv->ops.req_notify_cq(cq, solicited_only);
}

static int pl_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr)
{
	const struct verbs_ex_private *priv = verbs_priv(qp->context);

	if (verbs_inherited(qp->context))
		return verbs_child_post_send(qp, wr, bad_wr);
	return priv->ops.post_send(qp, wr, bad_wr);
}

static int pl_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	const struct verbs_ex_private *priv = verbs_priv(qp->context);

	if (verbs_inherited(qp->context))
		return verbs_child_post_recv(qp, wr, bad_wr);
	return priv->ops.post_recv(qp, wr, bad_wr);
}

static int pl_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	const struct verbs_ex_private *priv = verbs_priv(srq->context);

	if (verbs_inherited(srq->context))
		return verbs_child_post_srq_recv(srq, wr, bad_wr);
	return priv->ops.post_srq_recv(srq, wr, bad_wr);
}

static int pl_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		      struct ibv_mw_bind *mw_bind)
{
	const struct verbs_ex_private *priv = verbs_priv(qp->context);

	/*
	 * ibv_bind_mw() calls the window's context's slot: a child's own
	 * window or QP is bound to the real ones there, any other
	 * inherited one refused.  A window of the QP's own context costs
	 * the parent one compare more.
	 */
	if (verbs_inherited(qp->context) ||
	    (mw && mw->context && mw->context != qp->context &&
	     verbs_inherited(mw->context)))
		return verbs_child_bind_mw(qp, mw, mw_bind);
	/*
	 * A fork child's proxy MR has an inherited context, never the QP's:
	 * refuse it before the provider reads it as its own.
	 */
	if (mw_bind && mw_bind->bind_info.mr &&
	    mw_bind->bind_info.mr->context != qp->context)
		return EINVAL;
	return priv->ops.bind_mw(qp, mw, mw_bind);
}

static int pl_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op,
			   struct ibv_ops_wr **bad_op)
{
	const struct verbs_ex_private *priv = verbs_priv(srq->context);

	if (verbs_inherited(srq->context)) {
		*bad_op = op;
		return EPERM;
	}
	return priv->ops.post_srq_ops(srq, op, bad_op);
}

/* What a plug-in without a data-path op gets, as rdma-core's dummies. */
static int stub_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	errno = EOPNOTSUPP;
	return -EOPNOTSUPP;
}

static int stub_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return EOPNOTSUPP;
}

static int stub_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr)
{
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int stub_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int stub_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int stub_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			struct ibv_mw_bind *mw_bind)
{
	return EOPNOTSUPP;
}

static int stub_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op,
			     struct ibv_ops_wr **bad_op)
{
	*bad_op = op;
	return EOPNOTSUPP;
}

/*
 * Ops the library's verbs call without looking (destroys, modify_qp):
 * a plug-in that lacks one can have no such object, but must not crash.
 */
static int stub_obj(void)
{
	return EOPNOTSUPP;
}

static int stub_dealloc_pd(struct ibv_pd *pd)
{
	return stub_obj();
}

static int stub_dereg_mr(struct verbs_mr *vmr)
{
	return stub_obj();
}

static int stub_destroy_cq(struct ibv_cq *cq)
{
	return stub_obj();
}

static int stub_destroy_srq(struct ibv_srq *srq)
{
	return stub_obj();
}

static int stub_destroy_qp(struct ibv_qp *qp)
{
	return stub_obj();
}

static int stub_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			  int attr_mask)
{
	return stub_obj();
}

static int stub_destroy_ah(struct ibv_ah *ah)
{
	return stub_obj();
}

/* A plug-in without free_context: the library's part at least goes. */
static void stub_free_context(struct ibv_context *ctx)
{
	verbs_uninit_context(verbs_get_ctx(ctx));
}

/*
 * The extended slots of struct verbs_context: guard, then the plug-in.
 * Int ops return the errno, constructors NULL with errno, as the inline
 * verbs in verbs.h expect.
 */
static int pl_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			uint32_t flags, struct ibv_sge *sg_list,
			uint32_t num_sges)
{
	if (verbs_refuse_ctx(pd->context))
		return errno;
	return verbs_ops(pd->context)->advise_mr(pd, advice, flags, sg_list,
					    num_sges);
}

static struct ibv_mr *pl_alloc_null_mr(struct ibv_pd *pd)
{
	if (verbs_refuse_ctx(pd->context))
		return NULL;
	return verbs_ops(pd->context)->alloc_null_mr(pd);
}

static int pl_read_counters(struct ibv_counters *counters,
			    uint64_t *counters_value, uint32_t ncounters,
			    uint32_t flags)
{
	if (verbs_refuse_ctx(counters->context))
		return errno;
	return verbs_ops(counters->context)
		->read_counters(counters, counters_value, ncounters, flags);
}

static int pl_attach_counters_point_flow(struct ibv_counters *counters,
					 struct ibv_counter_attach_attr *attr,
					 struct ibv_flow *flow)
{
	if (verbs_refuse_ctx(counters->context))
		return errno;
	return verbs_ops(counters->context)
		->attach_counters_point_flow(counters, attr, flow);
}

static struct ibv_counters *
pl_create_counters(struct ibv_context *ctx,
		   struct ibv_counters_init_attr *init_attr)
{
	if (verbs_refuse_ctx(ctx))
		return NULL;
	return verbs_ops(ctx)->create_counters(ctx, init_attr);
}

static int pl_destroy_counters(struct ibv_counters *counters)
{
	return verbs_ops(counters->context)->destroy_counters(counters);
}

static struct ibv_mr *pl_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
				   uint64_t dm_offset, size_t length,
				   unsigned int access)
{
	if (verbs_refuse_ctx(pd->context))
		return NULL;
	return verbs_ops(pd->context)
		->reg_dm_mr(pd, dm, dm_offset, length, access);
}

static struct ibv_dm *pl_alloc_dm(struct ibv_context *ctx,
				  struct ibv_alloc_dm_attr *attr)
{
	struct ibv_dm *dm;
	int err;

	if (verbs_refuse_ctx(ctx))
		return NULL;
	dm = verbs_ops(ctx)->alloc_dm(ctx, attr);
	if (!dm)
		return NULL;
	/* Its copy functions write device memory the parent shares. */
	err = verbs_guard_dm(dm);
	if (err) {
		verbs_ops(ctx)->free_dm(dm);
		return verbs_null_errno(err);
	}
	return dm;
}

static int pl_free_dm(struct ibv_dm *dm)
{
	struct ibv_context *ctx = dm->context;
	uint32_t handle = dm->handle;
	struct ht_rec saved;
	int err;

	verbs_guard_drop(ctx, handle, dm, &saved);
	err = verbs_ops(ctx)->free_dm(dm);
	if (err)
		verbs_guard_restore(ctx, handle, &saved);
	return err;
}

static int pl_modify_flow_action_esp(struct ibv_flow_action *action,
				     struct ibv_flow_action_esp_attr *attr)
{
	if (verbs_refuse_ctx(action->context))
		return errno;
	return verbs_ops(action->context)->modify_flow_action_esp(action, attr);
}

static int pl_destroy_flow_action(struct ibv_flow_action *action)
{
	return verbs_ops(action->context)->destroy_flow_action(action);
}

static struct ibv_flow_action *
pl_create_flow_action_esp(struct ibv_context *ctx,
			  struct ibv_flow_action_esp_attr *attr)
{
	if (verbs_refuse_ctx(ctx))
		return NULL;
	return verbs_ops(ctx)->create_flow_action_esp(ctx, attr);
}

static int pl_modify_qp_rate_limit(struct ibv_qp *qp,
				   struct ibv_qp_rate_limit_attr *attr)
{
	if (verbs_refuse_ctx(qp->context))
		return errno;
	return verbs_ops(qp->context)->modify_qp_rate_limit(qp, attr);
}

/*
 * A fork child's parent domains and TDs on an inherited context go to a
 * context of its own (fork_child.c).
 */
static struct ibv_pd *
pl_alloc_parent_domain(struct ibv_context *ctx,
		       struct ibv_parent_domain_init_attr *attr)
{
	struct ibv_pd *pdom;

	/* A fork child's proxy PD or TD has another (inherited) context. */
	if (ctx && attr &&
	    ((attr->pd && attr->pd->context != ctx) ||
	     (attr->td && attr->td->context != ctx)))
		return verbs_null_errno(EINVAL);
	if (ctx && verbs_inherited(ctx))
		return verbs_child_alloc_parent_domain(ctx, attr);
	if (verbs_refuse_ctx(ctx))
		return NULL;
	pdom = verbs_ops(ctx)->alloc_parent_domain(ctx, attr);
	/*
	 * For a fork child, which takes it for the PD it lies over.  Without
	 * the note (no memory) a child makes a PD of its own for it.
	 */
	if (pdom && attr && attr->pd)
		verbs_child_note_parent_domain(pdom, attr->pd);
	return pdom;
}

static int pl_dealloc_td(struct ibv_td *td)
{
	int ret;

	if (verbs_inherited(td->context) && verbs_child_dealloc_td(td, &ret))
		return ret;
	return verbs_ops(td->context)->dealloc_td(td);
}

static struct ibv_td *pl_alloc_td(struct ibv_context *ctx,
				  struct ibv_td_init_attr *init_attr)
{
	if (ctx && verbs_inherited(ctx))
		return verbs_child_alloc_td(ctx, init_attr);
	if (verbs_refuse_ctx(ctx))
		return NULL;
	return verbs_ops(ctx)->alloc_td(ctx, init_attr);
}

static int pl_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)
{
	if (verbs_refuse_ctx(cq->context))
		return errno;
	return verbs_ops(cq->context)->modify_cq(cq, attr);
}

static int pl_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	return verbs_ops(table->context)->destroy_rwq_ind_table(table);
}

static struct ibv_rwq_ind_table *
pl_create_rwq_ind_table(struct ibv_context *ctx,
			struct ibv_rwq_ind_table_init_attr *init_attr)
{
	if (verbs_refuse_ctx(ctx))
		return NULL;
	return verbs_ops(ctx)->create_rwq_ind_table(ctx, init_attr);
}

static int pl_destroy_wq(struct ibv_wq *wq)
{
	struct ibv_context *ctx = wq->context;
	uint32_t handle = wq->handle;
	struct ht_rec saved;
	int err;

	verbs_guard_drop(ctx, handle, wq, &saved);
	err = verbs_ops(ctx)->destroy_wq(wq);
	if (err)
		verbs_guard_restore(ctx, handle, &saved);
	return err;
}

static int pl_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr)
{
	if (verbs_refuse_ctx(wq->context))
		return errno;
	return verbs_ops(wq->context)->modify_wq(wq, attr);
}

static struct ibv_wq *pl_create_wq(struct ibv_context *ctx,
				   struct ibv_wq_init_attr *attr)
{
	struct ibv_wq *wq;
	int err;

	if (verbs_refuse_ctx(ctx))
		return NULL;
	/* A fork child's proxies have another (inherited) context. */
	if (attr && ((attr->pd && attr->pd->context != ctx) ||
		     (attr->cq && attr->cq->context != ctx)))
		return verbs_null_errno(EINVAL);
	wq = verbs_ops(ctx)->create_wq(ctx, attr);
	if (!wq)
		return NULL;
	err = verbs_guard_wq(wq);
	if (err) {
		verbs_ops(ctx)->destroy_wq(wq);
		return verbs_null_errno(err);
	}
	return wq;
}

static int pl_query_rt_values(struct ibv_context *ctx,
			      struct ibv_values_ex *values)
{
	if (verbs_refuse_ctx(ctx))
		return errno;
	return verbs_ops(ctx)->query_rt_values(ctx, values);
}

static int pl_destroy_flow(struct ibv_flow *flow)
{
	return verbs_ops(flow->context)->destroy_flow(flow);
}

static struct ibv_flow *pl_create_flow(struct ibv_qp *qp,
				       struct ibv_flow_attr *flow_attr)
{
	if (verbs_refuse_ctx(qp->context))
		return NULL;
	return verbs_ops(qp->context)->create_flow(qp, flow_attr);
}

/*
 * A fork child's XRC domains on an inherited context, and the QPs it
 * opens in them, go to a context of its own (fork_child.c).
 */
static struct ibv_qp *pl_open_qp(struct ibv_context *ctx,
				 struct ibv_qp_open_attr *attr)
{
	if (ctx && verbs_inherited(ctx))
		return verbs_child_open_qp(ctx, attr);
	if (verbs_refuse_ctx(ctx))
		return NULL;
	/* A fork child's XRC domain has another (inherited) context. */
	if (attr && (attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) && attr->xrcd &&
	    attr->xrcd->context != ctx)
		return verbs_null_errno(EINVAL);
	return verbs_ops(ctx)->open_qp(ctx, attr);
}

static struct ibv_xrcd *pl_open_xrcd(struct ibv_context *ctx,
				     struct ibv_xrcd_init_attr *init_attr)
{
	if (ctx && verbs_inherited(ctx))
		return verbs_child_open_xrcd(ctx, init_attr);
	if (verbs_refuse_ctx(ctx))
		return NULL;
	return verbs_ops(ctx)->open_xrcd(ctx, init_attr);
}

static int pl_close_xrcd(struct ibv_xrcd *xrcd)
{
	int ret;

	if (verbs_inherited(xrcd->context) &&
	    verbs_child_close_xrcd(xrcd, &ret))
		return ret;
	return verbs_ops(xrcd->context)->close_xrcd(xrcd);
}

/* An extended slot: the wrapper when the provider has the op. */
#define PL_SLOT(vctx, p, slot, op, wrapper)                                  \
	((vctx)->slot = (p)->op ? (wrapper) : NULL)

/*
 * Install the public slots for the provider ops collected so far: the
 * library's verbs where it checks arguments first (verbs_*.c), its
 * guarded wrappers elsewhere.
 */
static void install_public(struct verbs_context *vctx)
{
	const struct verbs_context_ops *p = &vctx->priv->ops;
	struct ibv_context_ops *pub = &vctx->context.ops;

	if (p->alloc_mw) {
		pub->alloc_mw = verbs_alloc_mw;
		pub->dealloc_mw = verbs_dealloc_mw;
	}
	vctx->query_port = verbs_query_port_ext;
	vctx->query_device_ex = verbs_query_device_ex;
	PL_SLOT(vctx, p, create_cq_ex, create_cq_ex, verbs_create_cq_ex);
	PL_SLOT(vctx, p, create_qp_ex, create_qp_ex, verbs_create_qp_ex);
	PL_SLOT(vctx, p, create_srq_ex, create_srq_ex, verbs_create_srq_ex);
	PL_SLOT(vctx, p, get_srq_num, get_srq_num, verbs_get_srq_num);

	pub->poll_cq = pl_poll_cq;
	pub->req_notify_cq = pl_req_notify_cq;
	pub->post_send = pl_post_send;
	pub->post_recv = pl_post_recv;
	pub->post_srq_recv = pl_post_srq_recv;
	pub->bind_mw = pl_bind_mw;
	vctx->post_srq_ops = pl_post_srq_ops;

	PL_SLOT(vctx, p, advise_mr, advise_mr, pl_advise_mr);
	PL_SLOT(vctx, p, alloc_null_mr, alloc_null_mr, pl_alloc_null_mr);
	PL_SLOT(vctx, p, read_counters, read_counters, pl_read_counters);
	PL_SLOT(vctx, p, attach_counters_point_flow,
		attach_counters_point_flow, pl_attach_counters_point_flow);
	PL_SLOT(vctx, p, create_counters, create_counters,
		pl_create_counters);
	PL_SLOT(vctx, p, destroy_counters, destroy_counters,
		pl_destroy_counters);
	PL_SLOT(vctx, p, reg_dm_mr, reg_dm_mr, pl_reg_dm_mr);
	PL_SLOT(vctx, p, alloc_dm, alloc_dm, pl_alloc_dm);
	PL_SLOT(vctx, p, free_dm, free_dm, pl_free_dm);
	PL_SLOT(vctx, p, modify_flow_action_esp, modify_flow_action_esp,
		pl_modify_flow_action_esp);
	PL_SLOT(vctx, p, destroy_flow_action, destroy_flow_action,
		pl_destroy_flow_action);
	PL_SLOT(vctx, p, create_flow_action_esp, create_flow_action_esp,
		pl_create_flow_action_esp);
	PL_SLOT(vctx, p, modify_qp_rate_limit, modify_qp_rate_limit,
		pl_modify_qp_rate_limit);
	PL_SLOT(vctx, p, alloc_parent_domain, alloc_parent_domain,
		pl_alloc_parent_domain);
	PL_SLOT(vctx, p, dealloc_td, dealloc_td, pl_dealloc_td);
	PL_SLOT(vctx, p, alloc_td, alloc_td, pl_alloc_td);
	PL_SLOT(vctx, p, modify_cq, modify_cq, pl_modify_cq);
	PL_SLOT(vctx, p, destroy_rwq_ind_table, destroy_rwq_ind_table,
		pl_destroy_rwq_ind_table);
	PL_SLOT(vctx, p, create_rwq_ind_table, create_rwq_ind_table,
		pl_create_rwq_ind_table);
	PL_SLOT(vctx, p, destroy_wq, destroy_wq, pl_destroy_wq);
	PL_SLOT(vctx, p, modify_wq, modify_wq, pl_modify_wq);
	PL_SLOT(vctx, p, create_wq, create_wq, pl_create_wq);
	PL_SLOT(vctx, p, query_rt_values, query_rt_values,
		pl_query_rt_values);
	PL_SLOT(vctx, p, ibv_destroy_flow, destroy_flow, pl_destroy_flow);
	PL_SLOT(vctx, p, ibv_create_flow, create_flow, pl_create_flow);
	PL_SLOT(vctx, p, open_qp, open_qp, pl_open_qp);
	PL_SLOT(vctx, p, open_xrcd, open_xrcd, pl_open_xrcd);
	PL_SLOT(vctx, p, close_xrcd, close_xrcd, pl_close_xrcd);
#if IBV_RDMA_CORE_RELEASE >= 65
	/*
	 * rdma-core 65's six public slots are always set there (to the op
	 * or its default): here to the verbs themselves, which guard and
	 * fall back the same way.
	 */
	vctx->alloc_dmah = ibv_alloc_dmah;
	vctx->dealloc_dmah = ibv_dealloc_dmah;
	vctx->reg_mr_ex = ibv_reg_mr_ex;
	vctx->dm_export_dmabuf_fd = ibv_dm_export_dmabuf_fd;
	vctx->alloc_buf = ibv_alloc_buf;
	vctx->free_buf = ibv_free_buf;
#endif
	/* The flow slots changed: the placeholders follow them. */
	verbs_install_compat_ops(vctx);
}

/*
 * The table every context starts from: what a provider leaves NULL in the
 * slots the library calls without looking stays a stub.
 */
static const struct verbs_context_ops provider_defaults = {
	.poll_cq = stub_poll_cq,
	.req_notify_cq = stub_req_notify_cq,
	.post_send = stub_post_send,
	.post_recv = stub_post_recv,
	.post_srq_recv = stub_post_srq_recv,
	.bind_mw = stub_bind_mw,
	.post_srq_ops = stub_post_srq_ops,

	.free_context = stub_free_context,
	.dealloc_pd = stub_dealloc_pd,
	.dereg_mr = stub_dereg_mr,
	.destroy_cq = stub_destroy_cq,
	.destroy_srq = stub_destroy_srq,
	.modify_qp = stub_modify_qp,
	.destroy_qp = stub_destroy_qp,
	.destroy_ah = stub_destroy_ah,
};

#define OPS_SLOTS (sizeof(struct verbs_context_ops) / sizeof(void (*)(void)))
_Static_assert(sizeof(struct verbs_context_ops) ==
		       OPS_SLOTS * sizeof(void (*)(void)),
	       "verbs_context_ops is a table of function pointers");

/*
 * rdma-core's verbs_set_ops(): add the ops @ops sets to the context's
 * table; ops it leaves NULL keep what an earlier call set.
 */
IBV_EXPORT void verbs_set_ops(struct verbs_context *vctx,
			      const struct verbs_context_ops *ops)
{
	void (*src)(void), (*dst)(void);
	char *table;
	size_t i;

	if (!vctx || !vctx->priv || !ops)
		return;
	table = (char *)&vctx->priv->ops;
	for (i = 0; i < OPS_SLOTS; i++) {
		memcpy(&src, (const char *)ops + i * sizeof(src), sizeof(src));
		if (!src)
			continue;
		dst = src;
		memcpy(table + i * sizeof(dst), &dst, sizeof(dst));
	}
	install_public(vctx);
}

IBV_EXPORT void *_verbs_init_and_alloc_context(struct ibv_device *device,
					       int cmd_fd, size_t alloc_size,
					       struct verbs_context *context_offset,
					       uint32_t driver_id)
{
	struct verbs_context *vctx;
	void *drv;
	int err;

	/* As upstream: cmd_fd is the context's from here, even on failure. */
	if (!device || alloc_size < sizeof(*vctx) ||
	    (uintptr_t)context_offset > alloc_size - sizeof(*vctx)) {
		err = EINVAL;
		goto out_close;
	}
	drv = calloc(1, alloc_size);
	if (!drv) {
		err = ENOMEM;
		goto out_close;
	}
	vctx = (struct verbs_context *)((char *)drv +
					(uintptr_t)context_offset);
	err = verbs_init_context(vctx, verbs_get_device(device), cmd_fd);
	if (err) {
		free(drv);
		goto out_close;
	}
	vctx->priv->driver_id = driver_id;
	vctx->priv->ops = provider_defaults;
	install_public(vctx);
	return drv;

out_close:
	if (cmd_fd >= 0)
		close(cmd_fd);
	errno = err;
	return NULL;
}

/*
 * After the plug-in's alloc_context or import_context: a plug-in that
 * wrote a data-path slot itself instead of through verbs_set_ops() is
 * taken in too, so the wrappers stay in front of it.
 */
static struct ibv_context *provider_context_done(struct verbs_context *vctx)
{
	struct verbs_context_ops direct = {};
	struct ibv_context_ops *pub;

	if (!vctx)
		return NULL;
	pub = &vctx->context.ops;
	if (pub->poll_cq != pl_poll_cq)
		direct.poll_cq = pub->poll_cq;
	if (pub->req_notify_cq != pl_req_notify_cq)
		direct.req_notify_cq = pub->req_notify_cq;
	if (pub->post_send != pl_post_send)
		direct.post_send = pub->post_send;
	if (pub->post_recv != pl_post_recv)
		direct.post_recv = pub->post_recv;
	if (pub->post_srq_recv != pl_post_srq_recv)
		direct.post_srq_recv = pub->post_srq_recv;
	if (pub->bind_mw != pl_bind_mw)
		direct.bind_mw = pub->bind_mw;
	verbs_set_ops(vctx, &direct);
	return &vctx->context;
}

struct ibv_context *verbs_provider_open(struct verbs_device *vdev, int cmd_fd,
					void *private_data)
{
	struct ibv_device *dev = verbs_dev_ibv(vdev);

	/* The provider owns cmd_fd now and closes it if it fails. */
	return provider_context_done(
		vdev->ops->alloc_context(dev, cmd_fd, private_data));
}

struct ibv_context *verbs_provider_import(struct verbs_device *vdev, int cmd_fd)
{
	struct ibv_context *ctx;

	if (!vdev->ops->import_context)
		return verbs_null_errno(EOPNOTSUPP);
	ctx = provider_context_done(
		vdev->ops->import_context(verbs_dev_ibv(vdev), cmd_fd));
	if (ctx)
		verbs_priv(ctx)->imported = true;
	return ctx;
}

/*
 * For CQs a plug-in creates outside the library's verbs (mlx5dv):
 * rdma-core's verbs_init_cq().  The channel counts its CQs atomically,
 * as the library's own create verbs do (verbs_cq.c).
 */
IBV_EXPORT void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
			      struct ibv_comp_channel *channel,
			      void *cq_context)
{
	cq->context = context;
	cq->channel = channel;
	if (channel)
		__atomic_add_fetch(&channel->refcnt, 1, __ATOMIC_RELAXED);
	cq->cq_context = cq_context;
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
}
