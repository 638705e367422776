# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Turn a JUnit XML file from ctest or pytest into one line per test.

Used by tests/guest/run-all.  Prints "ok     PHASE: NAME", "not ok PHASE:
NAME (why)" or "skip   PHASE: NAME (why)" for each test and appends
"PASSED FAILED SKIPPED" to COUNTS.  A ctest test that was not run (missing
binary) counts as failed.  A pytest skip is counted apart and shown with
its reason: tests skip only on purpose (e.g. a check that applies to
upstream alone); a missing prerequisite is a failure, never a skip
(conftest.py ends the session).

  report.py ctest JUNIT TESTS_JSON PHASE MODE COUNTS
      MODE "project": every test must pass.
      MODE "debian":  the same binaries ran on Debian's libibverbs; tests
                      labelled "guard" check a guarantee upstream lacks and
                      must FAIL there, every other test must pass.
  report.py pytest JUNIT PHASE MODE COUNTS
      An xfail (pytest.mark.xfail, used for guarantees upstream lacks)
      counts as passed in MODE "debian" only.
  report.py select TESTS_JSON KIND
      Print a ctest -R regex matching exactly the tests of KIND, or nothing:
      "ours"    label guest, not client, not debian: the in-guest C tests,
                run on the project's library;
      "debian"  the same binaries on Debian's library: tests labelled
                debian (registered with their own LD_LIBRARY_PATH), and
                every "ours" test whose command no debian test runs;
      "client"  label client: the scripts choose each run's library.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET


def ctest_tests(tests_json):
    """[(name, labels, command tuple)] from ctest --show-only=json-v1."""
    with open(tests_json) as f:
        data = json.load(f)
    out = []
    for t in data.get("tests", []):
        lab = set()
        for prop in t.get("properties", []):
            if prop.get("name") == "LABELS":
                lab.update(prop.get("value") or [])
        out.append((t["name"], lab, tuple(t.get("command") or ())))
    return out


def ctest_labels(tests_json):
    """Map test name -> set of labels."""
    return {name: labels for name, labels, _ in ctest_tests(tests_json)}


def select(tests_json, kind):
    tests = ctest_tests(tests_json)
    guest = [t for t in tests if "guest" in t[1]]
    ours = [t for t in guest if not {"client", "debian"} & t[1]]
    if kind == "ours":
        chosen = ours
    elif kind == "client":
        chosen = [t for t in guest if "client" in t[1]]
    elif kind == "debian":
        twins = [t for t in guest if "debian" in t[1]]
        twin_cmds = {t[2] for t in twins}
        chosen = twins + [t for t in ours if t[2] not in twin_cmds]
    else:
        raise SystemExit("unknown kind " + kind)
    if chosen:
        print("^(" + "|".join(re.escape(t[0]) for t in chosen) + ")$")


def testcases(junit):
    root = ET.parse(junit).getroot()
    # pytest wraps its suite in <testsuites>, ctest does not.
    return list(root.iter("testcase"))


def outcome(tc, xfail_ok=False):
    """Return (passed, why) for one <testcase>; passed is None for a
    pytest skip."""
    for tag in ("failure", "error"):
        el = tc.find(tag)
        if el is not None:
            msg = (el.get("message") or "").strip().splitlines()
            first = msg[0][:160] if msg and msg[0] else ""
            return False, tag + (": " + first if first else "")
    el = tc.find("skipped")
    if el is not None and el.get("type") == "pytest.xfail":
        msg = (el.get("message") or "").strip()
        if xfail_ok:
            return True, "xfail, as expected on Debian's libibverbs: " + msg
        return False, "xfail outside a Debian run: " + msg
    if el is not None:
        msg = (el.get("message") or "").strip().splitlines()
        return None, "skipped" + (": " + msg[0][:160] if msg else "")
    status = tc.get("status")
    if status not in (None, "run"):
        return False, "status " + status
    return True, ""


def emit(phase, name, ok, why, counts):
    if ok is None:
        print(f"skip   {phase}: {name} ({why})")
        counts[2] += 1
    elif ok:
        print(f"ok     {phase}: {name}" + (f" ({why})" if why else ""))
        counts[0] += 1
    else:
        print(f"not ok {phase}: {name}" + (f" ({why})" if why else ""))
        counts[1] += 1


def do_ctest(junit, tests_json, phase, mode, counts):
    labels = ctest_labels(tests_json)
    for tc in testcases(junit):
        name = tc.get("name")
        passed, why = outcome(tc)
        if passed is None:
            passed = False  # ctest: "notrun", e.g. a missing executable
        if mode == "debian" and "guard" in labels.get(name, ()):
            if passed:
                emit(phase, name, False,
                     "guard test PASSED on Debian's libibverbs: "
                     "it does not detect the missing guarantee",
                     counts)
            else:
                emit(phase, name, True,
                     "guard: failed on Debian's libibverbs as "
                     "expected, " + why, counts)
            continue
        emit(phase, name, passed, why, counts)


def do_pytest(junit, phase, mode, counts):
    for tc in testcases(junit):
        cls = tc.get("classname") or ""
        name = (cls.rsplit(".", 1)[-1] + "::" if cls else "") + \
            tc.get("name")
        passed, why = outcome(tc, xfail_ok=(mode == "debian"))
        emit(phase, name, passed, why, counts)


def main(argv):
    counts = [0, 0, 0]
    if len(argv) == 7 and argv[1] == "ctest":
        do_ctest(argv[2], argv[3], argv[4], argv[5], counts)
        out = argv[6]
    elif len(argv) == 6 and argv[1] == "pytest":
        do_pytest(argv[2], argv[3], argv[4], counts)
        out = argv[5]
    elif len(argv) == 4 and argv[1] == "select":
        select(argv[2], argv[3])
        return 0
    else:
        sys.stderr.write(__doc__)
        return 2
    with open(out, "a") as f:
        f.write(f"{counts[0]} {counts[1]} {counts[2]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
