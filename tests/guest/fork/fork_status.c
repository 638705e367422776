// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fork status matrix.  Fork support state is per process and set by
 * the first calls, so each case runs in a fresh process: this binary
 * re-executes itself with the case name and the environment of the case.
 *
 * Default mode (a kernel that copies on fork): UNNEEDED whatever the
 * environment says and whether or not ibv_fork_init() was called.
 * Legacy mode (RDMAV_COPY_ON_FORK=0): DISABLED, ENABLED after
 * ibv_fork_init() or with RDMAV_FORK_SAFE, and ibv_fork_init() after a
 * registration fails with EINVAL.
 *
 * --beyond-upstream adds what upstream does not promise: in default mode,
 * ibv_fork_init() after a registration returns 0, since nothing needs
 * tracking.
 *
 * Upstream has no RDMAV_COPY_ON_FORK: on Debian's library the legacy
 * statuses are those of the copying kernel, so they are guard checks; the
 * EINVAL of a late ibv_fork_init() is upstream's own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_util.h"

static const char *const status_names[] = { "DISABLED", "ENABLED",
					     "UNNEEDED" };

/* Case: what ibv_is_fork_initialized() says once devices were listed. */
static int case_plain(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	ibv_free_device_list(list);
	return ibv_is_fork_initialized();
}

/* Case: ibv_fork_init(), then the status; 10 + status, or the errno. */
static int case_init(void)
{
	int err = ibv_fork_init();

	return err ? err + 100 : 10 + (int)ibv_is_fork_initialized();
}

/* Case: register memory first, then ibv_fork_init(): its return value. */
static int case_late_init(void)
{
	struct gc_dev dev;
	struct ibv_mr *mr;
	void *buf = fu_map(4096);
	int err;

	if (!buf || gc_dev_open(&dev, 0))
		return 99;
	mr = ibv_reg_mr(dev.pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		return 98;
	err = ibv_fork_init();
	ibv_dereg_mr(mr);
	gc_dev_close(&dev);
	return err;
}

static int run_case(const char *name)
{
	if (!strcmp(name, "plain"))
		return case_plain();
	if (!strcmp(name, "init"))
		return case_init();
	if (!strcmp(name, "late-init"))
		return case_late_init();
	return 97;
}

/* Run this binary for @name with @var set (if not NULL) to "1". */
static int spawn(const char *name, const char *var)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (var)
			setenv(var, "1", 1);
		execl("/proc/self/exe", "fork_status", name, (char *)NULL);
		_exit(96);
	}
	return pid < 0 ? -1 : fu_wait(pid);
}

static void expect(const char *name, const char *var, int want, bool guard)
{
	bool (*check)(bool, const char *, ...) = guard ? gc_guard : gc_ok;
	int got = spawn(name, var);

	check(got == want, "%s%s%s: got %d, want %d", name, var ? " with " : "",
	      var ? var : "", got, want);
}

int main(int argc, char **argv)
{
	bool legacy = fu_legacy_mode();
	bool beyond_upstream = argc > 1 && !strcmp(argv[1], "--beyond-upstream");
	int cof;

	if (argc > 1 && !beyond_upstream)
		return run_case(argv[1]);

	gc_start("fork_status");
	gc_diag("mode: %s", legacy ? "legacy (RDMAV_COPY_ON_FORK=0)" :
				     "default");
	if (legacy) {
		expect("plain", NULL, IBV_FORK_DISABLED, true);
		expect("plain", "RDMAV_FORK_SAFE", IBV_FORK_ENABLED, true);
		expect("plain", "IBV_FORK_SAFE", IBV_FORK_ENABLED, true);
		expect("init", NULL, 10 + IBV_FORK_ENABLED, true);
		expect("late-init", NULL, EINVAL, false);
	} else {
		expect("plain", NULL, IBV_FORK_UNNEEDED, false);
		expect("plain", "RDMAV_FORK_SAFE", IBV_FORK_UNNEEDED, false);
		expect("init", NULL, 10 + IBV_FORK_UNNEEDED, false);
		expect("init", "RDMAV_FORK_SAFE", 10 + IBV_FORK_UNNEEDED,
		       false);
		/* Upstream says EINVAL here although nothing is tracked. */
		if (beyond_upstream)
			expect("late-init", NULL, 0, true);

		/* The library and iproute2 read the same kernel answer. */
		cof = fu_rdma_system_copy_on_fork();
		gc_ok(cof == 1 && case_plain() == IBV_FORK_UNNEEDED,
		      "agrees with `rdma system show` (copy-on-fork %s), "
		      "status %s", cof == 1 ? "on" : "off",
		      status_names[case_plain()]);
	}
	return gc_finish();
}
