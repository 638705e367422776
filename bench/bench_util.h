/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers shared by the benchmarks: opening the device, a monotonic clock,
 * reading /proc/self/status and naming the libibverbs.so.1 that the dynamic
 * linker picked, so that every result line can be traced to the library
 * that produced it.
 *
 * Output protocol (bench/run parses it): lines starting with '#' are for
 * people; every other line is "METRIC VALUE UNIT", one result per line.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The path of the libibverbs.so.1 mapped into this process. */
static inline void bench_print_library(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (path && strstr(path, "libibverbs.so")) {
			path[strcspn(path, "\n")] = '\0';
			printf("# library: %s\n", path);
			break;
		}
	}
	fclose(f);
}

/*
 * An address inside the provider that serves @ctx, for dladdr(): its
 * device ops (rdma-core's struct verbs_device, with which every
 * provider's device starts, has them right after the struct ibv_device),
 * or @fallback where the library leaves them unset.  Not a function
 * pointer of an object: the library wraps every one of those, so they
 * would name the library whichever provider serves.
 */
static inline const void *bench_provider_probe(struct ibv_context *ctx,
					       const void *fallback)
{
	const struct {
		struct ibv_device device;
		const void *ops;
	} *vdev = (const void *)ctx->device;

	return vdev->ops ? vdev->ops : fallback;
}

/* A "Vm...:" line of /proc/self/status, in KiB; -1 if absent. */
static inline long bench_status_kib(const char *field)
{
	char line[256];
	size_t len = strlen(field);
	long val = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, len) && line[len] == ':') {
			val = strtol(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

/*
 * Open the device called @name; with @or_first, the first device if none
 * is, so the programs also run on other hardware.
 */
static inline struct ibv_context *bench_open_named(const char *name,
						   bool or_first)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "ibv_get_device_list: %s\n", strerror(errno));
		return NULL;
	}
	for (i = 0; i < n && !dev; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			dev = list[i];
	if (!dev && or_first && n > 0)
		dev = list[0];
	if (!dev) {
		fprintf(stderr, "no RDMA device %s\n", name);
		ibv_free_device_list(list);
		return NULL;
	}
	ctx = ibv_open_device(dev);
	if (!ctx)
		fprintf(stderr, "ibv_open_device(%s): %s\n",
			ibv_get_device_name(dev), strerror(errno));
	ibv_free_device_list(list);
	return ctx;
}

/* The device named by $BENCH_DEVICE (default rxe0), or the first one. */
static inline struct ibv_context *bench_open_device(void)
{
	const char *want = getenv("BENCH_DEVICE");
	struct ibv_context *ctx;

	ctx = bench_open_named(want && *want ? want : "rxe0", true);
	if (ctx)
		printf("# device: %s\n", ibv_get_device_name(ctx->device));
	return ctx;
}

static inline const char *bench_fork_status_name(enum ibv_fork_status s)
{
	switch (s) {
	case IBV_FORK_DISABLED:
		return "disabled";
	case IBV_FORK_ENABLED:
		return "enabled";
	case IBV_FORK_UNNEEDED:
		return "unneeded";
	}
	return "unknown";
}

/*
 * Open the device, say which library runs, and apply the variant's fork
 * set-up: "fork_init" calls ibv_fork_init() as libfabric would.  Prints
 * the resulting fork status; NULL on failure.
 */
static inline struct ibv_context *bench_start(const char *variant)
{
	struct ibv_context *ctx = bench_open_device();
	int ret;

	if (!ctx)
		return NULL;
	bench_print_library();
	if (!strcmp(variant, "fork_init")) {
		ret = ibv_fork_init();
		printf("# ibv_fork_init() = %d\n", ret);
		if (ret) {
			fprintf(stderr, "ibv_fork_init: %s\n", strerror(ret));
			return NULL;
		}
	}
	printf("# fork status: %s\n",
	       bench_fork_status_name(ibv_is_fork_initialized()));
	return ctx;
}

#endif /* BENCH_UTIL_H */
