// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Input buffers for the fuzz targets (fuzz_common.h). */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"

/* Inputs are a few hundred bytes; libFuzzer's default cap is 4 KiB. */
#define GUARDED_MAX (64 * 1024)

void *fuzz_exact_copy(const uint8_t *data, size_t size)
{
	/* malloc(0) may return NULL; one byte keeps the pointer valid. */
	void *buf = malloc(size ? size : 1);

	FUZZ_CHECK(buf);
	if (size)
		memcpy(buf, data, size);
	return buf;
}

void *fuzz_guarded_copy(const uint8_t *data, size_t size)
{
	static uint8_t *region;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *end, *buf;

	if (!region) {
		region = mmap(NULL, GUARDED_MAX + page, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		FUZZ_CHECK(region != MAP_FAILED);
		FUZZ_CHECK(!mprotect(region + GUARDED_MAX, page, PROT_NONE));
	}
	if (size > GUARDED_MAX)
		return NULL;
	end = region + GUARDED_MAX;
	buf = end - ((size + 3) & ~(size_t)3);
	if (size)
		memcpy(buf, data, size);
	/* Whatever the slack holds must not look like more input. */
	memset(buf + size, 0, end - buf - size);
	return buf;
}
