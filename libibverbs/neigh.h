/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCE layer-2 resolution (neigh.c), for ibv_resolve_eth_l2_from_gid().
 */
#ifndef IBV_NEIGH_H
#define IBV_NEIGH_H

#include <stdint.h>

#include <infiniband/verbs.h>

#ifndef IBV_HIDDEN
#define IBV_HIDDEN __attribute__((visibility("hidden")))
#endif

/*
 * The Ethernet address of @dgid as seen from @sgid on the net device
 * @ifindex, and that device's VLAN ID (0xffff when it is no VLAN device).
 * Returns 0, or a negative errno: -EHOSTUNREACH when the neighbour did not
 * answer in time, -ENETUNREACH when there is no route, -EADDRNOTAVAIL when
 * the device has no MAC of its own to talk to itself.
 */
int verbs_resolve_l2(int ifindex, const union ibv_gid *sgid,
		     const union ibv_gid *dgid, uint8_t mac[ETHERNET_LL_SIZE],
		     uint16_t *vid) IBV_HIDDEN;

#endif /* IBV_NEIGH_H */
