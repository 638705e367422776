#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""One fork scenario with Debian's pyverbs, run as its own process.

test_fork.py runs this script in a fresh interpreter because the scenario
forks: the child must end the way a real program's child does (sys.exit,
so pyverbs' destructors run on every inherited object), which cannot
happen inside pytest's own process.

It prints one JSON object on stdout: what the parent and the child saw,
and the kernel's object counts before the fork and after the child.
Usage: fork_scenario.py DEVICE passive|active|active-no-post

A passive child touches nothing it inherited and leaves with os._exit();
an active child tries the inherited PD, MR and QP, makes a PD and an MR,
then CQ, QPs and MRs of its own on the inherited context and PD and moves
bytes through them, uses a context of its own, then leaves with
sys.exit().  active-no-post is active without the
post_send on the inherited QP (its result is null): for a kernel that
hangs the parent when a child's work request is in the parent's queue
(see test_fork.py).
"""
import errno
import json
import os
import select
import signal
import subprocess
import sys
import time

import verbs_enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.fork import is_fork_initialized
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

from rc_attr import rc_rts_attr

SIZE = 4096
POLL_TIMEOUT = 10
# The waits on the child share one deadline for the whole scenario, well
# inside the 120 s test_fork.py gives it, so that the scenario ends with
# its own message, its child killed, rather than at test_fork.py's limit
# with none.  The child's own work is a few polls of POLL_TIMEOUT at most.
SCENARIO_TIMEOUT = 90
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)


def mapped_libibverbs():
    with open('/proc/self/maps') as maps:
        for line in maps:
            if 'libibverbs.so.1' in line:
                return os.path.realpath(line.split()[-1])
    return None


def ipv4_gid_index(ctx):
    """The RoCE v2 GID holding the device's IPv4 address."""
    for idx in range(ctx.query_port(1).gid_tbl_len):
        try:
            gid = ctx.query_gid(1, idx)
        except PyverbsRDMAError:
            continue
        if str(gid).startswith('0000:0000:0000:0000:0000:ffff'):
            return idx
    raise RuntimeError('no IPv4 GID on port 1')


class Loopback:
    """Two RC QPs on one device, connected to each other, and two MRs."""

    def __init__(self, name, on=None):
        """On a device opened by name, or on @on's context and PD (the
        ones a fork child inherited: its GID comes from @on, asked before
        the fork, since a child may not query an inherited context)."""
        if on:
            self.ctx, self.pd = on.ctx, on.pd
            self.gid_index, self.gid = on.gid_index, on.gid
        else:
            self.ctx = Context(name=name)
            self.gid_index = ipv4_gid_index(self.ctx)
            self.gid = self.ctx.query_gid(1, self.gid_index)
            self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 32)
        cap = QPCap(max_send_wr=8, max_recv_wr=8)
        init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                          cap=cap)
        self.qps = [QP(self.pd, init), QP(self.pd, init)]
        self.mrs = [MR(self.pd, SIZE, ACCESS), MR(self.pd, SIZE, ACCESS)]
        for qp, peer in zip(self.qps, reversed(self.qps)):
            gr = GlobalRoute(dgid=self.gid, sgid_index=self.gid_index)
            ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
            qp.to_rts(rc_rts_attr(ACCESS, peer.qp_num, ah_attr))

    def rdma(self, opcode, local, remote):
        sge = SGE(local.buf, SIZE, local.lkey)
        wr = SendWR(opcode=opcode, num_sge=1, sg=[sge],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(remote.rkey, remote.buf)
        self.qps[0].post_send(wr)
        # Bounded: with a library that lets a child destroy the parent's
        # objects, the completion never comes.
        deadline = time.monotonic() + POLL_TIMEOUT
        while time.monotonic() < deadline:
            n, wcs = self.cq.poll()
            if n:
                return wcs[0].status == e.IBV_WC_SUCCESS
        return False

    def traffic(self, seed):
        """Write new bytes, RDMA WRITE them across and READ them back."""
        data = bytes((i * 13 + seed) % 256 for i in range(SIZE))
        try:
            self.mrs[0].write(data, SIZE)
            if not self.rdma(e.IBV_WR_RDMA_WRITE, self.mrs[0], self.mrs[1]):
                return False
            if self.mrs[1].read(SIZE, 0) != data:
                return False
            self.mrs[0].write(bytes(SIZE), SIZE)
            if not self.rdma(e.IBV_WR_RDMA_READ, self.mrs[0], self.mrs[1]):
                return False
            return self.mrs[0].read(SIZE, 0) == data
        except PyverbsRDMAError:
            return False


def kernel_counts():
    """The kernel's object counts per device (`rdma resource show`): the
    guest runs one test at a time, so a change is the scenario's."""
    out = subprocess.run(['rdma', 'resource', 'show'],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=60)
    return out.stdout if out.returncode == 0 else None


def attempt(fn):
    """Run fn; the errno it raised, or 0."""
    try:
        fn()
        return 0
    except PyverbsRDMAError as err:
        return err.error_code


def traffic_on_inherited(lb):
    """A CQ, QPs and MRs of the child's on the inherited context and PD,
    and RDMA through them: 0, or EIO when the bytes did not arrive."""
    if not Loopback(None, on=lb).traffic(77):
        raise PyverbsRDMAError('no traffic', errno.EIO)


def child_tries(lb, post):
    """What the child gets from the inherited PD, MR and QP."""
    sge = SGE(lb.mrs[0].buf, 1, lb.mrs[0].lkey)
    wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge])
    return {
        'post_send': attempt(lambda: lb.qps[0].post_send(wr)) if post
        else None,
        'reg_mr': attempt(lambda: MR(lb.pd, SIZE, ACCESS)),
        'query_qp': attempt(lambda: lb.qps[0].query(e.IBV_QP_STATE)),
        'alloc_pd': attempt(lambda: PD(lb.ctx)),
        'traffic_on_inherited': attempt(lambda: traffic_on_inherited(lb)),
    }


def read_all(fd, what, deadline):
    """Everything up to end of file on @fd, before @deadline."""
    data = b''
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(left, 0))
        if not ready:
            raise TimeoutError('%s: no end within the scenario\'s %d s '
                               '(%d bytes came)' %
                               (what, SCENARIO_TIMEOUT, len(data)))
        chunk = os.read(fd, 65536)
        if not chunk:
            return data
        data += chunk


def wait_child(pid, what, deadline):
    """@pid's wait status, reaped before @deadline."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() >= deadline:
            raise TimeoutError('%s: child %d still running at the end of '
                               'the scenario\'s %d s' %
                               (what, pid, SCENARIO_TIMEOUT))
        time.sleep(0.05)


def kill_child(pid):
    """SIGKILL @pid and reap it within 5 s.

    A child left alive holds the inherited stdout and stderr, and
    test_fork.py's communicate() would wait for it to its own limit.
    SIGKILL ends it at once unless the kernel holds it: do not wait for
    that without a limit either.
    """
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    for _ in range(100):
        if os.waitpid(pid, os.WNOHANG)[0]:
            return
        time.sleep(0.05)


def run_child(lb, report_fd, go_fd, name, active, post):
    report = {}
    if active:
        report = child_tries(lb, post)
        own = Loopback(name)
        report['own_traffic'] = own.traffic(99)
    os.write(report_fd, json.dumps(report).encode())
    os.close(report_fd)
    # Live until the parent has moved data while we exist: the parent
    # closes its end then, or dies, so this read always ends.
    os.read(go_fd, 1)
    if not active:
        os._exit(0)
    # A normal exit: pyverbs' destructors close every inherited object.
    sys.exit(0)


def main():
    deadline = time.monotonic() + SCENARIO_TIMEOUT
    name = sys.argv[1]
    active = sys.argv[2] in ('active', 'active-no-post')
    post = sys.argv[2] == 'active'
    result = {'library': mapped_libibverbs(),
              'fork_status': int(is_fork_initialized())}
    lb = Loopback(name)
    result['before_fork'] = lb.traffic(1)
    result['counts_before_fork'] = kernel_counts()
    report_r, report_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(report_r)
        os.close(go_w)
        run_child(lb, report_w, go_r, name, active, post)
    os.close(report_w)
    os.close(go_r)
    try:
        child_report = read_all(report_r, "the child's report", deadline)
        os.close(report_r)
        result['child'] = json.loads(child_report) if child_report else None
        result['while_child'] = lb.traffic(2)
        os.close(go_w)
        status = wait_child(pid, 'the child, after the parent moved data',
                            deadline)
    except TimeoutError:
        kill_child(pid)
        raise
    result['child_exit'] = os.waitstatus_to_exitcode(status)
    result['counts_after_child'] = kernel_counts()
    result['after_child'] = lb.traffic(3)
    result['reg_mr_after_child'] = attempt(lambda: MR(lb.pd, SIZE, ACCESS))
    print(json.dumps(result))


if __name__ == '__main__':
    main()
