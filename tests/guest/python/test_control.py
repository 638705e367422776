# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Control path through Debian's pyverbs, unchanged, on the library under
test (see conftest.py): device list, contexts on rxe0 and rxe1, device,
port, GID and P_Key queries checked against what the kernel shows in sysfs,
PDs, and MRs of several sizes and access flags, valid and invalid (each
valid one proven by the device reading it, in an RDMA WRITE to the other
device).

Every test must pass on the project's libibverbs and on Debian's alike
(tests/guest/run-all runs this file both ways): the expectations, errno
values included, are those of upstream on the same kernel.
"""
import errno
import functools
import os
import time

import pytest

import verbs_enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context, get_device_list
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

import conftest
from rc_attr import rc_rts_attr

DEVICES = ['rxe0', 'rxe1']
PORT = 1
SYSFS = '/sys/class/infiniband'

MR_SIZES = [1, 4095, 4096, 1 << 20, 16 << 20]
LW = e.IBV_ACCESS_LOCAL_WRITE
RR = e.IBV_ACCESS_REMOTE_READ
RW = e.IBV_ACCESS_REMOTE_WRITE
RA = e.IBV_ACCESS_REMOTE_ATOMIC
REMOTE = RR | RW | RA
MR_ACCESS = {
    'none': 0,
    'lw': LW,
    'rr': RR,
    'lw_rr': LW | RR,
    'lw_rw': LW | RW,
    'lw_ra': LW | RA,
    'all': LW | RR | RW | RA,
}
# The kernel wants local write with remote write or remote atomic.
BAD_ACCESS = {
    'rw_without_lw': RW,
    'ra_without_lw': RA,
    'rw_rr_without_lw': RW | RR,
}


def text(value):
    return value.decode() if isinstance(value, bytes) else value


def sysfs(dev, *path):
    with open(os.path.join(SYSFS, dev, *path)) as f:
        return f.read().strip()


def sysfs_port(dev, *path):
    return sysfs(dev, 'ports', str(PORT), *path)


def sysfs_num(dev, *path):
    """'4: ACTIVE' -> 4, '0x10' -> 16, '5' -> 5."""
    return int(sysfs_port(dev, *path).split(':')[0].split()[0], 0)


def guid_bytes(value):
    """Device.guid: pyverbs converts ibv_get_device_guid()'s __be64."""
    return int(value).to_bytes(8, 'big')


def raw_guid_bytes(value):
    """DeviceAttr's GUIDs: pyverbs passes the __be64 through unchanged."""
    return int(value).to_bytes(8, 'little')


def sysfs_guid(dev, name):
    return bytes.fromhex(sysfs(dev, name).replace(':', ''))


def gid_bytes(gid):
    return bytes.fromhex(str(gid).replace(':', ''))


@functools.lru_cache(maxsize=None)
def sysfs_gids(dev):
    """{index: (16 bytes, type text or None, netdev or None)} for the port.

    Read once per device: the table does not change while the tests run,
    and under TCG each sysfs read costs milliseconds.  Empty entries have
    no attributes (reading them fails with EINVAL), so only the others'
    are read."""
    base = os.path.join(SYSFS, dev, 'ports', str(PORT))
    table = {}
    for name in os.listdir(os.path.join(base, 'gids')):
        raw = gid_bytes(sysfs_port(dev, 'gids', name))
        gtype = ndev = None
        if raw != bytes(16):
            gtype = sysfs_port(dev, 'gid_attrs', 'types', name)
            ndev = sysfs_port(dev, 'gid_attrs', 'ndevs', name)
        table[int(name)] = (raw, gtype, ndev)
    return table


def valid_gids(dev):
    return {i: v for i, v in sysfs_gids(dev).items() if v[0] != bytes(16)}


def expect_errno(err, code, what):
    """@err (pytest.raises info) carries errno @code."""
    got = getattr(err.value, 'error_code', None)
    assert got == code, '%s: %s, errno %s, want %s (%s)' % (
        what, err.value, got, code, os.strerror(code))


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


@pytest.fixture
def ctx(dev):
    with Context(name=dev) as c:
        yield c


@pytest.fixture
def pd(ctx):
    with PD(ctx) as p:
        yield p


def test_library_mapped():
    assert conftest.mapping_problem() is None, conftest.mapping_problem()


def test_device_list():
    devs = get_device_list()
    names = sorted(text(d.name) for d in devs)
    assert names == sorted(DEVICES)
    for d in devs:
        name = text(d.name)
        assert guid_bytes(d.guid) == sysfs_guid(name, 'node_guid')
        assert d.node_type == e.IBV_NODE_CA
        assert d.transport_type == e.IBV_TRANSPORT_IB
        assert d.index >= 0
    assert len({d.index for d in devs}) == len(devs)


def test_open_unknown_device():
    with pytest.raises(PyverbsError):
        Context(name='nosuchdev0')


def test_context(ctx, dev):
    assert text(ctx.name) == dev
    assert ctx.cmd_fd >= 0
    assert ctx.num_comp_vectors >= 1


def test_query_device(ctx, dev):
    attr = ctx.query_device()
    assert raw_guid_bytes(attr.node_guid) == sysfs_guid(dev, 'node_guid')
    assert raw_guid_bytes(attr.sys_image_guid) == \
        sysfs_guid(dev, 'sys_image_guid')
    assert attr.phys_port_cnt == len(os.listdir(os.path.join(SYSFS, dev,
                                                             'ports')))
    assert attr.max_mr_size >= 16 << 20
    assert attr.page_size_cap & 4096
    for field in ('max_qp', 'max_qp_wr', 'max_sge', 'max_cq', 'max_cqe',
                  'max_mr', 'max_pd', 'max_ah', 'max_srq', 'max_pkeys'):
        assert getattr(attr, field) > 0, field


def test_query_device_ex(ctx):
    attr = ctx.query_device()
    ex = ctx.query_device_ex()
    for field in ('node_guid', 'sys_image_guid', 'max_mr_size',
                  'page_size_cap', 'vendor_id', 'vendor_part_id', 'hw_ver',
                  'max_qp', 'max_qp_wr', 'device_cap_flags', 'max_sge',
                  'max_cq', 'max_cqe', 'max_mr', 'max_pd', 'max_qp_rd_atom',
                  'max_res_rd_atom', 'max_qp_init_rd_atom', 'atomic_caps',
                  'max_mw', 'max_ah', 'max_srq', 'max_srq_wr', 'max_srq_sge',
                  'max_pkeys', 'local_ca_ack_delay', 'phys_port_cnt'):
        assert getattr(ex.orig_attr, field) == getattr(attr, field), field


def test_query_port(ctx, dev):
    attr = ctx.query_port(PORT)
    assert attr.state == sysfs_num(dev, 'state')
    assert attr.state == e.IBV_PORT_ACTIVE
    assert attr.phys_state == sysfs_num(dev, 'phys_state')
    assert attr.lid == sysfs_num(dev, 'lid')
    assert attr.sm_lid == sysfs_num(dev, 'sm_lid')
    assert attr.lmc == sysfs_num(dev, 'lid_mask_count')
    assert attr.sm_sl == sysfs_num(dev, 'sm_sl')
    assert attr.port_cap_flags == sysfs_num(dev, 'cap_mask')
    assert attr.link_layer == e.IBV_LINK_LAYER_ETHERNET
    assert sysfs_port(dev, 'link_layer') == 'Ethernet'
    assert attr.gid_tbl_len == len(os.listdir(os.path.join(
        SYSFS, dev, 'ports', str(PORT), 'gids')))
    assert attr.pkey_tbl_len == len(os.listdir(os.path.join(
        SYSFS, dev, 'ports', str(PORT), 'pkeys')))
    assert attr.max_msg_sz > 0
    assert e.IBV_MTU_256 <= attr.active_mtu <= attr.max_mtu <= e.IBV_MTU_4096


@pytest.mark.parametrize('port', [0, 2, 255])
def test_query_port_out_of_range(ctx, port):
    with pytest.raises(PyverbsRDMAError) as err:
        ctx.query_port(port)
    expect_errno(err, errno.EINVAL, 'query_port(%d)' % port)


def test_query_gid_whole_table(ctx, dev):
    """Every entry of the table, empty ones included, is what sysfs says."""
    table = sysfs_gids(dev)
    assert len(table) == ctx.query_port(PORT).gid_tbl_len
    assert valid_gids(dev), 'no valid GID at all on %s' % dev
    for idx in sorted(table):
        got = gid_bytes(ctx.query_gid(PORT, idx))
        assert got == table[idx][0], 'GID[%d]' % idx


def test_query_gid_out_of_range(ctx):
    tbl_len = ctx.query_port(PORT).gid_tbl_len
    with pytest.raises(PyverbsRDMAError):
        ctx.query_gid(PORT, tbl_len)
    with pytest.raises(PyverbsRDMAError):
        ctx.query_gid(2, 0)


def ifindex(netdev):
    with open('/sys/class/net/%s/ifindex' % netdev) as f:
        return int(f.read())


def gid_type_of(sysfs_type):
    return {'IB/RoCE v1': e.IBV_GID_TYPE_ROCE_V1,
            'RoCE v2': e.IBV_GID_TYPE_ROCE_V2}[sysfs_type]


def test_query_gid_ex(ctx, dev):
    for idx, (raw, gtype, ndev) in sorted(valid_gids(dev).items()):
        entry = ctx.query_gid_ex(PORT, idx)
        assert gid_bytes(entry.gid_str()) == raw, 'GID[%d]' % idx
        assert entry.gid_index == idx
        assert entry.port_num == PORT
        assert entry.gid_type == gid_type_of(gtype), 'GID[%d]' % idx
        assert entry.ndev_ifindex == ifindex(ndev), 'GID[%d]' % idx


def test_query_gid_ex_empty_entry(ctx, dev):
    empty = [i for i, v in sysfs_gids(dev).items() if v[0] == bytes(16)]
    assert empty, 'no empty GID entry on %s' % dev
    with pytest.raises(PyverbsRDMAError) as err:
        ctx.query_gid_ex(PORT, empty[-1])
    expect_errno(err, errno.ENODATA, 'query_gid_ex(empty entry)')


def test_query_gid_table(ctx, dev):
    want = valid_gids(dev)
    entries = ctx.query_gid_table(ctx.query_port(PORT).gid_tbl_len)
    got = {}
    for entry in entries:
        assert entry.port_num == PORT
        got[entry.gid_index] = (gid_bytes(entry.gid_str()), entry.gid_type,
                                entry.ndev_ifindex)
    assert got == {i: (raw, gid_type_of(t), ifindex(n))
                   for i, (raw, t, n) in want.items()}


def test_query_gid_table_too_small(ctx, dev):
    if len(valid_gids(dev)) < 2:
        pytest.fail('need two valid GIDs on %s' % dev)
    with pytest.raises(PyverbsRDMAError) as err:
        ctx.query_gid_table(1)
    # ibv_query_gid_table() returns a negative errno, which pyverbs keeps.
    expect_errno(err, -errno.EINVAL, 'query_gid_table(max_entries=1)')


def test_query_gid_type(ctx, dev):
    # enum ibv_gid_type_sysfs: 0 IB/RoCE v1, 1 RoCE v2
    sysfs_type = {'IB/RoCE v1': 0, 'RoCE v2': 1}
    for idx, (_, gtype, _) in sorted(valid_gids(dev).items()):
        assert ctx.query_gid_type(PORT, idx) == sysfs_type[gtype], \
            'GID[%d]' % idx


def test_query_pkey(ctx, dev):
    tbl_len = ctx.query_port(PORT).pkey_tbl_len
    for idx in range(tbl_len):
        want = int(sysfs_port(dev, 'pkeys', str(idx)), 16)
        assert ctx.query_pkey(PORT, idx) == want, 'P_Key[%d]' % idx
    assert ctx.query_pkey(PORT, 0) == 0xffff
    with pytest.raises(PyverbsRDMAError):
        ctx.query_pkey(PORT, tbl_len)


def test_alloc_pd(ctx):
    pds = [PD(ctx) for _ in range(8)]
    assert len({p.handle for p in pds}) == len(pds)
    for p in pds:
        p.close()


def ipv4_gid_index(ctx):
    for idx in range(ctx.query_port(PORT).gid_tbl_len):
        if str(ctx.query_gid(PORT, idx)).startswith(
                '0000:0000:0000:0000:0000:ffff'):
            return idx
    raise RuntimeError('no IPv4 GID on port %d' % PORT)


def rc_qp(pd, cq):
    init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                      cap=QPCap(max_send_wr=4, max_recv_wr=4))
    return QP(pd, init)


def rc_to_rts(qp, ctx, peer_qp, peer_ctx):
    peer_gid = peer_ctx.query_gid(PORT, ipv4_gid_index(peer_ctx))
    gr = GlobalRoute(dgid=peer_gid, sgid_index=ipv4_gid_index(ctx))
    ah_attr = AHAttr(port_num=PORT, is_global=1, gr=gr)
    qp.to_rts(rc_rts_attr(LW | RW, peer_qp.qp_num, ah_attr))


def poll_one(cq, what, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        n, wcs = cq.poll()
        if n:
            return wcs[0]
    pytest.fail('%s: no completion within %d s' % (what, timeout))


def device_read(ctx, dev, pd, mr, offset, length):
    """What the device reads of @mr[offset:offset+length] through its lkey:
    the payload of an RDMA WRITE from @mr to an MR on the other device."""
    peer_dev = DEVICES[1 - DEVICES.index(dev)]
    with Context(name=peer_dev) as pctx, PD(pctx) as ppd, \
            CQ(pctx, 4) as pcq, CQ(ctx, 4) as cq, \
            MR(ppd, length, LW | RW) as dst:
        qp, pqp = rc_qp(pd, cq), rc_qp(ppd, pcq)
        try:
            rc_to_rts(qp, ctx, pqp, pctx)
            rc_to_rts(pqp, pctx, qp, ctx)
            wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                        sg=[SGE(mr.buf + offset, length, mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_rdma(dst.rkey, dst.buf)
            qp.post_send(wr)
            wc = poll_one(cq, 'RDMA WRITE from the MR')
            assert wc.status == e.IBV_WC_SUCCESS, \
                'RDMA WRITE from the MR: status %d' % wc.status
            return dst.read(length, 0)
        finally:
            qp.close()
            pqp.close()


@pytest.mark.parametrize('access', MR_ACCESS.values(), ids=MR_ACCESS.keys())
@pytest.mark.parametrize('size', MR_SIZES)
def test_reg_mr(ctx, dev, pd, size, access):
    with MR(pd, size, access) as mr:
        assert mr.length == size
        assert mr.buf != 0
        assert mr.lkey != 0
        # The kernel (rxe) hands out an rkey only for remote access.
        if access & REMOTE:
            assert mr.rkey != 0
        else:
            assert mr.rkey == 0
        # The registration covers the process's buffer in place, up to
        # its last byte: the device reads back what the process wrote at
        # the end (a local read needs no access flag, only the lkey).
        n = min(size, 4096)
        data = (bytes(range(256)) * (n // 256 + 1))[:n - 1] + b'\x5a'
        mr.write(data, n, size - n)
        assert device_read(ctx, dev, pd, mr, size - n, n) == data


def test_mr_keys_distinct(pd):
    mrs = [MR(pd, size, LW | RR | RW) for size in MR_SIZES]
    try:
        assert len({m.lkey for m in mrs}) == len(mrs)
        assert len({m.rkey for m in mrs}) == len(mrs)
        assert len({m.handle for m in mrs}) == len(mrs)
    finally:
        for m in mrs:
            m.close()


def test_mr_on_two_devices():
    """One process, both devices, an MR on each at once."""
    with Context(name=DEVICES[0]) as c0, Context(name=DEVICES[1]) as c1:
        with PD(c0) as p0, PD(c1) as p1:
            with MR(p0, 4096, LW) as m0, MR(p1, 4096, LW) as m1:
                assert m0.lkey and m1.lkey


@pytest.mark.parametrize('access', BAD_ACCESS.values(), ids=BAD_ACCESS.keys())
def test_reg_mr_invalid_access(pd, access):
    with pytest.raises(PyverbsRDMAError) as err:
        MR(pd, 4096, access)
    expect_errno(err, errno.EINVAL, 'reg_mr(access=%#x)' % access)
    # The failure leaves the PD usable.
    with MR(pd, 4096, LW) as mr:
        assert mr.lkey != 0


def test_rereg_mr_access(pd):
    """rxe in Debian's 6.1 kernel cannot re-register (EOPNOTSUPP from the
    command, IBV_REREG_MR_ERR_CMD); a kernel that can must give remote
    access."""
    with MR(pd, 8192, LW) as mr:
        assert mr.rkey == 0
        try:
            mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, pd, 0, 0, LW | RW | RR)
        except PyverbsRDMAError as err:
            assert err.error_code == errno.EOPNOTSUPP, str(err)
            assert 'IBV_REREG_MR_ERR_CMD' in str(err), str(err)
        else:
            assert mr.rkey != 0
            assert mr.length == 8192


def test_rereg_mr_bad_flags(pd):
    """Flags outside enum ibv_rereg_mr_flags: an input error, MR intact."""
    with MR(pd, 8192, LW) as mr:
        with pytest.raises(PyverbsRDMAError) as err:
            mr.rereg(1 << 20, pd, 0, 0, LW)
        assert 'IBV_REREG_MR_ERR_INPUT' in str(err.value), str(err.value)
        mr.write(b'still here', 10)


def test_import_device(ctx):
    """rxe has no import support in upstream's provider: EOPNOTSUPP."""
    fd = os.dup(ctx.cmd_fd)
    try:
        with pytest.raises(PyverbsRDMAError) as err:
            Context(cmd_fd=fd)
        expect_errno(err, errno.EOPNOTSUPP, 'ibv_import_device')
    finally:
        try:
            os.close(fd)
        except OSError:
            pass
