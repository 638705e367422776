// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE /* _Fork() */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fork_proc.h"

static int report_fd = -1;

const char *fp_kind_name(enum fp_kind kind)
{
	switch (kind) {
	case FP_FORK:
		return "fork()";
	case FP_UFORK:
		return "_Fork()";
	case FP_CLONE:
		return "raw clone()";
	}
	return "?";
}

pid_t fp_spawn(enum fp_kind kind)
{
	fflush(NULL);
	switch (kind) {
	case FP_FORK:
		return fork();
	case FP_UFORK:
		return _Fork();
	case FP_CLONE:
		/* Same stack, copied: the child returns here like fork's. */
		return syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	}
	errno = EINVAL;
	return -1;
}

int fp_run_grandchild(void (*fn)(void *), void *arg)
{
	pid_t child = getpid(), pid;

	/*
	 * The grandchild's watchdog fires first and the child's begins
	 * anew: a hung grandchild is reported as such, with time for the
	 * child to say so, and it is gone with the child.
	 */
	alarm(FP_WATCHDOG);
	pid = fp_spawn(FP_FORK);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The child died before the signal was armed. */
		if (getppid() != child)
			_exit(1);
		alarm(FP_WATCHDOG - 10);
		fn(arg);
		_exit(0);
	}
	if (pid < 0)
		return -1;
	return fu_wait_until(pid, gc_now_ms() + (FP_WATCHDOG - 5) * 1000);
}

void fp_report_to(int fd)
{
	report_fd = fd;
}

int fp_report_fd(void)
{
	return report_fd;
}

/* One write() per line, so concurrent children do not interleave. */
static __attribute__((format(printf, 3, 0))) void
send_line(char tag, bool cond, const char *fmt, va_list ap)
{
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "%c%d ", tag, cond);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	for (char *p = line; *p; p++)
		if (*p == '\n')
			*p = ' ';
	n = strlen(line);
	line[n++] = '\n';
	if (write(report_fd, line, n) != n)
		_exit(99);
}

static __attribute__((format(printf, 3, 0))) bool
check(char tag, bool cond, const char *fmt, va_list ap)
{
	char text[512];

	if (report_fd >= 0) {
		send_line(tag, cond, fmt, ap);
		return cond;
	}
	vsnprintf(text, sizeof(text), fmt, ap);
	if (tag == 'G')
		return gc_guard(cond, "%s", text);
	if (tag == 'O')
		return gc_ok(cond, "%s", text);
	if (tag == 'S') {
		gc_skip("%s", text);
		return cond;
	}
	gc_diag("%s", text);
	return cond;
}

bool fp_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cond = check('O', cond, fmt, ap);
	va_end(ap);
	return cond;
}

bool fp_guard(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cond = check('G', cond, fmt, ap);
	va_end(ap);
	return cond;
}

void fp_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check('D', true, fmt, ap);
	va_end(ap);
}

/* Print, or pass on to our own parent: relays nest. */
void fp_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check('S', true, fmt, ap);
	va_end(ap);
}

static void relay_line(const char *line)
{
	bool cond = line[1] == '1';
	const char *text = line[0] && line[1] && line[2] ? line + 3 : "";

	switch (line[0]) {
	case 'O':
		fp_ok(cond, "%s", text);
		break;
	case 'G':
		fp_guard(cond, "%s", text);
		break;
	case 'S':
		fp_skip("%s", text);
		break;
	default:
		fp_diag("%s", text);
	}
}

/* A child that has closed its pipe exits within this, unless it hangs. */
#define FP_GRACE_MS 5000

long fp_reap_deadline(long deadline)
{
	long grace = gc_now_ms() + FP_GRACE_MS;

	return deadline > grace ? deadline : grace;
}

void fp_relay(int fd)
{
	fp_relay_until(fd, gc_now_ms() + GC_CHILD_TIMEOUT_MS);
}

void fp_relay_until(int fd, long deadline)
{
	long limit = deadline - gc_now_ms();
	char buf[4096];
	size_t used = 0;
	ssize_t n;
	char *nl;
	int r;

	for (;;) {
		/*
		 * A child that stops talking but lives on is not waited for
		 * past @deadline, whatever it said before.
		 */
		r = gc_fd_ready_until(fd, POLLIN, deadline);
		if (r < 0)
			gc_diag("poll for the child's check lines: %s",
				strerror(errno));
		else if (!r)
			gc_diag("timeout: the child's check lines did not end "
				"within %ld ms", limit);
		if (r != 1)
			break;
		n = read(fd, buf + used, sizeof(buf) - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += n;
		buf[used] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			relay_line(buf);
			used -= nl + 1 - buf;
			memmove(buf, nl + 1, used + 1);
		}
		if (used == sizeof(buf) - 1)
			used = 0; /* an overlong line: drop it */
	}
}

int fp_run(enum fp_kind kind, void (*fn)(void *), void *arg, const char *what)
{
	long deadline = gc_now_ms() + GC_CHILD_TIMEOUT_MS;
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fp_spawn(kind);
	if (pid == 0) {
		close(p[0]);
		fp_report_to(p[1]);
		alarm(FP_WATCHDOG);
		fn(arg);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	/* One limit for the child's run, its lines and its exit. */
	fp_relay_until(p[0], deadline);
	close(p[0]);
	status = fu_wait_until(pid, fp_reap_deadline(deadline));
	if (status == 128 + SIGALRM)
		gc_diag("%s: the process made by %s hung, killed by its "
			"watchdog",
			what, fp_kind_name(kind));
	return status;
}

int fp_buf_map(struct gc_buf *buf, struct ibv_pd *pd, size_t len)
{
	memset(buf, 0, sizeof(*buf));
	buf->addr = fu_map(len);
	if (!buf->addr)
		return -1;
	buf->len = len;
	buf->mr = ibv_reg_mr(pd, buf->addr, len, GC_ACCESS_ALL);
	return buf->mr ? 0 : -1;
}

void fp_buf_unmap(struct gc_buf *buf)
{
	if (buf->mr)
		ibv_dereg_mr(buf->mr);
	fu_unmap(buf->addr, buf->len);
	memset(buf, 0, sizeof(*buf));
}

void fp_diag_provider(void)
{
	gc_diag("rxe served by %s", gc_librxe_mapped() ?
					    "Debian's librxe" :
					    "the built-in provider");
}

bool fp_parent_start(const char *test, struct fp_pair *fp)
{
	if (!fu_start(test) ||
	    !gc_ok(!fp_pair_open(fp), "parent: rxe0 <-> rxe1 RC pair"))
		return false;
	fp_diag_provider();
	return true;
}

int fp_pair_open(struct fp_pair *fp)
{
	struct gc_qp_caps caps = { .max_send_wr = 16, .max_recv_wr = 16 };

	memset(fp, 0, sizeof(*fp));
	if (gc_pair_open(&fp->p, IBV_QPT_RC, &caps))
		return -1;
	if (fp_buf_map(&fp->a, fp->p.a.pd, FP_LEN) ||
	    fp_buf_map(&fp->b, fp->p.b.pd, FP_LEN)) {
		fp_pair_close(fp);
		return -1;
	}
	return 0;
}

void fp_pair_close(struct fp_pair *fp)
{
	fp_buf_unmap(&fp->a);
	fp_buf_unmap(&fp->b);
	gc_pair_close(&fp->p);
}

/*
 * Wait for the completion of @wr_id on @cq; completions of a child's
 * requests on the way are counted in *stray.  True on success.
 */
static bool wait_wr(struct ibv_cq *cq, uint64_t wr_id, int *stray)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 8; i++) {
		if (gc_poll(cq, 1, &wc, GC_TIMEOUT_MS) != 1)
			return false;
		if (wc.wr_id == wr_id)
			return wc.status == IBV_WC_SUCCESS;
		if (wc.wr_id == FP_CHILD_WR_ID)
			(*stray)++;
	}
	return false;
}

static bool send_recv(struct fp_pair *fp, int *stray)
{
	struct ibv_wc wc;
	int i;

	if (gc_post_recv(fp->p.qp_b, &fp->b, 0, FP_LEN, 3))
		return false;
	/*
	 * A receive a child slipped into the shared ring takes the first
	 * SEND: count it and send again, so that the parent's own receive
	 * is still checked.
	 */
	for (i = 0; i < 3; i++) {
		if (gc_post_send(fp->p.qp_a, IBV_WR_SEND, &fp->a, 0, FP_LEN, 4,
				 IBV_SEND_SIGNALED, 0, 0) ||
		    !wait_wr(fp->p.cq_a, 4, stray) ||
		    gc_poll(fp->p.cq_b, 1, &wc, GC_TIMEOUT_MS) != 1)
			return false;
		if (wc.wr_id == 3)
			return wc.status == IBV_WC_SUCCESS &&
			       !memcmp(fp->a.addr, fp->b.addr, FP_LEN);
		if (wc.wr_id == FP_CHILD_WR_ID)
			(*stray)++;
	}
	return false;
}

bool fp_counts_read(struct fp_counts *c)
{
	return gc_rdma_counts(c->text, sizeof(c->text));
}

void fp_parent_unharmed(struct fp_pair *fp, const char *who,
			const struct fp_counts *before, uint8_t seed)
{
	struct fp_counts after;
	char when[96];

	snprintf(when, sizeof(when), "parent after %s", who);
	fp_traffic(fp, when, seed);
	gc_guard(fp_counts_read(&after) && !strcmp(before->text, after.text),
		 "%s: kernel object counts unchanged by the child", who);
	if (strcmp(before->text, after.text))
		gc_diag("before:\n%s\nafter:\n%s", before->text, after.text);
}

void fp_run_unharmed(enum fp_kind kind, void (*fn)(void *), struct fp_pair *fp,
		     const struct fp_counts *before, uint8_t seed)
{
	char who[64];
	int status;

	snprintf(who, sizeof(who), "child of %s", fp_kind_name(kind));
	status = fp_run(kind, fn, who, who);
	gc_ok(status == 0, "%s exited normally (%d)", who, status);
	fp_parent_unharmed(fp, who, before, seed);
}

bool fp_traffic(struct fp_pair *fp, const char *when, uint8_t seed)
{
	struct gc_buf *a = &fp->a, *b = &fp->b;
	struct ibv_wc wc[4];
	int stray = 0, n, i;
	bool w, r, s;

	gc_fill(a->addr, FP_LEN, seed);
	w = !gc_post_send(fp->p.qp_a, IBV_WR_RDMA_WRITE, a, 0, FP_LEN, 1,
			  IBV_SEND_SIGNALED, (uintptr_t)b->addr, b->mr->rkey) &&
	    wait_wr(fp->p.cq_a, 1, &stray) && !memcmp(a->addr, b->addr, FP_LEN);
	fp_ok(w, "%s: RDMA WRITE rxe0 -> rxe1, bytes checked", when);
	gc_fill(b->addr, FP_LEN, seed + 1);
	r = !gc_post_send(fp->p.qp_a, IBV_WR_RDMA_READ, a, 0, FP_LEN, 2,
			  IBV_SEND_SIGNALED, (uintptr_t)b->addr, b->mr->rkey) &&
	    wait_wr(fp->p.cq_a, 2, &stray) && !memcmp(a->addr, b->addr, FP_LEN);
	fp_ok(r, "%s: RDMA READ rxe1 -> rxe0, bytes checked", when);
	gc_fill(a->addr, FP_LEN, seed + 2);
	s = send_recv(fp, &stray);
	fp_ok(s, "%s: SEND/RECV rxe0 -> rxe1, bytes checked", when);

	/* Anything left on the CQs is not the parent's. */
	n = ibv_poll_cq(fp->p.cq_a, 4, wc);
	for (i = 0; i < n; i++)
		stray += wc[i].wr_id == FP_CHILD_WR_ID;
	n = ibv_poll_cq(fp->p.cq_b, 4, wc);
	for (i = 0; i < n; i++)
		stray += wc[i].wr_id == FP_CHILD_WR_ID;
	fp_guard(!stray, "%s: no completion of a child's request (%d)", when,
		 stray);
	return w && r && s;
}

void fp_child_attack(struct fp_pair *fp, const char *who)
{
	struct ibv_sge sge = { (uintptr_t)fp->a.addr, FP_LEN, fp->a.mr->lkey };
	struct ibv_sge rsge = { (uintptr_t)fp->b.addr, FP_LEN, fp->b.mr->lkey };
	struct ibv_send_wr swr = { .wr_id = FP_CHILD_WR_ID,
				   .sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE,
				   .send_flags = IBV_SEND_SIGNALED },
			   *sbad = NULL;
	/* Big enough for the parent's SEND: it must not break the QP. */
	struct ibv_recv_wr rwr = { .wr_id = FP_CHILD_WR_ID,
				   .sg_list = &rsge,
				   .num_sge = 1 },
			   *rbad = NULL;
	struct ibv_device_attr attr;
	struct ibv_wc wc;
	int ret;

	swr.wr.rdma.remote_addr = (uintptr_t)fp->b.addr;
	swr.wr.rdma.rkey = fp->b.mr->rkey;
	ret = ibv_post_send(fp->p.qp_a, &swr, &sbad);
	fp_guard(ret == EPERM && sbad == &swr,
		 "%s: ibv_post_send on inherited QP -> EPERM (%d: %s)", who,
		 ret, strerror(ret));
	ret = ibv_post_recv(fp->p.qp_b, &rwr, &rbad);
	fp_guard(ret == EPERM && rbad == &rwr,
		 "%s: ibv_post_recv on inherited QP -> EPERM (%d: %s)", who,
		 ret, strerror(ret));
	ret = ibv_poll_cq(fp->p.cq_a, 1, &wc);
	fp_guard(ret < 0, "%s: ibv_poll_cq on inherited CQ -> %d (< 0)", who,
		 ret);
	ret = ibv_query_device(fp->p.a.ctx, &attr);
	fp_guard(ret == EPERM,
		 "%s: ibv_query_device on inherited context -> EPERM (%d)", who,
		 ret);
}

bool fp_child_own_rdma(const char *who)
{
	struct fp_pair fp;
	char when[64];
	bool ok;

	if (!fp_ok(!fp_pair_open(&fp), "%s: opens rxe0 and rxe1 afresh", who))
		return false;
	snprintf(when, sizeof(when), "%s, own QP", who);
	ok = fp_traffic(&fp, when, 0x5a);
	fp_pair_close(&fp);
	return ok;
}

void fp_xrcd_stand_in(struct fp_xrcd *x, struct ibv_context *ctx)
{
	memset(x, 0, sizeof(*x));
	x->xrcd.context = ctx;
	x->handle = UINT32_MAX;
}
