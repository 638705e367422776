/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The write() command structs of the provider ABI (IBVERBS_PRIVATE_34).
 *
 * A provider plug-in built for rdma-core 44 declares its own command as
 * one of these followed by its private request, and passes the whole
 * thing with its size to an ibv_cmd_* function.  The library finds the
 * plug-in's private part right after the struct (cmd + sizeof(struct
 * ibv_alloc_pd) .. cmd + cmd_size), so only the layout matters: the
 * command header, then the kernel's core struct from
 * <rdma/ib_user_verbs.h>.  Legacy commands start with struct
 * ib_uverbs_cmd_hdr, extended ones with struct ex_hdr (the header and
 * struct ib_uverbs_ex_cmd_hdr).
 *
 * Source of the facts: rdma-core v44.0's libibverbs/kern-abi.h (which
 * command gets which kind of header, the struct names) and pahole over
 * its build (sizes and offsets, in tests/host/abi/driver-layouts.txt,
 * checked by the host test abi.provider).  Plug-ins are compiled
 * already, so the members are reached through core_payload here; the
 * library fills the core itself and never reads what a plug-in put
 * there.
 */
#ifndef IBV_KERN_ABI_H
#define IBV_KERN_ABI_H

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"

/* Layouts below depend on the release: a missing include must not pick 44. */
#ifndef IBV_RDMA_CORE_RELEASE
#error "IBV_RDMA_CORE_RELEASE is not defined: include <infiniband/verbs.h>"
#endif

/* The two headers of an extended command. */
struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

/* A legacy command: header, then the kernel's struct @kabi. */
#define VERBS_KABI_CMD(name, kabi)                                           \
	struct name {                                                         \
		struct ib_uverbs_cmd_hdr hdr;                                 \
		struct kabi core_payload;                                     \
	}

/* An extended command: both headers, then the kernel's struct @kabi. */
#define VERBS_KABI_CMD_EX(name, kabi)                                        \
	struct name {                                                         \
		struct ex_hdr hdr;                                            \
		struct kabi core_payload;                                     \
	}

VERBS_KABI_CMD(ibv_alloc_mw, ib_uverbs_alloc_mw);
VERBS_KABI_CMD(ibv_alloc_pd, ib_uverbs_alloc_pd);
VERBS_KABI_CMD(ibv_attach_mcast, ib_uverbs_attach_mcast);
VERBS_KABI_CMD(ibv_close_xrcd, ib_uverbs_close_xrcd);
VERBS_KABI_CMD(ibv_create_ah, ib_uverbs_create_ah);
VERBS_KABI_CMD(ibv_create_comp_channel, ib_uverbs_create_comp_channel);
VERBS_KABI_CMD(ibv_create_cq, ib_uverbs_create_cq);
VERBS_KABI_CMD(ibv_create_qp, ib_uverbs_create_qp);
VERBS_KABI_CMD(ibv_create_srq, ib_uverbs_create_srq);
VERBS_KABI_CMD(ibv_create_xsrq, ib_uverbs_create_xsrq);
VERBS_KABI_CMD(ibv_dealloc_mw, ib_uverbs_dealloc_mw);
VERBS_KABI_CMD(ibv_dealloc_pd, ib_uverbs_dealloc_pd);
VERBS_KABI_CMD(ibv_dereg_mr, ib_uverbs_dereg_mr);
VERBS_KABI_CMD(ibv_destroy_ah, ib_uverbs_destroy_ah);
VERBS_KABI_CMD(ibv_destroy_cq, ib_uverbs_destroy_cq);
VERBS_KABI_CMD(ibv_destroy_qp, ib_uverbs_destroy_qp);
VERBS_KABI_CMD(ibv_destroy_srq, ib_uverbs_destroy_srq);
VERBS_KABI_CMD(ibv_detach_mcast, ib_uverbs_detach_mcast);
VERBS_KABI_CMD(ibv_get_context, ib_uverbs_get_context);
VERBS_KABI_CMD(ibv_modify_qp, ib_uverbs_modify_qp);
VERBS_KABI_CMD(ibv_modify_srq, ib_uverbs_modify_srq);
VERBS_KABI_CMD(ibv_open_qp, ib_uverbs_open_qp);
VERBS_KABI_CMD(ibv_open_xrcd, ib_uverbs_open_xrcd);
VERBS_KABI_CMD(ibv_poll_cq, ib_uverbs_poll_cq);
VERBS_KABI_CMD(ibv_post_recv, ib_uverbs_post_recv);
VERBS_KABI_CMD(ibv_post_send, ib_uverbs_post_send);
VERBS_KABI_CMD(ibv_post_srq_recv, ib_uverbs_post_srq_recv);
VERBS_KABI_CMD(ibv_query_device, ib_uverbs_query_device);
VERBS_KABI_CMD(ibv_query_port, ib_uverbs_query_port);
VERBS_KABI_CMD(ibv_query_qp, ib_uverbs_query_qp);
VERBS_KABI_CMD(ibv_query_srq, ib_uverbs_query_srq);
VERBS_KABI_CMD(ibv_reg_mr, ib_uverbs_reg_mr);
VERBS_KABI_CMD(ibv_req_notify_cq, ib_uverbs_req_notify_cq);
VERBS_KABI_CMD(ibv_rereg_mr, ib_uverbs_rereg_mr);
VERBS_KABI_CMD(ibv_resize_cq, ib_uverbs_resize_cq);

VERBS_KABI_CMD_EX(ibv_create_cq_ex, ib_uverbs_ex_create_cq);
VERBS_KABI_CMD_EX(ibv_create_flow, ib_uverbs_create_flow);
VERBS_KABI_CMD_EX(ibv_create_qp_ex, ib_uverbs_ex_create_qp);
VERBS_KABI_CMD_EX(ibv_create_rwq_ind_table,
		  ib_uverbs_ex_create_rwq_ind_table);
VERBS_KABI_CMD_EX(ibv_create_wq, ib_uverbs_ex_create_wq);
VERBS_KABI_CMD_EX(ibv_destroy_flow, ib_uverbs_destroy_flow);
VERBS_KABI_CMD_EX(ibv_destroy_rwq_ind_table,
		  ib_uverbs_ex_destroy_rwq_ind_table);
VERBS_KABI_CMD_EX(ibv_destroy_wq, ib_uverbs_ex_destroy_wq);
VERBS_KABI_CMD_EX(ibv_modify_cq, ib_uverbs_ex_modify_cq);
VERBS_KABI_CMD_EX(ibv_modify_qp_ex, ib_uverbs_ex_modify_qp);
VERBS_KABI_CMD_EX(ibv_modify_wq, ib_uverbs_ex_modify_wq);
VERBS_KABI_CMD_EX(ibv_query_device_ex, ib_uverbs_ex_query_device);

/* A quick guard; tests/host/abi checks every member's offset. */
_Static_assert(sizeof(struct ibv_create_qp) == 64,
	       "ibv_create_qp: rdma-core 44 ABI");
_Static_assert(sizeof(struct ibv_create_qp_ex) == 88,
	       "ibv_create_qp_ex: rdma-core 44 ABI");
_Static_assert(sizeof(struct ibv_modify_qp_ex) == 144,
	       "ibv_modify_qp_ex: rdma-core 44 ABI");

/*
 * The write() commands of the provider ABI, with rdma-core 44's
 * signatures (libibverbs/driver.h).  Each turns the plug-in's private
 * request (after the command struct) and response (after the core
 * response) into a struct vcmd_udata for the command layer, and writes
 * the core response back into the plug-in's buffer.  Each returns 0 or
 * a positive errno, except ibv_cmd_poll_cq() (the number of completions
 * or -1).  On a context inherited across fork() a command that creates,
 * modifies, queries or posts fails with EPERM and never reaches the
 * kernel; one that destroys returns 0 without a command, as the object
 * is the parent's.
 */
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
#if IBV_RDMA_CORE_RELEASE >= 65
/*
 * rdma-core 65: @prov_attr, the CQ buffer the provider allocated, which
 * the WITH_MEM_* @cmd_flags ask the kernel to use (may be NULL without
 * them).
 */
struct verbs_create_cq_prov_attr;
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_create_cq_prov_attr *prov_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_create_cq_ex2(struct ibv_context *context,
			  const struct ibv_cq_init_attr_ex *cq_attr,
			  struct verbs_create_cq_prov_attr *prov_attr,
			  struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			  size_t cmd_size,
			  struct ib_uverbs_ex_create_cq_resp *resp,
			  size_t resp_size, uint32_t cmd_flags,
			  struct ibv_command_buffer *driver);
#else
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
#endif
#if IBV_RDMA_CORE_RELEASE >= 56 && IBV_RDMA_CORE_RELEASE < 65
/* rdma-core 53 on: ibv_cmd_create_cq_ex() with driver attributes. */
int ibv_cmd_create_cq_ex2(struct ibv_context *context,
			  const struct ibv_cq_init_attr_ex *cq_attr,
			  struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			  size_t cmd_size,
			  struct ib_uverbs_ex_create_cq_resp *resp,
			  size_t resp_size, uint32_t cmd_flags,
			  struct ibv_command_buffer *driver);
#endif
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      struct ibv_modify_cq *cmd, size_t cmd_size);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
#if IBV_RDMA_CORE_RELEASE >= 65
/* rdma-core 65: the plug-in's driver attributes chained (may be NULL). */
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size, struct ibv_command_buffer *driver);
#else
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
#endif
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

#endif /* IBV_KERN_ABI_H */
