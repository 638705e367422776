/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host test of the fork policy through the public API of the built
 * library: ibv_fork_init(), ibv_is_fork_initialized(), ibv_dontfork_range()
 * and ibv_dofork_range() under RDMAV_COPY_ON_FORK=0 / =1, the
 * RDMAV_FORK_SAFE / IBV_FORK_SAFE / RDMAV_HUGEPAGES_SAFE variables, the
 * default detection (the host has no RDMA netlink: "not known to copy",
 * fast), and fork() while threads register.
 *
 * The library's fork state lives for the whole process, so every scenario
 * runs in a freshly exec'ed copy of this program with its own environment.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <infiniband/verbs.h>

#include "tap.h"

/* Exported at IBVERBS_1.1; not every verbs.h declares them. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

static size_t ps;

/*
 * Counts the library's attempts to open RDMA netlink.  The program is
 * linked with exported symbols, so this definition also serves libmnl.
 */
static unsigned int rdma_nl_opens;

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);

	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA)
		__atomic_add_fetch(&rdma_nl_opens, 1, __ATOMIC_RELAXED);
	return real(domain, type, protocol);
}

/* ---- helpers ---- */

static char *map_pages(size_t n)
{
	void *p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* VmFlags dc of the mapping holding addr: 1, 0, or -1 if not found. */
static int has_dc(const void *addr)
{
	uintptr_t a = (uintptr_t)addr, lo, hi;
	FILE *f = fopen("/proc/self/smaps", "re");
	int inside = 0, ret = -1;
	size_t cap = 0;
	char *line = NULL;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			inside = lo <= a && a < hi;
		} else if (inside && !strncmp(line, "VmFlags:", 8)) {
			ret = strstr(line, " dc") != NULL;
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

/* dc on pages [0, n) of buf as a bit string, for compact checks. */
static unsigned long dc_mask(const char *buf, size_t n)
{
	unsigned long mask = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (has_dc(buf + i * ps) == 1)
			mask |= 1UL << i;
	return mask;
}

static int rdma_netlink_present(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);

	__atomic_sub_fetch(&rdma_nl_opens, 1, __ATOMIC_RELAXED);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static const char *status_name(enum ibv_fork_status st)
{
	switch (st) {
	case IBV_FORK_DISABLED:
		return "DISABLED";
	case IBV_FORK_ENABLED:
		return "ENABLED";
	case IBV_FORK_UNNEEDED:
		return "UNNEEDED";
	}
	return "?";
}

/* What the first ibv_get_device_list() does: apply RDMAV_FORK_SAFE. */
static int call_get_device_list(void)
{
	struct ibv_device **(*get)(int *);
	void (*put)(struct ibv_device **);
	struct ibv_device **list;

	get = (struct ibv_device **(*)(int *))dlsym(RTLD_DEFAULT,
						    "ibv_get_device_list");
	put = (void (*)(struct ibv_device **))dlsym(RTLD_DEFAULT,
						    "ibv_free_device_list");
	if (!get || !put) {
		tap_note("skip: library has no ibv_get_device_list yet");
		return 0;
	}
	list = get(NULL);
	if (list)
		put(list);
	return 1;
}

/* ---- scenarios ---- */

static void sc_default(void)
{
	double t0 = now_s(), dt;
	enum ibv_fork_status st = ibv_is_fork_initialized();
	int i;

	dt = now_s() - t0;
	tap_note("default detection: %s in %.3f s", status_name(st), dt);
	CHECK(dt < 1.5, "first status query answers within the timeout");
	if (!rdma_netlink_present())
		CHECK(st == IBV_FORK_DISABLED,
		      "no RDMA netlink: not known to copy, DISABLED");
	else
		CHECK(st == IBV_FORK_DISABLED || st == IBV_FORK_UNNEEDED,
		      "RDMA netlink present: DISABLED or UNNEEDED (%s)",
		      status_name(st));

	CHECK(rdma_nl_opens == 1, "the kernel was asked once (%u)",
	      rdma_nl_opens);

	t0 = now_s();
	for (i = 0; i < 10000; i++)
		ibv_is_fork_initialized();
	dt = (now_s() - t0) / 10000;
	tap_note("%.3f us per later status query", dt * 1e6);
	if (st == IBV_FORK_DISABLED)
		CHECK(ibv_fork_init() == 0 &&
		      ibv_is_fork_initialized() == IBV_FORK_ENABLED,
		      "ibv_fork_init() enables tracking");
	CHECK(rdma_nl_opens == 1, "and never again: the answer is cached");
}

static void sc_cof0(void)
{
	char *buf = map_pages(4);
	unsigned long m;
	int ret;

	CHECK(ibv_is_fork_initialized() == IBV_FORK_DISABLED &&
	      rdma_nl_opens == 0,
	      "RDMAV_COPY_ON_FORK=0: DISABLED, the kernel is not asked");
	CHECK(ibv_fork_init() == 0 &&
	      ibv_is_fork_initialized() == IBV_FORK_ENABLED,
	      "ibv_fork_init() = 0, then ENABLED");
	CHECK(ibv_fork_init() == 0 &&
	      ibv_is_fork_initialized() == IBV_FORK_ENABLED,
	      "ibv_fork_init() again = 0");
	if (!CHECK(buf, "map 4 pages"))
		return;

	ret = ibv_dontfork_range(buf + 100, 2 * ps);
	m = dc_mask(buf, 4);
	CHECK(!ret && m == 0x7,
	      "dontfork of an unaligned range marks pages 0-2 (%#lx)", m);
	ret = ibv_dontfork_range(buf + ps, 10) ||
	      ibv_dofork_range(buf + 100, 2 * ps);
	m = dc_mask(buf, 4);
	CHECK(!ret && m == 0x2,
	      "overlapping registrations are refcounted (%#lx)", m);
	ret = ibv_dofork_range(buf + ps, 10);
	m = dc_mask(buf, 4);
	CHECK(!ret && m == 0, "last dofork clears dc (%#lx)", m);

	/* The application's own flag, which the tree never owned. */
	madvise(buf + ps, ps, MADV_DONTFORK);
	munmap(buf + 3 * ps, ps);
	errno = 0;
	CHECK(ibv_dontfork_range(buf, 4 * ps) == -1 && errno == ENOMEM &&
	      (dc_mask(buf, 3) & 0x2),
	      "range with a hole: -1, errno ENOMEM, the application's own "
	      "MADV_DONTFORK kept");
	madvise(buf, 3 * ps, MADV_DOFORK);
	CHECK(ibv_dontfork_range(buf, 0) == 0 &&
	      ibv_dontfork_range(NULL, ps) == 0,
	      "zero length and NULL: 0");
	munmap(buf, 3 * ps);
}

static void sc_cof0_child(void)
{
	char *buf = map_pages(2);
	int status = 0;
	pid_t pid;

	if (!CHECK(buf && ibv_fork_init() == 0, "tracking on"))
		return;
	buf[0] = 1;
	buf[ps] = 2;
	ibv_dontfork_range(buf, ps);
	pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		/* Not registered: copied as usual. */
		if (buf[ps] != 2)
			_exit(3);
		/* Registered: not mapped in the child at all. */
		*(volatile char *)buf = 5;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	      "a child touching a registered page dies of SIGSEGV (%#x)",
	      status);
	CHECK(buf[0] == 1 && has_dc(buf) == 1,
	      "the parent's page is untouched and still marked");
	ibv_dofork_range(buf, ps);
	munmap(buf, 2 * ps);
}

static void sc_cof0_late(void)
{
	char *buf = map_pages(1);

	CHECK(buf && ibv_dontfork_range(buf, ps) == 0 && has_dc(buf) == 0,
	      "without tracking, dontfork is 0 and marks nothing");
	CHECK(ibv_fork_init() == EINVAL,
	      "ibv_fork_init() after memory was registered: EINVAL");
	CHECK(ibv_is_fork_initialized() == IBV_FORK_DISABLED,
	      "still DISABLED");
	if (buf)
		munmap(buf, ps);
}

static void sc_cof0_late_dofork(void)
{
	char *buf = map_pages(1);

	CHECK(buf && ibv_dofork_range(buf, ps) == 0,
	      "without tracking, dofork is 0");
	CHECK(ibv_fork_init() == EINVAL,
	      "ibv_fork_init() after dofork: EINVAL, as upstream");
	if (buf)
		munmap(buf, ps);
}

static void sc_cof1(void)
{
	char *buf = map_pages(2);

	CHECK(ibv_is_fork_initialized() == IBV_FORK_UNNEEDED &&
	      rdma_nl_opens == 0,
	      "RDMAV_COPY_ON_FORK=1: UNNEEDED, the kernel is not asked");
	CHECK(ibv_fork_init() == 0 &&
	      ibv_is_fork_initialized() == IBV_FORK_UNNEEDED,
	      "ibv_fork_init() = 0, still UNNEEDED");
	if (!CHECK(buf, "map 2 pages"))
		return;
	CHECK(ibv_dontfork_range(buf, 2 * ps) == 0 && dc_mask(buf, 2) == 0,
	      "dontfork is 0 and marks nothing");
	munmap(buf + ps, ps);
	CHECK(ibv_dontfork_range(buf, 2 * ps) == 0 &&
	      ibv_dofork_range(buf, 2 * ps) == 0,
	      "even over a hole: 0 (no madvise at all)");
	munmap(buf, ps);
}

static void sc_cof1_late(void)
{
	char *buf = map_pages(1);

	CHECK(buf && ibv_dontfork_range(buf, ps) == 0, "dontfork first");
	CHECK(ibv_fork_init() == 0 &&
	      ibv_is_fork_initialized() == IBV_FORK_UNNEEDED,
	      "ibv_fork_init() after registration: 0 on a copying kernel");
	if (buf)
		munmap(buf, ps);
}

static void sc_forksafe(enum ibv_fork_status want, int marks)
{
	char *buf = map_pages(1);

	CHECK(ibv_is_fork_initialized() != IBV_FORK_ENABLED,
	      "not applied before ibv_get_device_list()");
	if (!call_get_device_list())
		return;
	CHECK(ibv_is_fork_initialized() == want,
	      "after ibv_get_device_list(): %s (%s)", status_name(want),
	      status_name(ibv_is_fork_initialized()));
	CHECK(buf && ibv_dontfork_range(buf, ps) == 0 &&
	      has_dc(buf) == marks, "registration %s", marks ?
	      "marks the page" : "marks nothing");
	if (buf) {
		ibv_dofork_range(buf, ps);
		munmap(buf, ps);
	}
}

static void sc_forksafe_on(void)
{
	sc_forksafe(IBV_FORK_ENABLED, 1);
}

static void sc_forksafe_off(void)
{
	sc_forksafe(IBV_FORK_DISABLED, 0);
}

static void sc_forksafe_unneeded(void)
{
	sc_forksafe(IBV_FORK_UNNEEDED, 0);
}

static void sc_cof_garbage(void)
{
	enum ibv_fork_status st = ibv_is_fork_initialized();

	if (rdma_netlink_present())
		tap_note("skip: RDMA netlink present (%s)", status_name(st));
	else
		CHECK(st == IBV_FORK_DISABLED,
		      "RDMAV_COPY_ON_FORK=yes is ignored: detection says "
		      "DISABLED");
}

static void sc_hugepages(void)
{
	char *buf = map_pages(3);
	unsigned long m;
	int ret;

	CHECK(ibv_fork_init() == 0, "RDMAV_HUGEPAGES_SAFE: ibv_fork_init()");
	if (!CHECK(buf, "map 3 pages"))
		return;
	ret = ibv_dontfork_range(buf + ps + 10, 10);
	m = dc_mask(buf, 3);
	CHECK(!ret && m == 0x2, "small pages stay page granular (%#lx)", m);
	CHECK(ibv_dofork_range(buf + ps + 10, 10) == 0 &&
	      dc_mask(buf, 3) == 0, "and are released");
	munmap(buf, 3 * ps);
}

/* ---- fork while threads register ---- */

#define THREADS 4
#define AREA_PAGES 64
#define FORKS 200

static char *area;
static int stop;

/*
 * GCC 12's AddressSanitizer does not lock its allocator around fork()
 * (google/sanitizers#774): a child forked while another thread is inside
 * malloc can hang in its own first malloc, whatever the library does.
 * Under ASan the workers therefore stay out of the library while the main
 * thread forks; the plain build exercises the real overlap.
 */
#ifdef __SANITIZE_ADDRESS__
/* Writer first, or the forking thread would starve. */
static pthread_rwlock_t asan_fork_lock =
	PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
#define WORKER_ENTER() pthread_rwlock_rdlock(&asan_fork_lock)
#define WORKER_LEAVE() pthread_rwlock_unlock(&asan_fork_lock)
#define FORK_ENTER() pthread_rwlock_wrlock(&asan_fork_lock)
#define FORK_LEAVE() pthread_rwlock_unlock(&asan_fork_lock)
#else
#define WORKER_ENTER() do { } while (0)
#define WORKER_LEAVE() do { } while (0)
#define FORK_ENTER() do { } while (0)
#define FORK_LEAVE() do { } while (0)
#endif

static void *registrar(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	size_t first, count;
	long bad = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		count = 1 + rand_r(&seed) % 8;
		first = rand_r(&seed) % (AREA_PAGES - count + 1);
		WORKER_ENTER();
		bad += ibv_dontfork_range(area + first * ps + 7,
					  count * ps - 14) != 0;
		bad += ibv_dofork_range(area + first * ps + 7,
					count * ps - 14) != 0;
		WORKER_LEAVE();
	}
	return (void *)bad;
}

static int child_work(void)
{
	char *page = map_pages(1);

	/* A child stuck on an inherited lock dies instead of hanging. */
	alarm(10);
	if (ibv_is_fork_initialized() != IBV_FORK_ENABLED || !page)
		return 1;
	/* The locks were not inherited held: this must not block. */
	if (ibv_dontfork_range(page, ps) || ibv_dofork_range(page, ps))
		return 2;
	return 0;
}

static void sc_threads(void)
{
	pthread_t th[THREADS];
	int i, status, clean = 0;
	long bad = 0;
	void *ret;
	pid_t pid;

	area = map_pages(AREA_PAGES);
	if (!CHECK(area && ibv_fork_init() == 0, "tracking on, %d pages",
		   AREA_PAGES))
		return;
	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, registrar,
			       (void *)(uintptr_t)(i + 1));
	for (i = 0; i < FORKS; i++) {
		FORK_ENTER();
		pid = fork();
		if (pid == 0)
			_exit(child_work());
		FORK_LEAVE();
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 0)
			clean++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], &ret);
		bad += (long)ret;
	}
	CHECK(clean == FORKS, "%d of %d children registered and exited "
	      "cleanly", clean, FORKS);
	CHECK(!bad, "threads' dontfork/dofork all succeeded (%ld failed)",
	      bad);
	CHECK(dc_mask(area, AREA_PAGES) == 0,
	      "every page released: no dc left");
	munmap(area, AREA_PAGES * ps);
}

/* ---- children: no lock held across fork(), nothing inherited ---- */

static char *prep_buf;
static int prep_calls;
static enum ibv_fork_status prep_status = -1;

/*
 * An MR cache's own prepare handler, registered before the library is
 * used, runs after any the library registers (glibc runs prepare
 * handlers in reverse order): it deregisters and asks for the status.
 */
static void cache_prepare(void)
{
	prep_calls++;
	ibv_dofork_range(prep_buf, ps);
	ibv_dontfork_range(prep_buf, ps);
	prep_status = ibv_is_fork_initialized();
}

static void sc_prepare_handler(void)
{
	int status = -1;
	pid_t pid;

	prep_buf = map_pages(1);
	pthread_atfork(cache_prepare, NULL, NULL);
	if (!CHECK(prep_buf && ibv_fork_init() == 0 &&
		   ibv_dontfork_range(prep_buf, ps) == 0,
		   "tracking on, one range registered"))
		return;
	alarm(20);
	pid = fork();
	if (pid == 0)
		_exit(ibv_dontfork_range(map_pages(1), ps) ? 1 : 0);
	waitpid(pid, &status, 0);
	alarm(0);
	CHECK(prep_calls == 1 && prep_status == IBV_FORK_ENABLED,
	      "fork() with a prepare handler that deregisters returns "
	      "(status %d)", prep_status);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child registers (%#x)", status);
	CHECK(has_dc(prep_buf) == 1 && ibv_dofork_range(prep_buf, ps) == 0 &&
	      has_dc(prep_buf) == 0, "the parent's count is intact");
}

static void first_call_prepare(void)
{
	prep_calls++;
	ibv_fork_init();
	prep_status = ibv_is_fork_initialized();
}

/* The library's very first call comes from a prepare handler. */
static void sc_prepare_first_call(void)
{
	int status = -1;
	pid_t pid;

	pthread_atfork(first_call_prepare, NULL, NULL);
	alarm(20);
	pid = fork();
	if (pid == 0)
		_exit(ibv_is_fork_initialized() == IBV_FORK_ENABLED ? 0 : 1);
	waitpid(pid, &status, 0);
	alarm(0);
	CHECK(prep_calls == 1 && prep_status == IBV_FORK_ENABLED,
	      "ibv_fork_init() from a prepare handler returns ENABLED (%d)",
	      prep_status);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child sees ENABLED (%#x)", status);
}

static volatile sig_atomic_t sig_forked;

/* fork() from a signal handler: async-signal-safe since POSIX.1-2001. */
static void fork_on_signal(int sig)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(10);
		_exit(ibv_dontfork_range(area + 16 * ps, ps) == 0 &&
		      ibv_dofork_range(area + 16 * ps, ps) == 0 ? 0 : 1);
	}
	if (pid > 0 && waitpid(pid, (int *)&sig_forked, 0) == pid)
		sig_forked = WIFEXITED(sig_forked) &&
			     !WEXITSTATUS(sig_forked) ? 1 : -1;
	else
		sig_forked = -1;
}

/*
 * Counts 1 -> 2 -> 1 on a range that stays registered: the tree lock is
 * taken and released all the time, but nothing is allocated or advised,
 * so the signal never lands inside malloc (where glibc's own fork()
 * would wait for its arena lock) and often lands inside the tree's lock.
 */
static void *steady_registrar(void *arg)
{
	long bad = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		bad += ibv_dontfork_range(area, 8 * ps) != 0;
		bad += ibv_dofork_range(area, 8 * ps) != 0;
	}
	return (void *)bad;
}

/*
 * The signal interrupts a thread inside the tracker; forking there must
 * not wait for the lock that thread holds, and the child must find the
 * lock usable.
 */
static void sc_signal_fork(void)
{
	pthread_t th;
	int i, good = 0;

#ifdef __SANITIZE_ADDRESS__
	/* See asan_fork_lock: ASan's own state is not fork()-safe here. */
	tap_note("skip: fork() from a signal handler under ASan");
	return;
#endif
	area = map_pages(AREA_PAGES);
	if (!CHECK(area && ibv_fork_init() == 0 &&
		   ibv_dontfork_range(area, 8 * ps) == 0, "tracking on"))
		return;
	signal(SIGUSR1, fork_on_signal);
	alarm(60);
	pthread_create(&th, NULL, steady_registrar, NULL);
	for (i = 0; i < 100; i++) {
		sig_forked = 0;
		pthread_kill(th, SIGUSR1);
		while (!sig_forked)
			usleep(100);
		good += sig_forked == 1;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	alarm(0);
	CHECK(good == 100, "100 forks from a handler interrupting the "
	      "tracker: %d children used the tree", good);
}

/*
 * A child's tree starts empty: at the address of the parent's range,
 * which MADV_DONTFORK removed from the child, the child's own new
 * mapping is marked when the child registers it.  fork() and _Fork()
 * (no atfork handlers at all) alike.
 */
static int child_maps_parent_range(void)
{
	char *again;

	alarm(10);
	if (has_dc(area) != -1)
		return 1;
	again = mmap(area, ps, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (again != area)
		return 2;
	if (ibv_dontfork_range(area, ps) || has_dc(area) != 1)
		return 3;
	if (ibv_dofork_range(area, ps) || has_dc(area) != 0)
		return 4;
	return 0;
}

static void child_tree(pid_t (*forker)(void), const char *how)
{
	int status = -1;
	pid_t pid;

	area = map_pages(1);
	if (!CHECK(area && ibv_fork_init() == 0 &&
		   ibv_dontfork_range(area, ps) == 0, "tracking on"))
		return;
	pid = forker();
	if (pid == 0)
		_exit(child_maps_parent_range());
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: the child's own mapping at the parent's range is marked "
	      "(%#x)", how, status);
	CHECK(has_dc(area) == 1, "%s: the parent's range is still marked",
	      how);
}

static void sc_child_tree(void)
{
	child_tree(fork, "fork()");
}

static void sc_child_tree_raw(void)
{
	child_tree(_Fork, "_Fork()");
}

static void *list_loop(void *arg)
{
	struct ibv_device **l;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		WORKER_ENTER();
		l = ibv_get_device_list(NULL);
		if (l)
			ibv_free_device_list(l);
		WORKER_LEAVE();
	}
	return arg;
}

/*
 * The documented way for a child to use RDMA is to open a device anew:
 * ibv_get_device_list() must work in a child forked while another thread
 * was inside it.
 */
static void sc_child_device_list(void)
{
	struct ibv_device **l;
	int i, status, clean = 0;
	pthread_t th;
	pid_t pid;

	pthread_create(&th, NULL, list_loop, NULL);
	for (i = 0; i < FORKS; i++) {
		FORK_ENTER();
		pid = fork();
		if (pid == 0) {
			alarm(10);
			l = ibv_get_device_list(NULL);
			if (l)
				ibv_free_device_list(l);
			_exit(l ? 0 : 1);
		}
		FORK_LEAVE();
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 0)
			clean++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	CHECK(clean == FORKS, "%d of %d children listed the devices", clean,
	      FORKS);
}

static void *cancelled_first_call(void *arg)
{
	/* Acted on at the first cancellation point inside the call. */
	pthread_cancel(pthread_self());
	ibv_is_fork_initialized();
	pthread_testcancel();
	return arg;
}

/*
 * A thread cancelled during the process's very first verb (getrandom(),
 * poll() and open() are cancellation points) must not leave the other
 * threads waiting for it for ever.
 */
static void sc_cancel_first_call(void)
{
	struct ibv_device **l;
	pthread_t th;
	void *ret = NULL;

	pthread_create(&th, NULL, cancelled_first_call, NULL);
	pthread_join(th, &ret);
	alarm(20);
	l = ibv_get_device_list(NULL);
	if (l)
		ibv_free_device_list(l);
	alarm(0);
	CHECK(ret == PTHREAD_CANCELED && l,
	      "a later call returns after a thread was cancelled in the "
	      "first one");
}

/* Counts the library's reads of smaps (exported, like socket()). */
static unsigned int smaps_opens;

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);

	if (!real)
		real = (FILE * (*)(const char *, const char *))
			dlsym(RTLD_NEXT, "fopen");
	if (!strcmp(path, "/proc/self/smaps"))
		__atomic_add_fetch(&smaps_opens, 1, __ATOMIC_RELAXED);
	return real(path, mode);
}

/* RDMAV_HUGEPAGES_SAFE is read at every ibv_fork_init(), as upstream. */
static void sc_hugepages_late(void)
{
	char *buf = map_pages(1);
	unsigned int before;

	if (!CHECK(buf && ibv_fork_init() == 0, "tracking on"))
		return;
	before = smaps_opens;
	ibv_dontfork_range(buf, ps);
	ibv_dofork_range(buf, ps);
	CHECK(smaps_opens == before, "without the variable: no smaps look-up");
	setenv("RDMAV_HUGEPAGES_SAFE", "1", 1);
	CHECK(ibv_fork_init() == 0, "ibv_fork_init() again");
	before = smaps_opens;
	ibv_dontfork_range(buf, ps);
	ibv_dofork_range(buf, ps);
	CHECK(smaps_opens > before,
	      "set before a later ibv_fork_init(): page size looked up");
	munmap(buf, ps);
}

/* ---- runner ---- */

struct scenario {
	const char *name;
	const char *env[3];
	void (*run)(void);
};

static const struct scenario scenarios[] = {
	{ "default", { NULL }, sc_default },
	{ "cof0", { "RDMAV_COPY_ON_FORK=0" }, sc_cof0 },
	{ "cof0-child", { "RDMAV_COPY_ON_FORK=0" }, sc_cof0_child },
	{ "cof0-late", { "RDMAV_COPY_ON_FORK=0" }, sc_cof0_late },
	{ "cof0-late-dofork", { "RDMAV_COPY_ON_FORK=0" },
	  sc_cof0_late_dofork },
	{ "cof1", { "RDMAV_COPY_ON_FORK=1" }, sc_cof1 },
	{ "cof1-late", { "RDMAV_COPY_ON_FORK=1" }, sc_cof1_late },
	{ "cof0-rdmav-fork-safe", { "RDMAV_COPY_ON_FORK=0",
	  "RDMAV_FORK_SAFE=1" }, sc_forksafe_on },
	{ "cof0-ibv-fork-safe-empty", { "RDMAV_COPY_ON_FORK=0",
	  "IBV_FORK_SAFE=" }, sc_forksafe_on },
	{ "cof0-rdmav-fork-safe-0", { "RDMAV_COPY_ON_FORK=0",
	  "RDMAV_FORK_SAFE=0" }, sc_forksafe_off },
	{ "cof1-rdmav-fork-safe", { "RDMAV_COPY_ON_FORK=1",
	  "RDMAV_FORK_SAFE=1" }, sc_forksafe_unneeded },
	{ "cof-garbage", { "RDMAV_COPY_ON_FORK=yes" }, sc_cof_garbage },
	{ "cof0-hugepages", { "RDMAV_COPY_ON_FORK=0",
	  "RDMAV_HUGEPAGES_SAFE=1" }, sc_hugepages },
	{ "cof0-threads", { "RDMAV_COPY_ON_FORK=0" }, sc_threads },
	{ "cof0-prepare-handler", { "RDMAV_COPY_ON_FORK=0" },
	  sc_prepare_handler },
	{ "cof0-prepare-first-call", { "RDMAV_COPY_ON_FORK=0" },
	  sc_prepare_first_call },
	{ "cof0-signal-fork", { "RDMAV_COPY_ON_FORK=0" }, sc_signal_fork },
	{ "cof0-child-tree", { "RDMAV_COPY_ON_FORK=0" }, sc_child_tree },
	{ "cof0-child-tree-raw", { "RDMAV_COPY_ON_FORK=0" },
	  sc_child_tree_raw },
	{ "child-device-list", { NULL }, sc_child_device_list },
	{ "cancel-first-call", { NULL }, sc_cancel_first_call },
	{ "cof0-hugepages-late", { "RDMAV_COPY_ON_FORK=0" },
	  sc_hugepages_late },
};

#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static const char *const fork_vars[] = {
	"RDMAV_COPY_ON_FORK", "RDMAV_FORK_SAFE", "IBV_FORK_SAFE",
	"RDMAV_HUGEPAGES_SAFE",
};

static int run_scenario(const char *name, int fd)
{
	size_t i;
	char res[32];
	int n;

	for (i = 0; i < NSCENARIOS; i++) {
		if (strcmp(scenarios[i].name, name))
			continue;
		tap_note("scenario %s", name);
		scenarios[i].run();
		n = snprintf(res, sizeof(res), "%u %u\n", tap_passed,
			     tap_failed);
		if (write(fd, res, n) != n)
			return 1;
		return tap_failed ? 1 : 0;
	}
	return 2;
}

static void exec_scenario(const struct scenario *sc, int fd)
{
	char fdstr[16], first[16];
	size_t i;

	for (i = 0; i < sizeof(fork_vars) / sizeof(fork_vars[0]); i++)
		unsetenv(fork_vars[i]);
	for (i = 0; i < 3 && sc->env[i]; i++)
		putenv((char *)sc->env[i]);
	snprintf(fdstr, sizeof(fdstr), "%d", fd);
	snprintf(first, sizeof(first), "%u", tap_first + tap_passed +
		 tap_failed);
	alarm(120);
	execl("/proc/self/exe", "test_fork_policy", "--scenario", sc->name,
	      fdstr, first, (char *)NULL);
	_exit(127);
}

/* Run one scenario in a fresh process; count a crash as a failure. */
static void spawn(const struct scenario *sc)
{
	unsigned int p = 0, f = 0;
	int fds[2], status = 0;
	char res[32] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(fds) || (pid = fork()) < 0) {
		CHECK(0, "%s: could not start", sc->name);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		exec_scenario(sc, fds[1]);
	}
	close(fds[1]);
	/*
	 * Wait first: a stuck grandchild may hold the pipe open, but the
	 * result is already in the pipe when the scenario exits.
	 */
	waitpid(pid, &status, 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	n = read(fds[0], res, sizeof(res) - 1);
	close(fds[0]);
	if (n <= 0 || sscanf(res, "%u %u", &p, &f) != 2) {
		CHECK(0, "%s: died (status %#x)", sc->name, status);
		return;
	}
	tap_passed += p;
	tap_failed += f;
}

int main(int argc, char **argv)
{
	size_t i;

	ps = (size_t)sysconf(_SC_PAGESIZE);
	if (argc == 5 && !strcmp(argv[1], "--scenario")) {
		tap_first = (unsigned int)strtoul(argv[4], NULL, 10);
		return run_scenario(argv[2], atoi(argv[3]));
	}
	for (i = 0; i < NSCENARIOS; i++)
		spawn(&scenarios[i]);
	return tap_done();
}
