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

void vcmd_ioctl_init(struct vcmd_ioctl *c, uint16_t object_id,
		     uint16_t method_id, uint32_t driver_id)
{
	struct ib_uverbs_ioctl_hdr *hdr = vcmd_ioctl_hdr(c);

	memset(c, 0, sizeof(*c));
	hdr->object_id = object_id;
	hdr->method_id = method_id;
	hdr->driver_id = driver_id;
}

void vcmd_ioctl_start(struct vcmd_ioctl *c, struct ibv_context *ctx,
		      uint16_t object_id, uint16_t method_id)
{
	const struct verbs_device *vdev = verbs_get_device(ctx->device);
	uint32_t driver_id = vdev->driver_id;

	/* The kernel rejects a header naming another driver (EINVAL). */
	if (driver_id == RDMA_DRIVER_UNKNOWN && vdev->provider)
		driver_id = vdev->provider->driver_id;
	vcmd_ioctl_init(c, object_id, method_id, driver_id);
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
	if (len <= sizeof(a->data))
		memcpy(&a->data, data, len);
	else
		a->data = (uintptr_t)data;
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
