/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Refcounted MADV_DONTFORK ranges for the legacy fork mode (see
 * fork_range.h).
 *
 * An update of [s, e) works on a small detached part of the treap: the
 * nodes that overlap [s, e) plus the neighbours that merely touch it (they
 * may have to merge).  Those are split out into an address-ordered list,
 * cut into "pieces" (the part of a node before s, inside [s, e), after e,
 * and the uncovered gaps inside [s, e)), and the pieces are then visited
 * to count the nodes needed, to issue madvise (and to undo it on failure),
 * and finally to emit the new nodes.  Everything that can fail
 * (allocation, MADV_DONTFORK, a count at its limit) happens before the tree
 * is modified, so a failure only has to undo the madvise calls already
 * made and put the detached nodes back.  MADV_DOFORK cannot fail an
 * update: it is best effort, as upstream's, since the memory may already
 * be unmapped when it is deregistered, and a reference kept for it would
 * make a later registration at that address skip its MADV_DONTFORK.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fork_range.h"

struct fork_range_node {
	uintptr_t start;		/* first byte, page aligned */
	uintptr_t end;			/* one past the last byte */
	unsigned int refs;		/* users of every page, >= 1 */
	uint32_t prio;			/* treap heap key */
	struct fork_range_node *left;
	struct fork_range_node *right;	/* also the link of node_list */
};

/* An address-ordered list threaded through ->right. */
struct node_list {
	struct fork_range_node *head;
	struct fork_range_node *tail;
	size_t len;
};

struct range_update {
	struct fork_range_tree *t;
	uintptr_t start;
	uintptr_t end;
	bool add;			/* dontfork, else dofork */
	struct node_list work;		/* detached nodes, in order */
	struct node_list out;		/* replacement nodes, in order */
	struct fork_range_node *pool;	/* spare nodes, via ->right */
	bool recycle;			/* move work nodes to the pool */
	size_t pieces;
	size_t advised;			/* madvise calls that succeeded */
	size_t undo_left;
	int error;
};

typedef void (*piece_fn)(struct range_update *u, uintptr_t start,
			 uintptr_t end, unsigned int refs, bool inside);

static uintptr_t min_addr(uintptr_t a, uintptr_t b)
{
	return a < b ? a : b;
}

static uintptr_t max_addr(uintptr_t a, uintptr_t b)
{
	return a > b ? a : b;
}

/* xorshift32: cheap and well spread, which is all a treap needs. */
static uint32_t next_prio(struct fork_range_tree *t)
{
	uint32_t x = t->prio_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	t->prio_state = x;
	return x;
}

static void list_append(struct node_list *l, struct fork_range_node *n)
{
	n->left = NULL;
	n->right = NULL;
	if (l->tail)
		l->tail->right = n;
	else
		l->head = n;
	l->tail = n;
	l->len++;
}

/* Split n into nodes starting below key and nodes starting at or above. */
static void split(struct fork_range_node *n, uintptr_t key,
		  struct fork_range_node **lo, struct fork_range_node **hi)
{
	if (!n) {
		*lo = NULL;
		*hi = NULL;
	} else if (n->start < key) {
		split(n->right, key, &n->right, hi);
		*lo = n;
	} else {
		split(n->left, key, lo, &n->left);
		*hi = n;
	}
}

/* Join two treaps where every node of a lies below every node of b. */
static struct fork_range_node *merge(struct fork_range_node *a,
				     struct fork_range_node *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->prio >= b->prio) {
		a->right = merge(a->right, b);
		return a;
	}
	b->left = merge(a, b->left);
	return b;
}

/* Detach the highest node if it reaches addr (overlaps or touches it). */
static struct fork_range_node *pop_max_reaching(struct fork_range_node **link,
						uintptr_t addr)
{
	struct fork_range_node *n;

	if (!*link)
		return NULL;
	while ((*link)->right)
		link = &(*link)->right;
	n = *link;
	if (n->end < addr)
		return NULL;
	/* The left child has a lower priority, so it can take n's place. */
	*link = n->left;
	n->left = NULL;
	return n;
}

/* Recursion only follows left links; right spines are iterated. */
static void flatten(struct fork_range_node *n, struct node_list *out)
{
	struct fork_range_node *right;

	while (n) {
		flatten(n->left, out);
		right = n->right;
		list_append(out, n);
		n = right;
	}
}

static struct fork_range_node *build(struct node_list *l)
{
	struct fork_range_node *root = NULL, *n = l->head, *next;

	while (n) {
		next = n->right;
		n->right = NULL;
		root = merge(root, n);
		n = next;
	}
	l->head = l->tail = NULL;
	l->len = 0;
	return root;
}

static void free_chain(struct fork_range_node *n)
{
	struct fork_range_node *next;

	for (; n; n = next) {
		next = n->right;
		free(n);
	}
}

static void free_subtree(struct fork_range_node *n)
{
	struct fork_range_node *right;

	while (n) {
		free_subtree(n->left);
		right = n->right;
		free(n);
		n = right;
	}
}

static void pool_push(struct range_update *u, struct fork_range_node *n)
{
	n->left = NULL;
	n->right = u->pool;
	u->pool = n;
}

static struct fork_range_node *pool_pop(struct range_update *u)
{
	struct fork_range_node *n = u->pool;

	u->pool = n->right;
	n->right = NULL;
	return n;
}

/*
 * Cut the work list into pieces in address order.  Every work node yields
 * at least one piece, so when nodes are recycled into the pool before
 * their pieces are emitted, the pool never runs dry.
 */
static void for_each_piece(struct range_update *u, piece_fn fn)
{
	struct fork_range_node *n, *next;
	uintptr_t cur = u->start, s = u->start, e = u->end;
	uintptr_t ns, ne;
	unsigned int refs;

	for (n = u->work.head; n; n = next) {
		ns = n->start;
		ne = n->end;
		refs = n->refs;
		next = n->right;
		if (u->recycle)
			pool_push(u, n);

		if (cur < min_addr(ns, e))
			fn(u, cur, min_addr(ns, e), 0, true);
		if (ns < s)
			fn(u, ns, min_addr(ne, s), refs, false);
		if (max_addr(ns, s) < min_addr(ne, e))
			fn(u, max_addr(ns, s), min_addr(ne, e), refs, true);
		if (ne > e)
			fn(u, max_addr(ns, e), ne, refs, false);
		cur = max_addr(cur, min_addr(ne, e));
	}
	if (cur < e)
		fn(u, cur, e, 0, true);
}

static void count_piece(struct range_update *u, uintptr_t start,
			uintptr_t end, unsigned int refs, bool inside)
{
	u->pieces++;
	if (u->add && inside && refs == UINT_MAX)
		u->error = ENOMEM;
}

/* A page changes its fork state only on 0 -> 1 and 1 -> 0. */
static bool needs_advice(const struct range_update *u, unsigned int refs,
			 bool inside)
{
	return inside && refs == (u->add ? 0 : 1);
}

static void advise_piece(struct range_update *u, uintptr_t start,
			 uintptr_t end, unsigned int refs, bool inside)
{
	int advice = u->add ? MADV_DONTFORK : MADV_DOFORK;

	if (u->error || !needs_advice(u, refs, inside))
		return;
	if (!madvise((void *)start, end - start, advice))
		u->advised++;
	else if (u->add)
		u->error = errno ? errno : EINVAL;
}

/*
 * Revert the calls that succeeded, and only those.  The kernel may have
 * applied the failed call to some of the VMAs in its range, but it may
 * equally have met pages that the application had advised MADV_DONTFORK
 * itself (DPDK and SPDK do so with their huge pages): clearing the flag
 * there would expose memory the tree never owned, so a failed piece is
 * left as the kernel left it.
 */
static void undo_piece(struct range_update *u, uintptr_t start,
		       uintptr_t end, unsigned int refs, bool inside)
{
	int advice = u->add ? MADV_DOFORK : MADV_DONTFORK;

	if (!u->undo_left || !needs_advice(u, refs, inside))
		return;
	u->undo_left--;
	(void)madvise((void *)start, end - start, advice);
}

static void emit_piece(struct range_update *u, uintptr_t start,
		       uintptr_t end, unsigned int refs, bool inside)
{
	struct fork_range_node *tail = u->out.tail, *n;

	if (inside && u->add)
		refs++;
	else if (inside && refs)
		refs--;
	if (!refs)
		return;
	if (tail && tail->end == start && tail->refs == refs) {
		tail->end = end;
		return;
	}
	n = pool_pop(u);
	n->start = start;
	n->end = end;
	n->refs = refs;
	list_append(&u->out, n);
}

static int reserve_nodes(struct range_update *u, size_t count)
{
	struct fork_range_node *n;

	while (count--) {
		n = calloc(1, sizeof(*n));
		if (!n)
			return ENOMEM;
		n->prio = next_prio(u->t);
		pool_push(u, n);
	}
	return 0;
}

static int prepare_update(struct range_update *u)
{
	size_t extra = 0;
	int ret;

	for_each_piece(u, count_piece);
	if (u->error)
		return u->error;
	if (u->pieces > u->work.len)
		extra = u->pieces - u->work.len;
	ret = reserve_nodes(u, extra);
	if (ret)
		return ret;

	for_each_piece(u, advise_piece);
	if (u->error) {
		u->undo_left = u->advised;
		for_each_piece(u, undo_piece);
		return u->error;
	}
	return 0;
}

/* Apply +1 or -1 to the pages of [s, e); both are page aligned. */
static int range_update(struct fork_range_tree *t, uintptr_t s, uintptr_t e,
			bool add)
{
	struct range_update u = { .t = t, .start = s, .end = e, .add = add };
	struct fork_range_node *lo, *mid, *hi, *edge;
	int ret;

	/* mid: nodes starting in [s, e]; the one at e may merge. */
	split(t->root, s, &lo, &mid);
	split(mid, e + 1, &mid, &hi);
	edge = pop_max_reaching(&lo, s);
	if (edge)
		list_append(&u.work, edge);
	flatten(mid, &u.work);

	ret = prepare_update(&u);
	if (ret) {
		mid = build(&u.work);
	} else {
		u.recycle = true;
		for_each_piece(&u, emit_piece);
		t->nodes = t->nodes - u.work.len + u.out.len;
		mid = build(&u.out);
	}
	free_chain(u.pool);
	t->root = merge(merge(lo, mid), hi);
	return ret;
}

static uintptr_t backing_page_size(uintptr_t addr)
{
	uintptr_t size;
	FILE *f;

	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return 0;
	size = fork_range_smaps_page_size(f, addr);
	fclose(f);
	return size;
}

static int align_range(struct fork_range_tree *t, const void *addr,
		       size_t len, uintptr_t *s, uintptr_t *e)
{
	uintptr_t a = (uintptr_t)addr, ps = t->page_size, hps;

	if (!ps)
		return EINVAL;
	/* Slow (it reads smaps), hence only on request, outside the lock. */
	if (__atomic_load_n(&t->hugepages, __ATOMIC_RELAXED)) {
		hps = backing_page_size(a);
		if (hps > ps && !(hps & (hps - 1)))
			ps = hps;
	}
	if (len > UINTPTR_MAX - a || a + len > UINTPTR_MAX - ps)
		return EINVAL;
	*s = a & ~(ps - 1);
	*e = (a + len + ps - 1) & ~(ps - 1);
	return 0;
}

int fork_range_align(struct fork_range_tree *t, const void *addr, size_t len,
		     void **start, size_t *alen)
{
	uintptr_t s = 0, e = 0;
	int ret = 0;

	if (addr && len)
		ret = align_range(t, addr, len, &s, &e);
	*start = (void *)s;
	*alen = e - s;
	return ret;
}

static int range_exact(struct fork_range_tree *t, uintptr_t s, uintptr_t e,
		       bool add)
{
	int ret;

	if (s == e)
		return 0;
	if (s > e || ((s | e) & (t->page_size - 1)))
		return EINVAL;
	pthread_mutex_lock(&t->lock);
	ret = range_update(t, s, e, add);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

static int range_op(struct fork_range_tree *t, const void *addr, size_t len,
		    bool add)
{
	uintptr_t s, e;
	int ret;

	/* Upstream's behaviour; implicit ODP MRs pass NULL with SIZE_MAX. */
	if (!addr || !len)
		return 0;
	ret = align_range(t, addr, len, &s, &e);
	if (ret)
		return ret;
	return range_exact(t, s, e, add);
}

int fork_range_add(struct fork_range_tree *t, void *start, size_t alen)
{
	return range_exact(t, (uintptr_t)start, (uintptr_t)start + alen, true);
}

int fork_range_drop(struct fork_range_tree *t, void *start, size_t alen)
{
	return range_exact(t, (uintptr_t)start, (uintptr_t)start + alen,
			   false);
}

int fork_range_dontfork(struct fork_range_tree *t, const void *addr,
			size_t len)
{
	return range_op(t, addr, len, true);
}

int fork_range_dofork(struct fork_range_tree *t, const void *addr,
		      size_t len)
{
	return range_op(t, addr, len, false);
}

void fork_range_init(struct fork_range_tree *t, bool hugepages)
{
	long ps = sysconf(_SC_PAGESIZE);

	pthread_mutex_lock(&t->lock);
	t->root = NULL;
	t->nodes = 0;
	t->page_size = ps > 0 ? (uintptr_t)ps : 4096;
	t->hugepages = hugepages;
	t->prio_state = 0x9e3779b9u;
	pthread_mutex_unlock(&t->lock);
}

void fork_range_enable_hugepages(struct fork_range_tree *t)
{
	__atomic_store_n(&t->hugepages, true, __ATOMIC_RELAXED);
}

/*
 * A tree whose lock was free at fork() is whole and can be freed.  One
 * locked by a thread that the child does not have may be half updated: it
 * is never walked again, and handed back to be kept reachable.
 */
void *fork_range_child_reset(struct fork_range_tree *t)
{
	struct fork_range_node *old = t->root;

	if (pthread_mutex_trylock(&t->lock)) {
		t->root = NULL;
		t->nodes = 0;
		pthread_mutex_init(&t->lock, NULL);
		return old;
	}
	/*
	 * Detached and freed under the lock: a fork() by another thread of
	 * this child meanwhile leaves its own child a locked, empty tree,
	 * never nodes that are freed here.
	 */
	t->root = NULL;
	t->nodes = 0;
	free_subtree(old);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

void fork_range_clear(struct fork_range_tree *t)
{
	pthread_mutex_lock(&t->lock);
	free_subtree(t->root);
	t->root = NULL;
	t->nodes = 0;
	pthread_mutex_unlock(&t->lock);
}

/* "lo-hi perms ..." starts a mapping; field lines never have a '-' there. */
static bool smaps_header(const char *line, uintptr_t *lo, uintptr_t *hi)
{
	char *p, *q;

	if (*line == ' ' || *line == '\t')
		return false;
	*lo = strtoul(line, &p, 16);
	if (p == line || *p != '-')
		return false;
	*hi = strtoul(p + 1, &q, 16);
	return q != p + 1 && *q == ' ';
}

uintptr_t fork_range_smaps_page_size(FILE *smaps, uintptr_t addr)
{
	uintptr_t lo, hi, size = 0;
	bool inside = false;
	unsigned long kib;
	size_t cap = 0;
	char *line = NULL;

	while (getline(&line, &cap, smaps) > 0) {
		if (smaps_header(line, &lo, &hi)) {
			if (inside)
				break;
			inside = lo <= addr && addr < hi;
		} else if (inside &&
			   sscanf(line, "KernelPageSize: %lu kB", &kib) == 1) {
			size = (uintptr_t)kib * 1024;
			break;
		}
	}
	free(line);
	return size;
}

static int walk_subtree(struct fork_range_node *n, fork_range_walk_cb cb,
			void *arg)
{
	int ret;

	for (; n; n = n->right) {
		ret = walk_subtree(n->left, cb, arg);
		if (!ret)
			ret = cb(n->start, n->end, n->refs, arg);
		if (ret)
			return ret;
	}
	return 0;
}

int fork_range_walk(struct fork_range_tree *t, fork_range_walk_cb cb,
		    void *arg)
{
	int ret;

	pthread_mutex_lock(&t->lock);
	ret = walk_subtree(t->root, cb, arg);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

size_t fork_range_count(struct fork_range_tree *t)
{
	size_t n;

	pthread_mutex_lock(&t->lock);
	n = t->nodes;
	pthread_mutex_unlock(&t->lock);
	return n;
}

static unsigned int subtree_height(const struct fork_range_node *n)
{
	unsigned int l, r;

	if (!n)
		return 0;
	l = subtree_height(n->left);
	r = subtree_height(n->right);
	return 1 + (l > r ? l : r);
}

unsigned int fork_range_height(struct fork_range_tree *t)
{
	unsigned int h;

	pthread_mutex_lock(&t->lock);
	h = subtree_height(t->root);
	pthread_mutex_unlock(&t->lock);
	return h;
}

unsigned int fork_range_refs(struct fork_range_tree *t, uintptr_t addr)
{
	const struct fork_range_node *n;
	unsigned int refs = 0;

	pthread_mutex_lock(&t->lock);
	for (n = t->root; n;) {
		if (addr < n->start) {
			n = n->left;
		} else if (addr >= n->end) {
			n = n->right;
		} else {
			refs = n->refs;
			break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return refs;
}

struct check_state {
	const struct fork_range_node *prev;
	uintptr_t page_mask;
	size_t seen;
};

static const char *check_node(struct check_state *c,
			      const struct fork_range_node *n)
{
	const struct fork_range_node *p = c->prev;

	if (n->start >= n->end)
		return "empty or inverted range";
	if ((n->start | n->end) & c->page_mask)
		return "range not page aligned";
	if (!n->refs)
		return "node with no user";
	if ((n->left && n->left->prio > n->prio) ||
	    (n->right && n->right->prio > n->prio))
		return "treap heap order broken";
	if (p && p->end > n->start)
		return "ranges overlap or are out of order";
	if (p && p->end == n->start && p->refs == n->refs)
		return "equal neighbours not merged";
	c->prev = n;
	c->seen++;
	return NULL;
}

static const char *check_subtree(struct check_state *c,
				 const struct fork_range_node *n)
{
	const char *err;

	for (; n; n = n->right) {
		err = check_subtree(c, n->left);
		if (!err)
			err = check_node(c, n);
		if (err)
			return err;
	}
	return NULL;
}

const char *fork_range_check(struct fork_range_tree *t)
{
	struct check_state c = { 0 };
	const char *err;

	pthread_mutex_lock(&t->lock);
	c.page_mask = t->page_size - 1;
	err = check_subtree(&c, t->root);
	if (!err && c.seen != t->nodes)
		err = "node count out of date";
	pthread_mutex_unlock(&t->lock);
	return err;
}
