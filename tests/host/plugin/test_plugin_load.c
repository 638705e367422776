// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Plug-in loading on the host, over a fake sysfs tree (SYSFS_PATH) with
 * one uverbs device, hostprov0, that only the test plug-in serves
 * (hostprov.c, built twice: libhostprov- and libhostprov2-rdmav34.so).
 *
 *  - RDMAV_DRIVERS / IBV_DRIVERS, as rdma-core 44 reads them (facts from
 *    its libibverbs/dynamic_driver.c): a list split at ':' and ';', each
 *    entry a plug-in name looked up as lib<NAME>-rdmav34.so or, if it
 *    starts with '/', a path to which -rdmav34.so is appended;
 *    IBV_DRIVERS only when RDMAV_DRIVERS is not set at all; loaded before
 *    the plug-ins of the configuration files, so they are tried first.
 *  - A child forked while another thread is inside the first
 *    ibv_get_device_list(), in a plug-in's constructor, lists that
 *    plug-in's device.  Debian's child deadlocks there: a guarantee
 *    upstream lacks, reported as "# guard" on Debian's library.
 *
 * Each case runs in a fresh process (this binary re-executed), since the
 * library reads the variables once.  On Debian's library (the binary run
 * with LD_LIBRARY_PATH at Debian's directory) each process first enters a
 * private mount namespace with the configuration directory bound over
 * /etc/libibverbs.d and /dev/infiniband/uverbs0 present, which upstream
 * stats; a host with RDMA netlink, where upstream lists the kernel's
 * devices instead of the tree's, or without the privilege for the
 * namespace skips the Debian run.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/netlink.h>

#include <infiniband/verbs.h>

#include "tap.h"

#define SKIP_STATUS 77

static const char *const plugin_names[] = { "hostprov", "hostprov2" };
static char plugdir[PATH_MAX];
static char top[PATH_MAX];

static bool on_debian(void)
{
	Dl_info info;

	return dladdr((void *)ibv_get_device_list, &info) && info.dli_fname &&
	       !strncmp(info.dli_fname, DEBIAN_LIBDIR "/",
			strlen(DEBIAN_LIBDIR "/"));
}

/* Upstream's view of the fake tree; 0, or SKIP_STATUS. */
static int debian_sandbox(void)
{
	const char *conf = getenv("IBV_CONFIG_DIR");
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd >= 0) {
		close(fd);
		fprintf(stderr, "RDMA netlink present: upstream ignores "
				"the fake sysfs tree\n");
		return SKIP_STATUS;
	}
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", "/dev", "tmpfs", 0, "mode=755") ||
	    mkdir("/dev/infiniband", 0755) ||
	    (fd = creat("/dev/infiniband/uverbs0", 0600)) < 0 || close(fd) ||
	    (conf && mount(conf, "/etc/libibverbs.d", NULL, MS_BIND, NULL))) {
		fprintf(stderr, "no private mount namespace: %s\n",
			strerror(errno));
		return SKIP_STATUS;
	}
	return 0;
}

/* "hostprov0 by hostprov", or "none": the devices and who served them. */
static void print_list(const char *tag, struct ibv_device **l, int n)
{
	char path[PATH_MAX];
	unsigned int i;
	void *h;
	int (*allocs)(void);

	printf("%s:", tag);
	if (!l || n <= 0) {
		printf(" none\n");
		fflush(stdout);
		return;
	}
	for (; n > 0; n--, l++)
		printf(" %s", ibv_get_device_name(*l));
	printf(" by");
	for (i = 0; i < 2; i++) {
		if (snprintf(path, sizeof(path),
			     "%s/lib%s" IBV_TEST_PROVIDER_SUFFIX, plugdir,
			     plugin_names[i]) >= (int)sizeof(path))
			continue;
		h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
		allocs = h ? (int (*)(void))dlsym(h, "hostprov_alloc_count") :
			     NULL;
		if (allocs && allocs())
			printf(" %s", plugin_names[i]);
	}
	printf("\n");
	fflush(stdout);
}

static int child_list(void)
{
	struct ibv_device **l;
	int n = 0;

	l = ibv_get_device_list(&n);
	print_list("list", l, n);
	if (l)
		ibv_free_device_list(l);
	return 0;
}

/* Fork while a thread is inside the plug-in's constructor. */
static int entered[2], release[2];

static void *lister(void *arg)
{
	struct ibv_device **l;
	int n = 0;

	(void)arg;
	l = ibv_get_device_list(&n);
	/* After the child's line: the parent waits for the child first. */
	print_list("thread", l, n);
	if (l)
		ibv_free_device_list(l);
	return NULL;
}

static int child_fork(void)
{
	char env[64], c;
	pthread_t th;
	int status;
	pid_t pid;

	if (pipe(entered) || pipe(release))
		return 1;
	snprintf(env, sizeof(env), "hostprov,%d,%d", entered[1], release[0]);
	setenv("HOSTPROV_HOLD", env, 1);
	if (pthread_create(&th, NULL, lister, NULL))
		return 1;
	if (read(entered[0], &c, 1) != 1)
		return 1;
	pid = fork();
	if (!pid) {
		alarm(10);
		child_list();
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status)) {
		printf("list: deadlocked (killed by signal %d)\n",
		       WTERMSIG(status));
		fflush(stdout);
	}
	c = 0;
	if (write(release[1], &c, 1) != 1)
		return 1;
	pthread_join(th, NULL);
	return 0;
}

static int child_main(const char *mode)
{
	int ret;

	if (on_debian()) {
		ret = debian_sandbox();
		if (ret)
			return ret;
	}
	if (!strcmp(mode, "--probe"))
		return 0;
	if (!strcmp(mode, "--fork"))
		return child_fork();
	return child_list();
}

/* The fake tree and the configuration directories. */
static void put(const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void dir(const char *rel)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	if (mkdir(path, 0755)) {
		perror(path);
		exit(2);
	}
}

static void make_tree(void)
{
	char line[PATH_MAX + 32];

	snprintf(top, sizeof(top), "%s/plugin-load.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		exit(2);
	}
	dir("sys");
	dir("sys/class");
	dir("sys/class/infiniband_verbs");
	dir("sys/class/infiniband_verbs/uverbs0");
	dir("sys/class/infiniband");
	dir("sys/class/infiniband/hostprov0");
	put("sys/class/infiniband_verbs/abi_version", "6\n");
	put("sys/class/infiniband_verbs/uverbs0/ibdev", "hostprov0\n");
	put("sys/class/infiniband_verbs/uverbs0/abi_version", "6\n");
	put("sys/class/infiniband_verbs/uverbs0/dev", "231:192\n");
	put("sys/class/infiniband/hostprov0/node_type", "1: CA\n");
	dir("conf-empty");
	dir("conf-1");
	dir("conf-2");
	snprintf(line, sizeof(line), "driver %s/libhostprov\n", plugdir);
	put("conf-1/hostprov.driver", line);
	/* Loaded (and registered) before hostprov, serving nothing. */
	snprintf(line, sizeof(line), "driver %s/libhostprov3\n", plugdir);
	put("conf-1/a-hostprov3.driver", line);
	snprintf(line, sizeof(line), "driver %s/libhostprov2\n", plugdir);
	put("conf-2/hostprov2.driver", line);
}

static void remove_tree(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", top);
}

struct run_env {
	const char *conf; /* under top */
	const char *rdmav; /* NULL: unset */
	const char *ibv;
	bool search_plugdir; /* plugdir on LD_LIBRARY_PATH */
};

#define ENV(c, r, i, s)     \
	(&(struct run_env){ \
		.conf = (c), .rdmav = (r), .ibv = (i), .search_plugdir = (s) })

/* Run this binary in @mode with @e; its stdout in @out; exit status. */
static int run(const char *mode, const struct run_env *e, char *out,
	       size_t size)
{
	char self[PATH_MAX], path[PATH_MAX * 2];
	int fd[2], status;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0 || pipe(fd))
		return -1;
	self[sizeof(self) - 1] = 0;
	self[readlink("/proc/self/exe", self, sizeof(self) - 1)] = 0;
	pid = fork();
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		snprintf(path, sizeof(path), "%s/sys", top);
		setenv("SYSFS_PATH", path, 1);
		snprintf(path, sizeof(path), "%s/%s", top, e->conf);
		setenv("IBV_CONFIG_DIR", path, 1);
		unsetenv("RDMAV_DRIVERS");
		unsetenv("IBV_DRIVERS");
		unsetenv("HOSTPROV_HOLD");
		if (e->rdmav)
			setenv("RDMAV_DRIVERS", e->rdmav, 1);
		if (e->ibv)
			setenv("IBV_DRIVERS", e->ibv, 1);
		if (e->search_plugdir) {
			snprintf(path, sizeof(path), "%s%s%s",
				 getenv("LD_LIBRARY_PATH") ?: "",
				 getenv("LD_LIBRARY_PATH") ? ":" : "", plugdir);
			setenv("LD_LIBRARY_PATH", path, 1);
		}
		alarm(60);
		execl(self, self, mode, plugdir, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (len + 1 < size &&
	       (r = read(fd[0], out + len, size - 1 - len)) > 0)
		len += r;
	out[len] = 0;
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void expect(const char *what, const struct run_env *e, const char *want)
{
	char out[4096];
	int st = run("--list", e, out, sizeof(out));

	out[strcspn(out, "\n")] = 0;
	CHECK(st == 0 && !strcmp(out, want), "%s: \"%s\" (want \"%s\"%s)", what,
	      out, want, st ? ", exit status not 0" : "");
}

static void test_env_drivers(void)
{
	char p1[PATH_MAX + 32], list[3 * PATH_MAX];

	snprintf(p1, sizeof(p1), "%s/libhostprov", plugdir);

	expect("no RDMAV_DRIVERS, no config: nothing serves hostprov0",
	       ENV("conf-empty", NULL, NULL, false), "list: none");
	expect("RDMAV_DRIVERS=<path>", ENV("conf-empty", p1, NULL, false),
	       "list: hostprov0 by hostprov");
	expect("IBV_DRIVERS=<path>", ENV("conf-empty", NULL, p1, false),
	       "list: hostprov0 by hostprov");
	snprintf(list, sizeof(list), "%s/missing;%s", plugdir, p1);
	expect("';' separates, a missing plug-in is skipped",
	       ENV("conf-empty", list, NULL, false),
	       "list: hostprov0 by hostprov");
	snprintf(list, sizeof(list), ":no-such-provider:%s:", p1);
	expect("':' separates, empty and unknown names are skipped",
	       ENV("conf-empty", list, NULL, false),
	       "list: hostprov0 by hostprov");
	expect("a name is looked up as lib<NAME>-rdmav34.so in the "
	       "loader's path",
	       ENV("conf-empty", "hostprov", NULL, true),
	       "list: hostprov0 by hostprov");
	expect("RDMAV_DRIVERS set, even empty, hides IBV_DRIVERS",
	       ENV("conf-empty", "", p1, false), "list: none");
	expect("the config file's plug-in alone serves it",
	       ENV("conf-2", NULL, NULL, false),
	       "list: hostprov0 by hostprov2");
	expect("RDMAV_DRIVERS' plug-ins are tried before the config's",
	       ENV("conf-2", p1, NULL, false), "list: hostprov0 by hostprov");
	tap_note("not tested: set-user-ID programs ignore both variables");
}

static void test_fork_in_constructor(bool debian)
{
	char out[4096], *child, *thread;
	int st = run("--fork", ENV("conf-1", NULL, NULL, false), out,
		     sizeof(out));

	child = strstr(out, "list:");
	thread = strstr(out, "thread:");
	if (child)
		child[strcspn(child, "\n")] = 0;
	if (thread)
		thread[strcspn(thread, "\n")] = 0;
	CHECK(st == 0 && thread &&
		      !strcmp(thread, "thread: hostprov0 by "
				      "hostprov"),
	      "the thread whose load was forked lists hostprov0: \"%s\"",
	      thread ? thread : "(no line)");
	if (debian && !(child && !strcmp(child, "list: hostprov0 by "
						"hostprov"))) {
		tap_note("guard (upstream lacks it): a child forked during "
			 "the plug-in's constructor: \"%s\"",
			 child ? child : "(no line)");
		return;
	}
	CHECK(child && !strcmp(child, "list: hostprov0 by hostprov"),
	      "a child forked inside the plug-in's constructor lists "
	      "hostprov0: \"%s\"",
	      child ? child : "(no line)");
}

int main(int argc, char **argv)
{
	char out[256];
	bool debian;
	int st;

	if (argc != 3 && argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN_DIR\n", argv[0]);
		return 2;
	}
	/* Names in the variables and files must be absolute paths. */
	if (!realpath(argv[argc - 1], plugdir)) {
		perror(argv[argc - 1]);
		return 2;
	}
	if (argc == 3)
		return child_main(argv[1]);

	debian = on_debian();
	printf("# on %s library\n", debian ? "Debian's" : "this project's");
	make_tree();
	st = run("--probe", ENV("conf-empty", NULL, NULL, false), out,
		 sizeof(out));
	if (st) {
		printf("# skipped: cannot show the fake tree to this library "
		       "(status %d)\n",
		       st);
		remove_tree();
		return SKIP_STATUS;
	}
	test_env_drivers();
	test_fork_in_constructor(debian);
	remove_tree();
	return tap_done();
}
