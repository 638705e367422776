// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The handle table (libibverbs/handle_table.c) on its own: what a lookup
 * finds for each handle and object, the limits, and readers that never
 * lose a stable record while a writer fills and empties other pages.
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

static struct ht_rec rec(const void *obj, ht_fn f)
{
	struct ht_rec r = { .obj = obj, .fn = { f, fn_c, f } };

	return r;
}

static void test_basic(void)
{
	static struct handle_table t;
	static const uint32_t handles[] = { 0, 5, HT_PAGE_SLOTS - 1,
					    HT_PAGE_SLOTS, HT_MAX_HANDLES - 1 };
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

	r = rec(&other, fn_a);
	CHECK(ht_set(&t, HT_MAX_HANDLES, &r) == ERANGE,
	      "a handle beyond the table: ERANGE");
	CHECK(!ht_get(&t, HT_MAX_HANDLES, &other) &&
		      !ht_get(&t, UINT32_MAX, &other),
	      "lookups beyond the table find nothing");

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

/* Readers of stable records while a writer churns other handles. */
#define STABLE 64
static struct handle_table race_table;
static int stable_objs[STABLE];
static volatile bool stop;
static unsigned long misses;

static void *reader(void *arg)
{
	unsigned long n = 0, bad = 0;
	unsigned int i;

	while (!stop) {
		for (i = 0; i < STABLE; i++) {
			const struct ht_rec *g =
				ht_get(&race_table, i * 4099 % HT_MAX_HANDLES,
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
		ok &= !ht_set(&race_table, i * 4099 % HT_MAX_HANDLES, &r);
	}
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, NULL);
	/* Fill and empty handles between the stable ones, new pages too. */
	for (round = 0; round < 200; round++) {
		for (i = 0; i < 2000; i++) {
			uint32_t h = (round * 7919 + i * 131) % HT_MAX_HANDLES;

			if (h % 4099 == 0)
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
	test_race();
	return tap_done();
}
