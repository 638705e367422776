/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Conversions between the kernel's uverbs / SA structs and the verbs
 * structs (marshall.c).  Exported since IBVERBS_1.0 / 1.1; upstream
 * declares them in <infiniband/marshall.h>, which rdma-core 44 as
 * packaged by Debian does not install, so this header can be installed
 * under that name.
 */
#ifndef INFINIBAND_MARSHALL_H
#define INFINIBAND_MARSHALL_H

#include <infiniband/verbs.h>
#include <infiniband/sa.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_sa.h>

#ifdef __cplusplus
extern "C" {
#endif

void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src);
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src);

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_MARSHALL_H */
