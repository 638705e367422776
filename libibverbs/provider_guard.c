// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The child guard on the functions a provider installs in its objects.
 *
 * A provider hands the application function pointers inside the objects it
 * creates: every member of an ibv_qp_ex (ibv_wr_start(), each builder such
 * as ibv_wr_send(), each setter such as ibv_wr_set_sge(), ibv_wr_complete(),
 * ibv_wr_abort()), every member of an ibv_cq_ex (ibv_start_poll(),
 * ibv_next_poll(), ibv_end_poll(), each ibv_wc_read_*()), ibv_post_wq_recv()
 * of an ibv_wq and the copy functions of an ibv_dm (device memory, mapped
 * from the device and shared with a child).  Inline verbs call them straight
 * from the application, so in a fork child they would run on the parent's
 * queues.  Those queues are not always private memory: a provider may map
 * its rings from the kernel shared (librxe and the built-in rxe provider do,
 * MAP_SHARED), and hardware providers map doorbell pages.  A child's builder
 * or setter then writes the slot the parent published last, and a child's
 * poll consumes the parent's completion.  So every such member is guarded,
 * not only the ones that take locks or ring doorbells.
 *
 * When such an object is created the library saves the provider's
 * functions and installs its own, one per member, listed in the tables
 * below (a member missing from them fails the build).  In a child each
 * one does nothing that reaches the provider: a function with a status
 * returns EPERM (ibv_wr_complete() included, so whatever the child built
 * is never published, and a batch the parent had started stays the
 * parent's), a builder or setter returns, a read returns 0.  In the
 * process that created the object they call the provider's function.
 *
 * Finding it costs one load: the context keeps, per member, the function
 * every object of the context shares (a provider such as librxe gives
 * every object of a kind the same ones).  Once an object brings another
 * function for a member, that slot becomes a function that looks the
 * object's own up in the handle table (two or three loads more).  Members
 * a provider left NULL stay NULL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs.h"
#include "provider_guard.h"

/*
 * The members, data-driven: for each, V(kind, name, child, params, args)
 * when it returns nothing, @child being what it does in a fork child, and
 * R(kind, name, type, child, params, args) when it returns a value,
 * @child being what it returns there.  The object parameter is always "o".
 */
#define QPX_MEMBERS(V, R)                                                      \
	V(qpx, wr_atomic_cmp_swp, NOTHING,                                     \
	  (struct ibv_qp_ex * o, uint32_t rkey, uint64_t raddr,                \
	   uint64_t compare, uint64_t swap),                                   \
	  (o, rkey, raddr, compare, swap))                                     \
	V(qpx, wr_atomic_fetch_add, NOTHING,                                   \
	  (struct ibv_qp_ex * o, uint32_t rkey, uint64_t raddr, uint64_t add), \
	  (o, rkey, raddr, add))                                               \
	V(qpx, wr_bind_mw, NOTHING,                                            \
	  (struct ibv_qp_ex * o, struct ibv_mw * mw, uint32_t rkey,            \
	   const struct ibv_mw_bind_info *info),                               \
	  (o, mw, rkey, info))                                                 \
	V(qpx, wr_local_inv, NOTHING, (struct ibv_qp_ex * o, uint32_t rkey),   \
	  (o, rkey))                                                           \
	V(qpx, wr_rdma_read, NOTHING,                                          \
	  (struct ibv_qp_ex * o, uint32_t rkey, uint64_t raddr),               \
	  (o, rkey, raddr))                                                    \
	V(qpx, wr_rdma_write, NOTHING,                                         \
	  (struct ibv_qp_ex * o, uint32_t rkey, uint64_t raddr),               \
	  (o, rkey, raddr))                                                    \
	V(qpx, wr_rdma_write_imm, NOTHING,                                     \
	  (struct ibv_qp_ex * o, uint32_t rkey, uint64_t raddr, __be32 imm),   \
	  (o, rkey, raddr, imm))                                               \
	V(qpx, wr_send, NOTHING, (struct ibv_qp_ex * o), (o))                  \
	V(qpx, wr_send_imm, NOTHING, (struct ibv_qp_ex * o, __be32 imm),       \
	  (o, imm))                                                            \
	V(qpx, wr_send_inv, NOTHING, (struct ibv_qp_ex * o, uint32_t rkey),    \
	  (o, rkey))                                                           \
	V(qpx, wr_send_tso, NOTHING,                                           \
	  (struct ibv_qp_ex * o, void *hdr, uint16_t hdr_sz, uint16_t mss),    \
	  (o, hdr, hdr_sz, mss))                                               \
	V(qpx, wr_set_ud_addr, NOTHING,                                        \
	  (struct ibv_qp_ex * o, struct ibv_ah * ah, uint32_t qpn,             \
	   uint32_t qkey),                                                     \
	  (o, ah, qpn, qkey))                                                  \
	V(qpx, wr_set_xrc_srqn, NOTHING,                                       \
	  (struct ibv_qp_ex * o, uint32_t srqn), (o, srqn))                    \
	V(qpx, wr_set_inline_data, NOTHING,                                    \
	  (struct ibv_qp_ex * o, void *addr, size_t len), (o, addr, len))      \
	V(qpx, wr_set_inline_data_list, NOTHING,                               \
	  (struct ibv_qp_ex * o, size_t n, const struct ibv_data_buf *bufs),   \
	  (o, n, bufs))                                                        \
	V(qpx, wr_set_sge, NOTHING,                                            \
	  (struct ibv_qp_ex * o, uint32_t lkey, uint64_t addr, uint32_t len),  \
	  (o, lkey, addr, len))                                                \
	V(qpx, wr_set_sge_list, NOTHING,                                       \
	  (struct ibv_qp_ex * o, size_t n, const struct ibv_sge *sgl),         \
	  (o, n, sgl))                                                         \
	V(qpx, wr_start, NOTHING, (struct ibv_qp_ex * o), (o))                 \
	R(qpx, wr_complete, int, EPERM, (struct ibv_qp_ex * o), (o))           \
	V(qpx, wr_abort, NOTHING, (struct ibv_qp_ex * o), (o))                 \
	V(qpx, wr_atomic_write, NOTHING,                                       \
	  (struct ibv_qp_ex * o, uint32_t rkey, uint64_t raddr,                \
	   const void *data),                                                  \
	  (o, rkey, raddr, data))                                              \
	QPX_MEMBERS_SINCE_45(V, R)

/* What rdma-core added to ibv_qp_ex after 44, in the releases built here. */
#if IBV_RDMA_CORE_RELEASE >= 56
#define QPX_MEMBERS_SINCE_45(V, R)                                          \
	V(qpx, wr_flush, NOTHING,                                           \
	  (struct ibv_qp_ex * o, uint32_t rkey, uint64_t raddr, size_t len, \
	   uint8_t type, uint8_t level),                                    \
	  (o, rkey, raddr, len, type, level))
#else
#define QPX_MEMBERS_SINCE_45(V, R)
#endif

#define CQX_READ(R, name, type) \
	R(cqx, name, type, 0, (struct ibv_cq_ex * o), (o))

#define CQX_MEMBERS(V, R)                                                    \
	R(cqx, start_poll, int, EPERM,                                       \
	  (struct ibv_cq_ex * o, struct ibv_poll_cq_attr * attr), (o, attr)) \
	R(cqx, next_poll, int, EPERM, (struct ibv_cq_ex * o), (o))           \
	V(cqx, end_poll, NOTHING, (struct ibv_cq_ex * o), (o))               \
	CQX_READ(R, read_opcode, enum ibv_wc_opcode)                         \
	CQX_READ(R, read_vendor_err, uint32_t)                               \
	CQX_READ(R, read_byte_len, uint32_t)                                 \
	CQX_READ(R, read_imm_data, __be32)                                   \
	CQX_READ(R, read_qp_num, uint32_t)                                   \
	CQX_READ(R, read_src_qp, uint32_t)                                   \
	CQX_READ(R, read_wc_flags, unsigned int)                             \
	CQX_READ(R, read_slid, uint32_t)                                     \
	CQX_READ(R, read_sl, uint8_t)                                        \
	CQX_READ(R, read_dlid_path_bits, uint8_t)                            \
	CQX_READ(R, read_completion_ts, uint64_t)                            \
	CQX_READ(R, read_cvlan, uint16_t)                                    \
	CQX_READ(R, read_flow_tag, uint32_t)                                 \
	V(cqx, read_tm_info, memset(tm, 0, sizeof(*tm)),                     \
	  (struct ibv_cq_ex * o, struct ibv_wc_tm_info * tm), (o, tm))       \
	CQX_READ(R, read_completion_wallclock_ns, uint64_t)

#define WQ_MEMBERS(V, R)                               \
	R(wq, post_recv, int, (*bad = wr, EPERM),      \
	  (struct ibv_wq * o, struct ibv_recv_wr * wr, \
	   struct ibv_recv_wr * *bad),                 \
	  (o, wr, bad))

#define DM_MEMBERS(V, R)                                                   \
	R(dm, memcpy_to_dm, int, EPERM,                                    \
	  (struct ibv_dm * o, uint64_t off, const void *host, size_t len), \
	  (o, off, host, len))                                             \
	R(dm, memcpy_from_dm, int, EPERM,                                  \
	  (void *host, struct ibv_dm *o, uint64_t off, size_t len),        \
	  (host, o, off, len))

/* What each kind of object is, for the generated code. */
typedef struct ibv_qp_ex qpx_obj;
typedef struct ibv_cq_ex cqx_obj;
typedef struct ibv_wq wq_obj;
typedef struct ibv_dm dm_obj;
#define qpx_ctx(o) ((o)->qp_base.context)
#define qpx_handle(o) ((o)->qp_base.handle)
#define cqx_ctx(o) ((o)->context)
#define cqx_handle(o) ((o)->handle)
#define wq_ctx(o) ((o)->context)
#define wq_handle(o) ((o)->handle)
#define dm_ctx(o) ((o)->context)
#define dm_handle(o) ((o)->handle)

#define NOTHING ((void)0)

#define MEMBER_T(kind, name) __typeof__(((kind##_obj *)0)->name)

/* The slot of each member in the context's shared set, kind by kind. */
#define SLOT_OF(kind, name, ...) SLOT_##kind##_##name,
enum {
	QPX_MEMBERS(SLOT_OF, SLOT_OF) SLOT_QPX_END,
	SLOT_CQX_FIRST = SLOT_QPX_END,
	SLOT_CQX_BEFORE = SLOT_CQX_FIRST - 1,
	CQX_MEMBERS(SLOT_OF, SLOT_OF) SLOT_CQX_END,
	SLOT_WQ_FIRST = SLOT_CQX_END,
	SLOT_WQ_BEFORE = SLOT_WQ_FIRST - 1,
	WQ_MEMBERS(SLOT_OF, SLOT_OF) SLOT_WQ_END,
	SLOT_DM_FIRST = SLOT_WQ_END,
	SLOT_DM_BEFORE = SLOT_DM_FIRST - 1,
	DM_MEMBERS(SLOT_OF, SLOT_OF) SLOT_DM_END,
};
#define KIND_FIRST_qpx 0
#define KIND_FIRST_cqx SLOT_CQX_FIRST
#define KIND_FIRST_wq SLOT_WQ_FIRST
#define KIND_FIRST_dm SLOT_DM_FIRST
#define SLOT(kind, name) SLOT_##kind##_##name
#define INDEX(kind, name) (SLOT(kind, name) - KIND_FIRST_##kind)

_Static_assert(SLOT_DM_END == VERBS_GUARD_SLOTS,
	       "driver.h sizes the shared set for every member");

/*
 * A kind's members are exactly the function pointers at the end of its
 * struct, each once: a member added to the struct (as rdma-core adds
 * them) and not to the table fails the build here, instead of reaching a
 * child unguarded.
 */
#define ONE(...) +1
#define QPX_FIRST \
	((offsetof(qpx_obj, wr_flags) + sizeof(void *)) & ~(sizeof(void *) - 1))
#define CQX_FIRST (offsetof(cqx_obj, wr_id) + sizeof(uint64_t))
#define QPX_BIT(kind, name, ...) \
	| (1ULL << ((offsetof(qpx_obj, name) - QPX_FIRST) / sizeof(void *)))
#define CQX_BIT(kind, name, ...) \
	| (1ULL << ((offsetof(cqx_obj, name) - CQX_FIRST) / sizeof(void *)))
#define QPX_N (0 QPX_MEMBERS(ONE, ONE))
#define CQX_N (0 CQX_MEMBERS(ONE, ONE))

_Static_assert(QPX_FIRST + QPX_N * sizeof(void *) == sizeof(qpx_obj) &&
		       (0 QPX_MEMBERS(QPX_BIT, QPX_BIT)) == (1ULL << QPX_N) - 1,
	       "every function pointer of ibv_qp_ex is in QPX_MEMBERS once");
_Static_assert(CQX_FIRST + CQX_N * sizeof(void *) == sizeof(cqx_obj) &&
		       (0 CQX_MEMBERS(CQX_BIT, CQX_BIT)) == (1ULL << CQX_N) - 1,
	       "every function pointer of ibv_cq_ex is in CQX_MEMBERS once");

/* ibv_dm's two copy functions sit between its context and comp_mask. */
_Static_assert(offsetof(dm_obj, memcpy_to_dm) == sizeof(void *) &&
		       offsetof(dm_obj, comp_mask) == 3 * sizeof(void *),
	       "every function pointer of ibv_dm is in DM_MEMBERS");

/*
 * And the structs are the release's (Debian's <infiniband/verbs.h> on
 * LP64): a provider built against it fills in exactly these members.
 */
_Static_assert(sizeof(void *) != 8 ||
		       (sizeof(qpx_obj) ==
				(IBV_RDMA_CORE_RELEASE >= 56 ? 360 : 352) &&
			sizeof(cqx_obj) == 288),
	       "ibv_qp_ex and ibv_cq_ex have the release's layout");

/* The shared function of a slot, from the private state loaded once. */
#define SHARED_FN(priv, kind, name)             \
	((MEMBER_T(kind, name))__atomic_load_n( \
		&(priv)->guard_fn[SLOT(kind, name)], __ATOMIC_RELAXED))

/*
 * The object's record in the handle table; NULL for an inherited object
 * (and for one no longer wrapped, which only a use after destroy meets).
 */
static inline __attribute__((always_inline)) const struct ht_rec *
rec_of(struct ibv_context *ctx, uint32_t handle, const void *obj)
{
	if (verbs_inherited(ctx))
		return NULL;
	return ht_get(verbs_priv(ctx)->cb_table, handle, obj);
}

#define OWN_FN(r, kind, name) ((MEMBER_T(kind, name))(r)->fn[INDEX(kind, name)])

/*
 * The wrappers: the guard, then the context's shared function for the
 * member (the provider's own, or the look-up that follows it).
 */
#define WRAP_V(kind, name, child, params, args)                        \
	static void guard_##kind##_##name params                       \
	{                                                              \
		struct ibv_context *ctx = kind##_ctx(o);               \
		const struct verbs_ex_private *priv = verbs_priv(ctx); \
                                                                       \
		if (verbs_inherited(ctx))                              \
			child;                                         \
		else                                                   \
			SHARED_FN(priv, kind, name) args;              \
	}                                                              \
	static void lookup_##kind##_##name params                      \
	{                                                              \
		const struct ht_rec *r;                                \
                                                                       \
		r = rec_of(kind##_ctx(o), kind##_handle(o), o);        \
		if (r)                                                 \
			OWN_FN(r, kind, name) args;                    \
		else                                                   \
			child;                                         \
	}

#define WRAP_R(kind, name, type, child, params, args)                  \
	static type guard_##kind##_##name params                       \
	{                                                              \
		struct ibv_context *ctx = kind##_ctx(o);               \
		const struct verbs_ex_private *priv = verbs_priv(ctx); \
                                                                       \
		if (verbs_inherited(ctx))                              \
			return child;                                  \
		return SHARED_FN(priv, kind, name) args;               \
	}                                                              \
	static type lookup_##kind##_##name params                      \
	{                                                              \
		const struct ht_rec *r;                                \
                                                                       \
		r = rec_of(kind##_ctx(o), kind##_handle(o), o);        \
		if (!r)                                                \
			return child;                                  \
		return OWN_FN(r, kind, name) args;                     \
	}

QPX_MEMBERS(WRAP_V, WRAP_R)
CQX_MEMBERS(WRAP_V, WRAP_R)
WQ_MEMBERS(WRAP_V, WRAP_R)
DM_MEMBERS(WRAP_V, WRAP_R)

/* Per member: where it sits in the object, its wrapper and look-up. */
struct guard_member {
	size_t off;
	ht_fn wrap;
	ht_fn lookup;
};

#define MEMBER_ROW(kind, name, ...)                           \
	[INDEX(kind, name)] = { offsetof(kind##_obj, name),   \
				(ht_fn)guard_##kind##_##name, \
				(ht_fn)lookup_##kind##_##name },

/* clang-format off */
static const struct guard_member qpx_members[] = {
	QPX_MEMBERS(MEMBER_ROW, MEMBER_ROW)
};
static const struct guard_member cqx_members[] = {
	CQX_MEMBERS(MEMBER_ROW, MEMBER_ROW)
};
static const struct guard_member wq_members[] = {
	WQ_MEMBERS(MEMBER_ROW, MEMBER_ROW)
};
static const struct guard_member dm_members[] = {
	DM_MEMBERS(MEMBER_ROW, MEMBER_ROW)
};
/* clang-format on */

struct guard_kind {
	const struct guard_member *m;
	unsigned int n;
	unsigned int first; /* in the context's shared set */
};

#define KIND(kind)                                                          \
	{                                                                   \
		kind##_members,                                             \
			sizeof(kind##_members) / sizeof(kind##_members[0]), \
			KIND_FIRST_##kind                                   \
	}

static const struct guard_kind qpx_kind = KIND(qpx);
static const struct guard_kind cqx_kind = KIND(cqx);
static const struct guard_kind wq_kind = KIND(wq);
static const struct guard_kind dm_kind = KIND(dm);

static ht_fn *member_slot(void *obj, const struct guard_member *m)
{
	return (ht_fn *)((char *)obj + m->off);
}

/*
 * Under cb_lock.  The provider's functions of one object, interned per
 * context: objects with the same ones share the copy the handle table
 * points at.  Kept until the context is freed, so that a look-up never
 * reads a freed copy.
 */
struct guard_fns {
	struct guard_fns *next;
	unsigned int n;
	ht_fn fn[];
};

static const ht_fn *intern_fns(struct verbs_ex_private *priv, const ht_fn *fn,
			       unsigned int n)
{
	struct guard_fns *f;

	for (f = priv->guard_fns; f; f = f->next)
		if (f->n == n && !memcmp(f->fn, fn, n * sizeof(*fn)))
			return f->fn;
	f = malloc(sizeof(*f) + n * sizeof(*fn));
	if (!f)
		return NULL;
	f->n = n;
	memcpy(f->fn, fn, n * sizeof(*fn));
	f->next = priv->guard_fns;
	priv->guard_fns = f;
	return f->fn;
}

/*
 * Keep each slot of the context's shared set the provider's function
 * every object of the context has for that member, or the look-up once
 * one differs.  A reader may see the old value for a moment, which is
 * right for every object published before: their function is the shared
 * one, which the look-up finds too.
 */
static void share_fns(struct verbs_ex_private *priv, const struct guard_kind *k,
		      const ht_fn *fn)
{
	unsigned int i;

	for (i = 0; i < k->n; i++) {
		ht_fn *slot = &priv->guard_fn[k->first + i];

		if (!fn[i] || *slot == k->m[i].lookup || *slot == fn[i])
			continue;
		__atomic_store_n(slot, *slot ? k->m[i].lookup : fn[i],
				 __ATOMIC_RELAXED);
	}
}

/* Under cb_lock: file @rec, allocating the table with the first record. */
static int table_set(struct verbs_ex_private *priv, uint32_t handle,
		     const struct ht_rec *rec)
{
	if (!priv->cb_table) {
		/* Readers load it only through objects created after this. */
		priv->cb_table = calloc(1, sizeof(*priv->cb_table));
		if (!priv->cb_table)
			return ENOMEM;
	}
	return ht_set(priv->cb_table, handle, rec);
}

/*
 * Save @obj's provider functions of kind @k and install the wrappers in
 * every member the provider filled in.
 */
static int guard_obj(const struct guard_kind *k, struct ibv_context *ctx,
		     uint32_t handle, void *obj)
{
	struct verbs_ex_private *priv = verbs_priv(ctx);
	ht_fn fn[VERBS_GUARD_SLOTS];
	struct ht_rec rec = { .obj = obj };
	unsigned int i, filled = 0;
	int err;

	for (i = 0; i < k->n; i++) {
		fn[i] = *member_slot(obj, &k->m[i]);
		/* Guarded already: saving the wrappers would loop. */
		if (fn[i] == k->m[i].wrap)
			return 0;
		filled += fn[i] != NULL;
	}
	if (!filled)
		return 0;

	verbs_proc_enter();
	pthread_mutex_lock(&priv->cb_lock);
	rec.fn = intern_fns(priv, fn, k->n);
	err = rec.fn ? table_set(priv, handle, &rec) : ENOMEM;
	if (!err)
		share_fns(priv, k, fn);
	pthread_mutex_unlock(&priv->cb_lock);
	if (err)
		return err;

	for (i = 0; i < k->n; i++)
		if (fn[i])
			*member_slot(obj, &k->m[i]) = k->m[i].wrap;
	return 0;
}

int verbs_guard_qp_ex(struct ibv_qp_ex *qpx)
{
	return guard_obj(&qpx_kind, qpx->qp_base.context, qpx->qp_base.handle,
			 qpx);
}

int verbs_guard_cq_ex(struct ibv_cq_ex *cq)
{
	return guard_obj(&cqx_kind, cq->context, cq->handle, cq);
}

int verbs_guard_wq(struct ibv_wq *wq)
{
	return guard_obj(&wq_kind, wq->context, wq->handle, wq);
}

int verbs_guard_dm(struct ibv_dm *dm)
{
	return guard_obj(&dm_kind, dm->context, dm->handle, dm);
}

/*
 * Before a provider destroys an object: forget its record, keeping a copy
 * in @saved so that a failed destroy can put it back
 * (verbs_guard_restore()).  The record never outlives the object, so a
 * new object at the same address and handle cannot find a stale one.  In
 * a fork child the table is the parent's business (and its lock may have
 * been held at fork()): it is left alone.
 *
 * While a member goes through the per-object look-up, another thread that
 * uses the object between this drop and a failed destroy's restore finds
 * no record and is refused (EPERM, or a builder that does nothing).  Using
 * an object while destroying it is the application's bug (rdma-core
 * documents no result for it either); the window only makes that bug
 * fail visibly instead of reaching freed memory.
 */
void verbs_guard_drop(struct ibv_context *ctx, uint32_t handle, const void *obj,
		      struct ht_rec *saved)
{
	struct verbs_ex_private *priv = verbs_priv(ctx);
	const struct ht_rec *r;

	saved->obj = NULL;
	if (verbs_inherited_strict(ctx) || !priv->cb_table)
		return;
	verbs_proc_enter();
	pthread_mutex_lock(&priv->cb_lock);
	r = ht_get(priv->cb_table, handle, obj);
	if (r) {
		*saved = *r;
		ht_clear(priv->cb_table, handle, obj);
	}
	pthread_mutex_unlock(&priv->cb_lock);
}

void verbs_guard_restore(struct ibv_context *ctx, uint32_t handle,
			 const struct ht_rec *saved)
{
	struct verbs_ex_private *priv = verbs_priv(ctx);

	if (!saved->obj)
		return;
	verbs_proc_enter();
	pthread_mutex_lock(&priv->cb_lock);
	/* The table exists and keeps its pages: this cannot fail. */
	table_set(priv, handle, saved);
	pthread_mutex_unlock(&priv->cb_lock);
}

void verbs_guard_table_free(struct verbs_ex_private *priv)
{
	struct guard_fns *f, *next;

	for (f = priv->guard_fns; f; f = next) {
		next = f->next;
		free(f);
	}
	priv->guard_fns = NULL;
	if (!priv->cb_table)
		return;
	ht_free(priv->cb_table);
	free(priv->cb_table);
	priv->cb_table = NULL;
}
