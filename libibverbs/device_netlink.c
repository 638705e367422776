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
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include <string.h>

#include "ibverbs.h"
#include "netlink.h"

/*
 * Room for the largest request: the header, a u32 and the "uverbs"
 * string, each attribute padded to 4 bytes.
 */
#define NL_REQ_SIZE 64

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
	return verbs_nl_run(buf, len, seq, portid, on_device, q);
}

int verbs_nl_parse_chardev(struct verbs_nl_query *q, const void *buf,
			   size_t len, uint32_t seq, uint32_t portid)
{
	return verbs_nl_run(buf, len, seq, portid, on_chardev, q);
}

static struct nlmsghdr *put_request(char *buf, uint16_t cmd, uint16_t flags)
{
	return verbs_nl_request(buf, NL_REQ_SIZE,
				RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), flags);
}

int verbs_nl_query_device(const char *ibdev_name,
			  struct verbs_nl_devinfo *info)
{
	char buf[NL_REQ_SIZE] __attribute__((aligned(4)));
	struct verbs_nl_query q = { .name = ibdev_name, .info = info };
	struct nlmsghdr *nlh;
	struct verbs_nl nl;
	int err;

	memset(info, 0, sizeof(*info));
	err = -verbs_nl_open(&nl, NETLINK_RDMA, 0, VERBS_NL_PORTID);
	if (err)
		return err;

	nlh = put_request(buf, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	err = -verbs_nl_exchange_msgs(&nl, nlh, on_device, &q);
	if (!err && !q.found)
		err = ENODEV;
	if (!err) {
		nlh = put_request(buf, RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_ACK);
		/* An old kernel without GET_CHARDEV still gave the index. */
		if (mnl_attr_put_u32_check(nlh, sizeof(buf),
					   RDMA_NLDEV_ATTR_DEV_INDEX,
					   info->index) &&
		    mnl_attr_put_strz_check(nlh, sizeof(buf),
					    RDMA_NLDEV_ATTR_CHARDEV_TYPE,
					    "uverbs"))
			verbs_nl_exchange_msgs(&nl, nlh, on_chardev, &q);
	}
	verbs_nl_close(&nl);
	return err;
}
