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


RENDER = {"stages": stages_table, "flavors": flavors_table, "suites": suites_table,
          "statuses": statuses_table, "groups": groups_table}


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
