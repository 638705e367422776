/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * <infiniband/arch.h>: kept only so that old code still builds.  It used
 * to carry byte-order helpers and memory barriers; the barriers are gone,
 * and new code should use htobe64()/be64toh() from <endian.h> directly.
 */
#ifndef INFINIBAND_ARCH_H
#define INFINIBAND_ARCH_H

#include <stdint.h>
#include <endian.h>

#warning "This header is obsolete."

#ifndef ntohll
#undef htonll

/*
 * __BYTE_ORDER is there even in strict ISO mode, htobe64() is not.  The
 * swap is its own inverse, so both directions are the same operation.
 */
#if __BYTE_ORDER == __LITTLE_ENDIAN
#define __IBV_ARCH_SWAP64(v) __builtin_bswap64(v)
#else
#define __IBV_ARCH_SWAP64(v) (v)
#endif

static inline __attribute__((deprecated)) uint64_t htonll(uint64_t v)
{
	return __IBV_ARCH_SWAP64(v);
}

static inline __attribute__((deprecated)) uint64_t ntohll(uint64_t v)
{
	return __IBV_ARCH_SWAP64(v);
}

#undef __IBV_ARCH_SWAP64

/* Let "#ifdef ntohll" style probes find them. */
#define htonll htonll
#define ntohll ntohll
#endif

#endif /* INFINIBAND_ARCH_H */
