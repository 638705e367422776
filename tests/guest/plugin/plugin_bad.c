// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * plugin_bad FIXTURE_DIR: bad provider plug-ins must not cost a user the
 * devices that work.
 *
 * A config directory (IBV_CONFIG_DIR) holds the real "driver rxe" line and
 * next to it:
 *   empty.driver      a plug-in whose constructor registers nothing;
 *   abi33.driver      a plug-in importing verbs_register_driver_33 of
 *                     IBVERBS_PRIVATE_33, the provider ABI before 44:
 *                     dlopen() fails on the missing version;
 *   nodev.driver      a plug-in that claims rxe devices but whose
 *                     alloc_device returns NULL;
 *   missing.driver    "driver ibvtest_missing": no such library in the
 *                     provider directory, and an absolute path to none;
 *   malformed.driver  a line that is not a directive.
 * The fixtures are built by the tests (fixture_*.c, against the project's
 * provider_abi.h) and named by absolute path (upstream's "driver /path/x"
 * form, which loads /path/x-rdmav34.so).
 *
 * The project's library reads the directory named by IBV_CONFIG_DIR.
 * Upstream has no such variable: rdma-core v44.0 reads only the directory
 * compiled in (IBV_CONFIG_DIR is a macro of its config.h, /etc/
 * libibverbs.d on Debian; libibverbs/dynamic_driver.c).  So on the
 * system's library each child binds the test's directory over
 * /etc/libibverbs.d in a mount namespace of its own (the guest runs tests
 * as root) and the same files are read.
 *
 * Each of four child processes (rxe from the built-in provider or, with
 * RDMAV_RXE_PROVIDER=plugin, from Debian's librxe plug-in; VERBS_LOG_LEVEL
 * unset or 2) lists the devices, opens rxe0 and reports which fixtures
 * are loaded.  Checks: the child neither crashes nor hangs; rxe0 and rxe1
 * are listed and rxe0 works; the wrong-ABI plug-in is not in the process;
 * where plug-ins are loaded at all (plug-in mode, or Debian's library) the
 * empty and the NULL-device plug-ins were loaded and skipped.
 *
 * Messages, facts of rdma-core v44.0 (libibverbs/init.c and
 * dynamic_driver.c): VERBS_LOG_LEVEL is a number, 0 none, 1 errors,
 * 2 warnings, 3 info, 4 debug, and a message is printed when its level is
 * at most the one set; output goes to VERBS_LOG_FILE or stderr.  Upstream
 * itself prints a failed dlopen() ("couldn't load driver") and a bad
 * config line ("ignoring bad config directive") as warnings to stderr
 * whatever the level.  So: with VERBS_LOG_LEVEL=2 a message must name each
 * skipped plug-in and the bad line (upstream passes); without it nothing
 * may be printed at all, a guarantee upstream lacks (gc_guard()).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_common.h"

#define CHILD_TIMEOUT_S 120
#define SYSTEM_CONFIG_DIR "/etc/libibverbs.d"
/* Exit status of a child that could not set up the system's config dir. */
#define CHILD_NO_BIND 125
/* Room for a file name under a directory of up to PATH_MAX. */
#define PBUF (2 * PATH_MAX)

static const char *const fixtures[] = { "empty", "abi33", "nodev" };
#define NFIX (sizeof(fixtures) / sizeof(fixtures[0]))
/* The .driver files main() writes, for the clean-up. */
static const char *const conf_files[] = {
	"rxe", "empty", "abi33", "nodev", "missing", "malformed",
};
#define NCONF (sizeof(conf_files) / sizeof(conf_files[0]))

static void fixture_path(char *buf, size_t len, const char *dir,
			 const char *name)
{
	snprintf(buf, len, "%s/libibvtest_%s" IBV_TEST_PROVIDER_SUFFIX, dir,
		 name);
}

/* ---- child: one library start under the environment it was given ---- */

static int child(const char *result, const char *fixdir)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr pa;
	char path[PBUF];
	FILE *res;
	size_t i;
	int n, j;

	res = fopen(result, "w");
	if (!res)
		return 3;
	list = ibv_get_device_list(&n);
	fprintf(res, "count %d\n", list ? n : -1);
	for (j = 0; list && j < n; j++) {
		fprintf(res, "dev %s\n", ibv_get_device_name(list[j]));
		if (!strcmp(ibv_get_device_name(list[j]), "rxe0"))
			ctx = ibv_open_device(list[j]);
	}
	if (ctx) {
		struct ibv_pd *pd;

		if (!ibv_query_port(ctx, GC_PORT, &pa))
			fprintf(res, "port_state %d\n", pa.state);
		pd = ibv_alloc_pd(ctx);
		if (pd) {
			fprintf(res, "pd 1\n");
			ibv_dealloc_pd(pd);
		}
		ibv_close_device(ctx);
	}
	/* Which fixtures the library brought into this process. */
	for (i = 0; i < NFIX; i++) {
		void *h;
		int *count;
		char sym[64];

		fixture_path(path, sizeof(path), fixdir, fixtures[i]);
		h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
		fprintf(res, "loaded_%s %d\n", fixtures[i], h != NULL);
		if (!h)
			continue;
		snprintf(sym, sizeof(sym), "ibvtest_%s_constructed",
			 fixtures[i]);
		count = dlsym(h, sym);
		fprintf(res, "constructed_%s %d\n", fixtures[i],
			count ? *count : -1);
		count = dlsym(h, "ibvtest_nodev_alloc_calls");
		if (count)
			fprintf(res, "alloc_calls_%s %d\n", fixtures[i],
				*count);
		dlclose(h);
	}
	if (list)
		ibv_free_device_list(list);
	fclose(res);
	return 0;
}

/* ---- parent ---- */

struct outcome {
	int status; /* waitpid() status */
	int count;
	bool rxe0, rxe1;
	int port_state;
	bool pd;
	int loaded[NFIX], constructed[NFIX];
	int alloc_calls;
	char *out, *err; /* what the child printed */
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, len + 1);
	if (buf && fread(buf, 1, len, f) != (size_t)len)
		buf[0] = '\0';
	fclose(f);
	return buf ? buf : strdup("");
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[PBUF];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		gc_diag("cannot write %s: %s", path, strerror(errno));
		exit(1);
	}
}

static void parse(const char *path, struct outcome *o)
{
	char key[64];
	char val[128];
	FILE *f = fopen(path, "r");
	size_t i;

	o->count = -2;
	o->port_state = -1;
	o->alloc_calls = 0;
	for (i = 0; i < NFIX; i++)
		o->loaded[i] = o->constructed[i] = -1;
	if (!f)
		return;
	while (fscanf(f, "%63s %127s", key, val) == 2) {
		if (!strcmp(key, "count"))
			o->count = atoi(val);
		else if (!strcmp(key, "dev") && !strcmp(val, "rxe0"))
			o->rxe0 = true;
		else if (!strcmp(key, "dev") && !strcmp(val, "rxe1"))
			o->rxe1 = true;
		else if (!strcmp(key, "port_state"))
			o->port_state = atoi(val);
		else if (!strcmp(key, "pd"))
			o->pd = true;
		else if (!strcmp(key, "alloc_calls_nodev"))
			o->alloc_calls = atoi(val);
		for (i = 0; i < NFIX; i++) {
			if (!strncmp(key, "loaded_", 7) &&
			    !strcmp(key + 7, fixtures[i]))
				o->loaded[i] = atoi(val);
			if (!strncmp(key, "constructed_", 12) &&
			    !strcmp(key + 12, fixtures[i]))
				o->constructed[i] = atoi(val);
		}
	}
	fclose(f);
}

/*
 * In the child, before exec: show the system's library @confdir as its
 * compiled-in config directory, for this process alone.
 */
static void bind_config_dir(const char *confdir)
{
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(confdir, SYSTEM_CONFIG_DIR, NULL, MS_BIND, NULL)) {
		fprintf(stderr, "cannot bind %s over %s: %s\n", confdir,
			SYSTEM_CONFIG_DIR, strerror(errno));
		_exit(CHILD_NO_BIND);
	}
}

static void run_child(struct outcome *o, const char *confdir,
		      const char *fixdir, const char *tmp, bool plugin,
		      bool log)
{
	char result[PBUF], out[PBUF], err[PBUF];
	pid_t pid;

	memset(o, 0, sizeof(*o));
	snprintf(result, sizeof(result), "%s/result", tmp);
	snprintf(out, sizeof(out), "%s/stdout", tmp);
	snprintf(err, sizeof(err), "%s/stderr", tmp);
	unlink(result);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(126);
		if (gc_system_lib())
			bind_config_dir(confdir);
		else
			setenv("IBV_CONFIG_DIR", confdir, 1);
		unsetenv("VERBS_LOG_FILE");
		unsetenv("RDMAV_DRIVERS");
		unsetenv("IBV_DRIVERS");
		unsetenv("IBV_SHOW_WARNINGS");
		if (plugin)
			setenv("RDMAV_RXE_PROVIDER", "plugin", 1);
		else
			unsetenv("RDMAV_RXE_PROVIDER");
		if (log)
			setenv("VERBS_LOG_LEVEL", "2", 1);
		else
			unsetenv("VERBS_LOG_LEVEL");
		/* A hang must end as a failure: the alarm survives exec. */
		alarm(CHILD_TIMEOUT_S);
		execl("/proc/self/exe", "plugin_bad", "--child", result, fixdir,
		      (char *)NULL);
		_exit(127);
	}
	/* The child's own alarm ends it first; this is the backstop. */
	if (pid < 0 || gc_wait_child(pid, &o->status,
				     (CHILD_TIMEOUT_S + 10) * 1000,
				     "plugin_bad --child") != pid)
		o->status = -1;
	parse(result, o);
	o->out = slurp(out);
	o->err = slurp(err);
}

static void show(const char *what, const char *text)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchrnul(p, '\n');
		gc_diag("  %s: %.*s", what, (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

static int fix_index(const char *name)
{
	size_t i;

	for (i = 0; i < NFIX; i++)
		if (!strcmp(fixtures[i], name))
			return i;
	return 0;
}

static void check(const struct outcome *o, const char *mode, bool plugin,
		  bool log)
{
	int e = fix_index("empty"), a = fix_index("abi33"),
	    d = fix_index("nodev");
	/* Upstream loads plug-ins only for devices no provider claimed yet:
	 * with the built-in rxe serving both devices there may be none. */
	bool loads = plugin || gc_system_lib();

	if (WIFEXITED(o->status) && WEXITSTATUS(o->status) == CHILD_NO_BIND) {
		gc_ok(false, "%s: the test could not set up %s (stderr below)",
		      mode, SYSTEM_CONFIG_DIR);
		show("stderr", o->err);
		return;
	}
	if (!gc_ok(o->status == 0, "%s: the process ends normally (%s %d)",
		   mode, WIFSIGNALED(o->status) ? "signal" : "exit status",
		   WIFSIGNALED(o->status) ? WTERMSIG(o->status) :
					    WEXITSTATUS(o->status))) {
		show("stdout", o->out);
		show("stderr", o->err);
	}
	gc_ok(o->rxe0 && o->rxe1,
	      "%s: ibv_get_device_list lists rxe0 and rxe1 (%d devices)", mode,
	      o->count);
	gc_ok(o->port_state == IBV_PORT_ACTIVE && o->pd,
	      "%s: rxe0 opens, port 1 is ACTIVE and a PD is allocated (state %d)",
	      mode, o->port_state);
	gc_ok(o->loaded[a] == 0,
	      "%s: the plug-in built for IBVERBS_PRIVATE_33 is not in the process",
	      mode);
	if (loads) {
		gc_ok(o->loaded[e] == 1 && o->constructed[e] == 1,
		      "%s: the plug-in that registers nothing was loaded once and left alone (loaded %d, constructor runs %d)",
		      mode, o->loaded[e], o->constructed[e]);
		gc_ok(o->loaded[d] == 1 && o->constructed[d] == 1,
		      "%s: the plug-in whose alloc_device fails was loaded and skipped (alloc_device called %d times)",
		      mode, o->alloc_calls);
	} else {
		gc_diag("%s: built-in rxe claims both devices; plug-ins loaded: empty %d, nodev %d (alloc_device called %d times)",
			mode, o->loaded[e], o->loaded[d], o->alloc_calls);
	}
	if (!log) {
		if (!gc_guard(!o->out[0] && !o->err[0],
			      "%s: without VERBS_LOG_LEVEL nothing is printed",
			      mode)) {
			show("stdout", o->out);
			show("stderr", o->err);
		}
		return;
	}
	gc_ok(!o->out[0], "%s: nothing on stdout", mode);
	if (!loads) {
		gc_diag("%s: stderr with VERBS_LOG_LEVEL=2 (not checked: no plug-in needed):",
			mode);
		show("stderr", o->err);
		return;
	}
	gc_ok(strstr(o->err, "ibvtest_missing") != NULL,
	      "%s: a message names the missing plug-in ibvtest_missing", mode);
	gc_ok(strstr(o->err, "ibvtest_gone") != NULL,
	      "%s: a message names the missing plug-in /nonexistent/libibvtest_gone",
	      mode);
	gc_ok(strstr(o->err, "ibvtest_abi33") != NULL,
	      "%s: a message names the wrong-ABI plug-in ibvtest_abi33", mode);
	gc_ok(strstr(o->err, "frobnicate") ||
		      strstr(o->err, "malformed.driver"),
	      "%s: a message names the malformed line or its file", mode);
	show("stderr", o->err);
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/plugin_bad.XXXXXX";
	char confdir[PATH_MAX], fixdir[PATH_MAX], line[PBUF];
	char path[PBUF];
	struct outcome o;
	size_t i;
	int p, l;

	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child(argv[2], argv[3]);

	gc_start("plugin_bad");
	if (argc != 2 || !realpath(argv[1], fixdir)) {
		gc_ok(false,
		      "usage: plugin_bad FIXTURE_DIR (an existing directory)");
		return gc_finish();
	}
	for (i = 0; i < NFIX; i++) {
		fixture_path(path, sizeof(path), fixdir, fixtures[i]);
		if (!gc_ok(access(path, R_OK) == 0, "fixture %s is built",
			   path))
			return gc_finish();
	}
	if (!mkdtemp(tmp)) {
		gc_ok(false, "mkdtemp: %s", strerror(errno));
		return gc_finish();
	}
	snprintf(confdir, sizeof(confdir), "%s/libibverbs.d", tmp);
	mkdir(confdir, 0700);

	write_file(confdir, "rxe.driver", "driver rxe\n");
	for (i = 0; i < NFIX; i++) {
		snprintf(line, sizeof(line), "driver %s/libibvtest_%s\n",
			 fixdir, fixtures[i]);
		snprintf(path, sizeof(path), "%s.driver", fixtures[i]);
		write_file(confdir, path, line);
	}
	write_file(
		confdir, "missing.driver",
		"driver ibvtest_missing\ndriver /nonexistent/libibvtest_gone\n");
	write_file(confdir, "malformed.driver", "frobnicate ibvtest_bad\n");

	for (p = 0; p < 2; p++) {
		for (l = 0; l < 2; l++) {
			char mode[96];

			snprintf(mode, sizeof(mode), "%s, %s",
				 p ? "RDMAV_RXE_PROVIDER=plugin" :
				     "default provider",
				 l ? "VERBS_LOG_LEVEL=2" :
				     "no VERBS_LOG_LEVEL");
			run_child(&o, confdir, fixdir, tmp, p, l);
			check(&o, mode, p, l);
			free(o.out);
			free(o.err);
		}
	}

	for (i = 0; i < NCONF; i++) {
		snprintf(path, sizeof(path), "%s/%s.driver", confdir,
			 conf_files[i]);
		unlink(path);
	}
	rmdir(confdir);
	for (i = 0; i < 3; i++) {
		static const char *const files[] = { "result", "stdout",
						     "stderr" };

		snprintf(path, sizeof(path), "%s/%s", tmp, files[i]);
		unlink(path);
	}
	rmdir(tmp);
	return gc_finish();
}
