/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sysfs access: the public ibv_get_sysfs_path() / ibv_read_sysfs_file()
 * and the library's own helpers (sysfs.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>

#include "ibverbs.h"
#include "sysfs.h"

static pthread_once_t root_once = PTHREAD_ONCE_INIT;
static char *root_env;

/*
 * $SYSFS_PATH lets tests and containers point the library at another
 * sysfs tree.  It is read once: the devices found later must all come
 * from the same tree.  secure_getenv(), so that a set-uid program cannot
 * be steered to arbitrary files.
 */
static void root_init(void)
{
	const char *env = secure_getenv("SYSFS_PATH");
	size_t len;

	if (!env)
		return;
	root_env = strdup(env);
	if (!root_env)
		return;
	/* As upstream: "/sys/" and "/sys" name the same root, "/" is "". */
	len = strlen(root_env);
	while (len && root_env[len - 1] == '/')
		root_env[--len] = '\0';
}

const char *verbs_sysfs_root(void)
{
	pthread_once(&root_once, root_init);
	return root_env ? root_env : "/sys";
}

IBV_EXPORT const char *ibv_get_sysfs_path(void)
{
	return verbs_sysfs_root();
}

/*
 * Read up to @size bytes of the file at @path.  Returns the byte count or
 * a negative errno; @buf is not terminated.
 */
static ssize_t read_raw(const char *path, char *buf, size_t size)
{
	size_t done = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	while (done < size) {
		ssize_t n = read(fd, buf + done, size - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			close(fd);
			return -err;
		}
		if (!n)
			break;
		done += n;
	}
	close(fd);
	return done;
}

/*
 * Upstream's contract, kept to the letter because callers were written
 * against it: the length without the trailing newline, the string
 * NUL-terminated; an empty file gives 0 and leaves @buf alone; content
 * that fills @buf without ending in a newline gives -1 (no room for the
 * terminator).  -1 with errno on I/O errors.
 */
IBV_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file,
				   char *buf, size_t size)
{
	char *path;
	ssize_t n;

	if (!dir || !file || (!buf && size)) {
		errno = EINVAL;
		return -1;
	}
	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -1;
	n = read_raw(path, buf, size);
	free(path);
	if (n < 0) {
		errno = -n;
		return -1;
	}
	if (!n)
		return 0;
	if (buf[n - 1] == '\n') {
		buf[--n] = '\0';
		return n;
	}
	if ((size_t)n == size)
		return -1;
	buf[n] = '\0';
	return n;
}

ssize_t verbs_sysfs_read(const char *path, char *buf, size_t size)
{
	ssize_t n;

	if (!size)
		return -EOVERFLOW;
	/*
	 * A full buffer fits only if its last byte is the newline that the
	 * terminator replaces; otherwise the attribute is too long.
	 */
	n = read_raw(path, buf, size);
	if (n < 0)
		return n;
	if ((size_t)n == size) {
		if (buf[n - 1] != '\n')
			return -EOVERFLOW;
		buf[--n] = '\0';
		return n;
	}
	if (n && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return n;
}

static VERBS_SYSFS_FMT(3, 0) int vpath(char *path, size_t size,
				       const char *fmt, va_list ap)
{
	char rel[IBV_SYSFS_PATH_MAX * 2];
	int n;

	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	if (rel[0] == '/')
		n = snprintf(path, size, "%s", rel);
	else
		n = snprintf(path, size, "%s/%s", verbs_sysfs_root(), rel);
	if (n < 0)
		return -EINVAL;
	return (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int verbs_sysfs_path(char *path, size_t size, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vpath(path, size, fmt, ap);
	va_end(ap);
	return rc;
}

ssize_t verbs_sysfs_readf(char *buf, size_t size, const char *fmt, ...)
{
	char path[IBV_SYSFS_PATH_MAX * 2];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	return verbs_sysfs_read(path, buf, size);
}

int verbs_parse_u64(const char *str, uint64_t *val)
{
	unsigned long long v;
	char *end;

	/* strtoull() would accept a sign and wrap it around. */
	while (*str == ' ' || *str == '\t')
		str++;
	if (*str < '0' || *str > '9')
		return -EINVAL;
	/*
	 * Decimal, or hex after 0x: base 0 would also read a leading 0 as
	 * octal, so "010" would be 8.  Base 16 takes the 0x itself (once:
	 * "0x0x1" stops at the second x); the digit check keeps it from
	 * skipping blanks or taking a sign after the prefix.
	 */
	errno = 0;
	if (str[0] == '0' && (str[1] == 'x' || str[1] == 'X')) {
		if (!isxdigit((unsigned char)str[2]))
			return -EINVAL;
		v = strtoull(str, &end, 16);
	} else {
		v = strtoull(str, &end, 10);
	}
	if (errno)
		return -errno;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*val = v;
	return 0;
}

int verbs_sysfs_read_u64f(uint64_t *val, const char *fmt, ...)
{
	char path[IBV_SYSFS_PATH_MAX * 2];
	char buf[32];
	va_list ap;
	ssize_t n;
	int rc;

	va_start(ap, fmt);
	rc = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	n = verbs_sysfs_read(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	return verbs_parse_u64(buf, val);
}

ssize_t verbs_read_ibdev_attr(const struct ibv_device *dev, const char *attr,
			      char *buf, size_t size)
{
	return verbs_sysfs_readf(buf, size, "%s/%s", dev->ibdev_path, attr);
}

int verbs_read_ibdev_u64(const struct ibv_device *dev, const char *attr,
			 uint64_t *val)
{
	return verbs_sysfs_read_u64f(val, "%s/%s", dev->ibdev_path, attr);
}

ssize_t verbs_read_uverbs_attr(const struct ibv_device *dev,
			       const char *attr, char *buf, size_t size)
{
	return verbs_sysfs_readf(buf, size, "%s/%s", dev->dev_path, attr);
}

int verbs_read_uverbs_u64(const struct ibv_device *dev, const char *attr,
			  uint64_t *val)
{
	return verbs_sysfs_read_u64f(val, "%s/%s", dev->dev_path, attr);
}

ssize_t verbs_read_port_attr(const struct ibv_device *dev, uint32_t port,
			     const char *attr, char *buf, size_t size)
{
	return verbs_sysfs_readf(buf, size, "%s/ports/%" PRIu32 "/%s",
				 dev->ibdev_path, port, attr);
}

ssize_t verbs_read_gid_ndev(const struct ibv_device *dev, uint32_t port,
			    unsigned int index, char *buf, size_t size)
{
	return verbs_sysfs_readf(buf, size,
				 "%s/ports/%" PRIu32 "/gid_attrs/ndevs/%u",
				 dev->ibdev_path, port, index);
}

ssize_t verbs_read_gid_type(const struct ibv_device *dev, uint32_t port,
			    unsigned int index, char *buf, size_t size)
{
	return verbs_sysfs_readf(buf, size,
				 "%s/ports/%" PRIu32 "/gid_attrs/types/%u",
				 dev->ibdev_path, port, index);
}

int verbs_parse_guid(const char *str, __be64 *guid)
{
	unsigned int part[4];
	int end = 0;

	/*
	 * Only digits and colons: sscanf()'s %x would also skip blanks and
	 * take a sign or a 0x, and "-1" gives a group wider than 16 bits
	 * that spills into its neighbours.
	 */
	if (str[strspn(str, "0123456789abcdefABCDEF:")])
		return -EINVAL;
	if (sscanf(str, "%4x:%4x:%4x:%4x%n", &part[0], &part[1], &part[2],
		   &part[3], &end) != 4 || str[end])
		return -EINVAL;
	*guid = htobe64((uint64_t)part[0] << 48 | (uint64_t)part[1] << 32 |
			(uint64_t)part[2] << 16 | part[3]);
	return 0;
}
