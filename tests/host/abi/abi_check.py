#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Compare our public headers with a reference set (Debian's rdma-core).

What is compared is discovered from the headers themselves, on both sides,
every time the test runs, so a struct, enum or macro added later is covered
without touching this script:

  * clang's JSON AST dump gives the structs/unions (with every member path
    reachable by name, through anonymous and inline nested aggregates), the
    enums and their constants, typedefs and function declarations, each with
    the file it was declared in;
  * the preprocessor (-E -dD) gives the macros and where they were defined.

Then a C probe is generated that prints sizeof/_Alignof of every type,
offsetof/sizeof of every member, the value (and type width/signedness) of
every enum constant and integer-valued macro.  The same probe is built and
run once against our headers and once against the reference headers and
the outputs are diffed.  Names and declared types (member types, function
prototypes) are compared straight from the two ASTs.

Exit status: 0 when identical (modulo known-differences), 1 on any
difference, 77 when a prerequisite (clang, reference headers) is missing --
except in CI (CI=true), where that is a failure (exit status 1).
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

HEADERS = [
    "verbs.h", "verbs_api.h", "ib_user_ioctl_verbs.h", "sa.h",
    "sa-kern-abi.h", "arch.h", "opcode.h", "tm_types.h",
]
# Our ib_user_ioctl_verbs.h is a wrapper: its content lives here.
KERNEL_FILES = ["/usr/include/rdma/ib_user_ioctl_verbs.h"]

SKIP = 77


def log(msg):
    print(msg, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


class Side:
    """One set of headers: ours or the reference."""

    def __init__(self, label, incdir, workdir):
        self.label = label
        self.incdir = os.path.realpath(incdir)
        self.workdir = os.path.join(workdir, label)
        os.makedirs(self.workdir, exist_ok=True)
        self.files = set(os.path.realpath(os.path.join(self.incdir,
                                                       "infiniband", h))
                         for h in HEADERS)
        self.files |= set(os.path.realpath(f) for f in KERNEL_FILES)
        self.records = collections.OrderedDict()   # name -> Record
        self.enums = collections.OrderedDict()     # tag -> [constants]
        self.constants = collections.OrderedDict()  # name -> enum tag/None
        self.typedefs = collections.OrderedDict()  # name -> type
        self.functions = collections.OrderedDict()  # name -> type
        self.macros = collections.OrderedDict()    # name -> (kind, body)
        self.int_macros = set()
        self.ptr_macros = set()

    def cflags(self):
        # /usr/include is searched anyway; naming it with -I would demote it
        # from a system directory.
        if self.incdir == "/usr/include":
            return []
        return ["-I", self.incdir]

    def mine(self, path):
        return path is not None and os.path.realpath(path) in self.files


class Record:
    def __init__(self, kind, name):
        self.kind = kind
        self.name = name
        self.members = collections.OrderedDict()  # path -> Member


class Member:
    def __init__(self, qtype, dtype, bitfield):
        self.qtype = qtype
        self.dtype = dtype
        self.bitfield = bitfield


# ---------------------------------------------------------------- the TU

def write_includes(path):
    with open(path, "w") as f:
        for h in HEADERS:
            f.write("#include <infiniband/%s>\n" % h)


COMMON_FLAGS = ["-std=gnu11", "-w", "-Wno-cpp", "-Wno-#warnings"]


def gcc_flags(cc):
    # -Wno-#warnings is clang's spelling; gcc would reject it.
    return [f for f in COMMON_FLAGS if f != "-Wno-#warnings"]


# ---------------------------------------------------------------- AST

UNNAMED = re.compile(r"\((?:unnamed|anonymous)[^)]*\)")
SCOPE = re.compile(r"\b[A-Za-z_]\w*::")


def norm_type(t):
    if t is None:
        return None
    t = UNNAMED.sub("(anon)", t)
    t = SCOPE.sub("", t)
    return t


class AstWalker:
    """Walks clang's JSON dump in document order.

    Locations in the dump only carry "file" when it differs from the
    previously printed location, so the current file is tracked while
    walking, exactly in the order the dumper wrote them.
    """

    def __init__(self, side):
        self.side = side
        self.cur = None

    def track(self, obj):
        if isinstance(obj, dict):
            if "offset" in obj and "file" in obj:
                self.cur = obj["file"]
            for k, v in obj.items():
                if k in ("includedFrom", "inner"):
                    continue
                self.track(v)
        elif isinstance(obj, list):
            for v in obj:
                self.track(v)

    def node(self, n, parent_kind=None):
        """Returns the declaring file of n; recurses into its children."""
        if "loc" in n:
            self.track(n["loc"])
        here = self.cur
        if "range" in n:
            self.track(n["range"])
        for k, v in n.items():
            if k in ("loc", "range", "inner"):
                continue
            self.track(v)
        kind = n.get("kind")
        mine = self.side.mine(here)
        if kind == "RecordDecl":
            self.record(n, mine)
            return
        if kind == "EnumDecl":
            self.enum(n, mine)
            return
        if kind == "TypedefDecl" and mine and not n.get("isImplicit"):
            self.side.typedefs[n["name"]] = norm_type(
                n["type"].get("qualType"))
        if kind == "FunctionDecl" and mine and parent_kind is None and \
                not n.get("isImplicit"):    # e.g. a builtin's first use
            self.side.functions[n["name"]] = norm_type(
                n["type"].get("qualType"))
        # Function bodies and the like: keep tracking locations only.
        for c in n.get("inner", []):
            self.node(c, kind)

    def enum(self, n, mine):
        name = n.get("name")
        consts = []
        for c in n.get("inner", []):
            if c.get("kind") == "EnumConstantDecl":
                consts.append(c["name"])
            self.node(c, "EnumDecl")
        if not mine:
            return
        if name:
            self.side.enums[name] = consts
        for c in consts:
            self.side.constants[c] = name

    def record(self, n, mine):
        # Children first, so nested named records get registered and the
        # location state stays in step.
        for c in n.get("inner", []):
            self.node(c, "RecordDecl")
        name = n.get("name")
        if not (mine and name and n.get("completeDefinition")):
            return
        rec = Record(n.get("tagUsed", "struct"), name)
        self.members(n, "", rec)
        self.side.records[name] = rec

    def members(self, n, prefix, rec):
        kids = n.get("inner", [])
        for i, c in enumerate(kids):
            if c.get("kind") != "FieldDecl":
                continue
            inline = None
            if i > 0 and kids[i - 1].get("kind") == "RecordDecl" and \
                    not kids[i - 1].get("name"):
                qt = c["type"].get("qualType", "")
                if "unnamed" in qt or "anonymous" in qt:
                    inline = kids[i - 1]
            fname = c.get("name")
            if not fname:
                # Anonymous struct/union member: its fields are reached
                # directly by name from the enclosing aggregate.
                if inline is not None:
                    self.members(inline, prefix, rec)
                continue
            path = prefix + fname
            rec.members[path] = Member(
                norm_type(c["type"].get("qualType")),
                c["type"].get("desugaredQualType",
                              c["type"].get("qualType")),
                bool(c.get("isBitfield")))
            if inline is not None:
                self.members(inline, path + ".", rec)


def collect_ast(side, clang, tu):
    out = os.path.join(side.workdir, "ast.json")
    cmd = [clang, "-x", "c", "-fsyntax-only", "-Xclang", "-ast-dump=json"] \
        + COMMON_FLAGS + side.cflags() + [tu]
    with open(out, "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE,
                           universal_newlines=True)
    if p.returncode:
        raise SystemExit("%s: clang failed on the %s headers:\n%s"
                         % (sys.argv[0], side.label, p.stderr))
    with open(out) as f:
        tree = json.load(f)
    os.remove(out)      # tens of MB, and easily regenerated
    w = AstWalker(side)
    for n in tree.get("inner", []):
        w.node(n)


# ---------------------------------------------------------------- macros

LINEMARK = re.compile(r'^# \d+ "([^"]*)"')
DEFINE = re.compile(r"^#define ([A-Za-z_]\w*)(\([^)]*\))?(?:\s(.*))?$")
UNDEF = re.compile(r"^#undef ([A-Za-z_]\w*)")


def collect_macros(side, cc, tu):
    cmd = [cc, "-E", "-dD"] + gcc_flags(cc) + side.cflags() + [tu]
    p = run(cmd)
    if p.returncode:
        raise SystemExit("%s: preprocessing the %s headers failed:\n%s"
                         % (sys.argv[0], side.label, p.stderr))
    cur = None
    for line in p.stdout.splitlines():
        m = LINEMARK.match(line)
        if m:
            cur = m.group(1)
            continue
        m = DEFINE.match(line)
        if m:
            if side.mine(cur):
                kind = "func" if m.group(2) is not None else "obj"
                side.macros[m.group(1)] = (kind, (m.group(3) or "").strip())
            else:
                side.macros.pop(m.group(1), None)
            continue
        m = UNDEF.match(line)
        if m:
            side.macros.pop(m.group(1), None)


def filter_compiling(side, cc, names, template, what):
    """Keeps the names for which template % name compiles."""
    names = list(names)
    src = os.path.join(side.workdir, "%s-check.c" % what)
    for _ in range(8):
        if not names:
            return set()
        lines = ["#include <infiniband/%s>" % h for h in HEADERS]
        lines += ["#include <stdint.h>"]
        lines += [template.format(i=i, name=n) for i, n in enumerate(names)]
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        p = run([cc, "-c", "-o", os.devnull] + gcc_flags(cc) +
                side.cflags() + [src])
        if p.returncode == 0:
            return set(names)
        # Each candidate sits in its own function chk_<index>.
        bad = set(int(i) for i in re.findall(r"\bchk_(\d+)\b", p.stderr))
        bad = set(i for i in bad if i < len(names))
        if not bad:
            break
        names = [n for i, n in enumerate(names) if i not in bad]
    # Could not attribute the errors to lines: test one by one.
    good = set()
    for n in names:
        with open(src, "w") as f:
            f.write("\n".join(["#include <infiniband/%s>" % h
                               for h in HEADERS] + ["#include <stdint.h>",
                              template.format(i=0, name=n)]) + "\n")
        p = run([cc, "-c", "-o", os.devnull] + gcc_flags(cc) +
                side.cflags() + [src])
        if p.returncode == 0:
            good.add(n)
    return good


INT_TEMPLATE = ("static void __attribute__((unused)) chk_{i}(void) "
                "{{ switch (0ULL) {{ case ({name}): break; }} }}")
PTR_TEMPLATE = ("static void __attribute__((unused)) chk_{i}(void) "
                "{{ _Static_assert(__builtin_constant_p((unsigned long long)"
                "(uintptr_t)(const void *)({name})), \"\"); }}")


def classify_macros(side, cc):
    objs = [n for n, (k, body) in side.macros.items() if k == "obj" and body]
    side.int_macros = filter_compiling(side, cc, objs, INT_TEMPLATE, "int")
    rest = [n for n in objs if n not in side.int_macros]
    side.ptr_macros = filter_compiling(side, cc, rest, PTR_TEMPLATE, "ptr")


# ---------------------------------------------------------------- probe

INTEGER_WORDS = {"char", "short", "int", "long", "signed", "unsigned",
                 "_Bool", "__int128"}


def is_integer_type(dtype):
    if dtype is None or any(c in dtype for c in "*[("):
        return False
    if dtype.startswith("enum "):
        return True
    words = dtype.replace("const ", "").replace("volatile ", "").split()
    return bool(words) and all(w in INTEGER_WORDS for w in words)


def write_probe(probe_path, records, enums, typedefs, constants,
                int_macros, ptr_macros):
    o = []
    o.append("#include <stdio.h>")
    o.append("#include <stddef.h>")
    o.append("#include <stdint.h>")
    for h in HEADERS:
        o.append("#include <infiniband/%s>" % h)
    o.append("")
    o.append("#define SZ(x) ((unsigned long)sizeof(x))")
    o.append("#define AL(x) ((unsigned long)_Alignof(x))")
    o.append("#define NEG(x) ((__typeof__(x))-1 < (__typeof__(x))0)")
    o.append("#define M(t, m) (((t *)0)->m)")
    o.append("")
    o.append("int main(void)")
    o.append("{")
    for rec in records:
        t = "%s %s" % (rec.kind, rec.name)
        o.append('\tprintf("type %s size=%%lu align=%%lu\\n", SZ(%s), '
                 'AL(%s));' % (t, t, t))
        for path, mem in rec.members.items():
            key = "%s.%s" % (rec.name, path)
            if mem.bitfield:
                o.append('\tprintf("member %s bitfield\\n");' % key)
                continue
            if mem.qtype.endswith("[]"):
                o.append('\tprintf("member %s offset=%%lu flexible\\n", '
                         '(unsigned long)offsetof(%s, %s));'
                         % (key, t, path))
                continue
            extra_fmt, extra_arg = "", ""
            if is_integer_type(mem.dtype):
                extra_fmt = " signed=%d"
                extra_arg = ", (int)NEG(M(%s, %s))" % (t, path)
            o.append('\tprintf("member %s offset=%%lu size=%%lu%s\\n", '
                     '(unsigned long)offsetof(%s, %s), SZ(M(%s, %s))%s);'
                     % (key, extra_fmt, t, path, t, path, extra_arg))
    for tag in enums:
        t = "enum %s" % tag
        o.append('\tprintf("type %s size=%%lu align=%%lu signed=%%d\\n", '
                 'SZ(%s), AL(%s), (int)((%s)-1 < 0));' % (t, t, t, t))
    for name in typedefs:
        o.append('\tprintf("typedef %s size=%%lu\\n", SZ(%s));'
                 % (name, name))
    for name in list(constants) + list(int_macros):
        o.append('\tprintf("const %s value=%%llu size=%%lu signed=%%d\\n", '
                 '(unsigned long long)(%s), SZ(%s), (int)NEG(%s));'
                 % (name, name, name, name))
    for name in ptr_macros:
        o.append('\tprintf("pointer %s value=%%llx\\n", '
                 '(unsigned long long)(uintptr_t)(const void *)(%s));'
                 % (name, name))
    o.append("\treturn 0;")
    o.append("}")
    with open(probe_path, "w") as f:
        f.write("\n".join(o) + "\n")


def build_and_run(side, cc, probe_src):
    exe = os.path.join(side.workdir, "probe")
    p = run([cc, "-o", exe] + gcc_flags(cc) + side.cflags() + [probe_src])
    if p.returncode:
        return None, p.stderr
    p = run([exe])
    if p.returncode:
        return None, "probe exited with %d\n%s" % (p.returncode, p.stderr)
    return p.stdout.splitlines(), None


# ---------------------------------------------------------------- compare

def load_known(path):
    known = set()
    if not path:
        return known
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                known.add(tuple(line.split()[:2]))
    return known


class Report:
    def __init__(self, known):
        self.known = known
        self.used = set()
        self.problems = []
        self.tolerated = []

    def diff(self, kind, name, text):
        if (kind, name) in self.known:
            self.used.add((kind, name))
            self.tolerated.append("%s %s: %s" % (kind, name, text))
        else:
            self.problems.append("%s %s: %s" % (kind, name, text))


def compare_sets(rep, kind, ours, ref):
    for n in sorted(set(ours) - set(ref)):
        rep.diff("only-ours-" + kind, n, "declared only in our headers")
    for n in sorted(set(ref) - set(ours)):
        rep.diff("missing-" + kind, n, "missing from our headers")


def in_ci():
    """CI (.ci/run sets CI=true) installs every prerequisite
    (buildlib/install-deps): there a missing one is a failure, since a
    skipped comparison would let CI pass without comparing anything."""
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def missing():
    return "FAIL (CI)" if in_ci() else "SKIP"


def missing_status():
    return 1 if in_ci() else SKIP


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ours", required=True,
                    help="include dir holding our infiniband/*.h")
    ap.add_argument("--ref", default="/usr/include",
                    help="include dir holding the reference infiniband/*.h")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--clang", default="clang")
    ap.add_argument("--workdir", default="abi-work")
    ap.add_argument("--known", help="file of tolerated differences")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    clang = shutil.which(args.clang)
    if not clang:
        log("%s: %s not found (needed for the AST dump; "
            "buildlib/install-deps)" % (missing(), args.clang))
        return missing_status()
    if not os.path.exists(os.path.join(args.ref, "infiniband", "verbs.h")):
        log("%s: no reference headers in %s (install libibverbs-dev)"
            % (missing(), args.ref))
        return missing_status()
    for h in HEADERS:
        if not os.path.exists(os.path.join(args.ours, "infiniband", h)):
            log("FAIL: %s/infiniband/%s is missing (build the "
                "ibv_public_headers target first)" % (args.ours, h))
            return 1

    work = os.path.abspath(args.workdir)
    os.makedirs(work, exist_ok=True)
    tu = os.path.join(work, "headers.c")
    write_includes(tu)

    ours = Side("ours", args.ours, work)
    ref = Side("ref", args.ref, work)
    for side in (ours, ref):
        collect_ast(side, clang, tu)
        collect_macros(side, args.cc, tu)
        classify_macros(side, args.cc)

    rep = Report(load_known(args.known))

    # Names present on one side only.
    compare_sets(rep, "record", ours.records, ref.records)
    compare_sets(rep, "enum", ours.enums, ref.enums)
    compare_sets(rep, "typedef", ours.typedefs, ref.typedefs)
    compare_sets(rep, "function", ours.functions, ref.functions)
    # A constant may be an enumerator on one side and a macro on the other.
    ours_consts = set(ours.constants) | ours.int_macros
    ref_consts = set(ref.constants) | ref.int_macros
    compare_sets(rep, "constant", ours_consts, ref_consts)
    ours_m = set(n for n in ours.macros if n not in ref_consts)
    ref_m = set(n for n in ref.macros if n not in ours_consts)
    compare_sets(rep, "macro", ours_m, ref_m)

    # Declared types, straight from the ASTs.
    common_recs = [n for n in ours.records if n in ref.records]
    nmembers = 0
    for n in common_recs:
        a, b = ours.records[n], ref.records[n]
        if a.kind != b.kind:
            rep.diff("record-kind", n, "%s vs %s" % (a.kind, b.kind))
        if list(a.members) != list(b.members):
            if set(a.members) == set(b.members):
                rep.diff("member-order", n, "members in a different order")
            for p in a.members:
                if p not in b.members:
                    rep.diff("only-ours-member", n + "." + p,
                             "not in the reference")
            for p in b.members:
                if p not in a.members:
                    rep.diff("missing-member", n + "." + p,
                             "missing from ours")
        for p, m in a.members.items():
            if p in b.members:
                nmembers += 1
                if m.qtype != b.members[p].qtype:
                    rep.diff("member-type", n + "." + p, "'%s' vs '%s'"
                             % (m.qtype, b.members[p].qtype))
    for n, t in ours.functions.items():
        if n in ref.functions and t != ref.functions[n]:
            rep.diff("prototype", n, "'%s' vs '%s'" % (t, ref.functions[n]))
    for n, t in ours.typedefs.items():
        if n in ref.typedefs and t != ref.typedefs[n]:
            rep.diff("typedef-type", n, "'%s' vs '%s'" % (t, ref.typedefs[n]))
    for n in ours.macros:
        if n in ref.macros and ours.macros[n][0] != ref.macros[n][0]:
            rep.diff("macro-kind", n, "object-like vs function-like differ")

    # Sizes, offsets and values, measured by the compiler on both sides.
    records = []
    for n in common_recs:
        rec = Record(ours.records[n].kind, n)
        for p, m in ours.records[n].members.items():
            if p in ref.records[n].members:
                rec.members[p] = m
        records.append(rec)
    enums = [n for n in ours.enums if n in ref.enums]
    typedefs = [n for n in ours.typedefs if n in ref.typedefs]
    constants = [n for n in ours.constants if n in ref_consts]
    int_macros = sorted(n for n in ours.int_macros
                        if n in ref_consts and n not in ours.constants)
    ptr_macros = sorted(ours.ptr_macros & ref.ptr_macros)
    for n in sorted((ours.ptr_macros ^ ref.ptr_macros) &
                    set(ours.macros) & set(ref.macros)):
        rep.diff("macro-value", n, "pointer constant on one side only")

    probe = os.path.join(work, "probe.c")
    write_probe(probe, records, enums, typedefs, constants, int_macros,
                ptr_macros)
    outputs = {}
    for side in (ours, ref):
        lines, err = build_and_run(side, args.cc, probe)
        if lines is None:
            log("FAIL: the probe does not build against the %s headers:\n%s"
                % (side.label, err))
            return 1
        outputs[side.label] = lines
    a, b = outputs["ours"], outputs["ref"]
    if len(a) != len(b):
        rep.problems.append("probe printed %d lines for ours, %d for ref"
                            % (len(a), len(b)))
    for la, lb in zip(a, b):
        if la != lb:
            kind, name = la.split()[0], la.split()[1]
            rep.diff("layout-" + kind, name, "ours [%s] ref [%s]"
                     % (" ".join(la.split()[2:]), " ".join(lb.split()[2:])))

    nconst = len(constants) + len(int_macros)
    log("abi.headers: compared %d structs/unions with %d members, "
        "%d enum types, %d typedefs, %d constants (%d enumerators, "
        "%d integer macros), %d pointer macros, %d functions, "
        "%d macro names; %d probe lines"
        % (len(records), nmembers, len(enums), len(typedefs), nconst,
           len(constants), len(int_macros), len(ptr_macros),
           len([n for n in ours.functions if n in ref.functions]),
           len(set(ours.macros) & set(ref.macros)), len(a)))
    if args.verbose or rep.tolerated:
        for t in rep.tolerated:
            log("  tolerated: " + t)
    stale = rep.known - rep.used
    for k in sorted(stale):
        log("  note: known difference no longer seen: %s %s" % k)
    if rep.problems:
        log("FAIL: %d difference(s) between our headers (%s) and the "
            "reference (%s):" % (len(rep.problems), ours.incdir, ref.incdir))
        for p in rep.problems:
            log("  " + p)
        return 1
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
