// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Legacy tracking leaves on-demand paging MRs alone, as rdma-core 44 does
 * (its ibv_reg_mr_iova2() and ibv_dereg_mr() skip the MADV_DONTFORK
 * calls for IBV_ACCESS_ON_DEMAND): the kernel pins none of their pages.
 *
 * Where the device supports ODP for RC (odp_caps), the registration must
 * succeed and leave its pages without VmFlags "dc", also after
 * deregistration.  Where it does not (rxe on 6.1), the kernel refuses the
 * command (EINVAL from rxe on 6.1, EOPNOTSUPP from the core's access check
 * on other kernels: the library passes on what the kernel says, as
 * upstream does); then what can be shown is that the tracker was
 * not touched: memory the application marked MADV_DONTFORK itself keeps
 * its mark after the failed registration (a tracker that counted the
 * range would release it with MADV_DOFORK on the failure).
 *
 * Legacy mode only (RDMAV_COPY_ON_FORK=0 and ibv_fork_init()); the same
 * binary passes on Debian's library.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fork_util.h"

#define PAGES 4

static bool unmarked(const uint8_t *p, long page)
{
	int i;

	for (i = 0; i < PAGES; i++)
		if (fu_page_dontfork(p + i * page) != 0)
			return false;
	return true;
}

static bool marked(const uint8_t *p, long page)
{
	int i;

	for (i = 0; i < PAGES; i++)
		if (fu_page_dontfork(p + i * page) != 1)
			return false;
	return true;
}

static bool odp_rc_supported(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr = {};

	if (ibv_query_device_ex(ctx, NULL, &attr))
		return false;
	return (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
	       (attr.odp_caps.per_transport_caps.rc_odp_caps &
		IBV_ODP_SUPPORT_SEND);
}

int main(void)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND;
	long page = sysconf(_SC_PAGESIZE);
	struct gc_dev dev;
	uint8_t *a, *b;
	struct ibv_mr *mr;
	bool odp;
	int err;

	if (!fu_start("fork_odp"))
		return gc_finish();
	if (!fu_legacy_mode()) {
		gc_skip("legacy mode only (RDMAV_COPY_ON_FORK=0)");
		return gc_finish();
	}
	a = fu_map(PAGES * page);
	b = fu_map(PAGES * page);
	if (!gc_ok(a && b && !gc_dev_open(&dev, 0), "device and mappings"))
		return gc_finish();
	memset(a, 1, PAGES * page);
	memset(b, 1, PAGES * page);
	odp = odp_rc_supported(dev.ctx);
	gc_diag("device reports ODP for RC: %s", odp ? "yes" : "no");

	/* The application's own MADV_DONTFORK on b, before registering. */
	if (!gc_ok(!madvise(b, PAGES * page, MADV_DONTFORK) && marked(b, page),
		   "the application marks b MADV_DONTFORK itself"))
		goto out;

	mr = ibv_reg_mr(dev.pd, a, PAGES * page, access);
	err = errno;
	if (mr) {
		gc_ok(odp, "an ODP registration succeeds only where the device "
			   "reports ODP");
		gc_ok(unmarked(a, page),
		      "a registered ODP range is not MADV_DONTFORK");
		gc_ok(!ibv_dereg_mr(mr) && unmarked(a, page),
		      "deregistered, still not MADV_DONTFORK");
		mr = ibv_reg_mr(dev.pd, b, PAGES * page, access);
		gc_ok(mr && !ibv_dereg_mr(mr) && marked(b, page),
		      "registering and deregistering b keeps the "
		      "application's mark");
	} else {
		gc_ok(!odp && (err == EINVAL || err == EOPNOTSUPP),
		      "without ODP the kernel refuses: errno %d (%s), "
		      "want EINVAL or EOPNOTSUPP",
		      err, strerror(err));
		gc_diag("no ODP here: showing that the tracker was not "
			"touched instead");
		gc_ok(unmarked(a, page), "a failed ODP registration leaves "
					 "no MADV_DONTFORK");
		mr = ibv_reg_mr(dev.pd, b, PAGES * page, access);
		err = errno;
		gc_ok(!mr && (err == EINVAL || err == EOPNOTSUPP) &&
			      marked(b, page),
		      "a failed ODP registration of b keeps the "
		      "application's MADV_DONTFORK (the tracker never counted "
		      "it, so never released it)");
		if (mr)
			ibv_dereg_mr(mr);
	}
out:
	gc_dev_close(&dev);
	fu_unmap(a, PAGES * page);
	fu_unmap(b, PAGES * page);
	return gc_finish();
}
