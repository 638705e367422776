/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fork_status: what one ibv_is_fork_initialized() call costs.
 *
 * libfabric-like users ask at init and may ask again on every fork()
 * handler or MR cache decision, so the per-call price matters.  Once the
 * kernel's answer is known it cannot change for the life of the process,
 * so after the first call the answer should cost a memory load; a library
 * that asks the kernel over netlink each time pays a socket round trip.
 *
 * The first call is timed on its own.  Then a batch size is found that
 * takes at least 1/20 of BENCH_SECONDS (default 0.5), and 20 batches of it
 * are timed; the median batch gives the per-call figure, so that a batch
 * slowed by the host (the guest is emulated and shares its CPUs) does not
 * count.
 */
#include "bench_util.h"

static double bench_seconds(void)
{
	const char *s = getenv("BENCH_SECONDS");
	double v = s ? strtod(s, NULL) : 0.0;

	return v > 0.0 ? v : 0.5;
}

static uint64_t time_batch(uint64_t calls)
{
	enum ibv_fork_status st;
	uint64_t i, t0 = bench_now_ns();

	for (i = 0; i < calls; i++) {
		st = ibv_is_fork_initialized();
		/* Keep the compiler from hoisting the call out of the loop. */
		__asm__ __volatile__("" : : "r"(st) : "memory");
	}
	return bench_now_ns() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define BATCHES 20

int main(void)
{
	uint64_t slice = (uint64_t)(bench_seconds() * 1e9) / BATCHES;
	uint64_t t0, t1, batch = 1, ns[BATCHES];
	struct ibv_device **list;
	enum ibv_fork_status first;
	int i, n;

	/* Initialise the library the way an application would first. */
	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	bench_print_library();

	t0 = bench_now_ns();
	first = ibv_is_fork_initialized();
	t1 = bench_now_ns();
	printf("# status: %s\n", bench_fork_status_name(first));
	printf("status %s -\n", bench_fork_status_name(first));
	printf("first_call %.0f ns\n", (double)(t1 - t0));

	while (time_batch(batch) < slice && batch < (1ull << 32))
		batch *= 2;
	for (i = 0; i < BATCHES; i++)
		ns[i] = time_batch(batch);
	qsort(ns, BATCHES, sizeof(ns[0]), cmp_u64);
	printf("# %d batches of %llu calls\n", BATCHES,
	       (unsigned long long)batch);
	printf("per_call %.1f ns\n", (double)ns[BATCHES / 2] / (double)batch);
	return 0;
}
