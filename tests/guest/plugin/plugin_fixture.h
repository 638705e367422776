/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the fixture plug-ins of plugin_bad share: the project's copy of the
 * provider ABI (libibverbs/provider_abi.h) and the registration entry
 * points.  The prototype is a fact of rdma-core 44's driver.h; the _33
 * one is the same entry point of the previous provider ABI.
 */
#ifndef PLUGIN_FIXTURE_H
#define PLUGIN_FIXTURE_H

#include "provider_abi.h"

/* The other releases' entry points, which provider_abi.h does not name. */
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void verbs_register_driver_65(const struct verbs_device_ops *ops);
void verbs_register_driver_33(const struct verbs_device_ops *ops);

/* Visible to plugin_bad through dlsym(): what each fixture saw. */
#define FIXTURE_EXPORT __attribute__((visibility("default")))

#endif
