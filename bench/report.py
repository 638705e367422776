#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""bench/report.py RESULTS_DIR DOC_DIR: the performance page.

Reads what `bench/run --report` left in RESULTS_DIR (one "METRIC VALUE
UNIT" file of medians per set-up, meta.txt, providers.txt) and writes
DOC_DIR/performance.md with its plots in DOC_DIR/performance/*.png.  Each
target of the benchmark issue is judged from the numbers of this one run,
and the page says whether it is met, with those numbers.
"""
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import icount  # noqa: E402

CONFIGS = ["ours", "ours-legacy", "ours-plugin", "debian"]
COLORS = {"ours": "#1f77b4", "ours-legacy": "#9467bd",
          "ours-plugin": "#2ca02c", "debian": "#d62728"}


def num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def load(results):
    data, order, units = {}, [], {}
    for c in CONFIGS:
        data[c] = {}
        path = os.path.join(results, c + ".txt")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) < 2:
                    continue
                data[c][p[0]] = p[1]
                if p[0] not in units:
                    order.append(p[0])
                    units[p[0]] = p[2] if len(p) > 2 else "-"
    meta = {}
    with open(os.path.join(results, "meta.txt")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(" ")
            meta[k] = v
    providers = []
    path = os.path.join(results, "providers.txt")
    if os.path.exists(path):
        with open(path) as f:
            providers = [line.split(None, 1) for line in f if line.strip()]
    return data, order, units, meta, providers


class Page:
    def __init__(self, data, order, units):
        self.data, self.order, self.units = data, order, units

    def v(self, config, metric):
        return num(self.data.get(config, {}).get(metric))

    def cell(self, config, metric):
        return self.data.get(config, {}).get(metric, "-")

    def ratio(self, a, b, metric):
        x, y = self.v(a, metric), self.v(b, metric)
        if x is None or y is None or y == 0:
            return None
        return x / y


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def metrics(order, pattern):
    r = re.compile(pattern)
    return [m for m in order if r.fullmatch(m)]


def bars(page, names, title, unit, configs, path):
    names = [m for m in names
             if any(page.v(c, m) is not None for c in configs)]
    if not names:
        return False
    fig, ax = plt.subplots(figsize=(8, 3.4), dpi=72)
    width = 0.8 / len(configs)
    for i, c in enumerate(configs):
        xs = [j + (i - (len(configs) - 1) / 2) * width
              for j in range(len(names))]
        ys = [page.v(c, m) or 0 for m in names]
        ax.bar(xs, ys, width, label=c, color=COLORS[c])
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(unit)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def scaling(page, path):
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2), dpi=72)
    drawn = False
    for ax, prefix, title in ((axes[0], "reg_each", "ibv_reg_mr() while growing"),
                              (axes[1], "fork", "fork() with N live MRs")):
        for c in ("ours", "ours-legacy", "debian"):
            pts = []
            for m in metrics(page.order, prefix + r"\.[0-9]+"):
                y = page.v(c, m)
                if y is not None:
                    pts.append((int(m.split(".")[1]), y))
            if pts:
                pts.sort()
                ax.plot([p[0] for p in pts], [p[1] for p in pts],
                        marker="o", label=c, color=COLORS[c])
                drawn = True
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("live MRs (N)")
        ax.set_ylabel("us")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    if drawn:
        fig.savefig(path)
    plt.close(fig)
    return drawn


IC_CONFIGS = icount.CONFIGS


def load_icount(results):
    """bench/run's instruction counts, if the run made them: ({config:
    {row: text}}, [row], {config: {row: [(Ir, function)]}}, [verdict
    line]), or None."""
    vals, order, tops = icount.load_counts(results, "icount-{}.txt")
    path = os.path.join(results, "icount-verdicts.txt")
    if not order or not os.path.exists(path):
        return None
    with open(path) as f:
        verdicts = [line.rstrip("\n") for line in f if line.strip()]
    text = {c: {r: icount.fmt(v) for r, v in vals[c].items()}
            for c in IC_CONFIGS}
    return text, order, tops, verdicts


def icount_plot(ic, path):
    """Instructions per data-path operation, one bar per set-up."""
    vals, order = ic[0], ic[1]
    names = [r for r in order if not r.startswith("fork_status.")]
    return bars(Page(vals, order, {}), names, "User-space instructions "
                "per operation, callgrind (lower is better)",
                "Ir per operation", IC_CONFIGS, path)


def icount_section(ic, w):
    vals, order, tops, verdicts = ic
    w("## Instructions per operation")
    w("")
    w("`bench/run --instructions` in the same boot: bench/icount under "
      "callgrind (`--collect-atstart=no --toggle-collect='op_*'`), the "
      "library built with debian/rules' flags, user-space instructions "
      "(Ir) per operation from two loop lengths, (Ir(N2) - Ir(N1)) / "
      "(N2 - N1), so start-up cancels.  Completions are awaited with "
      "completion events outside the counted calls.  Counts are exact: "
      "two runs give the same numbers, so CI gates on them "
      "(tests/guest/run-all, phase 8b).  `fork_status.first.syscalls` "
      "counts syscalls, not instructions (vDSO calls left out).  The "
      "timed table beside it is [All numbers](#all-numbers).")
    w("")
    w("| operation | ours | ours-plugin | debian | debian/ours |")
    w("| --- | ---: | ---: | ---: | ---: |")
    for r in order:
        cells = [vals[c].get(r, "-") for c in IC_CONFIGS]
        a, b = num(cells[0]), num(cells[2])
        ratio = fmt(b / a) if a and b is not None else "-"
        w(f"| {r} | " + " | ".join(cells) + f" | {ratio} |")
    w("")
    w("![Instructions per operation](performance/icount.png)")
    w("")
    missed = sum(1 for v in verdicts if v.startswith("MISSED"))
    w(f"Targets (bench/icount_targets, each against Debian's count in "
      f"this run): {len(verdicts) - missed} met, {missed} missed.")
    w("")
    w("| verdict | operation, set-up: count, target = bound |")
    w("| --- | --- |")
    for v in verdicts:
        word, _, rest = v.partition(" ")
        w(f"| {'met' if word == 'met' else '**missed**'} | {rest} |")
    w("")
    w("Where the instructions go: the functions with the most self cost "
      "per operation in each set-up (Debian's librxe is stripped, so its "
      "functions show as addresses).")
    w("")
    w("| operation | set-up | top functions (self Ir per operation) |")
    w("| --- | --- | --- |")
    for r in order:
        for c in IC_CONFIGS:
            t = tops[c].get(r)
            if t:
                w(f"| {r} | {c} | " +
                  "; ".join(f"{fn} {v}" for v, fn in t[:4]) + " |")
    w("")


def verdict(ok):
    return "**met**" if ok else "**not met**"


def targets(page):
    """(target, verdict, numbers) rows."""
    out = []
    r = page.ratio("ours", "debian", "per_call")
    out.append(("Query after the first call <= 1/1000 of Debian's",
                r is not None and r <= 0.001,
                f"per_call {page.cell('ours', 'per_call')} ns vs "
                f"{page.cell('debian', 'per_call')} ns "
                f"(ours/debian {fmt(r, 5)})"))
    r = page.ratio("ours", "debian", "first_call")
    out.append(("First call no slower than Debian's",
                r is not None and r <= 1.0,
                f"first_call {page.cell('ours', 'first_call')} ns vs "
                f"{page.cell('debian', 'first_call')} ns "
                f"(ours/debian {fmt(r)})"))
    for kind, pat, what in (
            ("cpu", r"cpu\.[a-z.0-9]+", "CPU per operation"),
            ("lat", r"lat\.[a-z.0-9]+", "median latency")):
        rows = [m for m in metrics(page.order, pat)
                if not m.endswith(".forked")]
        rs = [(page.ratio("ours", "debian", m), m) for m in rows]
        rs = [x for x in rs if x[0] is not None]
        if not rs:
            out.append((f"Data path {what}, ours/debian <= 1.00", False,
                        "not measured"))
            continue
        worst = max(rs)
        over = [f"{m} {x:.2f}" for x, m in rs if x > 1.0]
        out.append((f"Data path {what}, ours/debian <= 1.00",
                    not over,
                    f"{len(rs)} rows, worst {worst[1]} {worst[0]:.2f}, "
                    f"best {min(rs)[1]} {min(rs)[0]:.2f}"
                    + (f"; above 1.00: {', '.join(over)}" if over else "")))
    # The guard after a fork: ours' change against Debian's, which has no
    # guard, so its change is the noise of the measurement.
    deltas = {}
    for c in ("ours", "debian"):
        d = []
        for m in metrics(page.order, r"cpu\.[a-z.0-9]+"):
            if m.endswith(".forked"):
                continue
            a, b = page.v(c, m), page.v(c, m + ".forked")
            if a and b:
                d.append((b / a - 1) * 100)
        deltas[c] = sorted(d)
    if deltas["ours"]:
        o, d = deltas["ours"], deltas["debian"]
        med = o[len(o) // 2]
        noise = (f"; Debian's, which has no guard: median {d[len(d) // 2]:+.1f} %, "
                 f"range {d[0]:+.1f} .. {d[-1]:+.1f} %" if d else "")
        # Debian has no guard: if its own change spreads wider than the
        # target, this run cannot tell 1 % from nothing.
        noisy = bool(d) and max(abs(d[0]), abs(d[-1])) >= 1.0
        out.append(("Guard cost after a fork < 1 % CPU per operation",
                    "**not shown**: the noise is larger than the target"
                    if noisy else abs(med) < 1.0,
                    f"ours, CPU per message after/before a fork over "
                    f"{len(o)} loops: median {med:+.1f} %, range "
                    f"{o[0]:+.1f} .. {o[-1]:+.1f} %{noise}"))
    else:
        out.append(("Guard cost after a fork < 1 % CPU per operation",
                    False, "not measured"))
    rows = [m for m in metrics(page.order, r"cpu\.[a-z.0-9]+")
            if not m.endswith(".forked")]
    rs = [page.ratio("ours-plugin", "debian", m) for m in rows]
    rs = [x for x in rs if x is not None]
    if rs:
        rs.sort()
        out.append(("Wrapping a plug-in's data path (ours-plugin/debian, "
                    "same provider code; no target, reported)",
                    None, f"CPU per message, {len(rs)} loops: median "
                    f"{rs[len(rs) // 2]:.2f}, range {rs[0]:.2f} .. {rs[-1]:.2f}"))
    else:
        out.append(("Wrapping a plug-in's data path (ours-plugin/debian)",
                    None, "not measured: no ours-plugin data-path run "
                    "passed (see the runs marked WRONG-PROVIDER or FAIL)"))
    rows = (metrics(page.order, r"(reg_each|dereg_each|fork|reg_dereg_live)"
                    r"\.([0-9]+|overlap)"))
    rs = [(page.ratio("ours-legacy", "debian", m), m) for m in rows]
    rs = [x for x in rs if x[0] is not None]
    if rs:
        over = [f"{m} {x:.2f}" for x, m in rs if x > 1.0]
        out.append(("Legacy tree no slower than Debian's fork-safe path at "
                    "every N (ours-legacy/debian <= 1.00)", not over,
                    f"{len(rs)} rows, worst {max(rs)[1]} {max(rs)[0]:.2f}"
                    + (f"; above 1.00: {', '.join(over)}" if over else "")))
    else:
        out.append(("Legacy tree no slower than Debian's fork-safe path",
                    False, "not measured"))
    forks = metrics(page.order, r"fork\.[0-9]+")
    out.append(("fork() cost documented", bool(forks),
                "see the scaling table below" if forks else "not measured"))
    return out


# Written down by hand from bench/run --instructions; the instruction
# table of the page is this run's.
DATAPATH_NOTES = "\n".join((
    "Counted with `bench/run --instructions` when this was written (6.1",
    "guest; the library built with debian/rules' flags; Debian's libibverbs +",
    "librxe 44 in the same boot); the table above is this run's:",
    "",
    "| operation | Debian | ours, built-in rxe | ours + Debian's librxe |",
    "| --- | ---: | ---: | ---: |",
    "| `ibv_poll_cq`, empty CQ | 46 | 21 | 53 |",
    "| `ibv_post_recv`, 1 SGE | 141 | 128 | 148 |",
    "| `ibv_post_send` 8 B inline RDMA WRITE + its `ibv_poll_cq` | 326 | 330 | 340 |",
    "| the same with SEND | 322 | 325 | 336 |",
    "| `ibv_wr_start`..`ibv_wr_complete` (WRITE, inline) + `ibv_start_poll`, `ibv_wc_read_opcode`, `ibv_end_poll` | 289 | 294 | 317 |",
    "| `ibv_start_poll`, empty extended CQ | 49 | 32 | 56 |",
    "| RC ping-pong round trip | 1054 | 1038 | 1110 |",
    "| `ibv_reg_mr` + `ibv_dereg_mr`, 4 KiB | 840 | 602 | 687 |",
    "",
    "How the built-in provider gets there: one spinlock per queue and CQ, an",
    "inline exchange and store; an empty CQ is seen without taking the lock; a",
    "completion is one 48-byte copy and one table load for its `wc_flags`; the",
    "send doorbell is a 32-byte command built when the QP is created and rung",
    "with one `write()`; the QP type's opcode bit is taken when the QP is",
    "created; up to 16 bytes of inline data are copied without a call;",
    "`REG_MR` and `DEREG_MR` without provider data (the built-in rxe's and",
    "Debian's librxe's) are laid out in one struct and written with one",
    "`write()`, the kernel answering into the caller's response; fork",
    "bookkeeping that is off costs a load and a compare.  On the plug-in path",
    "each wrapper loads the context's private state once and finds the",
    "plug-in's entry point with one more load.",
    "",
    "What remains above librxe is checks librxe does not make, each a few",
    "instructions per call:",
    "",
    "- the child guard on every data-path call (a fork child must never touch",
    "  the parent's queues): about 6 (load the context's state, the process",
    "  token, compare); on the control path the check also compares the pid;",
    "  a plug-in's `ibv_cmd_*` calls make it again, as they may be called from",
    "  anywhere in the plug-in;",
    "- `wc_flags` translated for each completion (librxe copies the kernel's",
    "  bits raw and reports `IBV_WC_WITH_INV` and `IBV_WC_IP_CSUM_OK`",
    "  swapped): about 3, one table load;",
    "- `post_send` refusing a QP in RESET, INIT or RTR before its requests",
    "  reach the ring (librxe leaves them there for a later doorbell): 2; and",
    "  checking each opcode against the QP type (librxe lets the kernel fail",
    "  the request later): about 4;",
    "- the empty-CQ check before the lock, paid again under the lock when the",
    "  CQ is not empty: about 4.",
    "",
    "Every target of bench/icount_targets was met in that run.",
))


# Findings written down by hand from the runs that led to this page; the
# numbers above are this run's.
FIRST_CALL_NOTES = (
    "Where the time goes.  (1) The kernel's round trip: the raw request "
    "costs `nl_cold.total` the first time in a process and `nl_warm.total` "
    "the second; creating the socket and the request itself (the kernel "
    "builds the answer inside sendto()) are the largest steps.  No module "
    "is loaded on demand: RDMA_NLDEV is ib_core's own netlink client, "
    "registered at boot, and strace -T shows no such stall.  (2) The "
    "library's own first-time work: `ours-legacy` (RDMAV_COPY_ON_FORK=0, no "
    "netlink at all) answers its first call in its `first_call` cell "
    "(adopting the process token, getrandom(), locks), so most of ours' "
    "first call is the exchange through libmnl, whose code runs for the "
    "first time in the process: page faults on its text and, under TCG, "
    "translation of code never run before.  LD_BIND_NOW=1 made no "
    "measurable difference, so lazy binding is not it.  Debian's library "
    "loads libnl-3 and libnl-route-3 at start-up and runs a libnl exchange "
    "on every call (`per_call`).  (3) Under TCG the first call varies "
    "several-fold from run to run (ours 1.1 to 2.6 ms, Debian's 1.0 to "
    "11.8 ms over the runs made while writing this page), so one run's "
    "ratio decides little.  Changed: ours made seven syscalls (socket, "
    "bind, getsockname, sendto, poll, recvfrom, close) and now makes five: "
    "the answer is queued inside sendto(), so it receives before it polls, "
    "and it binds without reading the port back.  Not done: the exchange "
    "with raw syscalls instead of libmnl, which would spare the first "
    "touch of another library.")
ACROSS_FORK_NOTES = (
    "In runs made while this page was written (not in every run: see the "
    "cells above), such a QP's first SEND after the fork stalled for good "
    "(no completion, no error within 30 s), on all three set-ups (ours, "
    "Debian's plug-in on ours, Debian's).  The fork is not the cause: with `BENCH_NO_FORK=1` "
    "a 100 ms sleep stands in for it, and on Debian's library (no code of "
    "ours) the SEND stalls the same way; marking the QP's mmap'd rxe queues "
    "`MADV_DONTFORK` changes nothing, and the stall comes while the child "
    "still lives as well.  It follows the rate loops, whose retransmissions "
    "show in rxe's `hw_counters` (`completer_retry_err`, "
    "`duplicate_request`, `out_of_seq_request`): a QP left idle after such "
    "retries by rxe stops sending.  A SEND right after the loops, before "
    "any pause, completes, and a QP with no such traffic behind it never "
    "stalled.  It is the kernel's (rxe), so the library cannot fix it; "
    "the `.forked` loops therefore run on QPs made after the fork; the "
    "guard checks the same way on either.")


def main():
    results, docdir = sys.argv[1], sys.argv[2]
    data, order, units, meta, providers = load(results)
    page = Page(data, order, units)
    imgdir = os.path.join(docdir, "performance")
    os.makedirs(imgdir, exist_ok=True)
    cols = ["ours", "ours-plugin", "debian"]
    plots = []
    lat = [m for m in metrics(order, r"lat\.[a-z.0-9]+")
           if not m.endswith(".forked")]
    if bars(page, lat, "RC ping-pong, half the median round trip (lower is "
            "better)", "us", cols, os.path.join(imgdir, "latency.png")):
        plots.append(("Latency", "latency.png"))
    rate = [m for m in metrics(order, r"rate\.[a-z.0-9]+")
            if not m.endswith(".forked")]
    if bars(page, rate, "64-byte messages, K per post (higher is better)",
            "kmsg/s", cols, os.path.join(imgdir, "rate.png")):
        plots.append(("Message rate", "rate.png"))
    cpu = [m for m in metrics(order, r"cpu\.[a-z.0-9]+")
           if not m.endswith(".forked")]
    if bars(page, cpu, "CPU (user + system) per message (lower is better)",
            "ns", cols, os.path.join(imgdir, "cpu.png")):
        plots.append(("CPU per message", "cpu.png"))
    if scaling(page, os.path.join(imgdir, "scaling.png")):
        plots.append(("Legacy tree scaling", "scaling.png"))
    ic = load_icount(results)
    if ic and not icount_plot(ic, os.path.join(imgdir, "icount.png")):
        ic = None

    L = []
    w = L.append
    w("# Performance: our libibverbs against Debian's")
    w("")
    w("Generated by `bench/run --report` (bench/report.py) from one boot of "
      "the Soft-RoCE guest; do not edit by hand.  What each benchmark "
      "measures is in [bench/README.md](../bench/README.md).")
    w("")
    w("## Where it ran")
    w("")
    w(f"- Date: {meta.get('date', '?')}; commit `{meta.get('commit', '?')}`")
    w(f"- Guest kernel: {meta.get('kernel', '?')} "
      f"(`rdma system show`: {meta.get('rdma_system', '?')})")
    w(f"- QEMU: {meta.get('qemu_mode', '?')}; {meta.get('qemu_version', '?')}")
    w(f"- Guest CPU: {meta.get('guest_cpu', '?')} x {meta.get('guest_cpus', '?')}; "
      f"host CPU: {meta.get('host_cpu', '?')} x {meta.get('host_cpus', '?')} "
      "(shared with other builds)")
    w(f"- Debian's libibverbs1 {meta.get('debian_libibverbs', '?')}")
    w(f"- BENCH_SECONDS={meta.get('bench_seconds', '?')} per loop, "
      f"{meta.get('bench_rounds', '?')} rounds (medians, set-ups interleaved; "
      f"fork_scale in {meta.get('bench_scale_rounds', '?')} of them), "
      f"BENCH_MRS={meta.get('bench_mrs', '?')}, "
      f"BENCH_SCALE_MRS={meta.get('bench_scale_mrs', '?')}; "
      f"{meta.get('elapsed_s', '?')} s for the whole run")
    for c, p in providers:
        w(f"- Provider of `{c}`: `{p.strip()}`")
    if not any(c == "ours-plugin" for c, _ in providers):
        w("- `ours-plugin`: no data-path run was served by the plug-in "
          "(bench/run marks such a run WRONG-PROVIDER), so its cells are "
          "empty")
    w("")
    w("Under TCG every instruction is emulated: absolute times are many "
      "times those of real hardware, and only ratios within one run mean "
      "much.")
    w("")
    w("## Targets")
    w("")
    w("| target | verdict | numbers (this run) |")
    w("| --- | --- | --- |")
    for name, ok, nums in targets(page):
        if isinstance(ok, str):
            v = ok
        else:
            v = "reported" if ok is None else verdict(ok)
        w(f"| {name} | {v} | {nums} |")
    w("| CI smoke: every benchmark runs once, no time asserted | **met** | "
      "`bench/run --guest BUILD --smoke` in tests/guest/run-all |")
    if ic:
        missed = [v.split(" ", 1)[1].split(":")[0] for v in ic[3]
                  if v.startswith("MISSED")]
        w("| Instructions per operation within bench/icount_targets "
          f"(against Debian's, this boot) | {verdict(not missed)} | "
          f"{len(ic[3]) - len(missed)} of {len(ic[3])} met"
          + (f"; missed: {', '.join(missed)}" if missed else "") +
          "; see [Instructions per operation](#instructions-per-operation) |")
    else:
        w("| Instructions per operation within bench/icount_targets | "
          "**not measured** | this run made no instruction counts |")
    w("")
    if ic:
        icount_section(ic, w)
    for title, png in plots:
        w(f"### {title}")
        w("")
        w(f"![{title}](performance/{png})")
        w("")
    w("## The first call of ibv_is_fork_initialized()")
    w("")
    w("Both libraries answer the first call with one RDMA netlink request "
      "(RDMA_NLDEV_CMD_SYS_GET, attribute COPY_ON_FORK); ours keeps the "
      "answer, Debian's asks again on every call.  bench/first_call makes the "
      "same request itself with raw syscalls before the library does, so "
      "the kernel's share and the library's own first-time work separate:")
    w("")
    w("| step | ours | debian | unit |")
    w("| --- | ---: | ---: | --- |")
    for m, what in (("first_call", "library's first call, cold (fork_status)"),
                    ("nl_cold.socket", "raw: socket(NETLINK_RDMA), first in the process"),
                    ("nl_cold.request", "raw: sendto(), the kernel builds the answer"),
                    ("nl_cold.recv", "raw: recv() of the answer"),
                    ("nl_cold.close", "raw: close()"),
                    ("nl_cold.total", "raw round trip, first"),
                    ("nl_warm.total", "raw round trip, second"),
                    ("first_call_warm", "library's first call after the raw ones"),
                    ("second_call", "library's second call"),
                    ("per_call", "mean of later calls (fork_status)")):
        w(f"| {what} (`{m}`) | {page.cell('ours', m)} | "
          f"{page.cell('debian', m)} | ns |")
    w("")
    w(FIRST_CALL_NOTES)
    w("")
    w("## Where the data path's instructions go")
    w("")
    w(DATAPATH_NOTES)
    w("")
    w("## Objects made before a fork")
    w("")
    w("`qp_across_fork`: one SEND on a QP pair made before the fork, in the "
      "parent after the child was reaped: "
      f"ours `{page.cell('ours', 'qp_across_fork')}` / "
      f"`{page.cell('ours', 'qp_across_fork.ex')}` (extended), "
      f"debian `{page.cell('debian', 'qp_across_fork')}` / "
      f"`{page.cell('debian', 'qp_across_fork.ex')}` (first round's value). "
      + ACROSS_FORK_NOTES)
    w("")
    w("## All numbers")
    w("")
    w("Medians; `-`: not run in that set-up, or no run of it passed.  "
      "debian/ours above 1 means ours is faster or smaller.")
    w("")
    w("| metric | ours | ours-legacy | ours-plugin | debian | unit | debian/ours |")
    w("| --- | ---: | ---: | ---: | ---: | --- | ---: |")
    for m in order:
        r = page.ratio("debian", "ours", m)
        w(f"| {m} | " + " | ".join(page.cell(c, m) for c in CONFIGS) +
          f" | {units[m]} | {fmt(r)} |")
    w("")
    with open(os.path.join(docdir, "performance.md"), "w") as f:
        f.write("\n".join(L))
    print(f"report: wrote {os.path.join(docdir, 'performance.md')} and "
          f"{len(plots)} plots")


if __name__ == "__main__":
    main()
