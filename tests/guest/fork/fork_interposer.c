// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An MR cache with memory hooks, LD_PRELOADed, under fork() stress.
 *
 * fork_interposer_mon.so (see there) intercepts munmap(), free() and
 * madvise(MADV_DONTNEED...) and deregisters cached MRs - with
 * ibv_dofork_range() in legacy mode - from inside them, and flushes its
 * cache from a pthread_atfork() prepare handler registered before the
 * library's.  This driver re-executes itself with the monitor in
 * LD_PRELOAD, then 4 threads register buffers through the cache, release
 * them every way (munmap, free of large malloc blocks, MADV_DONTNEED),
 * and fork, 200 times in all.  Every child uses the library: it asks the
 * fork status and lists the devices, every fourth opens rxe0, registers
 * and deregisters memory, some unmap memory through the hooks.  A
 * watchdog fails the test if anything hangs.
 *
 * Then, single-threaded, the cache's common order: a buffer unmapped
 * before its registration is dropped, and new memory registered at the
 * same address must be marked MADV_DONTFORK again (legacy mode).  Last
 * (legacy mode), a fork while a thread is stopped inside the tracker,
 * whose child registers memory.
 *
 * Upstream rdma-core 44 installs no atfork handler and holds no lock
 * across fork(): in default mode it passes.  In legacy mode (it tracks
 * after ibv_fork_init() even on a copying kernel) its children can
 * inherit the tracker's lock taken by another thread and hang in
 * ibv_reg_mr(): those checks are "# guard", and the last scenario makes
 * that happen every time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fork_interposer_mon.h"
#include "fork_proc.h"

#define THREADS 4
#define FORKS_PER_THREAD 50
#define SLOTS 8
#define WATCHDOG 100
#define CHILD_WATCHDOG 20
#define MONITOR "libfork_interposer_mon.so"

static struct gc_dev dev;
static long page;
static atomic_int forks, bad_children, hung_children, reg_failures;

/* Async-signal-safe: the number of forks done, then exit. */
static void watchdog(int sig)
{
	static const char msg[] = "not ok - watchdog: a fork() or verb hung "
				  "after this many forks: ";
	char num[16];
	int n = atomic_load(&forks), i = sizeof(num);

	(void)sig;
	num[--i] = '\n';
	do {
		num[--i] = '0' + n % 10;
		n /= 10;
	} while (n && i);
	if (write(1, msg, sizeof(msg) - 1) < 0 ||
	    write(1, num + i, sizeof(num) - i) < 0)
		_exit(3);
	_exit(3);
}

struct slot {
	uint8_t *addr;
	size_t len;
	bool heap;
};

static void slot_release(struct slot *s, unsigned int how)
{
	if (!s->addr)
		return;
	if (s->heap) {
		free(s->addr);
	} else if (how % 3 == 0) {
		/* Released, still mapped: then unmapped (nothing cached). */
		madvise(s->addr, s->len, MADV_DONTNEED);
		munmap(s->addr, s->len);
	} else {
		munmap(s->addr, s->len);
	}
	s->addr = NULL;
}

static void slot_fill(struct slot *s, unsigned int *seed)
{
	if (rand_r(seed) % 4 == 0) {
		/* Above the mmap threshold: a mapping of its own. */
		s->len = 256 * 1024;
		s->addr = malloc(s->len);
		s->heap = true;
	} else {
		s->len = (1 + rand_r(seed) % 4) * page;
		s->addr = fu_map(s->len);
		s->heap = false;
	}
	if (s->addr)
		memset(s->addr, 0x5a, s->len);
}

static void child_work(unsigned int n, struct slot *slots)
{
	struct ibv_device **list;
	struct gc_dev d;
	struct ibv_mr *mr;
	void *m;
	int num;

	/* Not the parent's watchdog: a hung child shows as SIGALRM. */
	signal(SIGALRM, SIG_DFL);
	alarm(CHILD_WATCHDOG);
	if (ibv_is_fork_initialized() == IBV_FORK_ENABLED && !fu_legacy_mode())
		_exit(10);
	list = ibv_get_device_list(&num);
	if (!list || num < 2)
		_exit(11);
	ibv_free_device_list(list);
	if (n % 4 == 0) {
		m = fu_map(page);
		if (!m || gc_dev_open(&d, 0))
			_exit(12);
		mr = ibv_reg_mr(d.pd, m, page, IBV_ACCESS_LOCAL_WRITE);
		if (!mr || ibv_dereg_mr(mr))
			_exit(13);
		gc_dev_close(&d);
		munmap(m, page);
	}
	/* Through the hooks, with the cache the child forgot. */
	if (n % 3 == 0 && slots[0].addr && !slots[0].heap)
		munmap(slots[0].addr, slots[0].len);
	_exit(0);
}

static void *worker(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg, i, done = 0;
	struct slot slots[SLOTS] = {};
	struct ibv_mr *mr, *again;
	struct slot *s;
	pid_t pid;
	int status;

	for (i = 0; done < FORKS_PER_THREAD; i++) {
		s = &slots[rand_r(&seed) % SLOTS];
		if (i % 6 == 5) {
			pid = fork();
			if (pid == 0)
				child_work(done, slots);
			status = pid < 0 ? -1 : fu_wait(pid);
			if (status == 128 + SIGALRM)
				atomic_fetch_add(&hung_children, 1);
			else if (status)
				atomic_fetch_add(&bad_children, 1);
			if (status)
				gc_diag("child: status %d", status);
			done++;
			atomic_fetch_add(&forks, 1);
			continue;
		}
		if (!s->addr) {
			slot_fill(s, &seed);
			if (!s->addr)
				continue;
		}
		mr = mon_reg(dev.pd, s->addr, s->len);
		/* The same range again: a cache hit. */
		again = mr ? mon_reg(dev.pd, s->addr, s->len) : NULL;
		if (!mr || again != mr)
			atomic_fetch_add(&reg_failures, 1);
		if (again)
			mon_put(again);
		if (mr)
			mon_put(mr);
		/* Most buffers go back soon; the rest stay cached. */
		if (rand_r(&seed) % 3)
			slot_release(s, rand_r(&seed));
	}
	for (i = 0; i < SLOTS; i++)
		slot_release(&slots[i], i);
	return NULL;
}

/*
 * The cache's common order: unmap, then deregister (from the munmap hook,
 * after the memory is gone).  The next registration at that address must
 * be protected again.
 */
static void unmap_then_reregister(void)
{
	size_t len = 2 * page;
	struct mon_stats st;
	struct ibv_mr *mr;
	uint8_t *p, *q;
	unsigned long before;

	p = fu_map(len);
	mr = p ? mon_reg(dev.pd, p, len) : NULL;
	if (!gc_ok(mr != NULL, "cache: registration to unmap"))
		return;
	mon_put(mr);
	mon_get_stats(&st);
	before = st.by_munmap;
	munmap(p, len);
	mon_get_stats(&st);
	gc_ok(st.by_munmap == before + 1,
	      "cache: munmap dropped the registration after the unmap");
	q = mmap(p, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (!gc_ok(q == p, "new memory mapped at the same address"))
		return;
	mr = ibv_reg_mr(dev.pd, q, len, IBV_ACCESS_LOCAL_WRITE);
	gc_ok(mr != NULL, "registered there");
	if (fu_legacy_mode())
		gc_ok(fu_page_dontfork(q) == 1 &&
			      fu_page_dontfork(q + page) == 1,
		      "legacy: the new registration is marked dc "
		      "(no reference left from the unmapped one)");
	if (mr)
		gc_ok(!ibv_dereg_mr(mr), "and deregistered");
	gc_ok(fu_page_dontfork(q) == 0, "no dc left on it");
	munmap(q, len);
}

/*
 * Legacy mode: fork while a thread is stopped inside the tracker (in its
 * madvise(), seen by the monitor), and the child registers memory.
 * Upstream's child finds the tracker's lock taken and hangs; a library
 * that held that lock across fork() would hang the parent instead.
 */
static sem_t inside, forked;

static void stop_here(void)
{
	sem_post(&inside);
	sem_wait(&forked);
}

static void *tracker_user(void *arg)
{
	struct ibv_mr *mr;

	mon_hook_madvise(stop_here);
	mr = ibv_reg_mr(dev.pd, arg, page, IBV_ACCESS_LOCAL_WRITE);
	if (mr)
		ibv_dereg_mr(mr);
	mon_hook_madvise(NULL);
	return NULL;
}

static void fork_inside_tracker(void)
{
	struct timespec t;
	struct gc_dev d;
	struct ibv_mr *mr;
	void *m = fu_map(page), *cm = fu_map(page);
	pthread_t th;
	int status, ok;
	pid_t pid;

	sem_init(&inside, 0, 0);
	sem_init(&forked, 0, 0);
	pthread_create(&th, NULL, tracker_user, m);
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += 20;
	ok = !sem_timedwait(&inside, &t);
	gc_ok(ok, "a thread stopped inside the tracker's madvise()");
	pid = fork();
	if (pid == 0) {
		signal(SIGALRM, SIG_DFL);
		alarm(CHILD_WATCHDOG);
		if (gc_dev_open(&d, 0))
			_exit(1);
		mr = ibv_reg_mr(d.pd, cm, page, IBV_ACCESS_LOCAL_WRITE);
		_exit(mr && !ibv_dereg_mr(mr) ? 0 : 2);
	}
	sem_post(&forked);
	pthread_join(th, NULL);
	status = fu_wait(pid);
	gc_guard(status == 0,
		 "its child registers memory on a fresh context (%d%s)", status,
		 status == 128 + SIGALRM ? ": hung" : "");
	fu_unmap(m, page);
	fu_unmap(cm, page);
}

/* Run again with the monitor preloaded; it sits next to this binary. */
static void preload_monitor(char **argv)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	const char *pre = getenv("LD_PRELOAD");
	ssize_t n;

	if (pre && strstr(pre, MONITOR))
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dirname(exe), MONITOR);
	setenv("LD_PRELOAD", path, 1);
	execv("/proc/self/exe", argv);
}

int main(int argc, char **argv)
{
	const char *pre;
	pthread_t th[THREADS];
	struct mon_stats st;
	int i;

	(void)argc;
	preload_monitor(argv);
	page = sysconf(_SC_PAGESIZE);
	/*
	 * A fixed threshold: the 256 KiB blocks stay mappings of their own.
	 * glibc would raise it after the first free, and registered heap
	 * chunks (MADV_DONTFORK in legacy mode) take malloc's neighbouring
	 * state away from children.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	signal(SIGALRM, watchdog);
	alarm(WATCHDOG);
	if (!fu_start("fork_interposer"))
		return gc_finish();
	pre = getenv("LD_PRELOAD");
	gc_ok(pre && strstr(pre, MONITOR), "monitor preloaded: %s",
	      pre ? pre : "(none)");
	if (gc_system_lib())
		gc_diag("upstream rdma-core 44 installs no atfork handler and "
			"holds no lock across fork(); it reports "
			"IBV_FORK_UNNEEDED, so this cache calls no "
			"ibv_dofork_range() there");
	if (!gc_ok(!gc_dev_open(&dev, 0), "rxe0 open"))
		return gc_finish();

	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker,
			       (void *)(uintptr_t)(i * 7919 + 1));
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	mon_flush();
	mon_get_stats(&st);
	gc_diag("cache: %lu misses, %lu hits; dropped by munmap %lu, free "
		"%lu, madvise %lu, prepare handler %lu (%lu forks), flush "
		"%lu; dofork %lu (%lu failed)",
		st.misses, st.hits, st.by_munmap, st.by_free, st.by_madvise,
		st.by_prepare, st.prepares, st.flushed, st.dofork_calls,
		st.dofork_failures);

	gc_ok(atomic_load(&forks) == THREADS * FORKS_PER_THREAD &&
		      !atomic_load(&bad_children),
	      "%d forks from %d threads, %d children failed",
	      atomic_load(&forks), THREADS, atomic_load(&bad_children));
	/* Upstream's child can inherit its tracker lock taken. */
	gc_guard(!atomic_load(&hung_children), "%d children hung",
		 atomic_load(&hung_children));
	gc_ok(!atomic_load(&reg_failures) && !st.reg_failures,
	      "every registration through the cache worked");
	gc_ok(!st.dereg_failures, "every deregistration from the hooks "
				  "and the prepare handler returned 0");
	gc_ok(st.by_munmap && st.by_free && st.by_madvise && st.by_prepare,
	      "registrations dropped from munmap, free, madvise and the "
	      "prepare handler");
	gc_ok(!st.cached, "cache empty at the end");
	gc_ok(fu_count_dontfork_vmas() == 0, "no dc left anywhere");

	unmap_then_reregister();
	if (fu_legacy_mode())
		fork_inside_tracker();
	gc_dev_close(&dev);
	return gc_finish();
}
