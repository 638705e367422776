// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_plugin_dlopen EXPECTED_LIBIBVERBS PLUGIN_DIR [MIN_PLUGINS DV_LIB...]
 *
 * Loads every provider plug-in of PLUGIN_DIR (lib*-rdmav34.so, Debian's
 * ibverbs-providers) and the direct-verbs libraries that programs link
 * against (libmlx5.so.1, libefa.so.1, libmana.so.1, libmlx4.so.1, or the
 * DV_LIBs given) with dlopen(RTLD_NOW), in a process whose libibverbs.so.1
 * must be EXPECTED_LIBIBVERBS (the project's, or Debian's to prove the
 * test).  PLUGIN_DIR must hold at least MIN_PLUGINS (default 17, as
 * ibverbs-providers 44 has).
 * RTLD_NOW binds every symbol a plug-in imports at once, so a plug-in that
 * needs an IBVERBS_PRIVATE_34 symbol or version the library lacks fails
 * here with the loader's own message, as it would in a user's program.
 *
 * Exit status 77 (skip) when ibverbs-providers is not installed, unless
 * CI=true: CI installs it, so there its absence is a failure.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fnmatch.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "tap.h"

/* What programs link directly (e.g. perftest: libmlx5 and libefa). */
static const char *const default_dv_libs[] = {
	"libmlx5.so.1",
	"libefa.so.1",
	"libmana.so.1",
	"libmlx4.so.1",
};

struct mapped {
	char path[PATH_MAX];
	int count;
};

static int find_libibverbs(struct dl_phdr_info *info, size_t size, void *data)
{
	struct mapped *m = data;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, "libibverbs.so", 13) != 0)
		return 0;
	m->count++;
	if (!realpath(info->dlpi_name, m->path))
		snprintf(m->path, sizeof(m->path), "%s", info->dlpi_name);
	return 0;
}

/* Exactly one libibverbs in the process, and it is @want. */
static void check_mapped(const char *want, const char *when)
{
	char want_real[PATH_MAX];
	struct mapped m = { .count = 0 };

	if (!realpath(want, want_real)) {
		CHECK(0, "expected library %s exists (%s)", want, when);
		return;
	}
	dl_iterate_phdr(find_libibverbs, &m);
	CHECK(m.count == 1 && strcmp(m.path, want_real) == 0,
	      "%s: the one libibverbs mapped is %s (found %d, last %s)", when,
	      want_real, m.count, m.count ? m.path : "none");
}

static int load(const char *name)
{
	void *h;

	dlerror();
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	/* Kept open: a plug-in is never unloaded by the library either. */
	return CHECK(h != NULL, "dlopen(%s, RTLD_NOW): %s", name,
		     h ? "loaded" : dlerror());
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int plugin_filter(const struct dirent *d)
{
	return fnmatch("lib*" IBV_TEST_PROVIDER_SUFFIX, d->d_name, 0) == 0;
}

int main(int argc, char **argv)
{
	const char *const *dv_libs = default_dv_libs;
	size_t i, n_dv = sizeof(default_dv_libs) / sizeof(default_dv_libs[0]);
	struct ibv_device **list;
	struct dirent **ents;
	char path[PATH_MAX];
	int n, min = 17;

	if (argc < 3) {
		fprintf(stderr,
			"usage: %s EXPECTED_LIBIBVERBS PLUGIN_DIR "
			"[MIN_PLUGINS DV_LIB...]\n",
			argv[0]);
		return 2;
	}
	if (argc > 3)
		min = atoi(argv[3]);
	if (argc > 4) {
		dv_libs = (const char *const *)&argv[4];
		n_dv = (size_t)(argc - 4);
	}
	/*
	 * The library must be in use before any plug-in comes in.  Without
	 * an RDMA device upstream's returns NULL here, which its
	 * ibv_free_device_list() does not take.
	 */
	list = ibv_get_device_list(NULL);
	if (list)
		ibv_free_device_list(list);
	check_mapped(argv[1], "before loading");

	n = scandir(argv[2], &ents, plugin_filter, by_name);
	if (n <= 0) {
		const char *ci = getenv("CI");

		printf("# SKIP no provider plug-ins in %s: %s "
		       "(Debian package ibverbs-providers; buildlib/install-deps)\n",
		       argv[2], n < 0 ? "cannot read it" : "empty");
		if (ci && strcmp(ci, "true") == 0) {
			CHECK(0,
			      "CI=true: ibverbs-providers must be installed");
			return tap_done();
		}
		return 77;
	}
	/* Debian's ibverbs-providers 44 ships 17; fewer means a broken install. */
	CHECK(n >= min, "%d plug-ins in %s (at least %d)", n, argv[2], min);
	for (i = 0; i < (size_t)n; i++) {
		snprintf(path, sizeof(path), "%s/%s", argv[2], ents[i]->d_name);
		load(path);
		free(ents[i]);
	}
	free(ents);

	for (i = 0; i < n_dv; i++)
		load(dv_libs[i]);

	/* No plug-in brought a second libibverbs with it. */
	check_mapped(argv[1], "after loading");
	return tap_done();
}
