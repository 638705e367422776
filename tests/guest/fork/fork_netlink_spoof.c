// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A forged copy-on-fork answer must not decide the fork mode.
 *
 * Any process may send a datagram to the port of the library's RDMA
 * netlink socket.  This test wraps sendto() and sendmsg() (exported from
 * the executable, so the library's and libmnl's or libnl's calls come
 * here): when the library sends its RDMA_NLDEV_CMD_SYS_GET request, the
 * wrapper first sends, from a socket of its own, a reply to that request
 * with the same sequence number and no RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK,
 * so the forged answer waits in the library's socket ahead of the
 * kernel's.  On a kernel that reports copy-on-fork (5.13 and later) a
 * library that reads only the kernel's answer reports IBV_FORK_UNNEEDED,
 * one that believes the forgery IBV_FORK_DISABLED.  On one that does not,
 * the forgery claims copy-on-fork instead (the attribute, set to 1): the
 * right answer is IBV_FORK_DISABLED, the forgery's IBV_FORK_UNNEEDED.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "fork_util.h"

static int forged, forging;
/* Forge the opposite of what the kernel says: 1 to claim copy-on-fork. */
static int forge_cof;

/*
 * A SYS_GET reply to @req to @fd's port: without attributes, or with
 * RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK = 1 when forge_cof is set.
 */
static void forge_reply(int fd, const void *req, size_t len)
{
	const struct nlmsghdr *rq = req;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr hdr;
		struct nlattr attr;
		uint8_t cof[4];
	} msg;
	struct nlmsghdr *reply = &msg.hdr;
	size_t size = forge_cof ? sizeof(msg) : sizeof(msg.hdr);
	socklen_t alen = sizeof(to);
	int s;

	if (len < sizeof(*rq) ||
	    rq->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					       RDMA_NLDEV_CMD_SYS_GET) ||
	    getsockname(fd, (struct sockaddr *)&to, &alen))
		return;
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (s < 0)
		return;
	memset(&msg, 0, sizeof(msg));
	reply->nlmsg_len = size;
	reply->nlmsg_type = rq->nlmsg_type;
	reply->nlmsg_seq = rq->nlmsg_seq;
	reply->nlmsg_pid = to.nl_pid;
	msg.attr.nla_len = NLA_HDRLEN + 1;
	msg.attr.nla_type = RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK;
	msg.cof[0] = 1;
	if (sendto(s, &msg, size, 0, (struct sockaddr *)&to, sizeof(to)) ==
	    (ssize_t)size)
		forged++;
	close(s);
}

static int is_rdma_netlink(int fd)
{
	int proto = 0;
	socklen_t len = sizeof(proto);

	return !getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) &&
	       proto == NETLINK_RDMA;
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, int,
				    const struct sockaddr *, socklen_t))
			dlsym(RTLD_NEXT, "sendto");
	if (!forged && !forging && is_rdma_netlink(fd)) {
		/* forge_reply() sends through here too. */
		forging = 1;
		forge_reply(fd, buf, len);
		forging = 0;
	}
	return real(fd, buf, len, flags, addr, alen);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);

	if (!real)
		real = (ssize_t (*)(int, const struct msghdr *, int))
			dlsym(RTLD_NEXT, "sendmsg");
	if (!forged && !forging && msg->msg_iovlen && is_rdma_netlink(fd)) {
		forging = 1;
		forge_reply(fd, msg->msg_iov[0].iov_base,
			    msg->msg_iov[0].iov_len);
		forging = 0;
	}
	return real(fd, msg, flags);
}

int main(void)
{
	enum ibv_fork_status st, want;

	gc_start("fork_netlink_spoof");
	/* Before the library's first request: `rdma` is another process. */
	forge_cof = !fu_kernel_reports_cof();
	want = forge_cof ? IBV_FORK_DISABLED : IBV_FORK_UNNEEDED;
	gc_diag("%s; the forgery says copy-on-fork %s", fu_kernel_desc(),
		forge_cof ? "on" : "off (no attribute)");
	st = ibv_is_fork_initialized();
	gc_ok(forged == 1, "a forged reply reached the library's socket "
	      "ahead of the kernel's");
	gc_guard(st == want,
		 "the status follows the kernel, not the forgery (%d, want %d)",
		 st, want);
	return gc_finish();
}
