/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The command functions a provider plug-in built for rdma-core 44 calls
 * (IBVERBS_PRIVATE_34).  Names, argument lists and return conventions are
 * rdma-core v44.0's (libibverbs/driver.h, cmd_ioctl.h), because plug-ins
 * were compiled against them; the code behind them is the library's
 * command layer.
 *
 * Each returns 0 or a positive errno, and leaves that errno in errno too.
 * Every one that creates, modifies, queries or reads fails with EPERM
 * before reaching the kernel when its context was inherited across
 * fork(); every destroy and free then returns 0 without a kernel command
 * (the object is the parent's; the plug-in frees its own copy).
 *
 * This part: the ioctl() entry points and the objects served mostly by
 * ioctl methods (work queues and indirection tables, flows and flow
 * actions, device memory, counters, and the MR commands without a write()
 * form).
 */
#ifndef IBV_PROVIDER_CMD_H
#define IBV_PROVIDER_CMD_H

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kern_abi.h"
#include "provider_abi.h"

/* Layouts below depend on the release: a missing include must not pick 44. */
#ifndef IBV_RDMA_CORE_RELEASE
#error "IBV_RDMA_CORE_RELEASE is not defined: include <infiniband/verbs.h>"
#endif

/* ioctl() commands built by the plug-in (cmd_ioctl.c) */
int execute_ioctl(struct ibv_context *context,
		  struct ibv_command_buffer *cmd);
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
				     struct ibv_command_buffer *link);

/* Work queues and receive indirection tables (cmd_wq.c) */
int ibv_cmd_create_wq(struct ibv_context *context,
		      struct ibv_wq_init_attr *wq_init_attr,
		      struct ibv_wq *wq, struct ibv_create_wq *cmd,
		      size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp,
		      size_t resp_size);
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
		      struct ibv_modify_wq *cmd, size_t cmd_size);
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
int ibv_cmd_create_rwq_ind_table(
	struct ibv_context *context,
	struct ibv_rwq_ind_table_init_attr *init_attr,
	struct ibv_rwq_ind_table *rwq_ind_table,
	struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
	size_t resp_size);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table);

/* Flow steering and flow actions (cmd_flow.c) */
int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd,
			size_t ucmd_size);
int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				   struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver);
int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver);
int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action);

/* Device memory (cmd_dm.c) */
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length, unsigned int access,
		      struct verbs_mr *vmr, struct ibv_command_buffer *link);

/* Counters (cmd_counters.c) */
int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters,
			    struct ibv_command_buffer *link);
int ibv_cmd_destroy_counters(struct verbs_counters *vcounters);
int ibv_cmd_read_counters(struct verbs_counters *vcounters,
			  uint64_t *counters_value, uint32_t ncounters,
			  uint32_t flags, struct ibv_command_buffer *link);

/* Memory regions without a write() command (cmd_mr.c) */
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
#if IBV_RDMA_CORE_RELEASE >= 56
/* rdma-core 54 on: the plug-in's driver attributes chained (may be NULL). */
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr,
			  struct ibv_command_buffer *driver);
#else
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);
#endif

#if IBV_RDMA_CORE_RELEASE >= 65
/*
 * rdma-core 65's commands (IBVERBS_PRIVATE_65), one file each: DMA
 * handles (cmd_dmah.c), REG_MR with a DMA handle or a dma-buf
 * (cmd_mr_ex.c), a dma-buf of a device's memory (cmd_dmabuf.c), a port's
 * effective speed (cmd_port_speed.c), completion counters
 * (cmd_comp_cntr.c).  Signatures: rdma-core 65's libibverbs/driver.h.
 */
struct verbs_dmah;
int ibv_cmd_alloc_dmah(struct ibv_context *ctx, struct verbs_dmah *dmah,
		       struct ibv_dmah_init_attr *attr);
int ibv_cmd_free_dmah(struct verbs_dmah *dmah);
int ibv_cmd_reg_mr_ex(struct ibv_pd *pd, struct verbs_mr *vmr,
		      struct ibv_mr_init_attr *mr_init_attr);
int ibv_cmd_export_dmabuf_fd(struct ibv_context *ctx, off_t pg_off);
int ibv_cmd_query_port_speed(struct ibv_context *context, uint32_t port_num,
			     uint64_t *speed);
int ibv_cmd_query_comp_cntr_caps(struct ibv_context *context,
				 struct ibv_comp_cntr_caps *caps,
				 size_t caps_size);
int ibv_cmd_create_comp_cntr(struct ibv_context *context,
			     struct ibv_comp_cntr *comp_cntr,
			     struct ibv_command_buffer *link);
int ibv_cmd_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr);
int ibv_cmd_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_cmd_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			      uint64_t amount);
int ibv_cmd_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_cmd_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			       uint64_t *value);
int ibv_cmd_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_cmd_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			      uint64_t value);
int ibv_cmd_qp_attach_comp_cntr(struct ibv_qp *qp,
				struct ibv_comp_cntr *comp_cntr,
				struct ibv_qp_attach_comp_cntr_attr *attr);

/*
 * The dma-buf heap helpers mlx5 imports (dmabuf_heap.c; rdma-core 65's
 * libibverbs/dmabuf_heap.h).
 */
struct ibv_dmabuf_heap;
struct ibv_dmabuf_heap *ibv_dmabuf_heap_cc_shared_init(void);
void ibv_dmabuf_heap_destroy(struct ibv_dmabuf_heap *heap);
void *ibv_dmabuf_heap_alloc(struct ibv_dmabuf_heap *heap, size_t size,
			    int *dmabuf_fd);
void ibv_dmabuf_heap_free(void *buf, size_t size, int dmabuf_fd);
#endif

#endif /* IBV_PROVIDER_CMD_H */
