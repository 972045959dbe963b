#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# needs: git gcc pahole
"""check-uapi-abi.py [TREE...]: the uapi headers the series change keep
the ABI of their base, at every patch, as TAP.

Every program already built carries its headers' layout: a field that
moves, or a constant that changes value, is misread by the kernel from
then on.  For each tree of kernel-config/sources with a series (default:
all of them), the patches are applied in order onto the pristine base in
a scratch index (as check-patches does); after each patch that touches a
uapi header (include/uapi/, and perf's copies under tools/), that header
is compiled with -g into a probe object that holds one variable of each
struct, union and enum it defines, pahole prints their layout, and the
layout is compared with the base's:
  - a member of the base keeps its offset, size and type (bit offset and
    width for bitfields);
  - a new member takes only bits that a reserved member ("__reserved*",
    "*_res") held in the base, or bits past the base's size;
  - a struct grows only where a new PERF_ATTR_SIZE_VER* names its size
    (perf_event_attr), no other struct or union grows;
  - an enumerator keeps its value; a new one takes a value that no
    enumerator of the base has ("*_MAX" counts are non-ABI);
  - an object-like #define keeps its definition; a new prctl option
    ("#define PR_*", not the "# define" of its arguments) takes a
    number no option of the base has.
After the last patch: a tools/ copy that matched its kernel header in the
base matches it still (perf's check-headers.sh, which only warns); and a
leg whose tree is not the primary one (the LTS leg) keeps its new numbers
out of the primary base's use (attr bits reserved there, record types and
prctl options it does not use), so that a perf.data or a binary of one
leg is never misread by the other.
"""

import functools
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
from sideband_tables import folder_patches, rows  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("SIDEBAND_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "sideband")
UAPI = re.compile(r"(?:^|/)include/uapi/(.+\.h)$")
# A pahole member line: "TYPE NAME[:BITS][DIMS];  /* OFFSET[:BIT] SIZE */".
MEMBER = re.compile(r"^\s*(.+?)\s+\**(\w+)(?::(\d+))?((?:\[\d+\])*);\s*"
                    r"/\*\s*(\d+)(?::\s*(\d+))?\s+(\d+)\s*\*/")
SIZE = re.compile(r"/\* size: (\d+),")
ENUMERATOR = re.compile(r"^\s*(\w+)\s*=\s*(-?\d+),?\s*$")
DEFINE = re.compile(r"^\s*#(\s*)define\s+(\w+)(?!\()\s+(.*?)\s*(?:/\*.*)?$")


def git(base, *args, index=None, inp=None):
    env = dict(os.environ, GIT_INDEX_FILE=index) if index else None
    return subprocess.run(["git", "--git-dir=" + base] + list(args), env=env, input=inp,
                          capture_output=True, text=True)


def reserved(name):
    return "reserved" in name or name.endswith("_res")


def layout(text, rel, tmp):
    """What a header defines: {"types": {name: {"size", "members":
    {member: (type, first bit, bits)}}}, "enums": {name: {enumerator:
    value}}, "defines": {name: definition}, "options": {PR_*: number}},
    or a string saying why it could not be compiled."""
    inc = os.path.join(tmp, "inc")
    path = os.path.join(inc, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    kinds = re.findall(r"^(struct|union|enum) (\w+) \{", text, re.M)
    probe = os.path.join(tmp, "probe.c")
    with open(probe, "w") as f:
        f.write("#include <%s>\n" % rel)
        f.writelines("%s %s sideband_probe_%s;\n" % (k, n, n) for k, n in kinds)
    obj = os.path.join(tmp, "probe.o")
    cc = subprocess.run(["gcc", "-g", "-c", "-I", inc, probe, "-o", obj],
                        capture_output=True, text=True)
    if cc.returncode:
        return "gcc: " + cc.stderr.strip()
    out = {"types": {}, "enums": {}, "defines": {}, "options": {}}
    names = [n for _, n in kinds]
    if names:
        ph = subprocess.run(["pahole", "-C", ",".join(names), obj],
                            capture_output=True, text=True)
        if ph.returncode:
            return "pahole: " + ph.stderr.strip()
        cur = None
        for line in ph.stdout.splitlines():
            m = re.match(r"^(struct|union|enum) (\w+) \{", line)
            if m:
                cur = m.group(2)
                if m.group(1) == "enum":
                    out["enums"][cur] = {}
                else:
                    out["types"][cur] = {"size": None, "members": {}}
                continue
            if cur in out["enums"]:
                m = ENUMERATOR.match(line)
                if m:
                    out["enums"][cur][m.group(1)] = int(m.group(2))
            elif cur in out["types"]:
                m = SIZE.search(line)
                if m:
                    out["types"][cur]["size"] = int(m.group(1))
                    continue
                m = MEMBER.match(line)
                if m:
                    typ, name, bits, dims, off, bit, size = m.groups()
                    first = int(off) * 8 + int(bit or 0)
                    width = int(bits) if bits else int(size) * 8
                    out["types"][cur]["members"][name] = (typ + dims, first, width)
    for line in text.splitlines():
        m = DEFINE.match(line)
        if not m:
            continue
        space, name, value = m.groups()
        if value == "" or name.startswith("_") and name.endswith("_H"):
            continue
        out["defines"][name] = re.sub(r"\s+", " ", value)
        if name.startswith("PR_") and not space and \
                re.fullmatch(r"0x[0-9a-fA-F]+|[0-9]+", value):
            out["options"][name] = int(value, 0)
    return out


def compare(old, new):
    """What NEW breaks of OLD's ABI, one line each."""
    bad = []
    for t, o in old["types"].items():
        n = new["types"].get(t)
        if n is None:
            bad.append("%s: gone" % t)
            continue
        free = set()
        for name, (typ, first, width) in o["members"].items():
            if reserved(name):
                free.update(range(first, first + width))
                continue
            got = n["members"].get(name)
            if got is None:
                bad.append("%s.%s: gone" % (t, name))
            elif got != (typ, first, width):
                bad.append("%s.%s: %s at bit %d, %d bits; was %s at bit %d, %d bits" % (
                    (t, name) + got + (typ, first, width)))
        for name, (typ, first, width) in n["members"].items():
            if name in o["members"] or reserved(name):
                continue
            outside = [b for b in range(first, first + width)
                       if b not in free and b < o["size"] * 8]
            if outside:
                bad.append("%s.%s: takes bits %d-%d, not reserved in the base" % (
                    t, name, outside[0], outside[-1]))
        if n["size"] != o["size"]:
            vers = [v for k, v in new["defines"].items()
                    if k.startswith("PERF_ATTR_SIZE_VER") and k not in old["defines"]]
            if t != "perf_event_attr" or n["size"] < o["size"] or \
                    str(n["size"]) not in vers:
                bad.append("sizeof(%s): %d, was %d%s" % (
                    t, n["size"], o["size"],
                    " (no new PERF_ATTR_SIZE_VER* names it)" if t == "perf_event_attr" else ""))
    for e, o in old["enums"].items():
        n = new["enums"].get(e, {})
        used = {v: k for k, v in o.items() if not k.endswith("_MAX")}
        for k, v in o.items():
            if k.endswith("_MAX"):
                continue
            if n.get(k) != v:
                bad.append("%s: %s is %s, was %d" % (e, k, n.get(k, "gone"), v))
        for k, v in n.items():
            if k not in o and not k.endswith("_MAX") and v in used:
                bad.append("%s: new %s = %d, the value of %s" % (e, k, v, used[v]))
    for k, v in old["defines"].items():
        if new["defines"].get(k) != v:
            bad.append("#define %s: %s, was %s" % (k, new["defines"].get(k, "gone"), v))
    opts = {v: k for k, v in old["options"].items()}
    for k, v in new["options"].items():
        if k not in old["options"] and v in opts:
            bad.append("prctl option %s = %d, the number of %s" % (k, v, opts[v]))
    return bad


def clear_of(new, old, theirs):
    """What a leg's new numbers (NEW against its base OLD) take that the
    primary base THEIRS uses, one line each."""
    bad = []
    for t, n in new["types"].items():
        if t not in old["types"] or t not in theirs["types"]:
            continue
        o, p = old["types"][t], theirs["types"][t]
        used = set()
        for name, (_, first, width) in p["members"].items():
            if not reserved(name):
                used.update(range(first, first + width))
        for name, (_, first, width) in n["members"].items():
            if name in o["members"] or reserved(name):
                continue
            hit = sorted(used.intersection(range(first, first + width)))
            if hit:
                bad.append("%s.%s: bits %d-%d are used in the primary base" % (
                    t, name, hit[0], hit[-1]))
    for e, n in new["enums"].items():
        p = {v: k for k, v in theirs["enums"].get(e, {}).items()}
        for k, v in n.items():
            if k not in old["enums"].get(e, {}) and not k.endswith("_MAX") and \
                    v in p and p[v] != k:
                bad.append("%s: %s = %d, %s in the primary base" % (e, k, v, p[v]))
    p = {v: k for k, v in theirs["options"].items()}
    for k, v in new["options"].items():
        if k not in old["options"] and v in p and p[v] != k:
            bad.append("prctl option %s = %d, %s in the primary base" % (k, v, p[v]))
    return bad


class Tap:
    def __init__(self):
        self.lines, self.failed = [], 0

    def case(self, name, problems):
        self.lines.append(("not ok" if problems else "ok") + " %d %s" % (
            sum(1 for line in self.lines if not line.startswith("#")) + 1, name))
        self.lines.extend("# " + p for p in problems)
        self.failed += bool(problems)

    def print(self):
        print("TAP version 13")
        print("1..%d" % sum(1 for line in self.lines if not line.startswith("#")))
        print("\n".join(self.lines))


@functools.lru_cache(maxsize=None)
def base_of(tree, package):
    """The pristine base repository of TREE (made by prepare-tree), asked
    for once per run: the primary leg's serves the other legs' check too."""
    subprocess.run([os.path.join(ROOT, "scripts", "prepare-tree"), "--stamp", tree],
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(CACHE, "base", package + ".git")


def check_tree(tap, tree, src, primary_base):
    """Check TREE's series (SRC: its sources row), and for another leg
    than the primary one, its new numbers against PRIMARY_BASE (that
    leg's base repository)."""
    base = base_of(tree, src["package"])
    patches = [p for d in src["series"].split() for p in folder_patches(d)]
    touched = {}
    for p in patches:
        with open(os.path.join(ROOT, p), errors="replace") as f:
            files = re.findall(r"^diff --git a/(\S+) b/", f.read(), re.M)
        touched[p] = [h for h in files if UAPI.search(h)]
    headers = sorted({h for hs in touched.values() for h in hs})
    with tempfile.TemporaryDirectory() as tmp:
        index = os.path.join(tmp, "index")
        git(base, "read-tree", "base", index=index)
        old = {}
        for h in headers:
            blob = git(base, "show", "base:" + h)
            if blob.returncode == 0:
                old[h] = layout(blob.stdout, UAPI.search(h).group(1), tmp)
                if isinstance(old[h], str):
                    tap.case("%s: %s of the base compiles" % (tree, h), [old[h]])
                    del old[h]
        new = dict(old)
        for p in patches:
            applied = git(base, "apply", "--cached", os.path.join(ROOT, p), index=index)
            if applied.returncode:
                tap.case("%s: %s applies" % (tree, p), applied.stderr.splitlines())
                return None
            for h in touched[p]:
                blob = git(base, "cat-file", "blob", ":" + h, index=index)
                if h not in old or blob.returncode:
                    continue
                new[h] = layout(blob.stdout, UAPI.search(h).group(1), tmp)
                problems = [new[h]] if isinstance(new[h], str) else compare(old[h], new[h])
                tap.case("%s: %s keeps the ABI of %s" % (tree, p, h), problems)
                if problems:
                    new[h] = old[h]
        # The tools/ copies that were in sync with the kernel's header.
        for h in headers:
            if not h.startswith("tools/"):
                continue
            kernel = "include/uapi/" + UAPI.search(h).group(1)
            show = [git(base, "show", "base:" + f).stdout for f in (h, kernel)]
            if show[0] and show[0] == show[1]:
                now = [git(base, "cat-file", "blob", ":" + f, index=index).stdout
                       for f in (h, kernel)]
                tap.case("%s: %s matches %s after the series" % (tree, h, kernel),
                         [] if now[0] == now[1] else ["the copy differs from the kernel's header"])
        if primary_base is not None:
            problems = []
            for h, n in new.items():
                theirs = git(primary_base, "show", "base:" + h)
                if not h.startswith("include/") or theirs.returncode:
                    continue
                theirs = layout(theirs.stdout, UAPI.search(h).group(1), tmp)
                problems += [theirs] if isinstance(theirs, str) else \
                    clear_of(n, old[h], theirs)
            tap.case("%s: the leg's new numbers are clear of the primary base's" % tree,
                     problems)


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[0])
        return 0
    sources = [r for r in rows("sources") if r["series"] != "-"]
    names = [r["name"] for r in sources]
    trees = argv or names
    unknown = [t for t in trees if t not in names]
    if unknown:
        print("check-uapi-abi: no tree with a series named %s" % unknown[0], file=sys.stderr)
        return 1
    tap = Tap()
    primary = sources[0]
    for src in sources:
        if src["name"] in trees:
            check_tree(tap, src["name"], src, None if src is primary else
                       base_of(primary["name"], primary["package"]))
    tap.print()
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
