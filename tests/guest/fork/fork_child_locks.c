// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A child never waits for a lock that a thread of its parent held at
 * fork(): that thread does not exist in the child.
 *
 * Device discovery: a thread loops ibv_get_device_list() /
 * ibv_free_device_list() while the main thread forks.  The first forks
 * happen while the thread is stopped inside ibv_get_device_list(), in a
 * sysfs or netlink call of the discovery (fork_hook.c), so whatever lock
 * discovery holds is held at fork() - every time, not by luck; the rest
 * happen at random moments.  Every child opens rxe0 afresh (the way the
 * documentation tells a child to get RDMA) and registers memory, under a
 * watchdog.
 *
 * Inherited completion channel and CQ: the child destroys a CQ and its
 * completion channel inherited from the parent, first while the context's
 * mutex was held at fork() - by the test itself, standing for a thread
 * inside a verb that takes it (both libraries take it to count a
 * channel's CQs) - then while a thread was stopped inside ibv_create_cq()
 * with a channel.  Cleanup of inherited objects must return 0, not hang,
 * and leave the parent's CQ and channel working.
 *
 * Upstream does not reset its device-list lock or the context mutex in
 * the child, which hangs on them, and its child's cleanup destroys the
 * parent's CQ in the kernel ("# guard").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fork_hook.h"
#include "fork_proc.h"

#define CHILD_WATCHDOG 10
#define STOPPED_FORKS 3
#define RANDOM_FORKS 6
#define FORKS (STOPPED_FORKS + RANDOM_FORKS)

static long page;
static sem_t inside, forked;
static atomic_bool stop;

/* Called by the hook: the thread is inside the verb, let main fork. */
static void rendezvous(const char *name)
{
	(void)name;
	sem_post(&inside);
	sem_wait(&forked);
}

/* Wait for the thread to stop inside the verb; false after 20 s. */
static bool wait_inside(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += 20;
	while (sem_timedwait(&inside, &t))
		if (errno != EINTR)
			return false;
	return true;
}

static void *lister(void *arg)
{
	struct ibv_device **list;
	int i, num;

	(void)arg;
	for (i = 0; !atomic_load(&stop); i++) {
		if (i < STOPPED_FORKS)
			fh_arm(FH_DISCOVERY, rendezvous);
		list = ibv_get_device_list(&num);
		fh_disarm();
		if (list)
			ibv_free_device_list(list);
	}
	return NULL;
}

static void child_open(int n, bool stopped)
{
	struct gc_dev dev;
	struct ibv_mr *mr = NULL;
	void *m = fu_map(page);
	bool ok;

	alarm(CHILD_WATCHDOG);
	ok = m && !gc_dev_open(&dev, 0);
	if (ok) {
		mr = ibv_reg_mr(dev.pd, m, page, IBV_ACCESS_LOCAL_WRITE);
		ok = mr && !ibv_dereg_mr(mr);
		gc_dev_close(&dev);
	}
	fp_guard(ok, "child %d (forked %s): opened rxe0, registered memory", n,
		 stopped ? "while a thread was inside ibv_get_device_list" :
			   "during a device-list loop");
	_exit(0);
}

static void device_list(void)
{
	pid_t pids[FORKS];
	pthread_t th;
	int p[2], i, status, hung = 0;
	bool stopped;
	long deadline;

	sem_init(&inside, 0, 0);
	sem_init(&forked, 0, 0);
	if (pipe(p))
		return;
	pthread_create(&th, NULL, lister, NULL);
	for (i = 0; i < FORKS; i++) {
		stopped = i < STOPPED_FORKS;
		if (stopped &&
		    !gc_ok(wait_inside(), "thread stopped inside discovery")) {
			pids[i] = -1;
			continue;
		}
		if (!stopped)
			usleep(1000 + rand() % 20000);
		pids[i] = fp_spawn(FP_FORK);
		if (pids[i] == 0) {
			close(p[0]);
			fp_report_to(p[1]);
			child_open(i, stopped);
		}
		if (stopped)
			sem_post(&forked);
	}
	atomic_store(&stop, true);
	pthread_join(th, NULL);
	close(p[1]);
	/*
	 * The children run side by side, their watchdogs overlap: one limit
	 * for all of them, not one per child in turn.
	 */
	deadline = gc_now_ms() + GC_CHILD_TIMEOUT_MS;
	fp_relay_until(p[0], deadline);
	close(p[0]);
	deadline = fp_reap_deadline(deadline);
	for (i = 0; i < FORKS; i++) {
		status = pids[i] > 0 ? fu_wait_until(pids[i], deadline) : -1;
		if (status == 128 + SIGALRM)
			hung++;
		gc_guard(status == 0, "device-list child %d did not hang (%d)",
			 i, status);
	}
	gc_diag("%d of %d device-list children hung", hung, FORKS);
}

/* Inherited CQ and channel, destroyed by the child. */
struct chan_objs {
	struct gc_dev dev;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
};

static void child_destroy(void *arg)
{
	struct chan_objs *o = arg;
	struct ibv_comp_channel *ch;
	struct ibv_context *ctx;
	struct ibv_cq *cq;
	int ret;

	alarm(CHILD_WATCHDOG);
	ret = ibv_destroy_cq(o->cq);
	fp_guard(ret == 0, "child: ibv_destroy_cq of an inherited CQ -> %d",
		 ret);
	ret = ibv_destroy_comp_channel(o->ch);
	fp_guard(ret == 0, "child: ibv_destroy_comp_channel inherited -> %d",
		 ret);
	/* And a channel of its own works. */
	ctx = gc_dev_open(&o->dev, 0) ? NULL : o->dev.ctx;
	ch = ctx ? ibv_create_comp_channel(ctx) : NULL;
	cq = ch ? ibv_create_cq(ctx, 4, NULL, ch, 0) : NULL;
	fp_ok(cq && !ibv_req_notify_cq(cq, 0) && !ibv_destroy_cq(cq) &&
		      !ibv_destroy_comp_channel(ch),
	      "child: its own channel and CQ on a fresh context");
	gc_dev_close(&o->dev);
}

static int make_objs(struct chan_objs *o)
{
	if (gc_dev_open(&o->dev, 0))
		return -1;
	o->ch = ibv_create_comp_channel(o->dev.ctx);
	o->cq = o->ch ? ibv_create_cq(o->dev.ctx, 4, NULL, o->ch, 0) : NULL;
	return o->cq ? 0 : -1;
}

static void free_objs(struct chan_objs *o, const char *what)
{
	/* Upstream's child may have destroyed them in the kernel. */
	gc_guard(!ibv_req_notify_cq(o->cq, 0) && !ibv_destroy_cq(o->cq) &&
			 !ibv_destroy_comp_channel(o->ch),
		 "parent: its CQ and channel still work after %s", what);
	gc_dev_close(&o->dev);
}

static void *holder(void *arg)
{
	struct chan_objs *o = arg;

	pthread_mutex_lock(&o->dev.ctx->mutex);
	sem_post(&inside);
	sem_wait(&forked);
	pthread_mutex_unlock(&o->dev.ctx->mutex);
	return NULL;
}

static void *cq_maker(void *arg)
{
	struct chan_objs *o = arg;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(o->dev.ctx);
	struct ibv_cq *cq;

	fh_arm(FH_COMMAND, rendezvous);
	cq = ch ? ibv_create_cq(o->dev.ctx, 4, NULL, ch, 0) : NULL;
	fh_disarm();
	if (!ch || !cq) {
		/* Never stopped: let main go on, and fail it. */
		sem_post(&inside);
		sem_wait(&forked);
	}
	if (cq)
		ibv_destroy_cq(cq);
	if (ch)
		ibv_destroy_comp_channel(ch);
	return NULL;
}

static void channel(void *(*fn)(void *), const char *what)
{
	long deadline = gc_now_ms() + GC_CHILD_TIMEOUT_MS;
	struct chan_objs o;
	pthread_t th;
	int p[2], status;
	pid_t pid;

	sem_init(&inside, 0, 0);
	sem_init(&forked, 0, 0);
	if (!gc_ok(!make_objs(&o) && !pipe(p), "%s: channel and CQ", what))
		return;
	pthread_create(&th, NULL, fn, &o);
	gc_ok(wait_inside(), "%s: thread in place", what);
	pid = fp_spawn(FP_FORK);
	if (pid == 0) {
		close(p[0]);
		fp_report_to(p[1]);
		child_destroy(&o);
		_exit(0);
	}
	sem_post(&forked);
	pthread_join(th, NULL);
	close(p[1]);
	fp_relay_until(p[0], deadline);
	close(p[0]);
	status = fu_wait_until(pid, fp_reap_deadline(deadline));
	gc_guard(status == 0, "%s: the child did not hang (%d)", what, status);
	free_objs(&o, what);
}

int main(void)
{
	page = sysconf(_SC_PAGESIZE);
	srand(8);
	if (!fu_start("fork_child_locks"))
		return gc_finish();
	device_list();
	channel(holder, "context mutex held at fork");
	channel(cq_maker, "fork inside ibv_create_cq with a channel");
	return gc_finish();
}
