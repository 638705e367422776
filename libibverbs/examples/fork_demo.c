// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_fork_demo: what fork() does to a process that uses RDMA.
 *
 * 1. Initialise as libfabric does: ask ibv_is_fork_initialized() first.
 *    UNNEEDED means the kernel copies DMA-pinned pages into a child, so
 *    MR caches and huge pages may stay; otherwise turn on fork tracking
 *    with ibv_fork_init() before registering anything.
 * 2. Register memory and connect two RC queue pairs on one device.
 * 3. fork().  The child tries the inherited QP (refused, and harmless to
 *    the parent).  Then, as the child of a librdmacm or libfabric user
 *    must, it makes a CQ, QPs and MRs of its own on the INHERITED context
 *    and PD - the library puts them on a context of the child's, the
 *    parent never sees them - and does RDMA through them.  It cleans up
 *    the inherited objects, then opens the device afresh and does RDMA
 *    there too.  Meanwhile and afterwards the parent writes new bytes and
 *    moves them through the same MRs.
 *
 * Usage: ibv_fork_demo [-d DEVICE] [-g GID_INDEX]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUF_SIZE 8192

struct endpoint {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	char *buf[2];
	struct ibv_mr *mr[2];
	int gid_index;
	/* Asked once: a child may not query an inherited context. */
	union ibv_gid gid;
};

static const char *status_name(enum ibv_fork_status status)
{
	switch (status) {
	case IBV_FORK_DISABLED:
		return "disabled";
	case IBV_FORK_ENABLED:
		return "enabled";
	case IBV_FORK_UNNEEDED:
		return "unneeded (kernel copies DMA pages on fork)";
	}
	return "unknown";
}

/* Step 1: the init sequence of a libfabric-like user. */
static int init_fork_support(bool *keep_mr_cache)
{
	enum ibv_fork_status status = ibv_is_fork_initialized();
	int err;

	printf("fork support at start: %s\n", status_name(status));
	*keep_mr_cache = status == IBV_FORK_UNNEEDED;
	if (status == IBV_FORK_DISABLED) {
		err = ibv_fork_init();
		if (err) {
			fprintf(stderr, "ibv_fork_init: %s\n", strerror(err));
			return -1;
		}
		printf("fork support after ibv_fork_init(): %s\n",
		       status_name(ibv_is_fork_initialized()));
	}
	printf("MR cache and huge pages: %s\n",
	       *keep_mr_cache ? "kept" : "off (registered pages vanish "
				     "from the child)");
	return 0;
}

/* The first RoCE v2 GID holding an IPv4 address, or -1. */
static int find_ipv4_gid(struct ibv_context *ctx)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr port;
	struct ibv_gid_entry entry;
	int i;

	if (ibv_query_port(ctx, 1, &port))
		return -1;
	for (i = 0; i < port.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &entry, 0))
			continue;
		if (entry.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(entry.gid.raw, v4mapped, sizeof(v4mapped)))
			return i;
	}
	return -1;
}

static struct ibv_device *find_device(struct ibv_device **list,
				      const char *name)
{
	for (; *list; list++)
		if (!name || !strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

static struct ibv_context *open_named(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev;
	struct ibv_context *ctx = NULL;

	if (!list)
		return NULL;
	dev = find_device(list, name);
	if (dev)
		ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	return ctx;
}

static int to_state(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	return ibv_modify_qp(qp, attr, mask | IBV_QP_STATE);
}

/* Bring @qp to RTS, connected to @remote_qpn through GID @gid_index. */
static int connect_qp(struct endpoint *ep, struct ibv_qp *qp,
		      uint32_t remote_qpn)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	if (to_state(qp, &attr, IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_ACCESS_FLAGS))
		return -1;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = IBV_MTU_1024;
	attr.dest_qp_num = remote_qpn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.port_num = 1;
	attr.ah_attr.grh.dgid = ep->gid;
	attr.ah_attr.grh.sgid_index = ep->gid_index;
	attr.ah_attr.grh.hop_limit = 1;
	if (to_state(qp, &attr, IBV_QP_AV | IBV_QP_PATH_MTU |
					IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					IBV_QP_MAX_DEST_RD_ATOMIC |
					IBV_QP_MIN_RNR_TIMER))
		return -1;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	return to_state(qp, &attr, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					   IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * A CQ, two MRs and two connected RC QPs on @ep's context and PD, which
 * may be the ones a fork child inherited.
 */
static int build(struct endpoint *ep)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	int i;

	ep->cq = ibv_create_cq(ep->ctx, 32, NULL, NULL, 0);
	if (!ep->cq)
		return -1;
	init.send_cq = init.recv_cq = ep->cq;
	for (i = 0; i < 2; i++) {
		/*
		 * A mapping of its own: with MADV_DONTFORK the registered
		 * pages vanish from a child, and heap memory would take
		 * malloc's bookkeeping with it.
		 */
		ep->buf[i] = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ep->buf[i] == MAP_FAILED) {
			ep->buf[i] = NULL;
			return -1;
		}
		ep->mr[i] = ibv_reg_mr(ep->pd, ep->buf[i], BUF_SIZE, access);
		ep->qp[i] = ibv_create_qp(ep->pd, &init);
		if (!ep->mr[i] || !ep->qp[i])
			return -1;
	}
	if (connect_qp(ep, ep->qp[0], ep->qp[1]->qp_num) ||
	    connect_qp(ep, ep->qp[1], ep->qp[0]->qp_num))
		return -1;
	return 0;
}

/* Step 2: open the device, then a PD and build() on them. */
static int setup(struct endpoint *ep, const char *dev, int gid_index)
{
	memset(ep, 0, sizeof(*ep));
	ep->ctx = open_named(dev);
	if (!ep->ctx)
		return -1;
	ep->gid_index = gid_index >= 0 ? gid_index : find_ipv4_gid(ep->ctx);
	ep->pd = ibv_alloc_pd(ep->ctx);
	if (ep->gid_index < 0 || !ep->pd ||
	    ibv_query_gid(ep->ctx, 1, ep->gid_index, &ep->gid))
		return -1;
	return build(ep);
}

/* What build() made; the context and PD are the caller's. */
static void unbuild(struct endpoint *ep)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (ep->qp[i])
			ibv_destroy_qp(ep->qp[i]);
		if (ep->mr[i])
			ibv_dereg_mr(ep->mr[i]);
		if (ep->buf[i])
			munmap(ep->buf[i], BUF_SIZE);
	}
	if (ep->cq)
		ibv_destroy_cq(ep->cq);
}

static void teardown(struct endpoint *ep)
{
	unbuild(ep);
	if (ep->pd)
		ibv_dealloc_pd(ep->pd);
	if (ep->ctx)
		ibv_close_device(ep->ctx);
}

/* Post one signaled RDMA op on QP 0 between the two MRs and wait. */
static int rdma(struct endpoint *ep, enum ibv_wr_opcode op)
{
	int local = op == IBV_WR_RDMA_WRITE ? 0 : 1;
	struct ibv_sge sge = {
		.addr = (uintptr_t)ep->buf[local],
		.length = BUF_SIZE,
		.lkey = ep->mr[local]->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = op,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)ep->buf[1 - local],
			     .rkey = ep->mr[1 - local]->rkey },
	}, *bad;
	struct ibv_wc wc;
	int n, err;

	err = ibv_post_send(ep->qp[0], &wr, &bad);
	if (err)
		return err;
	do
		n = ibv_poll_cq(ep->cq, 1, &wc);
	while (n == 0);
	if (n < 0 || wc.status != IBV_WC_SUCCESS || wc.wr_id != op)
		return EIO;
	return 0;
}

/* The parent's check: new bytes written, moved by WRITE, back by READ. */
static bool parent_round(struct endpoint *ep, int round)
{
	int i;

	for (i = 0; i < BUF_SIZE; i++)
		ep->buf[0][i] = (char)(i * 7 + round);
	if (rdma(ep, IBV_WR_RDMA_WRITE) ||
	    memcmp(ep->buf[0], ep->buf[1], BUF_SIZE))
		return false;
	memset(ep->buf[0], 0, BUF_SIZE);
	ep->buf[1][0] ^= 0x5a;
	if (rdma(ep, IBV_WR_RDMA_READ) ||
	    memcmp(ep->buf[0], ep->buf[1], BUF_SIZE))
		return false;
	return true;
}

static void report(const char *who, const char *what, int err)
{
	printf("%s: %-34s %s\n", who, what,
	       err ? strerror(err) : "succeeded");
}

/* Step 3, in the child: inherited objects refuse, own objects work. */
static int child(struct endpoint *inherited, const char *dev, int gid_index)
{
	struct ibv_sge sge = { .addr = (uintptr_t)inherited->buf[0],
			       .length = 1,
			       .lkey = inherited->mr[0]->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND }, *bad;
	struct endpoint own, on_inherited = { 0 };
	int err;

	report("child", "ibv_post_send on inherited QP",
	       ibv_post_send(inherited->qp[0], &wr, &bad));

	/*
	 * A child of a librdmacm user has only the cached context and PD:
	 * new objects on them are the child's own.
	 */
	on_inherited.ctx = inherited->ctx;
	on_inherited.pd = inherited->pd;
	on_inherited.gid_index = inherited->gid_index;
	on_inherited.gid = inherited->gid;
	err = build(&on_inherited) ? errno ? errno : EIO : 0;
	if (!err)
		err = rdma(&on_inherited, IBV_WR_RDMA_WRITE);
	report("child", "RDMA WRITE, new QP on inherited PD", err);
	unbuild(&on_inherited);
	/* Cleanup code in a child must not hurt the parent. */
	teardown(inherited);
	report("child", "cleanup of inherited objects", 0);

	err = setup(&own, dev, gid_index) ? errno ? errno : EIO : 0;
	if (!err)
		err = rdma(&own, IBV_WR_RDMA_WRITE);
	report("child", "RDMA WRITE on its own new QP", err);
	teardown(&own);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct endpoint ep;
	bool keep_cache, ok = true;
	int gid_index = -1, opt, status, round;
	pid_t pid;

	while ((opt = getopt(argc, argv, "d:g:")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'g')
			gid_index = atoi(optarg);
		else
			return 2;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (init_fork_support(&keep_cache))
		return 1;
	if (setup(&ep, dev, gid_index)) {
		perror("set-up of device, MRs and QPs");
		return 1;
	}
	printf("parent: registered 2 MRs of %d bytes on %s, QPs %u <-> %u\n",
	       BUF_SIZE, ibv_get_device_name(ep.ctx->device),
	       ep.qp[0]->qp_num, ep.qp[1]->qp_num);
	ok &= parent_round(&ep, 0);

	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0)
		_exit(child(&ep, dev, gid_index));

	/* While the child lives, then after it is gone. */
	for (round = 1; round <= 3; round++)
		ok &= parent_round(&ep, round);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	for (; round <= 6; round++)
		ok &= parent_round(&ep, round);
	printf("parent: RDMA WRITE+READ through the parent's MRs, "
	       "during and after the child: %s\n", ok ? "all bytes correct" :
						      "FAILED");
	printf("child exited with %d\n", WEXITSTATUS(status));
	teardown(&ep);
	return ok && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}
