// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which provider serves rxe, and a context on a provider plug-in.
 *
 *   plugin_basic plugin  PLUGIN_SO   with RDMAV_RXE_PROVIDER=plugin
 *   plugin_basic builtin PLUGIN_SO   without it
 *
 * Both run with IBV_CONFIG_DIR naming the test's configuration, whose
 * files name the test plug-in (testprov.c, PLUGIN_SO), a library that
 * does not exist, a comment and a directive the loader ignores.
 *
 * plugin: rxe0 and rxe1 are listed as the plug-in's devices; a context on
 * rxe0 is the plug-in's (its alloc_context ran; query_device_ex and
 * query_port reached the kernel through ibv_cmd_query_device_any() and
 * ibv_cmd_query_port()); the data path goes through the library's
 * wrapper, which refuses a fork child; close_device frees the context and
 * closes both descriptors.  builtin: rxe is the built-in provider's and
 * no plug-in was even loaded.  Neither prints anything from the library.
 *
 * Upstream has no IBV_CONFIG_DIR variable and no built-in provider, so
 * against Debian's library the checks of which provider served are
 * guards; listing, opening, querying and closing pass on both.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_common.h"

void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* opendir's own */
}

static const char *lib_of(const void *fn)
{
	Dl_info info;

	if (!dladdr(fn, &info) || !info.dli_fname)
		return "";
	return info.dli_fname;
}

/* The library's stderr output while listing devices, if any. */
static struct ibv_device **list_quietly(int *num, long *printed)
{
	struct ibv_device **list;
	FILE *tmp = tmpfile();
	int saved = dup(2);

	fflush(stderr);
	if (tmp)
		dup2(fileno(tmp), 2);
	list = ibv_get_device_list(num);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	*printed = -1;
	if (tmp) {
		fseek(tmp, 0, SEEK_END);
		*printed = ftell(tmp);
		fclose(tmp);
	}
	return list;
}

static struct ibv_device *find(struct ibv_device **list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

static void *plugin_handle(const char *so)
{
	return dlopen(so, RTLD_NOW | RTLD_NOLOAD);
}

static int *plugin_counter(void *h, const char *name)
{
	static int zero;
	int *p = h ? dlsym(h, name) : NULL;

	return p ? p : &zero;
}

/*
 * rdma-core 44 fills the slots older binaries call directly (its
 * device.c): query_device and query_port through the _compat_ slots, the
 * flow verbs of libibverbs 1.1.8 through the two placeholders.
 */
static void check_compat_slots(struct ibv_context *ctx)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);
	struct ibv_device_attr attr;
	struct ibv_port_attr pa;
	int ret;

	if (!gc_ok(ctx->ops._compat_query_device &&
			   ctx->ops._compat_query_port,
		   "the _compat_query_device and _compat_query_port slots "
		   "are set"))
		return;
	memset(&attr, 0, sizeof(attr));
	ret = ctx->ops._compat_query_device(ctx, &attr);
	gc_ok(!ret && attr.phys_port_cnt == 1,
	      "query_device through its _compat_ slot: %d, %d port", ret,
	      attr.phys_port_cnt);
	memset(&pa, 0, sizeof(pa));
	ret = ctx->ops._compat_query_port(
		ctx, 1, (struct _compat_ibv_port_attr *)(void *)&pa);
	gc_ok(!ret && pa.state == IBV_PORT_ACTIVE,
	      "query_port through its _compat_ slot: %d, state %d", ret,
	      pa.state);
	gc_ok(vctx &&
		      vctx->ABI_placeholder1 ==
			      (void (*)(void))vctx->ibv_create_flow &&
		      vctx->ABI_placeholder2 ==
			      (void (*)(void))vctx->ibv_destroy_flow,
	      "the placeholders of libibverbs 1.1.8 hold the flow verbs");
}

/* In a child: the parent's context refused, control and data path. */
static void check_child(struct ibv_context *ctx, struct ibv_cq *cq, void *h)
{
	struct ibv_port_attr pa;
	struct ibv_wc wc;
	int polls, ret, status = -1;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		int bad = 0;

		polls = *plugin_counter(h, "testprov_poll_calls");
		if (ibv_query_port(ctx, 1, &pa) != EPERM)
			bad |= 1;
		errno = 0;
		ret = ibv_poll_cq(cq, 1, &wc);
		if (ret >= 0 || errno != EPERM)
			bad |= 2;
		if (*plugin_counter(h, "testprov_poll_calls") != polls)
			bad |= 4;
		_exit(bad);
	}
	if (gc_wait_child(pid, &status, GC_CHILD_TIMEOUT_MS,
			  "child using the parent's context") != pid)
		status = -1;
	gc_guard(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "a child is refused the parent's context before the "
		 "plug-in runs (status 0x%x)", status);
}

static void check_context(struct ibv_device *dev, void *h)
{
	struct ibv_device_attr attr;
	struct ibv_port_attr pa;
	struct ibv_context *ctx;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	int ret, fds = count_fds();

	ctx = ibv_open_device(dev);
	if (!gc_ok(ctx != NULL, "open %s: %s", ibv_get_device_name(dev),
		   ctx ? "ok" : strerror(errno)))
		return;
	gc_guard(*plugin_counter(h, "testprov_contexts_live") == 1,
		 "the plug-in's alloc_context made the context");
	gc_ok(ctx->device == dev, "the context's device is the listed one");
	gc_ok(ctx->async_fd >= 0 && ctx->num_comp_vectors >= 1,
	      "get_context: async_fd %d, %d completion vectors",
	      ctx->async_fd, ctx->num_comp_vectors);
	/* Each call before its check: argument order is unspecified. */
	ret = ibv_query_device(ctx, &attr);
	gc_ok(!ret && attr.phys_port_cnt == 1 && attr.max_qp > 0,
	      "query_device: %d port, max_qp %d", attr.phys_port_cnt,
	      attr.max_qp);
	gc_guard(!strcmp(attr.fw_ver, "testprov"),
		 "query_device_ex was the plug-in's (fw_ver '%s')",
		 attr.fw_ver);
	ret = ibv_query_port(ctx, 1, &pa);
	gc_ok(!ret && pa.state == IBV_PORT_ACTIVE &&
		      pa.link_layer == IBV_LINK_LAYER_ETHERNET,
	      "query_port 1: state %d link layer %d", pa.state,
	      pa.link_layer);
	ret = ibv_query_port(ctx, 9, &pa);
	gc_ok(ret == EINVAL,
	      "query_port of a port that does not exist: %s", strerror(ret));
	gc_guard(strstr(lib_of((void *)ctx->ops.poll_cq), "libibverbs.so"),
		 "poll_cq is the library's wrapper (%s)",
		 lib_of((void *)ctx->ops.poll_cq));
	check_compat_slots(ctx);

	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (cq) {
		ret = ibv_poll_cq(cq, 1, &wc);
		gc_ok(ret == 0, "poll an empty CQ: %d", ret);
		gc_guard(*plugin_counter(h, "testprov_poll_calls") == 1,
			 "the wrapper called the plug-in's poll_cq");
		check_child(ctx, cq, h);
		gc_ok(!ibv_destroy_cq(cq), "destroy the CQ");
	} else {
		gc_guard(false, "create a CQ on the plug-in: %s",
			 strerror(errno));
	}

	ret = ibv_close_device(ctx);
	gc_ok(!ret, "close_device");
	gc_guard(*plugin_counter(h, "testprov_contexts_live") == 0,
		 "the plug-in's free_context ran");
	ret = count_fds();
	gc_ok(ret == fds, "close_device closed every descriptor "
	      "(%d open, %d before)", ret, fds);
}

/* rdma-core's verbs_init_cq(), as a direct-verbs library calls it. */
static void check_init_cq(struct ibv_context *ctx)
{
	struct ibv_comp_channel ch = { .context = ctx };
	struct ibv_cq cq;

	memset(&cq, 0xff, sizeof(cq));
	verbs_init_cq(&cq, ctx, &ch, &ch);
	gc_ok(cq.context == ctx && cq.channel == &ch && cq.cq_context == &ch &&
		      !cq.comp_events_completed &&
		      !cq.async_events_completed && ch.refcnt == 1,
	      "verbs_init_cq fills the CQ and counts it on its channel");
	pthread_mutex_destroy(&cq.mutex);
	pthread_cond_destroy(&cq.cond);
}

int main(int argc, char **argv)
{
	bool plugin = argc > 2 && !strcmp(argv[1], "plugin");
	struct ibv_device **list, *rxe0, *rxe1;
	struct ibv_context *ctx;
	long printed;
	void *h;
	int num;

	gc_start(plugin ? "plugin_basic plugin" : "plugin_basic builtin");
	if (argc <= 2) {
		gc_ok(false, "usage: plugin_basic plugin|builtin PLUGIN_SO");
		return gc_finish();
	}

	list = list_quietly(&num, &printed);
	rxe0 = find(list, "rxe0");
	rxe1 = find(list, "rxe1");
	gc_ok(rxe0 && rxe1, "rxe0 and rxe1 are listed (%d devices)", num);
	gc_ok(printed == 0, "the library printed nothing (%ld bytes)",
	      printed);
	h = plugin_handle(argv[2]);

	if (plugin) {
		gc_guard(h != NULL, "the configured plug-in was loaded");
		gc_guard(*plugin_counter(h, "testprov_devices_live") >= 2,
			 "the plug-in allocated the rxe devices");
		if (h && rxe0 && rxe1) {
			int (*owns)(struct ibv_device *) =
				(int (*)(struct ibv_device *))dlsym(
					h, "testprov_owns");

			gc_guard(owns && owns(rxe0) && owns(rxe1),
				 "the listed devices are the plug-in's");
		}
		if (rxe0)
			check_context(rxe0, h);
	} else {
		gc_ok(h == NULL, "no plug-in loaded while rxe is built in");
		if (rxe0) {
			ctx = ibv_open_device(rxe0);
			gc_guard(ctx && strstr(lib_of((void *)ctx->ops.poll_cq),
					       "libibverbs.so"),
				 "rxe0 is the built-in provider's (%s)",
				 ctx ? lib_of((void *)ctx->ops.poll_cq) : "");
			if (ctx) {
				check_compat_slots(ctx);
				check_init_cq(ctx);
				ibv_close_device(ctx);
			}
		}
	}
	ibv_free_device_list(list);
	if (h)
		dlclose(h);
	return gc_finish();
}
