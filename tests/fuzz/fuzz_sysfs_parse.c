// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The parsers of sysfs attribute contents (sysfs.h): verbs_parse_u64() and
 * verbs_parse_guid(), on the input as a string.
 *
 * Beyond not crashing, each result is checked against a plain
 * digit-by-digit reading of the documented format.  A GUID is what the
 * kernel prints for node_guid and sys_image_guid,
 * "%04x:%04x:%04x:%04x" (drivers/infiniband/core/sysfs.c): four groups
 * of hex digits (1 to 4 accepted per group); a number is the decimal or
 * 0x-prefixed hex that sysfs.h promises.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <endian.h>

#include "sysfs.h"
#include "fuzz_common.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The reference reading: 4 groups of 1-4 hex digits, ':' between. */
static int plain_guid(const char *s, uint64_t *guid)
{
	uint64_t v = 0;
	int group, digits;

	for (group = 0; group < 4; group++) {
		uint64_t part = 0;

		if (group && *s++ != ':')
			return -EINVAL;
		for (digits = 0; hexval(*s) >= 0; digits++, s++)
			part = part << 4 | hexval(*s);
		if (!digits || digits > 4)
			return -EINVAL;
		v = v << 16 | part;
	}
	if (*s)
		return -EINVAL;
	*guid = v;
	return 0;
}

static void check_guid(const char *str)
{
	__be64 got = 0x5a5a5a5a5a5a5a5a;
	uint64_t want = 0;
	int ret = verbs_parse_guid(str, &got), ref = plain_guid(str, &want);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	FUZZ_CHECK(ret == ref);
	if (!ret)
		FUZZ_CHECK(be64toh(got) == want);
}

/*
 * The reference reading of a number as sysfs.h documents it: blanks,
 * decimal digits or 0x and hex digits, then blanks or newlines; -ERANGE
 * past 2^64 - 1.
 */
static int plain_u64(const char *s, uint64_t *val)
{
	unsigned int base = 10;
	bool big = false;
	uint64_t v = 0;
	int d, digits;

	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (digits = 0; (d = hexval(*s)) >= 0 && (unsigned int)d < base;
	     digits++, s++) {
		if (v > (UINT64_MAX - d) / base)
			big = true;
		v = v * base + d;
	}
	if (!digits)
		return -EINVAL;
	if (big)
		return -ERANGE;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*val = v;
	return 0;
}

static void check_u64(const char *str)
{
	uint64_t got = 0x5a5a5a5a5a5a5a5a, want = 0;
	int ret = verbs_parse_u64(str, &got), ref = plain_u64(str, &want);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ERANGE);
	FUZZ_CHECK(ret == ref);
	if (ret)
		FUZZ_CHECK(got == 0x5a5a5a5a5a5a5a5a);
	else
		FUZZ_CHECK(got == want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exactly size + 1 bytes: a read past the terminator is caught. */
	char *str = malloc(size + 1);

	FUZZ_CHECK(str);
	memcpy(str, data, size);
	str[size] = '\0';
	check_guid(str);
	check_u64(str);
	free(str);
	return 0;
}
