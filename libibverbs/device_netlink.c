// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What RDMA netlink knows of a device: its kernel index (for
 * ibv_get_device_index()) and the driver behind its uverbs character
 * device (to pick the provider).  Sysfs has neither for every driver:
 * a software device such as rxe has no parent bus device to name a driver.
 *
 * Two requests: a dump of the devices to turn the name into an index, then
 * RDMA_NLDEV_CMD_GET_CHARDEV for the "uverbs" client of that index.
 */
#include <limits.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "ibverbs.h"

/* A kernel that never answers must not hang device discovery. */
#define NL_TIMEOUT_MS 1000

/*
 * Room for the largest request: the header, a u32 and the "uverbs"
 * string, each attribute padded to 4 bytes.
 */
#define NL_REQ_SIZE 64

static struct mnl_socket *open_rdma_socket(void)
{
	struct timeval tv = { .tv_sec = NL_TIMEOUT_MS / 1000,
			      .tv_usec = NL_TIMEOUT_MS % 1000 * 1000 };
	struct mnl_socket *nl;

	nl = mnl_socket_open2(NETLINK_RDMA, SOCK_CLOEXEC);
	if (!nl)
		return NULL;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv,
		       sizeof(tv)) < 0) {
		mnl_socket_close(nl);
		return NULL;
	}
	return nl;
}

/*
 * The buffer is zeroed first because libmnl (1.0.4, bookworm's) copies an
 * attribute's payload but leaves its alignment padding as it was: the pad
 * byte after "uverbs" would go to the kernel unset (valgrind's memcheck
 * reports it at sendto()).
 */
static struct nlmsghdr *put_request(char *buf, uint16_t cmd, uint16_t flags,
				    uint32_t seq)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, NL_REQ_SIZE);
	nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	return nlh;
}

typedef int (*parse_fn)(struct verbs_nl_query *q, const void *buf,
			size_t len, uint32_t seq, uint32_t portid);

/* Send @nlh and feed every answer to @parse until the kernel is done. */
static int transact(struct mnl_socket *nl, struct nlmsghdr *nlh,
		    parse_fn parse, struct verbs_nl_query *q)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int portid = mnl_socket_get_portid(nl);
	ssize_t len;
	int ret;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return errno;
	do {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0)
			return errno;
		ret = parse(q, buf, len, nlh->nlmsg_seq, portid);
	} while (ret > 0);
	return -ret;
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

/* libmnl's verdict as 1 (more to come), 0 (done) or a negative errno. */
static int run_callbacks(const void *buf, size_t len, uint32_t seq,
			 uint32_t portid, mnl_cb_t cb, void *data)
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

static int collect_attr(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (type <= RDMA_NLDEV_ATTR_MAX)
		tb[type] = attr;
	return MNL_CB_OK;
}

static int on_device(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1] = {};
	struct verbs_nl_query *q = data;
	const struct nlattr *index, *name;

	mnl_attr_parse(nlh, 0, collect_attr, tb);
	index = tb[RDMA_NLDEV_ATTR_DEV_INDEX];
	name = tb[RDMA_NLDEV_ATTR_DEV_NAME];
	/*
	 * The kernel sends a u32 and a NUL-terminated string; check both
	 * before reading, or strcmp() runs past an unterminated name.
	 */
	if (!index || mnl_attr_validate(index, MNL_TYPE_U32) < 0 || !name ||
	    mnl_attr_validate(name, MNL_TYPE_NUL_STRING) < 0)
		return MNL_CB_OK;
	if (strcmp(mnl_attr_get_str(name), q->name))
		return MNL_CB_OK;
	q->info->index = mnl_attr_get_u32(index);
	q->found = true;
	return MNL_CB_OK;
}

static int on_chardev(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1] = {};
	struct verbs_nl_query *q = data;
	const struct nlattr *id;

	mnl_attr_parse(nlh, 0, collect_attr, tb);
	/*
	 * The kernel puts a u32 (nla_put_u32() in ib_uverbs_get_nl_info(),
	 * drivers/infiniband/core/uverbs_main.c) although the uapi header
	 * comment says u64: take either size, never read past the payload.
	 */
	id = tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID];
	if (!id)
		return MNL_CB_OK;
	switch (mnl_attr_get_payload_len(id)) {
	case sizeof(uint32_t):
		q->info->driver_id = mnl_attr_get_u32(id);
		break;
	case sizeof(uint64_t):
		if (mnl_attr_get_u64(id) > UINT32_MAX)
			return MNL_CB_OK;
		q->info->driver_id = mnl_attr_get_u64(id);
		break;
	default:
		return MNL_CB_OK;
	}
	q->info->has_driver_id = true;
	return MNL_CB_OK;
}

int verbs_nl_parse_dev_dump(struct verbs_nl_query *q, const void *buf,
			    size_t len, uint32_t seq, uint32_t portid)
{
	return run_callbacks(buf, len, seq, portid, on_device, q);
}

int verbs_nl_parse_chardev(struct verbs_nl_query *q, const void *buf,
			   size_t len, uint32_t seq, uint32_t portid)
{
	return run_callbacks(buf, len, seq, portid, on_chardev, q);
}

int verbs_nl_query_device(const char *ibdev_name,
			  struct verbs_nl_devinfo *info)
{
	char buf[NL_REQ_SIZE] __attribute__((aligned(4)));
	struct verbs_nl_query q = { .name = ibdev_name, .info = info };
	uint32_t seq = time(NULL);
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	int err;

	memset(info, 0, sizeof(*info));
	nl = open_rdma_socket();
	if (!nl)
		return errno;

	nlh = put_request(buf, RDMA_NLDEV_CMD_GET, NLM_F_DUMP, seq);
	err = transact(nl, nlh, verbs_nl_parse_dev_dump, &q);
	if (!err && !q.found)
		err = ENODEV;
	if (!err) {
		nlh = put_request(buf, RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_ACK,
				  seq + 1);
		/* An old kernel without GET_CHARDEV still gave the index. */
		if (mnl_attr_put_u32_check(nlh, sizeof(buf),
					   RDMA_NLDEV_ATTR_DEV_INDEX,
					   info->index) &&
		    mnl_attr_put_strz_check(nlh, sizeof(buf),
					    RDMA_NLDEV_ATTR_CHARDEV_TYPE,
					    "uverbs"))
			transact(nl, nlh, verbs_nl_parse_chardev, &q);
	}
	mnl_socket_close(nl);
	return err;
}
