// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The IBVERBS_1.0 entry points, for binaries linked against libibverbs 1.0.
 *
 * libibverbs 1.1 gave the core objects (device, context, PD, MR, CQ, QP,
 * SRQ, AH) new layouts and moved the verbs that take them from node
 * IBVERBS_1.0 to IBVERBS_1.1.  A binary linked against 1.0 still binds
 * name@IBVERBS_1.0, so those 33 names stay exported as non-default
 * versions (one '@': only such binaries find them, new links get the 1.1
 * verb).  Each takes and returns objects of the 1.0 layout: a shell that
 * holds the 1.0 fields and a pointer to the real object, which the 1.1 verb
 * of the same name creates, checks and works on.  Argument checks, errno
 * and the fork child guard are therefore the 1.1 verb's.
 *
 * A 1.0 binary posts and polls through the ops table of its 1.0 context,
 * from inline functions compiled into it.  Those slots get the functions
 * below, which translate the 1.0 work requests and call the ops of the real
 * context - the same entries the 1.1 inline verbs call, which refuse an
 * object inherited across fork().  The other slots were never callable on
 * 1.0 objects and stay NULL.
 *
 * Where a 1.0 shell has a field the real object keeps too (handle, qp_num,
 * cqe, the context's descriptors) it is filled from the real object, as
 * libibverbs 1.0 itself did; rdma-core leaves some of them unset.
 *
 * The layouts are rdma-core 44's (libibverbs/compat-1_0.c, the structs
 * libibverbs 1.0's <infiniband/verbs.h> had); the offsets at which Debian's
 * libibverbs.so.1 (rdma-core 44.0-2) finds the real objects are checked at
 * the end of this file.
 *
 * ibv_register_driver@IBVERBS_1.1 is the registration call of drivers
 * written for libibverbs 1.1, before the provider interface became
 * private (rdma-core 13).  Such a driver cannot work with this library,
 * nor with rdma-core 44: the call only keeps old binaries that make it
 * (libfabric's usnic provider) loadable, and does nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs.h"

struct ibv_device_1_0 {
	void *obsolete_sysfs_dev;
	void *obsolete_sysfs_ibdev;
	struct ibv_device *real_device;
	struct _ibv_device_ops _ops;
};

struct ibv_context_1_0;
struct ibv_cq_1_0;
struct ibv_ah_1_0;

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

struct ibv_qp_init_attr_1_0 {
	void *qp_context;
	struct ibv_cq_1_0 *send_cq;
	struct ibv_cq_1_0 *recv_cq;
	struct ibv_srq_1_0 *srq;
	struct ibv_qp_cap cap;
	enum ibv_qp_type qp_type;
	int sq_sig_all;
};

/* The 1.1 struct up to its wr union, which has the same three members. */
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

struct ibv_ah_1_0 {
	struct ibv_context_1_0 *context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	struct ibv_ah *real_ah;
};

/*
 * The 1.0 ops table.  Only the data-path slots are filled; the others
 * took 1.1 objects and are kept for the layout.
 */
struct ibv_context_ops_1_0 {
	int (*query_device)(struct ibv_context *context,
			    struct ibv_device_attr *device_attr);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	int (*poll_cq)(struct ibv_cq_1_0 *cq, int num_entries,
		       struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq_1_0 *cq, int solicited_only);
	void (*cq_event)(struct ibv_cq *cq);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*post_srq_recv)(struct ibv_srq_1_0 *srq,
			     struct ibv_recv_wr_1_0 *recv_wr,
			     struct ibv_recv_wr_1_0 **bad_recv_wr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*post_send)(struct ibv_qp_1_0 *qp, struct ibv_send_wr_1_0 *wr,
			 struct ibv_send_wr_1_0 **bad_wr);
	int (*post_recv)(struct ibv_qp_1_0 *qp, struct ibv_recv_wr_1_0 *wr,
			 struct ibv_recv_wr_1_0 **bad_wr);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*attach_mcast)(struct ibv_qp *qp, union ibv_gid *gid,
			    uint16_t lid);
	int (*detach_mcast)(struct ibv_qp *qp, union ibv_gid *gid,
			    uint16_t lid);
};

struct ibv_context_1_0 {
	struct ibv_device_1_0 *device;
	struct ibv_context_ops_1_0 ops;
	int cmd_fd;
	int async_fd;
	int num_comp_vectors;
	struct ibv_context *real_context;
};

/* A libibverbs 1.1 driver's entry point, as ibv_register_driver took it. */
typedef struct ibv_device *(*ibv_driver_init_func_1_1)(const char *sysfs_path,
						       int abi_version);

/*
 * The entry points.  Each is defined under the local name NAME_compat and
 * bound to NAME@NODE by .symver; "local: *" in libibverbs.map keeps the
 * local names out of the dynamic symbol table.  The node must exist in the
 * map; nothing is listed there for these names.
 */
#define COMPAT_SYMVER(name, node) \
	__asm__(".symver " #name "_compat, " #name "@" node)

IBV_EXPORT struct ibv_device_1_0 **ibv_get_device_list_compat(int *num);
IBV_EXPORT void ibv_free_device_list_compat(struct ibv_device_1_0 **list);
IBV_EXPORT const char *
ibv_get_device_name_compat(struct ibv_device_1_0 *device);
IBV_EXPORT __be64 ibv_get_device_guid_compat(struct ibv_device_1_0 *device);
IBV_EXPORT struct ibv_context_1_0 *
ibv_open_device_compat(struct ibv_device_1_0 *device);
IBV_EXPORT int ibv_close_device_compat(struct ibv_context_1_0 *context);
IBV_EXPORT int ibv_get_async_event_compat(struct ibv_context_1_0 *context,
					  struct ibv_async_event *event);
IBV_EXPORT void ibv_ack_async_event_compat(struct ibv_async_event *event);
IBV_EXPORT int ibv_query_device_compat(struct ibv_context_1_0 *context,
				       struct ibv_device_attr *attr);
IBV_EXPORT int ibv_query_port_compat(struct ibv_context_1_0 *context,
				     uint8_t port_num,
				     struct ibv_port_attr *attr);
IBV_EXPORT int ibv_query_gid_compat(struct ibv_context_1_0 *context,
				    uint8_t port_num, int index,
				    union ibv_gid *gid);
IBV_EXPORT int ibv_query_pkey_compat(struct ibv_context_1_0 *context,
				     uint8_t port_num, int index, __be16 *pkey);
IBV_EXPORT struct ibv_pd_1_0 *
ibv_alloc_pd_compat(struct ibv_context_1_0 *context);
IBV_EXPORT int ibv_dealloc_pd_compat(struct ibv_pd_1_0 *pd);
IBV_EXPORT struct ibv_mr_1_0 *
ibv_reg_mr_compat(struct ibv_pd_1_0 *pd, void *addr, size_t length, int access);
IBV_EXPORT int ibv_dereg_mr_compat(struct ibv_mr_1_0 *mr);
IBV_EXPORT struct ibv_cq_1_0 *
ibv_create_cq_compat(struct ibv_context_1_0 *context, int cqe, void *cq_context,
		     struct ibv_comp_channel *channel, int comp_vector);
IBV_EXPORT int ibv_resize_cq_compat(struct ibv_cq_1_0 *cq, int cqe);
IBV_EXPORT int ibv_destroy_cq_compat(struct ibv_cq_1_0 *cq);
IBV_EXPORT int ibv_get_cq_event_compat(struct ibv_comp_channel *channel,
				       struct ibv_cq_1_0 **cq,
				       void **cq_context);
IBV_EXPORT void ibv_ack_cq_events_compat(struct ibv_cq_1_0 *cq,
					 unsigned int nevents);
IBV_EXPORT struct ibv_srq_1_0 *
ibv_create_srq_compat(struct ibv_pd_1_0 *pd, struct ibv_srq_init_attr *attr);
IBV_EXPORT int ibv_modify_srq_compat(struct ibv_srq_1_0 *srq,
				     struct ibv_srq_attr *attr, int attr_mask);
IBV_EXPORT int ibv_query_srq_compat(struct ibv_srq_1_0 *srq,
				    struct ibv_srq_attr *attr);
IBV_EXPORT int ibv_destroy_srq_compat(struct ibv_srq_1_0 *srq);
IBV_EXPORT struct ibv_qp_1_0 *
ibv_create_qp_compat(struct ibv_pd_1_0 *pd, struct ibv_qp_init_attr_1_0 *attr);
IBV_EXPORT int ibv_query_qp_compat(struct ibv_qp_1_0 *qp,
				   struct ibv_qp_attr *attr, int attr_mask,
				   struct ibv_qp_init_attr_1_0 *init_attr);
IBV_EXPORT int ibv_modify_qp_compat(struct ibv_qp_1_0 *qp,
				    struct ibv_qp_attr *attr, int attr_mask);
IBV_EXPORT int ibv_destroy_qp_compat(struct ibv_qp_1_0 *qp);
IBV_EXPORT struct ibv_ah_1_0 *ibv_create_ah_compat(struct ibv_pd_1_0 *pd,
						   struct ibv_ah_attr *attr);
IBV_EXPORT int ibv_destroy_ah_compat(struct ibv_ah_1_0 *ah);
IBV_EXPORT int ibv_attach_mcast_compat(struct ibv_qp_1_0 *qp,
				       union ibv_gid *gid, uint16_t lid);
IBV_EXPORT int ibv_detach_mcast_compat(struct ibv_qp_1_0 *qp,
				       union ibv_gid *gid, uint16_t lid);
IBV_EXPORT void ibv_register_driver_compat(const char *name,
					   ibv_driver_init_func_1_1 init);

COMPAT_SYMVER(ibv_get_device_list, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_free_device_list, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_get_device_name, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_get_device_guid, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_open_device, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_close_device, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_get_async_event, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_ack_async_event, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_query_device, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_query_port, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_query_gid, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_query_pkey, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_alloc_pd, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_dealloc_pd, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_reg_mr, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_dereg_mr, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_create_cq, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_resize_cq, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_destroy_cq, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_get_cq_event, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_ack_cq_events, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_create_srq, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_modify_srq, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_query_srq, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_destroy_srq, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_create_qp, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_query_qp, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_modify_qp, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_destroy_qp, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_create_ah, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_destroy_ah, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_attach_mcast, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_detach_mcast, "IBVERBS_1.0");
COMPAT_SYMVER(ibv_register_driver, "IBVERBS_1.1");

/*
 * From a shell to its real object.  NULL stays NULL, so that the 1.1 verb
 * rejects it with its own errno instead of this file guessing one.
 */
static struct ibv_device *real_device(struct ibv_device_1_0 *d)
{
	return d ? d->real_device : NULL;
}

static struct ibv_context *real_context(struct ibv_context_1_0 *c)
{
	return c ? c->real_context : NULL;
}

static struct ibv_pd *real_pd(struct ibv_pd_1_0 *pd)
{
	return pd ? pd->real_pd : NULL;
}

static struct ibv_cq *real_cq(struct ibv_cq_1_0 *cq)
{
	return cq ? cq->real_cq : NULL;
}

static struct ibv_srq *real_srq(struct ibv_srq_1_0 *srq)
{
	return srq ? srq->real_srq : NULL;
}

static struct ibv_qp *real_qp(struct ibv_qp_1_0 *qp)
{
	return qp ? qp->real_qp : NULL;
}

/* Devices */

/*
 * A 1.0 device list is one allocation: this header, then the
 * NULL-terminated array the caller gets, then the 1.0 devices it points
 * to.  The header keeps the real list, whose references hold the devices.
 */
struct compat_device_list {
	struct ibv_device **real;
	struct ibv_device_1_0 *list[];
};

struct ibv_device_1_0 **ibv_get_device_list_compat(int *num)
{
	struct compat_device_list *cl;
	struct ibv_device_1_0 *devs;
	struct ibv_device **real;
	int n, i;

	real = ibv_get_device_list(&n);
	if (!real)
		return NULL;

	cl = calloc(1, sizeof(*cl) + (n + 1) * sizeof(cl->list[0]) +
			       n * sizeof(*devs));
	if (!cl) {
		ibv_free_device_list(real);
		return verbs_null_errno(ENOMEM);
	}
	cl->real = real;
	devs = (struct ibv_device_1_0 *)&cl->list[n + 1];
	for (i = 0; i < n; i++) {
		devs[i].real_device = real[i];
		cl->list[i] = &devs[i];
	}
	if (num)
		*num = n;
	return cl->list;
}

void ibv_free_device_list_compat(struct ibv_device_1_0 **list)
{
	struct compat_device_list *cl;

	if (!list)
		return;
	cl = (struct compat_device_list *)((char *)list -
					   offsetof(struct compat_device_list,
						    list));
	ibv_free_device_list(cl->real);
	free(cl);
}

const char *ibv_get_device_name_compat(struct ibv_device_1_0 *device)
{
	return ibv_get_device_name(real_device(device));
}

__be64 ibv_get_device_guid_compat(struct ibv_device_1_0 *device)
{
	return ibv_get_device_guid(real_device(device));
}

/* Data path: the 1.0 context's ops */

/* Work requests translated on the stack; longer chains go to the heap. */
#define COMPAT_WR_BATCH 16

static int poll_cq_compat(struct ibv_cq_1_0 *cq, int num_entries,
			  struct ibv_wc *wc)
{
	struct ibv_cq *real = cq->real_cq;

	return real->context->ops.poll_cq(real, num_entries, wc);
}

static int req_notify_cq_compat(struct ibv_cq_1_0 *cq, int solicited_only)
{
	struct ibv_cq *real = cq->real_cq;

	return real->context->ops.req_notify_cq(real, solicited_only);
}

/*
 * One 1.0 send request as a 1.1 one.  The wr unions are the same bytes
 * (checked at the end of the file) except that a UD request names a 1.0
 * AH, which becomes its real AH.  Returns false for a UD request without
 * an AH, which the provider would dereference.
 */
static bool send_wr_from_1_0(bool ud, const struct ibv_send_wr_1_0 *w,
			     struct ibv_send_wr *r)
{
	memset(r, 0, sizeof(*r));
	r->wr_id = w->wr_id;
	r->sg_list = w->sg_list;
	r->num_sge = w->num_sge;
	r->opcode = w->opcode;
	r->send_flags = w->send_flags;
	r->imm_data = w->imm_data;
	memcpy(&r->wr, &w->wr, sizeof(w->wr));
	if (ud) {
		if (!w->wr.ud.ah)
			return false;
		r->wr.ud.ah = w->wr.ud.ah->real_ah;
	}
	return true;
}

/*
 * The position in the translated array of the request the provider
 * reported as bad, or 0 (the first) when it named none of them.
 */
static size_t bad_index(const void *array, size_t elem_size, size_t n,
			const void *bad)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((const char *)array + i * elem_size == bad)
			return i;
	return 0;
}

static int post_send_compat(struct ibv_qp_1_0 *qp, struct ibv_send_wr_1_0 *wr,
			    struct ibv_send_wr_1_0 **bad_wr)
{
	struct ibv_send_wr stack[COMPAT_WR_BATCH], *real, *real_bad = NULL;
	struct ibv_qp *rqp = qp->real_qp;
	bool ud = rqp->qp_type == IBV_QPT_UD;
	struct ibv_send_wr_1_0 *w;
	size_t n = 0, i;
	int ret = 0;

	for (w = wr; w; w = w->next)
		n++;
	real = n <= COMPAT_WR_BATCH ? stack : calloc(n, sizeof(*real));
	if (!real) {
		*bad_wr = wr;
		return ENOMEM;
	}
	/*
	 * A request that cannot be translated ends the chain: those before
	 * it are posted and it is the bad one, as if the provider had
	 * refused it.
	 */
	for (i = 0, w = wr; w; i++, w = w->next) {
		if (!send_wr_from_1_0(ud, w, &real[i]))
			break;
		if (i)
			real[i - 1].next = &real[i];
	}
	if (i)
		ret = rqp->context->ops.post_send(rqp, real, &real_bad);
	if (ret) {
		for (n = bad_index(real, sizeof(*real), i, real_bad), w = wr; n;
		     n--)
			w = w->next;
		*bad_wr = w;
	} else if (w) {
		*bad_wr = w;
		ret = EINVAL;
	}
	if (real != stack)
		free(real);
	return ret;
}

/*
 * post_recv and post_srq_recv: translate the chain, call @post on the
 * real object, and name the bad 1.0 request.
 */
typedef int (*post_recv_fn)(void *obj, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr);

static int post_recv_chain(post_recv_fn post, void *obj,
			   struct ibv_recv_wr_1_0 *wr,
			   struct ibv_recv_wr_1_0 **bad_wr)
{
	struct ibv_recv_wr stack[COMPAT_WR_BATCH], *real, *real_bad = NULL;
	struct ibv_recv_wr_1_0 *w;
	size_t n = 0, i;
	int ret = 0;

	for (w = wr; w; w = w->next)
		n++;
	real = n <= COMPAT_WR_BATCH ? stack : calloc(n, sizeof(*real));
	if (!real) {
		*bad_wr = wr;
		return ENOMEM;
	}
	for (i = 0, w = wr; w; i++, w = w->next) {
		real[i].next = NULL;
		real[i].wr_id = w->wr_id;
		real[i].sg_list = w->sg_list;
		real[i].num_sge = w->num_sge;
		if (i)
			real[i - 1].next = &real[i];
	}
	if (n)
		ret = post(obj, real, &real_bad);
	if (ret) {
		for (i = bad_index(real, sizeof(*real), n, real_bad), w = wr; i;
		     i--)
			w = w->next;
		*bad_wr = w;
	}
	if (real != stack)
		free(real);
	return ret;
}

static int post_qp_recv(void *obj, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct ibv_qp *qp = obj;

	return qp->context->ops.post_recv(qp, wr, bad_wr);
}

static int post_srq_recv(void *obj, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	struct ibv_srq *srq = obj;

	return srq->context->ops.post_srq_recv(srq, wr, bad_wr);
}

static int post_recv_compat(struct ibv_qp_1_0 *qp, struct ibv_recv_wr_1_0 *wr,
			    struct ibv_recv_wr_1_0 **bad_wr)
{
	return post_recv_chain(post_qp_recv, qp->real_qp, wr, bad_wr);
}

static int post_srq_recv_compat(struct ibv_srq_1_0 *srq,
				struct ibv_recv_wr_1_0 *wr,
				struct ibv_recv_wr_1_0 **bad_wr)
{
	return post_recv_chain(post_srq_recv, srq->real_srq, wr, bad_wr);
}

/* Contexts */

struct ibv_context_1_0 *ibv_open_device_compat(struct ibv_device_1_0 *device)
{
	struct ibv_context_1_0 *ctx;
	struct ibv_context *real;

	real = ibv_open_device(real_device(device));
	if (!real)
		return NULL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		ibv_close_device(real);
		return verbs_null_errno(ENOMEM);
	}
	ctx->device = device;
	ctx->real_context = real;
	ctx->cmd_fd = real->cmd_fd;
	ctx->async_fd = real->async_fd;
	ctx->num_comp_vectors = real->num_comp_vectors;
	ctx->ops.poll_cq = poll_cq_compat;
	ctx->ops.req_notify_cq = req_notify_cq_compat;
	ctx->ops.post_send = post_send_compat;
	ctx->ops.post_recv = post_recv_compat;
	ctx->ops.post_srq_recv = post_srq_recv_compat;
	return ctx;
}

int ibv_close_device_compat(struct ibv_context_1_0 *context)
{
	int ret = ibv_close_device(real_context(context));

	if (!ret)
		free(context);
	return ret;
}

/*
 * The event names the 1.0 shell: each real object's user context points
 * at its shell (set when the shell was made).
 */
int ibv_get_async_event_compat(struct ibv_context_1_0 *context,
			       struct ibv_async_event *event)
{
	int ret = ibv_get_async_event(real_context(context), event);

	if (ret)
		return ret;
	verbs_event_to_user_objects(event);
	return 0;
}

/* The acknowledgement counts on the real object, which destroy waits on. */
void ibv_ack_async_event_compat(struct ibv_async_event *event)
{
	struct ibv_async_event real;

	if (!event)
		return;
	real = *event;
	switch (event_object_of(event->event_type)) {
	case EV_CQ:
		real.element.cq =
			real_cq((struct ibv_cq_1_0 *)event->element.cq);
		break;
	case EV_QP:
		real.element.qp =
			real_qp((struct ibv_qp_1_0 *)event->element.qp);
		break;
	case EV_SRQ:
		real.element.srq =
			real_srq((struct ibv_srq_1_0 *)event->element.srq);
		break;
	case EV_WQ:	/* no 1.0 object: the real one is passed on */
	case EV_NONE:
		break;
	}
	ibv_ack_async_event(&real);
}

int ibv_query_device_compat(struct ibv_context_1_0 *context,
			    struct ibv_device_attr *attr)
{
	return ibv_query_device(real_context(context), attr);
}

/* The whole of today's struct, as rdma-core 44's 1.0 entry writes it. */
int ibv_query_port_compat(struct ibv_context_1_0 *context, uint8_t port_num,
			  struct ibv_port_attr *attr)
{
	return verbs_query_port_ext(real_context(context), port_num, attr,
				    sizeof(*attr));
}

int ibv_query_gid_compat(struct ibv_context_1_0 *context, uint8_t port_num,
			 int index, union ibv_gid *gid)
{
	return ibv_query_gid(real_context(context), port_num, index, gid);
}

int ibv_query_pkey_compat(struct ibv_context_1_0 *context, uint8_t port_num,
			  int index, __be16 *pkey)
{
	return ibv_query_pkey(real_context(context), port_num, index, pkey);
}

/* Protection domains and memory regions */

struct ibv_pd_1_0 *ibv_alloc_pd_compat(struct ibv_context_1_0 *context)
{
	struct ibv_pd_1_0 *pd;
	struct ibv_pd *real;

	real = ibv_alloc_pd(real_context(context));
	if (!real)
		return NULL;
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		ibv_dealloc_pd(real);
		return verbs_null_errno(ENOMEM);
	}
	pd->context = context;
	pd->handle = real->handle;
	pd->real_pd = real;
	return pd;
}

int ibv_dealloc_pd_compat(struct ibv_pd_1_0 *pd)
{
	int ret = ibv_dealloc_pd(real_pd(pd));

	if (!ret)
		free(pd);
	return ret;
}

struct ibv_mr_1_0 *ibv_reg_mr_compat(struct ibv_pd_1_0 *pd, void *addr,
				     size_t length, int access)
{
	struct ibv_mr_1_0 *mr;
	struct ibv_mr *real;

	real = ibv_reg_mr(real_pd(pd), addr, length, access);
	if (!real)
		return NULL;
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		ibv_dereg_mr(real);
		return verbs_null_errno(ENOMEM);
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->handle = real->handle;
	mr->lkey = real->lkey;
	mr->rkey = real->rkey;
	mr->real_mr = real;
	return mr;
}

int ibv_dereg_mr_compat(struct ibv_mr_1_0 *mr)
{
	int ret = ibv_dereg_mr(mr ? mr->real_mr : NULL);

	if (!ret)
		free(mr);
	return ret;
}

/* Completion queues */

struct ibv_cq_1_0 *ibv_create_cq_compat(struct ibv_context_1_0 *context,
					int cqe, void *cq_context,
					struct ibv_comp_channel *channel,
					int comp_vector)
{
	struct ibv_cq_1_0 *cq;
	struct ibv_cq *real;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return verbs_null_errno(ENOMEM);
	/*
	 * The real CQ's user context is the shell from the start: events
	 * name the CQ by it (ibv_get_cq_event_compat() and
	 * ibv_get_async_event_compat()).
	 */
	real = ibv_create_cq(real_context(context), cqe, cq, channel,
			     comp_vector);
	if (!real) {
		free(cq);
		return NULL;
	}
	cq->context = context;
	cq->cq_context = cq_context;
	cq->handle = real->handle;
	cq->cqe = real->cqe;
	cq->real_cq = real;
	return cq;
}

int ibv_resize_cq_compat(struct ibv_cq_1_0 *cq, int cqe)
{
	int ret = ibv_resize_cq(real_cq(cq), cqe);

	if (!ret)
		cq->cqe = cq->real_cq->cqe;
	return ret;
}

int ibv_destroy_cq_compat(struct ibv_cq_1_0 *cq)
{
	int ret = ibv_destroy_cq(real_cq(cq));

	if (!ret)
		free(cq);
	return ret;
}

int ibv_get_cq_event_compat(struct ibv_comp_channel *channel,
			    struct ibv_cq_1_0 **cq, void **cq_context)
{
	struct ibv_cq *real;
	void *shell;
	int ret;

	if (!cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	ret = ibv_get_cq_event(channel, &real, &shell);
	if (ret)
		return ret;
	*cq = shell;
	*cq_context = (*cq)->cq_context;
	return 0;
}

void ibv_ack_cq_events_compat(struct ibv_cq_1_0 *cq, unsigned int nevents)
{
	ibv_ack_cq_events(real_cq(cq), nevents);
}

/* Shared receive queues */

struct ibv_srq_1_0 *ibv_create_srq_compat(struct ibv_pd_1_0 *pd,
					  struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr init;
	struct ibv_srq_1_0 *srq;
	struct ibv_srq *real;

	if (!attr)
		return verbs_null_errno(EINVAL);
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return verbs_null_errno(ENOMEM);
	/* As for CQs, the real SRQ's user context is the shell. */
	init = *attr;
	init.srq_context = srq;
	real = ibv_create_srq(real_pd(pd), &init);
	if (!real) {
		free(srq);
		return NULL;
	}
	/* The sizes the provider granted. */
	attr->attr = init.attr;
	srq->context = pd->context;
	srq->srq_context = attr->srq_context;
	srq->pd = pd;
	srq->handle = real->handle;
	srq->real_srq = real;
	return srq;
}

int ibv_modify_srq_compat(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr,
			  int attr_mask)
{
	return ibv_modify_srq(real_srq(srq), attr, attr_mask);
}

int ibv_query_srq_compat(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr)
{
	return ibv_query_srq(real_srq(srq), attr);
}

int ibv_destroy_srq_compat(struct ibv_srq_1_0 *srq)
{
	int ret = ibv_destroy_srq(real_srq(srq));

	if (!ret)
		free(srq);
	return ret;
}

/* Queue pairs */

struct ibv_qp_1_0 *ibv_create_qp_compat(struct ibv_pd_1_0 *pd,
					struct ibv_qp_init_attr_1_0 *attr)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_1_0 *qp;
	struct ibv_qp *real;

	if (!attr)
		return verbs_null_errno(EINVAL);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return verbs_null_errno(ENOMEM);
	memset(&init, 0, sizeof(init));
	/* As for CQs, the real QP's user context is the shell. */
	init.qp_context = qp;
	init.send_cq = real_cq(attr->send_cq);
	init.recv_cq = real_cq(attr->recv_cq);
	init.srq = real_srq(attr->srq);
	init.cap = attr->cap;
	init.qp_type = attr->qp_type;
	init.sq_sig_all = attr->sq_sig_all;
	real = ibv_create_qp(real_pd(pd), &init);
	if (!real) {
		free(qp);
		return NULL;
	}
	/* The sizes the provider granted. */
	attr->cap = init.cap;
	qp->context = pd->context;
	qp->qp_context = attr->qp_context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->handle = real->handle;
	qp->qp_num = real->qp_num;
	qp->state = real->state;
	qp->qp_type = real->qp_type;
	qp->real_qp = real;
	return qp;
}

/*
 * The CQs and SRQ reported are the 1.0 ones the QP was created with (a QP
 * without an SRQ reports none).
 */
int ibv_query_qp_compat(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr_1_0 *init_attr)
{
	struct ibv_qp_init_attr init;
	int ret;

	if (!init_attr)
		return EINVAL;
	ret = ibv_query_qp(real_qp(qp), attr, attr_mask, &init);
	if (ret)
		return ret;
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	init_attr->cap = init.cap;
	init_attr->qp_type = init.qp_type;
	init_attr->sq_sig_all = init.sq_sig_all;
	return 0;
}

int ibv_modify_qp_compat(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr,
			 int attr_mask)
{
	int ret = ibv_modify_qp(real_qp(qp), attr, attr_mask);

	if (!ret)
		qp->state = qp->real_qp->state;
	return ret;
}

int ibv_destroy_qp_compat(struct ibv_qp_1_0 *qp)
{
	int ret = ibv_destroy_qp(real_qp(qp));

	if (!ret)
		free(qp);
	return ret;
}

int ibv_attach_mcast_compat(struct ibv_qp_1_0 *qp, union ibv_gid *gid,
			    uint16_t lid)
{
	return ibv_attach_mcast(real_qp(qp), gid, lid);
}

int ibv_detach_mcast_compat(struct ibv_qp_1_0 *qp, union ibv_gid *gid,
			    uint16_t lid)
{
	return ibv_detach_mcast(real_qp(qp), gid, lid);
}

/* Address handles */

struct ibv_ah_1_0 *ibv_create_ah_compat(struct ibv_pd_1_0 *pd,
					struct ibv_ah_attr *attr)
{
	struct ibv_ah_1_0 *ah;
	struct ibv_ah *real;

	real = ibv_create_ah(real_pd(pd), attr);
	if (!real)
		return NULL;
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		ibv_destroy_ah(real);
		return verbs_null_errno(ENOMEM);
	}
	ah->context = pd->context;
	ah->pd = pd;
	ah->handle = real->handle;
	ah->real_ah = real;
	return ah;
}

int ibv_destroy_ah_compat(struct ibv_ah_1_0 *ah)
{
	int ret = ibv_destroy_ah(ah ? ah->real_ah : NULL);

	if (!ret)
		free(ah);
	return ret;
}

/* See the top of the file: nothing to register, by design. */
void ibv_register_driver_compat(const char *name, ibv_driver_init_func_1_1 init)
{
}

/*
 * Where Debian's libibverbs.so.1 (rdma-core 44.0-2, x86_64) reads the real
 * object in each 1.0 struct, taken from its IBVERBS_1.0 entry points; and
 * what send_wr_from_1_0() relies on.
 */
#if defined(__x86_64__)
_Static_assert(offsetof(struct ibv_device_1_0, real_device) == 0x10,
	       "ibv_device_1_0");
_Static_assert(offsetof(struct ibv_context_1_0, real_context) == 0xf0,
	       "ibv_context_1_0");
_Static_assert(offsetof(struct ibv_pd_1_0, real_pd) == 0x10, "ibv_pd_1_0");
_Static_assert(offsetof(struct ibv_mr_1_0, real_mr) == 0x20, "ibv_mr_1_0");
_Static_assert(offsetof(struct ibv_cq_1_0, real_cq) == 0x78, "ibv_cq_1_0");
_Static_assert(offsetof(struct ibv_srq_1_0, real_srq) == 0x80, "ibv_srq_1_0");
_Static_assert(offsetof(struct ibv_qp_1_0, real_qp) == 0xa0, "ibv_qp_1_0");
_Static_assert(offsetof(struct ibv_ah_1_0, real_ah) == 0x18, "ibv_ah_1_0");
#endif
_Static_assert(offsetof(struct ibv_send_wr_1_0, wr) ==
		       offsetof(struct ibv_send_wr, wr),
	       "1.0 and 1.1 send requests have the wr union at one place");
_Static_assert(sizeof(((struct ibv_send_wr_1_0 *)0)->wr) ==
		       sizeof(((struct ibv_send_wr *)0)->wr),
	       "1.0 and 1.1 send requests have wr unions of one size");
_Static_assert(offsetof(struct ibv_send_wr_1_0, wr.rdma.rkey) ==
		       offsetof(struct ibv_send_wr, wr.rdma.rkey),
	       "RDMA fields at the same place");
_Static_assert(offsetof(struct ibv_send_wr_1_0, wr.atomic.rkey) ==
		       offsetof(struct ibv_send_wr, wr.atomic.rkey),
	       "atomic fields at the same place");
_Static_assert(offsetof(struct ibv_send_wr_1_0, wr.ud.remote_qkey) ==
		       offsetof(struct ibv_send_wr, wr.ud.remote_qkey),
	       "UD fields at the same place");
