// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Context and device commands.
 *
 * QUERY_DEVICE and CREATE_COMP_CHANNEL are write() commands; GET_CONTEXT
 * is the ioctl method where the kernel has it (only that reports
 * core_support), the write() command where not; the port and GID queries
 * and QUERY_CONTEXT (import) are ioctl methods, because only those carry
 * port_cap_flags2, the GID entries and a context that already exists.
 */
#include <string.h>
#include <unistd.h>

#include "cmd_transport.h"
#include "uverbs_ioctl_65.h"

/* True when the kernel's response reached past the end of @field. */
#define RESP_HAS(resp, len, field)                                           \
	(offsetof(typeof(resp), field) + sizeof((resp).field) <= (len))

/* The legacy GET_CONTEXT: the kernel opens the async event fd with it. */
static int get_context_write(struct verbs_context *vctx,
			     struct vcmd_udata *udata)
{
	struct ib_uverbs_get_context cmd = {};
	struct ib_uverbs_get_context_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_GET_CONTEXT,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
		.udata = udata,
	};
	int err;

	resp.async_fd = VCMD_NO_HANDLE;
	err = vcmd_write(vctx->context.cmd_fd, &req);
	if (err) {
		/* The context goes with cmd_fd; its event fd is ours. */
		if (req.short_write && resp.async_fd != VCMD_NO_HANDLE)
			close(resp.async_fd);
		return err;
	}
	vctx->context.async_fd = resp.async_fd;
	vctx->context.num_comp_vectors = resp.num_comp_vectors;
	return 0;
}

/*
 * The method GET_CONTEXT opens no event fd: ASYNC_EVENT_ALLOC does, as
 * rdma-core 44 (libibverbs/cmd_device.c ibv_cmd_alloc_async_fd) does.
 */
static int alloc_async_fd(struct ibv_context *ctx)
{
	struct vcmd_ioctl c;
	struct ib_uverbs_attr *fd;
	int err;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_ASYNC_EVENT,
			 UVERBS_METHOD_ASYNC_EVENT_ALLOC);
	fd = vcmd_attr_fd(&c, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err)
		return err;
	ctx->async_fd = (int)fd->data_s64;
	return 0;
}

/* What the methods GET_CONTEXT and QUERY_CONTEXT both answer. */
struct context_answer {
	uint32_t num_comp_vectors;
	uint64_t core_support;
};

_Static_assert((int)UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS ==
			(int)UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS &&
		       (int)UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT ==
			       (int)UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
	       "both context methods number their answers alike");

static void context_method_start(struct vcmd_ioctl *c,
				 struct ibv_context *ctx, uint16_t method,
				 struct context_answer *a)
{
	vcmd_ioctl_start(c, ctx, UVERBS_OBJECT_DEVICE, method);
	vcmd_attr_out(c, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
		      &a->num_comp_vectors, sizeof(a->num_comp_vectors), true);
	/* Kernels before the optional access flags lack it: then 0. */
	vcmd_attr_out(c, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT,
		      &a->core_support, sizeof(a->core_support), false);
}

static void context_record(struct ibv_context *ctx,
			   const struct context_answer *a)
{
	ctx->num_comp_vectors = a->num_comp_vectors;
	/* Plug-ins read it from their device (rdma-core's core_support). */
	verbs_get_device(ctx->device)->pub->core_support = a->core_support;
}

/*
 * File descriptors a plug-in hands the kernel with the context (rdma-core
 * 65's ibv_cmd_get_context() @fd_arr).  A plug-in that passes none passes
 * no array: this is NULL then, and no attribute is sent.
 */
struct get_context_fds {
	const int *arr;
	uint32_t count;
};

/*
 * As rdma-core 65 sends the array (libibverbs/cmd_device.c): the ints as
 * they are, in the attribute UVERBS_ATTR_GET_CONTEXT_FD_ARR (a uAPI newer
 * than bookworm's 6.1), inline when they fit in 8 bytes, mandatory like every
 * attribute upstream fills, even an empty array (length 0).  A kernel
 * without the attribute answers EPROTONOSUPPORT, and upstream then opens
 * the context with the write() command, without the fds: so does
 * vcmd_get_context().  An array longer than an attribute can say
 * (16-bit length) fails with EINVAL.
 */
static void add_context_fds(struct vcmd_ioctl *c,
			    const struct get_context_fds *fds)
{
	size_t len = fds->count <= UINT16_MAX / sizeof(int) ?
			     fds->count * sizeof(int) :
			     SIZE_MAX;

	vcmd_attr_in(c, IBV_K65_ATTR_GET_CONTEXT_FD_ARR, fds->arr, len, true);
}

/*
 * The method GET_CONTEXT, which also reports the kernel's core_support
 * (optional MR access flags).  A provider's private data travels as the
 * UHW attributes: the same bytes the legacy command carries behind its
 * core request and response.
 */
static int get_context_ioctl(struct verbs_context *vctx,
			     struct vcmd_udata *udata,
			     const struct get_context_fds *fds)
{
	struct ibv_context *ctx = &vctx->context;
	struct context_answer a = {};
	struct vcmd_ioctl c;
	int err;

	context_method_start(&c, ctx, UVERBS_METHOD_GET_CONTEXT, &a);
	vcmd_attr_udata(&c, udata);
	if (fds)
		add_context_fds(&c, fds);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err)
		return err;
	context_record(ctx, &a);
	if (udata && udata->core_out) {
		/* What the legacy response would hold; no event fd yet. */
		struct ib_uverbs_get_context_resp resp = {
			.async_fd = VCMD_NO_HANDLE,
			.num_comp_vectors = a.num_comp_vectors,
		};
		size_t n = udata->core_out_len;

		if (n > sizeof(resp))
			n = sizeof(resp);
		memcpy(udata->core_out, &resp, n);
	}
	return 0;
}

/*
 * The method first; a kernel without the ioctl framework (ENOTTY) or
 * without the method (EPROTONOSUPPORT) gets the legacy command, where
 * rdma-core 44 (libibverbs/cmd_fallback.c) falls back too.  Such a
 * kernel reports no core_support, which stays 0: no optional access flag
 * is passed on.  A plug-in's fds go only with the method: the legacy
 * command has no room for them, and rdma-core 65 drops them there too.
 */
static int get_context(struct verbs_context *vctx, struct vcmd_udata *udata,
		       const struct get_context_fds *fds)
{
	int err = get_context_ioctl(vctx, udata, fds);

	if (err == ENOTTY || err == EPROTONOSUPPORT)
		return get_context_write(vctx, udata);
	if (err)
		return err;
	/* On failure the kernel's context goes with cmd_fd, the caller's. */
	return vcmd_ioctl_errno(alloc_async_fd(&vctx->context));
}

int vcmd_get_context(struct verbs_context *vctx, struct vcmd_udata *udata)
{
	return get_context(vctx, udata, NULL);
}

/* QUERY_CONTEXT, with a plug-in's driver attributes chained in @link. */
static int query_context_link(struct verbs_context *vctx,
			      struct ibv_command_buffer *link)
{
	struct ibv_context *ctx = &vctx->context;
	struct context_answer a = {};
	struct vcmd_ioctl c;
	int err;

	context_method_start(&c, ctx, UVERBS_METHOD_QUERY_CONTEXT, &a);
	/*
	 * The kernel answers only for drivers that can query a context
	 * (rxe cannot: EOPNOTSUPP), and EINVAL when the fd has none.
	 */
	err = link ? vcmd_ioctl_link(ctx, &c, link) : vcmd_ioctl_ctx(ctx, &c);
	if (err)
		return err;
	context_record(ctx, &a);
	return 0;
}

int vcmd_query_context(struct verbs_context *vctx)
{
	return vcmd_ioctl_errno(query_context_link(vctx, NULL));
}

static void copy_device_attr(struct ibv_device_attr *a,
			     const struct ib_uverbs_query_device_resp *r)
{
	/* fw_ver stays empty: the library formats it from sysfs. */
	memset(a->fw_ver, 0, sizeof(a->fw_ver));
	a->node_guid = r->node_guid;
	a->sys_image_guid = r->sys_image_guid;
	a->max_mr_size = r->max_mr_size;
	a->page_size_cap = r->page_size_cap;
	a->vendor_id = r->vendor_id;
	a->vendor_part_id = r->vendor_part_id;
	a->hw_ver = r->hw_ver;
	a->max_qp = r->max_qp;
	a->max_qp_wr = r->max_qp_wr;
	a->device_cap_flags = r->device_cap_flags;
	a->max_sge = r->max_sge;
	a->max_sge_rd = r->max_sge_rd;
	a->max_cq = r->max_cq;
	a->max_cqe = r->max_cqe;
	a->max_mr = r->max_mr;
	a->max_pd = r->max_pd;
	a->max_qp_rd_atom = r->max_qp_rd_atom;
	a->max_ee_rd_atom = r->max_ee_rd_atom;
	a->max_res_rd_atom = r->max_res_rd_atom;
	a->max_qp_init_rd_atom = r->max_qp_init_rd_atom;
	a->max_ee_init_rd_atom = r->max_ee_init_rd_atom;
	a->atomic_cap = r->atomic_cap;
	a->max_ee = r->max_ee;
	a->max_rdd = r->max_rdd;
	a->max_mw = r->max_mw;
	a->max_raw_ipv6_qp = r->max_raw_ipv6_qp;
	a->max_raw_ethy_qp = r->max_raw_ethy_qp;
	a->max_mcast_grp = r->max_mcast_grp;
	a->max_mcast_qp_attach = r->max_mcast_qp_attach;
	a->max_total_mcast_qp_attach = r->max_total_mcast_qp_attach;
	a->max_ah = r->max_ah;
	a->max_fmr = r->max_fmr;
	a->max_map_per_fmr = r->max_map_per_fmr;
	a->max_srq = r->max_srq;
	a->max_srq_wr = r->max_srq_wr;
	a->max_srq_sge = r->max_srq_sge;
	a->max_pkeys = r->max_pkeys;
	a->local_ca_ack_delay = r->local_ca_ack_delay;
	a->phys_port_cnt = r->phys_port_cnt;
}

/* The extended fields, as far as the kernel's response_length goes. */
static void copy_device_attr_ex(struct ibv_device_attr_ex *a,
				const struct ib_uverbs_ex_query_device_resp *r)
{
	size_t len = r->response_length;

	if (RESP_HAS(*r, len, odp_caps)) {
		a->odp_caps.general_caps = r->odp_caps.general_caps;
		a->odp_caps.per_transport_caps.rc_odp_caps =
			r->odp_caps.per_transport_caps.rc_odp_caps;
		a->odp_caps.per_transport_caps.uc_odp_caps =
			r->odp_caps.per_transport_caps.uc_odp_caps;
		a->odp_caps.per_transport_caps.ud_odp_caps =
			r->odp_caps.per_transport_caps.ud_odp_caps;
	}
	if (RESP_HAS(*r, len, timestamp_mask))
		a->completion_timestamp_mask = r->timestamp_mask;
	if (RESP_HAS(*r, len, hca_core_clock))
		a->hca_core_clock = r->hca_core_clock;
	if (RESP_HAS(*r, len, device_cap_flags_ex))
		a->device_cap_flags_ex = r->device_cap_flags_ex;
	if (RESP_HAS(*r, len, rss_caps)) {
		a->rss_caps.supported_qpts = r->rss_caps.supported_qpts;
		a->rss_caps.max_rwq_indirection_tables =
			r->rss_caps.max_rwq_indirection_tables;
		a->rss_caps.max_rwq_indirection_table_size =
			r->rss_caps.max_rwq_indirection_table_size;
	}
	if (RESP_HAS(*r, len, max_wq_type_rq))
		a->max_wq_type_rq = r->max_wq_type_rq;
	if (RESP_HAS(*r, len, raw_packet_caps))
		a->raw_packet_caps = r->raw_packet_caps;
	if (RESP_HAS(*r, len, tm_caps)) {
		a->tm_caps.max_rndv_hdr_size = r->tm_caps.max_rndv_hdr_size;
		a->tm_caps.max_num_tags = r->tm_caps.max_num_tags;
		a->tm_caps.flags = r->tm_caps.flags;
		a->tm_caps.max_ops = r->tm_caps.max_ops;
		a->tm_caps.max_sge = r->tm_caps.max_sge;
	}
	if (RESP_HAS(*r, len, cq_moderation_caps)) {
		a->cq_mod_caps.max_cq_count =
			r->cq_moderation_caps.max_cq_moderation_count;
		a->cq_mod_caps.max_cq_period =
			r->cq_moderation_caps.max_cq_moderation_period;
	}
	if (RESP_HAS(*r, len, max_dm_size))
		a->max_dm_size = r->max_dm_size;
	if (RESP_HAS(*r, len, xrc_odp_caps))
		a->xrc_odp_caps = r->xrc_odp_caps;
}

/*
 * The extended query into @resp (the kernel's core response), with the
 * provider's response, if any, in @udata.
 */
static int query_device_extended(struct ibv_context *ctx,
				 struct ib_uverbs_ex_query_device_resp *resp,
				 const struct vcmd_udata *udata)
{
	struct ib_uverbs_ex_query_device cmd = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
		.extended = true,
		VCMD_REQ_CORE(cmd),
		.resp = resp,
		.resp_len = sizeof(*resp),
		.udata = udata,
	};

	return vcmd_write_ctx(ctx, &req);
}

static int query_device_legacy(struct ibv_context *ctx,
			       struct ib_uverbs_query_device_resp *resp)
{
	struct ib_uverbs_query_device cmd = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_QUERY_DEVICE,
		VCMD_REQ_CORE(cmd),
		.resp = resp,
		.resp_len = sizeof(*resp),
	};

	return vcmd_write_ctx(ctx, &req);
}

int vcmd_query_device_resp(struct ibv_context *ctx,
			   struct ibv_device_attr_ex *full,
			   struct ib_uverbs_ex_query_device_resp *resp,
			   const struct vcmd_udata *udata_out)
{
	int err;

	memset(full, 0, sizeof(*full));
	err = query_device_extended(ctx, resp, udata_out);
	/* Kernels without the extended command refuse it in these ways. */
	if (vcmd_unsupported(err) || err == EINVAL) {
		memset(resp, 0, sizeof(*resp));
		err = query_device_legacy(ctx, &resp->base);
		if (err)
			return err;
		resp->response_length = sizeof(resp->base);
		copy_device_attr(&full->orig_attr, &resp->base);
	} else if (err) {
		return err;
	} else {
		copy_device_attr(&full->orig_attr, &resp->base);
		copy_device_attr_ex(full, resp);
	}
	/* The kernel counts ports in a byte; that is all there is. */
	full->phys_port_cnt_ex = full->orig_attr.phys_port_cnt;
	return 0;
}

int vcmd_query_device_ex(struct ibv_context *ctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	struct ibv_device_attr_ex full;
	int err;

	if (!attr || attr_size < sizeof(attr->orig_attr) ||
	    (input && input->comp_mask))
		return EINVAL;

	err = vcmd_query_device_resp(ctx, &full, &resp, NULL);
	if (err)
		return err;
	/* An older caller's struct is shorter: never write past it. */
	memcpy(attr, &full,
	       attr_size < sizeof(full) ? attr_size : sizeof(full));
	return 0;
}

static uint8_t link_layer_of(uint8_t kernel_ll)
{
	switch (kernel_ll) {
	case IBV_LINK_LAYER_INFINIBAND:
	case IBV_LINK_LAYER_ETHERNET:
		return kernel_ll;
	default:
		return IBV_LINK_LAYER_UNSPECIFIED;
	}
}

static void copy_port_attr(struct ibv_port_attr *a,
			   const struct ib_uverbs_query_port_resp *r)
{
	a->state = r->state;
	a->max_mtu = r->max_mtu;
	a->active_mtu = r->active_mtu;
	a->gid_tbl_len = r->gid_tbl_len;
	a->port_cap_flags = r->port_cap_flags;
	a->max_msg_sz = r->max_msg_sz;
	a->bad_pkey_cntr = r->bad_pkey_cntr;
	a->qkey_viol_cntr = r->qkey_viol_cntr;
	a->pkey_tbl_len = r->pkey_tbl_len;
	a->lid = r->lid;
	a->sm_lid = r->sm_lid;
	a->lmc = r->lmc;
	a->max_vl_num = r->max_vl_num;
	a->sm_sl = r->sm_sl;
	a->subnet_timeout = r->subnet_timeout;
	a->init_type_reply = r->init_type_reply;
	a->active_width = r->active_width;
	a->active_speed = r->active_speed;
	a->phys_state = r->phys_state;
	a->link_layer = link_layer_of(r->link_layer);
	a->flags = r->flags;
}

/*
 * What only the ioctl method's response has.  From rdma-core 56 on that
 * includes active_speed_ex (XDR and faster, which the 8-bit active_speed
 * cannot say), 4 bytes after port_cap_flags2, where older uAPI headers
 * (bookworm's) still have reserved bytes the kernel fills now: read it
 * at that offset, whichever header this is built with.
 */
#define QUERY_PORT_SPEED_EX_OFF \
	(offsetof(struct ib_uverbs_query_port_resp_ex, port_cap_flags2) + 4)
_Static_assert(QUERY_PORT_SPEED_EX_OFF + sizeof(uint32_t) <=
		       sizeof(struct ib_uverbs_query_port_resp_ex),
	       "active_speed_ex is inside the kernel's response");

static void copy_port_attr_ex(struct ibv_port_attr *a,
			      const struct ib_uverbs_query_port_resp_ex *r)
{
	a->port_cap_flags2 = r->port_cap_flags2;
#if IBV_RDMA_CORE_RELEASE >= 56
	memcpy(&a->active_speed_ex,
	       (const uint8_t *)r + QUERY_PORT_SPEED_EX_OFF,
	       sizeof(a->active_speed_ex));
#endif
}

static int query_port_ioctl(struct ibv_context *ctx, uint8_t port_num,
			    struct ibv_port_attr *attr)
{
	struct ib_uverbs_query_port_resp_ex resp = {};
	struct vcmd_ioctl c;
	int err;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_PORT);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, port_num);
	vcmd_attr_out(&c, UVERBS_ATTR_QUERY_PORT_RESP, &resp, sizeof(resp),
		      true);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err)
		return err;
	copy_port_attr(attr, &resp.legacy_resp);
	copy_port_attr_ex(attr, &resp);
	return 0;
}

static int query_port_write(struct ibv_context *ctx, uint8_t port_num,
			    struct ibv_port_attr *attr)
{
	struct ib_uverbs_query_port cmd = { .port_num = port_num };
	struct ib_uverbs_query_port_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_QUERY_PORT,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
	};
	int err = vcmd_write_ctx(ctx, &req);

	if (err)
		return err;
	copy_port_attr(attr, &resp);
	return 0;
}

int vcmd_query_port(struct ibv_context *ctx, uint8_t port_num,
		    struct ibv_port_attr *attr)
{
	int err;

	memset(attr, 0, sizeof(*attr));
	err = query_port_ioctl(ctx, port_num, attr);
	/* Kernels before the ioctl method have no port_cap_flags2. */
	if (vcmd_unsupported(err))
		err = query_port_write(ctx, port_num, attr);
	return err;
}

static uint32_t gid_type_of(uint32_t kernel_type)
{
	switch (kernel_type) {
	case IB_UVERBS_GID_TYPE_IB:
		return IBV_GID_TYPE_IB;
	case IB_UVERBS_GID_TYPE_ROCE_V1:
		return IBV_GID_TYPE_ROCE_V1;
	case IB_UVERBS_GID_TYPE_ROCE_V2:
		return IBV_GID_TYPE_ROCE_V2;
	default:
		return kernel_type;
	}
}

/*
 * The kernel's entry and ours have one layout, so a table is written in
 * place; only the type needs translating (and is the identity today).
 */
_Static_assert(sizeof(struct ibv_gid_entry) ==
		       sizeof(struct ib_uverbs_gid_entry),
	       "GID entry size");
_Static_assert(offsetof(struct ibv_gid_entry, gid_index) ==
		       offsetof(struct ib_uverbs_gid_entry, gid_index) &&
		       offsetof(struct ibv_gid_entry, port_num) ==
			       offsetof(struct ib_uverbs_gid_entry, port_num) &&
		       offsetof(struct ibv_gid_entry, gid_type) ==
			       offsetof(struct ib_uverbs_gid_entry, gid_type) &&
		       offsetof(struct ibv_gid_entry, ndev_ifindex) ==
			       offsetof(struct ib_uverbs_gid_entry,
					netdev_ifindex),
	       "GID entry layout");

static void copy_gid_entry(struct ibv_gid_entry *e,
			   const struct ib_uverbs_gid_entry *k)
{
	memcpy(e->gid.raw, k->gid, sizeof(e->gid.raw));
	e->gid_index = k->gid_index;
	e->port_num = k->port_num;
	e->gid_type = gid_type_of(k->gid_type);
	e->ndev_ifindex = k->netdev_ifindex;
}

int vcmd_query_gid_entry(struct ibv_context *ctx, uint32_t port_num,
			 uint32_t gid_index, struct ibv_gid_entry *entry)
{
	struct ib_uverbs_gid_entry resp = {};
	struct vcmd_ioctl c;
	int err;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_GID_ENTRY);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, port_num);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, gid_index);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0);
	vcmd_attr_out(&c, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, &resp,
		      sizeof(resp), true);
	/* An unused slot is ENODATA, a bad port or index EINVAL. */
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err)
		return vcmd_ioctl_errno(err);
	copy_gid_entry(entry, &resp);
	return 0;
}

ssize_t vcmd_query_gid_table(struct ibv_context *ctx,
			     struct ibv_gid_entry *entries,
			     size_t max_entries)
{
	const size_t esize = sizeof(struct ib_uverbs_gid_entry);
	struct ib_uverbs_gid_entry *k = (struct ib_uverbs_gid_entry *)entries;
	uint64_t num = 0;
	struct vcmd_ioctl c;
	size_t i;
	int err;

	/* An attribute's length is 16 bits: that many entries at most. */
	if (max_entries > UINT16_MAX / esize)
		max_entries = UINT16_MAX / esize;

	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_GID_TABLE);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, esize);
	vcmd_attr_out(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, entries,
		      max_entries * esize, true);
	vcmd_attr_out(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num,
		      sizeof(num), true);
	/* A table larger than @max_entries is EINVAL from the kernel. */
	err = vcmd_ioctl_ctx(ctx, &c);
	if (err)
		return -vcmd_ioctl_errno(err);
	if (num > max_entries)
		return -EIO;
	for (i = 0; i < num; i++)
		entries[i].gid_type = gid_type_of(k[i].gid_type);
	return num;
}

int vcmd_create_comp_channel(struct ibv_context *ctx, int *fd)
{
	struct ib_uverbs_create_comp_channel cmd = {};
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct vcmd_write_req req = {
		.command = IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
		VCMD_REQ_CORE(cmd),
		VCMD_REQ_RESP(resp),
	};
	int err;

	resp.fd = VCMD_NO_HANDLE;
	err = vcmd_write_ctx(ctx, &req);
	if (err) {
		if (req.short_write && resp.fd != VCMD_NO_HANDLE)
			close(resp.fd);
		return err;
	}
	*fd = resp.fd;
	return 0;
}

/*
 * The provider ABI's context and device commands (kern_abi.h structs,
 * rdma-core 44's signatures), with the child guard of the plug-in
 * commands (cmd_transport.h).
 */

/*
 * rdma-core 65 added @fd_arr, file descriptors the GET_CONTEXT ioctl
 * hands the kernel (add_context_fds()); NULL sends none.
 */
#if IBV_RDMA_CORE_RELEASE >= 65
IBV_EXPORT int ibv_cmd_get_context(struct verbs_context *vctx,
				   struct ibv_get_context *cmd, size_t cmd_size,
				   struct ibv_fd_arr *fd_arr,
				   struct ib_uverbs_get_context_resp *resp,
				   size_t resp_size)
#else
IBV_EXPORT int ibv_cmd_get_context(struct verbs_context *vctx,
				   struct ibv_get_context *cmd,
				   size_t cmd_size,
				   struct ib_uverbs_get_context_resp *resp,
				   size_t resp_size)
#endif
{
	struct vcmd_udata u;
	int err;

	/*
	 * Plug-ins read errno after a failed command, as upstream's write()
	 * leaves it: each of these sets it to what it returns.
	 */
	if (!vctx || !vctx->priv || !cmd || !resp ||
	    cmd_size < sizeof(*cmd) || resp_size < sizeof(*resp))
		return vcmd_set_errno(EINVAL);
	err = verbs_inherited_strict(&vctx->context) ? EPERM : 0;
	if (err)
		return vcmd_set_errno(err);
	VCMD_PLUGIN_UDATA(&u, cmd, cmd_size, resp, resp_size);
#if IBV_RDMA_CORE_RELEASE >= 65
	if (fd_arr) {
		const struct get_context_fds fds = {
			.arr = fd_arr->arr,
			.count = fd_arr->count,
		};

		return vcmd_set_errno(get_context(vctx, &u, &fds));
	}
#endif
	return vcmd_set_errno(get_context(vctx, &u, NULL));
}

IBV_EXPORT int ibv_cmd_query_context(struct ibv_context *ctx,
				     struct ibv_command_buffer *driver)
{
	int err = verbs_inherited_strict(ctx) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	/*
	 * The plug-in's driver attributes ride along in the same ioctl; the
	 * kernel's errno comes back unchanged, as upstream's.
	 */
	return vcmd_set_errno(query_context_link(verbs_get_ctx(ctx), driver));
}

IBV_EXPORT int
ibv_cmd_query_device_any(struct ibv_context *ctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size,
			 struct ib_uverbs_ex_query_device_resp *resp,
			 size_t *resp_size)
{
	struct ib_uverbs_ex_query_device_resp own;
	size_t own_size = sizeof(own);
	struct ibv_device_attr_ex full;
	struct vcmd_udata u = {};
	int err = verbs_inherited_strict(ctx) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (!attr || attr_size < sizeof(attr->orig_attr) ||
	    (input && input->comp_mask))
		return vcmd_set_errno(EINVAL);
	if (!resp || !resp_size) {
		resp = &own;
		resp_size = &own_size;
	}
	if (*resp_size < sizeof(*resp))
		return vcmd_set_errno(EINVAL);

	/* Plug-ins expect what the kernel leaves unwritten to read 0. */
	memset(resp, 0, *resp_size);
	if (*resp_size > sizeof(*resp)) {
		u.out = (uint8_t *)resp + sizeof(*resp);
		u.out_len = *resp_size - sizeof(*resp);
	}
	err = vcmd_query_device_resp(ctx, &full, resp, &u);
	if (err)
		return vcmd_set_errno(err);
	/* As upstream: the kernel's length of the core response. */
	*resp_size = resp->response_length;
	memset(attr, 0, attr_size);
	memcpy(attr, &full,
	       attr_size < sizeof(full) ? attr_size : sizeof(full));
	return 0;
}

IBV_EXPORT int ibv_cmd_query_port(struct ibv_context *ctx, uint8_t port_num,
				  struct ibv_port_attr *port_attr,
				  struct ibv_query_port *cmd, size_t cmd_size)
{
	int err = verbs_inherited_strict(ctx) ? EPERM : 0;

	if (err)
		return vcmd_set_errno(err);
	if (!port_attr)
		return vcmd_set_errno(EINVAL);
	/* The command layer builds its own request: @cmd carries nothing. */
	return vcmd_set_errno(vcmd_query_port(ctx, port_num, port_attr));
}
