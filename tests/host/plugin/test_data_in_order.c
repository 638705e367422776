// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_query_qp_data_in_order() in a build for rdma-core 56, against a
 * provider's query_qp_data_in_order op.  This test is the provider: it
 * sets up a context through the provider interface
 * (_verbs_init_and_alloc_context(), verbs_set_ops()) on a made-up device,
 * with an op that records its arguments and returns what the check asks.
 *
 * rdma-core v56.0's verb (libibverbs/verbs.c), on x86: a @flags bit other
 * than IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS gives 0 without asking the
 * provider; otherwise the provider's answer, where WHOLE_MSG implies
 * ALIGNED_128_BYTES, is returned as is with RETURN_CAPS and as
 * !!WHOLE_MSG without.  A provider without the op answers 0 (upstream's
 * default op).  On a QP a fork child inherited the library answers 0
 * without asking the provider (the child guard; upstream asks it).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "tap.h"

#define SKIP_STATUS 77

static struct {
	int calls;
	enum ibv_wr_opcode op;
	uint32_t flags;
	int answer;
} prov;

static int prov_query(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	prov.calls++;
	prov.op = op;
	prov.flags = flags;
	return prov.answer;
}

/* A device record as discovery makes one; never freed (refcount). */
static struct verbs_device vdev = { .refcount = 1 };
static struct verbs_plugin_device pub;

static struct verbs_context *make_context(bool with_op)
{
	static const struct verbs_context_ops ops = {
		.query_qp_data_in_order = prov_query,
	};
	struct verbs_context *vctx;

	pub.sysfs = &vdev.sysfs;
	vdev.pub = &pub;
	vctx = _verbs_init_and_alloc_context(&pub.device, -1, sizeof(*vctx),
					     NULL, 0);
	if (vctx && with_op)
		verbs_set_ops(vctx, &ops);
	return vctx;
}

static void free_context(struct verbs_context *vctx)
{
	verbs_uninit_context(vctx);
	free(vctx);
}

/* The verb's answer for @answer from the provider; -1 if not asked. */
static int ask(struct ibv_qp *qp, int answer, enum ibv_wr_opcode op,
	       uint32_t flags)
{
	int got;

	memset(&prov, 0, sizeof(prov));
	prov.answer = answer;
	got = ibv_query_qp_data_in_order(qp, op, flags);
	if (!prov.calls)
		return got ? got : -1;
	if (prov.calls != 1 || prov.op != op || prov.flags != flags)
		return -2;
	return got;
}

static void check_answers(struct ibv_qp *qp)
{
	const uint32_t caps = IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS;
	const int whole = IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG;
	const int a128 = IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
	int got;

	got = ask(qp, whole, IBV_WR_RDMA_WRITE, 0);
	CHECK(got == 1,
	      "provider says WHOLE_MSG, flags 0: 1, the provider asked "
	      "with the opcode and flags (%d)",
	      got);
	got = ask(qp, whole | a128, IBV_WR_SEND, 0);
	CHECK(got == 1, "WHOLE_MSG | ALIGNED_128_BYTES, flags 0: 1 (%d)", got);
	got = ask(qp, a128, IBV_WR_RDMA_WRITE, 0);
	CHECK(got == 0, "ALIGNED_128_BYTES alone, flags 0: 0 (%d)", got);
	got = ask(qp, 0, IBV_WR_RDMA_WRITE, 0);
	CHECK(got == 0, "nothing in order, flags 0: 0 (%d)", got);
	got = ask(qp, whole, IBV_WR_RDMA_WRITE, caps);
	CHECK(got == (whole | a128),
	      "WHOLE_MSG with RETURN_CAPS: WHOLE_MSG | ALIGNED_128_BYTES, "
	      "implied (%#x)",
	      got);
	got = ask(qp, a128, IBV_WR_SEND, caps);
	CHECK(got == a128, "ALIGNED_128_BYTES with RETURN_CAPS: as is (%#x)",
	      got);
	got = ask(qp, 0, IBV_WR_SEND, caps);
	CHECK(got == 0, "nothing with RETURN_CAPS: 0 (%#x)", got);
	got = ask(qp, whole, IBV_WR_RDMA_WRITE, caps | 0x100);
	CHECK(got == -1, "an unknown flag: 0, the provider not asked (%d)",
	      got);
}

/* In a fork child, on the QP of an inherited context: 0, not asked. */
static void check_child(struct ibv_qp *qp)
{
	int status = -1;
	bool ok;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int got = ask(qp, IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG,
			      IBV_WR_RDMA_WRITE, 0);

		_exit(got == -1 ? 0 : 10 + got);
	}
	ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	     WEXITSTATUS(status) == 0;
	CHECK(ok,
	      "fork child, inherited QP: 0, the provider not asked "
	      "(status %#x)",
	      status);
}

int main(void)
{
	struct verbs_context *vctx;
	struct ibv_qp qp = { .qp_type = IBV_QPT_RC, .state = IBV_QPS_RTS };

#if !defined(__i386__) && !defined(__x86_64__)
	printf("# SKIP rdma-core asks the provider on x86 only\n");
	return SKIP_STATUS;
#endif
	vctx = make_context(true);
	if (!CHECK(vctx, "a context through the provider interface (%s)",
		   vctx ? "ok" : strerror(errno)))
		return tap_done();
	qp.context = &vctx->context;
	check_answers(&qp);
	check_child(&qp);
	free_context(vctx);

	vctx = make_context(false);
	if (!CHECK(vctx, "a context without the op"))
		return tap_done();
	qp.context = &vctx->context;
	CHECK(ibv_query_qp_data_in_order(&qp, IBV_WR_RDMA_WRITE, 0) == 0 &&
		      ibv_query_qp_data_in_order(
			      &qp, IBV_WR_RDMA_WRITE,
			      IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS) == 0,
	      "a provider without the op: 0");
	free_context(vctx);
	return tap_done();
}
