// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A program of libibverbs 1.0: bound to the IBVERBS_1.0 entry points
 * (verbs_1_0.h), it lists the devices, opens rxe0 and rxe1, queries them,
 * allocates PDs, registers MRs, creates CQs, an SRQ, UD QPs and AHs, moves
 * messages both ways through the 1.0 context's ops (post_send, post_recv,
 * post_srq_recv, poll_cq, req_notify_cq), takes a completion event and an
 * SRQ limit event through the 1.0 entries, and destroys everything.
 * Every object it sees has the 1.0 layout and points at the real one.
 *
 * Meanwhile the same process has rxe0 and rxe1 open through the 1.1 API
 * too, and compares: both interfaces coexist in one process.
 *
 * Upstream behaviour: passes on Debian's libibverbs as on ours.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"
#include "verbs_1_0.h"

#define MSG 256
#define GRH 40
#define SLOT (GRH + MSG)

struct side {
	struct gc_dev dev; /* the same device through 1.1 */
	struct ibv_device_1_0 *device;
	struct ibv_context_1_0 *ctx;
	struct ibv_pd_1_0 *pd;
	struct ibv_cq_1_0 *cq;
	struct ibv_qp_1_0 *qp;
	struct ibv_ah_1_0 *ah; /* to the other side */
	struct ibv_mr_1_0 *mr;
	uint8_t *buf;
	int cookie;
};

struct test {
	struct ibv_device_1_0 **list;
	struct side s[2];
	struct ibv_comp_channel *channel; /* side 1's CQ */
	struct ibv_srq_1_0 *srq; /* side 1's QP */
	int srq_cookie, qp_cookie;
};

/* The file (symlinks resolved) that holds @addr, into @buf. */
static const char *lib_of(void *addr, char *buf)
{
	Dl_info info;

	if (!addr || !dladdr(addr, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, buf))
		return "";
	return buf;
}

/* Each 1.0 entry is the library's own, not the default (1.1) version. */
static void check_binding(void)
{
	const char *mapped = gc_mapped_libibverbs();
	char path[PATH_MAX];
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(v10_entries) / sizeof(v10_entries[0]); i++) {
		const struct v10_entry *e = &v10_entries[i];
		void *versioned = dlvsym(RTLD_DEFAULT, e->name, e->version);

		if (!versioned || versioned != e->bound ||
		    strcmp(lib_of(versioned, path), mapped) ||
		    versioned == dlsym(RTLD_DEFAULT, e->name)) {
			gc_diag("%s@%s: %p, bound %p, in %s", e->name,
				e->version, versioned, e->bound,
				lib_of(versioned, path));
			bad++;
		}
	}
	gc_ok(!bad, "the %zu compat entries are %s's own, beside the 1.1 ones",
	      sizeof(v10_entries) / sizeof(v10_entries[0]), mapped);
}

static struct ibv_device_1_0 *find_device(struct test *t, int n,
					  const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v10_get_device_name(t->list[i]), name))
			return t->list[i];
	return NULL;
}

static bool list_devices(struct test *t)
{
	struct ibv_device **real;
	int n = -1, m = -1, i;
	bool same = true;

	t->list = v10_get_device_list(&n);
	if (!gc_ok(t->list && n >= 2, "1.0 get_device_list: %d devices", n))
		return false;
	gc_ok(!t->list[n], "the 1.0 list is NULL-terminated");
	real = ibv_get_device_list(&m);
	for (i = 0; real && i < n && i < m; i++)
		same &= t->list[i]->real_device == real[i] ||
			(!strcmp(v10_get_device_name(t->list[i]),
				 ibv_get_device_name(real[i])) &&
			 v10_get_device_guid(t->list[i]) ==
				 ibv_get_device_guid(real[i]));
	gc_ok(real && n == m && same,
	      "1.0 and 1.1 lists name the same devices, same GUIDs");
	ibv_free_device_list(real);
	t->s[0].device = find_device(t, n, "rxe0");
	t->s[1].device = find_device(t, n, "rxe1");
	return gc_ok(t->s[0].device && t->s[1].device,
		     "rxe0 and rxe1 in the 1.0 list");
}

static bool open_side(struct side *s, int which)
{
	struct ibv_context_1_0 *ctx;
	struct ibv_device_attr a, b;
	struct ibv_port_attr pa, pb;
	union ibv_gid gid;
	__be16 pkey = 0;
	int err;

	if (!gc_ok(!gc_dev_open(&s->dev, which), "1.1: open %s",
		   which ? "rxe1" : "rxe0"))
		return false;
	ctx = s->ctx = v10_open_device(s->device);
	if (!gc_ok(ctx != NULL, "1.0 open_device %s (%s)", s->dev.name,
		   ctx ? "ok" : strerror(errno)))
		return false;
	gc_ok(ctx->device == s->device && ctx->real_context &&
		      ctx->real_context->device == s->device->real_device,
	      "%s: 1.0 context names its 1.0 device and the real one",
	      s->dev.name);
	gc_ok(ctx->ops.poll_cq && ctx->ops.req_notify_cq &&
		      ctx->ops.post_send && ctx->ops.post_recv &&
		      ctx->ops.post_srq_recv,
	      "%s: the 1.0 data-path ops are set", s->dev.name);

	err = v10_query_device(ctx, &a);
	gc_ok(!err && !ibv_query_device(s->dev.ctx, &b) &&
		      a.node_guid == b.node_guid && a.max_qp == b.max_qp &&
		      a.phys_port_cnt >= 1,
	      "%s: 1.0 query_device agrees with 1.1 (max_qp %d)", s->dev.name,
	      a.max_qp);
	gc_ok(!v10_query_port(ctx, GC_PORT, &pa) &&
		      !ibv_query_port(s->dev.ctx, GC_PORT, &pb) &&
		      pa.state == IBV_PORT_ACTIVE && pa.state == pb.state &&
		      pa.link_layer == IBV_LINK_LAYER_ETHERNET &&
		      pa.gid_tbl_len == pb.gid_tbl_len,
	      "%s: 1.0 query_port: active Ethernet port, as 1.1 says",
	      s->dev.name);
	gc_ok(!v10_query_gid(ctx, GC_PORT, s->dev.gid_index, &gid) &&
		      !memcmp(&gid, &s->dev.gid, sizeof(gid)),
	      "%s: 1.0 query_gid %d is ::ffff:%s", s->dev.name,
	      s->dev.gid_index, s->dev.ip);
	err = v10_query_pkey(ctx, GC_PORT, 0, &pkey);
	gc_ok(!err && pkey == htobe16(0xffff),
	      "%s: 1.0 query_pkey 0 is 0xffff (0x%x)", s->dev.name,
	      be16toh(pkey));

	s->pd = v10_alloc_pd(ctx);
	if (!gc_ok(s->pd && s->pd->context == ctx && s->pd->real_pd &&
			   s->pd->real_pd->context == ctx->real_context,
		   "%s: 1.0 alloc_pd (%s)", s->dev.name,
		   s->pd ? "ok" : strerror(errno)))
		return false;

	s->buf = aligned_alloc(4096, 4 * 4096);
	if (!s->buf)
		return false;
	memset(s->buf, 0, 4 * 4096);
	s->mr = v10_reg_mr(s->pd, s->buf, 4 * 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!gc_ok(s->mr && s->mr->context == ctx && s->mr->pd == s->pd &&
			   s->mr->real_mr &&
			   s->mr->lkey == s->mr->real_mr->lkey &&
			   s->mr->rkey == s->mr->real_mr->rkey,
		   "%s: 1.0 reg_mr, keys of the real MR (%s)", s->dev.name,
		   s->mr ? "ok" : strerror(errno)))
		return false;
	return true;
}

static bool make_cqs(struct test *t)
{
	struct side *a = &t->s[0], *b = &t->s[1];
	int err;

	a->cq = v10_create_cq(a->ctx, 16, &a->cookie, NULL, 0);
	if (!gc_ok(a->cq && a->cq->context == a->ctx &&
			   a->cq->cq_context == &a->cookie && a->cq->cqe >= 16,
		   "rxe0: 1.0 create_cq (%s)", a->cq ? "ok" : strerror(errno)))
		return false;
	err = v10_resize_cq(a->cq, 64);
	gc_ok(!err && a->cq->real_cq->cqe >= 64,
	      "rxe0: 1.0 resize_cq to 64 (%s, %d)", strerror(err),
	      a->cq->real_cq->cqe);

	/* A 1.0 program's channel: on the real context, at its end. */
	t->channel = ibv_create_comp_channel(b->ctx->real_context);
	if (!gc_ok(t->channel != NULL, "rxe1: completion channel"))
		return false;
	b->cq = v10_create_cq(b->ctx, 16, &b->cookie, t->channel, 0);
	return gc_ok(b->cq && b->cq->context == b->ctx &&
			     b->cq->cq_context == &b->cookie,
		     "rxe1: 1.0 create_cq on the channel (%s)",
		     b->cq ? "ok" : strerror(errno));
}

static bool make_srq(struct test *t)
{
	struct ibv_srq_init_attr init = {
		.srq_context = &t->srq_cookie,
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_srq_attr attr = {};
	int err;

	t->srq = v10_create_srq(t->s[1].pd, &init);
	if (!gc_ok(t->srq && t->srq->context == t->s[1].ctx &&
			   t->srq->pd == t->s[1].pd &&
			   t->srq->srq_context == &t->srq_cookie,
		   "rxe1: 1.0 create_srq (%s)",
		   t->srq ? "ok" : strerror(errno)))
		return false;
	err = v10_query_srq(t->srq, &attr);
	return gc_ok(!err && attr.max_wr >= 16,
		     "rxe1: 1.0 query_srq: max_wr %u", attr.max_wr);
}

static int qp_to_rts(struct ibv_qp_1_0 *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = GC_PORT,
		.qkey = GC_QKEY,
	};
	int err;

	err = v10_modify_qp(qp, &attr,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_QKEY);
	attr.qp_state = IBV_QPS_RTR;
	if (!err)
		err = v10_modify_qp(qp, &attr, IBV_QP_STATE);
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	if (!err)
		err = v10_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
	return err;
}

static bool make_qps(struct test *t)
{
	struct ibv_qp_init_attr_1_0 init = {
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_init_attr_1_0 qinit;
	struct ibv_qp_attr qattr;
	int i, err;

	for (i = 0; i < 2; i++) {
		struct side *s = &t->s[i];

		init.qp_context = i ? &t->qp_cookie : NULL;
		init.send_cq = init.recv_cq = s->cq;
		init.srq = i ? t->srq : NULL;
		s->qp = v10_create_qp(s->pd, &init);
		if (!gc_ok(s->qp && s->qp->real_qp &&
				   s->qp->qp_num == s->qp->real_qp->qp_num &&
				   s->qp->context == s->ctx &&
				   s->qp->pd == s->pd &&
				   s->qp->send_cq == s->cq &&
				   s->qp->recv_cq == s->cq &&
				   s->qp->srq == init.srq &&
				   s->qp->qp_type == IBV_QPT_UD &&
				   init.cap.max_send_wr >= 8,
			   "%s: 1.0 create_qp, UD%s (%s)", s->dev.name,
			   i ? " on the SRQ" : "",
			   s->qp ? "ok" : strerror(errno)))
			return false;
		err = qp_to_rts(s->qp);
		if (!gc_ok(!err, "%s: 1.0 modify_qp to RTS (%s)", s->dev.name,
			   strerror(err)))
			return false;
	}

	/*
	 * rdma-core's 1.0 query_qp reads the SRQ through the real one, so
	 * only a QP on an SRQ may be asked there.
	 */
	memset(&qinit, 0, sizeof(qinit));
	err = v10_query_qp(t->s[1].qp, &qattr, IBV_QP_STATE | IBV_QP_QKEY,
			   &qinit);
	gc_ok(!err && qattr.qp_state == IBV_QPS_RTS && qattr.qkey == GC_QKEY &&
		      qinit.send_cq == t->s[1].cq &&
		      qinit.recv_cq == t->s[1].cq && qinit.srq == t->srq &&
		      qinit.qp_context == &t->qp_cookie &&
		      qinit.qp_type == IBV_QPT_UD,
	      "rxe1: 1.0 query_qp: RTS, and the 1.0 CQ, SRQ and context");

	for (i = 0; i < 2; i++) {
		struct side *s = &t->s[i], *o = &t->s[!i];
		struct ibv_ah_attr attr = {
			.is_global = 1,
			.port_num = GC_PORT,
			.grh = { .dgid = o->dev.gid,
				 .sgid_index = s->dev.gid_index,
				 .hop_limit = 64 },
		};

		s->ah = v10_create_ah(s->pd, &attr);
		if (!gc_ok(s->ah && s->ah->context == s->ctx &&
				   s->ah->pd == s->pd && s->ah->real_ah,
			   "%s: 1.0 create_ah to %s (%s)", s->dev.name,
			   o->dev.name, s->ah ? "ok" : strerror(errno)))
			return false;
	}
	return true;
}

/*
 * Poll a 1.0 CQ through its context's op until n completions came, for
 * GC_TIMEOUT_MS by the clock: counting 1 ms sleeps would stretch the
 * limit as far as a loaded guest oversleeps.
 */
static int poll_1_0(struct side *s, int n, struct ibv_wc *wc)
{
	long deadline = gc_now_ms() + GC_TIMEOUT_MS;
	int got = 0, ret;

	while (got < n) {
		ret = s->ctx->ops.poll_cq(s->cq, n - got, wc + got);
		if (ret < 0)
			return ret;
		got += ret;
		if (got >= n)
			break;
		if (gc_now_ms() > deadline) {
			gc_diag("timeout: %d of %d completions on the 1.0 CQ "
				"of %s within %d ms", got, n, s->dev.name,
				GC_TIMEOUT_MS);
			break;
		}
		poll(NULL, 0, 1);
	}
	return got;
}

static int send_1_0(struct side *from, struct side *to, uint64_t wr_id,
		    uint8_t seed)
{
	struct ibv_sge sge = { (uintptr_t)from->buf, MSG, from->mr->lkey };
	struct ibv_send_wr_1_0 wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;

	wr.wr.ud.ah = from->ah;
	wr.wr.ud.remote_qpn = to->qp->qp_num;
	wr.wr.ud.remote_qkey = GC_QKEY;
	gc_fill(from->buf, MSG, seed);
	return from->ctx->ops.post_send(from->qp, &wr, &bad);
}

static bool check_send_done(struct side *s, uint64_t wr_id, const char *what)
{
	struct ibv_wc wc;
	int n = poll_1_0(s, 1, &wc);

	return gc_ok(n == 1 && wc.status == IBV_WC_SUCCESS &&
			     wc.wr_id == wr_id && wc.opcode == IBV_WC_SEND,
		     "%s: send completion through 1.0 poll_cq (%d, %s)", what,
		     n, n == 1 ? gc_status_str(wc.status) : "none");
}

static void check_recv(struct side *s, struct side *from, uint8_t *slot,
		       uint64_t wr_id, uint8_t seed, const char *what)
{
	uint8_t expect[MSG];
	struct ibv_wc wc;
	int n = poll_1_0(s, 1, &wc);

	gc_fill(expect, MSG, seed);
	gc_ok(n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == wr_id &&
		      wc.byte_len == GRH + MSG && wc.qp_num == s->qp->qp_num &&
		      wc.src_qp == from->qp->qp_num &&
		      !memcmp(slot + GRH, expect, MSG),
	      "%s: the message arrived, %d bytes after the GRH", what, MSG);
}

/* Receive on rxe1's SRQ through 1.0 post_srq_recv; event on its CQ. */
static void traffic_to_srq(struct test *t)
{
	struct side *a = &t->s[0], *b = &t->s[1];
	struct ibv_recv_wr_1_0 wr[3], *bad = NULL;
	struct ibv_sge sge[3];
	struct ibv_cq_1_0 *ev_cq = NULL;
	struct pollfd pfd = { .fd = t->channel->fd, .events = POLLIN };
	void *ev_ctx = NULL;
	int i, err;

	for (i = 0; i < 3; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)b->buf + i * 1024, SLOT,
					   b->mr->lkey };
		wr[i] = (struct ibv_recv_wr_1_0){ i < 2 ? &wr[i + 1] : NULL,
						  100 + i, &sge[i], 1 };
	}
	err = b->ctx->ops.post_srq_recv(t->srq, wr, &bad);
	if (!gc_ok(!err, "rxe1: 1.0 post_srq_recv of 3 (%s)", strerror(err)))
		return;
	err = b->ctx->ops.req_notify_cq(b->cq, 0);
	gc_ok(!err, "rxe1: 1.0 req_notify_cq (%s)", strerror(err));

	err = send_1_0(a, b, 7, 0x5a);
	if (!gc_ok(!err, "rxe0: 1.0 post_send UD to rxe1 (%s)", strerror(err)))
		return;
	check_send_done(a, 7, "rxe0");
	check_recv(b, a, b->buf, 100, 0x5a, "rxe1 SRQ");

	if (!gc_ok(poll(&pfd, 1, GC_TIMEOUT_MS) == 1,
		   "rxe1: completion event on the channel"))
		return;
	err = v10_get_cq_event(t->channel, &ev_cq, &ev_ctx);
	gc_ok(!err && ev_cq == b->cq && ev_ctx == &b->cookie,
	      "1.0 get_cq_event names the 1.0 CQ and its context");
	if (!err)
		v10_ack_cq_events(b->cq, 1);
}

/*
 * Arm the SRQ limit at 2 with 2 receives left: the next message leaves 1
 * and raises SRQ_LIMIT_REACHED, which the 1.0 entries must name by the
 * 1.0 SRQ and acknowledge on the real one (destroy waits for that).
 */
static void srq_limit_event(struct test *t)
{
	struct side *a = &t->s[0], *b = &t->s[1];
	struct ibv_srq_attr attr = { .srq_limit = 2 };
	struct pollfd pfd = { .fd = b->ctx->real_context->async_fd,
			      .events = POLLIN };
	struct ibv_async_event ev;
	int err;

	err = v10_modify_srq(t->srq, &attr, IBV_SRQ_LIMIT);
	if (!gc_ok(!err, "rxe1: 1.0 modify_srq arms the limit (%s)",
		   strerror(err)))
		return;
	err = send_1_0(a, b, 8, 0x6b);
	gc_ok(!err, "rxe0: 1.0 post_send again (%s)", strerror(err));
	check_send_done(a, 8, "rxe0");
	check_recv(b, a, b->buf + 1024, 101, 0x6b, "rxe1 SRQ");

	if (!gc_ok(poll(&pfd, 1, GC_TIMEOUT_MS) == 1,
		   "rxe1: an async event is pending"))
		return;
	err = v10_get_async_event(b->ctx, &ev);
	if (!gc_ok(!err && ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
			   ev.element.srq == (void *)t->srq,
		   "1.0 get_async_event: SRQ_LIMIT_REACHED on the 1.0 SRQ"))
		return;
	v10_ack_async_event(&ev);
}

/* Back from rxe1 to rxe0's own receive queue (1.0 post_recv). */
static void traffic_to_qp(struct test *t)
{
	struct side *a = &t->s[0], *b = &t->s[1];
	struct ibv_sge sge = { (uintptr_t)a->buf + 2048, SLOT, a->mr->lkey };
	struct ibv_recv_wr_1_0 wr = { NULL, 200, &sge, 1 }, *bad = NULL;
	int err;

	err = a->ctx->ops.post_recv(a->qp, &wr, &bad);
	if (!gc_ok(!err, "rxe0: 1.0 post_recv (%s)", strerror(err)))
		return;
	err = send_1_0(b, a, 9, 0x7c);
	gc_ok(!err, "rxe1: 1.0 post_send UD to rxe0 (%s)", strerror(err));
	check_send_done(b, 9, "rxe1");
	check_recv(a, b, a->buf + 2048, 200, 0x7c, "rxe0 QP");
}

/*
 * A chain whose second request has too many SGEs: the first is posted,
 * the second reported as bad - the 1.0 request, not a translation.
 */
static void bad_wr_chain(struct test *t)
{
	struct side *a = &t->s[0], *b = &t->s[1];
	struct ibv_sge sge[40];
	struct ibv_send_wr_1_0 wr[2], *bad = NULL;
	int i, err, too_many = 33;

	for (i = 0; i < 40; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)a->buf, 8, a->mr->lkey };
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		wr[i].wr_id = 300 + i;
		wr[i].sg_list = sge;
		/* rxe has at most 32 SGEs a request. */
		wr[i].num_sge = i ? too_many : 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.ud.ah = a->ah;
		wr[i].wr.ud.remote_qpn = b->qp->qp_num;
		wr[i].wr.ud.remote_qkey = GC_QKEY;
	}
	wr[0].next = &wr[1];
	err = a->ctx->ops.post_send(a->qp, wr, &bad);
	gc_ok(err && bad == &wr[1],
	      "1.0 post_send: the second of two, with %d SGEs, is bad (%s)",
	      too_many, strerror(err));
	check_send_done(a, 300, "rxe0 first of the chain");
}

static void check_mcast(struct test *t)
{
	union ibv_gid mgid = { .raw = { [10] = 0xff,
					[11] = 0xff,
					[12] = 239,
					[13] = 1,
					[14] = 2,
					[15] = 3 } };
	struct side *b = &t->s[1];
	int err;

	err = v10_attach_mcast(b->qp, &b->dev.gid, 0);
	gc_ok(err == EINVAL, "1.0 attach_mcast to a unicast GID: EINVAL (%s)",
	      strerror(err));
	err = v10_attach_mcast(b->qp, &mgid, 0);
	gc_ok(!err, "1.0 attach_mcast to 239.1.2.3 (%s)", strerror(err));
	err = v10_detach_mcast(b->qp, &mgid, 0);
	gc_ok(!err, "1.0 detach_mcast (%s)", strerror(err));
}

static void teardown(struct test *t)
{
	int i, bad = 0;

	for (i = 0; i < 2; i++) {
		struct side *s = &t->s[i];

		if (s->ah)
			bad += !!v10_destroy_ah(s->ah);
		if (s->qp)
			bad += !!v10_destroy_qp(s->qp);
	}
	if (t->srq)
		bad += !!v10_destroy_srq(t->srq);
	for (i = 0; i < 2; i++) {
		struct side *s = &t->s[i];

		if (s->cq)
			bad += !!v10_destroy_cq(s->cq);
		if (s->mr)
			bad += !!v10_dereg_mr(s->mr);
		if (s->pd)
			bad += !!v10_dealloc_pd(s->pd);
	}
	if (t->channel)
		bad += !!ibv_destroy_comp_channel(t->channel);
	for (i = 0; i < 2; i++) {
		struct side *s = &t->s[i];

		if (s->ctx)
			bad += !!v10_close_device(s->ctx);
		/* The 1.1 side still works after all that. */
		if (s->dev.ctx) {
			struct ibv_pd *pd = ibv_alloc_pd(s->dev.ctx);

			bad += !pd;
			if (pd)
				ibv_dealloc_pd(pd);
		}
		gc_dev_close(&s->dev);
		free(s->buf);
	}
	gc_ok(!bad,
	      "1.0 destroy, dereg, dealloc, close: all 0; the 1.1 "
	      "contexts still allocate (%d failed)",
	      bad);
	v10_free_device_list(t->list);
}

int main(void)
{
	struct test t;

	memset(&t, 0, sizeof(t));
	gc_start("compat_1_0");
	check_binding();
	v11_register_driver("compat_1_0", NULL);
	gc_ok(true, "ibv_register_driver@IBVERBS_1.1 returns");
	if (list_devices(&t) && open_side(&t.s[0], 0) &&
	    open_side(&t.s[1], 1) && make_cqs(&t) && make_srq(&t) &&
	    make_qps(&t)) {
		traffic_to_srq(&t);
		srq_limit_event(&t);
		traffic_to_qp(&t);
		bad_wr_chain(&t);
		check_mcast(&t);
	}
	teardown(&t);
	return gc_finish();
}
