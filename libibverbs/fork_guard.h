/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which process is this?  The process token behind the child guard, and
 * the reset of inherited state when a child adopts its own (fork_guard.c).
 * Below everything else of the library: it includes none of it.
 */
#ifndef IBV_FORK_GUARD_H
#define IBV_FORK_GUARD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#ifndef IBV_HIDDEN
#define IBV_HIDDEN __attribute__((visibility("hidden")))
#endif

/*
 * The process token, in a page that every child receives zeroed
 * (MADV_WIPEONFORK).  0 means "not adopted yet in this process".
 */
struct verbs_proc_page {
	uint64_t token;
	int adopting;
};

extern struct verbs_proc_page *verbs_proc_page IBV_HIDDEN;

uint64_t verbs_proc_adopt(void) IBV_HIDDEN;

/*
 * This process's token, adopting one first in a new process.  Every path
 * that takes a library lock calls it before the lock: in a child, that is
 * what resets the locks the parent's threads may have held.
 */
static inline uint64_t verbs_proc_enter(void)
{
	uint64_t t = __atomic_load_n(&verbs_proc_page->token,
				     __ATOMIC_ACQUIRE);

	return __builtin_expect(t != 0, 1) ? t : verbs_proc_adopt();
}

/*
 * Around a library lock held over a cancellation point (open(), poll(),
 * recvfrom()): a thread cancelled there would leave the lock held and
 * every later caller waiting.
 */
static inline int verbs_nocancel_begin(void)
{
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

static inline void verbs_nocancel_end(int old)
{
	pthread_setcancelstate(old, NULL);
}

/* The data path's check: is @token this process's?  One load, no call. */
static inline bool verbs_proc_is(uint64_t token)
{
	return __atomic_load_n(&verbs_proc_page->token, __ATOMIC_RELAXED) ==
	       token;
}

/*
 * A module's child reset: run once in a child, from verbs_proc_adopt()
 * before any other thread of the child can take a library lock, to
 * reinitialise the module's locks and drop the state it inherited from
 * the parent.  Each touches only its own module's state, so they run in
 * no particular order.  A module registers its reset from a constructor,
 * before any thread can call into the library, in the slot named for it
 * below: the table is a static array with a slot per module, so
 * registering cannot fail and a new module is a new slot, and adopting
 * reads it without a lock and allocates nothing.
 */
enum verbs_child_reset_slot {
	VERBS_RESET_FORK, /* fork.c: tracking and status */
	VERBS_RESET_DEVICES, /* init.c: the device list */
	VERBS_RESET_PLUGINS, /* plugin_load.c: the provider registry */
	VERBS_RESET_CHILD_OBJECTS, /* fork_child.c: a child's own objects */
	VERBS_RESET_SLOTS
};

typedef void (*verbs_child_reset_fn)(void);
void verbs_register_child_reset(enum verbs_child_reset_slot slot,
				verbs_child_reset_fn fn) IBV_HIDDEN;

/*
 * For those resets: keep @p, state abandoned half updated by a thread the
 * child does not have, reachable, so that leak checkers do not report
 * what the parent still owns.  Never freed, never read.
 */
void verbs_keep_reachable(void *p) IBV_HIDDEN;

#endif /* IBV_FORK_GUARD_H */
