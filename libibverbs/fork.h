/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fork support: the internal contract between the verbs and fork policy.
 *
 * The policy (fork.c) decides whether registered memory needs
 * MADV_DONTFORK at all: since Linux 5.9 the kernel copies DMA-pinned pages
 * into a forked child, and since 5.13 it says so over RDMA netlink
 * (fork_netlink.c).  Only when it does not, registrations go through the
 * refcounted range tree (fork_range.c).
 *
 * Independently of the kernel mode, every context remembers the token of
 * the process that opened it (fork_guard.h).  A child sees another token
 * and refuses to use inherited objects (the child guard).
 */
#ifndef IBV_FORK_H
#define IBV_FORK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fork_guard.h"

/*
 * Apply RDMAV_FORK_SAFE / IBV_FORK_SAFE.  Called from
 * ibv_get_device_list(), ibv_fork_init() and every path that creates a
 * context; runs once per process, thread-safe.
 */
void verbs_fork_setup(void) IBV_HIDDEN;

/* True when the kernel copies DMA-pinned pages into a child (cached). */
bool verbs_kernel_copies_on_fork(void) IBV_HIDDEN;

/*
 * Every path that hands user memory to the device calls protect before the
 * kernel command and unprotect after the memory is released (or when the
 * command failed).  Without tracking they cost one load and return 0.
 * They return 0 or a positive errno.
 */
struct verbs_fork_span {
	void *addr;
	size_t len;
};

/*
 * Protect fills @span with the range actually counted (page aligned, and
 * to huge pages with RDMAV_HUGEPAGES_SAFE): releasing exactly that needs no
 * look-up of the page size, which fails once the memory is unmapped.
 * Unprotect is best effort, as upstream's: the count drops even when
 * MADV_DOFORK fails (the memory may be gone already).
 */
int verbs_fork_protect(const void *addr, size_t len,
		       struct verbs_fork_span *span) IBV_HIDDEN;
void verbs_fork_unprotect(const struct verbs_fork_span *span) IBV_HIDDEN;

/*
 * Memory regions.  A provider allocates struct verbs_mr in the layout its
 * plug-in ABI fixes, so the range an MR counted cannot live there: fork.c
 * files it in a table of its own, keyed by the struct ibv_mr, and only
 * while tracking (without it every call below is one load or compare).
 *
 * verbs_fork_mr_protect() counts the range and allocates the record before
 * the kernel command, so that nothing can fail after it;
 * verbs_fork_mr_attach() files the record once the MR exists.
 * verbs_fork_mr_detach() takes the record out before the MR is freed (so a
 * new MR at the same address never meets it); verbs_fork_mr_attach() puts
 * it back if the kernel refused, verbs_fork_mr_unprotect() releases the
 * range and frees the record.  A NULL record means nothing was counted.
 */
struct verbs_fork_mr;

/*
 * fork.c's state, one word: whether memory went to the device before
 * tracking could start, and whether it did.  Read inline below, so that
 * registering without tracking costs a load and a compare, no call.
 */
enum {
	VERBS_FORK_CLEAN,	/* no memory handed to the device yet */
	VERBS_FORK_TOO_LATE,	/* memory registered without tracking */
	VERBS_FORK_TRACKING,	/* legacy mode: the range tree is live */
};

extern int verbs_fork_state IBV_HIDDEN;

int verbs_fork_mr_protect_slow(const void *addr, size_t len,
			       struct verbs_fork_mr **rec) IBV_HIDDEN;
void verbs_fork_mr_attach_slow(struct verbs_fork_mr *rec,
			       const void *mr) IBV_HIDDEN;
struct verbs_fork_mr *verbs_fork_mr_detach_slow(const void *mr) IBV_HIDDEN;
void verbs_fork_mr_unprotect_slow(struct verbs_fork_mr *rec) IBV_HIDDEN;

static inline int verbs_fork_mr_state(void)
{
	return __atomic_load_n(&verbs_fork_state, __ATOMIC_ACQUIRE);
}

static inline int verbs_fork_mr_protect(const void *addr, size_t len,
					struct verbs_fork_mr **rec)
{
	*rec = NULL;
	if (__builtin_expect(verbs_fork_mr_state() == VERBS_FORK_TOO_LATE, 1))
		return 0;
	return verbs_fork_mr_protect_slow(addr, len, rec);
}

static inline void verbs_fork_mr_attach(struct verbs_fork_mr *rec,
					const void *mr)
{
	if (rec)
		verbs_fork_mr_attach_slow(rec, mr);
}

/* The MR table is used only while tracking, which never stops. */
static inline struct verbs_fork_mr *verbs_fork_mr_detach(const void *mr)
{
	if (verbs_fork_mr_state() != VERBS_FORK_TRACKING)
		return NULL;
	return verbs_fork_mr_detach_slow(mr);
}

static inline void verbs_fork_mr_unprotect(struct verbs_fork_mr *rec)
{
	if (rec)
		verbs_fork_mr_unprotect_slow(rec);
}

/*
 * Public since IBVERBS_1.1, but Debian's installed <infiniband/verbs.h>
 * does not declare them, so their prototypes live here for fork.c and for
 * the verbs.  Fail with -1 and errno, as upstream's do.
 */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

#endif /* IBV_FORK_H */
