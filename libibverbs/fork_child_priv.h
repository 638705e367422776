/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside the fork child's own objects: the proxies' layouts and what the
 * extended CQ and QP forwarders (fork_child_ex.c) share with the proxy
 * table and the creating verbs (fork_child.c).  Nothing else includes it.
 */
#ifndef IBV_FORK_CHILD_PRIV_H
#define IBV_FORK_CHILD_PRIV_H

#include <stdbool.h>
#include <sys/types.h>

#include "driver.h"

#include "fork_child.h"

enum child_kind {
	CK_CTX, /* key: an inherited context; real: the fresh one */
	CK_SHADOW_PD, /* key: an inherited PD; real: the child's PD */
	CK_PD, /* the others: key is the proxy, real its object */
	CK_CHANNEL,
	CK_CQ,
	CK_QP,
	CK_MR,
	CK_SRQ,
	CK_AH,
	CK_MW,
	CK_TD,
	CK_XRCD,
	CK_PDOM, /* key: a parent domain; real: the PD it lies over */
};

/*
 * @dying is the pid of the process destroying the real object, 0 while
 * the proxy is live.  The entry stays linked until the real object is
 * gone, so a proxy is always found: a lookup that misses means the
 * pointer is no proxy, and only then may a verb hand it to a provider.
 */
struct child_obj {
	struct child_obj *next;
	const void *key;
	enum child_kind kind;
	pid_t dying;
	void *real;
};

/*
 * Proxies embed the library's layout of each object (driver.h), not just
 * the public struct: exported helpers such as ibv_qp_to_qp_ex() and
 * ibv_rereg_mr() read past it before they check the context.
 */
struct child_pd {
	struct verbs_pd v;
	struct child_obj o;
};

struct child_channel {
	struct ibv_comp_channel pub;
	struct child_obj o;
};

/*
 * An extended CQ or QP proxy keeps its real object's ibv_cq_ex or
 * ibv_qp_ex: its members are forwarders that reach the real one without
 * a look-up (only they can be handed the proxy).  @bad marks a batch
 * that named an object no forwarder may hand on (ibv_wr_complete()
 * aborts it).
 */
struct child_cq {
	struct verbs_cq v;
	struct child_obj o;
	struct ibv_cq_ex *realx;
};

struct child_qp {
	struct verbs_qp v;
	struct child_obj o;
	struct ibv_qp_ex *realx;
	/*
	 * Why the batch is spoilt (the first refusal), or 0: written
	 * between the provider's wr_start and its wr_complete/wr_abort,
	 * which serialise batches on the QP (rxe: the send queue lock).
	 */
	int bad;
};

struct child_mr {
	struct verbs_mr v;
	struct child_obj o;
};

struct child_srq {
	struct verbs_srq v;
	struct child_obj o;
};

struct child_ah {
	struct verbs_ah v;
	struct child_obj o;
};

/*
 * The provider keeps a window's current rkey in its own struct (a bind
 * moves it on); the proxy's mirrors it after every bind that went through
 * the library.
 */
struct child_mw {
	struct verbs_mw v;
	struct child_obj o;
};

/* A thread domain has no library layout beyond the public struct. */
struct child_td {
	struct ibv_td pub;
	struct child_obj o;
};

/*
 * An XRC domain, laid out as the library's verbs_xrcd, with no handle:
 * only the real domain's names one, on the child's own context.
 */
struct child_xrcd {
	struct verbs_xrcd v;
	struct child_obj o;
};

/*
 * Set @px's members to the forwarders of those @r has (fork_child_ex.c);
 * one @r lacks stays NULL.
 */
void verbs_child_cqx_fill(struct ibv_cq_ex *px, struct ibv_cq_ex *r) IBV_HIDDEN;
void verbs_child_qpx_fill(struct ibv_qp_ex *px, struct ibv_qp_ex *r) IBV_HIDDEN;

/*
 * The real AH for a UD request on real QP @real: 0 (also for a NULL @ah,
 * left to the provider to refuse); EPERM when @real is on an inherited
 * context (a grandchild's copy of the child's QP), whatever @ah, or @ah
 * is the parent's or a proxy a grandchild inherited; EINVAL when it is
 * the child's own on another context than @real's, a proxy or one of a
 * device the child opened itself (fork_child.c).
 */
int verbs_child_ud_real_ah(struct ibv_qp *real, struct ibv_ah *ah,
			   struct ibv_ah **out) IBV_HIDDEN;

/*
 * The real window and bind info for binding proxy @mw (NULL: none, for
 * the provider to refuse) on real QP @real: 0; EPERM when the window or
 * the MR is an inherited one (the parent's) or one a grandchild
 * inherited; EINVAL when one is of another context than the QP's
 * (fork_child.c).  After the bind, verbs_child_mw_synced() copies the
 * real window's rkey, moved on or not.
 */
int verbs_child_bind_parts(struct ibv_qp *real, struct ibv_mw *mw,
			   const struct ibv_mw_bind_info *info,
			   struct ibv_mw **rmw,
			   struct ibv_mw_bind_info *rinfo) IBV_HIDDEN;
void verbs_child_mw_synced(struct ibv_mw *mw, struct ibv_mw *rmw) IBV_HIDDEN;

#endif /* IBV_FORK_CHILD_PRIV_H */
