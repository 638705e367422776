// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Optional MR access flags (IBV_ACCESS_OPTIONAL_RANGE).
 *
 * rdma-core 44 records the kernel's core_support from the GET_CONTEXT
 * ioctl method in the device (struct verbs_device.core_support, where a
 * plug-in reads it) and strips the optional flags from a registration
 * unless IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS is set; a kernel
 * without the method gets the legacy command, and core_support 0.
 *
 * The test asks the kernel itself (the same method on a fresh uverbs fd),
 * checks that the library recorded the same core_support, registers with
 * IBV_ACCESS_RELAXED_ORDERING, and reads the REG_MR command's access
 * flags as they reached the kernel (optacc_preload.so).  Run with
 * OPTACC_OLD_KERNEL=1, the interposer answers the method as a kernel
 * without it does: then the flags must be gone from REG_MR.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "provider_abi.h"

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl.h>

#include "guest_common.h"

/* The kernel's core_support for @dev, 0 without the method; -1: error. */
static int64_t kernel_core_support(struct ibv_device *dev)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[2];
	} c = {};
	uint32_t ncv = 0;
	uint64_t cs = 0;
	char path[128];
	int fd, ret, err;

	snprintf(path, sizeof(path), "/dev/infiniband/%s", dev->dev_name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		gc_diag("open %s: %s", path, strerror(errno));
		return -1;
	}
	c.hdr.length = sizeof(c);
	c.hdr.object_id = UVERBS_OBJECT_DEVICE;
	c.hdr.method_id = UVERBS_METHOD_GET_CONTEXT;
	c.hdr.num_attrs = 2;
	c.hdr.driver_id = RDMA_DRIVER_RXE;
	c.attrs[0].attr_id = UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS;
	c.attrs[0].len = sizeof(ncv);
	c.attrs[0].data = (uintptr_t)&ncv;
	c.attrs[1].attr_id = UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT;
	c.attrs[1].len = sizeof(cs);
	c.attrs[1].data = (uintptr_t)&cs;
	ret = ioctl(fd, RDMA_VERBS_IOCTL, &c);
	err = errno;
	close(fd);
	if (!ret)
		return (int64_t)cs;
	if (err == EPROTONOSUPPORT || err == ENOTTY) {
		gc_diag("kernel has no GET_CONTEXT method (%s)", strerror(err));
		return 0;
	}
	gc_diag("GET_CONTEXT ioctl: %s", strerror(err));
	return -1;
}

/* What a plug-in reads: its struct verbs_device (provider_abi.h). */
static uint64_t lib_core_support(struct ibv_context *ctx)
{
	return ((struct verbs_plugin_device *)ctx->device)->core_support;
}

int main(void)
{
	const unsigned int access =
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING;
	int *count, *refused;
	unsigned int *sent;
	struct gc_dev dev;
	int64_t kernel;
	uint64_t lib;
	struct ibv_mr *mr;
	char *buf;
	bool old;

	gc_start("rxe_optional_access");
	count = dlsym(RTLD_DEFAULT, "optacc_reg_mr_count");
	sent = dlsym(RTLD_DEFAULT, "optacc_reg_mr_access");
	refused = dlsym(RTLD_DEFAULT, "optacc_get_context_refused");
	if (!count || !sent || !refused) {
		gc_ok(false, "optacc_preload.so is preloaded");
		return gc_finish();
	}
	old = getenv("OPTACC_OLD_KERNEL") &&
	      !strcmp(getenv("OPTACC_OLD_KERNEL"), "1");
	if (gc_dev_open(&dev, 0))
		return gc_finish();

	kernel = kernel_core_support(dev.ctx->device);
	lib = lib_core_support(dev.ctx);
	gc_ok(kernel >= 0 && lib == (uint64_t)kernel,
	      "core_support the library recorded %#llx, kernel's %#llx",
	      (unsigned long long)lib, (long long)kernel);
	if (old)
		gc_ok(*refused >= 2 && lib == 0,
		      "old kernel: GET_CONTEXT method refused %d times, "
		      "core_support 0", *refused);
	gc_ok(dev.ctx->async_fd >= 0, "context has an async event fd (%d)",
	      dev.ctx->async_fd);

	buf = aligned_alloc(4096, 4096);
	mr = buf ? ibv_reg_mr(dev.pd, buf, 4096, access) : NULL;
	gc_ok(mr != NULL, "ibv_reg_mr with RELAXED_ORDERING: %s",
	      mr ? "ok" : strerror(errno));
	if (mr) {
		bool kept = lib & IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
		unsigned int want = kept ? access : IBV_ACCESS_LOCAL_WRITE;

		gc_ok(*count == 1 && *sent == want,
		      "REG_MR reached the kernel with access %#x (want %#x, "
		      "optional flags %s)", *sent, want,
		      kept ? "kept" : "stripped");
		ibv_dereg_mr(mr);
	}
	mr = buf ? ibv_reg_mr_iova2(dev.pd, buf, 4096, 0x10000, access) : NULL;
	gc_ok(mr != NULL && *count == 2 &&
	      !!(*sent & IBV_ACCESS_RELAXED_ORDERING) ==
	      !!(lib & IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS),
	      "ibv_reg_mr_iova2 with RELAXED_ORDERING: %s, access %#x",
	      mr ? "ok" : strerror(errno), *sent);
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
	gc_dev_close(&dev);
	return gc_finish();
}
