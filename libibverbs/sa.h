/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * <infiniband/sa.h>: subnet administration records.
 *
 * The ibv_sa_* structs are the host-side, unpacked view of SA records
 * (reserved wire fields are simply not represented).  struct
 * ibv_path_record is the packed wire format, used with struct
 * ibv_path_data to hand resolved paths around.
 */
#ifndef INFINIBAND_SA_H
#define INFINIBAND_SA_H

#include <stdint.h>
#include <linux/types.h>
#include <infiniband/verbs.h>

struct ibv_sa_path_rec {
	union ibv_gid	dgid;
	union ibv_gid	sgid;
	__be16		dlid;
	__be16		slid;
	int		raw_traffic;
	__be32		flow_label;
	uint8_t		hop_limit;
	uint8_t		traffic_class;
	int		reversible;
	uint8_t		numb_path;
	__be16		pkey;
	uint8_t		sl;
	uint8_t		mtu_selector;
	uint8_t		mtu;
	uint8_t		rate_selector;
	uint8_t		rate;
	uint8_t		packet_life_time_selector;
	uint8_t		packet_life_time;
	uint8_t		preference;
};

struct ibv_sa_mcmember_rec {
	union ibv_gid	mgid;
	union ibv_gid	port_gid;
	uint32_t	qkey;
	uint16_t	mlid;
	uint8_t		mtu_selector;
	uint8_t		mtu;
	uint8_t		traffic_class;
	uint16_t	pkey;
	uint8_t		rate_selector;
	uint8_t		rate;
	uint8_t		packet_life_time_selector;
	uint8_t		packet_life_time;
	uint8_t		sl;
	uint32_t	flow_label;
	uint8_t		hop_limit;
	uint8_t		scope;
	uint8_t		join_state;
	int		proxy_join;
};

struct ibv_sa_service_rec {
	uint64_t	id;
	union ibv_gid	gid;
	uint16_t	pkey;
	/* two reserved bytes of the record fall in the padding here */
	uint32_t	lease;
	uint8_t		key[16];
	uint8_t		name[64];
	uint8_t		data8[16];
	uint16_t	data16[8];
	uint32_t	data32[4];
	uint64_t	data64[2];
};

/* ibv_path_record.reversible_numpath: top bit set = path is reversible */
#define IBV_PATH_RECORD_REVERSIBLE	0x80

/*
 * Wire format.  Several bytes pack two fields:
 *   flowlabel_hoplimit:  flow label in bits 27..8, hop limit in 7..0
 *   reversible_numpath:  reversible in bit 7, number of paths in 6..0
 *   qosclass_sl:         QoS class in bits 15..4, SL in 3..0
 *   mtu, rate, packetlifetime: selector in bits 7..6, value in 5..0
 */
struct ibv_path_record {
	__be64		service_id;
	union ibv_gid	dgid;
	union ibv_gid	sgid;
	__be16		dlid;
	__be16		slid;
	__be32		flowlabel_hoplimit;
	uint8_t		tclass;
	uint8_t		reversible_numpath;
	__be16		pkey;
	__be16		qosclass_sl;
	uint8_t		mtu;
	uint8_t		rate;
	uint8_t		packetlifetime;
	uint8_t		preference;
	uint8_t		reserved[6];
};

/* struct ibv_path_data.flags */
#define IBV_PATH_FLAG_GMP		(1 << 0)
#define IBV_PATH_FLAG_PRIMARY		(1 << 1)
#define IBV_PATH_FLAG_ALTERNATE		(1 << 2)
#define IBV_PATH_FLAG_OUTBOUND		(1 << 3)
#define IBV_PATH_FLAG_INBOUND		(1 << 4)
#define IBV_PATH_FLAG_INBOUND_REVERSE	(1 << 5)
/* usable in both directions */
#define IBV_PATH_FLAG_BIDIRECTIONAL					\
	(IBV_PATH_FLAG_OUTBOUND | IBV_PATH_FLAG_INBOUND_REVERSE)

struct ibv_path_data {
	uint32_t		flags;
	uint32_t		reserved;
	struct ibv_path_record	path;
};

#endif /* INFINIBAND_SA_H */
