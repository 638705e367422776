// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A minimal provider plug-in for the plug-in loader's tests, built as
 * libtestprov-rdmav34.so against the provider ABI (provider_abi.h).
 *
 * It serves rxe devices (by driver id) the way a real plug-in does: its
 * constructor registers with verbs_register_driver_34(), alloc_device
 * embeds the device header in its own struct, alloc_context embeds the
 * verbs_context at an offset inside its own context and opens it with
 * _verbs_init_and_alloc_context() and ibv_cmd_get_context(), and it
 * installs its ops in several verbs_set_ops() calls.  Queries go to the
 * kernel through ibv_cmd_query_device_any() and ibv_cmd_query_port().
 * Its CQs live in user space only (no kernel object): they let the tests
 * reach the library's data-path wrapper of poll_cq.  Its PDs are the
 * kernel's (ibv_cmd_alloc_pd()); its thread domains and parent domains
 * live in user space, as a hardware provider's may: they let the tests
 * see which context and which PD and TD a fork child's request reached.
 * Its XRC domains are the kernel's (ibv_cmd_open_xrcd()), and so are the
 * XRC target QPs it opens; Soft-RoCE's kernel driver has no XRC, so it
 * refuses them, which still shows which context a request reached.
 *
 * The counters below are read by the tests with dlsym().
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* verbs.h (through provider_abi.h) first: it shapes the kernel headers. */
#include "provider_abi.h"

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

/* The write commands' prototypes (ibv_cmd_alloc_pd(), ...). */
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

#define TP_MAGIC 0x74707276u

struct tp_device {
	struct verbs_plugin_device vdev;
	unsigned int magic;
};

struct tp_context {
	uint64_t before;
	struct verbs_context vctx;
	unsigned int magic;
};

int testprov_devices_live;
int testprov_contexts_live;
int testprov_poll_calls;
int testprov_tds_live;
int testprov_pdoms_live;
/* What the last alloc_td and alloc_parent_domain were given. */
struct ibv_context *testprov_td_ctx;
struct ibv_context *testprov_pdom_ctx;
struct ibv_pd *testprov_pdom_pd;
struct ibv_td *testprov_pdom_td;
void *testprov_pdom_pd_context;
/* The last parent domain made, and what the last create_cq_ex got. */
struct ibv_pd *testprov_pdom_made;
struct ibv_context *testprov_cq_ctx;
struct ibv_pd *testprov_cq_pdom;
/* The context the last open_xrcd and open_qp were asked on. */
struct ibv_context *testprov_xrcd_ctx;
struct ibv_context *testprov_open_qp_ctx;

/*
 * A PD, or a parent domain over one; and a TD.  As hardware providers do,
 * a PD or TD under a parent domain is not freed (EBUSY).
 */
struct tp_pd {
	struct ibv_pd pd;
	struct tp_pd *inner; /* a parent domain's PD; NULL for a PD */
	struct tp_td *td;
	int users; /* parent domains over this PD */
};

struct tp_td {
	struct ibv_td td;
	int users;
};

/* True when @dev is one of ours (what an application holds). */
int testprov_owns(struct ibv_device *dev);
int testprov_owns(struct ibv_device *dev)
{
	struct tp_device *d = container_of(dev, struct tp_device, vdev.device);

	return d->magic == TP_MAGIC;
}

static int tp_query_device(struct ibv_context *ctx,
			   const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	int err;

	err = ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (err)
		return err;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "testprov");
	return 0;
}

static int tp_query_port(struct ibv_context *ctx, uint8_t port,
			 struct ibv_port_attr *attr)
{
	/* struct ibv_query_port: header, response address, port, pad. */
	uint64_t cmd[3];

	return ibv_cmd_query_port(ctx, port, attr, (void *)cmd, sizeof(cmd));
}

static struct ibv_cq *tp_create_cq(struct ibv_context *ctx, int cqe,
				   struct ibv_comp_channel *channel,
				   int comp_vector)
{
	struct ibv_cq *cq;

	if (channel) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->context = ctx;
	cq->cqe = cqe;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
	return cq;
}

static int tp_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	testprov_poll_calls++;
	return 0;
}

/* Also an extended CQ's: a verbs_cq begins with its ibv_cq. */
static int tp_destroy_cq(struct ibv_cq *cq)
{
	pthread_mutex_destroy(&cq->mutex);
	pthread_cond_destroy(&cq->cond);
	free(cq);
	return 0;
}

static struct ibv_pd *tp_alloc_pd(struct ibv_context *ctx)
{
	/* struct ibv_alloc_pd: header and response address. */
	uint64_t cmd[2];
	struct ib_uverbs_alloc_pd_resp resp;
	struct tp_pd *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return NULL;
	errno = ibv_cmd_alloc_pd(ctx, &pd->pd, (void *)cmd, sizeof(cmd),
				 &resp, sizeof(resp));
	if (errno) {
		free(pd);
		return NULL;
	}
	return &pd->pd;
}

static int tp_dealloc_pd(struct ibv_pd *ibpd)
{
	struct tp_pd *pd = container_of(ibpd, struct tp_pd, pd);
	int err;

	if (pd->inner) {
		pd->inner->users--;
		if (pd->td)
			pd->td->users--;
		testprov_pdoms_live--;
	} else {
		if (pd->users)
			return EBUSY;
		err = ibv_cmd_dealloc_pd(ibpd);
		if (err)
			return err;
	}
	free(pd);
	return 0;
}

static struct ibv_td *tp_alloc_td(struct ibv_context *ctx,
				  struct ibv_td_init_attr *attr)
{
	struct tp_td *td;

	if (!attr || attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td)
		return NULL;
	td->td.context = ctx;
	testprov_td_ctx = ctx;
	testprov_tds_live++;
	return &td->td;
}

static int tp_dealloc_td(struct ibv_td *ibtd)
{
	struct tp_td *td = container_of(ibtd, struct tp_td, td);

	if (td->users)
		return EBUSY;
	free(td);
	testprov_tds_live--;
	return 0;
}

static struct ibv_pd *
tp_alloc_parent_domain(struct ibv_context *ctx,
		       struct ibv_parent_domain_init_attr *attr)
{
	struct tp_pd *pd;

	testprov_pdom_ctx = ctx;
	testprov_pdom_pd = attr ? attr->pd : NULL;
	testprov_pdom_td = attr ? attr->td : NULL;
	testprov_pdom_pd_context = attr ? attr->pd_context : NULL;
	if (!attr || !attr->pd || attr->pd->context != ctx ||
	    container_of(attr->pd, struct tp_pd, pd)->inner ||
	    (attr->td && attr->td->context != ctx)) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->pd.context = ctx;
	pd->pd.handle = attr->pd->handle;
	pd->inner = container_of(attr->pd, struct tp_pd, pd);
	pd->inner->users++;
	if (attr->td) {
		pd->td = container_of(attr->td, struct tp_td, td);
		pd->td->users++;
	}
	testprov_pdoms_live++;
	testprov_pdom_made = &pd->pd;
	return &pd->pd;
}

/*
 * An extended CQ with no pollers (the tests only make and destroy it), on
 * one of this context's parent domains if asked; a handle of its own, as
 * the library keeps extended CQs by handle.
 */
static struct ibv_cq_ex *tp_create_cq_ex(struct ibv_context *ctx,
					 struct ibv_cq_init_attr_ex *attr)
{
	static uint32_t next_handle = 1000;
	struct ibv_pd *pdom = NULL;
	struct verbs_cq *cq;

	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD)
		pdom = attr->parent_domain;
	testprov_cq_ctx = ctx;
	testprov_cq_pdom = pdom;
	if (attr->channel) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (pdom && (pdom->context != ctx ||
		     !container_of(pdom, struct tp_pd, pd)->inner)) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->cq.context = ctx;
	cq->cq.cqe = attr->cqe;
	cq->cq.handle = __atomic_fetch_add(&next_handle, 1, __ATOMIC_RELAXED);
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
	return &cq->cq_ex;
}

/*
 * XRC domains and opened XRC target QPs are the kernel's, as a hardware
 * provider's are: a kernel without XRC for the device refuses them.
 */
static struct ibv_xrcd *tp_open_xrcd(struct ibv_context *ctx,
				     struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_open_xrcd cmd;
	struct verbs_xrcd *x;

	testprov_xrcd_ctx = ctx;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	if (ibv_cmd_open_xrcd(ctx, x, sizeof(*x), attr, &cmd, sizeof(cmd),
			      &resp, sizeof(resp))) {
		free(x);
		return NULL;
	}
	return &x->xrcd;
}

static int tp_close_xrcd(struct ibv_xrcd *xrcd)
{
	struct verbs_xrcd *x = container_of(xrcd, struct verbs_xrcd, xrcd);
	int err = ibv_cmd_close_xrcd(x);

	if (!err)
		free(x);
	return err;
}

static struct ibv_qp *tp_open_qp(struct ibv_context *ctx,
				 struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;
	struct verbs_qp *qp;

	testprov_open_qp_ctx = ctx;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	if (ibv_cmd_open_qp(ctx, qp, sizeof(*qp), attr, &cmd, sizeof(cmd),
			    &resp, sizeof(resp))) {
		free(qp);
		return NULL;
	}
	return &qp->qp;
}

static int tp_destroy_qp(struct ibv_qp *qp)
{
	int err = ibv_cmd_destroy_qp(qp);

	if (!err)
		free(container_of(qp, struct verbs_qp, qp));
	return err;
}

static void tp_free_context(struct ibv_context *ibctx)
{
	struct tp_context *ctx =
		container_of(ibctx, struct tp_context, vctx.context);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	testprov_contexts_live--;
}

static const struct verbs_context_ops tp_query_ops = {
	.query_device_ex = tp_query_device,
	.query_port = tp_query_port,
};

static const struct verbs_context_ops tp_cq_ops = {
	.create_cq = tp_create_cq,
	.poll_cq = tp_poll_cq,
	.destroy_cq = tp_destroy_cq,
	.free_context = tp_free_context,
};

static const struct verbs_context_ops tp_domain_ops = {
	.alloc_pd = tp_alloc_pd,
	.dealloc_pd = tp_dealloc_pd,
	.alloc_td = tp_alloc_td,
	.dealloc_td = tp_dealloc_td,
	.alloc_parent_domain = tp_alloc_parent_domain,
	.create_cq_ex = tp_create_cq_ex,
	.open_xrcd = tp_open_xrcd,
	.close_xrcd = tp_close_xrcd,
	.open_qp = tp_open_qp,
	.destroy_qp = tp_destroy_qp,
};

static struct verbs_context *tp_alloc_context(struct ibv_device *dev,
					      int cmd_fd, void *private_data)
{
	/* struct ibv_get_context: header and response address. */
	uint64_t cmd[2];
	struct ib_uverbs_get_context_resp resp;
	struct tp_context *ctx;

	ctx = _verbs_init_and_alloc_context(
		dev, cmd_fd, sizeof(*ctx),
		&((struct tp_context *)NULL)->vctx, RDMA_DRIVER_RXE);
	if (!ctx)
		return NULL;
	ctx->magic = TP_MAGIC;
	if (ibv_cmd_get_context(&ctx->vctx, (void *)cmd, sizeof(cmd),
				CMD65_FD_ARR & resp, sizeof(resp))) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		return NULL;
	}
	verbs_set_ops(&ctx->vctx, &tp_query_ops);
	verbs_set_ops(&ctx->vctx, &tp_cq_ops);
	verbs_set_ops(&ctx->vctx, &tp_domain_ops);
	testprov_contexts_live++;
	return &ctx->vctx;
}

static struct verbs_plugin_device *tp_alloc_device(struct verbs_sysfs_dev *s)
{
	struct tp_device *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->magic = TP_MAGIC;
	testprov_devices_live++;
	return &d->vdev;
}

static void tp_uninit_device(struct verbs_plugin_device *vdev)
{
	free(container_of(vdev, struct tp_device, vdev));
	testprov_devices_live--;
}

static const struct verbs_match_ent tp_match[] = {
	{ .u.driver_id = RDMA_DRIVER_RXE, .kind = VERBS_MATCH_DRIVER_ID },
	{},
};

static const struct verbs_device_ops tp_ops = {
	.name = "testprov",
	.match_min_abi_version = 1,
	.match_max_abi_version = 2,
	.match_table = tp_match,
	.alloc_device = tp_alloc_device,
	.uninit_device = tp_uninit_device,
	.alloc_context = tp_alloc_context,
};

__attribute__((constructor)) static void tp_register(void)
{
	VERBS_REGISTER_DRIVER(&tp_ops);
}
