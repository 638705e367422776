// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verbs that no other test drives on the device: ibv_get_pkey_index(),
 * ibv_reg_mr_iova() with an iova unlike the address (RDMA through the
 * iova, both as local SGE and as remote address), the cq_ex readers
 * wc_read_sl/slid/dlid_path_bits, the ibv_qp_ex builders wr_bind_mw,
 * wr_local_inv and wr_send_inv (each invalidation proven by a remote
 * access that fails afterwards), ibv_req_notify_cq(solicited_only) and
 * attach/detach_mcast with UD multicast traffic from rxe0 to rxe1 --
 * and the verbs rxe lacks, which answer EOPNOTSUPP as upstream's do.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "guest_common.h"

static void test_pkey_index(void)
{
	struct gc_dev dev;
	__be16 pkey = 0;
	int idx;

	if (!gc_ok(!gc_dev_open(&dev, 0), "pkey: open rxe0"))
		return;
	gc_ok(!ibv_query_pkey(dev.ctx, GC_PORT, 0, &pkey) &&
	      be16toh(pkey) == 0xffff, "pkey: index 0 holds 0xffff");
	idx = ibv_get_pkey_index(dev.ctx, GC_PORT, htobe16(0xffff));
	gc_ok(idx == 0, "pkey: get_pkey_index(0xffff) is 0 (%d)", idx);
	idx = ibv_get_pkey_index(dev.ctx, GC_PORT, htobe16(0x1234));
	gc_ok(idx == -1, "pkey: a P_Key not in the table is -1 (%d)", idx);
	gc_dev_close(&dev);
}

/* Far from any heap or mmap address, so a VA is never inside it. */
#define IOVA_A 0x100000000000ull
#define IOVA_B 0x200000000000ull

static enum ibv_wc_status write_wr(struct gc_pair *p, uint64_t laddr,
				   uint32_t lkey, uint32_t len,
				   uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { laddr, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = 5,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(p->qp_a, &wr, &bad) ||
	    gc_poll(p->cq_a, 1, &wc, GC_REPLY_TIMEOUT_MS) != 1)
		return (enum ibv_wc_status)-1;
	return wc.status;
}

static void test_mr_iova(void)
{
	struct ibv_mr *ma = NULL, *mb = NULL;
	uint8_t *a = NULL, *b = NULL;
	enum ibv_wc_status st;
	struct gc_pair p;

	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_RC, NULL), "iova: RC pair"))
		return;
	if (posix_memalign((void **)&a, 4096, 4096) ||
	    posix_memalign((void **)&b, 4096, 4096))
		goto out;
	gc_fill(a, 4096, 0x31);
	memset(b, 0, 4096);
	ma = ibv_reg_mr_iova(p.a.pd, a, 4096, IOVA_A, IBV_ACCESS_LOCAL_WRITE);
	mb = ibv_reg_mr_iova(p.b.pd, b, 4096, IOVA_B, GC_ACCESS_ALL);
	if (!gc_ok(ma && mb, "iova: reg_mr_iova (%s)",
		   ma && mb ? "ok" : strerror(errno)))
		goto out;
	gc_ok(ma->addr == a && ma->length == 4096,
	      "iova: ibv_mr keeps the process address");
	st = write_wr(&p, IOVA_A + 64, ma->lkey, 256, IOVA_B + 512,
		      mb->rkey);
	gc_ok(st == IBV_WC_SUCCESS, "iova: RDMA WRITE iova to iova (%s)",
	      gc_status_str(st));
	gc_ok(!memcmp(b + 512, a + 64, 256) && !b[511] && !b[768],
	      "iova: a[64..320) landed at b[512..768), nothing else");
	st = write_wr(&p, IOVA_A, ma->lkey, 64, (uintptr_t)b, mb->rkey);
	gc_ok(st == IBV_WC_REM_ACCESS_ERR,
	      "iova: the process address is not a remote address (%s)",
	      gc_status_str(st));
out:
	if (ma)
		ibv_dereg_mr(ma);
	if (mb)
		ibv_dereg_mr(mb);
	free(a);
	free(b);
	gc_pair_close(&p);
}

/* A UD receive on a cq_ex that was asked for the IB-only fields. */
static void test_wc_read_ib_fields(void)
{
	struct ibv_cq_init_attr_ex cattr = {
		.cqe = 16,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_SL |
			    IBV_WC_EX_WITH_SLID |
			    IBV_WC_EX_WITH_DLID_PATH_BITS |
			    IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_QP_NUM,
	};
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_ex *cqx = NULL;
	struct ibv_ah *ah = NULL;
	struct gc_buf a, b;
	struct gc_pair p;
	struct ibv_wc wc;
	int err = ENOENT, tries;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!gc_ok(!gc_pair_open(&p, 0, NULL), "wc_read: devices"))
		return;
	cqx = ibv_create_cq_ex(p.b.ctx, &cattr);
	if (!gc_ok(cqx != NULL, "wc_read: create_cq_ex with SL, SLID, "
		   "DLID_PATH_BITS (%s)", cqx ? "ok" : strerror(errno)))
		goto out;
	p.qp_a = gc_create_qp(&p.a, p.cq_a, IBV_QPT_UD, NULL);
	p.qp_b = gc_create_qp(&p.b, ibv_cq_ex_to_cq(cqx), IBV_QPT_UD, NULL);
	if (!p.qp_a || !p.qp_b || gc_ud_ready(p.qp_a) ||
	    gc_ud_ready(p.qp_b) || !(ah = gc_create_ah(&p.a, &p.b)) ||
	    gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 3) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "wc_read: UD setup");
		goto out;
	}
	gc_post_recv(p.qp_b, &b, 0, 4096, 77);
	{
		struct ibv_sge sge = { (uintptr_t)a.addr, 100, a.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 1, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = p.qp_b->qp_num;
		wr.wr.ud.remote_qkey = GC_QKEY;
		gc_ok(!ibv_post_send(p.qp_a, &wr, &bad) &&
		      gc_poll(p.cq_a, 1, &wc, GC_TIMEOUT_MS) == 1 &&
		      wc.status == IBV_WC_SUCCESS, "wc_read: UD send");
	}
	for (tries = 0; tries < 20000; tries++) {
		err = ibv_start_poll(cqx, &pattr);
		if (err != ENOENT)
			break;
		usleep(1000);
	}
	if (!gc_ok(!err, "wc_read: start_poll (%s)", strerror(err)))
		goto out;
	gc_ok(cqx->wr_id == 77 && cqx->status == IBV_WC_SUCCESS &&
	      ibv_wc_read_opcode(cqx) == IBV_WC_RECV,
	      "wc_read: the receive completion");
	gc_ok(ibv_wc_read_byte_len(cqx) == 100 + 40,
	      "wc_read: byte_len is GRH + payload (%u)",
	      ibv_wc_read_byte_len(cqx));
	gc_ok(ibv_wc_read_src_qp(cqx) == p.qp_a->qp_num &&
	      ibv_wc_read_qp_num(cqx) == p.qp_b->qp_num,
	      "wc_read: src_qp and qp_num");
	/* RoCE has no LIDs and rxe uses SL 0. */
	gc_ok(ibv_wc_read_sl(cqx) == 0, "wc_read_sl is 0 (%u)",
	      ibv_wc_read_sl(cqx));
	gc_ok(ibv_wc_read_slid(cqx) == 0, "wc_read_slid is 0 (%u)",
	      ibv_wc_read_slid(cqx));
	gc_ok(ibv_wc_read_dlid_path_bits(cqx) == 0,
	      "wc_read_dlid_path_bits is 0 (%u)",
	      ibv_wc_read_dlid_path_bits(cqx));
	ibv_end_poll(cqx);
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (a.mr)
		gc_buf_free(&a);
	if (b.mr)
		gc_buf_free(&b);
	if (p.qp_b)
		ibv_destroy_qp(p.qp_b);
	p.qp_b = NULL;
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	gc_pair_close(&p);
}

static struct ibv_qp *create_ex(struct gc_dev *dev, struct ibv_cq *cq,
				uint64_t ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = dev->pd,
		.send_ops_flags = ops,
	};

	return ibv_create_qp_ex(dev->ctx, &attr);
}

struct mw_pair {
	struct gc_pair p;	/* a: owns the window, b: uses it */
	struct ibv_qp_ex *xa, *xb;
	struct gc_buf a, b;
	struct ibv_mw *mw;
};

static bool mw_pair_open(struct mw_pair *t, const char *what)
{
	const uint64_t ops = IBV_QP_EX_WITH_BIND_MW |
			     IBV_QP_EX_WITH_LOCAL_INV |
			     IBV_QP_EX_WITH_SEND |
			     IBV_QP_EX_WITH_SEND_WITH_INV |
			     IBV_QP_EX_WITH_RDMA_WRITE;

	struct ibv_device_attr attr;

	memset(t, 0, sizeof(*t));
	if (gc_pair_open(&t->p, 0, NULL))
		goto err;
	/* What the running rxe supports decides: 5.10's has no windows. */
	if (!ibv_query_device(t->p.a.ctx, &attr) && !attr.max_mw) {
		gc_skip("%s: rxe0 has no memory windows (max_mw 0)", what);
		return false;
	}
	t->p.qp_a = create_ex(&t->p.a, t->p.cq_a, ops);
	t->p.qp_b = create_ex(&t->p.b, t->p.cq_b, ops);
	if (!t->p.qp_a || !t->p.qp_b ||
	    gc_connect(t->p.qp_a, &t->p.a, t->p.qp_b, &t->p.b))
		goto err;
	t->xa = ibv_qp_to_qp_ex(t->p.qp_a);
	t->xb = ibv_qp_to_qp_ex(t->p.qp_b);
	if (!t->xa || !t->xb ||
	    gc_buf_alloc(&t->a, t->p.a.pd, 8192,
			 GC_ACCESS_ALL | IBV_ACCESS_MW_BIND, 0) ||
	    gc_buf_alloc(&t->b, t->p.b.pd, 4096, GC_ACCESS_ALL, 0x44))
		goto err;
	t->mw = ibv_alloc_mw(t->p.a.pd, IBV_MW_TYPE_2);
	if (!t->mw)
		goto err;
	return gc_ok(true, "%s: RC pair of ibv_qp_ex and a type 2 window",
		     what);
err:
	gc_diag("%s: setup: %s", what, strerror(errno));
	return gc_ok(false, "%s: setup", what);
}

static void mw_pair_close(struct mw_pair *t)
{
	if (t->mw)
		ibv_dealloc_mw(t->mw);
	if (t->a.mr)
		gc_buf_free(&t->a);
	if (t->b.mr)
		gc_buf_free(&t->b);
	gc_pair_close(&t->p);
}

static int poll_status(struct ibv_cq *cq, struct ibv_wc *wc)
{
	if (gc_poll(cq, 1, wc, GC_TIMEOUT_MS) != 1)
		return -1;
	return wc->status;
}

/* b writes 64 bytes through the window's rkey at a's buffer + 4096. */
static int remote_write(struct mw_pair *t, uint32_t rkey, uint8_t seed)
{
	struct ibv_sge sge = { (uintptr_t)t->b.addr, 64, t->b.mr->lkey };
	struct ibv_wc wc;
	int st;

	gc_fill(t->b.addr, 64, seed);
	ibv_wr_start(t->xb);
	t->xb->wr_id = 50;
	t->xb->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(t->xb, rkey, (uintptr_t)t->a.addr + 4096);
	ibv_wr_set_sge_list(t->xb, 1, &sge);
	if (ibv_wr_complete(t->xb))
		return -1;
	st = poll_status(t->p.cq_b, &wc);
	if (st == IBV_WC_SUCCESS && memcmp(t->a.addr + 4096, t->b.addr, 64))
		return -2;
	return st;
}

static bool bind_window(struct mw_pair *t, uint32_t rkey, const char *what)
{
	struct ibv_mw_bind_info info = {
		.mr = t->a.mr,
		.addr = (uintptr_t)t->a.addr + 4096,
		.length = 4096,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_wc wc;
	int err, st;

	ibv_wr_start(t->xa);
	t->xa->wr_id = 60;
	t->xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(t->xa, t->mw, rkey, &info);
	err = ibv_wr_complete(t->xa);
	st = err ? -1 : poll_status(t->p.cq_a, &wc);
	return gc_ok(!err && st == IBV_WC_SUCCESS && wc.wr_id == 60 &&
		     wc.opcode == IBV_WC_BIND_MW,
		     "%s: wr_bind_mw completes as BIND_MW (%s, %s)", what,
		     strerror(err), st < 0 ? "none" : gc_status_str(st));
}

static void test_mw_local_inv(void)
{
	struct mw_pair t;
	struct ibv_wc wc;
	uint32_t rkey;
	int st, err;

	if (!mw_pair_open(&t, "local_inv"))
		goto out;
	rkey = ibv_inc_rkey(t.mw->rkey);
	if (!bind_window(&t, rkey, "local_inv"))
		goto out;
	st = remote_write(&t, rkey, 0x61);
	gc_ok(st == IBV_WC_SUCCESS,
	      "local_inv: the peer writes through the window (%d)", st);

	ibv_wr_start(t.xa);
	t.xa->wr_id = 61;
	t.xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(t.xa, rkey);
	err = ibv_wr_complete(t.xa);
	st = err ? -1 : poll_status(t.p.cq_a, &wc);
	gc_ok(!err && st == IBV_WC_SUCCESS && wc.opcode == IBV_WC_LOCAL_INV,
	      "local_inv: wr_local_inv completes as LOCAL_INV (%s, %d)",
	      strerror(err), st);
	st = remote_write(&t, rkey, 0x62);
	gc_ok(st == IBV_WC_REM_ACCESS_ERR,
	      "local_inv: the window's rkey no longer works (%s)",
	      st < 0 ? "none" : gc_status_str(st));
out:
	mw_pair_close(&t);
}

static void test_mw_send_inv(void)
{
	struct ibv_sge sge;
	struct mw_pair t;
	struct ibv_wc wc;
	uint32_t rkey;
	int st, err;

	if (!mw_pair_open(&t, "send_inv"))
		goto out;
	rkey = ibv_inc_rkey(t.mw->rkey);
	if (!bind_window(&t, rkey, "send_inv"))
		goto out;
	st = remote_write(&t, rkey, 0x71);
	gc_ok(st == IBV_WC_SUCCESS,
	      "send_inv: the peer writes through the window (%d)", st);

	gc_post_recv(t.p.qp_a, &t.a, 0, 256, 70);
	sge = (struct ibv_sge){ (uintptr_t)t.b.addr, 32, t.b.mr->lkey };
	ibv_wr_start(t.xb);
	t.xb->wr_id = 71;
	t.xb->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_inv(t.xb, rkey);
	ibv_wr_set_sge_list(t.xb, 1, &sge);
	err = ibv_wr_complete(t.xb);
	st = err ? -1 : poll_status(t.p.cq_b, &wc);
	gc_ok(!err && st == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND,
	      "send_inv: wr_send_inv completes as SEND (%s, %d)",
	      strerror(err), st);
	st = poll_status(t.p.cq_a, &wc);
	gc_ok(st == IBV_WC_SUCCESS && wc.wr_id == 70 &&
	      wc.opcode == IBV_WC_RECV && wc.byte_len == 32,
	      "send_inv: the owner receives it (%d)", st);
	gc_ok(wc.invalidated_rkey == rkey,
	      "send_inv: invalidated_rkey is the window's (0x%x)",
	      wc.invalidated_rkey);
	gc_known_librxe_bug(wc.wc_flags & IBV_WC_WITH_INV,
			    "librxe 44 copies the kernel's wc_flags bits unchanged",
			    "send_inv: wc_flags has IBV_WC_WITH_INV (0x%x)",
			    wc.wc_flags);
	st = remote_write(&t, rkey, 0x72);
	gc_ok(st == IBV_WC_REM_ACCESS_ERR,
	      "send_inv: the window's rkey no longer works (%s)",
	      st < 0 ? "none" : gc_status_str(st));
out:
	mw_pair_close(&t);
}

/*
 * An event on @ch within @timeout_ms (the CQE it would follow is there):
 * gc_wait_fd() retries after a signal and says what did not come, unless
 * the wait is one of those that check that nothing comes.
 */
static bool event_ready(struct ibv_comp_channel *ch, int timeout_ms)
{
	return gc_wait_fd(ch->fd, POLLIN, timeout_ms,
			  "completion event of the solicited test's CQ") == 1;
}

static void test_solicited(void)
{
	struct ibv_comp_channel *ch = NULL;
	struct ibv_cq *cq = NULL, *ev_cq;
	struct gc_buf a, b;
	struct gc_pair p;
	struct ibv_wc wc[2];
	void *ev_ctx;
	int n;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!gc_ok(!gc_pair_open(&p, 0, NULL), "solicited: devices"))
		return;
	ch = ibv_create_comp_channel(p.b.ctx);
	cq = ch ? ibv_create_cq(p.b.ctx, 16, &p, ch, 0) : NULL;
	if (gc_pair_rc_on(&p, cq) ||
	    gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 5) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 0)) {
		gc_ok(false, "solicited: setup");
		goto out;
	}
	gc_post_recv(p.qp_b, &b, 0, 64, 1);
	gc_post_recv(p.qp_b, &b, 64, 64, 2);
	gc_ok(!ibv_req_notify_cq(cq, 1), "solicited: req_notify_cq(1)");

	/*
	 * The receiver writes its completion (and would raise the event)
	 * before it acknowledges: once the sender's completion is in, the
	 * event is there or it never comes.
	 */
	gc_ok(!gc_post_send(p.qp_a, IBV_WR_SEND, &a, 0, 64, 1,
			    IBV_SEND_SIGNALED, 0, 0) &&
	      gc_poll(p.cq_a, 1, wc, GC_TIMEOUT_MS) == 1 &&
	      wc[0].status == IBV_WC_SUCCESS, "solicited: unsolicited SEND");
	gc_ok(!event_ready(ch, 0), "solicited: no event for it");

	gc_ok(!gc_post_send(p.qp_a, IBV_WR_SEND, &a, 64, 64, 2,
			    IBV_SEND_SIGNALED | IBV_SEND_SOLICITED, 0, 0) &&
	      gc_poll(p.cq_a, 1, wc, GC_TIMEOUT_MS) == 1 &&
	      wc[0].status == IBV_WC_SUCCESS, "solicited: solicited SEND");
	if (gc_ok(event_ready(ch, GC_TIMEOUT_MS),
		  "solicited: an event for it")) {
		gc_ok(!ibv_get_cq_event(ch, &ev_cq, &ev_ctx) && ev_cq == cq &&
		      ev_ctx == &p, "solicited: get_cq_event names the CQ");
		ibv_ack_cq_events(cq, 1);
	}
	n = ibv_poll_cq(cq, 2, wc);
	gc_ok(n == 2 && wc[0].wr_id == 1 && wc[1].wr_id == 2 &&
	      !(wc[0].wc_flags & IBV_WC_WITH_IMM),
	      "solicited: both receives completed (%d)", n);
out:
	gc_buf_free(&a);
	gc_buf_free(&b);
	if (p.qp_b)
		ibv_destroy_qp(p.qp_b);
	p.qp_b = NULL;
	if (cq)
		ibv_destroy_cq(cq);
	if (ch)
		ibv_destroy_comp_channel(ch);
	gc_pair_close(&p);
}

#define MCAST_IP "239.18.0.7"

/*
 * rxe1 hears a group only when veth1 has joined it at the IP level (the
 * kernel drops multicast for groups the interface is not in); rdma_cm
 * does that through the netdev, here a socket does.
 */
static int join_group(const char *ifname, const char *local)
{
	struct ip_mreqn mreq = {};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	inet_pton(AF_INET, MCAST_IP, &mreq.imr_multiaddr);
	inet_pton(AF_INET, local, &mreq.imr_address);
	mreq.imr_ifindex = if_nametoindex(ifname);
	if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq,
		       sizeof(mreq))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int mcast_send(struct gc_pair *p, struct ibv_ah *ah, struct gc_buf *a,
		      uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)a->addr, 64, a->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0xffffff;
	wr.wr.ud.remote_qkey = GC_QKEY;
	if (ibv_post_send(p->qp_a, &wr, &bad) ||
	    gc_poll(p->cq_a, 1, &wc, GC_TIMEOUT_MS) != 1)
		return -1;
	return wc.status;
}

static void test_mcast(void)
{
	union ibv_gid mgid = {};
	struct ibv_ah_attr attr = {};
	struct ibv_qp *rc = NULL;
	struct ibv_ah *ah = NULL;
	struct gc_buf a, b;
	struct gc_pair p;
	struct ibv_wc wc;
	int fd, err;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_UD, NULL), "mcast: UD pair"))
		return;
	fd = join_group("veth1", p.b.ip);
	if (!gc_ok(fd >= 0, "mcast: veth1 joins " MCAST_IP " (%s)",
		   fd < 0 ? strerror(errno) : "ok"))
		goto out;
	/* The IPv4-mapped GID of the group, as RoCE v2 addresses it. */
	mgid.raw[10] = mgid.raw[11] = 0xff;
	inet_pton(AF_INET, MCAST_IP, &mgid.raw[12]);

	err = ibv_attach_mcast(p.qp_b, &p.a.gid, 0);
	gc_ok(err == EINVAL, "mcast: attach to a unicast GID is EINVAL (%s)",
	      strerror(err));
	rc = gc_create_qp(&p.b, p.cq_b, IBV_QPT_RC, NULL);
	err = rc ? ibv_attach_mcast(rc, &mgid, 0) : -1;
	gc_ok(err == EINVAL, "mcast: attach of an RC QP is EINVAL (%s)",
	      err < 0 ? "no QP" : strerror(err));

	err = ibv_attach_mcast(p.qp_b, &mgid, 0);
	if (!gc_ok(!err, "mcast: attach_mcast (%s)", strerror(err)))
		goto out;
	attr.is_global = 1;
	attr.port_num = GC_PORT;
	attr.grh.dgid = mgid;
	attr.grh.sgid_index = p.a.gid_index;
	attr.grh.hop_limit = 1;
	ah = ibv_create_ah(p.a.pd, &attr);
	if (!gc_ok(ah != NULL, "mcast: AH to the group (%s)",
		   ah ? "ok" : strerror(errno)) ||
	    gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 9) ||
	    gc_buf_alloc(&b, p.b.pd, 4096, GC_ACCESS_ALL, 0))
		goto out;

	gc_post_recv(p.qp_b, &b, 0, 4096, 90);
	err = mcast_send(&p, ah, &a, 91);
	gc_ok(err == IBV_WC_SUCCESS, "mcast: send to the group (%d)", err);
	if (gc_ok(gc_poll(p.cq_b, 1, &wc, GC_TIMEOUT_MS) == 1,
		  "mcast: the member receives it")) {
		gc_ok(wc.status == IBV_WC_SUCCESS && wc.wr_id == 90 &&
		      wc.byte_len == 64 + 40 && wc.src_qp == p.qp_a->qp_num,
		      "mcast: from the sender's QP, 64 bytes after the GRH");
		gc_ok(!memcmp(b.addr + 40, a.addr, 64), "mcast: the data");
	}

	err = ibv_detach_mcast(p.qp_b, &mgid, 0);
	gc_ok(!err, "mcast: detach_mcast (%s)", strerror(err));
	err = mcast_send(&p, ah, &a, 92);
	gc_ok(err == IBV_WC_SUCCESS, "mcast: send after detach (%d)", err);
	gc_ok(gc_poll(p.cq_b, 1, &wc, 1000) == 0,
	      "mcast: a detached QP receives nothing");
	err = ibv_detach_mcast(p.qp_b, &mgid, 0);
	gc_ok(err == EINVAL, "mcast: detaching again is EINVAL (%s)",
	      strerror(err));
out:
	if (fd >= 0)
		close(fd);
	if (ah)
		ibv_destroy_ah(ah);
	if (rc)
		ibv_destroy_qp(rc);
	if (a.mr)
		gc_buf_free(&a);
	if (b.mr)
		gc_buf_free(&b);
	gc_pair_close(&p);
}

/* NULL with errno EOPNOTSUPP; anything made is undone with @undo. */
#define LACKS_OBJ(what, call, undo)                                          \
	do {                                                                  \
		void *_o;                                                     \
		errno = 0;                                                    \
		_o = (void *)(call);                                          \
		gc_ok(!_o && errno == EOPNOTSUPP,                             \
		      "lacks: %s is EOPNOTSUPP (%s)", what,                   \
		      _o ? "made one" : strerror(errno));                     \
		if (_o)                                                       \
			undo;                                                 \
	} while (0)

#define LACKS_RET(what, call)                                                \
	do {                                                                  \
		int _r = (call);                                              \
		gc_ok(_r == EOPNOTSUPP, "lacks: %s is EOPNOTSUPP (%s)", what, \
		      strerror(_r));                                          \
	} while (0)

static void test_lacks(void)
{
	struct ibv_xrcd_init_attr xattr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_qp_open_attr oattr = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = 1,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_modify_cq_attr cattr = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { 1, 1 },
	};
	struct ibv_values_ex values = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_qp_rate_limit_attr rate = { .rate_limit = 1000 };
	struct ibv_parent_domain_init_attr pdattr = {};
	struct ibv_alloc_dm_attr dmattr = { .length = 64 };
	struct ibv_wq_init_attr wqattr = {};
	struct ibv_rwq_ind_table_init_attr rwqattr = {};
	struct ibv_counters_init_attr ctrattr = {};
	struct ibv_flow_action_esp_attr espattr = {};
	struct ibv_td_init_attr tdattr = {};
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} flow = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(flow),
			  .num_of_specs = 1, .port = GC_PORT },
		.eth = { .type = IBV_FLOW_SPEC_ETH,
			 .size = sizeof(struct ibv_flow_spec_eth) },
	};
	struct ibv_ece ece = {};
	struct ibv_context *ctx;
	struct ibv_sge sge;
	struct gc_pair p;
	struct gc_buf b;

	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_RC, NULL), "lacks: RC pair"))
		return;
	if (!gc_ok(!gc_buf_alloc(&b, p.a.pd, 4096, GC_ACCESS_ALL, 1),
		   "lacks: MR")) {
		gc_pair_close(&p);
		return;
	}
	ctx = p.a.ctx;
	pdattr.pd = p.a.pd;
	wqattr = (struct ibv_wq_init_attr){ .wq_type = IBV_WQT_RQ,
					    .max_wr = 4, .max_sge = 1,
					    .pd = p.a.pd, .cq = p.cq_a };
	sge = (struct ibv_sge){ (uintptr_t)b.addr, 64, b.mr->lkey };

	LACKS_OBJ("alloc_td", ibv_alloc_td(ctx, &tdattr), ibv_dealloc_td(_o));
	LACKS_OBJ("alloc_parent_domain",
		  ibv_alloc_parent_domain(ctx, &pdattr), ibv_dealloc_pd(_o));
	LACKS_OBJ("alloc_dm", ibv_alloc_dm(ctx, &dmattr), ibv_free_dm(_o));
	LACKS_OBJ("open_xrcd", ibv_open_xrcd(ctx, &xattr),
		  ibv_close_xrcd(_o));
	LACKS_OBJ("open_qp", ibv_open_qp(ctx, &oattr), ibv_destroy_qp(_o));
	LACKS_OBJ("create_wq", ibv_create_wq(ctx, &wqattr),
		  ibv_destroy_wq(_o));
	LACKS_OBJ("create_rwq_ind_table",
		  ibv_create_rwq_ind_table(ctx, &rwqattr),
		  ibv_destroy_rwq_ind_table(_o));
	LACKS_OBJ("create_counters", ibv_create_counters(ctx, &ctrattr),
		  ibv_destroy_counters(_o));
	LACKS_OBJ("create_flow", ibv_create_flow(p.qp_a, &flow.attr),
		  ibv_destroy_flow(_o));
	LACKS_OBJ("create_flow_action_esp",
		  ibv_create_flow_action_esp(ctx, &espattr),
		  ibv_destroy_flow_action(_o));
	LACKS_OBJ("reg_dmabuf_mr",
		  ibv_reg_dmabuf_mr(p.a.pd, 0, 4096, 0, 0,
				    IBV_ACCESS_LOCAL_WRITE),
		  ibv_dereg_mr(_o));
	LACKS_OBJ("alloc_null_mr", ibv_alloc_null_mr(p.a.pd),
		  ibv_dereg_mr(_o));
	LACKS_RET("advise_mr",
		  ibv_advise_mr(p.a.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
				&sge, 1));
	LACKS_RET("query_rt_values_ex", ibv_query_rt_values_ex(ctx, &values));
	LACKS_RET("modify_cq", ibv_modify_cq(p.cq_a, &cattr));
	LACKS_RET("query_ece", ibv_query_ece(p.qp_a, &ece));
	LACKS_RET("set_ece", ibv_set_ece(p.qp_a, &ece));
	LACKS_RET("modify_qp_rate_limit",
		  ibv_modify_qp_rate_limit(p.qp_a, &rate));
	gc_buf_free(&b);
	gc_pair_close(&p);
}

int main(void)
{
	gc_start("rxe_coverage");
	test_pkey_index();
	test_mr_iova();
	test_wc_read_ib_fields();
	test_mw_local_inv();
	test_mw_send_inv();
	test_solicited();
	test_mcast();
	test_lacks();
	return gc_finish();
}
