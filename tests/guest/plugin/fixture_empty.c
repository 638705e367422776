// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libibvtest_empty-rdmav34.so: a plug-in that loads fine and registers
 * nothing (its constructor runs, but never calls verbs_register_driver_34).
 * The library must take it as a plug-in without devices.  It imports the
 * registration entry all the same, as a plug-in that decided at run time
 * not to register would.
 */
#include "plugin_fixture.h"

FIXTURE_EXPORT int ibvtest_empty_constructed;
FIXTURE_EXPORT void (*ibvtest_empty_register)(const struct verbs_device_ops *) =
	VERBS_REGISTER_DRIVER;

static void __attribute__((constructor)) fixture_init(void)
{
	ibvtest_empty_constructed++;
}
