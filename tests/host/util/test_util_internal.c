/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The library's hidden sysfs helpers (sysfs.h) and the address handle code
 * (ah.c), compiled into this test with the few library functions they call
 * replaced by a made-up device: a port whose attributes and GID table the
 * test sets.  Nothing here needs an RDMA device; the layer-2 resolution
 * cases use the loopback interface, and those that need a real neighbour
 * run in the guest.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibverbs.h"
#include "sysfs.h"

#include "tap.h"
#include "child_guard_stub.h"

/* ---- the made-up device ---- */

#define MAX_GIDS 8

static struct ibv_device fake_device;
static struct verbs_context fake_vctx;
static struct ibv_context *ctx = &fake_vctx.context;
static struct ibv_port_attr fake_port;
static struct ibv_gid_entry gids[MAX_GIDS];
static bool gid_used[MAX_GIDS];
static int create_ah_calls;
static struct ibv_ah_attr create_ah_attr;
static struct ibv_ah fake_ah;
static struct ibv_pd fake_pd;

static int fake_query_port(struct ibv_context *c, uint8_t port,
			   struct ibv_port_attr *attr, size_t len)
{
	if (port != 1)
		return EINVAL;
	memcpy(attr, &fake_port, len);
	return 0;
}

/* The public verbs ah.c calls, as the library provides them. */
#undef ibv_query_port
int ibv_query_port(struct ibv_context *c, uint8_t port,
		   struct _compat_ibv_port_attr *attr)
{
	return fake_query_port(c, port, (struct ibv_port_attr *)attr,
			       sizeof(struct ibv_port_attr));
}

int _ibv_query_gid_ex(struct ibv_context *c, uint32_t port,
		      uint32_t index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	if (port != 1 || index >= MAX_GIDS)
		return EINVAL;
	if (!gid_used[index])
		return ENODATA;
	memcpy(entry, &gids[index], entry_size);
	return 0;
}

/* fork_child.c's: never reached, the fake context is this process's. */
struct ibv_context *verbs_child_context(struct ibv_context *c);
struct ibv_context *verbs_child_context(struct ibv_context *c)
{
	errno = EPERM;
	return NULL;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	create_ah_calls++;
	create_ah_attr = *attr;
	return &fake_ah;
}

static void set_gid(int index, const char *hex16, int type, int ifindex)
{
	struct ibv_gid_entry *e = &gids[index];

	memset(e, 0, sizeof(*e));
	for (int i = 0; i < 16; i++)
		sscanf(hex16 + 2 * i, "%2hhx", &e->gid.raw[i]);
	e->gid_index = index;
	e->port_num = 1;
	e->gid_type = type;
	e->ndev_ifindex = ifindex;
	gid_used[index] = true;
}

static void gid_from_hex(union ibv_gid *gid, const char *hex16)
{
	for (int i = 0; i < 16; i++)
		sscanf(hex16 + 2 * i, "%2hhx", &gid->raw[i]);
}

static void reset_device(uint8_t link_layer)
{
	memset(gids, 0, sizeof(gids));
	memset(gid_used, 0, sizeof(gid_used));
	memset(&fake_port, 0, sizeof(fake_port));
	fake_port.state = IBV_PORT_ACTIVE;
	fake_port.link_layer = link_layer;
	fake_port.gid_tbl_len = MAX_GIDS;
	fake_vctx.sz = sizeof(fake_vctx);
	fake_vctx.query_port = fake_query_port;
	fake_vctx.context.device = &fake_device;
	fake_vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
}

/* ---- sysfs helpers ---- */

static char tmpdir[] = "/tmp/test_util_internal.XXXXXX";

static void put(const char *rel, const char *content)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	/* mkdir -p of the parent */
	for (slash = path + strlen(tmpdir) + 1; (slash = strchr(slash, '/'));
	     slash++) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f || fputs(content, f) < 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
	fclose(f);
}

static void test_sysfs_helpers(void)
{
	char buf[16], path[PATH_MAX], big[PATH_MAX * 3];
	uint64_t v = 0;
	__be64 guid;
	ssize_t n;

	put("class/infiniband/fake0/node_guid", "0002:c903:0003:1234\n");
	put("class/infiniband/fake0/fw_ver", "1.2.3\n");
	put("class/infiniband/fake0/node_type", "1: CA\n");
	put("class/infiniband/fake0/empty", "");
	put("class/infiniband/fake0/exact", "0123456789abcde\n");
	put("class/infiniband/fake0/long", "0123456789abcdef\n");
	put("class/infiniband/fake0/long2", "0123456789abcdefg");
	put("class/infiniband/fake0/hex", "0x1f\n");
	put("class/infiniband/fake0/neg", "-1\n");
	put("class/infiniband/fake0/junk", "12abc\n");
	put("class/infiniband/fake0/huge", "18446744073709551616\n");
	put("class/infiniband/fake0/ports/1/link_layer", "Ethernet\n");
	put("class/infiniband/fake0/ports/1/gid_attrs/ndevs/0", "lo\n");
	put("class/infiniband/fake0/ports/1/gid_attrs/ndevs/4", "lo\n");
	put("class/infiniband/fake0/ports/1/gid_attrs/types/0", "RoCE v2\n");
	put("class/infiniband_verbs/uverbs0/abi_version", "6\n");

	CHECK(!strcmp(verbs_sysfs_root(), tmpdir) &&
	      !strcmp(ibv_get_sysfs_path(), tmpdir),
	      "root is $SYSFS_PATH");

	n = verbs_sysfs_readf(buf, sizeof(buf), "class/infiniband/%s/fw_ver",
			      "fake0");
	CHECK(n == 5 && !strcmp(buf, "1.2.3"),
	      "readf: relative to the root, newline dropped");
	snprintf(path, sizeof(path), "%s/class/infiniband/fake0/fw_ver",
		 tmpdir);
	n = verbs_sysfs_readf(buf, sizeof(buf), "%s", path);
	CHECK(n == 5 && !strcmp(buf, "1.2.3"), "readf: absolute path");
	n = verbs_sysfs_read(path, buf, sizeof(buf));
	CHECK(n == 5 && !strcmp(buf, "1.2.3"), "read: absolute path");

	memset(buf, 'X', sizeof(buf));
	n = verbs_sysfs_readf(buf, sizeof(buf), "class/infiniband/fake0/empty");
	CHECK(n == 0 && buf[0] == '\0', "read: empty attribute is \"\"");
	n = verbs_sysfs_readf(buf, sizeof(buf), "class/infiniband/fake0/exact");
	CHECK(n == 15 && !strcmp(buf, "0123456789abcde"),
	      "read: exactly fits with its newline");
	n = verbs_sysfs_readf(buf, sizeof(buf), "class/infiniband/fake0/long");
	CHECK(n == -EOVERFLOW, "read: too long, -EOVERFLOW");
	n = verbs_sysfs_readf(buf, sizeof(buf), "class/infiniband/fake0/long2");
	CHECK(n == -EOVERFLOW, "read: too long without newline, -EOVERFLOW");
	n = verbs_sysfs_readf(buf, sizeof(buf), "class/infiniband/fake0/none");
	CHECK(n == -ENOENT, "read: missing, -ENOENT");
	n = verbs_sysfs_readf(buf, 0, "class/infiniband/fake0/fw_ver");
	CHECK(n == -EOVERFLOW, "read: zero-size buffer, -EOVERFLOW");

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(verbs_sysfs_readf(buf, sizeof(buf), "%s", big) == -ENAMETOOLONG,
	      "readf: path too long, -ENAMETOOLONG");
	CHECK(verbs_sysfs_path(path, 8, "class/infiniband") == -ENAMETOOLONG,
	      "path: small buffer, -ENAMETOOLONG");
	CHECK(!verbs_sysfs_path(path, sizeof(path), "class/%s", "x") &&
	      !strcmp(path + strlen(tmpdir), "/class/x"),
	      "path: root joined");

	CHECK(!verbs_sysfs_read_u64f(&v, "class/infiniband_verbs/uverbs%d/"
				     "abi_version", 0) && v == 6,
	      "u64: decimal");
	CHECK(!verbs_sysfs_read_u64f(&v, "class/infiniband/fake0/hex") &&
	      v == 0x1f, "u64: hex");
	CHECK(verbs_sysfs_read_u64f(&v, "class/infiniband/fake0/neg") ==
	      -EINVAL, "u64: negative is -EINVAL");
	CHECK(verbs_sysfs_read_u64f(&v, "class/infiniband/fake0/junk") ==
	      -EINVAL, "u64: trailing junk is -EINVAL");
	CHECK(verbs_sysfs_read_u64f(&v, "class/infiniband/fake0/huge") ==
	      -ERANGE, "u64: overflow is -ERANGE");
	CHECK(verbs_sysfs_read_u64f(&v, "class/infiniband/fake0/node_type") ==
	      -EINVAL, "u64: \"1: CA\" is no number");

	snprintf(fake_device.ibdev_path, sizeof(fake_device.ibdev_path),
		 "%s/class/infiniband/fake0", tmpdir);
	snprintf(fake_device.dev_path, sizeof(fake_device.dev_path),
		 "%s/class/infiniband_verbs/uverbs0", tmpdir);
	n = verbs_read_ibdev_attr(&fake_device, "node_guid", buf,
				  sizeof(buf));
	CHECK(n == -EOVERFLOW, "ibdev attr: GUID needs 20 bytes");
	CHECK(!verbs_read_uverbs_u64(&fake_device, "abi_version", &v) &&
	      v == 6, "uverbs attr as u64");
	CHECK(verbs_read_ibdev_u64(&fake_device, "fw_ver", &v) == -EINVAL,
	      "ibdev attr: \"1.2.3\" is no u64");
	n = verbs_read_port_attr(&fake_device, 1, "link_layer", buf,
				 sizeof(buf));
	CHECK(n == 8 && !strcmp(buf, "Ethernet"), "port attr");
	n = verbs_read_gid_ndev(&fake_device, 1, 0, buf, sizeof(buf));
	CHECK(n == 2 && !strcmp(buf, "lo"), "GID netdev");
	n = verbs_read_gid_type(&fake_device, 1, 0, buf, sizeof(buf));
	CHECK(n == 7 && !strcmp(buf, "RoCE v2"), "GID type");
	CHECK(verbs_read_gid_type(&fake_device, 1, 1, buf, sizeof(buf)) ==
	      -ENOENT, "GID type of a missing entry");

	CHECK(!verbs_parse_guid("0002:c903:0003:1234", &guid) &&
	      guid == htobe64(0x0002c90300031234ULL), "parse GUID");
	CHECK(verbs_parse_guid("0002:c903:0003", &guid) == -EINVAL &&
	      verbs_parse_guid("0002:c903:0003:1234x", &guid) == -EINVAL &&
	      verbs_parse_guid("", &guid) == -EINVAL,
	      "parse GUID: malformed ones refused");
}

/* ---- ibv_init_ah_from_wc ---- */

/* GIDs as 32 hex digits. */
#define LL_1	"fe800000000000000000c6fffe120001"
#define LL_2	"fe800000000000000000c6fffe120002"
#define V4_1	"00000000000000000000ffffc6120001"	/* 198.18.0.1 */
#define V4_2	"00000000000000000000ffffc6120002"	/* 198.18.0.2 */
#define IB_1	"fe80000000000000000200c900001234"
#define IB_2	"fe80000000000000000200c900005678"

static void make_grh(struct ibv_grh *grh, const char *sgid,
		     const char *dgid, uint8_t tclass, uint32_t flow,
		     uint8_t next_hdr)
{
	memset(grh, 0, sizeof(*grh));
	grh->version_tclass_flow = htobe32(6u << 28 | (uint32_t)tclass << 20 |
					   flow);
	grh->paylen = htobe16(64);
	grh->next_hdr = next_hdr;
	grh->hop_limit = 64;
	gid_from_hex(&grh->sgid, sgid);
	gid_from_hex(&grh->dgid, dgid);
}

static uint16_t csum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* RoCE v2 over IPv4: 20 unused bytes, then the IPv4 header. */
static void make_ipv4(struct ibv_grh *grh, uint32_t saddr, uint32_t daddr,
		      uint8_t tos, bool good_csum)
{
	struct iphdr ip = {
		.version = 4,
		.ihl = 5,
		.tos = tos,
		.tot_len = htons(100),
		.ttl = 61,
		.protocol = IPPROTO_UDP,
		.saddr = htonl(saddr),
		.daddr = htonl(daddr),
	};

	ip.check = htons(csum(&ip, sizeof(ip)));
	if (!good_csum)
		ip.check ^= 1;
	memset(grh, 0, sizeof(*grh));
	memcpy((uint8_t *)grh + 20, &ip, sizeof(ip));
}

static bool gid_is(const union ibv_gid *gid, const char *hex16)
{
	union ibv_gid want;

	gid_from_hex(&want, hex16);
	return !memcmp(gid, &want, sizeof(want));
}

static void roce_table(void)
{
	reset_device(IBV_LINK_LAYER_ETHERNET);
	set_gid(0, LL_1, IBV_GID_TYPE_ROCE_V1, 1);
	set_gid(1, LL_1, IBV_GID_TYPE_ROCE_V2, 1);
	/* 2 is an empty slot */
	set_gid(3, V4_1, IBV_GID_TYPE_ROCE_V1, 1);
	set_gid(4, V4_1, IBV_GID_TYPE_ROCE_V2, 1);
}

static void test_ah_ib(void)
{
	struct ibv_ah_attr ah;
	struct ibv_grh grh;
	struct ibv_wc wc = {
		.slid = 0x1234, .sl = 5, .dlid_path_bits = 3,
		.src_qp = 77,
	};
	int rc;

	reset_device(IBV_LINK_LAYER_INFINIBAND);
	set_gid(0, "fe800000000000000000000000000000", IBV_GID_TYPE_IB, 0);
	set_gid(5, IB_1, IBV_GID_TYPE_IB, 0);

	memset(&ah, 0xee, sizeof(ah));
	rc = ibv_init_ah_from_wc(ctx, 1, &wc, NULL, &ah);
	CHECK(!rc && ah.dlid == 0x1234 && ah.sl == 5 && ah.src_path_bits == 3 &&
	      ah.port_num == 1 && !ah.is_global && ah.static_rate == 0 &&
	      ah.grh.hop_limit == 0,
	      "IB without GRH: LID path back, attributes cleared");

	wc.wc_flags = IBV_WC_GRH;
	make_grh(&grh, IB_2, IB_1, 0x2a, 0x12345, 0x1b);
	rc = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &ah);
	CHECK(!rc && ah.is_global && gid_is(&ah.grh.dgid, IB_2) &&
	      ah.grh.sgid_index == 5 && ah.grh.flow_label == 0x12345 &&
	      ah.grh.traffic_class == 0x2a && ah.grh.hop_limit == 0xff &&
	      ah.dlid == 0x1234,
	      "IB with GRH: GIDs swapped, class and flow kept, sgid index 5");

	make_grh(&grh, IB_2, IB_2, 0, 0, 0x1b);
	errno = 0;
	rc = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &ah);
	CHECK(rc == -1 && errno == EINVAL,
	      "IB: packet not sent to one of our GIDs, EINVAL as upstream");

	rc = ibv_init_ah_from_wc(ctx, 1, &wc, NULL, &ah);
	CHECK(rc == -1 && errno == EINVAL, "GRH flag without GRH, EINVAL");
	rc = ibv_init_ah_from_wc(ctx, 1, NULL, &grh, &ah);
	CHECK(rc == -1 && errno == EINVAL, "no work completion, EINVAL");
	rc = ibv_init_ah_from_wc(ctx, 2, &wc, &grh, &ah);
	CHECK(rc == -1 && errno == EINVAL, "bad port, EINVAL");
}

static void test_ah_roce(void)
{
	struct ibv_wc wc = { .wc_flags = IBV_WC_GRH, .sl = 3 };
	struct ibv_ah_attr ah;
	struct ibv_grh grh;
	int rc;

	roce_table();
	make_ipv4(&grh, 0xc6120002, 0xc6120001, 0x68, true);
	memset(&ah, 0xee, sizeof(ah));
	rc = ibv_init_ah_from_wc(ctx, 1, &(struct ibv_wc){ .sl = 2 }, &grh,
				 &ah);
	CHECK(!rc && !ah.is_global && ah.sl == 2,
	      "RoCE without the GRH flag: no GRH in the AH, as upstream");

	rc = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &ah);
	CHECK(!rc && ah.is_global && gid_is(&ah.grh.dgid, V4_2) &&
	      ah.grh.sgid_index == 4 && ah.grh.traffic_class == 0x68 &&
	      ah.grh.flow_label == 0 && ah.grh.hop_limit == 61 &&
	      ah.sl == 3 && ah.dlid == 0,
	      "RoCE v2 IPv4: addresses and TTL from the IPv4 header, v2 GID 4");

	/* As upstream: the version fields decide, not the checksum. */
	make_ipv4(&grh, 0xc6120002, 0xc6120001, 0x68, false);
	rc = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &ah);
	CHECK(!rc && ah.grh.sgid_index == 4 && gid_is(&ah.grh.dgid, V4_2),
	      "RoCE v2 IPv4: taken even with a bad header checksum");

	/*
	 * An IPv6 header with 0x45 where an IPv4 header would start: a
	 * source address ::ffff:69.1.2.3.  No valid IPv4 checksum there, so
	 * it stays IPv6 (RoCE v1 here, next header BTH).
	 */
	set_gid(5, "00000000000000000000ffff0a000001", IBV_GID_TYPE_ROCE_V1,
		1);
	make_grh(&grh, "00000000000000000000ffff45010203",
		 "00000000000000000000ffff0a000001", 0, 0, 0x1b);
	rc = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &ah);
	CHECK(!rc && ah.grh.sgid_index == 5 &&
	      gid_is(&ah.grh.dgid, "00000000000000000000ffff45010203"),
	      "RoCE: IPv6 header that looks like IPv4 at byte 20 stays IPv6");
	gid_used[5] = false;

	make_grh(&grh, LL_2, LL_1, 0x10, 0xabcde, IPPROTO_UDP);
	rc = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &ah);
	CHECK(!rc && gid_is(&ah.grh.dgid, LL_2) && ah.grh.sgid_index == 1 &&
	      ah.grh.traffic_class == 0x10 && ah.grh.flow_label == 0xabcde &&
	      ah.grh.hop_limit == 64,
	      "RoCE v2 IPv6 (next header UDP): v2 GID 1, hop limit kept");

	make_grh(&grh, LL_2, LL_1, 0, 7, 0x1b);
	rc = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &ah);
	CHECK(!rc && gid_is(&ah.grh.dgid, LL_2) && ah.grh.sgid_index == 0 &&
	      ah.grh.flow_label == 7,
	      "RoCE v1 (next header BTH): v1 GID 0");

	/* Only a v1 entry for the address: a v2 packet has no match. */
	gid_used[4] = false;
	make_ipv4(&grh, 0xc6120002, 0xc6120001, 0, true);
	errno = 0;
	rc = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &ah);
	CHECK(rc == -1 && errno == EINVAL,
	      "RoCE v2 IPv4: a v1 GID of the same address does not do");

	/* ibv_create_ah_from_wc hands the same attributes on. */
	roce_table();
	fake_pd.context = ctx;
	create_ah_calls = 0;
	make_ipv4(&grh, 0xc6120002, 0xc6120001, 0, true);
	CHECK(ibv_create_ah_from_wc(&fake_pd, &wc, &grh, 1) ==
	      &fake_ah && create_ah_calls == 1 &&
	      create_ah_attr.grh.sgid_index == 4 &&
	      gid_is(&create_ah_attr.grh.dgid, V4_2),
	      "ibv_create_ah_from_wc: ibv_create_ah with those attributes");
	gid_used[4] = false;
	gid_used[3] = false;
	CHECK(!ibv_create_ah_from_wc(&fake_pd, &wc, &grh, 1) &&
	      create_ah_calls == 1 && errno == EINVAL,
	      "ibv_create_ah_from_wc: no AH when the path cannot be built");
	CHECK(!ibv_create_ah_from_wc(NULL, &wc, &grh, 1) && errno == EINVAL,
	      "ibv_create_ah_from_wc: no PD, EINVAL");
}

/* ---- ibv_resolve_eth_l2_from_gid, the cases without a neighbour ---- */

static int resolve(const char *dgid, uint8_t mac[6], uint16_t *vid)
{
	struct ibv_ah_attr ah = { .is_global = 1, .port_num = 1 };

	ah.grh.sgid_index = 4;
	gid_from_hex(&ah.grh.dgid, dgid);
	memset(mac, 0xee, 6);
	*vid = 0x1234;
	return ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, vid);
}

static bool mac_is(const uint8_t *mac, const char *want)
{
	char got[18];

	snprintf(got, sizeof(got), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0],
		 mac[1], mac[2], mac[3], mac[4], mac[5]);
	return !strcmp(got, want);
}

static void test_resolve_l2(void)
{
	struct ibv_ah_attr ah = { .port_num = 1 };
	uint8_t mac[6];
	uint16_t vid;
	int rc;

	/* The sgid's net device is lo (index 1): no VLAN, MAC all zero. */
	roce_table();
	rc = resolve("ff0e0000000000000000000012345678", mac, &vid);
	CHECK(!rc && mac_is(mac, "33:33:12:34:56:78") && vid == 0xffff,
	      "IPv6 multicast GID: 33:33 MAC, no VLAN (0xffff)");
	memset(mac, 0xee, sizeof(mac));
	ah.is_global = 1;
	ah.grh.sgid_index = 4;
	gid_from_hex(&ah.grh.dgid, "ff0e0000000000000000000012345678");
	rc = ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, NULL);
	CHECK(!rc && mac_is(mac, "33:33:12:34:56:78"),
	      "no vid wanted (NULL): the MAC alone, as upstream");
	rc = resolve("00000000000000000000ffffef810203", mac, &vid);
	CHECK(!rc && mac_is(mac, "01:00:5e:01:02:03"),
	      "IPv4 multicast GID: 01:00:5e MAC of the low 23 bits");
	rc = resolve("fe80000000000000021122fffe334455", mac, &vid);
	CHECK(!rc && mac_is(mac, "00:11:22:33:44:55"),
	      "EUI-64 link-local GID: its MAC, U/L bit restored");
	rc = resolve(V4_1, mac, &vid);
	CHECK(!rc && mac_is(mac, "00:00:00:00:00:00"),
	      "destination is the source GID: the device's own MAC");

	/* No ifindex from the kernel: the name from sysfs. */
	gids[4].ndev_ifindex = 0;
	rc = resolve("ff0e0000000000000000000012345678", mac, &vid);
	CHECK(!rc && mac_is(mac, "33:33:12:34:56:78"),
	      "net device found through sysfs gid_attrs/ndevs");
	ah.is_global = 1;
	ah.grh.sgid_index = 3;	/* no ndevs/3 in the fake sysfs */
	gids[3].ndev_ifindex = 0;
	errno = 0;
	rc = ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, &vid);
	CHECK(rc == -ENODEV && errno == ENODEV,
	      "GID without a net device: -ENODEV");

	ah.is_global = 0;
	rc = ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, &vid);
	CHECK(rc == -EINVAL && errno == EINVAL, "no GRH: -EINVAL");
	ah.is_global = 1;
	ah.grh.sgid_index = 2;	/* empty slot */
	rc = ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, &vid);
	CHECK(rc == -EINVAL, "empty source GID slot: -EINVAL, as upstream");
	CHECK(ibv_resolve_eth_l2_from_gid(ctx, NULL, mac, &vid) == -EINVAL,
	      "no attributes: -EINVAL");
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	/* Before anything reads the root: it is read once. */
	setenv("SYSFS_PATH", tmpdir, 1);
	stub_own_context(&fake_vctx);

	test_sysfs_helpers();
	test_ah_ib();
	test_ah_roce();
	test_resolve_l2();

	cleanup();
	return tap_done();
}
