#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Check the built man pages (libibverbs/man in the build tree).

  coverage  every public symbol (name@VERSION of the public list, the
            library-private IBVERBS_PRIVATE_* node excepted) has a page in
            man3/, under its own name or as a .so alias of a family page.
            An entry point whose name starts with an underscore
            (_ibv_query_gid_ex) is the ABI name of a header function
            without it (ibv_query_gid_ex), which is what users look up.
            Every reference to a verbs page (ibv_*(3), ibv_*(1), ...) in
            a page leads to a page that exists.
  render    every page and alias in man1/ and man3/ renders without a
            single groff warning (groff -man -ww), and, when man-db is
            installed, `man --warnings -l` at 80 columns is silent too
            on every page that is not an alias.  Aliases must point at a
            page that exists.

Prints TAP, exits 1 on any failure.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys


# pandoc's rendering of **name**(N) for the library's and the tools' names.
REF = re.compile(r"\\f\[B\]((?:ibv_|mbps_|mult_)\w+)\\f\[R\]\(([13])\)")


def tap(results):
    print("1..%d" % len(results))
    bad = 0
    for i, (ok, what, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, what))
        if not ok:
            bad += 1
            for line in detail.rstrip().splitlines():
                print("#   " + line)
    print("# %d passed, %d failed" % (len(results) - bad, bad))
    return 1 if bad else 0


def public_functions(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, node = line.partition("@")
            if not node.startswith("IBVERBS_PRIVATE_"):
                out.append(name)
    return sorted(out)


def pages(man_dir, section):
    d = os.path.join(man_dir, "man%s" % section)
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith("." + section))


def coverage(args):
    have = {os.path.basename(p)[:-2] for p in pages(args.man_dir, "3")}
    results = []
    for sym in public_functions(args.public):
        names = [sym, sym.lstrip("_")]
        found = [n for n in names if n in have]
        results.append((bool(found), "%s has a man page (%s.3)"
                        % (sym, found[0] if found else names[-1]),
                        "no man3/%s.3: document it in libibverbs/man, "
                        "or name it in the NAME section of its family's "
                        "page" % names[-1]))
    if not results:
        results.append((False, "the public list names functions",
                        "%s is empty" % args.public))
    # A reference to another verbs page ("ibv_reg_mr(3)", bold as pandoc
    # renders it) must lead somewhere.
    for section in ("1", "3"):
        for path in pages(args.man_dir, section):
            with open(path) as f:
                text = f.read()
            refs = sorted(set(REF.findall(text)))
            broken = ["%s(%s)" % r for r in refs
                      if not os.path.isfile(os.path.join(
                          args.man_dir, "man%s" % r[1],
                          "%s.%s" % r))]
            if refs:
                results.append((not broken, "%s: references to verbs "
                                "pages resolve" % os.path.basename(path),
                                "no page for " + ", ".join(broken)))
    return tap(results)


def run(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stderr


def render(args):
    groff = shutil.which("groff")
    man = shutil.which("man")
    all_pages = pages(args.man_dir, "1") + pages(args.man_dir, "3")
    results = []
    if not groff:
        results.append((False, "groff is installed",
                        "install groff-base (buildlib/install-deps)"))
    if not all_pages:
        results.append((False, "pages were built",
                        "no man1/*.1 or man3/*.3 under %s" % args.man_dir))
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8",
               MAN_DISABLE_SECCOMP="1")
    def check(path):
        rel = os.path.relpath(path, args.man_dir)
        detail = ""
        with open(path) as f:
            first = f.readline()
        alias = first.startswith(".so ")
        if alias:
            target = os.path.join(args.man_dir, first.split()[1])
            if not os.path.isfile(target):
                detail += "alias of a missing page: %s" % first
        # -ww: every warning; -z: no output, only the diagnostics.  The
        # working directory is the top of the tree, where .so links
        # resolve as they do under /usr/share/man.
        rc, err = run([groff, "-man", "-ww", "-z", "-Tutf8", rel],
                      args.man_dir, env)
        if rc or err:
            detail += "groff -man -ww (exit %d):\n%s" % (rc, err)
        # man(1) adds its preprocessors and the terminal width; an alias
        # renders its target, which is checked on its own.
        if man and not alias:
            rc, err = run([man, "--warnings", "-l", rel], args.man_dir,
                          env)
            if rc or err:
                detail += "man --warnings -l (exit %d):\n%s" % (rc, err)
        return (not detail, "%s renders without warnings" % rel, detail)

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        results.extend(ex.map(check, all_pages if groff else []))
    return tap(results)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("check", choices=["coverage", "render"])
    ap.add_argument("--man-dir", required=True,
                    help="build tree's libibverbs/man (man1/, man3/)")
    ap.add_argument("--public", help="tests/data/public-symbols.txt")
    args = ap.parse_args()
    if args.check == "coverage":
        if not args.public:
            ap.error("coverage needs --public")
        return coverage(args)
    return render(args)


if __name__ == "__main__":
    sys.exit(main())
