#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""bench/icount.py: instructions per operation from bench/icount's dumps.

  icount.py parse DIR        DIR holds the callgrind dumps (cg.*) and the
                             valgrind log (vg.log) of one run of
                             bench/icount; prints "ic.ROW IR Ir" lines
                             (IR per operation), "ic.fork_status.first.
                             syscalls N calls", and "# top ROW IR FUNCTION
                             (OBJECT)" lines: where each operation's
                             instructions go, self cost per operation.
  icount.py table DIR [--gate] [--targets FILE] [--verdicts FILE]
                             DIR holds one file of parse's output per
                             set-up (ours, ours-plugin, debian); prints the
                             side-by-side table and, against the targets
                             (bench/icount_targets), one verdict per row
                             and set-up.  With --gate the exit status is 1
                             when a target is missed or a count is missing.
                             --verdicts writes one line per target: "met"
                             or "MISSED", the row, the set-up, the count
                             and its bound.

A row's cost per operation is (Ir(N2) - Ir(N1)) / (N2 - N1) from the dumps
"ROW/n1=N1" and "ROW/n2=N2": whatever the loop costs once cancels.  A row
that runs once ("ROW/once=1") is its dump's total.
"""
import os
import re
import sys

CONFIGS = ["ours", "ours-plugin", "debian"]
# bench/icount's markers around the first ibv_is_fork_initialized().
MARK_BEGIN, MARK_END = 0x1C0DE1, 0x1C0DE2
# Natively these are vDSO calls, not syscalls; valgrind makes them real.
VDSO = {"clock_gettime", "gettimeofday", "time", "getcpu"}
TOP = 6
TRIGGER = "desc: Trigger: Client Request: "


def read_dump(path):
    """(label, {(object, function): self Ir}) of one callgrind dump."""
    label, cost = None, {}
    names = {"ob": {}, "fn": {}}
    ob = fn = None
    after_call = False
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(TRIGGER):
                label = line[len(TRIGGER):].strip()
                continue
            m = re.match(r"(c?)(ob|fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                call, kind, ident, name = m.groups()
                if name is not None:
                    names[kind][ident] = name
                if not call:
                    if kind == "ob":
                        ob = names["ob"].get(ident, "?")
                    else:
                        fn = names["fn"].get(ident, "?")
                continue
            if line.startswith("calls="):
                after_call = True
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            if after_call:
                # The inclusive cost of a call: the callee's, not ours.
                after_call = False
                continue
            parts = line.split()
            if len(parts) >= 2 and fn is not None:
                key = (ob or "?", fn)
                cost[key] = cost.get(key, 0) + int(parts[-1])
    return label, cost


def short_object(ob):
    return os.path.basename(ob) if ob else "?"


def syscalls(log):
    """The syscalls made between the markers, vDSO calls left out."""
    names, inside = [], False
    with open(log, errors="replace") as f:
        for line in f:
            if not line.startswith("SYSCALL["):
                continue
            m = re.match(r"SYSCALL\[\d+,\d+\]\(\d+\) (\S+) ?\(", line)
            if not m:
                continue  # "... [async] -->": the end of one listed
            name = m.group(1)
            if name == "sys_write" and re.search(
                    r"\( 4294967295, 0x0, (\d+) \)", line):
                mark = int(re.search(r"0x0, (\d+) \)", line).group(1))
                if mark == MARK_BEGIN:
                    inside, names = True, []
                elif mark == MARK_END and inside:
                    return names
                continue
            if inside:
                name = name[4:] if name.startswith("sys_") else name
                if name not in VDSO:
                    names.append(name)
    return None


def parse(d):
    dumps = {}
    entries = [e for e in os.listdir(d) if re.match(r"cg\.\d+\.\d+$", e)]
    # In the order of the dumps: the order the rows ran in.
    for entry in sorted(entries, key=lambda e: int(e.rsplit(".", 1)[1])):
        label, cost = read_dump(os.path.join(d, entry))
        m = re.match(r"(.+)/(n1|n2|once)=(\d+)$", label or "")
        if m:
            dumps.setdefault(m.group(1), {})[m.group(2)] = (int(m.group(3)),
                                                          cost)
    out = []
    # The rows in the order they ran, those that run once at the end.
    for row, d_ in sorted(dumps.items(), key=lambda kv: "once" in kv[1]):
        if "once" in d_:
            n, c = d_["once"]
            per = {k: v / n for k, v in c.items()}
        elif "n1" in d_ and "n2" in d_ and d_["n2"][0] > d_["n1"][0]:
            (k1, c1), (k2, c2) = d_["n1"], d_["n2"]
            per = {k: (c2.get(k, 0) - c1.get(k, 0)) / (k2 - k1)
                   for k in set(c1) | set(c2)}
        else:
            continue
        total = sum(per.values())
        out.append("ic.%s %s Ir" % (row, fmt(total)))
        for (ob, fn), v in sorted(per.items(), key=lambda kv: -kv[1])[:TOP]:
            if round(v, 1) != 0:
                out.append("# top %s %s %s (%s)" % (row, fmt(v), fn,
                                                   short_object(ob)))
    log = os.path.join(d, "vg.log")
    calls = syscalls(log) if os.path.exists(log) else None
    if calls is not None:
        out.append("ic.fork_status.first.syscalls %d calls" % len(calls))
        out.append("# syscalls fork_status.first: %s"
                   % (" ".join(calls) or "(none)"))
    print("\n".join(out))
    return 0


def fmt(x):
    if x is None:
        return "-"
    return "%d" % round(x) if abs(x - round(x)) < 0.05 else "%.1f" % x


# --- targets -------------------------------------------------------------

def load_targets(path):
    """[(row, calls, {config: rule})] in the file's order."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            row, calls, rules = line[0], int(line[1]), line[2:]
            rows.append((row, calls, dict(zip(CONFIGS[:2], rules))))
    return rows


def limit(rule, deb, calls):
    """(bound, strict, words) of RULE against Debian's count DEB."""
    if rule == "below":
        return deb, True, "< debian"
    if rule == "at-most":
        return deb, False, "<= debian"
    m = re.match(r"\+(\d+(?:\.\d+)?)/call$", rule)
    if m:
        k = float(m.group(1))
        return deb + k * calls, False, "<= debian + %s x %d" % (fmt(k), calls)
    raise ValueError("unknown target rule %r" % rule)


def load_counts(d, name="{}"):
    """parse's output of each set-up, from the file NAME.format(set-up) in
    D: ({config: {row: count}}, [row], {config: {row: [(Ir, function)]}});
    rows in the order of the first file that has them."""
    vals, order, tops = {}, [], {}
    for c in CONFIGS:
        vals[c], tops[c] = {}, {}
        path = os.path.join(d, name.format(c))
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) >= 3 and p[0].startswith("ic."):
                    try:
                        vals[c][p[0][3:]] = float(p[1])
                    except ValueError:
                        continue
                    if p[0][3:] not in order:
                        order.append(p[0][3:])
                elif len(p) >= 4 and p[:2] == ["#", "top"]:
                    tops[c].setdefault(p[2], []).append(
                        (p[3], " ".join(p[4:])))
    return vals, order, tops


def verdicts(vals, targets):
    """[(row, config, value, bound, words, ok)] for every gated cell."""
    out = []
    for row, calls, rules in targets:
        deb = vals["debian"].get(row)
        for c, rule in rules.items():
            if rule == "-":
                continue
            v = vals[c].get(row)
            if deb is None:
                out.append((row, c, v, None, "no Debian count", False))
                continue
            bound, strict, words = limit(rule, deb, calls)
            ok = v is not None and (v < bound if strict else v <= bound)
            out.append((row, c, v, bound, words, ok))
    return out


def table(d, gate, targets_path, verdict_file=None):
    vals, order, tops = load_counts(d)
    targets = load_targets(targets_path)
    rows = [t[0] for t in targets]
    rows += [r for r in order if r not in rows]
    w = max(len(r) for r in rows) + 2
    print("Instructions per operation (Ir, user space, callgrind):")
    print("%-*s %10s %12s %10s %9s" % (w, "operation", "ours", "ours-plugin",
                                       "debian", "deb/ours"))
    for r in rows:
        cell = [vals[c].get(r) for c in CONFIGS]
        ratio = "-"
        if cell[0] and cell[2] is not None:
            ratio = "%.2fx" % (cell[2] / cell[0])
        print("%-*s %10s %12s %10s %9s" % (w, r, fmt(cell[0]), fmt(cell[1]),
                                           fmt(cell[2]), ratio))
    print()
    print("Where each operation's instructions go (self Ir per operation):")
    for r in rows:
        for c in CONFIGS:
            for v, fn in tops[c].get(r, []):
                print("  %-*s %-12s %8s  %s" % (w, r, c, v, fn))
    print()
    failed = 0
    lines = []
    print("Targets (bench/icount_targets, against Debian's count in this run):")
    for row, c, v, bound, words, ok in verdicts(vals, targets):
        if ok:
            verdict = "met"
        else:
            verdict = "MISSED"
            failed += 1
        over = ""
        if v is not None and bound is not None:
            over = " (%+.1f against the bound)" % (v - bound)
        print("  %-6s %-*s %-12s %8s %-24s bound %s%s" % (
            verdict, w, row, c, fmt(v), words, fmt(bound), over))
        unit = "syscalls" if row.endswith(".syscalls") else "Ir"
        lines.append("%s %s %s: %s %s, target %s = %s%s" % (
            verdict, row, c, fmt(v), unit, words, fmt(bound), over))
    print("%d target(s) missed%s" % (failed, ", gated" if gate else ""))
    if verdict_file:
        with open(verdict_file, "w") as f:
            f.write("".join(line + "\n" for line in lines))
    return 1 if gate and failed else 0


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    if len(argv) == 3 and argv[1] == "parse":
        return parse(argv[2])
    if len(argv) >= 3 and argv[1] == "table":
        gate, targets = False, os.path.join(here, "icount_targets")
        verdict_file = None
        rest = argv[3:]
        while rest:
            if rest[0] == "--gate":
                gate = True
                rest = rest[1:]
            elif rest[0] in ("--targets", "--verdicts") and len(rest) > 1:
                if rest[0] == "--targets":
                    targets = rest[1]
                else:
                    verdict_file = rest[1]
                rest = rest[2:]
            else:
                break
        if not rest:
            return table(argv[2], gate, targets, verdict_file)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
