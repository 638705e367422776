// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_cmd_create_flow() without a device: the translation of each
 * struct ibv_flow_spec into the kernel's struct ib_uverbs_flow_spec_*
 * (sizes and byte positions as the kernel reads them, rdma-core 44's
 * choices: the short IPv4 spec, IPv4-ext sent as the kernel's IPv4 spec,
 * filters cut to the kernel's fields), and the command that carries them:
 * write() for a small rule, UVERBS_METHOD_INVOKE_WRITE for one whose core
 * part is larger than write()'s buffer.  write() and ioctl() are
 * redirected at link time to a stand-in kernel that records the command
 * and answers with a flow handle.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd_transport.h"
#include "provider_cmd.h"
#include "tap.h"
#include "child_guard_stub.h"

#define FLOW_HANDLE 77

static struct {
	int writes, ioctls;
	uint32_t command;	/* with the extended flag */
	uint8_t core[2048] __attribute__((aligned(8)));
	size_t core_len;
	uint8_t drv[256];
	size_t drv_len;
} kern;

ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);
int __real_ioctl(int fd, unsigned long request, ...);
int __wrap_ioctl(int fd, unsigned long request, ...);

static const struct ib_uverbs_create_flow_resp answer = {
	.flow_handle = FLOW_HANDLE,
};

ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const struct ib_uverbs_ex_cmd_hdr *ex = (const void *)(hdr + 1);
	const uint8_t *p = (const uint8_t *)(ex + 1);

	if (fd != 1000)
		return __real_write(fd, buf, count);
	kern.writes++;
	kern.command = hdr->command;
	kern.core_len = hdr->in_words * 8;
	kern.drv_len = ex->provider_in_words * 8;
	if (kern.core_len > sizeof(kern.core) ||
	    kern.drv_len > sizeof(kern.drv) ||
	    count != sizeof(*hdr) + sizeof(*ex) + kern.core_len +
			     kern.drv_len) {
		errno = EINVAL;
		return -1;
	}
	memcpy(kern.core, p, kern.core_len);
	memcpy(kern.drv, p + kern.core_len, kern.drv_len);
	if (hdr->out_words * 8 >= sizeof(answer))
		memcpy((void *)(uintptr_t)ex->response, &answer,
		       sizeof(answer));
	return count;
}

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	struct ib_uverbs_ioctl_hdr *hdr;
	unsigned int i;
	va_list ap;

	va_start(ap, request);
	hdr = va_arg(ap, struct ib_uverbs_ioctl_hdr *);
	va_end(ap);
	kern.ioctls++;
	if (request != RDMA_VERBS_IOCTL ||
	    hdr->object_id != UVERBS_OBJECT_DEVICE ||
	    hdr->method_id != UVERBS_METHOD_INVOKE_WRITE) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	for (i = 0; i < hdr->num_attrs; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];
		void *ptr = (void *)(uintptr_t)a->data;

		switch (a->attr_id) {
		case UVERBS_ATTR_WRITE_CMD:
			kern.command = a->data;
			break;
		case UVERBS_ATTR_CORE_IN:
			kern.core_len = a->len;
			if (a->len <= sizeof(kern.core))
				memcpy(kern.core, a->len > 8 ? ptr : &a->data,
				       a->len);
			break;
		case UVERBS_ATTR_CORE_OUT:
			memcpy(ptr, &answer, sizeof(answer));
			break;
		case UVERBS_ATTR_UHW_IN:
			kern.drv_len = a->len;
			memcpy(kern.drv, a->len > 8 ? ptr : &a->data, a->len);
			break;
		}
	}
	return 0;
}

static struct verbs_device vdev = { .driver_id = RDMA_DRIVER_MLX5 };
/* The device header a provider\'s alloc_device would allocate. */
static struct verbs_plugin_device dev_hdr;
static struct verbs_context vctx;
static struct ibv_qp qp = { .context = &vctx.context, .handle = 12 };

/* A rule: the header, then the specs, as an application lays it out. */
struct rule {
	struct ibv_flow_attr attr;
	uint8_t specs[1024];
	size_t used;
};

/*
 * Specs follow the 20-byte struct ibv_flow_attr: 4-byte aligned only, as
 * in the packed structs applications build, so the library must not read
 * them as struct ibv_flow_spec (8-byte alignment).  Written byte-wise.
 */
static void *add_spec(struct rule *r, uint32_t type, size_t size)
{
	uint8_t *s = r->specs + r->used;
	uint16_t size16 = size;

	memset(s, 0, size);
	memcpy(s + offsetof(struct ibv_flow_spec, hdr.type), &type,
	       sizeof(type));
	memcpy(s + offsetof(struct ibv_flow_spec, hdr.size), &size16,
	       sizeof(size16));
	r->used += size;
	r->attr.num_of_specs++;
	r->attr.size = sizeof(r->attr) + r->used;
	return s;
}

static void rule_init(struct rule *r)
{
	memset(r, 0, sizeof(*r));
	r->attr.type = IBV_FLOW_ATTR_NORMAL;
	r->attr.priority = 3;
	r->attr.port = 1;
	r->attr.flags = IBV_FLOW_ATTR_FLAGS_DONT_TRAP;
}

/* The kernel spec at byte @off of the translated specs. */
static const struct ib_uverbs_flow_spec_hdr *kspec(const uint8_t *specs,
						   size_t off)
{
	return (const void *)(specs + off);
}

static void test_translation(void)
{
	struct verbs_flow_action va = { .handle = 55 };
	struct rule r;
	struct ibv_flow_spec_eth *eth;
	struct ibv_flow_spec_ipv4 *ip4;
	struct ibv_flow_spec_ipv4_ext *ip4x;
	struct ibv_flow_spec_tcp_udp *tcp;
	struct ibv_flow_spec_ipv6 *ip6;
	struct ibv_flow_spec_action_tag *tag;
	uint8_t *h;
	const struct ibv_flow_action *action = &va.action;
	uint8_t buf[2048];
	struct ib_uverbs_create_flow *cmd = (void *)buf;
	const uint8_t *k = (const uint8_t *)(cmd + 1);
	const struct ib_uverbs_flow_spec_eth *keth;
	const struct ib_uverbs_flow_spec_ipv4 *kip4x;
	const struct ib_uverbs_flow_spec_ipv6 *kip6;
	ssize_t len;
	uint32_t u32;

	rule_init(&r);
	eth = add_spec(&r, IBV_FLOW_SPEC_ETH, sizeof(*eth));
	memcpy(eth->val.dst_mac, "\x02\x00\x00\x00\x00\x01", 6);
	memset(eth->mask.dst_mac, 0xff, 6);
	eth->val.ether_type = 0x0008;
	eth->mask.ether_type = 0xffff;
	ip4 = add_spec(&r, IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER,
		       sizeof(*ip4));
	ip4->val.src_ip = 0x0100000a;
	ip4->mask.src_ip = 0xffffffff;
	ip4x = add_spec(&r, IBV_FLOW_SPEC_IPV4_EXT, sizeof(*ip4x));
	ip4x->val.proto = 6;
	ip4x->mask.proto = 0xff;
	tcp = add_spec(&r, IBV_FLOW_SPEC_TCP, sizeof(*tcp));
	tcp->val.dst_port = 0x5000;
	tcp->mask.dst_port = 0xffff;
	ip6 = add_spec(&r, IBV_FLOW_SPEC_IPV6, sizeof(*ip6));
	ip6->val.hop_limit = 64;
	ip6->mask.hop_limit = 0xff;
	tag = add_spec(&r, IBV_FLOW_SPEC_ACTION_TAG, sizeof(*tag));
	tag->tag_id = 0xabc;
	add_spec(&r, IBV_FLOW_SPEC_ACTION_DROP,
		 sizeof(struct ibv_flow_spec_action_drop));
	h = add_spec(&r, IBV_FLOW_SPEC_ACTION_HANDLE,
		     sizeof(struct ibv_flow_spec_action_handle));
	memcpy(h + offsetof(struct ibv_flow_spec_action_handle, action),
	       &action, sizeof(action));

	CHECK(vcmd_flow_cmd_room(&r.attr) <= sizeof(buf), "room fits");
	memset(buf, 0, sizeof(buf));
	len = vcmd_build_create_flow(qp.handle, &r.attr, cmd);
	/* 40 + 24 + 32 + 16 + 88 + 16 + 8 + 16 */
	CHECK(len == (ssize_t)sizeof(*cmd) + 240,
	      "8 specs: 24-byte core header + 240 bytes of specs (%zd)", len);
	CHECK(cmd->qp_handle == 12 && cmd->comp_mask == 0 &&
		      cmd->flow_attr.size == 240 &&
		      cmd->flow_attr.num_of_specs == 8 &&
		      cmd->flow_attr.priority == 3 &&
		      cmd->flow_attr.port == 1 &&
		      cmd->flow_attr.flags == IBV_FLOW_ATTR_FLAGS_DONT_TRAP &&
		      cmd->flow_attr.type == IBV_FLOW_ATTR_NORMAL,
	      "rule header: qp, size, count, priority, port, flags, type");

	keth = (const void *)k;
	CHECK(keth->type == IBV_FLOW_SPEC_ETH && keth->size == 40 &&
		      !memcmp(keth->val.dst_mac, eth->val.dst_mac, 6) &&
		      keth->val.ether_type == 0x0008 &&
		      keth->mask.ether_type == 0xffff &&
		      keth->mask.dst_mac[5] == 0xff,
	      "eth: 40 bytes, value and mask in place");
	CHECK(kspec(k, 40)->type == (IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER) &&
		      kspec(k, 40)->size == 24,
	      "inner ipv4: the short 24-byte form, inner bit kept");
	memcpy(&u32, k + 40 + 8, 4);
	CHECK(u32 == 0x0100000a, "ipv4: source address at byte 8");
	memcpy(&u32, k + 40 + 16, 4);
	CHECK(u32 == 0xffffffff, "ipv4: source mask at byte 16");
	kip4x = (const void *)(k + 64);
	CHECK(kip4x->type == IBV_FLOW_SPEC_IPV4 && kip4x->size == 32 &&
		      kip4x->val.proto == 6 && kip4x->mask.proto == 0xff,
	      "ipv4-ext: sent as the kernel's 32-byte ipv4 spec");
	CHECK(kspec(k, 96)->type == IBV_FLOW_SPEC_TCP &&
		      kspec(k, 96)->size == 16 && k[96 + 8] == 0x00 &&
		      k[96 + 9] == 0x50 && k[96 + 12] == 0xff,
	      "tcp: 16 bytes, port value at 8, mask at 12");
	kip6 = (const void *)(k + 112);
	CHECK(kip6->type == IBV_FLOW_SPEC_IPV6 && kip6->size == 88 &&
		      kip6->val.hop_limit == 64 && kip6->mask.hop_limit == 0xff &&
		      kip6->val.reserved == 0,
	      "ipv6: 88 bytes, hop limit at the kernel's place");
	memcpy(&u32, k + 200 + 8, 4);
	CHECK(kspec(k, 200)->type == IBV_FLOW_SPEC_ACTION_TAG &&
		      kspec(k, 200)->size == 16 && u32 == 0xabc,
	      "tag action: 16 bytes, the tag");
	CHECK(kspec(k, 216)->type == IBV_FLOW_SPEC_ACTION_DROP &&
		      kspec(k, 216)->size == 8,
	      "drop action: 8 bytes");
	memcpy(&u32, k + 224 + 8, 4);
	CHECK(kspec(k, 224)->type == IBV_FLOW_SPEC_ACTION_HANDLE &&
		      kspec(k, 224)->size == 16 && u32 == 55,
	      "handle action: the flow action's kernel handle");
}

static void test_refused_specs(void)
{
	uint8_t buf[2048];
	struct rule r;
	struct ibv_flow_spec_ipv6 *ip6;

	rule_init(&r);
	add_spec(&r, IBV_FLOW_SPEC_IPV4_EXT, 8 + 2 * 8);
	CHECK(vcmd_build_create_flow(1, &r.attr, (void *)buf) == -EINVAL,
	      "ipv4-ext filter shorter than the kernel's: EINVAL");

	/* A filter 4 bytes longer than the application's struct. */
	rule_init(&r);
	ip6 = add_spec(&r, IBV_FLOW_SPEC_IPV6, sizeof(*ip6) + 8);
	memset(buf, 0, sizeof(buf));
	CHECK(vcmd_build_create_flow(1, &r.attr, (void *)buf) ==
		      (ssize_t)sizeof(struct ib_uverbs_create_flow) + 88,
	      "longer ipv6 filter, its extra mask bytes zero: accepted");
	((uint8_t *)&ip6->val)[44 + 41] = 1;
	CHECK(vcmd_build_create_flow(1, &r.attr, (void *)buf) == -EOPNOTSUPP,
	      "longer ipv6 filter masking a field the kernel lacks: "
	      "EOPNOTSUPP");

	rule_init(&r);
	add_spec(&r, IBV_FLOW_SPEC_GRE | IBV_FLOW_SPEC_INNER,
		 sizeof(struct ibv_flow_spec_gre));
	CHECK(vcmd_build_create_flow(1, &r.attr, (void *)buf) == -EINVAL,
	      "inner GRE: EINVAL");
	rule_init(&r);
	add_spec(&r, 0x77, 16);
	CHECK(vcmd_build_create_flow(1, &r.attr, (void *)buf) == -EINVAL,
	      "unknown spec type: EINVAL");
}

static void test_commands(void)
{
	static const uint8_t ucmd[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
					  12 };
	struct ibv_flow flow = {};
	struct rule r;
	struct ibv_flow_spec_eth *eth;
	struct ibv_flow_spec_ipv6 *ip6;
	const struct ib_uverbs_create_flow *core = (const void *)kern.core;
	int ret;

	rule_init(&r);
	eth = add_spec(&r, IBV_FLOW_SPEC_ETH, sizeof(*eth));
	eth->val.ether_type = 0x0008;
	memset(&kern, 0, sizeof(kern));
	ret = ibv_cmd_create_flow(&qp, &flow, &r.attr, (void *)ucmd,
				  sizeof(ucmd));
	CHECK(ret == 0 && kern.writes == 1 && kern.ioctls == 0,
	      "small rule: one write() (%d)", ret);
	CHECK(kern.command == (IB_USER_VERBS_CMD_FLAG_EXTENDED |
			       IB_USER_VERBS_EX_CMD_CREATE_FLOW),
	      "extended CREATE_FLOW");
	CHECK(kern.core_len == sizeof(*core) + 40 && core->qp_handle == 12 &&
		      core->flow_attr.size == 40,
	      "core: header and the eth spec (%zu bytes)", kern.core_len);
	CHECK(kern.drv_len == 16 && !memcmp(kern.drv, ucmd, sizeof(ucmd)),
	      "the plug-in's request behind it, padded to 8 bytes");
	CHECK(flow.handle == FLOW_HANDLE && flow.context == qp.context,
	      "flow's handle and context filled");

	/* Ten IPv6 specs: 904 bytes of core, more than write() takes. */
	rule_init(&r);
	while (r.attr.num_of_specs < 10) {
		ip6 = add_spec(&r, IBV_FLOW_SPEC_IPV6, sizeof(*ip6));
		ip6->val.next_hdr = 17;
	}
	memset(&kern, 0, sizeof(kern));
	memset(&flow, 0, sizeof(flow));
	ret = ibv_cmd_create_flow(&qp, &flow, &r.attr, (void *)ucmd,
				  sizeof(ucmd));
	CHECK(ret == 0 && kern.writes == 0 && kern.ioctls == 1,
	      "large rule: UVERBS_METHOD_INVOKE_WRITE (%d)", ret);
	CHECK(kern.command == (IB_USER_VERBS_CMD_FLAG_EXTENDED |
			       IB_USER_VERBS_EX_CMD_CREATE_FLOW) &&
		      kern.core_len == sizeof(*core) + 880 &&
		      core->flow_attr.size == 880 &&
		      core->flow_attr.num_of_specs == 10,
	      "the whole rule as the core part (%zu bytes)", kern.core_len);
	CHECK(kern.drv_len == sizeof(ucmd) &&
		      !memcmp(kern.drv, ucmd, sizeof(ucmd)),
	      "the plug-in's request as UHW_IN");
	CHECK(flow.handle == FLOW_HANDLE, "handle from the core response");

	rule_init(&r);
	add_spec(&r, 0x77, 16);
	memset(&kern, 0, sizeof(kern));
	errno = 0;
	CHECK(ibv_cmd_create_flow(&qp, &flow, &r.attr, NULL, 0) == EINVAL &&
		      errno == EINVAL && !kern.writes && !kern.ioctls,
	      "bad spec: EINVAL, nothing sent");
}

int main(void)
{
	dev_hdr.sysfs = &vdev.sysfs;
	vdev.pub = &dev_hdr;
	vctx.context.device = &dev_hdr.device;
	vctx.context.cmd_fd = 1000;
	vctx.context.async_fd = -1;
	stub_own_context(&vctx);

	test_translation();
	test_refused_specs();
	test_commands();
	return tap_done();
}
