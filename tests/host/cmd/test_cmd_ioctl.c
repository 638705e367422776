// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * execute_ioctl() and __ioctl_final_num_attrs() as a provider plug-in
 * built for rdma-core 44 uses them, without a device.
 *
 * The command buffers here are laid out the way rdma-core 44's inline
 * helpers (cmd_ioctl.h: DECLARE_COMMAND_BUFFER_LINK, fill_attr_*) lay
 * them out inside a plug-in: attributes filled from hdr.attrs up to
 * next_attr, room up to last_attr for the buffer's own attributes plus
 * those of the buffers chained behind it, every attribute mandatory, and
 * the UHW indexes 0xff.  ioctl() is redirected (-Wl,--wrap=ioctl) to a
 * stand-in for the kernel that records the header and attributes it was
 * given and writes an answer into every attribute whose id is at least
 * OUT_ID, as the kernel writes output attributes and new handles.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include "cmd_transport.h"
#include "provider_cmd.h"
#include "tap.h"
#include "child_guard_stub.h"

/* Attributes the stand-in kernel writes to, and what it writes. */
#define OUT_ID 0x100
#define ANSWER(id) (0xa000 + (id))

static struct {
	int calls;
	int fail;	/* errno to answer with, 0 for success */
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[64];
} kern;

int __real_ioctl(int fd, unsigned long request, ...);
int __wrap_ioctl(int fd, unsigned long request, ...);

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	struct ib_uverbs_ioctl_hdr *hdr;
	unsigned int i;
	va_list ap;

	va_start(ap, request);
	hdr = va_arg(ap, struct ib_uverbs_ioctl_hdr *);
	va_end(ap);
	if (request != RDMA_VERBS_IOCTL) {
		errno = ENOTTY;
		return -1;
	}
	kern.calls++;
	kern.hdr = *hdr;
	if (hdr->num_attrs <= 64)
		memcpy(kern.attrs, hdr->attrs,
		       hdr->num_attrs * sizeof(hdr->attrs[0]));
	if (kern.fail) {
		errno = kern.fail;
		return -1;
	}
	for (i = 0; i < hdr->num_attrs; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];

		if (a->attr_id >= OUT_ID) {
			a->data = ANSWER(a->attr_id);
			a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
		}
	}
	return 0;
}

static struct verbs_device vdev = { .driver_id = RDMA_DRIVER_RXE };
/* The device header a provider\'s alloc_device would allocate. */
static struct verbs_plugin_device dev_hdr;
static struct verbs_context vctx;
static struct ibv_context *ctx = &vctx.context;

/*
 * A plug-in's command buffer: room for 16 attributes, of which @num are
 * its own and the rest belong to @link's chain (rdma-core 44 sizes the
 * stack array the same way, through __ioctl_final_num_attrs()).
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

	memset(b, 0xee, sizeof(*b));
	memset(c, 0, sizeof(*c));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	c->next = link;
	c->uhw_in_idx = IBV_COMMAND_UHW_NO_INDEX;
	c->uhw_out_idx = IBV_COMMAND_UHW_NO_INDEX;
	c->next_attr = c->hdr.attrs;
	c->last_attr = c->hdr.attrs + total;
	return c;
}

static struct ib_uverbs_attr *fill(struct ibv_command_buffer *c, uint16_t id,
				   uint64_t data)
{
	struct ib_uverbs_attr *a = c->next_attr++;

	*a = (struct ib_uverbs_attr){
		.attr_id = id,
		.len = sizeof(data),
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = data,
	};
	return a;
}

static void reset(int fail)
{
	memset(&kern, 0, sizeof(kern));
	kern.fail = fail;
	stub_be_child(false);
	errno = 0;
}

static void test_final_num_attrs(void)
{
	union cmdb b1, b2;
	struct ibv_command_buffer *l1, *l2;

	CHECK(__ioctl_final_num_attrs(3, NULL) == 3, "no chain: own count");
	l2 = cmdb_init(&b2, 1, 2, 4, NULL);
	fill(l2, 1, 0);
	l1 = cmdb_init(&b1, 1, 2, 4, l2);
	fill(l1, 2, 0);
	fill(l1, 3, 0);
	CHECK(__ioctl_final_num_attrs(5, l1) == 8,
	      "own 5 + chain 2 + 1 filled = 8");
	CHECK(__ioctl_final_num_attrs(0, l2) == 1,
	      "counts filled attributes, not room");
}

/* A top buffer with two attributes and a chain of two and one. */
static struct ibv_command_buffer *chain3(union cmdb *top, union cmdb *b1,
					 union cmdb *b2)
{
	struct ibv_command_buffer *l1, *l2, *c;

	l2 = cmdb_init(b2, 7, 3, 1, NULL);
	fill(l2, OUT_ID + 2, 0);
	l1 = cmdb_init(b1, 7, 3, 2, l2);
	fill(l1, 10, 1010);
	fill(l1, OUT_ID + 1, 0);
	c = cmdb_init(top, 7, 3, 2, l1);
	fill(c, 20, 2020);
	fill(c, OUT_ID, 0);
	return c;
}

static void test_merge(void)
{
	union cmdb top, b1, b2;
	struct ibv_command_buffer *c = chain3(&top, &b1, &b2);
	static const uint16_t ids[] = { 20, OUT_ID, 10, OUT_ID + 1,
					OUT_ID + 2 };
	bool order = true;
	unsigned int i;
	int ret;

	reset(0);
	ret = execute_ioctl(ctx, c);
	CHECK(ret == 0 && kern.calls == 1, "chained command issued once");
	CHECK(kern.hdr.num_attrs == 5, "5 attributes sent (%u)",
	      kern.hdr.num_attrs);
	CHECK(kern.hdr.length ==
		      sizeof(kern.hdr) + 5 * sizeof(struct ib_uverbs_attr),
	      "length is header plus 5 attributes (%u)", kern.hdr.length);
	CHECK(kern.hdr.object_id == 7 && kern.hdr.method_id == 3,
	      "object and method kept");
	CHECK(kern.hdr.driver_id == RDMA_DRIVER_RXE,
	      "driver id of the context's device");
	CHECK(!kern.hdr.reserved1 && !kern.hdr.reserved2, "reserved zero");
	for (i = 0; i < 5; i++)
		order &= kern.attrs[i].attr_id == ids[i];
	CHECK(order, "own attributes first, then the chain in order");
	CHECK(kern.attrs[2].data == 1010, "chained input passed unchanged");

	CHECK(c->hdr.attrs[1].data == ANSWER(OUT_ID),
	      "own output written in place");
	CHECK(b1.cmd.hdr.attrs[1].data == ANSWER(OUT_ID + 1) &&
		      (b1.cmd.hdr.attrs[1].flags & UVERBS_ATTR_F_VALID_OUTPUT),
	      "first chained buffer's output copied back with its flags");
	CHECK(b2.cmd.hdr.attrs[0].data == ANSWER(OUT_ID + 2),
	      "second chained buffer's output copied back");
	CHECK(b1.cmd.hdr.attrs[0].data == 1010, "chained input left alone");

	/* The kernel refuses: errno returned and left in errno. */
	c = chain3(&top, &b1, &b2);
	reset(ENOENT);
	ret = execute_ioctl(ctx, c);
	CHECK(ret == ENOENT && errno == ENOENT,
	      "kernel errno returned unchanged and in errno (%d)", ret);
	CHECK(b1.cmd.hdr.attrs[1].data == 0 && b2.cmd.hdr.attrs[0].data == 0,
	      "nothing copied back after a failure");
}

static void test_refused_buffers(void)
{
	union cmdb top, b1, b2;
	struct ibv_command_buffer *c;
	int ret;

	/* Room for the own attributes only, not for the chain's. */
	c = chain3(&top, &b1, &b2);
	c->last_attr = c->next_attr;
	reset(0);
	ret = execute_ioctl(ctx, c);
	CHECK(ret == EINVAL && errno == EINVAL && kern.calls == 0,
	      "chain that does not fit: EINVAL, nothing sent");

	c = chain3(&top, &b1, &b2);
	c->buffer_error = 1;
	reset(0);
	CHECK(execute_ioctl(ctx, c) == EINVAL && kern.calls == 0,
	      "buffer_error set by a fill helper: EINVAL, nothing sent");

	c = chain3(&top, &b1, &b2);
	b2.cmd.buffer_error = 1;
	reset(0);
	CHECK(execute_ioctl(ctx, c) == EINVAL && kern.calls == 0,
	      "buffer_error in a chained buffer: EINVAL, nothing sent");
}

static void test_uhw_in(void)
{
	uint32_t drv = 0x12345678, drv2 = 0x9abcdef0;
	union cmdb top, b1;
	struct ibv_command_buffer *c, *l1;
	struct ib_uverbs_attr *a;

	/* The library's own deferred UHW_IN: a pointer until sent. */
	c = cmdb_init(&top, 1, 1, 2, NULL);
	fill(c, 5, 0);
	a = fill(c, UVERBS_ATTR_UHW_IN, (uintptr_t)&drv);
	a->len = sizeof(drv);
	c->uhw_in_idx = 1;
	reset(0);
	CHECK(execute_ioctl(ctx, c) == 0 && kern.calls == 1 &&
		      kern.attrs[1].data == drv,
	      "UHW_IN of 4 bytes inlined before sending");

	/* One from a chained buffer lands behind the own attributes. */
	l1 = cmdb_init(&b1, 1, 1, 1, NULL);
	a = fill(l1, UVERBS_ATTR_UHW_IN, (uintptr_t)&drv2);
	a->len = sizeof(drv2);
	l1->uhw_in_idx = 0;
	c = cmdb_init(&top, 1, 1, 2, l1);
	fill(c, 5, 0);
	fill(c, 6, 0);
	reset(0);
	CHECK(execute_ioctl(ctx, c) == 0 && c->uhw_in_idx == 2 &&
		      kern.attrs[2].data == drv2,
	      "chained UHW_IN found at index 2 and inlined");
}

static void test_child_guard(void)
{
	union cmdb top;
	struct ibv_command_buffer *c;
	int ret;

	c = cmdb_init(&top, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, 1,
		      NULL);
	fill(c, 0, 1);
	reset(0);
	stub_be_child(true);
	ret = execute_ioctl(ctx, c);
	CHECK(ret == 0 && kern.calls == 0,
	      "child: destroying a core object is done, nothing sent");

	c = cmdb_init(&top, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 1, NULL);
	fill(c, OUT_ID, 0);
	reset(0);
	stub_be_child(true);
	ret = execute_ioctl(ctx, c);
	CHECK(ret == EPERM && errno == EPERM && kern.calls == 0,
	      "child: creating fails with EPERM, nothing sent");

	/* A driver's own namespace (mlx5 DEVX): refused, destroy or not. */
	c = cmdb_init(&top, (1 << 12) | 1, (1 << 12) | 1, 1, NULL);
	fill(c, 0, 1);
	reset(0);
	stub_be_child(true);
	CHECK(execute_ioctl(ctx, c) == EPERM && kern.calls == 0,
	      "child: driver-namespace method refused with EPERM");

	CHECK(vcmd_method_destroys(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE) &&
		      vcmd_method_destroys(UVERBS_OBJECT_FLOW_ACTION,
					   UVERBS_METHOD_FLOW_ACTION_DESTROY) &&
		      !vcmd_method_destroys(UVERBS_OBJECT_DEVICE,
					    UVERBS_METHOD_QUERY_CONTEXT) &&
		      !vcmd_method_destroys(UVERBS_OBJECT_FLOW_ACTION,
					    UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY),
	      "destroy methods told from the others");
}

/* A library command with a plug-in's driver attributes behind it. */
static void test_library_command_link(void)
{
	static union {
		struct ibv_command_buffer cmd;
		uint8_t room[sizeof(struct ibv_command_buffer) +
			     (VCMD_LINK_MAX_ATTRS + 1) *
				     sizeof(struct ib_uverbs_attr)];
	} big;
	union cmdb drv;
	struct ibv_command_buffer *l;
	struct ib_uverbs_attr *own_new;
	struct vcmd_ioctl c;
	unsigned int i;
	int ret;

	l = cmdb_init(&drv, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 2, NULL);
	fill(l, (1 << 12) | 1, 4242);
	fill(l, OUT_ID + 5, 0);
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC);
	own_new = vcmd_attr_new_idr(&c, OUT_ID);
	vcmd_attr_in_u64(&c, 1, 4096);
	reset(0);
	ret = vcmd_ioctl_link(ctx, &c, l);
	CHECK(ret == 0 && kern.hdr.num_attrs == 4,
	      "library command sent with the 2 driver attributes (%u)",
	      kern.hdr.num_attrs);
	CHECK(kern.attrs[0].attr_id == OUT_ID && kern.attrs[1].attr_id == 1 &&
		      kern.attrs[2].data == 4242,
	      "library's attributes first, the driver's after them");
	CHECK(vcmd_attr_handle(own_new) == ANSWER(OUT_ID),
	      "new handle read back from the library's own attribute");
	CHECK(drv.cmd.hdr.attrs[1].data == ANSWER(OUT_ID + 5),
	      "driver's output copied back to its buffer");

	/* More driver attributes than the library takes. */
	l = &big.cmd;
	memset(&big, 0, sizeof(big));
	l->uhw_in_idx = IBV_COMMAND_UHW_NO_INDEX;
	l->uhw_out_idx = IBV_COMMAND_UHW_NO_INDEX;
	l->next_attr = l->hdr.attrs;
	l->last_attr = l->hdr.attrs + VCMD_LINK_MAX_ATTRS + 1;
	for (i = 0; i < VCMD_LINK_MAX_ATTRS + 1; i++)
		fill(l, 1, i);
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC);
	vcmd_attr_new_idr(&c, OUT_ID);
	reset(0);
	CHECK(vcmd_ioctl_link(ctx, &c, l) == EINVAL && kern.calls == 0,
	      "an oversized chain: EINVAL, nothing sent");
}

/* Two exports end to end: the counters commands with a driver chain. */
static void test_counters(void)
{
	struct ibv_counters_init_attr init = {};
	struct verbs_counters vc = {};
	uint64_t values[2] = {};
	union cmdb drv;
	struct ibv_command_buffer *l;

	l = cmdb_init(&drv, UVERBS_OBJECT_COUNTERS,
		      UVERBS_METHOD_COUNTERS_CREATE, 1, NULL);
	fill(l, (1 << 12) | 2, 1);
	reset(0);
	CHECK(ibv_cmd_create_counters(ctx, &init, &vc, l) == 0 &&
		      kern.hdr.num_attrs == 2 &&
		      kern.hdr.object_id == UVERBS_OBJECT_COUNTERS &&
		      kern.attrs[1].attr_id == ((1 << 12) | 2),
	      "create_counters sends its handle and the driver attribute");
	/* The stand-in answers only ids >= OUT_ID: the handle stays 0. */
	CHECK(vc.counters.context == ctx, "counters' context set");

	reset(0);
	vc.handle = 9;
	CHECK(ibv_cmd_read_counters(&vc, values, 2, 1, NULL) == 0 &&
		      kern.hdr.num_attrs == 3 && kern.attrs[0].data == 9 &&
		      kern.attrs[1].len == sizeof(values) &&
		      kern.attrs[1].data == (uintptr_t)values,
	      "read_counters: handle, the whole buffer, flags");

	init.comp_mask = 1;
	reset(0);
	CHECK(ibv_cmd_create_counters(ctx, &init, &vc, NULL) == EOPNOTSUPP &&
		      kern.calls == 0,
	      "unknown comp_mask: EOPNOTSUPP before the kernel");

	init.comp_mask = 0;
	reset(0);
	stub_be_child(true);
	CHECK(ibv_cmd_create_counters(ctx, &init, &vc, NULL) == EPERM &&
		      errno == EPERM && kern.calls == 0,
	      "child: create_counters EPERM, nothing sent");
	reset(0);
	stub_be_child(true);
	CHECK(ibv_cmd_destroy_counters(&vc) == 0 && kern.calls == 0,
	      "child: destroy_counters 0, nothing sent");
}

int main(void)
{
	dev_hdr.sysfs = &vdev.sysfs;
	vdev.pub = &dev_hdr;
	ctx->device = &dev_hdr.device;
	ctx->cmd_fd = 1000;
	ctx->async_fd = -1;
	stub_own_context(&vctx);

	test_final_num_attrs();
	test_merge();
	test_refused_buffers();
	test_uhw_in();
	test_child_guard();
	test_library_command_link();
	test_counters();
	return tap_done();
}
