/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The provider interface.
 *
 * A provider is the device-specific half of the library: it knows how a
 * device's queues look in memory and what private data its kernel driver
 * exchanges with user space.  Every provider, the built-in Soft-RoCE one
 * (providers/rxe/) and the plug-ins built for rdma-core 44 alike, uses
 * rdma-core 44's interface (provider_abi.h):
 *
 *  - a struct verbs_device_ops in the library's registry (plugin_load.c):
 *    the built-in providers are in it from the start, ahead of the
 *    plug-ins, which register themselves when dlopen()ed; its match table
 *    and ABI range decide which devices it serves, its alloc_device
 *    allocates the device header (struct verbs_plugin_device);
 *  - from its alloc_context or import_context, a context allocated with
 *    _verbs_init_and_alloc_context() and a struct verbs_context_ops
 *    handed to verbs_set_ops().
 *
 * Every object a provider creates embeds the public struct (ibv_pd, ibv_cq,
 * ...) or the extended wrapper (verbs_cq, verbs_qp, verbs_mr, ...), which
 * has rdma-core 44's layout.  The built-in provider talks to the kernel
 * through the library's hidden command layer (cmd.h), plug-ins through the
 * exported ibv_cmd_* functions; both fill the common fields of those
 * structs.
 *
 * What the library does around a provider's ops is the same for every
 * provider (provider_context.c): the public verbs check arguments and the
 * fork child guard, then call the context's ops table; the slots an
 * application reaches without a library function in between (the data
 * path of struct ibv_context_ops, the extended slots of struct
 * verbs_context, the callbacks of ibv_qp_ex, ibv_cq_ex and ibv_wq) get
 * library wrappers that refuse an inherited object before the provider
 * runs.
 */
#ifndef IBV_DRIVER_H
#define IBV_DRIVER_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "child_guard.h"
#include "fork.h"
#include "provider_abi.h"

/* Layouts below depend on the release: a missing include must not pick 44. */
#ifndef IBV_RDMA_CORE_RELEASE
#error "IBV_RDMA_CORE_RELEASE is not defined: include <infiniband/verbs.h>"
#endif

/* Public entry points; everything else is hidden by -fvisibility=hidden. */
#define IBV_EXPORT __attribute__((visibility("default")))

struct verbs_device;

/* How an MR came to be; only user memory is tracked by fork support. */
enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

/*
 * Extended objects: the public struct first, then what the command layer
 * fills.  A provider allocates them, a plug-in built for rdma-core 44 as
 * well, so those that upstream defines have upstream's exact layout (sizes
 * from rdma-core v44.0, checked below and member by member in
 * tests/host/abi): the library keeps no state of its own in them, and a
 * provider's private fields follow at upstream's offsets.
 */
struct verbs_pd {
	struct ibv_pd pd;
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

struct verbs_mw {
	struct ibv_mw mw;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct ibv_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/*
 * verbs_qp.comp_mask, with rdma-core 44's bit values: plug-ins set
 * VERBS_QP_EX themselves and the command layer sets VERBS_QP_XRCD.
 */
#define VERBS_QP_XRCD (1U << 0) /* xrcd is valid */
#define VERBS_QP_EX (1U << 1) /* qp_ex is valid (send ops flags) */

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct ibv_xrcd *xrcd;
};

/*
 * Objects no built-in provider creates yet; a plug-in does, and the
 * command layer will fill the kernel handle (and the action's type).
 */
/* verbs_xrcd.comp_mask (rdma-core 44): handle is valid. */
#define VERBS_XRCD_HANDLE (1U << 0)

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

/* Values from rdma-core 44's provider interface. */
enum ibv_flow_action_type {
	IBV_FLOW_ACTION_UNSPECIFIED = 0,
	IBV_FLOW_ACTION_ESP = 1,
};

struct verbs_flow_action {
	struct ibv_flow_action action;
	uint32_t handle;
	enum ibv_flow_action_type type;
};

struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};

struct verbs_counters {
	struct ibv_counters counters;
	uint32_t handle;
};

#if IBV_RDMA_CORE_RELEASE >= 65
/*
 * rdma-core 65's provider-side objects (facts: its libibverbs/driver.h,
 * where changing them means a new IBVERBS_PRIVATE_ node).
 */

/* A DMA handle as the kernel knows it. */
struct verbs_dmah {
	struct ibv_dmah dmah;
	uint32_t handle;
};

/* What ibv_alloc_buf() hands out: memory a provider allocated, maybe a
 * dma-buf's (dmabuf_fd, else -1). */
struct ibv_buf {
	void *addr;
	size_t size;
	struct ibv_pd *pd;
	int dmabuf_fd;
};

/* ibv_cmd_create_cq_ex()'s @cmd_flags beyond TS_IGNORED_EX. */
enum {
	VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA = 1 << 1,
	VERBS_CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF = 1 << 2,
};

/* The CQ buffer a provider allocated itself, for the kernel to use. */
struct verbs_create_cq_prov_attr {
	struct {
		uint64_t length;
		union {
			uint8_t *ptr;
			struct {
				uint64_t offset;
				int fd;
			} dmabuf;
		};
	} buffer;
};
#endif

/* A quick guard; tests/host/abi checks every member's offset. */
_Static_assert(sizeof(struct verbs_mr) == 56, "verbs_mr: rdma-core 44 ABI");
_Static_assert(sizeof(struct verbs_cq) == 288, "verbs_cq: rdma-core 44 ABI");
/* rdma-core 45 added ibv_qp_ex.wr_flush, which verbs_qp embeds. */
_Static_assert(sizeof(struct verbs_qp) ==
		       (IBV_RDMA_CORE_RELEASE >= 56 ? 376 : 368),
	       "verbs_qp: the release's ABI");
_Static_assert(sizeof(struct verbs_srq) == 160, "verbs_srq: rdma-core 44 ABI");
_Static_assert(sizeof(struct verbs_xrcd) == 16, "verbs_xrcd: rdma-core 44 ABI");
_Static_assert(sizeof(struct verbs_flow_action) == 16,
	       "verbs_flow_action: rdma-core 44 ABI");
_Static_assert(sizeof(struct verbs_dm) == 40, "verbs_dm: rdma-core 44 ABI");
_Static_assert(sizeof(struct verbs_counters) == 16,
	       "verbs_counters: rdma-core 44 ABI");

struct verbs_ah {
	struct ibv_ah ah;
};

/*
 * The library's record of a uverbs device, one per device found in sysfs,
 * whichever provider serves it.
 *
 * Every device an application sees starts with a struct verbs_plugin_device
 * (rdma-core 44's struct verbs_device) whose sysfs pointer leads to the
 * record's sysfs member.  The provider's alloc_device allocates that
 * header, embedded in the provider's own device struct, because a provider
 * reaches its device struct from the struct ibv_device by container_of().
 * The library's state stays in the record.
 */
struct verbs_device {
	/* The header applications see, the provider's. */
	struct verbs_plugin_device *pub;
	/* Filled from sysfs, handed to the provider (match, alloc_device). */
	struct verbs_sysfs_dev sysfs;
	/* The provider that serves the device. */
	const struct verbs_device_ops *ops;
	/* List references plus open contexts; freed at zero. */
	int refcount;
	int abi_version;
	int uverbs_index;
	/* The kernel's ibdev index from netlink, -1 when unknown. */
	int kernel_index;
	uint32_t driver_id;
	struct verbs_device *next;
};

#ifndef container_of
#define container_of(ptr, type, member)                                      \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* The library's record of any device an application holds. */
static inline struct verbs_device *verbs_get_device(struct ibv_device *dev)
{
	struct verbs_plugin_device *hdr = (struct verbs_plugin_device *)dev;

	return container_of(hdr->sysfs, struct verbs_device, sysfs);
}

/* The struct ibv_device applications see for @vdev. */
static inline struct ibv_device *verbs_dev_ibv(struct verbs_device *vdev)
{
	return &vdev->pub->device;
}

/*
 * The members of ibv_qp_ex (21 in rdma-core 44, 22 from 45 on: wr_flush),
 * ibv_cq_ex (18), ibv_wq (1) and ibv_dm (2) the child guard wraps;
 * provider_guard.c checks the count.
 */
#define VERBS_GUARD_SLOTS ((IBV_RDMA_CORE_RELEASE >= 56 ? 22 : 21) + 18 + 1 + 2)

struct guard_fns;

/*
 * Library state of a context, reached through verbs_context.priv.
 */
struct verbs_ex_private {
	/* Who opened the context; first, for child_guard.h. */
	struct verbs_owner owner;
	/*
	 * The provider's ops as verbs_set_ops() collected them, completed
	 * with stubs where a verb calls without looking (provider_context.c).
	 * The public verbs call through it after their checks.
	 */
	struct verbs_context_ops ops;
	bool imported;
	/* RDMA_DRIVER_* the provider named for the context, 0 if none. */
	uint32_t driver_id;
	/*
	 * A plug-in's object callbacks the library wrapped
	 * (provider_guard.c): allocated at the first such object, written
	 * under cb_lock, read without it.
	 */
	struct handle_table *cb_table;
	pthread_mutex_t cb_lock;
	/*
	 * Per member of ibv_qp_ex, ibv_cq_ex, ibv_wq and ibv_dm, the
	 * provider's function while every object of the context has the
	 * same one, so that a wrapper calls it without a look-up; else a
	 * function that looks it up in cb_table per object.  The
	 * provider's functions themselves, interned, in guard_fns.
	 * Written under cb_lock (provider_guard.c).
	 */
	void (*guard_fn[VERBS_GUARD_SLOTS])(void);
	struct guard_fns *guard_fns;
};

/*
 * Every context the library hands out is a struct verbs_context (the
 * built-in providers' and the plug-ins' alike), so the library skips the
 * abi_compat check of verbs_get_ctx(), which guards applications.
 */
static inline struct verbs_ex_private *verbs_priv(struct ibv_context *ctx)
{
	return container_of(ctx, struct verbs_context, context)->priv;
}

static inline const struct verbs_context_ops *
verbs_ops(struct ibv_context *ctx)
{
	return &verbs_priv(ctx)->ops;
}

_Static_assert(offsetof(struct verbs_ex_private, owner) == 0,
	       "child_guard.h finds the owner at the private state");

/*
 * Context helpers (provider_context.c).  verbs_init_context(), called by
 * _verbs_init_and_alloc_context(), takes a device reference and sets up
 * the library's part of a context; verbs_uninit_context(), rdma-core's
 * exported function, undoes it and closes cmd_fd and async_fd, so a
 * provider calls it from free_context and on alloc_context's error path.
 */
int verbs_init_context(struct verbs_context *vctx, struct verbs_device *vdev,
		       int cmd_fd) IBV_HIDDEN;
void verbs_uninit_context(struct verbs_context *vctx);
void verbs_install_compat_ops(struct verbs_context *vctx) IBV_HIDDEN;

/*
 * The providers built into the library, each rdma-core's
 * verbs_provider_<name> of a static build (providers/<name>/); the
 * registry holds them ahead of the plug-ins (plugin_load.c).
 */
extern const struct verbs_device_ops verbs_provider_rxe IBV_HIDDEN;

#endif /* IBV_DRIVER_H */
