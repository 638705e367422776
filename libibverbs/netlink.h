/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One request to the kernel over netlink and its answers (netlink.c): the
 * exchange shared by device discovery (RDMA netlink), fork status (RDMA
 * netlink) and RoCE neighbour resolution (rtnetlink).
 */
#ifndef IBV_NETLINK_H
#define IBV_NETLINK_H

#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#ifndef IBV_HIDDEN
#define IBV_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Upper bound on one exchange, so a silent kernel or sandbox cannot hang us. */
#define VERBS_NL_TIMEOUT_MS 1000

/* Room for one datagram of answers, dump parts included. */
#define VERBS_NL_BUF_SIZE 8192

struct mnl_socket;

struct verbs_nl {
	struct mnl_socket *sk;
	uint32_t portid;	/* ours with VERBS_NL_PORTID, else 0 */
	uint32_t seq;		/* of the last request sent */
};

/* Learn our port (one more syscall) so that answers are checked for it. */
#define VERBS_NL_PORTID 1u

/*
 * A close-on-exec, non-blocking socket of netlink @protocol, bound to the
 * multicast @groups (0 for none).  Returns 0 or a negative errno.
 */
int verbs_nl_open(struct verbs_nl *nl, int protocol, unsigned int groups,
		  unsigned int flags) IBV_HIDDEN;
void verbs_nl_close(struct verbs_nl *nl) IBV_HIDDEN;
int verbs_nl_fd(const struct verbs_nl *nl) IBV_HIDDEN;

/*
 * Start a request of @type in @buf (@size bytes, 4-byte aligned, at least
 * a header): zeroed first, because libmnl copies an attribute's payload
 * but leaves its alignment padding as it was, and the kernel must not get
 * unset bytes.  The sequence number is set when it is sent.
 */
struct nlmsghdr *verbs_nl_request(void *buf, size_t size, uint16_t type,
				  uint16_t flags) IBV_HIDDEN;

/*
 * What to do with one received datagram (4-byte aligned): return 1 when
 * more answers are to come, 0 when the exchange is done, a negative errno
 * to end it with that error.
 */
typedef int (*verbs_nl_parse_fn)(const void *buf, size_t len, uint32_t seq,
				 uint32_t portid, void *data);

/*
 * Send @req with the next sequence number and hand every datagram the
 * kernel sends back to @parse until it is done.  Only the kernel (port 0)
 * is listened to; a datagram cut short is -ENOSPC, a kernel silent for
 * VERBS_NL_TIMEOUT_MS -ETIMEDOUT, EINTR is retried.  Returns @parse's 0,
 * or a negative errno.
 */
int verbs_nl_exchange(struct verbs_nl *nl, struct nlmsghdr *req,
		      verbs_nl_parse_fn parse, void *data) IBV_HIDDEN;

/* libmnl's mnl_cb_t: one message of an answer. */
typedef int (*verbs_nl_msg_fn)(const struct nlmsghdr *nlh, void *data);

/*
 * A parse step for answers walked with libmnl callbacks: check that every
 * message lies inside the datagram, then run @cb on each message of
 * sequence @seq (and to port @portid unless 0).  Returns 1 (more to come),
 * 0 (done: NLMSG_DONE, an ACK, or @cb said so) or a negative errno: the
 * kernel's for an NLMSG_ERROR, -EBADMSG for anything malformed.
 */
int verbs_nl_run(const void *buf, size_t len, uint32_t seq, uint32_t portid,
		 verbs_nl_msg_fn cb, void *data) IBV_HIDDEN;

/* verbs_nl_exchange() whose answers are walked by verbs_nl_run(). */
int verbs_nl_exchange_msgs(struct verbs_nl *nl, struct nlmsghdr *req,
			   verbs_nl_msg_fn cb, void *data) IBV_HIDDEN;

#endif /* IBV_NETLINK_H */
