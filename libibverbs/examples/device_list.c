/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ibv_devices: list the RDMA devices and their node GUIDs, in upstream's
 * format.  Arguments are ignored, as upstream ignores them.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>

#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	struct ibv_device **list;
	int num;

	list = ibv_get_device_list(&num);
	if (!list) {
		perror("Failed to get IB devices list");
		return 1;
	}

	printf("    %-16s\t   node GUID\n", "device");
	printf("    %-16s\t----------------\n", "------");
	for (int i = 0; i < num; i++)
		printf("    %-16s\t%016" PRIx64 "\n",
		       ibv_get_device_name(list[i]),
		       be64toh(ibv_get_device_guid(list[i])));

	ibv_free_device_list(list);
	return 0;
}
