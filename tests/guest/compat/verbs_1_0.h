/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The libibverbs 1.0 interface as a binary linked against libibverbs 1.0
 * sees it, for the tests of the compat entries: the 1.0 object layouts
 * (rdma-core 44's libibverbs/compat-1_0.c has them, as libibverbs 1.0's
 * <infiniband/verbs.h> defined them) and the 33 entry points bound by
 * .symver to name@IBVERBS_1.0, under the local names v10_NAME, plus
 * ibv_register_driver@IBVERBS_1.1 as v11_register_driver.
 *
 * Written for the tests, independently of libibverbs/compat_1_0.c, so that
 * a layout mistake there shows as a failure here; the same binary runs on
 * Debian's libibverbs, which proves these declarations.
 */
#ifndef TESTS_VERBS_1_0_H
#define TESTS_VERBS_1_0_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdint.h>

struct ibv_context_1_0;
struct ibv_ah_1_0;

struct ibv_device_1_0 {
	void *sysfs_dev;
	void *sysfs_ibdev;
	struct ibv_device *real_device;
	void *ops[2];
};

struct ibv_pd_1_0 {
	struct ibv_context_1_0 *context;
	uint32_t handle;
	struct ibv_pd *real_pd;
};

struct ibv_mr_1_0 {
	struct ibv_context_1_0 *context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
	struct ibv_mr *real_mr;
};

struct ibv_cq_1_0 {
	struct ibv_context_1_0 *context;
	void *cq_context;
	uint32_t handle;
	int cqe;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t comp_events_completed;
	uint32_t async_events_completed;
	struct ibv_cq *real_cq;
};

struct ibv_srq_1_0 {
	struct ibv_context_1_0 *context;
	void *srq_context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
	struct ibv_srq *real_srq;
};

struct ibv_qp_1_0 {
	struct ibv_context_1_0 *context;
	void *qp_context;
	struct ibv_pd_1_0 *pd;
	struct ibv_cq_1_0 *send_cq;
	struct ibv_cq_1_0 *recv_cq;
	struct ibv_srq_1_0 *srq;
	uint32_t handle;
	uint32_t qp_num;
	enum ibv_qp_state state;
	enum ibv_qp_type qp_type;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
	struct ibv_qp *real_qp;
};

struct ibv_ah_1_0 {
	struct ibv_context_1_0 *context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	struct ibv_ah *real_ah;
};

struct ibv_qp_init_attr_1_0 {
	void *qp_context;
	struct ibv_cq_1_0 *send_cq;
	struct ibv_cq_1_0 *recv_cq;
	struct ibv_srq_1_0 *srq;
	struct ibv_qp_cap cap;
	enum ibv_qp_type qp_type;
	int sq_sig_all;
};

struct ibv_send_wr_1_0 {
	struct ibv_send_wr_1_0 *next;
	uint64_t wr_id;
	struct ibv_sge *sg_list;
	int num_sge;
	enum ibv_wr_opcode opcode;
	int send_flags;
	__be32 imm_data;
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct ibv_ah_1_0 *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
};

struct ibv_recv_wr_1_0 {
	struct ibv_recv_wr_1_0 *next;
	uint64_t wr_id;
	struct ibv_sge *sg_list;
	int num_sge;
};

/*
 * The 1.0 context's ops: 27 slots, of which a 1.0 program's inline
 * functions call the five data-path ones named here.
 */
struct ibv_context_ops_1_0 {
	void *query_device, *query_port, *alloc_pd, *dealloc_pd, *reg_mr,
		*dereg_mr, *create_cq;
	int (*poll_cq)(struct ibv_cq_1_0 *cq, int num_entries,
		       struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq_1_0 *cq, int solicited_only);
	void *cq_event, *resize_cq, *destroy_cq, *create_srq, *modify_srq,
		*query_srq, *destroy_srq;
	int (*post_srq_recv)(struct ibv_srq_1_0 *srq,
			     struct ibv_recv_wr_1_0 *wr,
			     struct ibv_recv_wr_1_0 **bad_wr);
	void *create_qp, *query_qp, *modify_qp, *destroy_qp;
	int (*post_send)(struct ibv_qp_1_0 *qp, struct ibv_send_wr_1_0 *wr,
			 struct ibv_send_wr_1_0 **bad_wr);
	int (*post_recv)(struct ibv_qp_1_0 *qp, struct ibv_recv_wr_1_0 *wr,
			 struct ibv_recv_wr_1_0 **bad_wr);
	void *create_ah, *destroy_ah, *attach_mcast, *detach_mcast;
};

struct ibv_context_1_0 {
	struct ibv_device_1_0 *device;
	struct ibv_context_ops_1_0 ops;
	int cmd_fd;
	int async_fd;
	int num_comp_vectors;
	/* The real context (rdma-core keeps it in the old abi_compat). */
	struct ibv_context *real_context;
};

#define V10_BIND(name) \
	__asm__(".symver v10_" #name ", ibv_" #name "@IBVERBS_1.0")

struct ibv_device_1_0 **v10_get_device_list(int *num);
void v10_free_device_list(struct ibv_device_1_0 **list);
const char *v10_get_device_name(struct ibv_device_1_0 *device);
__be64 v10_get_device_guid(struct ibv_device_1_0 *device);
struct ibv_context_1_0 *v10_open_device(struct ibv_device_1_0 *device);
int v10_close_device(struct ibv_context_1_0 *context);
int v10_get_async_event(struct ibv_context_1_0 *context,
			struct ibv_async_event *event);
void v10_ack_async_event(struct ibv_async_event *event);
int v10_query_device(struct ibv_context_1_0 *context,
		     struct ibv_device_attr *attr);
int v10_query_port(struct ibv_context_1_0 *context, uint8_t port,
		   struct ibv_port_attr *attr);
int v10_query_gid(struct ibv_context_1_0 *context, uint8_t port, int index,
		  union ibv_gid *gid);
int v10_query_pkey(struct ibv_context_1_0 *context, uint8_t port, int index,
		   __be16 *pkey);
struct ibv_pd_1_0 *v10_alloc_pd(struct ibv_context_1_0 *context);
int v10_dealloc_pd(struct ibv_pd_1_0 *pd);
struct ibv_mr_1_0 *v10_reg_mr(struct ibv_pd_1_0 *pd, void *addr, size_t length,
			      int access);
int v10_dereg_mr(struct ibv_mr_1_0 *mr);
struct ibv_cq_1_0 *v10_create_cq(struct ibv_context_1_0 *context, int cqe,
				 void *cq_context,
				 struct ibv_comp_channel *channel,
				 int comp_vector);
int v10_resize_cq(struct ibv_cq_1_0 *cq, int cqe);
int v10_destroy_cq(struct ibv_cq_1_0 *cq);
int v10_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq_1_0 **cq,
		     void **cq_context);
void v10_ack_cq_events(struct ibv_cq_1_0 *cq, unsigned int nevents);
struct ibv_srq_1_0 *v10_create_srq(struct ibv_pd_1_0 *pd,
				   struct ibv_srq_init_attr *attr);
int v10_modify_srq(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr,
		   int attr_mask);
int v10_query_srq(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr);
int v10_destroy_srq(struct ibv_srq_1_0 *srq);
struct ibv_qp_1_0 *v10_create_qp(struct ibv_pd_1_0 *pd,
				 struct ibv_qp_init_attr_1_0 *attr);
int v10_query_qp(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr_1_0 *init_attr);
int v10_modify_qp(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr,
		  int attr_mask);
int v10_destroy_qp(struct ibv_qp_1_0 *qp);
struct ibv_ah_1_0 *v10_create_ah(struct ibv_pd_1_0 *pd,
				 struct ibv_ah_attr *attr);
int v10_destroy_ah(struct ibv_ah_1_0 *ah);
int v10_attach_mcast(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid);
int v10_detach_mcast(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid);
void v11_register_driver(const char *name,
			 struct ibv_device *(*init)(const char *path,
						    int abi_version));

V10_BIND(get_device_list);
V10_BIND(free_device_list);
V10_BIND(get_device_name);
V10_BIND(get_device_guid);
V10_BIND(open_device);
V10_BIND(close_device);
V10_BIND(get_async_event);
V10_BIND(ack_async_event);
V10_BIND(query_device);
V10_BIND(query_port);
V10_BIND(query_gid);
V10_BIND(query_pkey);
V10_BIND(alloc_pd);
V10_BIND(dealloc_pd);
V10_BIND(reg_mr);
V10_BIND(dereg_mr);
V10_BIND(create_cq);
V10_BIND(resize_cq);
V10_BIND(destroy_cq);
V10_BIND(get_cq_event);
V10_BIND(ack_cq_events);
V10_BIND(create_srq);
V10_BIND(modify_srq);
V10_BIND(query_srq);
V10_BIND(destroy_srq);
V10_BIND(create_qp);
V10_BIND(query_qp);
V10_BIND(modify_qp);
V10_BIND(destroy_qp);
V10_BIND(create_ah);
V10_BIND(destroy_ah);
V10_BIND(attach_mcast);
V10_BIND(detach_mcast);
__asm__(".symver v11_register_driver, ibv_register_driver@IBVERBS_1.1");

/* Each bound entry with its versioned name, for dlvsym() checks. */
struct v10_entry {
	const char *name;
	const char *version;
	void *bound;
};

#define V10_ENTRY(n)                                      \
	{                                                 \
		"ibv_" #n, "IBVERBS_1.0", (void *)v10_##n \
	}

static const struct v10_entry v10_entries[] __attribute__((unused)) = {
	V10_ENTRY(get_device_list),
	V10_ENTRY(free_device_list),
	V10_ENTRY(get_device_name),
	V10_ENTRY(get_device_guid),
	V10_ENTRY(open_device),
	V10_ENTRY(close_device),
	V10_ENTRY(get_async_event),
	V10_ENTRY(ack_async_event),
	V10_ENTRY(query_device),
	V10_ENTRY(query_port),
	V10_ENTRY(query_gid),
	V10_ENTRY(query_pkey),
	V10_ENTRY(alloc_pd),
	V10_ENTRY(dealloc_pd),
	V10_ENTRY(reg_mr),
	V10_ENTRY(dereg_mr),
	V10_ENTRY(create_cq),
	V10_ENTRY(resize_cq),
	V10_ENTRY(destroy_cq),
	V10_ENTRY(get_cq_event),
	V10_ENTRY(ack_cq_events),
	V10_ENTRY(create_srq),
	V10_ENTRY(modify_srq),
	V10_ENTRY(query_srq),
	V10_ENTRY(destroy_srq),
	V10_ENTRY(create_qp),
	V10_ENTRY(query_qp),
	V10_ENTRY(modify_qp),
	V10_ENTRY(destroy_qp),
	V10_ENTRY(create_ah),
	V10_ENTRY(destroy_ah),
	V10_ENTRY(attach_mcast),
	V10_ENTRY(detach_mcast),
	{ "ibv_register_driver", "IBVERBS_1.1", (void *)v11_register_driver },
};

#endif /* TESTS_VERBS_1_0_H */
