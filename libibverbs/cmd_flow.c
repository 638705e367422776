// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flow steering rules and flow actions, for provider plug-ins.
 *
 * A rule is created with the extended write() command CREATE_FLOW: its
 * core part carries the rule's header and every spec translated from
 * <infiniband/verbs.h>'s struct ibv_flow_spec to the kernel's struct
 * ib_uverbs_flow_spec_* (rdma-core 44's translation: the same spec
 * sizes, the IPv4 spec in its short 8-byte-filter form, the longer
 * filters cut to the fields the kernel knows, which fails with
 * EOPNOTSUPP if a cut-off mask byte is set).  A rule is destroyed with
 * UVERBS_METHOD_FLOW_DESTROY, or the write() command on kernels without
 * it.  ESP flow actions exist only as ioctl methods, with the plug-in's
 * driver attributes chained behind the library's.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd_transport.h"
#include "provider_cmd.h"

#define FLOW_HDR_LEN sizeof(struct ib_uverbs_flow_spec_hdr)
/* The largest spec the translation produces. */
#define FLOW_KSPEC_MAX sizeof(struct ib_uverbs_flow_spec_ipv6)

/*
 * An application lays its specs out one after the other behind struct
 * ibv_flow_attr, often in a packed struct: a spec need not be aligned for
 * struct ibv_flow_spec, so it is read byte-wise, at the offsets of the
 * spec's own struct.
 */
struct ib_spec {
	const uint8_t *p;
	uint32_t type;
	uint16_t size;
};

#define SPEC_OFF(type, member) offsetof(struct ibv_flow_spec_##type, member)
#define SPEC_LEN(type, member)                                               \
	sizeof(((struct ibv_flow_spec_##type *)0)->member)

static void spec_read(const uint8_t *p, struct ib_spec *s)
{
	s->p = p;
	memcpy(&s->type, p + offsetof(struct ibv_flow_spec, hdr.type),
	       sizeof(s->type));
	memcpy(&s->size, p + offsetof(struct ibv_flow_spec, hdr.size),
	       sizeof(s->size));
}

/*
 * A kernel spec of @ksize bytes: the header, then the value and the mask
 * filters of (ksize - header) / 2 bytes each; @len bytes of each are
 * copied from the application's spec.
 */
static void put_filters(uint8_t *k, size_t ksize, const uint8_t *val,
			const uint8_t *mask, size_t len)
{
	size_t filter = (ksize - FLOW_HDR_LEN) / 2;

	memcpy(k + FLOW_HDR_LEN, val, len);
	memcpy(k + FLOW_HDR_LEN + filter, mask, len);
}

/* Filters of fixed length: value at @val_off, mask at @mask_off. */
static void put_fixed(uint8_t *k, size_t ksize, const struct ib_spec *ib,
		      size_t val_off, size_t mask_off, size_t len)
{
	put_filters(k, ksize, ib->p + val_off, ib->p + mask_off, len);
}

/*
 * Specs whose filter may be longer in the application's struct than the
 * @len bytes the kernel reads: the filter length follows from the spec's
 * size, and the mask starts that far after the value.
 */
static int put_sized_filters(uint8_t *k, size_t ksize,
			     const struct ib_spec *ib, size_t val_off,
			     size_t len)
{
	const size_t hdr_len = sizeof(((struct ibv_flow_spec *)0)->hdr);
	const uint8_t *val = ib->p + val_off, *mask;
	size_t ib_len, i;

	if (ib->size < hdr_len)
		return EINVAL;
	ib_len = (ib->size - hdr_len) / 2;
	if (ib_len < len)
		return EINVAL;
	mask = val + ib_len;
	for (i = len; i < ib_len; i++)
		if (mask[i])
			return EOPNOTSUPP;
	put_filters(k, ksize, val, mask, len);
	return 0;
}

/* The ibv_flow_spec_type values that may carry IBV_FLOW_SPEC_INNER. */
static bool may_be_inner(uint32_t base)
{
	switch (base) {
	case IBV_FLOW_SPEC_ETH:
	case IBV_FLOW_SPEC_IPV4:
	case IBV_FLOW_SPEC_IPV4_EXT:
	case IBV_FLOW_SPEC_IPV6:
	case IBV_FLOW_SPEC_ESP:
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP:
	case IBV_FLOW_SPEC_MPLS:
		return true;
	default:
		return false;
	}
}

/* The kernel handle behind an action spec's object pointer. */
static uint32_t action_handle(const struct ib_spec *ib, size_t ptr_off,
			      size_t handle_off)
{
	const uint8_t *obj;
	uint32_t handle;

	memcpy(&obj, ib->p + ptr_off, sizeof(obj));
	memcpy(&handle, obj + handle_off, sizeof(handle));
	return handle;
}

/*
 * Translate one spec into @k (FLOW_KSPEC_MAX bytes, zeroed).  Returns the
 * kernel spec's size, or a negative errno.
 */
static int flow_spec_to_kern(const struct ib_spec *ib, uint8_t *k)
{
	struct ib_uverbs_flow_spec_hdr *hdr = (void *)k;
	uint32_t inner = ib->type & IBV_FLOW_SPEC_INNER;
	uint32_t base = ib->type & ~IBV_FLOW_SPEC_INNER;
	uint32_t handle;
	size_t size;
	int err = 0;

	if (inner && !may_be_inner(base))
		return -EINVAL;
	hdr->type = ib->type;

	switch (base) {
	case IBV_FLOW_SPEC_ETH:
		size = sizeof(struct ib_uverbs_flow_spec_eth);
		put_fixed(k, size, ib, SPEC_OFF(eth, val), SPEC_OFF(eth, mask),
			  SPEC_LEN(eth, val));
		break;
	case IBV_FLOW_SPEC_IPV4:
		/* Source and destination address only: a 24-byte spec. */
		size = FLOW_HDR_LEN + 2 * SPEC_LEN(ipv4, val);
		put_fixed(k, size, ib, SPEC_OFF(ipv4, val),
			  SPEC_OFF(ipv4, mask), SPEC_LEN(ipv4, val));
		break;
	case IBV_FLOW_SPEC_IPV4_EXT:
		/* The kernel knows it as its (full) IPv4 spec. */
		hdr->type = IBV_FLOW_SPEC_IPV4 | inner;
		size = sizeof(struct ib_uverbs_flow_spec_ipv4);
		err = put_sized_filters(k, size, ib, SPEC_OFF(ipv4_ext, val),
					sizeof(struct ib_uverbs_flow_ipv4_filter));
		break;
	case IBV_FLOW_SPEC_IPV6:
		size = sizeof(struct ib_uverbs_flow_spec_ipv6);
		err = put_sized_filters(
			k, size, ib, SPEC_OFF(ipv6, val),
			offsetof(struct ib_uverbs_flow_ipv6_filter, hop_limit) +
				1);
		break;
	case IBV_FLOW_SPEC_ESP:
		size = sizeof(struct ib_uverbs_flow_spec_esp);
		put_fixed(k, size, ib, SPEC_OFF(esp, val), SPEC_OFF(esp, mask),
			  SPEC_LEN(esp, val));
		break;
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP:
		size = sizeof(struct ib_uverbs_flow_spec_tcp_udp);
		put_fixed(k, size, ib, SPEC_OFF(tcp_udp, val),
			  SPEC_OFF(tcp_udp, mask), SPEC_LEN(tcp_udp, val));
		break;
	case IBV_FLOW_SPEC_GRE:
		size = sizeof(struct ib_uverbs_flow_spec_gre);
		put_fixed(k, size, ib, SPEC_OFF(gre, val), SPEC_OFF(gre, mask),
			  SPEC_LEN(gre, val));
		break;
	case IBV_FLOW_SPEC_MPLS:
		size = sizeof(struct ib_uverbs_flow_spec_mpls);
		put_fixed(k, size, ib, SPEC_OFF(mpls, val),
			  SPEC_OFF(mpls, mask), SPEC_LEN(mpls, val));
		break;
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		size = sizeof(struct ib_uverbs_flow_spec_tunnel);
		err = put_sized_filters(k, size, ib, SPEC_OFF(tunnel, val),
					sizeof(struct ib_uverbs_flow_tunnel_filter));
		break;
	case IBV_FLOW_SPEC_ACTION_TAG:
		size = sizeof(struct ib_uverbs_flow_spec_action_tag);
		memcpy(k + offsetof(struct ib_uverbs_flow_spec_action_tag,
				    tag_id),
		       ib->p + SPEC_OFF(action_tag, tag_id), sizeof(uint32_t));
		break;
	case IBV_FLOW_SPEC_ACTION_DROP:
		size = sizeof(struct ib_uverbs_flow_spec_action_drop);
		break;
	case IBV_FLOW_SPEC_ACTION_HANDLE:
		size = sizeof(struct ib_uverbs_flow_spec_action_handle);
		/* The struct ibv_flow_action inside a verbs_flow_action. */
		handle = action_handle(ib, SPEC_OFF(action_handle, action),
				       offsetof(struct verbs_flow_action,
						handle) -
					       offsetof(struct verbs_flow_action,
							action));
		memcpy(k + offsetof(struct ib_uverbs_flow_spec_action_handle,
				    handle),
		       &handle, sizeof(handle));
		break;
	case IBV_FLOW_SPEC_ACTION_COUNT:
		size = sizeof(struct ib_uverbs_flow_spec_action_count);
		handle = action_handle(ib, SPEC_OFF(counter_action, counters),
				       offsetof(struct verbs_counters, handle) -
					       offsetof(struct verbs_counters,
							counters));
		memcpy(k + offsetof(struct ib_uverbs_flow_spec_action_count,
				    handle),
		       &handle, sizeof(handle));
		break;
	default:
		return -EINVAL;
	}
	if (err)
		return -err;
	hdr->size = size;
	return size;
}

static int destroy_flow_handle(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_destroy_flow cmd = { .flow_handle = handle };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_DESTROY_FLOW,
		.extended = true,
		VCMD_REQ_CORE(cmd),
	};

	return vcmd_write_ctx(ctx, &req);
}

size_t vcmd_flow_cmd_room(const struct ibv_flow_attr *attr)
{
	return sizeof(struct ib_uverbs_create_flow) +
	       attr->num_of_specs * FLOW_KSPEC_MAX;
}

ssize_t vcmd_build_create_flow(uint32_t qp_handle,
			       const struct ibv_flow_attr *attr,
			       struct ib_uverbs_create_flow *cmd)
{
	const uint8_t *ib = (const uint8_t *)(attr + 1);
	uint8_t *k = (uint8_t *)(cmd + 1);
	size_t total = 0;
	unsigned int i;

	cmd->qp_handle = qp_handle;
	cmd->flow_attr.type = attr->type;
	cmd->flow_attr.priority = attr->priority;
	cmd->flow_attr.num_of_specs = attr->num_of_specs;
	cmd->flow_attr.port = attr->port;
	cmd->flow_attr.flags = attr->flags;
	for (i = 0; i < attr->num_of_specs; i++) {
		struct ib_spec spec;
		int size;

		spec_read(ib, &spec);
		size = flow_spec_to_kern(&spec, k + total);
		if (size < 0)
			return size;
		total += size;
		ib += spec.size;
	}
	if (total > UINT16_MAX)
		return -EINVAL;
	cmd->flow_attr.size = total;
	return sizeof(*cmd) + total;
}

IBV_EXPORT int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
				   struct ibv_flow_attr *flow_attr, void *ucmd,
				   size_t ucmd_size)
{
	struct ibv_context *ctx = qp->context;
	struct ib_uverbs_create_flow_resp resp = {
		.flow_handle = VCMD_NO_HANDLE,
	};
	struct vcmd_udata udata = { .in = ucmd, .in_len = ucmd ? ucmd_size : 0 };
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_CREATE_FLOW,
		.extended = true,
		VCMD_REQ_RESP(resp),
		.udata = &udata,
	};
	struct ib_uverbs_create_flow *cmd;
	ssize_t len;
	int err;

	if (verbs_inherited_strict(ctx))
		return vcmd_set_errno(EPERM);
	cmd = calloc(1, vcmd_flow_cmd_room(flow_attr));
	if (!cmd)
		return vcmd_set_errno(ENOMEM);
	len = vcmd_build_create_flow(qp->handle, flow_attr, cmd);
	if (len < 0) {
		free(cmd);
		return vcmd_set_errno(-len);
	}
	req.core = cmd;
	req.core_len = len;
	err = vcmd_write_ctx_any(ctx, &req);
	free(cmd);
	/* A short write may have left the rule created: undo it. */
	if (err && req.short_write && resp.flow_handle != VCMD_NO_HANDLE)
		destroy_flow_handle(ctx, resp.flow_handle);
	if (err)
		return vcmd_set_errno(err);
	flow_id->context = ctx;
	flow_id->handle = resp.flow_handle;
	return 0;
}

IBV_EXPORT int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)
{
	struct ibv_context *ctx = flow_id->context;
	struct vcmd_ioctl c;
	int err;

	if (verbs_inherited_strict(ctx))
		return 0;
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_FLOW,
			 UVERBS_METHOD_FLOW_DESTROY);
	vcmd_attr_idr(&c, UVERBS_ATTR_DESTROY_FLOW_HANDLE, flow_id->handle);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err == EPROTONOSUPPORT || err == ENOTTY)
		err = destroy_flow_handle(ctx, flow_id->handle);
	return vcmd_destroy_errno(err);
}

/* The ESP attributes common to create and modify. */
static void put_esp_attrs(struct vcmd_ioctl *c,
			  const struct ibv_flow_action_esp_attr *esp)
{
	struct ib_uverbs_attr *a;

	if (esp->comp_mask & IBV_FLOW_ACTION_ESP_MASK_ESN)
		vcmd_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_ESN, &esp->esn,
			     sizeof(esp->esn), true);
	if (esp->keymat_ptr) {
		a = vcmd_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT,
				 esp->keymat_ptr, esp->keymat_len, true);
		if (a)
			a->attr_data.enum_data.elem_id = esp->keymat_proto;
	}
	if (esp->replay_ptr) {
		a = vcmd_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY,
				 esp->replay_ptr, esp->replay_len, true);
		if (a)
			a->attr_data.enum_data.elem_id = esp->replay_proto;
	}
	if (esp->esp_encap)
		vcmd_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP,
			     esp->esp_encap, sizeof(*esp->esp_encap), true);
	if (esp->esp_attr)
		vcmd_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS,
			     esp->esp_attr, sizeof(*esp->esp_attr), true);
}

IBV_EXPORT int ibv_cmd_create_flow_action_esp(
	struct ibv_context *ctx, struct ibv_flow_action_esp_attr *attr,
	struct verbs_flow_action *flow_action,
	struct ibv_command_buffer *driver)
{
	struct ib_uverbs_attr *handle;
	struct vcmd_ioctl c;
	int err;

	if (verbs_inherited_strict(ctx))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_FLOW_ACTION,
			 UVERBS_METHOD_FLOW_ACTION_ESP_CREATE);
	handle = vcmd_attr_new_idr(&c,
				   UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE);
	put_esp_attrs(&c, attr);
	err = vcmd_ioctl_link(ctx, &c, driver);
	if (err)
		return vcmd_set_errno(err);
	flow_action->action.context = ctx;
	flow_action->type = IBV_FLOW_ACTION_ESP;
	flow_action->handle = vcmd_attr_handle(handle);
	return 0;
}

IBV_EXPORT int ibv_cmd_modify_flow_action_esp(
	struct verbs_flow_action *flow_action,
	struct ibv_flow_action_esp_attr *attr,
	struct ibv_command_buffer *driver)
{
	struct ibv_context *ctx = flow_action->action.context;
	struct vcmd_ioctl c;

	if (verbs_inherited_strict(ctx))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_FLOW_ACTION,
			 UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY);
	vcmd_attr_idr(&c, UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE,
		      flow_action->handle);
	put_esp_attrs(&c, attr);
	return vcmd_set_errno(vcmd_ioctl_link(ctx, &c, driver));
}

IBV_EXPORT int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)
{
	struct ibv_context *ctx = action->action.context;
	struct vcmd_ioctl c;

	if (verbs_inherited_strict(ctx))
		return 0;
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_FLOW_ACTION,
			 UVERBS_METHOD_FLOW_ACTION_DESTROY);
	vcmd_attr_idr(&c, UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE,
		      action->handle);
	return vcmd_destroy_errno(vcmd_ioctl_ctx(ctx, &c));
}
