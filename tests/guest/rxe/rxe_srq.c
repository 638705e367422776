// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: two RC QPs on rxe1 share one SRQ and receive
 * from two QPs on rxe0; query, the limit event, and a resize with
 * receives still pending.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

#define MSG	200
#define SLOT	256

struct srq_test {
	struct gc_pair p;
	struct ibv_srq *srq;
	struct ibv_qp *a[2], *b[2];
	struct gc_buf src[2], dst;
};

static void msg_fill(uint8_t *m, int qp, int k)
{
	gc_fill(m, MSG, (uint8_t)(qp * 64 + k));
	m[0] = qp;
	m[1] = k;
}

static int post_srq(struct srq_test *t, int first, int n)
{
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;
	int i, err;

	for (i = first; i < first + n; i++) {
		sge = (struct ibv_sge){ (uintptr_t)t->dst.addr +
					(i % 64) * SLOT, SLOT,
					t->dst.mr->lkey };
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		err = ibv_post_srq_recv(t->srq, &wr, &bad);
		if (err)
			return err;
	}
	return 0;
}

static void send_msg(struct srq_test *t, int qp, int k)
{
	size_t off = k * SLOT;

	msg_fill(t->src[qp].addr + off, qp, k);
	gc_post_send(t->a[qp], IBV_WR_SEND, &t->src[qp], off, MSG, k,
		     IBV_SEND_SIGNALED, 0, 0);
}

/* Receive n messages and check each against what its sender sent. */
static void recv_check(struct srq_test *t, int n, const char *what)
{
	struct ibv_wc wc[16], sw[16];
	uint8_t expect[MSG];
	int i, got, ok = 1;

	got = gc_poll(t->p.cq_b, n, wc, GC_TIMEOUT_MS);
	gc_ok(got == n, "%s: %d receive completions (%d)", what, n, got);
	for (i = 0; i < got; i++) {
		uint8_t *m = t->dst.addr + (wc[i].wr_id % 64) * SLOT;
		int qp = wc[i].qp_num == t->b[1]->qp_num;

		if (wc[i].status != IBV_WC_SUCCESS || wc[i].byte_len != MSG ||
		    (!qp && wc[i].qp_num != t->b[0]->qp_num) || m[0] != qp) {
			ok = 0;
			continue;
		}
		msg_fill(expect, qp, m[1]);
		ok &= !memcmp(m, expect, MSG);
	}
	gc_ok(ok, "%s: each message landed intact, on the right QP", what);
	got = gc_poll(t->p.cq_a, n, sw, GC_TIMEOUT_MS);
	gc_ok(got == n, "%s: %d send completions (%d)", what, n, got);
}

static bool wait_async(struct ibv_context *ctx, enum ibv_event_type type,
		       struct ibv_srq *srq)
{
	long deadline = gc_now_ms() + GC_TIMEOUT_MS;
	struct ibv_async_event ev;
	bool found = false;
	char what[80];
	int r;

	snprintf(what, sizeof(what), "async event \"%s\" of the SRQ",
		 ibv_event_type_str(type));
	fcntl(ctx->async_fd, F_SETFL,
	      fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	/* One limit for all: other events may come first. */
	while (!found) {
		r = gc_fd_ready_until(ctx->async_fd, POLLIN, deadline);
		if (r < 0)
			gc_diag("poll for %s: %s", what, strerror(errno));
		else if (!r)
			gc_diag("timeout: no %s within %d ms", what,
				GC_TIMEOUT_MS);
		if (r != 1)
			break;
		if (ibv_get_async_event(ctx, &ev)) {
			gc_diag("ibv_get_async_event for %s: %s", what,
				strerror(errno));
			break;
		}
		gc_diag("async event %s", ibv_event_type_str(ev.event_type));
		found = ev.event_type == type && ev.element.srq == srq;
		ibv_ack_async_event(&ev);
	}
	return found;
}

static int setup(struct srq_test *t)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 64, .max_sge = 2 },
	};
	struct gc_qp_caps caps = {};
	int i;

	memset(t, 0, sizeof(*t));
	if (gc_pair_open(&t->p, 0, NULL))
		return -1;
	t->srq = ibv_create_srq(t->p.b.pd, &sattr);
	if (!gc_ok(t->srq != NULL, "create SRQ (%s)", strerror(errno)))
		return -1;
	caps.srq = t->srq;
	for (i = 0; i < 2; i++) {
		t->a[i] = gc_create_qp(&t->p.a, t->p.cq_a, IBV_QPT_RC, NULL);
		t->b[i] = gc_create_qp(&t->p.b, t->p.cq_b, IBV_QPT_RC, &caps);
		if (!t->a[i] || !t->b[i] ||
		    gc_connect(t->a[i], &t->p.a, t->b[i], &t->p.b))
			return -1;
		if (gc_buf_alloc(&t->src[i], t->p.a.pd, 64 * SLOT,
				 GC_ACCESS_ALL, 0))
			return -1;
	}
	return gc_buf_alloc(&t->dst, t->p.b.pd, 64 * SLOT, GC_ACCESS_ALL, 0);
}

static void teardown(struct srq_test *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (t->a[i])
			ibv_destroy_qp(t->a[i]);
		if (t->b[i])
			ibv_destroy_qp(t->b[i]);
		if (t->src[i].mr)
			gc_buf_free(&t->src[i]);
	}
	if (t->dst.mr)
		gc_buf_free(&t->dst);
	if (t->srq)
		gc_ok(!ibv_destroy_srq(t->srq), "destroy SRQ");
	gc_pair_close(&t->p);
}

int main(void)
{
	struct ibv_srq_attr attr;
	struct srq_test t;
	int k;

	gc_start("rxe_srq");
	if (!gc_ok(!setup(&t), "two QP pairs, the rxe1 side on one SRQ"))
		goto out;

	gc_ok(!ibv_query_srq(t.srq, &attr) && attr.max_wr >= 64 &&
	      attr.srq_limit == 0, "query SRQ: max_wr %u limit %u",
	      attr.max_wr, attr.srq_limit);

	gc_ok(!post_srq(&t, 0, 8), "post 8 receives on the SRQ");
	for (k = 0; k < 4; k++) {
		send_msg(&t, 0, k);
		send_msg(&t, 1, k + 4);
	}
	recv_check(&t, 8, "both QPs");

	/* Limit event: 6 posted, limit 4, three consumed. */
	gc_ok(!post_srq(&t, 8, 6), "post 6 more receives");
	attr.srq_limit = 4;
	gc_ok(!ibv_modify_srq(t.srq, &attr, IBV_SRQ_LIMIT), "arm limit 4");
	gc_ok(!ibv_query_srq(t.srq, &attr) && attr.srq_limit == 4,
	      "query SRQ: limit %u", attr.srq_limit);
	for (k = 0; k < 3; k++)
		send_msg(&t, k & 1, 8 + k);
	recv_check(&t, 3, "limit");
	gc_ok(wait_async(t.p.b.ctx, IBV_EVENT_SRQ_LIMIT_REACHED, t.srq),
	      "IBV_EVENT_SRQ_LIMIT_REACHED delivered");

	/* Resize with three receives pending; they must survive. */
	attr.max_wr = 200;
	gc_ok(!ibv_modify_srq(t.srq, &attr, IBV_SRQ_MAX_WR),
	      "resize SRQ to 200");
	gc_ok(!ibv_query_srq(t.srq, &attr) && attr.max_wr >= 200,
	      "query SRQ: max_wr %u", attr.max_wr);
	gc_ok(!post_srq(&t, 14, 100),
	      "post 100 receives, more than the old size held");
	for (k = 0; k < 6; k++)
		send_msg(&t, k & 1, 20 + k);
	recv_check(&t, 6, "after resize");
out:
	teardown(&t);
	return gc_finish();
}
