/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel uAPI constants that an older linux-libc-dev may lack.
 *
 * We build against the distribution's <rdma/...> headers rather than a
 * private copy.  The few constants we need that are younger than those
 * headers can be are defined here, only when the installed headers
 * predate them, with the kernel's value (uAPI values never change).  The
 * kernel header is included first, so a header that does have the
 * enumerator is never parsed after our macro of the same name.
 *
 * Deliberately not included here: <rdma/ib_user_ioctl_verbs.h>.  Its
 * pointer fields take their shape from RDMA_UAPI_PTR, which
 * <infiniband/verbs_api.h> defines first; pulling it in from here could
 * lock in the plain-u64 shape for the rest of a translation unit.
 */
#ifndef IBV_RDMA_SHIM_H
#define IBV_RDMA_SHIM_H

#include <linux/version.h>
#include <rdma/rdma_netlink.h>

#ifndef KERNEL_VERSION
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + (c))
#endif

/*
 * Linux 5.13: u8 attribute of the RDMA_NLDEV_CMD_SYS_GET reply, 1 when
 * the kernel copies DMA-pinned pages into a forked child.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 13, 0) && \
	!defined(RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK)
#define RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK 93
#endif

#endif /* IBV_RDMA_SHIM_H */
