/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A table from kernel object handle to a small library-owned record, read
 * without a lock.
 *
 * The child guard wraps the data-path callbacks a provider plug-in
 * installs in its objects (ibv_qp_ex, ibv_cq_ex, ibv_wq): the wrapper gets
 * only the object, and the plug-in's own functions must be found from it
 * in library memory, on every call.  The kernel hands out a context's
 * handles from one small-integer space (lowest free first), so a two-level
 * array indexed by the handle finds the record with two loads and no
 * hashing.  That covers handles below 2^20; a context with more live
 * objects than that (a large MR cache) gets higher handles, which go
 * through one more level, a directory per 2^20 handles, so that any 32-bit
 * handle works and a sparse one costs one directory and one page.  The
 * array of directories is itself allocated with the first high handle, so
 * a context that never sees one pays a pointer for it.  Pages, directories
 * and that array are allocated when first needed and kept until the table
 * is freed, so a reader never sees one go away.
 *
 * Writers (object create and destroy) serialise on the caller's lock;
 * readers need none: a record is complete before the object it belongs to
 * is handed to the application.
 */
#ifndef IBV_HANDLE_TABLE_H
#define IBV_HANDLE_TABLE_H

#include <stdint.h>

/*
 * Handles below HT_LOW_HANDLES are found through page[] directly; the
 * others through dir[handle >> HT_DIR_SHIFT] first.
 */
#define HT_PAGE_SHIFT 10
#define HT_PAGE_SLOTS (1U << HT_PAGE_SHIFT)
#define HT_TOP_SLOTS 1024U
#define HT_DIR_SHIFT 20
#define HT_LOW_HANDLES (1U << HT_DIR_SHIFT)
#define HT_DIR_SLOTS (1U << (32 - HT_DIR_SHIFT))

/* The provider's functions saved for one object; which ones is per type. */
typedef void (*ht_fn)(void);

struct ht_rec {
	/* The object the record belongs to, or NULL for a free slot. */
	const void *obj;
	/* Its functions, in memory the caller keeps while the table lives. */
	const ht_fn *fn;
};

struct ht_page {
	struct ht_rec rec[HT_PAGE_SLOTS];
};

/* The pages of 2^20 handles. */
struct ht_dir {
	struct ht_page *page[HT_TOP_SLOTS];
};

struct handle_table {
	struct ht_page *page[HT_TOP_SLOTS];
	/*
	 * Handles of 2^20 and more: HT_DIR_SLOTS directories, NULL until the
	 * first such handle; dir[0] is never used.
	 */
	struct ht_dir **dir;
};

/*
 * Store @rec for @handle.  Returns 0, or ENOMEM when a page or directory
 * cannot be allocated.
 */
int ht_set(struct handle_table *t, uint32_t handle, const struct ht_rec *rec);

/* Forget @handle's record if it belongs to @obj. */
void ht_clear(struct handle_table *t, uint32_t handle, const void *obj);

/* Free every page; the table is empty afterwards. */
void ht_free(struct handle_table *t);

/*
 * @handle's record if it belongs to @obj, else NULL.  The data path: no
 * lock, no call.
 */
static inline const struct ht_rec *ht_get(const struct handle_table *t,
					  uint32_t handle, const void *obj)
{
	const struct ht_page *p;
	struct ht_dir *const *dirs;
	const struct ht_dir *d;
	const struct ht_rec *r;

	if (__builtin_expect(handle < HT_LOW_HANDLES, 1)) {
		p = __atomic_load_n(&t->page[handle >> HT_PAGE_SHIFT],
				    __ATOMIC_ACQUIRE);
	} else {
		dirs = __atomic_load_n(&t->dir, __ATOMIC_ACQUIRE);
		if (!dirs)
			return NULL;
		d = __atomic_load_n(&dirs[handle >> HT_DIR_SHIFT],
				    __ATOMIC_ACQUIRE);
		if (!d)
			return NULL;
		p = __atomic_load_n(&d->page[(handle >> HT_PAGE_SHIFT) &
					     (HT_TOP_SLOTS - 1)],
				    __ATOMIC_ACQUIRE);
	}
	if (__builtin_expect(!p, 0))
		return NULL;
	r = &p->rec[handle & (HT_PAGE_SLOTS - 1)];
	return __atomic_load_n(&r->obj, __ATOMIC_ACQUIRE) == obj ? r : NULL;
}

#endif /* IBV_HANDLE_TABLE_H */
