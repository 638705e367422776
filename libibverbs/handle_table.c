// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The handle table's writers; see handle_table.h. */
#include <errno.h>
#include <stdlib.h>

#include "handle_table.h"

int ht_set(struct handle_table *t, uint32_t handle, const struct ht_rec *rec)
{
	struct ht_page *p;
	struct ht_rec *r;
	unsigned int i;

	if (handle >= HT_MAX_HANDLES)
		return ERANGE;
	p = t->page[handle >> HT_PAGE_SHIFT];
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return ENOMEM;
		__atomic_store_n(&t->page[handle >> HT_PAGE_SHIFT], p,
				 __ATOMIC_RELEASE);
	}
	r = &p->rec[handle & (HT_PAGE_SLOTS - 1)];
	/*
	 * A reader matches on obj: hide the slot while the functions change,
	 * and publish obj last, so that a match sees the functions stored.
	 */
	__atomic_store_n(&r->obj, NULL, __ATOMIC_RELEASE);
	for (i = 0; i < sizeof(r->fn) / sizeof(r->fn[0]); i++)
		r->fn[i] = rec->fn[i];
	__atomic_store_n(&r->obj, rec->obj, __ATOMIC_RELEASE);
	return 0;
}

void ht_clear(struct handle_table *t, uint32_t handle, const void *obj)
{
	struct ht_page *p;
	struct ht_rec *r;

	if (handle >= HT_MAX_HANDLES)
		return;
	p = t->page[handle >> HT_PAGE_SHIFT];
	if (!p)
		return;
	r = &p->rec[handle & (HT_PAGE_SLOTS - 1)];
	if (r->obj == obj)
		__atomic_store_n(&r->obj, NULL, __ATOMIC_RELEASE);
}

void ht_free(struct handle_table *t)
{
	unsigned int i;

	for (i = 0; i < HT_TOP_SLOTS; i++) {
		free(t->page[i]);
		t->page[i] = NULL;
	}
}
