// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The provider ABI against the layouts of the rdma-core release built
 * (IBV_RDMA_CORE_RELEASE; 44's unless it has its own): every struct a
 * plug-in shares with the library (provider_abi.h, the extended objects of
 * driver.h and the kernel's ioctl structs a plug-in fills inline) has the
 * size, and every member the offset and size (a bit-field its bits), that
 * pahole measured on rdma-core v44.0 (driver-layouts.txt, read at run
 * time).  Every member listed there must exist here and every member here
 * must be listed there, so a member that moves, grows, appears or goes
 * fails; the ops table's slots must come in the recorded order.
 *
 * usage: test_provider_abi DRIVER-LAYOUTS.TXT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern_abi.h"
#include "provider_abi.h"
#include "tap.h"

struct layout {
	const char *type; /* the name in the data file */
	const char *member; /* NULL: the struct itself */
	size_t offset;
	size_t size;
	/* A bit-field: stores @v in it within a zeroed struct of @size. */
	void (*set_bits)(void *obj, uint64_t v);
	size_t struct_size;
};

#define STRUCT_AS(name, T)                      \
	{                                       \
		.type = name, .size = sizeof(T) \
	}
#define MEMBER_AS(name, T, m)                                         \
	{                                                             \
		.type = name, .member = #m, .offset = offsetof(T, m), \
		.size = sizeof(((T *)0)->m)                           \
	}
#define STRUCT(s) STRUCT_AS(#s, struct s)
#define MEMBER(s, m) MEMBER_AS(#s, struct s, m)
/* A flexible array has no size; pahole records 0. */
#define FLEX_MEMBER(s, m)                                                 \
	{                                                                 \
		.type = #s, .member = #m, .offset = offsetof(struct s, m) \
	}

/* offsetof() and sizeof do not apply to bit-fields: find them by value. */
#define BITFIELD_SETTER(s, m)                            \
	static void set_##s##_##m(void *obj, uint64_t v) \
	{                                                \
		((struct s *)obj)->m = v;                \
	}
#define BITFIELD(s, m)                                               \
	{                                                            \
		.type = #s, .member = #m, .set_bits = set_##s##_##m, \
		.struct_size = sizeof(struct s)                      \
	}

BITFIELD_SETTER(ibv_command_buffer, buffer_error)
BITFIELD_SETTER(ibv_command_buffer, fallback_require_ex)
BITFIELD_SETTER(ibv_command_buffer, fallback_ioctl_only)

/*
 * A member of the kernel's core struct of a write() command (kern_abi.h):
 * upstream reaches it directly through an anonymous union, here through
 * core_payload, at the same offset.
 */
#define CORE(s, m)                                                         \
	{                                                                  \
		.type = #s, .member = #m,                                  \
		.offset = offsetof(struct s, core_payload.m),              \
		.size = sizeof(((struct s *)0)->core_payload.m)            \
	}
#define CORE_FLEX(s, m)                                                    \
	{                                                                  \
		.type = #s, .member = #m,                                  \
		.offset = offsetof(struct s, core_payload.m)               \
	}

/* verbs_plugin_device is rdma-core's struct verbs_device. */
#define PDEV(m) MEMBER_AS("verbs_device", struct verbs_plugin_device, m)
#define OPS(m) MEMBER(verbs_context_ops, m)

static const struct layout ours[] = {
	STRUCT(verbs_device_ops),
	MEMBER(verbs_device_ops, name),
	MEMBER(verbs_device_ops, match_min_abi_version),
	MEMBER(verbs_device_ops, match_max_abi_version),
	MEMBER(verbs_device_ops, match_table),
	MEMBER(verbs_device_ops, static_providers),
	MEMBER(verbs_device_ops, match_device),
	MEMBER(verbs_device_ops, alloc_context),
	MEMBER(verbs_device_ops, import_context),
	MEMBER(verbs_device_ops, alloc_device),
	MEMBER(verbs_device_ops, uninit_device),

	STRUCT(verbs_match_ent),
	MEMBER(verbs_match_ent, driver_data),
	MEMBER(verbs_match_ent, u),
	MEMBER(verbs_match_ent, u.modalias),
	MEMBER(verbs_match_ent, u.driver_id),
	MEMBER(verbs_match_ent, vendor),
	MEMBER(verbs_match_ent, device),
	MEMBER(verbs_match_ent, kind),

	STRUCT_AS("verbs_device", struct verbs_plugin_device),
	PDEV(device),
	PDEV(ops),
	PDEV(refcount),
	PDEV(entry),
	PDEV(sysfs),
	PDEV(core_support),

	STRUCT(verbs_sysfs_dev),
	MEMBER(verbs_sysfs_dev, entry),
	MEMBER(verbs_sysfs_dev, provider_data),
	MEMBER(verbs_sysfs_dev, match),
	MEMBER(verbs_sysfs_dev, flags),
	MEMBER(verbs_sysfs_dev, sysfs_name),
	MEMBER(verbs_sysfs_dev, sysfs_cdev),
	MEMBER(verbs_sysfs_dev, ibdev_name),
	MEMBER(verbs_sysfs_dev, ibdev_path),
	MEMBER(verbs_sysfs_dev, modalias),
	MEMBER(verbs_sysfs_dev, node_guid),
	MEMBER(verbs_sysfs_dev, driver_id),
	MEMBER(verbs_sysfs_dev, node_type),
	MEMBER(verbs_sysfs_dev, ibdev_idx),
	MEMBER(verbs_sysfs_dev, num_ports),
	MEMBER(verbs_sysfs_dev, abi_ver),
	MEMBER(verbs_sysfs_dev, time_created),

	/* Public (verbs.h), but a plug-in embeds it in its context. */
	STRUCT(verbs_context),
#if IBV_RDMA_CORE_RELEASE >= 65
	MEMBER(verbs_context, free_buf),
	MEMBER(verbs_context, alloc_buf),
	MEMBER(verbs_context, dm_export_dmabuf_fd),
	MEMBER(verbs_context, reg_mr_ex),
	MEMBER(verbs_context, dealloc_dmah),
	MEMBER(verbs_context, alloc_dmah),
#endif
	MEMBER(verbs_context, query_port),
	MEMBER(verbs_context, advise_mr),
	MEMBER(verbs_context, alloc_null_mr),
	MEMBER(verbs_context, read_counters),
	MEMBER(verbs_context, attach_counters_point_flow),
	MEMBER(verbs_context, create_counters),
	MEMBER(verbs_context, destroy_counters),
	MEMBER(verbs_context, reg_dm_mr),
	MEMBER(verbs_context, alloc_dm),
	MEMBER(verbs_context, free_dm),
	MEMBER(verbs_context, modify_flow_action_esp),
	MEMBER(verbs_context, destroy_flow_action),
	MEMBER(verbs_context, create_flow_action_esp),
	MEMBER(verbs_context, modify_qp_rate_limit),
	MEMBER(verbs_context, alloc_parent_domain),
	MEMBER(verbs_context, dealloc_td),
	MEMBER(verbs_context, alloc_td),
	MEMBER(verbs_context, modify_cq),
	MEMBER(verbs_context, post_srq_ops),
	MEMBER(verbs_context, destroy_rwq_ind_table),
	MEMBER(verbs_context, create_rwq_ind_table),
	MEMBER(verbs_context, destroy_wq),
	MEMBER(verbs_context, modify_wq),
	MEMBER(verbs_context, create_wq),
	MEMBER(verbs_context, query_rt_values),
	MEMBER(verbs_context, create_cq_ex),
	MEMBER(verbs_context, priv),
	MEMBER(verbs_context, query_device_ex),
	MEMBER(verbs_context, ibv_destroy_flow),
	MEMBER(verbs_context, ABI_placeholder2),
	MEMBER(verbs_context, ibv_create_flow),
	MEMBER(verbs_context, ABI_placeholder1),
	MEMBER(verbs_context, open_qp),
	MEMBER(verbs_context, create_qp_ex),
	MEMBER(verbs_context, get_srq_num),
	MEMBER(verbs_context, create_srq_ex),
	MEMBER(verbs_context, open_xrcd),
	MEMBER(verbs_context, close_xrcd),
	MEMBER(verbs_context, _ABI_placeholder3),
	MEMBER(verbs_context, sz),
	MEMBER(verbs_context, context),

	/* In the order of the struct: the test checks the order too. */
	STRUCT(verbs_context_ops),
	OPS(advise_mr),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(alloc_buf),
#endif
	OPS(alloc_dm),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(alloc_dmah),
#endif
	OPS(alloc_mw),
	OPS(alloc_null_mr),
	OPS(alloc_parent_domain),
	OPS(alloc_pd),
	OPS(alloc_td),
	OPS(async_event),
	OPS(attach_counters_point_flow),
	OPS(attach_mcast),
	OPS(bind_mw),
	OPS(close_xrcd),
	OPS(cq_event),
	OPS(create_ah),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(create_comp_cntr),
#endif
	OPS(create_counters),
	OPS(create_cq),
	OPS(create_cq_ex),
	OPS(create_flow),
	OPS(create_flow_action_esp),
	OPS(create_qp),
	OPS(create_qp_ex),
	OPS(create_rwq_ind_table),
	OPS(create_srq),
	OPS(create_srq_ex),
	OPS(create_wq),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(dealloc_dmah),
#endif
	OPS(dealloc_mw),
	OPS(dealloc_pd),
	OPS(dealloc_td),
	OPS(dereg_mr),
	OPS(destroy_ah),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(destroy_comp_cntr),
#endif
	OPS(destroy_counters),
	OPS(destroy_cq),
	OPS(destroy_flow),
	OPS(destroy_flow_action),
	OPS(destroy_qp),
	OPS(destroy_rwq_ind_table),
	OPS(destroy_srq),
	OPS(destroy_wq),
	OPS(detach_mcast),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(dm_export_dmabuf_fd),
	OPS(free_buf),
#endif
	OPS(free_context),
	OPS(free_dm),
	OPS(get_srq_num),
	OPS(import_dm),
	OPS(import_mr),
	OPS(import_pd),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(inc_comp_cntr),
	OPS(inc_err_comp_cntr),
#endif
	OPS(modify_cq),
	OPS(modify_flow_action_esp),
	OPS(modify_qp),
	OPS(modify_qp_rate_limit),
	OPS(modify_srq),
	OPS(modify_wq),
	OPS(open_qp),
	OPS(open_xrcd),
	OPS(poll_cq),
	OPS(post_recv),
	OPS(post_send),
	OPS(post_srq_ops),
	OPS(post_srq_recv),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(qp_attach_comp_cntr),
	OPS(query_comp_cntr_caps),
#endif
	OPS(query_device_ex),
	OPS(query_ece),
	OPS(query_port),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(query_port_speed),
#endif
	OPS(query_qp),
	OPS(query_qp_data_in_order),
	OPS(query_rt_values),
	OPS(query_srq),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(read_comp_cntr),
#endif
	OPS(read_counters),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(read_err_comp_cntr),
#endif
	OPS(reg_dm_mr),
	OPS(reg_dmabuf_mr),
	OPS(reg_mr),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(reg_mr_ex),
#endif
	OPS(req_notify_cq),
	OPS(rereg_mr),
	OPS(resize_cq),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(set_comp_cntr),
#endif
	OPS(set_ece),
#if IBV_RDMA_CORE_RELEASE >= 65
	OPS(set_err_comp_cntr),
#endif
	OPS(unimport_dm),
	OPS(unimport_mr),
	OPS(unimport_pd),

	STRUCT(verbs_mr),
	MEMBER(verbs_mr, ibv_mr),
	MEMBER(verbs_mr, mr_type),
	MEMBER(verbs_mr, access),

	STRUCT(verbs_cq),
	MEMBER(verbs_cq, cq),
	MEMBER(verbs_cq, cq_ex),

	STRUCT(verbs_qp),
	MEMBER(verbs_qp, qp),
	MEMBER(verbs_qp, qp_ex),
	MEMBER(verbs_qp, comp_mask),
	MEMBER(verbs_qp, xrcd),

#if IBV_RDMA_CORE_RELEASE >= 65
	STRUCT(verbs_dmah),
	MEMBER(verbs_dmah, dmah),
	MEMBER(verbs_dmah, handle),

	STRUCT(ibv_buf),
	MEMBER(ibv_buf, addr),
	MEMBER(ibv_buf, size),
	MEMBER(ibv_buf, pd),
	MEMBER(ibv_buf, dmabuf_fd),

	STRUCT(verbs_create_cq_prov_attr),
	MEMBER(verbs_create_cq_prov_attr, buffer),
	MEMBER(verbs_create_cq_prov_attr, buffer.length),
	MEMBER(verbs_create_cq_prov_attr, buffer.ptr),
	MEMBER(verbs_create_cq_prov_attr, buffer.dmabuf),
	MEMBER(verbs_create_cq_prov_attr, buffer.dmabuf.offset),
	MEMBER(verbs_create_cq_prov_attr, buffer.dmabuf.fd),
#endif

	STRUCT(verbs_srq),
	MEMBER(verbs_srq, srq),
	MEMBER(verbs_srq, srq_type),
	MEMBER(verbs_srq, xrcd),
	MEMBER(verbs_srq, cq),
	MEMBER(verbs_srq, srq_num),

	STRUCT(verbs_xrcd),
	MEMBER(verbs_xrcd, xrcd),
	MEMBER(verbs_xrcd, comp_mask),
	MEMBER(verbs_xrcd, handle),

	STRUCT(verbs_flow_action),
	MEMBER(verbs_flow_action, action),
	MEMBER(verbs_flow_action, handle),
	MEMBER(verbs_flow_action, type),

	STRUCT(verbs_dm),
	MEMBER(verbs_dm, dm),
	MEMBER(verbs_dm, handle),

	STRUCT(verbs_counters),
	MEMBER(verbs_counters, counters),
	MEMBER(verbs_counters, handle),

	STRUCT(ibv_command_buffer),
	MEMBER(ibv_command_buffer, next),
	MEMBER(ibv_command_buffer, next_attr),
	MEMBER(ibv_command_buffer, last_attr),
	MEMBER(ibv_command_buffer, uhw_in_idx),
	MEMBER(ibv_command_buffer, uhw_out_idx),
	MEMBER(ibv_command_buffer, uhw_in_headroom_dwords),
	MEMBER(ibv_command_buffer, uhw_out_headroom_dwords),
	BITFIELD(ibv_command_buffer, buffer_error),
	BITFIELD(ibv_command_buffer, fallback_require_ex),
	BITFIELD(ibv_command_buffer, fallback_ioctl_only),
	MEMBER(ibv_command_buffer, hdr),

	/* The kernel's (linux-libc-dev); plug-ins fill them inline. */
	STRUCT(ib_uverbs_attr),
	MEMBER(ib_uverbs_attr, attr_id),
	MEMBER(ib_uverbs_attr, len),
	MEMBER(ib_uverbs_attr, flags),
	MEMBER(ib_uverbs_attr, attr_data),
	MEMBER(ib_uverbs_attr, attr_data.enum_data),
	MEMBER(ib_uverbs_attr, attr_data.enum_data.elem_id),
	MEMBER(ib_uverbs_attr, attr_data.enum_data.reserved),
	MEMBER(ib_uverbs_attr, attr_data.reserved),
	MEMBER(ib_uverbs_attr, data),
	MEMBER(ib_uverbs_attr, data_s64),

	STRUCT(ib_uverbs_ioctl_hdr),
	MEMBER(ib_uverbs_ioctl_hdr, length),
	MEMBER(ib_uverbs_ioctl_hdr, object_id),
	MEMBER(ib_uverbs_ioctl_hdr, method_id),
	MEMBER(ib_uverbs_ioctl_hdr, num_attrs),
	MEMBER(ib_uverbs_ioctl_hdr, reserved1),
	MEMBER(ib_uverbs_ioctl_hdr, driver_id),
	MEMBER(ib_uverbs_ioctl_hdr, reserved2),
	FLEX_MEMBER(ib_uverbs_ioctl_hdr, attrs),
	/* The write() commands a plug-in embeds (kern_abi.h). */
	STRUCT(ex_hdr),
	MEMBER(ex_hdr, hdr),
	MEMBER(ex_hdr, ex_hdr),
	STRUCT(ibv_alloc_mw),
	MEMBER(ibv_alloc_mw, hdr),
	CORE(ibv_alloc_mw, response),
	CORE(ibv_alloc_mw, pd_handle),
	CORE(ibv_alloc_mw, mw_type),
	CORE(ibv_alloc_mw, reserved),
	CORE_FLEX(ibv_alloc_mw, driver_data),
	MEMBER(ibv_alloc_mw, core_payload),
	STRUCT(ibv_alloc_pd),
	MEMBER(ibv_alloc_pd, hdr),
	CORE(ibv_alloc_pd, response),
	CORE_FLEX(ibv_alloc_pd, driver_data),
	MEMBER(ibv_alloc_pd, core_payload),
	STRUCT(ibv_create_cq),
	MEMBER(ibv_create_cq, hdr),
	CORE(ibv_create_cq, response),
	CORE(ibv_create_cq, user_handle),
	CORE(ibv_create_cq, cqe),
	CORE(ibv_create_cq, comp_vector),
	CORE(ibv_create_cq, comp_channel),
	CORE(ibv_create_cq, reserved),
	CORE_FLEX(ibv_create_cq, driver_data),
	MEMBER(ibv_create_cq, core_payload),
	STRUCT(ibv_create_cq_ex),
	MEMBER(ibv_create_cq_ex, hdr),
	CORE(ibv_create_cq_ex, user_handle),
	CORE(ibv_create_cq_ex, cqe),
	CORE(ibv_create_cq_ex, comp_vector),
	CORE(ibv_create_cq_ex, comp_channel),
	CORE(ibv_create_cq_ex, comp_mask),
	CORE(ibv_create_cq_ex, flags),
	CORE(ibv_create_cq_ex, reserved),
	MEMBER(ibv_create_cq_ex, core_payload),
	STRUCT(ibv_create_qp),
	MEMBER(ibv_create_qp, hdr),
	CORE(ibv_create_qp, response),
	CORE(ibv_create_qp, user_handle),
	CORE(ibv_create_qp, pd_handle),
	CORE(ibv_create_qp, send_cq_handle),
	CORE(ibv_create_qp, recv_cq_handle),
	CORE(ibv_create_qp, srq_handle),
	CORE(ibv_create_qp, max_send_wr),
	CORE(ibv_create_qp, max_recv_wr),
	CORE(ibv_create_qp, max_send_sge),
	CORE(ibv_create_qp, max_recv_sge),
	CORE(ibv_create_qp, max_inline_data),
	CORE(ibv_create_qp, sq_sig_all),
	CORE(ibv_create_qp, qp_type),
	CORE(ibv_create_qp, is_srq),
	CORE(ibv_create_qp, reserved),
	CORE_FLEX(ibv_create_qp, driver_data),
	MEMBER(ibv_create_qp, core_payload),
	STRUCT(ibv_create_qp_ex),
	MEMBER(ibv_create_qp_ex, hdr),
	CORE(ibv_create_qp_ex, user_handle),
	CORE(ibv_create_qp_ex, pd_handle),
	CORE(ibv_create_qp_ex, send_cq_handle),
	CORE(ibv_create_qp_ex, recv_cq_handle),
	CORE(ibv_create_qp_ex, srq_handle),
	CORE(ibv_create_qp_ex, max_send_wr),
	CORE(ibv_create_qp_ex, max_recv_wr),
	CORE(ibv_create_qp_ex, max_send_sge),
	CORE(ibv_create_qp_ex, max_recv_sge),
	CORE(ibv_create_qp_ex, max_inline_data),
	CORE(ibv_create_qp_ex, sq_sig_all),
	CORE(ibv_create_qp_ex, qp_type),
	CORE(ibv_create_qp_ex, is_srq),
	CORE(ibv_create_qp_ex, reserved),
	CORE(ibv_create_qp_ex, comp_mask),
	CORE(ibv_create_qp_ex, create_flags),
	CORE(ibv_create_qp_ex, rwq_ind_tbl_handle),
	CORE(ibv_create_qp_ex, source_qpn),
	MEMBER(ibv_create_qp_ex, core_payload),
	STRUCT(ibv_create_srq),
	MEMBER(ibv_create_srq, hdr),
	CORE(ibv_create_srq, response),
	CORE(ibv_create_srq, user_handle),
	CORE(ibv_create_srq, pd_handle),
	CORE(ibv_create_srq, max_wr),
	CORE(ibv_create_srq, max_sge),
	CORE(ibv_create_srq, srq_limit),
	CORE_FLEX(ibv_create_srq, driver_data),
	MEMBER(ibv_create_srq, core_payload),
	STRUCT(ibv_create_wq),
	MEMBER(ibv_create_wq, hdr),
	CORE(ibv_create_wq, comp_mask),
	CORE(ibv_create_wq, wq_type),
	CORE(ibv_create_wq, user_handle),
	CORE(ibv_create_wq, pd_handle),
	CORE(ibv_create_wq, cq_handle),
	CORE(ibv_create_wq, max_wr),
	CORE(ibv_create_wq, max_sge),
	CORE(ibv_create_wq, create_flags),
	CORE(ibv_create_wq, reserved),
	MEMBER(ibv_create_wq, core_payload),
	STRUCT(ibv_create_xsrq),
	MEMBER(ibv_create_xsrq, hdr),
	CORE(ibv_create_xsrq, response),
	CORE(ibv_create_xsrq, user_handle),
	CORE(ibv_create_xsrq, srq_type),
	CORE(ibv_create_xsrq, pd_handle),
	CORE(ibv_create_xsrq, max_wr),
	CORE(ibv_create_xsrq, max_sge),
	CORE(ibv_create_xsrq, srq_limit),
	CORE(ibv_create_xsrq, max_num_tags),
	CORE(ibv_create_xsrq, xrcd_handle),
	CORE(ibv_create_xsrq, cq_handle),
	CORE_FLEX(ibv_create_xsrq, driver_data),
	MEMBER(ibv_create_xsrq, core_payload),
	STRUCT(ibv_get_context),
	MEMBER(ibv_get_context, hdr),
	CORE(ibv_get_context, response),
	CORE_FLEX(ibv_get_context, driver_data),
	MEMBER(ibv_get_context, core_payload),
	STRUCT(ibv_modify_cq),
	MEMBER(ibv_modify_cq, hdr),
	CORE(ibv_modify_cq, cq_handle),
	CORE(ibv_modify_cq, attr_mask),
	CORE(ibv_modify_cq, attr),
	CORE(ibv_modify_cq, reserved),
	MEMBER(ibv_modify_cq, core_payload),
	STRUCT(ibv_modify_qp),
	MEMBER(ibv_modify_qp, hdr),
	CORE(ibv_modify_qp, dest),
	CORE(ibv_modify_qp, alt_dest),
	CORE(ibv_modify_qp, qp_handle),
	CORE(ibv_modify_qp, attr_mask),
	CORE(ibv_modify_qp, qkey),
	CORE(ibv_modify_qp, rq_psn),
	CORE(ibv_modify_qp, sq_psn),
	CORE(ibv_modify_qp, dest_qp_num),
	CORE(ibv_modify_qp, qp_access_flags),
	CORE(ibv_modify_qp, pkey_index),
	CORE(ibv_modify_qp, alt_pkey_index),
	CORE(ibv_modify_qp, qp_state),
	CORE(ibv_modify_qp, cur_qp_state),
	CORE(ibv_modify_qp, path_mtu),
	CORE(ibv_modify_qp, path_mig_state),
	CORE(ibv_modify_qp, en_sqd_async_notify),
	CORE(ibv_modify_qp, max_rd_atomic),
	CORE(ibv_modify_qp, max_dest_rd_atomic),
	CORE(ibv_modify_qp, min_rnr_timer),
	CORE(ibv_modify_qp, port_num),
	CORE(ibv_modify_qp, timeout),
	CORE(ibv_modify_qp, retry_cnt),
	CORE(ibv_modify_qp, rnr_retry),
	CORE(ibv_modify_qp, alt_port_num),
	CORE(ibv_modify_qp, alt_timeout),
	CORE(ibv_modify_qp, reserved),
	CORE_FLEX(ibv_modify_qp, driver_data),
	MEMBER(ibv_modify_qp, core_payload),
	STRUCT(ibv_modify_qp_ex),
	MEMBER(ibv_modify_qp_ex, hdr),
	CORE(ibv_modify_qp_ex, base),
	CORE(ibv_modify_qp_ex, rate_limit),
	CORE(ibv_modify_qp_ex, reserved),
	MEMBER(ibv_modify_qp_ex, core_payload),
	STRUCT(ibv_modify_srq),
	MEMBER(ibv_modify_srq, hdr),
	CORE(ibv_modify_srq, srq_handle),
	CORE(ibv_modify_srq, attr_mask),
	CORE(ibv_modify_srq, max_wr),
	CORE(ibv_modify_srq, srq_limit),
	CORE_FLEX(ibv_modify_srq, driver_data),
	MEMBER(ibv_modify_srq, core_payload),
	STRUCT(ibv_modify_wq),
	MEMBER(ibv_modify_wq, hdr),
	CORE(ibv_modify_wq, attr_mask),
	CORE(ibv_modify_wq, wq_handle),
	CORE(ibv_modify_wq, wq_state),
	CORE(ibv_modify_wq, curr_wq_state),
	CORE(ibv_modify_wq, flags),
	CORE(ibv_modify_wq, flags_mask),
	MEMBER(ibv_modify_wq, core_payload),
	STRUCT(ibv_open_qp),
	MEMBER(ibv_open_qp, hdr),
	CORE(ibv_open_qp, response),
	CORE(ibv_open_qp, user_handle),
	CORE(ibv_open_qp, pd_handle),
	CORE(ibv_open_qp, qpn),
	CORE(ibv_open_qp, qp_type),
	CORE(ibv_open_qp, reserved),
	CORE_FLEX(ibv_open_qp, driver_data),
	MEMBER(ibv_open_qp, core_payload),
	STRUCT(ibv_open_xrcd),
	MEMBER(ibv_open_xrcd, hdr),
	CORE(ibv_open_xrcd, response),
	CORE(ibv_open_xrcd, fd),
	CORE(ibv_open_xrcd, oflags),
	CORE_FLEX(ibv_open_xrcd, driver_data),
	MEMBER(ibv_open_xrcd, core_payload),
	STRUCT(ibv_query_port),
	MEMBER(ibv_query_port, hdr),
	CORE(ibv_query_port, response),
	CORE(ibv_query_port, port_num),
	CORE(ibv_query_port, reserved),
	CORE_FLEX(ibv_query_port, driver_data),
	MEMBER(ibv_query_port, core_payload),
	STRUCT(ibv_query_qp),
	MEMBER(ibv_query_qp, hdr),
	CORE(ibv_query_qp, response),
	CORE(ibv_query_qp, qp_handle),
	CORE(ibv_query_qp, attr_mask),
	CORE_FLEX(ibv_query_qp, driver_data),
	MEMBER(ibv_query_qp, core_payload),
	STRUCT(ibv_query_srq),
	MEMBER(ibv_query_srq, hdr),
	CORE(ibv_query_srq, response),
	CORE(ibv_query_srq, srq_handle),
	CORE(ibv_query_srq, reserved),
	CORE_FLEX(ibv_query_srq, driver_data),
	MEMBER(ibv_query_srq, core_payload),
	STRUCT(ibv_reg_mr),
	MEMBER(ibv_reg_mr, hdr),
	CORE(ibv_reg_mr, response),
	CORE(ibv_reg_mr, start),
	CORE(ibv_reg_mr, length),
	CORE(ibv_reg_mr, hca_va),
	CORE(ibv_reg_mr, pd_handle),
	CORE(ibv_reg_mr, access_flags),
	CORE_FLEX(ibv_reg_mr, driver_data),
	MEMBER(ibv_reg_mr, core_payload),
	STRUCT(ibv_rereg_mr),
	MEMBER(ibv_rereg_mr, hdr),
	CORE(ibv_rereg_mr, response),
	CORE(ibv_rereg_mr, mr_handle),
	CORE(ibv_rereg_mr, flags),
	CORE(ibv_rereg_mr, start),
	CORE(ibv_rereg_mr, length),
	CORE(ibv_rereg_mr, hca_va),
	CORE(ibv_rereg_mr, pd_handle),
	CORE(ibv_rereg_mr, access_flags),
	CORE_FLEX(ibv_rereg_mr, driver_data),
	MEMBER(ibv_rereg_mr, core_payload),
	STRUCT(ibv_resize_cq),
	MEMBER(ibv_resize_cq, hdr),
	CORE(ibv_resize_cq, response),
	CORE(ibv_resize_cq, cq_handle),
	CORE(ibv_resize_cq, cqe),
	CORE_FLEX(ibv_resize_cq, driver_data),
	MEMBER(ibv_resize_cq, core_payload),
};

#define NOURS (sizeof(ours) / sizeof(ours[0]))

/* One line of the data file. */
struct fact {
	char type[64];
	char member[128]; /* dotted path; "" for the struct line */
	int depth; /* indentation steps, 0 for the struct */
	char name[64]; /* as written */
	size_t offset;
	size_t size;
	int bit; /* a bit-field's first bit, else -1 */
	int bits; /* a bit-field's width */
	int found; /* matched by an entry of ours[] */
};

static struct fact facts[1024];
static size_t nfacts;

static int parse_line(const char *line, const char *type, struct fact *f)
{
	const char *p = line;
	char off[32];
	int spaces = 0;

	while (*p == ' ') {
		spaces++;
		p++;
	}
	memset(f, 0, sizeof(*f));
	snprintf(f->type, sizeof(f->type), "%s", type);
	f->depth = spaces / 2;
	f->bit = -1;
	if (sscanf(p, "%63s %31s %zu bits %d", f->name, off, &f->size,
		   &f->bits) < 3)
		return -1;
	/* A bit-field: "BYTE.bitN SIZE bits WIDTH". */
	if (strchr(off, '.') &&
	    (sscanf(off, "%zu.bit%d", &f->offset, &f->bit) != 2 || !f->bits))
		return -1;
	if (!strchr(off, '.'))
		f->offset = strtoul(off, NULL, 10);
	return 0;
}

/*
 * A nested member is listed before the line that closes its union or
 * struct: its parent is the next line one step less indented.
 */
static void resolve_paths(size_t first, size_t end)
{
	size_t i, j;

	for (i = end; i-- > first;) {
		struct fact *f = &facts[i];
		const struct fact *parent = NULL;
		char path[sizeof(f->member) + sizeof(f->name) + 1];

		for (j = i + 1; j < end && f->depth > 1; j++) {
			if (facts[j].depth == f->depth - 1) {
				parent = &facts[j];
				break;
			}
		}
		if (parent && strcmp(parent->name, "(anonymous)"))
			snprintf(path, sizeof(path), "%s.%s", parent->member,
				 f->name);
		else
			snprintf(path, sizeof(path), "%s", f->name);
		/* Names here are short; a cut one just fails to match. */
		path[sizeof(f->member) - 1] = 0;
		memcpy(f->member, path, sizeof(f->member));
	}
}

static int load(const char *path)
{
	char line[256], type[64] = "";
	size_t first = 0, size;
	FILE *fp = fopen(path, "r");

	if (!fp) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) &&
	       nfacts < sizeof(facts) / sizeof(facts[0])) {
		struct fact *f = &facts[nfacts];

		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		if (sscanf(line, "struct %63s size %zu", type, &size) == 2) {
			resolve_paths(first, nfacts);
			memset(f, 0, sizeof(*f));
			snprintf(f->type, sizeof(f->type), "%s", type);
			f->size = size;
			first = ++nfacts;
			continue;
		}
		if (!type[0] || parse_line(line, type, f)) {
			fprintf(stderr, "%s: cannot parse: %s\n", path, line);
			fclose(fp);
			return -1;
		}
		nfacts++;
	}
	resolve_paths(first, nfacts);
	fclose(fp);
	return 0;
}

static struct fact *find(const char *type, const char *member)
{
	size_t i;

	for (i = 0; i < nfacts; i++)
		if (!strcmp(facts[i].type, type) &&
		    !strcmp(facts[i].member, member ? member : "") &&
		    (member || !facts[i].depth))
			return &facts[i];
	return NULL;
}

/* Where the bits of a bit-field land, found by storing into it. */
static void check_bitfield(const struct layout *l, const struct fact *f)
{
	unsigned char buf[256] = { 0 };
	size_t i, first = SIZE_MAX;
	int bit = -1, width = 0, b;

	if (!CHECK(f->bit >= 0 && l->struct_size <= sizeof(buf),
		   "%s.%s is a bit-field upstream too", l->type, l->member))
		return;
	l->set_bits(buf, 1);
	for (i = 0; i < l->struct_size && first == SIZE_MAX; i++)
		if (buf[i]) {
			first = i;
			bit = __builtin_ctz(buf[i]);
		}
	memset(buf, 0, sizeof(buf));
	l->set_bits(buf, UINT64_MAX);
	for (i = 0; i < l->struct_size; i++)
		for (b = 0; b < 8; b++)
			width += (buf[i] >> b) & 1;
	CHECK(first == f->offset && bit == f->bit,
	      "%s.%s at %zu.bit%d == %zu.bit%d", l->type, l->member, first, bit,
	      f->offset, f->bit);
	CHECK(width == f->bits, "%s.%s is %d bits wide == %d", l->type,
	      l->member, width, f->bits);
}

static void check_ours(void)
{
	size_t i;

	for (i = 0; i < NOURS; i++) {
		const struct layout *l = &ours[i];
		struct fact *f = find(l->type, l->member);

		if (!CHECK(f, "%s%s%s is in rdma-core %d's layout", l->type,
			   l->member ? "." : "", l->member ? l->member : "",
			   IBV_RDMA_CORE_RELEASE))
			continue;
		f->found = 1;
		if (!l->member) {
			CHECK(l->size == f->size, "sizeof(%s) %zu == %zu",
			      l->type, l->size, f->size);
			continue;
		}
		if (l->set_bits) {
			check_bitfield(l, f);
			continue;
		}
		CHECK(f->bit < 0, "%s.%s is no bit-field upstream either",
		      l->type, l->member);
		CHECK(l->offset == f->offset, "%s.%s at %zu == %zu", l->type,
		      l->member, l->offset, f->offset);
		/* pahole's 0: an atomic member, see the data file. */
		if (f->size)
			CHECK(l->size == f->size, "%s.%s size %zu == %zu",
			      l->type, l->member, l->size, f->size);
	}
}

/* Everything upstream has, we have (an anonymous union has no name). */
static void check_facts(void)
{
	size_t i;

	for (i = 0; i < nfacts; i++)
		if (strcmp(facts[i].name, "(anonymous)"))
			CHECK(facts[i].found, "%s%s%s of rdma-core %d is ours",
			      facts[i].type, facts[i].depth ? "." : "",
			      facts[i].member, IBV_RDMA_CORE_RELEASE);
}

/* The ops table: one pointer per op, in upstream's order, no gaps. */
static void check_ops_order(void)
{
	size_t i, n = 0, slot = 0;
	int in_order = 1;

	for (i = 0; i < NOURS; i++) {
		const struct layout *l = &ours[i];

		if (strcmp(l->type, "verbs_context_ops") || !l->member)
			continue;
		if (l->offset != slot * sizeof(void *))
			in_order = 0;
		slot++;
	}
	for (i = 0; i < nfacts; i++)
		if (!strcmp(facts[i].type, "verbs_context_ops") &&
		    facts[i].depth)
			n++;
	CHECK(in_order, "verbs_context_ops: slots in declaration order");
	CHECK(slot == n && n == (IBV_RDMA_CORE_RELEASE >= 65 ? 93 : 76),
	      "verbs_context_ops: %zu slots, %zu upstream", slot, n);
	CHECK(sizeof(struct verbs_context_ops) == n * sizeof(void *),
	      "verbs_context_ops: no padding or extra members");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DRIVER-LAYOUTS.TXT\n", argv[0]);
		return 2;
	}
	if (load(argv[1]))
		return 1;
	CHECK(nfacts > 100, "%zu layout lines read", nfacts);
	check_ours();
	check_facts();
	check_ops_order();
	return tap_done();
}
