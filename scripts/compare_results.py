#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare_results.py: what changed between two runs' results.

usage: compare_results.py A B

A and B are result folders as the pipeline leaves them (build/results:
a folder per flavour, SUITE.json in each, scripts/sideband_results.py's
record of the run).  Only folders: to compare commits, run each and
keep a copy of its build/results (a commit is not taken here).

Prints, one line per item, grouped (an empty group is left out):
  regressions  a suite or a case that passed in A and fails in B
  fixes        a suite or a case that failed in A and passes in B
  new          a suite or a case in B only
  vanished     a suite or a case in A only
  figures      a line of a run's figures (its "# figures:" lines) with a
               number that moved by more than THRESHOLD of its value in A,
               against the line of the same run in A that reads the same
               with its numbers masked (the Nth such line against the Nth)
then "compare: N regressions, N fixes, N new, N vanished, N figure
changes".  A case's status passes or fails as KCIDB shows it
(sideband_results.STATUS_IN): PASS and XPASS pass, FAIL fails, a skip or
an expected failure neither; a suite passes when its verdict is PASS.  A
case is its suite and its name (the Nth of a name that repeats: "NAME
#N").  Exits 1 if there is a regression, 2 on a usage error, 0 otherwise.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in scripts/
import sideband_results as results  # noqa: E402 (after the line above)

THRESHOLD = 0.10
# A number of a figures line: not the digits of a word (MMAP3, p99).
NUMBER = re.compile(r"(?<![\w.])-?[0-9]+(?:\.[0-9]+)?")


def load_folder(folder):
    """{"FLAVOR/SUITE": record} of the graded runs under FOLDER."""
    return {"%s/%s" % (flavor, suite): results.load(out)
            for flavor, suite, out in results.runs(folder)}


def outcome(status):
    """"pass", "fail" or None (neither) of a case's status."""
    return {"PASS": "pass", "FAIL": "fail"}.get(results.STATUS_IN[status]["kcidb"])


def verdict_outcome(verdict):
    """"pass" or "fail" of a run's verdict (MISS, ERROR and FAIL fail it)."""
    return "pass" if verdict == "PASS" else "fail"


def case_statuses(record):
    """{case key: status} of a run, in TAP order; a name that repeats
    is "NAME #2" from its second result on."""
    out, seen = {}, {}
    for case in record["cases"]:
        name = case["name"] or "(unnamed)"
        seen[name] = seen.get(name, 0) + 1
        out[name if seen[name] == 1 else "%s #%d" % (name, seen[name])] = case["status"]
    return out


def masked(line):
    return NUMBER.sub("#", line)


def moved(a, b):
    """The relative change of a number from A to B, or None if within
    THRESHOLD; from 0 to anything else is a change."""
    if a == b:
        return None
    rel = abs(b - a) / abs(a) if a else float("inf")
    return rel if rel > THRESHOLD else None


def figure_changes(fig_a, fig_b):
    """The lines of FIG_B with a number that moved beyond THRESHOLD from
    the line of FIG_A that pairs with it, each as A's line with every
    moved number written "A->B (+N%)"."""
    lines_a = {}
    for line in fig_a:
        lines_a.setdefault(masked(line), []).append(line)
    out, nth = [], {}
    for line in fig_b:
        key = masked(line)
        n = nth[key] = nth.get(key, 0) + 1
        if len(lines_a.get(key, ())) < n:
            continue
        old = lines_a[key][n - 1]
        nums_b = iter(NUMBER.findall(line))
        changed = []

        def render(m):
            a_text, b_text = m.group(0), next(nums_b)
            rel = moved(float(a_text), float(b_text))
            if rel is None:
                return a_text
            changed.append(rel)
            sign = "+" if float(b_text) > float(a_text) else "-"
            pct = "" if rel == float("inf") else " (%s%.1f%%)" % (sign, rel * 100)
            return "%s->%s%s" % (a_text, b_text, pct)

        text = NUMBER.sub(render, old)
        if changed:
            out.append(text)
    return out


def compare(runs_a, runs_b):
    """The items of the comparison of two load_folder()s: {"regressions",
    "fixes", "new", "vanished", "figures": [line]}."""
    items = {k: [] for k in ("regressions", "fixes", "new", "vanished", "figures")}

    def flip(where, old_status, new_status, was, now):
        if was == "pass" and now == "fail":
            items["regressions"].append("%s (%s -> %s)" % (where, old_status, new_status))
        elif was == "fail" and now == "pass":
            items["fixes"].append("%s (%s -> %s)" % (where, old_status, new_status))

    for run in sorted(set(runs_a) | set(runs_b)):
        a, b = runs_a.get(run), runs_b.get(run)
        if a is None or b is None:
            rec = b or a
            items["new" if a is None else "vanished"].append(
                "%s (suite: %s, cases: %d)" % (run, rec["verdict"], len(rec["cases"])))
            continue
        flip(run, a["verdict"], b["verdict"],
             verdict_outcome(a["verdict"]), verdict_outcome(b["verdict"]))
        cases_a, cases_b = case_statuses(a), case_statuses(b)
        for name, status in cases_a.items():
            if name not in cases_b:
                items["vanished"].append("%s: %s (%s)" % (run, name, status))
            else:
                flip("%s: %s" % (run, name), status, cases_b[name],
                     outcome(status), outcome(cases_b[name]))
        items["new"].extend("%s: %s (%s)" % (run, name, status)
                            for name, status in cases_b.items() if name not in cases_a)
        items["figures"].extend("%s: %s" % (run, line) for line in
                                figure_changes(a.get("figures", []), b.get("figures", [])))
    return items


HEADS = (
    ("regressions", "regressions (passed in A, fail in B):"),
    ("fixes", "fixes (failed in A, pass in B):"),
    ("new", "new (in B only):"),
    ("vanished", "vanished (in A only):"),
    ("figures", "figure changes:"),
)


def tested(folder):
    """The first line of FOLDER/tested (the pipeline's commit and job), or ""."""
    try:
        with open(os.path.join(folder, "tested")) as f:
            return " (%s)" % f.readline().strip()
    except OSError:
        return ""


def main(argv):
    if len(argv) != 2 or any(not x or x.startswith("-") for x in argv):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    runs = []
    for folder in argv:
        if not os.path.isdir(folder):
            print("compare: %s is not a folder (result folders only; a commit is not "
                  "taken)" % folder, file=sys.stderr)
            return 2
        runs.append(load_folder(folder))
        if not runs[-1]:
            print("compare: no graded runs (FLAVOR/SUITE.json) in %s" % folder, file=sys.stderr)
            return 2
    items = compare(*runs)
    pct = "%g" % (THRESHOLD * 100)
    print("compare: A %s%s" % (argv[0], tested(argv[0])))
    print("compare: B %s%s" % (argv[1], tested(argv[1])))
    print("compare: a figure change: a number that moved by more than %s%% of its value in A" % pct)
    for key, head in HEADS:
        if items[key]:
            print(head)
            print("".join("  %s\n" % line for line in items[key]), end="")
    print("compare: %d regressions, %d fixes, %d new, %d vanished, %d figure changes" % tuple(
        len(items[k]) for k, _ in HEADS))
    return 1 if items["regressions"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
