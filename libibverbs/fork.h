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
 * Independently of the kernel mode, every context remembers the fork
 * generation it was opened in.  The child of a fork() sees a different
 * generation and refuses to use inherited objects (the child guard).
 */
#ifndef IBV_FORK_H
#define IBV_FORK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define IBV_HIDDEN __attribute__((visibility("hidden")))

/*
 * Bumped by a pthread_atfork() child handler, so a data-path verb can tell
 * with one load and compare that its object was inherited across fork().
 */
extern unsigned int verbs_fork_generation IBV_HIDDEN;

/*
 * Install the atfork handler and apply RDMAV_FORK_SAFE / IBV_FORK_SAFE.
 * Called from ibv_get_device_list() and ibv_fork_init(); runs once,
 * thread-safe.
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
 * Public since IBVERBS_1.1, but Debian's installed <infiniband/verbs.h>
 * does not declare them, so their prototypes live here for fork.c and for
 * the verbs.  Fail with -1 and errno, as upstream's do.
 */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

#endif /* IBV_FORK_H */
