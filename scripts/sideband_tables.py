#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The harness's tables, read here and nowhere else.

  flavors            kernel-config/flavors: the kernels the harness builds
  sources            kernel-config/sources (or $SIDEBAND_SOURCES): the
                     trees they are made from, and their series folders
  postings           outgoing/postings (or $SIDEBAND_OUTGOING/postings):
                     how the series is mailed
  matrix             kernel-config/matrix: the build matrix
  expected-failures  qemu/expected-failures (or
                     $SIDEBAND_EXPECTED_FAILURES): "suite | test | reason"
  suite headers      the "# KEY: value" lines of a qemu/suites/ file

Each table is whitespace-separated columns with "#" comments; COLUMNS
names them, and the last column takes the rest of the line (fragments,
series folders, a subject prefix).  Python imports this module; shell
calls it through scripts/lib.sh (table_get, table_rows, suite_header),
by column name:

  sideband_tables.py keys TABLE             the first column, one per line
  sideband_tables.py get TABLE KEY COLUMN   one value (exit 1: no such row)
  sideband_tables.py rows TABLE COLUMN...   those columns of every row,
                                            tab-separated
  sideband_tables.py header FILE KEY        a suite header's value
  sideband_tables.py contract FILE          a suite's headers, checked and
                                            with their defaults, KEY=VALUE
                                            (suite_contract)
  sideband_tables.py suites                 the suites and their headers,
                                            as a markdown table (make suites)
  sideband_tables.py posting NAME           the patch files of a posting,
                                            one per line
  sideband_tables.py flavors                the kernel flavours, their rows
                                            and suites, as a markdown table
                                            (make flavors)
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COLUMNS = {
    "flavors": ("name", "arch", "source", "modules", "fragments"),
    "sources": ("name", "package", "version", "from", "series"),
    "postings": ("name", "folder", "first", "tree", "after", "prefix"),
    "matrix": ("name", "arch", "cross", "cc", "checks", "config"),
}


def columns(table, wanted=()):
    """TABLE's column names; KeyError naming what is missing if TABLE or
    one of WANTED is not one of them."""
    if table not in COLUMNS:
        raise KeyError("no table %r (tables: %s)" % (table, ", ".join(COLUMNS)))
    for c in wanted:
        if c not in COLUMNS[table]:
            raise KeyError("%s has no column %r (%s)" % (table, c, " ".join(COLUMNS[table])))
    return COLUMNS[table]


def path_of(table):
    if table in ("flavors", "matrix"):
        return os.path.join(ROOT, "kernel-config", table)
    if table == "sources":
        return os.environ.get("SIDEBAND_SOURCES") or os.path.join(ROOT, "kernel-config", "sources")
    outgoing = os.environ.get("SIDEBAND_OUTGOING") or os.path.join(ROOT, "outgoing")
    return os.path.join(outgoing, "postings")


def rows(table):
    """The rows of TABLE, in order, as {column: value}, and "about": the
    comment right above the row."""
    names = columns(table)
    out = []
    about = []
    with open(path_of(table)) as f:
        for line in f:
            words = line.split()
            if not words:
                about = []
                continue
            if words[0].startswith("#"):
                # The comment right above a row is what the row is for;
                # the file's own comment ends with the column names.
                text = line.strip().lstrip("#").strip()
                about = [] if text.split()[:len(names)] == list(names) else about + [text]
                continue
            if len(words) < len(names):
                raise ValueError("%s: %r has %d columns, not %d (%s)" % (
                    path_of(table), line.strip(), len(words), len(names), " ".join(names)))
            last = len(names) - 1
            r = dict(zip(names, words[:last] + [" ".join(words[last:])]))
            r["about"] = " ".join(about)
            about = []
            out.append(r)
    return out


def row(table, key):
    """The row of TABLE whose first column is KEY."""
    for r in rows(table):
        if r[columns(table)[0]] == key:
            return r
    raise KeyError("no %s row %r (see %s)" % (table, key, os.path.relpath(path_of(table), ROOT)))


def bar_rows(path, env, name, width):
    """The rows of a " | "-separated list (qemu/NAME, or $ENV), as lists
    of WIDTH fields; comments and other lines left out."""
    path = path or os.environ.get(env, os.path.join(ROOT, "qemu", name))
    try:
        with open(path) as f:
            rows = [line.rstrip("\n").split(" | ") for line in f if not line.startswith("#")]
    except FileNotFoundError:
        return []
    return [r for r in rows if len(r) == width]


def expected_failures(path=None):
    """qemu/expected-failures as {suite: {test: reason}}."""
    out = {}
    for suite, test, reason in bar_rows(path, "SIDEBAND_EXPECTED_FAILURES", "expected-failures", 3):
        out.setdefault(suite, {})[test] = reason
    return out


def known_races(path=None):
    """qemu/known-races as {location: reason}: the source line of a KCSAN
    report's access ("kernel/trace/trace.c:1871", in the series tree's
    numbering) that a person explained; a row may name several."""
    return {loc: reason for locs, reason in
            bar_rows(path, "SIDEBAND_KNOWN_RACES", "known-races", 2) for loc in locs.split()}


def suite_header(path, key):
    """The value of a suite file's first "# KEY:" line; "" if none."""
    prefix = "# %s:" % key
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(prefix):
                return line[len(prefix):].strip()
    return ""


def suite_about(path):
    """The comment that opens a suite file (after its SPDX line, before
    its headers), as one line."""
    words = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("#!") or "SPDX-License-Identifier" in line:
                continue
            if not line.startswith("#") or re.match(r"# [a-z]+:", line):
                break
            words.append(line[1:].strip())
    return " ".join(w for w in words if w)


SUITE_DEFAULTS = {"timeout": "600"}


def suite_contract(path):
    """A suite's headers, checked, as {key: words}: "flavors" (where it
    can run: kernel flavours, or host), "check" (where make check runs
    it: its "# check:" words, all of "flavors" without one, none for
    "-"), "uses" (the flavours whose builds a host check uses), "lock",
    "timeout" (600 without one) and "cmdline".  ValueError names the
    first header that is wrong."""
    h = {k: suite_header(path, k).split()
         for k in ("flavors", "check", "uses", "lock", "timeout", "cmdline")}
    for k, v in SUITE_DEFAULTS.items():
        h[k] = h[k] or [v]
    known = ["host"] + [r["name"] for r in rows("flavors")]
    if not h["flavors"]:
        raise ValueError("%s has no '# flavors:' header" % path)
    for w in h["flavors"]:
        if w not in known:
            raise ValueError("%s: unknown flavour '%s' (see kernel-config/flavors)" % (path, w))
    h["check"] = [w for w in h["check"] if w != "-"] if "-" in h["check"] \
        else h["check"] or list(h["flavors"])
    for w in h["check"]:
        if w not in h["flavors"]:
            raise ValueError("%s: '# check:' names '%s', not in its '# flavors:'" % (path, w))
    for w in h["uses"]:
        if w == "host" or w not in known:
            raise ValueError("%s: '# uses:' names '%s', not a kernel flavour" % (path, w))
    return h


def suite_files():
    """The suites of qemu/suites (or $SIDEBAND_SUITES), in name order, as
    (name, path): its executable files."""
    folder = os.environ.get("SIDEBAND_SUITES") or os.path.join(ROOT, "qemu", "suites")
    paths = ((name, os.path.join(folder, name)) for name in sorted(os.listdir(folder)))
    return [(n, p) for n, p in paths if os.path.isfile(p) and os.access(p, os.X_OK)]


def suites_table():
    """Every suite of qemu/suites (or $SIDEBAND_SUITES): its flavours, its
    watchdog and what it runs, from the file itself."""
    lines = ["| suite | flavours | in make check | watchdog | what it runs |",
             "| --- | --- | --- | --- | --- |"]
    for name, path in suite_files():
        c = suite_contract(path)
        lines.append("| `%s` | %s | %s | %s s | %s |" % (
            name, " ".join(c["flavors"]), " ".join(c["check"]) or "-",
            " ".join(c["timeout"]), suite_about(path).replace("|", "\\|")))
    return "\n".join(lines)


def folder_patches(folder):
    """The patch files of FOLDER/series, in order, as paths from the clone."""
    with open(os.path.join(ROOT, folder, "series")) as f:
        names = [l.split("#")[0].strip() for l in f]
    return [os.path.join(folder, n) for n in names if n]


def posting_patches(name):
    """The patch files of posting NAME: from the patch its "first" column
    names (a file name without its number and .patch) to the one before
    the next posting's first of the same folder, or to the folder's end.
    A name met twice in a folder is the first one after the previous
    posting's start.  So every patch is in one posting, by construction,
    and a patch added to a folder joins the posting it lands in."""
    r = row("postings", name)
    files = folder_patches(r["folder"])
    stems = [re.sub(r"^[0-9]+-|\.patch$", "", os.path.basename(f)) for f in files]
    starts = []
    for p in rows("postings"):
        if p["folder"] != r["folder"]:
            continue
        after = starts[-1][1] + 1 if starts else 0
        try:
            i = stems.index(p["first"], after)
        except ValueError:
            raise ValueError("%s: posting %s starts at %s, which %s/series does not have%s" % (
                path_of("postings"), p["name"], p["first"], r["folder"],
                " after %s's first patch" % starts[-1][0] if starts else ""))
        if not starts and i:
            raise ValueError("%s: no posting has %s/%s" % (path_of("postings"), r["folder"], stems[0]))
        starts.append((p["name"], i))
    k = [n for n, _ in starts].index(name)
    end = starts[k + 1][1] if k + 1 < len(starts) else len(files)
    return files[starts[k][1]:end]


def flavors_table():
    """Every kernel flavour: its architecture, tree, fragments and modules, what it is
    for (the comment above its row), and the suites that run on it (make
    check's in bold), from kernel-config/flavors and the suites' headers."""
    contracts = {name: suite_contract(path) for name, path in suite_files()}
    lines = ["| flavour | arch | tree | config fragments | modules | suites (**make check's**) | what for |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows("flavors"):
        f = r["name"]
        suites = []
        for name, c in contracts.items():
            if f in c["flavors"]:
                suites.append("**%s**" % name if f in c["check"] else name)
            elif f in c["uses"]:
                suites.append(("**%s**" if c["check"] else "%s") % name + " (host)")
        lines.append("| `%s` | %s | %s | %s | %s | %s | %s |" % (
            f, r["arch"], r["source"], r["fragments"], r["modules"], " ".join(suites) or "-",
            re.sub(r"^%s: " % re.escape(f), "", r["about"]).replace("|", "\\|")))
    return "\n".join(lines)


def main(argv):
    try:
        if len(argv) == 2 and argv[0] == "keys":
            first = columns(argv[1])[0]
            print("\n".join(r[first] for r in rows(argv[1])))
        elif len(argv) == 4 and argv[0] == "get":
            columns(argv[1], argv[3:])
            print(row(argv[1], argv[2])[argv[3]])
        elif len(argv) >= 3 and argv[0] == "rows":
            columns(argv[1], argv[2:])
            for r in rows(argv[1]):
                print("\t".join(r[c] for c in argv[2:]))
        elif argv == ["suites"]:
            print(suites_table())
        elif argv == ["flavors"]:
            print(flavors_table())
        elif len(argv) == 2 and argv[0] == "posting":
            print("\n".join(posting_patches(argv[1])))
        elif len(argv) == 3 and argv[0] == "header":
            print(suite_header(argv[1], argv[2]))
        elif len(argv) == 2 and argv[0] == "contract":
            for k, v in suite_contract(argv[1]).items():
                print("%s=%s" % (k, " ".join(v)))
        else:
            print(__doc__.split("\n\n")[-1], file=sys.stderr)
            return 2
    except BrokenPipeError:
        # A reader that stopped early (head -n1) is no error; devnull
        # takes the rest, so that the exit's flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (KeyError, ValueError, OSError) as e:
        print("sideband_tables: %s" % (e.args[0] if isinstance(e, KeyError) else e),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
