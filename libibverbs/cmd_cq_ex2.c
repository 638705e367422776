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
 * dropping them would create a CQ the plug-in did not ask for.  The same
 * holds for rdma-core 65's provider CQ buffer (@prov_attr of this and of
 * ibv_cmd_create_cq_ex()), which only the method carries.
 *
 * Built from rdma-core 56 on (libibverbs/CMakeLists.txt).
 */
#include "cmd_transport.h"
#include "provider_cmd.h"
#include "uverbs_ioctl_65.h"

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

/*
 * The CQ buffer a provider allocated itself (rdma-core 65's @prov_attr
 * with the WITH_MEM_* command flags), as the kernel takes it.
 */
enum cq_buf_kind {
	CQ_BUF_NONE,
	CQ_BUF_VA,
	CQ_BUF_DMABUF
};

struct cq_buf {
	enum cq_buf_kind kind;
	uint64_t va;
	uint64_t length;
	uint64_t offset;
	int fd;
};

/*
 * As rdma-core 65 sends it (libibverbs/cmd_cq.c): at a virtual address,
 * BUFFER_VA and BUFFER_LENGTH; in a dma-buf, BUFFER_FD (left out for fd
 * -1, as upstream leaves out every fd attribute of -1), BUFFER_OFFSET and
 * BUFFER_LENGTH; all u64 but the fd, all mandatory, so that a kernel
 * without them refuses the CQ rather than make one without the buffer.
 */
static void add_cq_buf(struct vcmd_ioctl *c, const struct cq_buf *buf)
{
	switch (buf->kind) {
	case CQ_BUF_VA:
		vcmd_attr_in_u64(c, IBV_K65_ATTR_CREATE_CQ_BUFFER_VA, buf->va);
		break;
	case CQ_BUF_DMABUF:
		if (buf->fd != -1)
			vcmd_attr_fd(c, IBV_K65_ATTR_CREATE_CQ_BUFFER_FD,
				     buf->fd);
		vcmd_attr_in_u64(c, IBV_K65_ATTR_CREATE_CQ_BUFFER_OFFSET,
				 buf->offset);
		break;
	case CQ_BUF_NONE:
		return;
	}
	vcmd_attr_in_u64(c, IBV_K65_ATTR_CREATE_CQ_BUFFER_LENGTH, buf->length);
}

/* 0, a kernel errno, or ENOTTY / EPROTONOSUPPORT without the method. */
static int create_cq_ioctl(struct ibv_context *ctx,
			   const struct ibv_cq_init_attr_ex *attr,
			   struct verbs_cq *cq, const struct vcmd_udata *udata,
			   const struct cq_buf *buf,
			   struct ibv_command_buffer *driver)
{
	struct ib_uverbs_attr *handle;
	struct vcmd_ioctl c;
	uint32_t cqe = 0;
	int err;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	handle = vcmd_attr_new_idr(&c, UVERBS_ATTR_CREATE_CQ_HANDLE);
	add_cq_attrs(&c, ctx, attr, cq, &cqe);
	add_cq_buf(&c, buf);
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

#if IBV_RDMA_CORE_RELEASE >= 65
/*
 * Which buffer @cmd_flags asks for, the address one first when it asks
 * for both (as rdma-core 65); EINVAL when it asks without @prov.
 */
static int cq_buf_of(const struct verbs_create_cq_prov_attr *prov,
		     uint32_t cmd_flags, struct cq_buf *buf)
{
	if (!(cmd_flags & (VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA |
			   VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF)))
		return 0;
	if (!prov)
		return EINVAL;
	buf->length = prov->buffer.length;
	if (cmd_flags & VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA) {
		buf->kind = CQ_BUF_VA;
		buf->va = (uintptr_t)prov->buffer.ptr;
	} else {
		buf->kind = CQ_BUF_DMABUF;
		buf->fd = prov->buffer.dmabuf.fd;
		buf->offset = prov->buffer.dmabuf.offset;
	}
	return 0;
}
#endif

/*
 * @cmd_flags (CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX) matters only to a kernel
 * without the extended write() command, which no kernel this library
 * runs on lacks (as in ibv_cmd_create_cq_ex()).
 */
#if IBV_RDMA_CORE_RELEASE >= 65
/* rdma-core 65 added @prov_attr (cq_buf_of(), add_cq_buf()). */
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
	struct cq_buf buf = { .kind = CQ_BUF_NONE, .fd = -1 };
	struct vcmd_udata u;
	int err;

	if (verbs_inherited_strict(context))
		return vcmd_set_errno(EPERM);
	if (!cq_attr || !cq)
		return vcmd_set_errno(EINVAL);
	if (cq_attr->comp_mask &
	    ~(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD))
		return vcmd_set_errno(EOPNOTSUPP);
#if IBV_RDMA_CORE_RELEASE >= 65
	err = cq_buf_of(prov_attr, cmd_flags, &buf);
	if (err)
		return vcmd_set_errno(err);
#endif
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);

	err = create_cq_ioctl(context, cq_attr, cq, &u, &buf, driver);
	if (err != ENOTTY && err != EPROTONOSUPPORT)
		return vcmd_set_errno(err);
	/*
	 * Neither the driver's attributes nor a provider's CQ buffer can
	 * travel in the write() command (rdma-core 65 refuses the buffer
	 * there with EOPNOTSUPP too).
	 */
	if (!chain_is_empty(driver) || buf.kind != CQ_BUF_NONE ||
	    vcmd_ctx_imported(context))
		return vcmd_set_errno(EOPNOTSUPP);
	return vcmd_set_errno(vcmd_create_cq_ex(context, cq_attr, cq, &u));
}
