// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A child starts with no registered memory, so its own MRs are protected
 * like anyone's.
 *
 * Legacy mode: the parent's MR is marked MADV_DONTFORK, so its page is
 * missing in the child.  The child maps fresh memory at that very address,
 * opens the devices afresh and registers it: the page must be marked "dc"
 * in /proc/self/smaps - a tracker that kept the parent's ranges would
 * count it as marked already and leave it unprotected - and a grandchild
 * must not see it.  The child's MR moves bytes before and after the
 * grandchild, and the parent's MR still does after the child.
 *
 * Default mode (the kernel copies): nothing is marked anywhere, the
 * grandchild sees the page; the same RDMA checks.
 *
 * The "dc" checks of the child are a guarantee upstream lacks ("# guard"):
 * upstream's child inherits its tracker.  (Upstream tracks after
 * ibv_fork_init() even on a copying kernel.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fork_proc.h"

static struct fp_pair parent;
static bool tracking;
static long page;

static bool write_check(struct gc_pair *p, struct gc_buf *a, struct gc_buf *b,
			uint8_t seed)
{
	struct ibv_wc wc;

	gc_fill(a->addr, page, seed);
	return !gc_post_send(p->qp_a, IBV_WR_RDMA_WRITE, a, 0, page, 1,
			     IBV_SEND_SIGNALED, (uintptr_t)b->addr,
			     b->mr->rkey) &&
	       gc_poll(p->cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	       wc.status == IBV_WC_SUCCESS && !memcmp(a->addr, b->addr, page);
}

static void grandchild(uint8_t *x)
{
	/* Before any mapping of ours: it could take the free hole at x. */
	int dc = fu_page_dontfork(x);
	struct gc_dev dev;
	struct ibv_mr *mr;
	void *m = fu_map(page);

	alarm(FP_WATCHDOG);
	if (fu_legacy_mode())
		fp_guard(dc == -1,
			 "grandchild: the child's MR page is not mapped (%d)",
			 dc);
	else
		fp_ok(dc == 0 && x[0] == (uint8_t)0x61,
		      "grandchild: sees the child's MR page (copied)");
	mr = NULL;
	if (m && !gc_dev_open(&dev, 0)) {
		mr = ibv_reg_mr(dev.pd, m, page, IBV_ACCESS_LOCAL_WRITE);
		if (mr)
			ibv_dereg_mr(mr);
		gc_dev_close(&dev);
	}
	fp_ok(mr != NULL, "grandchild: registers memory on a fresh context");
	_exit(0);
}

static void child(void *arg)
{
	uint8_t *x = parent.a.addr;
	struct gc_buf a = { .addr = x, .len = page }, b;
	struct gc_pair p;
	int dc = fu_page_dontfork(x);
	pid_t pid;

	(void)arg;
	if (tracking) {
		fp_ok(dc == -1, "child: the parent's MR page is not mapped");
		x = mmap(x, page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1,
			 0);
		if (!fp_ok(x == a.addr, "child: maps fresh memory there"))
			return;
	}
	if (!fp_ok(!gc_pair_open(&p, IBV_QPT_RC, NULL) &&
			   !fp_buf_map(&b, p.b.pd, page),
		   "child: opens rxe0 and rxe1 afresh"))
		return;
	a.mr = ibv_reg_mr(p.a.pd, x, page, GC_ACCESS_ALL);
	if (!fp_ok(a.mr != NULL, "child: registers the page at the parent "
				 "MR's address"))
		return;
	dc = fu_page_dontfork(x);
	if (fu_legacy_mode())
		fp_guard(dc == 1, "child: its MR there is marked dc (%d)", dc);
	else
		fp_ok(dc == 0, "child: nothing marked dc in default mode");
	fp_ok(write_check(&p, &a, &b, 0x60),
	      "child: RDMA WRITE from that MR, bytes checked");

	gc_fill(x, page, 0x61);
	pid = fp_spawn(FP_FORK);
	if (pid == 0)
		grandchild(x);
	fp_ok(fu_wait(pid) == 0, "child: the grandchild exited normally");
	fp_ok(write_check(&p, &a, &b, 0x62),
	      "child: its MR still moves bytes after the grandchild");
	ibv_dereg_mr(a.mr);
	fp_buf_unmap(&b);
	gc_pair_close(&p);
}

int main(void)
{
	int status;

	page = sysconf(_SC_PAGESIZE);
	if (!fu_start("fork_child_tree"))
		return gc_finish();
	/* Upstream tracks after ibv_fork_init() but reports UNNEEDED. */
	tracking = fu_legacy_mode();
	if (!gc_ok(!fp_pair_open(&parent), "parent: RC pair and MRs"))
		return gc_finish();
	if (tracking)
		gc_ok(fu_page_dontfork(parent.a.addr) == 1,
		      "parent: its MR page is marked dc");
	fp_traffic(&parent, "parent before the child", 0x10);
	status = fp_run(FP_FORK, child, NULL, "child");
	gc_ok(status == 0, "child exited normally (%d)", status);
	fp_traffic(&parent, "parent after the child", 0x20);
	if (tracking)
		gc_ok(fu_page_dontfork(parent.a.addr) == 1,
		      "parent: its MR page is still marked dc");
	fp_pair_close(&parent);
	return gc_finish();
}
