/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Children of every kind for the in-guest fork tests, and their reports.
 *
 * A child's checks are relayed to the parent over a pipe and printed by
 * the parent with gc_ok()/gc_guard(), so the test has one TAP stream whose
 * "# guard" tags are exact: run against Debian's library, the lines that
 * fail must be the guard checks and nothing else.
 *
 *   fp_run(kind, fn, arg, what)
 *       starts a child of @kind (FP_FORK: fork(); FP_UFORK: _Fork(), no
 *       atfork handler runs; FP_CLONE: a raw clone(2) with SIGCHLD, what
 *       glibc knows nothing about), which arms a watchdog (alarm of
 *       FP_WATCHDOG seconds; @fn may arm a shorter one), runs
 *       fn(arg) with its checks going to the parent, and _exits 0.  The
 *       parent prints the child's checks as they come and returns the
 *       child's status as fu_wait() does (128 + SIGALRM on a hang).
 *   fp_ok(), fp_guard(), fp_diag(), fp_skip()
 *       gc_ok(), gc_guard(), gc_diag(), gc_skip() that, in a child
 *       started by fp_run (also in its own children), go to the parent
 *       instead.
 *   fp_relay(fd), fp_relay_until(fd, deadline)
 *       the parent side for a process started otherwise (exec): print the
 *       check lines read from @fd until EOF, for at most
 *       GC_CHILD_TIMEOUT_MS in all, or until @deadline (gc_now_ms()'s
 *       clock).  fp_reap_deadline(deadline) is then when to stop waiting
 *       for the child: @deadline, but a few seconds from now at least,
 *       for a child that has closed its pipe and is still exiting.
 *
 * The parent's objects: fp_pair_open() connects an RC QP on rxe0 to one on
 * rxe1 with an MR on each side in memory of its own mapping (legacy mode
 * keeps registered pages out of children, heap pages would take malloc's
 * state with them).  fp_traffic() moves fresh bytes through them by RDMA
 * WRITE, RDMA READ and SEND/RECV and checks every byte (gc_ok), then that
 * no completion of a request a child tried to post (wr_id FP_CHILD_WR_ID)
 * ever showed up (gc_guard): upstream's child writes such requests into
 * the rings it shares with the parent, where the parent's next doorbell
 * runs them.  fp_child_attack(), in a child, tries the data path and a
 * control verb on the inherited objects and wants EPERM from each
 * (fp_guard).  fp_child_own_rdma() opens both devices afresh in the child
 * and moves bytes over its own QP (fp_ok).
 */
#ifndef FORK_PROC_H
#define FORK_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fork_util.h"

/* Seconds a child may take before it counts as hung. */
#define FP_WATCHDOG 30

enum fp_kind {
	FP_FORK,
	FP_UFORK,
	FP_CLONE,
};

const char *fp_kind_name(enum fp_kind kind);

/* Fork-like: 0 in the child, the pid in the parent, -1 on error. */
pid_t fp_spawn(enum fp_kind kind);

int fp_run(enum fp_kind kind, void (*fn)(void *), void *arg, const char *what);
/*
 * In a child of fp_run(): a fork() grandchild that runs fn(arg), its
 * checks going to the test's parent too, and dies with the child; its
 * status as fu_wait() gives it (also on a hang), or -1.
 */
int fp_run_grandchild(void (*fn)(void *), void *arg);

/* Send this process's checks to @fd (-1: print them, the default). */
void fp_report_to(int fd);
int fp_report_fd(void);
void fp_relay(int fd);
void fp_relay_until(int fd, long deadline);
long fp_reap_deadline(long deadline);

bool fp_ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool fp_guard(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fp_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fp_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Exported by libibverbs (IBVERBS_1.1) for providers and MR caches;
 * upstream declares them in <infiniband/driver.h>, which tests do not use.
 */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

#define FP_LEN 4096
#define FP_CHILD_WR_ID 0xc41dc41dULL

struct fp_pair {
	struct gc_pair p;
	struct gc_buf a, b;
};

int fp_pair_open(struct fp_pair *fp);
/*
 * A child-RDMA test's start: fu_start(@test), @fp opened (a TAP line) and
 * which rxe provider serves it (a diagnostic); false if either failed.
 */
bool fp_parent_start(const char *test, struct fp_pair *fp);
/* A diagnostic: Debian's librxe or the built-in provider serves rxe. */
void fp_diag_provider(void);
void fp_pair_close(struct fp_pair *fp);
/* Both bufs of a pair, mapped and registered, or -1. */
int fp_buf_map(struct gc_buf *buf, struct ibv_pd *pd, size_t len);
void fp_buf_unmap(struct gc_buf *buf);
/* True when every operation moved its bytes; prints the checks. */
bool fp_traffic(struct fp_pair *fp, const char *when, uint8_t seed);
void fp_child_attack(struct fp_pair *fp, const char *who);

/* The kernel's per-device object counts: `rdma resource show`. */
struct fp_counts {
	char text[512];
};

bool fp_counts_read(struct fp_counts *c);
/*
 * After child @who: the parent's traffic on @fp still moves its bytes,
 * and the kernel's counts are @before, so the child left nothing in the
 * parent's kernel context (a guard: upstream's children do).
 */
void fp_parent_unharmed(struct fp_pair *fp, const char *who,
			const struct fp_counts *before, uint8_t seed);
/*
 * A child of @kind that runs fn(who), who being "child of fork()" and the
 * like; its exit is checked (gc_ok), then fp_parent_unharmed(@fp, who,
 * @before, @seed).
 */
void fp_run_unharmed(enum fp_kind kind, void (*fn)(void *), struct fp_pair *fp,
		     const struct fp_counts *before, uint8_t seed);
bool fp_child_own_rdma(const char *who);

/*
 * A stand-in for an XRC domain of @ctx's, for a fork child to name as the
 * parent's (or another device's): Soft-RoCE cannot open one.  The library
 * refuses it for what it is not, a domain of the child's, without
 * reading it.  Laid out as a provider's domain (verbs_xrcd), with a
 * handle no kernel object has, as Debian's library hands it to its
 * command layer.
 */
struct fp_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

void fp_xrcd_stand_in(struct fp_xrcd *x, struct ibv_context *ctx);

#endif /* FORK_PROC_H */
