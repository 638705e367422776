#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Check the dynamic symbols of a libibverbs.so.1 against the ABI lists.

  * every name@VERSION of the public list is exported, as the default
    version (name@@VERSION), and no other default version of a public
    node (IBVERBS_1.x) is;
  * the non-default versions (name@VERSION: the IBVERBS_1.0 compat
    entries and ibv_register_driver@IBVERBS_1.1) are exactly the compat
    list;
  * what the library-private node IBVERBS_PRIVATE_34 exports is the
    private list (the provider interface of Debian's library) with
    --private-exact; without it, a subset of that list that includes the
    public list's private entries;
  * nothing is exported unversioned (the version nodes' own ABS symbols,
    which some linkers emit, are fine);
  * every name@VERSION a known client binds to is exported;
  * the version nodes exist and chain as upstream's do: every
    IBVERBS_1.x node the public and compat lists name, each inheriting
    the one before it, and the one IBVERBS_PRIVATE_* node of the private
    list, standing alone (so a release that adds or renames nodes is a
    change of its lists, tests/data/<release>/, not of this script);
  * the SONAME is libibverbs.so.1.

Debian's own library passes all of it (test symbols.exports.debian), which
proves the lists.  --selftest-map builds a stub library from the version
script, the public and the compat list and checks that, before the real
library exists.
"""


import argparse
import os
import re
import subprocess
import sys
import tempfile

PUBLIC_NODE = re.compile(r"^IBVERBS_1\.(\d+)$")
SONAME = "libibverbs.so.1"


def readelf(tool, args, lib):
    p = subprocess.run([tool] + args + [lib], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode:
        sys.exit("%s %s %s failed:\n%s" % (tool, " ".join(args), lib,
                                           p.stderr))
    return p.stdout


def load_list(path):
    out = set()
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                if "@" not in line:
                    sys.exit("%s: bad entry %r (want name@VERSION)"
                             % (path, line))
                out.add(line)
    return out


SYM = re.compile(r"^\s*\d+:\s+[0-9a-fA-F]+\s+\d+\s+(\w+)\s+(\w+)\s+(\w+)"
                 r"\s+(\w+)\s+(\S+)(?:\s+\(\d+\))?\s*$")


def dynamic_symbols(tool, lib):
    """Returns (default, nondefault, unversioned) sets of defined exports."""
    default, nondefault, unversioned = set(), set(), set()
    for line in readelf(tool, ["--dyn-syms", "-W"], lib).splitlines():
        m = SYM.match(line)
        if not m:
            continue
        typ, bind, vis, ndx, name = m.groups()
        if ndx == "UND" or bind not in ("GLOBAL", "WEAK", "GNU_UNIQUE"):
            continue
        if vis not in ("DEFAULT", "PROTECTED"):
            continue
        # A version node's own ABS symbol: GNU readelf prints it as
        # "NODE", llvm-readelf (CMAKE_READELF under clang) as
        # "NODE@@NODE".
        base, _, ver = name.partition("@")
        if ndx == "ABS" and ver.lstrip("@") == base:
            name = base
        if "@@" in name:
            default.add(name.replace("@@", "@", 1))
        elif "@" in name:
            nondefault.add(name)
        else:
            unversioned.add((name, typ, ndx))
    return default, nondefault, unversioned


VERDEF = re.compile(r"Flags: (\S+)\s+Index: (\d+)\s+Cnt: (\d+)\s+Name: (\S+)")
PARENT = re.compile(r"Parent \d+: (\S+)")


def version_definitions(tool, lib):
    """Returns {node: [parents]} from .gnu.version_d (base entry dropped)."""
    text = readelf(tool, ["-V", "-W"], lib)
    nodes, cur, in_d = {}, None, False
    for line in text.splitlines():
        if "'.gnu.version_d'" in line:
            in_d = True
            continue
        if in_d and line.startswith("Version ") and "version_d" not in line:
            break
        if not in_d:
            continue
        m = VERDEF.search(line)
        if m:
            flags, _, _, name = m.groups()
            cur = None if "BASE" in flags else name
            if cur:
                nodes[cur] = []
            continue
        m = PARENT.search(line)
        if m and cur:
            nodes[cur].append(m.group(1))
    return nodes


def soname(tool, lib):
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]",
                  readelf(tool, ["-d", "-W"], lib))
    return m.group(1) if m else None


def is_private(sym):
    return sym.split("@", 1)[1].startswith("IBVERBS_PRIVATE_")


def diff_lines(errors, title, expected, got):
    missing = sorted(expected - got)
    extra = sorted(got - expected)
    if missing or extra:
        errors.append(title + " (- expected, missing; + exported, "
                      "unexpected):")
        errors.extend("  -%s" % s for s in missing)
        errors.extend("  +%s" % s for s in extra)


def expected_nodes(public, compat, private):
    """{node: [parents]} as the lists' versions imply, or exit."""
    minors = set()
    for s in public | compat:
        m = PUBLIC_NODE.match(s.split("@", 1)[1])
        if m:
            minors.add(int(m.group(1)))
    chain = ["IBVERBS_1.%d" % n for n in sorted(minors)]
    priv = set(s.split("@", 1)[1] for s in private)
    if not chain or len(priv) != 1 or not is_private("x@" + min(priv)):
        sys.exit("the lists name no IBVERBS_1.x node or not exactly one "
                 "IBVERBS_PRIVATE_* node: %s" % sorted(priv))
    want = {chain[0]: []}
    for prev, node in zip(chain, chain[1:]):
        want[node] = [prev]
    want[priv.pop()] = []
    return want


def check(lib, public, compat, private, private_exact, client, tool):
    errors = []
    default, nondefault, unversioned = dynamic_symbols(tool, lib)
    nodes = version_definitions(tool, lib)

    diff_lines(errors, "default-version exports of the public nodes "
               "differ from the public list",
               set(s for s in public if not is_private(s)),
               set(s for s in default if not is_private(s)))
    diff_lines(errors, "non-default (name@VERSION) exports differ from the "
               "compat list", compat, nondefault)

    exported_private = set(s for s in default if is_private(s))
    if private_exact:
        diff_lines(errors, "private exports differ from the private list",
                   private, exported_private)
    else:
        # While the private node is being filled, whatever it exports
        # must be Debian's, and the entries clients use must be there.
        unknown = sorted(exported_private - private)
        if unknown:
            errors.append("private exports that Debian's library does "
                          "not have:")
            errors.extend("  +%s" % s for s in unknown)
        lacking = sorted(set(s for s in public if is_private(s)) -
                         exported_private)
        if lacking:
            errors.append("private exports of the public list missing:")
            errors.extend("  -%s" % s for s in lacking)

    odd = sorted(n for n, typ, ndx in unversioned
                 if not (n in nodes and ndx == "ABS"))
    if odd:
        errors.append("unversioned exports (not covered by the version "
                      "script):")
        for n in odd:
            errors.append("  +%s" % n)

    unresolved = sorted(client - default - nondefault)
    if unresolved:
        errors.append("symbols clients bind to that are not exported:")
        for s in unresolved:
            errors.append("  -%s" % s)

    want = expected_nodes(public, compat, private)
    bad_nodes = []
    for node, parents in want.items():
        if node not in nodes:
            bad_nodes.append("  -%s (node missing)" % node)
        elif nodes[node] != parents:
            bad_nodes.append("  %s: parents %s, expected %s"
                             % (node, nodes[node] or "none",
                                parents or "none"))
    for node in sorted(set(nodes) - set(want)):
        bad_nodes.append("  +%s (unexpected node)" % node)
    if bad_nodes:
        errors.append("version definitions differ:")
        errors.extend(bad_nodes)

    so = soname(tool, lib)
    if so != SONAME:
        errors.append("SONAME is %s, expected %s" % (so, SONAME))

    return errors, len(default), len(nodes)


def selftest_map(mapfile, public, compat, cc, workdir):
    """Links stubs for every public and compat symbol with the script."""
    src = os.path.join(workdir, "stubs.c")
    lib = os.path.join(workdir, SONAME)
    with open(src, "w") as f:
        for n in sorted(set(s.split("@", 1)[0] for s in public)):
            f.write("void %s(void);\nvoid %s(void) {}\n" % (n, n))
        # Bound to their version the way libibverbs/compat_1_0.c does.
        for i, s in enumerate(sorted(compat)):
            f.write("void compat_%d(void);\nvoid compat_%d(void) {}\n"
                    "__asm__(\".symver compat_%d, %s\");\n" % (i, i, i, s))
        # Must stay hidden behind "local: *".
        f.write("void not_exported_helper(void);\n"
                "void not_exported_helper(void) {}\n")
    cmd = [cc, "-shared", "-fPIC", "-o", lib, src,
           "-Wl,-soname," + SONAME, "-Wl,--version-script=" + mapfile,
           "-Wl,--no-undefined-version"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode:
        sys.exit("linking the stub library with %s failed:\n%s"
                 % (mapfile, p.stderr))
    return lib


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", help="the library to check")
    ap.add_argument("--public", required=True)
    ap.add_argument("--compat", required=True)
    ap.add_argument("--private", required=True)
    ap.add_argument("--private-exact", action="store_true",
                    help="the private node must export all of the private "
                    "list, not a subset")
    ap.add_argument("--client", required=True)
    ap.add_argument("--readelf", default="readelf")
    ap.add_argument("--selftest-map", metavar="MAP",
                    help="check a stub library linked with this script")
    ap.add_argument("--cc", default="cc")
    args = ap.parse_args()

    public = load_list(args.public)
    compat = load_list(args.compat)
    private = load_list(args.private)
    client = load_list(args.client)

    with tempfile.TemporaryDirectory() as tmp:
        if args.selftest_map:
            lib = selftest_map(args.selftest_map, public, compat, args.cc,
                               tmp)
        elif args.lib:
            lib = args.lib
        else:
            ap.error("--lib or --selftest-map is required")
        if not os.path.exists(lib):
            print("FAIL: %s does not exist (build the ibverbs target)"
                  % lib)
            return 1
        errors, ndefault, nnodes = check(lib, public, compat, private,
                                         args.private_exact, client,
                                         args.readelf)

    print("symbols: %s: %d default-version exports, %d version nodes; "
          "checked against %d public, %d compat, %d private and %d client "
          "entries"
          % (lib if not args.selftest_map else "stub library from " +
             args.selftest_map, ndefault, nnodes, len(public), len(compat),
             len(private), len(client)))
    if errors:
        print("FAIL:")
        print("\n".join(errors))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
