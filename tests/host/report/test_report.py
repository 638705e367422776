# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Checks of tests/guest/lib/report.py on made-up results (TAP-like)."""
import importlib.util
import json
import os
import sys
import tempfile

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

with tempfile.TemporaryDirectory() as d:
    known = os.path.join(d, "known")
    with open(known, "w") as f:
        f.write("# comment\n5.10.\tguest.rxe_x\trxe bug x\n"
                "5.10.\tfork_y\tbug y\n6.1.\tguest.rxe_z\tbug z\n")
    results = os.path.join(d, "results")
    with open(results, "w") as f:
        f.write("not ok c-ours: guest.rxe_x (1 failed: a)\n"
                "not ok c-ours: fork_y (1 failed: b)\n"
                "not ok c-ours: guest.rxe_z (1 failed: c)\n"
                "ok     c-ours: guest.rxe_w\n"
                "not ok c-debian: guest.debian.rxe_x (1 failed: a)\n"
                "ok     c-debian: fork_y\n")
    counts = [0, 0, 0, 0]
    report.do_known(results, known, "5.10.0-32-amd64", counts)
    with open(results) as f:
        lines = f.read().splitlines()
    check(lines[0].startswith("known  c-ours: guest.rxe_x (KNOWN kernel "
                              "bug: rxe bug x; evidence: Debian"),
          "listed, failing on both libraries: known, with the evidence")
    check(lines[1].startswith("not ok c-ours: fork_y") and
          "did not fail it in this boot" in lines[1],
          "listed, but Debian's passed: still a failure, said so")
    check(lines[2].startswith("not ok c-ours: guest.rxe_z (1 failed: c)"),
          "listed for another kernel only: untouched")
    check(lines[4].startswith("known  c-debian: guest.debian.rxe_x"),
          "Debian's failure of a known bug is known too")
    check(counts == [0, -2, 0, 2], f"counts moved to known ({counts})")

    tests = os.path.join(d, "tests.json")
    with open(tests, "w") as f:
        json.dump({"tests": [
            {"name": n_, "command": [n_],
             "properties": [{"name": "LABELS", "value": lab}]}
            for n_, lab in (("a", ["guest", "fork"]), ("b", ["guest", "rxe"]),
                            ("c", ["guest", "plugins"]))]}, f)
    os.environ["RUN_ALL_LABELS"] = "fork|rxe"
    names = [t[0] for t in report.chosen_tests(tests, "ours")]
    check(names == ["a", "b"], f"RUN_ALL_LABELS selects by label ({names})")
    del os.environ["RUN_ALL_LABELS"]
    names = [t[0] for t in report.chosen_tests(tests, "ours")]
    check(names == ["a", "b", "c"], "no RUN_ALL_LABELS: every test")

print(f"{n - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
