// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lib<HOSTPROV_NAME>-rdmav34.so: a provider plug-in for host tests of
 * plug-in loading over a fake sysfs tree (test_plugin_load.c).  It serves
 * every device whose ibdev name starts with HOSTPROV_MATCH ("hostprov";
 * "nomatch" for the build that serves nothing), by its own match_device(),
 * and counts the devices it allocated (hostprov_alloc_count(), found with
 * dlsym() on its handle, so two builds of this file tell which one served).
 *
 * With HOSTPROV_HOLD="NAME,E,R" in the environment, the constructor of
 * the build named NAME, the first time it runs in a memory image, writes
 * a byte to fd E and waits for one on fd R before it registers: the test
 * forks while a plug-in's constructor is running.  A constructor run again in a fork child finds
 * the count it left and registers at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_fixture.h"

/* Static: ASan takes two loaded builds' exported data for one. */
static int hostprov_allocs;
static int hostprov_ctor_runs;

FIXTURE_EXPORT int hostprov_alloc_count(void);
FIXTURE_EXPORT int hostprov_alloc_count(void)
{
	return __atomic_load_n(&hostprov_allocs, __ATOMIC_RELAXED);
}

static bool hostprov_match(struct verbs_sysfs_dev *sysfs_dev)
{
	return !strncmp(sysfs_dev->ibdev_name, HOSTPROV_MATCH,
			strlen(HOSTPROV_MATCH));
}

static struct verbs_plugin_device *
hostprov_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct verbs_plugin_device *d = calloc(1, sizeof(*d));

	(void)sysfs_dev;
	if (d)
		__atomic_add_fetch(&hostprov_allocs, 1, __ATOMIC_RELAXED);
	return d;
}

static void hostprov_uninit_device(struct verbs_plugin_device *device)
{
	free(device);
}

/* Listing needs no context: opening one fails. */
static struct verbs_context *hostprov_alloc_context(struct ibv_device *device,
						    int cmd_fd, void *priv)
{
	(void)device;
	(void)cmd_fd;
	(void)priv;
	return NULL;
}

static const struct verbs_device_ops hostprov_ops = {
	.name = HOSTPROV_NAME,
	.match_min_abi_version = 0,
	.match_max_abi_version = ~0U,
	.match_device = hostprov_match,
	.alloc_device = hostprov_alloc_device,
	.uninit_device = hostprov_uninit_device,
	.alloc_context = hostprov_alloc_context,
};

static void hold(void)
{
	const char *env = getenv("HOSTPROV_HOLD");
	int entered, release;
	char name[32], c = 0;

	if (!env ||
	    sscanf(env, "%31[^,],%d,%d", name, &entered, &release) != 3 ||
	    strcmp(name, HOSTPROV_NAME))
		return;
	if (write(entered, &c, 1) != 1 || read(release, &c, 1) != 1)
		return;
}

static void __attribute__((constructor)) hostprov_init(void)
{
	if (!hostprov_ctor_runs++)
		hold();
	VERBS_REGISTER_DRIVER(&hostprov_ops);
}
