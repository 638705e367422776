/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The refcounted MADV_DONTFORK range tree of the legacy fork mode.
 *
 * Only used when the kernel is not known to copy DMA-pinned pages into a
 * forked child.  Every page handed to the device must then be excluded from
 * the child with MADV_DONTFORK, and several registrations may share a page,
 * so pages are reference counted: madvise(MADV_DONTFORK) is issued only when
 * a page goes from 0 to 1 users and madvise(MADV_DOFORK) only from 1 to 0.
 *
 * The tree holds maximal runs of pages with the same non-zero count:
 * neighbours that touch and have equal counts are always merged, so the
 * tree is canonical and its size is proportional to the number of distinct
 * live ranges.  It is a treap keyed by start address: an operation costs
 * expected O(log n), plus O(k log k) for the k nodes it overlaps (almost
 * always none to two).
 */
#ifndef IBV_FORK_RANGE_H
#define IBV_FORK_RANGE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef IBV_HIDDEN
#define IBV_HIDDEN __attribute__((visibility("hidden")))
#endif

struct fork_range_node;

struct fork_range_tree {
	pthread_mutex_t lock;
	struct fork_range_node *root;
	size_t nodes;
	/* System page size; every node boundary is a multiple of it. */
	uintptr_t page_size;
	/* RDMAV_HUGEPAGES_SAFE: align to the page size backing the range. */
	bool hugepages;
	/* Treap priorities; only needs to be cheap and well spread. */
	uint32_t prio_state;
};

/* Static initialiser: the lock must be usable before fork_range_init(). */
#define FORK_RANGE_TREE_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }

/* Prepare an empty tree; the tree must not be in use yet. */
void fork_range_init(struct fork_range_tree *t, bool hugepages) IBV_HIDDEN;

/*
 * Add (dontfork) or drop (dofork) one user of every page overlapping
 * [addr, addr + len).  A zero length or a NULL address is a no-op, as is
 * dropping a page that has no user.  Return 0 or a positive errno.  When
 * dontfork fails (ENOMEM also when a page already has UINT_MAX users) the
 * tree has not changed and the MADV_DONTFORK calls that succeeded were
 * undone.  Dofork fails only on a range that does not fit the address
 * space: a failed MADV_DOFORK still drops the users.
 */
int fork_range_dontfork(struct fork_range_tree *t, const void *addr,
			size_t len) IBV_HIDDEN;
int fork_range_dofork(struct fork_range_tree *t, const void *addr,
		      size_t len) IBV_HIDDEN;

/*
 * The range [*start, *start + *alen) that dontfork and dofork count for
 * [addr, addr + len): page aligned, or huge-page aligned in hugepages mode
 * while the memory is mapped.  {NULL, 0} for a no-op range.
 */
int fork_range_align(struct fork_range_tree *t, const void *addr, size_t len,
		     void **start, size_t *alen) IBV_HIDDEN;

/*
 * dontfork and dofork of a range fork_range_align() returned, without
 * aligning again: EINVAL unless both ends are page aligned.
 */
int fork_range_add(struct fork_range_tree *t, void *start, size_t alen)
	IBV_HIDDEN;
int fork_range_drop(struct fork_range_tree *t, void *start, size_t alen)
	IBV_HIDDEN;

/* RDMAV_HUGEPAGES_SAFE: from now on, align to the backing page size. */
void fork_range_enable_hugepages(struct fork_range_tree *t) IBV_HIDDEN;

/*
 * In a fork child, before any other thread can use the tree: forget every
 * range without madvise (the parent's registrations are not the child's)
 * and reinitialise the lock, which a thread of the parent may have held.
 * Returns the nodes it could not free (the lock was held: they may be half
 * updated), for the caller to keep reachable, or NULL.
 */
void *fork_range_child_reset(struct fork_range_tree *t) IBV_HIDDEN;

/* Forget every range without any madvise (tests only). */
void fork_range_clear(struct fork_range_tree *t) IBV_HIDDEN;

/*
 * Size in bytes of the pages backing the mapping that contains addr,
 * read from KernelPageSize in an smaps-format stream; 0 if not found.
 */
uintptr_t fork_range_smaps_page_size(FILE *smaps, uintptr_t addr)
	IBV_HIDDEN;

/* Inspection, for tests.  Callbacks run under the lock. */
typedef int (*fork_range_walk_cb)(uintptr_t start, uintptr_t end,
				  unsigned int refs, void *arg);

/* Visit ranges in address order; stops at and returns a non-zero cb. */
int fork_range_walk(struct fork_range_tree *t, fork_range_walk_cb cb,
		    void *arg) IBV_HIDDEN;
size_t fork_range_count(struct fork_range_tree *t) IBV_HIDDEN;
unsigned int fork_range_height(struct fork_range_tree *t) IBV_HIDDEN;
unsigned int fork_range_refs(struct fork_range_tree *t, uintptr_t addr)
	IBV_HIDDEN;
/* NULL when every invariant holds, else what is broken. */
const char *fork_range_check(struct fork_range_tree *t) IBV_HIDDEN;

#endif /* IBV_FORK_RANGE_H */
