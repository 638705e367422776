// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every function pointer a provider puts in an ibv_qp_ex and an ibv_cq_ex
 * is refused in a fork child: a table of all their members (rdma-core
 * 44's layout), each called in a child of its own with harmless
 * arguments.
 *
 * For each member the provider filled in, the parent sets the scene (an
 * open batch holding one RDMA WRITE for the QP ex; an open poll on the
 * first of two completions for the CQ ex: every member is then a valid
 * call), and the child saves the memory it shares with the parent
 * (the MAP_SHARED mappings of /dev/infiniband/uverbsN: rxe's queues),
 * calls the member and compares: nothing may have changed.  A member with
 * a status must return EPERM; after a void member of the QP ex, the
 * child's ibv_wr_complete() must be EPERM (the call recorded nothing to
 * publish).  The parent then proves its objects intact: its QP still
 * moves data, it polls its second completion and nothing more.
 *
 * The table's offsets are checked to cover each struct from its first
 * function pointer to its end, so a member added to the header without a
 * row here fails the test instead of slipping past.
 *
 * Upstream libibverbs guards none of these, and Debian's librxe writes the
 * shared queues from the child: against Debian's library the "# guard"
 * checks fail (a child may also hang on its copy of the parent's send
 * queue lock; its watchdog ends it and the guard check on its exit says
 * so).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_ex.h"

#define CHILD_ALARM 10
#define SCRATCH 2048 /* the peer's bytes the RDMA WRITEs may touch */
#define ATOMIC_OFF 3072
#define WR_MID 0x3a1d
#define WR_DRAIN 0xd7a1

struct mctx {
	struct fx x;
	struct ibv_ah *ah;
	struct ibv_mw *mw;
	/* Where the device has no windows: see open_ctx(). */
	struct ibv_mw mw_standin;
	struct fx_shared sh;
	uint8_t data[8];
};

enum mkind {
	M_VOID,
	M_STATUS,
	M_VALUE,
};

struct member {
	const char *name;
	size_t off;
	enum mkind kind;
	int (*call)(struct mctx *c);
};

static uint32_t rkey_b(struct mctx *c)
{
	return c->x.b.mr->rkey;
}

static uint64_t at_b(struct mctx *c, size_t off)
{
	return (uintptr_t)c->x.b.addr + off;
}

/*
 * The calls, one per member, with arguments a provider accepts; a setter's
 * differ from what the parent's open batch holds, so that a write shows.
 */
#define QX(c) ((c)->x.qx)
#define QCALL(m, ...)                           \
	static int q_##m(struct mctx *c)        \
	{                                       \
		QX(c)->m(QX(c), ##__VA_ARGS__); \
		return 0;                       \
	}

QCALL(wr_atomic_cmp_swp, rkey_b(c), at_b(c, ATOMIC_OFF), 0, 0)
QCALL(wr_atomic_fetch_add, rkey_b(c), at_b(c, ATOMIC_OFF), 0)
QCALL(wr_local_inv, 0)
QCALL(wr_rdma_read, rkey_b(c), at_b(c, SCRATCH))
QCALL(wr_rdma_write, rkey_b(c), at_b(c, SCRATCH))
QCALL(wr_rdma_write_imm, rkey_b(c), at_b(c, SCRATCH), 0)
QCALL(wr_send)
QCALL(wr_send_imm, 0)
QCALL(wr_send_inv, 0)
QCALL(wr_send_tso, c->data, 0, 0)
QCALL(wr_set_ud_addr, c->ah, c->x.p.qp_b->qp_num, GC_QKEY)
QCALL(wr_set_xrc_srqn, 0)
QCALL(wr_set_inline_data, c->data, sizeof(c->data))
QCALL(wr_set_sge, c->x.a.mr->lkey, (uintptr_t)c->x.a.addr + 64, 16)
QCALL(wr_start)
QCALL(wr_abort)
QCALL(wr_atomic_write, rkey_b(c), at_b(c, ATOMIC_OFF), c->data)

static int q_wr_bind_mw(struct mctx *c)
{
	struct ibv_mw_bind_info bi = {
		.mr = c->x.a.mr,
		.addr = (uintptr_t)c->x.a.addr,
		.length = 64,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ,
	};

	QX(c)->wr_bind_mw(QX(c), c->mw, ibv_inc_rkey(c->mw->rkey), &bi);
	return 0;
}

static int q_wr_set_inline_data_list(struct mctx *c)
{
	struct ibv_data_buf buf = { c->data, sizeof(c->data) };

	QX(c)->wr_set_inline_data_list(QX(c), 1, &buf);
	return 0;
}

static int q_wr_set_sge_list(struct mctx *c)
{
	struct ibv_sge sge = { (uintptr_t)c->x.a.addr + 64, 16,
			       c->x.a.mr->lkey };

	QX(c)->wr_set_sge_list(QX(c), 1, &sge);
	return 0;
}

static int q_wr_complete(struct mctx *c)
{
	return QX(c)->wr_complete(QX(c));
}

#define QM(m, kind)                                            \
	{                                                      \
#m, offsetof(struct ibv_qp_ex, m), kind, q_##m \
	}

/* In the header's order: the coverage check relies on it. */
static const struct member qp_members[] = {
	QM(wr_atomic_cmp_swp, M_VOID),
	QM(wr_atomic_fetch_add, M_VOID),
	QM(wr_bind_mw, M_VOID),
	QM(wr_local_inv, M_VOID),
	QM(wr_rdma_read, M_VOID),
	QM(wr_rdma_write, M_VOID),
	QM(wr_rdma_write_imm, M_VOID),
	QM(wr_send, M_VOID),
	QM(wr_send_imm, M_VOID),
	QM(wr_send_inv, M_VOID),
	QM(wr_send_tso, M_VOID),
	QM(wr_set_ud_addr, M_VOID),
	QM(wr_set_xrc_srqn, M_VOID),
	QM(wr_set_inline_data, M_VOID),
	QM(wr_set_inline_data_list, M_VOID),
	QM(wr_set_sge, M_VOID),
	QM(wr_set_sge_list, M_VOID),
	QM(wr_start, M_VOID),
	QM(wr_complete, M_STATUS),
	QM(wr_abort, M_VOID),
	QM(wr_atomic_write, M_VOID),
};

#define CX(c) ((c)->x.cqx)
#define CCALL(m)                             \
	static int c_##m(struct mctx *c)     \
	{                                    \
		return (int)CX(c)->m(CX(c)); \
	}

CCALL(next_poll)
CCALL(read_opcode)
CCALL(read_vendor_err)
CCALL(read_byte_len)
CCALL(read_imm_data)
CCALL(read_qp_num)
CCALL(read_src_qp)
CCALL(read_wc_flags)
CCALL(read_slid)
CCALL(read_sl)
CCALL(read_dlid_path_bits)
CCALL(read_completion_ts)
CCALL(read_cvlan)
CCALL(read_flow_tag)
CCALL(read_completion_wallclock_ns)

static int c_start_poll(struct mctx *c)
{
	struct ibv_poll_cq_attr attr = {};

	return CX(c)->start_poll(CX(c), &attr);
}

static int c_end_poll(struct mctx *c)
{
	CX(c)->end_poll(CX(c));
	return 0;
}

static int c_read_tm_info(struct mctx *c)
{
	struct ibv_wc_tm_info tm;

	CX(c)->read_tm_info(CX(c), &tm);
	return 0;
}

#define CM(m, kind)                                            \
	{                                                      \
#m, offsetof(struct ibv_cq_ex, m), kind, c_##m \
	}

static const struct member cq_members[] = {
	CM(start_poll, M_STATUS),
	CM(next_poll, M_STATUS),
	CM(end_poll, M_VOID),
	CM(read_opcode, M_VALUE),
	CM(read_vendor_err, M_VALUE),
	CM(read_byte_len, M_VALUE),
	CM(read_imm_data, M_VALUE),
	CM(read_qp_num, M_VALUE),
	CM(read_src_qp, M_VALUE),
	CM(read_wc_flags, M_VALUE),
	CM(read_slid, M_VALUE),
	CM(read_sl, M_VALUE),
	CM(read_dlid_path_bits, M_VALUE),
	CM(read_completion_ts, M_VALUE),
	CM(read_cvlan, M_VALUE),
	CM(read_flow_tag, M_VALUE),
	CM(read_tm_info, M_VOID),
	CM(read_completion_wallclock_ns, M_VALUE),
};

#define NMEMB(t) (sizeof(t) / sizeof((t)[0]))
#define FN_SIZE sizeof(void (*)(void))
#define FN_ALIGN(off)                                                      \
	(((off) + alignof(void (*)(void)) - 1) / alignof(void (*)(void)) * \
	 alignof(void (*)(void)))

/*
 * The rows, in order, are the struct's function pointers one after the
 * other, from @first (the end of the data members before them) to the end
 * of the struct; and the layout is rdma-core 44's (its verbs.h, as
 * libibverbs-dev 44.0-2 ships it: ibv_qp_ex 352 bytes with pointers from
 * 184, ibv_cq_ex 288 bytes with pointers from 144).
 */
static void check_cover(const char *sname, const struct member *t, size_t n,
			size_t first, size_t size, size_t first44,
			size_t size44)
{
	size_t i;

	for (i = 0; i < n && t[i].off == first + i * FN_SIZE; i++)
		;
	gc_ok(i == n && first + n * FN_SIZE == size,
	      "the table covers every member of struct %s: %zu function "
	      "pointers at offsets %zu..%zu, sizeof %zu (row %zu: %s)",
	      sname, n, first, first + (n - 1) * FN_SIZE, size, i,
	      i < n ? t[i].name : "all in place");
	gc_ok(first == first44 && size == size44,
	      "struct %s has rdma-core 44's layout (pointers from %zu, "
	      "sizeof %zu)",
	      sname, first44, size44);
}

/*
 * Type 2: the kind ibv_wr_bind_mw() binds; rxe has it where it reports
 * windows (bullseye's 5.10 says max_mw 0).  Without them the member is
 * still there to call: wr_bind_mw gets a stand-in window that no kernel
 * knows, which only the child, inside an open batch, hands it.  Sets errno
 * on failure.
 */
static int open_mw(struct mctx *c)
{
	struct ibv_device_attr attr;
	int err;

	err = ibv_query_device(c->x.p.a.ctx, &attr);
	if (err) {
		errno = err;
		return -1;
	}
	if (!attr.max_mw) {
		gc_diag("no memory windows on this device (max_mw 0): "
			"wr_bind_mw is called with a stand-in window");
		c->mw_standin = (struct ibv_mw){
			.context = c->x.p.a.ctx,
			.pd = c->x.p.a.pd,
			.type = IBV_MW_TYPE_2,
		};
		c->mw = &c->mw_standin;
		return 0;
	}
	c->mw = ibv_alloc_mw(c->x.p.a.pd, IBV_MW_TYPE_2);
	return c->mw ? 0 : -1;
}

static int open_ctx(struct mctx *c)
{
	memset(c, 0, sizeof(*c));
	if (fx_open(&c->x))
		return -1;
	c->ah = gc_create_ah(&c->x.p.a, &c->x.p.b);
	gc_fill(c->data, sizeof(c->data), 0xd4);
	if (open_mw(c) || !c->ah || fx_shared_find(&c->sh) <= 0) {
		gc_diag("AH, MW or uverbs mappings: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void close_ctx(struct mctx *c)
{
	fx_shared_free(&c->sh);
	if (c->mw && c->mw != &c->mw_standin)
		ibv_dealloc_mw(c->mw);
	if (c->ah)
		ibv_destroy_ah(c->ah);
	fx_close(&c->x);
}

struct child_arg {
	struct mctx *c;
	const struct member *m;
	const char *sname;
	bool qp;
};

static void child_call(void *arg)
{
	struct child_arg *a = arg;
	const struct member *m = a->m;
	size_t changed;
	int ret;

	alarm(CHILD_ALARM);
	fx_shared_save(&a->c->sh);
	ret = m->call(a->c);
	changed = fx_shared_changed(&a->c->sh);
	fp_guard(!changed,
		 "%s.%s (offset %zu) in a child writes nothing it shares with "
		 "the parent (%zu bytes changed)",
		 a->sname, m->name, m->off, changed);
	if (m->kind == M_STATUS)
		fp_guard(ret == EPERM,
			 "%s.%s in a child returns EPERM (%d: %s)", a->sname,
			 m->name, ret, strerror(ret));
	if (a->qp && m->kind == M_VOID) {
		ret = ibv_wr_complete(a->c->x.qx);
		fp_guard(ret == EPERM,
			 "%s.%s in a child, then ibv_wr_complete() -> EPERM "
			 "(%d: %s)",
			 a->sname, m->name, ret, strerror(ret));
	}
}

static bool run_child(struct child_arg *a)
{
	int status = fp_run(FP_FORK, child_call, a, a->m->name);

	/* Upstream's child can hang on its copy of a lock the parent held. */
	return gc_guard(status == 0,
			"%s.%s: the child returned from the call and exited "
			"(%d)",
			a->sname, a->m->name, status);
}

/* A signalled RDMA WRITE: the QP still moves data. */
static bool drain(struct mctx *c)
{
	uint64_t id = 0;
	int ret, n;

	ibv_wr_start(c->x.qx);
	c->x.qx->wr_id = WR_DRAIN;
	c->x.qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(c->x.qx, rkey_b(c), at_b(c, SCRATCH));
	ibv_wr_set_sge(c->x.qx, c->x.a.mr->lkey, (uintptr_t)c->x.a.addr, 8);
	ret = ibv_wr_complete(c->x.qx);
	n = ret ? 0 : gc_poll_ex(c->x.cqx, 1, &id, 3000);
	return !ret && n == 1 && id == WR_DRAIN;
}

/* False when the objects are gone: no set-up for the next row. */
static bool qp_member(struct mctx *c, const struct member *m)
{
	struct child_arg a = { c, m, "ibv_qp_ex", true };

	if (!*(void **)((char *)c->x.qx + m->off)) {
		gc_skip("ibv_qp_ex.%s (offset %zu): not filled in by this "
			"provider",
			m->name, m->off);
		return true;
	}
	/* An open batch: the parent's request the child could reach. */
	ibv_wr_start(c->x.qx);
	c->x.qx->wr_id = WR_MID;
	c->x.qx->wr_flags = 0;
	ibv_wr_rdma_write(c->x.qx, rkey_b(c), at_b(c, SCRATCH));
	ibv_wr_set_sge(c->x.qx, c->x.a.mr->lkey, (uintptr_t)c->x.a.addr, 8);
	run_child(&a);
	ibv_wr_abort(c->x.qx);

	if (gc_guard(drain(c),
		     "ibv_qp_ex.%s: the parent's QP still moves data after "
		     "the child's call",
		     m->name))
		return true;
	/* A broken QP would fail every later row: start afresh. */
	close_ctx(c);
	return gc_ok(!open_ctx(c), "new QP and CQ after the broken one");
}

static bool cq_member(struct mctx *c, const struct member *m)
{
	struct child_arg a = { c, m, "ibv_cq_ex", false };
	struct ibv_poll_cq_attr attr = {};
	static uint64_t next_id = 1;
	uint64_t id[2], seen[2] = {}, extra;
	struct ibv_wc wc[2];
	int i, n, ret;

	if (!*(void **)((char *)c->x.cqx + m->off)) {
		gc_skip("ibv_cq_ex.%s (offset %zu): not filled in by this "
			"provider",
			m->name, m->off);
		return true;
	}
	/*
	 * Two completions of the parent's wait, and its poll is open on the
	 * first: the scene where every member is a valid call.
	 */
	for (i = 0, n = 0; i < 2; i++) {
		id[i] = next_id++;
		n += !gc_post_recv(c->x.p.qp_b, &c->x.b, i * 512, 256, id[i]) &&
		     !fx_send_batch(&c->x, id[i], 0, 8, NULL);
	}
	n = n == 2 && gc_poll(c->x.p.cq_b, 2, wc, 3000) == 2;
	usleep(100000);
	ret = n ? ibv_start_poll(c->x.cqx, &attr) : -1;
	if (!gc_ok(!ret,
		   "ibv_cq_ex.%s: the parent polls the first of its two "
		   "completions (%d)",
		   m->name, ret))
		goto reopen;
	seen[0] = c->x.cqx->status == IBV_WC_SUCCESS ? c->x.cqx->wr_id : 0;
	run_child(&a);

	ret = ibv_next_poll(c->x.cqx);
	seen[1] = !ret && c->x.cqx->status == IBV_WC_SUCCESS ? c->x.cqx->wr_id :
							       0;
	ibv_end_poll(c->x.cqx);
	n = gc_poll_ex(c->x.cqx, 1, &extra, 200);
	if (gc_guard(seen[0] == id[0] && seen[1] == id[1] && !n,
		     "ibv_cq_ex.%s: after the child's call the parent polls "
		     "its second completion, and nothing more (%#llx %#llx, "
		     "%d more)",
		     m->name, (unsigned long long)seen[0],
		     (unsigned long long)seen[1], n))
		return true;
reopen:
	close_ctx(c);
	return gc_ok(!open_ctx(c), "new QP and CQ after the broken one");
}

int main(void)
{
	struct mctx c;
	size_t i;

	if (!fu_start("fork_ex_members"))
		return gc_finish();
	check_cover("ibv_qp_ex", qp_members, NMEMB(qp_members),
		    FN_ALIGN(offsetof(struct ibv_qp_ex, wr_flags) +
			     sizeof(unsigned int)),
		    sizeof(struct ibv_qp_ex), 184, 352);
	check_cover("ibv_cq_ex", cq_members, NMEMB(cq_members),
		    offsetof(struct ibv_cq_ex, wr_id) + sizeof(uint64_t),
		    sizeof(struct ibv_cq_ex), 144, 288);
	if (!gc_ok(!open_ctx(&c), "RC pair, QP ex, CQ ex, AH, MW"))
		goto out;
	gc_diag("rxe0 is served by %s; %d uverbs mappings shared with "
		"children",
		gc_librxe_mapped() ? "Debian's librxe-rdmav34.so" :
				     "the built-in provider",
		c.sh.n);
	for (i = 0; i < NMEMB(qp_members); i++)
		if (!qp_member(&c, &qp_members[i]))
			goto out;
	for (i = 0; i < NMEMB(cq_members); i++)
		if (!cq_member(&c, &cq_members[i]))
			goto out;
out:
	close_ctx(&c);
	return gc_finish();
}
