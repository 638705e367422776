// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Buffers a provider allocates for the application (IBVERBS_1.17 and
 * ibv_export_buf_dmabuf_fd() of 1.18, rdma-core 65): memory the device
 * can reach, which a confidential-computing guest must share with it (a
 * dma-buf of a heap, mlx5's alloc_buf op).  Without the provider's ops a
 * buffer is page-aligned process memory, and freeing it frees that, as in
 * upstream's default ops; ibv_reg_buf_mr() is ibv_reg_mr_ex() over a
 * range of the buffer.
 *
 * A PD inherited across fork() gets EPERM; ibv_free_buf() of a buffer the
 * child inherited frees the child's copy only (memory, a mapping and an
 * fd of its own), so it goes to the provider.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "ibverbs.h"

static void *alloc_host_buf(struct ibv_pd *pd, size_t size,
			    struct ibv_buf **buf)
{
	struct ibv_buf *b = calloc(1, sizeof(*b));
	void *mem;
	int err;

	if (!b)
		return verbs_null_errno(ENOMEM);
	err = posix_memalign(&mem, sysconf(_SC_PAGESIZE), size);
	if (err) {
		free(b);
		return verbs_null_errno(err);
	}
	b->addr = mem;
	b->size = size;
	b->pd = pd;
	b->dmabuf_fd = -1;
	*buf = b;
	return mem;
}

IBV_EXPORT void *ibv_alloc_buf(struct ibv_pd *pd, size_t size,
			       struct ibv_buf **buf)
{
	if (verbs_refuse_pd(pd))
		return NULL;
	if (!buf)
		return verbs_null_errno(EINVAL);
	if (verbs_ops(pd->context)->alloc_buf)
		return verbs_ops(pd->context)->alloc_buf(pd, size, buf);
	return alloc_host_buf(pd, size, buf);
}

IBV_EXPORT void ibv_free_buf(struct ibv_buf *buf)
{
	if (!buf || !buf->pd || !buf->pd->context)
		return;
	if (verbs_ops(buf->pd->context)->free_buf) {
		verbs_ops(buf->pd->context)->free_buf(buf);
		return;
	}
	free(buf->addr);
	free(buf);
}

IBV_EXPORT struct ibv_mr *ibv_reg_buf_mr(struct ibv_pd *pd, struct ibv_buf *buf,
					 void *addr, size_t length, int access)
{
	struct ibv_mr_init_attr attr = {
		.length = length,
		.access = access,
		.comp_mask = IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR,
		.addr = addr,
		.buf = buf,
	};

	return ibv_reg_mr_ex(pd, &attr);
}

IBV_EXPORT int ibv_export_buf_dmabuf_fd(struct ibv_buf *buf)
{
	if (!buf || !buf->pd) {
		errno = EINVAL;
		return -1;
	}
	if (verbs_refuse_pd(buf->pd))
		return -1;
	/* Process memory has no dma-buf (upstream: ENODATA). */
	if (buf->dmabuf_fd < 0) {
		errno = ENODATA;
		return -1;
	}
	return fcntl(buf->dmabuf_fd, F_DUPFD_CLOEXEC, 0);
}
