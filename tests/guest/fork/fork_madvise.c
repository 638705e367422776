// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What fork support does to the address space, read back from
 * /proc/self/smaps (VmFlags "dc" is MADV_DONTFORK).
 *
 * Legacy mode: "dc" exactly on registered pages, counted per page across
 * overlapping MRs, gone after the last deregistration; a child touching a
 * registered page dies of SIGSEGV.
 * Default mode on a kernel that reports copy-on-fork, even with
 * RDMAV_FORK_SAFE=1 and ibv_fork_init(): no "dc" anywhere, and a child
 * reads registered pages.  Default mode on a kernel that does not report
 * it (before 5.13): ibv_fork_init(), then the legacy checks.
 * Upstream 44 marks pages after ibv_fork_init() whatever the kernel does,
 * so those two are guard checks; legacy tracking is upstream's own.
 *
 * With the argument "loop" it only registers and deregisters 1,000 times,
 * for the strace count in fork_madvise_strace.sh.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_util.h"

#define PAGES 8

static long page;

/* "dc" on page i of @map must be @want[i] for every page. */
static bool pages_are(uint8_t *map, const int *want)
{
	int i;

	for (i = 0; i < PAGES; i++)
		if (fu_page_dontfork(map + i * page) != want[i]) {
			gc_diag("page %d: dc=%d, want %d", i,
				fu_page_dontfork(map + i * page), want[i]);
			return false;
		}
	return true;
}

/* A child reading the first byte of @p: its exit status or 128+sig. */
static int child_touch(volatile uint8_t *p)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(p[0] == 0xee ? 0 : 3);
	return fu_wait(pid);
}

static void legacy(struct gc_dev *dev, uint8_t *map)
{
	static const int none[PAGES] = { 0 };
	static const int both[PAGES] = { 1, 1, 1, 1, 1, 1, 0, 0 };
	static const int second[PAGES] = { 0, 0, 1, 1, 1, 1, 0, 0 };
	struct ibv_mr *m1, *m2;
	int status;

	gc_ok(pages_are(map, none), "no dc before registration");
	/* Pages 0-3, starting mid-page 0; pages 2-5, ending mid-page 5. */
	m1 = ibv_reg_mr(dev->pd, map + 100, 4 * page - 100,
			IBV_ACCESS_LOCAL_WRITE);
	m2 = ibv_reg_mr(dev->pd, map + 2 * page, 3 * page + 1,
			IBV_ACCESS_LOCAL_WRITE);
	if (!gc_ok(m1 && m2, "two overlapping MRs registered"))
		return;
	gc_ok(pages_are(map, both), "dc exactly on pages 0-5");

	map[4 * page] = 0xee;
	status = child_touch(map + 4 * page);
	gc_ok(status == 128 + SIGSEGV,
	      "a child touching a registered page dies of SIGSEGV (%d)",
	      status);
	status = child_touch(map + 7 * page);
	gc_ok(status == 3 || status == 0,
	      "a child reads an unregistered page of the same mapping (%d)",
	      status);

	gc_ok(!ibv_dereg_mr(m1), "first MR deregistered");
	gc_ok(pages_are(map, second), "dc stays on pages 2-5 (second MR)");
	gc_ok(!ibv_dereg_mr(m2), "second MR deregistered");
	gc_ok(pages_are(map, none), "no dc after the last deregistration");
	gc_ok(fu_count_dontfork_vmas() == 0, "no dc anywhere in smaps");
}

static void copying(struct gc_dev *dev, uint8_t *map)
{
	struct ibv_mr *m1, *m2;
	int err;

	err = ibv_fork_init();
	gc_ok(!err, "ibv_fork_init on a copying kernel returns 0 (%d)", err);
	m1 = ibv_reg_mr(dev->pd, map + 100, 4 * page - 100,
			IBV_ACCESS_LOCAL_WRITE);
	m2 = ibv_reg_mr(dev->pd, map + 2 * page, 3 * page + 1,
			IBV_ACCESS_LOCAL_WRITE);
	if (!gc_ok(m1 && m2, "two overlapping MRs registered"))
		return;
	gc_guard(fu_count_dontfork_vmas() == 0,
		 "no dc anywhere in smaps after ibv_fork_init");
	map[4 * page] = 0xee;
	gc_guard(child_touch(map + 4 * page) == 0,
		 "a child reads the registered page's bytes");
	ibv_dereg_mr(m1);
	ibv_dereg_mr(m2);
}

static int loop(void)
{
	struct gc_dev dev;
	struct ibv_mr *mr;
	uint8_t *map = fu_map(PAGES * page);
	int i;

	if (!map || gc_dev_open(&dev, 0))
		return 1;
	for (i = 0; i < 1000; i++) {
		mr = ibv_reg_mr(dev.pd, map + (i % page), 2 * page,
				IBV_ACCESS_LOCAL_WRITE);
		if (!mr || ibv_dereg_mr(mr))
			return 1;
	}
	gc_dev_close(&dev);
	return 0;
}

int main(int argc, char **argv)
{
	struct gc_dev dev;
	uint8_t *map;

	page = sysconf(_SC_PAGESIZE);
	if (argc > 1 && !strcmp(argv[1], "loop"))
		return loop();

	if (!fu_start("fork_madvise"))
		return gc_finish();
	map = fu_map(PAGES * page);
	if (!gc_ok(map && !gc_dev_open(&dev, 0), "device and mapping"))
		return gc_finish();
	if (fu_cof_trusted()) {
		copying(&dev, map);
	} else {
		/*
		 * The kernel does not say it copies: tracking is on after
		 * ibv_fork_init() in either mode, as upstream's.
		 */
		if (!fu_legacy_mode()) {
			gc_diag("no guard on this kernel: it does not report "
				"copy-on-fork, so ibv_fork_init() tracks, as "
				"upstream's");
			gc_ok(!ibv_fork_init(), "ibv_fork_init");
		}
		legacy(&dev, map);
	}
	gc_dev_close(&dev);
	fu_unmap(map, PAGES * page);
	return gc_finish();
}
