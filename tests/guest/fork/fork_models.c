// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every way a process gets a child, and the child guard in each.
 *
 * The parent connects rxe0 and rxe1 by an RC QP with an MR on each side,
 * then makes a child by fork(), by _Fork() (no atfork handler runs), by a
 * raw clone(2) (glibc does not even know), and a grandchild (fork of a
 * fork whose middle process opened devices of its own, moved bytes, and
 * checks afterwards that its MRs still work).  A last child is an
 * "import-only" process: a program exec'd by the test that receives the
 * command descriptors of the parent's two contexts, builds its QPs on
 * them with ibv_import_device() - it never calls ibv_get_device_list() or
 * ibv_open_device(), the paths where the library sets itself up - and
 * forks a child of its own.
 *
 * Each child posts on the inherited QPs, polls the inherited CQ and
 * queries the inherited context: every verb must fail with EPERM and
 * nothing may reach the parent (a guarantee upstream lacks: "# guard").
 * Then the child opens the devices afresh and does RDMA of its own.  After
 * each child the parent moves new bytes by RDMA WRITE, READ and SEND over
 * its QP, checks them, and checks that no completion of the child's
 * requests appeared on its CQs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_proc.h"

static struct fp_pair parent;
static uint8_t seed = 0x10;

static void child_main(void *arg)
{
	const char *who = arg;

	fp_child_attack(&parent, who);
	fp_child_own_rdma(who);
}

/* The middle process: own devices, a grandchild, then its MRs again. */
static void middle_main(void *arg)
{
	struct fp_pair own;
	pid_t pid;
	int status;

	(void)arg;
	fp_child_attack(&parent, "child of fork");
	if (!fp_ok(!fp_pair_open(&own), "child: opens rxe0, rxe1 afresh"))
		return;
	fp_traffic(&own, "child, own QP, before its fork", 0x20);

	pid = fp_spawn(FP_FORK);
	if (pid == 0) {
		alarm(FP_WATCHDOG);
		fp_child_attack(&parent, "grandchild, grandparent's QP");
		fp_child_attack(&own, "grandchild, child's QP");
		fp_child_own_rdma("grandchild");
		_exit(0);
	}
	status = fu_wait(pid);
	fp_ok(status == 0, "grandchild exited normally (%d)", status);
	fp_traffic(&own, "child, own QP, after the grandchild", 0x30);
	fp_pair_close(&own);
}

static void run_kind(enum fp_kind kind)
{
	char who[64], when[96];
	int status;

	snprintf(who, sizeof(who), "child of %s", fp_kind_name(kind));
	status = fp_run(kind, child_main, who, who);
	gc_ok(status == 0, "%s exited normally (%d)", who, status);
	snprintf(when, sizeof(when), "parent after a %s", who);
	fp_traffic(&parent, when, seed++);
}

/*
 * The exec'd import-only process: argv = { self, "--import-only", fd0,
 * fd1, report fd }.  Its checks go to the test through the report fd.
 */
static int import_open(struct gc_dev *dev, int fd, int which)
{
	memset(dev, 0, sizeof(*dev));
	dev->name = which ? "rxe1" : "rxe0";
	dev->ip = which ? "198.18.0.2" : "198.18.0.1";
	dev->ctx = ibv_import_device(fd);
	if (!dev->ctx)
		return -1;
	dev->gid_index = gc_find_gid(dev->ctx, GC_PORT, dev->ip, &dev->gid);
	dev->pd = ibv_alloc_pd(dev->ctx);
	return dev->gid_index >= 0 && dev->pd ? 0 : -1;
}

static int import_pair(struct fp_pair *fp, int fd0, int fd1)
{
	struct gc_qp_caps caps = { .max_send_wr = 16, .max_recv_wr = 16 };
	struct gc_pair *p = &fp->p;

	memset(fp, 0, sizeof(*fp));
	if (import_open(&p->a, fd0, 0) || import_open(&p->b, fd1, 1))
		return -1;
	p->cq_a = ibv_create_cq(p->a.ctx, GC_CQ_SIZE, NULL, NULL, 0);
	p->cq_b = ibv_create_cq(p->b.ctx, GC_CQ_SIZE, NULL, NULL, 0);
	if (!p->cq_a || !p->cq_b)
		return -1;
	p->qp_a = gc_create_qp(&p->a, p->cq_a, IBV_QPT_RC, &caps);
	p->qp_b = gc_create_qp(&p->b, p->cq_b, IBV_QPT_RC, &caps);
	if (!p->qp_a || !p->qp_b || gc_connect(p->qp_a, &p->a, p->qp_b, &p->b))
		return -1;
	if (fp_buf_map(&fp->a, p->a.pd, FP_LEN) ||
	    fp_buf_map(&fp->b, p->b.pd, FP_LEN))
		return -1;
	return 0;
}

static void import_child(void *arg)
{
	struct fp_pair *imp = arg;

	fp_child_attack(imp, "child of the import-only process");
	fp_child_own_rdma("child of the import-only process");
}

static int import_only_main(char **argv)
{
	struct fp_pair imp;
	int status;

	fp_report_to(atoi(argv[4]));
	alarm(FP_WATCHDOG * 2);
	if (import_pair(&imp, atoi(argv[2]), atoi(argv[3]))) {
		int err = errno;

		/*
		 * Importing needs the driver's query_ucontext, which the
		 * kernel's rxe lacks: both libraries return EOPNOTSUPP.
		 */
		if (err == EOPNOTSUPP)
			fp_skip("import-only process: ibv_import_device on "
				"rxe -> EOPNOTSUPP (kernel rxe cannot "
				"import a context)");
		else
			fp_ok(false,
			      "import-only: QPs on imported contexts: %s",
			      strerror(err));
		return 0;
	}
	fp_traffic(&imp, "import-only process, before its fork", 0x40);
	status = fp_run(FP_FORK, import_child, &imp,
			"child of the import-only process");
	fp_ok(status == 0, "child of the import-only process exited (%d)",
	      status);
	fp_traffic(&imp, "import-only process, after its child", 0x50);
	fp_pair_close(&imp);
	return 0;
}

static void run_import_only(void)
{
	long deadline = gc_now_ms() + GC_CHILD_TIMEOUT_MS;
	char fd0[16], fd1[16], rfd[16];
	int p[2], a, b, status;
	pid_t pid;

	/* dup(): without FD_CLOEXEC, so they survive the exec. */
	a = dup(parent.p.a.ctx->cmd_fd);
	b = dup(parent.p.b.ctx->cmd_fd);
	if (!gc_ok(a >= 0 && b >= 0 && !pipe(p), "import-only: fds to pass"))
		return;
	snprintf(fd0, sizeof(fd0), "%d", a);
	snprintf(fd1, sizeof(fd1), "%d", b);
	snprintf(rfd, sizeof(rfd), "%d", p[1]);
	pid = fp_spawn(FP_FORK);
	if (pid == 0) {
		char *argv[] = { "fork_models", "--import-only", fd0, fd1, rfd,
				 NULL };

		close(p[0]);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(p[1]);
	close(a);
	close(b);
	fp_relay_until(p[0], deadline);
	close(p[0]);
	status = fu_wait_until(pid, fp_reap_deadline(deadline));
	gc_ok(status == 0, "import-only process exited normally (%d)", status);
	fp_traffic(&parent, "parent after the import-only process", seed++);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--import-only"))
		return import_only_main(argv);

	if (!fu_start("fork_models"))
		return gc_finish();
	if (!gc_ok(!fp_pair_open(&parent), "parent: RC pair rxe0-rxe1, MRs"))
		return gc_finish();
	fp_traffic(&parent, "parent before any child", seed++);

	run_kind(FP_FORK);
	run_kind(FP_UFORK);
	run_kind(FP_CLONE);

	gc_ok(fp_run(FP_FORK, middle_main, NULL, "child of fork") == 0,
	      "child with a grandchild exited normally");
	fp_traffic(&parent, "parent after child and grandchild", seed++);

	run_import_only();

	fp_pair_close(&parent);
	return gc_finish();
}
