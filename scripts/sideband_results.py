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
the results, a kernel splat, another exit status), or PASS.

Each kernel report of the console and dmesg (KCSAN, KASAN, UBSAN,
lockdep, WARN, BUG) goes into the record with its stacks, each frame
with its source lines: addr2line's inline chain at its address, from
the tree's scripts/decode_stacktrace.sh on the flavour's vmlinux when
that has line tables (kcsan, debug).  A KCSAN report is the series' when
the chain at one of its accesses (the first frame of each stack) holds
a line the series adds or changes (git diff base HEAD in the flavour's
tree): a splat.  Any other decoded race is a note, UPSTREAM, or KNOWN
with the reason qemu/known-races gives for the line of one of its
accesses.  A race without lines (no such vmlinux: Debian's kernel,
results graded elsewhere) is a splat.
"""

import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in scripts/
from sideband_tables import expected_failures, known_races, row  # noqa: E402

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


# The first line of a kernel report (KCSAN, KASAN, UBSAN, lockdep, WARN,
# BUG, Oops), and the lines that end one: KCSAN's, KASAN's and UBSAN's
# closing rule and WARN's end marker.  A report without either (lockdep's)
# ends at the next report or after REPORT_LINES lines.
REPORT = re.compile(r"BUG: |WARNING: |UBSAN: |kernel BUG at |Oops")
REPORT_END = re.compile(r"=+$|---\[ end trace")
REPORT_LINES = 200
KERNEL_STAMP = re.compile(r"^\[ *[0-9]+\.[0-9]+\] ?")
# A frame as the kernel prints it, "f+0x70/0x2b0" (a module's with
# " [mod]" after it), or as scripts/decode_stacktrace.sh rewrites it,
# "f (kernel/trace/trace.c:1871 ...)": addr2line -i's inline chain at
# the address, innermost first, the real function's line last.
FRAME = re.compile(r"(?:^|[\s:])([A-Za-z_][\w.]*\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[\w+\])?)")
DECODED = re.compile(r"(?:^|\s)([A-Za-z_][\w.]*) "
                     r"\(((?:[^\s()]+:[0-9]+(?: \(discriminator [0-9]+\))? ?)+)\)")
LOCATION = re.compile(r"([^\s()]+:[0-9]+)")


def locations(chain):
    """The FILE:LINE of a decoded frame's chain, as paths of the tree (an
    out-of-tree build's DWARF names them ".obj-kcsan/../kernel/...")."""
    return [os.path.normpath(loc) for loc in LOCATION.findall(chain)]

# The head of each stack of a KCSAN report: the access it made.
ACCESS = re.compile(r"(?:race at unknown origin, with )?(.+?) to 0x[0-9a-f]+ of [0-9]+ bytes by ")


def report_text(out):
    """The kernel reports in OUT.console and OUT.dmesg, {first line (as
    splat_lines gives it): the lines after it}, with the timestamps left
    out; a report in both files counts once."""
    reports = {}
    for ext in (".console", ".dmesg"):
        try:
            with open(out + ext, errors="replace") as f:
                lines = [HOST_STAMP.sub("", line.rstrip("\n")) for line in f]
        except FileNotFoundError:
            continue
        body = None
        for line in lines:
            text = KERNEL_STAMP.sub("", line)
            if REPORT.search(text):
                body = None if line in reports else reports.setdefault(line, [])
            elif body is not None:
                if REPORT_END.match(text) or len(body) == REPORT_LINES:
                    body = None
                else:
                    body.append(text)
    return reports


def stacks(body):
    """The stacks of a report's lines: [{"head": the line ending in ":"
    above them ("Call Trace:", KCSAN's "read to 0x... on cpu 1:"),
    "frames": [{"frame": "f+0x70/0x2b0" or "f", "lines": [FILE:LINE of
    its inline chain, innermost first, if decoded]}]}]."""
    out = [{"head": "", "frames": []}]
    for text in body:
        if "reordered to:" in text:
            continue  # KCSAN's weak-memory note: not a frame of the stack
        decoded = DECODED.search(text)
        raw = FRAME.search(text)
        if decoded:
            out[-1]["frames"].append({"frame": decoded.group(1),
                                      "lines": locations(decoded.group(2))})
        elif raw:
            out[-1]["frames"].append({"frame": raw.group(1), "lines": []})
        elif text.strip().endswith(":"):
            out.append({"head": text.strip(), "frames": []})
    return [s for s in out if s["frames"]]


def vmlinux_of(flavor):
    """(vmlinux with line tables, its source tree) of FLAVOR's build, or
    None: a distribution's image, a build without debug information, or
    results graded away from the build."""
    try:
        tree = row("flavors", flavor)["source"]
    except (KeyError, ValueError, OSError):
        return None
    build = os.environ.get("SIDEBAND_BUILD") or os.path.join(ROOT, "build")
    src = os.path.join(build, "src", tree)
    vmlinux = os.path.join(src, ".obj-" + flavor, "vmlinux")
    try:
        sections = subprocess.run(("readelf", "-WS", vmlinux), capture_output=True,
                                  text=True).stdout
    except FileNotFoundError:
        return None
    return (vmlinux, src) if " .debug_line " in sections else None


def decode(reports, flavor):
    """Give each undecoded frame of REPORTS ({line: stacks}) its lines,
    by the tree's own scripts/decode_stacktrace.sh against FLAVOR's
    vmlinux, in one call for the run; nothing without that vmlinux."""
    # A module's frame ("f+0x1/0x2 [mod]") stays without lines.
    frames = [f for r in reports.values() for s in r for f in s["frames"]
              if not f["lines"] and "/" in f["frame"] and "[" not in f["frame"]]
    where = vmlinux_of(flavor) if frames else None
    if not where:
        return
    vmlinux, src = where
    names = sorted({f["frame"] for f in frames})
    # One line out per line in; base path SRC: file names relative to it.
    out = subprocess.run((os.path.join(src, "scripts", "decode_stacktrace.sh"), vmlinux, src),
                         input="".join(" %s\n" % n for n in names),
                         capture_output=True, text=True).stdout.split("\n")
    lines = {}
    for name, text in zip(names, out):
        m = DECODED.search(text)
        lines[name] = locations(m.group(2)) if m else []
    for f in frames:
        f["lines"] = lines.get(f["frame"], [])


HUNK = re.compile(r"@@ -[0-9,]+ \+([0-9]+)(?:,([0-9]+))? @@")


def series_lines(flavor):
    """The lines the series adds or changes, {path: {line numbers}} in
    the series tree's numbering: the "+" lines of `git diff -U0 base HEAD`
    in FLAVOR's tree, or of the diff in $SIDEBAND_SERIES_DIFF; None if
    neither is there."""
    path = os.environ.get("SIDEBAND_SERIES_DIFF")
    if path:
        with open(path) as f:
            diff = f.read()
    else:
        try:
            src = os.path.join(os.environ.get("SIDEBAND_BUILD") or os.path.join(ROOT, "build"),
                               "src", row("flavors", flavor)["source"])
            diff = subprocess.run(("git", "-C", src, "diff", "-U0", "--no-color", "--no-ext-diff",
                                   "--src-prefix=a/", "--dst-prefix=b/", "base", "HEAD"),
                                  capture_output=True, text=True, check=True).stdout
        except (KeyError, ValueError, OSError, subprocess.CalledProcessError):
            return None
    out, name = {}, None
    for line in diff.split("\n"):
        if line.startswith("+++ "):
            name = line[6:] if line.startswith("+++ b/") else None
            continue
        m = HUNK.match(line)
        if m and name:
            first, count = int(m.group(1)), int(m.group(2) or 1)
            out.setdefault(name, set()).update(range(first, first + count))
    return out


def accesses(stacks_of_race, series):
    """The accesses of a KCSAN report: [{"access": "read", "lines": the
    inline chain at its PC (the first frame of its stack), "series": the
    lines of that chain in SERIES (series_lines)}]."""
    out = []
    for s in stacks_of_race:
        m = ACCESS.match(s["head"])
        if m:
            chain = s["frames"][0]["lines"]
            out.append({"access": m.group(1), "lines": chain,
                        "series": [loc for loc in chain
                                   if int(loc.rsplit(":", 1)[1]) in
                                   series.get(loc.rsplit(":", 1)[0], ())]})
    return out


def race_grade(race):
    """The grade of a race's accesses: "series" (one on a line of the
    series), "upstream" (each on a line, none of the series), or None (an
    access without a line)."""
    if any(a["series"] for a in race):
        return "series"
    if race and all(a["lines"] for a in race):
        return "upstream"
    return None


def race_where(race):
    """Each access of a race and its line, for the notes: "read
    kernel/trace/trace.c:1871 (upstream)", the line in the function the
    title names (the last of the chain: the inlined helpers' lines, such
    as set_bit()'s, say less); a series line further in is named too."""
    out = []
    for a in race:
        where = a["lines"][-1] if a["lines"] else "(no line)"
        if a["series"]:
            where += " (series%s)" % ("" if a["series"][0] == where else ": " + a["series"][0])
        elif a["lines"]:
            where += " (upstream)"
        out.append("%s %s" % (a["access"], where))
    return ", ".join(out)


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
    # Every report decoded to lines; a KCSAN report graded by the lines
    # of its accesses: the series' fails the run, any other is a note.
    reports = {line: stacks(body) for line, body in report_text(out).items()} if vm else {}
    decode(reports, flavor)
    records = [{"line": line, "stacks": st} for line, st in sorted(reports.items())]
    races = [r for r in records if "BUG: KCSAN: " in r["line"] and r["line"] in splats]
    series = series_lines(flavor) if races else None
    known = known_races()
    for r in races:
        r["accesses"] = accesses(r["stacks"], series or {})
        # Without the series' lines, nothing is known to be upstream's.
        r["race"] = race_grade(r["accesses"]) if series is not None else None
        where = race_where(r["accesses"])
        title = r["line"].split("BUG: KCSAN: ", 1)[1]
        if r["race"] != "upstream":
            # The series' race, or one it cannot tell (no lines): a splat.
            splats[splats.index(r["line"])] = r["line"] + (": " + where if where else "")
            continue
        splats.remove(r["line"])
        reason = next((known[loc] for a in r["accesses"] for loc in a["lines"] if loc in known),
                      None)
        notes.append("KNOWN %s: %s (qemu/known-races: %s)" % (title, where, reason) if reason
                     else "UPSTREAM %s: %s" % (title, where))
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
              "cases": tap["cases"], "splats": splats, "reports": records, "notes": notes,
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
