// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device list and what can be asked of a device without opening it.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>

#include "ibverbs.h"

IBV_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct verbs_device **list;
	struct ibv_device **out;
	int num = 0, i;

	/* The first call is where RDMAV_FORK_SAFE takes effect. */
	verbs_fork_setup();

	list = verbs_discover(&num);
	if (num_devices)
		*num_devices = list ? num : 0;
	if (!list)
		return NULL;
	/*
	 * The application gets each device's public header, which for a
	 * plug-in device is not the library's record: same array, each
	 * pointer replaced in place.
	 */
	out = (struct ibv_device **)list;
	for (i = 0; i < num; i++)
		out[i] = verbs_dev_ibv(list[i]);
	return out;
}

IBV_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	int i;

	if (!list)
		return;
	for (i = 0; list[i]; i++)
		verbs_device_put(verbs_get_device(list[i]));
	free(list);
}

IBV_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	if (!device)
		return verbs_null_errno(EINVAL);
	return device->name;
}

IBV_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	unsigned int part[4];
	char buf[32];
	uint64_t guid = 0;
	int i;

	if (!device)
		return 0;
	if (ibv_read_sysfs_file(device->ibdev_path, "node_guid", buf,
				sizeof(buf)) <= 0)
		return 0;
	/* sysfs prints the GUID as four groups of 16 bits. */
	if (sscanf(buf, "%x:%x:%x:%x", &part[0], &part[1], &part[2],
		   &part[3]) != 4)
		return 0;
	for (i = 0; i < 4; i++)
		guid = guid << 16 | (part[i] & 0xffff);
	return htobe64(guid);
}

IBV_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	if (!device)
		return -1;
	return verbs_get_device(device)->kernel_index;
}
