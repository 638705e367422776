# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Turn a JUnit XML file from ctest or pytest into one line per test.

Used by tests/guest/run-all.  Prints "ok     PHASE: NAME", "not ok PHASE:
NAME (why)" or "skip   PHASE: NAME (why)" for each test and appends
"PASSED FAILED SKIPPED" to COUNTS.  A pytest skip is counted apart and
shown with its reason: tests skip only on purpose (e.g. a check that
applies to upstream alone); a missing prerequisite is a failure, never a
skip (conftest.py ends the session).

Nothing passes by default: a test of the selection that is missing from
the results, a run with no results at all, and a runner's exit status
that disagrees with its results are each reported as failed.  The exit
status is 0 when the report was written (whatever it says), non-zero when
the input could not be read: run-all counts that as a failure too.

  report.py ctest JUNIT TESTS_JSON KIND CTEST_LOG CTEST_RC PHASE MODE COUNTS
      KIND is the selection (see "select") ctest was asked to run;
      CTEST_LOG its console output, which alone tells a crash or a
      timeout from a failure; CTEST_RC its exit status.  Each test's
      output is read as TAP-like lines (tests/guest/common): "ok N - ...",
      "not ok N - ...", a check of a guarantee upstream lacks ends in
      "# guard", a known bug of Debian's library in "# TODO ...", and the
      last line is "P passed, F failed[, S skipped]".
      MODE "project": every test passes: exit status 0, no "not ok" line,
                      the summary line if it prints checks at all.
      MODE "debian":  the same binaries ran on Debian's libibverbs.  A test
                      labelled "guard" must end with a plain failure
                      (no crash, no timeout), print its summary, and its
                      failures must be exactly "# guard" checks, at least
                      one of them, unless it printed "# no guard on this
                      kernel: WHY" and passed (on a kernel where upstream
                      keeps that guarantee too); every other test must
                      pass as above,
                      with only "# TODO" checks allowed to fail.
  report.py pytest JUNIT PYTEST_RC PHASE MODE COUNTS
      An xfail (pytest.mark.xfail, used for guarantees upstream lacks)
      counts as passed in MODE "debian" only; there, one whose reason
      starts "KNOWN kernel bug" (a test the kernel keeps from running on
      Debian's library) is reported and counted as known.
  report.py known RESULTS KNOWN_FILE RELEASE WORKDIR COUNTS
      Turns "not ok" lines of C tests into "known" lines when every
      failing check is listed as a kernel bug for RELEASE (uname -r), the
      test ran to its end, and Debian's library failed checks of the same
      listed patterns in the same boot; appends the change to COUNTS (a
      fourth column: known).  WORKDIR holds run-all's PHASE.xml (JUnit)
      and PHASE.log (ctest's console output) of each ctest phase.
  report.py select TESTS_JSON KIND
      Print a ctest -R regex matching exactly the tests of KIND, or nothing:
      "ours"    label guest, not client, not debian, not valgrind: the
                in-guest C tests, run on the project's library;
      "debian"  label debian: the Debian variant NAME.debian that
                ibv_test() registers beside every "ours" test NAME, the
                same binary on Debian's library (LD_LIBRARY_PATH);
      "client"  label client: the scripts choose each run's library;
      "asan"    the "ours" tests without label no-asan, for the run on
                the sanitizer build;
      "valgrind" label valgrind: programs under valgrind's memcheck, a
                phase of their own (each script picks its libraries).
      CI's lean selections, for the passes that repeat the tests in
      another set-up (run-all: RUN_ALL_LEAN, RUN_ALL_DEBIAN_TWINS):
      "ours-default"  "ours" without the tests of mode legacy
                (AREA.NAME.legacy), for the plug-in pass: it changes the
                provider, not the fork mode, which phase 1 runs both
                ways;
      "asan-lean"  "asan" without the default-mode tests that have a
                legacy twin: the twin runs the library's verbs and child
                code as well, and the madvise range tree, which the
                default mode on a kernel that copies never builds (the
                netlink query it skips stays covered by the default-mode
                tests without a twin: fork.status.beyond,
                fork.netlink_spoof, fork.madvise_strace);
      "ours-modes", "debian-modes"  "ours" and "debian" without the
                tests of mode legacy but for those labelled memory
                (RUN_ALL_MODES=default);
      "client-lean"  the clients labelled plugin_lean;
      "debian-kernel"  the Debian variants of the default-mode tests
                labelled fork, of the legacy ones labelled memory and of
                the tests labelled kernel (whose expectations follow the
                kernel), and of the tests that failed in phase c-ours of
                the result lines in the file RUN_ALL_TWINS_FROM (whose
                Debian variant tells a kernel bug).
"""
import json
import os
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


def chosen_tests(tests_json, kind):
    """The tests of selection KIND, as (name, labels, command) tuples.
    RUN_ALL_LABELS (a regex) keeps only the tests with a matching label."""
    tests = ctest_tests(tests_json)
    want = os.environ.get("RUN_ALL_LABELS")
    if want:
        tests = [t for t in tests
                 if any(re.fullmatch(want, lab) for lab in t[1])]
    guest = [t for t in tests if "guest" in t[1]]
    ours = [t for t in guest if not {"client", "debian", "valgrind"} & t[1]]
    if kind == "ours":
        return ours
    if kind == "ours-default":
        return [t for t in ours if default_mode(t[0])]
    if kind == "asan-lean":
        asan = chosen_tests(tests_json, "asan")
        names = {t[0] for t in asan}
        return [t for t in asan
                if not (default_mode(t[0]) and t[0] + ".legacy" in names)]
    if kind == "ours-modes":
        return [t for t in ours if kernel_mode(t)]
    if kind == "debian-modes":
        return [t for t in guest if "debian" in t[1] and kernel_mode(t)]
    if kind == "client-lean":
        return [t for t in guest if {"client", "plugin_lean"} <= t[1]]
    if kind == "debian-kernel":
        results = os.environ.get("RUN_ALL_TWINS_FROM")
        failed = set(failed_in(results, "c-ours")) if results else set()
        return [t for t in guest if "debian" in t[1] and
                (("fork" in t[1] and kernel_mode(t)) or "kernel" in t[1] or
                 ours_name(t[0]) in failed)]
    if kind == "asan":
        # "no-asan": a test that cannot run on a sanitizer build (an
        # LD_PRELOADed library that ASan refuses to come after, or forks
        # while other threads allocate: GCC 12's ASan allocator is not
        # fork-safe).
        return [t for t in ours if "no-asan" not in t[1]]
    if kind == "client":
        return [t for t in guest if "client" in t[1]]
    if kind == "valgrind":
        return [t for t in guest if "valgrind" in t[1]]
    if kind == "debian":
        return [t for t in guest if "debian" in t[1]]
    raise SystemExit("unknown kind " + kind)


def failed_in(results, phase):
    """The tests that RESULTS, run-all's result lines as emit() prints
    them, reports as failed in PHASE."""
    head = f"not ok {phase}: "
    with open(results) as f:
        return [line[len(head):].split(" ", 1)[0].rstrip("\n")
                for line in f if line.startswith(head)]


def default_mode(name):
    """A test of the default fork mode: no "legacy" among the modes of
    AREA.NAME[.MODE...] (tests/ibv_test.cmake)."""
    return "legacy" not in name.split(".")[2:]


def kernel_mode(test):
    """A test of the default fork mode, or of the legacy mode labelled
    "memory": what becomes of registered memory across fork differs by
    kernel in either mode (tests/guest/fork/CMakeLists.txt)."""
    return default_mode(test[0]) or "memory" in test[1]


def select(tests_json, kind):
    chosen = chosen_tests(tests_json, kind)
    if chosen:
        print("^(" + "|".join(re.escape(t[0]) for t in chosen) + ")$")


def testcases(junit):
    root = ET.parse(junit).getroot()
    # pytest wraps its suite in <testsuites>, ctest does not.
    return list(root.iter("testcase"))


# ctest's console line for one finished test, e.g.
# " 3/41 Test  #3: fork_status ......   Passed    0.52 sec" or
# "...***Exception: SegFault  0.06 sec"; JUnit says only "fail".
CTEST_LINE = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*"
                        r"(?:\*\*\*)?(.+?)\s+[\d.]+ sec\s*$")


def ctest_verdicts(log):
    """Map test name -> ctest's verdict ("Passed", "Failed", "Timeout",
    "Exception: SegFault", "Not Run", ...)."""
    out = {}
    with open(log, errors="replace") as f:
        for line in f:
            m = CTEST_LINE.match(line)
            if m:
                out[m.group(1)] = m.group(2).strip()
    return out


CHECK = re.compile(r"^(not ok|ok)\b(?: \d+)?(?: -)?(.*)$")
# A guard test on a kernel where upstream keeps the guarantee too.
NO_GUARD = re.compile(r"^# no guard on this kernel: (.*)$")
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")


def tap(text):
    """Read the checks of one test's output.  Returns a dict: checks (all
    "ok"/"not ok" lines), guard_fail and other_fail (lists of the failed
    checks' descriptions), todo (known bugs, "not ok ... # TODO") and
    todo_fail (their descriptions), and summary, (passed, failed) of the
    last summary line or None."""
    r = {"checks": 0, "guard_fail": [], "other_fail": [], "todo": 0,
         "todo_fail": [], "summary": None, "summaries": 0, "no_guard": ""}
    for line in text.splitlines():
        line = line.rstrip()
        m = NO_GUARD.match(line)
        if m:
            r["no_guard"] = m.group(1)
            continue
        m = SUMMARY.match(line)
        if m:
            r["summary"] = (int(m.group(1)), int(m.group(2)))
            r["summaries"] += 1
            continue
        m = CHECK.match(line)
        if not m:
            continue
        r["checks"] += 1
        if m.group(1) == "ok":
            continue
        desc = m.group(2).strip()
        if re.search(r"# TODO\b", desc):
            r["todo"] += 1
            r["todo_fail"].append(desc)
        elif desc.endswith("# guard"):
            r["guard_fail"].append(desc)
        else:
            r["other_fail"].append(desc)
    return r


def first(descs):
    return descs[0][:120] + (f" and {len(descs) - 1} more"
                             if len(descs) > 1 else "")


def outcome(tc, xfail_ok=False):
    """Return (passed, why) for one pytest <testcase>; passed is None for a
    skip."""
    for tag in ("failure", "error"):
        el = tc.find(tag)
        if el is not None:
            msg = (el.get("message") or "").strip().splitlines()
            first_line = msg[0][:160] if msg and msg[0] else ""
            return False, tag + (": " + first_line if first_line else "")
    el = tc.find("skipped")
    if el is not None and el.get("type") == "pytest.xfail":
        msg = (el.get("message") or "").strip()
        if not xfail_ok:
            return False, "xfail outside a Debian run: " + msg
        # A test a kernel bug keeps from running there (test_fork.py):
        # counted apart, as the C tests' known kernel bugs are.
        if msg.startswith(KNOWN_XFAIL):
            return KNOWN, msg
        return True, "xfail, as expected on Debian's libibverbs: " + msg
    if el is not None:
        msg = (el.get("message") or "").strip().splitlines()
        return None, "skipped" + (": " + msg[0][:160] if msg else "")
    return True, ""


# An xfail whose reason starts so names a kernel bug, not a guarantee.
KNOWN_XFAIL = "KNOWN kernel bug"
KNOWN = "known"


def emit(phase, name, ok, why, counts):
    if ok == KNOWN:
        print(f"known  {phase}: {name} ({why})")
        counts[3] += 1
    elif ok is None:
        print(f"skip   {phase}: {name} ({why})")
        counts[2] += 1
    elif ok:
        print(f"ok     {phase}: {name}" + (f" ({why})" if why else ""))
        counts[0] += 1
    else:
        print(f"not ok {phase}: {name}" + (f" ({why})" if why else ""))
        counts[1] += 1


def summary_mismatch(t):
    """Why the summary line disagrees with the "not ok" lines, or ""."""
    if t["summary"] is None:
        return ""
    # A forked child prints its own summary before the parent's (and
    # starts from the parent's counts): exact only for a single one.
    failed = len(t["guard_fail"]) + len(t["other_fail"])
    said = t["summary"][1]
    if said > failed or (t["summaries"] == 1 and said != failed):
        return f"summary says {said} failed, {failed} 'not ok' lines"
    return ""


def judge_ctest(verdict, out, guard, mode):
    """(passed, why) of one ctest test from its verdict and output."""
    t = tap(out)
    if verdict is None:
        return False, "no verdict in ctest's output"
    if verdict == "Timeout":
        # Hung (on 5.10, rxe has soft-locked a CPU): this test's limit
        # is all it cost.
        return False, ("TIMEOUT: killed at its time limit (hung); checks "
                       f"so far: {t['checks']}")
    if verdict not in ("Passed", "Failed"):
        # A crash, a missing binary: never what a check said.
        return False, "ctest: " + verdict
    if t["checks"] and t["summary"] is None:
        return False, "no summary line (ended early?)"
    if summary_mismatch(t):
        return False, summary_mismatch(t)
    if mode == "debian" and guard:
        if t["summary"] is None:
            return False, "guard test printed no summary line"
        if t["other_fail"]:
            return False, ("guard test: checks of upstream behaviour "
                           "failed on Debian's libibverbs: " +
                           first(t["other_fail"]))
        if not t["guard_fail"] and t["no_guard"] and verdict == "Passed":
            # The guarantee is upstream's too on this kernel (the test
            # said why): no guard check can fail here.
            return True, "no guard on this kernel: " + t["no_guard"]
        if not t["guard_fail"]:
            return False, ("guard test PASSED on Debian's libibverbs: it "
                           "does not detect the missing guarantee")
        if verdict != "Failed":
            return False, "guard checks failed but the exit status was 0"
        return True, (f"guard: {len(t['guard_fail'])} guard check(s) "
                      "failed on Debian's libibverbs, as expected")
    bad = t["other_fail"] + t["guard_fail"]
    if mode not in ("debian", "plugin"):
        bad += ["(TODO) known bug"] * t["todo"]
    if bad:
        return False, f"{len(bad)} failed: " + first(bad)
    if verdict != "Passed":
        return False, "exit status non-zero with no failed check"
    if t["todo"]:
        return True, f"{t['todo']} known bug(s) of Debian's library or librxe"
    return True, ""


def do_ctest(junit, tests_json, kind, log, rc, phase, mode, counts):
    chosen = chosen_tests(tests_json, kind)
    labels = {t[0]: t[1] for t in chosen}
    verdicts = ctest_verdicts(log)
    seen = set()
    for tc in testcases(junit):
        name = tc.get("name")
        seen.add(name)
        if name not in labels:
            emit(phase, name, False, "ran but is not in the selection",
                 counts)
            continue
        out = tc.findtext("system-out") or ""
        # Debian's librxe serves rxe in the plug-in pass: its known bugs
        # (gc_known_librxe_bug) may fail there as on Debian's library.
        judged = "plugin" if phase.startswith("plugin-") else mode
        passed, why = judge_ctest(verdicts.get(name), out,
                                  "guard" in labels[name], judged)
        emit(phase, name, passed, why, counts)
    for name in labels:
        if name not in seen:
            emit(phase, name, False, "selected but did not run", counts)
    if not labels:
        emit(phase, "selection", False, "no tests selected", counts)
    # ctest exits 0 when every test passed and 8 when some failed; any
    # other status, or one that disagrees with the verdicts, is a failure.
    want = 0 if all(v == "Passed" for v in verdicts.values()) else 8
    if not verdicts or rc != want:
        emit(phase, "ctest", False,
             f"exit status {rc}, expected {want} from {len(verdicts)} "
             "verdicts", counts)


def do_pytest(junit, rc, phase, mode, counts):
    n = failed = 0
    for tc in testcases(junit):
        cls = tc.get("classname") or ""
        name = (cls.rsplit(".", 1)[-1] + "::" if cls else "") + \
            tc.get("name")
        passed, why = outcome(tc, xfail_ok=(mode == "debian"))
        emit(phase, name, passed, why, counts)
        n += 1
        failed += any(tc.find(t) is not None for t in ("failure", "error"))
    if not n:
        emit(phase, "pytest", False, "no test cases in the results", counts)
    # pytest: 0 when no test failed, 1 when some did; anything else is
    # an error of the session (usage, collection, an internal error).
    want = 1 if failed else 0
    if rc != want:
        emit(phase, "pytest", False, f"exit status {rc}, expected {want}",
             counts)


DEBIAN = ".debian"


def twin(name):
    """The name of a test's Debian variant (tests/ibv_test.cmake)."""
    return name + DEBIAN


def ours_name(name):
    """The name of the test a Debian variant NAME.debian runs."""
    return name[:-len(DEBIAN)] if name.endswith(DEBIAN) else name


# AREA.NAME[.MODE...], as tests/ibv_test.cmake names a test.
TEST_NAME = re.compile(r"([a-z0-9_]+)(\.[a-z0-9_]+)+")
GUEST_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def guest_test_name(name):
    """True when NAME can be an in-guest C test on our library: AREA a
    folder of tests/guest (clients for "client"), no Debian variant."""
    m = TEST_NAME.fullmatch(name)
    if not m or name.endswith(DEBIAN):
        return False
    area = "clients" if m.group(1) == "client" else m.group(1)
    return os.path.isfile(os.path.join(GUEST_DIR, area, "CMakeLists.txt"))


def read_known(known_file, release):
    """{test: [(compiled check pattern, why)]} for RELEASE.  Lines:
    "KERNEL-PREFIX<TAB>TEST<TAB>CHECK<TAB>WHY" ("#" comments), TEST as
    run-all names it without its phase (the name on our library, not
    its Debian variant's), CHECK a regular expression that
    must match the whole description of a failing check."""
    known = {}
    with open(known_file) as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 4 or not all(x.strip() for x in fields):
                raise SystemExit(f"{known_file}:{i}: want 4 tab-separated "
                                 "fields: KERNEL TEST CHECK WHY")
            prefix, test, check, why = (x.strip() for x in fields)
            if not guest_test_name(test):
                raise SystemExit(f"{known_file}:{i}: '{test}' is not the "
                                 "name of an in-guest test on our library "
                                 "(AREA.NAME[.MODE], AREA a folder of "
                                 "tests/guest)")
            try:
                pat = re.compile(check)
            except re.error as e:
                raise SystemExit(f"{known_file}:{i}: bad CHECK: {e}")
            if release.startswith(prefix):
                known.setdefault(test, []).append((pat, why))
    return known


def ctest_failures(workdir, phase, name, debian):
    """(descriptions of the failing checks, "") of one ctest test of
    PHASE, or (None, why) when it did not run to its end: a timeout, a
    crash, no output, no summary line.  On Debian's library a "# TODO"
    check (a bug of Debian's library) may fail and is left out."""
    junit = os.path.join(workdir, phase + ".xml")
    log = os.path.join(workdir, phase + ".log")
    if not (os.path.isfile(junit) and os.path.isfile(log)):
        return None, f"no ctest results of phase {phase}"
    out = None
    for tc in testcases(junit):
        if tc.get("name") == name:
            out = tc.findtext("system-out") or ""
    if out is None:
        return None, f"{name} has no result in phase {phase}"
    verdict = ctest_verdicts(log).get(name)
    t = tap(out)
    fails = t["other_fail"] + t["guard_fail"]
    if not debian:
        fails += t["todo_fail"]
    if verdict != "Failed":
        return None, f"{phase}: ctest says {verdict or 'nothing'}"
    if t["summary"] is None:
        return None, f"{phase}: no summary line (ended early?)"
    if summary_mismatch(t):
        return None, f"{phase}: " + summary_mismatch(t)
    if not fails:
        return None, f"{phase}: failed with no failed check"
    return fails, ""


def match_known(fails, listed):
    """(patterns matched, checks no pattern matches)."""
    hit, unlisted = [], []
    for desc in fails:
        pats = [p for p in listed if p[0].fullmatch(desc)]
        if not pats:
            unlisted.append(desc)
        for p in pats:
            if p not in hit:
                hit.append(p)
    return hit, unlisted


def why_not_known(mine, other, listed, other_lib):
    """("", evidence) when the failing checks MINE (a ctest_failures
    result) are all listed and the other library's (OTHER) fail checks of
    the same patterns; else (why not, "")."""
    if mine[0] is None:
        return "did not run to its end: " + mine[1], ""
    hit, unlisted = match_known(mine[0], listed)
    if unlisted:
        return (f"{len(unlisted)} failing check(s) not listed for this "
                "kernel: " + first(unlisted)), ""
    if other[0] is None:
        return f"no failing checks of {other_lib} to compare: " + \
            other[1], ""
    evidence = []
    for pat, _ in hit:
        seen = [d for d in other[0] if pat.fullmatch(d)]
        if not seen:
            return (f"{other_lib} did not fail a check matching "
                    f"'{pat.pattern}' in this boot"), ""
        evidence.append(seen[0])
    return "", evidence


def do_known(results, known_file, release, workdir, counts):
    """Rewrite RESULTS: a C test that fails on our library becomes
    "known" when (1) every failing check matches a check listed in
    KNOWN_FILE for this kernel and test, (2) Debian's library fails, in
    the same boot, checks matching the same listed checks (quoted as the
    evidence), and (3) the test ran to its end (a timeout, a crash, a
    missing summary line are never known).  Debian's failure of it
    becomes known on the same terms, with ours as the other side.  A
    listed test that stays a failure says why it is not known."""
    known = read_known(known_file, release)
    with open(results) as f:
        lines = f.read().splitlines()
    pat = re.compile(r"^(not ok)\s+([\w-]+): (\S+)(.*)$")
    out = []
    for ln in lines:
        m = pat.match(ln)
        if not m:
            out.append(ln)
            continue
        phase, name = m.group(2), m.group(3)
        # The name the test has in our run, which the list uses.
        key = ours_name(name) if phase == "c-debian" else name
        if key not in known:
            out.append(ln)
            continue
        listed = known[key]
        if phase == "c-ours":
            mine = ctest_failures(workdir, phase, name, False)
            other = ctest_failures(workdir, "c-debian", twin(name), True)
            why, evidence = why_not_known(mine, other, listed,
                                          "Debian's library")
        elif phase == "c-debian":
            mine = ctest_failures(workdir, phase, name, True)
            other = ctest_failures(workdir, "c-ours", key, False)
            why, evidence = why_not_known(mine, other, listed,
                                          "the project's library")
        else:
            why = ("only the C tests of phases c-ours and c-debian are "
                   "matched against the list")
        if why:
            out.append(ln + " (listed as a known kernel bug, not treated "
                       "as known: " + why + ")")
            continue
        whys = []
        for p, w in listed:
            if any(p.fullmatch(d) for d in mine[0]) and w not in whys:
                whys.append(w)
        side = "Debian's library" if phase == "c-ours" else \
            "the project's library"
        out.append(f"known  {phase}: {name} (KNOWN kernel bug: "
                   f"{'; '.join(whys)}; evidence: {side} fails the same "
                   f"listed checks in this boot: {first(evidence)})")
        counts[1] -= 1
        counts[3] += 1
    with open(results, "w") as f:
        f.write("\n".join(out) + "\n")


def main(argv):
    counts = [0, 0, 0]
    if len(argv) == 7 and argv[1] == "known":
        counts = [0, 0, 0, 0]
        do_known(argv[2], argv[3], argv[4], argv[5], counts)
        with open(argv[6], "a") as f:
            f.write(" ".join(map(str, counts)) + "\n")
        return 0
    if len(argv) == 10 and argv[1] == "ctest":
        do_ctest(argv[2], argv[3], argv[4], argv[5], int(argv[6]),
                 argv[7], argv[8], counts)
        out = argv[9]
    elif len(argv) == 7 and argv[1] == "pytest":
        counts = [0, 0, 0, 0]
        do_pytest(argv[2], int(argv[3]), argv[4], argv[5], counts)
        out = argv[6]
    elif len(argv) == 4 and argv[1] == "select":
        select(argv[2], argv[3])
        return 0
    else:
        sys.stderr.write(__doc__)
        return 2
    with open(out, "a") as f:
        f.write(" ".join(map(str, counts)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
