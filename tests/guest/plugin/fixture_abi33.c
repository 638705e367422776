// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libibvtest_abi33-rdmav34.so: a plug-in built for the previous provider
 * ABI.  It imports verbs_register_driver_33@IBVERBS_PRIVATE_33, which no
 * rdma-core 44 library has, so dlopen() must fail and the library skip it.
 * Should a library load it anyway, its constructor registers a device ops
 * table that would claim every device, and the counter shows it ran.
 */
#include "plugin_fixture.h"

FIXTURE_EXPORT int ibvtest_abi33_constructed;

static bool abi33_match(struct verbs_sysfs_dev *sysfs_dev)
{
	(void)sysfs_dev;
	return true;
}

static struct verbs_plugin_device *
abi33_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	(void)sysfs_dev;
	return NULL;
}

static void abi33_uninit_device(struct verbs_plugin_device *device)
{
	(void)device;
}

static const struct verbs_device_ops abi33_ops = {
	.name = "ibvtest_abi33",
	.match_min_abi_version = 0,
	.match_max_abi_version = ~0U,
	.match_device = abi33_match,
	.alloc_device = abi33_alloc_device,
	.uninit_device = abi33_uninit_device,
};

static void __attribute__((constructor)) fixture_init(void)
{
	ibvtest_abi33_constructed++;
	verbs_register_driver_33(&abi33_ops);
}
