// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fork child's own thread domains, parent domains and XRC domains, made
 * through the context and the PD it inherited.
 *
 *   fork_child_domains PLUGIN_SO   with IBV_CONFIG_DIR naming the test
 *                                  plug-in and RDMAV_RXE_PROVIDER=plugin
 *
 * Soft-RoCE's providers have neither kind of domain, so rxe0 is served by
 * the test plug-in (tests/guest/plugin/testprov.c), whose TDs and parent
 * domains live in user space, as a hardware provider's may, over PDs of
 * the kernel's.  It records what its alloc_td and alloc_parent_domain
 * were given, which tells the test which context, PD and TD a request
 * reached.
 *
 * The parent allocates a PD, a TD and a parent domain over both.  A child
 * of each kind (fork(), _Fork(), raw clone()) then
 * - allocates a TD on the inherited context: the plug-in made it on a
 *   context of the child's own, and the application's TD names the
 *   inherited context;
 * - allocates a parent domain over the inherited PD and that TD: the
 *   plug-in got the child's own context, the child's PD for the
 *   inherited one, the real TD and the application's pd_context; one
 *   over a PD of its own works the same way;
 * - makes an extended CQ on its parent domain: the plug-in got the real
 *   parent domain on the child's context;
 * - gets EBUSY for its TD and for the inherited PD while its parent
 *   domain is over them, as the plug-in says;
 * - (the fork() child) forks a grandchild, which gets EPERM for a
 *   parent domain over the child's TD and for a CQ on the child's parent
 *   domain, takes the child's parent domain as a PD for the PD under it,
 *   frees only its copies of them, and gets a TD of its own on a context
 *   of its own;
 * - takes the parent's parent domain as a PD for the PD under it;
 * - on rxe0 opened afresh, gets EINVAL for a parent domain over its TD
 *   or the parent's (both of the inherited context), the plug-in never
 *   asked;
 * - gets EPERM for a parent domain over the parent's TD, and for a CQ
 *   on the parent's parent domain, and EINVAL for a TD of another
 *   device's context;
 * - opens an XRC domain on the inherited context, and an XRC target QP
 *   with no domain: the plug-in was asked on the child's own context,
 *   and the child got what the parent got (Soft-RoCE has no XRC: the
 *   kernel refuses the domain, the command layer the domainless QP);
 *   ibv_open_qp() in the parent's XRC domain gets EPERM, in one of rxe1
 *   EINVAL, and on rxe0 opened afresh one of the inherited context gets
 *   EINVAL, the plug-in never asked;
 * - frees what it made, down to the plug-in's counts it started with;
 * and the kernel's object counts show nothing left by the child, and
 * the parent frees its domains at the end.
 *
 * Upstream libibverbs reads no IBV_CONFIG_DIR: there Debian's librxe
 * serves rxe0 and has no domains, so the guard checks fail.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "fork_proc.h"

/* The test plug-in's records (testprov.c), or stand-ins without it. */
static struct {
	int *tds_live;
	int *pdoms_live;
	struct ibv_context **td_ctx;
	struct ibv_context **pdom_ctx;
	struct ibv_pd **pdom_pd;
	struct ibv_td **pdom_td;
	void **pdom_pd_context;
	struct ibv_pd **pdom_made;
	struct ibv_context **cq_ctx;
	struct ibv_pd **cq_pdom;
	struct ibv_context **xrcd_ctx;
	struct ibv_context **open_qp_ctx;
} tp;

static struct {
	struct gc_dev a, b; /* rxe0, rxe1 */
	struct ibv_td *td;
	struct ibv_pd *pd2; /* rxe0's second PD, under the parent domain */
	struct ibv_pd *pdom;
	int xrcd_err, open_qp_err; /* what XRC the parent got */
} parent;

/* Stand-ins for an XRC domain of the parent's on rxe0 and one of rxe1. */
static struct fp_xrcd xrcd_a, xrcd_b;

static void *tp_sym(void *h, const char *name)
{
	static union {
		void *p;
		int i;
	} zero;
	void *p = h ? dlsym(h, name) : NULL;

	return p ? p : &zero;
}

static void tp_find(const char *so)
{
	void *h = dlopen(so, RTLD_NOW | RTLD_NOLOAD);

	gc_guard(h, "the test plug-in is loaded (%s)", so);
	tp.tds_live = tp_sym(h, "testprov_tds_live");
	tp.pdoms_live = tp_sym(h, "testprov_pdoms_live");
	tp.td_ctx = tp_sym(h, "testprov_td_ctx");
	tp.pdom_ctx = tp_sym(h, "testprov_pdom_ctx");
	tp.pdom_pd = tp_sym(h, "testprov_pdom_pd");
	tp.pdom_td = tp_sym(h, "testprov_pdom_td");
	tp.pdom_pd_context = tp_sym(h, "testprov_pdom_pd_context");
	tp.pdom_made = tp_sym(h, "testprov_pdom_made");
	tp.cq_ctx = tp_sym(h, "testprov_cq_ctx");
	tp.cq_pdom = tp_sym(h, "testprov_cq_pdom");
	tp.xrcd_ctx = tp_sym(h, "testprov_xrcd_ctx");
	tp.open_qp_ctx = tp_sym(h, "testprov_open_qp_ctx");
}

static struct ibv_td *td_alloc(struct ibv_context *ctx)
{
	struct ibv_td_init_attr attr = { 0 };

	return ibv_alloc_td(ctx, &attr);
}

static struct ibv_pd *pdom_alloc(struct ibv_context *ctx, struct ibv_pd *pd,
				 struct ibv_td *td, void *pd_context)
{
	struct ibv_parent_domain_init_attr attr = {
		.pd = pd,
		.td = td,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.pd_context = pd_context,
	};

	return ibv_alloc_parent_domain(ctx, &attr);
}

/* ibv_alloc_parent_domain() that must fail: its errno, or 0. */
static int pdom_refused(struct ibv_context *ctx, struct ibv_pd *pd,
			struct ibv_td *td)
{
	struct ibv_pd *pdom;

	errno = 0;
	pdom = pdom_alloc(ctx, pd, td, NULL);
	if (!pdom)
		return errno;
	ibv_dealloc_pd(pdom);
	return 0;
}

/* ibv_create_cq_ex() on parent domain @pdom: 0 or the errno. */
static int cq_on(struct ibv_context *ctx, struct ibv_pd *pdom)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		.parent_domain = pdom,
	};
	struct ibv_cq_ex *cq;

	errno = 0;
	cq = ibv_create_cq_ex(ctx, &attr);
	if (!cq)
		return errno;
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	return 0;
}

static const char *err_str(int err)
{
	return err ? strerror(err) : "ok";
}

/* ibv_open_xrcd() of a private XRC domain: NULL with errno, or one. */
static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx)
{
	struct ibv_xrcd_init_attr attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};

	errno = 0;
	return ibv_open_xrcd(ctx, &attr);
}

/*
 * ibv_open_qp() of an XRC target QP number that no QP has, in @xrcd:
 * the errno, or 0 (-1: opened, but not destroyed).
 */
static int open_qp_err(struct ibv_context *ctx, struct ibv_xrcd *xrcd)
{
	struct ibv_qp_open_attr attr = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = 0xfffff0,
		.xrcd = xrcd,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_open_qp(ctx, &attr);
	if (!qp)
		return errno;
	return ibv_destroy_qp(qp) ? -1 : 0;
}

/* A TD of the child's: the plug-in's, on a context of the child's own. */
static struct ibv_td *child_td(const char *who)
{
	struct ibv_context *ctx = parent.a.ctx;
	struct ibv_td *td;

	*tp.td_ctx = NULL;
	errno = 0;
	td = td_alloc(ctx);
	fp_guard(td && td->context == ctx,
		 "%s: ibv_alloc_td on the inherited context (%s), its context "
		 "the inherited one",
		 who, td ? "ok" : strerror(errno));
	fp_guard(*tp.td_ctx && *tp.td_ctx != ctx &&
			 (*tp.td_ctx)->cmd_fd != ctx->cmd_fd,
		 "%s: the plug-in made it on a context of the child's own",
		 who);
	return td;
}

/* A parent domain over the inherited PD and the child's @td. */
static struct ibv_pd *child_pdom(struct ibv_td *td, const char *who)
{
	struct ibv_context *ctx = parent.a.ctx, *fresh = *tp.td_ctx;
	static int marker;
	struct ibv_pd *pdom;
	int err;

	*tp.pdom_pd = NULL;
	errno = 0;
	pdom = pdom_alloc(ctx, parent.a.pd, td, &marker);
	fp_guard(pdom && pdom->context == ctx,
		 "%s: ibv_alloc_parent_domain over the inherited PD and its "
		 "TD (%s), its context the inherited one",
		 who, pdom ? "ok" : strerror(errno));
	if (!pdom)
		return NULL;
	fp_guard(*tp.pdom_ctx == fresh && *tp.pdom_pd &&
			 *tp.pdom_pd != parent.a.pd &&
			 (*tp.pdom_pd)->context == fresh,
		 "%s: the plug-in got the child's context and its PD for the "
		 "inherited one",
		 who);
	fp_guard(*tp.pdom_td && *tp.pdom_td != td &&
			 (*tp.pdom_td)->context == fresh &&
			 *tp.pdom_pd_context == &marker,
		 "%s: ... the real TD, and pd_context as given", who);
	*tp.cq_pdom = NULL;
	err = cq_on(ctx, pdom);
	fp_guard(!err && *tp.cq_ctx == fresh && *tp.cq_pdom &&
			 *tp.cq_pdom == *tp.pdom_made,
		 "%s: ibv_create_cq_ex on it (%s): the plug-in got the real "
		 "parent domain on the child's context",
		 who, err_str(err));
	return pdom;
}

/*
 * An inherited parent domain @pdom, passed as a PD, stands for the PD it
 * lies over, @under: a parent domain over either gets the same PD of
 * this process's, on its own context.
 */
static void over_pdom_same(struct ibv_pd *pdom, struct ibv_pd *under,
			   const char *what, const char *who)
{
	struct ibv_pd *over_pdom = NULL, *over_under = NULL;
	struct ibv_pd *got_pdom = NULL, *got_under = NULL;

	if (pdom) {
		*tp.pdom_pd = NULL;
		over_pdom = pdom_alloc(parent.a.ctx, pdom, NULL, NULL);
		got_pdom = *tp.pdom_pd;
		*tp.pdom_pd = NULL;
		over_under = pdom_alloc(parent.a.ctx, under, NULL, NULL);
		got_under = *tp.pdom_pd;
	}
	fp_guard(over_pdom && over_under && got_pdom && got_pdom == got_under &&
			 got_pdom->context != parent.a.ctx,
		 "%s: parent domains over %s and over the PD under it get one "
		 "PD of its own (%s)",
		 who, what, over_pdom && over_under ? "ok" : strerror(errno));
	fp_guard((!over_pdom || !ibv_dealloc_pd(over_pdom)) &&
			 (!over_under || !ibv_dealloc_pd(over_under)),
		 "%s: ... both freed", who);
}

/* One over a PD of the child's own, without a TD. */
static void own_pd_pdom(const char *who)
{
	struct ibv_pd *pd = ibv_alloc_pd(parent.a.ctx), *pdom = NULL;

	if (pd) {
		*tp.pdom_pd = NULL;
		pdom = pdom_alloc(parent.a.ctx, pd, NULL, NULL);
	}
	fp_guard(pdom && *tp.pdom_pd && *tp.pdom_pd != pd &&
			 (*tp.pdom_pd)->handle == pd->handle && !*tp.pdom_td,
		 "%s: a parent domain over a PD of its own: the plug-in got "
		 "that PD's real one (%s)",
		 who, pdom ? "ok" : strerror(errno));
	fp_guard((!pdom || !ibv_dealloc_pd(pdom)) &&
			 (!pd || !ibv_dealloc_pd(pd)),
		 "%s: ... both freed", who);
}

static void refusals(const char *who)
{
	struct ibv_td *other;
	int err;

	err = parent.td ? pdom_refused(parent.a.ctx, parent.a.pd, parent.td) :
			  -1;
	fp_guard(err == EPERM,
		 "%s: a parent domain over the parent's TD -> EPERM (%s)", who,
		 err < 0 ? "not tried" : err_str(err));
	other = td_alloc(parent.b.ctx);
	*tp.pdom_ctx = NULL;
	err = other ? pdom_refused(parent.a.ctx, parent.a.pd, other) : -1;
	fp_guard(err == EINVAL && !*tp.pdom_ctx,
		 "%s: ... over its TD of rxe1's context -> EINVAL (%s), the "
		 "plug-in not asked",
		 who, err < 0 ? "not tried" : err_str(err));
	if (other)
		ibv_dealloc_td(other);
	err = parent.pdom ? cq_on(parent.a.ctx, parent.pdom) : -1;
	fp_guard(err == EPERM,
		 "%s: ibv_create_cq_ex on the parent's parent domain -> "
		 "EPERM (%s)",
		 who, err < 0 ? "not tried" : err_str(err));
}

/*
 * An XRC domain, and an XRC target QP opened in it (or with none), on
 * the inherited context: the plug-in is asked on the child's own
 * context, and the child gets what the parent got (on Soft-RoCE both
 * are refused, never with the guard's EPERM).  The parent's domain, and
 * one of rxe1, are refused before the plug-in is asked.
 */
static void xrc(struct ibv_context *fresh, const char *who)
{
	struct ibv_context *ctx = parent.a.ctx;
	struct ibv_xrcd *xrcd;
	int err;

	*tp.open_qp_ctx = NULL;
	err = open_qp_err(ctx, &xrcd_a.xrcd);
	fp_guard(err == EPERM && !*tp.open_qp_ctx,
		 "%s: ibv_open_qp in the parent's XRC domain -> EPERM (%s), "
		 "the plug-in not asked",
		 who, err_str(err));
	err = open_qp_err(ctx, &xrcd_b.xrcd);
	fp_guard(err == EINVAL && !*tp.open_qp_ctx,
		 "%s: ... in one of rxe1 -> EINVAL (%s), the plug-in not "
		 "asked",
		 who, err_str(err));

	*tp.xrcd_ctx = NULL;
	xrcd = xrcd_open(ctx);
	err = xrcd ? 0 : errno;
	fp_ok(err == parent.xrcd_err && (!xrcd || xrcd->context == ctx),
	      "%s: ibv_open_xrcd on the inherited context -> %s, as the "
	      "parent got",
	      who, err_str(err));
	fp_guard(*tp.xrcd_ctx && *tp.xrcd_ctx == fresh,
		 "%s: ... the plug-in asked on the child's own context", who);
	*tp.open_qp_ctx = NULL;
	err = open_qp_err(ctx, xrcd);
	fp_ok(xrcd ? err > 0 && err != EPERM : err == parent.open_qp_err,
	      "%s: ibv_open_qp %s -> %s, as the parent got", who,
	      xrcd ? "of no QP in it" : "with no domain", err_str(err));
	fp_guard(*tp.open_qp_ctx && *tp.open_qp_ctx == fresh,
		 "%s: ... the plug-in asked on the child's own context", who);
	if (xrcd)
		fp_ok(!ibv_close_xrcd(xrcd), "%s: its XRC domain closed", who);
}

/*
 * Under its parent domain the TD and the PD stay, as the provider says
 * (EBUSY): the inherited PD's dealloc frees the child's PD for it.
 */
static void busy(struct ibv_td *td, const char *who)
{
	int err = ibv_dealloc_td(td);

	fp_guard(err == EBUSY,
		 "%s: ibv_dealloc_td of its TD under its parent domain -> "
		 "EBUSY (%s)",
		 who, err_str(err));
	err = ibv_dealloc_pd(parent.a.pd);
	fp_guard(err == EBUSY,
		 "%s: ibv_dealloc_pd of the inherited PD under its parent "
		 "domain -> EBUSY (%s)",
		 who, err_str(err));
}

/*
 * On rxe0 opened by the child itself, its TD and the parent's (both of
 * the inherited context) are another context's: refused before the
 * provider is asked.
 */
static void on_own_context(struct ibv_td *td, const char *who)
{
	struct gc_dev own;
	int err;

	if (!fp_guard(td, "%s: a TD to name on rxe0 opened afresh", who) ||
	    !fp_ok(!gc_dev_open(&own, 0), "%s: rxe0 opened afresh, with a PD",
		   who))
		return;
	*tp.pdom_ctx = NULL;
	err = pdom_refused(own.ctx, own.pd, td);
	fp_guard(err == EINVAL && !*tp.pdom_ctx,
		 "%s: a parent domain there over its TD -> EINVAL (%s), the "
		 "plug-in not asked",
		 who, err_str(err));
	err = pdom_refused(own.ctx, own.pd, parent.td);
	fp_guard(err == EINVAL && !*tp.pdom_ctx,
		 "%s: ... over the parent's TD -> EINVAL (%s), the plug-in "
		 "not asked",
		 who, err_str(err));
	*tp.open_qp_ctx = NULL;
	err = open_qp_err(own.ctx, &xrcd_a.xrcd);
	fp_guard(err == EINVAL && !*tp.open_qp_ctx,
		 "%s: ibv_open_qp there in an XRC domain of the inherited "
		 "context -> EINVAL (%s), the plug-in not asked",
		 who, err_str(err));
	gc_dev_close(&own);
}

/*
 * A grandchild: the child's TD and parent domain are inherited there, on
 * the child's context, so refused; their deallocs free only its copies;
 * a TD it asks for is its own, on a context of its own.
 */
/* What a grandchild inherits from the child, by name. */
struct from_child {
	struct ibv_td *td;
	struct ibv_pd *pdom;
	struct ibv_context *fresh; /* the child's own context */
};

static void grandchild_main(void *arg)
{
	const struct from_child *fc = arg;
	struct ibv_td *ctd = fc->td;
	struct ibv_pd *cpdom = fc->pdom;
	struct ibv_context *cfresh = fc->fresh;
	const char *who = "grandchild";
	int tds = *tp.tds_live, err;
	struct ibv_td *td;

	err = pdom_refused(parent.a.ctx, parent.a.pd, ctd);
	fp_guard(err == EPERM,
		 "%s: a parent domain over the child's TD -> EPERM (%s)", who,
		 err_str(err));
	err = cq_on(parent.a.ctx, cpdom);
	fp_guard(err == EPERM,
		 "%s: ibv_create_cq_ex on the child's parent domain -> EPERM "
		 "(%s)",
		 who, err_str(err));
	over_pdom_same(cpdom, parent.a.pd, "the child's parent domain", who);
	fp_guard(!ibv_dealloc_pd(cpdom) && !ibv_dealloc_td(ctd) &&
			 *tp.tds_live == tds - 1,
		 "%s: the child's parent domain and TD freed: its copies "
		 "only",
		 who);
	td = td_alloc(parent.a.ctx);
	fp_guard(td && *tp.td_ctx != cfresh && *tp.td_ctx != parent.a.ctx,
		 "%s: a TD of its own, on a context of its own (%s)", who,
		 td ? "ok" : strerror(errno));
	if (td)
		ibv_dealloc_td(td);
}

static void grandchild(struct ibv_td *td, struct ibv_pd *pdom, const char *who)
{
	struct from_child fc = { td, pdom, *tp.td_ctx };
	int status = fp_run_grandchild(grandchild_main, &fc);

	fp_ok(status == 0, "%s: its grandchild exited normally (%d)", who,
	      status);
}

struct child_arg {
	enum fp_kind kind;
	char who[64];
};

static void child(void *arg)
{
	const struct child_arg *c = arg;
	const char *who = c->who;
	int tds = *tp.tds_live, pdoms = *tp.pdoms_live;
	struct ibv_context *fresh; /* the child's own, where its TD went */
	struct ibv_pd *pdom = NULL;
	struct ibv_td *td;

	td = child_td(who);
	fresh = *tp.td_ctx;
	if (td)
		pdom = child_pdom(td, who);
	if (pdom) {
		busy(td, who);
		if (c->kind == FP_FORK)
			grandchild(td, pdom, who);
	}
	on_own_context(td, who);
	over_pdom_same(parent.pdom, parent.pd2, "the parent's parent domain",
		       who);
	own_pd_pdom(who);
	xrc(fresh, who);
	refusals(who);
	fp_guard((!pdom || !ibv_dealloc_pd(pdom)) &&
			 (!td || !ibv_dealloc_td(td)) && *tp.tds_live == tds &&
			 *tp.pdoms_live == pdoms,
		 "%s: frees its parent domain and TD, and the plug-in holds "
		 "what it held at fork (%d TDs, %d parent domains)",
		 who, tds, pdoms);
}

static bool parent_start(const char *so)
{
	struct ibv_xrcd *xrcd;
	int err = -1;
	bool ok;

	ok = !gc_dev_open(&parent.a, 0) && !gc_dev_open(&parent.b, 1);
	if (!gc_ok(ok, "parent: rxe0 and rxe1 open, a PD on each"))
		return false;
	tp_find(so);
	parent.td = td_alloc(parent.a.ctx);
	parent.pd2 = ibv_alloc_pd(parent.a.ctx);
	if (parent.td && parent.pd2)
		parent.pdom =
			pdom_alloc(parent.a.ctx, parent.pd2, parent.td, NULL);
	gc_guard(parent.td && parent.pdom,
		 "parent: a TD, and a parent domain over it and a second PD "
		 "on rxe0 (%s)",
		 parent.pdom ? "ok" : strerror(errno));
	if (parent.pdom)
		err = cq_on(parent.a.ctx, parent.pdom);
	gc_guard(!err, "parent: an extended CQ on its parent domain (%s)",
		 err < 0 ? "not tried" : err_str(err));
	fp_xrcd_stand_in(&xrcd_a, parent.a.ctx);
	fp_xrcd_stand_in(&xrcd_b, parent.b.ctx);
	xrcd = xrcd_open(parent.a.ctx);
	parent.xrcd_err = xrcd ? 0 : errno;
	parent.open_qp_err = open_qp_err(parent.a.ctx, xrcd);
	gc_diag("parent: ibv_open_xrcd %s, ibv_open_qp %s",
		err_str(parent.xrcd_err), err_str(parent.open_qp_err));
	if (xrcd)
		ibv_close_xrcd(xrcd);
	return true;
}

int main(int argc, char **argv)
{
	static const enum fp_kind kinds[] = { FP_FORK, FP_UFORK, FP_CLONE };
	struct fp_counts before, after;
	struct child_arg c;

	if (!fu_start("fork_child_domains") ||
	    !gc_ok(argc == 2, "usage: fork_child_domains PLUGIN_SO") ||
	    !parent_start(argv[1]))
		return gc_finish();
	gc_ok(fp_counts_read(&before), "parent: the kernel's object counts");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		c.kind = kinds[i];
		snprintf(c.who, sizeof(c.who), "child of %s",
			 fp_kind_name(c.kind));
		gc_ok(fp_run(c.kind, child, &c, c.who) == 0, "%s: exit 0",
		      c.who);
		gc_ok(fp_counts_read(&after) &&
			      !strcmp(before.text, after.text),
		      "parent after %s: kernel object counts unchanged by "
		      "the child",
		      c.who);
	}
	gc_guard(parent.pdom && !ibv_dealloc_pd(parent.pdom) &&
			 !ibv_dealloc_td(parent.td) &&
			 !ibv_dealloc_pd(parent.pd2),
		 "parent: frees its parent domain, TD and second PD");
	gc_dev_close(&parent.b);
	gc_dev_close(&parent.a);
	return gc_finish();
}
