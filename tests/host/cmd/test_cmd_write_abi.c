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
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cmd_transport.h"
#include "tap.h"

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

static bool inherited;

bool verbs_ctx_inherited(struct ibv_context *ctx)
{
	return inherited;
}

static struct verbs_device vdev = { .driver_id = RDMA_DRIVER_RXE };
static struct verbs_context vctx;
static struct ibv_context *ctx = &vctx.context;

static void reset(bool child)
{
	commands = 0;
	inherited = child;
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

int main(void)
{
	vdev.own.sysfs = &vdev.sysfs;
	vdev.pub = &vdev.own;
	vctx.context.device = &vdev.own.device;
	vctx.context.cmd_fd = CMD_FD;
	vctx.context.async_fd = -1;

	test_errno();
	test_post_sge_overflow();
	return tap_done();
}
