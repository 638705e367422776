/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel copy-on-fork detection over RDMA netlink.
 *
 * The request goes through libmnl rather than libnl-3: it is what
 * iproute2's `rdma` tool uses for the very same RDMA_NLDEV_CMD_SYS_GET
 * (`rdma system show`), it is tiny, has no global state of its own, and
 * does exactly what we need: build one message, send it, walk the answer.
 *
 * Any failure (no NETLINK_RDMA in this kernel or sandbox, no answer, an
 * error answer, garbage) means "not known to copy", and the caller falls
 * back to the legacy MADV_DONTFORK tracking: that is always safe, only
 * slower.  The socket is non-blocking and every wait is bounded by
 * FORK_NL_TIMEOUT_MS, so a sandbox that swallows the request cannot hang
 * the first verb call.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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

#define FORK_NL_SYS_GET RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET)

/* The answer is a few dozen bytes; one page is plenty. */
#define FORK_NL_BUF_SIZE 4096

size_t fork_nl_build_sys_get(void *buf, size_t size, unsigned int seq)
{
	struct nlmsghdr *nlh;

	if (size < MNL_NLMSG_HDRLEN)
		return 0;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = FORK_NL_SYS_GET;
	/* The ACK makes an old kernel answer even if it has no reply. */
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
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
 * switch the protection off.
 */
static ssize_t recv_from_kernel(int fd, void *buf)
{
	struct sockaddr_nl from;
	socklen_t alen = sizeof(from);
	ssize_t n;

	n = recvfrom(fd, buf, FORK_NL_BUF_SIZE, 0, (struct sockaddr *)&from,
		     &alen);
	if (n < 0)
		return -1;
	if (alen != sizeof(from) || from.nl_family != AF_NETLINK ||
	    from.nl_pid != 0) {
		errno = EAGAIN;
		return -1;
	}
	return n;
}

/* Our own sequence numbers: distinct per query, unlike time(NULL). */
static unsigned int next_seq(void)
{
	static unsigned int seq;

	return __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED) ^
	       ((unsigned int)getpid() << 16);
}

/*
 * The kernel answers inside sendto(): netlink hands the request to the
 * RDMA handler synchronously, which queues the reply on our socket before
 * the call returns.  So the first receive normally succeeds at once and
 * poll() is only the fallback.  bind() with port 0 has the kernel pick the
 * port, and nothing reads it back (mnl_socket_bind() would, with
 * getsockname()): only the sender (the kernel, port 0) and our sequence
 * number are checked.  The socket is bound before the request all the same
 * (sendto() would bind it itself), so that a forgery can be queued ahead of
 * the kernel's answer, as tests/guest/fork/fork_netlink_spoof.c does to
 * prove the sender check.  Each syscall saved counts on the first call of
 * a process (bench/first_call.c).
 */
static int exchange(struct mnl_socket *nl, void *buf, unsigned int seq)
{
	struct sockaddr_nl local = { .nl_family = AF_NETLINK };
	int64_t deadline = now_ms() + FORK_NL_TIMEOUT_MS;
	int fd = mnl_socket_get_fd(nl);
	ssize_t n;
	size_t len;
	int ret;

	if (bind(fd, (struct sockaddr *)&local, sizeof(local)) < 0)
		return -errno;
	len = fork_nl_build_sys_get(buf, FORK_NL_BUF_SIZE, seq);
	if (mnl_socket_sendto(nl, buf, len) < 0)
		return -errno;

	do {
		n = recv_from_kernel(fd, buf);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (n < 0) {
			ret = wait_readable(fd, deadline);
			if (ret)
				return ret;
			ret = -EAGAIN;
			continue;
		}
		ret = fork_nl_parse_sys_reply(buf, n, seq);
	} while (ret == -EAGAIN);
	return ret;
}

int fork_nl_query_copy_on_fork(void)
{
	uint32_t buf[FORK_NL_BUF_SIZE / sizeof(uint32_t)];
	struct mnl_socket *nl;
	int ret;

	nl = mnl_socket_open2(NETLINK_RDMA, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!nl)
		return -errno;
	ret = exchange(nl, buf, next_seq());
	mnl_socket_close(nl);
	return ret;
}
