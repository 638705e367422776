// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counters objects, for provider plug-ins: ioctl methods only, the
 * plug-in's driver attributes (which counters to attach, how to read
 * them) chained behind the library's.
 */
#include "cmd_transport.h"
#include "provider_cmd.h"

IBV_EXPORT int ibv_cmd_create_counters(
	struct ibv_context *context, struct ibv_counters_init_attr *init_attr,
	struct verbs_counters *vcounters, struct ibv_command_buffer *link)
{
	struct ib_uverbs_attr *handle;
	struct vcmd_ioctl c;
	int err;

	if (verbs_inherited_strict(context))
		return vcmd_set_errno(EPERM);
	/* No comp_mask bit is defined yet. */
	if (init_attr->comp_mask)
		return vcmd_set_errno(EOPNOTSUPP);

	vcmd_ioctl_start(&c, context, UVERBS_OBJECT_COUNTERS,
			 UVERBS_METHOD_COUNTERS_CREATE);
	handle = vcmd_attr_new_idr(&c, UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
	err = vcmd_ioctl_link(context, &c, link);
	if (err)
		return vcmd_set_errno(err);
	vcounters->counters.context = context;
	vcounters->handle = vcmd_attr_handle(handle);
	return 0;
}

IBV_EXPORT int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)
{
	struct ibv_context *ctx = vcounters->counters.context;
	struct vcmd_ioctl c;

	if (verbs_inherited_strict(ctx))
		return 0;
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_COUNTERS,
			 UVERBS_METHOD_COUNTERS_DESTROY);
	vcmd_attr_idr(&c, UVERBS_ATTR_DESTROY_COUNTERS_HANDLE,
		      vcounters->handle);
	return vcmd_destroy_errno(vcmd_ioctl_ctx(ctx, &c));
}

IBV_EXPORT int ibv_cmd_read_counters(struct verbs_counters *vcounters,
				     uint64_t *counters_value,
				     uint32_t ncounters, uint32_t flags,
				     struct ibv_command_buffer *link)
{
	struct ibv_context *ctx = vcounters->counters.context;
	struct vcmd_ioctl c;

	if (verbs_inherited_strict(ctx))
		return vcmd_set_errno(EPERM);
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_COUNTERS,
			 UVERBS_METHOD_COUNTERS_READ);
	vcmd_attr_idr(&c, UVERBS_ATTR_READ_COUNTERS_HANDLE, vcounters->handle);
	/* More than 8191 counters do not fit an attribute: EINVAL. */
	vcmd_attr_out(&c, UVERBS_ATTR_READ_COUNTERS_BUFF, counters_value,
		      (size_t)ncounters * sizeof(*counters_value), true);
	vcmd_attr_in_u32(&c, UVERBS_ATTR_READ_COUNTERS_FLAGS, flags);
	return vcmd_set_errno(vcmd_ioctl_link(ctx, &c, link));
}
