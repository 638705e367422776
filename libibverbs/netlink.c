/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One request to the kernel over netlink and its answers.
 *
 * Messages are built and walked with libmnl (what iproute2's `rdma` and
 * `ip` tools use for the same requests), but the socket is driven here:
 * non-blocking, every wait bounded by poll(), only the kernel listened to.
 *
 * The kernel answers inside sendto(): netlink hands the request to its
 * handler synchronously, which queues the reply (or the first part of a
 * dump) on our socket before the call returns, and each receive of a dump
 * part queues the next.  So a receive normally succeeds at once and poll()
 * is only the fallback.  No clock is read unless we have to wait.
 *
 * Each syscall saved counts on the first ibv_is_fork_initialized() of a
 * process (bench/first_call.c): a fork status query costs socket(),
 * bind(), sendto(), recvfrom() and close(), and getpid() for its sequence
 * number.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "netlink.h"

/*
 * Distinct per socket, so that an answer to an earlier socket of the same
 * port number cannot pass for ours.
 */
static uint32_t first_seq(void)
{
	static uint32_t seq;

	return __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED) ^
	       ((uint32_t)getpid() << 16);
}

/*
 * bind() with port 0 has the kernel pick the port; mnl_socket_bind()
 * would also read it back with getsockname(), which only the callers that
 * check the port of the answers pay for.  The socket is bound before the
 * request all the same (sendto() would bind it itself), so that a forgery
 * can be queued ahead of the kernel's answer, as
 * tests/guest/fork/fork_netlink_spoof.c does to prove the sender check.
 */
int verbs_nl_open(struct verbs_nl *nl, int protocol, unsigned int groups,
		  unsigned int flags)
{
	struct sockaddr_nl local = { .nl_family = AF_NETLINK,
				     .nl_groups = groups };
	socklen_t alen = sizeof(local);
	int fd, err;

	nl->sk = mnl_socket_open2(protocol, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!nl->sk)
		return -errno;
	fd = mnl_socket_get_fd(nl->sk);
	if (bind(fd, (struct sockaddr *)&local, sizeof(local)) < 0)
		goto fail;
	nl->portid = 0;
	if (flags & VERBS_NL_PORTID) {
		if (getsockname(fd, (struct sockaddr *)&local, &alen) < 0)
			goto fail;
		if (alen != sizeof(local) || local.nl_family != AF_NETLINK) {
			errno = EINVAL;
			goto fail;
		}
		nl->portid = local.nl_pid;
	}
	nl->seq = first_seq();
	return 0;
fail:
	err = errno;
	mnl_socket_close(nl->sk);
	return -err;
}

void verbs_nl_close(struct verbs_nl *nl)
{
	mnl_socket_close(nl->sk);
}

int verbs_nl_fd(const struct verbs_nl *nl)
{
	return mnl_socket_get_fd(nl->sk);
}

struct nlmsghdr *verbs_nl_request(void *buf, size_t size, uint16_t type,
				  uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, size);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return nlh;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int wait_readable(int fd, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t left;
	int ret;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, (int)left);
		if (ret > 0)
			return 0;
		if (ret == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/*
 * One datagram, or -1 with errno.  Only the kernel (port 0) may answer:
 * any process can send to our port, and a forged "copy-on-fork on" would
 * switch the fork protection off.  MSG_TRUNC has netlink return the
 * datagram's full length, so one that did not fit shows.
 */
static ssize_t recv_from_kernel(int fd, void *buf, size_t size)
{
	struct sockaddr_nl from;
	socklen_t alen = sizeof(from);
	ssize_t n;

	n = recvfrom(fd, buf, size, MSG_TRUNC, (struct sockaddr *)&from, &alen);
	if (n < 0)
		return -1;
	if (alen != sizeof(from) || from.nl_family != AF_NETLINK ||
	    from.nl_pid != 0) {
		errno = EAGAIN;
		return -1;
	}
	if ((size_t)n > size) {
		errno = ENOSPC;
		return -1;
	}
	return n;
}

int verbs_nl_exchange(struct verbs_nl *nl, struct nlmsghdr *req,
		      verbs_nl_parse_fn parse, void *data)
{
	uint32_t buf[VERBS_NL_BUF_SIZE / sizeof(uint32_t)];
	int fd = mnl_socket_get_fd(nl->sk);
	int64_t deadline = 0;
	ssize_t n;
	int ret;

	req->nlmsg_seq = ++nl->seq;
	if (mnl_socket_sendto(nl->sk, req, req->nlmsg_len) < 0)
		return -errno;
	do {
		n = recv_from_kernel(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			if (!deadline)
				deadline = now_ms() + VERBS_NL_TIMEOUT_MS;
			ret = wait_readable(fd, deadline);
			if (ret)
				return ret;
			ret = 1;
			continue;
		}
		ret = parse(buf, n, nl->seq, nl->portid, data);
	} while (ret > 0);
	return ret;
}

/*
 * Every message of the datagram lies inside it, padding included.
 * mnl_cb_run() walks with mnl_nlmsg_ok(), which compares (int)nlmsg_len
 * with what is left: a length of 2 GiB or more passes as negative, and
 * mnl_nlmsg_next() then jumps far outside the buffer.  And libmnl walks
 * a message's attributes up to its aligned end, so a last message whose
 * padding is cut off has attributes read from past the datagram.  The
 * kernel pads every message.
 */
static bool messages_fit(const void *buf, size_t len)
{
	const struct nlmsghdr *nlh;
	size_t off = 0;

	while (len - off >= sizeof(*nlh)) {
		nlh = (const struct nlmsghdr *)((const char *)buf + off);
		if (nlh->nlmsg_len < sizeof(*nlh) ||
		    MNL_ALIGN((size_t)nlh->nlmsg_len) > len - off)
			return false;
		off += MNL_ALIGN(nlh->nlmsg_len);
	}
	return true;
}

int verbs_nl_run(const void *buf, size_t len, uint32_t seq, uint32_t portid,
		 verbs_nl_msg_fn cb, void *data)
{
	int ret;

	/* libmnl counts the bytes left in an int. */
	if (len > INT_MAX || !messages_fit(buf, len))
		return -EBADMSG;
	errno = 0;
	ret = mnl_cb_run(buf, len, seq, portid, cb, data);
	if (ret > 0)
		return 1;
	if (ret == 0)
		return 0;
	/*
	 * libmnl passes the error code of an NLMSG_ERROR through as errno
	 * whatever its value; a kernel errno is 1..4095, anything else is
	 * a malformed answer.
	 */
	if (errno <= 0 || errno > 4095)
		return -EBADMSG;
	return -errno;
}

struct msg_walk {
	verbs_nl_msg_fn cb;
	void *data;
};

static int walk_msgs(const void *buf, size_t len, uint32_t seq, uint32_t portid,
		     void *data)
{
	struct msg_walk *w = data;

	return verbs_nl_run(buf, len, seq, portid, w->cb, w->data);
}

int verbs_nl_exchange_msgs(struct verbs_nl *nl, struct nlmsghdr *req,
			   verbs_nl_msg_fn cb, void *data)
{
	struct msg_walk w = { cb, data };

	return verbs_nl_exchange(nl, req, walk_msgs, &w);
}
