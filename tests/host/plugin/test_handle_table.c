// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The handle table (libibverbs/handle_table.c) on its own: what a lookup
 * finds for each handle and object, handles up to 2^32 - 1 with memory
 * only where they are, and readers that never lose a stable record while
 * a writer fills and empties other pages.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "handle_table.h"
#include "tap.h"

static void fn_a(void)
{
}
static void fn_b(void)
{
}
static void fn_c(void)
{
}

/* Two sets of functions, as a caller keeps them while the table lives. */
static const ht_fn set_a[] = { fn_a, fn_c, fn_a };
static const ht_fn set_b[] = { fn_b, fn_c, fn_b };

static struct ht_rec rec(const void *obj, ht_fn f)
{
	struct ht_rec r = { .obj = obj, .fn = f == fn_a ? set_a : set_b };

	return r;
}

static void test_basic(void)
{
	static struct handle_table t;
	static const uint32_t handles[] = { 0, 5, HT_PAGE_SLOTS - 1,
					    HT_PAGE_SLOTS, HT_LOW_HANDLES - 1 };
	int objs[5] = { 0 }, other = 0;
	struct ht_rec r;
	unsigned int i;
	bool all = true;

	CHECK(!ht_get(&t, 0, &objs[0]), "empty table finds nothing");
	for (i = 0; i < 5; i++) {
		r = rec(&objs[i], i % 2 ? fn_a : fn_b);
		all &= ht_set(&t, handles[i], &r) == 0;
	}
	CHECK(all, "set at both ends of a page and of the table");
	for (i = 0, all = true; i < 5; i++) {
		const struct ht_rec *g = ht_get(&t, handles[i], &objs[i]);

		all &= g && g->fn[0] == (i % 2 ? fn_a : fn_b) &&
		       g->fn[1] == fn_c;
	}
	CHECK(all, "each handle finds its own functions");
	CHECK(!ht_get(&t, 5, &other), "another object at the handle: nothing");
	CHECK(!ht_get(&t, 6, &objs[1]), "a neighbour handle: nothing");
	CHECK(!ht_get(&t, 2 * HT_PAGE_SLOTS, &objs[0]),
	      "a handle in an unallocated page: nothing");

	CHECK(!ht_get(&t, HT_LOW_HANDLES, &other) &&
		      !ht_get(&t, UINT32_MAX, &other),
	      "high handles never set find nothing");
	CHECK(!t.dir && sizeof(t) == sizeof(t.page) + sizeof(t.dir),
	      "low handles only: no directory array, one pointer for it");

	ht_clear(&t, 5, &other);
	CHECK(ht_get(&t, 5, &objs[1]), "clear for another object keeps it");
	ht_clear(&t, 5, &objs[1]);
	CHECK(!ht_get(&t, 5, &objs[1]), "clear for the object removes it");

	r = rec(&other, fn_a);
	ht_set(&t, 0, &r);
	CHECK(!ht_get(&t, 0, &objs[0]) && ht_get(&t, 0, &other),
	      "a new object at a reused handle replaces the old record");

	ht_free(&t);
	CHECK(!ht_get(&t, 0, &other), "freed table finds nothing");
}

/*
 * Kernel handles count every live object of a context: millions of MRs
 * give handles of 2^20 and more, and any 32-bit value must work.  Sparse
 * handles cost one directory and one page each, not the space between.
 */
static void test_high(void)
{
	static struct handle_table t;
	static const uint32_t handles[] = { 1U << 20, (1U << 20) + 1,
					    (1U << 21) - 1, 1U << 31,
					    UINT32_MAX };
	int objs[5] = { 0 }, other = 0;
	unsigned int i, dirs = 0, pages = 0;
	struct ht_rec r;
	bool all = true;

	for (i = 0; i < 5; i++) {
		r = rec(&objs[i], i % 2 ? fn_a : fn_b);
		all &= ht_set(&t, handles[i], &r) == 0;
	}
	CHECK(all, "set at 2^20, 2^20 + 1, 2^21 - 1, 2^31, 2^32 - 1");
	for (i = 0, all = true; i < 5; i++) {
		const struct ht_rec *g = ht_get(&t, handles[i], &objs[i]);

		all &= g && g->fn[0] == (i % 2 ? fn_a : fn_b);
	}
	CHECK(all, "each high handle finds its own functions");
	CHECK(!ht_get(&t, handles[0] & (HT_LOW_HANDLES - 1), &objs[0]) &&
		      !ht_get(&t, 0, &objs[0]),
	      "a high handle does not alias the low handle of its offset");
	CHECK(!ht_get(&t, (1U << 31) + 1, &objs[3]) &&
		      !ht_get(&t, (1U << 31) + HT_PAGE_SLOTS, &objs[3]) &&
		      !ht_get(&t, 3U << 30, &objs[3]),
	      "neighbours, other pages and other directories find nothing");
	CHECK(!ht_get(&t, UINT32_MAX, &other),
	      "another object at a high handle: nothing");

	for (i = 0; t.dir && i < HT_DIR_SLOTS; i++) {
		unsigned int j;

		if (!t.dir[i])
			continue;
		dirs++;
		for (j = 0; j < HT_TOP_SLOTS; j++)
			pages += !!t.dir[i]->page[j];
	}
	for (i = 0; i < HT_TOP_SLOTS; i++)
		pages += !!t.page[i];
	CHECK(dirs == 3 && pages == 4,
	      "memory only where handles are: %u directories, %u pages "
	      "(want 3, 4)",
	      dirs, pages);

	ht_clear(&t, 1U << 31, &objs[3]);
	ht_clear(&t, 3U << 30, &objs[3]);
	CHECK(!ht_get(&t, 1U << 31, &objs[3]) &&
		      ht_get(&t, UINT32_MAX, &objs[4]),
	      "clear removes a high handle's record, and only it");
	ht_free(&t);
	CHECK(!ht_get(&t, UINT32_MAX, &objs[4]), "freed table finds nothing");
}

/* Readers of stable records while a writer churns other handles. */
#define STABLE 64
static struct handle_table race_table;
static int stable_objs[STABLE];
static volatile bool stop;
static unsigned long misses;

/*
 * Handles in four windows of 4096, below 2^20 and above it (new
 * directories and pages too), so the churn stays a few MiB.
 */
static const uint32_t windows[] = { 0, 1U << 20, 1U << 31,
				    UINT32_MAX - 4095 };

static uint32_t window_handle(unsigned int x)
{
	return windows[x % 4] + x / 4 % 4096;
}

static uint32_t stable_handle(unsigned int i)
{
	return window_handle(i * 257);
}

static bool is_stable(uint32_t h)
{
	unsigned int i;

	for (i = 0; i < STABLE; i++)
		if (h == stable_handle(i))
			return true;
	return false;
}

static void *reader(void *arg)
{
	unsigned long n = 0, bad = 0;
	unsigned int i;

	while (!stop) {
		for (i = 0; i < STABLE; i++) {
			const struct ht_rec *g =
				ht_get(&race_table, stable_handle(i),
				       &stable_objs[i]);

			if (!g || g->fn[0] != fn_a)
				bad++;
		}
		n++;
	}
	__atomic_add_fetch(&misses, bad, __ATOMIC_RELAXED);
	return (void *)n;
}

static void test_race(void)
{
	pthread_t th[2];
	struct ht_rec r;
	unsigned int i, round;
	int churn;
	bool ok = true;

	for (i = 0; i < STABLE; i++) {
		r = rec(&stable_objs[i], fn_a);
		ok &= !ht_set(&race_table, stable_handle(i), &r);
	}
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, NULL);
	/* Fill and empty handles between the stable ones, new pages too. */
	for (round = 0; round < 200; round++) {
		for (i = 0; i < 2000; i++) {
			uint32_t h = window_handle(round * 7919 + i * 131);

			if (is_stable(h))
				continue;
			r = rec(&churn, fn_b);
			ok &= !ht_set(&race_table, h, &r);
			ht_clear(&race_table, h, &churn);
		}
	}
	stop = true;
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK(ok, "writer's sets succeed");
	CHECK(misses == 0,
	      "readers always found the stable records (%lu misses)", misses);
	ht_free(&race_table);
}

int main(void)
{
	test_basic();
	test_high();
	test_race();
	return tap_done();
}
