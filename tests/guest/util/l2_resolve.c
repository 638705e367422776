/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ibv_resolve_eth_l2_from_gid() on the Soft-RoCE guest, where real
 * neighbours answer: IPv4 (ARP) and IPv6 (NDP) destinations after the
 * neighbour table was flushed, EUI-64 and multicast GIDs, and the VLAN ID
 * of a VLAN device (tests/vm/run loads 8021q; failing to make one is a
 * failure).  Needs rxe0 on veth0 and
 * rxe1 on veth1 as tests/vm/run sets them up, and root; not a host test:
 *
 *   tests/vm/run build/tests/guest/util/l2_resolve
 *
 * Only public API, so the same binary runs on Debian's libibverbs too
 * (LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu) to compare; the lines
 * starting with '#' print ibv_init_ah_from_wc() results in full for that.
 * Debian's fails the four checks tagged "# guard" (as gc_guard() of
 * tests/guest/common does), by design of ours: it does not get ARP going
 * between two addresses of one network namespace (-EHOSTUNREACH after a
 * flush, so no neighbour entry either), and it reads a MAC out of any
 * link-local GID, so fe80::1234 gives 02:00:00:00:12:34 instead of the
 * neighbour's MAC.  Every other check must pass on Debian's library too.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "guest_common.h" /* its limits only */

static int passed, failed;
/* Set around the checks of what upstream does not do (see above). */
static bool guard;

static __attribute__((format(printf, 2, 3))) void check(bool ok,
							const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("%s\n", guard ? " # guard" : "");
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

/* The index of @addr (text) of type @type on port 1, -1 if absent. */
static int find_gid(struct ibv_context *ctx, const char *addr, int type)
{
	struct ibv_port_attr pa;
	union ibv_gid want;

	if (inet_pton(AF_INET6, addr, &want) != 1 ||
	    ibv_query_port(ctx, 1, &pa))
		return -1;
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
			continue;
		if (!memcmp(&e.gid, &want, sizeof(want)) &&
		    (int)e.gid_type == type)
			return i;
	}
	return -1;
}

/* Wait up to 10 s for the kernel to add GID @addr to rxe's table. */
static int wait_gid(struct ibv_context *ctx, const char *addr)
{
	for (int i = 0; i < 100; i++) {
		int index = find_gid(ctx, addr, IBV_GID_TYPE_ROCE_V2);

		if (index >= 0)
			return index;
		usleep(100000);
	}
	return -1;
}

static int resolve(struct ibv_context *ctx, int sgid_index, const char *dst,
		   uint8_t mac[6], uint16_t *vid)
{
	struct ibv_ah_attr ah = { .is_global = 1, .port_num = 1 };

	ah.grh.sgid_index = sgid_index;
	ah.grh.hop_limit = 64;
	if (inet_pton(AF_INET6, dst, &ah.grh.dgid) != 1)
		return -1;
	memset(mac, 0xee, 6);
	*vid = 0x1234;
	return ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, vid);
}

static const char *mac_str(const uint8_t *mac)
{
	static char buf[18];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0],
		 mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

/* ---- ibv_init_ah_from_wc on a real received packet ---- */

struct ud_end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t buf[4096];
};

#define UD_QKEY 0x11111111

static bool ud_open(struct ud_end *e, struct ibv_context *ctx)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = UD_QKEY,
	};

	e->ctx = ctx;
	e->pd = ibv_alloc_pd(ctx);
	e->cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!e->pd || !e->cq)
		return false;
	init.send_cq = init.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &init);
	e->mr = ibv_reg_mr(e->pd, e->buf, sizeof(e->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	if (!e->qp || !e->mr ||
	    ibv_modify_qp(e->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return false;
	attr.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(e->qp, &attr, IBV_QP_STATE))
		return false;
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 1;
	return !ibv_modify_qp(e->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static void ud_close(struct ud_end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
}

/* As long as the other tests wait for a completion. */
#define UD_POLL_S (GC_TIMEOUT_MS / 1000)

static bool ud_poll(struct ibv_cq *cq, struct ibv_wc *wc, const char *what)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0;; i++) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n == 1 && wc->status == IBV_WC_SUCCESS;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > UD_POLL_S) {
			printf("# timeout: no %s completion after %d s\n",
			       what, UD_POLL_S);
			return false;
		}
		if (i > 1000)
			usleep(10);
	}
}

static void ipv4_fix_csum(uint8_t *hdr)
{
	unsigned int sum = 0;

	hdr[30] = hdr[31] = 0;
	for (int i = 20; i < 40; i += 2)
		sum += hdr[i] << 8 | hdr[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	hdr[30] = ~sum >> 8;
	hdr[31] = ~sum;
}

/* How odd headers fare; printed, to compare the two libraries. */
static void probe_errors(struct ud_end *b, struct ibv_wc *rwc,
			 const char *what)
{
	uint8_t hdr[40];
	struct ibv_ah_attr ah;
	struct ibv_wc wc = *rwc;
	int rc;

	memcpy(hdr, b->buf, sizeof(hdr));
	if (hdr[20] == 0x45) {
		hdr[39] = 99;		/* to 198.18.0.99: not ours */
		ipv4_fix_csum(hdr);
	} else {
		hdr[39] = 0x99;	/* to another link-local address */
	}
	errno = 0;
	rc = ibv_init_ah_from_wc(b->ctx, 1, &wc, (struct ibv_grh *)hdr, &ah);
	printf("# %s, not sent to us: rc %d errno %d\n", what, rc, errno);

	if (hdr[20] == 0x45) {
		memcpy(hdr, b->buf, sizeof(hdr));
		hdr[31] ^= 1;
		errno = 0;
		rc = ibv_init_ah_from_wc(b->ctx, 1, &wc,
					 (struct ibv_grh *)hdr, &ah);
		printf("# %s, bad checksum: rc %d errno %d\n", what, rc, errno);
	}

	wc.wc_flags &= ~IBV_WC_GRH;
	errno = 0;
	memset(&ah, 0xee, sizeof(ah));
	rc = ibv_init_ah_from_wc(b->ctx, 1, &wc, (struct ibv_grh *)b->buf,
				 &ah);
	printf("# %s, no GRH flag: rc %d errno %d global %u\n", what, rc,
	       errno, ah.is_global);
}

/*
 * Send from @a (GID @sgid) to @b at @dgid with @tclass and @flow, then
 * build the way back from what @b received.
 */
static void check_from_wc(struct ud_end *a, struct ud_end *b, int sgid,
			  const char *dgid, uint8_t tclass, uint32_t flow,
			  int want_index, const char *want_dgid,
			  const char *what)
{
	struct ibv_ah_attr ah = { .is_global = 1, .port_num = 1, .sl = 0 };
	struct ibv_sge rsge = { (uintptr_t)b->buf, 40 + 64, b->mr->lkey };
	struct ibv_sge ssge = { (uintptr_t)a->buf, 64, a->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = {
		.sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *sbad;
	struct ibv_ah_attr back;
	union ibv_gid want;
	struct ibv_wc wc;
	struct ibv_ah *h;
	char buf[INET6_ADDRSTRLEN];
	bool sent;
	int rc;

	ah.grh.sgid_index = sgid;
	ah.grh.hop_limit = 37;
	ah.grh.traffic_class = tclass;
	ah.grh.flow_label = flow;
	inet_pton(AF_INET6, dgid, &ah.grh.dgid);
	h = ibv_create_ah(a->pd, &ah);
	swr.wr.ud.ah = h;
	swr.wr.ud.remote_qpn = b->qp->qp_num;
	swr.wr.ud.remote_qkey = UD_QKEY;
	sent = h && !ibv_post_recv(b->qp, &rwr, &rbad) &&
	       !ibv_post_send(a->qp, &swr, &sbad) && ud_poll(a->cq, &wc, "UD send") &&
	       ud_poll(b->cq, &wc, "UD receive");
	if (h)
		ibv_destroy_ah(h);
	check(sent && (wc.wc_flags & IBV_WC_GRH), "%s: packet received", what);
	if (!sent)
		return;

	memset(&back, 0xee, sizeof(back));
	rc = ibv_init_ah_from_wc(b->ctx, 1, &wc, (struct ibv_grh *)b->buf,
				 &back);
	inet_pton(AF_INET6, want_dgid, &want);
	inet_ntop(AF_INET6, &back.grh.dgid, buf, sizeof(buf));
	printf("# header:");
	for (int i = 0; i < 40; i++)
		printf(" %02x", b->buf[i]);
	printf("\n");
	/* Printed in full, to compare the two libraries' answers. */
	printf("# %s: rc %d dlid %u sl %u path_bits %u rate %u global %u "
	       "port %u dgid %s flow 0x%x sgid_index %u hop %u tclass 0x%x\n",
	       what, rc, back.dlid, back.sl, back.src_path_bits,
	       back.static_rate, back.is_global, back.port_num, buf,
	       back.grh.flow_label, back.grh.sgid_index, back.grh.hop_limit,
	       back.grh.traffic_class);
	{
		/* The same header with another hop limit / TTL. */
		struct ibv_ah_attr alt;
		uint8_t *hdr = b->buf;

		if (hdr[20] == 0x45) {
			unsigned int sum = 0;

			hdr[28] = 37;
			hdr[30] = hdr[31] = 0;
			for (int i = 20; i < 40; i += 2)
				sum += hdr[i] << 8 | hdr[i + 1];
			while (sum >> 16)
				sum = (sum & 0xffff) + (sum >> 16);
			hdr[30] = ~sum >> 8;
			hdr[31] = ~sum;
		} else {
			hdr[7] = 37;
		}
		rc = ibv_init_ah_from_wc(b->ctx, 1, &wc,
					 (struct ibv_grh *)hdr, &alt);
		check(!rc && alt.grh.hop_limit == 37,
		      "%s: the reply keeps the hop limit of the request (%u)",
		      what, alt.grh.hop_limit);
		probe_errors(b, &wc, what);
	}
	check(rc == 0 && back.is_global && back.port_num == 1 &&
	      back.grh.sgid_index == want_index &&
	      !memcmp(&back.grh.dgid, &want, sizeof(want)),
	      "%s: way back from GID %d to %s", what, want_index, want_dgid);
}

static bool sh(const char *cmd)
{
	return system(cmd) == 0;
}

static void test_case(struct ibv_context *ctx, int sgid, const char *dst,
		      const char *want_mac, uint16_t want_vid,
		      const char *what)
{
	uint8_t mac[6];
	uint16_t vid;
	int rc = resolve(ctx, sgid, dst, mac, &vid);

	check(rc == 0 && !strcmp(mac_str(mac), want_mac) && vid == want_vid,
	      "%s: %s -> rc %d, %s, vid 0x%x", what, dst, rc, mac_str(mac),
	      vid);
}

int main(void)
{
	static const char peer_mac[] = "02:00:c6:12:00:02";
	struct ibv_context *ctx = open_dev("rxe0");
	struct ibv_context *ctx1 = open_dev("rxe1");
	int v4, ll, ll2, vlan;
	uint8_t mac[6];
	uint16_t vid;
	int rc;

	if (!ctx || !ctx1) {
		printf("not ok - cannot open rxe0 and rxe1\n");
		return 1;
	}
	v4 = find_gid(ctx, "::ffff:198.18.0.1", IBV_GID_TYPE_ROCE_V2);
	ll = find_gid(ctx, "fe80::c6ff:fe12:1", IBV_GID_TYPE_ROCE_V2);
	check(v4 >= 0 && ll >= 0, "rxe0 GIDs: IPv4 at %d, link-local at %d",
	      v4, ll);

	{
		struct ud_end a = {}, b = {};
		int v4b = find_gid(ctx1, "::ffff:198.18.0.2",
				   IBV_GID_TYPE_ROCE_V2);
		int llb = find_gid(ctx1, "fe80::c6ff:fe12:2",
				   IBV_GID_TYPE_ROCE_V2);

		if (ud_open(&a, ctx) && ud_open(&b, ctx1)) {
			check_from_wc(&a, &b, v4, "::ffff:198.18.0.2", 0x28, 0,
				      v4b, "::ffff:198.18.0.1",
				      "RoCE v2 over IPv4");
			check_from_wc(&a, &b, ll, "fe80::c6ff:fe12:2", 0x10,
				      0x12345, llb, "fe80::c6ff:fe12:1",
				      "RoCE v2 over IPv6");
		} else {
			check(false, "UD queue pairs on rxe0 and rxe1");
		}
		ud_close(&b);
		ud_close(&a);
	}

	/* ARP: flushed first, so the library has to make it happen. */
	sh("ip neigh flush dev veth0");
	guard = true;
	test_case(ctx, v4, "::ffff:198.18.0.2", peer_mac, 0xffff,
		  "IPv4 unicast after a flush");
	check(sh("ip neigh show dev veth0 198.18.0.2 | grep -q lladdr"),
	      "IPv4: the neighbour entry is there now");
	test_case(ctx, v4, "::ffff:198.18.0.2", peer_mac, 0xffff,
		  "IPv4 unicast, entry known");
	guard = false;

	test_case(ctx, ll, "fe80::c6ff:fe12:2", peer_mac, 0xffff,
		  "EUI-64 link-local");
	test_case(ctx, v4, "::ffff:224.1.2.3", "01:00:5e:01:02:03", 0xffff,
		  "IPv4 multicast");
	test_case(ctx, ll, "ff02::1:ff12:2", "33:33:ff:12:00:02", 0xffff,
		  "IPv6 multicast");
	test_case(ctx, v4, "::ffff:198.18.0.1", "02:00:c6:12:00:01", 0xffff,
		  "ourselves");
	{
		/*
		 * No vid wanted: Debian's librxe passes NULL when it makes
		 * an address vector itself (kernels before 5.11).
		 */
		struct ibv_ah_attr ah = { .is_global = 1, .port_num = 1 };

		ah.grh.sgid_index = v4;
		inet_pton(AF_INET6, "::ffff:224.1.2.3", &ah.grh.dgid);
		memset(mac, 0xee, 6);
		rc = ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, NULL);
		check(rc == 0 && !strcmp(mac_str(mac), "01:00:5e:01:02:03"),
		      "IPv4 multicast, vid NULL: rc %d, %s", rc, mac_str(mac));
	}

	/* NDP: a link-local address that is no EUI-64. */
	sh("ip addr add fe80::1234/64 dev veth1 nodad");
	sh("ip neigh flush dev veth0");
	ll2 = wait_gid(ctx1, "fe80::1234");
	check(ll2 >= 0, "rxe1 has a GID for fe80::1234 (%d)", ll2);
	guard = true;
	test_case(ctx, ll, "fe80::1234", peer_mac, 0xffff,
		  "IPv6 unicast after a flush");
	guard = false;

	/* Nobody there: fails in bounded time. */
	rc = resolve(ctx, v4, "::ffff:198.18.0.77", mac, &vid);
	check(rc == -EHOSTUNREACH,
	      "IPv4 unicast without a neighbour: -EHOSTUNREACH (rc %d)", rc);

	/*
	 * A VLAN device: the guest loads 8021q, so this must work.  The
	 * suite runs this binary more than once per boot: start afresh.
	 */
	sh("ip link del veth0.5 2>/dev/null");
	if (sh("ip link add link veth0 name veth0.5 type vlan id 5"
	       " && ip link set veth0.5 up"
	       " && ip addr add 198.19.0.1/24 dev veth0.5")) {
		vlan = wait_gid(ctx, "::ffff:198.19.0.1");
		check(vlan >= 0, "GID of the VLAN device (%d)", vlan);
		test_case(ctx, vlan, "::ffff:224.1.2.3", "01:00:5e:01:02:03", 5,
			  "VLAN 5");
	} else {
		check(false, "make VLAN device veth0.5 (is 8021q loaded?)");
	}
	sh("ip link del veth0.5 2>/dev/null");

	rc = resolve(ctx, 200, "::ffff:198.18.0.2", mac, &vid);
	check(rc == -EINVAL, "empty source GID slot: -EINVAL (rc %d)", rc);

	ibv_close_device(ctx1);
	ibv_close_device(ctx);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
