/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rings rxe shares with the kernel.
 *
 * Every queue (send, receive, shared receive, completion) is one mapping of
 * the uverbs command fd that starts with struct rxe_queue_buf: the element
 * size and the index mask, then the producer and the consumer index, each on
 * its own cache line, then the elements.  The number of slots is a power of
 * two; one slot always stays empty, so the ring is empty when the indices are
 * equal and full when the producer is one behind the consumer.  Both indices
 * are kept masked: that is how the kernel writes its own, and it masks ours
 * before using them.
 *
 * Each index has exactly one writer.  A side reads the index the other side
 * writes with acquire, so that the elements published before it are visible,
 * and publishes its own with release, so that the elements it filled (or
 * finished reading) are complete before the other side sees the index move.
 * Its own index it may read plainly: only it stores there.
 */
#ifndef RXE_QUEUE_H
#define RXE_QUEUE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include <netinet/in.h>
#include <rdma/rdma_user_rxe.h>

/*
 * A test-and-test-and-set spinlock, inline: an uncontended lock and
 * unlock are an exchange and a store, where a pthread_spinlock_t costs
 * two calls through the PLT.  Zero is unlocked, so calloc() initialises.
 */
struct rxe_lock {
	int locked;
};

static inline void rxe_lock_init(struct rxe_lock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELAXED);
}

/*
 * A waiter spins, as on librxe's pthread spinlocks: every section it
 * guards is a few dozen instructions, but for a resize (a command and an
 * mmap(), rare) and an ibv_qp_ex batch (ibv_wr_start() to
 * ibv_wr_complete() or ibv_wr_abort(), the application's own time).
 * Yielding inside this function would cost every caller: a call in it
 * makes the compiler save registers on the fast path too.
 */
static inline void rxe_lock(struct rxe_lock *l)
{
	while (__builtin_expect(
		__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE), 0)) {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
	}
}

static inline void rxe_unlock(struct rxe_lock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

struct rxe_ring {
	struct rxe_queue_buf *buf;	/* NULL when not mapped */
	size_t map_len;
	/* Copies taken at map time: the shared header is not trusted. */
	uint32_t mask;
	uint32_t log2_elem;
};

/* Map the queue the kernel describes in @mi on @fd.  0 or an errno. */
static inline int rxe_ring_map(struct rxe_ring *r, int fd,
			       const struct mminfo *mi)
{
	void *p;

	if (mi->size < sizeof(struct rxe_queue_buf))
		return EINVAL;
	p = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)mi->offset);
	if (p == MAP_FAILED)
		return errno;
	r->buf = p;
	r->map_len = mi->size;
	r->mask = r->buf->index_mask;
	r->log2_elem = r->buf->log2_elem_size;
	return 0;
}

static inline void rxe_ring_unmap(struct rxe_ring *r)
{
	if (r->buf)
		munmap(r->buf, r->map_len);
	r->buf = NULL;
	r->map_len = 0;
}

/* Slots a ring can hold at once. */
static inline uint32_t rxe_ring_capacity(const struct rxe_ring *r)
{
	return r->mask;
}

static inline void *rxe_ring_elem(const struct rxe_ring *r, uint32_t index)
{
	return r->buf->data + ((size_t)(index & r->mask) << r->log2_elem);
}

static inline size_t rxe_ring_elem_size(const struct rxe_ring *r)
{
	return (size_t)1 << r->log2_elem;
}

static inline uint32_t rxe_ring_next(const struct rxe_ring *r, uint32_t index)
{
	return (index + 1) & r->mask;
}

/* Indices this side writes: plain reads, release stores. */
static inline uint32_t rxe_ring_own_producer(const struct rxe_ring *r)
{
	return __atomic_load_n(&r->buf->producer_index, __ATOMIC_RELAXED) &
	       r->mask;
}

static inline uint32_t rxe_ring_own_consumer(const struct rxe_ring *r)
{
	return __atomic_load_n(&r->buf->consumer_index, __ATOMIC_RELAXED) &
	       r->mask;
}

static inline void rxe_ring_publish_producer(struct rxe_ring *r,
					     uint32_t index)
{
	__atomic_store_n(&r->buf->producer_index, index & r->mask,
			 __ATOMIC_RELEASE);
}

static inline void rxe_ring_publish_consumer(struct rxe_ring *r,
					     uint32_t index)
{
	__atomic_store_n(&r->buf->consumer_index, index & r->mask,
			 __ATOMIC_RELEASE);
}

/* Indices the kernel writes: acquire loads. */
static inline uint32_t rxe_ring_peer_producer(const struct rxe_ring *r)
{
	return __atomic_load_n(&r->buf->producer_index, __ATOMIC_ACQUIRE) &
	       r->mask;
}

static inline uint32_t rxe_ring_peer_consumer(const struct rxe_ring *r)
{
	return __atomic_load_n(&r->buf->consumer_index, __ATOMIC_ACQUIRE) &
	       r->mask;
}

/* Would one more element at producer index @prod overrun consumer @cons? */
static inline int rxe_ring_full(const struct rxe_ring *r, uint32_t prod,
				uint32_t cons)
{
	return ((prod + 1 - cons) & r->mask) == 0;
}

#endif /* RXE_QUEUE_H */
