// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fork child's own objects on the contexts it inherited.
 *
 * librdmacm opens each device once per process and keeps the context and
 * a PD in a cache that fork() does not reset; libfabric's verbs provider
 * takes its contexts from there.  A child of a process that touched
 * rdma_cm therefore only ever sees inherited contexts.  The parent's
 * kernel context is not the child's to use (the kernel refuses its write()
 * commands from the child, and the parent's provider state - doorbells,
 * mapped queues - is the parent's), so a creating verb the child calls on
 * an inherited context or PD goes to a context of the child's own: a
 * fresh open of the same device, made on first need, one per inherited
 * context.  The object is created there, and the application gets a proxy:
 * library memory laid out as the public object, whose context (and pd) are
 * the inherited ones it passed, because librdmacm checks that a QP's PD
 * and its cm_id share a context.  An inherited PD gets the child's own PD
 * on the fresh context, made when first used.
 *
 * A proxy never reaches a provider.  Its context is inherited, so every
 * verb refuses it as before (EPERM), except those that look it up here
 * first: the destroying verbs, the QP's modify/query/ECE/multicast verbs,
 * the SRQ's modify/query/number verbs, CQ resizing, MR re-registration,
 * completion events, window binds, and the data path's cold branch
 * (provider_context.c), which forwards to the real object's own context
 * (exchanging a UD request's AH, a bind's window and MR for the real
 * ones).  The members of an
 * extended CQ or QP proxy are forwarders (fork_child_ex.c), which reach
 * the real object through the proxy.  The parent never takes that branch,
 * so its data path is unchanged.
 *
 * Proxies, the fresh contexts and the child's PDs for inherited PDs are
 * found through one hash table keyed by the application's pointer.  It
 * also holds, in every process, a note of the PD each parent domain lies
 * over, so the parent takes its lock too (ibv_alloc_parent_domain(), and
 * ibv_dealloc_pd() once a parent domain exists).  It is ordinary memory,
 * so a grandchild inherits it: there the real objects' contexts are
 * inherited in turn, so their verbs refuse and their destroys free only
 * this process's copy, and a context or PD that is needed again gets a
 * fresh one of the grandchild's.  The lock is reset in every child before
 * any of its threads can take it (fork_guard.c), so no thread of a
 * parent can leave it held.  Opening the child's context, making its PD
 * for an inherited one and opening an XRC target QP are kernel commands
 * made under the lock, so a post or poll on a proxy may wait for one.
 */
#define _GNU_SOURCE /* dup3() */
#include <fcntl.h>
#include <linux/kcmp.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fork_child.h"
#include "fork_child_priv.h"
#include "fork_guard.h"
#include "ibverbs.h"

#define CHILD_BUCKETS 64

static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;
static struct child_obj *buckets[CHILD_BUCKETS];
/* The process that adopted this memory image as a fork child. */
static pid_t child_pid;

/* A parent's thread may have held the lock at fork(): start unlocked. */
static void child_objects_reset(void)
{
	pthread_mutex_init(&child_lock, NULL);
	__atomic_store_n(&child_pid, getpid(), __ATOMIC_RELEASE);
}

/*
 * A vfork() or CLONE_VM child of a fork child shares this table and the
 * token page, so it would take the child's path, but the fresh contexts'
 * descriptors are not its own and any context it opened would replace
 * the child's entries in memory they share.  Only the adopter may act.
 */
static bool own_process(void)
{
	verbs_proc_enter();
	return __atomic_load_n(&child_pid, __ATOMIC_ACQUIRE) == getpid();
}

__attribute__((constructor)) static void child_objects_init(void)
{
	verbs_register_child_reset(VERBS_RESET_CHILD_OBJECTS,
				   child_objects_reset);
}

/*
 * Adopt this process's token before the lock (that resets it in a new
 * child), and keep cancellation off while it is held: opening a device
 * under it reaches open(), a cancellation point.
 */
static int lock_begin(void)
{
	int cancel;

	verbs_proc_enter();
	cancel = verbs_nocancel_begin();
	pthread_mutex_lock(&child_lock);
	return cancel;
}

static void lock_end(int cancel)
{
	pthread_mutex_unlock(&child_lock);
	verbs_nocancel_end(cancel);
}

static struct child_obj **bucket_of(const void *key)
{
	uintptr_t k = (uintptr_t)key;

	return &buckets[((k >> 4) ^ (k >> 12)) % CHILD_BUCKETS];
}

static struct child_obj *find_locked(const void *key, enum child_kind kind)
{
	struct child_obj *o;

	for (o = *bucket_of(key); o; o = o->next)
		if (o->key == key && o->kind == kind)
			return o;
	return NULL;
}

/*
 * One store links or unlinks an entry, so a child forked while another
 * thread was here finds a consistent chain.
 */
static void insert_locked(struct child_obj *o)
{
	struct child_obj **b = bucket_of(o->key);

	o->next = *b;
	__atomic_store_n(b, o, __ATOMIC_RELEASE);
}

static void remove_locked(struct child_obj *o)
{
	struct child_obj **p;

	for (p = bucket_of(o->key); *p; p = &(*p)->next) {
		if (*p == o) {
			__atomic_store_n(p, o->next, __ATOMIC_RELEASE);
			return;
		}
	}
}

static void add_locked(struct child_obj *o, const void *key,
		       enum child_kind kind, void *real)
{
	o->key = key;
	o->kind = kind;
	o->real = real;
	insert_locked(o);
}

static void add(struct child_obj *o, const void *key, enum child_kind kind,
		void *real)
{
	int cancel = lock_begin();

	add_locked(o, key, kind, real);
	lock_end(cancel);
}

/*
 * The real object behind proxy @key, or NULL.  The data path's look-up:
 * it holds the lock over a walk of one chain only, which reaches no
 * cancellation point, so it leaves the cancel state alone (two calls
 * into libc per post or poll otherwise).  own_process() has adopted this
 * process's token, as lock_begin() would.
 */
static void *real_of(const void *key, enum child_kind kind)
{
	struct child_obj *o;
	void *real = NULL;

	if (!own_process())
		return NULL;
	pthread_mutex_lock(&child_lock);
	o = find_locked(key, kind);
	if (o)
		real = o->real;
	pthread_mutex_unlock(&child_lock);
	return real;
}

enum take_result {
	TAKE_MISS, /* no proxy: the caller treats @key as before */
	TAKE_OK, /* marked dying: destroy the real object, then finish() */
	TAKE_STALE, /* dying when this process was forked: free the copy */
	TAKE_REFUSED, /* *ret says why */
};

/*
 * Start destroying proxy @key.  The entry stays linked while the real
 * object is destroyed, so a concurrent post or poll still reaches it and
 * a registration on a PD being deallocated still finds the PD's own.
 */
static enum take_result take(const void *key, enum child_kind kind,
			     struct child_obj **out, int *ret)
{
	enum take_result r = TAKE_OK;
	struct child_obj *o;
	int cancel;

	if (!own_process()) {
		*ret = EPERM;
		return TAKE_REFUSED;
	}
	cancel = lock_begin();
	o = find_locked(key, kind);
	if (!o) {
		r = TAKE_MISS;
	} else if (o->dying == getpid()) {
		/* Another thread is destroying it right now. */
		*ret = EBUSY;
		r = TAKE_REFUSED;
	} else if (o->dying) {
		/*
		 * An ancestor's thread was destroying the real object when
		 * this process was forked: its copy may be half freed, so
		 * leave it alone and drop only the proxy.
		 */
		remove_locked(o);
		r = TAKE_STALE;
	} else {
		o->dying = getpid();
	}
	lock_end(cancel);
	*out = o;
	return r;
}

/* Unlink on success; a destroy that failed (EBUSY) leaves it usable. */
static void finish(struct child_obj *o, int err)
{
	int cancel = lock_begin();

	if (err)
		o->dying = 0;
	else
		remove_locked(o);
	lock_end(cancel);
}

/*
 * Destroy proxy @key: its real object with @destroy, then the entry.
 * False when @key is no proxy (the caller treats it as before); else
 * true, with *ret the verb's result and *gone the entry whose proxy the
 * caller frees, NULL when the proxy stays (refused, or the destroy
 * failed).  A stale entry (see take()) is gone without a destroy.
 */
static bool destroy_proxy(const void *key, enum child_kind kind,
			  int (*destroy)(struct child_obj *o),
			  struct child_obj **gone, int *ret)
{
	struct child_obj *o;

	*gone = NULL;
	switch (take(key, kind, &o, ret)) {
	case TAKE_MISS:
		return false;
	case TAKE_REFUSED:
		return true;
	case TAKE_STALE:
		*ret = 0;
		break;
	case TAKE_OK:
		*ret = destroy(o);
		finish(o, *ret);
		if (*ret)
			return true;
		break;
	}
	*gone = o;
	return true;
}

/*
 * destroy_proxy() for a proxy that needs nothing more than freeing: its
 * entry sits @off bytes into the allocation.  Called through
 * destroy_and_free(), which takes the proxy's type.
 */
static bool destroy_and_free_at(const void *key, enum child_kind kind,
				int (*destroy)(struct child_obj *o), size_t off,
				int *ret)
{
	struct child_obj *o;

	if (!destroy_proxy(key, kind, destroy, &o, ret))
		return false;
	if (o)
		free((char *)o - off);
	return true;
}

#define destroy_and_free(key, kind, destroy, type, ret)                    \
	({                                                                 \
		_Static_assert(__builtin_types_compatible_p(               \
				       __typeof__(((type *)0)->o),         \
				       struct child_obj),                  \
			       "the proxy's entry is its member o");       \
		destroy_and_free_at(key, kind, destroy, offsetof(type, o), \
				    ret);                                  \
	})

/*
 * Whether this process shares its descriptor table with process @pid
 * (clone(CLONE_FILES) without CLONE_VM), by kcmp(2).  Only the kernel's
 * yes counts: a process that is gone or out of this PID namespace, or
 * kcmp missing or refused (a seccomp filter), answers no, and the child
 * is taken for the ordinary one, with a table of its own, that nearly
 * every child is.
 */
static bool fd_table_shared_with(pid_t pid)
{
	if (pid <= 0 || pid == getpid())
		return false;
	return syscall(SYS_kcmp, getpid(), pid, KCMP_FILES, 0, 0) == 0;
}

/*
 * With any process that uses inherited @ctx's descriptor numbers: its
 * opener, @prev (the ancestor whose own context a grandchild replaces)
 * and our parent.
 */
static bool fd_table_shared(const struct ibv_context *ctx, pid_t prev)
{
	return fd_table_shared_with(verbs_owner_of(ctx)->pid) ||
	       fd_table_shared_with(prev) || fd_table_shared_with(getppid());
}

/* The pid whose own context for @ctx a grandchild's replaces, or 0. */
static pid_t prev_opener_locked(const struct ibv_context *ctx)
{
	struct child_obj *e = find_locked(ctx, CK_CTX);

	return e ? verbs_owner_of(e->real)->pid : 0;
}

bool verbs_child_fd_table_shared(struct ibv_context *ctx)
{
	bool shared;
	int cancel;

	if (!own_process())
		return false;
	cancel = lock_begin();
	shared = fd_table_shared(ctx, prev_opener_locked(ctx));
	lock_end(cancel);
	return shared;
}

/*
 * The inherited @ctx's async_fd names the parent's asynchronous event
 * file, which the child must never read; the events of the child's own
 * objects arrive on @fresh's.  Make the inherited descriptor number name
 * @fresh's file in this process (dup3() over it, in the child's own
 * descriptor table: fresh_ctx_locked() opens no context in a shared
 * one), so that poll() on ctx->async_fd - also on a number an
 * application or libfabric took before the fork - wakes for the child's
 * events.  The file keeps the inherited one's O_NONBLOCK and the number
 * its FD_CLOEXEC.  Best effort: ibv_get_async_event() reads @fresh's
 * descriptor either way.
 */
static void take_async_fd(struct ibv_context *ctx, struct ibv_context *fresh)
{
	int fl, fdfl;

	if (ctx->async_fd < 0 || fresh->async_fd < 0)
		return;
	fl = fcntl(ctx->async_fd, F_GETFL);
	fdfl = fcntl(ctx->async_fd, F_GETFD);
	if (fl < 0 || fdfl < 0)
		return;
	if (fl & O_NONBLOCK) {
		fl = fcntl(fresh->async_fd, F_GETFL);
		if (fl >= 0)
			fcntl(fresh->async_fd, F_SETFL, fl | O_NONBLOCK);
	}
	dup3(fresh->async_fd, ctx->async_fd,
	     (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0);
}

/*
 * The child's own context for inherited @ctx: opened on first need, and
 * again in a grandchild, whose copy of the entry names its parent's.  The
 * old one is left as it is: proxies the grandchild inherited still point
 * at objects on it, which only it can free (as copies).
 */
static struct ibv_context *fresh_ctx_locked(struct ibv_context *ctx)
{
	struct child_obj *e = find_locked(ctx, CK_CTX);
	struct ibv_context *fresh;

	if (e && !verbs_inherited_strict(e->real))
		return e->real;
	/*
	 * A child sharing the parent's descriptor table gets no context:
	 * its descriptors would stay open in the parent's table, a kernel
	 * context the parent holds, after the child is gone.
	 */
	if (fd_table_shared(ctx, e ? verbs_owner_of(e->real)->pid : 0))
		return verbs_null_errno(EPERM);
	fresh = ibv_open_device(ctx->device);
	if (!fresh)
		return NULL;
	if (e) {
		take_async_fd(ctx, fresh);
		verbs_keep_reachable(e->real);
		e->real = fresh;
		return fresh;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		ibv_close_device(fresh);
		return verbs_null_errno(ENOMEM);
	}
	e->key = ctx;
	e->kind = CK_CTX;
	e->real = fresh;
	insert_locked(e);
	take_async_fd(ctx, fresh);
	return fresh;
}

static bool pd_owned_by(void *pd, struct ibv_context *fresh)
{
	return pd && ((struct ibv_pd *)pd)->context == fresh;
}

/*
 * The PD on @fresh that stands for the application's @pd: a proxy's own,
 * or the child's PD for an inherited one (also for a proxy inherited from
 * a parent that was itself a child), made on first use.  An inherited
 * parent domain stands for the PD it lies over: the child's objects on
 * the two meet on one PD, as the parent's do.
 */
static struct ibv_pd *own_pd_locked(struct ibv_pd *pd,
				    struct ibv_context *fresh)
{
	struct child_obj *e;
	struct ibv_pd *real;

	/* A few hops: a parent domain lies over a PD, not a chain of them. */
	for (int hops = 0;; hops++) {
		e = find_locked(pd, CK_PD);
		if (e && pd_owned_by(e->real, fresh))
			return e->real;
		e = hops < 4 ? find_locked(pd, CK_PDOM) : NULL;
		if (!e)
			break;
		pd = e->real;
	}
	e = find_locked(pd, CK_SHADOW_PD);
	if (e && pd_owned_by(e->real, fresh))
		return e->real;
	real = ibv_alloc_pd(fresh);
	if (!real)
		return NULL;
	if (e) {
		verbs_keep_reachable(e->real);
		e->real = real;
		return real;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		/* Not ibv_dealloc_pd(): it takes the lock held here. */
		verbs_ops(fresh)->dealloc_pd(real);
		return verbs_null_errno(ENOMEM);
	}
	e->key = pd;
	e->kind = CK_SHADOW_PD;
	e->real = real;
	insert_locked(e);
	return real;
}

static struct ibv_context *fresh_ctx(struct ibv_context *ctx)
{
	struct ibv_context *fresh;
	int cancel;

	if (!own_process())
		return verbs_null_errno(EPERM);
	cancel = lock_begin();
	fresh = fresh_ctx_locked(ctx);
	lock_end(cancel);
	return fresh;
}

static struct ibv_pd *own_pd(struct ibv_pd *pd)
{
	struct ibv_context *fresh;
	struct ibv_pd *real = NULL;
	int cancel;

	if (!own_process())
		return verbs_null_errno(EPERM);
	cancel = lock_begin();
	fresh = fresh_ctx_locked(pd->context);
	if (fresh)
		real = own_pd_locked(pd, fresh);
	lock_end(cancel);
	return real;
}

struct ibv_pd *verbs_child_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_context *fresh = fresh_ctx(ctx);
	struct child_pd *p;
	struct ibv_pd *real;

	if (!fresh)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return verbs_null_errno(ENOMEM);
	real = ibv_alloc_pd(fresh);
	if (!real) {
		free(p);
		return NULL;
	}
	p->v.pd.context = ctx;
	p->v.pd.handle = real->handle;
	add(&p->o, &p->v.pd, CK_PD, real);
	return &p->v.pd;
}

static int dealloc_real_pd(struct child_obj *o)
{
	return ibv_dealloc_pd(o->real);
}

bool verbs_child_dealloc_pd(struct ibv_pd *pd, int *ret)
{
	struct child_obj *o;

	/*
	 * First the PD this process made to stand for @pd: an inherited PD
	 * has one, and so has a proxy inherited from a parent that was
	 * itself a child.
	 */
	switch (take(pd, CK_SHADOW_PD, &o, ret)) {
	case TAKE_REFUSED:
		return true;
	case TAKE_STALE:
		free(o);
		break;
	case TAKE_OK:
		*ret = verbs_inherited_strict(
			       ((struct ibv_pd *)o->real)->context) ?
			       0 :
			       ibv_dealloc_pd(o->real);
		finish(o, *ret);
		if (*ret)
			return true;
		free(o);
		break;
	case TAKE_MISS:
		break;
	}
	if (!destroy_proxy(pd, CK_PD, dealloc_real_pd, &o, ret))
		return false;
	if (o)
		free(container_of(o, struct child_pd, o));
	return true;
}

struct ibv_comp_channel *verbs_child_create_channel(struct ibv_context *ctx)
{
	struct ibv_context *fresh = fresh_ctx(ctx);
	struct ibv_comp_channel *real;
	struct child_channel *ch;

	if (!fresh)
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return verbs_null_errno(ENOMEM);
	real = ibv_create_comp_channel(fresh);
	if (!real) {
		free(ch);
		return NULL;
	}
	/* The application polls the descriptor: it is the real one's. */
	ch->pub.context = ctx;
	ch->pub.fd = real->fd;
	add(&ch->o, &ch->pub, CK_CHANNEL, real);
	return &ch->pub;
}

/* Proxy CQs count on the proxy, as ibv_create_cq() does. */
static int destroy_real_channel(struct child_obj *o)
{
	struct child_channel *ch = container_of(o, struct child_channel, o);

	if (__atomic_load_n(&ch->pub.refcnt, __ATOMIC_ACQUIRE))
		return EBUSY;
	return ibv_destroy_comp_channel(o->real);
}

bool verbs_child_destroy_channel(struct ibv_comp_channel *ch, int *ret)
{
	return destroy_and_free(ch, CK_CHANNEL, destroy_real_channel,
				struct child_channel, ret);
}

bool verbs_child_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq,
			      void **cq_context, int *ret)
{
	struct ibv_comp_channel *real = real_of(ch, CK_CHANNEL);
	struct ibv_cq *rcq;
	void *proxy;

	if (!real)
		return false;
	*ret = ibv_get_cq_event(real, &rcq, &proxy);
	if (*ret)
		return true;
	/* Every CQ on the real channel is a proxy's, made with its address. */
	*cq = proxy;
	*cq_context = (*cq)->cq_context;
	return true;
}

/*
 * ibv_get_async_event() on inherited @ctx: the next event of the child's
 * own context for it (opened on first need), never one of the parent's.
 * The kernel names the real object by its address; each real CQ, QP and
 * SRQ on that context was made with its proxy as its user context, so
 * the event names the proxy, as the application knows it.  Port and
 * device events pass as they are.  0, or -1 with errno.
 */
int verbs_child_get_async_event(struct ibv_context *ctx,
				struct ibv_async_event *event)
{
	struct ibv_context *fresh = fresh_ctx(ctx);
	int cancel;

	if (!fresh)
		return -1;
	if (ibv_get_async_event(fresh, event))
		return -1;
	/*
	 * Each real object's user context is its proxy.  An XRC target QP
	 * being opened (verbs_child_open_qp()) may have an event before the
	 * command layer sets its user context: the open holds the lock
	 * until then.
	 */
	cancel = lock_begin();
	verbs_event_to_user_objects(event);
	lock_end(cancel);
	return 0;
}

/* The context an inherited or proxy object of @kind names. */
static struct ibv_context *context_of(const void *obj, enum child_kind kind)
{
	switch (kind) {
	case CK_CHANNEL:
		return ((const struct ibv_comp_channel *)obj)->context;
	case CK_CQ:
		return ((const struct ibv_cq *)obj)->context;
	case CK_SRQ:
		return ((const struct ibv_srq *)obj)->context;
	case CK_MR:
		return ((const struct ibv_mr *)obj)->context;
	case CK_MW:
		return ((const struct ibv_mw *)obj)->context;
	case CK_PD:
		return ((const struct ibv_pd *)obj)->context;
	case CK_TD:
		return ((const struct ibv_td *)obj)->context;
	case CK_XRCD:
		return ((const struct ibv_xrcd *)obj)->context;
	default:
		return NULL;
	}
}

/*
 * A part of a new object - a CQ's channel and parent domain, a QP's CQs
 * and SRQ, a parent domain's TD: the real object behind a proxy of @ctx,
 * or NULL with *err 0 for none.  One of another context is EINVAL (a
 * verb that checked that first never gets here with one).  The parent's
 * is refused (EPERM): its events, queue, completions and doorbells are
 * the parent's; so are those of a proxy inherited from a parent that
 * was itself a child.
 */
static void *own_part(struct ibv_context *ctx, const void *obj,
		      enum child_kind kind, int *err)
{
	void *real;

	*err = 0;
	if (!obj)
		return NULL;
	if (context_of(obj, kind) != ctx) {
		*err = EINVAL;
		return NULL;
	}
	real = real_of(obj, kind);
	if (!real || verbs_inherited_strict(context_of(real, kind))) {
		*err = EPERM;
		return NULL;
	}
	return real;
}

/* What the application sees of a new CQ: what it passed. */
static void cq_fill(struct ibv_cq *pub, struct ibv_cq *real,
		    struct ibv_context *ctx, struct ibv_comp_channel *channel,
		    void *cq_context)
{
	pub->context = ctx;
	pub->channel = channel;
	pub->cq_context = cq_context;
	pub->handle = real->handle;
	pub->cqe = real->cqe;
	pthread_mutex_init(&pub->mutex, NULL);
	pthread_cond_init(&pub->cond, NULL);
	if (channel)
		__atomic_add_fetch(&channel->refcnt, 1, __ATOMIC_RELAXED);
}

struct ibv_cq *verbs_child_create_cq(struct ibv_context *ctx, int cqe,
				     void *cq_context,
				     struct ibv_comp_channel *channel,
				     int comp_vector)
{
	struct ibv_comp_channel *rch;
	struct ibv_context *fresh;
	struct ibv_cq *real;
	struct child_cq *cq;
	int err;

	rch = own_part(ctx, channel, CK_CHANNEL, &err);
	if (err)
		return verbs_null_errno(err);
	fresh = fresh_ctx(ctx);
	if (!fresh)
		return NULL;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return verbs_null_errno(ENOMEM);
	/* The real CQ's context is the proxy: its events name it. */
	real = ibv_create_cq(fresh, cqe, &cq->v.cq, rch, comp_vector);
	if (!real) {
		free(cq);
		return NULL;
	}
	cq_fill(&cq->v.cq, real, ctx, channel, cq_context);
	add(&cq->o, &cq->v.cq, CK_CQ, real);
	return &cq->v.cq;
}

static int destroy_real_cq(struct child_obj *o)
{
	return ibv_destroy_cq(o->real);
}

bool verbs_child_destroy_cq(struct ibv_cq *cq, int *ret)
{
	struct child_obj *o;

	if (!destroy_proxy(cq, CK_CQ, destroy_real_cq, &o, ret))
		return false;
	if (!o)
		return true;
	if (cq->channel)
		__atomic_sub_fetch(&cq->channel->refcnt, 1, __ATOMIC_RELEASE);
	pthread_cond_destroy(&cq->cond);
	pthread_mutex_destroy(&cq->mutex);
	free(container_of(o, struct child_cq, o));
	return true;
}

struct ibv_cq *verbs_child_real_cq(struct ibv_cq *cq)
{
	return real_of(cq, CK_CQ);
}

struct ibv_qp *verbs_child_real_qp(struct ibv_qp *qp)
{
	return real_of(qp, CK_QP);
}

/*
 * For a verb that changes proxy @key: false when @key is no proxy; else
 * true, with *out its real object, or NULL and *err EPERM when that is on
 * an inherited context (a proxy a grandchild inherited).
 */
static bool own_real(const void *key, enum child_kind kind, void **out,
		     int *err)
{
	void *real = real_of(key, kind);

	*out = NULL;
	*err = 0;
	if (!real)
		return false;
	if (verbs_inherited_strict(context_of(real, kind)))
		*err = EPERM;
	else
		*out = real;
	return true;
}

bool verbs_child_resize_cq(struct ibv_cq *cq, int cqe, int *ret)
{
	struct ibv_cq *real;

	if (!own_real(cq, CK_CQ, (void **)&real, ret))
		return false;
	if (!real)
		return true;
	*ret = ibv_resize_cq(real, cqe);
	if (!*ret)
		__atomic_store_n(&cq->cqe, real->cqe, __ATOMIC_RELAXED);
	return true;
}

/* The proxy's copies of what ibv_rereg_mr() changed on the real MR. */
static void mr_synced(struct ibv_mr *mr, struct ibv_mr *real, int flags,
		      struct ibv_pd *pd, int access)
{
	mr->lkey = real->lkey;
	mr->rkey = real->rkey;
	mr->addr = real->addr;
	mr->length = real->length;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		container_of(mr, struct verbs_mr, ibv_mr)->access = access;
}

bool verbs_child_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			  void *addr, size_t length, int access, int *ret)
{
	struct ibv_pd *rpd = NULL;
	struct ibv_mr *real;
	int err;

	if (!own_real(mr, CK_MR, (void **)&real, &err))
		return false;
	*ret = IBV_REREG_MR_ERR_INPUT;
	if (!real) {
		errno = err;
		return true;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		rpd = own_pd(pd);
		if (!rpd) {
			/* Refused as an argument, or the child's PD failed. */
			if (errno != EPERM)
				*ret = IBV_REREG_MR_ERR_CMD;
			return true;
		}
	}
	*ret = ibv_rereg_mr(real, flags, rpd, addr, length, access);
	if (!*ret)
		mr_synced(mr, real, flags, pd, access);
	return true;
}

/*
 * RC, UC, UD and XRC QPs, on the child's CQs and SRQ.  A UD work request
 * names an AH, which the data path exchanges for the real one
 * (verbs_child_post_send()).  An XRC target QP lies in an XRC domain of
 * the child's (verbs_child_create_qp_ex()).
 */
static int qp_attr_ok(struct ibv_context *ctx, struct ibv_qp_init_attr *attr,
		      struct ibv_cq **rs, struct ibv_cq **rr,
		      struct ibv_srq **rsrq)
{
	int err;

	*rs = *rr = NULL;
	*rsrq = NULL;
	if (!attr)
		return EINVAL;
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD && attr->qp_type != IBV_QPT_XRC_SEND &&
	    attr->qp_type != IBV_QPT_XRC_RECV)
		return EPERM;
	/* A target QP has no queues of its own: the kernel ignores them. */
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return 0;
	*rsrq = own_part(ctx, attr->srq, CK_SRQ, &err);
	if (!err)
		*rs = own_part(ctx, attr->send_cq, CK_CQ, &err);
	if (!err)
		*rr = own_part(ctx, attr->recv_cq, CK_CQ, &err);
	return err;
}

static void qp_fill(struct ibv_qp *pub, struct ibv_qp *real,
		    struct ibv_context *ctx, struct ibv_pd *pd,
		    const struct ibv_qp_init_attr *attr)
{
	pub->context = ctx;
	pub->qp_context = attr->qp_context;
	pub->pd = pd;
	pub->send_cq = attr->send_cq;
	pub->recv_cq = attr->recv_cq;
	pub->srq = attr->srq;
	pub->handle = real->handle;
	pub->qp_num = real->qp_num;
	pub->state = real->state;
	pub->qp_type = real->qp_type;
	pthread_mutex_init(&pub->mutex, NULL);
	pthread_cond_init(&pub->cond, NULL);
}

struct ibv_qp *verbs_child_create_qp(struct ibv_pd *pd,
				     struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr ra;
	struct ibv_cq *rs, *rr;
	struct ibv_srq *rsrq;
	struct ibv_qp *real;
	struct child_qp *qp;
	struct ibv_pd *rpd;
	int err;

	err = qp_attr_ok(pd->context, attr, &rs, &rr, &rsrq);
	if (err)
		return verbs_null_errno(err);
	rpd = own_pd(pd);
	if (!rpd)
		return NULL;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return verbs_null_errno(ENOMEM);
	ra = *attr;
	ra.send_cq = rs;
	ra.recv_cq = rr;
	ra.srq = rsrq;
	ra.qp_context = &qp->v.qp;
	real = ibv_create_qp(rpd, &ra);
	if (!real) {
		free(qp);
		return NULL;
	}
	/* What the provider granted, as ibv_create_qp() reports it. */
	attr->cap = ra.cap;
	qp_fill(&qp->v.qp, real, pd->context, pd, attr);
	add(&qp->o, &qp->v.qp, CK_QP, real);
	return &qp->v.qp;
}

/*
 * ibv_create_cq_ex() on an inherited context: the child's channel as for
 * ibv_create_cq(), and a parent domain (or PD) of the child's, which the
 * provider gets as its real one; the parent's is refused (EPERM).
 */
struct ibv_cq_ex *verbs_child_create_cq_ex(struct ibv_context *ctx,
					   struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_init_attr_ex ra;
	struct ibv_comp_channel *rch = NULL;
	struct ibv_context *fresh;
	struct ibv_pd *rpd = NULL;
	struct ibv_cq_ex *real;
	struct child_cq *cq;
	int err = 0;

	if (!attr)
		return verbs_null_errno(EINVAL);
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD)
		rpd = own_part(ctx, attr->parent_domain, CK_PD, &err);
	if (!err)
		rch = own_part(ctx, attr->channel, CK_CHANNEL, &err);
	if (err)
		return verbs_null_errno(err);
	fresh = fresh_ctx(ctx);
	if (!fresh)
		return NULL;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return verbs_null_errno(ENOMEM);
	ra = *attr;
	ra.channel = rch;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD)
		ra.parent_domain = rpd;
	ra.cq_context = &cq->v.cq;
	real = ibv_create_cq_ex(fresh, &ra);
	if (!real) {
		free(cq);
		return NULL;
	}
	cq->realx = real;
	/* An ibv_cq_ex begins as an ibv_cq does (ibv_cq_ex_to_cq()). */
	cq_fill(&cq->v.cq, ibv_cq_ex_to_cq(real), ctx, attr->channel,
		attr->cq_context);
	verbs_child_cqx_fill(&cq->v.cq_ex, real);
	add(&cq->o, &cq->v.cq, CK_CQ, ibv_cq_ex_to_cq(real));
	return &cq->v.cq_ex;
}

/* What ibv_create_qp_ex() may ask of a child's QP. */
#define CHILD_QP_EX_MASK                                          \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |            \
	 IBV_QP_INIT_ATTR_CREATE_FLAGS |                          \
	 IBV_QP_INIT_ATTR_MAX_TSO_HEADER | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/*
 * Only an XRC target QP may come without a PD, as the kernel has it; one
 * given is of @ctx.
 */
static bool qp_ex_pd_ok(struct ibv_context *ctx,
			const struct ibv_qp_init_attr_ex *attr)
{
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD))
		return attr->qp_type == IBV_QPT_XRC_RECV;
	return attr->pd && attr->pd->context == ctx;
}

/*
 * The real PD and XRC domain of a child's QP, and the context they are
 * on: the child's PD for @attr's PD, the real domain behind the child's
 * own XRC domain (the parent's is refused: EPERM).  An XRC target QP
 * lies in its domain: the command layer ignores a PD given with it, so
 * the child makes none for it.
 */
static struct ibv_context *qp_ex_parts(struct ibv_context *ctx,
				       const struct ibv_qp_init_attr_ex *attr,
				       struct ibv_pd **rpd,
				       struct ibv_xrcd **rxrcd)
{
	int err = 0;

	*rpd = NULL;
	*rxrcd = NULL;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD)
		*rxrcd = own_part(ctx, attr->xrcd, CK_XRCD, &err);
	if (err)
		return verbs_null_errno(err);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) ||
	    attr->qp_type == IBV_QPT_XRC_RECV)
		return fresh_ctx(ctx);
	*rpd = own_pd(attr->pd);
	return *rpd ? (*rpd)->context : NULL;
}

/*
 * ibv_create_qp_ex() on an inherited context: the same QPs as
 * ibv_create_qp(), with send ops (an extended QP whose builders forward:
 * fork_child_ex.c), creation flags and a TSO header as the device grants
 * them, and XRC target QPs in the child's XRC domain.  A WQ indirection
 * table and RSS are never the child's.
 */
struct ibv_qp *verbs_child_create_qp_ex(struct ibv_context *ctx,
					struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr legacy = { 0 };
	struct ibv_qp_init_attr_ex ra;
	struct ibv_context *fresh;
	struct ibv_cq *rs, *rr;
	struct ibv_xrcd *rxrcd;
	struct ibv_srq *rsrq;
	struct ibv_qp_ex *rx;
	struct ibv_qp *real;
	struct child_qp *qp;
	struct ibv_pd *rpd;
	int err;

	if (!attr || !qp_ex_pd_ok(ctx, attr))
		return verbs_null_errno(EINVAL);
	if (attr->comp_mask & ~CHILD_QP_EX_MASK)
		return verbs_null_errno(EPERM);
	legacy.qp_type = attr->qp_type;
	legacy.send_cq = attr->send_cq;
	legacy.recv_cq = attr->recv_cq;
	legacy.srq = attr->srq;
	err = qp_attr_ok(ctx, &legacy, &rs, &rr, &rsrq);
	if (err)
		return verbs_null_errno(err);
	fresh = qp_ex_parts(ctx, attr, &rpd, &rxrcd);
	if (!fresh)
		return NULL;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return verbs_null_errno(ENOMEM);
	ra = *attr;
	ra.pd = rpd;
	if (!rpd)
		ra.comp_mask &= ~IBV_QP_INIT_ATTR_PD;
	ra.xrcd = rxrcd;
	ra.send_cq = rs;
	ra.recv_cq = rr;
	ra.srq = rsrq;
	ra.qp_context = &qp->v.qp;
	real = ibv_create_qp_ex(fresh, &ra);
	if (!real) {
		free(qp);
		return NULL;
	}
	attr->cap = ra.cap;
	legacy.qp_context = attr->qp_context;
	qp_fill(&qp->v.qp, real, ctx, rpd ? attr->pd : NULL, &legacy);
	if (rxrcd) {
		qp->v.xrcd = attr->xrcd;
		qp->v.comp_mask = VERBS_QP_XRCD;
	}
	rx = ibv_qp_to_qp_ex(real);
	if (rx) {
		qp->realx = rx;
		verbs_child_qpx_fill(&qp->v.qp_ex, rx);
		qp->v.comp_mask |= VERBS_QP_EX;
	}
	add(&qp->o, &qp->v.qp, CK_QP, real);
	return &qp->v.qp;
}

static int destroy_real_qp(struct child_obj *o)
{
	return ibv_destroy_qp(o->real);
}

bool verbs_child_destroy_qp(struct ibv_qp *qp, int *ret)
{
	struct child_obj *o;

	if (!destroy_proxy(qp, CK_QP, destroy_real_qp, &o, ret))
		return false;
	if (!o)
		return true;
	pthread_cond_destroy(&qp->cond);
	pthread_mutex_destroy(&qp->mutex);
	free(container_of(o, struct child_qp, o));
	return true;
}

struct ibv_mr *verbs_child_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				  uint64_t iova, unsigned int access)
{
	struct ibv_pd *rpd = own_pd(pd);
	struct child_mr *mr;
	struct ibv_mr *real;

	if (!rpd)
		return NULL;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return verbs_null_errno(ENOMEM);
	/* Fork tracking, if on, sees the registration there. */
	real = ibv_reg_mr_iova2(rpd, addr, length, iova, access);
	if (!real) {
		free(mr);
		return NULL;
	}
	mr->v.ibv_mr.context = pd->context;
	mr->v.ibv_mr.pd = pd;
	mr->v.ibv_mr.addr = real->addr;
	mr->v.ibv_mr.length = real->length;
	mr->v.ibv_mr.handle = real->handle;
	mr->v.ibv_mr.lkey = real->lkey;
	mr->v.ibv_mr.rkey = real->rkey;
	mr->v.mr_type = IBV_MR_TYPE_MR;
	mr->v.access = access;
	add(&mr->o, &mr->v.ibv_mr, CK_MR, real);
	return &mr->v.ibv_mr;
}

static int dereg_real_mr(struct child_obj *o)
{
	return ibv_dereg_mr(o->real);
}

bool verbs_child_dereg_mr(struct ibv_mr *mr, int *ret)
{
	return destroy_and_free(mr, CK_MR, dereg_real_mr, struct child_mr, ret);
}

/* What the application sees of a new SRQ: what it passed. */
static void srq_fill(struct child_srq *p, struct ibv_srq *real,
		     struct ibv_context *ctx, struct ibv_pd *pd,
		     void *srq_context, struct ibv_cq *cq)
{
	p->v.srq.context = ctx;
	p->v.srq.srq_context = srq_context;
	p->v.srq.pd = pd;
	p->v.srq.handle = real->handle;
	p->v.srq_type = IBV_SRQT_BASIC;
	p->v.cq = cq;
	pthread_mutex_init(&p->v.srq.mutex, NULL);
	pthread_cond_init(&p->v.srq.cond, NULL);
}

struct ibv_srq *verbs_child_create_srq(struct ibv_pd *pd,
				       struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr ra;
	struct child_srq *srq;
	struct ibv_srq *real;
	struct ibv_pd *rpd;

	if (!attr)
		return verbs_null_errno(EINVAL);
	rpd = own_pd(pd);
	if (!rpd)
		return NULL;
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return verbs_null_errno(ENOMEM);
	ra = *attr;
	/* Its asynchronous events name the proxy. */
	ra.srq_context = &srq->v.srq;
	real = ibv_create_srq(rpd, &ra);
	if (!real) {
		free(srq);
		return NULL;
	}
	/* What the provider granted, as ibv_create_srq() reports it. */
	attr->attr = ra.attr;
	srq_fill(srq, real, pd->context, pd, attr->srq_context, NULL);
	add(&srq->o, &srq->v.srq, CK_SRQ, real);
	return &srq->v.srq;
}

/*
 * ibv_create_srq_ex() with more than a PD: a basic, tag-matching or XRC
 * SRQ (the device says which it has) on the child's PD and CQ, an XRC
 * one in the child's own XRC domain.  Its SRQ number, which XRC senders
 * name, is the real one's: ibv_get_srq_num() asks there.
 */
struct ibv_srq *verbs_child_create_srq_ex(struct ibv_context *ctx,
					  struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr_ex ra;
	struct ibv_context *fresh;
	struct child_srq *srq;
	struct ibv_srq *real;
	struct ibv_xrcd *rxrcd = NULL;
	struct ibv_cq *rcq = NULL;
	struct ibv_pd *rpd;
	int err = 0;

	if (!attr || !(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx)
		return verbs_null_errno(EINVAL);
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD)
		rxrcd = own_part(ctx, attr->xrcd, CK_XRCD, &err);
	if (!err && (attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ))
		rcq = own_part(ctx, attr->cq, CK_CQ, &err);
	if (err)
		return verbs_null_errno(err);
	rpd = own_pd(attr->pd);
	if (!rpd)
		return NULL;
	fresh = rpd->context;
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return verbs_null_errno(ENOMEM);
	ra = *attr;
	ra.pd = rpd;
	ra.xrcd = rxrcd;
	ra.cq = rcq;
	ra.srq_context = &srq->v.srq;
	real = ibv_create_srq_ex(fresh, &ra);
	if (!real) {
		free(srq);
		return NULL;
	}
	attr->attr = ra.attr;
	srq_fill(srq, real, ctx, attr->pd, attr->srq_context,
		 (attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) ? attr->cq : NULL);
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE))
		srq->v.srq_type = attr->srq_type;
	/* As the command layer has it: a domain for an XRC SRQ only. */
	if (srq->v.srq_type == IBV_SRQT_XRC)
		srq->v.xrcd = attr->xrcd;
	add(&srq->o, &srq->v.srq, CK_SRQ, real);
	return &srq->v.srq;
}

struct ibv_srq *verbs_child_real_srq(struct ibv_srq *srq)
{
	return real_of(srq, CK_SRQ);
}

static int destroy_real_srq(struct child_obj *o)
{
	return ibv_destroy_srq(o->real);
}

bool verbs_child_destroy_srq(struct ibv_srq *srq, int *ret)
{
	struct child_obj *o;

	if (!destroy_proxy(srq, CK_SRQ, destroy_real_srq, &o, ret))
		return false;
	if (!o)
		return true;
	pthread_cond_destroy(&srq->cond);
	pthread_mutex_destroy(&srq->mutex);
	free(container_of(o, struct child_srq, o));
	return true;
}

struct ibv_ah *verbs_child_create_ah(struct ibv_pd *pd,
				     struct ibv_ah_attr *attr)
{
	struct child_ah *ah;
	struct ibv_ah *real;
	struct ibv_pd *rpd;

	if (!attr)
		return verbs_null_errno(EINVAL);
	rpd = own_pd(pd);
	if (!rpd)
		return NULL;
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return verbs_null_errno(ENOMEM);
	real = ibv_create_ah(rpd, attr);
	if (!real) {
		free(ah);
		return NULL;
	}
	ah->v.ah.context = pd->context;
	ah->v.ah.pd = pd;
	ah->v.ah.handle = real->handle;
	add(&ah->o, &ah->v.ah, CK_AH, real);
	return &ah->v.ah;
}

static int destroy_real_ah(struct child_obj *o)
{
	return ibv_destroy_ah(o->real);
}

bool verbs_child_destroy_ah(struct ibv_ah *ah, int *ret)
{
	return destroy_and_free(ah, CK_AH, destroy_real_ah, struct child_ah,
				ret);
}

/*
 * Memory windows on an inherited PD or the child's: the real window is
 * allocated on the child's PD for it, like an MR, and bound only through
 * the child's QPs to the child's MRs (verbs_child_bind_parts()).
 */
struct ibv_mw *verbs_child_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct child_mw *mw;
	struct ibv_mw *real;
	struct ibv_pd *rpd;

	rpd = own_pd(pd);
	if (!rpd)
		return NULL;
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return verbs_null_errno(ENOMEM);
	real = ibv_alloc_mw(rpd, type);
	if (!real) {
		free(mw);
		return NULL;
	}
	mw->v.mw.context = pd->context;
	mw->v.mw.pd = pd;
	mw->v.mw.rkey = real->rkey;
	mw->v.mw.handle = real->handle;
	mw->v.mw.type = real->type;
	add(&mw->o, &mw->v.mw, CK_MW, real);
	return &mw->v.mw;
}

static int dealloc_real_mw(struct child_obj *o)
{
	return ibv_dealloc_mw(o->real);
}

bool verbs_child_dealloc_mw(struct ibv_mw *mw, int *ret)
{
	return destroy_and_free(mw, CK_MW, dealloc_real_mw, struct child_mw,
				ret);
}

/*
 * Thread domains, on the child's own context.  The provider's TD may
 * hold resources of its context (a doorbell page of its own), so the
 * parent's TD is never handed on: a parent domain over it is refused.
 */
struct ibv_td *verbs_child_alloc_td(struct ibv_context *ctx,
				    struct ibv_td_init_attr *attr)
{
	struct ibv_context *fresh = fresh_ctx(ctx);
	struct child_td *td;
	struct ibv_td *real;

	if (!fresh)
		return NULL;
	td = calloc(1, sizeof(*td));
	if (!td)
		return verbs_null_errno(ENOMEM);
	real = ibv_alloc_td(fresh, attr);
	if (!real) {
		free(td);
		return NULL;
	}
	td->pub.context = ctx;
	add(&td->o, &td->pub, CK_TD, real);
	return &td->pub;
}

static int dealloc_real_td(struct child_obj *o)
{
	return ibv_dealloc_td(o->real);
}

bool verbs_child_dealloc_td(struct ibv_td *td, int *ret)
{
	return destroy_and_free(td, CK_TD, dealloc_real_td, struct child_td,
				ret);
}

/*
 * XRC domains, on the child's own context.  A domain opened with a file
 * is the one every process gets for that file, so the child opening it
 * with the same file shares it with the parent, as two processes do.
 * The parent's own domain is refused as a part (EPERM): the library
 * cannot know which file, if any, it was opened with, and a private
 * domain of the child's standing for it would not be the same domain.
 */
struct ibv_xrcd *verbs_child_open_xrcd(struct ibv_context *ctx,
				       struct ibv_xrcd_init_attr *attr)
{
	struct ibv_context *fresh;
	struct child_xrcd *x;
	struct ibv_xrcd *real;

	if (!attr)
		return verbs_null_errno(EINVAL);
	fresh = fresh_ctx(ctx);
	if (!fresh)
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return verbs_null_errno(ENOMEM);
	real = ibv_open_xrcd(fresh, attr);
	if (!real) {
		free(x);
		return NULL;
	}
	/*
	 * No handle (comp_mask 0): the real one's names a domain of the
	 * child's own context, and a plug-in's struct may end before it.
	 */
	x->v.xrcd.context = ctx;
	add(&x->o, &x->v.xrcd, CK_XRCD, real);
	return &x->v.xrcd;
}

static int close_real_xrcd(struct child_obj *o)
{
	return ibv_close_xrcd(o->real);
}

bool verbs_child_close_xrcd(struct ibv_xrcd *xrcd, int *ret)
{
	return destroy_and_free(xrcd, CK_XRCD, close_real_xrcd,
				struct child_xrcd, ret);
}

/*
 * ibv_open_qp() on an inherited context: the XRC target QP named by its
 * number in the child's own XRC domain, opened on the child's context.
 * The QP is another process's and may have asynchronous events at once,
 * naming the proxy: it is whole before the open, and the lock, held
 * until its entry is linked, keeps an acknowledgement from missing it.
 */
struct ibv_qp *verbs_child_open_qp(struct ibv_context *ctx,
				   struct ibv_qp_open_attr *attr)
{
	struct ibv_qp_open_attr ra;
	struct ibv_context *fresh;
	struct ibv_xrcd *rxrcd;
	struct ibv_qp *real;
	struct child_qp *qp;
	int err, cancel;

	if (!attr)
		return verbs_null_errno(EINVAL);
	rxrcd = own_part(ctx,
			 (attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) ? attr->xrcd :
								     NULL,
			 CK_XRCD, &err);
	if (err)
		return verbs_null_errno(err);
	fresh = fresh_ctx(ctx);
	if (!fresh)
		return NULL;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return verbs_null_errno(ENOMEM);
	/* What the command layer fills in, qp_context whatever the mask. */
	qp->v.qp.context = ctx;
	qp->v.qp.qp_context = attr->qp_context;
	qp->v.qp.qp_num = attr->qp_num;
	qp->v.qp.qp_type = attr->qp_type;
	qp->v.xrcd = rxrcd ? attr->xrcd : NULL;
	qp->v.comp_mask = VERBS_QP_XRCD;
	pthread_mutex_init(&qp->v.qp.mutex, NULL);
	pthread_cond_init(&qp->v.qp.cond, NULL);
	ra = *attr;
	ra.xrcd = rxrcd;
	ra.qp_context = &qp->v.qp;
	ra.comp_mask |= IBV_QP_OPEN_ATTR_CONTEXT;
	cancel = lock_begin();
	real = ibv_open_qp(fresh, &ra);
	err = real ? 0 : errno;
	if (real) {
		qp->v.qp.handle = real->handle;
		qp->v.qp.qp_num = real->qp_num;
		qp->v.qp.state = real->state;
		qp->v.qp.qp_type = real->qp_type;
		add_locked(&qp->o, &qp->v.qp, CK_QP, real);
	}
	lock_end(cancel);
	if (!real) {
		pthread_cond_destroy(&qp->v.qp.cond);
		pthread_mutex_destroy(&qp->v.qp.mutex);
		free(qp);
		return verbs_null_errno(err);
	}
	return &qp->v.qp;
}

/*
 * ibv_alloc_parent_domain() on an inherited context: the provider's
 * parent domain on the child's own context, over the child's PD for
 * @attr->pd (inherited or the child's) and the real TD of the child's
 * @attr->td.  The application gets a PD proxy whose real object is the
 * parent domain, so the child's QPs, SRQs, MRs (ibv_reg_mr*() and
 * ibv_rereg_mr()), windows, AHs and extended CQs on it get the parent
 * domain, and ibv_dealloc_pd() frees it.
 * The provider's alloc and free callbacks get @attr->pd_context as given
 * and the real parent domain as their PD.
 */
struct ibv_pd *
verbs_child_alloc_parent_domain(struct ibv_context *ctx,
				struct ibv_parent_domain_init_attr *attr)
{
	struct ibv_parent_domain_init_attr ra;
	struct ibv_td *rtd;
	struct ibv_pd *rpd, *real;
	struct child_pd *p;
	int err;

	/* pl_alloc_parent_domain() refused a PD of another context. */
	if (!attr || !attr->pd)
		return verbs_null_errno(EINVAL);
	rtd = own_part(ctx, attr->td, CK_TD, &err);
	if (err)
		return verbs_null_errno(err);
	rpd = own_pd(attr->pd);
	if (!rpd)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return verbs_null_errno(ENOMEM);
	ra = *attr;
	ra.pd = rpd;
	ra.td = rtd;
	real = ibv_alloc_parent_domain(rpd->context, &ra);
	if (!real) {
		free(p);
		return NULL;
	}
	p->v.pd.context = ctx;
	p->v.pd.handle = real->handle;
	/*
	 * For a grandchild, which takes it for the PD it lies over (without
	 * the note, no memory, it makes a PD of its own for it).
	 */
	verbs_child_note_parent_domain(&p->v.pd, attr->pd);
	add(&p->o, &p->v.pd, CK_PD, real);
	return &p->v.pd;
}

/*
 * Parent domains, noted in every process that makes one: which PD each
 * lies over (CK_PDOM).  The notes are ordinary memory, so a fork child
 * has its parent's, and own_pd_locked() takes an inherited parent
 * domain for the child's own PD of that PD.  Its TD and allocators are
 * the parent's and stay behind.  @pdoms_noted spares ibv_dealloc_pd()
 * the lock in a process that has none; it is raised before a note is
 * linked and lowered after one is unlinked, so that a child forked in
 * between never counts fewer notes than it has.  A note's key keeps
 * the parent domain reachable for a leak checker.
 */
static unsigned int pdoms_noted;

void verbs_child_note_parent_domain(struct ibv_pd *pdom, struct ibv_pd *pd)
{
	struct child_obj *e = calloc(1, sizeof(*e));
	int cancel;

	if (!e)
		return;
	e->key = pdom;
	e->kind = CK_PDOM;
	e->real = pd;
	cancel = lock_begin();
	__atomic_add_fetch(&pdoms_noted, 1, __ATOMIC_RELAXED);
	insert_locked(e);
	lock_end(cancel);
}

void *verbs_child_parent_domain_note(struct ibv_pd *pd)
{
	struct child_obj *e;
	int cancel;

	if (!__atomic_load_n(&pdoms_noted, __ATOMIC_RELAXED))
		return NULL;
	cancel = lock_begin();
	e = find_locked(pd, CK_PDOM);
	lock_end(cancel);
	return e;
}

/*
 * After its parent domain is freed: a note found before is unlinked
 * (matched by identity, as a new parent domain at the same address has
 * a note of its own) and freed.
 */
void verbs_child_drop_note(void *note)
{
	struct child_obj *o;
	int cancel;

	if (!note)
		return;
	cancel = lock_begin();
	for (o = *bucket_of(((struct child_obj *)note)->key); o; o = o->next)
		if (o == note)
			break;
	if (o) {
		remove_locked(o);
		__atomic_sub_fetch(&pdoms_noted, 1, __ATOMIC_RELAXED);
	}
	lock_end(cancel);
	if (o)
		free(o);
}

/*
 * The real object of proxy @obj (a window or an MR) for a request on real
 * QP @real: 0; EPERM when @obj is an inherited one (the parent's), or it
 * or the QP is a proxy a grandchild inherited (its real object is on an
 * inherited context); EINVAL when it is of another context than the QP's
 * or names none.
 */
static int real_for_qp(struct ibv_qp *real, const void *obj,
		       enum child_kind kind, void **out)
{
	struct ibv_context *ctx = context_of(obj, kind);

	*out = NULL;
	if (!ctx)
		return EINVAL;
	if (verbs_inherited(real->context))
		return EPERM;
	*out = real_of(obj, kind);
	if (!*out)
		return verbs_inherited(ctx) ? EPERM : EINVAL;
	ctx = context_of(*out, kind);
	if (verbs_inherited_strict(ctx))
		return EPERM;
	return ctx == real->context ? 0 : EINVAL;
}

int verbs_child_bind_parts(struct ibv_qp *real, struct ibv_mw *mw,
			   const struct ibv_mw_bind_info *info,
			   struct ibv_mw **rmw, struct ibv_mw_bind_info *rinfo)
{
	void *rmr = NULL;
	int err = 0;

	*rinfo = *info;
	*rmw = NULL;
	if (mw)
		err = real_for_qp(real, mw, CK_MW, (void **)rmw);
	if (!err && info->mr)
		err = real_for_qp(real, info->mr, CK_MR, &rmr);
	rinfo->mr = rmr;
	return err;
}

/* After a bind the provider has moved the real window's rkey on. */
void verbs_child_mw_synced(struct ibv_mw *mw, struct ibv_mw *rmw)
{
	__atomic_store_n(&mw->rkey,
			 __atomic_load_n(&rmw->rkey, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
}

/*
 * ibv_bind_mw() dispatches on the window's context, so it lands here for
 * a proxy window on any QP and for any window on a proxy QP; only the
 * child's own window, QP and MR together are bound.
 */
int verbs_child_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			struct ibv_mw_bind *mw_bind)
{
	struct ibv_mw_bind copy;
	struct ibv_qp *real;
	struct ibv_mw *rmw;
	int err;

	/* pl_bind_mw() has read qp->context already. */
	if (!mw || !mw->context || !mw_bind)
		return EINVAL;
	real = real_of(qp, CK_QP);
	if (!real) {
		/* The parent's QP, or the parent's window on a QP of ours. */
		if (verbs_inherited(qp->context) ||
		    (verbs_inherited(mw->context) && !real_of(mw, CK_MW)))
			return EPERM;
		return EINVAL;
	}
	copy = *mw_bind;
	err = verbs_child_bind_parts(real, mw, &mw_bind->bind_info, &rmw,
				     &copy.bind_info);
	if (err)
		return err;
	err = rmw->context->ops.bind_mw(real, rmw, &copy);
	/* The provider may have moved the key on before it failed. */
	verbs_child_mw_synced(mw, rmw);
	return err;
}

/*
 * The child's own context for inherited @ctx, for the stateless queries a
 * creating verb needs (ibv_init_ah_from_wc()); NULL with errno.
 */
struct ibv_context *verbs_child_context(struct ibv_context *ctx)
{
	return fresh_ctx(ctx);
}

/*
 * A proxy is the library's memory and stands for an object only this
 * process can reach, so there is nothing to unimport: it stays usable and
 * its destroying verb frees it.  True when @obj is one.
 */
bool verbs_child_is_proxy_pd(struct ibv_pd *pd)
{
	return real_of(pd, CK_PD);
}

bool verbs_child_is_proxy_mr(struct ibv_mr *mr)
{
	return real_of(mr, CK_MR);
}

/*
 * Closing an inherited context closes the child's fresh one and the PDs
 * it made there for inherited PDs.  Proxies still open are the
 * application's to have destroyed first, as for any context.
 */
void verbs_child_close_device(struct ibv_context *ctx)
{
	struct child_obj *e, *o, *shadows = NULL;
	struct ibv_context *fresh = NULL;
	int cancel;

	if (!own_process())
		return;
	cancel = lock_begin();
	/*
	 * The provider's free_context closes cmd_fd and async_fd.  In a
	 * descriptor table shared with the parent (clone(CLONE_FILES)),
	 * those numbers are the parent's: they stay open, only this
	 * process's copy of the context forgets them.
	 */
	if (fd_table_shared(ctx, prev_opener_locked(ctx))) {
		ctx->cmd_fd = -1;
		ctx->async_fd = -1;
	}
	e = find_locked(ctx, CK_CTX);
	if (e && !verbs_inherited_strict(e->real)) {
		fresh = e->real;
		remove_locked(e);
		for (unsigned int i = 0; i < CHILD_BUCKETS; i++) {
			for (o = buckets[i]; o; o = o->next) {
				if (o->kind != CK_SHADOW_PD ||
				    !pd_owned_by(o->real, fresh))
					continue;
				remove_locked(o);
				o->key = shadows;
				shadows = o;
			}
		}
	}
	lock_end(cancel);
	if (!fresh)
		return;
	while (shadows) {
		o = shadows;
		shadows = (struct child_obj *)o->key;
		ibv_dealloc_pd(o->real);
		free(o);
	}
	ibv_close_device(fresh);
	free(e);
}

int verbs_child_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct ibv_cq *real = verbs_child_real_cq(cq);

	if (!real) {
		errno = EPERM;
		return -EPERM;
	}
	return real->context->ops.poll_cq(real, n, wc);
}

int verbs_child_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct ibv_cq *real = verbs_child_real_cq(cq);

	if (!real)
		return EPERM;
	return real->context->ops.req_notify_cq(real, solicited_only);
}

/*
 * A UD work request names an AH and a BIND_MW request a window and an MR;
 * the provider reads them as its own, so each proxy is exchanged for its
 * real object in a copy of the list, a batch at a time (no allocation on
 * the data path).  One that is no proxy of this process (an inherited
 * one) is refused with EPERM, one of another device's context with
 * EINVAL: the requests before it are posted, *bad_wr names it.  A list
 * naming none of them goes to the provider as it is.
 */
#define WR_BATCH 16

int verbs_child_ud_real_ah(struct ibv_qp *real, struct ibv_ah *ah,
			   struct ibv_ah **out)
{
	*out = NULL;
	if (!ah)
		return 0; /* the provider refuses it as usual */
	/* A grandchild's copy of the child's QP: refused, whatever the AH. */
	if (verbs_inherited(real->context))
		return EPERM;
	*out = real_of(ah, CK_AH);
	/* One of a context the child opened itself is of another context. */
	if (!*out)
		return verbs_inherited(ah->context) ? EPERM : EINVAL;
	if (verbs_inherited_strict((*out)->context))
		return EPERM;
	return (*out)->context == real->context ? 0 : EINVAL;
}

static bool wr_names_objects(struct ibv_qp *real, struct ibv_send_wr *wr)
{
	if (wr && real->qp_type == IBV_QPT_UD)
		return true;
	for (; wr; wr = wr->next)
		if (wr->opcode == IBV_WR_BIND_MW)
			return true;
	return false;
}

/* @copy is *@wr with the real objects it names, or the errno why not. */
static int wr_translate(struct ibv_qp *real, struct ibv_send_wr *wr,
			struct ibv_send_wr *copy)
{
	struct ibv_mw *rmw;
	int err = 0;

	*copy = *wr;
	copy->next = NULL;
	if (real->qp_type == IBV_QPT_UD)
		err = verbs_child_ud_real_ah(real, wr->wr.ud.ah,
					     &copy->wr.ud.ah);
	if (!err && wr->opcode == IBV_WR_BIND_MW) {
		err = verbs_child_bind_parts(real, wr->bind_mw.mw,
					     &wr->bind_mw.bind_info, &rmw,
					     &copy->bind_mw.bind_info);
		copy->bind_mw.mw = rmw;
	}
	return err;
}

/*
 * Requests binding a window: the proxy's rkey follows the real's, also
 * for those the provider refused after it had moved the key on.
 */
static void wr_synced(struct ibv_send_wr *copy, struct ibv_send_wr **orig,
		      int n)
{
	for (int i = 0; i < n; i++)
		if (copy[i].opcode == IBV_WR_BIND_MW && copy[i].bind_mw.mw)
			verbs_child_mw_synced(orig[i]->bind_mw.mw,
					      copy[i].bind_mw.mw);
}

static int post_translated(struct ibv_qp *real, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad_wr)
{
	struct ibv_send_wr copy[WR_BATCH], *orig[WR_BATCH], *bad;
	int n, err, ret;

	while (wr) {
		err = 0;
		for (n = 0; wr && n < WR_BATCH; n++, wr = wr->next) {
			err = wr_translate(real, wr, &copy[n]);
			if (err)
				break;
			if (n)
				copy[n - 1].next = &copy[n];
			orig[n] = wr;
		}
		if (n) {
			bad = NULL;
			ret = real->context->ops.post_send(real, copy, &bad);
			wr_synced(copy, orig, n);
			if (ret) {
				*bad_wr = (bad >= copy && bad < copy + n) ?
						  orig[bad - copy] :
						  orig[0];
				return ret;
			}
		}
		if (err) {
			*bad_wr = wr;
			return err;
		}
	}
	return 0;
}

int verbs_child_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr)
{
	struct ibv_qp *real = verbs_child_real_qp(qp);

	if (!real || verbs_inherited(real->context)) {
		/* The parent's QP, or a proxy a grandchild inherited. */
		*bad_wr = wr;
		return EPERM;
	}
	if (wr_names_objects(real, wr))
		return post_translated(real, wr, bad_wr);
	return real->context->ops.post_send(real, wr, bad_wr);
}

int verbs_child_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	struct ibv_qp *real = verbs_child_real_qp(qp);

	if (!real) {
		*bad_wr = wr;
		return EPERM;
	}
	return real->context->ops.post_recv(real, wr, bad_wr);
}

int verbs_child_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	struct ibv_srq *real = verbs_child_real_srq(srq);

	if (!real) {
		*bad_wr = wr;
		return EPERM;
	}
	return real->context->ops.post_srq_recv(real, wr, bad_wr);
}
