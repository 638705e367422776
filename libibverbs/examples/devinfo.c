/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ibv_devinfo: print the attributes of RDMA devices and their ports.
 *
 * The output is upstream's format field for field, so that scripts that
 * parse it keep working; the one addition is the fork_support line of the
 * device block.  Exit status: 0, or the OR of the per-device failure codes
 * below (255 for a failure before any device is looked at).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

/* Exported by libibverbs (IBVERBS_1.0), declared by no public header. */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);

/*
 * Exported by libibverbs in IBVERBS_PRIVATE_34 but not declared in the
 * public headers.  The type it reports is the kernel's sysfs GID type:
 * "IB/RoCE v1" or "RoCE v2".
 */
enum {
	GID_TYPE_SYSFS_IB_ROCE_V1 = 0,
	GID_TYPE_SYSFS_ROCE_V2 = 1,
};
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);

/* Per-device failure codes, ORed into the exit status. */
enum {
	ERR_OPEN = 1,
	ERR_QUERY_DEVICE = 2,
	ERR_CLOSE = 3,
	ERR_BAD_PORT = 4,
	ERR_QUERY_PORT = 5,
	ERR_QUERY_GID = -1,
};

#define FLAG_INDENT "\t\t\t\t\t"

static bool verbose;

struct flag_name {
	uint64_t bit;
	const char *name;
};

enum unknown_bits {
	UNKNOWN_HIDE,	/* bits without a name are not shown */
	UNKNOWN_32,	/* shown as 32 bits */
	UNKNOWN_64,	/* shown as 64 bits */
};

/* Print the name of each set bit of @flags, then what is left over. */
static void print_flags(uint64_t flags, const struct flag_name *names,
			size_t n, enum unknown_bits unknown)
{
	for (size_t i = 0; i < n; i++) {
		if (flags & names[i].bit) {
			printf(FLAG_INDENT "%s\n", names[i].name);
			flags &= ~names[i].bit;
		}
	}
	if (!flags || unknown == UNKNOWN_HIDE)
		return;
	if (unknown == UNKNOWN_64)
		printf(FLAG_INDENT "Unknown flags: 0x%" PRIX64 "\n", flags);
	else
		printf(FLAG_INDENT "Unknown flags: 0x%X\n", (uint32_t)flags);
}

#define PRINT_FLAGS(flags, names, unknown) \
	print_flags(flags, names, sizeof(names) / sizeof(names[0]), unknown)

static const char *transport_str(enum ibv_transport_type t)
{
	switch (t) {
	case IBV_TRANSPORT_IB:
		return "InfiniBand";
	case IBV_TRANSPORT_IWARP:
		return "iWARP";
	case IBV_TRANSPORT_USNIC:
		return "usNIC";
	case IBV_TRANSPORT_USNIC_UDP:
		return "usNIC UDP";
	case IBV_TRANSPORT_UNSPECIFIED:
		return "unspecified";
	default:
		return "invalid transport";
	}
}

static const char *atomic_cap_str(enum ibv_atomic_cap cap)
{
	switch (cap) {
	case IBV_ATOMIC_NONE:
		return "ATOMIC_NONE";
	case IBV_ATOMIC_HCA:
		return "ATOMIC_HCA";
	case IBV_ATOMIC_GLOB:
		return "ATOMIC_GLOB";
	default:
		return "invalid atomic capability";
	}
}

static const char *port_state_str(enum ibv_port_state state)
{
	switch (state) {
	case IBV_PORT_DOWN:
		return "PORT_DOWN";
	case IBV_PORT_INIT:
		return "PORT_INIT";
	case IBV_PORT_ARMED:
		return "PORT_ARMED";
	case IBV_PORT_ACTIVE:
		return "PORT_ACTIVE";
	default:
		return "invalid state";
	}
}

static const char *mtu_str(enum ibv_mtu mtu)
{
	switch (mtu) {
	case IBV_MTU_256:
		return "256";
	case IBV_MTU_512:
		return "512";
	case IBV_MTU_1024:
		return "1024";
	case IBV_MTU_2048:
		return "2048";
	case IBV_MTU_4096:
		return "4096";
	default:
		return "invalid MTU";
	}
}

static const char *link_layer_str(uint8_t link_layer)
{
	switch (link_layer) {
	case IBV_LINK_LAYER_UNSPECIFIED:
		return "Unspecified";
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "Unknown";
	}
}

static const char *vl_str(uint8_t vl_num)
{
	switch (vl_num) {
	case 1:
		return "1";
	case 2:
		return "2";
	case 3:
		return "4";
	case 4:
		return "8";
	case 5:
		return "15";
	default:
		return "invalid value";
	}
}

/* IB link width encoding: the value is a bit, the string the lane count. */
static const char *width_str(uint8_t width)
{
	switch (width) {
	case 1:
		return "1";
	case 2:
		return "4";
	case 4:
		return "8";
	case 8:
		return "12";
	case 16:
		return "2";
	default:
		return "invalid width";
	}
}

static const char *speed_str(uint8_t speed)
{
	switch (speed) {
	case 1:
		return "2.5 Gbps";
	case 2:
		return "5.0 Gbps";
	case 4:
	case 8:
		return "10.0 Gbps";
	case 16:
		return "14.0 Gbps";
	case 32:
		return "25.0 Gbps";
	case 64:
		return "50.0 Gbps";
	case 128:
		return "100.0 Gbps";
	default:
		return "invalid speed";
	}
}

static const char *phys_state_str(uint8_t state)
{
	switch (state) {
	case 1:
		return "SLEEP";
	case 2:
		return "POLLING";
	case 3:
		return "DISABLED";
	case 4:
		return "PORT_CONFIGURATION TRAINNING";
	case 5:
		return "LINK_UP";
	case 6:
		return "LINK_ERROR_RECOVERY";
	case 7:
		return "PHY TEST";
	default:
		return "invalid physical state";
	}
}

static const char *fork_str(enum ibv_fork_status status)
{
	switch (status) {
	case IBV_FORK_UNNEEDED:
		return "unneeded (kernel copies DMA pages on fork)";
	case IBV_FORK_ENABLED:
		return "enabled";
	case IBV_FORK_DISABLED:
		return "disabled";
	default:
		return "unknown";
	}
}

/* A GUID as four groups of 16 bits, most significant first. */
static const char *guid_str(__be64 be_guid, char *buf, size_t len)
{
	uint64_t guid = be64toh(be_guid);

	snprintf(buf, len, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
	return buf;
}

static const struct flag_name device_cap_names[] = {
	{ IBV_DEVICE_RESIZE_MAX_WR, "RESIZE_MAX_WR" },
	{ IBV_DEVICE_BAD_PKEY_CNTR, "BAD_PKEY_CNTR" },
	{ IBV_DEVICE_BAD_QKEY_CNTR, "BAD_QKEY_CNTR" },
	{ IBV_DEVICE_RAW_MULTI, "RAW_MULTI" },
	{ IBV_DEVICE_AUTO_PATH_MIG, "AUTO_PATH_MIG" },
	{ IBV_DEVICE_CHANGE_PHY_PORT, "CHANGE_PHY_PORT" },
	{ IBV_DEVICE_UD_AV_PORT_ENFORCE, "UD_AV_PORT_ENFORCE" },
	{ IBV_DEVICE_CURR_QP_STATE_MOD, "CURR_QP_STATE_MOD" },
	{ IBV_DEVICE_SHUTDOWN_PORT, "SHUTDOWN_PORT" },
	{ IBV_DEVICE_INIT_TYPE, "INIT_TYPE" },
	{ IBV_DEVICE_PORT_ACTIVE_EVENT, "PORT_ACTIVE_EVENT" },
	{ IBV_DEVICE_SYS_IMAGE_GUID, "SYS_IMAGE_GUID" },
	{ IBV_DEVICE_RC_RNR_NAK_GEN, "RC_RNR_NAK_GEN" },
	{ IBV_DEVICE_SRQ_RESIZE, "SRQ_RESIZE" },
	{ IBV_DEVICE_N_NOTIFY_CQ, "N_NOTIFY_CQ" },
	{ IBV_DEVICE_MEM_WINDOW, "MEM_WINDOW" },
	{ IBV_DEVICE_UD_IP_CSUM, "UD_IP_CSUM" },
	{ IBV_DEVICE_XRC, "XRC" },
	{ IBV_DEVICE_MEM_MGT_EXTENSIONS, "MEM_MGT_EXTENSIONS" },
	{ IBV_DEVICE_MEM_WINDOW_TYPE_2A, "MEM_WINDOW_TYPE_2A" },
	{ IBV_DEVICE_MEM_WINDOW_TYPE_2B, "MEM_WINDOW_TYPE_2B" },
	{ IBV_DEVICE_RC_IP_CSUM, "RC_IP_CSUM" },
	{ IBV_DEVICE_RAW_IP_CSUM, "RAW_IP_CSUM" },
	{ IBV_DEVICE_MANAGED_FLOW_STEERING, "MANAGED_FLOW_STEERING" },
};

/* The extended flags: only the bits above the 32 of device_cap_flags. */
static const struct flag_name device_cap_ex_names[] = {
	{ IBV_DEVICE_RAW_SCATTER_FCS, "RAW_SCATTER_FCS" },
	{ IBV_DEVICE_PCI_WRITE_END_PADDING, "PCI_WRITE_END_PADDING" },
};

static const struct flag_name odp_general_names[] = {
	{ IBV_ODP_SUPPORT, "ODP_SUPPORT" },
	{ IBV_ODP_SUPPORT_IMPLICIT, "ODP_SUPPORT_IMPLICIT" },
};

static const struct flag_name odp_transport_names[] = {
	{ IBV_ODP_SUPPORT_SEND, "SUPPORT_SEND" },
	{ IBV_ODP_SUPPORT_RECV, "SUPPORT_RECV" },
	{ IBV_ODP_SUPPORT_WRITE, "SUPPORT_WRITE" },
	{ IBV_ODP_SUPPORT_READ, "SUPPORT_READ" },
	{ IBV_ODP_SUPPORT_ATOMIC, "SUPPORT_ATOMIC" },
	{ IBV_ODP_SUPPORT_SRQ_RECV, "SUPPORT_SRQ" },
};

static const struct flag_name raw_packet_names[] = {
	{ IBV_RAW_PACKET_CAP_CVLAN_STRIPPING, "C-VLAN stripping offload" },
	{ IBV_RAW_PACKET_CAP_SCATTER_FCS, "Scatter FCS offload" },
	{ IBV_RAW_PACKET_CAP_IP_CSUM, "IP csum offload" },
	{ IBV_RAW_PACKET_CAP_DELAY_DROP, "Delay drop" },
};

static const struct flag_name qpt_names[] = {
	{ 1 << IBV_QPT_RAW_PACKET, "SUPPORT_RAW_PACKET" },
	{ 1 << IBV_QPT_UD, "SUPPORT_UD" },
};

static const struct flag_name tm_names[] = {
	{ IBV_TM_CAP_RC, "IBV_TM_CAP_RC" },
};

static void print_odp_transport(const char *name, uint32_t caps)
{
	printf("\t%s:\n", name);
	if (!caps)
		printf(FLAG_INDENT "NO SUPPORT\n");
	else
		PRINT_FLAGS(caps, odp_transport_names, UNKNOWN_32);
}

static void print_odp_caps(const struct ibv_device_attr_ex *attr)
{
	const struct ibv_odp_caps *odp = &attr->odp_caps;

	printf("\tgeneral_odp_caps:\n");
	PRINT_FLAGS(odp->general_caps, odp_general_names, UNKNOWN_64);
	print_odp_transport("rc_odp_caps",
			    odp->per_transport_caps.rc_odp_caps);
	print_odp_transport("uc_odp_caps",
			    odp->per_transport_caps.uc_odp_caps);
	print_odp_transport("ud_odp_caps",
			    odp->per_transport_caps.ud_odp_caps);
	print_odp_transport("xrc_odp_caps", attr->xrc_odp_caps);
}

static void print_clocks(const struct ibv_device_attr_ex *attr)
{
	if (attr->completion_timestamp_mask)
		printf("\tcompletion timestamp_mask:\t\t\t0x%016" PRIx64 "\n",
		       attr->completion_timestamp_mask);
	else
		printf("\tcompletion_timestamp_mask not supported\n");

	if (attr->hca_core_clock)
		printf("\thca_core_clock:\t\t\t%" PRIu64 "kHZ\n",
		       attr->hca_core_clock);
	else
		printf("\tcore clock not supported\n");
}

static void print_offload_caps(const struct ibv_device_attr_ex *attr)
{
	const struct ibv_rss_caps *rss = &attr->rss_caps;

	if (attr->raw_packet_caps) {
		printf("\traw packet caps:\n");
		PRINT_FLAGS(attr->raw_packet_caps, raw_packet_names,
			    UNKNOWN_HIDE);
	}

	printf("\tdevice_cap_flags_ex:\t\t0x%" PRIX64 "\n",
	       attr->device_cap_flags_ex);
	PRINT_FLAGS(attr->device_cap_flags_ex & ~(uint64_t)UINT32_MAX,
		    device_cap_ex_names, UNKNOWN_64);

	printf("\ttso_caps:\n");
	printf("\t\tmax_tso:\t\t\t%d\n", attr->tso_caps.max_tso);
	if (attr->tso_caps.max_tso) {
		printf("\t\tsupported_qp:\n");
		PRINT_FLAGS(attr->tso_caps.supported_qpts, qpt_names,
			    UNKNOWN_32);
	}

	printf("\trss_caps:\n");
	printf("\t\tmax_rwq_indirection_tables:\t\t\t%u\n",
	       rss->max_rwq_indirection_tables);
	printf("\t\tmax_rwq_indirection_table_size:\t\t\t%u\n",
	       rss->max_rwq_indirection_table_size);
	printf("\t\trx_hash_function:\t\t\t\t0x%x\n", rss->rx_hash_function);
	printf("\t\trx_hash_fields_mask:\t\t\t\t0x%" PRIX64 "\n",
	       rss->rx_hash_fields_mask);
	if (rss->supported_qpts) {
		printf("\t\tsupported_qp:\n");
		PRINT_FLAGS(rss->supported_qpts, qpt_names, UNKNOWN_32);
	}

	printf("\tmax_wq_type_rq:\t\t\t%u\n", attr->max_wq_type_rq);
}

static void print_pacing_caps(const struct ibv_packet_pacing_caps *pp)
{
	printf("\tpacket_pacing_caps:\n");
	printf("\t\tqp_rate_limit_min:\t%ukbps\n", pp->qp_rate_limit_min);
	printf("\t\tqp_rate_limit_max:\t%ukbps\n", pp->qp_rate_limit_max);
	if (pp->qp_rate_limit_max) {
		printf("\t\tsupported_qp:\n");
		PRINT_FLAGS(pp->supported_qpts, qpt_names, UNKNOWN_32);
	}
}

static void print_tm_caps(const struct ibv_tm_caps *tm)
{
	if (!tm->max_num_tags) {
		printf("\ttag matching not supported\n");
		return;
	}
	printf("\tmax_rndv_hdr_size:\t\t%u\n", tm->max_rndv_hdr_size);
	printf("\tmax_num_tags:\t\t\t%u\n", tm->max_num_tags);
	printf("\tmax_ops:\t\t\t%u\n", tm->max_ops);
	printf("\tmax_sge:\t\t\t%u\n", tm->max_sge);
	printf("\tflags:\n");
	PRINT_FLAGS(tm->flags, tm_names, UNKNOWN_HIDE);
}

static void print_cq_moderation(const struct ibv_cq_moderation_caps *cq)
{
	if (!cq->max_cq_count || !cq->max_cq_period)
		return;
	printf("\n\tcq moderation caps:\n");
	printf("\t\tmax_cq_count:\t%u\n", cq->max_cq_count);
	printf("\t\tmax_cq_period:\t%u us\n\n", cq->max_cq_period);
}

static void print_device_limits(const struct ibv_device_attr *a)
{
	printf("\tmax_mr_size:\t\t\t0x%llx\n",
	       (unsigned long long)a->max_mr_size);
	printf("\tpage_size_cap:\t\t\t0x%llx\n",
	       (unsigned long long)a->page_size_cap);
	printf("\tmax_qp:\t\t\t\t%d\n", a->max_qp);
	printf("\tmax_qp_wr:\t\t\t%d\n", a->max_qp_wr);
	printf("\tdevice_cap_flags:\t\t0x%08x\n", a->device_cap_flags);
	PRINT_FLAGS(a->device_cap_flags, device_cap_names, UNKNOWN_32);
	printf("\tmax_sge:\t\t\t%d\n", a->max_sge);
	printf("\tmax_sge_rd:\t\t\t%d\n", a->max_sge_rd);
	printf("\tmax_cq:\t\t\t\t%d\n", a->max_cq);
	printf("\tmax_cqe:\t\t\t%d\n", a->max_cqe);
	printf("\tmax_mr:\t\t\t\t%d\n", a->max_mr);
	printf("\tmax_pd:\t\t\t\t%d\n", a->max_pd);
	printf("\tmax_qp_rd_atom:\t\t\t%d\n", a->max_qp_rd_atom);
	printf("\tmax_ee_rd_atom:\t\t\t%d\n", a->max_ee_rd_atom);
	printf("\tmax_res_rd_atom:\t\t%d\n", a->max_res_rd_atom);
	printf("\tmax_qp_init_rd_atom:\t\t%d\n", a->max_qp_init_rd_atom);
	printf("\tmax_ee_init_rd_atom:\t\t%d\n", a->max_ee_init_rd_atom);
	printf("\tatomic_cap:\t\t\t%s (%d)\n", atomic_cap_str(a->atomic_cap),
	       a->atomic_cap);
	printf("\tmax_ee:\t\t\t\t%d\n", a->max_ee);
	printf("\tmax_rdd:\t\t\t%d\n", a->max_rdd);
	printf("\tmax_mw:\t\t\t\t%d\n", a->max_mw);
	printf("\tmax_raw_ipv6_qp:\t\t%d\n", a->max_raw_ipv6_qp);
	printf("\tmax_raw_ethy_qp:\t\t%d\n", a->max_raw_ethy_qp);
	printf("\tmax_mcast_grp:\t\t\t%d\n", a->max_mcast_grp);
	printf("\tmax_mcast_qp_attach:\t\t%d\n", a->max_mcast_qp_attach);
	printf("\tmax_total_mcast_qp_attach:\t%d\n",
	       a->max_total_mcast_qp_attach);
	printf("\tmax_ah:\t\t\t\t%d\n", a->max_ah);
	printf("\tmax_fmr:\t\t\t%d\n", a->max_fmr);
	/* Meaningless without FMRs, so left out as upstream does. */
	if (a->max_fmr)
		printf("\tmax_map_per_fmr:\t\t%d\n", a->max_map_per_fmr);
	printf("\tmax_srq:\t\t\t%d\n", a->max_srq);
	if (a->max_srq) {
		printf("\tmax_srq_wr:\t\t\t%d\n", a->max_srq_wr);
		printf("\tmax_srq_sge:\t\t\t%d\n", a->max_srq_sge);
	}
	printf("\tmax_pkeys:\t\t\t%d\n", a->max_pkeys);
	printf("\tlocal_ca_ack_delay:\t\t%d\n", a->local_ca_ack_delay);
}

/* The -v part of the device block. */
static void print_device_verbose(struct ibv_context *ctx,
				 const struct ibv_device_attr_ex *attr)
{
	print_device_limits(&attr->orig_attr);
	print_odp_caps(attr);
	print_clocks(attr);
	print_offload_caps(attr);
	print_pacing_caps(&attr->packet_pacing_caps);
	print_tm_caps(&attr->tm_caps);
	print_cq_moderation(&attr->cq_mod_caps);
	if (attr->max_dm_size)
		printf("\tmaximum available device memory:\t%" PRIu64
		       "Bytes\n\n", attr->max_dm_size);
	printf("\tnum_comp_vectors:\t\t%d\n", ctx->num_comp_vectors);
}

static void print_device(struct ibv_device *dev,
			 const struct ibv_device_attr *a)
{
	char buf[256];

	printf("hca_id:\t%s\n", ibv_get_device_name(dev));
	printf("\ttransport:\t\t\t%s (%d)\n",
	       transport_str(dev->transport_type), dev->transport_type);
	if (a->fw_ver[0])
		printf("\tfw_ver:\t\t\t\t%s\n", a->fw_ver);
	printf("\tnode_guid:\t\t\t%s\n",
	       guid_str(a->node_guid, buf, sizeof(buf)));
	printf("\tsys_image_guid:\t\t\t%s\n",
	       guid_str(a->sys_image_guid, buf, sizeof(buf)));
	printf("\tvendor_id:\t\t\t0x%04x\n", a->vendor_id);
	printf("\tvendor_part_id:\t\t\t%d\n", a->vendor_part_id);
	printf("\thw_ver:\t\t\t\t0x%X\n", a->hw_ver);
	if (ibv_read_sysfs_file(dev->ibdev_path, "board_id", buf,
				sizeof(buf)) > 0)
		printf("\tboard_id:\t\t\t%s\n", buf);
	printf("\tphys_port_cnt:\t\t\t%d\n", a->phys_port_cnt);
	/* Ours, not upstream's: how the library handles fork(). */
	printf("\tfork_support:\t\t\t%s\n",
	       fork_str(ibv_is_fork_initialized()));
}

static void print_gid(int index, const union ibv_gid *gid, int type,
		      bool roce)
{
	const char *suffix = "";
	char buf[INET6_ADDRSTRLEN];
	const uint8_t *r = gid->raw;

	if (roce)
		suffix = type == GID_TYPE_SYSFS_ROCE_V2 ? ", RoCE v2" :
							  ", RoCE v1";
	/* A RoCE v2 GID is an IP address, so show it as one. */
	if (type == GID_TYPE_SYSFS_ROCE_V2 &&
	    inet_ntop(AF_INET6, gid->raw, buf, sizeof(buf))) {
		printf("\t\t\tGID[%3d]:\t\t%s%s\n", index, buf, suffix);
		return;
	}
	printf("\t\t\tGID[%3d]:\t\t%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
	       "%02x%02x:%02x%02x:%02x%02x:%02x%02x%s\n", index,
	       r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
	       r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15], suffix);
}

/* Print the non-empty GIDs of a port; unreadable types are skipped. */
static int print_gids(struct ibv_context *ctx, uint8_t port,
		      const struct ibv_port_attr *pa)
{
	static const union ibv_gid zero;
	bool roce = pa->link_layer == IBV_LINK_LAYER_ETHERNET;
	union ibv_gid gid;
	int type;

	for (int i = 0; i < pa->gid_tbl_len; i++) {
		if (ibv_query_gid(ctx, port, i, &gid)) {
			fprintf(stderr,
				"Failed to query gid to port %u, index %d\n",
				port, i);
			return ERR_QUERY_GID;
		}
		if (!memcmp(&gid, &zero, sizeof(gid)))
			continue;
		if (ibv_query_gid_type(ctx, port, i, &type))
			continue;
		if (type != GID_TYPE_SYSFS_IB_ROCE_V1 &&
		    type != GID_TYPE_SYSFS_ROCE_V2)
			continue;
		print_gid(i, &gid, type, roce);
	}
	return 0;
}

static void print_port_verbose(const struct ibv_port_attr *pa,
			       bool ib_transport)
{
	printf("\t\t\tmax_msg_sz:\t\t0x%x\n", pa->max_msg_sz);
	printf("\t\t\tport_cap_flags:\t\t0x%08x\n", pa->port_cap_flags);
	printf("\t\t\tport_cap_flags2:\t0x%04x\n", pa->port_cap_flags2);
	printf("\t\t\tmax_vl_num:\t\t%s (%d)\n", vl_str(pa->max_vl_num),
	       pa->max_vl_num);
	printf("\t\t\tbad_pkey_cntr:\t\t0x%x\n", pa->bad_pkey_cntr);
	printf("\t\t\tqkey_viol_cntr:\t\t0x%x\n", pa->qkey_viol_cntr);
	printf("\t\t\tsm_sl:\t\t\t%d\n", pa->sm_sl);
	printf("\t\t\tpkey_tbl_len:\t\t%d\n", pa->pkey_tbl_len);
	printf("\t\t\tgid_tbl_len:\t\t%d\n", pa->gid_tbl_len);
	printf("\t\t\tsubnet_timeout:\t\t%d\n", pa->subnet_timeout);
	printf("\t\t\tinit_type_reply:\t%d\n", pa->init_type_reply);
	printf("\t\t\tactive_width:\t\t%sX (%d)\n",
	       width_str(pa->active_width), pa->active_width);
	printf("\t\t\tactive_speed:\t\t%s (%d)\n",
	       speed_str(pa->active_speed), pa->active_speed);
	if (ib_transport)
		printf("\t\t\tphys_state:\t\t%s (%d)\n",
		       phys_state_str(pa->phys_state), pa->phys_state);
}

static int print_port(struct ibv_context *ctx, uint8_t port)
{
	struct ibv_port_attr pa;
	int rc;

	if (ibv_query_port(ctx, port, &pa)) {
		fprintf(stderr, "Failed to query port %u props\n", port);
		return ERR_QUERY_PORT;
	}
	printf("\t\tport:\t%u\n", port);
	printf("\t\t\tstate:\t\t\t%s (%d)\n", port_state_str(pa.state),
	       pa.state);
	printf("\t\t\tmax_mtu:\t\t%s (%d)\n", mtu_str(pa.max_mtu),
	       pa.max_mtu);
	printf("\t\t\tactive_mtu:\t\t%s (%d)\n", mtu_str(pa.active_mtu),
	       pa.active_mtu);
	printf("\t\t\tsm_lid:\t\t\t%d\n", pa.sm_lid);
	printf("\t\t\tport_lid:\t\t%d\n", pa.lid);
	printf("\t\t\tport_lmc:\t\t0x%02x\n", pa.lmc);
	printf("\t\t\tlink_layer:\t\t%s\n", link_layer_str(pa.link_layer));
	if (verbose) {
		print_port_verbose(&pa, ctx->device->transport_type ==
					IBV_TRANSPORT_IB);
		rc = print_gids(ctx, port, &pa);
		if (rc)
			return rc;
	}
	printf("\n");
	return 0;
}

/* The device block and its ports; @ib_port 0 means every port. */
static int print_hca(struct ibv_context *ctx, uint8_t ib_port)
{
	struct ibv_device_attr_ex attr = {};
	int rc;

	if (ibv_query_device_ex(ctx, NULL, &attr)) {
		fprintf(stderr, "Failed to query device props\n");
		return ERR_QUERY_DEVICE;
	}
	if (ib_port && ib_port > attr.orig_attr.phys_port_cnt) {
		fprintf(stderr, "Invalid port requested for device\n");
		return ERR_BAD_PORT;
	}

	print_device(ctx->device, &attr.orig_attr);
	if (verbose)
		print_device_verbose(ctx, &attr);

	for (unsigned int port = 1; port <= attr.orig_attr.phys_port_cnt;
	     port++) {
		if (ib_port && port != ib_port)
			continue;
		rc = print_port(ctx, port);
		if (rc)
			return rc;
	}
	return 0;
}

static int print_hca_cap(struct ibv_device *dev, uint8_t ib_port)
{
	struct ibv_context *ctx;
	int rc;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		fprintf(stderr, "Failed to open device\n");
		return ERR_OPEN;
	}
	rc = print_hca(ctx, ib_port);
	if (ibv_close_device(ctx)) {
		/* No newline: upstream's message, byte for byte. */
		fprintf(stderr, "Failed to close device");
		rc = ERR_CLOSE;
	}
	return rc;
}

static void usage(const char *argv0)
{
	printf("Usage: %s             print the ca attributes\n", argv0);
	printf("\n");
	printf("Options:\n");
	printf("  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n");
	printf("  -i, --ib-port=<port>   use port <port> of IB device (default all ports)\n");
	printf("  -l, --list             print only the IB devices names\n");
	printf("  -v, --verbose          print all the attributes of the IB device(s)\n");
}

static void list_devices(struct ibv_device **list, int num)
{
	printf("%d HCA%s found:\n", num, num != 1 ? "s" : "");
	for (int i = 0; i < num; i++)
		printf("\t%s\n", ibv_get_device_name(list[i]));
	printf("\n");
}

static int run(const char *devname, uint8_t ib_port, bool list_only)
{
	struct ibv_device **list;
	int num, rc = 0;

	list = ibv_get_device_list(&num);
	if (!list) {
		perror("Failed to get IB devices list");
		return -1;
	}

	if (list_only) {
		list_devices(list, num);
	} else if (devname) {
		int i;

		for (i = 0; i < num; i++)
			if (!strcmp(ibv_get_device_name(list[i]), devname))
				break;
		if (i < num) {
			rc = print_hca_cap(list[i], ib_port);
		} else {
			fprintf(stderr, "IB device '%s' wasn't found\n",
				devname);
			rc = -1;
		}
	} else if (!num) {
		fprintf(stderr, "No IB devices found\n");
		rc = -1;
	} else {
		for (int i = 0; i < num; i++)
			rc |= print_hca_cap(list[i], ib_port);
	}

	ibv_free_device_list(list);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *devname = NULL;
	bool list_only = false;
	long port = 0;
	int c;

	while ((c = getopt_long(argc, argv, "d:i:lvh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			devname = optarg;
			break;
		case 'i':
			port = strtol(optarg, NULL, 0);
			if (port <= 0) {
				usage(argv[0]);
				return 1;
			}
			break;
		case 'l':
			list_only = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(argv[0]);
			return 0;
		default:
			usage(argv[0]);
			return -1;
		}
	}

	/* As upstream: the port number is taken modulo 256. */
	return run(devname, (uint8_t)port, list_only);
}
