#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Build and run inline_verbs.c against our headers and the reference ones.

Our headers must compile without a single warning as ISO C11 (-pedantic),
GNU C11 and C++11/17, at -O0 and -O2, with gcc and (if present) clang; the
program must pass in every build.  It is also built against the reference
(rdma-core) headers, where it must pass too: that is what shows the
expectations encoded in it are upstream's behaviour.

A build whose compiler is missing is skipped, but the test fails unless at
least one build against ours and one against the reference ran; without
reference headers it exits 77 (skipped).  In CI (CI=true, where
buildlib/install-deps installed everything) any skipped build or missing
reference is a failure.
"""

import argparse
import os
import shutil
import subprocess
import sys

WARN = ["-Wall", "-Wextra", "-Werror"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ours", required=True)
    ap.add_argument("--ref", default="/usr/include")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("--clang", default="clang")
    ap.add_argument("--workdir", default="smoke-work")
    args = ap.parse_args()

    src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "inline_verbs.c")
    work = os.path.abspath(args.workdir)
    os.makedirs(work, exist_ok=True)
    ours = ["-I", os.path.abspath(args.ours)]

    builds = [
        ("c11-pedantic-O0", args.cc, ["-std=c11", "-pedantic"] + WARN +
         ["-O0"], ours),
        ("gnu11-O2", args.cc, ["-std=gnu11"] + WARN + ["-O2"], ours),
        ("gnu99-O2", args.cc, ["-std=gnu99"] + WARN + ["-O2"], ours),
        ("c++11-pedantic-O0", args.cxx, ["-x", "c++", "-std=c++11",
                                         "-pedantic"] + WARN + ["-O0"],
         ours),
        ("c++17-O2", args.cxx, ["-x", "c++", "-std=c++17"] + WARN +
         ["-O2"], ours),
    ]
    clang = shutil.which(args.clang)
    if clang:
        builds += [
            ("clang-c11-pedantic-O2", clang, ["-std=c11", "-pedantic"] +
             WARN + ["-O2"], ours),
            ("clang++-c++14-O0", clang, ["-x", "c++", "-std=c++14"] + WARN +
             ["-O0"], ours),
        ]
    ci = os.environ.get("CI", "").lower() in ("true", "1", "yes")
    ref_inc = [] if os.path.realpath(args.ref) == "/usr/include" \
        else ["-I", args.ref]
    if os.path.exists(os.path.join(args.ref, "infiniband", "verbs.h")):
        builds += [
            ("reference-gnu11-O0", args.cc, ["-std=gnu11", "-O0"], ref_inc),
            ("reference-gnu11-O2", args.cc, ["-std=gnu11", "-O2"], ref_inc),
        ]
    elif ci:
        print("FAIL (CI): no reference headers in %s (install "
              "libibverbs-dev)" % args.ref)
        return 1
    else:
        print("SKIP: no reference headers in %s (install libibverbs-dev)"
              % args.ref)
        return 77
    failed = 0
    ran = {"ours": 0, "reference": 0}
    for name, compiler, flags, inc in builds:
        if not shutil.which(compiler):
            print("%-24s %s (%s not found)" % (name, "FAIL (CI)" if ci
                                               else "SKIP", compiler))
            failed += ci
            continue
        ran["reference" if name.startswith("reference") else "ours"] += 1
        exe = os.path.join(work, "inline_verbs-" + name)
        cmd = [compiler] + flags + inc + ["-o", exe, src]
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if p.returncode:
            print("%-24s FAIL to build: %s\n%s" % (name, " ".join(cmd),
                                                   p.stdout))
            failed += 1
            continue
        p = subprocess.run([exe], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        status = "ok" if p.returncode == 0 else "FAIL"
        print("%-24s %s: %s" % (name, status, p.stdout.strip()))
        if p.returncode:
            failed += 1
    for side, n in ran.items():
        if not n:
            print("FAIL: no build against %s headers ran" % side)
            failed += 1
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
