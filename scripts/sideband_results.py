# SPDX-License-Identifier: GPL-2.0
"""The harness's one result model; imported, never run.

A suite's run leaves files under build/results/FLAVOR/ (SUITE.tap, its
TAP; SUITE.status, "rc=N seconds=S"; SUITE.console and SUITE.dmesg for a
VM).  grade() reads them once, with the one TAP reader of the harness
(parse_tap), into one record, SUITE.json, and writes from that record
the files the shell scripts read: SUITE.result (one key=value line, for
lib.sh's read_result), SUITE.notes and SUITE.figures.  The summary,
report-kcidb, report-junit, check-lava-results and the farm guest's
/init render that record, or parse_tap's cases, and nothing else.

A case (a top-level TAP result line) has one of five statuses, and each
output renders it the same way (STATUS_IN below):
  PASS   "ok"                                   passed
  FAIL   "not ok"                               a failure of the run
  SKIP   a "# SKIP" directive, ok or not ok     not run; no failure
  XFAIL  "not ok" with "# TODO", or a test       an expected failure;
         qemu/expected-failures lists for the   no failure of the run
         suite, with its reason
  XPASS  "ok" with "# TODO", or "ok" for a       an unexpected pass; no
         listed test                            failure, said in the notes
A run's verdict: MISS (no TAP), ERROR (no exit status, the watchdog's
124 or the dead VM's 125), FAIL (a FAIL case, a plan that does not match
the results, a kernel splat, another exit status), or PASS.  A KCSAN
report whose title qemu/known-races lists (a race in upstream code) is
a note, not a splat; so is an unlisted one that names no function the
series adds or changes (sideband_series_code: the functions of the
flavour's tree that its series touches), said as UPSTREAM so that it
gets listed with its reason.  Without that tree (results graded
elsewhere), an unlisted report is a splat.
"""

import json
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in scripts/
from sideband_tables import expected_failures, known_races, row  # noqa: E402
from sideband_series_code import in_series, series_functions  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# How each output shows a case status: the summary's column, KCIDB's
# test status (v5 has no waiver: an expected failure ran and says nothing
# about the code, which is what DONE means), JUnit's element, LAVA's
# lava-test-case result.
STATUS_IN = {
    "PASS": {"summary": "passed", "kcidb": "PASS", "junit": None, "lava": "pass"},
    "FAIL": {"summary": "failed", "kcidb": "FAIL", "junit": "failure", "lava": "fail"},
    "SKIP": {"summary": "skipped", "kcidb": "SKIP", "junit": "skipped", "lava": "skip"},
    "XFAIL": {"summary": "xfail", "kcidb": "DONE", "junit": "skipped", "lava": "skip"},
    "XPASS": {"summary": "xpass", "kcidb": "PASS", "junit": None, "lava": "pass"},
}
COUNTS = ("passed", "failed", "skipped", "xfail", "xpass")


def key_values(path):
    """The key=value pairs of a .result or .status line; None if no file."""
    try:
        with open(path) as f:
            return dict(w.split("=", 1) for w in f.read().split() if "=" in w)
    except FileNotFoundError:
        return None


RESULT = re.compile(r"(not )?ok [0-9]+\b ?(?:- )?(.*)")


def parse_tap(path, expected=None):
    """The TAP of a run: {"plan": the sum of its plans (run_kselftest.sh
    prints one stream per collection) or None, "cases": [{"name",
    "status", "directive", "reason", "subfailures"}], "figures": the text
    of its "figures:" diagnostics at any depth}.  expected: {test:
    reason} of the run's suite.  A case's subfailures are up to five of
    the indented "not ok" lines since the previous top-level result."""
    expected = expected or {}
    plan, cases, figures, subs = None, [], [], []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"[# ]*figures: *(.*)", line)
            if m:
                figures.append(m.group(1))
                continue
            m = re.match(r"[# ]+(not ok .*)", line)
            if m:
                if len(subs) < 5:
                    subs.append(m.group(1))
                continue
            m = re.match(r"1\.\.([0-9]+)", line)
            if m:
                plan = (plan or 0) + int(m.group(1))
                continue
            m = RESULT.fullmatch(line)
            if not m:
                continue
            ok = not m.group(1)
            rest = m.group(2)
            if rest.startswith("# "):
                name, directive = "", rest[2:]
            else:
                name, _, directive = rest.partition(" # ")
            word = directive.split(" ", 1)[0].upper()
            reason = directive[len(word):].strip()
            if word == "SKIP":
                status = "SKIP"
            elif word == "TODO":
                status = "XPASS" if ok else "XFAIL"
            elif name in expected:
                status = "XPASS" if ok else "XFAIL"
                reason = expected[name]
            else:
                status = "PASS" if ok else "FAIL"
                reason = ""
            cases.append({"name": name, "status": status, "directive": directive,
                          "reason": reason,
                          "subfailures": subs if status == "FAIL" else []})
            subs = []
    return {"plan": plan, "cases": cases, "figures": figures}


# vm-run's host time before a kernel line of the console ("[ 149.506] "
# before "[  148.962173] BUG: ..."), which the same line of the guest's
# dmesg does not have.
HOST_STAMP = re.compile(r"^\[ *[0-9]+\.[0-9]+\] (?=\[ *[0-9]+\.[0-9]+\] )")


def splat_lines(out, patterns):
    """The lines of OUT.console and OUT.dmesg a splat pattern matches,
    sorted and unique: a kernel line in both counts once."""
    with open(patterns) as f:
        regexes = [re.compile(p.rstrip("\n")) for p in f
                   if p.strip() and not p.startswith("#")]
    found = set()
    for ext in (".console", ".dmesg"):
        try:
            with open(out + ext, errors="replace") as f:
                for line in f:
                    if any(r.search(line) for r in regexes):
                        found.add(HOST_STAMP.sub("", line.rstrip("\n")))
        except FileNotFoundError:
            pass
    return sorted(found)


KCSAN_TITLE = re.compile(r"BUG: KCSAN: [a-z: -]+? in (.*)$")


def race_title(line):
    """The title of a KCSAN report line ("f / g", or "f" without its
    offset), or None for another line."""
    m = KCSAN_TITLE.search(line)
    return re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", m.group(1)).strip() if m else None


def race_reason(title, known):
    """Why qemu/known-races lists a report's title: the title's own line,
    or a line "f / *" for a frame f on either side of it (KCSAN sorts the
    two by name); None if it is not listed."""
    if title is None:
        return None
    if title in known:
        return known[title]
    for frame in title.split(" / "):
        if frame + " / *" in known:
            return known[frame + " / *"]
    return None


def series_code(flavor):
    """The functions the series of FLAVOR's tree adds or changes
    (sideband_series_code), from $SIDEBAND_SERIES_FUNCTIONS if set (one
    per line); None if neither is there."""
    path = os.environ.get("SIDEBAND_SERIES_FUNCTIONS")
    if path:
        with open(path) as f:
            return f.read().split()
    try:
        tree = row("flavors", flavor)["source"]
    except (KeyError, ValueError, OSError):
        return None
    build = os.environ.get("SIDEBAND_BUILD") or os.path.join(ROOT, "build")
    src = os.path.join(build, "src", tree)
    return series_functions(src) if os.path.isdir(src) else None


def upstream_race(title, functions):
    """Whether a KCSAN report's title names no function of FUNCTIONS
    (the series' code); False if that is unknown."""
    return bool(title) and functions is not None and \
        not any(in_series(f, functions) for f in title.split(" / "))


def boot_time(out):
    """vm-run's host timestamp of "vm-run: exec" in OUT.console (QEMU
    start to the first command), or None."""
    try:
        with open(out + ".console", errors="replace") as f:
            for line in f:
                m = re.fullmatch(r"\[ *([0-9.]+)\] vm-run: exec", line.rstrip("\n"))
                if m:
                    return float(m.group(1))
    except FileNotFoundError:
        pass
    return None


def grade(out, expected=None, patterns=None):
    """Grade the run whose files are OUT.*: the record (see the module's
    text), written to OUT.json, and OUT.result, OUT.notes, OUT.figures
    and OUT.splats rendered from it."""
    suite = os.path.basename(out)
    flavor = os.path.basename(os.path.dirname(out))
    if expected is None:
        expected = expected_failures().get(suite, {})
    patterns = patterns or os.environ.get(
        "SIDEBAND_SPLAT_PATTERNS", os.path.join(ROOT, "qemu", "splat-patterns"))
    notes = []
    status = key_values(out + ".status")
    rc = int(status.get("rc", 125)) if status else 125
    seconds = int(status.get("seconds", 0)) if status else 0
    if status is None:
        notes.append("FAIL  no exit status: the suite's run did not end")
    has_tap = os.path.exists(out + ".tap")
    if not has_tap:
        notes.append("FAIL  no TAP output")
    tap = parse_tap(out + ".tap", expected) if has_tap else \
        {"plan": None, "cases": [], "figures": []}
    vm = os.path.exists(out + ".console") or os.path.exists(out + ".dmesg")
    splats = splat_lines(out, patterns) if vm else []
    known = known_races()
    titles = {line: race_title(line) for line in splats}
    reasons = {line: race_reason(titles[line], known) for line in splats}
    notes.extend("KNOWN %s (qemu/known-races: %s)" % (line, reason)
                 for line, reason in reasons.items() if reason)
    splats = [line for line, reason in reasons.items() if not reason]
    if any(titles[line] for line in splats):
        functions = series_code(flavor)
        upstream = [line for line in splats if upstream_race(titles[line], functions)]
        notes.extend("UPSTREAM %s (no access in a function the series adds or changes; "
                     "list it in qemu/known-races with its call chains)" % line
                     for line in upstream)
        splats = [line for line in splats if line not in upstream]
    counts = dict.fromkeys(COUNTS, 0)
    for case in tap["cases"]:
        counts[STATUS_IN[case["status"]]["summary"]] += 1
        if case["status"] == "XFAIL":
            notes.append("XFAIL %s: %s" % (case["name"], case["reason"]))
        elif case["status"] == "XPASS":
            notes.append("XPASS %s" % case["name"])
        elif case["status"] == "FAIL":
            # The runner's directive says how it failed: "exit=1",
            # "TIMEOUT 300 seconds".
            notes.append("FAIL  " + case["name"] +
                         (" # " + case["directive"] if case["directive"] else ""))
            notes.extend("        " + s for s in case["subfailures"])
    plan_ok = tap["plan"] is not None and tap["plan"] == len(tap["cases"])
    if not plan_ok:
        notes.append("FAIL  plan: %s tests, %d results" % (
            "none" if tap["plan"] is None else tap["plan"], len(tap["cases"])))
    if status is None or rc == 0:
        pass
    elif rc == 124:
        notes.append("FAIL  killed by the watchdog after %d s (the # timeout: header)" % seconds)
    elif rc == 125 and vm:
        notes.append("FAIL  the VM ended without an exit status")
    else:
        notes.append("FAIL  the suite exited with status %d" % rc)
    notes.extend("SPLAT " + s for s in splats[:20])
    if not has_tap:
        verdict = "MISS"
    elif status is None or rc in (124, 125):
        verdict = "ERROR"
    elif counts["failed"] or not plan_ok or splats or rc:
        verdict = "FAIL"
    else:
        verdict = "PASS"
    record = {"suite": suite, "flavor": flavor, "verdict": verdict, "rc": rc,
              "seconds": seconds, "boot": boot_time(out) if vm else None,
              "vm": vm, "plan": tap["plan"], "counts": counts,
              "cases": tap["cases"], "splats": splats, "notes": notes,
              "figures": tap["figures"]}
    with open(out + ".json", "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    # The shell's view: one key=value line; a plan that does not match
    # counts as one failure more, so that failed=0 means no failure.
    failed = counts["failed"] + (0 if plan_ok else 1)
    with open(out + ".result", "w") as f:
        f.write("verdict=%s passed=%d failed=%d skipped=%d xfail=%d xpass=%d "
                "splats=%d rc=%d seconds=%d boot=%s\n" % (
                    verdict, counts["passed"], failed, counts["skipped"],
                    counts["xfail"], counts["xpass"], len(splats), rc, seconds,
                    "-" if record["boot"] is None else "%.3f" % record["boot"]))
    for ext, lines in ((".notes", notes), (".figures", tap["figures"]),
                       (".splats", splats if vm else None)):
        if lines is None:
            continue
        if lines or ext == ".splats":
            with open(out + ext, "w") as f:
                f.write("".join(line + "\n" for line in lines))
        elif os.path.exists(out + ext):
            os.remove(out + ext)
    return record


def load(out):
    """The record grade() wrote for the run OUT, or None."""
    try:
        with open(out + ".json") as f:
            return json.load(f)
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
            if entry.endswith(".json"):
                out.append((flavor, entry[:-5], os.path.join(folder, entry[:-5])))
    return out
