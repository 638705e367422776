/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host test of copy-on-fork detection (libibverbs/fork_netlink.c compiled
 * in): the answer parser on crafted messages, the request, and the
 * transport's failure paths.  The host has no RDMA netlink, so the
 * transport is also pointed at NETLINK_ROUTE (a kernel that answers with
 * an error) and at a peer that never answers, through --wrap of
 * mnl_socket_open2() and mnl_socket_sendto().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "fork_netlink.h"
#include "tap.h"

#define SEQ 42
#define SYS_GET RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET)
#include "rdma_shim.h"

#define ATTR_COF RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK
/* uAPI values never change: catch a wrong shim or header. */
_Static_assert(ATTR_COF == 93, "RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK is 93");

struct mnl_socket *__real_mnl_socket_open2(int bus, int flags);
struct mnl_socket *__wrap_mnl_socket_open2(int bus, int flags);
ssize_t __real_mnl_socket_sendto(const struct mnl_socket *nl,
				 const void *req, size_t size);
ssize_t __wrap_mnl_socket_sendto(const struct mnl_socket *nl,
				 const void *req, size_t size);

static int opened_bus = -1, opened_flags, redirect_bus = -1;
static int swallow_requests;
static unsigned int sent;
static uint32_t sent_msg[64];
static size_t sent_len;

struct mnl_socket *__wrap_mnl_socket_open2(int bus, int flags)
{
	opened_bus = bus;
	opened_flags = flags;
	return __real_mnl_socket_open2(redirect_bus >= 0 ? redirect_bus : bus,
				       flags);
}

ssize_t __wrap_mnl_socket_sendto(const struct mnl_socket *nl,
				 const void *req, size_t size)
{
	sent++;
	sent_len = size < sizeof(sent_msg) ? size : sizeof(sent_msg);
	memcpy(sent_msg, req, sent_len);
	if (swallow_requests)
		return size;
	return __real_mnl_socket_sendto(nl, req, size);
}

/* ---- crafting messages ---- */

static uint32_t buf[1024];
static size_t used;

static struct nlmsghdr *add_msg(uint16_t type, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header((char *)buf + used);

	nlh->nlmsg_type = type;
	nlh->nlmsg_seq = seq;
	return nlh;
}

static void end_msg(struct nlmsghdr *nlh)
{
	used += MNL_ALIGN(nlh->nlmsg_len);
}

static void reset(void)
{
	memset(buf, 0, sizeof(buf));
	used = 0;
}

static int parse(void)
{
	return fork_nl_parse_sys_reply(buf, used, SEQ);
}

/* A SYS_GET reply with NETNS_MODE and, if cof >= 0, COPY_ON_FORK. */
static struct nlmsghdr *reply(int cof, uint32_t seq)
{
	struct nlmsghdr *nlh = add_msg(SYS_GET, seq);

	mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1);
	if (cof >= 0)
		mnl_attr_put_u8(nlh, ATTR_COF, (uint8_t)cof);
	return nlh;
}

static int parse_reply(int cof)
{
	reset();
	end_msg(reply(cof, SEQ));
	return parse();
}

static int parse_error_msg(int error, size_t payload)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *err;

	reset();
	nlh = add_msg(NLMSG_ERROR, SEQ);
	err = mnl_nlmsg_put_extra_header(nlh, payload);
	err->error = error;
	err->msg.nlmsg_type = SYS_GET;
	err->msg.nlmsg_seq = SEQ;
	end_msg(nlh);
	return parse();
}

static void test_replies(void)
{
	struct nlmsghdr *nlh;

	reset();
	CHECK(parse() == -EAGAIN, "empty buffer: nothing yet (-EAGAIN)");
	CHECK(parse_reply(-1) == 0, "attribute missing: not known (0)");
	CHECK(parse_reply(0) == 0, "COPY_ON_FORK = 0: does not copy (0)");
	CHECK(parse_reply(1) == 1, "COPY_ON_FORK = 1: copies (1)");
	CHECK(parse_reply(255) == 1, "COPY_ON_FORK = 255: copies (1)");

	reset();
	end_msg(add_msg(SYS_GET, SEQ));
	CHECK(parse() == 0, "reply without attributes: not known (0)");

	reset();
	nlh = reply(1, SEQ);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
	end_msg(nlh);
	CHECK(parse() == 1, "COPY_ON_FORK between other attributes (1)");
}

static void test_malformed(void)
{
	struct nlmsghdr *nlh;
	struct nlattr *attr;

	reset();
	nlh = add_msg(SYS_GET, SEQ);
	mnl_attr_put_u32(nlh, ATTR_COF, 1);
	end_msg(nlh);
	CHECK(parse() == -EBADMSG, "COPY_ON_FORK as u32: -EBADMSG");

	reset();
	nlh = add_msg(SYS_GET, SEQ);
	mnl_attr_put(nlh, ATTR_COF, 0, NULL);
	end_msg(nlh);
	CHECK(parse() == -EBADMSG, "COPY_ON_FORK without payload: -EBADMSG");

	reset();
	nlh = reply(1, SEQ);
	attr = mnl_nlmsg_get_payload(nlh);
	attr->nla_len = 200;
	end_msg(nlh);
	CHECK(parse() == -EBADMSG, "attribute longer than message: -EBADMSG");

	reset();
	nlh = reply(1, SEQ);
	attr = mnl_nlmsg_get_payload(nlh);
	attr->nla_len = 2;
	end_msg(nlh);
	CHECK(parse() == -EBADMSG, "attribute shorter than its header: "
	      "-EBADMSG");

	reset();
	end_msg(reply(1, SEQ));
	CHECK(fork_nl_parse_sys_reply(buf, used - 4, SEQ) == -EBADMSG,
	      "message cut short: -EBADMSG");
	CHECK(fork_nl_parse_sys_reply(buf, 10, SEQ) == -EBADMSG,
	      "partial header: -EBADMSG");

	reset();
	nlh = reply(1, SEQ);
	end_msg(nlh);
	nlh->nlmsg_len = 8;
	CHECK(parse() == -EBADMSG, "nlmsg_len below the header: -EBADMSG");

	reset();
	end_msg(add_msg(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
			SEQ));
	CHECK(parse() == -EBADMSG, "reply of another command: -EBADMSG");
}

static void test_control_messages(void)
{
	size_t full = sizeof(struct nlmsgerr);

	CHECK(parse_error_msg(-EOPNOTSUPP, full) == -EOPNOTSUPP,
	      "NLMSG_ERROR -EOPNOTSUPP is returned");
	CHECK(parse_error_msg(-EPERM, full) == -EPERM,
	      "NLMSG_ERROR -EPERM is returned");
	CHECK(parse_error_msg(0, full) == 0,
	      "bare ACK: answered without saying (0)");
	CHECK(parse_error_msg(-EPERM, sizeof(int)) == -EBADMSG,
	      "NLMSG_ERROR too short: -EBADMSG");
	CHECK(parse_error_msg(5, full) == -EBADMSG,
	      "NLMSG_ERROR with a positive error: -EBADMSG");

	reset();
	end_msg(add_msg(NLMSG_DONE, SEQ));
	CHECK(parse() == 0, "NLMSG_DONE without reply: not known (0)");

	reset();
	end_msg(add_msg(NLMSG_NOOP, SEQ));
	CHECK(parse() == -EAGAIN, "NLMSG_NOOP is skipped");
}

static void test_sequences(void)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *err;

	reset();
	end_msg(reply(1, SEQ + 1));
	CHECK(parse() == -EAGAIN, "reply to another request is skipped");

	reset();
	end_msg(reply(1, SEQ + 1));
	end_msg(reply(0, SEQ));
	CHECK(parse() == 0, "our reply after a stranger's is found");

	reset();
	end_msg(reply(1, SEQ));
	nlh = add_msg(NLMSG_ERROR, SEQ);
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	err->error = 0;
	end_msg(nlh);
	CHECK(parse() == 1, "reply followed by its ACK: the reply counts");
}

static void test_request(void)
{
	uint32_t req[8];
	struct nlmsghdr *nlh = (struct nlmsghdr *)req;
	size_t len = fork_nl_build_sys_get(req, sizeof(req), 7);

	CHECK(len == sizeof(*nlh) && nlh->nlmsg_len == len &&
	      nlh->nlmsg_type == SYS_GET &&
	      nlh->nlmsg_flags == (NLM_F_REQUEST | NLM_F_ACK) &&
	      nlh->nlmsg_seq == 7,
	      "request: bare SYS_GET header, NLM_F_REQUEST | NLM_F_ACK");
	CHECK(fork_nl_build_sys_get(req, 8, 7) == 0,
	      "request: too small a buffer gives 0");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int timed_query(double *secs)
{
	double t0 = now_s();
	int ret;

	sent = 0;
	ret = fork_nl_query_copy_on_fork();
	*secs = now_s() - t0;
	return ret;
}

static void test_transport(void)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)sent_msg;
	double limit = FORK_NL_TIMEOUT_MS / 1000.0, secs;
	int ret;

	ret = timed_query(&secs);
	tap_note("this host: query -> %d (%s) in %.3f s", ret,
		 ret < 0 ? strerror(-ret) : "answered", secs);
	CHECK(opened_bus == NETLINK_RDMA &&
	      (opened_flags & (SOCK_CLOEXEC | SOCK_NONBLOCK)) ==
	      (SOCK_CLOEXEC | SOCK_NONBLOCK),
	      "query opens NETLINK_RDMA, close-on-exec, non-blocking");
	CHECK(ret <= 1 && secs < limit + 0.5,
	      "query on this host answers within the timeout");
	CHECK(sent <= 1, "at most one request sent (%u)", sent);

	/* rtnetlink does not know the RDMA type: a real kernel error. */
	redirect_bus = NETLINK_ROUTE;
	ret = timed_query(&secs);
	CHECK(sent == 1 && sent_len == sizeof(*nlh) &&
	      nlh->nlmsg_type == SYS_GET, "one SYS_GET request sent");
	CHECK(ret < 0 && secs < 0.5,
	      "kernel error answer: %d (%s) at once", ret, strerror(-ret));

	/* A peer that swallows the request must not hang us. */
	swallow_requests = 1;
	ret = timed_query(&secs);
	CHECK(ret == -ETIMEDOUT && secs >= limit - 0.05 && secs < limit + 0.5,
	      "no answer: -ETIMEDOUT after %.3f s", secs);
	swallow_requests = 0;
	redirect_bus = -1;
}

int main(void)
{
	test_request();
	test_replies();
	test_malformed();
	test_control_messages();
	test_sequences();
	test_transport();
	return tap_done();
}
