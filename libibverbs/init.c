// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device discovery.
 *
 * Every /sys/class/infiniband_verbs/uverbsN is a device user space can
 * open.  Each is matched to a provider of the registry, built-in or
 * plug-in (provider_match.c), by the kernel driver that serves it, which
 * RDMA netlink reports, or by its name or parent device.  The library
 * keeps one struct verbs_device per uverbs device across scans, so the
 * pointers ibv_get_device_list() hands out stay stable while the device
 * exists.
 */
#include <dirent.h>
#include <endian.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "ibverbs.h"
#include "sysfs.h"

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
	if (__atomic_sub_fetch(&vdev->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	verbs_device_free(vdev);
}

/* A record that has no provider yet, or whose last reference went. */
void verbs_device_free(struct verbs_device *vdev)
{
	if (vdev->ops && vdev->pub && vdev->ops->uninit_device)
		vdev->ops->uninit_device(vdev->pub);
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

/* The uverbs device's char device number, from its "dev" attribute. */
static int read_cdev(const char *dir, dev_t *cdev)
{
	unsigned int maj, min;
	char buf[32];

	if (ibv_read_sysfs_file(dir, "dev", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%u:%u", &maj, &min) != 2)
		return -1;
	*cdev = makedev(maj, min);
	return 0;
}

static void read_node_guid(struct verbs_sysfs_dev *s)
{
	char buf[32];
	__be64 guid;

	if (ibv_read_sysfs_file(s->ibdev_path, "node_guid", buf,
				sizeof(buf)) > 0 &&
	    !verbs_parse_guid(buf, &guid)) {
		s->node_guid = be64toh(guid);
		s->flags |= VSYSFS_READ_NODE_GUID;
	}
}

/*
 * Fill the sysfs record of a uverbs device, which plug-ins read too.
 * False when the entry is not a usable device.
 */
static bool read_sysfs_dev(struct verbs_device *vdev, const char *sysfs,
			   const char *uverbs)
{
	struct verbs_sysfs_dev *s = &vdev->sysfs;
	struct verbs_nl_devinfo nl = {};
	char dir[IBV_SYSFS_PATH_MAX];
	struct stat st;
	int abi, node_type;

	if (snprintf(dir, sizeof(dir), "%s/class/infiniband_verbs/%s", sysfs,
		     uverbs) >= (int)sizeof(dir) ||
	    snprintf(s->sysfs_name, sizeof(s->sysfs_name), "%s", uverbs) >=
		    (int)sizeof(s->sysfs_name))
		return false;
	if (ibv_read_sysfs_file(dir, "ibdev", s->ibdev_name,
				sizeof(s->ibdev_name)) <= 0 ||
	    read_sysfs_int(dir, "abi_version", &abi) ||
	    read_cdev(dir, &s->sysfs_cdev))
		return false;
	if (snprintf(s->ibdev_path, sizeof(s->ibdev_path),
		     "%s/class/infiniband/%s", sysfs,
		     s->ibdev_name) >= (int)sizeof(s->ibdev_path) ||
	    stat(s->ibdev_path, &st))
		return false;
	s->time_created = st.st_mtim;
	s->abi_ver = abi;
	if (read_sysfs_int(s->ibdev_path, "node_type", &node_type))
		node_type = IBV_NODE_UNKNOWN;
	s->node_type = node_type;
	read_node_guid(s);

	s->driver_id = RDMA_DRIVER_UNKNOWN;
	s->ibdev_idx = -1;
	if (!verbs_nl_query_device(s->ibdev_name, &nl)) {
		s->ibdev_idx = nl.index;
		if (nl.has_driver_id)
			s->driver_id = nl.driver_id;
	}

	vdev->refcount = 1;
	vdev->abi_version = abi;
	vdev->uverbs_index = atoi(uverbs + strlen("uverbs"));
	vdev->kernel_index = s->ibdev_idx;
	vdev->driver_id = s->driver_id;
	return true;
}

/* A record of the uverbs entry, not yet bound to a provider. */
static struct verbs_device *probe_uverbs(const char *sysfs,
					 const char *uverbs)
{
	struct verbs_device *vdev = calloc(1, sizeof(*vdev));

	if (!vdev)
		return NULL;
	if (!read_sysfs_dev(vdev, sysfs, uverbs)) {
		free(vdev);
		return NULL;
	}
	return vdev;
}

static struct verbs_device *find_known(const struct verbs_device *probe)
{
	struct verbs_device *vdev;

	for (vdev = known_devices; vdev; vdev = vdev->next)
		if (!strcmp(vdev->sysfs.sysfs_name, probe->sysfs.sysfs_name) &&
		    !strcmp(vdev->sysfs.ibdev_name, probe->sysfs.ibdev_name))
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
		} else if (!verbs_bind_plugin(vdev)) {
			verbs_device_free(vdev);
			continue;
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
static void devices_child_reset(void)
{
	if (!pthread_mutex_trylock(&devices_lock)) {
		pthread_mutex_unlock(&devices_lock);
		return;
	}
	verbs_keep_reachable(known_devices);
	known_devices = NULL;
	pthread_mutex_init(&devices_lock, NULL);
}

__attribute__((constructor)) static void devices_register_child_reset(void)
{
	verbs_register_child_reset(VERBS_RESET_DEVICES, devices_child_reset);
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
