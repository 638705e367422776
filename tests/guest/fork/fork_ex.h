/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The extended objects of the data-path guard tests: an RC QP on rxe0
 * with its ibv_qp_ex, on an ibv_cq_ex, connected to a plain RC QP on rxe1
 * (the peer), and the memory a child shares with its parent.
 *
 * A provider whose queues live in memory mapped from the kernel (rxe, in
 * both the built-in provider and Debian's librxe) keeps a fork child's
 * writes to those queues visible to the parent and the kernel: MAP_SHARED
 * mappings of /dev/infiniband/uverbsN are not copied on fork.  What the
 * peer receives, and whether those mappings changed, is what proves a
 * child harmless.
 *
 *   fx_open(x)      the pair, MRs in memory of their own mapping (a: rxe0,
 *                   the parent's sends come from it; b: rxe1, the peer
 *                   receives and is written into), the QP ex with every
 *                   builder rxe has; 0 or -1 (diagnosed).
 *   fx_close(x)     destroys what fx_open() made.
 *   fx_batch_open() a batch holding one signalled SEND of @len bytes,
 *                   from a+off or inline from @inl when that is set, left
 *                   open (no ibv_wr_complete());
 *   fx_send_batch() the same, completed.
 *   fx_shared_*     the MAP_SHARED mappings of the uverbs devices: find
 *                   them (in the parent), save a copy and count the bytes
 *                   that changed since (in a child, around one call).
 */
#ifndef FORK_EX_H
#define FORK_EX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fork_proc.h"

#define FX_MAX_SHARED 32

struct fx {
	struct gc_pair p;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qx;
	struct gc_buf a, b;
};

int fx_open(struct fx *x);
void fx_close(struct fx *x);

void fx_batch_open(struct fx *x, uint64_t wr_id, size_t off, uint32_t len,
		   const void *inl);
int fx_send_batch(struct fx *x, uint64_t wr_id, size_t off, uint32_t len,
		  const void *inl);

struct fx_shared {
	int n;
	struct {
		uint8_t *addr;
		size_t len;
		uint8_t *copy;
	} r[FX_MAX_SHARED];
};

/* The uverbs mappings of this process; their count, or -1. */
int fx_shared_find(struct fx_shared *s);
void fx_shared_save(struct fx_shared *s);
size_t fx_shared_changed(const struct fx_shared *s);
void fx_shared_free(struct fx_shared *s);

#endif /* FORK_EX_H */
