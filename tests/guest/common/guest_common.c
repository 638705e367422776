// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Helpers for the in-guest C tests; see guest_common.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_common.h"

static int gc_passed, gc_failed, gc_skipped, gc_count;
static char gc_libpath[4096];

/* Reporting */

const char *gc_mapped_libibverbs(void)
{
	char line[4608];
	FILE *f;

	if (gc_libpath[0])
		return gc_libpath;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return "?";
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p || !strstr(p, "/libibverbs.so"))
			continue;
		p[strcspn(p, "\n")] = '\0';
		snprintf(gc_libpath, sizeof(gc_libpath), "%s", p);
		break;
	}
	fclose(f);
	return gc_libpath[0] ? gc_libpath : "?";
}

void gc_start(const char *test_name)
{
	const char *want = getenv("GC_EXPECT_LIB");
	const char *lib = gc_mapped_libibverbs();

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# %s: libibverbs mapped from %s\n", test_name, lib);
	if (want && *want)
		gc_ok(strstr(lib, want) != NULL, "mapped library matches %s",
		      want);
}

static __attribute__((format(printf, 3, 0))) void
gc_vline(bool cond, const char *tag, const char *fmt, va_list ap)
{
	printf("%s %d - ", cond ? "ok" : "not ok", ++gc_count);
	vprintf(fmt, ap);
	if (tag)
		printf(" # %s", tag);
	putchar('\n');
}

static __attribute__((format(printf, 3, 0))) bool
gc_vcheck(bool cond, const char *tag, const char *fmt, va_list ap)
{
	gc_vline(cond, tag, fmt, ap);
	if (cond)
		gc_passed++;
	else
		gc_failed++;
	return cond;
}

bool gc_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gc_vcheck(cond, NULL, fmt, ap);
	va_end(ap);
	return cond;
}

bool gc_guard(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gc_vcheck(cond, "guard", fmt, ap);
	va_end(ap);
	return cond;
}

bool gc_system_lib(void)
{
	const char *lib = gc_mapped_libibverbs();
	const char *base = strrchr(lib, '/');

	return (!strncmp(lib, "/usr/lib/", 9) || !strncmp(lib, "/lib/", 5)) &&
	       base && !strcmp(base, "/libibverbs.so.1.14.44.0");
}

bool gc_librxe_mapped(void)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/librxe" IBV_TEST_PROVIDER_SUFFIX) !=
			NULL;
	fclose(f);
	return found;
}

/* A check whose failure is reported as known (TODO @bug) when @known. */
static __attribute__((format(printf, 5, 0))) void
gc_vknown(bool known, bool cond, const char *tag, const char *bug,
	  const char *fmt, va_list ap)
{
	if (cond || !known) {
		gc_vcheck(cond, tag, fmt, ap);
		return;
	}
	printf("not ok %d - ", ++gc_count);
	vprintf(fmt, ap);
	printf(" # TODO %s\n", bug);
	gc_skipped++;
}

bool gc_known_bug(bool cond, const char *bug, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gc_vknown(gc_system_lib(), cond, NULL, bug, fmt, ap);
	va_end(ap);
	return cond;
}

bool gc_builtin_guard(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gc_vknown(gc_librxe_mapped() && !gc_system_lib(), cond, "guard",
		  "a guarantee of the built-in rxe provider that Debian's "
		  "librxe lacks", fmt, ap);
	va_end(ap);
	return cond;
}

bool gc_known_librxe_bug(bool cond, const char *bug, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gc_vknown(gc_librxe_mapped(), cond, NULL, bug, fmt, ap);
	va_end(ap);
	return cond;
}

void gc_skip(const char *fmt, ...)
{
	va_list ap;

	gc_skipped++;
	printf("ok %d - # SKIP ", ++gc_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void gc_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

int gc_finish(void)
{
	if (gc_skipped)
		printf("%d passed, %d failed, %d skipped\n", gc_passed,
		       gc_failed, gc_skipped);
	else
		printf("%d passed, %d failed\n", gc_passed, gc_failed);
	return gc_failed || !gc_passed ? 1 : 0;
}

const char *gc_status_str(enum ibv_wc_status status)
{
	return ibv_wc_status_str(status);
}

/* Devices */

int gc_find_gid(struct ibv_context *ctx, uint8_t port, const char *ipv4,
		union ibv_gid *gid)
{
	struct ibv_port_attr pattr;
	union ibv_gid want = {}, g;
	int i;

	if (inet_pton(AF_INET, ipv4, &want.raw[12]) != 1)
		return -1;
	want.raw[10] = 0xff;
	want.raw[11] = 0xff;
	if (ibv_query_port(ctx, port, &pattr))
		return -1;
	for (i = 0; i < pattr.gid_tbl_len; i++) {
		if (ibv_query_gid(ctx, port, i, &g))
			continue;
		if (!memcmp(&g, &want, sizeof(g))) {
			if (gid)
				*gid = g;
			return i;
		}
	}
	return -1;
}

static struct ibv_context *gc_open_by_name(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

int gc_dev_open(struct gc_dev *dev, int which)
{
	memset(dev, 0, sizeof(*dev));
	dev->name = which ? "rxe1" : "rxe0";
	dev->ip = which ? "198.18.0.2" : "198.18.0.1";
	dev->ctx = gc_open_by_name(dev->name);
	if (!dev->ctx) {
		gc_diag("cannot open %s: %s", dev->name, strerror(errno));
		return -1;
	}
	dev->gid_index = gc_find_gid(dev->ctx, GC_PORT, dev->ip, &dev->gid);
	if (dev->gid_index < 0) {
		gc_diag("no GID ::ffff:%s on %s", dev->ip, dev->name);
		goto err;
	}
	dev->pd = ibv_alloc_pd(dev->ctx);
	if (!dev->pd) {
		gc_diag("ibv_alloc_pd on %s: %s", dev->name, strerror(errno));
		goto err;
	}
	return 0;
err:
	ibv_close_device(dev->ctx);
	dev->ctx = NULL;
	return -1;
}

void gc_dev_close(struct gc_dev *dev)
{
	if (dev->pd)
		ibv_dealloc_pd(dev->pd);
	if (dev->ctx)
		ibv_close_device(dev->ctx);
	memset(dev, 0, sizeof(*dev));
}

/* Memory */

void gc_fill(void *p, size_t len, uint8_t seed)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

int gc_buf_alloc(struct gc_buf *buf, struct ibv_pd *pd, size_t len,
		 int access, uint8_t seed)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	size_t alloc = (len + pg - 1) / pg * pg;

	memset(buf, 0, sizeof(*buf));
	if (posix_memalign((void **)&buf->addr, pg, alloc ? alloc : pg))
		return -1;
	buf->len = len;
	gc_fill(buf->addr, len, seed);
	buf->mr = ibv_reg_mr(pd, buf->addr, len, access);
	if (!buf->mr) {
		gc_diag("ibv_reg_mr(%zu): %s", len, strerror(errno));
		free(buf->addr);
		buf->addr = NULL;
		return -1;
	}
	return 0;
}

void gc_buf_free(struct gc_buf *buf)
{
	if (buf->mr)
		ibv_dereg_mr(buf->mr);
	free(buf->addr);
	memset(buf, 0, sizeof(*buf));
}

/* Queue pairs */

struct ibv_qp *gc_create_qp(struct gc_dev *dev, struct ibv_cq *cq,
			    enum ibv_qp_type type,
			    const struct gc_qp_caps *caps)
{
	static const struct gc_qp_caps defaults;
	struct ibv_qp_init_attr attr = {};
	struct ibv_qp *qp;

	if (!caps)
		caps = &defaults;
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.srq = caps->srq;
	attr.qp_type = type;
	attr.sq_sig_all = caps->sq_sig_all;
	attr.cap.max_send_wr = caps->max_send_wr ? caps->max_send_wr : 64;
	attr.cap.max_recv_wr = caps->max_recv_wr ? caps->max_recv_wr : 64;
	attr.cap.max_send_sge = caps->max_send_sge ? caps->max_send_sge : 4;
	attr.cap.max_recv_sge = caps->max_recv_sge ? caps->max_recv_sge : 4;
	attr.cap.max_inline_data = caps->max_inline_data;
	qp = ibv_create_qp(dev->pd, &attr);
	if (!qp)
		gc_diag("ibv_create_qp on %s: %s", dev->name, strerror(errno));
	return qp;
}

int gc_qp_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = GC_PORT,
		.qp_access_flags = access,
		.qkey = GC_QKEY,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return ibv_modify_qp(qp, &attr, mask);
}

static int gc_qp_rtr(struct ibv_qp *qp, struct gc_dev *local,
		     struct ibv_qp *remote_qp, struct gc_dev *remote)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = remote_qp->qp_num,
		.rq_psn = 0,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
		.ah_attr = {
			.is_global = 1,
			.port_num = GC_PORT,
			.grh = {
				.dgid = remote->gid,
				.sgid_index = local->gid_index,
				.hop_limit = 64,
			},
		},
	};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return ibv_modify_qp(qp, &attr, mask);
}

static int gc_qp_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = 0,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 4,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return ibv_modify_qp(qp, &attr, mask);
}

int gc_connect(struct ibv_qp *a, struct gc_dev *da, struct ibv_qp *b,
	       struct gc_dev *db)
{
	int err;

	if ((err = gc_qp_init(a, GC_ACCESS_ALL)) ||
	    (err = gc_qp_init(b, GC_ACCESS_ALL)) ||
	    (err = gc_qp_rtr(a, da, b, db)) ||
	    (err = gc_qp_rtr(b, db, a, da)) ||
	    (err = gc_qp_rts(a)) || (err = gc_qp_rts(b))) {
		gc_diag("connecting QPs: %s", strerror(err));
		return err;
	}
	return 0;
}

int gc_ud_ready(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTR };
	int err;

	err = gc_qp_init(qp, 0);
	if (!err)
		err = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	if (!err)
		err = gc_qp_rts(qp);
	if (err)
		gc_diag("UD QP to RTS: %s", strerror(err));
	return err;
}

struct ibv_ah *gc_create_ah(struct gc_dev *from, struct gc_dev *to)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = GC_PORT,
		.grh = {
			.dgid = to->gid,
			.sgid_index = from->gid_index,
			.hop_limit = 64,
		},
	};
	struct ibv_ah *ah = ibv_create_ah(from->pd, &attr);

	if (!ah)
		gc_diag("ibv_create_ah %s -> %s: %s", from->name, to->name,
			strerror(errno));
	return ah;
}

/* Completions */

long gc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/*
 * Sleep after an empty poll, longer the longer nothing came: a completion
 * usually comes within a millisecond or two, but a test that waits out its
 * deadline (a kernel that never completes, a child's request refused)
 * would wake the guest 5000 times a second, and under TCG each wake-up
 * takes host CPU that CI's other guests need.  A quarter of the time idle
 * so far, from 200 us to 5 ms: a wait overshoots by a quarter at most.
 */
static void gc_idle_sleep(long idle_since_ms)
{
	long us = (gc_now_ms() - idle_since_ms) * 250;

	usleep(us < 200 ? 200 : us > 5000 ? 5000 : us);
}

int gc_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc, int timeout_ms)
{
	long deadline = gc_now_ms() + timeout_ms, idle_since = gc_now_ms();
	unsigned int idle = 0;
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0) {
			gc_diag("ibv_poll_cq returned %d", r);
			return -1;
		}
		got += r;
		if (r) {
			idle = 0;
			idle_since = gc_now_ms();
			continue;
		}
		if (gc_now_ms() > deadline) {
			if (timeout_ms > GC_QUIET_MS)
				gc_diag("timeout: %d of %d completions on CQ "
					"%u after %d ms", got, n, cq->handle,
					timeout_ms);
			break;
		}
		/* The guest may have few CPUs: let the kernel side run. */
		if (++idle > 100)
			gc_idle_sleep(idle_since);
	}
	return got;
}

int gc_poll_ex(struct ibv_cq_ex *cq, int n, uint64_t *wr_ids, int timeout_ms)
{
	long deadline = gc_now_ms() + timeout_ms, idle_since = gc_now_ms();
	struct ibv_poll_cq_attr attr = {};
	int got = 0, r;

	while (got < n) {
		r = ibv_start_poll(cq, &attr);
		if (r == ENOENT) {
			if (gc_now_ms() > deadline) {
				if (timeout_ms > GC_QUIET_MS)
					gc_diag("timeout: %d of %d completions "
						"on CQ ex %u after %d ms", got,
						n, ibv_cq_ex_to_cq(cq)->handle,
						timeout_ms);
				break;
			}
			gc_idle_sleep(idle_since);
			continue;
		}
		idle_since = gc_now_ms();
		if (r) {
			gc_diag("ibv_start_poll returned %d", r);
			return -1;
		}
		/*
		 * One entry per ibv_start_poll(): librxe 44's ibv_end_poll()
		 * after an ibv_next_poll() that found nothing consumes one
		 * entry too many.
		 */
		wr_ids[got++] = cq->status == IBV_WC_SUCCESS ? cq->wr_id : 0;
		ibv_end_poll(cq);
	}
	return got;
}

int gc_post_recv(struct ibv_qp *qp, struct gc_buf *buf, size_t off,
		 uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(buf->addr + off),
		.length = len,
		.lkey = buf->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad = NULL;

	return ibv_post_recv(qp, &wr, &bad);
}

int gc_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op,
		 struct gc_buf *buf, size_t off, uint32_t len, uint64_t wr_id,
		 unsigned int flags, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(buf->addr + off),
		.length = len,
		.lkey = buf->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = flags,
	}, *bad = NULL;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* Pairs */

int gc_pair_open(struct gc_pair *p, enum ibv_qp_type type,
		 const struct gc_qp_caps *caps)
{
	memset(p, 0, sizeof(*p));
	if (gc_dev_open(&p->a, 0) || gc_dev_open(&p->b, 1))
		goto err;
	p->cq_a = ibv_create_cq(p->a.ctx, GC_CQ_SIZE, NULL, NULL, 0);
	p->cq_b = ibv_create_cq(p->b.ctx, GC_CQ_SIZE, NULL, NULL, 0);
	if (!p->cq_a || !p->cq_b) {
		gc_diag("ibv_create_cq: %s", strerror(errno));
		goto err;
	}
	if (!type)
		return 0;
	p->qp_a = gc_create_qp(&p->a, p->cq_a, type, caps);
	p->qp_b = gc_create_qp(&p->b, p->cq_b, type, caps);
	if (!p->qp_a || !p->qp_b)
		goto err;
	if (type == IBV_QPT_UD) {
		if (gc_ud_ready(p->qp_a) || gc_ud_ready(p->qp_b))
			goto err;
	} else if (gc_connect(p->qp_a, &p->a, p->qp_b, &p->b)) {
		goto err;
	}
	return 0;
err:
	gc_pair_close(p);
	return -1;
}

int gc_pair_rc_on(struct gc_pair *p, struct ibv_cq *cq_b)
{
	if (!cq_b)
		return -1;
	p->qp_a = gc_create_qp(&p->a, p->cq_a, IBV_QPT_RC, NULL);
	p->qp_b = gc_create_qp(&p->b, cq_b, IBV_QPT_RC, NULL);
	if (!p->qp_a || !p->qp_b)
		return -1;
	return gc_connect(p->qp_a, &p->a, p->qp_b, &p->b);
}

void gc_pair_close(struct gc_pair *p)
{
	if (p->qp_a)
		ibv_destroy_qp(p->qp_a);
	if (p->qp_b)
		ibv_destroy_qp(p->qp_b);
	if (p->cq_a)
		ibv_destroy_cq(p->cq_a);
	if (p->cq_b)
		ibv_destroy_cq(p->cq_b);
	gc_dev_close(&p->a);
	gc_dev_close(&p->b);
	memset(p, 0, sizeof(*p));
}

/* Bounded waits */

int gc_fd_ready_until(int fd, short events, long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	long left;
	int r;

	for (;;) {
		left = deadline - gc_now_ms();
		r = poll(&pfd, 1, left < 0 ? 0 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r) {
			if (left <= 0)
				return 0;
			continue;
		}
		if (pfd.revents & POLLNVAL) {
			errno = EBADF;
			return -1;
		}
		if (pfd.revents & events)
			return 1;
		if ((events & POLLIN) && (pfd.revents & (POLLHUP | POLLERR)))
			return 1;
		errno = EPIPE;
		return -1;
	}
}

int gc_wait_fd(int fd, short events, int timeout_ms, const char *what)
{
	int r = gc_fd_ready_until(fd, events, gc_now_ms() + timeout_ms);

	if (r < 0)
		gc_diag("poll on fd %d for %s: %s", fd, what, strerror(errno));
	else if (!r && timeout_ms > GC_QUIET_MS)
		gc_diag("timeout: nothing came on fd %d (%s) within %d ms", fd,
			what, timeout_ms);
	return r;
}

ssize_t gc_read_fd(int fd, void *buf, size_t len, int timeout_ms,
		   const char *what)
{
	long deadline = gc_now_ms() + timeout_ms;
	size_t got = 0;
	ssize_t n;
	int r;

	while (got < len) {
		r = gc_fd_ready_until(fd, POLLIN, deadline);
		if (r < 0) {
			gc_diag("poll on fd %d for %s: %s", fd, what,
				strerror(errno));
			return -1;
		}
		if (!r) {
			gc_diag("timeout: %s: %zu of %zu bytes within %d ms",
				what, got, len, timeout_ms);
			return -1;
		}
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			gc_diag("read of %s: %s", what, strerror(errno));
			return -1;
		}
		if (!n)
			break;
		got += n;
	}
	return got;
}

/* After SIGKILL a child dies at once unless the kernel holds it. */
#define GC_REAP_MS	5000

/*
 * Most children end within milliseconds and some tests fork hundreds in
 * a row: look again soon at first, then every 20 ms.
 */
static pid_t gc_reap_until(pid_t pid, int *status, long deadline)
{
	unsigned int us = 250;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r != 0 && !(r < 0 && errno == EINTR))
			return r;
		if (gc_now_ms() > deadline)
			return 0;
		usleep(us);
		if (us < 20000)
			us *= 2;
	}
}

/* gc_wait_child_until(), which says it waited @limit_ms in all. */
static pid_t gc_wait_child_limit(pid_t pid, int *status, long deadline_ms,
				 long limit_ms, const char *what)
{
	int st = 0;
	pid_t r;

	if (!status)
		status = &st;
	r = gc_reap_until(pid, status, deadline_ms);
	if (r == pid)
		return pid;
	if (r < 0) {
		gc_diag("waitpid for child %d (%s): %s", (int)pid, what,
			strerror(errno));
		return -1;
	}
	kill(pid, SIGKILL);
	r = gc_reap_until(pid, status, gc_now_ms() + GC_REAP_MS);
	gc_diag("timeout: child %d (%s) still running after %ld ms: %s",
		(int)pid, what, limit_ms,
		r == pid ? "killed" : "killed, but not dead yet");
	errno = ETIMEDOUT;
	return -1;
}

pid_t gc_wait_child_until(pid_t pid, int *status, long deadline_ms,
			  const char *what)
{
	long left = deadline_ms - gc_now_ms();

	return gc_wait_child_limit(pid, status, deadline_ms,
				   left > 0 ? left : 0, what);
}

pid_t gc_wait_child(pid_t pid, int *status, int timeout_ms, const char *what)
{
	return gc_wait_child_limit(pid, status, gc_now_ms() + timeout_ms,
				   timeout_ms, what);
}

bool gc_rdma_counts(char *buf, size_t len)
{
	FILE *f;
	size_t n;

	fflush(stdout);
	f = popen("rdma resource show 2>&1", "r");
	if (!f || len < 2) {
		if (f)
			pclose(f);
		return false;
	}
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	/*
	 * Read what did not fit to the end: pclose() waits for the
	 * command, which blocks on a full pipe nobody reads.
	 */
	while (n == len - 1 && !feof(f) && !ferror(f)) {
		char rest[256];

		if (!fread(rest, 1, sizeof(rest), f))
			break;
	}
	return pclose(f) == 0 && n > 0 && n < len - 1;
}

long gc_rdma_count(const char *counts, const char *dev, const char *type)
{
	char key[64], word[64];
	const char *line, *p;
	int used;
	long val;

	snprintf(key, sizeof(key), " %s: ", dev);
	for (line = counts; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		p = strstr(line, key);
		if (!p || (strchr(line, '\n') && p > strchr(line, '\n')))
			continue;
		p += strlen(key);
		while (sscanf(p, "%63s %ld%n", word, &val, &used) == 2) {
			if (!strcmp(word, type))
				return val;
			p += used;
			if (*p == '\n')
				break;
		}
		return -1;
	}
	return -1;
}

static void *batch_thread(void *arg)
{
	struct gc_batch_thread *t = arg;

	__atomic_store_n(&t->started, 1, __ATOMIC_RELEASE);
	ibv_wr_start(t->qx);
	t->build(t);
	t->err = ibv_wr_complete(t->qx);
	return NULL;
}

int gc_batch_thread_start(struct gc_batch_thread *t)
{
	int err;

	t->started = 0;
	err = pthread_create(&t->th, NULL, batch_thread, t);
	if (err)
		return err;
	while (!__atomic_load_n(&t->started, __ATOMIC_ACQUIRE))
		usleep(1000);
	/*
	 * Nothing tells that it waits in ibv_wr_start(): half a second is
	 * ample even under a loaded emulator, and a thread that has not got
	 * there yet makes the caller's check pass, never fail.
	 */
	usleep(500 * 1000);
	return 0;
}

int gc_batch_thread_join(struct gc_batch_thread *t)
{
	pthread_join(t->th, NULL);
	return t->err;
}
