/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * <infiniband/verbs_api.h>: the kernel uAPI types that verbs.h exposes,
 * plus the ibv_* spellings of them.
 *
 * A few uAPI structs carry user pointers in 64-bit slots.  Before pulling
 * in the uAPI header we say how such a slot should look from C: a union of
 * the real pointer type and the 64-bit word the kernel sees, so users can
 * store a pointer without casts and the layout stays the kernel's.
 */
#ifndef VERBS_API_H
#define VERBS_API_H

#include <stdint.h>
#include <endian.h>
#include <linux/types.h>

#if UINTPTR_MAX == UINT64_MAX
#define RDMA_UAPI_PTR(_type, _name)					\
	union {								\
		_type _name;						\
		__aligned_u64 _name##_data_u64;				\
	}
#elif UINTPTR_MAX == UINT32_MAX
/* 32-bit: the pointer occupies the low-addressed half on little endian. */
#if __BYTE_ORDER == __LITTLE_ENDIAN
#define RDMA_UAPI_PTR(_type, _name)					\
	union {								\
		struct {						\
			_type _name;					\
			__u32 _name##_reserved;				\
		};							\
		__aligned_u64 _name##_data_u64;				\
	}
#else
#define RDMA_UAPI_PTR(_type, _name)					\
	union {								\
		struct {						\
			__u32 _name##_reserved;				\
			_type _name;					\
		};							\
		__aligned_u64 _name##_data_u64;				\
	}
#endif
#else
#error "RDMA_UAPI_PTR: unsupported pointer width"
#endif

#include <infiniband/ib_user_ioctl_verbs.h>

/* IPsec ESP flow action: the ibv_ names are the uAPI ones. */
#define ibv_flow_action_esp_keymat	ib_uverbs_flow_action_esp_keymat
#define ibv_flow_action_esp_keymat_aes_gcm_iv_algo \
	ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo
#define ibv_flow_action_esp_keymat_aes_gcm \
	ib_uverbs_flow_action_esp_keymat_aes_gcm
#define ibv_flow_action_esp_replay	ib_uverbs_flow_action_esp_replay
#define ibv_flow_action_esp_replay_bmp	ib_uverbs_flow_action_esp_replay_bmp
#define ibv_flow_action_esp_flags	ib_uverbs_flow_action_esp_flags
#define ibv_flow_action_esp_encap	ib_uverbs_flow_action_esp_encap
#define ibv_flow_action_esp		ib_uverbs_flow_action_esp

#define IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM \
	IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM
#define IBV_FLOW_ACTION_IV_ALGO_SEQ	IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ
#define IBV_FLOW_ACTION_ESP_REPLAY_NONE	IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE
#define IBV_FLOW_ACTION_ESP_REPLAY_BMP	IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP
#define IBV_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO
#define IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD
#define IBV_FLOW_ACTION_ESP_FLAGS_TUNNEL \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL
#define IBV_FLOW_ACTION_ESP_FLAGS_TRANSPORT \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT
#define IBV_FLOW_ACTION_ESP_FLAGS_DECRYPT \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT
#define IBV_FLOW_ACTION_ESP_FLAGS_ENCRYPT \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT
#define IBV_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW \
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW

/* ibv_advise_mr() */
#define ibv_advise_mr_advice		ib_uverbs_advise_mr_advice
#define IBV_ADVISE_MR_ADVICE_PREFETCH	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH
#define IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE \
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE
#define IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT \
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT
#define IBV_ADVISE_MR_FLAG_FLUSH	IB_UVERBS_ADVISE_MR_FLAG_FLUSH

/* struct ibv_port_attr.flags */
#define IBV_QPF_GRH_REQUIRED		IB_UVERBS_QPF_GRH_REQUIRED

/*
 * Access flags in this range are optional: a kernel that does not know one
 * ignores it instead of failing the registration.  Clients test for
 * IBV_ACCESS_OPTIONAL_RANGE with #ifdef.
 */
#define IBV_ACCESS_OPTIONAL_RANGE	IB_UVERBS_ACCESS_OPTIONAL_RANGE
#define IBV_ACCESS_OPTIONAL_FIRST	IB_UVERBS_ACCESS_OPTIONAL_FIRST

#endif /* VERBS_API_H */
