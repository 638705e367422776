// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lib<HOSTPROV_NAME>-rdmav34.so: a provider plug-in for host tests of
 * plug-in loading over a fake sysfs tree (test_plugin_load.c).  It serves
 * every device whose ibdev name starts with "hostprov", by its own
 * match_device(), and counts the devices it allocated (read with dlsym()
 * on its handle, so two builds of this file tell which one served).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_fixture.h"

FIXTURE_EXPORT int hostprov_allocs;

static bool hostprov_match(struct verbs_sysfs_dev *sysfs_dev)
{
	return !strncmp(sysfs_dev->ibdev_name, "hostprov", 8);
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
static struct verbs_context *
hostprov_alloc_context(struct ibv_device *device, int cmd_fd, void *priv)
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

static void __attribute__((constructor)) hostprov_init(void)
{
	verbs_register_driver_34(&hostprov_ops);
}
