/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The plug-in-facing provider ABI: the structs a provider plug-in built
 * for rdma-core 44 (IBVERBS_PRIVATE_34, e.g. Debian bookworm's
 * ibverbs-providers) shares with the library, laid out exactly as that
 * plug-in was compiled against them.
 *
 * Source of the facts: rdma-core v44.0's libibverbs/driver.h (member
 * names, types, op signatures and the order of the ops) and pahole over
 * its build (sizes and offsets, recorded in tests/host/abi/
 * driver-layouts.txt and checked by the host test abi.provider).  The
 * extended objects a plug-in allocates (verbs_mr, verbs_cq, verbs_qp, ...)
 * are in driver.h, shared with the built-in providers.
 *
 * This is the library's one provider interface: the built-in providers
 * implement it as the plug-ins do, and the library registers, matches,
 * opens and wraps both alike (plugin_load.c, provider_match.c,
 * provider_context.c; see Documentation/provider-abi.md).
 *
 * Where upstream's name is free it is kept, as a plug-in's source and
 * symbols use it.  upstream's struct verbs_device is the library's own
 * device struct here, so its plug-in-facing twin is struct
 * verbs_plugin_device: a provider's alloc_device returns one (embedded in
 * the provider's own device struct), and the library keeps its own state
 * beside it, never inside.
 */
#ifndef IBV_PROVIDER_ABI_H
#define IBV_PROVIDER_ABI_H

#include <infiniband/verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct verbs_mr;
struct verbs_plugin_device;
struct verbs_sysfs_dev;

/* A doubly linked list node as plug-ins embed it (two pointers). */
struct verbs_plugin_list_node {
	struct verbs_plugin_list_node *next;
	struct verbs_plugin_list_node *prev;
};

/* verbs_match_ent.kind */
enum {
	VERBS_MATCH_SENTINEL = 0,	/* ends a match table */
	VERBS_MATCH_PCI = 1,		/* vendor and device */
	VERBS_MATCH_MODALIAS = 2,	/* u.modalias, a glob */
	VERBS_MATCH_DRIVER_ID = 3,	/* u.driver_id, RDMA_DRIVER_* */
};

/* One entry of a plug-in's match table. */
struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/*
 * What a plug-in registers (verbs_register_driver_34): how to recognise
 * its devices and how to create device and context structs.
 */
struct verbs_device_ops {
	const char *name;

	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_plugin_device *(*alloc_device)(
		struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_plugin_device *device);
};

/* rdma-core 44's struct verbs_device, as a plug-in allocates it. */
struct verbs_plugin_device {
	struct ibv_device device;
	const struct verbs_device_ops *ops;
	_Atomic int refcount;
	struct verbs_plugin_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/* verbs_sysfs_dev.flags: which optional sysfs files were read. */
enum {
	VSYSFS_READ_MODALIAS = 1 << 0,
	VSYSFS_READ_NODE_GUID = 1 << 1,
};

/* A uverbs device as found in sysfs, handed to the plug-in's matchers. */
struct verbs_sysfs_dev {
	struct verbs_plugin_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

/*
 * Every op a plug-in can implement, one pointer each, in rdma-core 44's
 * order (alphabetical): a plug-in passes a table of this layout to
 * verbs_set_ops() and leaves unsupported ops NULL.  rdma-core 65 added
 * 17 ops in their alphabetical places (DMA handles, buffers, completion
 * counters, reg_mr_ex, dmabuf export, port speed): 93 slots, not 76.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
#if IBV_RDMA_CORE_RELEASE >= 65
	void *(*alloc_buf)(struct ibv_pd *pd, size_t size,
			   struct ibv_buf **buf);
#endif
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
#if IBV_RDMA_CORE_RELEASE >= 65
	struct ibv_dmah *(*alloc_dmah)(struct ibv_context *context,
				       struct ibv_dmah_init_attr *attr);
#endif
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
#if IBV_RDMA_CORE_RELEASE >= 65
	struct ibv_comp_cntr *(*create_comp_cntr)(
		struct ibv_context *context,
		struct ibv_comp_cntr_init_attr *attr);
#endif
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *attr);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*dealloc_dmah)(struct ibv_dmah *dmah);
#endif
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*destroy_comp_cntr)(struct ibv_comp_cntr *comp_cntr);
#endif
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*dm_export_dmabuf_fd)(struct ibv_dm *dm);
	void (*free_buf)(struct ibv_buf *buf);
#endif
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*inc_comp_cntr)(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
	int (*inc_err_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
				 uint64_t amount);
#endif
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*qp_attach_comp_cntr)(struct ibv_qp *qp,
				   struct ibv_comp_cntr *comp_cntr,
				   struct ibv_qp_attach_comp_cntr_attr *attr);
	int (*query_comp_cntr_caps)(struct ibv_context *context,
				    struct ibv_comp_cntr_caps *caps,
				    size_t caps_size);
#endif
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *attr);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*query_port_speed)(struct ibv_context *context, uint32_t port_num,
				uint64_t *speed);
#endif
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*read_comp_cntr)(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
#endif
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*read_err_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
				  uint64_t *value);
#endif
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
#if IBV_RDMA_CORE_RELEASE >= 65
	struct ibv_mr *(*reg_mr_ex)(struct ibv_pd *pd,
				    struct ibv_mr_init_attr *mr_init_attr);
#endif
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*set_comp_cntr)(struct ibv_comp_cntr *comp_cntr, uint64_t value);
#endif
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
#if IBV_RDMA_CORE_RELEASE >= 65
	int (*set_err_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
				 uint64_t value);
#endif
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/*
 * The ioctl command a plug-in builds on its stack for the library's
 * execute_ioctl() (rdma-core 44's cmd_ioctl.h): the kernel's header, whose
 * attrs[] are the ib_uverbs_attr entries that follow the struct in the
 * same array, and the range still free to fill.  Chained through next when
 * a plug-in's driver attributes extend a library command.  The uhw_*
 * fields serve the legacy write fallback: where the driver's input and
 * output data sit among the attributes, and the room in 32-bit words the
 * library needs in front of them for the write command's own header and
 * struct.
 */
struct ibv_command_buffer {
	struct ibv_command_buffer *next;
	struct ib_uverbs_attr *next_attr;
	struct ib_uverbs_attr *last_attr;
	uint8_t uhw_in_idx;
	uint8_t uhw_out_idx;
	uint8_t uhw_in_headroom_dwords;
	uint8_t uhw_out_headroom_dwords;
	/* More attributes were filled than the buffer holds. */
	uint8_t buffer_error : 1;
	/* Without ioctl: fall back to the extended write command only. */
	uint8_t fallback_require_ex : 1;
	/* Without ioctl: fail, there is no write command for it. */
	uint8_t fallback_ioctl_only : 1;
	struct ib_uverbs_ioctl_hdr hdr;
};

/* uhw_in_idx / uhw_out_idx: no driver data of that direction. */
#define IBV_COMMAND_UHW_NO_INDEX 0xFF

/*
 * The provider interface's number, rdma-core's IBVERBS_PABI_VERSION: 34
 * from rdma-core 34 to 56, 65 at 65 (57 and 59 renamed it in between;
 * facts: rdma-core's CMakeLists.txt).  It names the private version node,
 * the plug-ins' file suffix and the entry point their constructors call,
 * so a plug-in built for another interface fails to load instead of
 * sharing structs of another shape.  buildlib/release.cmake derives the
 * same number for CMake.
 */
#if IBV_RDMA_CORE_RELEASE >= 65
#define VERBS_PABI_VERSION 65
#define VERBS_REGISTER_DRIVER verbs_register_driver_65
#else
#define VERBS_PABI_VERSION 34
#define VERBS_REGISTER_DRIVER verbs_register_driver_34
#endif
#define VERBS_PABI_STR_(n) #n
#define VERBS_PABI_STR(n) VERBS_PABI_STR_(n)
#define VERBS_PROVIDER_SUFFIX "-rdmav" VERBS_PABI_STR(VERBS_PABI_VERSION) ".so"

/*
 * The IBVERBS_PRIVATE_<VERBS_PABI_VERSION> functions a plug-in calls,
 * with rdma-core 44's signatures (its libibverbs/driver.h) and the
 * changes of later releases where marked.
 */

/* Called by a plug-in's constructor: the library may now match it. */
void VERBS_REGISTER_DRIVER(const struct verbs_device_ops *ops);

/* __verbs_log() levels, as VERBS_LOG_LEVEL gives them. */
enum {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

#define VERBS_LOG_FMT(a, b) __attribute__((format(printf, a, b)))

void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt,
		 ...) VERBS_LOG_FMT(3, 4);

int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...) VERBS_LOG_FMT(4, 5);

/* Contexts (provider_context.c) */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);
struct ibv_context *verbs_open_device(struct ibv_device *device,
				      void *private_data);
/*
 * When set (RDMAV_ALLOW_DISASSOC_DESTROY), a destroy command the kernel
 * fails with EIO because the device was disassociated counts as done.
 */
extern bool verbs_allow_disassociate_destroy;

/*
 * The context and device commands (cmd_device.c).  The write command
 * structs are kern_abi.h's, with the other commands; only pointers are
 * needed here.
 */
struct ibv_get_context;
struct ibv_query_port;
struct ib_uverbs_get_context_resp;
struct ib_uverbs_ex_query_device_resp;

#if IBV_RDMA_CORE_RELEASE >= 65
/* rdma-core 65: file descriptors for the kernel (may be NULL). */
struct ibv_fd_arr;
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ibv_fd_arr *fd_arr,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
#else
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
#endif
int ibv_cmd_query_context(struct ibv_context *ctx,
			  struct ibv_command_buffer *driver);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);

/*
 * Last, for the extended objects (verbs_mr, verbs_cq, ...) that users of
 * this header need as well: driver.h includes this header first itself.
 */
#include "driver.h"

#endif /* IBV_PROVIDER_ABI_H */
