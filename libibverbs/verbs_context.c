// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Contexts: opening, importing and closing devices; the provider's
 * context and the library's part of it are set up in provider_context.c.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fork_child.h"
#include "ibverbs.h"

static int open_cdev(struct ibv_device *device)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/dev/infiniband/%s", device->dev_name);
	return open(path, O_RDWR | O_CLOEXEC);
}

/*
 * rdma-core's entry point with the provider's private data (mlx5dv_open_
 * device passes its attributes); the built-in rxe provider takes none.
 */
IBV_EXPORT struct ibv_context *verbs_open_device(struct ibv_device *device,
						 void *private_data)
{
	int fd;

	if (!device)
		return verbs_null_errno(EINVAL);
	fd = open_cdev(device);
	if (fd < 0)
		return NULL;
	return verbs_provider_open(verbs_get_device(device), fd,
				   private_data);
}

IBV_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	return verbs_open_device(device, NULL);
}

/* Find the discovered device whose character device is @rdev. */
static struct verbs_device *find_device_by_rdev(dev_t rdev)
{
	struct verbs_device **list, *found = NULL;
	int num, i;

	list = verbs_discover(&num);
	if (!list)
		return NULL;
	for (i = 0; i < num && !found; i++) {
		if (list[i]->sysfs.sysfs_cdev == rdev) {
			found = list[i];
			verbs_device_get(found);
		}
	}
	for (i = 0; i < num; i++)
		verbs_device_put(list[i]);
	free(list);
	return found;
}

IBV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	struct verbs_device *vdev;
	struct ibv_context *ctx;
	struct stat st;

	if (fstat(cmd_fd, &st) || !S_ISCHR(st.st_mode))
		return verbs_null_errno(EINVAL);

	vdev = find_device_by_rdev(st.st_rdev);
	if (!vdev)
		return verbs_null_errno(ENODEV);

	/*
	 * On success the context owns cmd_fd: close_device closes it.  A
	 * provider that fails closes it, as with rdma-core; one without
	 * import_context leaves it to the caller.
	 */
	ctx = verbs_provider_import(vdev, cmd_fd);
	verbs_device_put(vdev);
	return ctx;
}

IBV_EXPORT int ibv_close_device(struct ibv_context *ctx)
{
	if (!ctx) {
		errno = EINVAL;
		return -1;
	}

	/* A fork child's own context for this one goes with it. */
	if (verbs_inherited(ctx))
		verbs_child_close_device(ctx);
	/*
	 * The provider's free_context calls verbs_uninit_context(), which
	 * closes cmd_fd and async_fd and drops the device reference.
	 */
	verbs_ops(ctx)->free_context(ctx);
	return 0;
}
