// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device netlink parsers (verbs_nl_parse_dev_dump() and
 * verbs_nl_parse_chardev(), ibverbs.h) on one received datagram.  The
 * sequence number and port they expect come from the first message, as
 * the kernel addresses its answer to the requester; the device looked
 * for is the Soft-RoCE guest's rxe0 (the recorded dumps list it).
 */
#include <string.h>

#include "ibverbs.h"
#include "fuzz_common.h"

static void check(const void *buf, size_t size, uint32_t seq, uint32_t pid)
{
	struct verbs_nl_devinfo info;
	struct verbs_nl_query q = { .name = "rxe0", .info = &info };
	int ret;

	memset(&info, 0, sizeof(info));
	ret = verbs_nl_parse_dev_dump(&q, buf, size, seq, pid);
	FUZZ_CHECK(ret == 0 || ret == 1 || FUZZ_IS_NEG_ERRNO(ret));

	memset(&info, 0, sizeof(info));
	q.found = false;
	ret = verbs_nl_parse_chardev(&q, buf, size, seq, pid);
	FUZZ_CHECK(ret == 0 || ret == 1 || FUZZ_IS_NEG_ERRNO(ret));
	/* Only the dump finds devices. */
	FUZZ_CHECK(!q.found);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t seq = 0, pid = 0;
	void *buf;

	/* struct nlmsghdr: len, type, flags, seq, pid. */
	if (size >= 16) {
		memcpy(&seq, data + 8, sizeof(seq));
		memcpy(&pid, data + 12, sizeof(pid));
	}

	buf = fuzz_exact_copy(data, size);
	check(buf, size, seq, pid);
	free(buf);

	/* libmnl's attribute getters are not instrumented: fault instead. */
	buf = fuzz_guarded_copy(data, size);
	if (buf)
		check(buf, size, seq, pid);
	return 0;
}
