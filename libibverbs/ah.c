/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Address handles from received packets, and RoCE layer-2 resolution.
 *
 * ibv_init_ah_from_wc() builds the path back to the sender of a received
 * UD packet.  On RoCE the 40 bytes in front of the payload hold either a
 * GRH-shaped IPv6 header (RoCE v1, or RoCE v2 over IPv6) or, for RoCE v2
 * over IPv4, 20 unused bytes followed by the IPv4 header.
 *
 * ibv_resolve_eth_l2_from_gid() finds the Ethernet address (and VLAN) for
 * a RoCE destination: the source GID's net device here, the address behind
 * the destination in neigh.c.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdbool.h>
#include <string.h>

#include "fork_child.h"
#include "ibverbs.h"
#include "neigh.h"
#include "sysfs.h"

/* Where RoCE v2 puts the IPv4 header inside the 40-byte GRH slot. */
#define GRH_IPV4_OFFSET 20

/* What a received header says about the path back. */
struct rx_path {
	union ibv_gid remote;	/* the sender: our destination */
	union ibv_gid local;	/* where it was sent: our source GID */
	uint32_t flow_label;
	uint8_t traffic_class;
	uint8_t hop_limit;
	/* The GID type the local GID must have; -1 for any. */
	int gid_type;
};

static void ipv4_to_gid(uint32_t be_addr, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &be_addr, 4);
}

/* RFC 1071 checksum over @len bytes; 0 when a header's sum is right. */
static uint16_t ip_checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/*
 * Whether the GRH slot holds a RoCE v2 IPv4 header (in its second half)
 * rather than an IPv6 header / GRH.  The version fields tell, except when
 * an IPv6 header happens to have 0x45 where an IPv4 header would start (in
 * its source address): then the IPv4 header checksum decides.
 */
static bool grh_holds_ipv4(const struct ibv_grh *grh)
{
	const uint8_t *raw = (const uint8_t *)grh;
	bool v6 = raw[0] >> 4 == 6;
	bool v4 = raw[GRH_IPV4_OFFSET] == 0x45;	/* version 4, 5 words */

	if (v4 && v6)
		return ip_checksum(raw + GRH_IPV4_OFFSET,
				   sizeof(struct iphdr)) == 0;
	return v4;
}

static void parse_ipv4(const struct ibv_grh *grh, struct rx_path *path)
{
	struct iphdr ip;

	memcpy(&ip, (const uint8_t *)grh + GRH_IPV4_OFFSET, sizeof(ip));
	ipv4_to_gid(ip.saddr, &path->remote);
	ipv4_to_gid(ip.daddr, &path->local);
	path->flow_label = 0;
	path->traffic_class = ip.tos;
	path->hop_limit = ip.ttl;
	path->gid_type = IBV_GID_TYPE_ROCE_V2;
}

static void parse_grh(const struct ibv_grh *grh, bool roce,
		      struct rx_path *path)
{
	uint32_t vtf = be32toh(grh->version_tclass_flow);

	path->remote = grh->sgid;
	path->local = grh->dgid;
	path->flow_label = vtf & 0xfffff;
	path->traffic_class = (vtf >> 20) & 0xff;
	/*
	 * As upstream: on RoCE the reply gets the hop limit the request
	 * arrived with; on IB the largest, to cross any number of routers.
	 */
	path->hop_limit = roce ? grh->hop_limit : 0xff;
	if (!roce)
		path->gid_type = -1;
	else if (grh->next_hdr == IPPROTO_UDP)	/* IPv6, UDP port 4791 */
		path->gid_type = IBV_GID_TYPE_ROCE_V2;
	else					/* next header: IB BTH */
		path->gid_type = IBV_GID_TYPE_ROCE_V1;
}

/* The index of @gid of type @type (-1: any) in the port's GID table. */
static int find_gid_index(struct ibv_context *ctx, uint8_t port,
			  int tbl_len, const union ibv_gid *gid, int type)
{
	struct ibv_gid_entry entry;

	for (int i = 0; i < tbl_len; i++) {
		int err = ibv_query_gid_ex(ctx, port, i, &entry, 0);

		if (err == ENODATA)
			continue;
		if (err)
			return -err;
		if (memcmp(&entry.gid, gid, sizeof(*gid)))
			continue;
		if (type >= 0 && entry.gid_type != (uint32_t)type)
			continue;
		return i;
	}
	/* As upstream: a packet not sent to one of our GIDs is EINVAL. */
	return -EINVAL;
}

IBV_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context,
				   uint8_t port_num, struct ibv_wc *wc,
				   struct ibv_grh *grh,
				   struct ibv_ah_attr *ah_attr)
{
	struct ibv_port_attr port_attr;
	struct rx_path path;
	bool roce;
	int err, index;

	err = verbs_check_ctx(context);
	if (!err && (!wc || !ah_attr))
		err = EINVAL;
	if (!err && (wc->wc_flags & IBV_WC_GRH) && !grh)
		err = EINVAL;
	if (!err)
		err = ibv_query_port(context, port_num, &port_attr);
	if (err) {
		errno = err;
		return -1;
	}

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;

	roce = port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (roce && grh_holds_ipv4(grh))
		parse_ipv4(grh, &path);
	else
		parse_grh(grh, roce, &path);

	index = find_gid_index(context, port_num, port_attr.gid_tbl_len,
			       &path.local, path.gid_type);
	if (index < 0) {
		errno = -index;
		return -1;
	}

	ah_attr->is_global = 1;
	ah_attr->grh.dgid = path.remote;
	ah_attr->grh.sgid_index = index;
	ah_attr->grh.flow_label = path.flow_label;
	ah_attr->grh.traffic_class = path.traffic_class;
	ah_attr->grh.hop_limit = path.hop_limit;
	return 0;
}

IBV_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
						struct ibv_wc *wc,
						struct ibv_grh *grh,
						uint8_t port_num)
{
	struct ibv_context *ctx;
	struct ibv_ah_attr attr;

	if (!pd || !pd->context)
		return verbs_null_errno(EINVAL);
	/*
	 * A fork child's AH on an inherited PD: the path back is read from
	 * the child's own context for the device, and the AH is made on the
	 * inherited PD (fork_child.c).
	 */
	ctx = pd->context;
	if (verbs_inherited(ctx)) {
		ctx = verbs_child_context(ctx);
		if (!ctx)
			return NULL;
	}
	if (ibv_init_ah_from_wc(ctx, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}

/* The net device of a GID: the kernel's ifindex, or sysfs by name. */
static int gid_netdev(struct ibv_context *ctx, uint8_t port,
		      unsigned int index, union ibv_gid *sgid)
{
	struct ibv_gid_entry entry;
	char name[IF_NAMESIZE + 1];
	unsigned int ifindex;
	int err;

	/* Whatever the reason, an unreadable source GID is a bad argument. */
	err = ibv_query_gid_ex(ctx, port, index, &entry, 0);
	if (err)
		return -EINVAL;
	*sgid = entry.gid;
	if (entry.ndev_ifindex)
		return entry.ndev_ifindex;

	if (verbs_read_gid_ndev(ctx->device, port, index, name,
				sizeof(name)) <= 0)
		return -ENODEV;	/* an IB GID: there is no Ethernet */
	ifindex = if_nametoindex(name);
	return ifindex ? (int)ifindex : -ENODEV;
}

/*
 * Returns 0 with the destination MAC in @eth_mac and the VLAN ID of the
 * source GID's net device in @vid (0xffff when it is no VLAN device; @vid
 * may be NULL, as upstream allows: Debian's librxe passes NULL when it
 * builds an address vector itself, on kernels before 5.11), or
 * a negative errno value, as upstream does (errno is set to the positive
 * one): -EINVAL without a GRH or when the source GID cannot be read,
 * -ENODEV for a GID with no net device (not RoCE), -EHOSTUNREACH when the
 * neighbour did not answer in time.
 *
 * Unlike upstream, a link-local destination whose interface identifier is
 * no EUI-64 is looked up like any other instead of having a MAC read out of
 * it, so that privacy and manually set link-local addresses work.
 */
IBV_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
					   struct ibv_ah_attr *attr,
					   uint8_t eth_mac[ETHERNET_LL_SIZE],
					   uint16_t *vid)
{
	const union ibv_gid *dgid;
	union ibv_gid sgid;
	uint16_t vlan;
	int ifindex, rc;

	rc = verbs_check_ctx(context);
	if (rc)
		goto fail;
	if (!attr || !eth_mac || !attr->is_global) {
		rc = EINVAL;
		goto fail;
	}
	dgid = &attr->grh.dgid;

	ifindex = gid_netdev(context, attr->port_num, attr->grh.sgid_index,
			     &sgid);
	if (ifindex < 0) {
		rc = -ifindex;
		goto fail;
	}

	rc = -verbs_resolve_l2(ifindex, &sgid, dgid, eth_mac,
			       vid ? vid : &vlan);
	if (rc)
		goto fail;
	return 0;
fail:
	errno = rc;
	return -rc;
}
