/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Behaviour of the inline verbs in <infiniband/verbs.h>.
 *
 * The inline verbs are compiled into applications, so what they do is ABI:
 * which ops slot they call, when they fall back to an exported function,
 * and which errno / return value they use when the provider lacks an op.
 * This program plays the provider (a hand-made struct verbs_context) and
 * the library (stubs for the exported functions the inlines call) and
 * checks each inline verb.  It must pass with our headers and with
 * rdma-core's, built as C and as C++ (see headers_smoke.py).
 */
#include <infiniband/verbs.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures;

#define CHECK(cond)							\
	do {								\
		checks++;						\
		if (!(cond)) {						\
			failures++;					\
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n",	\
				__FILE__, __LINE__, #cond);		\
		}							\
	} while (0)

#define USE(x) ((void)(x))

/* Name of the last fake entry point reached, and a recognisable pointer. */
static const char *hit;
static char sentinel_obj;
#define SENT ((void *)&sentinel_obj)
#define HIT(name) (hit = (name))
#define WAS(name) (hit && strcmp(hit, (name)) == 0)

static size_t last_size;	/* size argument seen by a fake */
static uint64_t last_u64;
static unsigned int last_uint;

/* ---- the library: exported functions the inline verbs fall back to ---- */

int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr)
{
	USE(context);
	HIT("ibv_query_device");
	device_attr->max_qp = 77;
	return 0;
}

int (ibv_query_port)(struct ibv_context *context, uint8_t port_num,
		     struct _compat_ibv_port_attr *port_attr)
{
	USE(context);
	USE(port_num);
	HIT("ibv_query_port");
	((struct ibv_port_attr *)(void *)port_attr)->lid = 9;
	return 0;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
			    int access)
{
	USE(pd);
	USE(addr);
	USE(length);
	HIT("ibv_reg_mr");
	last_uint = (unsigned int)access;
	return (struct ibv_mr *)SENT;
}

struct ibv_mr *(ibv_reg_mr_iova)(struct ibv_pd *pd, void *addr,
				 size_t length, uint64_t iova, int access)
{
	USE(pd);
	USE(addr);
	USE(length);
	HIT("ibv_reg_mr_iova");
	last_u64 = iova;
	last_uint = (unsigned int)access;
	return (struct ibv_mr *)SENT;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	USE(pd);
	USE(addr);
	USE(length);
	HIT("ibv_reg_mr_iova2");
	last_u64 = iova;
	last_uint = access;
	return (struct ibv_mr *)SENT;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	USE(context);
	USE(port_num);
	USE(gid_index);
	USE(entry);
	USE(flags);
	HIT("_ibv_query_gid_ex");
	last_size = entry_size;
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	USE(context);
	USE(entries);
	USE(flags);
	HIT("_ibv_query_gid_table");
	last_size = entry_size;
	return (ssize_t)max_entries;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *srq_init_attr)
{
	USE(pd);
	USE(srq_init_attr);
	HIT("ibv_create_srq");
	return (struct ibv_srq *)SENT;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	USE(pd);
	USE(qp_init_attr);
	HIT("ibv_create_qp");
	return (struct ibv_qp *)SENT;
}

/* ---- the provider: legacy ops ---- */

static int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	USE(cq);
	USE(wc);
	HIT("poll_cq");
	return num_entries - 1;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	USE(cq);
	HIT("req_notify_cq");
	return 100 + solicited_only;
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr)
{
	USE(qp);
	*bad_wr = wr;
	HIT("post_send");
	return 201;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	USE(qp);
	*bad_wr = wr;
	HIT("post_recv");
	return 202;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	USE(srq);
	*bad_wr = wr;
	HIT("post_srq_recv");
	return 203;
}

static struct ibv_mw *fake_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	USE(pd);
	USE(type);
	HIT("alloc_mw");
	return (struct ibv_mw *)SENT;
}

static int fake_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			struct ibv_mw_bind *mw_bind)
{
	USE(qp);
	USE(mw);
	USE(mw_bind);
	HIT("bind_mw");
	return 204;
}

static int fake_dealloc_mw(struct ibv_mw *mw)
{
	USE(mw);
	HIT("dealloc_mw");
	return 205;
}

/* ---- the provider: extended ops ---- */

#define FAKE_PTR(op, ret_type, ...)					\
	static ret_type fake_##op(__VA_ARGS__)				\
	{								\
		HIT(#op);						\
		return (ret_type)SENT;					\
	}
#define FAKE_INT(op, ...)						\
	static int fake_##op(__VA_ARGS__)				\
	{								\
		HIT(#op);						\
		return 4242;						\
	}

/* The fakes ignore most of their arguments. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
FAKE_PTR(alloc_td, struct ibv_td *, struct ibv_context *c,
	 struct ibv_td_init_attr *a)
FAKE_INT(dealloc_td, struct ibv_td *td)
FAKE_PTR(alloc_parent_domain, struct ibv_pd *, struct ibv_context *c,
	 struct ibv_parent_domain_init_attr *a)
FAKE_PTR(open_xrcd, struct ibv_xrcd *, struct ibv_context *c,
	 struct ibv_xrcd_init_attr *a)
FAKE_INT(close_xrcd, struct ibv_xrcd *x)
FAKE_PTR(alloc_null_mr, struct ibv_mr *, struct ibv_pd *pd)
FAKE_INT(advise_mr, struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
	 uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sges)
FAKE_PTR(alloc_dm, struct ibv_dm *, struct ibv_context *c,
	 struct ibv_alloc_dm_attr *a)
FAKE_INT(free_dm, struct ibv_dm *dm)
FAKE_PTR(reg_dm_mr, struct ibv_mr *, struct ibv_pd *pd, struct ibv_dm *dm,
	 uint64_t off, size_t len, unsigned int access)
FAKE_PTR(create_cq_ex, struct ibv_cq_ex *, struct ibv_context *c,
	 struct ibv_cq_init_attr_ex *a)
FAKE_INT(modify_cq, struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
FAKE_PTR(create_srq_ex, struct ibv_srq *, struct ibv_context *c,
	 struct ibv_srq_init_attr_ex *a)
FAKE_INT(get_srq_num, struct ibv_srq *srq, uint32_t *num)
FAKE_INT(post_srq_ops, struct ibv_srq *srq, struct ibv_ops_wr *op,
	 struct ibv_ops_wr **bad)
FAKE_PTR(create_qp_ex, struct ibv_qp *, struct ibv_context *c,
	 struct ibv_qp_init_attr_ex *a)
FAKE_PTR(open_qp, struct ibv_qp *, struct ibv_context *c,
	 struct ibv_qp_open_attr *a)
FAKE_INT(modify_qp_rate_limit, struct ibv_qp *qp,
	 struct ibv_qp_rate_limit_attr *a)
FAKE_INT(modify_wq, struct ibv_wq *wq, struct ibv_wq_attr *a)
FAKE_INT(destroy_wq, struct ibv_wq *wq)
FAKE_PTR(create_rwq_ind_table, struct ibv_rwq_ind_table *,
	 struct ibv_context *c, struct ibv_rwq_ind_table_init_attr *a)
FAKE_INT(destroy_rwq_ind_table, struct ibv_rwq_ind_table *t)
FAKE_PTR(ibv_create_flow, struct ibv_flow *, struct ibv_qp *qp,
	 struct ibv_flow_attr *a)
FAKE_INT(ibv_destroy_flow, struct ibv_flow *f)
FAKE_PTR(create_flow_action_esp, struct ibv_flow_action *,
	 struct ibv_context *c, struct ibv_flow_action_esp_attr *a)
FAKE_INT(modify_flow_action_esp, struct ibv_flow_action *fa,
	 struct ibv_flow_action_esp_attr *a)
FAKE_INT(destroy_flow_action, struct ibv_flow_action *fa)
FAKE_PTR(create_counters, struct ibv_counters *, struct ibv_context *c,
	 struct ibv_counters_init_attr *a)
FAKE_INT(destroy_counters, struct ibv_counters *cs)
FAKE_INT(attach_counters_point_flow, struct ibv_counters *cs,
	 struct ibv_counter_attach_attr *a, struct ibv_flow *f)
FAKE_INT(read_counters, struct ibv_counters *cs, uint64_t *v, uint32_t n,
	 uint32_t flags)
FAKE_INT(query_rt_values, struct ibv_context *c, struct ibv_values_ex *v)

static int query_device_ex_ret;
static int fake_query_device_ex(struct ibv_context *c,
				const struct ibv_query_device_ex_input *in,
				struct ibv_device_attr_ex *attr,
				size_t attr_size)
{
	HIT("query_device_ex");
	last_size = attr_size;
	attr->orig_attr.max_qp = 55;
	attr->phys_port_cnt_ex = 3;
	return query_device_ex_ret;
}

static int fake_query_port(struct ibv_context *c, uint8_t port_num,
			   struct ibv_port_attr *port_attr, size_t len)
{
	HIT("query_port");
	last_size = len;
	port_attr->port_cap_flags2 = 0x21;
	return 0;
}

static struct ibv_wq created_wq;
static struct ibv_wq *fake_create_wq(struct ibv_context *c,
				     struct ibv_wq_init_attr *a)
{
	HIT("create_wq");
	created_wq.events_completed = 99;
	return &created_wq;
}

/* ibv_qp_ex / ibv_cq_ex / ibv_dm / ibv_wq function tables */
static void fake_wr_send(struct ibv_qp_ex *qp)
{
	HIT("wr_send");
}

static void fake_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey,
			       uint64_t remote_addr)
{
	HIT("wr_rdma_write");
	last_u64 = remote_addr + rkey;
}

static void fake_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey,
			    uint64_t addr, uint32_t length)
{
	HIT("wr_set_sge");
	last_u64 = addr + lkey + length;
}

static void fake_wr_start(struct ibv_qp_ex *qp)
{
	HIT("wr_start");
}

static int fake_wr_complete(struct ibv_qp_ex *qp)
{
	HIT("wr_complete");
	return 301;
}

static int fake_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *a)
{
	HIT("start_poll");
	return ENOENT;
}

static int fake_next_poll(struct ibv_cq_ex *cq)
{
	HIT("next_poll");
	return 302;
}

static void fake_end_poll(struct ibv_cq_ex *cq)
{
	HIT("end_poll");
}

static __be32 fake_read_imm_data(struct ibv_cq_ex *cq)
{
	HIT("read_imm_data");
	return 0x01020304;
}

static uint32_t fake_read_byte_len(struct ibv_cq_ex *cq)
{
	HIT("read_byte_len");
	return 303;
}

static int fake_memcpy_to_dm(struct ibv_dm *dm, uint64_t off,
			     const void *host, size_t len)
{
	HIT("memcpy_to_dm");
	return 304;
}

static int fake_memcpy_from_dm(void *host, struct ibv_dm *dm, uint64_t off,
			       size_t len)
{
	HIT("memcpy_from_dm");
	return 305;
}

static int fake_wq_post_recv(struct ibv_wq *wq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad)
{
	HIT("wq_post_recv");
	return 306;
}
#pragma GCC diagnostic pop

/* ---- helpers ---- */

static struct verbs_context *new_vctx(void)
{
	struct verbs_context *v =
		(struct verbs_context *)calloc(1, sizeof(*v));

	if (!v) {
		perror("calloc");
		exit(2);
	}
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->sz = sizeof(*v);
	return v;
}

static size_t covers(size_t op_offset)
{
	return sizeof(struct verbs_context) - op_offset;
}

/*
 * An extended op returning a pointer: reached when present and covered by
 * sz (exactly covered counts), otherwise NULL with errno EOPNOTSUPP.
 */
#define EXPECT_PTR_OP(v, op, call)					\
	do {								\
		(v)->op = fake_##op;					\
		hit = NULL;						\
		CHECK((void *)(call) == SENT && WAS(#op));		\
		(v)->sz = covers(offsetof(struct verbs_context, op));	\
		hit = NULL;						\
		CHECK((void *)(call) == SENT && WAS(#op));		\
		(v)->sz = covers(offsetof(struct verbs_context, op)) - 1; \
		hit = NULL;						\
		errno = 0;						\
		CHECK((call) == NULL && errno == EOPNOTSUPP && !hit);	\
		(v)->sz = sizeof(*(v));					\
		(v)->op = NULL;						\
		errno = 0;						\
		CHECK((call) == NULL && errno == EOPNOTSUPP && !hit);	\
	} while (0)

/* Same for an op returning int: EOPNOTSUPP is the return value. */
#define EXPECT_INT_OP(v, op, call)					\
	do {								\
		(v)->op = fake_##op;					\
		hit = NULL;						\
		CHECK((call) == 4242 && WAS(#op));			\
		(v)->sz = covers(offsetof(struct verbs_context, op));	\
		CHECK((call) == 4242);					\
		(v)->sz = covers(offsetof(struct verbs_context, op)) - 1; \
		hit = NULL;						\
		CHECK((call) == EOPNOTSUPP && !hit);			\
		(v)->sz = sizeof(*(v));					\
		(v)->op = NULL;						\
		CHECK((call) == EOPNOTSUPP && !hit);			\
	} while (0)

/*
 * rdma-core 65 added six ops at the top of struct verbs_context.  Known
 * by a macro both header sets define from 65 on (Debian's has no
 * release macro).
 */
#ifdef IBV_DEVICE_CC_DMA_BOUNCE
#define VCTX_65_OPS (6 * sizeof(void *))
#else
#define VCTX_65_OPS 0
#endif

static void test_layout(void)
{
	CHECK(sizeof(struct ibv_context) == 328);
	CHECK(offsetof(struct ibv_context, ops) == 8);
	CHECK(offsetof(struct ibv_context, cmd_fd) == 264);
	CHECK(offsetof(struct ibv_context, abi_compat) == 320);
	CHECK(sizeof(struct verbs_context) == 648 + VCTX_65_OPS);
	CHECK(offsetof(struct verbs_context, sz) + sizeof(size_t) ==
	      offsetof(struct verbs_context, context));
	CHECK(offsetof(struct verbs_context, priv) == 208 + VCTX_65_OPS);
	CHECK(offsetof(struct ibv_context, ops) +
	      offsetof(struct ibv_context_ops, poll_cq) == 96);
	CHECK(offsetof(struct ibv_context, ops) +
	      offsetof(struct ibv_context_ops, post_send) == 208);
	CHECK(sizeof(struct ibv_gid_entry) == 32);
}

static void test_legacy_ops(void)
{
	struct verbs_context *v = new_vctx();
	struct ibv_context *ctx = &v->context;
	struct ibv_cq cq;
	struct ibv_qp qp;
	struct ibv_srq srq;
	struct ibv_pd pd, pd2;
	struct ibv_mr mr;
	struct ibv_mw mw;
	struct ibv_mw_bind bind;
	struct ibv_wc wc[4];
	struct ibv_send_wr swr, *bad_swr = NULL;
	struct ibv_recv_wr rwr, *bad_rwr = NULL;

	memset(&cq, 0, sizeof(cq));
	memset(&qp, 0, sizeof(qp));
	memset(&srq, 0, sizeof(srq));
	memset(&pd, 0, sizeof(pd));
	memset(&pd2, 0, sizeof(pd2));
	memset(&mr, 0, sizeof(mr));
	memset(&mw, 0, sizeof(mw));
	memset(&bind, 0, sizeof(bind));
	memset(&swr, 0, sizeof(swr));
	memset(&rwr, 0, sizeof(rwr));
	cq.context = qp.context = srq.context = ctx;
	pd.context = pd2.context = mw.context = ctx;

	ctx->ops.poll_cq = fake_poll_cq;
	ctx->ops.req_notify_cq = fake_req_notify_cq;
	ctx->ops.post_send = fake_post_send;
	ctx->ops.post_recv = fake_post_recv;
	ctx->ops.post_srq_recv = fake_post_srq_recv;
	ctx->ops.bind_mw = fake_bind_mw;
	ctx->ops.dealloc_mw = fake_dealloc_mw;

	CHECK(ibv_poll_cq(&cq, 4, wc) == 3 && WAS("poll_cq"));
	CHECK(ibv_req_notify_cq(&cq, 1) == 101 && WAS("req_notify_cq"));
	CHECK(ibv_post_send(&qp, &swr, &bad_swr) == 201 && bad_swr == &swr);
	CHECK(ibv_post_recv(&qp, &rwr, &bad_rwr) == 202 && bad_rwr == &rwr);
	bad_rwr = NULL;
	CHECK(ibv_post_srq_recv(&srq, &rwr, &bad_rwr) == 203 &&
	      bad_rwr == &rwr);

	/* alloc_mw may be missing: NULL and EOPNOTSUPP */
	errno = 0;
	hit = NULL;
	CHECK(ibv_alloc_mw(&pd, IBV_MW_TYPE_1) == NULL && errno == EOPNOTSUPP);
	ctx->ops.alloc_mw = fake_alloc_mw;
	CHECK((void *)ibv_alloc_mw(&pd, IBV_MW_TYPE_2) == SENT &&
	      WAS("alloc_mw"));

	CHECK(ibv_dealloc_mw(&mw) == 205 && WAS("dealloc_mw"));

	/* bind_mw: argument checks happen in the header */
	hit = NULL;
	mw.type = IBV_MW_TYPE_2;
	mw.pd = &pd;
	CHECK(ibv_bind_mw(&qp, &mw, &bind) == EINVAL && !hit);
	mw.type = IBV_MW_TYPE_1;
	bind.bind_info.addr = 0x1000;
	CHECK(ibv_bind_mw(&qp, &mw, &bind) == EINVAL && !hit);
	bind.bind_info.mr = &mr;
	mr.pd = &pd2;
	CHECK(ibv_bind_mw(&qp, &mw, &bind) == EPERM && !hit);
	mr.pd = &pd;
	CHECK(ibv_bind_mw(&qp, &mw, &bind) == 204 && WAS("bind_mw"));
	bind.bind_info.mr = NULL;
	bind.bind_info.addr = 0;
	bind.bind_info.length = 0;
	CHECK(ibv_bind_mw(&qp, &mw, &bind) == 204);

	free(v);
}

static void test_get_ctx(void)
{
	struct verbs_context *v = new_vctx();
	struct ibv_context legacy;

	memset(&legacy, 0, sizeof(legacy));
	CHECK(verbs_get_ctx(&v->context) == v);
	CHECK(verbs_get_ctx(&legacy) == NULL);
	v->open_xrcd = fake_open_xrcd;
	CHECK(verbs_get_ctx_op(&v->context, open_xrcd) == v);
	CHECK(verbs_get_ctx_op(&legacy, open_xrcd) == NULL);
	CHECK(verbs_get_ctx_op(&v->context, close_xrcd) == NULL);
	v->sz = covers(offsetof(struct verbs_context, open_xrcd)) - 1;
	CHECK(verbs_get_ctx_op(&v->context, open_xrcd) == NULL);
	CHECK(vext_field_avail(struct verbs_context, sz, 321 + VCTX_65_OPS));
	CHECK(!vext_field_avail(struct verbs_context, context,
				320 + VCTX_65_OPS));

	/* legacy context: every extended verb reports EOPNOTSUPP */
	errno = 0;
	CHECK(ibv_open_xrcd(&legacy, NULL) == NULL && errno == EOPNOTSUPP);
	CHECK(ibv_query_rt_values_ex(&legacy, NULL) == EOPNOTSUPP);
	free(v);
}

static void test_extended_ops(void)
{
	struct verbs_context *v = new_vctx();
	struct ibv_context *ctx = &v->context;
	struct ibv_pd pd;
	struct ibv_td td;
	struct ibv_xrcd xrcd;
	struct ibv_dm dm;
	struct ibv_cq cq;
	struct ibv_srq srq;
	struct ibv_qp qp;
	struct ibv_wq wq;
	struct ibv_rwq_ind_table rit;
	struct ibv_flow flow;
	struct ibv_flow_action fa;
	struct ibv_counters cs;
	struct ibv_ops_wr op, *bad_op = NULL;
	uint32_t num;
	uint64_t vals[2];

	pd.context = td.context = xrcd.context = dm.context = ctx;
	cq.context = srq.context = qp.context = wq.context = ctx;
	rit.context = flow.context = fa.context = cs.context = ctx;

	EXPECT_PTR_OP(v, alloc_td, ibv_alloc_td(ctx, NULL));
	EXPECT_INT_OP(v, dealloc_td, ibv_dealloc_td(&td));
	EXPECT_PTR_OP(v, alloc_parent_domain,
		      ibv_alloc_parent_domain(ctx, NULL));
	EXPECT_PTR_OP(v, open_xrcd, ibv_open_xrcd(ctx, NULL));
	v->close_xrcd = fake_close_xrcd;
	CHECK(ibv_close_xrcd(&xrcd) == 4242 && WAS("close_xrcd"));
	EXPECT_PTR_OP(v, alloc_null_mr, ibv_alloc_null_mr(&pd));
	EXPECT_INT_OP(v, advise_mr,
		      ibv_advise_mr(&pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
				    NULL, 0));
	EXPECT_PTR_OP(v, alloc_dm, ibv_alloc_dm(ctx, NULL));
	EXPECT_INT_OP(v, free_dm, ibv_free_dm(&dm));
	EXPECT_PTR_OP(v, reg_dm_mr, ibv_reg_dm_mr(&pd, &dm, 0, 8, 0));
	EXPECT_PTR_OP(v, create_cq_ex, ibv_create_cq_ex(ctx, NULL));
	EXPECT_INT_OP(v, modify_cq, ibv_modify_cq(&cq, NULL));
	EXPECT_INT_OP(v, get_srq_num, ibv_get_srq_num(&srq, &num));
	EXPECT_PTR_OP(v, open_qp, ibv_open_qp(ctx, NULL));
	EXPECT_INT_OP(v, modify_qp_rate_limit,
		      ibv_modify_qp_rate_limit(&qp, NULL));
	EXPECT_INT_OP(v, modify_wq, ibv_modify_wq(&wq, NULL));
	EXPECT_INT_OP(v, destroy_wq, ibv_destroy_wq(&wq));
	EXPECT_PTR_OP(v, create_rwq_ind_table,
		      ibv_create_rwq_ind_table(ctx, NULL));
	EXPECT_INT_OP(v, destroy_rwq_ind_table,
		      ibv_destroy_rwq_ind_table(&rit));
	EXPECT_PTR_OP(v, ibv_create_flow, ibv_create_flow(&qp, NULL));
	EXPECT_INT_OP(v, ibv_destroy_flow, ibv_destroy_flow(&flow));
	EXPECT_PTR_OP(v, create_flow_action_esp,
		      ibv_create_flow_action_esp(ctx, NULL));
	EXPECT_INT_OP(v, modify_flow_action_esp,
		      ibv_modify_flow_action_esp(&fa, NULL));
	EXPECT_INT_OP(v, destroy_flow_action, ibv_destroy_flow_action(&fa));
	EXPECT_PTR_OP(v, create_counters, ibv_create_counters(ctx, NULL));
	EXPECT_INT_OP(v, destroy_counters, ibv_destroy_counters(&cs));
	EXPECT_INT_OP(v, attach_counters_point_flow,
		      ibv_attach_counters_point_flow(&cs, NULL, &flow));
	EXPECT_INT_OP(v, read_counters, ibv_read_counters(&cs, vals, 2, 0));
	EXPECT_INT_OP(v, query_rt_values, ibv_query_rt_values_ex(ctx, NULL));

	/* post_srq_ops reports the first op as the failing one */
	v->post_srq_ops = fake_post_srq_ops;
	CHECK(ibv_post_srq_ops(&srq, &op, &bad_op) == 4242);
	v->post_srq_ops = NULL;
	CHECK(ibv_post_srq_ops(&srq, &op, &bad_op) == EOPNOTSUPP &&
	      bad_op == &op);

	free(v);
}

static void test_fallbacks(void)
{
	struct verbs_context *v = new_vctx();
	struct ibv_context *ctx = &v->context;
	struct ibv_device_attr_ex dattr;
	struct ibv_query_device_ex_input in;
	struct ibv_port_attr pattr;
	struct ibv_srq_init_attr_ex sattr;
	struct ibv_qp_init_attr_ex qattr;
	struct ibv_wq_init_attr wattr;
	struct ibv_gid_entry gids[4];
	struct ibv_wq *wq;
	char buf[64];
	struct ibv_pd pd;
	volatile unsigned int runtime_access = IBV_ACCESS_LOCAL_WRITE;

	pd.context = ctx;

	/* query_device_ex */
	in.comp_mask = 1;
	hit = NULL;
	CHECK(ibv_query_device_ex(ctx, &in, &dattr) == EINVAL && !hit);
	in.comp_mask = 0;
	memset(&dattr, 0xff, sizeof(dattr));
	CHECK(ibv_query_device_ex(ctx, &in, &dattr) == 0 &&
	      WAS("ibv_query_device") && dattr.orig_attr.max_qp == 77 &&
	      dattr.phys_port_cnt_ex == 0 && dattr.comp_mask == 0);
	v->query_device_ex = fake_query_device_ex;
	query_device_ex_ret = 0;
	CHECK(ibv_query_device_ex(ctx, NULL, &dattr) == 0 &&
	      WAS("query_device_ex") && dattr.phys_port_cnt_ex == 3 &&
	      last_size == sizeof(struct ibv_device_attr_ex));
	query_device_ex_ret = EOPNOTSUPP;
	CHECK(ibv_query_device_ex(ctx, NULL, &dattr) == 0 &&
	      WAS("ibv_query_device") && dattr.phys_port_cnt_ex == 0);
	query_device_ex_ret = ENOSYS;
	CHECK(ibv_query_device_ex(ctx, NULL, &dattr) == 0 &&
	      WAS("ibv_query_device"));
	query_device_ex_ret = EIO;
	CHECK(ibv_query_device_ex(ctx, NULL, &dattr) == EIO &&
	      WAS("query_device_ex"));

	/* query_port: extended op with the caller's size, else the symbol */
	memset(&pattr, 0xff, sizeof(pattr));
	CHECK(ibv_query_port(ctx, 1, &pattr) == 0 &&
	      WAS("ibv_query_port") && pattr.lid == 9 &&
	      pattr.port_cap_flags2 == 0 && pattr.state == 0);
	v->query_port = fake_query_port;
	CHECK(ibv_query_port(ctx, 1, &pattr) == 0 && WAS("query_port") &&
	      last_size == sizeof(struct ibv_port_attr) &&
	      pattr.port_cap_flags2 == 0x21);

	/* GID queries pass the entry size */
	last_size = 0;
	CHECK(ibv_query_gid_ex(ctx, 1, 0, &gids[0], 0) == 0 &&
	      WAS("_ibv_query_gid_ex") && last_size == 32);
	last_size = 0;
	CHECK(ibv_query_gid_table(ctx, gids, 4, 0) == 4 &&
	      WAS("_ibv_query_gid_table") && last_size == 32);

	/* reg_mr: the compat symbol only for constant, non-optional flags */
	CHECK((void *)ibv_reg_mr(&pd, buf, sizeof(buf),
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_READ) == SENT &&
	      WAS("ibv_reg_mr") && last_uint == 5);
	CHECK((void *)ibv_reg_mr(&pd, buf, sizeof(buf),
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_RELAXED_ORDERING) == SENT &&
	      WAS("ibv_reg_mr_iova2") && last_u64 == (uintptr_t)buf &&
	      last_uint == (1u | IBV_ACCESS_RELAXED_ORDERING));
	CHECK((void *)ibv_reg_mr(&pd, buf, sizeof(buf), runtime_access) ==
	      SENT && WAS("ibv_reg_mr_iova2") && last_u64 == (uintptr_t)buf);
	CHECK((void *)ibv_reg_mr_iova(&pd, buf, 8, 0x5000,
				      IBV_ACCESS_LOCAL_WRITE) == SENT &&
	      WAS("ibv_reg_mr_iova") && last_u64 == 0x5000);
	CHECK((void *)ibv_reg_mr_iova(&pd, buf, 8, 0x6000,
				      IBV_ACCESS_RELAXED_ORDERING) == SENT &&
	      WAS("ibv_reg_mr_iova2") && last_u64 == 0x6000);
	CHECK((void *)ibv_reg_mr_iova(&pd, buf, 8, 0x7000, runtime_access) ==
	      SENT && WAS("ibv_reg_mr_iova2") && last_u64 == 0x7000);

	/* create_srq_ex: a plain basic SRQ goes to ibv_create_srq() */
	memset(&sattr, 0, sizeof(sattr));
	sattr.pd = &pd;
	sattr.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	CHECK((void *)ibv_create_srq_ex(ctx, &sattr) == SENT &&
	      WAS("ibv_create_srq"));
	sattr.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
	sattr.srq_type = IBV_SRQT_BASIC;
	CHECK((void *)ibv_create_srq_ex(ctx, &sattr) == SENT &&
	      WAS("ibv_create_srq"));
	sattr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
	hit = NULL;
	errno = 0;
	CHECK(ibv_create_srq_ex(ctx, &sattr) == NULL && errno == EOPNOTSUPP &&
	      !hit);
	sattr.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
	sattr.srq_type = IBV_SRQT_XRC;
	EXPECT_PTR_OP(v, create_srq_ex, ibv_create_srq_ex(ctx, &sattr));
	sattr.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ;
	sattr.srq_type = IBV_SRQT_BASIC;
	EXPECT_PTR_OP(v, create_srq_ex, ibv_create_srq_ex(ctx, &sattr));

	/* create_qp_ex: exactly IBV_QP_INIT_ATTR_PD goes to ibv_create_qp() */
	memset(&qattr, 0, sizeof(qattr));
	qattr.pd = &pd;
	qattr.comp_mask = IBV_QP_INIT_ATTR_PD;
	CHECK((void *)ibv_create_qp_ex(ctx, &qattr) == SENT &&
	      WAS("ibv_create_qp"));
	qattr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	EXPECT_PTR_OP(v, create_qp_ex, ibv_create_qp_ex(ctx, &qattr));
	qattr.comp_mask = 0;
	EXPECT_PTR_OP(v, create_qp_ex, ibv_create_qp_ex(ctx, &qattr));

	/* create_wq fills in the fields the provider does not own */
	memset(&wattr, 0, sizeof(wattr));
	wattr.wq_context = SENT;
	errno = 0;
	CHECK(ibv_create_wq(ctx, &wattr) == NULL && errno == EOPNOTSUPP);
	v->create_wq = fake_create_wq;
	wq = ibv_create_wq(ctx, &wattr);
	CHECK(wq == &created_wq && WAS("create_wq") &&
	      wq->wq_context == SENT && wq->events_completed == 0);

	free(v);
}

static void test_object_tables(void)
{
	struct ibv_qp_ex qpx;
	struct ibv_cq_ex cqx;
	struct ibv_dm dm;
	struct ibv_wq wq;
	struct ibv_recv_wr rwr, *bad = NULL;
	char host[8];

	memset(&qpx, 0, sizeof(qpx));
	qpx.wr_start = fake_wr_start;
	qpx.wr_send = fake_wr_send;
	qpx.wr_rdma_write = fake_wr_rdma_write;
	qpx.wr_set_sge = fake_wr_set_sge;
	qpx.wr_complete = fake_wr_complete;
	ibv_wr_start(&qpx);
	CHECK(WAS("wr_start"));
	ibv_wr_send(&qpx);
	CHECK(WAS("wr_send"));
	ibv_wr_rdma_write(&qpx, 1, 0x100);
	CHECK(WAS("wr_rdma_write") && last_u64 == 0x101);
	ibv_wr_set_sge(&qpx, 2, 0x200, 3);
	CHECK(WAS("wr_set_sge") && last_u64 == 0x205);
	CHECK(ibv_wr_complete(&qpx) == 301 && WAS("wr_complete"));

	memset(&cqx, 0, sizeof(cqx));
	cqx.start_poll = fake_start_poll;
	cqx.next_poll = fake_next_poll;
	cqx.end_poll = fake_end_poll;
	cqx.read_imm_data = fake_read_imm_data;
	cqx.read_byte_len = fake_read_byte_len;
	CHECK(ibv_start_poll(&cqx, NULL) == ENOENT && WAS("start_poll"));
	CHECK(ibv_next_poll(&cqx) == 302 && WAS("next_poll"));
	CHECK(ibv_wc_read_byte_len(&cqx) == 303);
	CHECK(ibv_wc_read_imm_data(&cqx) == 0x01020304);
	CHECK(ibv_wc_read_invalidated_rkey(&cqx) == 0x01020304 &&
	      WAS("read_imm_data"));
	ibv_end_poll(&cqx);
	CHECK(WAS("end_poll"));
	CHECK((void *)ibv_cq_ex_to_cq(&cqx) == (void *)&cqx);

	dm.memcpy_to_dm = fake_memcpy_to_dm;
	dm.memcpy_from_dm = fake_memcpy_from_dm;
	CHECK(ibv_memcpy_to_dm(&dm, 0, host, 8) == 304);
	CHECK(ibv_memcpy_from_dm(host, &dm, 0, 8) == 305);

	wq.post_recv = fake_wq_post_recv;
	CHECK(ibv_post_wq_recv(&wq, &rwr, &bad) == 306);
}

static void test_pure_helpers(void)
{
	CHECK(ibv_inc_rkey(0x12345678) == 0x12345679);
	CHECK(ibv_inc_rkey(0x123456ff) == 0x12345600);
	CHECK(ibv_flow_label_to_udp_sport(0xfffff) == 0xffc0);
	CHECK(ibv_flow_label_to_udp_sport(0x12345) == 0xe341);
	CHECK(ibv_flow_label_to_udp_sport(0) == 0xc000);
	CHECK(ibv_is_qpt_supported(1u << IBV_QPT_UD, IBV_QPT_UD) == 1);
	CHECK(ibv_is_qpt_supported(1u << IBV_QPT_UD, IBV_QPT_RC) == 0);
	CHECK(IBV_ACCESS_OPTIONAL_RANGE == 0x3ff00000);
	CHECK((IBV_ACCESS_RELAXED_ORDERING & IBV_ACCESS_OPTIONAL_RANGE) != 0);
	CHECK(IBV_WC_STANDARD_FLAGS == 0x7f);
	CHECK(IBV_CREATE_CQ_SUP_WC_FLAGS == 0xfff);
	CHECK(IBV_REREG_MR_FLAGS_SUPPORTED == 7);
	CHECK((uintptr_t)__VERBS_ABI_IS_EXTENDED == UINTPTR_MAX);
	CHECK(IBV_ALLOCATOR_USE_DEFAULT == (void *)-1);
	CHECK(IBV_DEVICE_RAW_SCATTER_FCS == 1ULL << 34);
	CHECK(IBV_RX_HASH_INNER == 0x80000000u);
}

int main(void)
{
	test_layout();
	test_legacy_ops();
	test_get_ctx();
	test_extended_ops();
	test_fallbacks();
	test_object_tables();
	test_pure_helpers();

	printf("inline verbs: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
