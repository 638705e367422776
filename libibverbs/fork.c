/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fork policy and status (see fork.h).
 *
 * Two questions decide what registration costs:
 *  - does the kernel copy DMA-pinned pages into a forked child?  Asked once
 *    (RDMAV_COPY_ON_FORK, else RDMA netlink) and cached.  If it does, there
 *    is nothing to do, ever: no tree, no madvise, UNNEEDED.
 *  - otherwise, did the application ask for fork safety (ibv_fork_init(),
 *    RDMAV_FORK_SAFE, IBV_FORK_SAFE)?  Then every range handed to the
 *    device goes through the MADV_DONTFORK range tree.
 *
 * Tracking can only start while no memory has been handed to the device:
 * pages registered earlier were never marked, so a later fork would still
 * corrupt them.  verbs_fork_state (fork.h) records this with a single word
 * so that the registration fast path without tracking is one load.
 */
#define _GNU_SOURCE	/* secure_getenv() */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fork.h"
#include "fork_netlink.h"
#include "fork_range.h"

#define IBV_EXPORT __attribute__((visibility("default")))

int verbs_fork_state = VERBS_FORK_CLEAN;
/* -1 until asked, then 0 or 1. */
static int copy_on_fork = -1;

static bool setup_done;

/*
 * Mutexes rather than pthread_once(): a once routine running in another
 * thread at fork() would stay "in progress" forever in the child.  No lock
 * of the library is held across fork(): a child reinitialises them all
 * (fork_child_reset()) before its first use of one, so an
 * application's own atfork handlers may call any verb, and fork() never
 * waits for a registration or for the first netlink query.  None is taken
 * on the data path.
 */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t detect_lock = PTHREAD_MUTEX_INITIALIZER;
/* Serialises ibv_fork_init() callers. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fork_range_tree fork_tree = FORK_RANGE_TREE_INIT;

/*
 * The range each tracked MR counted, keyed by its struct ibv_mr (see
 * fork.h).  Control path only: a chained hash under its own lock, with
 * records allocated before the kernel command.
 */
struct verbs_fork_mr {
	struct verbs_fork_mr *next;
	const void *mr;
	struct verbs_fork_span span;
};

#define MR_TABLE_BUCKETS 1024

static pthread_mutex_t mr_table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct verbs_fork_mr *mr_table[MR_TABLE_BUCKETS];

/*
 * The parent's MRs are not the child's: a child that deregisters an
 * inherited MR must not release the parent's range, so it starts with an
 * empty table.  As for the range tree, the records are freed only when no
 * thread of the parent held the lock at fork(); otherwise they are left
 * behind, as they may be half linked.
 */
static void mr_table_child_reset(void)
{
	/* Written, never read: only a leak checker looks. */
	static struct verbs_fork_mr *abandoned[MR_TABLE_BUCKETS];
	struct verbs_fork_mr *rec, *next;
	bool locked = !pthread_mutex_trylock(&mr_table_lock);
	size_t i;

	for (i = 0; i < MR_TABLE_BUCKETS; i++) {
		for (rec = mr_table[i]; locked && rec; rec = next) {
			next = rec->next;
			free(rec);
		}
		if (!locked)
			__atomic_store_n(&abandoned[i], mr_table[i],
					 __ATOMIC_RELAXED);
		mr_table[i] = NULL;
	}
	if (locked)
		pthread_mutex_unlock(&mr_table_lock);
	else
		pthread_mutex_init(&mr_table_lock, NULL);
}

/*
 * The child keeps the fork mode and the kernel's answer, which still hold,
 * but not the parent's ranges: its own registrations start from an empty
 * tree, so memory it maps where the parent had an MR is marked again.
 */
static void fork_child_reset(void)
{
	pthread_mutex_init(&setup_lock, NULL);
	pthread_mutex_init(&detect_lock, NULL);
	pthread_mutex_init(&init_lock, NULL);
	verbs_keep_reachable(fork_range_child_reset(&fork_tree));
	mr_table_child_reset();
}

__attribute__((constructor)) static void fork_register_child_reset(void)
{
	verbs_register_child_reset(VERBS_RESET_FORK, fork_child_reset);
}

static int detect_copy_on_fork(void)
{
	/* secure_getenv: the variable can switch the protection off. */
	const char *v = secure_getenv("RDMAV_COPY_ON_FORK");

	if (v && !strcmp(v, "0"))
		return 0;
	if (v && !strcmp(v, "1"))
		return 1;
	/* No answer, or any failure, means not known to copy. */
	return fork_nl_query_copy_on_fork() > 0;
}

/* Asked once per process; afterwards a load. */
bool verbs_kernel_copies_on_fork(void)
{
	int v = __atomic_load_n(&copy_on_fork, __ATOMIC_ACQUIRE);
	int cancel;

	if (__builtin_expect(v >= 0, 1))
		return v > 0;
	verbs_proc_enter();
	cancel = verbs_nocancel_begin();
	pthread_mutex_lock(&detect_lock);
	v = __atomic_load_n(&copy_on_fork, __ATOMIC_RELAXED);
	if (v < 0) {
		v = detect_copy_on_fork();
		__atomic_store_n(&copy_on_fork, v, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&detect_lock);
	verbs_nocancel_end(cancel);
	return v > 0;
}

/* MADV_DONTFORK is old, but a sandbox or seccomp filter may refuse it. */
static int probe_madvise(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *page;
	int ret = 0;

	if (ps <= 0)
		ps = 4096;
	page = mmap(NULL, ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return ENOMEM;
	if (madvise(page, ps, MADV_DONTFORK) || madvise(page, ps, MADV_DOFORK))
		ret = ENOSYS;
	munmap(page, ps);
	return ret;
}

/* Called with init_lock held. */
static int start_tracking(void)
{
	int expected = VERBS_FORK_CLEAN;
	int ret;

	switch (__atomic_load_n(&verbs_fork_state, __ATOMIC_ACQUIRE)) {
	case VERBS_FORK_TRACKING:
		return 0;
	case VERBS_FORK_TOO_LATE:
		return EINVAL;
	}
	ret = probe_madvise();
	if (ret)
		return ret;
	fork_range_init(&fork_tree, false);

	/* Publishes the tree; loses only to a registration racing us. */
	if (__atomic_compare_exchange_n(&verbs_fork_state, &expected,
					VERBS_FORK_TRACKING, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return 0;
	return expected == VERBS_FORK_TRACKING ? 0 : EINVAL;
}

static int enable_tracking(void)
{
	int ret;

	/* Outside init_lock: the netlink request may take a while. */
	if (verbs_kernel_copies_on_fork())
		return 0;
	verbs_proc_enter();
	pthread_mutex_lock(&init_lock);
	ret = start_tracking();
	pthread_mutex_unlock(&init_lock);
	return ret;
}

/* As upstream: set to anything but "0", even empty, turns it on. */
static bool env_asks_fork_safe(const char *name)
{
	const char *v = getenv(name);

	return v && strcmp(v, "0");
}

/*
 * Set, whatever its value, turns it on, and it is read at every
 * ibv_fork_init() (and with RDMAV_FORK_SAFE, at the first call): upstream's
 * behaviour.  It never turns off again.
 */
static void apply_hugepages_env(void)
{
	if (getenv("RDMAV_HUGEPAGES_SAFE"))
		fork_range_enable_hugepages(&fork_tree);
}

void verbs_fork_setup(void)
{
	int cancel;

	verbs_proc_enter();
	if (__atomic_load_n(&setup_done, __ATOMIC_ACQUIRE))
		return;
	cancel = verbs_nocancel_begin();
	pthread_mutex_lock(&setup_lock);
	if (!setup_done) {
		/* The library never prints: a failure is just no tracking. */
		if (env_asks_fork_safe("RDMAV_FORK_SAFE") ||
		    env_asks_fork_safe("IBV_FORK_SAFE")) {
			if (!enable_tracking())
				apply_hugepages_env();
		}
		__atomic_store_n(&setup_done, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&setup_lock);
	verbs_nocancel_end(cancel);
}

/*
 * The first untracked use moves CLEAN to TOO_LATE; if tracking won the
 * race instead, the caller must use the tree.  Returns the state in force.
 */
static int fork_mode(void)
{
	int st = __atomic_load_n(&verbs_fork_state, __ATOMIC_ACQUIRE);

	if (__builtin_expect(st != VERBS_FORK_CLEAN, 1))
		return st;
	if (__atomic_compare_exchange_n(&verbs_fork_state, &st, VERBS_FORK_TOO_LATE,
					false, __ATOMIC_SEQ_CST,
					__ATOMIC_ACQUIRE))
		return VERBS_FORK_TOO_LATE;
	return st;
}

/*
 * Tracking only ever starts when the kernel is not known to copy, so with
 * a copying kernel both stay a load and a compare, without a syscall.
 */
int verbs_fork_protect(const void *addr, size_t len,
		       struct verbs_fork_span *span)
{
	int ret;

	span->addr = NULL;
	span->len = 0;
	if (fork_mode() != VERBS_FORK_TRACKING)
		return 0;
	verbs_proc_enter();
	ret = fork_range_align(&fork_tree, addr, len, &span->addr, &span->len);
	if (!ret)
		ret = fork_range_add(&fork_tree, span->addr, span->len);
	if (ret)
		span->len = 0;
	return ret;
}

void verbs_fork_unprotect(const struct verbs_fork_span *span)
{
	if (!span->len || fork_mode() != VERBS_FORK_TRACKING)
		return;
	verbs_proc_enter();
	(void)fork_range_drop(&fork_tree, span->addr, span->len);
}

/* The MR table is used only while tracking, which never stops. */
static bool tracking(void)
{
	return verbs_fork_mr_state() == VERBS_FORK_TRACKING;
}

static size_t mr_bucket(const void *mr)
{
	/* Allocations are at least 16-byte aligned: skip the zero bits. */
	return ((uintptr_t)mr >> 4) % MR_TABLE_BUCKETS;
}

int verbs_fork_mr_protect_slow(const void *addr, size_t len,
			       struct verbs_fork_mr **rec)
{
	struct verbs_fork_span span;
	int ret;

	*rec = NULL;
	ret = verbs_fork_protect(addr, len, &span);
	if (ret || !span.len)
		return ret;
	*rec = calloc(1, sizeof(**rec));
	if (!*rec) {
		verbs_fork_unprotect(&span);
		return ENOMEM;
	}
	(*rec)->span = span;
	return 0;
}

void verbs_fork_mr_attach_slow(struct verbs_fork_mr *rec, const void *mr)
{
	struct verbs_fork_mr **head;

	if (!rec)
		return;
	rec->mr = mr;
	head = &mr_table[mr_bucket(mr)];
	verbs_proc_enter();
	pthread_mutex_lock(&mr_table_lock);
	rec->next = *head;
	*head = rec;
	pthread_mutex_unlock(&mr_table_lock);
}

struct verbs_fork_mr *verbs_fork_mr_detach_slow(const void *mr)
{
	struct verbs_fork_mr **pos, *rec = NULL;

	if (!tracking())
		return NULL;
	verbs_proc_enter();
	pthread_mutex_lock(&mr_table_lock);
	for (pos = &mr_table[mr_bucket(mr)]; *pos; pos = &(*pos)->next) {
		if ((*pos)->mr == mr) {
			rec = *pos;
			*pos = rec->next;
			break;
		}
	}
	pthread_mutex_unlock(&mr_table_lock);
	return rec;
}

void verbs_fork_mr_unprotect_slow(struct verbs_fork_mr *rec)
{
	if (!rec)
		return;
	verbs_fork_unprotect(&rec->span);
	free(rec);
}

IBV_EXPORT int ibv_fork_init(void)
{
	int ret;

	verbs_fork_setup();
	ret = enable_tracking();
	if (!ret)
		apply_hugepages_env();
	return ret;
}

IBV_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	if (verbs_kernel_copies_on_fork())
		return IBV_FORK_UNNEEDED;
	if (verbs_fork_mr_state() == VERBS_FORK_TRACKING)
		return IBV_FORK_ENABLED;
	return IBV_FORK_DISABLED;
}

static int errno_result(int err)
{
	if (!err)
		return 0;
	errno = err;
	return -1;
}

/* Public ranges are counted as upstream counts them, page by page. */
static int public_range(void *base, size_t size, bool add)
{
	if (fork_mode() != VERBS_FORK_TRACKING)
		return 0;
	verbs_proc_enter();
	if (add)
		return errno_result(fork_range_dontfork(&fork_tree, base, size));
	return errno_result(fork_range_dofork(&fork_tree, base, size));
}

IBV_EXPORT int ibv_dontfork_range(void *base, size_t size)
{
	return public_range(base, size, true);
}

IBV_EXPORT int ibv_dofork_range(void *base, size_t size)
{
	return public_range(base, size, false);
}
