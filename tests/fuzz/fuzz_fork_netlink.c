// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fork_nl_parse_sys_reply() (fork_netlink.h) on one received datagram, as
 * the copy-on-fork query hands it over.  The sequence number the parser
 * waits for is taken from the first message, so that recorded answers are
 * accepted, and once more off by one, so that they are skipped.
 */
#include <errno.h>
#include <string.h>

#include "fork_netlink.h"
#include "fuzz_common.h"

static void check(const void *buf, size_t size, unsigned int seq)
{
	int ret = fork_nl_parse_sys_reply(buf, size, seq);

	/* 1, 0, -EAGAIN or an errno: nothing else is promised. */
	FUZZ_CHECK(ret == 0 || ret == 1 || FUZZ_IS_NEG_ERRNO(ret));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int seq = 0;
	void *buf;

	/* struct nlmsghdr: len, type, flags, then the sequence number. */
	if (size >= 12)
		memcpy(&seq, data + 8, sizeof(seq));

	buf = fuzz_exact_copy(data, size);
	check(buf, size, seq);
	check(buf, size, seq + 1);
	free(buf);

	buf = fuzz_guarded_copy(data, size);
	if (buf) {
		check(buf, size, seq);
		check(buf, size, seq + 1);
	}
	return 0;
}
