/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mr_memory: how much the process grows (peak RSS, VmHWM) while it holds
 * 10,000 small memory regions, each on a page of its own with a free page
 * between neighbours, so that no two can share a tracking node.
 *
 *   mr_memory fork_init   ibv_fork_init() first: tracking on if the
 *                         library decides the kernel needs it (default);
 *   mr_memory default     no fork support asked for: the MR objects alone.
 *
 * The buffer and the MR pointer array are touched before the baseline is
 * read, so the growth is the library's own memory: its MR objects and, where
 * it tracks ranges, its tree.  The number of MRs is $BENCH_MRS (default
 * 10000), capped by the device's max_mr.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "bench_util.h"

static int register_all(struct ibv_pd *pd, char *base, long page,
			struct ibv_mr **mrs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		mrs[i] = ibv_reg_mr(pd, base + 2 * i * page, 64,
				    IBV_ACCESS_LOCAL_WRITE);
		if (!mrs[i]) {
			fprintf(stderr, "ibv_reg_mr #%d: %s\n", i,
				strerror(errno));
			while (i--)
				ibv_dereg_mr(mrs[i]);
			return -1;
		}
	}
	return 0;
}

static int measure(const char *v, struct ibv_pd *pd, int n)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)2 * n * page;
	long hwm0, hwm1, rss1, rss2;
	struct ibv_mr **mrs, *mr;
	uint64_t t0, t1, t2;
	char *base;
	int i;

	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mrs = calloc(n, sizeof(*mrs));
	if (base == MAP_FAILED || !mrs) {
		perror("allocating the buffers");
		return 1;
	}
	memset(base, 0x5a, len);
	memset(mrs, 0xff, n * sizeof(*mrs));
	/* One pair first, so lazily created library state is in the base. */
	mr = ibv_reg_mr(pd, base, 64, IBV_ACCESS_LOCAL_WRITE);
	if (!mr || ibv_dereg_mr(mr)) {
		fprintf(stderr, "ibv_reg_mr: %s\n", strerror(errno));
		return 1;
	}

	hwm0 = bench_status_kib("VmHWM");
	t0 = bench_now_ns();
	if (register_all(pd, base, page, mrs, n))
		return 1;
	t1 = bench_now_ns();
	hwm1 = bench_status_kib("VmHWM");
	rss1 = bench_status_kib("VmRSS");
	for (i = 0; i < n; i++)
		ibv_dereg_mr(mrs[i]);
	t2 = bench_now_ns();
	rss2 = bench_status_kib("VmRSS");

	printf("# VmHWM %ld -> %ld KiB; VmRSS %ld KiB held, %ld KiB after dereg\n",
	       hwm0, hwm1, rss1, rss2);
	printf("mrs.%s %d count\n", v, n);
	printf("hwm_growth.%s %ld KiB\n", v, hwm1 - hwm0);
	printf("per_mr.%s %.0f B\n", v, (double)(hwm1 - hwm0) * 1024.0 / n);
	printf("kept_after_dereg.%s %ld KiB\n", v, rss2 - hwm0);
	printf("reg_each.%s %.1f us\n", v, (double)(t1 - t0) / n / 1000.0);
	printf("dereg_each.%s %.1f us\n", v, (double)(t2 - t1) / n / 1000.0);
	free(mrs);
	munmap(base, len);
	return 0;
}

int main(int argc, char **argv)
{
	const char *variant = argc > 1 ? argv[1] : "fork_init";
	const char *s = getenv("BENCH_MRS");
	int n = s ? atoi(s) : 10000;
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int ret;

	if (strcmp(variant, "fork_init") && strcmp(variant, "default")) {
		fprintf(stderr, "usage: %s [fork_init|default]\n", argv[0]);
		return 2;
	}
	ctx = bench_start(variant);
	if (!ctx)
		return 1;
	if (!ibv_query_device(ctx, &attr) && attr.max_mr > 0 &&
	    n > attr.max_mr - 1)
		n = attr.max_mr - 1;
	if (n <= 0)
		n = 1;
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		fprintf(stderr, "ibv_alloc_pd: %s\n", strerror(errno));
		return 1;
	}
	ret = measure(variant, pd, n);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return ret;
}
