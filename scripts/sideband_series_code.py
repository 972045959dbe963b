#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel functions a series adds or changes, for telling a KCSAN
report in the series' code from one in upstream code alone.

  sideband_series_code.py TREE_DIR    print them, one per line

A report's title names the function of each racing access, the first
frame of its stack.  Without debug information that is the function the
access was compiled into, so the set holds:
  - every function whose definition has a line the series adds or
    changes (git diff of tag "base" to HEAD, tools/ left out), found by
    the kernel's own layout: a body opens with "{" and closes with "}"
    in the first column; SYSCALL_DEFINEn(x) gives its __do_sys_x,
    __se_sys_x and the arch's wrappers;
  - the functions a changed static or header function can be inlined
    into: its callers in its file (static) or in the tree (a header's),
    and theirs, to a fixed point;
  - "*_NAME" for each trace event or ftrace entry NAME the series defines
    (TRACE_EVENT and the other macros make trace_event_raw_event_NAME,
    perf_trace_NAME, trace_raw_output_NAME and more from it).
It errs towards the series: a function it cannot parse (a body inside a
macro) is not in the set, but its callers and the event macros are.
The set is cached in the tree's .git, keyed by HEAD.
"""

import os
import re
import subprocess
import sys

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")
SYSCALL = re.compile(r"\b(?:COMPAT_)?SYSCALL_DEFINE\d\((\w+)")
EVENT = re.compile(r"^(?:TRACE_EVENT\w*|DECLARE_EVENT_CLASS|FTRACE_ENTRY\w*)\((\w+)"
                   r"|^DEFINE_EVENT\w*\(\w+,\s*(\w+)")
ONE_LINE = re.compile(r"^[A-Za-z_].*?\b([A-Za-z_]\w*)\s*\([^;]*\)\s*\{.*\}\s*$")
# Macros that come before a function's name in its definition line.
NOT_NAMES = {"__printf", "__scanf", "__attribute__", "__aligned", "__section",
             "__must_hold", "__acquires", "__releases", "__cond_acquires",
             "__no_sanitize_address", "__diag_push", "noinline", "__weak"}


def git(tree, *args):
    return subprocess.run(("git", "-C", tree) + args, check=True,
                          capture_output=True, text=True).stdout


def definitions(lines):
    """The functions of a C file: [(name, first line, last line)],
    1-based, the first line being where its header starts."""
    out = []
    start = None
    for i, line in enumerate(lines):
        # A "{" that continues a #define opens a body the macro makes
        # for each use (trace_events.h's); its "name" is a parameter.
        if line.startswith("{") and not line.rstrip().endswith("\\"):
            # The header: the lines above, back to a blank one, a
            # directive, a comment's end or the end of a statement.
            j = i
            while j > 0:
                prev = lines[j - 1].rstrip()
                if not prev or prev.startswith("#") or prev.endswith((";", "}", "*/")):
                    break
                j -= 1
            header = " ".join(lines[j:i])
            names = [n for n in NAME.findall(header) if n not in NOT_NAMES]
            start = (names[0] if names else None, j + 1, header)
        elif line.startswith("}") and start:
            name, first, header = start
            if name:
                m = SYSCALL.search(header)
                if m:
                    for pre in ("__do_sys_", "__se_sys_", "__x64_sys_", "__ia32_sys_",
                                "__arm64_sys_", "__riscv_sys_", "sys_"):
                        out.append((pre + m.group(1), first, i + 1))
                else:
                    out.append((name, first, i + 1))
            start = None
    return out


def changed_lines(tree, path):
    """The line numbers of PATH (at HEAD) that the series adds or changes."""
    out = set()
    for line in git(tree, "diff", "-U0", "base", "HEAD", "--", path).splitlines():
        m = HUNK.match(line)
        if m:
            first, count = int(m.group(1)), int(m.group(2) or 1)
            out.update(range(first, first + count))
    return out


MEMO = {}


def read(tree, path):
    """PATH's lines, definitions and text, read once."""
    if path not in MEMO:
        lines = read_lines(tree, path)
        MEMO[path] = (lines, definitions(lines), "\n".join(lines))
    return MEMO[path]


def read_lines(tree, path):
    try:
        with open(os.path.join(tree, path), errors="replace") as f:
            return f.read().split("\n")
    except FileNotFoundError:
        return []


def callers(tree, path, name):
    """The functions of PATH whose bodies call NAME, each with whether
    the compiler may inline it in turn (static, or in a header)."""
    lines, spans, _ = read(tree, path)
    called = re.compile(r"\b%s\s*\(" % re.escape(name))
    return {(n, inlinable(path, lines, first)) for n, first, last in spans
            if n != name and any(called.search(lines[k]) for k in range(first, last))}


def inlinable(path, lines, first):
    return path.endswith(".h") or bool(re.search(r"\bstatic\b", " ".join(lines[first - 1:first + 1])))


def compute(tree):
    names, events = set(), set()
    todo = set()  # (name, path): a function in the set the compiler may inline
    paths = [p for p in git(tree, "diff", "--name-only", "base", "HEAD").split("\n")
             if p.endswith((".c", ".h")) and not p.startswith("tools/")]
    for path in paths:
        lines, spans, _ = read(tree, path)
        changed = changed_lines(tree, path)
        for n, first, last in spans:
            if changed.intersection(range(first, last + 1)):
                names.add(n)
                if inlinable(path, lines, first):
                    todo.add((n, path))
        for k in changed:
            text = lines[k - 1] if 0 < k <= len(lines) else ""
            m = EVENT.match(text)
            if m:
                events.add(m.group(1) or m.group(2))
            m = ONE_LINE.match(text)
            if m and m.group(1) not in NOT_NAMES:
                names.add(m.group(1))
                todo.add((m.group(1), path))
    seen = set()
    while todo:
        seen |= todo
        # A static function's callers are in its file; a header's, in
        # any file that names it (one git grep for all of a round's).
        where = {(n, p): [p] for n, p in todo if not p.endswith(".h")}
        in_headers = sorted({n for n, p in todo if p.endswith(".h")})
        if in_headers:
            args = [a for n in in_headers for a in ("-e", n)]
            files = git(tree, "grep", "-lw", *args, "--", "*.c", "*.h",
                        ":!tools", ":!Documentation").split()
            for n, p in todo:
                if p.endswith(".h"):
                    word = re.compile(r"\b%s\b" % re.escape(n))
                    where[(n, p)] = [f for f in files
                                     if word.search(read(tree, f)[2])]
        found = set()
        for (n, _), files in where.items():
            for f in files:
                for caller, again in callers(tree, f, n):
                    names.add(caller)
                    if again:
                        found.add((caller, f))
        todo = found - seen
    return sorted(names) + sorted("*_" + e for e in events)


def series_functions(tree):
    """The set of TREE_DIR (a prepared tree, tag "base" under the series)
    as a list of names and "*_NAME" patterns; None if it has no base."""
    try:
        head = git(tree, "rev-parse", "HEAD").strip()
        git(tree, "rev-parse", "--verify", "-q", "base")
        cache = os.path.join(git(tree, "rev-parse", "--absolute-git-dir").strip(),
                             "sideband-series-functions")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    try:
        with open(cache) as f:
            key, *names = f.read().split("\n")
            if key == head:
                return [n for n in names if n]
    except FileNotFoundError:
        pass
    names = compute(tree)
    tmp = "%s.%d" % (cache, os.getpid())
    with open(tmp, "w") as f:
        f.write("\n".join([head] + names) + "\n")
    os.replace(tmp, cache)
    return names


def in_series(function, names):
    """Whether FUNCTION is one of NAMES (a name, or "*_NAME" for any name
    that ends so)."""
    return any(function == n or (n.startswith("*") and function.endswith(n[1:]))
               for n in names)


def main(argv):
    if len(argv) != 2:
        print("usage: %s TREE_DIR" % os.path.basename(argv[0]), file=sys.stderr)
        return 2
    names = series_functions(argv[1])
    if names is None:
        print("%s: not a prepared tree (no tag base)" % argv[1], file=sys.stderr)
        return 1
    print("\n".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
