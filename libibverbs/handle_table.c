// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The handle table's writers; see handle_table.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "handle_table.h"

/*
 * The slot of @handle's page pointer: in the table for a low handle, in
 * its directory for a high one (allocated if @alloc).  NULL when there is
 * no directory, or it cannot be allocated.
 */
static struct ht_page **page_slot(struct handle_table *t, uint32_t handle,
				  bool alloc)
{
	struct ht_dir **dirs, *d;

	if (handle < HT_LOW_HANDLES)
		return &t->page[handle >> HT_PAGE_SHIFT];
	dirs = t->dir;
	if (!dirs) {
		if (!alloc)
			return NULL;
		dirs = calloc(HT_DIR_SLOTS, sizeof(*dirs));
		if (!dirs)
			return NULL;
		/* Readers load it with acquire: publish it zeroed. */
		__atomic_store_n(&t->dir, dirs, __ATOMIC_RELEASE);
	}
	d = dirs[handle >> HT_DIR_SHIFT];
	if (!d && alloc) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return NULL;
		__atomic_store_n(&dirs[handle >> HT_DIR_SHIFT], d,
				 __ATOMIC_RELEASE);
	}
	return d ? &d->page[(handle >> HT_PAGE_SHIFT) & (HT_TOP_SLOTS - 1)]
		 : NULL;
}

int ht_set(struct handle_table *t, uint32_t handle, const struct ht_rec *rec)
{
	struct ht_page **slot, *p;
	struct ht_rec *r;

	slot = page_slot(t, handle, true);
	if (!slot)
		return ENOMEM;
	p = *slot;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return ENOMEM;
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	r = &p->rec[handle & (HT_PAGE_SLOTS - 1)];
	/*
	 * A reader matches on obj: hide the slot while the functions change,
	 * and publish obj last, so that a match sees the functions stored.
	 */
	__atomic_store_n(&r->obj, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&r->fn, rec->fn, __ATOMIC_RELAXED);
	__atomic_store_n(&r->obj, rec->obj, __ATOMIC_RELEASE);
	return 0;
}

void ht_clear(struct handle_table *t, uint32_t handle, const void *obj)
{
	struct ht_page **slot = page_slot(t, handle, false);
	struct ht_rec *r;

	if (!slot || !*slot)
		return;
	r = &(*slot)->rec[handle & (HT_PAGE_SLOTS - 1)];
	if (r->obj == obj)
		__atomic_store_n(&r->obj, NULL, __ATOMIC_RELEASE);
}

void ht_free(struct handle_table *t)
{
	unsigned int i, j;

	for (i = 0; i < HT_TOP_SLOTS; i++) {
		free(t->page[i]);
		t->page[i] = NULL;
	}
	if (!t->dir)
		return;
	for (i = 0; i < HT_DIR_SLOTS; i++) {
		if (!t->dir[i])
			continue;
		for (j = 0; j < HT_TOP_SLOTS; j++)
			free(t->dir[i]->page[j]);
		free(t->dir[i]);
	}
	free(t->dir);
	t->dir = NULL;
}
