// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A memory monitor with an MR cache, LD_PRELOADed by fork_interposer: what
 * UCX's rcache, MPI's lazy deregistration and libfabric's memhooks do to
 * libibverbs, in a few hundred lines.
 *
 * - mon_reg() hands out cached registrations (ibv_reg_mr() on a miss);
 *   mon_put() gives one back but keeps it registered (lazy
 *   deregistration).  In legacy mode (tracking on) the cache also passes
 *   each range to ibv_dontfork_range() itself, and gives it back with
 *   ibv_dofork_range() when the entry goes.
 * - It intercepts the calls that release memory - munmap(), free() and
 *   madvise() with MADV_DONTNEED, MADV_FREE or MADV_REMOVE - and drops
 *   every cached registration overlapping the released range.  munmap()
 *   deregisters after the memory is gone (an invalidation queue drained
 *   later, as caches do), free() and madvise() before.  Other madvise()
 *   advice, such as the library's own MADV_DONTFORK/MADV_DOFORK, is not a
 *   release and passes through.
 * - Its pthread_atfork() prepare handler, registered in its constructor
 *   and so before libibverbs registers anything, deregisters every cached
 *   registration not in use: flush the cache before fork().  Its child
 *   handler forgets the inherited cache (those MRs are the parent's).
 *
 * The cache never calls into libibverbs with its own lock held, since the
 * library frees and unmaps memory (and so re-enters the hooks) inside its
 * verbs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fork_interposer_mon.h"

/* Exported by libibverbs (upstream declares them in driver.h). */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
/* glibc's own free(), what ours passes on to. */
void __libc_free(void *ptr);

#define ENTRIES 512

struct entry {
	uintptr_t start, end;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	int users;
	bool fork_range; /* we called ibv_dontfork_range() on it */
	bool live;
};

static struct entry cache[ENTRIES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int nlive;
static int tracking = -1;
static struct mon_stats stats;
/* Set while the monitor itself runs verbs: their frees are not ours. */
static __thread int busy __attribute__((tls_model("initial-exec")));
static __thread void (*madvise_hook)(void)
	__attribute__((tls_model("initial-exec")));

#define COUNT(field) __atomic_add_fetch(&stats.field, 1, __ATOMIC_RELAXED)

static bool overlaps(const struct entry *e, uintptr_t s, uintptr_t end)
{
	return e->live && e->start < end && s < e->end;
}

/* Deregister entries already taken out of the cache. */
static void release(struct entry *list, int n)
{
	int i;

	busy++;
	for (i = 0; i < n; i++) {
		if (ibv_dereg_mr(list[i].mr))
			COUNT(dereg_failures);
		if (list[i].fork_range) {
			COUNT(dofork_calls);
			if (ibv_dofork_range((void *)list[i].start,
					     list[i].end - list[i].start))
				COUNT(dofork_failures);
		}
	}
	busy--;
}

/* Take out every entry overlapping [s, end) (@all) or every unused one. */
static int take(uintptr_t s, uintptr_t end, bool unused_only, struct entry *out)
{
	int i, n = 0;

	pthread_mutex_lock(&lock);
	for (i = 0; i < ENTRIES; i++) {
		struct entry *e = &cache[i];

		if (unused_only ? !e->live || e->users : !overlaps(e, s, end))
			continue;
		out[n++] = *e;
		e->live = false;
		atomic_fetch_sub(&nlive, 1);
	}
	pthread_mutex_unlock(&lock);
	return n;
}

static void invalidate(const void *addr, size_t len, unsigned long *counter)
{
	struct entry out[ENTRIES];
	uintptr_t s = (uintptr_t)addr;
	int n;

	if (busy || !atomic_load(&nlive) || !len)
		return;
	n = take(s, s + len, false, out);
	if (!n)
		return;
	__atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
	release(out, n);
}

struct ibv_mr *mon_reg(struct ibv_pd *pd, void *addr, size_t len)
{
	uintptr_t s = (uintptr_t)addr;
	struct ibv_mr *mr;
	bool range = false;
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < ENTRIES; i++) {
		struct entry *e = &cache[i];

		if (e->live && e->pd == pd && e->start == s &&
		    e->end == s + len) {
			e->users++;
			pthread_mutex_unlock(&lock);
			COUNT(hits);
			return e->mr;
		}
	}
	pthread_mutex_unlock(&lock);

	busy++;
	if (tracking < 0)
		tracking = ibv_is_fork_initialized() == IBV_FORK_ENABLED;
	mr = ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE);
	if (mr && tracking)
		range = !ibv_dontfork_range(addr, len);
	busy--;
	if (!mr) {
		COUNT(reg_failures);
		return NULL;
	}
	COUNT(misses);

	pthread_mutex_lock(&lock);
	for (i = 0; i < ENTRIES && cache[i].live; i++)
		;
	if (i < ENTRIES) {
		cache[i] = (struct entry){ s, s + len, pd, mr, 1, range, true };
		atomic_fetch_add(&nlive, 1);
	}
	pthread_mutex_unlock(&lock);
	if (i == ENTRIES) {
		/* Full: the caller gets an MR the cache does not keep. */
		COUNT(reg_failures);
		release(&(struct entry){ s, s + len, pd, mr, 0, range, true },
			1);
		return NULL;
	}
	return mr;
}

void mon_put(struct ibv_mr *mr)
{
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < ENTRIES; i++)
		if (cache[i].live && cache[i].mr == mr && cache[i].users) {
			cache[i].users--;
			break;
		}
	pthread_mutex_unlock(&lock);
}

static void flush_unused(unsigned long *counter)
{
	struct entry out[ENTRIES];
	int n = take(0, 0, true, out);

	__atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
	release(out, n);
}

void mon_flush(void)
{
	flush_unused(&stats.flushed);
}

void mon_get_stats(struct mon_stats *out)
{
	pthread_mutex_lock(&lock);
	*out = stats;
	out->cached = atomic_load(&nlive);
	pthread_mutex_unlock(&lock);
}

/* The interceptors */

int munmap(void *addr, size_t len)
{
	struct entry out[ENTRIES];
	uintptr_t s = (uintptr_t)addr;
	int ret, n = 0;

	if (!busy && atomic_load(&nlive))
		n = take(s, s + len, false, out);
	ret = syscall(SYS_munmap, addr, len);
	if (n) {
		/* The queued invalidations, after the memory is gone. */
		__atomic_add_fetch(&stats.by_munmap, n, __ATOMIC_RELAXED);
		release(out, n);
	}
	return ret;
}

void mon_hook_madvise(void (*fn)(void))
{
	madvise_hook = fn;
}

int madvise(void *addr, size_t len, int advice)
{
	void (*fn)(void) = madvise_hook;

	if (fn) {
		madvise_hook = NULL;
		fn();
	}
	if (advice == MADV_DONTNEED || advice == MADV_FREE ||
	    advice == MADV_REMOVE)
		invalidate(addr, len, &stats.by_madvise);
	return syscall(SYS_madvise, addr, len, advice);
}

void free(void *ptr)
{
	if (ptr && !busy && atomic_load(&nlive))
		invalidate(ptr, malloc_usable_size(ptr), &stats.by_free);
	__libc_free(ptr);
}

/* fork */

static void mon_prepare(void)
{
	flush_unused(&stats.by_prepare);
	COUNT(prepares);
}

static void mon_child(void)
{
	/* The cached MRs are the parent's: forget them, do not free them. */
	memset(cache, 0, sizeof(cache));
	atomic_store(&nlive, 0);
	pthread_mutex_init(&lock, NULL);
}

__attribute__((constructor)) static void mon_init(void)
{
	pthread_atfork(mon_prepare, NULL, mon_child);
}
