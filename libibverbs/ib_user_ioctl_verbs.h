/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * <infiniband/ib_user_ioctl_verbs.h>: the ioctl uAPI verbs types.
 *
 * These are the kernel's own definitions, so we take them from
 * linux-libc-dev instead of carrying a copy.  The kernel header is guarded
 * by IB_USER_IOCTL_VERBS_H, which is why this wrapper uses a guard of its
 * own.  If RDMA_UAPI_PTR is already defined (verbs_api.h does that) the
 * kernel header uses it for its pointer slots.
 */
#ifndef INFINIBAND_IB_USER_IOCTL_VERBS_H
#define INFINIBAND_IB_USER_IOCTL_VERBS_H

#include <linux/types.h>
#include <linux/version.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

/*
 * enum rdma_driver_id gained RDMA_DRIVER_MANA in Linux 6.2.  For older
 * uAPI headers (bookworm ships 6.1) provide the same value as a macro; it
 * cannot be added to the kernel's enum from here.
 */
#if defined(LINUX_VERSION_CODE) && defined(KERNEL_VERSION)
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0) && !defined(RDMA_DRIVER_MANA)
#define RDMA_DRIVER_MANA 20
#endif
#endif

/*
 * rdma-core 65's copy names RDMA_DRIVER_IONIC, the next driver id, which
 * the kernel added with the ionic driver in Linux 6.18: the same value
 * as a macro for older uAPI headers.
 */
#include <infiniband/verbs_release.h>
#if IBV_RDMA_CORE_RELEASE >= 65 && defined(LINUX_VERSION_CODE) && \
	defined(KERNEL_VERSION)
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 18, 0) && \
	!defined(RDMA_DRIVER_IONIC)
#define RDMA_DRIVER_IONIC 21
#endif
#endif

/*
 * rdma-core 56's copy of this header has the FLUSH access flags of Linux
 * 6.2, which older uAPI headers lack: the same values as macros.  (Its
 * ib_uverbs_query_port_resp_ex also names active_speed_ex, which the
 * kernel added with XDR speeds and which older uAPI headers still call
 * reserved bytes: a struct this wrapper cannot change; cmd_device.c reads
 * the field at its offset.)
 */
#include <infiniband/verbs_release.h>
#if IBV_RDMA_CORE_RELEASE >= 56 && defined(LINUX_VERSION_CODE) && \
	defined(KERNEL_VERSION)
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0) && \
	!defined(IB_UVERBS_ACCESS_FLUSH_GLOBAL)
#define IB_UVERBS_ACCESS_FLUSH_GLOBAL (1 << 8)
#define IB_UVERBS_ACCESS_FLUSH_PERSISTENT (1 << 9)
#endif
#endif

#endif /* INFINIBAND_IB_USER_IOCTL_VERBS_H */
