// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_cmd_create_cq_ex2(): ibv_cmd_create_cq_ex() with the plug-in's
 * driver attributes chained behind the library's (rdma-core v53, in the
 * IBVERBS_PRIVATE_34 of rdma-core 56).  mlx5 passes the UAR page a CQ
 * should use that way; trixie's libmlx5 does not load without it.
 *
 * Driver attributes exist only for the ioctl method, so the CQ is created
 * with UVERBS_METHOD_CQ_CREATE, the plug-in's request and response tails
 * going as UHW_IN and UHW_OUT, byte for byte what the extended write()
 * command would carry as udata.  A kernel without the method gets that
 * write() command, as ibv_cmd_create_cq_ex() sends it, but only when
 * the chain adds nothing (and not on an imported context, which has no
 * write() path): the driver's attributes cannot travel there, and
 * dropping them would create a CQ the plug-in did not ask for.
 *
 * Built from rdma-core 56 on (libibverbs/CMakeLists.txt).
 */
#include "cmd_transport.h"
#include "provider_cmd.h"

static void cq_created(struct verbs_cq *cq, struct ibv_context *ctx,
		       const struct ibv_cq_init_attr_ex *attr, uint32_t handle,
		       uint32_t cqe)
{
	cq->cq.context = ctx;
	cq->cq.channel = attr->channel;
	cq->cq.handle = handle;
	cq->cq.cqe = cqe;
	cq->cq.comp_events_completed = 0;
	cq->cq.async_events_completed = 0;
}

static void add_cq_attrs(struct vcmd_ioctl *c, struct ibv_context *ctx,
			 const struct ibv_cq_init_attr_ex *attr,
			 struct verbs_cq *cq, uint32_t *cqe_out)
{
	uint32_t flags = vcmd_cq_kernel_flags(attr);

	vcmd_attr_in_u32(c, UVERBS_ATTR_CREATE_CQ_CQE, attr->cqe);
	vcmd_attr_in_u64(c, UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
			 vcmd_user_handle(&cq->cq));
	if (attr->channel)
		vcmd_attr_fd(c, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL,
			     attr->channel->fd);
	vcmd_attr_in_u32(c, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
			 attr->comp_vector);
	if (ctx->async_fd != -1)
		vcmd_attr_fd(c, UVERBS_ATTR_CREATE_CQ_EVENT_FD, ctx->async_fd);
	if (flags)
		vcmd_attr_in_u32(c, UVERBS_ATTR_CREATE_CQ_FLAGS, flags);
	vcmd_attr_out(c, UVERBS_ATTR_CREATE_CQ_RESP_CQE, cqe_out,
		      sizeof(*cqe_out), true);
}

/* 0, a kernel errno, or ENOTTY / EPROTONOSUPPORT without the method. */
static int create_cq_ioctl(struct ibv_context *ctx,
			   const struct ibv_cq_init_attr_ex *attr,
			   struct verbs_cq *cq, const struct vcmd_udata *udata,
			   struct ibv_command_buffer *driver)
{
	struct ib_uverbs_attr *handle;
	struct vcmd_ioctl c;
	uint32_t cqe = 0;
	int err;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	handle = vcmd_attr_new_idr(&c, UVERBS_ATTR_CREATE_CQ_HANDLE);
	add_cq_attrs(&c, ctx, attr, cq, &cqe);
	vcmd_attr_udata(&c, udata);

	/* The kernel may report events as soon as the CQ exists. */
	err = vcmd_events_init(&cq->cq.mutex, &cq->cq.cond);
	if (err)
		return err;
	err = vcmd_ioctl_link(ctx, &c, driver);
	if (err) {
		pthread_cond_destroy(&cq->cq.cond);
		pthread_mutex_destroy(&cq->cq.mutex);
		return err;
	}
	cq_created(cq, ctx, attr, vcmd_attr_handle(handle), cqe);
	return 0;
}

static bool chain_is_empty(struct ibv_command_buffer *driver)
{
	return !driver || !__ioctl_final_num_attrs(0, driver);
}

/*
 * @cmd_flags (CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX) matters only to a kernel
 * without the extended write() command, which no kernel this library
 * runs on lacks (as in ibv_cmd_create_cq_ex()).
 */
#if IBV_RDMA_CORE_RELEASE >= 65
/* rdma-core 65 added @prov_attr (vcmd_cq_prov_mem()). */
IBV_EXPORT int ibv_cmd_create_cq_ex2(
	struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
	struct verbs_create_cq_prov_attr *prov_attr, struct verbs_cq *cq,
	struct ibv_create_cq_ex *cmd, size_t cmd_size,
	struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
	uint32_t cmd_flags, struct ibv_command_buffer *driver)
#else
IBV_EXPORT int ibv_cmd_create_cq_ex2(
	struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
	struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
	struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
	uint32_t cmd_flags, struct ibv_command_buffer *driver)
#endif
{
	struct vcmd_udata u;
	int err;

	if (verbs_inherited_strict(context))
		return vcmd_set_errno(EPERM);
#if IBV_RDMA_CORE_RELEASE >= 65
	err = vcmd_cq_prov_mem(prov_attr, cmd_flags);
	if (err)
		return vcmd_set_errno(err);
#endif
	if (!cq_attr || !cq)
		return vcmd_set_errno(EINVAL);
	if (cq_attr->comp_mask &
	    ~(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD))
		return vcmd_set_errno(EOPNOTSUPP);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);

	err = create_cq_ioctl(context, cq_attr, cq, &u, driver);
	if (err != ENOTTY && err != EPROTONOSUPPORT)
		return vcmd_set_errno(err);
	if (!chain_is_empty(driver) || vcmd_ctx_imported(context))
		return vcmd_set_errno(EOPNOTSUPP);
	return vcmd_set_errno(vcmd_create_cq_ex(context, cq_attr, cq, &u));
}
