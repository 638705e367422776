/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Minimal TAP-like reporting shared by the host tests: one "ok N - ..." or
 * "not ok N - ..." line per check, "# ..." for notes and skips, and a last
 * line "N passed, M failed".
 */
#ifndef HOST_TEST_TAP_H
#define HOST_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>

static unsigned int tap_passed, tap_failed, tap_first = 1;

static inline __attribute__((format(printf, 4, 5)))
int tap_check(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %u - ", ok ? "" : "not ",
	       tap_first + tap_passed + tap_failed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok)
		printf(" (%s:%d)", file, line);
	printf("\n");
	fflush(stdout);
	if (ok)
		tap_passed++;
	else
		tap_failed++;
	return ok;
}

#define CHECK(cond, ...) tap_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline __attribute__((format(printf, 1, 2)))
void tap_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int tap_done(void)
{
	printf("%u passed, %u failed\n", tap_passed, tap_failed);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif /* HOST_TEST_TAP_H */
