// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The child guard on the ibv_wr_*() batch and the ibv_start_poll() family,
 * proven by what the peer received.
 *
 * rxe keeps its send queue in memory shared with the kernel, and a fork
 * child shares that mapping with its parent: a builder or setter that runs
 * in the child writes the parent's live requests.  Each case connects an
 * RC QP on rxe0 (the parent's, an ibv_qp_ex on an ibv_cq_ex) to one on
 * rxe1 (the peer), makes a child by fork() and by _Fork() (no atfork
 * handler runs), and reads the peer's receive buffer and completions:
 *
 *  1. after an unacknowledged SEND (the peer has no receive yet, so rxe
 *     retransmits it on every RNR NAK), the child calls only
 *     ibv_wr_set_sge(), or only ibv_wr_set_inline_data(): the peer must
 *     get the parent's bytes;
 *  2. fork between ibv_wr_start() and ibv_wr_complete(): the child's
 *     ibv_wr_complete() must be EPERM (the library's refusal, not the
 *     kernel's EACCES after the batch was published); if the parent then
 *     aborts, its request never reaches the peer; if it completes, exactly
 *     its request arrives;
 *  3. fork after a setter in the middle of a batch, the child calls only a
 *     setter, the parent completes: the peer gets the parent's bytes;
 *  4. the child's ibv_start_poll() on the inherited CQ ex is EPERM and the
 *     parent still polls every one of its completions.
 *
 * Upstream libibverbs has no such guard, and Debian's librxe writes the
 * shared queues from a child: against Debian's library the checks tagged
 * "# guard" fail, and they are exactly the guarantees upstream lacks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fork_ex.h"

#define LEN 64
#define OFF_PARENT 0
#define OFF_CHILD 1024 /* other bytes of the parent's MR, for the child */
#define OFF_LATER 2048
#define RECV_LEN 256
#define PEER_MS 5000
#define GRACE_MS 300 /* for what must not follow what arrived */
#define WR_PARENT 0x9a7e
#define WR_LATER 0x1a7e

struct scen {
	struct fx x;
	char what[96];
	bool inl;
	uint8_t parent_bytes[LEN], child_bytes[LEN];
};

static int open_scen(struct scen *s, const char *what, enum fp_kind kind,
		     bool inl)
{
	static int said;

	memset(s, 0, sizeof(*s));
	snprintf(s->what, sizeof(s->what), "%s, child of %s", what,
		 fp_kind_name(kind));
	s->inl = inl;
	if (!gc_ok(!fx_open(&s->x), "%s: RC pair, QP ex, CQ ex", s->what))
		return -1;
	if (!said++)
		gc_diag("rxe0 is served by %s",
			gc_librxe_mapped() ? "Debian's librxe-rdmav34.so" :
					     "the built-in provider");
	gc_fill(s->parent_bytes, LEN, 0x51);
	gc_fill(s->child_bytes, LEN, 0xc5);
	memcpy(s->x.a.addr + OFF_PARENT, s->parent_bytes, LEN);
	memcpy(s->x.a.addr + OFF_CHILD, s->child_bytes, LEN);
	gc_fill(s->x.a.addr + OFF_LATER, LEN, 0x1a);
	memset(s->x.b.addr, 0, FP_LEN);
	return 0;
}

/* Whose bytes the peer's buffer at @off holds. */
static const char *whose(struct scen *s, size_t off)
{
	const uint8_t *p = s->x.b.addr + off;

	if (!memcmp(p, s->parent_bytes, LEN))
		return "the parent's";
	if (!memcmp(p, s->child_bytes, LEN))
		return "the child's";
	if (!memcmp(p, s->x.a.addr + OFF_LATER, LEN))
		return "the parent's later request's";
	for (int i = 0; i < LEN; i++)
		if (p[i])
			return "other bytes";
	return "nothing";
}

/* The child calls one setter on the current request, nothing else. */
static void child_setter(void *arg)
{
	struct scen *s = arg;

	if (s->inl)
		ibv_wr_set_inline_data(s->x.qx, s->child_bytes, LEN);
	else
		ibv_wr_set_sge(s->x.qx, s->x.a.mr->lkey,
			       (uintptr_t)s->x.a.addr + OFF_CHILD, LEN);
}

static void child_complete(void *arg)
{
	struct scen *s = arg;
	int ret = ibv_wr_complete(s->x.qx);

	fp_guard(ret == EPERM,
		 "%s: child: ibv_wr_complete() on the parent's open batch -> "
		 "EPERM (%d: %s%s)",
		 s->what, ret, strerror(ret),
		 ret == EACCES ? ", the kernel's, after publishing" : "");
}

static void child_poll(void *arg)
{
	struct scen *s = arg;
	struct ibv_poll_cq_attr attr = {};
	int ret = ibv_start_poll(s->x.cqx, &attr), n = 0;

	fp_guard(ret == EPERM,
		 "%s: child: ibv_start_poll() on the inherited CQ ex -> "
		 "EPERM (%d: %s)",
		 s->what, ret, strerror(ret));
	if (ret)
		return;
	do {
		n++;
	} while (!ibv_next_poll(s->x.cqx));
	ibv_end_poll(s->x.cqx);
	fp_diag("%s: the child polled %d of the parent's completions", s->what,
		n);
}

static bool run_child(struct scen *s, enum fp_kind kind, void (*fn)(void *))
{
	int status = fp_run(kind, fn, s, s->what);

	return gc_ok(status == 0, "%s: child exited normally (%d)", s->what,
		     status);
}

/* The parent's one signalled SEND completes, and is the only one. */
static void parent_completion(struct scen *s, uint64_t wr_id)
{
	uint64_t ids[2] = {};
	int n = gc_poll_ex(s->x.cqx, 1, ids, PEER_MS);

	if (n == 1)
		n += gc_poll_ex(s->x.cqx, 1, ids + 1, GRACE_MS);

	gc_guard(n == 1 && ids[0] == wr_id,
		 "%s: the parent's CQ holds exactly its request's completion "
		 "(%d, wr_id %#llx)",
		 s->what, n, (unsigned long long)ids[0]);
}

/* The peer's one receive got the parent's bytes. */
static void peer_got_parents(struct scen *s)
{
	struct ibv_wc wc;
	int n = gc_poll(s->x.p.cq_b, 1, &wc, PEER_MS);

	gc_ok(n == 1 && wc.status == IBV_WC_SUCCESS,
	      "%s: the peer received a message (%d)", s->what, n);
	gc_guard(n == 1 && wc.byte_len == LEN &&
			 !memcmp(s->x.b.addr, s->parent_bytes, LEN),
		 "%s: the peer got the parent's bytes, not the child's (%s)",
		 s->what, whose(s, 0));
}

/* 1: a setter in the child after the parent's SEND was posted. */
static void setter_after_post(enum fp_kind kind, bool inl)
{
	struct scen s;
	uint64_t id;
	int ret, n;

	if (open_scen(&s,
		      inl ? "1 set_inline_data after the post" :
			    "1 set_sge after the post",
		      kind, inl))
		goto out;
	ret = fx_send_batch(&s.x, WR_PARENT, OFF_PARENT, LEN,
			    inl ? s.parent_bytes : NULL);
	gc_ok(!ret, "%s: the parent posts a SEND, the peer has no receive",
	      s.what);
	usleep(100000);
	n = gc_poll_ex(s.x.cqx, 1, &id, 1);
	gc_ok(n == 0,
	      "%s: not acknowledged yet: rxe retransmits it on RNR NAK (%d)",
	      s.what, n);
	run_child(&s, kind, child_setter);

	ret = gc_post_recv(s.x.p.qp_b, &s.x.b, 0, RECV_LEN, 1);
	gc_ok(!ret, "%s: the peer posts its receive", s.what);
	peer_got_parents(&s);
	parent_completion(&s, WR_PARENT);
out:
	fx_close(&s.x);
}

/* 2: fork inside the parent's batch, the child completes it. */
static void complete_in_child(enum fp_kind kind, bool parent_aborts)
{
	struct ibv_wc wc[2];
	struct scen s;
	int ret, n;

	if (open_scen(&s,
		      parent_aborts ? "2 open batch, the parent aborts" :
				      "2 open batch, the parent completes",
		      kind, false))
		goto out;
	if (!gc_ok(!gc_post_recv(s.x.p.qp_b, &s.x.b, 0, RECV_LEN, 1) &&
			   !gc_post_recv(s.x.p.qp_b, &s.x.b, 512, RECV_LEN, 2),
		   "%s: the peer posts two receives", s.what))
		goto out;
	fx_batch_open(&s.x, WR_PARENT, OFF_PARENT, LEN, NULL);
	run_child(&s, kind, child_complete);

	if (parent_aborts) {
		ibv_wr_abort(s.x.qx);
		ret = fx_send_batch(&s.x, WR_LATER, OFF_LATER, LEN, NULL);
		gc_ok(!ret, "%s: the parent aborts, then posts another SEND",
		      s.what);
	} else {
		ret = ibv_wr_complete(s.x.qx);
		gc_ok(!ret, "%s: the parent's ibv_wr_complete() (%d)", s.what,
		      ret);
	}
	n = gc_poll(s.x.p.cq_b, 1, wc, PEER_MS);
	if (n == 1)
		n += gc_poll(s.x.p.cq_b, 1, wc + 1, GRACE_MS);
	gc_guard(n == 1, "%s: exactly one message reached the peer (%d)",
		 s.what, n);
	if (parent_aborts)
		gc_guard(n >= 1 && !memcmp(s.x.b.addr, s.x.a.addr + OFF_LATER,
					   LEN),
			 "%s: the aborted request never ran: the peer's "
			 "first receive holds the later request (%s)",
			 s.what, whose(&s, 0));
	else
		gc_guard(n >= 1 && !memcmp(s.x.b.addr, s.parent_bytes, LEN),
			 "%s: the peer got the parent's request (%s)", s.what,
			 whose(&s, 0));
	parent_completion(&s, parent_aborts ? WR_LATER : WR_PARENT);
out:
	fx_close(&s.x);
}

/* 3: fork after a setter inside the batch, the child sets again. */
static void setter_in_batch(enum fp_kind kind, bool inl)
{
	struct scen s;
	int ret;

	if (open_scen(&s,
		      inl ? "3 set_inline_data in the open batch" :
			    "3 set_sge in the open batch",
		      kind, inl))
		goto out;
	if (!gc_ok(!gc_post_recv(s.x.p.qp_b, &s.x.b, 0, RECV_LEN, 1),
		   "%s: the peer posts a receive", s.what))
		goto out;
	fx_batch_open(&s.x, WR_PARENT, OFF_PARENT, LEN,
		      inl ? s.parent_bytes : NULL);
	run_child(&s, kind, child_setter);

	ret = ibv_wr_complete(s.x.qx);
	gc_ok(!ret, "%s: the parent completes its batch (%d)", s.what, ret);
	peer_got_parents(&s);
	parent_completion(&s, WR_PARENT);
out:
	fx_close(&s.x);
}

/* 4: the child polls the parent's CQ ex while completions wait in it. */
static void poll_in_child(enum fp_kind kind)
{
	struct ibv_wc wc[3];
	uint64_t ids[4] = {};
	struct scen s;
	int i, n;

	if (open_scen(&s, "4 start_poll", kind, false))
		goto out;
	for (i = 0, n = 0; i < 3; i++)
		n += !gc_post_recv(s.x.p.qp_b, &s.x.b, i * 512, RECV_LEN, i) &&
		     !fx_send_batch(&s.x, i + 1, OFF_PARENT, LEN, NULL);
	gc_ok(n == 3 && gc_poll(s.x.p.cq_b, 3, wc, PEER_MS) == 3,
	      "%s: the parent sent 3 SENDs, the peer got them", s.what);
	/* Their acknowledgements put the completions into the CQ ex. */
	usleep(200000);
	run_child(&s, kind, child_poll);

	n = gc_poll_ex(s.x.cqx, 3, ids, PEER_MS);
	if (n == 3)
		n += gc_poll_ex(s.x.cqx, 1, ids + 3, GRACE_MS);
	gc_guard(n == 3 && ids[0] == 1 && ids[1] == 2 && ids[2] == 3,
		 "%s: the parent still polls all 3 of its completions (%d)",
		 s.what, n);
out:
	fx_close(&s.x);
}

int main(void)
{
	static const enum fp_kind kinds[] = { FP_FORK, FP_UFORK };

	if (!fu_start("fork_wr_guard"))
		return gc_finish();
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		setter_after_post(kinds[k], false);
		setter_after_post(kinds[k], true);
		complete_in_child(kinds[k], true);
		complete_in_child(kinds[k], false);
		setter_in_batch(kinds[k], false);
		setter_in_batch(kinds[k], true);
		poll_in_child(kinds[k]);
	}
	return gc_finish();
}
