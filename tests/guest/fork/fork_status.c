// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fork status matrix.  Fork support state is per process and set by
 * the first calls, so each case runs in a fresh process: this binary
 * re-executes itself with the case name and the environment of the case.
 *
 * Default mode on a kernel that reports copy-on-fork over netlink:
 * UNNEEDED whatever the environment says and whether or not
 * ibv_fork_init() was called.  Legacy mode (RDMAV_COPY_ON_FORK=0), and
 * either mode on a kernel that does not report it (before 5.13):
 * DISABLED, ENABLED after ibv_fork_init() or with RDMAV_FORK_SAFE, and
 * ibv_fork_init() after a registration fails with EINVAL.
 *
 * --beyond-upstream adds what upstream does not promise: in default mode,
 * ibv_fork_init() after a registration returns 0, since nothing needs
 * tracking.
 *
 * Upstream has no RDMAV_COPY_ON_FORK: on Debian's library the legacy
 * statuses are those of the kernel, so they are guard checks where the
 * kernel reports copy-on-fork, and upstream's own elsewhere (the test
 * then says "no guard on this kernel", which run-all accepts from a test
 * labelled guard); the EINVAL of a late ibv_fork_init() is upstream's
 * own.
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
	/*
	 * Upstream has no RDMAV_COPY_ON_FORK: only on a kernel that reports
	 * copy-on-fork do its statuses differ from the legacy ones.
	 */
	bool guard = legacy && fu_kernel_reports_cof();
	int cof;

	if (argc > 1 && !beyond_upstream)
		return run_case(argv[1]);

	gc_start("fork_status");
	gc_diag("mode: %s", legacy ? "legacy (RDMAV_COPY_ON_FORK=0)" :
				     "default");
	gc_diag("%s", fu_kernel_desc());
	cof = fu_rdma_system_copy_on_fork();
	if (!fu_cof_trusted()) {
		/* Tracking as upstream's, whatever the mode. */
		expect("plain", NULL, IBV_FORK_DISABLED, guard);
		expect("plain", "RDMAV_FORK_SAFE", IBV_FORK_ENABLED, guard);
		expect("plain", "IBV_FORK_SAFE", IBV_FORK_ENABLED, guard);
		expect("init", NULL, 10 + IBV_FORK_ENABLED, guard);
		expect("late-init", NULL, EINVAL, false);
		if (!guard && (legacy || beyond_upstream))
			gc_diag("no guard on this kernel: it does not report "
				"copy-on-fork, so upstream tracks as we do");
	} else {
		expect("plain", NULL, IBV_FORK_UNNEEDED, false);
		expect("plain", "RDMAV_FORK_SAFE", IBV_FORK_UNNEEDED, false);
		expect("init", NULL, 10 + IBV_FORK_UNNEEDED, false);
		expect("init", "RDMAV_FORK_SAFE", 10 + IBV_FORK_UNNEEDED,
		       false);
		/* Upstream says EINVAL here although nothing is tracked. */
		if (beyond_upstream)
			expect("late-init", NULL, 0, true);
	}
	if (!legacy) {
		/* The library and iproute2 read the same kernel answer. */
		int want = cof == 1 ? IBV_FORK_UNNEEDED : IBV_FORK_DISABLED;

		gc_ok(cof >= 0 && case_plain() == want,
		      "agrees with `rdma system show` (copy-on-fork %s), "
		      "status %s", cof == 1 ? "on" : "off",
		      status_names[case_plain()]);
	}
	return gc_finish();
}
