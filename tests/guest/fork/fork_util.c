// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fork_util.h"

bool fu_legacy_mode(void)
{
	const char *v = getenv("RDMAV_COPY_ON_FORK");

	return v && !strcmp(v, "0");
}

bool fu_start(const char *name)
{
	int err;

	gc_start(name);
	gc_diag("mode: %s", fu_legacy_mode() ?
				"legacy (RDMAV_COPY_ON_FORK=0, ibv_fork_init)" :
				"default");
	gc_diag("%s", fu_kernel_desc());
	if (!fu_legacy_mode())
		return true;
	err = ibv_fork_init();
	return gc_ok(!err, "ibv_fork_init: %s", strerror(err));
}

/* Ask the guest kernel for a few huge pages if it has none reserved. */
static void reserve_huge_pages(void)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "r+");
	int n = 0;

	if (!f)
		return;
	if (fscanf(f, "%d", &n) == 1 && n < 4) {
		rewind(f);
		fprintf(f, "4\n");
	}
	fclose(f);
}

void *fu_map_huge(void *addr, size_t len)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB;
	void *p;

	reserve_huge_pages();
	if (addr)
		flags |= MAP_FIXED_NOREPLACE;
	p = mmap(addr, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void *fu_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void fu_unmap(void *addr, size_t len)
{
	if (addr)
		munmap(addr, len);
}

/*
 * Walk smaps; for the mapping containing @addr (or every mapping when
 * @addr is NULL) report whether VmFlags has "dc".
 */
static int scan_smaps(const void *addr, int *count)
{
	uintptr_t a = (uintptr_t)addr, lo, hi;
	bool in_target = false;
	int found = -1;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	*count = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in_target = !addr || (a >= lo && a < hi);
			continue;
		}
		if (!in_target || strncmp(line, "VmFlags:", 8))
			continue;
		if (strstr(line, " dc"))
			(*count)++;
		if (addr)
			found = strstr(line, " dc") ? 1 : 0;
	}
	fclose(f);
	return found;
}

int fu_page_dontfork(const void *addr)
{
	int count;

	return scan_smaps(addr, &count);
}

bool fu_marked_as_mode(const void *addr, size_t len)
{
	const uint8_t *p = addr;
	const uint8_t *probe[3] = { p, p + len / 2, p + len - 1 };
	int want = fu_legacy_mode() ? 1 : 0;
	int i;

	for (i = 0; i < 3; i++)
		if (fu_page_dontfork(probe[i]) != want)
			return false;
	return true;
}

int fu_count_dontfork_vmas(void)
{
	int count = 0;

	scan_smaps(NULL, &count);
	return count;
}

int fu_rdma_system_copy_on_fork(void)
{
	char line[256];
	int on = -1;
	FILE *p = popen("rdma system show 2>/dev/null", "r");

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "copy-on-fork on"))
			on = 1;
		else if (strstr(line, "copy-on-fork off") && on < 0)
			on = 0;
	}
	pclose(p);
	/* Kernels before 5.13 print no copy-on-fork at all. */
	return on < 0 ? 0 : on;
}

bool fu_kernel_copies_anon(void)
{
	return gc_kernel_at_least(5, 9);
}

bool fu_kernel_copies_hugetlb(void)
{
	return gc_kernel_at_least(5, 12);
}

bool fu_kernel_reports_cof(void)
{
	static int cof = -2;

	if (cof == -2)
		cof = fu_rdma_system_copy_on_fork();
	return cof == 1;
}

bool fu_cof_trusted(void)
{
	return !fu_legacy_mode() && fu_kernel_reports_cof();
}

const char *fu_kernel_desc(void)
{
	static char buf[160];

	snprintf(buf, sizeof(buf),
		 "kernel %s: copy-on-fork %s over netlink, copies pinned "
		 "anonymous pages: %s, hugetlb pages: %s",
		 gc_kernel_release(), fu_kernel_reports_cof() ? "reported" : "not reported",
		 fu_kernel_copies_anon() ? "yes" : "no",
		 fu_kernel_copies_hugetlb() ? "yes" : "no");
	return buf;
}

int fu_wait(pid_t pid)
{
	return fu_wait_until(pid, gc_now_ms() + GC_CHILD_TIMEOUT_MS);
}

int fu_wait_until(pid_t pid, long deadline_ms)
{
	int status;

	if (gc_wait_child_until(pid, &status, deadline_ms,
				"a fork test's child") != pid)
		return errno == ETIMEDOUT ? 128 + SIGKILL : -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

pid_t fu_start_server(void (*server_main)(int ready_fd), unsigned lifetime)
{
	pid_t pid, parent_pid;
	int p[2];
	char c;

	if (pipe(p))
		return -1;
	parent_pid = getpid();
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent_pid)
			_exit(1);
		alarm(lifetime);
		close(p[0]);
		server_main(p[1]);
		_exit(0);
	}
	close(p[1]);
	/* Bounded: the server is gone after @lifetime, which ends the read. */
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		fu_wait(pid);
		pid = -1;
	}
	close(p[0]);
	return pid;
}
