// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The child guard on the callbacks a provider plug-in installs in its
 * objects: ibv_qp_ex's ibv_wr_*() batch and ibv_cq_ex's ibv_start_poll()
 * family, with rxe served by Debian's librxe plug-in
 * (RDMAV_RXE_PROVIDER=plugin).
 *
 * librxe keeps its send queue and completion queue in memory mapped from
 * the kernel and shared with it, so a fork child that runs those callbacks
 * on inherited objects writes into the parent's live queues: its work
 * request is executed at the parent's next doorbell, and its poll
 * consumes the parent's completion.  On this library the child is refused
 * (EPERM) before librxe runs; on Debian's the damage shows, so those
 * checks are guard checks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_common.h"

#define CHILD_WR_ID 0xc41d
#define PARENT_WR_ID 0x9a7e

/* Exit status bits of the child. */
#define CHILD_COMPLETE_REFUSED 1
#define CHILD_POLL_REFUSED 2

struct ex_setup {
	struct gc_pair p;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qx;
	struct gc_buf a, b;
};

static int setup(struct ex_setup *s)
{
	struct ibv_cq_init_attr_ex cq_attr = { .cqe = 64 };
	struct ibv_qp_init_attr_ex qp_attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE,
	};

	if (gc_pair_open(&s->p, 0, NULL))
		return -1;
	s->cqx = ibv_create_cq_ex(s->p.a.ctx, &cq_attr);
	if (!s->cqx)
		return -1;
	qp_attr.send_cq = ibv_cq_ex_to_cq(s->cqx);
	qp_attr.recv_cq = qp_attr.send_cq;
	qp_attr.pd = s->p.a.pd;
	s->qp = ibv_create_qp_ex(s->p.a.ctx, &qp_attr);
	if (!s->qp)
		return -1;
	s->qx = ibv_qp_to_qp_ex(s->qp);
	s->p.qp_b = gc_create_qp(&s->p.b, s->p.cq_b, IBV_QPT_RC, NULL);
	if (!s->qx || !s->p.qp_b ||
	    gc_connect(s->qp, &s->p.a, s->p.qp_b, &s->p.b))
		return -1;
	if (gc_buf_alloc(&s->a, s->p.a.pd, 4096, IBV_ACCESS_LOCAL_WRITE, 1) ||
	    gc_buf_alloc(&s->b, s->p.b.pd, 4096, GC_ACCESS_ALL, 2))
		return -1;
	return 0;
}

/* One signalled RDMA WRITE of 64 bytes from a+off to b+off. */
static int write_batch(struct ex_setup *s, uint64_t wr_id, size_t off)
{
	ibv_wr_start(s->qx);
	s->qx->wr_id = wr_id;
	s->qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(s->qx, s->b.mr->rkey, (uintptr_t)s->b.addr + off);
	ibv_wr_set_sge(s->qx, s->a.mr->lkey, (uintptr_t)s->a.addr + off, 64);
	return ibv_wr_complete(s->qx);
}

/* Completions on the extended CQ within the timeout, their wr_ids. */
static int poll_ex(struct ibv_cq_ex *cqx, uint64_t *ids, int max,
		   int timeout_ms)
{
	struct ibv_poll_cq_attr attr = {};
	int n = 0, waited = 0, ret;

	while (n < max && waited < timeout_ms) {
		ret = ibv_start_poll(cqx, &attr);
		if (ret == ENOENT) {
			usleep(1000);
			waited++;
			continue;
		}
		if (ret)
			return -1;
		do {
			ids[n++] = cqx->status == IBV_WC_SUCCESS ? cqx->wr_id :
								   0;
		} while (n < max && !ibv_next_poll(cqx));
		ibv_end_poll(cqx);
	}
	return n;
}

static void run_child(struct ex_setup *s)
{
	struct ibv_poll_cq_attr attr = {};
	int status = 0, ret;

	if (write_batch(s, CHILD_WR_ID, 1024) == EPERM)
		status |= CHILD_COMPLETE_REFUSED;
	ret = ibv_start_poll(s->cqx, &attr);
	if (ret == EPERM)
		status |= CHILD_POLL_REFUSED;
	else if (!ret)
		ibv_end_poll(s->cqx);
	_exit(status);
}

int main(void)
{
	struct ex_setup s = {};
	uint64_t ids[4];
	int n, wstatus, i;
	bool theirs;
	pid_t pid;

	gc_start("plugin_ex_guard");
	if (!gc_ok(!setup(&s), "RC pair with ibv_qp_ex and ibv_cq_ex (%s)",
		   strerror(errno)))
		goto out;
	gc_ok(gc_librxe_mapped(), "rxe0 is served by librxe-rdmav34.so");

	gc_ok(!write_batch(&s, 1, 0), "parent: a batch before fork()");
	n = poll_ex(s.cqx, ids, 1, GC_TIMEOUT_MS);
	gc_ok(n == 1 && ids[0] == 1, "parent: its completion (%d)", n);

	/* A completion waits in the CQ while the child runs. */
	memset(s.b.addr, 0, 4096);
	memset(s.a.addr + 1024, 0xab, 64);
	gc_ok(!write_batch(&s, 2, 0), "parent: a batch left unpolled");
	usleep(200000);

	pid = fork();
	if (pid == 0)
		run_child(&s);
	if (!gc_ok(pid > 0, "fork"))
		goto out;
	waitpid(pid, &wstatus, 0);
	gc_guard(WIFEXITED(wstatus) &&
			 (WEXITSTATUS(wstatus) & CHILD_COMPLETE_REFUSED),
		 "child: ibv_wr_complete() on the inherited QP is EPERM");
	gc_guard(WIFEXITED(wstatus) &&
			 (WEXITSTATUS(wstatus) & CHILD_POLL_REFUSED),
		 "child: ibv_start_poll() on the inherited CQ is EPERM");

	n = poll_ex(s.cqx, ids, 1, GC_TIMEOUT_MS);
	gc_guard(n == 1 && ids[0] == 2,
		 "parent: the completion the child polled at is still there");

	/*
	 * One completion only: librxe 44's end_poll after a next_poll that
	 * found nothing consumes a slot too many (rxe_cq_ex shows it), so
	 * polling on past the last entry would read a stale one.
	 */
	gc_ok(!write_batch(&s, PARENT_WR_ID, 2048), "parent: a batch after");
	n = poll_ex(s.cqx, ids, 1, GC_TIMEOUT_MS);
	gc_ok(n == 1, "parent: a completion follows (%d)", n);
	gc_guard(n == 1 && ids[0] == PARENT_WR_ID,
		 "it is the parent's: the child's request never ran (%#llx)",
		 n == 1 ? (unsigned long long)ids[0] : 0ULL);
	for (i = 0, theirs = false; i < 64; i++)
		theirs |= s.b.addr[1024 + i] != 0;
	gc_guard(!theirs, "the child's RDMA WRITE never reached the peer");

out:
	gc_buf_free(&s.a);
	gc_buf_free(&s.b);
	if (s.qp)
		ibv_destroy_qp(s.qp);
	if (s.cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(s.cqx));
	gc_pair_close(&s.p);
	return gc_finish();
}
