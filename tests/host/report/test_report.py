# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Checks of tests/guest/lib/report.py on made-up results (TAP-like)."""
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

spec = importlib.util.spec_from_file_location("report", sys.argv[1])
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)

n = failed = 0


def check(cond, what):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + f" {n} - {what}")


GUARD_FAIL = "ok 1 - a\nnot ok 2 - b # guard\n1 passed, 1 failed\n"
NO_GUARD = ("# no guard on this kernel: it tracks as upstream\n"
            "ok 1 - a\nok 2 - b\n2 passed, 0 failed\n")
PLAIN_PASS = "ok 1 - a\nok 2 - b\n2 passed, 0 failed\n"

ok, why = report.judge_ctest("Failed", GUARD_FAIL, True, "debian")
check(ok, "guard test failing its guard check on Debian's passes")
ok, why = report.judge_ctest("Passed", NO_GUARD, True, "debian")
check(ok and "no guard on this kernel" in why,
      "guard test saying 'no guard on this kernel' may pass on Debian's")
ok, why = report.judge_ctest("Passed", PLAIN_PASS, True, "debian")
check(not ok, "guard test passing on Debian's without saying why fails")
ok, why = report.judge_ctest("Failed", "# no guard on this kernel: x\n"
                             "not ok 1 - a\n0 passed, 1 failed\n", True,
                             "debian")
check(not ok, "'no guard' does not excuse a failed check of upstream's")

# pytest's JUnit <testcase> for an xfail with REASON.
def xfail_case(reason):
    return ET.fromstring('<testcase name="t"><skipped type="pytest.xfail" '
                         f'message="{escape(reason)}"/></testcase>')


ok, why = report.outcome(xfail_case("a guarantee upstream lacks"), True)
check(ok is True, "an xfail on Debian's library passes")
ok, why = report.outcome(xfail_case("KNOWN kernel bug of 5.10.0: x"), True)
check(ok == report.KNOWN and why.startswith("KNOWN kernel bug"),
      "an xfail naming a kernel bug is known, not a pass")
ok, why = report.outcome(xfail_case("KNOWN kernel bug of 5.10.0: x"), False)
check(ok is False, "an xfail on our library fails, kernel bug or not")
c = [0, 0, 0, 0]
line = io.StringIO()
with contextlib.redirect_stdout(line):
    report.emit("py-debian", "t", report.KNOWN, "KNOWN kernel bug: x", c)
check(c == [0, 0, 0, 1] and line.getvalue().startswith("known  py-debian"),
      f"a known pyverbs test is reported and counted as known ({c})")


def ctest_phase(d, phase, tests):
    """Write run-all's PHASE.xml and PHASE.log for TESTS, a list of
    (name, ctest verdict, output)."""
    with open(os.path.join(d, phase + ".xml"), "w") as f:
        f.write("<testsuite>\n")
        for name, verdict, out in tests:
            f.write(f'<testcase name="{name}" status="'
                    f'{"run" if verdict == "Passed" else "fail"}">'
                    f"<system-out>{escape(out)}</system-out></testcase>\n")
        f.write("</testsuite>\n")
    with open(os.path.join(d, phase + ".log"), "w") as f:
        for i, (name, verdict, _) in enumerate(tests, 1):
            star = "" if verdict == "Passed" else "***"
            f.write(f"{i}/{len(tests)} Test  #{i}: {name} ......{star}"
                    f"{verdict}   1.00 sec\n")


def tap_out(*fails, passed=3, summary=True, todo=()):
    lines = [f"ok {i + 1} - fine {i}" for i in range(passed)]
    lines += [f"not ok {passed + i + 1} - {x}" for i, x in enumerate(fails)]
    lines += [f"not ok {passed + len(fails) + i + 1} - {x} # TODO librxe"
              for i, x in enumerate(todo)]
    if summary:
        # As tests/guest/common counts them: a TODO check as skipped.
        lines.append(f"{passed} passed, {len(fails)} failed"
                     + (f", {len(todo)} skipped" if todo else ""))
    return "\n".join(lines) + "\n"


with tempfile.TemporaryDirectory() as d:
    known = os.path.join(d, "known")
    with open(known, "w") as f:
        f.write("# comment\n"
                "5.10.\trxe.x\tatomic: completion\trxe bug x\n"
                "5.10.\trxe.x\tatomic: value \\(\\d+\\)\trxe bug x2\n"
                "5.10.\tfork.y\tbig: READ\tbug y\n"
                "5.10.\trxe.u\tatomic: completion\tbug u\n"
                "5.10.\trxe.d\tatomic: completion\tbug d\n"
                "5.10.\trxe.d\tbad rkey: completion\tbug d2\n"
                "5.10.\trxe.t\tatomic: completion\tbug t\n"
                "5.10.\trxe.q\tatomic: completion\tbug q\n"
                "6.1.\trxe.z\tc\tbug z\n")
    ctest_phase(d, "c-ours", [
        ("rxe.x", "Failed",
         tap_out("atomic: completion", "atomic: value (0)")),
        ("fork.y", "Failed", tap_out("big: READ")),
        ("rxe.z", "Failed", tap_out("c")),
        ("rxe.w", "Passed", tap_out()),
        # A listed check and one that is not.
        ("rxe.u", "Failed",
         tap_out("atomic: completion", "send: completion")),
        ("rxe.d", "Failed", tap_out("atomic: completion")),
        ("rxe.t", "Timeout",
         tap_out("atomic: completion", summary=False)),
        # A "# TODO" check is a failure on our library.
        ("rxe.q", "Failed",
         tap_out("atomic: completion", todo=["sge list"]))])
    ctest_phase(d, "c-debian", [
        ("rxe.x.debian", "Failed",
         tap_out("atomic: completion", "atomic: value (7)",
                 todo=["sge list"])),
        ("fork.y.debian", "Passed", tap_out()),
        ("rxe.u.debian", "Failed", tap_out("atomic: completion")),
        # Debian's fails another listed check, not ours.
        ("rxe.d.debian", "Failed", tap_out("bad rkey: completion")),
        ("rxe.t.debian", "Failed", tap_out("atomic: completion")),
        ("rxe.q.debian", "Failed", tap_out("atomic: completion"))])
    results = os.path.join(d, "results")
    with open(results, "w") as f:
        f.write("not ok c-ours: rxe.x (2 failed: atomic: completion)\n"
                "not ok c-ours: fork.y (1 failed: big: READ)\n"
                "not ok c-ours: rxe.z (1 failed: c)\n"
                "ok     c-ours: rxe.w\n"
                "not ok c-ours: rxe.u (2 failed: atomic: completion)\n"
                "not ok c-ours: rxe.d (1 failed: atomic: completion)\n"
                "not ok c-ours: rxe.t (TIMEOUT: killed)\n"
                "not ok c-ours: rxe.q (2 failed: atomic: completion)\n"
                "not ok c-debian: rxe.x.debian (2 failed: atomic)\n"
                "ok     c-debian: fork.y.debian\n"
                "not ok c-debian: rxe.d.debian (1 failed: bad rkey)\n"
                "not ok py-ours: test_x::test_y (failure: boom)\n")
    counts = [0, 0, 0, 0]
    report.do_known(results, known, "5.10.0-32-amd64", d, counts)
    with open(results) as f:
        lines = f.read().splitlines()
    check(lines[0].startswith("known  c-ours: rxe.x (KNOWN kernel "
                              "bug: rxe bug x; rxe bug x2; evidence: "
                              "Debian's library fails the same listed "
                              "checks in this boot: atomic: completion"),
          f"listed checks failing on both libraries: known ({lines[0]})")
    check(lines[1].startswith("not ok c-ours: fork.y (1 failed: big: "
                              "READ) (listed as a known kernel bug, not "
                              "treated as known: ") and
          "Debian's library" in lines[1],
          f"listed, but Debian's passed: still a failure ({lines[1]})")
    check(lines[2] == "not ok c-ours: rxe.z (1 failed: c)",
          "listed for another kernel only: untouched")
    check(lines[4].startswith("not ok c-ours: rxe.u") and
          "1 failing check(s) not listed for this kernel: send: "
          "completion" in lines[4],
          f"an unlisted check failing too: a failure, said why ({lines[4]})")
    check(lines[5].startswith("not ok c-ours: rxe.d") and
          "did not fail a check matching 'atomic: completion'" in lines[5],
          f"Debian's failing only another check: a failure ({lines[5]})")
    check(lines[6].startswith("not ok c-ours: rxe.t") and
          "did not run to its end: c-ours: ctest says Timeout" in lines[6],
          f"a timeout is never known ({lines[6]})")
    check(lines[7].startswith("not ok c-ours: rxe.q") and
          "not listed for this kernel: sge list # TODO" in lines[7],
          f"a failing TODO check on ours is not listed ({lines[7]})")
    check(lines[8].startswith("known  c-debian: rxe.x.debian (KNOWN "
                              "kernel bug: rxe bug x; rxe bug x2; evidence:"
                              " the project's library fails"),
          f"Debian's failure of a known bug is known too ({lines[8]})")
    check(lines[10].startswith("not ok c-debian: rxe.d.debian") and
          "not treated as known" in lines[10],
          f"Debian's failure of other listed checks: a failure "
          f"({lines[10]})")
    check(lines[11] == "not ok py-ours: test_x::test_y (failure: boom)",
          "an unlisted pytest test: untouched")
    check(counts == [0, -2, 0, 2], f"counts moved to known ({counts})")

    with open(known, "a") as f:
        f.write("5.10.\trxe.x\tno why\n")
    try:
        report.read_known(known, "5.10.0-32-amd64")
        bad = False
    except SystemExit:
        bad = True
    check(bad, "a line without four fields is an error")

    for old in ("guest.rxe_x", "fork_y-legacy", "rxe.x.debian", "nope.x"):
        with open(known, "w") as f:
            f.write(f"5.10.\t{old}\tc\twhy\n")
        try:
            report.read_known(known, "5.10.0-32-amd64")
            bad = False
        except SystemExit:
            bad = True
        check(bad, f"'{old}' is not a test name the list may use")

    # The project's own list names tests as ibv_test() does.
    real = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])),
                        "..", "..", "data", "kernel-known-failures")
    try:
        for rel in ("5.10.", "6.1.", "6.12."):
            report.read_known(real, rel)
        bad = ""
    except SystemExit as e:
        bad = str(e)
    check(not bad, f"tests/data/kernel-known-failures reads ({bad})")

    tests = os.path.join(d, "tests.json")
    with open(tests, "w") as f:
        json.dump({"tests": [
            {"name": n_, "command": [n_],
             "properties": [{"name": "LABELS", "value": lab}]}
            for n_, lab in (("a", ["guest", "fork"]), ("b", ["guest", "rxe"]),
                            ("c", ["guest", "plugin"]),
                            ("a.debian", ["guest", "fork", "debian"]),
                            ("d", ["guest", "client"]),
                            ("e", ["guest", "valgrind"]),
                            ("f", ["host"]),
                            ("f.debian", ["host", "debian"]))]}, f)
    os.environ["RUN_ALL_LABELS"] = "fork|rxe"
    names = [t[0] for t in report.chosen_tests(tests, "ours")]
    check(names == ["a", "b"], f"RUN_ALL_LABELS selects by label ({names})")
    del os.environ["RUN_ALL_LABELS"]
    names = [t[0] for t in report.chosen_tests(tests, "ours")]
    check(names == ["a", "b", "c"], "no RUN_ALL_LABELS: every test")
    names = [t[0] for t in report.chosen_tests(tests, "debian")]
    check(names == ["a.debian"],
          f"Debian's run: the guest tests' Debian variants ({names})")
    with open(tests, "w") as f:
        json.dump({"tests": [
            {"name": n_, "command": [n_],
             "properties": [{"name": "LABELS", "value": lab}]}
            for n_, lab in (
                ("fork.a", ["guest", "fork"]),
                ("fork.a.legacy", ["guest", "fork"]),
                ("fork.a.debian", ["guest", "fork", "debian"]),
                ("fork.a.legacy.debian", ["guest", "fork", "debian"]),
                ("fork.m", ["guest", "fork", "memory"]),
                ("fork.m.legacy", ["guest", "fork", "memory"]),
                ("fork.m.debian", ["guest", "fork", "memory", "debian"]),
                ("fork.m.legacy.debian",
                 ["guest", "fork", "memory", "debian"]),
                ("rxe.b", ["guest", "rxe"]),
                ("rxe.b.debian", ["guest", "rxe", "debian"]),
                ("rxe.c", ["guest", "rxe"]),
                ("rxe.c.debian", ["guest", "rxe", "debian"]),
                ("cmd.k", ["guest", "cmd", "kernel"]),
                ("cmd.k.debian", ["guest", "cmd", "kernel", "debian"]),
                ("fork.legacy", ["guest", "fork", "no-asan"]),
                ("client.d", ["guest", "client", "plugin_lean"]),
                ("plugin.x", ["guest", "plugin", "plugin_lean"]),
                ("fork.h.debian", ["host", "fork", "debian"]),
                ("client.e", ["guest", "client"]))]}, f)
    names = [t[0] for t in report.chosen_tests(tests, "ours-default")]
    check(names == ["fork.a", "fork.m", "rxe.b", "rxe.c", "cmd.k",
                    "fork.legacy", "plugin.x"],
          f"lean: the default mode's tests, not .legacy ({names})")
    names = [t[0] for t in report.chosen_tests(tests, "asan-lean")]
    check(names == ["fork.a.legacy", "fork.m.legacy", "rxe.b", "rxe.c",
                    "cmd.k", "plugin.x"],
          f"lean ASan: legacy where there is one, no no-asan ({names})")
    names = [t[0] for t in report.chosen_tests(tests, "debian-modes")]
    check(names == ["fork.a.debian", "fork.m.debian", "fork.m.legacy.debian",
                    "rxe.b.debian", "rxe.c.debian", "cmd.k.debian"],
          f"Debian's run, default mode and legacy memory ({names})")
    names = [t[0] for t in report.chosen_tests(tests, "ours-modes")]
    check(names == ["fork.a", "fork.m", "fork.m.legacy", "rxe.b", "rxe.c",
                    "cmd.k", "fork.legacy", "plugin.x"],
          f"ours, default mode and legacy memory ({names})")
    names = [t[0] for t in report.chosen_tests(tests, "client-lean")]
    check(names == ["client.d"], f"lean clients: label plugin_lean ({names})")
    # The failed tests as report.py itself prints them, a listed kernel
    # bug among them ("known" is decided only after phase 5).
    res = os.path.join(d, "results")
    with open(res, "w") as f, contextlib.redirect_stdout(f):
        c = [0, 0, 0, 0]
        report.emit("c-ours", "rxe.c", False,
                    "2 failed: x and 1 more) (listed as a known kernel bug",
                    c)
        report.emit("c-ours", "fork.a.legacy", False, "", c)
        report.emit("c-ours", "rxe.b", True, "", c)
        report.emit("c-debian", "fork.legacy", False, "x", c)
        report.emit("plugin-c-ours", "client.e", False, "x", c)
    check(report.failed_in(res, "c-ours") == ["rxe.c", "fork.a.legacy"],
          f"failed_in reads emit()'s lines ({report.failed_in(res, 'c-ours')})")
    os.environ["RUN_ALL_TWINS_FROM"] = res
    names = [t[0] for t in report.chosen_tests(tests, "debian-kernel")]
    check(names == ["fork.a.debian", "fork.a.legacy.debian", "fork.m.debian",
                    "fork.m.legacy.debian", "rxe.c.debian", "cmd.k.debian"],
          f"kernel twins: default fork tests and the failed ones ({names})")
    del os.environ["RUN_ALL_TWINS_FROM"]
    names = [t[0] for t in report.chosen_tests(tests, "debian-kernel")]
    check(names == ["fork.a.debian", "fork.m.debian", "fork.m.legacy.debian",
                    "cmd.k.debian"],
          f"kernel twins, nothing failed: the fork tests of the kernel ({names})")
    check(report.twin("fork.x.legacy") == "fork.x.legacy.debian" and
          report.ours_name("fork.x.legacy.debian") == "fork.x.legacy",
          "a Debian variant is its test's name and .debian")

print(f"{n - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
