/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host tests with no RDMA device: the empty device list, and what every
 * exported verb that takes an object pointer does with NULL.
 *
 * Each check runs in a process of its own (this binary re-executed with
 * "--check NAME" and SYSFS_PATH pointing at a directory with no devices),
 * with its stdout and stderr captured:
 *  - a crash or a hang fails that check alone and is reported as such;
 *  - the library never prints, so any output at all fails the check (under
 *    ASan this also catches leak and error reports);
 *  - environment variables are read by the library when it pleases, so
 *    setting SYSFS_PATH before exec is the only reliable way.
 * A check's own diagnostics go to file descriptor 3, a pipe to the parent.
 *
 * The expected errors are those of the man pages: pointer-returning verbs
 * give NULL with errno EINVAL, "errno value" verbs return EINVAL, "-1 on
 * error" verbs return -1 with errno EINVAL.  Verbs that verbs.h implements
 * inline (ibv_query_device_ex, ibv_create_cq_ex, ibv_alloc_mw, ...) read
 * the context before the library is reached, as upstream's do, and are not
 * tested with NULL here.
 *
 * Output: "ok N - name" or "not ok N - name: why" per check and a last
 * line "N passed, M failed".  Exit status 0 when nothing failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>
/* Not installed by rdma-core 44 as Debian packages it; ours is the source. */
#if __has_include(<infiniband/marshall.h>)
#include <infiniband/marshall.h>
#else
#include "../../../libibverbs/marshall.h"
#endif

/*
 * Exported by libibverbs.so.1 but, as upstream, declared in no installed
 * header.
 */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port_num,
		       unsigned int index, unsigned int *type);

#define REPORT_FD	3
#define CHECK_TIMEOUT	60	/* seconds; a hang is a failure */

/* A check's verdict, written to REPORT_FD; returns 1 (failed). */
static __attribute__((format(printf, 1, 2))) int why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdprintf(REPORT_FD, fmt, ap);
	va_end(ap);
	return 1;
}

/* NULL with errno EINVAL. */
static int want_null(const void *p, const char *call)
{
	if (p)
		return why("%s returned %p, want NULL", call, p);
	if (errno != EINVAL)
		return why("%s: errno %d (%s), want EINVAL", call, errno,
			   strerror(errno));
	return 0;
}

/* The errno value itself as the return value. */
static int want_einval(int ret, const char *call)
{
	if (ret != EINVAL)
		return why("%s returned %d, want EINVAL (%d)", call, ret,
			   EINVAL);
	return 0;
}

/* -1 with errno EINVAL. */
static int want_minus1(int ret, const char *call)
{
	if (ret != -1)
		return why("%s returned %d, want -1", call, ret);
	if (errno != EINVAL)
		return why("%s: errno %d (%s), want EINVAL", call, errno,
			   strerror(errno));
	return 0;
}

#define NULL_EINVAL(call)	(errno = 0, want_null((call), #call))
#define RET_EINVAL(call)	(errno = 0, want_einval((call), #call))
#define MINUS1_EINVAL(call)	(errno = 0, want_minus1((call), #call))

/* --- the device list -------------------------------------------------- */

static int expect_empty_list(void)
{
	struct ibv_device **list;
	int num = -1;

	errno = 0;
	list = ibv_get_device_list(&num);
	if (!list)
		return why("ibv_get_device_list returned NULL, errno %d (%s)",
			   errno, strerror(errno));
	if (num != 0 || list[0]) {
		why("num_devices %d, first entry %p: want 0 and NULL", num,
		    (void *)list[0]);
		ibv_free_device_list(list);
		return 1;
	}
	ibv_free_device_list(list);
	return 0;
}

static int chk_list_empty_dir(void)
{
	return expect_empty_list();
}

static int chk_list_null_num(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (!list)
		return why("ibv_get_device_list(NULL) returned NULL, errno %d",
			   errno);
	if (list[0]) {
		ibv_free_device_list(list);
		return why("list not empty");
	}
	ibv_free_device_list(list);
	return 0;
}

static int chk_list_twice(void)
{
	struct ibv_device **a, **b;
	int na = -1, nb = -1;

	a = ibv_get_device_list(&na);
	b = ibv_get_device_list(&nb);
	if (!a || !b || na || nb) {
		why("lists %p %p, counts %d %d", (void *)a, (void *)b, na, nb);
		ibv_free_device_list(a);
		ibv_free_device_list(b);
		return 1;
	}
	/* Freed in the other order than taken: each list is its own. */
	ibv_free_device_list(a);
	ibv_free_device_list(b);
	return 0;
}

static int chk_free_list_null(void)
{
	ibv_free_device_list(NULL);
	return 0;
}

static int chk_sysfs_path(void)
{
	const char *want = getenv("SYSFS_PATH");
	const char *got = ibv_get_sysfs_path();

	if (!got || !want || strcmp(got, want))
		return why("ibv_get_sysfs_path() is \"%s\", SYSFS_PATH \"%s\"",
			   got ? got : "(null)", want ? want : "(unset)");
	return 0;
}

/* --- devices and contexts --------------------------------------------- */

static int chk_open_device(void)
{
	return NULL_EINVAL(ibv_open_device(NULL));
}

static int chk_close_device(void)
{
	return MINUS1_EINVAL(ibv_close_device(NULL));
}

static int chk_device_name(void)
{
	const char *name = ibv_get_device_name(NULL);

	return name ? why("ibv_get_device_name(NULL) = \"%s\"", name) : 0;
}

static int chk_device_guid(void)
{
	__be64 guid = ibv_get_device_guid(NULL);

	return guid ? why("ibv_get_device_guid(NULL) = %#llx",
			  (unsigned long long)guid) : 0;
}

static int chk_device_index(void)
{
	int idx = ibv_get_device_index(NULL);

	return idx != -1 ? why("ibv_get_device_index(NULL) = %d", idx) : 0;
}

static int chk_import_device(void)
{
	struct ibv_context *ctx;
	int fd;

	errno = 0;
	ctx = ibv_import_device(-1);
	if (ctx)
		return why("ibv_import_device(-1) returned a context");
	/* Not a uverbs device: a plain file. */
	fd = open("/dev/null", O_RDWR);
	if (fd < 0)
		return why("open /dev/null: %s", strerror(errno));
	ctx = ibv_import_device(fd);
	close(fd);
	if (ctx)
		return why("ibv_import_device(/dev/null) returned a context");
	return 0;
}

static int chk_query_device(void)
{
	struct ibv_device_attr attr;

	return RET_EINVAL(ibv_query_device(NULL, &attr));
}

static int chk_query_port(void)
{
	struct ibv_port_attr attr;

	/* The exported symbol, not verbs.h's inline wrapper. */
	return RET_EINVAL((ibv_query_port)(NULL, 1,
					   (struct _compat_ibv_port_attr *)&attr));
}

static int chk_query_gid(void)
{
	union ibv_gid gid;

	return MINUS1_EINVAL(ibv_query_gid(NULL, 1, 0, &gid));
}

static int chk_query_gid_ex(void)
{
	struct ibv_gid_entry entry;

	return RET_EINVAL(ibv_query_gid_ex(NULL, 1, 0, &entry, 0));
}

static int chk_query_gid_table(void)
{
	struct ibv_gid_entry entries[4];
	ssize_t n;

	n = ibv_query_gid_table(NULL, entries, 4, 0);
	if (n != -EINVAL)
		return why("ibv_query_gid_table(NULL) = %zd, want -EINVAL", n);
	return 0;
}

static int chk_query_gid_type(void)
{
	unsigned int type;

	return ibv_query_gid_type(NULL, 1, 0, &type) ?
		0 : why("ibv_query_gid_type(NULL) succeeded");
}

static int chk_query_pkey(void)
{
	__be16 pkey;

	return MINUS1_EINVAL(ibv_query_pkey(NULL, 1, 0, &pkey));
}

static int chk_get_pkey_index(void)
{
	int idx = ibv_get_pkey_index(NULL, 1, 0xffff);

	return idx != -1 ? why("ibv_get_pkey_index(NULL) = %d", idx) : 0;
}

static int chk_get_async_event(void)
{
	struct ibv_async_event ev;

	return MINUS1_EINVAL(ibv_get_async_event(NULL, &ev));
}

static int chk_ack_async_event(void)
{
	ibv_ack_async_event(NULL);
	return 0;
}

static int chk_read_sysfs_file(void)
{
	char buf[64];
	int ret;

	ret = ibv_read_sysfs_file(NULL, "node_guid", buf, sizeof(buf));
	if (ret >= 0)
		return why("ibv_read_sysfs_file(NULL dir) = %d", ret);
	ret = ibv_read_sysfs_file("/nonexistent", NULL, buf, sizeof(buf));
	if (ret >= 0)
		return why("ibv_read_sysfs_file(NULL file) = %d", ret);
	ret = ibv_read_sysfs_file("/nonexistent", "x", NULL, 16);
	if (ret >= 0)
		return why("ibv_read_sysfs_file(NULL buf) = %d", ret);
	return 0;
}

/* --- PD, MR ------------------------------------------------------------ */

static int chk_alloc_pd(void)
{
	return NULL_EINVAL(ibv_alloc_pd(NULL));
}

static int chk_dealloc_pd(void)
{
	return RET_EINVAL(ibv_dealloc_pd(NULL));
}

static int chk_import_pd(void)
{
	return NULL_EINVAL(ibv_import_pd(NULL, 1));
}

static int chk_unimport_pd(void)
{
	ibv_unimport_pd(NULL);
	return 0;
}

static char mr_buf[8192] __attribute__((aligned(4096)));

static int chk_reg_mr(void)
{
	return NULL_EINVAL(ibv_reg_mr(NULL, mr_buf, sizeof(mr_buf),
				      IBV_ACCESS_LOCAL_WRITE)) ||
	       /* Not a constant: reaches the library through reg_mr_iova2. */
	       NULL_EINVAL(ibv_reg_mr(NULL, mr_buf, sizeof(mr_buf),
				      getpid() ? IBV_ACCESS_LOCAL_WRITE : 0));
}

static int chk_reg_mr_iova(void)
{
	return NULL_EINVAL(ibv_reg_mr_iova(NULL, mr_buf, sizeof(mr_buf),
					   0x10000, IBV_ACCESS_LOCAL_WRITE));
}

static int chk_reg_mr_iova2(void)
{
	return NULL_EINVAL(ibv_reg_mr_iova2(NULL, mr_buf, sizeof(mr_buf),
					    0x10000, IBV_ACCESS_LOCAL_WRITE));
}

static int chk_reg_dmabuf_mr(void)
{
	return NULL_EINVAL(ibv_reg_dmabuf_mr(NULL, 0, 4096, 0, -1,
					     IBV_ACCESS_LOCAL_WRITE));
}

static int chk_dereg_mr(void)
{
	return RET_EINVAL(ibv_dereg_mr(NULL));
}

static int chk_rereg_mr(void)
{
	int ret;

	errno = 0;
	ret = ibv_rereg_mr(NULL, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE);
	if (ret != IBV_REREG_MR_ERR_INPUT)
		return why("ibv_rereg_mr(NULL) = %d, want IBV_REREG_MR_ERR_INPUT",
			   ret);
	if (errno != EINVAL)
		return why("ibv_rereg_mr(NULL): errno %d, want EINVAL", errno);
	return 0;
}

static int chk_import_mr(void)
{
	return NULL_EINVAL(ibv_import_mr(NULL, 1));
}

static int chk_unimport_mr(void)
{
	ibv_unimport_mr(NULL);
	return 0;
}

static int chk_import_dm(void)
{
	return NULL_EINVAL(ibv_import_dm(NULL, 1));
}

static int chk_unimport_dm(void)
{
	ibv_unimport_dm(NULL);
	return 0;
}

/* --- CQ, completion channel ------------------------------------------- */

static int chk_create_cq(void)
{
	return NULL_EINVAL(ibv_create_cq(NULL, 16, NULL, NULL, 0));
}

static int chk_destroy_cq(void)
{
	return RET_EINVAL(ibv_destroy_cq(NULL));
}

static int chk_resize_cq(void)
{
	return RET_EINVAL(ibv_resize_cq(NULL, 32));
}

static int chk_create_comp_channel(void)
{
	return NULL_EINVAL(ibv_create_comp_channel(NULL));
}

static int chk_destroy_comp_channel(void)
{
	return RET_EINVAL(ibv_destroy_comp_channel(NULL));
}

static int chk_get_cq_event(void)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	return MINUS1_EINVAL(ibv_get_cq_event(NULL, &cq, &cq_ctx));
}

static int chk_ack_cq_events(void)
{
	ibv_ack_cq_events(NULL, 1);
	return 0;
}

/* --- QP, SRQ, AH, multicast, ECE -------------------------------------- */

static int chk_create_qp(void)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return NULL_EINVAL(ibv_create_qp(NULL, &attr));
}

static int chk_destroy_qp(void)
{
	return RET_EINVAL(ibv_destroy_qp(NULL));
}

static int chk_modify_qp(void)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT };

	return RET_EINVAL(ibv_modify_qp(NULL, &attr, IBV_QP_STATE));
}

static int chk_query_qp(void)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	return RET_EINVAL(ibv_query_qp(NULL, &attr, IBV_QP_STATE, &init));
}

static int chk_qp_to_qp_ex(void)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(NULL);

	return qpx ? why("ibv_qp_to_qp_ex(NULL) = %p", (void *)qpx) : 0;
}

static int chk_query_qp_data_in_order(void)
{
	int ret = ibv_query_qp_data_in_order(NULL, IBV_WR_SEND, 0);

	return ret ? why("ibv_query_qp_data_in_order(NULL) = %d, want 0",
			 ret) : 0;
}

static int chk_create_srq(void)
{
	struct ibv_srq_init_attr attr = {
		.attr = { .max_wr = 1, .max_sge = 1 },
	};

	return NULL_EINVAL(ibv_create_srq(NULL, &attr));
}

static int chk_destroy_srq(void)
{
	return RET_EINVAL(ibv_destroy_srq(NULL));
}

static int chk_modify_srq(void)
{
	struct ibv_srq_attr attr = { .max_wr = 2 };

	return RET_EINVAL(ibv_modify_srq(NULL, &attr, IBV_SRQ_MAX_WR));
}

static int chk_query_srq(void)
{
	struct ibv_srq_attr attr;

	return RET_EINVAL(ibv_query_srq(NULL, &attr));
}

static int chk_create_ah(void)
{
	struct ibv_ah_attr attr = { .port_num = 1 };

	return NULL_EINVAL(ibv_create_ah(NULL, &attr));
}

static int chk_destroy_ah(void)
{
	return RET_EINVAL(ibv_destroy_ah(NULL));
}

static int chk_init_ah_from_wc(void)
{
	struct ibv_wc wc = { 0 };
	struct ibv_grh grh = { 0 };
	struct ibv_ah_attr attr;

	return MINUS1_EINVAL(ibv_init_ah_from_wc(NULL, 1, &wc, &grh, &attr));
}

static int chk_create_ah_from_wc(void)
{
	struct ibv_wc wc = { 0 };
	struct ibv_grh grh = { 0 };

	return NULL_EINVAL(ibv_create_ah_from_wc(NULL, &wc, &grh, 1));
}

static int chk_resolve_eth_l2(void)
{
	struct ibv_ah_attr attr = { .port_num = 1 };
	uint8_t mac[6];
	uint16_t vid;

	return ibv_resolve_eth_l2_from_gid(NULL, &attr, mac, &vid) ?
		0 : why("ibv_resolve_eth_l2_from_gid(NULL) succeeded");
}

static int chk_attach_mcast(void)
{
	union ibv_gid gid = { .raw = { 0xff, 0x0e } };

	return RET_EINVAL(ibv_attach_mcast(NULL, &gid, 0));
}

static int chk_detach_mcast(void)
{
	union ibv_gid gid = { .raw = { 0xff, 0x0e } };

	return RET_EINVAL(ibv_detach_mcast(NULL, &gid, 0));
}

static int chk_query_ece(void)
{
	struct ibv_ece ece;

	return RET_EINVAL(ibv_query_ece(NULL, &ece));
}

static int chk_set_ece(void)
{
	struct ibv_ece ece = { 0 };

	return RET_EINVAL(ibv_set_ece(NULL, &ece));
}

/* --- helpers that copy kernel structures ------------------------------ */

static int chk_copy_helpers(void)
{
	struct ib_uverbs_qp_attr kqp = { 0 };
	struct ibv_qp_attr qp;
	struct ib_uverbs_ah_attr kah = { 0 };
	struct ibv_ah_attr ah;
	struct ib_user_path_rec kpath = { 0 };
	struct ibv_sa_path_rec path = { 0 };

	/* No error channel: surviving NULL on either side is the test. */
	ibv_copy_qp_attr_from_kern(NULL, &kqp);
	ibv_copy_qp_attr_from_kern(&qp, NULL);
	ibv_copy_ah_attr_from_kern(NULL, &kah);
	ibv_copy_ah_attr_from_kern(&ah, NULL);
	ibv_copy_path_rec_from_kern(NULL, &kpath);
	ibv_copy_path_rec_from_kern(&path, NULL);
	ibv_copy_path_rec_to_kern(NULL, &path);
	ibv_copy_path_rec_to_kern(&kpath, NULL);
	return 0;
}

/* --- the runner -------------------------------------------------------- */

struct check {
	const char *name;
	int (*fn)(void);
	const char *sysfs;	/* NULL: the empty temp dir */
};

static const struct check checks[] = {
	{ "device list: empty SYSFS_PATH dir", chk_list_empty_dir, NULL },
	{ "device list: empty class dirs", chk_list_empty_dir, "classes" },
	{ "device list: SYSFS_PATH does not exist", chk_list_empty_dir,
	  "/nonexistent/sysfs" },
	{ "device list: num_devices NULL", chk_list_null_num, NULL },
	{ "device list: two lists at once", chk_list_twice, NULL },
	{ "ibv_free_device_list(NULL)", chk_free_list_null, NULL },
	{ "ibv_get_sysfs_path follows SYSFS_PATH", chk_sysfs_path, NULL },
	{ "ibv_open_device(NULL)", chk_open_device, NULL },
	{ "ibv_close_device(NULL)", chk_close_device, NULL },
	{ "ibv_get_device_name(NULL)", chk_device_name, NULL },
	{ "ibv_get_device_guid(NULL)", chk_device_guid, NULL },
	{ "ibv_get_device_index(NULL)", chk_device_index, NULL },
	{ "ibv_import_device(bad fd)", chk_import_device, NULL },
	{ "ibv_query_device(NULL)", chk_query_device, NULL },
	{ "ibv_query_port(NULL)", chk_query_port, NULL },
	{ "ibv_query_gid(NULL)", chk_query_gid, NULL },
	{ "ibv_query_gid_ex(NULL)", chk_query_gid_ex, NULL },
	{ "ibv_query_gid_table(NULL)", chk_query_gid_table, NULL },
	{ "ibv_query_gid_type(NULL)", chk_query_gid_type, NULL },
	{ "ibv_query_pkey(NULL)", chk_query_pkey, NULL },
	{ "ibv_get_pkey_index(NULL)", chk_get_pkey_index, NULL },
	{ "ibv_get_async_event(NULL)", chk_get_async_event, NULL },
	{ "ibv_ack_async_event(NULL)", chk_ack_async_event, NULL },
	{ "ibv_read_sysfs_file(NULL ...)", chk_read_sysfs_file, NULL },
	{ "ibv_alloc_pd(NULL)", chk_alloc_pd, NULL },
	{ "ibv_dealloc_pd(NULL)", chk_dealloc_pd, NULL },
	{ "ibv_import_pd(NULL)", chk_import_pd, NULL },
	{ "ibv_unimport_pd(NULL)", chk_unimport_pd, NULL },
	{ "ibv_reg_mr(NULL)", chk_reg_mr, NULL },
	{ "ibv_reg_mr_iova(NULL)", chk_reg_mr_iova, NULL },
	{ "ibv_reg_mr_iova2(NULL)", chk_reg_mr_iova2, NULL },
	{ "ibv_reg_dmabuf_mr(NULL)", chk_reg_dmabuf_mr, NULL },
	{ "ibv_dereg_mr(NULL)", chk_dereg_mr, NULL },
	{ "ibv_rereg_mr(NULL)", chk_rereg_mr, NULL },
	{ "ibv_import_mr(NULL)", chk_import_mr, NULL },
	{ "ibv_unimport_mr(NULL)", chk_unimport_mr, NULL },
	{ "ibv_import_dm(NULL)", chk_import_dm, NULL },
	{ "ibv_unimport_dm(NULL)", chk_unimport_dm, NULL },
	{ "ibv_create_cq(NULL)", chk_create_cq, NULL },
	{ "ibv_destroy_cq(NULL)", chk_destroy_cq, NULL },
	{ "ibv_resize_cq(NULL)", chk_resize_cq, NULL },
	{ "ibv_create_comp_channel(NULL)", chk_create_comp_channel, NULL },
	{ "ibv_destroy_comp_channel(NULL)", chk_destroy_comp_channel, NULL },
	{ "ibv_get_cq_event(NULL)", chk_get_cq_event, NULL },
	{ "ibv_ack_cq_events(NULL)", chk_ack_cq_events, NULL },
	{ "ibv_create_qp(NULL)", chk_create_qp, NULL },
	{ "ibv_destroy_qp(NULL)", chk_destroy_qp, NULL },
	{ "ibv_modify_qp(NULL)", chk_modify_qp, NULL },
	{ "ibv_query_qp(NULL)", chk_query_qp, NULL },
	{ "ibv_qp_to_qp_ex(NULL)", chk_qp_to_qp_ex, NULL },
	{ "ibv_query_qp_data_in_order(NULL)", chk_query_qp_data_in_order, NULL },
	{ "ibv_create_srq(NULL)", chk_create_srq, NULL },
	{ "ibv_destroy_srq(NULL)", chk_destroy_srq, NULL },
	{ "ibv_modify_srq(NULL)", chk_modify_srq, NULL },
	{ "ibv_query_srq(NULL)", chk_query_srq, NULL },
	{ "ibv_create_ah(NULL)", chk_create_ah, NULL },
	{ "ibv_destroy_ah(NULL)", chk_destroy_ah, NULL },
	{ "ibv_init_ah_from_wc(NULL)", chk_init_ah_from_wc, NULL },
	{ "ibv_create_ah_from_wc(NULL)", chk_create_ah_from_wc, NULL },
	{ "ibv_resolve_eth_l2_from_gid(NULL)", chk_resolve_eth_l2, NULL },
	{ "ibv_attach_mcast(NULL)", chk_attach_mcast, NULL },
	{ "ibv_detach_mcast(NULL)", chk_detach_mcast, NULL },
	{ "ibv_query_ece(NULL)", chk_query_ece, NULL },
	{ "ibv_set_ece(NULL)", chk_set_ece, NULL },
	{ "ibv_copy_*_kern(NULL)", chk_copy_helpers, NULL },
};

#define NUM_CHECKS (sizeof(checks) / sizeof(checks[0]))

/* In the re-executed child: run check @idx, exit 0 if it passed. */
static int run_one(const char *arg)
{
	char *end;
	long idx = strtol(arg, &end, 10);

	if (*end || idx < 0 || idx >= (long)NUM_CHECKS) {
		why("bad check index %s", arg);
		return 2;
	}
	alarm(CHECK_TIMEOUT);
	return checks[idx].fn() ? 1 : 0;
}

static char empty_dir[PATH_MAX];
static char class_dir[PATH_MAX];

static int make_dirs(void)
{
	char path[PATH_MAX + 64];
	const char *tmp = getenv("TMPDIR");

	snprintf(empty_dir, sizeof(empty_dir), "%s/noderv-empty.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	snprintf(class_dir, sizeof(class_dir), "%s/noderv-class.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(empty_dir) || !mkdtemp(class_dir))
		return -1;
	snprintf(path, sizeof(path), "%s/class", class_dir);
	if (mkdir(path, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/class/infiniband_verbs", class_dir);
	if (mkdir(path, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/class/infiniband", class_dir);
	return mkdir(path, 0755);
}

static void remove_dirs(void)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/class/infiniband_verbs", class_dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/class/infiniband", class_dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/class", class_dir);
	rmdir(path);
	rmdir(class_dir);
	rmdir(empty_dir);
}

/* Everything a file descriptor still has to give, into @buf. */
static size_t slurp(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got + 1 < len) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	buf[got] = '\0';
	return got;
}

static void print_indented(const char *label, const char *text)
{
	const char *p = text, *nl;

	printf("    %s:\n", label);
	while (*p) {
		nl = strchrnul(p, '\n');
		printf("    | %.*s\n", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

/* Run check @idx in a child process; returns 1 if it passed. */
static int run_check(const char *self, size_t idx)
{
	const struct check *c = &checks[idx];
	char reason[1024], output[4096], arg[16];
	int pipefd[2], status, out_fd;
	FILE *out;
	pid_t pid;
	size_t outlen;
	int passed;

	out = tmpfile();
	if (!out || pipe(pipefd)) {
		printf("not ok %zu - %s: cannot set up: %s\n", idx + 1,
		       c->name, strerror(errno));
		return 0;
	}
	out_fd = fileno(out);
	snprintf(arg, sizeof(arg), "%zu", idx);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		const char *sysfs = c->sysfs ? c->sysfs : empty_dir;

		if (c->sysfs && !strcmp(c->sysfs, "classes"))
			sysfs = class_dir;
		close(pipefd[0]);
		if (dup2(pipefd[1], REPORT_FD) < 0 || dup2(out_fd, 1) < 0 ||
		    dup2(out_fd, 2) < 0)
			_exit(127);
		setenv("SYSFS_PATH", sysfs, 1);
		execl(self, self, "--check", arg, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	slurp(pipefd[0], reason, sizeof(reason));
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	lseek(out_fd, 0, SEEK_SET);
	outlen = slurp(out_fd, output, sizeof(output));
	fclose(out);

	passed = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		 !outlen;
	printf("%sok %zu - %s", passed ? "" : "not ", idx + 1, c->name);
	if (pid < 0)
		printf(": fork: %s", strerror(errno));
	else if (WIFSIGNALED(status))
		printf(": killed by signal %d (%s)%s", WTERMSIG(status),
		       strsignal(WTERMSIG(status)),
		       WTERMSIG(status) == SIGALRM ? ", hung" : "");
	else if (WEXITSTATUS(status) == 127)
		printf(": could not run %s", self);
	else if (*reason)
		printf(": %s", reason);
	else if (outlen)
		printf(": the library printed something");
	printf("\n");
	if (outlen)
		print_indented("stdout and stderr", output);
	return passed;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	unsigned int passed = 0, failed = 0;
	ssize_t n;
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "--check"))
		return run_one(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: %s\n", argv[0]);
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		perror("readlink /proc/self/exe");
		return 2;
	}
	self[n] = '\0';
	if (make_dirs()) {
		perror("temporary directories");
		remove_dirs();
		return 2;
	}
	for (i = 0; i < NUM_CHECKS; i++) {
		if (run_check(self, i))
			passed++;
		else
			failed++;
	}
	remove_dirs();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
