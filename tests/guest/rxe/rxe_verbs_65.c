// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The public verbs rdma-core 65 added (IBVERBS_1.15 to 1.18) on rxe, which
 * has none of their provider ops: what upstream's default ops make of
 * them, and the child guard over each in a fork child.
 *
 * Upstream (rdma-core 65 libibverbs/verbs.c and dummy_ops.c, for the
 * facts): DMA handles, dma-buf export of device memory, the port speed
 * and every completion-counter verb fail with EOPNOTSUPP (NULL and errno
 * for the allocating ones; the caps are zeroed first); ibv_alloc_buf()
 * gives page-aligned process memory, which ibv_reg_buf_mr() registers as
 * ibv_reg_mr_ex() does, and ibv_export_buf_dmabuf_fd() of it is ENODATA;
 * ibv_reg_mr_ex() goes through the provider's reg_mr (an IOVA of its own
 * included) or reg_dmabuf_mr (rxe: EOPNOTSUPP), EINVAL for a range
 * outside the buffer, another PD's buffer, or neither memory nor a
 * dma-buf, EOPNOTSUPP for what those ops cannot express (a DMA handle, an
 * unknown mask bit).  The registrations move data: an RDMA WRITE from an
 * ibv_alloc_buf() buffer to memory registered at an IOVA of its own.
 *
 * rxe makes no device memory, DMA handle or counter, so the verbs on such
 * objects are called on stand-ins: zeroed structs whose only member the
 * library reads, the context, is the real rxe0 context.  Both libraries
 * answer them from that context's ops (the provider's op is never
 * reached, as rxe has none), which is what is checked.
 *
 * In a fork child, after the parent registered its buffers, every verb
 * that takes an inherited context, PD, QP, buffer, device memory or
 * counter fails with EPERM (gc_guard(): a guarantee upstream lacks, whose
 * verbs go through the parent's objects, so the Debian twin fails
 * exactly those); the frees (ibv_free_buf, ibv_dealloc_dmah,
 * ibv_destroy_comp_cntr) go to the provider as upstream's do, freeing the
 * child's copy.  The parent's registrations then still move data, and
 * the kernel holds as many MRs on rxe0 as before the child.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_common.h"

#define LEN 8192
/* An IOVA unlike the buffer's address, so that only the IOVA can match. */
#define IOVA 0x40000000ULL
#define WRITE_ID 0x65

struct objs {
	struct gc_pair p;
	long page;
	struct ibv_buf *buf;
	void *buf_addr;
	struct ibv_mr *buf_mr;
	void *dst;
	struct ibv_mr *dst_mr;
	/* Stand-ins naming rxe0's context (see the top). */
	struct ibv_dm dm;
	struct ibv_dmah dmah;
	struct ibv_comp_cntr cntr;
};

/* NULL and @err, or a pointer: "fails with @err". */
static bool null_errno(const void *p, int err)
{
	return !p && errno == err;
}

static struct ibv_mr *reg_ex(struct ibv_pd *pd, uint64_t mask, void *addr,
			     size_t len, uint64_t iova, int fd,
			     struct ibv_dmah *dmah, struct ibv_buf *buf)
{
	struct ibv_mr_init_attr a = {
		.length = len,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		.comp_mask = mask,
		.iova = iova,
		.addr = addr,
		.fd = fd,
		.fd_offset = 0,
		.dmah = dmah,
		.buf = buf,
	};

	errno = 0;
	return ibv_reg_mr_ex(pd, &a);
}

/* An MR a check did not expect to get, released again. */
static void drop_mr(struct ibv_mr *mr)
{
	if (mr)
		ibv_dereg_mr(mr);
}

static void check_buffers(struct objs *o)
{
	struct ibv_pd *pd = o->p.a.pd;
	struct ibv_mr *mr;
	char *base;
	int fd;

	errno = 0;
	o->buf_addr = ibv_alloc_buf(pd, LEN, &o->buf);
	if (!gc_ok(o->buf_addr && o->buf, "ibv_alloc_buf: %d bytes (errno %d)",
		   LEN, errno))
		return;
	gc_ok(((uintptr_t)o->buf_addr & (o->page - 1)) == 0,
	      "ibv_alloc_buf: page-aligned process memory (%p)", o->buf_addr);
	base = o->buf_addr;
	memset(base, 0xa5, LEN);

	errno = 0;
	fd = ibv_export_buf_dmabuf_fd(o->buf);
	gc_ok(fd == -1 && errno == ENODATA,
	      "ibv_export_buf_dmabuf_fd of process memory: %d, errno %d (ENODATA)",
	      fd, errno);
	if (fd >= 0)
		close(fd);

	errno = 0;
	mr = ibv_reg_buf_mr(pd, o->buf, base + LEN / 2, LEN,
			    IBV_ACCESS_LOCAL_WRITE);
	gc_ok(null_errno(mr, EINVAL),
	      "ibv_reg_buf_mr past the buffer's end: EINVAL (errno %d)", errno);
	drop_mr(mr);
	errno = 0;
	mr = ibv_reg_buf_mr(pd, o->buf, base - o->page, o->page,
			    IBV_ACCESS_LOCAL_WRITE);
	gc_ok(null_errno(mr, EINVAL),
	      "ibv_reg_buf_mr below the buffer: EINVAL (errno %d)", errno);
	drop_mr(mr);
	errno = 0;
	mr = ibv_reg_buf_mr(o->p.b.pd, o->buf, base, LEN,
			    IBV_ACCESS_LOCAL_WRITE);
	gc_ok(null_errno(mr, EINVAL),
	      "ibv_reg_buf_mr on another PD than the buffer's: EINVAL (errno %d)",
	      errno);
	drop_mr(mr);

	errno = 0;
	o->buf_mr =
		ibv_reg_buf_mr(pd, o->buf, base, LEN, IBV_ACCESS_LOCAL_WRITE);
	gc_ok(o->buf_mr && o->buf_mr->addr == base &&
		      o->buf_mr->length == LEN && o->buf_mr->pd == pd &&
		      o->buf_mr->context == o->p.a.ctx,
	      "ibv_reg_buf_mr of the whole buffer (errno %d)", errno);
}

/*
 * The six value operations of a completion counter on @c, each expected
 * to answer @want, judged by @check (gc_ok, or gc_guard in a child).
 */
static void cntr_ops(struct ibv_comp_cntr *c, int want,
		     bool (*check)(bool, const char *, ...), const char *who)
{
	static const struct {
		const char *name;
		int (*op)(struct ibv_comp_cntr *, uint64_t);
	} set[] = {
		{ "ibv_set_comp_cntr", ibv_set_comp_cntr },
		{ "ibv_set_err_comp_cntr", ibv_set_err_comp_cntr },
		{ "ibv_inc_comp_cntr", ibv_inc_comp_cntr },
		{ "ibv_inc_err_comp_cntr", ibv_inc_err_comp_cntr },
	};
	static const struct {
		const char *name;
		int (*op)(struct ibv_comp_cntr *, uint64_t *);
	} get[] = {
		{ "ibv_read_comp_cntr", ibv_read_comp_cntr },
		{ "ibv_read_err_comp_cntr", ibv_read_err_comp_cntr },
	};
	uint64_t v;
	int r;

	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		r = set[i].op(c, 1);
		check(r == want, "%s%s: %d (%s)", who, set[i].name, r,
		      strerror(want));
	}
	for (size_t i = 0; i < sizeof(get) / sizeof(get[0]); i++) {
		r = get[i].op(c, &v);
		check(r == want, "%s%s: %d (%s)", who, get[i].name, r,
		      strerror(want));
	}
}

static void check_reg_mr_ex(struct objs *o)
{
	struct ibv_pd *pd = o->p.b.pd;
	uint64_t addr_fd = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET |
			   IBV_REG_MR_MASK_IOVA;
	struct ibv_mr *mr;
	int fd;

	if (posix_memalign(&o->dst, o->page, LEN)) {
		gc_ok(false, "memory for ibv_reg_mr_ex");
		return;
	}
	memset(o->dst, 0, LEN);

	mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR, o->dst, LEN, 0, 0, NULL, NULL);
	gc_ok(mr && mr->addr == o->dst && mr->length == LEN && mr->pd == pd,
	      "ibv_reg_mr_ex ADDR (errno %d)", errno);
	drop_mr(mr);

	mr = reg_ex(pd, 0, o->dst, LEN, 0, 0, NULL, NULL);
	gc_ok(null_errno(mr, EINVAL),
	      "ibv_reg_mr_ex with neither ADDR nor FD: EINVAL (errno %d)",
	      errno);
	drop_mr(mr);
	mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR | (1ULL << 40), o->dst, LEN, 0, 0,
		    NULL, NULL);
	gc_ok(null_errno(mr, EOPNOTSUPP),
	      "ibv_reg_mr_ex with an unknown mask bit: EOPNOTSUPP (errno %d)",
	      errno);
	drop_mr(mr);
	mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_DMAH, o->dst,
		    LEN, 0, 0, &o->dmah, NULL);
	gc_ok(null_errno(mr, EOPNOTSUPP),
	      "ibv_reg_mr_ex with a DMA handle: EOPNOTSUPP (errno %d)", errno);
	drop_mr(mr);
	/* A NULL handle is the provider's to judge, as upstream leaves it. */
	mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_DMAH, o->dst,
		    LEN, 0, 0, NULL, NULL);
	gc_ok(null_errno(mr, EOPNOTSUPP),
	      "ibv_reg_mr_ex with DMAH and a NULL handle: EOPNOTSUPP (errno %d)",
	      errno);
	drop_mr(mr);
	mr = reg_ex(pd, IBV_REG_MR_MASK_DMAH, NULL, LEN, 0, 0, &o->dmah, NULL);
	gc_ok(null_errno(mr, EOPNOTSUPP),
	      "ibv_reg_mr_ex with only a DMA handle: EOPNOTSUPP (errno %d)",
	      errno);
	drop_mr(mr);

	/* Any descriptor: rxe registers no dma-buf, it is not looked at. */
	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	mr = reg_ex(pd, addr_fd, NULL, LEN, 0, fd, NULL, NULL);
	gc_ok(null_errno(mr, EOPNOTSUPP),
	      "ibv_reg_mr_ex FD, FD_OFFSET, IOVA on rxe: EOPNOTSUPP (errno %d)",
	      errno);
	drop_mr(mr);
	mr = reg_ex(pd, addr_fd | IBV_REG_MR_MASK_ADDR, o->dst, LEN, 0, fd,
		    NULL, NULL);
	gc_ok(null_errno(mr, EINVAL),
	      "ibv_reg_mr_ex FD and ADDR together: EINVAL (errno %d)", errno);
	drop_mr(mr);
	mr = reg_ex(pd, IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET, NULL,
		    LEN, 0, fd, NULL, NULL);
	gc_ok(null_errno(mr, EINVAL),
	      "ibv_reg_mr_ex FD without an IOVA: EINVAL (errno %d)", errno);
	drop_mr(mr);
	if (fd >= 0)
		close(fd);

	o->dst_mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA,
			   o->dst, LEN, IOVA, 0, NULL, NULL);
	gc_ok(o->dst_mr && o->dst_mr->addr == o->dst,
	      "ibv_reg_mr_ex ADDR at IOVA %#llx (errno %d)",
	      (unsigned long long)IOVA, errno);
}

/* The verbs rxe has no op for, on rxe0's context and the stand-ins. */
static void check_unsupported(struct objs *o)
{
	struct ibv_context *ctx = o->p.a.ctx;
	struct ibv_dmah_init_attr dattr = {};
	struct ibv_comp_cntr_init_attr cattr = {
		.type = IBV_COMP_CNTR_TYPE_WRS,
	};
	struct ibv_qp_attach_comp_cntr_attr qattr = {};
	struct ibv_alloc_dm_attr dm_attr = { .length = 64 };
	struct ibv_comp_cntr_caps caps;
	uint64_t v = 7;
	void *p;
	int r;

	errno = 0;
	p = ibv_alloc_dm(ctx, &dm_attr);
	gc_ok(null_errno(p, EOPNOTSUPP),
	      "ibv_alloc_dm: rxe makes none, so a stand-in serves (errno %d)",
	      errno);
	errno = 0;
	r = ibv_dm_export_dmabuf_fd(&o->dm);
	gc_ok(r == -1 && errno == EOPNOTSUPP,
	      "ibv_dm_export_dmabuf_fd: %d, errno %d (EOPNOTSUPP)", r, errno);

	errno = 0;
	p = ibv_alloc_dmah(ctx, &dattr);
	gc_ok(null_errno(p, EOPNOTSUPP),
	      "ibv_alloc_dmah: EOPNOTSUPP (errno %d)", errno);
	r = ibv_dealloc_dmah(&o->dmah);
	gc_ok(r == EOPNOTSUPP, "ibv_dealloc_dmah: %d (EOPNOTSUPP)", r);

	v = 7;
	r = ibv_query_port_speed(ctx, GC_PORT, &v);
	gc_ok(r == EOPNOTSUPP && v == 7,
	      "ibv_query_port_speed: %d (EOPNOTSUPP), speed untouched", r);

	memset(&caps, 0xff, sizeof(caps));
	r = ibv_query_comp_cntr_caps(ctx, &caps);
	gc_ok(r == EOPNOTSUPP && !caps.max_value && !caps.max_counters &&
		      !caps.supported_qp_attach_ops,
	      "ibv_query_comp_cntr_caps: %d (EOPNOTSUPP), caps zeroed", r);
	errno = 0;
	p = ibv_create_comp_cntr(ctx, &cattr);
	gc_ok(null_errno(p, EOPNOTSUPP),
	      "ibv_create_comp_cntr: EOPNOTSUPP (errno %d)", errno);
	cntr_ops(&o->cntr, EOPNOTSUPP, gc_ok, "");
	r = ibv_qp_attach_comp_cntr(o->p.qp_a, &o->cntr, &qattr);
	gc_ok(r == EOPNOTSUPP, "ibv_qp_attach_comp_cntr: %d (EOPNOTSUPP)", r);
	r = ibv_destroy_comp_cntr(&o->cntr);
	gc_ok(r == EOPNOTSUPP, "ibv_destroy_comp_cntr: %d (EOPNOTSUPP)", r);
}

/* An RDMA WRITE from the ibv_alloc_buf() buffer to the IOVA MR. */
static void write_through(struct objs *o, uint8_t seed, const char *when)
{
	struct gc_buf src = { .addr = o->buf_addr,
			      .len = LEN,
			      .mr = o->buf_mr };
	struct ibv_wc wc;
	int r, n;

	gc_fill(o->buf_addr, LEN, seed);
	memset(o->dst, 0, LEN);
	r = gc_post_send(o->p.qp_a, IBV_WR_RDMA_WRITE, &src, 0, LEN, WRITE_ID,
			 IBV_SEND_SIGNALED, IOVA, o->dst_mr->rkey);
	n = r ? 0 : gc_poll(o->p.cq_a, 1, &wc, GC_TIMEOUT_MS);
	gc_ok(n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == WRITE_ID &&
		      !memcmp(o->buf_addr, o->dst, LEN),
	      "%s: RDMA WRITE from the ibv_reg_buf_mr MR to the IOVA MR "
	      "(post %d, %d completion(s), %s)",
	      when, r, n, n == 1 ? gc_status_str(wc.status) : "-");
}

/*
 * In the child: every verb on what it inherited, EPERM.  Whatever
 * upstream makes of them through the parent's objects is released again.
 */
static int child(struct objs *o)
{
	struct ibv_context *ctx = o->p.a.ctx;
	struct ibv_pd *pd = o->p.a.pd;
	struct ibv_dmah_init_attr dattr = {};
	struct ibv_comp_cntr_init_attr cattr = {
		.type = IBV_COMP_CNTR_TYPE_WRS,
	};
	struct ibv_qp_attach_comp_cntr_attr qattr = {};
	struct ibv_comp_cntr_caps caps;
	struct ibv_buf *buf = NULL;
	struct ibv_mr *mr;
	uint64_t v = 0;
	void *p;
	int r;

	alarm(60);
	errno = 0;
	p = ibv_alloc_dmah(ctx, &dattr);
	gc_guard(
		null_errno(p, EPERM),
		"child: ibv_alloc_dmah on the inherited context: EPERM (errno %d)",
		errno);
	mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR, o->dst, LEN, 0, 0, NULL, NULL);
	gc_guard(null_errno(mr, EPERM),
		 "child: ibv_reg_mr_ex on the inherited PD: EPERM (errno %d)",
		 errno);
	drop_mr(mr);
	errno = 0;
	mr = ibv_reg_buf_mr(pd, o->buf, o->buf_addr, LEN,
			    IBV_ACCESS_LOCAL_WRITE);
	gc_guard(
		null_errno(mr, EPERM),
		"child: ibv_reg_buf_mr of the inherited buffer: EPERM (errno %d)",
		errno);
	drop_mr(mr);
	errno = 0;
	p = ibv_alloc_buf(pd, LEN, &buf);
	gc_guard(null_errno(p, EPERM),
		 "child: ibv_alloc_buf on the inherited PD: EPERM (errno %d)",
		 errno);
	if (p)
		ibv_free_buf(buf);
	errno = 0;
	r = ibv_export_buf_dmabuf_fd(o->buf);
	gc_guard(
		r == -1 && errno == EPERM,
		"child: ibv_export_buf_dmabuf_fd of the inherited buffer: %d, errno %d (EPERM)",
		r, errno);
	if (r >= 0)
		close(r);
	errno = 0;
	r = ibv_dm_export_dmabuf_fd(&o->dm);
	gc_guard(
		r == -1 && errno == EPERM,
		"child: ibv_dm_export_dmabuf_fd of inherited device memory: %d, errno %d (EPERM)",
		r, errno);
	r = ibv_query_port_speed(ctx, GC_PORT, &v);
	gc_guard(r == EPERM, "child: ibv_query_port_speed: %d (EPERM)", r);
	r = ibv_query_comp_cntr_caps(ctx, &caps);
	gc_guard(r == EPERM, "child: ibv_query_comp_cntr_caps: %d (EPERM)", r);
	errno = 0;
	p = ibv_create_comp_cntr(ctx, &cattr);
	gc_guard(null_errno(p, EPERM),
		 "child: ibv_create_comp_cntr: EPERM (errno %d)", errno);
	cntr_ops(&o->cntr, EPERM, gc_guard, "child: ");
	r = ibv_qp_attach_comp_cntr(o->p.qp_a, &o->cntr, &qattr);
	gc_guard(
		r == EPERM,
		"child: ibv_qp_attach_comp_cntr to the inherited QP: %d (EPERM)",
		r);

	/* The frees reach the provider, as upstream's; rxe has no op. */
	r = ibv_destroy_comp_cntr(&o->cntr);
	gc_ok(r == EOPNOTSUPP, "child: ibv_destroy_comp_cntr: %d (EOPNOTSUPP)",
	      r);
	r = ibv_dealloc_dmah(&o->dmah);
	gc_ok(r == EOPNOTSUPP, "child: ibv_dealloc_dmah: %d (EOPNOTSUPP)", r);
	/* The child's copy of the buffer; the parent keeps its own. */
	ibv_free_buf(o->buf);
	return gc_finish();
}

static long mr_count(void)
{
	char buf[1024];

	return gc_rdma_counts(buf, sizeof(buf)) ?
		       gc_rdma_count(buf, "rxe0", "mr") :
		       -1;
}

int main(void)
{
	struct objs o = {};
	long mrs_before, mrs_after;
	int status = -1;
	pid_t pid;

	gc_start("rxe_verbs_65");
	o.page = sysconf(_SC_PAGESIZE);
	if (!gc_ok(!gc_pair_open(&o.p, IBV_QPT_RC, NULL), "RC pair"))
		return gc_finish();
	o.dm.context = o.p.a.ctx;
	o.dmah.context = o.p.a.ctx;
	o.cntr.context = o.p.a.ctx;

	check_unsupported(&o);
	check_buffers(&o);
	check_reg_mr_ex(&o);
	if (!o.buf_mr || !o.dst_mr) {
		gc_ok(false, "the registrations the rest needs");
		goto out;
	}
	write_through(&o, 0x11, "parent");

	mrs_before = mr_count();
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child(&o));
	if (!gc_ok(pid > 0, "fork"))
		goto out;
	pid = gc_wait_child(pid, &status, GC_CHILD_TIMEOUT_MS,
			    "child running the guard checks");
	gc_guard(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "child: every check passed (status %#x)", status);

	write_through(&o, 0x22, "parent after the child");
	mrs_after = mr_count();
	gc_ok(mrs_before > 0 && mrs_after == mrs_before,
	      "parent: the kernel holds %ld MR(s) on rxe0, as before the child (%ld)",
	      mrs_after, mrs_before);
out:
	drop_mr(o.buf_mr);
	drop_mr(o.dst_mr);
	if (o.buf)
		ibv_free_buf(o.buf);
	free(o.dst);
	gc_pair_close(&o.p);
	return gc_finish();
}
