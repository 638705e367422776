// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * plugin_rxe_served: which provider serves rxe0 in this process?
 *
 * With RDMAV_RXE_PROVIDER=plugin the project's library must hand rxe
 * devices to Debian's librxe-rdmav34.so plug-in instead of its built-in
 * provider; on Debian's libibverbs the plug-in always serves them.  This
 * test proves which one ran, by facts of the process, not by the
 * environment that asked for it:
 *
 *  - whether librxe-rdmav34.so is mapped (dl_iterate_phdr());
 *  - whether code of librxe-rdmav34.so called the provider ABI: the test
 *    exports its own ibv_cmd_alloc_pd@IBVERBS_PRIVATE_34 (rxe_served.map),
 *    which comes first in the lookup scope, so a plug-in's call to it
 *    binds here; it records its caller (dladdr() of the return address)
 *    and forwards to the library's (dlvsym(RTLD_NEXT)).  librxe's
 *    alloc_pd calls ibv_cmd_alloc_pd (rdma-core 44 providers/rxe), so
 *    ibv_alloc_pd() on rxe0 shows whether the plug-in's code ran.
 *
 * Where the library's own wrappers sit between the application and the
 * plug-in (the data path of ibv_context_ops, Documentation/
 * provider-abi.md) the entry points live in libibverbs, so where
 * ctx->ops.poll_cq and friends live is printed, not checked.
 *
 * Plug-in mode (Debian's library, or RDMAV_RXE_PROVIDER=plugin): librxe
 * is mapped and ibv_alloc_pd() reached ibv_cmd_alloc_pd from librxe.
 * Built-in mode (the project's library by default): librxe is not mapped
 * and no plug-in code ran.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"

#define RXE_PLUGIN "librxe" IBV_TEST_PROVIDER_SUFFIX

/* What the interposer saw. */
static int alloc_pd_calls;
static int alloc_pd_from_rxe;
static char alloc_pd_caller[256] = "nobody";

typedef int (*alloc_pd_fn)(struct ibv_context *, struct ibv_pd *, void *,
			   size_t, void *, size_t);

/*
 * rdma-core 44's ibv_cmd_alloc_pd (driver.h): context, pd, the command
 * and its size, the response and its size; returns 0 or an errno.  The
 * command and response are passed through untouched, so their types do
 * not matter here.
 */
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd, void *cmd,
		     size_t cmd_size, void *resp, size_t resp_size)
	__attribute__((visibility("default")));

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : (path ? path : "?");
}

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd, void *cmd,
		     size_t cmd_size, void *resp, size_t resp_size)
{
	static alloc_pd_fn real;
	Dl_info info;

	if (dladdr(__builtin_return_address(0), &info) && info.dli_fname) {
		snprintf(alloc_pd_caller, sizeof(alloc_pd_caller), "%s",
			 base_name(info.dli_fname));
		if (!strcmp(alloc_pd_caller, RXE_PLUGIN))
			alloc_pd_from_rxe++;
	}
	alloc_pd_calls++;
	if (!real)
		real = (alloc_pd_fn)dlvsym(RTLD_NEXT, "ibv_cmd_alloc_pd",
					   "IBVERBS_PRIVATE_34");
	if (!real)
		return 38; /* ENOSYS: the library lacks the provider ABI */
	return real(context, pd, cmd, cmd_size, resp, resp_size);
}

static int find_rxe(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (!strcmp(base_name(info->dlpi_name), RXE_PLUGIN))
		*(int *)data = 1;
	return 0;
}

static bool rxe_plugin_mapped(void)
{
	int found = 0;

	dl_iterate_phdr(find_rxe, &found);
	return found;
}

static void where(const char *what, const void *fn)
{
	Dl_info info;

	if (fn && dladdr(fn, &info) && info.dli_fname)
		gc_diag("%s is %s in %s", what,
			info.dli_sname ? info.dli_sname : "?",
			base_name(info.dli_fname));
	else
		gc_diag("%s is %s", what, fn ? "outside any object" : "NULL");
}

int main(void)
{
	const char *env = getenv("RDMAV_RXE_PROVIDER");
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *cq_ex;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct gc_dev dev;
	bool plugin;

	gc_start("plugin_rxe_served");
	plugin = gc_system_lib() || (env && !strcmp(env, "plugin"));
	gc_diag("expecting rxe from %s (RDMAV_RXE_PROVIDER=%s, %s library)",
		plugin ? "Debian's " RXE_PLUGIN : "the built-in provider",
		env ? env : "(unset)",
		gc_system_lib() ? "the system's" : "the project's");

	if (!gc_ok(gc_dev_open(&dev, 0) == 0, "rxe0 opens"))
		return gc_finish();
	ctx = dev.ctx;

	/* gc_dev_open() allocated one PD already; count this one alone. */
	alloc_pd_calls = alloc_pd_from_rxe = 0;
	pd = ibv_alloc_pd(ctx);
	gc_ok(pd != NULL, "ibv_alloc_pd on rxe0");
	gc_diag("ibv_cmd_alloc_pd called %d times, last by %s", alloc_pd_calls,
		alloc_pd_caller);

	where("ctx->ops.poll_cq", (void *)ctx->ops.poll_cq);
	where("ctx->ops.post_send", (void *)ctx->ops.post_send);
	where("ctx->ops.post_recv", (void *)ctx->ops.post_recv);
	cq_ex = ibv_create_cq_ex(ctx, &cq_attr);
	if (cq_ex) {
		where("cq_ex->start_poll", (void *)cq_ex->start_poll);
		where("cq_ex->read_opcode", (void *)cq_ex->read_opcode);
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq_ex));
	}

	if (plugin) {
		gc_ok(rxe_plugin_mapped(), "Debian's %s is mapped", RXE_PLUGIN);
		gc_ok(pd && alloc_pd_from_rxe == 1,
		      "ibv_alloc_pd ran %s's code: it called ibv_cmd_alloc_pd@IBVERBS_PRIVATE_34 (%d calls from it, last caller %s)",
		      RXE_PLUGIN, alloc_pd_from_rxe, alloc_pd_caller);
	} else {
		gc_ok(!rxe_plugin_mapped(),
		      "the built-in provider serves rxe0: %s is not mapped",
		      RXE_PLUGIN);
		gc_ok(alloc_pd_from_rxe == 0,
		      "no plug-in code called ibv_cmd_alloc_pd");
	}

	if (pd)
		ibv_dealloc_pd(pd);
	gc_dev_close(&dev);
	return gc_finish();
}
