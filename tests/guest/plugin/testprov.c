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
 * installs its ops in two verbs_set_ops() calls.  Queries go to the
 * kernel through ibv_cmd_query_device_any() and ibv_cmd_query_port().
 * Its CQs live in user space only (no kernel object): they let the tests
 * reach the library's data-path wrapper of poll_cq.
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

static int tp_destroy_cq(struct ibv_cq *cq)
{
	pthread_mutex_destroy(&cq->mutex);
	pthread_cond_destroy(&cq->cond);
	free(cq);
	return 0;
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
