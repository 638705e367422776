// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bounded waits of tests/guest/common (gc_wait_child, gc_wait_fd,
 * gc_read_fd) on what makes a test hang: a child that never exits, a pipe
 * nobody writes, a message that stops half way.  Each must end near its
 * limit, kill what it waited for where it can, and say what it waited
 * for; a wait that ends in time must not be cut short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_common.h"
#include "tap.h"

/* Above GC_QUIET_MS, below which a timeout is not reported. */
#define LIMIT_MS (GC_QUIET_MS + 200)
/* Room for a loaded machine, far below what a hang would take. */
#define SLACK_MS 5000

/* What gc_diag() printed while @fn ran, as it goes to stdout. */
struct capture {
	int saved, fd;
	char text[1024];
};

static void capture_begin(struct capture *c)
{
	fflush(stdout);
	c->saved = dup(STDOUT_FILENO);
	c->fd = memfd_create("diag", 0);
	dup2(c->fd, STDOUT_FILENO);
}

static const char *capture_end(struct capture *c)
{
	ssize_t n;

	fflush(stdout);
	dup2(c->saved, STDOUT_FILENO);
	close(c->saved);
	n = pread(c->fd, c->text, sizeof(c->text) - 1, 0);
	c->text[n > 0 ? n : 0] = '\0';
	close(c->fd);
	return c->text;
}

static bool in_time(long start)
{
	long took = gc_now_ms() - start;

	return took >= LIMIT_MS && took < LIMIT_MS + SLACK_MS;
}

static pid_t child_that(int exit_code, int write_fd, size_t write_len)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (write_fd >= 0 && write(write_fd, "12345678", write_len) < 0)
		_exit(1);
	if (exit_code >= 0)
		_exit(exit_code);
	for (;;)
		pause();
}

static void test_child_hangs(void)
{
	struct capture c;
	char want[128];
	long start = gc_now_ms();
	pid_t pid = child_that(-1, -1, 0), r;
	int status = -1;

	capture_begin(&c);
	r = gc_wait_child(pid, &status, LIMIT_MS, "a child that pauses");
	capture_end(&c);
	CHECK(r == -1 && errno == ETIMEDOUT,
	      "a child that never exits: -1/ETIMEDOUT (%d)", (int)r);
	CHECK(in_time(start), "... after its limit, not much later");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	      "... killed with SIGKILL and reaped (status 0x%x)", status);
	CHECK(kill(pid, 0) < 0 && errno == ESRCH, "... no process is left");
	snprintf(want, sizeof(want),
		 "# timeout: child %d (a child that pauses) still running "
		 "after %d ms: killed\n", (int)pid, (int)LIMIT_MS);
	CHECK(!strcmp(c.text, want), "... and says so: %s", c.text);
}

static void test_child_exits(void)
{
	pid_t pid = child_that(3, -1, 0), r;
	int status = -1;

	r = gc_wait_child(pid, &status, 10 * LIMIT_MS, "a child");
	CHECK(r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 3,
	      "a child that exits: its pid and status (0x%x)", status);
}

static void test_silent_pipe(void)
{
	struct capture c;
	char want[128], buf[8];
	int fds[2], r;
	long start;
	ssize_t n;
	pid_t pid;

	if (!CHECK(!pipe(fds), "pipe"))
		return;
	start = gc_now_ms();
	capture_begin(&c);
	r = gc_wait_fd(fds[0], POLLIN, LIMIT_MS, "word from nobody");
	capture_end(&c);
	CHECK(r == 0 && in_time(start),
	      "a pipe nobody writes: 0 after the limit (%d)", r);
	snprintf(want, sizeof(want),
		 "# timeout: nothing came on fd %d (word from nobody) within "
		 "%d ms\n",
		 fds[0], (int)LIMIT_MS);
	CHECK(!strcmp(c.text, want), "... and says so: %s", c.text);

	/* Half a message, from a child that then waits for good. */
	pid = child_that(-1, fds[1], 4);
	start = gc_now_ms();
	capture_begin(&c);
	n = gc_read_fd(fds[0], buf, sizeof(buf), LIMIT_MS, "the results");
	capture_end(&c);
	CHECK(n == -1 && in_time(start),
	      "half a message: -1 after the limit (%zd)", n);
	snprintf(want, sizeof(want),
		 "# timeout: the results: 4 of 8 bytes within %d ms\n",
		 (int)LIMIT_MS);
	CHECK(!strcmp(c.text, want),
	      "... and says how much came, and its whole limit: %s", c.text);
	gc_wait_child(pid, NULL, LIMIT_MS, "the writer");

	/* The whole message, and an end of file after part of one. */
	pid = child_that(0, fds[1], 8);
	n = gc_read_fd(fds[0], buf, sizeof(buf), 10 * LIMIT_MS, "message");
	CHECK(n == 8 && !memcmp(buf, "12345678", 8), "a whole message (%zd)",
	      n);
	gc_wait_child(pid, NULL, 10 * LIMIT_MS, "the writer");
	pid = child_that(0, fds[1], 3);
	close(fds[1]);
	n = gc_read_fd(fds[0], buf, sizeof(buf), 10 * LIMIT_MS, "message");
	CHECK(n == 3, "end of file after 3 bytes: 3 (%zd)", n);
	gc_wait_child(pid, NULL, 10 * LIMIT_MS, "the writer");
	/* Hung up: POLLHUP alone, which a read() turns into end of file. */
	CHECK(gc_wait_fd(fds[0], POLLIN, LIMIT_MS, "end of file") == 1,
	      "a pipe whose writer closed is ready to read (its end)");
	close(fds[0]);
}

static void test_quiet_and_shared(void)
{
	struct capture c;
	long start, deadline;
	int fds[2], r;
	pid_t a, b;

	if (!CHECK(!pipe(fds), "pipe"))
		return;
	capture_begin(&c);
	r = gc_wait_fd(fds[0], POLLIN, GC_QUIET_MS / 10, "nothing, briefly");
	capture_end(&c);
	CHECK(r == 0 && !c.text[0],
	      "a wait of at most GC_QUIET_MS that sees nothing says nothing "
	      "(%d, \"%s\")", r, c.text);
	close(fds[0]);
	close(fds[1]);
	CHECK(gc_wait_fd(fds[0], POLLIN, LIMIT_MS, "a closed fd") == -1 &&
	      errno == EBADF, "a closed descriptor (POLLNVAL) is an error");

	/* Two children that hang, one deadline: not twice the limit. */
	a = child_that(-1, -1, 0);
	b = child_that(-1, -1, 0);
	start = gc_now_ms();
	deadline = start + LIMIT_MS;
	capture_begin(&c);
	gc_wait_child_until(a, NULL, deadline, "first");
	gc_wait_child_until(b, NULL, deadline, "second");
	capture_end(&c);
	CHECK(in_time(start) && gc_now_ms() - start < 2 * LIMIT_MS,
	      "two waits for one deadline end near it, not after two limits");
	CHECK(kill(a, 0) < 0 && kill(b, 0) < 0,
	      "... and both children are gone");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_child_hangs();
	test_child_exits();
	test_silent_pipe();
	test_quiet_and_shared();
	return tap_done();
}
