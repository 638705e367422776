/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCE layer-2 resolution: the Ethernet address (and VLAN) behind a RoCE
 * destination, for ibv_resolve_eth_l2_from_gid() (ah.c).
 *
 * Multicast and EUI-64 link-local GIDs carry their MAC; any other
 * destination is taken from the kernel's neighbour table over rtnetlink,
 * after provoking resolution with a UDP datagram when the entry is missing.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include "neigh.h"
#include "netlink.h"

static bool gid_is_ipv4_mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

/*
 * How long to wait for the kernel to resolve a neighbour.  On a live link
 * it takes well under a millisecond; the bound matters only for a peer
 * that does not answer, whose AH cannot be built anyway.
 */
#define NEIGH_TIMEOUT_MS 2000

/* The value of *vid when the net device is no VLAN device. */
#define VID_NONE 0xffff

/* Discard service: the datagram that provokes resolution is harmless. */
#define TRIGGER_PORT 9

struct l3_addr {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];	/* 4 or 16 bytes used */
};

static size_t l3_len(const struct l3_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

static void gid_to_l3(const union ibv_gid *gid, struct l3_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (gid_is_ipv4_mapped(gid)) {
		a->family = AF_INET;
		memcpy(a->addr, &gid->raw[12], 4);
	} else {
		a->family = AF_INET6;
		memcpy(a->addr, gid->raw, 16);
	}
}

/* Multicast GIDs map to multicast MACs without asking anyone. */
static bool mcast_mac(const union ibv_gid *gid, uint8_t mac[ETHERNET_LL_SIZE])
{
	const uint8_t *r = gid->raw;

	if (gid_is_ipv4_mapped(gid) && (r[12] & 0xf0) == 0xe0) {
		/* RFC 1112: 01:00:5e and the low 23 bits of the group. */
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = r[13] & 0x7f;
		mac[4] = r[14];
		mac[5] = r[15];
		return true;
	}
	if (r[0] == 0xff) {
		/* RFC 2464: 33:33 and the low 32 bits of the group. */
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(&mac[2], &r[12], 4);
		return true;
	}
	return false;
}

/*
 * A link-local GID whose interface identifier is a modified EUI-64
 * (RFC 4291 appendix A) carries its MAC: undo the U/L bit flip and drop
 * the ff:fe in the middle.
 */
static bool eui64_mac(const union ibv_gid *gid, uint8_t mac[ETHERNET_LL_SIZE])
{
	static const uint8_t ll_prefix[8] = { 0xfe, 0x80 };
	const uint8_t *r = gid->raw;

	if (memcmp(r, ll_prefix, sizeof(ll_prefix)) ||
	    r[11] != 0xff || r[12] != 0xfe)
		return false;
	mac[0] = r[8] ^ 0x02;
	mac[1] = r[9];
	mac[2] = r[10];
	mac[3] = r[13];
	mac[4] = r[14];
	mac[5] = r[15];
	return true;
}

/*
 * Room for the largest request: the header, a struct rtmsg, two IPv6
 * addresses and an interface index, each attribute padded to 4 bytes.
 */
#define NEIGH_REQ_SIZE 128

struct link_info {
	uint16_t vid;
	uint8_t mac[ETHERNET_LL_SIZE];
	bool has_mac;
};

static int vlan_data_cb(const struct nlattr *attr, void *data)
{
	struct link_info *li = data;

	if (mnl_attr_get_type(attr) == IFLA_VLAN_ID &&
	    !mnl_attr_validate(attr, MNL_TYPE_U16))
		li->vid = mnl_attr_get_u16(attr) & 0xfff;
	return MNL_CB_OK;
}

static int linkinfo_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (type == IFLA_INFO_KIND || type == IFLA_INFO_DATA)
		tb[type] = attr;
	return MNL_CB_OK;
}

static void parse_linkinfo(const struct nlattr *linkinfo, struct link_info *li)
{
	const struct nlattr *tb[IFLA_INFO_MAX + 1] = {};

	mnl_attr_parse_nested(linkinfo, linkinfo_cb, tb);
	if (!tb[IFLA_INFO_KIND] || !tb[IFLA_INFO_DATA] ||
	    mnl_attr_validate(tb[IFLA_INFO_KIND], MNL_TYPE_STRING) ||
	    strcmp(mnl_attr_get_str(tb[IFLA_INFO_KIND]), "vlan"))
		return;
	mnl_attr_parse_nested(tb[IFLA_INFO_DATA], vlan_data_cb, li);
}

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	struct link_info *li = data;

	switch (mnl_attr_get_type(attr)) {
	case IFLA_ADDRESS:
		if (mnl_attr_get_payload_len(attr) == ETHERNET_LL_SIZE) {
			memcpy(li->mac, mnl_attr_get_payload(attr),
			       ETHERNET_LL_SIZE);
			li->has_mac = true;
		}
		break;
	case IFLA_LINKINFO:
		parse_linkinfo(attr, li);
		break;
	}
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr_cb,
			      data);
}

/* The MAC address and VLAN ID (VID_NONE if none) of a net device. */
static int query_link(struct verbs_nl *nl, int ifindex, struct link_info *li)
{
	char buf[NEIGH_REQ_SIZE] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;

	/* The ACK ends the exchange: a plain GET has no NLMSG_DONE. */
	nlh = verbs_nl_request(buf, sizeof(buf), RTM_GETLINK, NLM_F_ACK);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;

	memset(li, 0, sizeof(*li));
	li->vid = VID_NONE;
	return verbs_nl_exchange_msgs(nl, nlh, link_cb, li);
}

struct route_info {
	const struct l3_addr *dst;
	struct l3_addr gateway;
	bool has_gateway;
};

static int route_attr_cb(const struct nlattr *attr, void *data)
{
	struct route_info *ri = data;
	size_t len = l3_len(ri->dst);

	if (mnl_attr_get_type(attr) == RTA_GATEWAY &&
	    mnl_attr_get_payload_len(attr) == len) {
		ri->gateway.family = ri->dst->family;
		memcpy(ri->gateway.addr, mnl_attr_get_payload(attr), len);
		ri->has_gateway = true;
	}
	return MNL_CB_OK;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(struct rtmsg), route_attr_cb, data);
}

/*
 * The next hop towards @dst out of @ifindex: its gateway if the route has
 * one, else @dst itself.  The lookup is pinned to the GID's device and
 * source address, which is how the device itself will send.
 */
static int next_hop(struct verbs_nl *nl, int ifindex, const struct l3_addr *src,
		    const struct l3_addr *dst, struct l3_addr *hop)
{
	char buf[NEIGH_REQ_SIZE] __attribute__((aligned(4)));
	struct route_info ri = { .dst = dst };
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int rc;

	nlh = verbs_nl_request(buf, sizeof(buf), RTM_GETROUTE, NLM_F_ACK);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = dst->family;
	rtm->rtm_dst_len = l3_len(dst) * 8;
	mnl_attr_put(nlh, RTA_DST, l3_len(dst), dst->addr);
	if (src->family == dst->family) {
		rtm->rtm_src_len = l3_len(src) * 8;
		mnl_attr_put(nlh, RTA_SRC, l3_len(src), src->addr);
	}
	mnl_attr_put_u32(nlh, RTA_OIF, ifindex);

	*hop = *dst;
	rc = verbs_nl_exchange_msgs(nl, nlh, route_cb, &ri);
	if (rc)
		return rc == -ENETUNREACH || rc == -EHOSTUNREACH ? rc : 0;
	if (ri.has_gateway)
		*hop = ri.gateway;
	return 0;
}

/* Entry states with a usable link-layer address (the kernel's NUD_VALID). */
#define NEIGH_USABLE (NUD_PERMANENT | NUD_NOARP | NUD_REACHABLE | \
		      NUD_PROBE | NUD_STALE | NUD_DELAY)

struct neigh_query {
	int ifindex;
	const struct l3_addr *addr;
	uint8_t *mac;
	bool found;
};

struct neigh_attrs {
	const struct nlattr *dst;
	const struct nlattr *lladdr;
};

static int neigh_attr_cb(const struct nlattr *attr, void *data)
{
	struct neigh_attrs *na = data;

	if (mnl_attr_get_type(attr) == NDA_DST)
		na->dst = attr;
	else if (mnl_attr_get_type(attr) == NDA_LLADDR)
		na->lladdr = attr;
	return MNL_CB_OK;
}

static int neigh_cb(const struct nlmsghdr *nlh, void *data)
{
	struct neigh_query *q = data;
	const struct ndmsg *ndm = mnl_nlmsg_get_payload(nlh);
	struct neigh_attrs na = {};
	size_t len = l3_len(q->addr);

	if (nlh->nlmsg_type != RTM_NEWNEIGH || ndm->ndm_ifindex != q->ifindex ||
	    !(ndm->ndm_state & NEIGH_USABLE))
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*ndm), neigh_attr_cb, &na);
	if (!na.dst || !na.lladdr ||
	    mnl_attr_get_payload_len(na.dst) != len ||
	    memcmp(mnl_attr_get_payload(na.dst), q->addr->addr, len) ||
	    mnl_attr_get_payload_len(na.lladdr) != ETHERNET_LL_SIZE)
		return MNL_CB_OK;
	memcpy(q->mac, mnl_attr_get_payload(na.lladdr), ETHERNET_LL_SIZE);
	q->found = true;
	return MNL_CB_OK;
}

/* Look @addr up in the neighbour table of @ifindex; 1 if known. */
static int neigh_lookup(struct verbs_nl *nl, int ifindex,
			const struct l3_addr *addr,
			uint8_t mac[ETHERNET_LL_SIZE])
{
	char buf[NEIGH_REQ_SIZE] __attribute__((aligned(4)));
	struct neigh_query q = { ifindex, addr, mac, false };
	struct nlmsghdr *nlh;
	struct ndmsg *ndm;
	int rc;

	nlh = verbs_nl_request(buf, sizeof(buf), RTM_GETNEIGH, NLM_F_DUMP);
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = addr->family;
	ndm->ndm_ifindex = ifindex;

	rc = verbs_nl_exchange_msgs(nl, nlh, neigh_cb, &q);
	if (rc)
		return rc;
	return q.found;
}

static socklen_t fill_sockaddr(struct sockaddr_storage *ss,
			       const struct l3_addr *a, int ifindex,
			       uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		memcpy(&sin->sin_addr, a->addr, 4);
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		memcpy(&sin6->sin6_addr, a->addr, 16);
		if (IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr))
			sin6->sin6_scope_id = ifindex;
		return sizeof(*sin6);
	}
}

/* Keep the datagram on the GID's device, as far as we are allowed to. */
static void pin_to_device(int fd, int family, int ifindex)
{
	char name[IF_NAMESIZE];
	uint32_t be_index = htonl(ifindex);
	int index = ifindex;

	if (if_indextoname(ifindex, name) &&
	    !setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, name,
			strlen(name) + 1))
		return;
	/* Unprivileged fallback, for unconnected as well as connected use. */
	if (family == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_UNICAST_IF, &be_index,
			   sizeof(be_index));
	else
		setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_IF, &index,
			   sizeof(index));
}

/*
 * Make the kernel resolve @hop: send it an empty datagram from @src out of
 * @ifindex.  Errors do not matter, only the neighbour entry does.
 */
static void provoke_resolution(int ifindex, const struct l3_addr *src,
			       const struct l3_addr *hop)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	fd = socket(hop->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	pin_to_device(fd, hop->family, ifindex);
	if (src->family == hop->family) {
		len = fill_sockaddr(&ss, src, ifindex, 0);
		bind(fd, (struct sockaddr *)&ss, len);
	}
	len = fill_sockaddr(&ss, hop, ifindex, TRIGGER_PORT);
	if (!connect(fd, (struct sockaddr *)&ss, len))
		send(fd, "", 0, MSG_DONTWAIT);
	close(fd);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Drain pending neighbour notifications; we only need the wake-up. */
static void drain(struct verbs_nl *events)
{
	char buf[VERBS_NL_BUF_SIZE];

	while (recv(verbs_nl_fd(events), buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static int resolve_neigh(struct verbs_nl *nl, int ifindex,
			 const struct l3_addr *src, const struct l3_addr *hop,
			 uint8_t mac[ETHERNET_LL_SIZE])
{
	struct verbs_nl events;
	int64_t deadline;
	int rc;

	rc = neigh_lookup(nl, ifindex, hop, mac);
	if (rc)
		return rc < 0 ? rc : 0;

	/* Listen before provoking, so that no answer can be missed. */
	rc = verbs_nl_open(&events, NETLINK_ROUTE, RTMGRP_NEIGH, 0);
	if (rc)
		return rc;

	provoke_resolution(ifindex, src, hop);
	deadline = now_ms() + NEIGH_TIMEOUT_MS;
	for (;;) {
		struct pollfd pfd = {
			.fd = verbs_nl_fd(&events),
			.events = POLLIN,
		};
		int64_t left;

		rc = neigh_lookup(nl, ifindex, hop, mac);
		if (rc)
			break;
		left = deadline - now_ms();
		if (left <= 0) {
			rc = -EHOSTUNREACH;
			break;
		}
		if (poll(&pfd, 1, left) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		drain(&events);
	}
	verbs_nl_close(&events);
	return rc < 0 ? rc : 0;
}

/* MAC and VLAN of a unicast destination that needs the neighbour table. */
static int resolve_unicast(struct verbs_nl *nl, int ifindex,
			   const union ibv_gid *sgid, const union ibv_gid *dgid,
			   const struct link_info *li,
			   uint8_t mac[ETHERNET_LL_SIZE])
{
	struct l3_addr src, dst, hop;
	int rc;

	/* Talking to ourselves: the device's own address. */
	if (!memcmp(sgid, dgid, sizeof(*dgid))) {
		if (!li->has_mac)
			return -EADDRNOTAVAIL;
		memcpy(mac, li->mac, ETHERNET_LL_SIZE);
		return 0;
	}

	gid_to_l3(sgid, &src);
	gid_to_l3(dgid, &dst);
	rc = next_hop(nl, ifindex, &src, &dst, &hop);
	if (rc)
		return rc;
	return resolve_neigh(nl, ifindex, &src, &hop, mac);
}

/*
 * The VLAN ID of @ifindex in @vid (VID_NONE when it is no VLAN device)
 * and the destination's MAC in @mac: computed when the GID carries it,
 * else from the neighbour table.
 */
int verbs_resolve_l2(int ifindex, const union ibv_gid *sgid,
		     const union ibv_gid *dgid, uint8_t mac[ETHERNET_LL_SIZE],
		     uint16_t *vid)
{
	struct link_info li;
	struct verbs_nl nl;
	int rc;

	rc = verbs_nl_open(&nl, NETLINK_ROUTE, 0, VERBS_NL_PORTID);
	if (rc)
		return rc;
	rc = query_link(&nl, ifindex, &li);
	if (!rc && !mcast_mac(dgid, mac) && !eui64_mac(dgid, mac))
		rc = resolve_unicast(&nl, ifindex, sgid, dgid, &li, mac);
	verbs_nl_close(&nl);
	if (!rc)
		*vid = li.vid;
	return rc;
}
