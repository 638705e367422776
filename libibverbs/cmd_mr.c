// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions.
 *
 * User memory goes through the REG_MR / REREG_MR / DEREG_MR write()
 * commands; a dma-buf and the query behind ibv_import_mr() exist only as
 * ioctl methods (UVERBS_METHOD_REG_DMABUF_MR, UVERBS_METHOD_QUERY_MR).
 * IBV_ACCESS_* and IBV_REREG_MR_* have the kernel's bit values.
 */
#include "cmd_transport.h"
#include "provider_cmd.h"

static int dereg_mr_handle(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_dereg_mr cmd = { .mr_handle = handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_DEREG_MR,
		VCMD_REQ_CORE(cmd),
	};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dereg_mr cmd;
	} buf;

	if (vcmd_ctx_imported(ctx))
		return vcmd_write_ctx(ctx, &req);
	buf.cmd = cmd;
	return vcmd_write_fixed(ctx, &buf, req.command, sizeof(buf), 0);
}

/*
 * REG_MR without provider data on a context of this process: one write(),
 * the kernel answering into @resp.  A short write after the kernel made
 * the region (never seen) undoes it, as the general path does.
 */
static int reg_mr_fixed(struct ibv_context *ctx,
			const struct ib_uverbs_reg_mr *cmd,
			struct ib_uverbs_reg_mr_resp *resp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_reg_mr cmd;
	} buf;
	int err;

	buf.cmd = *cmd;
	buf.cmd.response = (uintptr_t)resp;
	resp->mr_handle = VCMD_NO_HANDLE;
	err = vcmd_write_fixed(ctx, &buf, IB_USER_VERBS_CMD_REG_MR,
			       sizeof(buf), sizeof(*resp));
	if (err == EIO && resp->mr_handle != VCMD_NO_HANDLE)
		dereg_mr_handle(ctx, resp->mr_handle);
	return err;
}

/* The kernel writes its response into @resp. */
static int reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		  uint64_t hca_va, int access, struct verbs_mr *vmr,
		  struct vcmd_udata *udata, struct ib_uverbs_reg_mr_resp *resp)
{
	struct ib_uverbs_reg_mr cmd = {
		.start = (uintptr_t)addr,
		.length = length,
		.hca_va = hca_va,
		.pd_handle = pd->handle,
		.access_flags = access,
	};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_REG_MR,
		VCMD_REQ_CORE(cmd),
		.resp = resp,
		.resp_len = sizeof(*resp),
		.udata = udata,
	};
	int err;

	if (!udata && !vcmd_ctx_imported(pd->context))
		err = reg_mr_fixed(pd->context, &cmd, resp);
	else
		err = vcmd_write_create(pd->context, &req, &resp->mr_handle,
					dereg_mr_handle);
	if (err)
		return err;
	vmr->ibv_mr.context = pd->context;
	vmr->ibv_mr.pd = pd;
	vmr->ibv_mr.addr = addr;
	vmr->ibv_mr.length = length;
	vmr->ibv_mr.handle = resp->mr_handle;
	vmr->ibv_mr.lkey = resp->lkey;
	vmr->ibv_mr.rkey = resp->rkey;
	vmr->mr_type = IBV_MR_TYPE_MR;
	vmr->access = access;
	return 0;
}

int vcmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		uint64_t hca_va, int access, struct verbs_mr *vmr,
		struct vcmd_udata *udata)
{
	struct ib_uverbs_reg_mr_resp resp = {};

	return reg_mr(pd, addr, length, hca_va, access, vmr, udata, &resp);
}

/* The kernel's errno unchanged, for plug-ins; the verbs map it. */
static int reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			 uint64_t iova, int fd, int access,
			 struct verbs_mr *vmr, struct ibv_command_buffer *link)
{
	struct ibv_context *ctx = pd->context;
	struct ib_uverbs_attr *handle;
	uint32_t lkey = 0, rkey = 0;
	struct vcmd_ioctl c;
	int err;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_MR,
			 UVERBS_METHOD_REG_DMABUF_MR);
	handle = vcmd_attr_new_idr(&c, UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
	vcmd_attr_idr(&c, UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, pd->handle);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
	vcmd_attr_in_u32(&c, UVERBS_ATTR_REG_DMABUF_MR_FD, fd);
	vcmd_attr_in_u32(&c, UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, access);
	vcmd_attr_out(&c, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &lkey,
		      sizeof(lkey), true);
	vcmd_attr_out(&c, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &rkey,
		      sizeof(rkey), true);
	err = vcmd_ioctl_link(ctx, &c, link);
	if (err)
		return err;

	vmr->ibv_mr.context = ctx;
	vmr->ibv_mr.pd = pd;
	/* The region is not process memory; its address is its offset. */
	vmr->ibv_mr.addr = (void *)(uintptr_t)offset;
	vmr->ibv_mr.length = length;
	vmr->ibv_mr.handle = vcmd_attr_handle(handle);
	vmr->ibv_mr.lkey = lkey;
	vmr->ibv_mr.rkey = rkey;
	vmr->mr_type = IBV_MR_TYPE_DMABUF_MR;
	vmr->access = access;
	return 0;
}

int vcmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
		       uint64_t iova, int fd, int access,
		       struct verbs_mr *vmr)
{
	/* Drivers without dma-buf support (rxe) answer EOPNOTSUPP. */
	return vcmd_ioctl_errno(
		reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr, NULL));
}

int vcmd_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, uint64_t hca_va, int access,
		  struct vcmd_udata *udata)
{
	struct ibv_mr *mr = &vmr->ibv_mr;
	struct ib_uverbs_rereg_mr cmd = {
		.mr_handle = mr->handle,
		.flags = flags,
		.access_flags = access,
	};
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_REREG_MR,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err;

	if (flags & IBV_REREG_MR_CHANGE_PD) {
		if (!pd)
			return EINVAL;
		cmd.pd_handle = pd->handle;
	}
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		cmd.start = (uintptr_t)addr;
		cmd.length = length;
		cmd.hca_va = hca_va;
	}

	/* The handle survives even when the driver rebuilds the region. */
	err = vcmd_write_ctx(mr->context, &req);
	if (err)
		return err;
	mr->lkey = resp.lkey;
	mr->rkey = resp.rkey;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr->addr = addr;
		mr->length = length;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		vmr->access = access;
	return 0;
}

int vcmd_dereg_mr(struct verbs_mr *vmr)
{
	/* In a fork child the kernel object is the parent's: send nothing. */
	if (verbs_inherited_strict(vmr->ibv_mr.context))
		return 0;

	return dereg_mr_handle(vmr->ibv_mr.context, vmr->ibv_mr.handle);
}

static int query_mr(struct ibv_pd *pd, uint32_t mr_handle,
		    struct verbs_mr *vmr)
{
	struct ibv_context *ctx = pd->context;
	uint32_t lkey = 0, rkey = 0;
	uint64_t length = 0;
	struct vcmd_ioctl c;
	int err;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR);
	vcmd_attr_idr(&c, UVERBS_ATTR_QUERY_MR_HANDLE, mr_handle);
	vcmd_attr_out(&c, UVERBS_ATTR_QUERY_MR_RESP_LKEY, &lkey, sizeof(lkey),
		      true);
	vcmd_attr_out(&c, UVERBS_ATTR_QUERY_MR_RESP_RKEY, &rkey, sizeof(rkey),
		      true);
	vcmd_attr_out(&c, UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &length,
		      sizeof(length), true);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err)
		return err;

	vmr->ibv_mr.context = ctx;
	vmr->ibv_mr.pd = pd;
	/* ibv_import_mr(3): the address is not known to the importer. */
	vmr->ibv_mr.addr = NULL;
	vmr->ibv_mr.length = length;
	vmr->ibv_mr.handle = mr_handle;
	vmr->ibv_mr.lkey = lkey;
	vmr->ibv_mr.rkey = rkey;
	vmr->mr_type = IBV_MR_TYPE_IMPORTED_MR;
	vmr->access = 0;
	return 0;
}

/* The provider ABI (kern_abi.h). */

IBV_EXPORT int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			      uint64_t hca_va, int access,
			      struct verbs_mr *vmr, struct ibv_reg_mr *cmd,
			      size_t cmd_size,
			      struct ib_uverbs_reg_mr_resp *resp,
			      size_t resp_size)
{
	struct vcmd_udata u;
	int err = verbs_inherited_strict(pd->context) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	/* An implicit ODP region covers everything, from address 0. */
	if ((access & IBV_ACCESS_ON_DEMAND) && length == SIZE_MAX && addr)
		return vcmd_set_errno(EINVAL);
	/*
	 * Without provider data (librxe's, for one) the kernel writes the
	 * plug-in's response directly: no udata, no copy.
	 */
	if (cmd_size == sizeof(*cmd) && resp && resp_size == sizeof(*resp))
		return vcmd_set_errno(reg_mr(pd, addr, length, hca_va, access,
					     vmr, NULL, resp));
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
	return vcmd_set_errno(
		vcmd_reg_mr(pd, addr, length, hca_va, access, vmr, &u));
}

IBV_EXPORT int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags,
				void *addr, size_t length, uint64_t hca_va,
				int access, struct ibv_pd *pd,
				struct ibv_rereg_mr *cmd, size_t cmd_sz,
				struct ib_uverbs_rereg_mr_resp *resp,
				size_t resp_sz)
{
	struct ibv_context *ctx = vmr->ibv_mr.context;
	struct vcmd_udata u;
	int err = verbs_inherited_strict(ctx) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_sz, resp, resp_sz);
	err = vcmd_rereg_mr(vmr, flags, pd, addr, length, hca_va, access, &u);
	/* rdma-core 44 also takes the context of the new PD. */
	if (!err && (flags & IBV_REREG_MR_CHANGE_PD))
		vmr->ibv_mr.context = pd->context;
	return vcmd_set_errno(err);
}

IBV_EXPORT int ibv_cmd_dereg_mr(struct verbs_mr *vmr)
{
	return vcmd_destroy_errno(vcmd_dereg_mr(vmr));
}

int vcmd_query_mr(struct ibv_pd *pd, uint32_t mr_handle,
		  struct verbs_mr *vmr)
{
	return vcmd_ioctl_errno(query_mr(pd, mr_handle, vmr));
}

/*
 * The plug-ins' entry points (IBVERBS_PRIVATE_34): the kernel's errno
 * unchanged, and the child guard.
 */
IBV_EXPORT int ibv_cmd_advise_mr(struct ibv_pd *pd,
				 enum ibv_advise_mr_advice advice,
				 uint32_t flags, struct ibv_sge *sg_list,
				 uint32_t num_sge)
{
	struct ibv_context *ctx = pd->context;
	struct vcmd_ioctl c;

	if (verbs_inherited_strict(ctx))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR);
	vcmd_attr_idr(&c, UVERBS_ATTR_ADVISE_MR_PD_HANDLE, pd->handle);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_ADVISE_MR_ADVICE, advice);
	vcmd_attr_in_u32(&c, UVERBS_ATTR_ADVISE_MR_FLAGS, flags);
	/* More than 4095 entries do not fit an attribute: EINVAL. */
	vcmd_attr_in(&c, UVERBS_ATTR_ADVISE_MR_SGE_LIST, sg_list,
		     (size_t)num_sge * sizeof(*sg_list), true);
	return vcmd_set_errno(vcmd_ioctl_ctx(ctx, &c));
}

IBV_EXPORT int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
				uint32_t mr_handle)
{
	if (verbs_inherited_strict(pd->context))
		return vcmd_set_errno(EPERM);
	return vcmd_set_errno(query_mr(pd, mr_handle, vmr));
}

/*
 * rdma-core 54 added the plug-in's driver attributes (@driver, chained
 * behind the library's) under the same symbol version.
 */
#if IBV_RDMA_CORE_RELEASE >= 56
IBV_EXPORT int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				     size_t length, uint64_t iova, int fd,
				     int access, struct verbs_mr *vmr,
				     struct ibv_command_buffer *driver)
#else
IBV_EXPORT int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				     size_t length, uint64_t iova, int fd,
				     int access, struct verbs_mr *vmr)
#endif
{
#if IBV_RDMA_CORE_RELEASE < 56
	struct ibv_command_buffer *driver = NULL;
#endif

	if (verbs_inherited_strict(pd->context))
		return vcmd_set_errno(EPERM);
	return vcmd_set_errno(reg_dmabuf_mr(pd, offset, length, iova, fd,
					    access, vmr, driver));
}
