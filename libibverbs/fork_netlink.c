/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel copy-on-fork detection over RDMA netlink.
 *
 * One RDMA_NLDEV_CMD_SYS_GET (what iproute2's `rdma system show` sends)
 * through the netlink exchange of netlink.c, and a parser of its answer
 * that walks the messages itself: the first call of a process pays for
 * every instruction (bench/first_call.c).
 *
 * Any failure (no NETLINK_RDMA in this kernel or sandbox, no answer, an
 * error answer, garbage) means "not known to copy", and the caller falls
 * back to the legacy MADV_DONTFORK tracking: that is always safe, only
 * slower.  Every wait is bounded by FORK_NL_TIMEOUT_MS, so a sandbox that
 * swallows the request cannot hang the first verb call.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
/*
 * RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK came with Linux commit 6cc9e215eb27
 * ("RDMA/nldev: Add copy-on-fork attribute to get sys command", 5.13) in
 * include/uapi/rdma/rdma_netlink.h; the shim supplies it for older
 * linux-libc-dev.
 */
#include "rdma_shim.h"

#include "fork_netlink.h"
#include "netlink.h"

#define FORK_NL_SYS_GET RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET)

size_t fork_nl_build_sys_get(void *buf, size_t size, unsigned int seq)
{
	struct nlmsghdr *nlh;

	if (size < MNL_NLMSG_HDRLEN)
		return 0;
	/* The ACK makes an old kernel answer even if it has no reply. */
	nlh = verbs_nl_request(buf, MNL_NLMSG_HDRLEN, FORK_NL_SYS_GET,
			       NLM_F_ACK);
	nlh->nlmsg_seq = seq;
	return nlh->nlmsg_len;
}

static int parse_error(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err))
		return -EBADMSG;
	/* A plain ACK: the kernel took the request but said nothing. */
	if (!err->error)
		return 0;
	if (err->error > 0 || err->error < -4095)
		return -EBADMSG;
	return err->error;
}

static int parse_sys_attrs(const struct nlmsghdr *nlh)
{
	const struct nlattr *attr = mnl_nlmsg_get_payload(nlh);
	int remain = (int)mnl_nlmsg_get_payload_len(nlh);
	const uint16_t cof = RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK;
	int copies = 0;

	/* RDMA netlink has no family header: attributes follow nlmsghdr. */
	while (remain > 0) {
		if (!mnl_attr_ok(attr, remain))
			return -EBADMSG;
		if (mnl_attr_get_type(attr) == cof) {
			if (mnl_attr_get_payload_len(attr) != sizeof(uint8_t))
				return -EBADMSG;
			copies = mnl_attr_get_u8(attr) ? 1 : 0;
		}
		remain -= MNL_ALIGN(mnl_attr_get_len(attr));
		attr = mnl_attr_next(attr);
	}
	return copies;
}

static int parse_msg(const struct nlmsghdr *nlh, unsigned int seq)
{
	if (nlh->nlmsg_seq != seq)
		return -EAGAIN;

	switch (nlh->nlmsg_type) {
	case NLMSG_NOOP:
		return -EAGAIN;
	case NLMSG_ERROR:
		return parse_error(nlh);
	case NLMSG_DONE:
		return 0;
	case FORK_NL_SYS_GET:
		return parse_sys_attrs(nlh);
	default:
		return -EBADMSG;
	}
}

/*
 * mnl_nlmsg_ok() compares (int)nlmsg_len with what is left, so a length
 * of 2 GiB or more passes as negative and mnl_nlmsg_next() then jumps
 * far outside the buffer.  Compare unsigned.
 */
static bool nlmsg_fits(const struct nlmsghdr *nlh, int remain)
{
	return remain >= (int)sizeof(*nlh) &&
	       nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (unsigned int)remain;
}

int fork_nl_parse_sys_reply(const void *buf, size_t len, unsigned int seq)
{
	const struct nlmsghdr *nlh = buf;
	int remain, ret;

	if (len > INT_MAX)
		return -EBADMSG;
	remain = (int)len;
	while (remain > 0) {
		if (!nlmsg_fits(nlh, remain))
			return -EBADMSG;
		ret = parse_msg(nlh, seq);
		if (ret != -EAGAIN)
			return ret;
		nlh = mnl_nlmsg_next(nlh, &remain);
	}
	return -EAGAIN;
}

/* The exchange's step: 1 while nothing for us has come yet. */
static int on_reply(const void *buf, size_t len, uint32_t seq,
		    uint32_t portid, void *data)
{
	int *copies = data;
	int ret = fork_nl_parse_sys_reply(buf, len, seq);

	(void)portid;	/* only the kernel is listened to: no port check */
	if (ret == -EAGAIN)
		return 1;
	*copies = ret;
	return ret < 0 ? ret : 0;
}

int fork_nl_query_copy_on_fork(void)
{
	uint32_t req[NLMSG_HDRLEN / sizeof(uint32_t)];
	struct verbs_nl nl;
	int copies = 0, ret;

	ret = verbs_nl_open(&nl, NETLINK_RDMA, 0, 0);
	if (ret)
		return ret;
	fork_nl_build_sys_get(req, sizeof(req), 0);
	ret = verbs_nl_exchange(&nl, (struct nlmsghdr *)req, on_reply,
				&copies);
	verbs_nl_close(&nl);
	return ret ? ret : copies;
}
