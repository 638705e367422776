/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Stop a thread inside the library at a chosen system call.
 *
 * fork_hook.c defines opendir, open, openat, stat, socket, ioctl, write,
 * madvise and close in the test executable (exported: link with
 * ENABLE_EXPORTS), so the library's calls to them come here first; each
 * passes on to libc.  fh_arm(mask, fn) on a thread makes that thread's
 * next call of a function in @mask run fn(name) first, once: a test uses
 * it to fork, or let another thread fork, at a moment when the thread is
 * inside a verb, holding whatever lock that verb holds around the call.
 * The same binary runs on Debian's library, which makes the same kinds of
 * calls (opendir/openat/stat in device discovery, ioctl/write for
 * commands, madvise for tracking).
 */
#ifndef FORK_HOOK_H
#define FORK_HOOK_H

enum {
	FH_OPENDIR = 1 << 0,
	FH_OPEN = 1 << 1, /* open, openat, fopen */
	FH_STAT = 1 << 2,
	FH_SOCKET = 1 << 3,
	FH_IOCTL = 1 << 4,
	FH_WRITE = 1 << 5,
	FH_MADVISE = 1 << 6,
	FH_CLOSE = 1 << 7,
	FH_DISCOVERY = FH_OPENDIR | FH_OPEN | FH_STAT | FH_SOCKET,
	FH_COMMAND = FH_IOCTL | FH_WRITE,
};

typedef void (*fh_fn)(const char *name);

void fh_arm(unsigned int mask, fh_fn fn);
void fh_disarm(void);

#endif /* FORK_HOOK_H */
