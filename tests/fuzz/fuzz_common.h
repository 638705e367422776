/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the fuzz targets in tests/fuzz.
 *
 * Each target defines LLVMFuzzerTestOneInput().  Built with
 * -DENABLE_FUZZERS=ON it links libFuzzer; otherwise replay.c supplies a
 * main() that runs it on the corpus, which is how the corpus becomes a
 * regular ctest.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A broken promise of the code under test: report it and abort, which
 * both libFuzzer and the replay runner count as a crash.
 */
#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			abort();                                               \
		}                                                              \
	} while (0)

/* A negative errno as the parsers return them (the kernel's range). */
#define FUZZ_IS_NEG_ERRNO(ret) ((ret) < 0 && (ret) >= -4095)

/*
 * A copy of the input in a buffer of exactly @size bytes, so that
 * AddressSanitizer flags any read past it.  Never NULL (aborts).
 */
void *fuzz_exact_copy(const uint8_t *data, size_t size);

/*
 * A copy of the input that ends where an inaccessible page begins, for
 * code that AddressSanitizer does not see (libmnl is not instrumented):
 * reading past the input faults.  The start stays 4-byte aligned as
 * netlink requires, so up to 3 bytes after an input whose size is not a
 * multiple of 4 are still readable.  NULL if the input is too big for the
 * region; the copy lives until the next call.
 */
void *fuzz_guarded_copy(const uint8_t *data, size_t size);

#endif /* FUZZ_COMMON_H */
