// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Registration racing fork(): 4 threads register and deregister
 * overlapping ranges of one mapping while the main thread forks 200
 * times.  No deadlock (ctest's timeout would catch one), every child
 * exits cleanly, and afterwards fork support's bookkeeping is consistent:
 * with everything deregistered, no page is left MADV_DONTFORK.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_util.h"

#define THREADS 4
#define FORKS 200
#define PAGES 64
#define LIVE 8

static struct gc_dev dev;
static uint8_t *map;
static long page;
static atomic_bool stop;
static atomic_int reg_failures;

static void *registrar(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	struct ibv_mr *live[LIVE] = {};
	size_t off, len;
	int slot;

	while (!atomic_load(&stop)) {
		slot = rand_r(&seed) % LIVE;
		if (live[slot]) {
			if (ibv_dereg_mr(live[slot]))
				atomic_fetch_add(&reg_failures, 1);
			live[slot] = NULL;
			continue;
		}
		/* Random, overlapping, often unaligned ranges. */
		off = rand_r(&seed) % ((PAGES - 8) * page);
		len = 1 + rand_r(&seed) % (8 * page);
		live[slot] = ibv_reg_mr(dev.pd, map + off, len,
					IBV_ACCESS_LOCAL_WRITE);
		if (!live[slot])
			atomic_fetch_add(&reg_failures, 1);
	}
	for (slot = 0; slot < LIVE; slot++)
		if (live[slot] && ibv_dereg_mr(live[slot]))
			atomic_fetch_add(&reg_failures, 1);
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	int i, bad_children = 0, status;
	pid_t pid;

	page = sysconf(_SC_PAGESIZE);
	if (!fu_start("fork_concurrency"))
		return gc_finish();
	map = fu_map(PAGES * page);
	if (!gc_ok(map && !gc_dev_open(&dev, 0), "device and mapping"))
		return gc_finish();

	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, registrar,
			       (void *)(uintptr_t)(i + 1));
	for (i = 0; i < FORKS; i++) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		status = pid < 0 ? -1 : fu_wait(pid);
		if (status)
			bad_children++;
	}
	atomic_store(&stop, true);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);

	gc_ok(bad_children == 0, "%d forks, %d children failed", FORKS,
	      bad_children);
	gc_ok(atomic_load(&reg_failures) == 0, "%d reg/dereg failures",
	      atomic_load(&reg_failures));
	gc_ok(fu_count_dontfork_vmas() == 0,
	      "no page left MADV_DONTFORK after all deregistrations");
	gc_dev_close(&dev);
	fu_unmap(map, PAGES * page);
	return gc_finish();
}
