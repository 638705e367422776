// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Devices and their providers: which provider matches a device and the
 * device struct it allocates.  The built-in providers are matched the
 * same way as the plug-ins, and before them.
 *
 * Matching follows rdma-core 44 (facts from its libibverbs/init.c): a
 * plug-in's match table is tried by driver id (from netlink), then by the
 * device's name as the modalias "rdma_device:N<ibdev>", then by the
 * modalias of the device's parent (PCI vendor and device, or a glob); a
 * plug-in's match_device(), if any, then decides, else a table entry must
 * have matched; last, the device's uverbs ABI version must be in the
 * plug-in's range.  Plug-ins with a driver id entry for the device are
 * tried before all others.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs.h"

static bool match_alias(const struct verbs_match_ent *e, const char *alias)
{
	char pci[64];

	switch (e->kind) {
	case VERBS_MATCH_MODALIAS:
		return e->u.modalias && !fnmatch(e->u.modalias, alias, 0);
	case VERBS_MATCH_PCI:
		snprintf(pci, sizeof(pci), "pci:v%08Xd%08Xsv*", e->vendor,
			 e->device);
		return !fnmatch(pci, alias, 0);
	default:
		return false;
	}
}

static const struct verbs_match_ent *
match_table_alias(const struct verbs_device_ops *ops, const char *alias)
{
	const struct verbs_match_ent *e;

	for (e = ops->match_table; e->kind != VERBS_MATCH_SENTINEL; e++)
		if (match_alias(e, alias))
			return e;
	return NULL;
}

static const struct verbs_match_ent *
match_driver_id(const struct verbs_device_ops *ops,
		const struct verbs_sysfs_dev *s)
{
	const struct verbs_match_ent *e;

	if (!ops->match_table || s->driver_id == RDMA_DRIVER_UNKNOWN)
		return NULL;
	for (e = ops->match_table; e->kind != VERBS_MATCH_SENTINEL; e++)
		if (e->kind == VERBS_MATCH_DRIVER_ID &&
		    e->u.driver_id == s->driver_id)
			return e;
	return NULL;
}

static const struct verbs_match_ent *
match_name(const struct verbs_device_ops *ops, const struct verbs_sysfs_dev *s)
{
	char alias[IBV_SYSFS_NAME_MAX + 16];

	snprintf(alias, sizeof(alias), "rdma_device:N%s", s->ibdev_name);
	return match_table_alias(ops, alias);
}

static enum ibv_transport_type verbs_transport_of(enum ibv_node_type type)
{
	switch (type) {
	case IBV_NODE_CA:
	case IBV_NODE_SWITCH:
	case IBV_NODE_ROUTER:
		return IBV_TRANSPORT_IB;
	case IBV_NODE_RNIC:
		return IBV_TRANSPORT_IWARP;
	case IBV_NODE_USNIC:
		return IBV_TRANSPORT_USNIC;
	case IBV_NODE_USNIC_UDP:
		return IBV_TRANSPORT_USNIC_UDP;
	case IBV_NODE_UNSPECIFIED:
		return IBV_TRANSPORT_UNSPECIFIED;
	default:
		return IBV_TRANSPORT_UNKNOWN;
	}
}

/*
 * Fill the names, paths and types of @dev from the sysfs record; false
 * when one does not fit.
 */
static bool verbs_fill_ibv_device(struct ibv_device *dev,
				  const struct verbs_sysfs_dev *s)
{
	dev->node_type = s->node_type;
	dev->transport_type = verbs_transport_of(s->node_type);
	return snprintf(dev->name, sizeof(dev->name), "%s", s->ibdev_name) <
		       (int)sizeof(dev->name) &&
	       snprintf(dev->dev_name, sizeof(dev->dev_name), "%s",
			s->sysfs_name) < (int)sizeof(dev->dev_name) &&
	       snprintf(dev->dev_path, sizeof(dev->dev_path),
			"%s/class/infiniband_verbs/%s", ibv_get_sysfs_path(),
			s->sysfs_name) < (int)sizeof(dev->dev_path) &&
	       snprintf(dev->ibdev_path, sizeof(dev->ibdev_path), "%s",
			s->ibdev_path) < (int)sizeof(dev->ibdev_path);
}

/* The parent device's modalias, read once per device. */
static const struct verbs_match_ent *
match_modalias(const struct verbs_device_ops *ops, struct verbs_sysfs_dev *s)
{
	if (!(s->flags & VSYSFS_READ_MODALIAS)) {
		s->flags |= VSYSFS_READ_MODALIAS;
		if (ibv_read_ibdev_sysfs_file(s->modalias, sizeof(s->modalias),
					      s, "device/modalias") <= 0)
			s->modalias[0] = 0;
	}
	if (!s->modalias[0])
		return NULL;
	return match_table_alias(ops, s->modalias);
}

static bool plugin_matches(const struct verbs_device_ops *ops,
			   struct verbs_sysfs_dev *s)
{
	s->match = NULL;
	if (ops->match_table) {
		s->match = match_driver_id(ops, s);
		if (!s->match)
			s->match = match_name(ops, s);
		if (!s->match)
			s->match = match_modalias(ops, s);
	}
	if (ops->match_device ? !ops->match_device(s) : !s->match)
		return false;
	if (s->abi_ver < ops->match_min_abi_version ||
	    s->abi_ver > ops->match_max_abi_version) {
		verbs_log_lib(VERBS_LOG_WARN,
			      "libibverbs: driver %s does not support uverbs "
			      "ABI %u of %s (it supports %u to %u)\n",
			      ops->name, s->abi_ver, s->ibdev_name,
			      ops->match_min_abi_version,
			      ops->match_max_abi_version);
		return false;
	}
	return true;
}

/* Let @ops serve @vdev if it matches; true when it does. */
static bool try_plugin(const struct verbs_device_ops *ops,
		       struct verbs_device *vdev)
{
	struct verbs_plugin_device *pdev;

	if (!plugin_matches(ops, &vdev->sysfs))
		return false;
	pdev = ops->alloc_device(&vdev->sysfs);
	if (!pdev) {
		verbs_log_lib(VERBS_LOG_ERR,
			      "libibverbs: driver %s could not allocate %s\n",
			      ops->name, vdev->sysfs.ibdev_name);
		return false;
	}
	pdev->ops = ops;
	/* The plug-in's own count, never read by this library. */
	atomic_store_explicit(&pdev->refcount, 1, memory_order_relaxed);
	pdev->sysfs = &vdev->sysfs;
	if (!verbs_fill_ibv_device(&pdev->device, &vdev->sysfs)) {
		if (ops->uninit_device)
			ops->uninit_device(pdev);
		return false;
	}
	vdev->ops = ops;
	vdev->pub = pdev;
	verbs_log_lib(VERBS_LOG_INFO, "libibverbs: %s served by driver %s\n",
		      vdev->sysfs.ibdev_name, ops->name);
	return true;
}

bool verbs_bind_plugin(struct verbs_device *vdev)
{
	const struct verbs_device_ops *ops;
	const void *it;
	bool builtin;

	/*
	 * The built-in providers head the registry: a device one of them
	 * serves loads no plug-in.
	 */
	for (it = NULL; (ops = verbs_plugin_next(&it, &builtin)) && builtin;)
		if (try_plugin(ops, vdev))
			return true;

	verbs_plugins_load();

	/* Then the plug-ins; a driver id match comes first, as upstream. */
	if (vdev->sysfs.driver_id != RDMA_DRIVER_UNKNOWN)
		for (it = NULL; (ops = verbs_plugin_next(&it, &builtin));)
			if (!builtin && match_driver_id(ops, &vdev->sysfs) &&
			    try_plugin(ops, vdev))
				return true;
	for (it = NULL; (ops = verbs_plugin_next(&it, &builtin));)
		if (!builtin && try_plugin(ops, vdev))
			return true;
	verbs_log_lib(VERBS_LOG_INFO,
		      "libibverbs: no driver found for %s\n",
		      vdev->sysfs.ibdev_name);
	return false;
}

/*
 * rdma-core's helper for plug-ins: ibv_read_sysfs_file() on a file under
 * the device's ibdev directory, with its return convention (the length
 * read, or -1 with errno).
 */
IBV_EXPORT int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
					 struct verbs_sysfs_dev *sysfs_dev,
					 const char *fnfmt, ...)
{
	char *path;
	va_list ap;
	int ret;

	if (!sysfs_dev || !fnfmt) {
		errno = EINVAL;
		return -1;
	}
	va_start(ap, fnfmt);
	ret = vasprintf(&path, fnfmt, ap);
	va_end(ap);
	if (ret < 0)
		return -1;
	ret = ibv_read_sysfs_file(sysfs_dev->ibdev_path, path, buf, size);
	free(path);
	return ret;
}
