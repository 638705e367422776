// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_forkcheck: measure what this kernel does to registered memory on
 * fork(), per kind of memory, and say what an application should do.
 *
 * For each kind (anonymous 4 KiB pages, transparent huge pages, 2 MiB
 * hugetlb pages, MAP_SHARED memory): fill a buffer with an old pattern,
 * register it, check that RDMA READ through the MR returns it, fork a
 * child that only waits, write a new pattern in the parent while the
 * child still shares the pages, and READ through the MR again.  The new
 * pattern means the MR still points at the parent's pages (the kernel
 * copied the pinned pages into the child); the old one means the parent's
 * write was copied away from the MR, which now holds the child's page.
 *
 * The READs run on a loopback RC QP pair of the same device, created
 * after the fork: the measurement needs no queue that crossed a fork.
 * Only the public verbs API is used, so the tool runs on any libibverbs.
 *
 * Usage: ibv_forkcheck [-d DEV] [-i PORT] [-g GID_INDEX] [-k KINDS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include "rdma_shim.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

#define SMALL_SIZE (64 * 1024)
#define HUGE_SIZE (2 * 1024 * 1024)
#define PAGE 4096
#define OLD_BYTE 0x0d
#define NEW_BYTE 0xa7

/* Exit statuses, documented in ibv_forkcheck(1). */
enum {
	FC_EXIT_KEPT = 0,
	FC_EXIT_LOST = 1,
	FC_EXIT_USAGE = 2,
	FC_EXIT_NOT_MEASURED = 3,
};

enum verdict {
	V_KEPT, /* the MR shows the parent's new data */
	V_STALE, /* the MR shows the old data: the parent lost it */
	V_BROKEN, /* RDMA through the MR fails even before fork */
	V_SKIPPED, /* this kind of memory could not be had */
	V_ERROR, /* the measurement itself failed */
};

static const char *const verdict_names[] = {
	[V_KEPT] = "kept",     [V_STALE] = "stale",
	[V_BROKEN] = "broken", [V_SKIPPED] = "not-measured",
	[V_ERROR] = "error",
};

struct kind {
	const char *name;
	const char *what;
	size_t size;
	enum verdict verdict;
	char detail[160];
	/* Returns the buffer, or NULL with detail filled in. */
	void *(*alloc)(struct kind *k);
};

struct rig {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t port;
	int gid_index; /* -1: InfiniBand, address by LID */
	struct ibv_port_attr port_attr;
	union ibv_gid gid;
};

/* A loopback QP pair and a landing buffer for the READs. */
struct probe {
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	void *dst;
	size_t size;
	struct ibv_mr *dst_mr;
};

/* --- what the kernel says ------------------------------------------ */

struct cof_answer {
	bool present;
	uint8_t value;
};

static int cof_attr(const struct nlattr *attr, void *data)
{
	struct cof_answer *ans = data;

	if (mnl_attr_get_type(attr) == RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK &&
	    mnl_attr_validate(attr, MNL_TYPE_U8) == 0) {
		ans->present = true;
		ans->value = mnl_attr_get_u8(attr);
	}
	return MNL_CB_OK;
}

static int cof_msg(const struct nlmsghdr *nlh, void *data)
{
	/* RDMA netlink has no family header: attributes follow nlmsghdr. */
	return mnl_attr_parse(nlh, 0, cof_attr, data) < 0 ? MNL_CB_ERROR :
							    MNL_CB_OK;
}

/*
 * RDMA_NLDEV_CMD_SYS_GET, as `rdma system show` sends it.  Returns 0 with
 * ans filled in, or a negative errno when the kernel could not be asked.
 */
static int query_copy_on_fork(struct cof_answer *ans)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct timeval tmo = { .tv_sec = 1 };
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	unsigned int seq = (unsigned int)time(NULL), portid;
	ssize_t n;
	int ret = 0;

	memset(ans, 0, sizeof(*ans));
	nl = mnl_socket_open(NETLINK_RDMA);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tmo,
		       sizeof(tmo)) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type =
		RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	do {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0) {
			ret = -errno;
			break;
		}
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, cof_msg, ans);
	} while (ret > 0);
	if (ret < 0)
		ret = -errno;
out:
	mnl_socket_close(nl);
	return ret;
}

/* --- the kinds of memory -------------------------------------------- */

static void *map_anon(size_t size, int flags)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       flags | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void *alloc_small(struct kind *k)
{
	void *p = map_anon(k->size, MAP_PRIVATE);

	/* Keep THP out, so these are plain 4 KiB pages. */
	if (p)
		madvise(p, k->size, MADV_NOHUGEPAGE);
	else
		snprintf(k->detail, sizeof(k->detail), "mmap: %s",
			 strerror(errno));
	return p;
}

static void *alloc_shared(struct kind *k)
{
	void *p = map_anon(k->size, MAP_SHARED);

	if (!p)
		snprintf(k->detail, sizeof(k->detail), "mmap: %s",
			 strerror(errno));
	return p;
}

static void *alloc_hugetlb(struct kind *k)
{
	void *p = map_anon(k->size,
			   MAP_PRIVATE | MAP_HUGETLB | (21 << MAP_HUGE_SHIFT));

	if (!p)
		snprintf(k->detail, sizeof(k->detail),
			 "no hugetlb pages (%s): reserve some as root with "
			 "'sysctl vm.nr_hugepages=4' and run again",
			 strerror(errno));
	return p;
}

/* kB of AnonHugePages in the mapping that holds addr, or -1. */
static long anon_huge_kb(const void *addr)
{
	unsigned long a = (uintptr_t)addr, start, end;
	char line[256];
	bool inside = false;
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = a >= start && a < end;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* 2 MiB, 2 MiB-aligned, with MADV_HUGEPAGE, so a THP can back it. */
static void *alloc_thp(struct kind *k)
{
	char *raw = map_anon(2 * k->size, MAP_PRIVATE), *p;
	size_t head;

	if (!raw) {
		snprintf(k->detail, sizeof(k->detail), "mmap: %s",
			 strerror(errno));
		return NULL;
	}
	p = (char *)(((uintptr_t)raw + k->size - 1) & ~(k->size - 1));
	head = (size_t)(p - raw);
	if (head)
		munmap(raw, head);
	munmap(p + k->size, k->size - head);
	if (madvise(p, k->size, MADV_HUGEPAGE) == 0) {
		memset(p, OLD_BYTE, k->size);
		if (anon_huge_kb(p) >= (long)(k->size / 1024))
			return p;
	}
	snprintf(k->detail, sizeof(k->detail),
		 "no transparent huge page backs the buffer (see "
		 "/sys/kernel/mm/transparent_hugepage/enabled)");
	munmap(p, k->size);
	return NULL;
}

static struct kind kinds[] = {
	{ "anon", "anonymous 4 KiB pages", SMALL_SIZE, V_SKIPPED, "",
	  alloc_small },
	{ "thp", "transparent huge pages", HUGE_SIZE, V_SKIPPED, "",
	  alloc_thp },
	{ "hugetlb", "hugetlb 2 MiB pages", HUGE_SIZE, V_SKIPPED, "",
	  alloc_hugetlb },
	{ "shared", "MAP_SHARED memory", SMALL_SIZE, V_SKIPPED, "",
	  alloc_shared },
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* --- the device ----------------------------------------------------- */

static int open_rig(struct rig *r, const char *name, uint8_t port, int gidx)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	memset(r, 0, sizeof(*r));
	if (!list)
		return -1;
	for (i = 0; list[i]; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (list[i])
		r->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!r->ctx) {
		fprintf(stderr, "ibv_forkcheck: %s: %s\n",
			name ? name : "no RDMA device",
			name ? "cannot open" : "found");
		return -1;
	}
	r->port = port;
	if (ibv_query_port(r->ctx, port, &r->port_attr)) {
		fprintf(stderr, "ibv_forkcheck: port %u: %s\n", port,
			strerror(errno));
		return -1;
	}
	r->gid_index = gidx;
	if (gidx < 0 && r->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET)
		r->gid_index = 0;
	if (r->gid_index >= 0 &&
	    ibv_query_gid(r->ctx, port, r->gid_index, &r->gid)) {
		fprintf(stderr, "ibv_forkcheck: GID %d: %s\n", r->gid_index,
			strerror(errno));
		return -1;
	}
	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->pd) {
		fprintf(stderr, "ibv_forkcheck: ibv_alloc_pd: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static void close_rig(struct rig *r)
{
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
}

static int qp_to_rts(struct rig *r, struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = r->port,
		.qp_access_flags = IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = r->port_attr.active_mtu;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = r->port;
	if (r->gid_index >= 0) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = r->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)r->gid_index;
		a.ah_attr.grh.hop_limit = 1;
	} else {
		a.ah_attr.dlid = r->port_attr.lid;
	}
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

static void probe_close(struct probe *p)
{
	int i;

	for (i = 0; i < 2; i++)
		if (p->qp[i])
			ibv_destroy_qp(p->qp[i]);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->dst_mr)
		ibv_dereg_mr(p->dst_mr);
	if (p->dst)
		munmap(p->dst, p->size);
	memset(p, 0, sizeof(*p));
}

static int probe_open(struct probe *p, struct rig *r, size_t size)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1,
			 .max_recv_wr = 1,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	int i;

	memset(p, 0, sizeof(*p));
	p->size = size;
	p->dst = map_anon(size, MAP_PRIVATE);
	p->cq = ibv_create_cq(r->ctx, 4, NULL, NULL, 0);
	if (!p->dst || !p->cq)
		goto fail;
	p->dst_mr = ibv_reg_mr(r->pd, p->dst, size, IBV_ACCESS_LOCAL_WRITE);
	if (!p->dst_mr)
		goto fail;
	init.send_cq = init.recv_cq = p->cq;
	for (i = 0; i < 2; i++) {
		p->qp[i] = ibv_create_qp(r->pd, &init);
		if (!p->qp[i])
			goto fail;
	}
	if (qp_to_rts(r, p->qp[0], p->qp[1]->qp_num) ||
	    qp_to_rts(r, p->qp[1], p->qp[0]->qp_num))
		goto fail;
	return 0;
fail:
	i = errno;
	probe_close(p);
	errno = i ? i : EIO;
	return -1;
}

/*
 * READs move at most this much each: rxe in 5.10 answers a READ with all
 * its responses at once, and under load (seen in QEMU) dropped some of a
 * 2 MiB burst, after which the READ did not complete.
 */
#define READ_PIECE (64 * 1024)
/* Seconds all the READs of one buffer may take. */
#define READ_SECONDS 30

/*
 * RDMA READ len bytes at off of mr into the probe's buffer, giving up
 * READ_SECONDS after t0; 0 or an errno.
 */
static int read_piece(struct probe *p, struct ibv_mr *mr, size_t off,
		      size_t len, const struct timespec *t0)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->dst + off,
		.length = (uint32_t)len,
		.lkey = p->dst_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)mr->addr + off,
			     .rkey = mr->rkey },
	}, *bad;
	struct timespec t;
	struct ibv_wc wc;
	int n, err;

	err = ibv_post_send(p->qp[0], &wr, &bad);
	if (err)
		return err;
	do {
		n = ibv_poll_cq(p->cq, 1, &wc);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (n == 0 && t.tv_sec - t0->tv_sec < READ_SECONDS);
	if (n < 0)
		return EIO;
	if (n == 0)
		return ETIMEDOUT;
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "ibv_forkcheck: RDMA READ: %s\n",
			ibv_wc_status_str(wc.status));
		return EIO;
	}
	return 0;
}

/* RDMA READ all of mr into the probe's buffer; 0 or an errno. */
static int read_through(struct probe *p, struct ibv_mr *mr, size_t len)
{
	struct timespec t0;
	size_t off, n;
	int err;

	memset(p->dst, 0, len);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (off = 0; off < len; off += n) {
		n = len - off < READ_PIECE ? len - off : READ_PIECE;
		err = read_piece(p, mr, off, n, &t0);
		if (err)
			return err;
	}
	return 0;
}

/* How many pages of buf hold only byte b. */
static size_t pages_of(const unsigned char *buf, size_t len, unsigned char b)
{
	size_t pg, i, n = 0;

	for (pg = 0; pg < len; pg += PAGE) {
		for (i = pg; i < pg + PAGE && buf[i] == b; i++)
			;
		n += i == pg + PAGE;
	}
	return n;
}

/* --- one measurement ------------------------------------------------ */

static void __attribute__((format(printf, 3, 4)))
set_verdict(struct kind *k, enum verdict v, const char *fmt, ...)
{
	va_list ap;

	k->verdict = v;
	va_start(ap, fmt);
	vsnprintf(k->detail, sizeof(k->detail), fmt, ap);
	va_end(ap);
}

static void check_after_fork(struct kind *k, struct rig *r, struct ibv_mr *mr)
{
	size_t pages = k->size / PAGE, fresh, old;
	struct probe p;
	int err;

	if (probe_open(&p, r, k->size)) {
		set_verdict(k, V_ERROR, "QPs after fork: %s", strerror(errno));
		return;
	}
	err = read_through(&p, mr, k->size);
	if (err) {
		set_verdict(k, V_ERROR, "RDMA READ after fork: %s",
			    strerror(err));
		probe_close(&p);
		return;
	}
	fresh = pages_of(p.dst, k->size, NEW_BYTE);
	old = pages_of(p.dst, k->size, OLD_BYTE);
	probe_close(&p);
	k->verdict = fresh == pages ? V_KEPT : old ? V_STALE : V_ERROR;
	if (k->verdict == V_KEPT)
		snprintf(k->detail, sizeof(k->detail),
			 "the MR holds the parent's new data: the pinned "
			 "pages stayed with the parent");
	else
		snprintf(k->detail, sizeof(k->detail),
			 "the MR holds old data in %zu of %zu pages (new data "
			 "in %zu): the parent's write went to a copy",
			 old, pages, fresh);
}

static void measure(struct kind *k, struct rig *r)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	int to_child[2], status, err;
	struct ibv_mr *mr = NULL;
	struct probe p;
	unsigned char *buf;
	pid_t pid;
	char c;

	buf = k->alloc(k);
	if (!buf) {
		k->verdict = V_SKIPPED;
		return;
	}
	memset(buf, OLD_BYTE, k->size);
	mr = ibv_reg_mr(r->pd, buf, k->size, access);
	if (!mr) {
		set_verdict(k, V_ERROR, "ibv_reg_mr: %s", strerror(errno));
		goto out;
	}

	/* RDMA through this memory must work before fork to mean anything. */
	if (probe_open(&p, r, k->size)) {
		set_verdict(k, V_ERROR, "QPs: %s", strerror(errno));
		goto out;
	}
	err = read_through(&p, mr, k->size);
	if (!err && pages_of(p.dst, k->size, OLD_BYTE) != k->size / PAGE)
		err = EILSEQ;
	probe_close(&p);
	if (err) {
		set_verdict(k, V_BROKEN,
			    "RDMA READ through the MR fails before any fork "
			    "(%s)",
			    strerror(err));
		goto out;
	}

	if (pipe(to_child)) {
		set_verdict(k, V_ERROR, "pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		set_verdict(k, V_ERROR,
			    "fork: %s (too few free huge pages "
			    "to copy into the child?)",
			    strerror(errno));
		close(to_child[0]);
		close(to_child[1]);
		goto out;
	}
	if (pid == 0) {
		/* Share the pages until the parent has looked, then go. */
		close(to_child[1]);
		while (read(to_child[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(to_child[0]);
	memset(buf, NEW_BYTE, k->size);
	check_after_fork(k, r, mr);
	close(to_child[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
out:
	if (mr)
		ibv_dereg_mr(mr);
	munmap(buf, k->size);
}

/* --- the report ----------------------------------------------------- */

static const char *fork_status_name(enum ibv_fork_status s)
{
	switch (s) {
	case IBV_FORK_DISABLED:
		return "IBV_FORK_DISABLED";
	case IBV_FORK_ENABLED:
		return "IBV_FORK_ENABLED";
	case IBV_FORK_UNNEEDED:
		return "IBV_FORK_UNNEEDED";
	}
	return "unknown";
}

static bool kind_selected(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *s;

	if (!list)
		return true;
	for (s = list; (s = strstr(s, name)); s += n)
		if ((s == list || s[-1] == ',') && (s[n] == ',' || !s[n]))
			return true;
	return false;
}

static bool kinds_valid(const char *list)
{
	const char *s = list;
	size_t i, n;

	while (*s) {
		n = strcspn(s, ",");
		for (i = 0; i < NKINDS; i++)
			if (strlen(kinds[i].name) == n &&
			    !strncmp(s, kinds[i].name, n))
				break;
		if (i == NKINDS)
			return false;
		s += n + (s[n] == ',');
	}
	return true;
}

static void advise(const struct cof_answer *cof, int cof_err,
		   enum ibv_fork_status st, const struct kind *anon)
{
	bool lost = false, all_kept = true, any = false;
	size_t i;

	printf("advice:\n");
	if (st == IBV_FORK_ENABLED) {
		/* MADV_DONTFORK hid what the kernel does: no advice. */
		printf("  fork tracking is on (ibv_fork_init() or "
		       "RDMAV_FORK_SAFE): registered memory is MADV_DONTFORK, "
		       "so this shows the library's protection, not the "
		       "kernel's; run again without RDMAV_FORK_SAFE/"
		       "IBV_FORK_SAFE to measure the kernel.\n");
		return;
	}
	for (i = 0; i < NKINDS; i++) {
		if (kinds[i].verdict == V_SKIPPED ||
		    kinds[i].verdict == V_ERROR)
			continue;
		any = true;
		if (kinds[i].verdict != V_KEPT) {
			all_kept = false;
			lost |= kinds[i].verdict == V_STALE;
			printf("  avoid registering %s in a process that "
			       "forks: %s\n",
			       kinds[i].what,
			       kinds[i].verdict == V_STALE ?
				       "the parent's MR loses its pages, "
				       "unless ibv_fork_init() is called "
				       "before registering" :
				       "RDMA through it fails on this "
				       "kernel even without fork");
		}
	}
	if (!any) {
		printf("  nothing was measured; see the lines above.\n");
		return;
	}
	if (anon->verdict == V_STALE)
		printf("  this kernel does not keep a parent's registered "
		       "pages on fork(): an application that forks must call "
		       "ibv_fork_init() (or run with RDMAV_FORK_SAFE=1) before "
		       "registering memory.\n");
	else if (anon->verdict == V_KEPT && !lost)
		printf("  an application need not call ibv_fork_init() for "
		       "the memory measured here.\n");
	if (lost || !all_kept)
		printf("  RDMAV_COPY_ON_FORK=1 is NOT safe here.\n");
	else if (cof_err == 0 && cof->present && cof->value)
		printf("  the kernel reports copy-on-fork itself: "
		       "RDMAV_COPY_ON_FORK is not needed.\n");
	else
		printf("  the kernel keeps the pages but does not say so: "
		       "RDMAV_COPY_ON_FORK=1 is safe here for the memory "
		       "measured, and spares ibv_fork_init()'s tracking.\n");
	if (kinds[2].verdict == V_SKIPPED)
		printf("  hugetlb memory was not measured: kernels before "
		       "5.12 do not copy it; measure it before relying on "
		       "this advice for hugetlb memory.\n");
	if (lost && st == IBV_FORK_UNNEEDED)
		printf("  WARNING: ibv_is_fork_initialized() answers "
		       "IBV_FORK_UNNEEDED although memory lost its pages: "
		       "unset RDMAV_COPY_ON_FORK.\n");
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: ibv_forkcheck [-d DEVICE] [-i PORT] [-g GID_INDEX] "
		   "[-k KIND[,KIND...]]\n"
		   "KIND: anon, thp, hugetlb, shared (default: all)\n");
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *only = NULL;
	enum ibv_fork_status st;
	struct cof_answer cof;
	struct utsname uts;
	int port = 1, gidx = -1, opt, cof_err, ret;
	bool measured = false, lost = false, failed = false;
	struct rig rig;
	size_t i;

	while ((opt = getopt(argc, argv, "d:i:g:k:h")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'i':
			port = atoi(optarg);
			break;
		case 'g':
			gidx = atoi(optarg);
			break;
		case 'k':
			only = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return FC_EXIT_USAGE;
		}
	}
	if (optind != argc || port < 1 || port > 255 ||
	    (only && !kinds_valid(only))) {
		usage(stderr);
		return FC_EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	uname(&uts);
	printf("kernel: %s\n", uts.release);
	cof_err = query_copy_on_fork(&cof);
	if (cof_err)
		printf("netlink copy-on-fork: unknown (%s)\n",
		       strerror(-cof_err));
	else if (cof.present)
		printf("netlink copy-on-fork: %u\n", cof.value);
	else
		printf("netlink copy-on-fork: absent\n");
	/* Asked before any verb, as libfabric does at init. */
	st = ibv_is_fork_initialized();
	printf("ibv_is_fork_initialized: %s\n", fork_status_name(st));

	if (open_rig(&rig, dev, (uint8_t)port, gidx)) {
		close_rig(&rig);
		return FC_EXIT_NOT_MEASURED;
	}
	printf("device: %s port %d gid %d\n",
	       ibv_get_device_name(rig.ctx->device), port, rig.gid_index);
	for (i = 0; i < NKINDS; i++) {
		struct kind *k = &kinds[i];

		if (!kind_selected(only, k->name)) {
			set_verdict(k, V_SKIPPED, "%s", "not asked for (-k)");
			continue;
		}
		measure(k, &rig);
		printf("%-8s %-13s %s\n", k->name, verdict_names[k->verdict],
		       k->detail);
		measured |= k->verdict <= V_BROKEN;
		lost |= k->verdict == V_STALE || k->verdict == V_BROKEN;
		failed |= k->verdict == V_ERROR;
	}
	close_rig(&rig);
	advise(&cof, cof_err, st, &kinds[0]);
	/* A failed measurement must not pass for "all kept". */
	if (lost)
		ret = FC_EXIT_LOST;
	else if (failed || !measured || st == IBV_FORK_ENABLED)
		ret = FC_EXIT_NOT_MEASURED;
	else
		ret = FC_EXIT_KEPT;
	return ret;
}
