// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The child guard of every command a provider plug-in can call
 * (IBVERBS_PRIVATE_34), without a device: on a context inherited across
 * fork() each create, modify, query, read or post fails with EPERM, in
 * errno too, and each destroy returns 0 -- and none of them issues a
 * command.  write() and ioctl() are redirected (-Wl,--wrap) to a stand-in
 * for the kernel that counts what reaches it and refuses it with EIO, so
 * a command that slipped past the guard shows as a count and as EIO.
 *
 * The objects are zeroed shells: a guard that looked at them before
 * refusing would fail here, not in a child with real objects, which is
 * the point -- the guard comes first.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cmd_transport.h"
#include "provider_cmd.h"
#include "tap.h"
#include "child_guard_stub.h"

/* rdma-core 65's extra arguments of the provider commands (NULL: none). */
#if IBV_RDMA_CORE_RELEASE >= 65
#define CMD65_CQ_PROV NULL,
#define CMD65_QP_DRIVER , NULL
#define CMD65_FD_ARR NULL,
#else
#define CMD65_CQ_PROV
#define CMD65_QP_DRIVER
#define CMD65_FD_ARR
#endif

#define CMD_FD 1000

static int commands;

ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);
int __wrap_ioctl(int fd, unsigned long request, ...);

ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	if (fd != CMD_FD)
		return __real_write(fd, buf, count);
	commands++;
	errno = EIO;
	return -1;
}

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	commands++;
	errno = EIO;
	return -1;
}

static struct verbs_device vdev = { .driver_id = RDMA_DRIVER_RXE };
/* The device header a provider\'s alloc_device would allocate. */
static struct verbs_plugin_device dev_hdr;
static struct verbs_context vctx;
static struct ibv_context *ctx = &vctx.context;

/* The objects a plug-in would pass, all on the inherited context. */
static struct ibv_pd pd;
static struct verbs_mr vmr;
static struct ibv_mw mw;
static struct ibv_cq cq;
static struct verbs_cq vcq;
static struct ibv_srq srq;
static struct verbs_srq vsrq;
static struct ibv_qp qp;
static struct verbs_qp vqp;
static struct ibv_ah ah;
static struct verbs_xrcd vxrcd;
static struct ibv_wq wq;
static struct ibv_rwq_ind_table ind_tbl;
static struct ibv_flow flow;
static struct verbs_flow_action action;
static struct verbs_dm dm;
static struct verbs_counters counters;

/*
 * Command and response buffers, large enough for any of them (the test
 * lists each call in full; its description names the function).
 */
static uint64_t cmd[64], resp[64];

static void check_refused(int ret, const char *name)
{
	CHECK(ret == EPERM && errno == EPERM && !commands,
	      "%.*s: EPERM, in errno too, nothing sent (%d, %d, %d sent)",
	      (int)strcspn(name, "("), name, ret, errno, commands);
	commands = 0;
	errno = 0;
}

static void check_skipped(int ret, const char *name)
{
	CHECK(ret == 0 && !commands, "%.*s: 0, nothing sent (%d, %d sent)",
	      (int)strcspn(name, "("), name, ret, commands);
	commands = 0;
	errno = 0;
}

#define REFUSED(call) check_refused(call, #call)
#define SKIPPED(call) check_skipped(call, #call)

static void test_write_commands(void)
{
	struct ibv_srq_init_attr srq_attr = {};
	struct ibv_srq_init_attr_ex srq_attr_ex = {
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.pd = &pd,
	};
	struct ibv_qp_init_attr qp_attr = { .qp_type = IBV_QPT_RC };
	struct ibv_qp_init_attr_ex qp_attr_ex = {
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = &pd,
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_open_attr open_attr = {};
	struct ibv_xrcd_init_attr xrcd_attr = {};
	struct ibv_cq_init_attr_ex cq_attr = { .cqe = 1 };
	struct ibv_modify_cq_attr mcq = {};
	struct ibv_srq_attr sattr = {};
	struct ibv_qp_attr qattr = {};
	struct ibv_qp_init_attr qinit;
	struct ibv_ah_attr ah_attr = {};
	struct ibv_send_wr swr = {}, *sbad = NULL;
	struct ibv_recv_wr rwr = {}, *rbad = NULL;
	union ibv_gid gid = {};
	struct ibv_wc wc;
	int n;

	REFUSED(ibv_cmd_alloc_pd(ctx, &pd, (void *)cmd, sizeof(cmd),
				 (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_open_xrcd(ctx, &vxrcd, sizeof(vxrcd), &xrcd_attr,
				  (void *)cmd, sizeof(cmd), (void *)resp,
				  sizeof(resp)));
	REFUSED(ibv_cmd_reg_mr(&pd, cmd, 8, 0, 0, &vmr, (void *)cmd,
			       sizeof(cmd), (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_rereg_mr(&vmr, 0, NULL, 0, 0, 0, &pd, (void *)cmd,
				 sizeof(cmd), (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_alloc_mw(&pd, IBV_MW_TYPE_1, &mw, (void *)cmd,
				 sizeof(cmd), (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_create_cq(ctx, 1, NULL, 0, &cq, (void *)cmd,
				  sizeof(cmd), (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_create_cq_ex(ctx, &cq_attr, CMD65_CQ_PROV & vcq,
				     (void *)cmd, sizeof(cmd), (void *)resp,
				     sizeof(resp), 0));
#if IBV_RDMA_CORE_RELEASE >= 56
	REFUSED(ibv_cmd_create_cq_ex2(ctx, &cq_attr, CMD65_CQ_PROV & vcq,
				      (void *)cmd, sizeof(cmd), (void *)resp,
				      sizeof(resp), 0, NULL));
#endif
	REFUSED(ibv_cmd_req_notify_cq(&cq, 0));
	REFUSED(ibv_cmd_resize_cq(&cq, 2, (void *)cmd, sizeof(cmd),
				  (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_modify_cq(&cq, &mcq, (void *)cmd, sizeof(cmd)));
	REFUSED(ibv_cmd_create_srq(&pd, &srq, &srq_attr, (void *)cmd,
				   sizeof(cmd), (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_create_srq_ex(ctx, &vsrq, &srq_attr_ex, (void *)cmd,
				      sizeof(cmd), (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_modify_srq(&srq, &sattr, 0, (void *)cmd, sizeof(cmd)));
	REFUSED(ibv_cmd_query_srq(&srq, &sattr, (void *)cmd, sizeof(cmd)));
	REFUSED(ibv_cmd_create_qp(&pd, &qp, &qp_attr, (void *)cmd, sizeof(cmd),
				  (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_create_qp_ex(ctx, &vqp, &qp_attr_ex, (void *)cmd,
				     sizeof(cmd), (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_create_qp_ex2(ctx, &vqp, &qp_attr_ex, (void *)cmd,
				      sizeof(cmd), (void *)resp,
				      sizeof(resp) CMD65_QP_DRIVER));
	REFUSED(ibv_cmd_open_qp(ctx, &vqp, sizeof(vqp), &open_attr, (void *)cmd,
				sizeof(cmd), (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_query_qp(&qp, &qattr, IBV_QP_STATE, &qinit, (void *)cmd,
				 sizeof(cmd)));
	REFUSED(ibv_cmd_modify_qp(&qp, &qattr, IBV_QP_STATE, (void *)cmd,
				  sizeof(cmd)));
	REFUSED(ibv_cmd_modify_qp_ex(&qp, &qattr, IBV_QP_STATE, (void *)cmd,
				     sizeof(cmd), (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_post_send(&qp, &swr, &sbad));
	CHECK(sbad == &swr, "post_send: *bad_wr is the first request");
	REFUSED(ibv_cmd_post_recv(&qp, &rwr, &rbad));
	CHECK(rbad == &rwr, "post_recv: *bad_wr is the first request");
	rbad = NULL;
	REFUSED(ibv_cmd_post_srq_recv(&srq, &rwr, &rbad));
	CHECK(rbad == &rwr, "post_srq_recv: *bad_wr is the first request");
	REFUSED(ibv_cmd_create_ah(&pd, &ah, &ah_attr, (void *)resp,
				  sizeof(resp)));
	REFUSED(ibv_cmd_attach_mcast(&qp, &gid, 0));
	REFUSED(ibv_cmd_detach_mcast(&qp, &gid, 0));

	n = ibv_cmd_poll_cq(&cq, 1, &wc);
	CHECK(n == -1 && errno == EPERM && !commands,
	      "ibv_cmd_poll_cq: -1 with EPERM, nothing sent");
	commands = 0;

	SKIPPED(ibv_cmd_dealloc_pd(&pd));
	SKIPPED(ibv_cmd_close_xrcd(&vxrcd));
	SKIPPED(ibv_cmd_dereg_mr(&vmr));
	SKIPPED(ibv_cmd_dealloc_mw(&mw));
	SKIPPED(ibv_cmd_destroy_cq(&cq));
	SKIPPED(ibv_cmd_destroy_srq(&srq));
	SKIPPED(ibv_cmd_destroy_qp(&qp));
	SKIPPED(ibv_cmd_destroy_ah(&ah));
}

static void test_ioctl_commands(void)
{
	struct ibv_wq_init_attr wq_attr = { .pd = &pd, .cq = &cq };
	struct ibv_wq_attr wattr = {};
	struct ibv_wq *wqs[1] = { &wq };
	struct ibv_rwq_ind_table_init_attr tbl_attr = { .ind_tbl = wqs };
	struct ibv_flow_attr flow_attr = { .size = sizeof(flow_attr) };
	struct ibv_flow_action_esp_attr esp = {};
	struct ibv_alloc_dm_attr dm_attr = { .length = 64 };
	struct ibv_counters_init_attr cnt_attr = {};
	struct ibv_sge sge = {};
	uint64_t values[1];

	REFUSED(ibv_cmd_create_wq(ctx, &wq_attr, &wq, (void *)cmd, sizeof(cmd),
				  (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_modify_wq(&wq, &wattr, (void *)cmd, sizeof(cmd)));
	REFUSED(ibv_cmd_create_rwq_ind_table(ctx, &tbl_attr, &ind_tbl,
					     (void *)resp, sizeof(resp)));
	REFUSED(ibv_cmd_create_flow(&qp, &flow, &flow_attr, NULL, 0));
	REFUSED(ibv_cmd_create_flow_action_esp(ctx, &esp, &action, NULL));
	REFUSED(ibv_cmd_modify_flow_action_esp(&action, &esp, NULL));
	REFUSED(ibv_cmd_alloc_dm(ctx, &dm_attr, &dm, NULL));
	REFUSED(ibv_cmd_reg_dm_mr(&pd, &dm, 0, 8, IBV_ACCESS_ZERO_BASED, &vmr,
				  NULL));
	REFUSED(ibv_cmd_create_counters(ctx, &cnt_attr, &counters, NULL));
	REFUSED(ibv_cmd_read_counters(&counters, values, 1, 0, NULL));
	REFUSED(ibv_cmd_advise_mr(&pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge,
				  1));
	REFUSED(ibv_cmd_query_mr(&pd, &vmr, 1));
#if IBV_RDMA_CORE_RELEASE >= 56
	REFUSED(ibv_cmd_reg_dmabuf_mr(&pd, 0, 8, 0, -1, 0, &vmr, NULL));
#else
	REFUSED(ibv_cmd_reg_dmabuf_mr(&pd, 0, 8, 0, -1, 0, &vmr));
#endif

	SKIPPED(ibv_cmd_destroy_wq(&wq));
	SKIPPED(ibv_cmd_destroy_rwq_ind_table(&ind_tbl));
	SKIPPED(ibv_cmd_destroy_flow(&flow));
	SKIPPED(ibv_cmd_destroy_flow_action(&action));
	SKIPPED(ibv_cmd_free_dm(&dm));
	SKIPPED(ibv_cmd_destroy_counters(&counters));
}

int main(void)
{
	dev_hdr.sysfs = &vdev.sysfs;
	vdev.pub = &dev_hdr;
	vctx.context.device = &dev_hdr.device;
	vctx.context.cmd_fd = CMD_FD;
	vctx.context.async_fd = -1;
	pd.context = ctx;
	vmr.ibv_mr.context = ctx;
	mw.context = ctx;
	cq.context = ctx;
	srq.context = ctx;
	qp.context = ctx;
	ah.context = ctx;
	vxrcd.xrcd.context = ctx;
	wq.context = ctx;
	ind_tbl.context = ctx;
	flow.context = ctx;
	action.action.context = ctx;
	dm.dm.context = ctx;
	counters.counters.context = ctx;
	stub_own_context(&vctx);
	stub_be_child(true);

	test_write_commands();
	test_ioctl_commands();
	return tap_done();
}
