// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl() transport: uverbs methods with typed attributes.
 *
 * The kernel wants hdr.length to be exactly the header plus the attribute
 * array, hdr.driver_id to be the driver that serves the device, both
 * reserved words zero, and each pointer attribute's length within the
 * method's declared size.  Input of up to 8 bytes is inline: the kernel
 * reads it from the attribute itself, never through a pointer.
 */
#include <string.h>
#include <sys/ioctl.h>

#include "cmd_transport.h"
#include "provider_cmd.h"

void vcmd_ioctl_init(struct vcmd_ioctl *c, uint16_t object_id,
		     uint16_t method_id, uint32_t driver_id)
{
	struct ib_uverbs_ioctl_hdr *hdr = vcmd_ioctl_hdr(c);

	memset(c, 0, sizeof(*c));
	hdr->object_id = object_id;
	hdr->method_id = method_id;
	hdr->driver_id = driver_id;
}

uint32_t vcmd_ctx_driver_id(struct ibv_context *ctx)
{
	const struct verbs_device *vdev = verbs_get_device(ctx->device);
	const struct verbs_context *vctx = verbs_get_ctx(ctx);
	uint32_t driver_id = vdev->driver_id;

	/*
	 * The kernel rejects a header naming another driver (EINVAL): the
	 * provider's context says which driver it speaks for.
	 */
	if (vctx && vctx->priv && vctx->priv->driver_id)
		driver_id = vctx->priv->driver_id;
	return driver_id;
}

void vcmd_ioctl_start(struct vcmd_ioctl *c, struct ibv_context *ctx,
		      uint16_t object_id, uint16_t method_id)
{
	vcmd_ioctl_init(c, object_id, method_id, vcmd_ctx_driver_id(ctx));
}

static struct ib_uverbs_attr *next_attr(struct vcmd_ioctl *c, uint16_t id,
					size_t len, bool mandatory)
{
	struct ib_uverbs_attr *a;

	if (c->num_attrs >= VCMD_IOCTL_MAX_ATTRS || len > UINT16_MAX) {
		c->overflow = true;
		return NULL;
	}
	a = &vcmd_ioctl_hdr(c)->attrs[c->num_attrs++];
	memset(a, 0, sizeof(*a));
	a->attr_id = id;
	a->len = len;
	a->flags = mandatory ? UVERBS_ATTR_F_MANDATORY : 0;
	return a;
}

struct ib_uverbs_attr *vcmd_attr_in(struct vcmd_ioctl *c, uint16_t id,
				    const void *data, size_t len,
				    bool mandatory)
{
	struct ib_uverbs_attr *a = next_attr(c, id, len, mandatory);

	if (!a)
		return NULL;
	if (len <= sizeof(a->data)) {
		/* Nothing to copy (an empty array's @data may be NULL). */
		if (len)
			memcpy(&a->data, data, len);
	} else
		a->data = (uintptr_t)data;
	return a;
}

struct ib_uverbs_attr *vcmd_attr_enum(struct vcmd_ioctl *c, uint16_t id,
				      uint8_t elem_id)
{
	struct ib_uverbs_attr *a = next_attr(c, id, 0, true);

	if (a)
		a->attr_data.enum_data.elem_id = elem_id;
	return a;
}

struct ib_uverbs_attr *vcmd_attr_in_u64(struct vcmd_ioctl *c, uint16_t id,
					uint64_t value)
{
	return vcmd_attr_in(c, id, &value, sizeof(value), true);
}

struct ib_uverbs_attr *vcmd_attr_in_u32(struct vcmd_ioctl *c, uint16_t id,
					uint32_t value)
{
	return vcmd_attr_in(c, id, &value, sizeof(value), true);
}

struct ib_uverbs_attr *vcmd_attr_out(struct vcmd_ioctl *c, uint16_t id,
				     void *data, size_t len, bool mandatory)
{
	struct ib_uverbs_attr *a = next_attr(c, id, len, mandatory);

	if (a)
		a->data = (uintptr_t)data;
	return a;
}

void vcmd_attr_udata(struct vcmd_ioctl *c, const struct vcmd_udata *udata)
{
	if (!udata)
		return;
	if (udata->in_len)
		vcmd_attr_in(c, UVERBS_ATTR_UHW_IN, udata->in, udata->in_len,
			     true);
	if (udata->out_len)
		vcmd_attr_out(c, UVERBS_ATTR_UHW_OUT, udata->out,
			      udata->out_len, true);
}

struct ib_uverbs_attr *vcmd_attr_idr(struct vcmd_ioctl *c, uint16_t id,
				     uint32_t handle)
{
	struct ib_uverbs_attr *a = next_attr(c, id, 0, true);

	if (a)
		a->data = handle;
	return a;
}

struct ib_uverbs_attr *vcmd_attr_new_idr(struct vcmd_ioctl *c, uint16_t id)
{
	return vcmd_attr_idr(c, id, 0);
}

struct ib_uverbs_attr *vcmd_attr_fd(struct vcmd_ioctl *c, uint16_t id,
				    int fd)
{
	struct ib_uverbs_attr *a = next_attr(c, id, 0, true);

	if (a)
		a->data_s64 = fd;
	return a;
}

size_t vcmd_ioctl_finish(struct vcmd_ioctl *c)
{
	struct ib_uverbs_ioctl_hdr *hdr = vcmd_ioctl_hdr(c);

	if (c->overflow)
		return 0;
	hdr->num_attrs = c->num_attrs;
	hdr->length = sizeof(*hdr) +
		      c->num_attrs * sizeof(struct ib_uverbs_attr);
	return hdr->length;
}

int vcmd_ioctl_exec(int fd, struct vcmd_ioctl *c)
{
	if (!vcmd_ioctl_finish(c))
		return EINVAL;
	if (ioctl(fd, RDMA_VERBS_IOCTL, vcmd_ioctl_hdr(c)))
		return errno;
	return 0;
}

/*
 * Plug-in command buffers (rdma-core 44's struct ibv_command_buffer).
 *
 * The plug-in sized the issuing buffer for its own attributes and those of
 * every buffer chained behind it (__ioctl_final_num_attrs()), so the chain
 * is copied behind the buffer's own attributes into one array, the form
 * the kernel reads, and what the kernel wrote is copied back afterwards.
 * Unlike rdma-core, which only asserts it, a chain that does not fit or a
 * buffer a helper flagged fails with EINVAL before anything is sent.
 */
IBV_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
					       struct ibv_command_buffer *link)
{
	for (; link; link = link->next)
		num_attrs += link->next_attr - link->hdr.attrs;
	return num_attrs;
}

/* The attributes a buffer holds, or -1 when its pointers are not sane. */
static ptrdiff_t cmdb_used(const struct ibv_command_buffer *b)
{
	if (b->next_attr < b->hdr.attrs || b->next_attr > b->last_attr)
		return -1;
	return b->next_attr - b->hdr.attrs;
}

int vcmd_cmdb_prepare(struct ibv_command_buffer *cmd)
{
	struct ib_uverbs_ioctl_hdr *hdr = &cmd->hdr;
	const struct ibv_command_buffer *link;
	ptrdiff_t n = cmdb_used(cmd);
	size_t room;

	if (n < 0 || cmd->buffer_error)
		return EINVAL;
	room = cmd->last_attr - hdr->attrs;
	for (link = cmd->next; link; link = link->next) {
		ptrdiff_t more = cmdb_used(link);

		if (more < 0 || link->buffer_error || (size_t)(n + more) > room)
			return EINVAL;
		/* Where the chained buffer's UHW_IN lands in the array. */
		if (link->uhw_in_idx != IBV_COMMAND_UHW_NO_INDEX &&
		    cmd->uhw_in_idx == IBV_COMMAND_UHW_NO_INDEX)
			cmd->uhw_in_idx = link->uhw_in_idx + n;
		memcpy(&hdr->attrs[n], link->hdr.attrs,
		       more * sizeof(hdr->attrs[0]));
		n += more;
	}
	if (n > UINT16_MAX)
		return EINVAL;

	/*
	 * rdma-core's write() fallback wants the UHW_IN attribute to hold a
	 * pointer until now; the kernel wants up to 8 bytes inline.
	 */
	if (cmd->uhw_in_idx != IBV_COMMAND_UHW_NO_INDEX &&
	    cmd->uhw_in_idx < n) {
		struct ib_uverbs_attr *uhw = &hdr->attrs[cmd->uhw_in_idx];

		if (uhw->attr_id == UVERBS_ATTR_UHW_IN &&
		    uhw->len <= sizeof(uhw->data)) {
			const void *src = (const void *)(uintptr_t)uhw->data;
			uint64_t inline_data = 0;

			memcpy(&inline_data, src, uhw->len);
			uhw->data = inline_data;
		}
	}

	hdr->num_attrs = n;
	hdr->length = sizeof(*hdr) + n * sizeof(hdr->attrs[0]);
	hdr->reserved1 = 0;
	hdr->reserved2 = 0;
	return 0;
}

void vcmd_cmdb_complete(struct ibv_command_buffer *cmd)
{
	const struct ib_uverbs_attr *src = cmd->next_attr;
	struct ibv_command_buffer *link;

	for (link = cmd->next; link; link = link->next) {
		size_t more = link->next_attr - link->hdr.attrs;

		memcpy(link->hdr.attrs, src, more * sizeof(*src));
		src += more;
	}
}

int vcmd_cmdb_exec(struct ibv_context *ctx, struct ibv_command_buffer *cmd)
{
	int err = vcmd_cmdb_prepare(cmd);

	if (err)
		return err;
	cmd->hdr.driver_id = vcmd_ctx_driver_id(ctx);
	if (ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &cmd->hdr))
		return errno;
	vcmd_cmdb_complete(cmd);
	return 0;
}

/* The core methods that destroy an object: (object, method). */
static const uint16_t destroy_methods[][2] = {
	{ UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY },
	{ UVERBS_OBJECT_MW, UVERBS_METHOD_MW_DESTROY },
	{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY },
	{ UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_DESTROY },
	{ UVERBS_OBJECT_AH, UVERBS_METHOD_AH_DESTROY },
	{ UVERBS_OBJECT_XRCD, UVERBS_METHOD_XRCD_DESTROY },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY },
	{ UVERBS_OBJECT_RWQ_IND_TBL, UVERBS_METHOD_RWQ_IND_TBL_DESTROY },
	{ UVERBS_OBJECT_FLOW, UVERBS_METHOD_FLOW_DESTROY },
	{ UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_DESTROY },
	{ UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE },
	{ UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY },
};

bool vcmd_method_destroys(uint16_t object_id, uint16_t method_id)
{
	size_t i;

	for (i = 0; i < sizeof(destroy_methods) / sizeof(destroy_methods[0]);
	     i++)
		if (destroy_methods[i][0] == object_id &&
		    destroy_methods[i][1] == method_id)
			return true;
	return false;
}

/*
 * The child guard of a command a plug-in built itself.  Only the object
 * and method ids tell what it does, and the library knows the meaning of
 * the core ones only: destroying a core object the parent owns is done
 * (0, nothing sent), as every ibv_cmd_destroy_* does in a child;
 * everything else -- every create, query and modify, and every method of
 * a driver's own namespace (mlx5's DEVX objects, UARs, flow matchers,
 * ..., destroys included) -- is refused with EPERM.  A plug-in's free
 * path for such a driver object then fails in the child and keeps its
 * user-space copy; the kernel object stays the parent's.
 */
IBV_EXPORT int execute_ioctl(struct ibv_context *context,
			     struct ibv_command_buffer *cmd)
{
	if (verbs_inherited_strict(context))
		return vcmd_set_errno(vcmd_method_destroys(cmd->hdr.object_id,
							   cmd->hdr.method_id)
					      ? 0
					      : EPERM);
	return vcmd_set_errno(vcmd_cmdb_exec(context, cmd));
}

int vcmd_ioctl_link(struct ibv_context *ctx, struct vcmd_ioctl *c,
		    struct ibv_command_buffer *link)
{
	union {
		struct ibv_command_buffer cmd;
		uint8_t room[sizeof(struct ibv_command_buffer) +
			     (VCMD_IOCTL_MAX_ATTRS + VCMD_LINK_MAX_ATTRS) *
				     sizeof(struct ib_uverbs_attr)];
	} u;
	struct ib_uverbs_ioctl_hdr *own = vcmd_ioctl_hdr(c);
	size_t own_len = c->num_attrs * sizeof(own->attrs[0]);
	unsigned int extra;
	int err;

	if (!link)
		return vcmd_ioctl_ctx(ctx, c);
	if (c->overflow)
		return EINVAL;
	extra = __ioctl_final_num_attrs(0, link);
	if (extra > VCMD_LINK_MAX_ATTRS)
		return EINVAL;

	memset(&u.cmd, 0, sizeof(u.cmd));
	u.cmd.next = link;
	u.cmd.uhw_in_idx = IBV_COMMAND_UHW_NO_INDEX;
	u.cmd.uhw_out_idx = IBV_COMMAND_UHW_NO_INDEX;
	u.cmd.hdr.object_id = own->object_id;
	u.cmd.hdr.method_id = own->method_id;
	memcpy(u.cmd.hdr.attrs, own->attrs, own_len);
	u.cmd.next_attr = u.cmd.hdr.attrs + c->num_attrs;
	u.cmd.last_attr = u.cmd.next_attr + extra;

	err = vcmd_cmdb_exec(ctx, &u.cmd);
	if (!err)
		memcpy(own->attrs, u.cmd.hdr.attrs, own_len);
	return err;
}

bool vcmd_chain_writable(const struct ibv_command_buffer *link, bool *extended)
{
	const struct ib_uverbs_attr *a;

	for (; link; link = link->next) {
		if (link->fallback_ioctl_only)
			return false;
		if (link->fallback_require_ex)
			*extended = true;
		for (a = link->hdr.attrs; a < link->next_attr; a++)
			if (a->attr_id != UVERBS_ATTR_UHW_IN &&
			    a->attr_id != UVERBS_ATTR_UHW_OUT &&
			    (a->flags & UVERBS_ATTR_F_MANDATORY))
				return false;
	}
	return true;
}

int vcmd_write_ctx_any(struct ibv_context *ctx, struct vcmd_write_req *req)
{
	if (req->core_len <= VCMD_MAX_CORE_IN)
		return vcmd_write_ctx(ctx, req);
	return vcmd_invoke_write(ctx, req);
}
