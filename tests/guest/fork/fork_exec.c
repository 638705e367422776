// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vfork() + exec and posix_spawn() while memory is registered.
 *
 * Neither runs the atfork handlers (posix_spawn uses clone(CLONE_VM |
 * CLONE_VFORK)), and the new process shares the parent's memory until it
 * execs.  The parent has an RC QP between rxe0 and rxe1 with MRs on both
 * sides, and a thread keeps registering and deregistering memory while
 * the main thread spawns this binary again; the exec'd program opens rxe0,
 * registers memory and exits 42.  Afterwards the parent's MRs still move
 * bytes by RDMA WRITE, READ and SEND.  Upstream behaves the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_proc.h"

#define SPAWNS 5
#define EXEC_OK 42

extern char **environ;

static struct fp_pair parent;
static atomic_bool stop;
static long page;

/* The exec'd program. */
static int exec_child(void)
{
	struct gc_dev dev;
	struct ibv_mr *mr;
	void *m = fu_map(page);
	int ok;

	alarm(FP_WATCHDOG);
	if (!m || gc_dev_open(&dev, 0))
		return 1;
	mr = ibv_reg_mr(dev.pd, m, page, IBV_ACCESS_LOCAL_WRITE);
	ok = mr && !ibv_dereg_mr(mr);
	gc_dev_close(&dev);
	return ok ? EXEC_OK : 2;
}

static void *registrar(void *arg)
{
	uint8_t *m = arg;
	struct ibv_mr *mr;
	unsigned int i;

	for (i = 0; !atomic_load(&stop); i++) {
		mr = ibv_reg_mr(parent.p.a.pd, m + (i % 4) * page, 2 * page,
				IBV_ACCESS_LOCAL_WRITE);
		if (mr)
			ibv_dereg_mr(mr);
	}
	return NULL;
}

static char *child_argv[] = { "fork_exec", "--exec-child", NULL };

static pid_t by_vfork(void)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execv("/proc/self/exe", child_argv);
		_exit(127);
	}
	return pid;
}

static pid_t by_posix_spawn(void)
{
	pid_t pid;
	int err;

	err = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, child_argv,
			  environ);
	if (err) {
		errno = err;
		return -1;
	}
	return pid;
}

static void spawn(pid_t (*fn)(void), const char *what)
{
	int i, status, good = 0;
	pid_t pid;

	for (i = 0; i < SPAWNS; i++) {
		pid = fn();
		status = pid > 0 ? fu_wait(pid) : -1;
		if (status == EXEC_OK)
			good++;
		else
			gc_diag("%s %d: status %d", what, i, status);
	}
	gc_ok(good == SPAWNS,
	      "%s: %d of %d exec'd programs ran and used the library", what,
	      good, SPAWNS);
}

int main(int argc, char **argv)
{
	pthread_t th;
	uint8_t *m;

	page = sysconf(_SC_PAGESIZE);
	if (argc == 2 && !strcmp(argv[1], "--exec-child"))
		return exec_child();

	if (!fu_start("fork_exec"))
		return gc_finish();
	m = fu_map(8 * page);
	if (!gc_ok(m && !fp_pair_open(&parent), "parent: RC pair and MRs"))
		return gc_finish();
	fp_traffic(&parent, "parent before spawning", 0x10);

	pthread_create(&th, NULL, registrar, m);
	spawn(by_vfork, "vfork+exec");
	spawn(by_posix_spawn, "posix_spawn");
	atomic_store(&stop, true);
	pthread_join(th, NULL);

	fp_traffic(&parent, "parent after vfork+exec and posix_spawn", 0x20);
	fp_pair_close(&parent);
	fu_unmap(m, 8 * page);
	return gc_finish();
}
