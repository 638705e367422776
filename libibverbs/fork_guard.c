/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which process is this?  The child guard's answer (see fork_guard.h).
 *
 * Every context records the token of the process that opened it, and a
 * verb refuses a context whose token is not the current process's: the
 * object was inherited across fork().  The token sits in a page advised
 * MADV_WIPEONFORK (Linux 4.14), which the kernel hands to every child made
 * by fork(), _Fork() or clone() without CLONE_VM as a page of zeroes.  So a
 * child needs no atfork handler to know it is a child: from its first
 * instruction the token reads 0, no context matches, and even the data path
 * refuses inherited objects with one load and compare.
 *
 * The first library call in a new process that needs the token adopts one.
 * If the process is the child of one that used the library, adopting also
 * resets what must not cross fork(): the library's locks, which another
 * thread of the parent may have held at the time, and the MADV_DONTFORK
 * range tree, which describes the parent's registrations.  Every path that
 * takes a library lock calls verbs_proc_enter() first, so in a child no
 * lock is touched before it has been reset, and none is ever held across
 * fork() by the library.
 *
 * Without MADV_WIPEONFORK (an old kernel, or a seccomp filter that refuses
 * it) the token lives in ordinary memory that an atfork child handler
 * clears: children made by fork() behave the same, children made without
 * the handlers are caught only by the pid check of the control path.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>
#include <sched.h>

#include "fork_guard.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18	/* Linux 4.14, <asm-generic/mman-common.h> */
#endif

static struct verbs_proc_page fallback_page;

struct verbs_proc_page *verbs_proc_page = &fallback_page;

/*
 * The token this memory image last adopted.  Ordinary memory: a child
 * inherits its parent's value, which is how adopting tells a child (reset
 * the inherited state) from the first process (nothing to reset).
 */
static uint64_t adopted_token;

/* One slot per module that keeps state of its own (fork_guard.h). */
static verbs_child_reset_fn child_resets[VERBS_RESET_SLOTS];

void verbs_register_child_reset(enum verbs_child_reset_slot slot,
				verbs_child_reset_fn fn)
{
	__atomic_store_n(&child_resets[slot], fn, __ATOMIC_RELEASE);
}

static void run_child_resets(void)
{
	for (unsigned int i = 0; i < VERBS_RESET_SLOTS; i++) {
		verbs_child_reset_fn fn =
			__atomic_load_n(&child_resets[i], __ATOMIC_ACQUIRE);

		if (fn)
			fn();
	}
}

void verbs_keep_reachable(void *p)
{
	/* A few generations of children that each abandoned something. */
	static void *kept[16];
	static unsigned int n;

	if (p && n < sizeof(kept) / sizeof(kept[0]))
		__atomic_store_n(&kept[n++], p, __ATOMIC_RELAXED);
}

/* The fallback's stand-in for MADV_WIPEONFORK. */
static void wipe_fallback(void)
{
	__atomic_store_n(&fallback_page.token, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fallback_page.adopting, 0, __ATOMIC_RELAXED);
}

/*
 * At load time, before any thread can call into the library: the pointer
 * is never changed afterwards, so readers need no ordering of their own.
 */
__attribute__((constructor)) static void proc_page_init(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *page;

	if (ps <= 0)
		ps = 4096;
	page = mmap(NULL, ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page != MAP_FAILED && !madvise(page, ps, MADV_WIPEONFORK)) {
		verbs_proc_page = page;
		return;
	}
	if (page != MAP_FAILED)
		munmap(page, ps);
	pthread_atfork(NULL, NULL, wipe_fallback);
}

/* Unpredictable enough that no ancestor's token comes back. */
static uint64_t new_token(void)
{
	struct timespec ts;
	uint64_t t = 0;

	if (getrandom(&t, sizeof(t), GRND_NONBLOCK) != sizeof(t)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^
		    ((uint64_t)ts.tv_sec << 20) ^ (uintptr_t)&ts;
	}
	while (!t || t == adopted_token)
		t = t * 6364136223846793005ULL + 1442695040888963407ULL;
	return t;
}

/*
 * The adopting thread must finish: until it publishes the token every
 * other thread waits.  So it runs with signals blocked (a handler calling
 * a verb would wait for its own thread) and cancellation disabled
 * (getrandom() is a cancellation point).
 */
static uint64_t adopt(void)
{
	sigset_t all, old_mask;
	int cancel;
	uint64_t t;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old_mask);
	cancel = verbs_nocancel_begin();
	if (adopted_token)
		run_child_resets();
	t = new_token();
	adopted_token = t;
	__atomic_store_n(&verbs_proc_page->token, t, __ATOMIC_RELEASE);
	verbs_nocancel_end(cancel);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	return t;
}

/*
 * One thread adopts, the others wait for it: the reset must not run while
 * another thread of this process could be inside a lock it reinitialises.
 * A waiter keeps its signals: a handler that calls a verb just waits too.
 */
uint64_t verbs_proc_adopt(void)
{
	struct verbs_proc_page *p = verbs_proc_page;
	uint64_t t;
	int zero = 0;

	if (__atomic_compare_exchange_n(&p->adopting, &zero, 1, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return adopt();
	while (!(t = __atomic_load_n(&p->token, __ATOMIC_ACQUIRE)))
		sched_yield();
	return t;
}
