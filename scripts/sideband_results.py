# SPDX-License-Identifier: GPL-2.0
"""The harness's results as Python reads them; imported, never run.

The Python twin of scripts/lib.sh's read_result, for report-kcidb,
report-junit, check-lava-results and the farm guest's /init: the runs
a results folder holds (FLAVOR/SUITE.result, written by
scripts/grade-suite), the key=value lines of their .result and .status
files, and the top-level results of a suite's TAP.
"""

import os
import re


def key_values(path):
    """The key=value pairs of a .result or .status line; None if no file."""
    try:
        with open(path) as f:
            return dict(w.split("=", 1) for w in f.read().split() if "=" in w)
    except FileNotFoundError:
        return None


def runs(results):
    """(flavor, suite, prefix of its files) of each graded run, in order."""
    out = []
    for flavor in sorted(os.listdir(results)) if os.path.isdir(results) else []:
        folder = os.path.join(results, flavor)
        if not os.path.isdir(folder):
            continue
        for entry in sorted(os.listdir(folder)):
            if entry.endswith(".result"):
                out.append((flavor, entry[:-7], os.path.join(folder, entry[:-7])))
    return out


def tap_results(path):
    """(name, status, comment) of each top-level result of a TAP file:
    status PASS, FAIL or SKIP (a "# SKIP" directive on an ok line)."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"(not )?ok [0-9]+ ?(- )?(.*)", line.rstrip("\n"))
            if not m:
                continue
            name, _, directive = m.group(3).partition(" # ")
            if m.group(1):
                out.append((name, "FAIL", directive))
            elif directive.upper().startswith("SKIP"):
                out.append((name, "SKIP", directive[4:].strip()))
            else:
                out.append((name, "PASS", directive))
    return out
