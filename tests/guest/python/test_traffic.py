# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""RC and UD traffic through Debian's pyverbs, rxe0 to rxe1.

The data path of the library as Python users drive it: an RC pair moving
SEND/RECV and RDMA WRITE, a UD pair moving datagrams through an address
handle, every byte checked.  Runs against the project's library and,
with IBV_UNDER_TEST=debian, against Debian's: it tests upstream
behaviour, so it must pass on both.
"""
import time

import pytest

import verbs_enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

from rc_attr import rc_rts_attr

SIZE = 1024
GRH = 40  # a UD receive starts with the packet's global route header
QKEY = 0x11111111
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)
TIMEOUT = 20


def ipv4_gid_index(ctx):
    for idx in range(ctx.query_port(1).gid_tbl_len):
        gid = ctx.query_gid(1, idx)
        if str(gid).startswith('0000:0000:0000:0000:0000:ffff'):
            return idx
    raise RuntimeError('no IPv4 GID on port 1')


class Side:
    """One device with a PD, a CQ, a QP of @qp_type and an MR."""

    def __init__(self, name, qp_type):
        self.ctx = Context(name=name)
        self.gid_index = ipv4_gid_index(self.ctx)
        self.gid = self.ctx.query_gid(1, self.gid_index)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        init = QPInitAttr(qp_type=qp_type, scq=self.cq, rcq=self.cq,
                          cap=QPCap(max_send_wr=16, max_recv_wr=16))
        self.qp = QP(self.pd, init)
        self.mr = MR(self.pd, SIZE + GRH, ACCESS)

    def ah_attr(self, peer):
        gr = GlobalRoute(dgid=peer.gid, sgid_index=self.gid_index)
        return AHAttr(port_num=1, is_global=1, gr=gr)

    def poll(self):
        """One completion within TIMEOUT seconds."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            n, wcs = self.cq.poll()
            if n:
                return wcs[0]
        pytest.fail('no completion within %d s' % TIMEOUT)

    def post_recv(self):
        sge = SGE(self.mr.buf, SIZE + GRH, self.mr.lkey)
        self.qp.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[sge]))


def connect_rc(a, b):
    for me, peer in ((a, b), (b, a)):
        me.qp.to_rts(rc_rts_attr(ACCESS, peer.qp.qp_num, me.ah_attr(peer)))


def ready_ud(side):
    attr = QPAttr(qp_state=e.IBV_QPS_INIT)
    attr.qkey = QKEY
    side.qp.to_rts(attr)


def payload(seed, n=SIZE):
    return bytes((i * 7 + seed) % 256 for i in range(n))


@pytest.fixture(scope='module')
def rc():
    a, b = Side('rxe0', e.IBV_QPT_RC), Side('rxe1', e.IBV_QPT_RC)
    connect_rc(a, b)
    return a, b


@pytest.fixture(scope='module')
def ud():
    a, b = Side('rxe0', e.IBV_QPT_UD), Side('rxe1', e.IBV_QPT_UD)
    ready_ud(a)
    ready_ud(b)
    return a, b


def test_rc_send_recv(rc):
    a, b = rc
    data = payload(1)
    a.mr.write(data, SIZE)
    b.post_recv()
    wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(a.mr.buf, SIZE, a.mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    a.qp.post_send(wr)
    assert a.poll().status == e.IBV_WC_SUCCESS
    wc = b.poll()
    assert wc.status == e.IBV_WC_SUCCESS and wc.byte_len == SIZE
    assert b.mr.read(SIZE, 0) == data


def test_rc_rdma_write(rc):
    a, b = rc
    data = payload(2)
    a.mr.write(data, SIZE)
    wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(a.mr.buf, SIZE, a.mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(b.mr.rkey, b.mr.buf)
    a.qp.post_send(wr)
    assert a.poll().status == e.IBV_WC_SUCCESS
    assert b.mr.read(SIZE, 0) == data


def test_ud_datagrams(ud):
    a, b = ud
    ah = AH(a.pd, attr=a.ah_attr(b))
    for seed in range(3):
        data = payload(seed + 10, 512)
        a.mr.write(data, len(data))
        b.post_recv()
        wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(a.mr.buf, len(data), a.mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_ud(ah, b.qp.qp_num, QKEY)
        a.qp.post_send(wr)
        assert a.poll().status == e.IBV_WC_SUCCESS
        wc = b.poll()
        assert wc.status == e.IBV_WC_SUCCESS
        assert wc.byte_len == len(data) + GRH
        assert wc.src_qp == a.qp.qp_num
        assert b.mr.read(len(data), GRH) == data
