// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_dm_export_dmabuf_fd() (IBVERBS_1.16, rdma-core 65): a dma-buf of
 * device memory, from the provider's dm_export_dmabuf_fd op.  Returns the
 * new descriptor, or -1 with errno: EOPNOTSUPP without the op (upstream's
 * default), EPERM for device memory inherited across fork(), which the
 * child must not hand to another device.
 */
#include "ibverbs.h"

IBV_EXPORT int ibv_dm_export_dmabuf_fd(struct ibv_dm *dm)
{
	if (!dm) {
		errno = EINVAL;
		return -1;
	}
	if (verbs_refuse_ctx(dm->context))
		return -1;
	if (!verbs_ops(dm->context)->dm_export_dmabuf_fd) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return verbs_ops(dm->context)->dm_export_dmabuf_fd(dm);
}
