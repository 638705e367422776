// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device discovery.
 *
 * Every /sys/class/infiniband_verbs/uverbsN is a device user space can
 * open.  Each is matched to a built-in provider by the kernel driver that
 * serves it, which RDMA netlink reports; where netlink is not available the
 * ibdev name prefix decides.  The library keeps one struct verbs_device per
 * uverbs device across scans, so the pointers ibv_get_device_list() hands
 * out stay stable while the device exists.
 */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs.h"

/* More uverbs devices than this in one machine are ignored. */
#define VERBS_MAX_DEVICES 256

static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
/* Devices seen by the last scan; the list holds one reference each. */
static struct verbs_device *known_devices;

void verbs_device_get(struct verbs_device *vdev)
{
	__atomic_add_fetch(&vdev->refcount, 1, __ATOMIC_RELAXED);
}

void verbs_device_put(struct verbs_device *vdev)
{
	if (__atomic_sub_fetch(&vdev->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		free(vdev);
}

static int read_sysfs_int(const char *dir, const char *file, int *val)
{
	char buf[32];

	if (ibv_read_sysfs_file(dir, file, buf, sizeof(buf)) <= 0)
		return -1;
	*val = atoi(buf);
	return 0;
}

static const struct verbs_provider *match_by_driver(uint32_t driver_id)
{
	const struct verbs_provider *const *p;

	for (p = verbs_providers; *p; p++)
		if ((*p)->driver_id == driver_id)
			return *p;
	return NULL;
}

static const struct verbs_provider *match_by_name(const char *ibdev)
{
	const struct verbs_provider *const *p;

	for (p = verbs_providers; *p; p++)
		if ((*p)->ibdev_prefix &&
		    !strncmp(ibdev, (*p)->ibdev_prefix,
			     strlen((*p)->ibdev_prefix)))
			return *p;
	return NULL;
}

static enum ibv_transport_type transport_of(enum ibv_node_type type)
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

/* Fill the names and paths of @dev; false when one does not fit. */
static bool set_names(struct ibv_device *dev, const char *sysfs,
		      const char *uverbs, const char *ibdev, const char *dir)
{
	return snprintf(dev->name, sizeof(dev->name), "%s", ibdev) <
		       (int)sizeof(dev->name) &&
	       snprintf(dev->dev_name, sizeof(dev->dev_name), "%s", uverbs) <
		       (int)sizeof(dev->dev_name) &&
	       snprintf(dev->dev_path, sizeof(dev->dev_path), "%s", dir) <
		       (int)sizeof(dev->dev_path) &&
	       snprintf(dev->ibdev_path, sizeof(dev->ibdev_path),
			"%s/class/infiniband/%s", sysfs, ibdev) <
		       (int)sizeof(dev->ibdev_path);
}

/*
 * Fill a device from its uverbs sysfs directory.  Returns NULL when the
 * entry is not a usable device: unreadable, an ABI outside what its
 * provider speaks, or no provider for it.
 */
static struct verbs_device *probe_uverbs(const char *sysfs,
					 const char *uverbs)
{
	struct verbs_nl_devinfo nl = {};
	const struct verbs_provider *prov = NULL;
	struct verbs_device *vdev;
	char ibdev[IBV_SYSFS_NAME_MAX];
	char dir[IBV_SYSFS_PATH_MAX];
	int abi, node_type, kernel_index = -1;

	if (snprintf(dir, sizeof(dir), "%s/class/infiniband_verbs/%s", sysfs,
		     uverbs) >= (int)sizeof(dir))
		return NULL;
	if (ibv_read_sysfs_file(dir, "ibdev", ibdev, sizeof(ibdev)) <= 0 ||
	    read_sysfs_int(dir, "abi_version", &abi))
		return NULL;

	if (!verbs_nl_query_device(ibdev, &nl)) {
		kernel_index = nl.index;
		if (nl.has_driver_id)
			prov = match_by_driver(nl.driver_id);
	}
	if (!prov)
		prov = match_by_name(ibdev);
	if (!prov || abi < prov->min_abi || abi > prov->max_abi)
		return NULL;

	vdev = calloc(1, sizeof(*vdev));
	if (!vdev)
		return NULL;
	vdev->provider = prov;
	vdev->refcount = 1;
	vdev->abi_version = abi;
	vdev->driver_id = prov->driver_id;
	vdev->uverbs_index = atoi(uverbs + strlen("uverbs"));
	vdev->kernel_index = kernel_index;

	if (!set_names(&vdev->device, sysfs, uverbs, ibdev, dir)) {
		free(vdev);
		return NULL;
	}

	if (read_sysfs_int(vdev->device.ibdev_path, "node_type", &node_type))
		node_type = IBV_NODE_UNKNOWN;
	vdev->device.node_type = node_type;
	vdev->device.transport_type = transport_of(node_type);
	return vdev;
}

static struct verbs_device *find_known(const struct verbs_device *probe)
{
	struct verbs_device *vdev;

	for (vdev = known_devices; vdev; vdev = vdev->next)
		if (!strcmp(vdev->device.dev_name, probe->device.dev_name) &&
		    !strcmp(vdev->device.name, probe->device.name))
			return vdev;
	return NULL;
}

static int by_uverbs_index(const void *a, const void *b)
{
	const struct verbs_device *x = *(struct verbs_device *const *)a;
	const struct verbs_device *y = *(struct verbs_device *const *)b;

	return x->uverbs_index - y->uverbs_index;
}

/* Probe every uverbs entry in sysfs into @out (at most @max). */
static int scan_sysfs(struct verbs_device **out, int max)
{
	char dir[IBV_SYSFS_PATH_MAX];
	struct verbs_device *vdev, *old;
	struct dirent *ent;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/class/infiniband_verbs",
		 ibv_get_sysfs_path());
	d = opendir(dir);
	if (!d)
		return 0;
	while (n < max && (ent = readdir(d))) {
		if (strncmp(ent->d_name, "uverbs", 6))
			continue;
		vdev = probe_uverbs(ibv_get_sysfs_path(), ent->d_name);
		if (!vdev)
			continue;
		old = find_known(vdev);
		if (old) {
			free(vdev);
			vdev = old;
			verbs_device_get(vdev);
		}
		out[n++] = vdev;
	}
	closedir(d);
	return n;
}

/*
 * Rebuild known_devices from sysfs; the caller holds devices_lock.  A
 * device that went away is dropped from the list but lives on while a
 * context or a caller's list still holds it.
 */
static void rescan(void)
{
	struct verbs_device *found[VERBS_MAX_DEVICES], *vdev, *next;
	int n, i;

	n = scan_sysfs(found, VERBS_MAX_DEVICES);
	qsort(found, n, sizeof(found[0]), by_uverbs_index);

	for (vdev = known_devices; vdev; vdev = next) {
		next = vdev->next;
		verbs_device_put(vdev);
	}
	known_devices = NULL;
	for (i = n - 1; i >= 0; i--) {
		found[i]->next = known_devices;
		known_devices = found[i];
	}
}

/*
 * A list whose lock was free at fork() is whole and stays; one that a
 * thread of the parent was rebuilding is dropped (its devices are kept
 * alive: inherited contexts may point at them) and scanned afresh, so a
 * child can always open a device anew.
 */
void verbs_devices_child_reset(void)
{
	if (!pthread_mutex_trylock(&devices_lock)) {
		pthread_mutex_unlock(&devices_lock);
		return;
	}
	verbs_keep_reachable(known_devices);
	known_devices = NULL;
	pthread_mutex_init(&devices_lock, NULL);
}

struct verbs_device **verbs_discover(int *num)
{
	struct verbs_device **list, *vdev;
	int n = 0, cancel;

	verbs_proc_enter();
	/* Scanning sysfs opens files: cancellation points. */
	cancel = verbs_nocancel_begin();
	pthread_mutex_lock(&devices_lock);
	rescan();
	for (vdev = known_devices; vdev; vdev = vdev->next)
		n++;
	list = calloc(n + 1, sizeof(*list));
	if (list) {
		n = 0;
		for (vdev = known_devices; vdev; vdev = vdev->next) {
			verbs_device_get(vdev);
			list[n++] = vdev;
		}
	}
	pthread_mutex_unlock(&devices_lock);
	verbs_nocancel_end(cancel);

	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	*num = n;
	return list;
}
