// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fork_hook.h"

static __thread unsigned int armed;
static __thread fh_fn armed_fn;

void fh_arm(unsigned int mask, fh_fn fn)
{
	armed_fn = fn;
	armed = mask;
}

void fh_disarm(void)
{
	armed = 0;
}

static void hit(unsigned int what, const char *name)
{
	if (armed & what) {
		armed = 0;
		armed_fn(name);
	}
}

/* The next definition of @name: libc's. */
static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

#define REAL(name)                     \
	static __typeof__(name) *real; \
	if (!real)                     \
	real = (__typeof__(name) *)next(#name)

DIR *opendir(const char *path)
{
	REAL(opendir);
	hit(FH_OPENDIR, "opendir");
	return real(path);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	REAL(open);
	va_start(ap, flags);
	if (flags & (O_CREAT | __O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	hit(FH_OPEN, "open");
	return real(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	REAL(openat);
	va_start(ap, flags);
	if (flags & (O_CREAT | __O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	hit(FH_OPEN, "openat");
	return real(dirfd, path, flags, mode);
}

FILE *fopen(const char *path, const char *how)
{
	REAL(fopen);
	hit(FH_OPEN, "fopen");
	return real(path, how);
}

int stat(const char *restrict path, struct stat *restrict st)
{
	REAL(stat);
	hit(FH_STAT, "stat");
	return real(path, st);
}

int socket(int domain, int type, int protocol)
{
	REAL(socket);
	hit(FH_SOCKET, "socket");
	return real(domain, type, protocol);
}

int ioctl(int fd, unsigned long request, ...)
{
	void *arg;
	va_list ap;

	REAL(ioctl);
	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	hit(FH_IOCTL, "ioctl");
	return real(fd, request, arg);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	REAL(write);
	hit(FH_WRITE, "write");
	return real(fd, buf, len);
}

int madvise(void *addr, size_t len, int advice)
{
	REAL(madvise);
	hit(FH_MADVISE, "madvise");
	return real(addr, len, advice);
}

int close(int fd)
{
	REAL(close);
	hit(FH_CLOSE, "close");
	return real(fd);
}
