// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queries of an open device: attributes, ports, GIDs and P_Keys.
 *
 * The kernel's GID and P_Key tables are also exported in sysfs, and the
 * classic verbs (ibv_query_gid, ibv_query_pkey) read them there, as
 * applications have always seen them: an unused GID slot reads as zeros.
 * The entry-based verbs (ibv_query_gid_ex, ibv_query_gid_table) ask the
 * kernel over ioctl and report unused slots as ENODATA.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "cmd.h"
#include "ibverbs.h"

/*
 * The kernel has the firmware version only as a number; sysfs has the
 * string the driver formats.  A driver without one (rxe) leaves sysfs
 * empty, and then the provider's own string stays.
 */
static void fill_fw_ver(struct ibv_context *ctx, char *fw_ver, size_t len)
{
	char buf[sizeof(((struct ibv_device_attr *)0)->fw_ver)];

	if (ibv_read_sysfs_file(ctx->device->ibdev_path, "fw_ver", buf,
				sizeof(buf)) > 0 && buf[0])
		snprintf(fw_ver, len, "%s", buf);
}

int verbs_query_device_ex(struct ibv_context *ctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	int err = verbs_check_ctx(ctx);

	if (err)
		return err;
	if (!attr || attr_size < sizeof(attr->orig_attr) ||
	    (input && input->comp_mask))
		return EINVAL;
	if (!verbs_ops(ctx)->query_device_ex)
		return EOPNOTSUPP;

	memset(attr, 0, attr_size);
	err = verbs_ops(ctx)->query_device_ex(ctx, input, attr, attr_size);
	if (err)
		return err;
	fill_fw_ver(ctx, attr->orig_attr.fw_ver,
		    sizeof(attr->orig_attr.fw_ver));
	return 0;
}

IBV_EXPORT int ibv_query_device(struct ibv_context *ctx,
				struct ibv_device_attr *attr)
{
	struct ibv_device_attr_ex ex;
	int err;

	if (!attr)
		return EINVAL;
	err = verbs_query_device_ex(ctx, NULL, &ex, sizeof(ex));
	if (!err)
		*attr = ex.orig_attr;
	return err;
}

int verbs_query_port_ext(struct ibv_context *ctx, uint8_t port_num,
			 struct ibv_port_attr *attr, size_t attr_len)
{
	struct ibv_port_attr full;
	int err = verbs_check_ctx(ctx);

	if (err)
		return err;
	if (!attr || !attr_len)
		return EINVAL;
	if (!verbs_ops(ctx)->query_port)
		return EOPNOTSUPP;

	/* An older caller's struct may be shorter than ours. */
	memset(&full, 0, sizeof(full));
	err = verbs_ops(ctx)->query_port(ctx, port_num, &full);
	if (err)
		return err;
	memcpy(attr, &full,
	       attr_len < sizeof(full) ? attr_len : sizeof(full));
	return 0;
}

/*
 * The exported symbol serves binaries from before the inline wrapper in
 * verbs.h existed; they pass the struct as it was then, ending with
 * link_layer and its padding, so nothing past that is written.
 */
#undef ibv_query_port
IBV_EXPORT int ibv_query_port(struct ibv_context *ctx, uint8_t port_num,
			      struct _compat_ibv_port_attr *attr)
{
	return verbs_query_port_ext(ctx, port_num, (struct ibv_port_attr *)attr,
				    offsetof(struct ibv_port_attr, flags));
}

/* Read "ports/<port>/<table>/<index>" of the device into @buf. */
static int read_port_file(struct ibv_context *ctx, unsigned int port,
			  const char *table, unsigned int index, char *buf,
			  size_t len)
{
	char name[64];

	snprintf(name, sizeof(name), "ports/%u/%s/%u", port, table, index);
	if (ibv_read_sysfs_file(ctx->device->ibdev_path, name, buf, len) <= 0)
		return -1;
	return 0;
}

IBV_EXPORT int ibv_query_gid(struct ibv_context *ctx, uint8_t port_num,
			     int index, union ibv_gid *gid)
{
	char buf[64];
	unsigned int word[8];
	int i, err = verbs_check_ctx(ctx);

	if (!err && (!gid || index < 0))
		err = EINVAL;
	if (err) {
		errno = err;
		return -1;
	}
	if (read_port_file(ctx, port_num, "gids", index, buf, sizeof(buf))) {
		/*
		 * No such port or index: rdma-core 44 asks the kernel, which
		 * answers EINVAL.
		 */
		if (errno == ENOENT)
			errno = EINVAL;
		return -1;
	}
	/* sysfs prints the GID as eight groups of 16 bits. */
	if (sscanf(buf, "%x:%x:%x:%x:%x:%x:%x:%x", &word[0], &word[1],
		   &word[2], &word[3], &word[4], &word[5], &word[6],
		   &word[7]) != 8)
		return -1;
	for (i = 0; i < 8; i++) {
		gid->raw[2 * i] = word[i] >> 8;
		gid->raw[2 * i + 1] = word[i] & 0xff;
	}
	return 0;
}

IBV_EXPORT int ibv_query_pkey(struct ibv_context *ctx, uint8_t port_num,
			      int index, __be16 *pkey)
{
	char buf[16];
	int err = verbs_check_ctx(ctx);

	if (!err && (!pkey || index < 0))
		err = EINVAL;
	if (err) {
		errno = err;
		return -1;
	}
	if (read_port_file(ctx, port_num, "pkeys", index, buf, sizeof(buf)))
		return -1;
	*pkey = htobe16((uint16_t)strtoul(buf, NULL, 0));
	return 0;
}

IBV_EXPORT int ibv_get_pkey_index(struct ibv_context *ctx, uint8_t port_num,
				  __be16 pkey)
{
	__be16 entry;
	int i;

	for (i = 0; !ibv_query_pkey(ctx, port_num, i, &entry); i++)
		if (entry == pkey)
			return i;
	return -1;
}

IBV_EXPORT int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port_num,
				  unsigned int index,
				  enum ibv_gid_type_sysfs *type)
{
	char buf[32];
	int err = verbs_check_ctx(ctx);

	if (!err && !type)
		err = EINVAL;
	if (err) {
		errno = err;
		return -1;
	}
	if (read_port_file(ctx, port_num, "gid_attrs/types", index, buf,
			   sizeof(buf))) {
		/* Kernels without per-GID types have only IB/RoCE v1. */
		if (errno != ENOENT)
			return -1;
		*type = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	*type = strcasecmp(buf, "RoCE v2") ? IBV_GID_TYPE_SYSFS_IB_ROCE_V1 :
					     IBV_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

/* Copy a kernel entry out in the caller's (possibly older) layout. */
static void copy_entry(void *dst, const struct ibv_gid_entry *src,
		       size_t entry_size)
{
	memcpy(dst, src,
	       entry_size < sizeof(*src) ? entry_size : sizeof(*src));
}

/* The first fields every layout of struct ibv_gid_entry has had. */
#define GID_ENTRY_MIN_SIZE offsetof(struct ibv_gid_entry, ndev_ifindex)

IBV_EXPORT int _ibv_query_gid_ex(struct ibv_context *ctx, uint32_t port_num,
				 uint32_t gid_index,
				 struct ibv_gid_entry *entry, uint32_t flags,
				 size_t entry_size)
{
	struct ibv_gid_entry full;
	int err = verbs_check_ctx(ctx);

	if (err)
		return err;
	if (!entry || flags || entry_size < GID_ENTRY_MIN_SIZE)
		return EINVAL;

	err = vcmd_query_gid_entry(ctx, port_num, gid_index, &full);
	if (!err)
		copy_entry(entry, &full, entry_size);
	return err;
}

IBV_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *ctx,
					struct ibv_gid_entry *entries,
					size_t max_entries, uint32_t flags,
					size_t entry_size)
{
	struct ibv_gid_entry *full;
	ssize_t n, i;
	int err = verbs_check_ctx(ctx);

	if (err)
		return -err;
	/*
	 * No room is too little room: the kernel (and so rdma-core 44, which
	 * passes the buffer through) refuses a table that does not fit.
	 */
	if (!entries || flags || entry_size < GID_ENTRY_MIN_SIZE ||
	    !max_entries) {
		errno = EINVAL;
		return -EINVAL;
	}

	full = calloc(max_entries, sizeof(*full));
	if (!full)
		return -ENOMEM;
	n = vcmd_query_gid_table(ctx, full, max_entries);
	for (i = 0; i < n; i++)
		copy_entry((char *)entries + i * entry_size, &full[i],
			   entry_size);
	free(full);
	return n;
}
