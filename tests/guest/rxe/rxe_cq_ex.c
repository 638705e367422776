// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: the extended polling API of ibv_create_cq_ex()
 * (ibv_start_poll / ibv_next_poll / ibv_end_poll and the ibv_wc_read_*
 * readers), refusal of unsupported fields, resizing with completions
 * pending, and completion events through a channel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest_common.h"

#define N	5

static struct ibv_cq_ex *cq_ex(struct gc_dev *dev, uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 256,
		.wc_flags = wc_flags,
	};

	return ibv_create_cq_ex(dev->ctx, &attr);
}

struct rec {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, imm, qp_num, src_qp;
	unsigned int flags;
};

/*
 * ibv_start_poll() until an entry is there, up to GC_TIMEOUT_MS: 0 with
 * the CQ's lock taken (end it with ibv_end_poll()), ENOENT on a timeout,
 * or the error.
 */
static int start_poll_wait(struct ibv_cq_ex *cq, const char *what, int seen,
			   int want)
{
	long deadline = gc_now_ms() + GC_TIMEOUT_MS;
	struct ibv_poll_cq_attr attr = {};
	int err;

	while ((err = ibv_start_poll(cq, &attr)) == ENOENT &&
	       gc_now_ms() < deadline)
		usleep(200);
	if (err == ENOENT)
		gc_diag("timeout: %d of %d %s completions after %d ms", seen,
			want, what, GC_TIMEOUT_MS);
	else if (err)
		gc_diag("ibv_start_poll on the %s CQ: %d", what, err);
	return err;
}

/*
 * Drain @want entries of the @what CQ with the extended API; -1 if
 * start_poll fails.  With @chain, the entries that one start_poll finds
 * are read on with next_poll, which must then never run past the last
 * entry: rdma-core 44's librxe consumes one slot too many when end_poll
 * follows a next_poll that returned ENOENT (see the last checks of
 * test_ex_poll()), after which its start_poll "finds" an entry in an
 * empty CQ.  So a chained drain is only for entries known to be there
 * all, and an unchained one (one entry per start_poll) is for those
 * still arriving: completions that come in pieces, as they do on a
 * loaded guest, would otherwise break the test on Debian's library.
 */
static int drain(struct ibv_cq_ex *cq, struct rec *r, int max, int want,
		 bool chain, const char *what)
{
	int n = 0, err;

	while (n < want) {
		err = start_poll_wait(cq, what, n, want);
		if (err == ENOENT)
			break;
		if (err)
			return -1;
		do {
			if (n < max) {
				r[n].wr_id = cq->wr_id;
				r[n].status = cq->status;
				r[n].opcode = ibv_wc_read_opcode(cq);
				r[n].byte_len = ibv_wc_read_byte_len(cq);
				r[n].imm = ntohl(ibv_wc_read_imm_data(cq));
				r[n].qp_num = ibv_wc_read_qp_num(cq);
				r[n].src_qp = ibv_wc_read_src_qp(cq);
				r[n].flags = ibv_wc_read_wc_flags(cq);
			}
			n++;
		} while (chain && n < want && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	return n;
}

/*
 * ibv_start_poll() on a CQ that should be empty: true when it is.  An
 * entry that is there after all is reported and its poll ended, so the
 * CQ's lock (a spinlock in librxe) is not left taken for the next poll
 * to spin on for good.
 */
static bool cq_empty(struct ibv_cq_ex *cq, const char *what)
{
	struct ibv_poll_cq_attr attr = {};
	int err = ibv_start_poll(cq, &attr);

	if (!err) {
		gc_diag("%s CQ: unexpected entry wr_id %llu status %s", what,
			(unsigned long long)cq->wr_id,
			ibv_wc_status_str(cq->status));
		ibv_end_poll(cq);
	}
	return err == ENOENT;
}

static void test_ex_poll(void)
{
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_ex *ca, *cb, *bad;
	struct rec r[2 * N];
	struct gc_pair p;
	struct gc_buf a, b;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {}, *badwr;
	int i, n, ok;

	if (!gc_ok(!gc_pair_open(&p, 0, NULL), "devices"))
		return;
	ca = cq_ex(&p.a, IBV_WC_STANDARD_FLAGS);
	cb = cq_ex(&p.b, IBV_WC_STANDARD_FLAGS);
	if (!gc_ok(ca && cb, "ibv_create_cq_ex with the standard fields (%s)",
		   ca && cb ? "ok" : strerror(errno)))
		goto out;
	bad = cq_ex(&p.a, IBV_WC_STANDARD_FLAGS |
			  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	gc_ok(!bad, "wall-clock timestamps refused (%s)",
	      bad ? "created" : strerror(errno));
	if (bad)
		ibv_destroy_cq(ibv_cq_ex_to_cq(bad));

	p.qp_a = gc_create_qp(&p.a, ibv_cq_ex_to_cq(ca), IBV_QPT_RC, NULL);
	p.qp_b = gc_create_qp(&p.b, ibv_cq_ex_to_cq(cb), IBV_QPT_RC, NULL);
	if (!p.qp_a || !p.qp_b || gc_connect(p.qp_a, &p.a, p.qp_b, &p.b) ||
	    gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 1) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "QP pair on extended CQs");
		goto out;
	}
	gc_ok(cq_empty(cb, "receiver's"),
	      "ibv_start_poll on an empty CQ: ENOENT");

	for (i = 0; i < N; i++)
		gc_post_recv(p.qp_b, &b, i * 512, 512, 10 + i);
	for (i = 0; i < N; i++) {
		sge = (struct ibv_sge){ (uintptr_t)a.addr + i * 512, 100 + i,
					a.mr->lkey };
		wr.wr_id = 20 + i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = i & 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
		wr.imm_data = htonl(1000 + i);
		wr.send_flags = IBV_SEND_SIGNALED;
		ibv_post_send(p.qp_a, &wr, &badwr);
	}
	/*
	 * The sender's completions first, one per start_poll as they come.
	 * rxe writes a receive completion before it sends the ACK, so once
	 * the sender has all of them the receiver's are all in its CQ and
	 * can be read with next_poll.
	 */
	n = drain(ca, r, 2 * N, N, false, "sender's");
	ok = n == N;
	for (i = 0; ok && i < N; i++)
		ok &= r[i].wr_id == (uint64_t)(20 + i) &&
		      r[i].status == IBV_WC_SUCCESS &&
		      r[i].opcode == IBV_WC_SEND &&
		      r[i].qp_num == p.qp_a->qp_num;
	gc_ok(ok, "sender: %d entries right", n);
	gc_ok(cq_empty(ca, "sender's"), "drained: ENOENT again");

	n = drain(cb, r, 2 * N, N, true, "receiver's");
	ok = n == N;
	for (i = 0; ok && i < N; i++) {
		bool imm = i & 1;

		ok &= r[i].wr_id == (uint64_t)(10 + i) &&
		      r[i].status == IBV_WC_SUCCESS &&
		      r[i].opcode == IBV_WC_RECV &&
		      r[i].byte_len == (uint32_t)(100 + i) &&
		      r[i].qp_num == p.qp_b->qp_num &&
		      !!(r[i].flags & IBV_WC_WITH_IMM) == imm &&
		      (!imm || r[i].imm == (uint32_t)(1000 + i));
	}
	gc_ok(ok, "receiver: %d entries with wr_id, status, opcode, length, "
	      "qp_num, flags and immediates right", n);
	gc_ok(!memcmp(b.addr, a.addr, 100) &&
	      !memcmp(b.addr + 4 * 512, a.addr + 4 * 512, 104),
	      "receiver: data byte for byte");

	/* The documented loop: next_poll until ENOENT, then end_poll. */
	gc_post_recv(p.qp_b, &b, 0, 512, 30);
	gc_post_send(p.qp_a, IBV_WR_SEND, &a, 0, 10, 31, IBV_SEND_SIGNALED,
		     0, 0);
	n = drain(ca, r, 2 * N, 1, false, "sender's");
	gc_ok(n == 1 && r[0].wr_id == 31, "one more send completion");
	i = start_poll_wait(cb, "receiver's", 0, 1);
	if (!gc_ok(!i && cb->wr_id == 30, "one more receive completion")) {
		if (!i)
			ibv_end_poll(cb);
	} else {
		i = ibv_next_poll(cb);
		gc_ok(i == ENOENT, "ibv_next_poll past the last: ENOENT (%d)",
		      i);
		ibv_end_poll(cb);
		i = ibv_start_poll(cb, &pattr);
		gc_known_librxe_bug(i == ENOENT,
				    "rdma-core 44 librxe: end_poll after an ENOENT "
				    "next_poll consumes one slot too many",
				    "nothing left after next_poll/end_poll (%d)", i);
		if (!i)
			ibv_end_poll(cb);
	}
	gc_buf_free(&a);
	gc_buf_free(&b);
out:
	if (p.qp_a)
		ibv_destroy_qp(p.qp_a);
	if (p.qp_b)
		ibv_destroy_qp(p.qp_b);
	p.qp_a = p.qp_b = NULL;
	if (ca)
		gc_ok(!ibv_destroy_cq(ibv_cq_ex_to_cq(ca)), "destroy CQ ex");
	if (cb)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cb));
	gc_pair_close(&p);
}

/*
 * Ten completions pending in a 16-entry CQ survive a resize to 64.  The
 * CQ is the receiver's: rxe writes a receive completion before it sends
 * the ACK, so once the sender has its ten completions all ten receive
 * completions are in the CQ -- no sleep, no race.
 */
static void test_resize(void)
{
	struct ibv_cq *small;
	struct ibv_wc wc[10];
	struct gc_buf a, b;
	struct gc_pair p;
	int i, n, ok;

	if (!gc_ok(!gc_pair_open(&p, 0, NULL), "resize: devices"))
		return;
	small = ibv_create_cq(p.b.ctx, 16, NULL, NULL, 0);
	if (gc_pair_rc_on(&p, small) ||
	    gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 1) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "resize: setup");
		goto out;
	}
	for (i = 0; i < 10; i++)
		gc_post_recv(p.qp_b, &b, i * 64, 64, i);
	for (i = 0; i < 10; i++)
		gc_post_send(p.qp_a, IBV_WR_SEND, &a, i * 64, 64, i,
			     IBV_SEND_SIGNALED, 0, 0);
	n = gc_poll(p.cq_a, 10, wc, GC_TIMEOUT_MS);
	ok = n == 10;
	for (i = 0; ok && i < n; i++)
		ok &= wc[i].status == IBV_WC_SUCCESS;
	gc_ok(ok, "resize: 10 sends acknowledged, so 10 receive "
	      "completions wait in the 16-entry CQ (%d)", n);
	i = ibv_resize_cq(small, 64);
	gc_ok(!i && small->cqe >= 64, "ibv_resize_cq 16 -> 64 (%s, cqe %d)",
	      strerror(i), small->cqe);
	n = ibv_poll_cq(small, 10, wc);
	ok = n == 10;
	for (i = 0; ok && i < n; i++)
		ok &= wc[i].wr_id == (uint64_t)i &&
		      wc[i].status == IBV_WC_SUCCESS &&
		      wc[i].opcode == IBV_WC_RECV && wc[i].byte_len == 64;
	gc_ok(ok, "resize: all 10 completions kept, in order (%d)", n);
	gc_ok(!memcmp(a.addr, b.addr, 640), "resize: data received");
	gc_buf_free(&a);
	gc_buf_free(&b);
out:
	/* Both QPs use the small CQ: it can go only after them. */
	if (p.qp_a)
		ibv_destroy_qp(p.qp_a);
	if (p.qp_b)
		ibv_destroy_qp(p.qp_b);
	p.qp_a = p.qp_b = NULL;
	if (small)
		gc_ok(ibv_destroy_cq(small) == 0, "resize: destroy the CQ");
	gc_pair_close(&p);
}

static void test_channel(void)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq = NULL, *ev_cq;
	struct gc_buf a, b;
	struct gc_pair p;
	struct ibv_wc wc;
	void *ev_ctx;

	if (!gc_ok(!gc_pair_open(&p, 0, NULL), "channel: devices"))
		return;
	ch = ibv_create_comp_channel(p.b.ctx);
	if (ch)
		cq = ibv_create_cq(p.b.ctx, 16, (void *)0x1234, ch, 0);
	p.qp_a = gc_create_qp(&p.a, p.cq_a, IBV_QPT_RC, NULL);
	p.qp_b = cq ? gc_create_qp(&p.b, cq, IBV_QPT_RC, NULL) : NULL;
	if (!ch || !cq || !p.qp_a || !p.qp_b ||
	    gc_connect(p.qp_a, &p.a, p.qp_b, &p.b) ||
	    gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 1) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "channel: setup");
		goto out;
	}
	gc_ok(!ibv_req_notify_cq(cq, 0), "ibv_req_notify_cq");
	gc_post_recv(p.qp_b, &b, 0, 4096, 1);
	gc_post_send(p.qp_a, IBV_WR_SEND, &a, 0, 10, 2, IBV_SEND_SIGNALED, 0,
		     0);
	/* Without an event ibv_get_cq_event() would block for good. */
	if (gc_ok(gc_wait_fd(ch->fd, POLLIN, GC_TIMEOUT_MS,
			     "completion event of the receiver's CQ") == 1,
		  "completion event arrives")) {
		gc_ok(!ibv_get_cq_event(ch, &ev_cq, &ev_ctx) && ev_cq == cq &&
		      ev_ctx == (void *)0x1234,
		      "ibv_get_cq_event names the CQ");
		ibv_ack_cq_events(cq, 1);
	}
	gc_ok(gc_poll(cq, 1, &wc, GC_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_SUCCESS && wc.byte_len == 10,
	      "the completion is there");
	gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS);
	gc_buf_free(&a);
	gc_buf_free(&b);
out:
	if (p.qp_b)
		ibv_destroy_qp(p.qp_b);
	p.qp_b = NULL;
	if (cq)
		ibv_destroy_cq(cq);
	if (ch)
		ibv_destroy_comp_channel(ch);
	gc_pair_close(&p);
}

struct poller {
	struct ibv_cq *cq;
	int stop;
	long polls, bad;
};

static void *poll_empty(void *arg)
{
	struct poller *pl = arg;
	struct ibv_wc wc;

	while (!__atomic_load_n(&pl->stop, __ATOMIC_ACQUIRE)) {
		if (ibv_poll_cq(pl->cq, 1, &wc) != 0)
			__atomic_fetch_add(&pl->bad, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&pl->polls, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * A resize swaps the CQ's ring while other threads poll it: a poll may
 * look at the ring before it takes the CQ's lock, so the old ring must
 * not vanish under it.
 */
static void test_resize_while_polling(void)
{
	struct poller pl = {};
	struct gc_dev dev;
	pthread_t th[2];
	int i, err = 0, started = 0;

	if (!gc_ok(!gc_dev_open(&dev, 0), "resize under pollers: device"))
		return;
	pl.cq = ibv_create_cq(dev.ctx, 32, NULL, NULL, 0);
	if (!gc_ok(pl.cq != NULL, "resize under pollers: CQ"))
		goto out;
	for (i = 0; i < 2; i++)
		started += !pthread_create(&th[i], NULL, poll_empty, &pl);
	for (i = 0; i < 200 && !err; i++)
		err = ibv_resize_cq(pl.cq, i % 2 ? 32 : 128);
	__atomic_store_n(&pl.stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	gc_ok(started == 2 && !err,
	      "resize under pollers: 200 resizes while 2 threads poll (%s)",
	      strerror(err));
	gc_ok(!pl.bad, "resize under pollers: every poll of the empty CQ "
	      "returned 0 (%ld polls, %ld not 0)", pl.polls, pl.bad);
	gc_ok(ibv_destroy_cq(pl.cq) == 0, "resize under pollers: destroy");
out:
	gc_dev_close(&dev);
}

int main(void)
{
	gc_start("rxe_cq_ex");
	test_ex_poll();
	test_resize();
	test_resize_while_polling();
	test_channel();
	return gc_finish();
}
