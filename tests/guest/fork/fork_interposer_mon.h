/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The MR cache of fork_interposer_mon.c (see there). */
#ifndef FORK_INTERPOSER_MON_H
#define FORK_INTERPOSER_MON_H

#include <stddef.h>

struct ibv_pd;
struct ibv_mr;

struct mon_stats {
	unsigned long hits, misses;
	unsigned long reg_failures, dereg_failures;
	unsigned long dofork_calls, dofork_failures;
	/* Registrations dropped by each kind of release, and by flushes. */
	unsigned long by_munmap, by_free, by_madvise, by_prepare, flushed;
	unsigned long prepares;
	unsigned long cached;
};

/* A cached registration of [addr, addr + len) (LOCAL_WRITE), or NULL. */
struct ibv_mr *mon_reg(struct ibv_pd *pd, void *addr, size_t len);
/* Done using it; it stays registered until its memory is released. */
void mon_put(struct ibv_mr *mr);
/* Deregister every registration not in use. */
void mon_flush(void);
void mon_get_stats(struct mon_stats *out);
/*
 * For the test: the calling thread's next madvise() runs @fn first, once
 * (in legacy mode the library's tracker calls madvise() under its lock).
 */
void mon_hook_madvise(void (*fn)(void));

#endif /* FORK_INTERPOSER_MON_H */
