// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl side of the provider ABI (IBVERBS_PRIVATE_34) on rxe0, called
 * the way a provider plug-in built for rdma-core 44 calls it: command
 * buffers laid out as rdma-core 44's inline helpers lay them out inside
 * the plug-in, handed to execute_ioctl() alone or chained behind the
 * library's own command, and the ibv_cmd_* exports on objects the test
 * allocated itself.
 *
 * The same binary runs on Debian's libibverbs, which proves the checks:
 * every result of the kernel -- the values written back, and the errno of
 * each object rxe lacks -- must be the same on both libraries.  On 6.1's
 * rxe those errnos are: EPROTONOSUPPORT for the ioctl-only objects whose
 * driver op rxe lacks (device memory, counters, ESP flow actions: the
 * kernel drops the whole object from its method tree); EOPNOTSUPP where
 * an extended write() command answers (WQs -- after the ioctl method's
 * EPROTONOSUPPORT made the library fall back --, indirection tables,
 * flows) or where the method exists but the driver op does not
 * (QUERY_CONTEXT, REG_DMABUF_MR, ADVISE_MR).
 * The child guard (a fork child calling on the parent's context: EPERM for
 * commands, 0 for destroys, and the kernel never asked) is this project's
 * alone: gc_guard().  On Debian's library the kernel answers the child's
 * ioctl() commands as the parent's (QUERY_PORT and QUERY_MR succeed, a
 * PD_DESTROY of a handle nobody has gives ENOENT): those results are what
 * shows that ours never reached the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_common.h"
#include <rdma/ib_user_ioctl_cmds.h>

#include "provider_cmd.h"

/*
 * A plug-in's command buffer as rdma-core 44's DECLARE_COMMAND_BUFFER_LINK
 * sets it up: room for @num attributes of its own plus those filled in
 * @link's chain; every attribute mandatory unless made optional.
 */
union cmdb {
	struct ibv_command_buffer cmd;
	uint8_t room[sizeof(struct ibv_command_buffer) +
		     16 * sizeof(struct ib_uverbs_attr)];
};

static struct ibv_command_buffer *cmdb_init(union cmdb *b, uint16_t object,
					    uint16_t method, unsigned int num,
					    struct ibv_command_buffer *link)
{
	struct ibv_command_buffer *c = &b->cmd;
	unsigned int total = __ioctl_final_num_attrs(num, link);

	memset(b, 0, sizeof(*b));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	c->next = link;
	c->uhw_in_idx = IBV_COMMAND_UHW_NO_INDEX;
	c->uhw_out_idx = IBV_COMMAND_UHW_NO_INDEX;
	c->next_attr = c->hdr.attrs;
	c->last_attr = c->hdr.attrs + total;
	return c;
}

static struct ib_uverbs_attr *attr_next(struct ibv_command_buffer *c,
					uint16_t id)
{
	struct ib_uverbs_attr *a = c->next_attr++;

	*a = (struct ib_uverbs_attr){
		.attr_id = id,
		.flags = UVERBS_ATTR_F_MANDATORY,
	};
	return a;
}

static void fill_out(struct ibv_command_buffer *c, uint16_t id, void *p,
		     size_t len)
{
	struct ib_uverbs_attr *a = attr_next(c, id);

	a->len = len;
	a->data = (uintptr_t)p;
}

static void fill_in_u64(struct ibv_command_buffer *c, uint16_t id,
			uint64_t v)
{
	struct ib_uverbs_attr *a = attr_next(c, id);

	a->len = sizeof(v);
	a->data = v;
}

static void fill_in_obj(struct ibv_command_buffer *c, uint16_t id,
			uint32_t handle)
{
	attr_next(c, id)->data = handle;
}

/* A handle the kernel has not handed out on this fresh context. */
#define NO_SUCH_HANDLE 0x7ffff0

/* The errno the kernel gives for each refused call, printed and checked. */
static void expect(const char *what, int ret, int want)
{
	gc_ok(ret == want, "%s: %s (%d, want %s)", what,
	      ret ? strerror(ret) : "0", ret, want ? strerror(want) : "0");
}

static void test_execute_ioctl(struct gc_dev *dev)
{
	struct ibv_context *ctx = dev->ctx;
	struct ib_uverbs_query_port_resp_ex resp;
	uint32_t total = 0, handles[64];
	struct ibv_port_attr pa;
	union cmdb top, drv;
	struct ibv_command_buffer *c, *l;
	unsigned int i;
	bool listed = false;
	int ret;

	if (!gc_ok(!ibv_query_port(ctx, GC_PORT, &pa), "ibv_query_port"))
		return;
	memset(&resp, 0xee, sizeof(resp));
	c = cmdb_init(&top, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 2,
		      NULL);
	fill_in_u64(c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, GC_PORT);
	fill_out(c, UVERBS_ATTR_QUERY_PORT_RESP, &resp, sizeof(resp));
	ret = execute_ioctl(ctx, c);
	gc_ok(ret == 0, "execute_ioctl QUERY_PORT: %s", strerror(ret));
	gc_ok(resp.legacy_resp.state == pa.state &&
		      resp.legacy_resp.gid_tbl_len == (uint32_t)pa.gid_tbl_len &&
		      resp.legacy_resp.active_mtu == pa.active_mtu &&
		      resp.legacy_resp.link_layer == pa.link_layer,
	      "QUERY_PORT answer written: state %u gid_tbl_len %u mtu %u",
	      resp.legacy_resp.state, resp.legacy_resp.gid_tbl_len,
	      resp.legacy_resp.active_mtu);
	gc_ok(top.cmd.hdr.attrs[1].flags & UVERBS_ATTR_F_VALID_OUTPUT,
	      "output attribute marked valid (flags 0x%x)",
	      top.cmd.hdr.attrs[1].flags);

	/* The output in a chained (driver) buffer, as plug-ins chain. */
	memset(&resp, 0xee, sizeof(resp));
	l = cmdb_init(&drv, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 1,
		      NULL);
	fill_out(l, UVERBS_ATTR_QUERY_PORT_RESP, &resp, sizeof(resp));
	c = cmdb_init(&top, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 1,
		      l);
	fill_in_u64(c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, GC_PORT);
	ret = execute_ioctl(ctx, c);
	gc_ok(ret == 0 && resp.legacy_resp.state == pa.state &&
		      resp.legacy_resp.gid_tbl_len == (uint32_t)pa.gid_tbl_len,
	      "execute_ioctl with the output in a chained buffer: %s",
	      strerror(ret));
	gc_ok(drv.cmd.hdr.attrs[0].flags & UVERBS_ATTR_F_VALID_OUTPUT,
	      "chained buffer's attribute copied back, marked valid "
	      "(flags 0x%x)", drv.cmd.hdr.attrs[0].flags);

	/* rxe has no query_ucontext: the kernel's errno, unchanged. */
	c = cmdb_init(&top, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT,
		      1, NULL);
	fill_out(c, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &total,
		 sizeof(total));
	expect("execute_ioctl QUERY_CONTEXT on rxe", execute_ioctl(ctx, c),
	       EOPNOTSUPP);

	/* An array output: the handles of this context's PDs. */
	total = 0;
	c = cmdb_init(&top, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES,
		      3, NULL);
	fill_in_u64(c, UVERBS_ATTR_INFO_OBJECT_ID, UVERBS_OBJECT_PD);
	fill_out(c, UVERBS_ATTR_INFO_TOTAL_HANDLES, &total, sizeof(total));
	fill_out(c, UVERBS_ATTR_INFO_HANDLES_LIST, handles, sizeof(handles));
	c->hdr.attrs[2].flags = 0; /* optional, as rdma-core marks it */
	ret = execute_ioctl(ctx, c);
	for (i = 0; i < total && i < 64; i++)
		listed |= handles[i] == dev->pd->handle;
	gc_ok(ret == 0 && total >= 1 && listed,
	      "execute_ioctl INFO_HANDLES lists the PD: %s, %u handle(s)",
	      strerror(ret), total);

	/* A method the kernel does not have: its errno, unchanged. */
	c = cmdb_init(&top, UVERBS_OBJECT_DEVICE, 0x7f, 0, NULL);
	expect("execute_ioctl unknown method", execute_ioctl(ctx, c),
	       EPROTONOSUPPORT);
}

/* rdma-core 54 gave ibv_cmd_reg_dmabuf_mr() the driver's attributes. */
static int reg_dmabuf_mr(struct ibv_pd *pd, int fd, struct verbs_mr *vmr)
{
#if IBV_RDMA_CORE_RELEASE >= 56
	return ibv_cmd_reg_dmabuf_mr(pd, 0, 4096, 0, fd, IBV_ACCESS_LOCAL_WRITE,
				     vmr, NULL);
#else
	return ibv_cmd_reg_dmabuf_mr(pd, 0, 4096, 0, fd, IBV_ACCESS_LOCAL_WRITE,
				     vmr);
#endif
}

static void test_missing_objects(struct gc_dev *dev)
{
	struct ibv_context *ctx = dev->ctx;
	struct ibv_alloc_dm_attr dm_attr = { .length = 4096 };
	struct ibv_counters_init_attr cinit = {};
	struct ibv_flow_action_esp_attr esp = {};
	struct verbs_flow_action va = { .action.context = ctx };
	struct verbs_counters vc = { .counters.context = ctx };
	struct verbs_dm vdm = { .dm.context = ctx };
	struct verbs_mr vmr = {};
	struct ibv_sge sge = {};
	uint64_t values[2];
	union cmdb drv;
	struct ibv_command_buffer *l;

	expect("alloc_dm", ibv_cmd_alloc_dm(ctx, &dm_attr, &vdm, NULL),
	       EPROTONOSUPPORT);
	l = cmdb_init(&drv, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 0, NULL);
	expect("alloc_dm with an empty driver chain",
	       ibv_cmd_alloc_dm(ctx, &dm_attr, &vdm, l), EPROTONOSUPPORT);
	vdm.handle = NO_SUCH_HANDLE;
	expect("free_dm", ibv_cmd_free_dm(&vdm), EPROTONOSUPPORT);
	expect("reg_dm_mr without IBV_ACCESS_ZERO_BASED",
	       ibv_cmd_reg_dm_mr(dev->pd, &vdm, 0, 4096, 0, &vmr, NULL),
	       EINVAL);
	expect("reg_dm_mr",
	       ibv_cmd_reg_dm_mr(dev->pd, &vdm, 0, 4096,
				 IBV_ACCESS_ZERO_BASED, &vmr, NULL),
	       EPROTONOSUPPORT);

	expect("create_counters",
	       ibv_cmd_create_counters(ctx, &cinit, &vc, NULL), EPROTONOSUPPORT);
	vc.handle = NO_SUCH_HANDLE;
	expect("read_counters",
	       ibv_cmd_read_counters(&vc, values, 2, 0, NULL), EPROTONOSUPPORT);
	expect("destroy_counters", ibv_cmd_destroy_counters(&vc), EPROTONOSUPPORT);

	expect("create_flow_action_esp",
	       ibv_cmd_create_flow_action_esp(ctx, &esp, &va, NULL),
	       EPROTONOSUPPORT);
	va.handle = NO_SUCH_HANDLE;
	expect("modify_flow_action_esp",
	       ibv_cmd_modify_flow_action_esp(&va, &esp, NULL), EPROTONOSUPPORT);
	expect("destroy_flow_action", ibv_cmd_destroy_flow_action(&va),
	       EPROTONOSUPPORT);

	expect("advise_mr",
	       ibv_cmd_advise_mr(dev->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
				 &sge, 1),
	       EOPNOTSUPP);
	/*
	 * Before 5.12 the kernel has no such method (bfe0cc6eb249,
	 * "RDMA/uverbs: Add uverbs command for dma-buf based MR
	 * registration"), and its ioctl answers an unknown method with
	 * EPROTONOSUPPORT, passed on as upstream does.
	 */
	expect("reg_dmabuf_mr with a bad fd", reg_dmabuf_mr(dev->pd, -1, &vmr),
	       gc_kernel_at_least(5, 12) ? EOPNOTSUPP : EPROTONOSUPPORT);
}

static void test_wq(struct gc_dev *dev, struct ibv_cq *cq)
{
	struct ibv_context *ctx = dev->ctx;
	struct ibv_wq_init_attr init = {
		.wq_type = IBV_WQT_RQ,
		.max_wr = 16,
		.max_sge = 1,
		.pd = dev->pd,
		.cq = cq,
	};
	struct ib_uverbs_ex_create_wq_resp resp = {};
	struct ib_uverbs_ex_create_rwq_ind_table_resp tresp = {};
	struct ibv_rwq_ind_table tbl = { .context = ctx };
	struct ibv_rwq_ind_table_init_attr tinit = {};
	struct ibv_wq_attr wattr = {
		.attr_mask = IBV_WQ_ATTR_STATE,
		.wq_state = IBV_WQS_RDY,
	};
	struct ibv_create_wq cmd = {};
	struct ibv_modify_wq mcmd = {};
	struct ibv_wq wq = {}, *wqs[1] = { &wq };

	expect("create_wq",
	       ibv_cmd_create_wq(ctx, &init, &wq, &cmd, sizeof(cmd), &resp,
				 sizeof(resp)),
	       EOPNOTSUPP);
	init.comp_mask = IBV_WQ_INIT_ATTR_RESERVED;
	expect("create_wq with a reserved comp_mask bit",
	       ibv_cmd_create_wq(ctx, &init, &wq, &cmd, sizeof(cmd), &resp,
				 sizeof(resp)),
	       EINVAL);

	wq = (struct ibv_wq){ .context = ctx, .handle = NO_SUCH_HANDLE };
	expect("modify_wq", ibv_cmd_modify_wq(&wq, &wattr, &mcmd, sizeof(mcmd)),
	       EOPNOTSUPP);
	wattr.attr_mask = IBV_WQ_ATTR_RESERVED;
	expect("modify_wq with a reserved attr_mask bit",
	       ibv_cmd_modify_wq(&wq, &wattr, &mcmd, sizeof(mcmd)), EINVAL);
	expect("destroy_wq", ibv_cmd_destroy_wq(&wq), EOPNOTSUPP);

	tinit.log_ind_tbl_size = 0;
	tinit.ind_tbl = wqs;
	expect("create_rwq_ind_table",
	       ibv_cmd_create_rwq_ind_table(ctx, &tinit, &tbl, &tresp,
					    sizeof(tresp)),
	       EOPNOTSUPP);
	tbl.ind_tbl_handle = NO_SUCH_HANDLE;
	expect("destroy_rwq_ind_table", ibv_cmd_destroy_rwq_ind_table(&tbl),
	       EOPNOTSUPP);
}

static void test_flow(struct gc_dev *dev, struct ibv_cq *cq)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} rule = {
		.attr = {
			.type = IBV_FLOW_ATTR_NORMAL,
			.size = sizeof(rule),
			.num_of_specs = 1,
			.port = GC_PORT,
		},
		.eth = {
			.type = IBV_FLOW_SPEC_ETH,
			.size = sizeof(struct ibv_flow_spec_eth),
			.val.ether_type = 0x0008,
			.mask.ether_type = 0xffff,
		},
	};
	struct ibv_flow flow = {};
	struct ibv_qp *qp = gc_create_qp(dev, cq, IBV_QPT_UD, NULL);

	if (!gc_ok(qp != NULL, "UD QP for the flow"))
		return;
	expect("create_flow",
	       ibv_cmd_create_flow(qp, &flow, &rule.attr, NULL, 0), EOPNOTSUPP);
	flow = (struct ibv_flow){ .context = dev->ctx,
				  .handle = NO_SUCH_HANDLE };
	expect("destroy_flow", ibv_cmd_destroy_flow(&flow), EOPNOTSUPP);
	ibv_destroy_qp(qp);
}

static void test_query_mr(struct gc_dev *dev)
{
	struct verbs_mr vmr;
	struct gc_buf buf;
	int ret;

	if (gc_buf_alloc(&buf, dev->pd, 8192, GC_ACCESS_ALL, 3)) {
		gc_ok(false, "buffer for query_mr");
		return;
	}
	memset(&vmr, 0xa5, sizeof(vmr));
	ret = ibv_cmd_query_mr(dev->pd, &vmr, buf.mr->handle);
	gc_ok(ret == 0, "query_mr: %s", strerror(ret));
	gc_ok(vmr.ibv_mr.lkey == buf.mr->lkey && vmr.ibv_mr.rkey ==
		      buf.mr->rkey && vmr.ibv_mr.length == buf.mr->length,
	      "query_mr: keys and length are the MR's");
	gc_ok(vmr.ibv_mr.handle == buf.mr->handle &&
		      vmr.ibv_mr.context == dev->ctx &&
		      vmr.ibv_mr.pd == dev->pd && vmr.ibv_mr.addr == NULL &&
		      vmr.mr_type == IBV_MR_TYPE_IMPORTED_MR,
	      "query_mr: handle, context, pd, no address, imported type");
	expect("query_mr of a handle that does not exist",
	       ibv_cmd_query_mr(dev->pd, &vmr, NO_SUCH_HANDLE), ENOENT);
	gc_buf_free(&buf);
}

/* The calls a fork child makes on the parent's context, in order. */
enum { C_IOCTL, C_IOCTL_DESTROY, C_ALLOC_DM, C_FREE_DM, C_QUERY_MR,
       C_CREATE_WQ, C_DESTROY_WQ, C_COUNTERS, C_DESTROY_FLOW, C_NUM };

static const struct {
	const char *what;
	int want;
} child_calls[C_NUM] = {
	[C_IOCTL] = { "execute_ioctl QUERY_PORT", EPERM },
	[C_IOCTL_DESTROY] = { "execute_ioctl PD_DESTROY", 0 },
	[C_ALLOC_DM] = { "alloc_dm", EPERM },
	[C_FREE_DM] = { "free_dm", 0 },
	[C_QUERY_MR] = { "query_mr", EPERM },
	[C_CREATE_WQ] = { "create_wq", EPERM },
	[C_DESTROY_WQ] = { "destroy_wq", 0 },
	[C_COUNTERS] = { "create_counters", EPERM },
	[C_DESTROY_FLOW] = { "destroy_flow", 0 },
};

static void child_run(struct gc_dev *dev, struct ibv_cq *cq, struct ibv_mr *mr,
		      int *res)
{
	struct ibv_context *ctx = dev->ctx;
	struct ibv_alloc_dm_attr dm_attr = { .length = 4096 };
	struct ibv_counters_init_attr cinit = {};
	struct verbs_counters vc = {};
	struct verbs_dm vdm = { .dm.context = ctx, .handle = NO_SUCH_HANDLE };
	struct ibv_wq_init_attr init = {
		.wq_type = IBV_WQT_RQ, .max_wr = 16, .max_sge = 1,
		.pd = dev->pd, .cq = cq,
	};
	struct ib_uverbs_ex_create_wq_resp resp = {};
	struct ibv_create_wq cmd = {};
	struct ibv_wq wq = {};
	struct ibv_flow flow = { .context = ctx, .handle = NO_SUCH_HANDLE };
	struct ib_uverbs_query_port_resp_ex presp;
	struct verbs_mr vmr;
	union cmdb top;
	struct ibv_command_buffer *c;

	/* The kernel answers a child's ioctl(): rdma-core's gives 0. */
	c = cmdb_init(&top, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 2,
		      NULL);
	fill_in_u64(c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, GC_PORT);
	fill_out(c, UVERBS_ATTR_QUERY_PORT_RESP, &presp, sizeof(presp));
	res[C_IOCTL] = execute_ioctl(ctx, c);
	/* A PD nobody has: the kernel would say ENOENT if asked. */
	c = cmdb_init(&top, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, 1,
		      NULL);
	fill_in_obj(c, UVERBS_ATTR_DESTROY_PD_HANDLE, NO_SUCH_HANDLE);
	res[C_IOCTL_DESTROY] = execute_ioctl(ctx, c);
	res[C_ALLOC_DM] = ibv_cmd_alloc_dm(ctx, &dm_attr, &vdm, NULL);
	res[C_FREE_DM] = ibv_cmd_free_dm(&vdm);
	/* The parent's MR: rdma-core's child reads its keys (0). */
	res[C_QUERY_MR] = ibv_cmd_query_mr(dev->pd, &vmr, mr->handle);
	res[C_CREATE_WQ] = ibv_cmd_create_wq(ctx, &init, &wq, &cmd,
					     sizeof(cmd), &resp, sizeof(resp));
	wq = (struct ibv_wq){ .context = ctx, .handle = NO_SUCH_HANDLE };
	res[C_DESTROY_WQ] = ibv_cmd_destroy_wq(&wq);
	res[C_COUNTERS] = ibv_cmd_create_counters(ctx, &cinit, &vc, NULL);
	res[C_DESTROY_FLOW] = ibv_cmd_destroy_flow(&flow);
}

static void test_child_guard(struct gc_dev *dev, struct ibv_cq *cq)
{
	long deadline = gc_now_ms() + GC_CHILD_TIMEOUT_MS, grace;
	int res[C_NUM], fds[2], i;
	struct gc_buf buf;
	bool reported;
	pid_t pid;

	if (gc_buf_alloc(&buf, dev->pd, 4096, GC_ACCESS_ALL, 5) ||
	    pipe(fds)) {
		gc_ok(false, "child guard: buffer and pipe");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child_run(dev, cq, buf.mr, res);
		_exit(write(fds[1], res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(fds[1]);
	reported = pid > 0 && gc_read_fd(fds[0], res, sizeof(res),
					 (int)(deadline - gc_now_ms()),
					 "the child's results") ==
				      (ssize_t)sizeof(res);
	if (!gc_ok(reported, "child guard: the child reported"))
		memset(res, 0xff, sizeof(res));
	close(fds[0]);
	/*
	 * The read and the reaping share one limit, well inside the test's
	 * 120 s; a child that has closed its pipe (reported or died) still
	 * gets a few seconds to exit, and is not "killed after 0 ms".
	 */
	grace = gc_now_ms() + 5000;
	if (pid > 0)
		gc_wait_child_until(pid, NULL,
				    deadline > grace ? deadline : grace,
				    "child of the child guard");
	for (i = 0; i < C_NUM; i++)
		gc_guard(res[i] == child_calls[i].want,
			 "child on the parent's context: %s gives %s (%s)",
			 child_calls[i].what,
			 child_calls[i].want ? strerror(child_calls[i].want)
					     : "0 without the kernel",
			 res[i] ? strerror(res[i]) : "0");
	gc_buf_free(&buf);
}

int main(void)
{
	struct gc_dev dev;
	struct ibv_cq *cq;

	gc_start("cmd_provider_ioctl");
	if (!gc_ok(!gc_dev_open(&dev, 0), "open rxe0"))
		return gc_finish();
	cq = ibv_create_cq(dev.ctx, 16, NULL, NULL, 0);
	if (gc_ok(cq != NULL, "CQ")) {
		test_execute_ioctl(&dev);
		test_missing_objects(&dev);
		test_wq(&dev, cq);
		test_flow(&dev, cq);
		test_query_mr(&dev);
		test_child_guard(&dev, cq);
		ibv_destroy_cq(cq);
	}
	gc_dev_close(&dev);
	return gc_finish();
}
