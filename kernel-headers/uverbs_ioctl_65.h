/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel uAPI ids of the ioctl methods rdma-core 65's commands use, which
 * bookworm's linux-libc-dev (6.1) predates: DMA handles, REG_MR, dma-buf
 * export, port speed and completion counters, and the attributes rdma-core
 * 65 added to methods 6.1 has: GET_CONTEXT's fd array and CQ_CREATE's
 * provider buffer.
 *
 * Source: the enums of rdma-core v65.0's kernel-headers/rdma/
 * ib_user_ioctl_cmds.h and ib_user_ioctl_verbs.h (the kernel's uAPI, whose
 * values never change), evaluated, not copied.  The names are private
 * (IBV_K65_ for the kernel's UVERBS_ / IB_UVERBS_), so that a newer
 * linux-libc-dev that has the enumerators cannot clash with them.
 */
#ifndef IBV_UVERBS_IOCTL_65_H
#define IBV_UVERBS_IOCTL_65_H

/* enum uverbs_default_objects */
#define IBV_K65_OBJECT_DEVICE 0
#define IBV_K65_OBJECT_QP 4
#define IBV_K65_OBJECT_MR 7
#define IBV_K65_OBJECT_DMAH 17
#define IBV_K65_OBJECT_DMABUF 18
#define IBV_K65_OBJECT_COMP_CNTR 19

/* enum uverbs_attrs_get_context_attr_ids, after CORE_SUPPORT */
#define IBV_K65_ATTR_GET_CONTEXT_FD_ARR 2

/*
 * enum uverbs_attrs_create_cq_cmd_attr_ids, after EVENT_FD: the CQ buffer
 * a provider allocated, at a virtual address or in a dma-buf.
 */
#define IBV_K65_ATTR_CREATE_CQ_BUFFER_VA 8
#define IBV_K65_ATTR_CREATE_CQ_BUFFER_LENGTH 9
#define IBV_K65_ATTR_CREATE_CQ_BUFFER_FD 10
#define IBV_K65_ATTR_CREATE_CQ_BUFFER_OFFSET 11

/* enum uverbs_methods_device */
#define IBV_K65_METHOD_QUERY_PORT_SPEED 7
#define IBV_K65_METHOD_QUERY_COMP_CNTR_CAPS 8

/* enum uverbs_attrs_query_port_speed_cmd_attr_ids */
#define IBV_K65_ATTR_QUERY_PORT_SPEED_PORT_NUM 0
#define IBV_K65_ATTR_QUERY_PORT_SPEED_RESP 1

/* enum uverbs_attrs_query_comp_cntr_caps_attr_ids */
#define IBV_K65_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS 0
#define IBV_K65_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE 1
#define IBV_K65_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS 2

/* enum uverbs_methods_qp, enum uverbs_attrs_qp_attach_comp_cntr_cmd_attr_ids */
#define IBV_K65_METHOD_QP_ATTACH_COMP_CNTR 2
#define IBV_K65_ATTR_QP_ATTACH_COMP_CNTR_HANDLE 0
#define IBV_K65_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE 1
#define IBV_K65_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK 2

/* enum uverbs_methods_dmah and its attributes */
#define IBV_K65_METHOD_DMAH_ALLOC 0
#define IBV_K65_METHOD_DMAH_FREE 1
#define IBV_K65_ATTR_ALLOC_DMAH_HANDLE 0
#define IBV_K65_ATTR_ALLOC_DMAH_CPU_ID 1
#define IBV_K65_ATTR_ALLOC_DMAH_TPH_MEM_TYPE 2
#define IBV_K65_ATTR_ALLOC_DMAH_PH 3
#define IBV_K65_ATTR_FREE_DMA_HANDLE 0

/* enum uverbs_methods_dmabuf and its attributes */
#define IBV_K65_METHOD_DMABUF_ALLOC 0
#define IBV_K65_ATTR_ALLOC_DMABUF_HANDLE 0
#define IBV_K65_ATTR_ALLOC_DMABUF_PGOFF 1

/* enum uverbs_methods_mr: UVERBS_METHOD_REG_MR and its attributes */
#define IBV_K65_METHOD_REG_MR 5
#define IBV_K65_ATTR_REG_MR_HANDLE 0
#define IBV_K65_ATTR_REG_MR_PD_HANDLE 1
#define IBV_K65_ATTR_REG_MR_DMA_HANDLE 2
#define IBV_K65_ATTR_REG_MR_IOVA 3
#define IBV_K65_ATTR_REG_MR_ADDR 4
#define IBV_K65_ATTR_REG_MR_LENGTH 5
#define IBV_K65_ATTR_REG_MR_ACCESS_FLAGS 6
#define IBV_K65_ATTR_REG_MR_FD 7
#define IBV_K65_ATTR_REG_MR_FD_OFFSET 8
#define IBV_K65_ATTR_REG_MR_RESP_LKEY 9
#define IBV_K65_ATTR_REG_MR_RESP_RKEY 10

/* enum uverbs_methods_comp_cntr and the attributes of each method */
#define IBV_K65_METHOD_COMP_CNTR_CREATE 0
#define IBV_K65_METHOD_COMP_CNTR_DESTROY 1
#define IBV_K65_METHOD_COMP_CNTR_MODIFY 2
#define IBV_K65_METHOD_COMP_CNTR_READ 3
#define IBV_K65_ATTR_CREATE_COMP_CNTR_HANDLE 0
#define IBV_K65_ATTR_DESTROY_COMP_CNTR_HANDLE 0
#define IBV_K65_ATTR_MODIFY_COMP_CNTR_HANDLE 0
#define IBV_K65_ATTR_MODIFY_COMP_CNTR_ENTRY 1
#define IBV_K65_ATTR_MODIFY_COMP_CNTR_OP 2
#define IBV_K65_ATTR_MODIFY_COMP_CNTR_VALUE 3
#define IBV_K65_ATTR_READ_COMP_CNTR_HANDLE 0
#define IBV_K65_ATTR_READ_COMP_CNTR_ENTRY 1
#define IBV_K65_ATTR_READ_COMP_CNTR_RESP_VALUE 2

/* ib_user_ioctl_verbs.h: enum ib_uverbs_comp_cntr_entry, _modify_op */
#define IBV_K65_COMP_CNTR_ENTRY_COMP 0
#define IBV_K65_COMP_CNTR_ENTRY_ERR 1
#define IBV_K65_COMP_CNTR_MODIFY_OP_SET 0
#define IBV_K65_COMP_CNTR_MODIFY_OP_INC 1

/*
 * enum ib_uverbs_qp_attach_comp_cntr_op: the same bits as verbs.h's
 * IBV_QP_ATTACH_COMP_CNTR_OP_* (send 0, recv 1, read 2, remote read 3,
 * write 4, remote write 5); the commands map them one by one all the same.
 */
#define IBV_K65_QP_ATTACH_COMP_CNTR_OP_SEND (1U << 0)
#define IBV_K65_QP_ATTACH_COMP_CNTR_OP_RECV (1U << 1)
#define IBV_K65_QP_ATTACH_COMP_CNTR_OP_RDMA_READ (1U << 2)
#define IBV_K65_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ (1U << 3)
#define IBV_K65_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE (1U << 4)
#define IBV_K65_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE (1U << 5)

#endif /* IBV_UVERBS_IOCTL_65_H */
