/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host test of the MADV_DONTFORK range tree (libibverbs/fork_range.c is
 * compiled into this program), i.e. the legacy mode that
 * RDMAV_COPY_ON_FORK=0 forces:
 *  - random overlapping dontfork/dofork calls against a page-refcount
 *    model, with the kernel's own view (VmFlags "dc" in /proc/self/smaps)
 *    sampled along the way;
 *  - madvise issued exactly on 0 -> 1 and 1 -> 0 transitions (every
 *    madvise of the tree goes through __wrap_madvise);
 *  - failed MADV_DONTFORK, real (holes in the range) and injected: tree
 *    as before, the calls that succeeded undone, the application's own
 *    flags kept; failed MADV_DOFORK: best effort, the users still drop;
 *  - merging keeps the node count equal to the model's runs;
 *  - the treap stays shallow on sorted input; huge page alignment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fork_range.h"
#include "tap.h"

int __real_madvise(void *addr, size_t len, int advice);
int __wrap_madvise(void *addr, size_t len, int advice);

static unsigned long madvise_calls;
static unsigned long madvise_fail_at = ~0UL;
static int madvise_fail_errno;

/* Counts calls; fails the one numbered madvise_fail_at, without effect. */
int __wrap_madvise(void *addr, size_t len, int advice)
{
	if (madvise_calls++ == madvise_fail_at) {
		errno = madvise_fail_errno;
		return -1;
	}
	return __real_madvise(addr, len, advice);
}

#define NPAGES 512
#define RANDOM_OPS 100000
#define UNPAIRED_OPS 20000
#define SMAPS_EVERY 1000
#define LIVE_MAX 64

static struct fork_range_tree tree = FORK_RANGE_TREE_INIT;
static uintptr_t ps;
static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from the printed seed. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static char *map_pages(size_t n)
{
	void *p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ---- the model and the tree ---- */

struct snap {
	const char *base;
	size_t npages;
	unsigned int *refs;
	int outside;
};

static int snap_cb(uintptr_t start, uintptr_t end, unsigned int refs,
		   void *arg)
{
	struct snap *s = arg;
	uintptr_t lo = (uintptr_t)s->base, hi = lo + s->npages * ps;
	uintptr_t a;

	if (start < lo || end > hi) {
		s->outside = 1;
		return 1;
	}
	for (a = start; a < end; a += ps)
		s->refs[(a - lo) / ps] = refs;
	return 0;
}

/* Tree == model over [base, base + npages pages), and nothing else. */
static int tree_matches(const char *base, size_t npages,
			const unsigned int *model)
{
	unsigned int *got = calloc(npages, sizeof(*got));
	struct snap s = { base, npages, got, 0 };
	int ok;

	if (!got)
		return 0;
	fork_range_walk(&tree, snap_cb, &s);
	ok = !s.outside && !memcmp(got, model, npages * sizeof(*got));
	free(got);
	return ok;
}

static size_t model_runs(const unsigned int *m, size_t n)
{
	size_t i, runs = 0;

	for (i = 0; i < n; i++)
		if (m[i] && (i == 0 || m[i - 1] != m[i]))
			runs++;
	return runs;
}

/* Runs of pages that change fork state: exactly one madvise each. */
static size_t transitions(const unsigned int *m, size_t first, size_t count,
			  int add)
{
	unsigned int want = add ? 0 : 1;
	size_t i, runs = 0;

	for (i = first; i < first + count; i++)
		if (m[i] == want && (i == first || m[i - 1] != want))
			runs++;
	return runs;
}

/* ---- the kernel's view ---- */

static int vma_header(const char *line, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t l, h;
	char *p, *q;

	l = strtoul(line, &p, 16);
	if (p == line || *p != '-')
		return 0;
	h = strtoul(p + 1, &q, 16);
	if (q == p + 1 || *q != ' ')
		return 0;
	*lo = l;
	*hi = h;
	return 1;
}

/* dc[i]: 1 if page i has VmFlags dc, 0 if not, -1 if not mapped. */
static int read_dc(const char *base, size_t npages, signed char *dc)
{
	uintptr_t lo = 0, hi = 0, a, b = (uintptr_t)base;
	uintptr_t e = b + npages * ps;
	FILE *f = fopen("/proc/self/smaps", "re");
	size_t cap = 0;
	char *line = NULL;
	int flag;

	if (!f)
		return -1;
	memset(dc, -1, npages);
	while (getline(&line, &cap, f) > 0) {
		if (vma_header(line, &lo, &hi) || strncmp(line, "VmFlags:", 8))
			continue;
		flag = strstr(line, " dc") != NULL;
		for (a = lo > b ? lo : b; a < hi && a < e; a += ps)
			dc[(a - b) / ps] = flag;
	}
	free(line);
	fclose(f);
	return 0;
}

/* Every mapped page has dc exactly when the model counts a user. */
static int smaps_matches(const char *base, size_t npages,
			 const unsigned int *model, const signed char *holes)
{
	signed char *dc = malloc(npages);
	size_t i;
	int ok = 1;

	if (!dc || read_dc(base, npages, dc)) {
		free(dc);
		return 0;
	}
	for (i = 0; i < npages && ok; i++) {
		if (holes && holes[i])
			ok = dc[i] == -1;
		else
			ok = dc[i] == (model[i] ? 1 : 0);
		if (!ok)
			tap_note("page %zu: dc %d, model %u", i, dc[i],
				 model[i]);
	}
	free(dc);
	return ok;
}

/* ---- random ranges ---- */

struct range {
	void *addr;
	size_t len;
	size_t first;
	size_t count;
};

/* Unaligned start and end, mostly short, sometimes long. */
static struct range random_range(char *base, size_t npages)
{
	size_t maxlen = rnd() % 4 ? 8 : 64, off1, off2, t;
	struct range r;

	r.count = 1 + rnd() % maxlen;
	r.first = rnd() % (npages - r.count + 1);
	off1 = rnd() % ps;
	off2 = rnd() % ps;
	if (r.count == 1 && off2 < off1) {
		t = off1;
		off1 = off2;
		off2 = t;
	}
	r.addr = base + r.first * ps + off1;
	r.len = (r.count - 1) * ps + off2 - off1 + 1;
	return r;
}

static void model_apply(unsigned int *m, const struct range *r, int add)
{
	size_t i;

	for (i = r->first; i < r->first + r->count; i++)
		if (add)
			m[i]++;
		else if (m[i])
			m[i]--;
}

struct stats {
	unsigned long ops, bad_ret, bad_calls, bad_model, bad_count;
	unsigned long bad_bound, bad_check, smaps, bad_smaps;
	unsigned long injected, bad_inject;
	const char *first_error;
	unsigned long first_op;
};

static void fail(struct stats *st, unsigned long *counter, const char *what)
{
	(*counter)++;
	if (!st->first_error) {
		st->first_error = what;
		st->first_op = st->ops;
	}
}

/*
 * Fail one of the MADV_DONTFORK calls this op would make; nothing may
 * change.  (A failed MADV_DOFORK changes the tree: test_dofork_fails.)
 */
static void inject_failure(struct stats *st, char *base, unsigned int *m,
			   const struct range *r, size_t calls)
{
	int ret;

	madvise_fail_at = madvise_calls + rnd() % calls;
	madvise_fail_errno = EIO;
	ret = fork_range_dontfork(&tree, r->addr, r->len);
	madvise_fail_at = ~0UL;
	st->injected++;
	if (ret != EIO || !tree_matches(base, NPAGES, m) ||
	    fork_range_check(&tree))
		fail(st, &st->bad_inject, "injected failure changed the tree");
	if (st->injected % 8 == 0 && !smaps_matches(base, NPAGES, m, NULL))
		fail(st, &st->bad_inject, "injected failure left madvise");
}

static void one_op(struct stats *st, char *base, unsigned int *m,
		   const struct range *r, int add, size_t live)
{
	size_t calls = transitions(m, r->first, r->count, add);
	unsigned long before;
	int ret;

	if (add && calls && rnd() % 25 == 0)
		inject_failure(st, base, m, r, calls);

	before = madvise_calls;
	ret = add ? fork_range_dontfork(&tree, r->addr, r->len) :
		    fork_range_dofork(&tree, r->addr, r->len);
	model_apply(m, r, add);
	st->ops++;
	if (ret)
		fail(st, &st->bad_ret, "operation failed");
	if (madvise_calls - before != calls)
		fail(st, &st->bad_calls, "madvise not on 0<->1 transitions");
	if (!tree_matches(base, NPAGES, m))
		fail(st, &st->bad_model, "tree differs from model");
	if (fork_range_count(&tree) != model_runs(m, NPAGES))
		fail(st, &st->bad_count, "node count != model runs");
	if (live != (size_t)-1 &&
	    fork_range_count(&tree) > (live ? 2 * live - 1 : 0))
		fail(st, &st->bad_bound, "more nodes than 2 * live - 1");
	if (fork_range_check(&tree))
		fail(st, &st->bad_check, fork_range_check(&tree));
	if (st->ops % SMAPS_EVERY == 0) {
		st->smaps++;
		if (!smaps_matches(base, NPAGES, m, NULL))
			fail(st, &st->bad_smaps, "smaps dc differs from model");
	}
}

static void report(const char *name, struct stats *st, char *base,
		   unsigned int *m)
{
	st->smaps++;
	if (!smaps_matches(base, NPAGES, m, NULL))
		fail(st, &st->bad_smaps, "smaps dc differs at the end");
	if (st->first_error)
		tap_note("%s: first error \"%s\" at op %lu", name,
			 st->first_error, st->first_op);
	CHECK(!st->bad_ret, "%s: %lu ops succeeded", name, st->ops);
	CHECK(!st->bad_model, "%s: tree equals the page model after each op",
	      name);
	CHECK(!st->bad_calls,
	      "%s: madvise exactly once per 0->1 / 1->0 run", name);
	CHECK(!st->bad_count && !st->bad_bound,
	      "%s: nodes == runs of the model (<= 2 * live - 1)", name);
	CHECK(!st->bad_check, "%s: tree invariants hold after each op", name);
	CHECK(!st->bad_smaps, "%s: smaps VmFlags dc match (%lu samples)",
	      name, st->smaps);
	CHECK(!st->bad_inject, "%s: %lu injected madvise failures changed "
	      "nothing", name, st->injected);
}

/* MR-like use: every dofork matches an earlier dontfork. */
static void test_random_paired(void)
{
	static struct range live[LIVE_MAX];
	static unsigned int m[NPAGES];
	struct stats st = { 0 };
	size_t nlive = 0, i;
	char *base = map_pages(NPAGES);
	int add;

	if (!CHECK(base, "paired: map %d pages", NPAGES))
		return;
	while (st.ops < RANDOM_OPS) {
		add = !nlive || (nlive < LIVE_MAX && rnd() % 2);
		if (add) {
			live[nlive] = random_range(base, NPAGES);
			one_op(&st, base, m, &live[nlive], 1, nlive + 1);
			nlive++;
		} else {
			i = rnd() % nlive;
			one_op(&st, base, m, &live[i], 0, nlive - 1);
			live[i] = live[--nlive];
		}
	}
	while (nlive) {
		nlive--;
		one_op(&st, base, m, &live[nlive], 0, nlive);
	}
	report("paired", &st, base, m);
	CHECK(fork_range_count(&tree) == 0, "paired: empty after the last "
	      "dofork");
	fork_range_clear(&tree);
	munmap(base, NPAGES * ps);
}

/* Arbitrary calls: dofork of an untracked page is a no-op. */
static void test_random_unpaired(void)
{
	static unsigned int m[NPAGES];
	struct stats st = { 0 };
	char *base = map_pages(NPAGES);
	struct range r;

	if (!CHECK(base, "unpaired: map %d pages", NPAGES))
		return;
	while (st.ops < UNPAIRED_OPS) {
		r = random_range(base, NPAGES);
		one_op(&st, base, m, &r, rnd() % 2, (size_t)-1);
	}
	report("unpaired", &st, base, m);
	fork_range_clear(&tree);
	munmap(base, NPAGES * ps);
}

/* ---- madvise really failing ---- */

static int dontfork_pages(char *base, size_t first, size_t count)
{
	return fork_range_dontfork(&tree, base + first * ps, count * ps);
}

static int dofork_pages(char *base, size_t first, size_t count)
{
	return fork_range_dofork(&tree, base + first * ps, count * ps);
}

/*
 * Pieces [0, 2) and [3, 6) need MADV_DONTFORK; the second fails on the
 * hole at 4.  The first is undone; the second is left as the kernel left
 * it, so page 3, which the application had advised itself (as DPDK does),
 * keeps its flag: the tree never owned it.
 */
static void test_hole_dontfork(void)
{
	unsigned int m[6] = { 0, 0, 1, 0, 0, 0 };
	unsigned int kernel[6] = { 0, 0, 1, 1, 0, 1 };
	signed char holes[6] = { 0, 0, 0, 0, 1, 0 };
	char *base = map_pages(6);
	int ret;

	if (!CHECK(base, "hole: map 6 pages"))
		return;
	dontfork_pages(base, 2, 1);
	__real_madvise(base + 3 * ps, ps, MADV_DONTFORK);
	munmap(base + 4 * ps, ps);
	ret = dontfork_pages(base, 0, 6);
	CHECK(ret == ENOMEM, "dontfork over a hole fails with ENOMEM (%d)",
	      ret);
	CHECK(tree_matches(base, 6, m) && !fork_range_check(&tree),
	      "dontfork over a hole leaves the tree as it was");
	CHECK(smaps_matches(base, 6, kernel, holes),
	      "dontfork over a hole undoes the pieces that succeeded (0-1) "
	      "and keeps the application's own flag (3)");
	fork_range_clear(&tree);
	munmap(base, 6 * ps);
}

/* MADV_DOFORK is best effort: the pages lose their users all the same. */
static void test_hole_dofork(void)
{
	unsigned int m[6] = { 0, 0, 0, 1, 0, 0 };
	signed char holes[6] = { 0, 0, 0, 0, 0, 1 };
	char *base = map_pages(6);
	int ret;

	if (!CHECK(base, "hole: map 6 pages"))
		return;
	dontfork_pages(base, 0, 2);
	dontfork_pages(base, 3, 3);
	dontfork_pages(base, 3, 1);
	munmap(base + 5 * ps, ps);
	ret = dofork_pages(base, 0, 6);
	CHECK(ret == 0, "dofork over a hole succeeds (%d)", ret);
	CHECK(tree_matches(base, 6, m) && !fork_range_check(&tree),
	      "dofork over a hole drops one user of every page");
	CHECK(smaps_matches(base, 6, m, holes),
	      "dofork over a hole clears dc where the kernel could (0-1, 4)");
	fork_range_clear(&tree);
	munmap(base, 6 * ps);
}

/*
 * A registration cache unmaps a buffer, then deregisters it: the users
 * must drop even though MADV_DOFORK fails, or the next registration at
 * the reused address counts 1 -> 2, issues no MADV_DONTFORK, and a child
 * forked on a kernel that does not copy corrupts that MR.
 */
static void test_dofork_after_munmap(void)
{
	unsigned long before;
	char *base = map_pages(2), *again;
	int ret;

	if (!CHECK(base, "reuse: map 2 pages"))
		return;
	dontfork_pages(base, 0, 2);
	munmap(base, 2 * ps);
	ret = dofork_pages(base, 0, 2);
	CHECK(ret == 0 && fork_range_count(&tree) == 0,
	      "dofork of unmapped memory: 0, no user left (%d)", ret);
	again = mmap(base, 2 * ps, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (!CHECK(again == base, "reuse: map the same address again"))
		return;
	before = madvise_calls;
	ret = dontfork_pages(base, 0, 2);
	CHECK(ret == 0 && madvise_calls == before + 1 &&
	      fork_range_refs(&tree, (uintptr_t)base) == 1,
	      "a new registration there issues MADV_DONTFORK, refs 1");
	{
		unsigned int m[2] = { 1, 1 };

		CHECK(smaps_matches(base, 2, m, NULL),
		      "the new mapping has dc");
	}
	fork_range_clear(&tree);
	munmap(base, 2 * ps);
}

/* An injected MADV_DOFORK failure: 0, users dropped, flag left. */
static void test_dofork_fails(void)
{
	unsigned int m[3] = { 0, 1, 0 };
	unsigned int kernel[3] = { 1, 1, 0 };
	char *base = map_pages(3);
	int ret;

	if (!CHECK(base, "dofork failure: map 3 pages"))
		return;
	dontfork_pages(base, 0, 2);
	dontfork_pages(base, 1, 1);
	madvise_fail_at = madvise_calls;
	madvise_fail_errno = EIO;
	ret = dofork_pages(base, 0, 2);
	madvise_fail_at = ~0UL;
	CHECK(ret == 0 && tree_matches(base, 3, m) && !fork_range_check(&tree),
	      "a failed MADV_DOFORK still drops the users (%d)", ret);
	CHECK(smaps_matches(base, 3, kernel, NULL),
	      "and leaves the flag where the call failed");
	fork_range_clear(&tree);
	munmap(base, 3 * ps);
}

static void test_unmapped_and_degenerate(void)
{
	unsigned long before;
	char *base = map_pages(4);
	int ret;

	if (!CHECK(base, "degenerate: map 4 pages"))
		return;
	munmap(base, 4 * ps);
	ret = dontfork_pages(base, 0, 4);
	CHECK(ret == ENOMEM && fork_range_count(&tree) == 0,
	      "dontfork of unmapped memory: ENOMEM, tree still empty (%d)",
	      ret);

	before = madvise_calls;
	CHECK(fork_range_dontfork(&tree, base, 0) == 0 &&
	      fork_range_dontfork(&tree, NULL, ps) == 0 &&
	      fork_range_dofork(&tree, NULL, ps) == 0 &&
	      madvise_calls == before && fork_range_count(&tree) == 0,
	      "zero length and NULL are no-ops without madvise");
	CHECK(fork_range_dontfork(&tree, (void *)(UINTPTR_MAX - 100), 200) ==
	      EINVAL && fork_range_count(&tree) == 0,
	      "a range wrapping the address space is EINVAL");
	CHECK(fork_range_dofork(&tree, base, 4 * ps) == 0 &&
	      madvise_calls == before,
	      "dofork of untracked memory: 0, no madvise");
}

/* ---- merging ---- */

static void test_merge(void)
{
	enum { N = 64 };
	unsigned int m[N] = { 0 };
	size_t order[N], i, j, t;
	char *base = map_pages(N);
	int ok = 1;

	if (!CHECK(base, "merge: map %d pages", N))
		return;
	for (i = 0; i < N; i++)
		ok &= !dontfork_pages(base, i, 1) &&
		      fork_range_count(&tree) == 1;
	for (i = 0; i < N; i++)
		m[i] = 1;
	CHECK(ok && tree_matches(base, N, m),
	      "64 adjacent one-page dontforks make one node");

	ok = !dontfork_pages(base, 0, N) && fork_range_count(&tree) == 1;
	for (i = 0; i < N; i++)
		m[i] = 2;
	CHECK(ok && tree_matches(base, N, m),
	      "dontfork over all of it: still one node, refs 2");

	for (i = 0; i < N; i++)
		order[i] = i;
	for (i = N - 1; i > 0; i--) {
		j = rnd() % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < N && ok; i++) {
		ok = !dofork_pages(base, order[i], 1);
		m[order[i]]--;
		ok = ok && fork_range_count(&tree) == model_runs(m, N) &&
		     !fork_range_check(&tree);
	}
	CHECK(ok && fork_range_count(&tree) == 1 && tree_matches(base, N, m),
	      "one-page doforks in random order: nodes == runs, ending in "
	      "one node");
	ok = !dofork_pages(base, 0, N);
	CHECK(ok && fork_range_count(&tree) == 0 &&
	      smaps_matches(base, N, (unsigned int[N]){ 0 }, NULL),
	      "last dofork empties the tree and clears dc");
	fork_range_clear(&tree);
	munmap(base, N * ps);
}

/* ---- balance ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_balance(void)
{
	enum { N = 10000 };
	size_t *order = malloc(N * sizeof(*order)), i, j, t;
	char *base = map_pages(2 * N);
	unsigned int h, bound = 3 * (unsigned int)log2(N) + 16;
	double t0, t1;
	int ok = 1;

	if (!CHECK(base && order, "balance: map %d pages", 2 * N))
		goto out;
	/* Sorted insertion: the worst case of an unbalanced tree. */
	t0 = now_s();
	for (i = 0; i < N; i++)
		ok &= !dontfork_pages(base, 2 * i, 1);
	t1 = now_s();
	h = fork_range_height(&tree);
	CHECK(ok && fork_range_count(&tree) == N && !fork_range_check(&tree),
	      "%d disjoint ranges inserted in address order", N);
	CHECK(h <= bound, "treap height %u <= %u for %d nodes", h, bound, N);
	tap_note("%.2f us per insertion", (t1 - t0) * 1e6 / N);

	for (i = 0; i < N; i++)
		order[i] = i;
	for (i = N - 1; i > 0; i--) {
		j = rnd() % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < N; i++) {
		ok &= !dofork_pages(base, 2 * order[i], 1);
		if (i % 1000 == 0)
			ok &= !fork_range_check(&tree);
	}
	CHECK(ok && fork_range_count(&tree) == 0,
	      "all removed in random order");
out:
	fork_range_clear(&tree);
	if (base)
		munmap(base, 2 * N * ps);
	free(order);
}

/* ---- huge pages ---- */

static const char fake_smaps[] =
	"00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/x\n"
	"Size:                328 kB\n"
	"KernelPageSize:        4 kB\n"
	"AnonHugePages:         0 kB\n"
	"VmFlags: rd ex mr mw me dw\n"
	"7f0000000000-7f0000400000 rw-p 00000000 00:0f 1234   "
	"/dev/hugepages/a - b 1-2 rw\n"
	"Size:               4096 kB\n"
	"KernelPageSize:     2048 kB\n"
	"MMUPageSize:        2048 kB\n"
	"VmFlags: rd wr mr mw me de ht\n"
	"7f0000400000-7f0000401000 rw-p 00000000 00:00 0\n"
	"Size:                  4 kB\n"
	"VmFlags: rd wr mr mw me\n";

static uintptr_t fake_lookup(uintptr_t addr)
{
	FILE *f = fmemopen((void *)fake_smaps, sizeof(fake_smaps) - 1, "r");
	uintptr_t size;

	if (!f)
		return ~(uintptr_t)0;
	size = fork_range_smaps_page_size(f, addr);
	fclose(f);
	return size;
}

static void test_hugepages(void)
{
	const size_t huge = 2UL << 20;
	uintptr_t a;
	char *p;
	int ret;

	CHECK(fake_lookup(0x400000) == 4096 && fake_lookup(0x451fff) == 4096,
	      "smaps: KernelPageSize 4 kB of a normal mapping");
	CHECK(fake_lookup(0x7f0000000000) == huge &&
	      fake_lookup(0x7f00003fffff) == huge,
	      "smaps: KernelPageSize 2048 kB of a hugetlb mapping");
	CHECK(fake_lookup(0x7f0000400000) == 0 && fake_lookup(0x1000) == 0,
	      "smaps: no KernelPageSize or no mapping gives 0");

	fork_range_init(&tree, true);
	p = map_pages(2);
	ret = p ? fork_range_dontfork(&tree, p + ps + 10, 10) : -1;
	a = (uintptr_t)p + ps;
	CHECK(!ret && fork_range_count(&tree) == 1 &&
	      fork_range_refs(&tree, a) == 1 &&
	      fork_range_refs(&tree, a - 1) == 0 &&
	      fork_range_refs(&tree, a + ps) == 0,
	      "RDMAV_HUGEPAGES_SAFE on small pages keeps page granularity");
	fork_range_dofork(&tree, p + ps + 10, 10);
	if (p)
		munmap(p, 2 * ps);

	p = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED) {
		tap_note("skip: no hugetlb pages (vm.nr_hugepages), "
			 "2 MiB alignment not tested on this host");
	} else {
		a = (uintptr_t)p + huge;
		ret = fork_range_dontfork(&tree, (void *)(a + 4096), 100);
		CHECK(!ret && fork_range_refs(&tree, a) == 1 &&
		      fork_range_refs(&tree, a + huge - 1) == 1 &&
		      fork_range_refs(&tree, a + huge) == 0 &&
		      fork_range_refs(&tree, a - 1) == 0,
		      "RDMAV_HUGEPAGES_SAFE aligns to the 2 MiB page");
		fork_range_dofork(&tree, (void *)(a + 4096), 100);
		CHECK(fork_range_count(&tree) == 0,
		      "hugetlb range released");
		munmap(p, 2 * huge);
	}
	fork_range_clear(&tree);
	fork_range_init(&tree, false);
}

int main(void)
{
	const char *seed = getenv("FORK_TEST_SEED");

	ps = (uintptr_t)sysconf(_SC_PAGESIZE);
	rng_state = seed ? strtoull(seed, NULL, 0) : 0x5eed2024ULL;
	if (!rng_state)
		rng_state = 1;
	tap_note("seed %#llx (set FORK_TEST_SEED to change)",
		 (unsigned long long)rng_state);
	fork_range_init(&tree, false);

	test_merge();
	test_hole_dontfork();
	test_hole_dofork();
	test_dofork_after_munmap();
	test_dofork_fails();
	test_unmapped_and_degenerate();
	test_random_paired();
	test_random_unpaired();
	test_balance();
	test_hugepages();
	return tap_done();
}
