// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_cmd_export_dmabuf_fd() (rdma-core 65): a dma-buf of a device's
 * memory (the page at @pg_off of the context's mmap space, as a provider
 * maps it), from UVERBS_OBJECT_DMABUF's ALLOC method.  Returns the new
 * file descriptor, or -1 with errno set, as upstream.
 */
#include "cmd_transport.h"
#include "provider_cmd.h"
#include "uverbs_ioctl_65.h"

IBV_EXPORT int ibv_cmd_export_dmabuf_fd(struct ibv_context *ctx, off_t pg_off)
{
	struct ib_uverbs_attr *fd;
	struct vcmd_ioctl c;
	int err;

	if (verbs_inherited_strict(ctx)) {
		errno = EPERM;
		return -1;
	}
	vcmd_ioctl_start(&c, ctx, IBV_K65_OBJECT_DMABUF,
			 IBV_K65_METHOD_DMABUF_ALLOC);
	/* A new fd: the kernel writes its number into the attribute. */
	fd = vcmd_attr_fd(&c, IBV_K65_ATTR_ALLOC_DMABUF_HANDLE, 0);
	vcmd_attr_in_u64(&c, IBV_K65_ATTR_ALLOC_DMABUF_PGOFF, pg_off);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err) {
		errno = err;
		return -1;
	}
	return (int)fd->data_s64;
}
