// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The library's only output: messages asked for with VERBS_LOG_LEVEL.
 *
 * As rdma-core's: VERBS_LOG_LEVEL is a number (0 none, 1 errors,
 * 2 warnings, 3 info, 4 debug; any base strtol() reads) and messages up to
 * that level are written, to the file VERBS_LOG_FILE names (appended) or
 * else to stderr.  Unset, nothing is ever printed.  Plug-ins log through
 * the exported __verbs_log(), the library through verbs_log_lib().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ibverbs.h"

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static unsigned long log_level;
static FILE *log_fp;

static void log_init(void)
{
	const char *env = getenv("VERBS_LOG_LEVEL");
	const char *file;

	if (!env)
		return;
	log_level = strtoul(env, NULL, 0);
	if (!log_level)
		return;
	/* A set-uid program must not append to a file the user names. */
	file = secure_getenv("VERBS_LOG_FILE");
	if (file)
		log_fp = fopen(file, "ae");
	if (!log_fp)
		log_fp = stderr;
}

bool verbs_log_enabled(uint32_t level)
{
	pthread_once(&log_once, log_init);
	return level != VERBS_LOG_LEVEL_NONE && level <= log_level;
}

static VERBS_LOG_FMT(2, 0) void vlog(uint32_t level, const char *fmt,
				     va_list ap)
{
	int saved = errno;

	if (verbs_log_enabled(level))
		vfprintf(log_fp, fmt, ap);
	errno = saved;
}

IBV_EXPORT VERBS_LOG_FMT(3, 4) void __verbs_log(struct verbs_context *ctx,
						uint32_t level,
						const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

void verbs_log_lib(uint32_t level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}
