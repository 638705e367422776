/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A fork child's own objects on the contexts it inherited (fork_child.c).
 *
 * A child cannot use the parent's kernel context, but librdmacm and
 * libfabric keep one ibv_context per device for the whole process and
 * never reopen it in a child.  So a creating verb on an inherited context
 * or PD makes the object on a context of the child's own (a fresh open of
 * the same device, made on first need) and hands the application a proxy
 * whose context and pd are the inherited ones it passed, as those
 * libraries check.  See Documentation/fork-support.md, "A child's own
 * objects".
 *
 * Every entry point is for a caller that found its context inherited
 * (verbs_inherited()): none of this runs in a process that did not fork.
 */
#ifndef IBV_FORK_CHILD_H
#define IBV_FORK_CHILD_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifndef IBV_HIDDEN
#define IBV_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Creating verbs on an inherited context, PD or proxy; NULL with errno. */
struct ibv_pd *verbs_child_alloc_pd(struct ibv_context *ctx) IBV_HIDDEN;
struct ibv_comp_channel *
verbs_child_create_channel(struct ibv_context *ctx) IBV_HIDDEN;
struct ibv_cq *verbs_child_create_cq(struct ibv_context *ctx, int cqe,
				     void *cq_context,
				     struct ibv_comp_channel *channel,
				     int comp_vector) IBV_HIDDEN;
struct ibv_cq_ex *
verbs_child_create_cq_ex(struct ibv_context *ctx,
			 struct ibv_cq_init_attr_ex *attr) IBV_HIDDEN;
struct ibv_qp *
verbs_child_create_qp_ex(struct ibv_context *ctx,
			 struct ibv_qp_init_attr_ex *attr) IBV_HIDDEN;
struct ibv_qp *verbs_child_create_qp(struct ibv_pd *pd,
				     struct ibv_qp_init_attr *attr) IBV_HIDDEN;
struct ibv_srq *
verbs_child_create_srq(struct ibv_pd *pd,
		       struct ibv_srq_init_attr *attr) IBV_HIDDEN;
struct ibv_srq *
verbs_child_create_srq_ex(struct ibv_context *ctx,
			  struct ibv_srq_init_attr_ex *attr) IBV_HIDDEN;
struct ibv_ah *verbs_child_create_ah(struct ibv_pd *pd,
				     struct ibv_ah_attr *attr) IBV_HIDDEN;
/* The child's own context for inherited @ctx (stateless queries). */
struct ibv_context *verbs_child_context(struct ibv_context *ctx) IBV_HIDDEN;
struct ibv_mr *verbs_child_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				  uint64_t iova,
				  unsigned int access) IBV_HIDDEN;
struct ibv_mw *verbs_child_alloc_mw(struct ibv_pd *pd,
				    enum ibv_mw_type type) IBV_HIDDEN;
struct ibv_td *verbs_child_alloc_td(struct ibv_context *ctx,
				    struct ibv_td_init_attr *attr) IBV_HIDDEN;
struct ibv_xrcd *
verbs_child_open_xrcd(struct ibv_context *ctx,
		      struct ibv_xrcd_init_attr *attr) IBV_HIDDEN;
struct ibv_qp *verbs_child_open_qp(struct ibv_context *ctx,
				   struct ibv_qp_open_attr *attr) IBV_HIDDEN;
struct ibv_pd *verbs_child_alloc_parent_domain(
	struct ibv_context *ctx,
	struct ibv_parent_domain_init_attr *attr) IBV_HIDDEN;

/*
 * Destroying verbs: true when @obj is a proxy (or the caller is a vfork()
 * child of the fork child, refused with EPERM), then *ret is the verb's
 * result; false for an inherited object, which the caller treats as
 * before.  A live proxy is always found (fork_child.c), so a provider
 * never gets one here.  ibv_dealloc_pd() of an inherited PD also drops the child's
 * handle for it; ibv_close_device() of an inherited context closes the
 * child's fresh one.
 */
bool verbs_child_dealloc_pd(struct ibv_pd *pd, int *ret) IBV_HIDDEN;
bool verbs_child_destroy_channel(struct ibv_comp_channel *ch,
				 int *ret) IBV_HIDDEN;
bool verbs_child_destroy_cq(struct ibv_cq *cq, int *ret) IBV_HIDDEN;
bool verbs_child_destroy_qp(struct ibv_qp *qp, int *ret) IBV_HIDDEN;
bool verbs_child_dereg_mr(struct ibv_mr *mr, int *ret) IBV_HIDDEN;
bool verbs_child_destroy_srq(struct ibv_srq *srq, int *ret) IBV_HIDDEN;
bool verbs_child_destroy_ah(struct ibv_ah *ah, int *ret) IBV_HIDDEN;
bool verbs_child_dealloc_mw(struct ibv_mw *mw, int *ret) IBV_HIDDEN;
bool verbs_child_dealloc_td(struct ibv_td *td, int *ret) IBV_HIDDEN;
bool verbs_child_close_xrcd(struct ibv_xrcd *xrcd, int *ret) IBV_HIDDEN;

/*
 * Parent domains in any process (fork_child.c): note which PD @pdom lies
 * over, so that a fork child that passes it as a PD gets the child's own
 * PD for that PD (without memory for the note, a PD of its own for the
 * parent domain).  ibv_dealloc_pd() finds the note of a
 * PD (NULL if none) before the provider frees it, and drops that note
 * once it did.
 */
void verbs_child_note_parent_domain(struct ibv_pd *pdom,
				    struct ibv_pd *pd) IBV_HIDDEN;
void *verbs_child_parent_domain_note(struct ibv_pd *pd) IBV_HIDDEN;
void verbs_child_drop_note(void *note) IBV_HIDDEN;
void verbs_child_close_device(struct ibv_context *ctx) IBV_HIDDEN;
/*
 * Whether this child shares its descriptor table with a process that
 * uses inherited @ctx's descriptors (clone(CLONE_FILES)): then those
 * numbers are not the child's to close.
 */
bool verbs_child_fd_table_shared(struct ibv_context *ctx) IBV_HIDDEN;

/* ibv_unimport_pd()/_mr() leave a proxy alone: true when @obj is one. */
bool verbs_child_is_proxy_pd(struct ibv_pd *pd) IBV_HIDDEN;
bool verbs_child_is_proxy_mr(struct ibv_mr *mr) IBV_HIDDEN;

/* The real object behind a proxy, NULL when @obj is not a proxy. */
struct ibv_qp *verbs_child_real_qp(struct ibv_qp *qp) IBV_HIDDEN;
struct ibv_cq *verbs_child_real_cq(struct ibv_cq *cq) IBV_HIDDEN;
struct ibv_srq *verbs_child_real_srq(struct ibv_srq *srq) IBV_HIDDEN;

/*
 * Verbs on a child's own object that change it: true when @obj is a
 * proxy, then *ret is the verb's result, with the proxy's copies of the
 * real object's fields brought up to date.  ibv_rereg_mr()'s new PD may
 * be inherited or the child's (the child's own PD for it is used); *ret
 * is then what ibv_rereg_mr() returns, with errno set as it sets it.
 */
bool verbs_child_resize_cq(struct ibv_cq *cq, int cqe, int *ret) IBV_HIDDEN;
bool verbs_child_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			  void *addr, size_t length, int access,
			  int *ret) IBV_HIDDEN;

/* Completion events of a proxy channel: true when @ch is one. */
bool verbs_child_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq,
			      void **cq_context, int *ret) IBV_HIDDEN;

/*
 * Asynchronous events of inherited @ctx: those of the child's own context
 * for it, naming the proxies; 0 or -1 with errno.
 */
int verbs_child_get_async_event(struct ibv_context *ctx,
				struct ibv_async_event *event) IBV_HIDDEN;

/*
 * The data path's cold branch (provider_context.c): the wrapper found the
 * object's context inherited.  A proxy's call goes to its real object;
 * anything else is refused as before, with EPERM.
 */
int verbs_child_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc) IBV_HIDDEN;
int verbs_child_req_notify_cq(struct ibv_cq *cq, int solicited_only) IBV_HIDDEN;
int verbs_child_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr) IBV_HIDDEN;
int verbs_child_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr) IBV_HIDDEN;
int verbs_child_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr) IBV_HIDDEN;
/* ibv_bind_mw() of a type 1 window, on a proxy QP or with a proxy MW. */
int verbs_child_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			struct ibv_mw_bind *mw_bind) IBV_HIDDEN;

#endif /* IBV_FORK_CHILD_H */
