/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers of the in-guest fork tests, on top of guest_common.
 *
 * Every fork test runs in two modes, chosen by the environment ctest sets:
 * the default, where the kernel copies DMA-pinned pages on fork, and the
 * legacy mode (RDMAV_COPY_ON_FORK=0), where the test calls ibv_fork_init()
 * first and registered memory is kept out of children by MADV_DONTFORK.
 *
 * Memory under test is mapped with mmap() of its own, never taken from the
 * heap: in legacy mode registered pages vanish from a child, and heap
 * pages would take malloc's bookkeeping with them.
 */
#ifndef FORK_UTIL_H
#define FORK_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "guest_common.h"

/* True when ctest asked for legacy mode (RDMAV_COPY_ON_FORK=0). */
bool fu_legacy_mode(void);

/* gc_start() plus ibv_fork_init() in legacy mode; false on failure. */
bool fu_start(const char *name);

/* An anonymous private mapping of @len bytes (page multiple), or NULL. */
void *fu_map(size_t len);
void fu_unmap(void *addr, size_t len);
/*
 * @len bytes of 2 MiB huge pages (reserving a few first), at @addr if not
 * NULL (never replacing a mapping); NULL with errno on failure.
 */
void *fu_map_huge(void *addr, size_t len);

/*
 * Whether the page at @addr carries VmFlags "dc" (MADV_DONTFORK) in
 * /proc/self/smaps: 1 yes, 0 no, -1 not mapped.
 */
int fu_page_dontfork(const void *addr);
/*
 * Whether fork support left [@addr, @addr + @len) as this mode wants it:
 * MADV_DONTFORK ("dc") in legacy mode, where the library must mark
 * registered memory (the 6.1 kernel would copy pinned pages anyway, so
 * only smaps shows that the library did its part), and unmarked in the
 * default mode.  Checks the first, middle and last page: madvise() marks
 * whole mappings, so a range is marked in pieces or not at all.
 */
bool fu_marked_as_mode(const void *addr, size_t len);
/* Number of mappings in /proc/self/smaps with "dc" set. */
int fu_count_dontfork_vmas(void);

/* "copy-on-fork on" in `rdma system show`: 1, 0, or -1 if it failed. */
int fu_rdma_system_copy_on_fork(void);

/*
 * What the running kernel does and says on fork(), so that a test expects
 * what this kernel gives, not what 6.1 gives.  From mainline's history:
 *  - pinned anonymous pages are copied into the child since 5.9
 *    (70e806e4e645, "mm: Do early cow for pinned pages during fork() for
 *    ptes");
 *  - pinned hugetlb pages since 5.12 (4eae4efa2c29, "hugetlb: do early
 *    cow when page pinned on src mm");
 *  - RDMA netlink reports it (RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK) since 5.13
 *    (6cc9e215eb27, "RDMA/nldev: Add copy-on-fork attribute to get sys
 *    command"); that is asked, not derived from the version.
 */
bool fu_kernel_copies_anon(void);
bool fu_kernel_copies_hugetlb(void);
/* The kernel says copy-on-fork over netlink (`rdma system show`). */
bool fu_kernel_reports_cof(void);
/*
 * Whether the library under test trusts the kernel to copy: default mode
 * on a kernel that reports copy-on-fork.  Then ibv_is_fork_initialized()
 * says UNNEEDED and nothing is tracked; otherwise the legacy statuses and
 * tracking apply (upstream's too).
 */
bool fu_cof_trusted(void);
/* One line saying what the kernel reports and copies, for gc_diag(). */
const char *fu_kernel_desc(void);

/*
 * Wait for @pid within GC_CHILD_TIMEOUT_MS, or until @deadline_ms
 * (gc_now_ms()'s clock); its exit status, 128 + signal, or -1.  A child
 * still running then is killed and gives 128 + SIGKILL, as one killed
 * otherwise would: gc_wait_child_until()'s message tells them apart.
 */
int fu_wait(pid_t pid);
int fu_wait_until(pid_t pid, long deadline_ms);

/*
 * A server in a child of its own: @server_main(ready_fd) writes a byte to
 * ready_fd once it listens, then serves until killed.  The child dies
 * with the caller and after @lifetime seconds in any case, so a test
 * killed by its timeout leaves no listener on the port for the next.
 * Its pid once ready, or -1 (then it is reaped).
 */
pid_t fu_start_server(void (*server_main)(int ready_fd), unsigned lifetime);

#endif /* FORK_UTIL_H */
