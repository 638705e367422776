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
 *
 * Not only the entry points: a builder or setter writes the send queue
 * slot it works on, and librxe's is the slot just before its current
 * index, which in a child is the parent's last published request, or the
 * request the parent was building when it forked.  So the child here
 * also calls nothing but ibv_wr_set_sge(), once while the parent's SEND
 * waits to be retransmitted (the peer has no receive posted yet) and
 * once in the middle of the parent's batch, and the peer must receive the
 * parent's bytes.  Every function pointer librxe filled in must be the
 * library's wrapper, not librxe's own.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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

/* Bytes the parent and the child point their requests at. */
#define PARENT_BYTE 0x5a
#define CHILD_BYTE 0xcc
#define PARENT_SRC 3072
#define CHILD_SRC 3584

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
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_SEND,
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

/*
 * Every function pointer from @first to the end of an object of @size
 * bytes that the provider filled in is one of the library's (so that it
 * is guarded), not the provider's.
 */
static bool all_wrapped(const void *obj, size_t first, size_t size)
{
	Dl_info lib, fn;
	void (*f)(void);
	size_t off;
	bool ok = true;

	if (!dladdr((void *)ibv_get_device_list, &lib))
		return false;
	for (off = first; off + sizeof(f) <= size; off += sizeof(f)) {
		memcpy(&f, (const char *)obj + off, sizeof(f));
		if (!f)
			continue;
		if (!dladdr((void *)f, &fn) || fn.dli_fbase != lib.dli_fbase) {
			gc_diag("member at offset %zu is %s's", off,
				fn.dli_fname ? fn.dli_fname : "?");
			ok = false;
		}
	}
	return ok;
}

static void check_wrapped(struct ex_setup *s)
{
	size_t qpx_first = offsetof(struct ibv_qp_ex, wr_flags) +
			   sizeof(s->qx->wr_flags);
	size_t cqx_first = offsetof(struct ibv_cq_ex, wr_id) +
			   sizeof(s->cqx->wr_id);

	qpx_first = (qpx_first + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
	gc_guard(all_wrapped(s->qx, qpx_first, sizeof(*s->qx)),
		 "every ibv_qp_ex member librxe filled in is guarded");
	gc_guard(all_wrapped(s->cqx, cqx_first, sizeof(*s->cqx)),
		 "every ibv_cq_ex member librxe filled in is guarded");
}

/* The peer's receive: 64 bytes at @off of b, its completion on cq_b. */
static bool peer_received(struct ex_setup *s, size_t off, uint8_t byte)
{
	struct ibv_wc wc;
	int i;

	if (gc_poll(s->p.cq_b, 1, &wc, GC_TIMEOUT_MS) != 1 ||
	    wc.status != IBV_WC_SUCCESS || wc.byte_len != 64)
		return false;
	for (i = 0; i < 64; i++)
		if (s->b.addr[off + i] != byte)
			return false;
	return true;
}

static void wait_child(pid_t pid, int *wstatus)
{
	*wstatus = -1;
	if (pid > 0 && gc_wait_child(pid, wstatus, GC_CHILD_TIMEOUT_MS,
				     "child using the inherited QP and CQ") != pid)
		*wstatus = -1;
}

/*
 * The parent's SEND is in flight, retransmitted while the peer has no
 * receive posted; the child only sets a scatter entry.
 */
static void test_setter_during_retransmit(struct ex_setup *s)
{
	int wstatus;
	pid_t pid;

	memset(s->b.addr, 0, 4096);
	ibv_wr_start(s->qx);
	s->qx->wr_id = 10;
	s->qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(s->qx);
	ibv_wr_set_sge(s->qx, s->a.mr->lkey, (uintptr_t)s->a.addr + PARENT_SRC,
		       64);
	if (!gc_ok(!ibv_wr_complete(s->qx), "parent: SEND, no receive yet"))
		return;
	usleep(100000);

	pid = fork();
	if (pid == 0) {
		ibv_wr_set_sge(s->qx, s->a.mr->lkey,
			       (uintptr_t)s->a.addr + CHILD_SRC, 64);
		_exit(0);
	}
	wait_child(pid, &wstatus);
	gc_ok(WIFEXITED(wstatus), "child: ibv_wr_set_sge() only, exited");
	usleep(100000);

	gc_ok(!gc_post_recv(s->p.qp_b, &s->b, 0, 64, 11),
	      "peer: receive posted");
	gc_guard(peer_received(s, 0, PARENT_BYTE),
		 "peer received the parent's bytes, not the child's setter's");
	gc_ok(poll_ex(s->cqx, (uint64_t[1]){}, 1, GC_TIMEOUT_MS) == 1,
	      "parent: the SEND completed");
}

/*
 * The parent's batch, left open: an RDMA WRITE of its 64 bytes to b+off.
 */
static void start_parent_batch(struct ex_setup *s, uint64_t wr_id, size_t off)
{
	memset(s->b.addr, 0, 4096);
	ibv_wr_start(s->qx);
	s->qx->wr_id = wr_id;
	s->qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(s->qx, s->b.mr->rkey, (uintptr_t)s->b.addr + off);
	ibv_wr_set_sge(s->qx, s->a.mr->lkey, (uintptr_t)s->a.addr + PARENT_SRC,
		       64);
}

/* fork() in the middle of the parent's batch; the child sets an entry. */
static void test_setter_mid_batch(struct ex_setup *s)
{
	uint64_t id = 0;
	int wstatus, i;
	bool parents = true;
	pid_t pid;

	start_parent_batch(s, 20, 512);

	pid = fork();
	if (pid == 0) {
		ibv_wr_set_sge(s->qx, s->a.mr->lkey,
			       (uintptr_t)s->a.addr + CHILD_SRC, 64);
		_exit(0);
	}
	wait_child(pid, &wstatus);
	gc_ok(WIFEXITED(wstatus), "child: ibv_wr_set_sge() mid-batch, exited");

	gc_ok(!ibv_wr_complete(s->qx), "parent: completes its batch");
	gc_guard(poll_ex(s->cqx, &id, 1, GC_TIMEOUT_MS) == 1 && id == 20,
		 "parent: its completion, not one the child made");
	for (i = 0; i < 64; i++)
		parents &= s->b.addr[512 + i] == PARENT_BYTE;
	gc_guard(parents, "peer got the parent's bytes, not the child's");
}

/*
 * fork() in the middle of the parent's batch; the child completes it, the
 * parent aborts it.
 */
static void test_complete_mid_batch(struct ex_setup *s)
{
	uint64_t id = 0;
	int wstatus, i;
	bool untouched = true;
	pid_t pid;

	start_parent_batch(s, 30, 256);

	pid = fork();
	if (pid == 0)
		_exit(ibv_wr_complete(s->qx) == EPERM ? 0 : 1);
	wait_child(pid, &wstatus);
	gc_guard(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0,
		 "child: ibv_wr_complete() of the parent's batch is EPERM");

	ibv_wr_abort(s->qx);
	usleep(200000);
	for (i = 0; i < 64; i++)
		untouched &= s->b.addr[256 + i] == 0;
	gc_guard(untouched, "the batch the parent aborted never ran");

	gc_ok(!write_batch(s, 31, 128), "parent: a batch after the abort");
	gc_ok(poll_ex(s->cqx, &id, 1, GC_TIMEOUT_MS) == 1,
	      "parent: one completion");
	gc_guard(id == 31, "it is the new batch's, none for the aborted one");
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
	check_wrapped(&s);
	memset(s.a.addr + PARENT_SRC, PARENT_BYTE, 64);
	memset(s.a.addr + CHILD_SRC, CHILD_BYTE, 64);

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
	wait_child(pid, &wstatus);
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

	test_setter_during_retransmit(&s);
	test_setter_mid_batch(&s);
	test_complete_mid_batch(&s);

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
