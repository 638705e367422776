// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The parent's MRs stay valid across fork().
 *
 * MRs of several shapes are registered on rxe0 (side a) and rxe1 (side b),
 * then the process forks.  While the child lives, and again after it has
 * exited, the parent writes new bytes into its memory and the device moves
 * them: RDMA WRITE from a's MR into b's, RDMA READ back into a's, and
 * SEND/RECV -- every byte checked.  Had the parent lost a page to the
 * child's copy-on-write, the device would move stale bytes.  The 2 MiB
 * region has a QP pair of its own, and a region whose transfer failed is
 * not driven again (each would wait out a timeout on a QP in error), so a
 * kernel that breaks one kind of memory costs only that kind's checks.
 *
 * Every transfer moves at most PIECE bytes per work request, one request
 * at a time.  A 2 MiB RDMA READ makes rxe send its 2048 response packets
 * (1 KiB MTU) in one burst; when the guest's CPUs are slow, rxe in 5.10
 * fails to send some ("rdma_rxe: Failed sending RDMA reply" in dmesg),
 * does not recover, and the READ and the QP fail, on Debian's library as
 * on ours.  That is the burst, not the memory: an anonymous 2 MiB region
 * fails the same way, and 64 KiB pieces pass on both.  The pieces still
 * cover every byte of each MR.
 *
 * Data alone proves nothing about legacy mode: the 6.1 kernel copies
 * pinned pages at fork() whatever the library does.  So every MR must also
 * be MADV_DONTFORK in /proc/self/smaps in legacy mode (and not in the
 * default mode).  The 2 MiB region is skipped only when the guest has no
 * huge page to give (mmap fails with ENOMEM), and after fork() in the
 * default mode on a kernel that does not copy pinned hugetlb pages
 * (before 5.12, see fork_util.h); any other failure fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fork_util.h"

#define HUGE_SIZE (2UL << 20)

struct region {
	const char *what;
	size_t map_len;
	size_t offset;	/* where the MR starts inside the mapping */
	size_t len;	/* MR length */
	bool huge;
	bool broken;	/* a transfer failed: its QP may be in error */
	struct gc_pair *pair;
	uint8_t *map[2];
	struct gc_buf buf[2];	/* side a and side b */
};

static struct region regions[] = {
	{ .what = "sub-page, unaligned", .map_len = 4096, .offset = 13,
	  .len = 100 },
	{ .what = "unaligned, spanning pages", .map_len = 4 * 4096,
	  .offset = 1000, .len = 3 * 4096 + 100 },
	{ .what = "multi-page, aligned", .map_len = 16 * 4096, .len = 16 * 4096 },
	{ .what = "2 MiB huge page", .map_len = HUGE_SIZE, .len = HUGE_SIZE,
	  .huge = true },
};

#define NREGIONS (sizeof(regions) / sizeof(regions[0]))

static uint8_t *map_region(struct region *r)
{
	return r->huge ? fu_map_huge(NULL, r->map_len) : fu_map(r->map_len);
}

/* 0, or -1 with errno set; ENOMEM from mmap() alone means "no memory". */
static int setup_region(struct region *r, struct gc_pair *p, bool *no_mem)
{
	struct gc_dev *dev[2] = { &p->a, &p->b };
	int i;

	*no_mem = false;
	for (i = 0; i < 2; i++) {
		r->map[i] = map_region(r);
		if (!r->map[i]) {
			*no_mem = errno == ENOMEM;
			return -1;
		}
		r->buf[i].addr = r->map[i] + r->offset;
		r->buf[i].len = r->len;
		gc_fill(r->buf[i].addr, r->len, (uint8_t)i);
		r->buf[i].mr = ibv_reg_mr(dev[i]->pd, r->buf[i].addr, r->len,
					  GC_ACCESS_ALL);
		if (!r->buf[i].mr)
			return -1;
	}
	return 0;
}

static void teardown_region(struct region *r)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (r->buf[i].mr)
			ibv_dereg_mr(r->buf[i].mr);
		if (r->map[i])
			munmap(r->map[i], r->map_len);
	}
}

#define PIECE (64UL << 10)

/* One signaled op on qp and its completion on cq. */
static bool complete(struct ibv_cq *cq, uint64_t wr_id)
{
	struct ibv_wc wc;

	return gc_poll(cq, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	       wc.status == IBV_WC_SUCCESS && wc.wr_id == wr_id;
}

/* @op from a's MR to b's (READ: from b's into a's), PIECE at a time. */
static bool rdma(struct gc_pair *p, struct region *r, enum ibv_wr_opcode op,
		 uint64_t wr_id)
{
	struct gc_buf *a = &r->buf[0], *b = &r->buf[1];
	size_t off, n;

	for (off = 0; off < r->len; off += n) {
		n = r->len - off < PIECE ? r->len - off : PIECE;
		if (gc_post_send(p->qp_a, op, a, off, n, wr_id,
				 IBV_SEND_SIGNALED, (uintptr_t)b->addr + off,
				 b->mr->rkey) ||
		    !complete(p->cq_a, wr_id))
			return false;
	}
	return !memcmp(a->addr, b->addr, r->len);
}

static bool rdma_write(struct gc_pair *p, struct region *r)
{
	return rdma(p, r, IBV_WR_RDMA_WRITE, 1);
}

static bool rdma_read(struct gc_pair *p, struct region *r)
{
	return rdma(p, r, IBV_WR_RDMA_READ, 2);
}

static bool send_recv(struct gc_pair *p, struct region *r)
{
	struct gc_buf *a = &r->buf[0], *b = &r->buf[1];
	size_t off, n;

	for (off = 0; off < r->len; off += n) {
		n = r->len - off < PIECE ? r->len - off : PIECE;
		if (gc_post_recv(p->qp_b, b, off, n, 3) ||
		    gc_post_send(p->qp_a, IBV_WR_SEND, a, off, n, 4,
				 IBV_SEND_SIGNALED, 0, 0) ||
		    !complete(p->cq_a, 4) || !complete(p->cq_b, 3))
			return false;
	}
	return !memcmp(a->addr, b->addr, r->len);
}

/*
 * Whether the parent's MR on @r can stay valid once the process forked:
 * a kernel before 5.12 does not copy pinned hugetlb pages into the child,
 * so without tracking (MADV_DONTFORK, legacy mode) the parent's next write
 * moves it to a new page the MR does not point at.  That is the kernel's
 * documented behaviour, not the library's to fix: said, not tested.
 */
static bool kept_across_fork(const struct region *r)
{
	return !r->huge || fu_kernel_copies_hugetlb() || fu_legacy_mode();
}

/* New bytes from the parent, moved every way, checked byte for byte. */
static void traffic(const char *when, uint8_t seed, bool forked)
{
	struct gc_pair *p;
	struct region *r;
	size_t i;

	for (i = 0; i < NREGIONS; i++) {
		r = &regions[i];
		p = r->pair;
		if (!r->buf[0].mr)
			continue;
		if (r->broken) {
			/* Its QP pair is likely in error: no 20 s waits. */
			gc_ok(false, "%s: %s: not run, a transfer on it failed "
				     "before", when, r->what);
			continue;
		}
		if (forked && !kept_across_fork(r)) {
			gc_skip("%s: %s: this kernel copies no pinned hugetlb "
				"page on fork (5.12 and later do), and "
				"nothing tracks it in this mode",
				when, r->what);
			continue;
		}
		gc_fill(r->buf[0].addr, r->len, seed);
		r->broken |= !gc_ok(rdma_write(p, r),
				    "%s: RDMA WRITE from parent MR (%s)", when,
				    r->what);
		gc_fill(r->buf[1].addr, r->len, seed + 1);
		r->broken |= !gc_ok(rdma_read(p, r),
				    "%s: RDMA READ into parent MR (%s)", when,
				    r->what);
		gc_fill(r->buf[0].addr, r->len, seed + 2);
		r->broken |= !gc_ok(send_recv(p, r),
				    "%s: SEND/RECV from parent MR (%s)", when,
				    r->what);
	}
}

int main(void)
{
	struct gc_qp_caps caps = { .max_send_wr = 16, .max_recv_wr = 16 };
	/* The huge page has a QP pair of its own: see traffic(). */
	struct gc_pair p, hp;
	int go[2], status;
	size_t i;
	pid_t pid;
	char c;

	if (!fu_start("fork_mr_valid"))
		return gc_finish();
	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_RC, &caps) &&
			   !gc_pair_open(&hp, IBV_QPT_RC, &caps),
		   "RC pairs rxe0-rxe1"))
		return gc_finish();
	for (i = 0; i < NREGIONS; i++) {
		struct region *r = &regions[i];
		bool no_mem;

		r->pair = r->huge ? &hp : &p;
		if (setup_region(r, r->pair, &no_mem)) {
			if (r->huge && no_mem)
				gc_skip("no huge page in this guest");
			else
				gc_ok(false, "register %s: %s", r->what,
				      strerror(errno));
			teardown_region(r);
			memset(r->buf, 0, sizeof(r->buf));
			memset(r->map, 0, sizeof(r->map));
			continue;
		}
		gc_ok(fu_marked_as_mode(r->buf[0].addr, r->len) &&
			      fu_marked_as_mode(r->buf[1].addr, r->len),
		      "%s: both MRs %s", r->what,
		      fu_legacy_mode() ? "MADV_DONTFORK (smaps dc)" :
					 "not MADV_DONTFORK");
	}
	traffic("before fork", 10, false);

	if (pipe(go))
		return 1;
	pid = fork();
	if (pid == 0) {
		/* The child only waits: it is there to share the pages. */
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	traffic("child alive", 20, true);
	close(go[1]);
	status = fu_wait(pid);
	gc_ok(status == 0, "child exited cleanly (%d)", status);
	traffic("child gone", 30, true);

	/* A second generation: a child of a parent that forked before. */
	pid = fork();
	if (pid == 0)
		_exit(0);
	gc_ok(fu_wait(pid) == 0, "second child exited cleanly");
	traffic("after second fork", 40, true);

	for (i = 0; i < NREGIONS; i++)
		teardown_region(&regions[i]);
	gc_pair_close(&p);
	gc_pair_close(&hp);
	return gc_finish();
}
