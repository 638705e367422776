// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The write() commands of the provider ABI (IBVERBS_PRIVATE_34) as a
 * plug-in built for rdma-core 44 calls them, without a device: what they
 * return, what they leave in errno, and what they refuse before anything
 * reaches the kernel.
 *
 * write() and ioctl() are redirected (-Wl,--wrap) to a stand-in for the
 * kernel that only counts the commands it is given and fails them with
 * EIO: every case here must be decided before a command is sent.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cmd_transport.h"
#include "tap.h"
#include "child_guard_stub.h"

/* The prototypes a plug-in compiles against (rdma-core 44's driver.h). */
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table);
int ibv_cmd_create_rwq_ind_table(
	struct ibv_context *context,
	struct ibv_rwq_ind_table_init_attr *init_attr,
	struct ibv_rwq_ind_table *rwq_ind_table,
	struct ib_uverbs_ex_create_rwq_ind_table_resp *resp, size_t resp_size);

#define CMD_FD 1000
#define TABLE_HANDLE 7

static int commands;
/* The handles of the indirection tables the stand-in kernel destroyed. */
static int tables_destroyed;
static uint32_t table_destroyed;

ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);
int __wrap_ioctl(int fd, unsigned long request, ...);

ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const struct ib_uverbs_ex_cmd_hdr *ex = (const void *)(hdr + 1);

	if (fd != CMD_FD)
		return __real_write(fd, buf, count);
	commands++;
	/* A table created with a response that ends before its fields. */
	if (hdr->command == (IB_USER_VERBS_CMD_FLAG_EXTENDED |
			     IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL)) {
		struct ib_uverbs_ex_create_rwq_ind_table_resp r = {
			.ind_tbl_handle = TABLE_HANDLE,
			.response_length = 0,
		};

		memcpy((void *)(uintptr_t)ex->response, &r, sizeof(r));
		return count;
	}
	errno = EIO;
	return -1;
}

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	struct ib_uverbs_ioctl_hdr *hdr;
	va_list ap;

	va_start(ap, request);
	hdr = va_arg(ap, struct ib_uverbs_ioctl_hdr *);
	va_end(ap);
	commands++;
	if (hdr->object_id == UVERBS_OBJECT_RWQ_IND_TBL &&
	    hdr->method_id == UVERBS_METHOD_RWQ_IND_TBL_DESTROY &&
	    hdr->num_attrs == 1) {
		tables_destroyed++;
		table_destroyed = hdr->attrs[0].data;
		return 0;
	}
	errno = EIO;
	return -1;
}

static struct verbs_device vdev = { .driver_id = RDMA_DRIVER_RXE };
/* The device header a provider\'s alloc_device would allocate. */
static struct verbs_plugin_device dev_hdr;
static struct verbs_context vctx;
static struct ibv_context *ctx = &vctx.context;

static void reset(bool child)
{
	commands = 0;
	tables_destroyed = 0;
	table_destroyed = 0;
	stub_be_child(child);
	errno = 0;
}

/*
 * rdma-core 44's plug-ins return NULL from a create when the command
 * fails, and the application reads errno: every refusal must set it.
 */
static void test_errno(void)
{
	struct ib_uverbs_alloc_pd_resp pd_resp;
	struct ib_uverbs_create_qp_resp qp_resp;
	struct ibv_qp_init_attr_ex attr = {
		.comp_mask = IBV_QP_INIT_ATTR_RX_HASH,
	};
	struct ibv_alloc_pd pd_cmd;
	struct ibv_create_qp qp_cmd;
	struct verbs_qp qp;
	struct ibv_pd pd;
	int ret;

	reset(true);
	ret = ibv_cmd_alloc_pd(ctx, &pd, &pd_cmd, sizeof(pd_cmd), &pd_resp,
			       sizeof(pd_resp));
	CHECK(ret == EPERM && errno == EPERM && !commands,
	      "alloc_pd in a child: EPERM returned and in errno (%d, %d)",
	      ret, errno);

	reset(false);
	ret = ibv_cmd_create_qp_ex(ctx, &qp, &attr, &qp_cmd, sizeof(qp_cmd),
				   &qp_resp, sizeof(qp_resp));
	CHECK(ret == EINVAL && errno == EINVAL && !commands,
	      "create_qp_ex, unknown comp_mask: EINVAL returned and in "
	      "errno (%d, %d)",
	      ret, errno);

	reset(false);
	ret = ibv_cmd_alloc_pd(ctx, &pd, &pd_cmd, sizeof(pd_cmd), &pd_resp,
			       sizeof(pd_resp));
	CHECK(ret == EIO && errno == EIO && commands == 1,
	      "alloc_pd: the kernel's errno returned and in errno");
}

/*
 * Scatter/gather counts whose sum wraps a 32-bit counter must not size
 * the command buffer: the copy of the first list would run past it.
 */
static void test_post_sge_overflow(void)
{
	struct ibv_sge sg[2] = {};
	struct ibv_send_wr s[3] = {
		{ .next = &s[1], .sg_list = sg, .num_sge = INT_MAX },
		{ .next = &s[2], .sg_list = sg, .num_sge = INT_MAX },
		{ .sg_list = sg, .num_sge = 2 },
	};
	struct ibv_recv_wr r[3] = {
		{ .next = &r[1], .sg_list = sg, .num_sge = INT_MAX },
		{ .next = &r[2], .sg_list = sg, .num_sge = INT_MAX },
		{ .sg_list = sg, .num_sge = 2 },
	};
	struct ibv_send_wr *bad_s = NULL;
	struct ibv_recv_wr *bad_r = NULL;
	struct ibv_qp qp = {
		.context = ctx,
		.qp_type = IBV_QPT_RC,
	};
	int ret;

	reset(false);
	ret = ibv_cmd_post_send(&qp, s, &bad_s);
	CHECK(ret && ret != EIO && !commands && bad_s == s,
	      "post_send, 2^32 SGEs in all: refused before the kernel (%d)",
	      ret);

	reset(false);
	ret = ibv_cmd_post_recv(&qp, r, &bad_r);
	CHECK(ret && ret != EIO && !commands && bad_r == r,
	      "post_recv, 2^32 SGEs in all: refused before the kernel (%d)",
	      ret);
}

/* A table the kernel created must not outlive a failed create. */
static void test_ind_table_short_resp(void)
{
	struct ib_uverbs_ex_create_rwq_ind_table_resp resp;
	struct ibv_wq wq = { .handle = 3 };
	struct ibv_wq *tbl[1] = { &wq };
	struct ibv_rwq_ind_table_init_attr attr = {
		.log_ind_tbl_size = 0,
		.ind_tbl = tbl,
	};
	struct ibv_rwq_ind_table table = {};
	int ret;

	reset(false);
	ret = ibv_cmd_create_rwq_ind_table(ctx, &attr, &table, &resp,
					   sizeof(resp));
	CHECK(ret == EINVAL && errno == EINVAL,
	      "indirection table, short response: EINVAL (%d)", ret);
	CHECK(tables_destroyed == 1 && table_destroyed == TABLE_HANDLE,
	      "the table the kernel created was destroyed (%d, %u)",
	      tables_destroyed, table_destroyed);
}

/*
 * After a hot unplug the kernel answers a destroy with EIO (the stand-in
 * kernel answers everything but the table commands so): an error unless
 * the plug-in set verbs_allow_disassociate_destroy, then success.
 */
static void test_disassociated_destroy(void)
{
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_rwq_ind_table table = { .context = ctx,
					   .ind_tbl_handle = 4 };
	int ret;

	reset(false);
	ret = ibv_cmd_dealloc_pd(&pd);
	CHECK(ret == EIO && errno == EIO && commands == 1,
	      "dealloc_pd on a dead device: EIO (%d)", ret);

	verbs_allow_disassociate_destroy = true;
	reset(false);
	ret = ibv_cmd_dealloc_pd(&pd);
	CHECK(ret == 0 && commands == 1,
	      "with verbs_allow_disassociate_destroy: 0 (%d)", ret);
	reset(false);
	ret = ibv_cmd_destroy_rwq_ind_table(&table);
	CHECK(ret == 0 && tables_destroyed == 1,
	      "the flag leaves other answers alone (%d)", ret);
	verbs_allow_disassociate_destroy = false;
}

int main(void)
{
	dev_hdr.sysfs = &vdev.sysfs;
	vdev.pub = &dev_hdr;
	vctx.context.device = &dev_hdr.device;
	vctx.context.cmd_fd = CMD_FD;
	vctx.context.async_fd = -1;
	stub_own_context(&vctx);

	test_errno();
	test_post_sge_overflow();
	test_ind_table_short_resp();
	test_disassociated_destroy();
	return tap_done();
}
