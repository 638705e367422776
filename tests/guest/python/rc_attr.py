# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The QP attributes the pyverbs tests take an RC QP to RTS with."""
import verbs_enums as e
from pyverbs.qp import QPAttr


def rc_rts_attr(access, dest_qp_num, ah_attr):
    """INIT-to-RTS attributes towards @dest_qp_num at @ah_attr: MTU 1024,
    one outstanding read or atomic each way, generous retries (rxe under
    TCG can be slow to answer)."""
    attr = QPAttr(qp_state=e.IBV_QPS_INIT)
    attr.qp_access_flags = access
    attr.path_mtu = e.IBV_MTU_1024
    attr.dest_qp_num = dest_qp_num
    attr.max_dest_rd_atomic = 1
    attr.max_rd_atomic = 1
    attr.min_rnr_timer = 12
    attr.timeout = 14
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.ah_attr = ah_attr
    return attr
