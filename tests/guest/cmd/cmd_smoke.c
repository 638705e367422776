// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The command layer against a real kernel: every vcmd_* once on a
 * Soft-RoCE device, without the rest of the library (no provider, no
 * queue mappings).  Needs a uverbs device, so it runs in the guest:
 *
 *	tests/vm/run build/tests/guest/cmd/cmd_smoke [DEVICE]
 *
 * DEVICE defaults to /dev/infiniband/uverbs0.
 *
 * Exit status 0 when every check passed.  Linked with -Wl,--wrap=write so
 * that it can tell which commands (legacy or extended) went to the kernel
 * and how they fared.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd_transport.h"
#include "child_guard_stub.h"
#include "kernel_version.h"

#include <rdma/rdma_user_rxe.h>

static int failures;

#define CHECK(cond)                                                          \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "%s:%d: check failed: %s\n",          \
				__func__, __LINE__, #cond);                   \
			failures++;                                           \
		}                                                             \
	} while (0)

#define CHECK_OK(expr)                                                       \
	do {                                                                  \
		int _e = (expr);                                              \
		if (_e) {                                                     \
			fprintf(stderr, "%s:%d: %s failed: %s\n", __func__,   \
				__LINE__, #expr, strerror(_e));               \
			failures++;                                           \
		}                                                             \
	} while (0)

/*
 * A child's limit: its alarm ends a hang as SIGALRM (this test has no
 * guest_common), and wait_child() says which child it was.  The parent's
 * wait has a limit of its own above that, in case the alarm never fires
 * (a child the kernel holds, a child that blocks SIGALRM): past it the
 * child is killed and the wait says so.
 */
#define CHILD_WATCHDOG_S 30
#define CHILD_WAIT_S (CHILD_WATCHDOG_S + 30)

static int wait_child(pid_t pid, const char *what)
{
	struct timespec t0, now;
	int status = -1, i;
	pid_t r;

	if (pid <= 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= CHILD_WAIT_S) {
			kill(pid, SIGKILL);
			/* It dies at once, unless the kernel holds it. */
			for (i = 0; i < 500; i++) {
				if (waitpid(pid, &status, WNOHANG) == pid)
					break;
				usleep(10000);
			}
			fprintf(stderr,
				"child %d (%s) still running after %d s: "
				"killed\n", (int)pid, what, CHILD_WAIT_S);
			return -1;
		}
		usleep(10000);
	}
	if (WIFSIGNALED(status))
		fprintf(stderr, "child %d (%s) killed by signal %d%s\n",
			(int)pid, what, WTERMSIG(status),
			WTERMSIG(status) == SIGALRM ?
				": no end within its watchdog" : "");
	return status;
}

/* The last write() command and its result. */
static uint32_t last_cmd;
static int last_err;

ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);

ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	ssize_t ret = __real_write(fd, buf, count);

	memcpy(&last_cmd, buf, sizeof(last_cmd));
	last_err = ret < 0 ? errno : 0;
	return ret;
}

#define EX(cmd) (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_##cmd)

static struct verbs_device vdev;
/* The device header a provider\'s alloc_device would allocate. */
static struct verbs_plugin_device dev_hdr;
static struct verbs_context vctx;
static struct ibv_context *ctx = &vctx.context;
/* What the device reports: windows are tested only where it has them. */
static int max_mw;

static void test_device(void)
{
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr a;
	struct ibv_port_attr pa;

	CHECK_OK(vcmd_query_device_ex(ctx, NULL, &ax, sizeof(ax)));
	CHECK(last_cmd == EX(QUERY_DEVICE) && !last_err);
	printf("device: max_qp %d max_cqe %d max_mr_size %llu ports %u "
	       "cap_flags_ex 0x%llx\n", ax.orig_attr.max_qp,
	       ax.orig_attr.max_cqe,
	       (unsigned long long)ax.orig_attr.max_mr_size,
	       ax.orig_attr.phys_port_cnt,
	       (unsigned long long)ax.device_cap_flags_ex);
	CHECK(ax.orig_attr.max_qp > 0 && ax.orig_attr.phys_port_cnt == 1);
	CHECK(ax.orig_attr.fw_ver[0] == 0);
	CHECK_OK(vcmd_query_device_ex(ctx, NULL, (void *)&a, sizeof(a)));
	CHECK(a.max_qp == ax.orig_attr.max_qp);
	max_mw = ax.orig_attr.max_mw;

	CHECK_OK(vcmd_query_port(ctx, 1, &pa));
	printf("port 1: state %d mtu %d/%d gid_tbl %d link_layer %d "
	       "flags 0x%x cap 0x%x cap2 0x%x speed %u width %u\n", pa.state,
	       pa.max_mtu, pa.active_mtu, pa.gid_tbl_len, pa.link_layer,
	       pa.flags, pa.port_cap_flags, pa.port_cap_flags2,
	       pa.active_speed, pa.active_width);
	CHECK(pa.state == IBV_PORT_ACTIVE);
	CHECK(pa.link_layer == IBV_LINK_LAYER_ETHERNET);
	CHECK(pa.flags & IB_UVERBS_QPF_GRH_REQUIRED);
	CHECK(vcmd_query_port(ctx, 7, &pa) == EINVAL);
}

/* The first RoCE v2 GID: what a loopback QP addresses itself by. */
static int test_gids(struct ibv_gid_entry *v2)
{
	struct ibv_gid_entry t[32], e;
	ssize_t n, i;
	int found = -1;

	n = vcmd_query_gid_table(ctx, t, 32);
	CHECK(n > 0);
	for (i = 0; i < n; i++) {
		printf("gid[%u] port %u type %u ifindex %u "
		       "%02x%02x...%02x%02x\n",
		       t[i].gid_index, t[i].port_num, t[i].gid_type,
		       t[i].ndev_ifindex, t[i].gid.raw[0], t[i].gid.raw[1],
		       t[i].gid.raw[14], t[i].gid.raw[15]);
		if (found < 0 && t[i].gid_type == IBV_GID_TYPE_ROCE_V2)
			found = i;
	}
	CHECK(found >= 0);
	if (found < 0)
		return -1;
	*v2 = t[found];
	CHECK_OK(vcmd_query_gid_entry(ctx, 1, v2->gid_index, &e));
	CHECK(!memcmp(&e, v2, sizeof(e)));
	CHECK(vcmd_query_gid_entry(ctx, 1, 200, &e) == ENODATA ||
	      vcmd_query_gid_entry(ctx, 1, 200, &e) == EINVAL);
	CHECK(vcmd_query_gid_table(ctx, t, 1) < 0 || n == 1);
	return 0;
}

/*
 * rxe has both window types where it reports windows (bullseye's 5.10
 * says max_mw 0), and the core refuses alloc_mw without them.
 */
static void test_mw(struct ibv_pd *pd)
{
	struct ibv_mw mw;
	int err;

	err = vcmd_alloc_mw(pd, IBV_MW_TYPE_2, &mw, NULL);
	printf("alloc_mw (max_mw %d): %s\n", max_mw, strerror(err));
	if (!max_mw) {
		CHECK(err == EOPNOTSUPP);
		return;
	}
	CHECK_OK(err);
	if (!err) {
		CHECK(mw.rkey != 0 && mw.type == IBV_MW_TYPE_2);
		CHECK_OK(vcmd_dealloc_mw(&mw));
	}
	CHECK_OK(vcmd_alloc_mw(pd, IBV_MW_TYPE_1, &mw, NULL));
	CHECK(mw.type == IBV_MW_TYPE_1);
	CHECK_OK(vcmd_dealloc_mw(&mw));
}

static void test_mr(struct ibv_pd *pd)
{
	size_t len = 2 * 4096;
	void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct verbs_mr mr = {}, imp = {};
	uint32_t lkey;
	int err, want;

	CHECK(buf != MAP_FAILED);
	CHECK_OK(vcmd_reg_mr(pd, buf, len, (uintptr_t)buf,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			     IBV_ACCESS_MW_BIND, &mr, NULL));
	printf("mr: handle %u lkey 0x%x rkey 0x%x\n", mr.ibv_mr.handle,
	       mr.ibv_mr.lkey, mr.ibv_mr.rkey);
	/* QUERY_MR is the core's own method: it works on every device. */
	err = vcmd_query_mr(pd, mr.ibv_mr.handle, &imp);
	printf("query_mr: %s\n", strerror(err));
	CHECK_OK(err);
	if (!err) {
		CHECK(imp.ibv_mr.lkey == mr.ibv_mr.lkey);
		CHECK(imp.ibv_mr.rkey == mr.ibv_mr.rkey);
		CHECK(imp.ibv_mr.length == len);
	}
	/*
	 * rxe changes an MR's access in place since 6.5 (544c7f62cf32,
	 * "RDMA/rxe: Implement rereg_user_mr"); before, it has no
	 * rereg_user_mr and the core answers EOPNOTSUPP.  Either way the
	 * keys stay.
	 */
	want = gc_kernel_at_least(6, 5) ? 0 : EOPNOTSUPP;
	lkey = mr.ibv_mr.lkey;
	err = vcmd_rereg_mr(&mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, 0,
			    IBV_ACCESS_LOCAL_WRITE, NULL);
	printf("rereg_mr(access) on %s: %s lkey 0x%x\n", gc_kernel_release(),
	       strerror(err), mr.ibv_mr.lkey);
	CHECK(err == want && last_err == want);
	CHECK(mr.ibv_mr.lkey == lkey);
	err = vcmd_reg_dmabuf_mr(pd, 0, 4096, 0, 0, 0, &imp);
	printf("reg_dmabuf_mr: %s\n", strerror(err));
	CHECK(err == EOPNOTSUPP || err == EBADF || err == EINVAL);

	test_mw(pd);
	CHECK_OK(vcmd_dereg_mr(&mr));
	munmap(buf, len);
}

static void test_cq(struct verbs_cq *cq, struct ibv_comp_channel *ch)
{
	struct rxe_create_cq_resp cr;
	struct vcmd_udata u = {
		.in = NULL, .in_len = 0, .out = &cr, .out_len = sizeof(cr)
	};
	struct ibv_cq_init_attr_ex attr = { .cqe = 64, .channel = ch };
	struct verbs_cq cq2;
	struct rxe_resize_cq_resp rr;
	struct vcmd_udata ru = {
		.in = NULL, .in_len = 0, .out = &rr, .out_len = sizeof(rr)
	};
	uint32_t want;

	CHECK_OK(vcmd_create_cq(ctx, 100, ch, 0, &cq->cq, &u));
	printf("cq: handle %u cqe %d mmap size %u\n", cq->cq.handle,
	       cq->cq.cqe, cr.mi.size);
	CHECK(cq->cq.cqe >= 100 && cr.mi.size > 0);
	CHECK_OK(vcmd_req_notify_cq(&cq->cq, 0));

	memset(&cr, 0, sizeof(cr));
	/*
	 * Before 5.11 the core gates the extended commands per driver and
	 * rxe's list lacks CREATE_CQ (bd2a40cc2463, "RDMA/core Remove
	 * uverbs_ex_cmd_mask"): without flags the layer falls back to the
	 * legacy command.
	 */
	want = gc_kernel_at_least(5, 11) ? EX(CREATE_CQ) :
					   IB_USER_VERBS_CMD_CREATE_CQ;
	CHECK_OK(vcmd_create_cq_ex(ctx, &attr, &cq2, &u));
	CHECK(last_cmd == want && !last_err);
	printf("cq_ex: handle %u cqe %d mmap size %u\n", cq2.cq.handle,
	       cq2.cq.cqe, cr.mi.size);
	CHECK(cr.mi.size > 0);
	CHECK_OK(vcmd_resize_cq(&cq2.cq, 200, &ru));
	CHECK(cq2.cq.cqe >= 200);
	CHECK_OK(vcmd_destroy_cq(&cq2.cq));
	/* Timestamps are not something rxe does. */
	attr.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	CHECK(vcmd_create_cq_ex(ctx, &attr, &cq2, &u) == EOPNOTSUPP);
}

static void loopback_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			const struct ibv_gid_entry *gid)
{
	struct rxe_create_qp_resp qr;
	struct vcmd_udata u = {
		.in = NULL, .in_len = 0, .out = &qr, .out_len = sizeof(qr)
	};
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr a = {}, q;
	struct ibv_qp_init_attr qi;
	struct verbs_qp qp;

	CHECK_OK(vcmd_create_qp(pd, &qp, &ia, &u));
	printf("qp: handle %u qpn 0x%x caps %u/%u/%u/%u/%u\n", qp.qp.handle,
	       qp.qp.qp_num, ia.cap.max_send_wr, ia.cap.max_recv_wr,
	       ia.cap.max_send_sge, ia.cap.max_recv_sge,
	       ia.cap.max_inline_data);

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK_OK(vcmd_modify_qp(&qp.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, NULL));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp.qp.qp_num;
	a.rq_psn = 0x123;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid->gid;
	a.ah_attr.grh.sgid_index = gid->gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	CHECK_OK(vcmd_modify_qp(&qp.qp, &a, IBV_QP_STATE | IBV_QP_AV |
				IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER, NULL));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x456;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	CHECK_OK(vcmd_modify_qp(&qp.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC, NULL));
	CHECK(qp.qp.state == IBV_QPS_RTS);

	CHECK_OK(vcmd_query_qp(&qp.qp, &q, IBV_QP_STATE | IBV_QP_AV, &qi));
	printf("query_qp: state %d mtu %d dest_qpn 0x%x sq_psn 0x%x "
	       "rq_psn 0x%x timeout %u sgid_index %u global %u port %u\n",
	       q.qp_state, q.path_mtu, q.dest_qp_num, q.sq_psn, q.rq_psn,
	       q.timeout, q.ah_attr.grh.sgid_index, q.ah_attr.is_global,
	       q.port_num);
	CHECK(q.qp_state == IBV_QPS_RTS);
	CHECK(q.dest_qp_num == qp.qp.qp_num);
	CHECK(q.sq_psn == 0x456 && q.rq_psn == 0x123);
	CHECK(!memcmp(&q.ah_attr.grh.dgid, &gid->gid, 16));
	CHECK(qi.send_cq == cq && qi.qp_type == IBV_QPT_RC);

	/* An empty send queue: the doorbell is a no-op for the kernel. */
	CHECK_OK(vcmd_post_send_doorbell(&qp.qp));
	/* The rate limit takes the extended command; rxe refuses it. */
	a.rate_limit = 1000;
	printf("modify_qp(rate_limit): %s\n",
	       strerror(vcmd_modify_qp(&qp.qp, &a, IBV_QP_RATE_LIMIT,
				      NULL)));
	/* Past the header checks: the driver, not the format, refused. */
	CHECK(last_cmd == EX(MODIFY_QP) && last_err != EINVAL &&
	      last_err != ENOSPC);
	CHECK_OK(vcmd_destroy_qp(&qp.qp));
}

static void ud_qp_and_ah(struct ibv_pd *pd, struct ibv_cq *cq,
			 const struct ibv_gid_entry *gid)
{
	struct rxe_create_qp_resp qr;
	struct vcmd_udata u = {
		.in = NULL, .in_len = 0, .out = &qr, .out_len = sizeof(qr)
	};
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct rxe_create_ah_resp ar = {};
	struct vcmd_udata au = {
		.in = NULL, .in_len = 0, .out = &ar, .out_len = sizeof(ar)
	};
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = gid->gid, .sgid_index = gid->gid_index,
			 .hop_limit = 1 },
	};
	union ibv_gid mgid = { .raw = { 0xff, 0x0e, [15] = 0x42 } };
	struct verbs_qp qp;
	struct ibv_ah ah;
	int err;

	/* Creation flags take the extended command. */
	ia.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ia.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	err = vcmd_create_qp_ex(ctx, &qp, &ia, &u);
	printf("create_qp_ex(flags): %s\n", strerror(err));
	CHECK(last_cmd == EX(CREATE_QP) && err != EINVAL && err != ENOSPC);
	if (!err)
		CHECK_OK(vcmd_destroy_qp(&qp.qp));
	ia.comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	CHECK_OK(vcmd_create_qp_ex(ctx, &qp, &ia, &u));
	CHECK(last_cmd == IB_USER_VERBS_CMD_CREATE_QP);
	CHECK_OK(vcmd_create_ah(pd, &ah, &aa, &au));
	printf("ah: handle %u ah_num %u\n", ah.handle, ar.ah_num);
	/*
	 * An AH number since 5.16 (73a549321003, "RDMA/rxe: Create AH index
	 * and return to user space"); before, none (0).
	 */
	CHECK(gc_kernel_at_least(5, 16) ? ar.ah_num != 0 : ar.ah_num == 0);
	CHECK_OK(vcmd_destroy_ah(&ah));
	err = vcmd_attach_mcast(&qp.qp, &mgid, 0);
	printf("attach_mcast: %s\n", strerror(err));
	if (!err)
		CHECK_OK(vcmd_detach_mcast(&qp.qp, &mgid, 0));
	CHECK(vcmd_detach_mcast(&qp.qp, &mgid, 0) == EINVAL);
	CHECK_OK(vcmd_destroy_qp(&qp.qp));
}

static void test_srq(struct ibv_pd *pd)
{
	struct rxe_create_srq_resp sr;
	struct vcmd_udata u = {
		.in = NULL, .in_len = 0, .out = &sr, .out_len = sizeof(sr)
	};
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 100,
						  .max_sge = 1 } };
	struct rxe_modify_srq_cmd mc = {};
	struct vcmd_udata mu = {
		.in = &mc, .in_len = sizeof(mc), .out = NULL, .out_len = 0
	};
	struct ibv_srq_attr a = { .srq_limit = 10 };
	struct verbs_srq srq;

	CHECK_OK(vcmd_create_srq(pd, &srq, &ia, &u));
	printf("srq: handle %u max_wr %u max_sge %u srq_num %u\n",
	       srq.srq.handle, ia.attr.max_wr, ia.attr.max_sge, sr.srq_num);
	CHECK(ia.attr.max_wr >= 100);
	CHECK_OK(vcmd_modify_srq(&srq.srq, &a, IBV_SRQ_LIMIT, &mu));
	memset(&a, 0, sizeof(a));
	CHECK_OK(vcmd_query_srq(&srq.srq, &a));
	CHECK(a.srq_limit == 10 && a.max_wr >= 100);
	CHECK_OK(vcmd_destroy_srq(&srq.srq));
}

/*
 * What the kernel does with an inherited context in a fork child: write()
 * checks that the caller's credentials are the opener's, and a child's
 * are a copy, so it refuses with EACCES; ioctl() has no such check.
 */
static void test_fork_child(void)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		struct ibv_port_attr pa;
		struct ibv_pd pd;
		int err, qerr;

		alarm(CHILD_WATCHDOG_S);
		err = vcmd_alloc_pd(ctx, &pd, NULL);
		qerr = vcmd_query_port(ctx, 1, &pa);

		printf("fork child: alloc_pd (write): %s\n", strerror(err));
		printf("fork child: query_port (ioctl): %s\n",
		       strerror(qerr));
		if (!err)
			vcmd_dealloc_pd(&pd);
		_exit(err == EACCES ? 0 : 1);
	}
	CHECK(pid > 0);
	status = wait_child(pid, "fork child on the parent's context");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * A context imported from another process: QUERY_CONTEXT, which rxe does
 * not implement, then the write() commands over the ioctl
 * UVERBS_METHOD_INVOKE_WRITE, which has no credential check.
 */
static void imported_commands(struct verbs_context *imp)
{
	struct ibv_context *ictx = &imp->context;
	struct rxe_create_cq_resp cr;
	struct vcmd_udata u = {
		.in = NULL, .in_len = 0, .out = &cr, .out_len = sizeof(cr)
	};
	struct ibv_pd pd;
	struct verbs_cq cq;

	last_cmd = 0;
	CHECK_OK(vcmd_alloc_pd(ictx, &pd, NULL));
	CHECK_OK(vcmd_create_cq(ictx, 10, NULL, 0, &cq.cq, &u));
	CHECK(cr.mi.size > 0);
	CHECK_OK(vcmd_destroy_cq(&cq.cq));
	CHECK_OK(vcmd_dealloc_pd(&pd));
	CHECK(last_cmd == 0);
}

static void test_import(int fd)
{
	struct verbs_ex_private priv = { .imported = true };
	struct verbs_context imp = {};
	pid_t pid;
	int err, status = -1;

	imp.context.device = &dev_hdr.device;
	imp.context.cmd_fd = dup(fd);
	imp.context.async_fd = 99;
	imp.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	imp.priv = &priv;
	err = vcmd_query_context(&imp);
	printf("query_context (import): %s\n", strerror(err));
	if (!err)
		CHECK(imp.context.async_fd == -1);
	imported_commands(&imp);

	/* Another process, as after SCM_RIGHTS: still works. */
	pid = fork();
	if (pid == 0) {
		int before = failures;

		alarm(CHILD_WATCHDOG_S);
		imported_commands(&imp);
		_exit(failures != before);
	}
	status = wait_child(pid, "child on the imported context");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(imp.context.cmd_fd);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/dev/infiniband/uverbs0";
	struct ibv_comp_channel ch = {};
	struct ibv_gid_entry gid;
	struct ibv_pd pd;
	struct verbs_cq cq;
	int fd;

	stub_own_context(&vctx);
	vdev.driver_id = RDMA_DRIVER_RXE;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	dev_hdr.sysfs = &vdev.sysfs;
	vdev.pub = &dev_hdr;
	ctx->device = &dev_hdr.device;
	ctx->cmd_fd = fd;
	ctx->async_fd = -1;

	printf("query_port before get_context: %s\n",
	       strerror(vcmd_query_port(ctx, 1, &(struct ibv_port_attr){})));
	CHECK_OK(vcmd_get_context(&vctx, NULL));
	printf("context: async_fd %d comp_vectors %d\n", ctx->async_fd,
	       ctx->num_comp_vectors);
	CHECK(ctx->async_fd >= 0 && ctx->num_comp_vectors >= 1);
	CHECK(vcmd_get_context(&vctx, NULL) == EINVAL);

	test_device();
	test_gids(&gid);
	CHECK_OK(vcmd_create_comp_channel(ctx, &ch.fd));
	ch.context = ctx;
	CHECK_OK(vcmd_alloc_pd(ctx, &pd, NULL));
	test_mr(&pd);
	test_cq(&cq, &ch);
	loopback_qp(&pd, &cq.cq, &gid);
	ud_qp_and_ah(&pd, &cq.cq, &gid);
	test_srq(&pd);
	test_fork_child();
	test_import(fd);
	CHECK_OK(vcmd_destroy_cq(&cq.cq));
	CHECK_OK(vcmd_dealloc_pd(&pd));
	/* The handle is gone: the kernel says so, nothing else happens. */
	CHECK(vcmd_dealloc_pd(&pd) != 0);

	close(ch.fd);
	close(ctx->async_fd);
	close(fd);
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("command layer on %s: all checks passed\n", path);
	return 0;
}
