// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Soft-RoCE (rxe) provider: its definition, contexts, protection
 * domains, memory regions, memory windows and address handles.
 *
 * In a fork() child every destroy op below frees only this process's
 * copy of the object: the kernel object belongs to the parent, which
 * still uses it (see README.md, "Fork").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "rxe.h"

/* Protection domains */

struct ibv_pd *rxe_alloc_pd(struct ibv_context *ctx)
{
	struct verbs_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	err = vcmd_alloc_pd(ctx, &pd->pd, NULL);
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	return &pd->pd;
}

int rxe_dealloc_pd(struct ibv_pd *pd)
{
	int err;

	err = vcmd_dealloc_pd(pd);
	if (err)
		return err;
	free(container_of(pd, struct verbs_pd, pd));
	return 0;
}

/* Memory regions */

struct ibv_mr *rxe_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  uint64_t hca_va, int access)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	err = vcmd_reg_mr(pd, addr, length, hca_va, access, vmr, NULL);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/* rxe has no rereg in the kernel; the command layer reports what it says. */
int rxe_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access)
{
	/* The verb has no iova: the region is addressed as mapped. */
	return vcmd_rereg_mr(vmr, flags, pd, addr, length, (uintptr_t)addr,
			     access, NULL);
}

int rxe_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = vcmd_dereg_mr(vmr);
	if (err)
		return err;
	free(vmr);
	return 0;
}

/* Memory windows: type 1 bound by ibv_bind_mw(), type 2 by a BIND_MW WR. */

struct ibv_mw *rxe_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct verbs_mw *mw;
	int err;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	err = vcmd_alloc_mw(pd, type, &mw->mw, NULL);
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return &mw->mw;
}

int rxe_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = vcmd_dealloc_mw(mw);
	if (err)
		return err;
	free(container_of(mw, struct verbs_mw, mw));
	return 0;
}

/* Address handles */

static bool gid_is_v4mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return memcmp(gid->raw, prefix, sizeof(prefix)) == 0;
}

static void gid_to_sockaddr(const union ibv_gid *gid, bool v4, void *out)
{
	if (v4) {
		struct sockaddr_in *sin = out;

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, gid->raw + 12, 4);
	} else {
		struct sockaddr_in6 *sin6 = out;

		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, gid->raw, 16);
	}
}

/*
 * Kernels before the AH number (and any kernel answering with 0) take the
 * whole address vector in each UD WQE; build it as the kernel would.
 */
static int rxe_fill_av(struct ibv_pd *pd, struct ibv_ah_attr *attr,
		       struct rxe_av *av)
{
	struct ibv_gid_entry sgid;
	uint16_t vid;
	bool v4;
	int err;

	if (!attr->is_global)
		return EINVAL;
	err = vcmd_query_gid_entry(pd->context, attr->port_num,
				   attr->grh.sgid_index, &sgid);
	if (err)
		return err;

	memset(av, 0, sizeof(*av));
	av->port_num = attr->port_num;
	v4 = gid_is_v4mapped(&sgid.gid);
	av->network_type = v4 ? RXE_NETWORK_TYPE_IPV4 : RXE_NETWORK_TYPE_IPV6;
	memcpy(av->grh.dgid.raw, attr->grh.dgid.raw, 16);
	av->grh.flow_label = attr->grh.flow_label;
	av->grh.sgid_index = attr->grh.sgid_index;
	av->grh.hop_limit = attr->grh.hop_limit;
	av->grh.traffic_class = attr->grh.traffic_class;
	gid_to_sockaddr(&sgid.gid, v4, &av->sgid_addr);
	gid_to_sockaddr(&attr->grh.dgid, v4, &av->dgid_addr);

	/* An errno value; older libraries returned -1 with errno set. */
	err = ibv_resolve_eth_l2_from_gid(pd->context, attr, av->dmac, &vid);
	if (err < 0)
		err = errno ? errno : EINVAL;
	return err;
}

struct ibv_ah *rxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct rxe_create_ah_resp resp = {};
	struct vcmd_udata udata = {
		.out = &resp,
		.out_len = sizeof(resp),
	};
	struct rxe_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	err = vcmd_create_ah(pd, &ah->vah.ah, attr, &udata);
	if (err)
		goto out_free;

	ah->ah_num = resp.ah_num;
	if (!ah->ah_num) {
		err = rxe_fill_av(pd, attr, &ah->av);
		if (err)
			goto out_destroy;
	}
	return &ah->vah.ah;

out_destroy:
	vcmd_destroy_ah(&ah->vah.ah);
out_free:
	free(ah);
	errno = err;
	return NULL;
}

int rxe_destroy_ah(struct ibv_ah *ah)
{
	int err;

	err = vcmd_destroy_ah(ah);
	if (err)
		return err;
	free(to_rah(ah));
	return 0;
}

/* Device and context */

/*
 * The firmware version as rxe's users have always seen it: the kernel's
 * 64-bit number as major.minor.sub_minor.  rxe never sets that number
 * (and the command layer does not pass it on), so it is 0.0.0; sysfs has
 * an empty string for rxe.
 */
static void rxe_fw_ver(struct ibv_device_attr *attr)
{
	const uint64_t raw = 0;

	if (attr->fw_ver[0])
		return;
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "%d.%d.%d",
		 (int)(raw >> 32) & 0xffff, (int)(raw >> 16) & 0xffff,
		 (int)raw & 0xffff);
}

static int rxe_query_device_ex(struct ibv_context *ctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size)
{
	int err;

	err = vcmd_query_device_ex(ctx, input, attr, attr_size);
	if (!err)
		rxe_fw_ver(&attr->orig_attr);
	return err;
}

static int rxe_query_port(struct ibv_context *ctx, uint8_t port_num,
			  struct ibv_port_attr *attr)
{
	return vcmd_query_port(ctx, port_num, attr);
}

/* verbs_uninit_context() closes the fds; then the struct goes. */
static void rxe_free_context(struct ibv_context *ibctx)
{
	struct rxe_context *ctx =
		container_of(ibctx, struct rxe_context, vctx.context);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops rxe_ctx_ops = {
	.query_device_ex = rxe_query_device_ex,
	.query_port = rxe_query_port,
	.free_context = rxe_free_context,

	.alloc_pd = rxe_alloc_pd,
	.dealloc_pd = rxe_dealloc_pd,
	.reg_mr = rxe_reg_mr,
	/* reg_dmabuf_mr: rxe has no dma-buf support (EOPNOTSUPP). */
	.rereg_mr = rxe_rereg_mr,
	.dereg_mr = rxe_dereg_mr,
	.alloc_mw = rxe_alloc_mw,
	.dealloc_mw = rxe_dealloc_mw,
	.bind_mw = rxe_bind_mw,

	.create_cq = rxe_create_cq,
	.create_cq_ex = rxe_create_cq_ex,
	.poll_cq = rxe_poll_cq,
	.req_notify_cq = rxe_req_notify_cq,
	.resize_cq = rxe_resize_cq,
	.destroy_cq = rxe_destroy_cq,

	.create_srq = rxe_create_srq,
	.create_srq_ex = rxe_create_srq_ex,
	.modify_srq = rxe_modify_srq,
	.query_srq = rxe_query_srq,
	.destroy_srq = rxe_destroy_srq,
	.post_srq_recv = rxe_post_srq_recv,

	.create_qp = rxe_create_qp,
	.create_qp_ex = rxe_create_qp_ex,
	.query_qp = rxe_query_qp,
	.modify_qp = rxe_modify_qp,
	.destroy_qp = rxe_destroy_qp,
	.post_send = rxe_post_send,
	.post_recv = rxe_post_recv,

	.create_ah = rxe_create_ah,
	.destroy_ah = rxe_destroy_ah,
	.attach_mcast = rxe_attach_mcast,
	.detach_mcast = rxe_detach_mcast,
};

/*
 * A context, opened or imported on @cmd_fd, which is the context's from
 * the call on: on failure verbs_uninit_context() (or
 * _verbs_init_and_alloc_context() itself) closes it.
 */
static struct verbs_context *rxe_open_context(struct ibv_device *dev,
					      int cmd_fd, bool import)
{
	struct rxe_context *ctx;
	int err;

	ctx = _verbs_init_and_alloc_context(
		dev, cmd_fd, sizeof(*ctx),
		(struct verbs_context *)offsetof(struct rxe_context, vctx),
		RDMA_DRIVER_RXE);
	if (!ctx)
		return NULL;

	/* rxe exchanges no private data when opening a context. */
	if (import)
		err = vcmd_query_context(&ctx->vctx);
	else
		err = vcmd_get_context(&ctx->vctx, NULL);
	if (err) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = err;
		return NULL;
	}

	verbs_set_ops(&ctx->vctx, &rxe_ctx_ops);
	return &ctx->vctx;
}

static struct verbs_context *rxe_alloc_context(struct ibv_device *dev,
					       int cmd_fd, void *private_data)
{
	return rxe_open_context(dev, cmd_fd, false);
}

static struct verbs_context *rxe_import_context(struct ibv_device *dev,
						int cmd_fd)
{
	return rxe_open_context(dev, cmd_fd, true);
}

/* rxe keeps nothing per device beyond the header the library fills. */
static struct verbs_plugin_device *
rxe_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct rxe_device *dev = calloc(1, sizeof(*dev));

	return dev ? &dev->ibv_dev : NULL;
}

static void rxe_uninit_device(struct verbs_plugin_device *ibdev)
{
	free(container_of(ibdev, struct rxe_device, ibv_dev));
}

/*
 * Devices the kernel's rdma_rxe driver serves: by the driver id netlink
 * reports, or else by an ibdev name starting with "rxe".  rdma-core's rxe
 * matches the same two ways (facts: its providers/rxe/rxe.c), its name
 * glob also taking "rxe" inside a name.
 */
static const struct verbs_match_ent rxe_match_table[] = {
	{ .kind = VERBS_MATCH_DRIVER_ID, .u.driver_id = RDMA_DRIVER_RXE },
	{ .kind = VERBS_MATCH_MODALIAS, .u.modalias = "rdma_device:Nrxe*" },
	{}
};

/*
 * The registry holds this ahead of every plug-in (plugin_load.c), as
 * rdma-core's static build holds its verbs_provider_<name>.
 */
const struct verbs_device_ops verbs_provider_rxe = {
	.name = "rxe",
	.match_min_abi_version = RXE_MIN_ABI,
	.match_max_abi_version = RXE_MAX_ABI,
	.match_table = rxe_match_table,
	.alloc_device = rxe_alloc_device,
	.uninit_device = rxe_uninit_device,
	.alloc_context = rxe_alloc_context,
	.import_context = rxe_import_context,
};
