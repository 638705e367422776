// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The dma-buf heap helpers of rdma-core 65 (IBVERBS_PRIVATE_65), which
 * mlx5 uses for memory a confidential-computing guest shares with its
 * device: the kernel's "system_cc_shared" heap under /dev/dma_heap, a
 * dma-buf of @size bytes from it, mapped into the process.
 *
 * As upstream: where the heap is absent, ibv_dmabuf_heap_cc_shared_init()
 * fails with open(2)'s errno (ENOENT); allocation failures leave the
 * ioctl's or mmap's errno.  Every descriptor is close-on-exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-heap.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "provider_cmd.h"

#define CC_SHARED_HEAP "/dev/dma_heap/system_cc_shared"

struct ibv_dmabuf_heap {
	int fd;
};

IBV_EXPORT struct ibv_dmabuf_heap *ibv_dmabuf_heap_cc_shared_init(void)
{
	struct ibv_dmabuf_heap *heap;
	int fd = open(CC_SHARED_HEAP, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	heap = calloc(1, sizeof(*heap));
	if (!heap) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	heap->fd = fd;
	return heap;
}

IBV_EXPORT void ibv_dmabuf_heap_destroy(struct ibv_dmabuf_heap *heap)
{
	if (!heap)
		return;
	close(heap->fd);
	free(heap);
}

IBV_EXPORT void *ibv_dmabuf_heap_alloc(struct ibv_dmabuf_heap *heap,
				       size_t size, int *dmabuf_fd)
{
	struct dma_heap_allocation_data req = {
		.len = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	void *buf;
	int err;

	if (!heap || !dmabuf_fd) {
		errno = EINVAL;
		return NULL;
	}
	if (ioctl(heap->fd, DMA_HEAP_IOCTL_ALLOC, &req) < 0)
		return NULL;
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, req.fd, 0);
	if (buf == MAP_FAILED) {
		err = errno;
		close(req.fd);
		errno = err;
		return NULL;
	}
	*dmabuf_fd = req.fd;
	return buf;
}

IBV_EXPORT void ibv_dmabuf_heap_free(void *buf, size_t size, int dmabuf_fd)
{
	if (buf)
		munmap(buf, size);
	if (dmabuf_fd >= 0)
		close(dmabuf_fd);
}
