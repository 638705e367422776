// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fork_range_smaps_page_size() (fork_range.h) on an smaps-format stream
 * read through fmemopen(), as it reads /proc/self/smaps.  The addresses
 * looked up are the ends of the first mappings the input names, so that
 * recorded excerpts take the "inside a mapping" paths, plus 0 and the top
 * of the address space.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <string.h>

#include "fork_range.h"
#include "fuzz_common.h"

#define MAX_LOOKUPS 16

static void lookup(void *buf, size_t size, uintptr_t addr)
{
	uintptr_t page;
	FILE *f;

	f = fmemopen(buf, size, "r");
	if (!f)
		return;
	page = fork_range_smaps_page_size(f, addr);
	fclose(f);
	/* "KernelPageSize: N kB": a whole number of KiB, or 0 when absent. */
	FUZZ_CHECK(page % 1024 == 0);
}

/* The "lo-hi" bounds of up to MAX_LOOKUPS / 2 lines of @text. */
static size_t pick_addresses(const char *text, uintptr_t *addr)
{
	size_t n = 0;
	const char *line;
	char *end;

	for (line = text; line && n + 2 <= MAX_LOOKUPS;
	     line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!isxdigit((unsigned char)*line))
			continue;
		addr[n] = strtoull(line, &end, 16);
		if (*end != '-')
			continue;
		addr[n + 1] = strtoull(end + 1, NULL, 16) - 1;
		n += 2;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uintptr_t addr[MAX_LOOKUPS];
	char *text;
	void *buf;
	size_t i, n;

	/* A terminated copy only to pick addresses from. */
	text = malloc(size + 1);
	FUZZ_CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';
	n = pick_addresses(text, addr);
	free(text);

	buf = fuzz_exact_copy(data, size);
	lookup(buf, size, 0);
	lookup(buf, size, UINTPTR_MAX);
	for (i = 0; i < n; i++)
		lookup(buf, size, addr[i]);
	free(buf);
	return 0;
}
