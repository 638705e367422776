/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * reg_dereg: what an ibv_reg_mr() + ibv_dereg_mr() pair costs, for a 4 KiB
 * and a 1 MiB buffer, in one of three set-ups:
 *
 *   default    nothing asked of fork support;
 *   env        RDMAV_FORK_SAFE=1 in the environment (set here, before the
 *              first verbs call, which is where libraries read it);
 *   fork_init  ibv_fork_init() called after ibv_get_device_list(), as
 *              libfabric-like users do at init.
 *
 * With a kernel that copies pinned pages on fork the last two need no
 * range tracking at all, so they should cost what the default costs.  A
 * library that tracks anyway pays two madvise() calls and a tree update
 * per pair.  The same buffer is registered again and again, so each pair
 * takes its pages from zero users to one and back: the tracking work is
 * done in full every time.  The figure is the median pair.
 */
#include <sys/mman.h>

#include "bench_util.h"

#define MR_ACCESS                                          \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
	 IBV_ACCESS_REMOTE_WRITE)

static double bench_seconds(void)
{
	const char *s = getenv("BENCH_SECONDS");
	double v = s ? strtod(s, NULL) : 0.0;

	return v > 0.0 ? v : 0.5;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

#define MAX_PAIRS 100000

/*
 * Median time of one pair in ns, or a negative value if a verb failed.
 * The median rather than the mean: the guest is emulated and shares the
 * host's CPUs, and a pair that was preempted says nothing about the library.
 */
static double time_pairs(struct ibv_pd *pd, void *buf, size_t len)
{
	static uint32_t ns[MAX_PAIRS];
	uint64_t budget = (uint64_t)(bench_seconds() * 1e9);
	uint64_t t0, t1, elapsed = 0;
	struct ibv_mr *mr;
	int i, pairs = 0;

	/* Warm-up: first-touch effects in the library and the kernel. */
	for (i = 0; i < 3; i++) {
		mr = ibv_reg_mr(pd, buf, len, MR_ACCESS);
		if (!mr || ibv_dereg_mr(mr))
			goto fail;
	}
	while ((elapsed < budget || pairs < 11) && pairs < MAX_PAIRS) {
		t0 = bench_now_ns();
		mr = ibv_reg_mr(pd, buf, len, MR_ACCESS);
		if (!mr || ibv_dereg_mr(mr))
			goto fail;
		t1 = bench_now_ns();
		ns[pairs++] = t1 - t0 > UINT32_MAX ? UINT32_MAX : t1 - t0;
		elapsed += t1 - t0;
	}
	qsort(ns, pairs, sizeof(ns[0]), cmp_u32);
	printf("# %zu bytes: %d pairs, mean %.1f us\n", len, pairs,
	       (double)elapsed / pairs / 1000.0);
	return ns[pairs / 2];
fail:
	fprintf(stderr, "reg/dereg of %zu bytes: %s\n", len, strerror(errno));
	return -1.0;
}

static int run(const char *variant, struct ibv_pd *pd)
{
	static const struct {
		const char *name;
		size_t len;
	} sizes[] = { { "4k", 4096 }, { "1m", 1 << 20 } };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len = sizes[i].len;
		void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double ns;

		if (buf == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		/* Resident before timing: pinning should not fault pages in. */
		memset(buf, 0x5a, len);
		ns = time_pairs(pd, buf, len);
		munmap(buf, len);
		if (ns < 0)
			return 1;
		printf("reg_dereg_%s.%s %.1f us\n", sizes[i].name, variant,
		       ns / 1000.0);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *variant = argc > 1 ? argv[1] : "default";
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int ret;

	if (!strcmp(variant, "env")) {
		setenv("RDMAV_FORK_SAFE", "1", 1);
	} else if (strcmp(variant, "default") && strcmp(variant, "fork_init")) {
		fprintf(stderr, "usage: %s [default|env|fork_init]\n", argv[0]);
		return 2;
	}
	ctx = bench_start(variant);
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		fprintf(stderr, "ibv_alloc_pd: %s\n", strerror(errno));
		return 1;
	}
	ret = run(variant, pd);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return ret;
}
