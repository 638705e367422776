// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Contexts: opening and importing devices and the library's part of every
 * context.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ibverbs.h"
#include "provider_guard.h"

int verbs_init_context(struct verbs_context *vctx, struct verbs_device *vdev,
		       int cmd_fd)
{
	struct ibv_context *ctx = &vctx->context;
	struct verbs_ex_private *priv;

	/* Opening and importing alike: RDMAV_FORK_SAFE applies here too. */
	verbs_fork_setup();
	priv = calloc(1, sizeof(*priv));
	if (!priv)
		return ENOMEM;

	priv->owner.proc_token = verbs_proc_enter();
	priv->owner.pid = getpid();
	pthread_mutex_init(&priv->cb_lock, NULL);

	vctx->priv = priv;
	vctx->sz = sizeof(*vctx);
	ctx->device = verbs_dev_ibv(vdev);
	ctx->cmd_fd = cmd_fd;
	ctx->async_fd = -1;
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	pthread_mutex_init(&ctx->mutex, NULL);
	verbs_device_get(vdev);
	return 0;
}

/*
 * rdma-core's semantics: the context's descriptors go with it.  Closing
 * them touches only this process's file table, so the same teardown is
 * right in a fork child: the parent's open file descriptions, and with
 * them its kernel objects, stay alive.
 */
IBV_EXPORT void verbs_uninit_context(struct verbs_context *vctx)
{
	struct ibv_context *ctx = &vctx->context;

	if (ctx->cmd_fd >= 0)
		close(ctx->cmd_fd);
	ctx->cmd_fd = -1;
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	ctx->async_fd = -1;
	pthread_mutex_destroy(&ctx->mutex);
	verbs_device_put(verbs_get_device(ctx->device));
	verbs_guard_table_free(vctx->priv);
	pthread_mutex_destroy(&vctx->priv->cb_lock);
	free(vctx->priv);
	vctx->priv = NULL;
}

/*
 * The slots rdma-core 44 fills on every context after the provider's
 * alloc_context (facts: its device.c, set_lib_ops()): binaries built
 * against libibverbs 1.1 call query_device and query_port through the
 * _compat_ slots, and those built against 1.1.8 find create_flow and
 * destroy_flow in the two placeholders.  Called after each change of the
 * flow slots, so the placeholders always mirror them.
 */
void verbs_install_compat_ops(struct verbs_context *vctx)
{
	struct ibv_context_ops *pub = &vctx->context.ops;

	pub->_compat_query_device = ibv_query_device;
	pub->_compat_query_port = ibv_query_port;
	vctx->ABI_placeholder1 = (void (*)(void))vctx->ibv_create_flow;
	vctx->ABI_placeholder2 = (void (*)(void))vctx->ibv_destroy_flow;
}

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

	/*
	 * The provider's free_context calls verbs_uninit_context(), which
	 * closes cmd_fd and async_fd and drops the device reference.
	 */
	verbs_ops(ctx)->free_context(ctx);
	return 0;
}
