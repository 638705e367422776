// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The IBVERBS_1.0 compat entries on the host, without a device: a binary
 * bound to them (tests/guest/compat/verbs_1_0.h) finds every one in the
 * built library, as its own symbol beside the 1.1 one; the 1.0 device
 * list is consistent with the 1.1 list; and every entry refuses a NULL
 * object with the errno of its 1.1 verb instead of crashing, as rdma-core's
 * compat layer would.  Under ASan, nothing leaks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "verbs_1_0.h"

static const char *lib_of(void *addr)
{
	Dl_info info;

	if (!addr || !dladdr(addr, &info) || !info.dli_fname)
		return "";
	return info.dli_fname;
}

static void check_binding(void)
{
	void *lib_sym = dlsym(RTLD_DEFAULT, "ibv_get_device_list");
	const char *lib = lib_of(lib_sym);
	size_t i;

	CHECK(strstr(lib, "libibverbs.so.1"), "the 1.1 entry is in %s", lib);
	for (i = 0; i < sizeof(v10_entries) / sizeof(v10_entries[0]); i++) {
		const struct v10_entry *e = &v10_entries[i];
		void *versioned = dlvsym(RTLD_DEFAULT, e->name, e->version);
		void *dflt = dlsym(RTLD_DEFAULT, e->name);

		CHECK(versioned && versioned == e->bound &&
			      !strcmp(lib_of(versioned), lib) &&
			      versioned != dflt,
		      "%s@%s: bound, in the library, not the default version",
		      e->name, e->version);
	}
}

static void check_device_list(void)
{
	struct ibv_device_1_0 **list;
	struct ibv_device **real;
	int n = -1, m = -1, i, same = 1;

	list = v10_get_device_list(&n);
	real = ibv_get_device_list(&m);
	if (!CHECK(list && real, "1.0 and 1.1 device lists (%s)",
		   list && real ? "ok" : strerror(errno)))
		goto out;
	CHECK(n == m && !list[n],
	      "as many devices as the 1.1 list (%d, %d), "
	      "NULL-terminated",
	      n, m);
	for (i = 0; i < n && i < m; i++)
		same &= list[i]->real_device &&
			!strcmp(v10_get_device_name(list[i]),
				ibv_get_device_name(real[i]));
	CHECK(same, "the same devices, by name");
	tap_note("%d device(s) on this host", n);
out:
	v10_free_device_list(list);
	ibv_free_device_list(real);
}

/* An int verb on NULL: EINVAL (close_device: -1 and errno EINVAL). */
static void check_nulls(void)
{
	struct ibv_qp_init_attr_1_0 qinit = { .qp_type = IBV_QPT_UD };
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 1 } };
	struct ibv_ah_attr ah_attr = { .port_num = 1 };
	struct ibv_async_event ev;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_qp_attr qattr;
	struct ibv_srq_attr sattr;
	struct ibv_cq_1_0 *cq;
	union ibv_gid gid;
	void *cq_ctx;
	__be16 pkey;
	char buf[64];

	CHECK(!v10_get_device_name(NULL) && errno == EINVAL,
	      "get_device_name(NULL): NULL, EINVAL");
	CHECK(!v10_get_device_guid(NULL), "get_device_guid(NULL): 0");
	errno = 0;
	CHECK(!v10_open_device(NULL) && errno == EINVAL,
	      "open_device(NULL): NULL, EINVAL");
	errno = 0;
	CHECK(v10_close_device(NULL) == -1 && errno == EINVAL,
	      "close_device(NULL): -1, EINVAL");
	CHECK(v10_query_device(NULL, &dattr) == EINVAL,
	      "query_device(NULL): EINVAL");
	CHECK(v10_query_port(NULL, 1, &pattr) == EINVAL,
	      "query_port(NULL): EINVAL");
	CHECK(v10_query_gid(NULL, 1, 0, &gid) != 0, "query_gid(NULL) fails");
	CHECK(v10_query_pkey(NULL, 1, 0, &pkey) != 0, "query_pkey(NULL) fails");
	errno = 0;
	CHECK(v10_get_async_event(NULL, &ev) == -1 && errno == EINVAL,
	      "get_async_event(NULL): -1, EINVAL");
	errno = 0;
	CHECK(!v10_alloc_pd(NULL) && errno == EINVAL,
	      "alloc_pd(NULL): NULL, EINVAL");
	CHECK(v10_dealloc_pd(NULL) == EINVAL, "dealloc_pd(NULL): EINVAL");
	errno = 0;
	CHECK(!v10_reg_mr(NULL, buf, sizeof(buf), 0) && errno == EINVAL,
	      "reg_mr(NULL): NULL, EINVAL");
	CHECK(v10_dereg_mr(NULL) == EINVAL, "dereg_mr(NULL): EINVAL");
	errno = 0;
	CHECK(!v10_create_cq(NULL, 1, NULL, NULL, 0) && errno == EINVAL,
	      "create_cq(NULL): NULL, EINVAL");
	CHECK(v10_resize_cq(NULL, 8) == EINVAL, "resize_cq(NULL): EINVAL");
	CHECK(v10_destroy_cq(NULL) == EINVAL, "destroy_cq(NULL): EINVAL");
	errno = 0;
	CHECK(v10_get_cq_event(NULL, &cq, &cq_ctx) == -1 && errno == EINVAL,
	      "get_cq_event(NULL channel): -1, EINVAL");
	errno = 0;
	CHECK(!v10_create_srq(NULL, &sinit) && errno == EINVAL,
	      "create_srq(NULL): NULL, EINVAL");
	CHECK(v10_modify_srq(NULL, &sattr, IBV_SRQ_LIMIT) == EINVAL,
	      "modify_srq(NULL): EINVAL");
	CHECK(v10_query_srq(NULL, &sattr) == EINVAL, "query_srq(NULL): EINVAL");
	CHECK(v10_destroy_srq(NULL) == EINVAL, "destroy_srq(NULL): EINVAL");
	errno = 0;
	CHECK(!v10_create_qp(NULL, &qinit) && errno == EINVAL,
	      "create_qp(NULL): NULL, EINVAL");
	errno = 0;
	CHECK(!v10_create_qp(NULL, NULL) && errno == EINVAL,
	      "create_qp(NULL, NULL): NULL, EINVAL");
	CHECK(v10_query_qp(NULL, &qattr, IBV_QP_STATE, &qinit) == EINVAL,
	      "query_qp(NULL): EINVAL");
	CHECK(v10_modify_qp(NULL, &qattr, IBV_QP_STATE) == EINVAL,
	      "modify_qp(NULL): EINVAL");
	CHECK(v10_destroy_qp(NULL) == EINVAL, "destroy_qp(NULL): EINVAL");
	CHECK(v10_attach_mcast(NULL, &gid, 0) == EINVAL,
	      "attach_mcast(NULL): EINVAL");
	CHECK(v10_detach_mcast(NULL, &gid, 0) == EINVAL,
	      "detach_mcast(NULL): EINVAL");
	errno = 0;
	CHECK(!v10_create_ah(NULL, &ah_attr) && errno == EINVAL,
	      "create_ah(NULL): NULL, EINVAL");
	CHECK(v10_destroy_ah(NULL) == EINVAL, "destroy_ah(NULL): EINVAL");

	/* void entries: no crash is the check. */
	v10_free_device_list(NULL);
	v10_ack_cq_events(NULL, 1);
	v10_ack_async_event(NULL);
	CHECK(1, "free_device_list, ack_cq_events, ack_async_event on NULL");
}

static struct ibv_device *never_called(const char *path, int abi_version)
{
	return NULL;
}

/* Accepted and ignored: the device list is what it was. */
static void check_register_driver(void)
{
	struct ibv_device **before, **after;
	int n = -1, m = -2;

	before = ibv_get_device_list(&n);
	v11_register_driver("compat_test", never_called);
	v11_register_driver(NULL, NULL);
	after = ibv_get_device_list(&m);
	CHECK(before && after && n == m,
	      "ibv_register_driver@IBVERBS_1.1 returns, devices unchanged");
	ibv_free_device_list(before);
	ibv_free_device_list(after);
}

int main(void)
{
	check_binding();
	check_device_list();
	check_nulls();
	check_register_driver();
	return tap_done();
}
