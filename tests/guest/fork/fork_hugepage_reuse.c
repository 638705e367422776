// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Legacy mode with RDMAV_HUGEPAGES_SAFE: a registration cache unmaps a
 * huge page before deregistering the MR on it, then the address is reused
 * for a new huge page and registered again.  The new registration must
 * mark the page (VmFlags "dc"), or a child forked on a kernel that does
 * not copy pinned pages shares it with the device.
 *
 * This failed while deregistration looked the page size up again: after
 * the unmap the look-up found nothing, 4 KiB of the huge page were
 * released and the rest stayed counted.  rdma-core 44 looks it up again
 * too, so the final checks are guarantees of this library ("# guard").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fork_util.h"

#define HUGE_SIZE (2UL << 20)

int main(void)
{
	struct ibv_mr *mr, *again;
	struct gc_dev dev;
	uint8_t *huge, *reuse;

	if (!fu_start("fork_hugepage_reuse") ||
	    !gc_ok(fu_legacy_mode() && getenv("RDMAV_HUGEPAGES_SAFE"),
		   "legacy mode with RDMAV_HUGEPAGES_SAFE") ||
	    !gc_ok(!gc_dev_open(&dev, 0), "open rxe0"))
		return gc_finish();

	huge = fu_map_huge(NULL, HUGE_SIZE);
	if (!huge && errno == ENOMEM) {
		gc_skip("no huge pages in this guest");
		gc_dev_close(&dev);
		return gc_finish();
	}
	if (!gc_ok(huge != NULL, "map a 2 MiB huge page%s%s",
		   huge ? "" : ": ", huge ? "" : strerror(errno)))
		return gc_finish();

	mr = ibv_reg_mr(dev.pd, huge + 4096, 8192, IBV_ACCESS_LOCAL_WRITE);
	gc_ok(mr && fu_page_dontfork(huge) == 1,
	      "an MR on part of it marks the whole huge page");
	munmap(huge, HUGE_SIZE);
	gc_ok(mr && ibv_dereg_mr(mr) == 0,
	      "deregistering after the unmap succeeds");

	reuse = fu_map_huge(huge, HUGE_SIZE);
	if (!gc_ok(reuse == huge, "a new huge page at the same address"))
		goto out;
	again = ibv_reg_mr(dev.pd, huge + 4096, 8192, IBV_ACCESS_LOCAL_WRITE);
	gc_guard(again != NULL, "registering it again succeeds: %s",
		 again ? "yes" : strerror(errno));
	gc_guard(fu_page_dontfork(huge) == 1,
		 "the new registration marks the page again");
	if (again) {
		gc_ok(ibv_dereg_mr(again) == 0, "deregister it");
		gc_guard(fu_page_dontfork(huge) == 0,
			 "the last deregistration clears the mark");
	}
	munmap(huge, HUGE_SIZE);
out:
	gc_dev_close(&dev);
	return gc_finish();
}
