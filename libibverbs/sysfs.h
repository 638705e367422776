/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reading sysfs attributes (sysfs.c).
 *
 * The public pair ibv_get_sysfs_path() / ibv_read_sysfs_file() (declared in
 * ibverbs.h) keeps upstream's exact behaviour, quirks included.  The
 * helpers here are for the library itself and have plain semantics:
 *
 *  - a successful read always leaves a NUL-terminated string in the buffer
 *    with one trailing newline removed, and returns its length;
 *  - failures return a negative errno (-ENOENT, -EACCES, ...), and
 *    -EOVERFLOW when the attribute does not fit the buffer;
 *  - paths given as a printf format are relative to the sysfs root
 *    ($SYSFS_PATH or /sys) unless they start with '/'.
 *
 * None of them prints or allocates on the caller's behalf.
 */
#ifndef IBV_SYSFS_H
#define IBV_SYSFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>

#ifndef IBV_HIDDEN
#define IBV_HIDDEN __attribute__((visibility("hidden")))
#endif

#define VERBS_SYSFS_FMT(a, b) __attribute__((format(printf, a, b)))

/* The sysfs root, same string as ibv_get_sysfs_path(). */
const char *verbs_sysfs_root(void) IBV_HIDDEN;

/*
 * Build the absolute path of a sysfs entry into @path (@size bytes).
 * Returns 0, -ENAMETOOLONG, or -EINVAL for a bad format.
 */
int verbs_sysfs_path(char *path, size_t size, const char *fmt, ...)
	VERBS_SYSFS_FMT(3, 4) IBV_HIDDEN;

/* Read the attribute at the absolute path @path. */
ssize_t verbs_sysfs_read(const char *path, char *buf, size_t size)
	IBV_HIDDEN;

/* Read an attribute named by a format, e.g. "class/infiniband/%s/fw_ver". */
ssize_t verbs_sysfs_readf(char *buf, size_t size, const char *fmt, ...)
	VERBS_SYSFS_FMT(3, 4) IBV_HIDDEN;

/*
 * Read an unsigned number (decimal, or hex with 0x).  Trailing blanks are
 * allowed, anything else is -EINVAL; -ERANGE when it does not fit u64.
 */
int verbs_sysfs_read_u64f(uint64_t *val, const char *fmt, ...)
	VERBS_SYSFS_FMT(2, 3) IBV_HIDDEN;

/*
 * The parser behind verbs_sysfs_read_u64f(), same rules, on a
 * NUL-terminated string; *val is left alone on error.
 */
int verbs_parse_u64(const char *str, uint64_t *val) IBV_HIDDEN;

/*
 * Attributes of a device, relative to its directories:
 * ibdev:  <dev->ibdev_path>/<attr>  (/sys/class/infiniband/<name>)
 * uverbs: <dev->dev_path>/<attr>    (/sys/class/infiniband_verbs/uverbsN)
 * port:   <dev->ibdev_path>/ports/<port>/<attr>
 * @attr may contain '/' (e.g. "gid_attrs/ndevs/3").
 */
ssize_t verbs_read_ibdev_attr(const struct ibv_device *dev, const char *attr,
			      char *buf, size_t size) IBV_HIDDEN;
int verbs_read_ibdev_u64(const struct ibv_device *dev, const char *attr,
			 uint64_t *val) IBV_HIDDEN;
ssize_t verbs_read_uverbs_attr(const struct ibv_device *dev,
			       const char *attr, char *buf, size_t size)
	IBV_HIDDEN;
int verbs_read_uverbs_u64(const struct ibv_device *dev, const char *attr,
			  uint64_t *val) IBV_HIDDEN;
ssize_t verbs_read_port_attr(const struct ibv_device *dev, uint32_t port,
			     const char *attr, char *buf, size_t size)
	IBV_HIDDEN;

/*
 * The GID table entry attributes of a port, as the kernel exports them:
 * the net device name of GID @index and its type string ("IB/RoCE v1" or
 * "RoCE v2").  The kernel refuses to read either for an empty slot (a
 * negative errno here, -EINVAL on Linux 6.1), and has no net device for an
 * IB GID.
 */
ssize_t verbs_read_gid_ndev(const struct ibv_device *dev, uint32_t port,
			    unsigned int index, char *buf, size_t size)
	IBV_HIDDEN;
ssize_t verbs_read_gid_type(const struct ibv_device *dev, uint32_t port,
			    unsigned int index, char *buf, size_t size)
	IBV_HIDDEN;

/*
 * Parse a GUID as sysfs prints it ("0002:c903:0003:1234") into network
 * order.  Returns 0 or -EINVAL.
 */
int verbs_parse_guid(const char *str, __be64 *guid) IBV_HIDDEN;

#endif /* IBV_SYSFS_H */
