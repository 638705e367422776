// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Link-time stand-in for libibverbs.so.1, used only to link the fixture
 * plug-ins of plugin_bad (never loaded: no fixture has a RUNPATH, and the
 * process that loads a fixture already has its real libibverbs.so.1).
 * It gives the fixtures versioned imports, as Debian's plug-ins have them:
 * verbs_register_driver_34@IBVERBS_PRIVATE_34 (_65@IBVERBS_PRIVATE_65 in a
 * build for rdma-core 65) for a plug-in of the right ABI,
 * verbs_register_driver_33@IBVERBS_PRIVATE_33 for one built for the
 * previous provider ABI (rdma-core 33..43's IBVERBS_PRIVATE_33 node), which
 * the loader must refuse.  See abi_stub.map.
 */
#include "plugin_fixture.h"

void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	(void)ops;
}

void verbs_register_driver_65(const struct verbs_device_ops *ops)
{
	(void)ops;
}

void verbs_register_driver_33(const struct verbs_device_ops *ops)
{
	(void)ops;
}
