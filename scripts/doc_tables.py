#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""doc_tables.py TABLE: a table of the documentation, in markdown, rendered
from what the harness itself reads.

  stages    the build stages: the "stage NAME SCRIPT ARGS" calls of
            scripts/pipeline, in order, with the line that opens each
            script's header ("# SCRIPT: what it does")
  flavors   kernel-config/flavors, and the smallest of make, make check
            and make check-full that builds each (scripts/pipeline
            --builds)
  suites    each suite's "# flavors:" and "# check:" headers and the
            first sentence of its opening comment
  statuses  how each output shows a case's status: STATUS_IN of
            scripts/sideband_results.py
  groups    for selftests/README.md: each group of selftests/ and the
            suites that run it ("run_kselftest.sh -c GROUP"), with their
            flavours
  numbers   Documentation/numbers.md's figures, from
            Documentation/numbers.tsv (its header says how)

scripts/check-doc-tables compares each with the block of its document,
so that the document cannot drift from the code.  A column or a
variable is explained once in the document's prose, not here.
"""

import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in scripts/
import sideband_tables as tables  # noqa: E402 (after the line above)
from sideband_results import STATUS_IN  # noqa: E402

ROOT = tables.ROOT
SCRIPTS = os.path.join(ROOT, "scripts")


def first_sentence(text):
    """TEXT up to its first full stop that ends a sentence."""
    m = re.match(r"(.*?\.)(\s|$)", text)
    return m.group(1) if m else text


def cell(text):
    return text.replace("|", "\\|")


def script_summary(name):
    """The first sentence of the comment that opens scripts/NAME's header
    ("# NAME: what it does", and the lines after it up to a bare "#")."""
    words = []
    with open(os.path.join(SCRIPTS, name)) as f:
        for line in f:
            if words:
                if not line.startswith("#") or not line[1:].strip():
                    break
                words.append(line[1:].strip())
            elif line.startswith("# %s" % name) and ":" in line:
                words.append(line.split(":", 1)[1].strip())
    if not words:
        raise ValueError("scripts/%s has no '# %s: ...' line" % (name, name))
    return first_sentence(" ".join(words))


# A stage's name and arguments name the variables of the pipeline's
# loops; the table shows them as the words the document uses.
PLACEHOLDERS = {"src": "TREE", "suffix": "[-TREE][-ARCH]"}
STAGE = re.compile(r'^\s*stage ("[^"]*"|\S+) "\$SIDEBAND_ROOT/scripts/([^"]+)"(.*?)( ;;)?$')


def placeholder(text):
    def word(m):
        return PLACEHOLDERS.get(m.group(1), m.group(1).upper())
    return re.sub(r'"?\$\{?([a-z_]+)\}?"?', word, text).replace('"', "")


def stages_table():
    lines = ["| stage | command | what the script does |", "| --- | --- | --- |"]
    modules = sorted({r["modules"] for r in tables.rows("flavors")} - {"-"})
    with open(os.path.join(SCRIPTS, "pipeline")) as f:
        calls = [STAGE.match(line) for line in f]
    for m in filter(None, calls):
        name, script, args = m.group(1).strip('"'), m.group(2), m.group(3).strip()
        # build-$modules: one row per value of the flavours' modules column.
        kinds = [(name.replace("$modules", k), script.replace("$modules", k)) for k in modules] \
            if "$modules" in script else [(name, script)]
        for n, s in kinds:
            lines.append("| %s | `%s` | %s |" % (
                placeholder(n), " ".join([s] + ([placeholder(args)] if args else [])),
                cell(script_summary(s))))
    return "\n".join(lines)


def pipeline_builds(*options):
    out = subprocess.run([os.path.join(SCRIPTS, "pipeline")] + list(options) + ["--builds"],
                         check=True, capture_output=True, text=True).stdout
    return out.split()


def flavors_table():
    jobs = [("make", pipeline_builds()), ("make check", pipeline_builds("--check")),
            ("make check-full", pipeline_builds("--check", "--full"))]
    lines = ["| flavour | arch | tree | modules | config fragments | built by | what for |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in tables.rows("flavors"):
        f = r["name"]
        built = next((job for job, names in jobs if f in names), "-")
        about = re.sub(r"^%s: " % re.escape(f), "", r["about"])
        lines.append("| `%s` | %s | %s | %s | %s | %s | %s |" % (
            f, r["arch"], r["source"], r["modules"], r["fragments"], built,
            cell(first_sentence(about))))
    return "\n".join(lines)


def suites_table():
    lines = ["| suite | flavours | in make check | what it runs |",
             "| --- | --- | --- | --- |"]
    for name, path in tables.suite_files():
        c = tables.suite_contract(path)
        lines.append("| `%s` | %s | %s | %s |" % (
            name, " ".join(c["flavors"]), " ".join(c["check"]) or "-",
            cell(first_sentence(tables.suite_about(path)))))
    return "\n".join(lines)


def statuses_table():
    outputs = ("summary", "kcidb", "junit", "lava")
    lines = ["| status | counted as | KCIDB | JUnit | LAVA |", "| --- | --- | --- | --- | --- |"]
    for status, shown in STATUS_IN.items():
        lines.append("| %s | %s |" % (status, " | ".join(
            "`%s`" % shown[o] if shown[o] else "(none)" for o in outputs)))
    return "\n".join(lines)


def groups_table():
    runs = {}
    for name, path in tables.suite_files():
        with open(path, errors="replace") as f:
            text = f.read()
        for m in re.finditer(r"run_kselftest\.sh((?: -c \S+)+)", text):
            for group in m.group(1).split()[1::2]:
                runs.setdefault(group, []).append((name, tables.suite_contract(path)))
    folder = os.path.join(ROOT, "selftests")
    groups = sorted(g for g in os.listdir(folder)
                    if os.path.isdir(os.path.join(folder, g)) and g != "include")
    lines = ["| group | suite | flavours | in make check |", "| --- | --- | --- | --- |"]
    for g in groups:
        for name, c in runs.get(g, [("-", {"flavors": ["-"], "check": []})]):
            lines.append("| `%s` | %s | %s | %s |" % (
                g, "`%s`" % name if name != "-" else "-", " ".join(c["flavors"]),
                " ".join(c["check"]) or "-"))
    return "\n".join(lines)


NUMBERS = {"harness": "The harness", "series": "The series", "bench": "Benchmarks (`make bench`)"}


def numbers_rows(path=None):
    """Documentation/numbers.tsv as (section, measurement, figure, commit,
    date) tuples; ValueError on a malformed row or a measurement given
    twice (one current figure each: the old ones are in git)."""
    path = path or os.path.join(ROOT, "Documentation", "numbers.tsv")
    rows, seen = [], set()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            r = tuple(line.rstrip("\n").split("\t"))
            where = "%s:%d" % (os.path.relpath(path, ROOT), n)
            if len(r) != 5:
                raise ValueError("%s: %d fields, not 5" % (where, len(r)))
            if r[0] not in NUMBERS:
                raise ValueError("%s: no section %r (%s)" % (where, r[0], ", ".join(NUMBERS)))
            if not re.fullmatch(r"[0-9a-f]{7,40}", r[3]) or not re.fullmatch(r"\d{4}-\d\d-\d\d", r[4]):
                raise ValueError("%s: not a commit and a date: %r %r" % (where, r[3], r[4]))
            if r[:2] in seen:
                raise ValueError("%s: %s is given twice" % (where, r[1]))
            if r[0] == "bench" and (": " not in r[1] or len(r[2].split()) < 2):
                raise ValueError("%s: not 'BENCHMARK: VARIANT' and 'NS/OP RATIO [GOAL]'" % where)
            seen.add(r[:2])
            rows.append(r)
    return rows


def numbers_table():
    rows = numbers_rows()
    out = []
    for section, title in NUMBERS.items():
        mine = [r for r in rows if r[0] == section]
        if not mine:
            continue
        out += ["## " + title, ""]
        if section != "bench":
            out += ["| measurement | figure | measured |", "| --- | --- | --- |"]
            out += ["| %s | %s | %s, %s |" % (cell(m), cell(f), c, d) for _, m, f, c, d in mine]
        else:
            # As bench/run prints them, each run's rows under a line
            # that names its commit and date.
            cols = [("benchmark", "variant", "ns/op", "ratio", "goal")]
            runs = []
            for _, m, f, c, d in mine:
                b, v = m.split(": ", 1)
                w = f.split(None, 2)
                cols.append((b, v, w[0], w[1], w[2] if len(w) > 2 else ""))
                runs.append("%s %s" % (c, d))
            width = [max(len(r[i]) for r in cols) for i in range(5)]
            last = None
            for n, r in enumerate(cols):
                if n and runs[n - 1] != last:
                    last = runs[n - 1]
                    out.append("    # measured at " + last)
                out.append("    " + "  ".join(
                    r[i].rjust(width[i]) if i in (2, 3) else r[i].ljust(width[i])
                    for i in range(5)).rstrip())
        out.append("")
    return "\n".join(out).rstrip("\n")


RENDER = {"stages": stages_table, "flavors": flavors_table, "suites": suites_table,
          "statuses": statuses_table, "groups": groups_table, "numbers": numbers_table}


def main(argv):
    if len(argv) != 1 or argv[0] not in RENDER:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        print(RENDER[argv[0]]())
    except (KeyError, ValueError, OSError, subprocess.CalledProcessError) as e:
        print("doc_tables: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
