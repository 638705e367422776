/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The child guard on the function pointers a provider installs in its
 * objects (provider_guard.c), for every provider whose contexts the library
 * adapts (provider_context.c calls these around the provider's create and
 * destroy ops).
 */
#ifndef IBV_PROVIDER_GUARD_H
#define IBV_PROVIDER_GUARD_H

#include <infiniband/verbs.h>
#include <stdint.h>

#include "driver.h"
#include "handle_table.h"

/*
 * After a provider created the object: save every function it filled in
 * and install the library's wrapper in its place.  0, or a positive errno
 * with the object unchanged (the caller then destroys it).
 */
int verbs_guard_qp_ex(struct ibv_qp_ex *qpx) IBV_HIDDEN;
int verbs_guard_cq_ex(struct ibv_cq_ex *cq) IBV_HIDDEN;
int verbs_guard_wq(struct ibv_wq *wq) IBV_HIDDEN;
int verbs_guard_dm(struct ibv_dm *dm) IBV_HIDDEN;

/*
 * Around a provider's destroy: forget the object's record before, put it
 * back if the destroy failed.
 */
void verbs_guard_drop(struct ibv_context *ctx, uint32_t handle, const void *obj,
		      struct ht_rec *saved) IBV_HIDDEN;
void verbs_guard_restore(struct ibv_context *ctx, uint32_t handle,
			 const struct ht_rec *saved) IBV_HIDDEN;

/* At context teardown. */
void verbs_guard_table_free(struct verbs_ex_private *priv) IBV_HIDDEN;

#endif /* IBV_PROVIDER_GUARD_H */
