// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA WRITE, WRITE_WITH_IMM, READ and the two atomics between rxe0 and
 * rxe1, over RC (and WRITE over UC); memory is checked byte for byte and
 * the atomics' original values are checked where they land.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest_common.h"

struct bufs {
	struct gc_buf a, b;
};

static int bufs_alloc(struct gc_pair *p, struct bufs *x, size_t len)
{
	if (gc_buf_alloc(&x->a, p->a.pd, len, GC_ACCESS_ALL, 0x41))
		return -1;
	if (gc_buf_alloc(&x->b, p->b.pd, len, GC_ACCESS_ALL, 0x99)) {
		gc_buf_free(&x->a);
		return -1;
	}
	return 0;
}

static void bufs_free(struct bufs *x)
{
	gc_buf_free(&x->a);
	gc_buf_free(&x->b);
}

static bool send_ok(struct gc_pair *p, const char *what, enum ibv_wc_opcode op)
{
	struct ibv_wc wc;

	if (gc_poll(p->cq_a, 1, &wc, GC_REPLY_TIMEOUT_MS) != 1)
		return gc_ok(false, "%s: completion", what);
	return gc_ok(wc.status == IBV_WC_SUCCESS && wc.opcode == op,
		     "%s: completion status %s opcode %d", what,
		     gc_status_str(wc.status), wc.opcode);
}

static bool write_placed(const struct bufs *x, uint32_t len)
{
	return !memcmp(x->a.addr, x->b.addr + 128, len) &&
	       x->b.addr[127] == 0 && x->b.addr[128 + len] == 0;
}

/*
 * The sender's completion of a WRITE says the target placed the data only
 * on RC, where it waits for the ACK; on UC it comes once the packets are
 * sent, and rxe1 may still be placing them, slowly on a loaded guest.  So
 * on UC wait for the bytes, up to GC_TIMEOUT_MS, before calling them
 * wrong; on RC they must be there at once.
 */
static bool write_placed_within(const struct gc_pair *p, const struct bufs *x,
				uint32_t len)
{
	long deadline = gc_now_ms() + GC_TIMEOUT_MS;

	if (p->qp_a->qp_type != IBV_QPT_UC)
		return write_placed(x, len);

	while (!write_placed(x, len)) {
		if (gc_now_ms() >= deadline) {
			gc_diag("timeout: remote memory still differs after %d ms",
				GC_TIMEOUT_MS);
			return false;
		}
		usleep(1000);
	}
	return true;
}

static void test_write(struct gc_pair *p, const char *what, uint32_t len)
{
	struct bufs x;
	struct ibv_wc wc;

	if (bufs_alloc(p, &x, len + 256)) {
		gc_ok(false, "%s: buffers", what);
		return;
	}
	memset(x.b.addr, 0, x.b.len);
	gc_ok(!gc_post_send(p->qp_a, IBV_WR_RDMA_WRITE, &x.a, 0, len, 1,
			    IBV_SEND_SIGNALED, (uintptr_t)x.b.addr + 128,
			    x.b.mr->rkey), "%s %u: post_send", what, len);
	send_ok(p, what, IBV_WC_RDMA_WRITE);
	gc_ok(write_placed_within(p, &x, len),
	      "%s: remote memory byte for byte", what);
	gc_ok(gc_poll(p->cq_b, 1, &wc, 200) == 0,
	      "%s: no completion on the target", what);
	bufs_free(&x);
}

static void test_write_imm(struct gc_pair *p)
{
	struct ibv_recv_wr rwr = { .wr_id = 77 }, *rbad;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct bufs x;

	if (bufs_alloc(p, &x, 2048)) {
		gc_ok(false, "WRITE_WITH_IMM: buffers");
		return;
	}
	gc_ok(!ibv_post_recv(p->qp_b, &rwr, &rbad),
	      "WRITE_WITH_IMM: post_recv without SGE");
	sge = (struct ibv_sge){ (uintptr_t)x.a.addr, 1500, x.a.mr->lkey };
	wr.wr_id = 2;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(0xcafe0001);
	wr.wr.rdma.remote_addr = (uintptr_t)x.b.addr + 8;
	wr.wr.rdma.rkey = x.b.mr->rkey;
	gc_ok(!ibv_post_send(p->qp_a, &wr, &bad), "WRITE_WITH_IMM: post_send");
	send_ok(p, "WRITE_WITH_IMM", IBV_WC_RDMA_WRITE);
	if (gc_ok(gc_poll(p->cq_b, 1, &wc, GC_TIMEOUT_MS) == 1,
		  "WRITE_WITH_IMM: target completion"))
		gc_ok(wc.status == IBV_WC_SUCCESS &&
		      wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
		      wc.wr_id == 77 && (wc.wc_flags & IBV_WC_WITH_IMM) &&
		      ntohl(wc.imm_data) == 0xcafe0001 && wc.byte_len == 1500,
		      "WRITE_WITH_IMM: opcode %d imm 0x%x len %u", wc.opcode,
		      ntohl(wc.imm_data), wc.byte_len);
	gc_ok(!memcmp(x.a.addr, x.b.addr + 8, 1500),
	      "WRITE_WITH_IMM: remote memory byte for byte");
	bufs_free(&x);
}

static void test_read(struct gc_pair *p, uint32_t len)
{
	struct bufs x;

	if (bufs_alloc(p, &x, len + 64)) {
		gc_ok(false, "READ: buffers");
		return;
	}
	memset(x.a.addr, 0, x.a.len);
	gc_ok(!gc_post_send(p->qp_a, IBV_WR_RDMA_READ, &x.a, 32, len, 3,
			    IBV_SEND_SIGNALED, (uintptr_t)x.b.addr + 16,
			    x.b.mr->rkey), "READ %u: post_send", len);
	send_ok(p, "READ", IBV_WC_RDMA_READ);
	gc_ok(!memcmp(x.a.addr + 32, x.b.addr + 16, len) &&
	      x.a.addr[31] == 0 && x.a.addr[32 + len] == 0,
	      "READ %u: local memory byte for byte", len);
	bufs_free(&x);
}

/* Scatter a READ into three local pieces, gather a WRITE from them. */
static void test_sge_rdma(struct gc_pair *p)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge s[3];
	struct bufs x;
	int i;

	if (bufs_alloc(p, &x, 8192)) {
		gc_ok(false, "multi-SGE RDMA: buffers");
		return;
	}
	memset(x.a.addr, 0, x.a.len);
	for (i = 0; i < 3; i++)
		s[i] = (struct ibv_sge){ (uintptr_t)x.a.addr + 6000 - i * 2000,
					 1000 + i * 100, x.a.mr->lkey };
	wr.wr_id = 4;
	wr.sg_list = s;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)x.b.addr;
	wr.wr.rdma.rkey = x.b.mr->rkey;
	gc_ok(!ibv_post_send(p->qp_a, &wr, &bad), "READ 3 SGEs: post_send");
	send_ok(p, "READ 3 SGEs", IBV_WC_RDMA_READ);
	gc_ok(!memcmp(x.a.addr + 6000, x.b.addr, 1000) &&
	      !memcmp(x.a.addr + 4000, x.b.addr + 1000, 1100) &&
	      !memcmp(x.a.addr + 2000, x.b.addr + 2100, 1200),
	      "READ 3 SGEs: scattered byte for byte");

	gc_fill(x.a.addr, x.a.len, 0x17);
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)x.b.addr + 4096;
	gc_ok(!ibv_post_send(p->qp_a, &wr, &bad), "WRITE 3 SGEs: post_send");
	send_ok(p, "WRITE 3 SGEs", IBV_WC_RDMA_WRITE);
	gc_ok(!memcmp(x.b.addr + 4096, x.a.addr + 6000, 1000) &&
	      !memcmp(x.b.addr + 5096, x.a.addr + 4000, 1100) &&
	      !memcmp(x.b.addr + 6196, x.a.addr + 2000, 1200),
	      "WRITE 3 SGEs: gathered byte for byte");
	bufs_free(&x);
}

static void post_atomic(struct gc_pair *p, struct bufs *x,
			enum ibv_wr_opcode op, uint64_t cmp_add, uint64_t swap,
			size_t local_off)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge = { (uintptr_t)x->a.addr + local_off, 8,
			       x->a.mr->lkey };

	wr.wr_id = 5;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uintptr_t)x->b.addr + 64;
	wr.wr.atomic.rkey = x->b.mr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	gc_ok(!ibv_post_send(p->qp_a, &wr, &bad), "atomic %d: post_send", op);
}

static void test_atomics(struct gc_pair *p)
{
	uint64_t *remote, *orig;
	struct bufs x;

	if (bufs_alloc(p, &x, 4096)) {
		gc_ok(false, "atomics: buffers");
		return;
	}
	remote = (uint64_t *)(x.b.addr + 64);
	*remote = 0x1111222233334444ULL;

	orig = (uint64_t *)(x.a.addr + 8);
	*orig = 0;
	post_atomic(p, &x, IBV_WR_ATOMIC_CMP_AND_SWP, 0x1111222233334444ULL,
		    0x5555666677778888ULL, 8);
	send_ok(p, "CMP_AND_SWP (equal)", IBV_WC_COMP_SWAP);
	gc_ok(*orig == 0x1111222233334444ULL,
	      "CMP_AND_SWP (equal): original value returned (0x%llx)",
	      (unsigned long long)*orig);
	gc_ok(*remote == 0x5555666677778888ULL,
	      "CMP_AND_SWP (equal): remote value swapped");

	orig = (uint64_t *)(x.a.addr + 16);
	*orig = 0;
	post_atomic(p, &x, IBV_WR_ATOMIC_CMP_AND_SWP, 0x1, 0x2, 16);
	send_ok(p, "CMP_AND_SWP (different)", IBV_WC_COMP_SWAP);
	gc_ok(*orig == 0x5555666677778888ULL,
	      "CMP_AND_SWP (different): original value returned");
	gc_ok(*remote == 0x5555666677778888ULL,
	      "CMP_AND_SWP (different): remote value unchanged");

	*remote = 100;
	orig = (uint64_t *)(x.a.addr + 24);
	*orig = 0;
	post_atomic(p, &x, IBV_WR_ATOMIC_FETCH_AND_ADD, 23, 0, 24);
	send_ok(p, "FETCH_AND_ADD", IBV_WC_FETCH_ADD);
	gc_ok(*orig == 100, "FETCH_AND_ADD: original value returned (%llu)",
	      (unsigned long long)*orig);
	gc_ok(*remote == 123, "FETCH_AND_ADD: remote value added (%llu)",
	      (unsigned long long)*remote);
	bufs_free(&x);
}

int main(void)
{
	struct gc_pair p;

	gc_start("rxe_rdma");
	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_RC, NULL), "RC pair rxe0-rxe1"))
		return gc_finish();
	test_write(&p, "RC WRITE", 1);
	test_write(&p, "RC WRITE", 8192);
	test_write_imm(&p);
	test_read(&p, 8);
	test_read(&p, 5000);
	test_sge_rdma(&p);
	test_atomics(&p);
	gc_pair_close(&p);

	if (gc_ok(!gc_pair_open(&p, IBV_QPT_UC, NULL), "UC pair rxe0-rxe1")) {
		test_write(&p, "UC WRITE", 3000);
		test_write_imm(&p);
		gc_pair_close(&p);
	}
	return gc_finish();
}
