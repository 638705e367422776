/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Asking the kernel whether it copies DMA-pinned pages into a forked child:
 * one RDMA netlink RDMA_NLDEV_CMD_SYS_GET request, whose answer carries
 * RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK (u8) since Linux 5.13.
 */
#ifndef IBV_FORK_NETLINK_H
#define IBV_FORK_NETLINK_H

#include <stddef.h>

#include "netlink.h"

#ifndef IBV_HIDDEN
#define IBV_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Upper bound on the exchange, so a silent sandbox cannot hang us. */
#define FORK_NL_TIMEOUT_MS VERBS_NL_TIMEOUT_MS

/*
 * Send the request and wait for the answer.  Return 1 when the kernel says
 * it copies on fork, 0 when it says it does not or says nothing about it,
 * and a negative errno when the socket or the request failed.  Not cached:
 * callers ask once.
 */
int fork_nl_query_copy_on_fork(void) IBV_HIDDEN;

/*
 * Build the SYS_GET request into buf (at least 16 bytes, 4-byte aligned).
 * Return its length, or 0 if buf is too small.
 */
size_t fork_nl_build_sys_get(void *buf, size_t size, unsigned int seq)
	IBV_HIDDEN;

/*
 * Parse one received datagram, buf 4-byte aligned.  Messages with another
 * sequence number are skipped.  Return 1 when the SYS_GET reply has a
 * non-zero COPY_ON_FORK, 0 when the reply lacks it or has 0 (also for a
 * bare ACK or NLMSG_DONE: the kernel answered without saying), the
 * kernel's negative errno for an NLMSG_ERROR, -EBADMSG for anything
 * malformed or truncated, and -EAGAIN when buf holds nothing for us yet.
 */
int fork_nl_parse_sys_reply(const void *buf, size_t len, unsigned int seq)
	IBV_HIDDEN;

#endif /* IBV_FORK_NETLINK_H */
