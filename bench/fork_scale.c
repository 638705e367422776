/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fork_scale: the legacy fork support with many ranges.
 *
 * After ibv_fork_init(), a library that tracks (ours with
 * RDMAV_COPY_ON_FORK=0, Debian's always) marks every registered range
 * MADV_DONTFORK and counts it in a tree.  Here the tree grows to
 * $BENCH_SCALE_MRS live MRs (default 100000, capped by the device's
 * max_mr), each on a page of its own with a free page between two
 * neighbours, so every MR is a range of its own (and a VMA of its own:
 * bench/run raises vm.max_map_count in the guest).  At each power of ten
 * on the way:
 *
 *   reg_each.N     mean time of one ibv_reg_mr() while growing to N (us)
 *   fork.N         the parent's fork() call with N live MRs (us)
 *   fork_reap.N    fork() until the child (which exits at once) is
 *                  reaped (us)
 *
 * then, with every MR live:
 *
 *   reg_dereg_live.N  one more register + deregister pair (us)
 *   dereg_each.N      mean time of one ibv_dereg_mr() emptying the tree
 *
 * and overlapping ranges, where the counts of the tree matter: M MRs of 8
 * pages each, MR i starting at page i, so most pages are in 8 MRs:
 *
 *   reg_each.overlap, fork.overlap, dereg_each.overlap
 *
 * A library that does not track (ours on a kernel that copies pinned
 * pages on fork) shows what fork() costs when the kernel copies them
 * instead.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define OVERLAP_PAGES 8

static long page;

/* MemAvailable of /proc/meminfo, in bytes; -1 if unknown. */
static long long mem_available(void)
{
	char line[256];
	long long kib = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib < 0 ? -1 : kib * 1024;
}

/*
 * Is the page at @addr marked MADV_DONTFORK ("dc" in its VMA's VmFlags)?
 * That is what tracking does, whatever ibv_is_fork_initialized() says:
 * Debian's 44 reports "unneeded" on a copying kernel even after
 * ibv_fork_init() started its tree.
 */
static bool marked_dontfork(const void *addr)
{
	char line[512];
	unsigned long lo, hi, a = (unsigned long)addr;
	bool in = false, dc = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			dc = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	return dc;
}

/*
 * Where nothing is tracked the kernel copies every pinned page into the
 * child at fork(): with N pages pinned, the child needs N pages more.  A
 * fork that would not fit is not tried (the guest is small; the OOM killer
 * would end the run), and its rows say so.
 */
static bool fork_fits(const char *base, int live)
{
	long long avail = mem_available();

	if (marked_dontfork(base) || avail < 0)
		return true;
	return (long long)live * page * 3 < avail;
}

static int fork_once(uint64_t *in_fork, uint64_t *to_reap)
{
	uint64_t t0, t1;
	pid_t pid;
	int st;

	fflush(stdout);
	t0 = bench_now_ns();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return -1;
	}
	if (!pid)
		_exit(0);
	t1 = bench_now_ns();
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) {
		fprintf(stderr, "the child did not exit cleanly\n");
		return -1;
	}
	*in_fork = t1 - t0;
	*to_reap = bench_now_ns() - t0;
	return 0;
}

static int reg_range(struct ibv_pd *pd, char *addr, size_t len,
		     struct ibv_mr **mr)
{
	*mr = ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE);
	if (!*mr) {
		fprintf(stderr, "ibv_reg_mr: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int dereg_all(struct ibv_mr **mrs, int n)
{
	int i, ret = 0;

	for (i = 0; i < n; i++)
		if (ibv_dereg_mr(mrs[i]))
			ret = -1;
	return ret;
}

static int grow(struct ibv_pd *pd, char *base, struct ibv_mr **mrs, int n)
{
	uint64_t t0, in_fork, to_reap;
	int live = 0, step, i;
	struct ibv_mr *extra;

	for (step = 100; live < n; step *= 10) {
		int to = step < n ? step : n;

		t0 = bench_now_ns();
		for (i = live; i < to; i++)
			if (reg_range(pd, base + 2 * i * page, 64, &mrs[i]))
				goto fail;
		printf("reg_each.%d %.1f us\n", to,
		       (double)(bench_now_ns() - t0) / (to - live) / 1e3);
		live = to;
		if (!fork_fits(base, live)) {
			printf("# fork with %d pinned pages would not fit in "
			       "memory: not tried\n", live);
			printf("fork.%d no-memory us\n", to);
			printf("fork_reap.%d no-memory us\n", to);
			continue;
		}
		if (fork_once(&in_fork, &to_reap))
			goto fail;
		printf("fork.%d %.0f us\n", to, in_fork / 1e3);
		printf("fork_reap.%d %.0f us\n", to, to_reap / 1e3);
	}
	/* One more pair next to the others, the tree at its largest. */
	t0 = bench_now_ns();
	for (i = 0; i < 100; i++) {
		if (reg_range(pd, base + 2 * n * page, 64, &extra))
			goto fail;
		ibv_dereg_mr(extra);
	}
	printf("reg_dereg_live.%d %.1f us\n", n,
	       (double)(bench_now_ns() - t0) / 100 / 1e3);
	t0 = bench_now_ns();
	if (dereg_all(mrs, n))
		return -1;
	printf("dereg_each.%d %.1f us\n", n,
	       (double)(bench_now_ns() - t0) / n / 1e3);
	return 0;
fail:
	fprintf(stderr, "at %d live MRs\n", i);
	dereg_all(mrs, i);
	return -1;
}

static int overlap(struct ibv_pd *pd, char *base, struct ibv_mr **mrs, int m)
{
	uint64_t t0, in_fork, to_reap;
	int i;

	t0 = bench_now_ns();
	for (i = 0; i < m; i++)
		if (reg_range(pd, base + i * page, OVERLAP_PAGES * page,
			      &mrs[i])) {
			dereg_all(mrs, i);
			return -1;
		}
	printf("reg_each.overlap %.1f us\n",
	       (double)(bench_now_ns() - t0) / m / 1e3);
	if (fork_once(&in_fork, &to_reap)) {
		dereg_all(mrs, m);
		return -1;
	}
	printf("fork.overlap %.0f us\n", in_fork / 1e3);
	t0 = bench_now_ns();
	if (dereg_all(mrs, m))
		return -1;
	printf("dereg_each.overlap %.1f us\n",
	       (double)(bench_now_ns() - t0) / m / 1e3);
	printf("mrs.overlap %d count\n", m);
	return 0;
}

int main(void)
{
	const char *s = getenv("BENCH_SCALE_MRS");
	int n = s ? atoi(s) : 100000, m;
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_mr **mrs;
	struct ibv_pd *pd;
	size_t len;
	char *base;
	int ret;

	page = sysconf(_SC_PAGESIZE);
	ctx = bench_start("fork_init");
	if (!ctx)
		return 1;
	/* Room for the PD's own objects and the extra pair. */
	if (!ibv_query_device(ctx, &attr) && attr.max_mr > 8 &&
	    n > attr.max_mr - 8)
		n = attr.max_mr - 8;
	if (n < 1)
		n = 1;
	m = n / 10 < 10000 ? n / 10 : 10000;
	if (m < 1)
		m = 1;
	pd = ibv_alloc_pd(ctx);
	len = (size_t)(2 * n + 2) * page;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mrs = calloc(n, sizeof(*mrs));
	if (!pd || base == MAP_FAILED || !mrs) {
		fprintf(stderr, "setting up: %s\n", strerror(errno));
		return 1;
	}
	/* Fault in the pages MRs will use: the loops time the library. */
	for (size_t i = 0; i < (size_t)2 * n + 2; i++)
		if (!(i & 1) || i < (size_t)m + OVERLAP_PAGES)
			base[i * page] = 1;
	printf("mrs %d count\n", n);
	ret = grow(pd, base, mrs, n);
	if (!ret)
		ret = overlap(pd, base, mrs, m);
	free(mrs);
	munmap(base, len);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return ret ? 1 : 0;
}
