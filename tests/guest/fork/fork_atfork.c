// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fork() must not deadlock, whatever runs around it.
 *
 * An MR cache flushes itself in a pthread_atfork() prepare handler that it
 * registered before libibverbs registered its own (its first verbs call
 * comes later).  glibc runs prepare handlers in the reverse order of
 * registration, so that handler runs after the library's: if the library
 * held a lock across fork(), a verb that takes the lock deadlocks here.
 * Each scenario runs in a process of its own, under a watchdog, with the
 * cache's handler registered before the first verbs call:
 *
 *  - the handler deregisters an MR, and in legacy mode gives back a range
 *    it had passed to ibv_dontfork_range() (ibv_dofork_range());
 *  - the handler makes the process's first ibv_is_fork_initialized();
 *  - the handler makes the process's first ibv_fork_init();
 *  - a signal handler forks after interrupting a thread inside
 *    ibv_reg_mr()/ibv_dereg_mr() (in legacy mode inside the madvise() of
 *    the range tracker, else inside the kernel command).
 *
 * In each, fork() returns, the child opens a device afresh and registers
 * memory, and the parent's state is what the verbs said.  Upstream
 * rdma-core 44 holds no lock across fork() (it installs no atfork
 * handler), so all of this passes on Debian's library too - except, in
 * legacy mode, the child forked from the signal handler: it inherits
 * upstream's tracker lock held and hangs in ibv_reg_mr() ("# guard").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_hook.h"
#include "fork_proc.h"

static long page;

/* What the cache's prepare handler does, and what it got. */
static enum {
	H_NONE,
	H_DEREG,
	H_STATUS,
	H_FORK_INIT
} handler_job;
static struct ibv_mr *cached_mr;
static void *cached_range;
static int handler_ret = -1, handler_ret2 = -1;
static int handler_runs;

static void cache_prepare(void)
{
	handler_runs++;
	switch (handler_job) {
	case H_NONE:
		break;
	case H_DEREG:
		handler_ret = ibv_dereg_mr(cached_mr);
		if (cached_range)
			handler_ret2 = ibv_dofork_range(cached_range, page);
		break;
	case H_STATUS:
		handler_ret = ibv_is_fork_initialized();
		break;
	case H_FORK_INIT:
		handler_ret = ibv_fork_init();
		break;
	}
	handler_job = H_NONE;
}

/*
 * Set once ibv_fork_init() succeeded in legacy mode.  Not
 * ibv_is_fork_initialized(): upstream tracks after ibv_fork_init() even
 * where it reports IBV_FORK_UNNEEDED.
 */
static bool tracking_on;

static bool tracking(void)
{
	return tracking_on;
}

/* The child: a fresh device, memory registered and released. */
static void child_uses_library(const char *who)
{
	struct gc_dev dev;
	struct ibv_mr *mr;
	void *m = fu_map(page);
	bool ok;

	if (!fp_ok(m && !gc_dev_open(&dev, 0), "%s: opens rxe0 afresh", who))
		return;
	mr = ibv_reg_mr(dev.pd, m, page, IBV_ACCESS_LOCAL_WRITE);
	ok = mr && (!tracking() || fu_page_dontfork(m) == 1);
	fp_ok(ok, "%s: registers memory%s", who,
	      tracking() ? " (marked dc)" : "");
	fp_ok(mr && !ibv_dereg_mr(mr), "%s: deregisters it", who);
	gc_dev_close(&dev);
	fu_unmap(m, page);
}

/* fork() with the cache's handler armed; the child uses the library. */
static pid_t fork_and_use(const char *who)
{
	pid_t pid = fp_spawn(FP_FORK);

	if (pid == 0) {
		alarm(FP_WATCHDOG);
		child_uses_library(who);
		_exit(0);
	}
	return pid;
}

static void start_scenario(void)
{
	/* Before any verbs call: it runs after the library's handler. */
	pthread_atfork(cache_prepare, NULL, NULL);
	if (fu_legacy_mode())
		tracking_on = fp_ok(!ibv_fork_init(), "ibv_fork_init");
}

static void scenario_dereg(void *arg)
{
	struct gc_dev dev;
	void *m, *extra;
	pid_t pid;

	(void)arg;
	start_scenario();
	m = fu_map(page);
	extra = fu_map(page);
	if (!fp_ok(m && extra && !gc_dev_open(&dev, 0), "rxe0 and memory"))
		return;
	cached_mr = ibv_reg_mr(dev.pd, m, page, IBV_ACCESS_LOCAL_WRITE);
	if (fu_legacy_mode()) {
		/* The cache also keeps a range of its own out of children. */
		fp_ok(!ibv_dontfork_range(extra, page), "ibv_dontfork_range");
		cached_range = extra;
	}
	if (!fp_ok(cached_mr != NULL, "MR registered"))
		return;
	handler_job = H_DEREG;
	pid = fork_and_use("child (handler deregistered)");
	fp_ok(pid > 0,
	      "fork() returned with a prepare handler in "
	      "ibv_dereg_mr%s",
	      cached_range ? "/ibv_dofork_range" : "");
	fp_ok(handler_ret == 0, "the handler's ibv_dereg_mr -> %d",
	      handler_ret);
	if (cached_range)
		fp_ok(handler_ret2 == 0, "the handler's ibv_dofork_range -> %d",
		      handler_ret2);
	fp_ok(fu_page_dontfork(m) == 0 && fu_page_dontfork(extra) == 0,
	      "no dc left on the released pages");
	fp_ok(fu_wait(pid) == 0, "the child exited normally");
	gc_dev_close(&dev);
}

static void scenario_status(void *arg)
{
	struct gc_dev dev;
	pid_t pid;

	(void)arg;
	/* Not start_scenario(): nothing may have asked the kernel yet. */
	pthread_atfork(cache_prepare, NULL, NULL);
	if (!fp_ok(!gc_dev_open(&dev, 0), "rxe0 open"))
		return;
	handler_job = H_STATUS;
	pid = fork_and_use("child (handler asked the status)");
	fp_ok(pid > 0, "fork() returned with the first "
		       "ibv_is_fork_initialized() in a prepare handler");
	fp_ok(handler_ret == (int)ibv_is_fork_initialized(),
	      "the handler got the status the parent sees (%d)", handler_ret);
	fp_ok(fu_wait(pid) == 0, "the child exited normally");
	gc_dev_close(&dev);
}

static void scenario_fork_init(void *arg)
{
	struct gc_dev dev;
	struct ibv_mr *mr;
	void *m = fu_map(page);
	pid_t pid;

	(void)arg;
	pthread_atfork(cache_prepare, NULL, NULL);
	if (!fp_ok(m && !gc_dev_open(&dev, 0), "rxe0 open"))
		return;
	handler_job = H_FORK_INIT;
	pid = fork_and_use("child (handler called ibv_fork_init)");
	fp_ok(pid > 0,
	      "fork() returned with the first ibv_fork_init() in a prepare "
	      "handler");
	fp_ok(handler_ret == 0, "the handler's ibv_fork_init -> %d",
	      handler_ret);
	/* Default mode: ours ignores it, upstream tracks from now on. */
	tracking_on = fu_legacy_mode();
	fp_ok(fu_wait(pid) == 0, "the child exited normally");
	/* Legacy mode: tracking is on now, and works. */
	mr = ibv_reg_mr(dev.pd, m, page, IBV_ACCESS_LOCAL_WRITE);
	fp_ok(mr && (!tracking() || fu_page_dontfork(m) == 1),
	      "registration after it%s", tracking() ? " is marked dc" : "");
	if (mr)
		ibv_dereg_mr(mr);
	gc_dev_close(&dev);
	fu_unmap(m, page);
}

/*
 * fork() from a signal handler on a thread inside a verb.  The child may
 * find the lock of that verb taken: upstream's tracker lock is, and its
 * child hangs in ibv_reg_mr() (a guarantee upstream lacks, "# guard").
 */
#define SIG_CHILD_WATCHDOG 10

static struct gc_dev sig_dev;
static atomic_int sig_child = -1;
static atomic_bool sig_stop;
static char sig_where[16];

static void on_signal(int sig)
{
	int saved = errno;
	pid_t pid;

	(void)sig;
	pid = fp_spawn(FP_FORK);
	if (pid == 0) {
		alarm(SIG_CHILD_WATCHDOG);
		child_uses_library("child forked in a signal handler");
		_exit(0);
	}
	atomic_store(&sig_child, pid);
	errno = saved;
}

static void raise_here(const char *name)
{
	snprintf(sig_where, sizeof(sig_where), "%s", name);
	raise(SIGUSR1);
}

static void *registrar(void *arg)
{
	void *m = arg;
	struct ibv_mr *mr;
	/* In legacy mode, inside the tracker: it calls madvise(). */
	unsigned int mask = tracking() ? FH_MADVISE : FH_COMMAND | FH_MADVISE;
	int i;

	for (i = 0; !atomic_load(&sig_stop); i++) {
		if (i == 3)
			fh_arm(mask, raise_here);
		mr = ibv_reg_mr(sig_dev.pd, m, 2 * page,
				IBV_ACCESS_LOCAL_WRITE);
		if (mr)
			ibv_dereg_mr(mr);
	}
	fh_disarm();
	return NULL;
}

static void scenario_signal(void *arg)
{
	struct sigaction sa = { .sa_handler = on_signal };
	void *m = fu_map(2 * page);
	pthread_t th;
	pid_t pid;
	int i;

	(void)arg;
	start_scenario();
	sigaction(SIGUSR1, &sa, NULL);
	if (!fp_ok(m && !gc_dev_open(&sig_dev, 0), "rxe0 and memory"))
		return;
	pthread_create(&th, NULL, registrar, m);
	for (i = 0; i < 2000 && atomic_load(&sig_child) < 0; i++)
		usleep(10000);
	atomic_store(&sig_stop, true);
	pthread_join(th, NULL);
	pid = atomic_load(&sig_child);
	fp_ok(pid > 0,
	      "fork() in a signal handler that interrupted "
	      "ibv_reg_mr/ibv_dereg_mr (in %s) returned",
	      sig_where);
	if (pid > 0) {
		int status = fu_wait(pid);

		fp_guard(status == 0,
			 "that child used the library and exited (%d%s)",
			 status, status == 128 + SIGALRM ? ": hung" : "");
	}
	fp_ok(fu_count_dontfork_vmas() == 0, "no dc left after the loop");
	gc_dev_close(&sig_dev);
}

static void run(void (*fn)(void *), const char *what)
{
	int status = fp_run(FP_FORK, fn, NULL, what);

	gc_ok(status == 0, "%s: no deadlock (process exit %d%s)", what, status,
	      status == 128 + SIGALRM ? ": hung" : "");
}

int main(void)
{
	page = sysconf(_SC_PAGESIZE);
	/* No verbs call here: each scenario process starts clean. */
	gc_start("fork_atfork");
	gc_diag("mode: %s", fu_legacy_mode() ? "legacy" : "default");
	if (gc_system_lib())
		gc_diag("upstream installs no atfork handler and holds no "
			"lock across fork()");
	run(scenario_dereg, "prepare handler in ibv_dereg_mr");
	run(scenario_status, "prepare handler in ibv_is_fork_initialized");
	run(scenario_fork_init, "prepare handler in ibv_fork_init");
	run(scenario_signal, "fork() in a signal handler inside a verb");
	return gc_finish();
}
