// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libibvtest_nodev-rdmav34.so: a plug-in that registers a device ops table
 * claiming rxe devices (by driver id, as Debian's librxe does) whose
 * alloc_device always fails.  A library that tries it for rxe0 must give
 * up on this plug-in, not on the device: the next provider that matches
 * (the real rxe) must still serve it.  The counters say how often the
 * library called in, for the test's report.
 */
#include "plugin_fixture.h"

#include <rdma/ib_user_ioctl_verbs.h>

FIXTURE_EXPORT int ibvtest_nodev_constructed;
FIXTURE_EXPORT int ibvtest_nodev_alloc_calls;

static const struct verbs_match_ent nodev_table[] = {
	{ .kind = VERBS_MATCH_DRIVER_ID, .u.driver_id = RDMA_DRIVER_RXE },
	{ .kind = VERBS_MATCH_SENTINEL },
};

static struct verbs_plugin_device *
nodev_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	(void)sysfs_dev;
	__atomic_add_fetch(&ibvtest_nodev_alloc_calls, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void nodev_uninit_device(struct verbs_plugin_device *device)
{
	(void)device;
}

static const struct verbs_device_ops nodev_ops = {
	.name = "ibvtest_nodev",
	.match_min_abi_version = 0,
	.match_max_abi_version = ~0U,
	.match_table = nodev_table,
	.alloc_device = nodev_alloc_device,
	.uninit_device = nodev_uninit_device,
};

static void __attribute__((constructor)) fixture_init(void)
{
	ibvtest_nodev_constructed++;
	VERBS_REGISTER_DRIVER(&nodev_ops);
}
