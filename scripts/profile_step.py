# SPDX-License-Identifier: GPL-2.0
# profile_step.py: gdb's half of scripts/profile-call.  Single-steps the
# guest from one hit of a kernel function to its next hit (one loop
# iteration of a program that calls it in a loop) and prints where the
# instructions went, one row per function.  QEMU's gdb stub steps with
# interrupts and timers masked, and steps each iteration of a rep
# instruction as -icount counts it, so the figures are the benchmark's.
#
# Run by scripts/profile-call as
#   gdb -batch -x profile_step.py -ex 'python profile(FUNC, NM, MAX, SKIP, RUNS)'
import bisect
import collections

import gdb  # pylint: disable=import-error


def load_symbols(nm_file):
    """Text symbols of vmlinux, sorted: (addresses, names)."""
    addrs, names = [], []
    with open(nm_file, encoding="ascii", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                addrs.append(int(parts[0], 16))
                names.append(parts[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def where(pc, addrs, names):
    if pc < 0xffff800000000000:
        return "(user space)"
    i = bisect.bisect_right(addrs, pc) - 1
    return names[i] if i >= 0 else hex(pc)


def pc_now():
    return int(gdb.parse_and_eval("$pc")) & 0xffffffffffffffff


def step_once(start, addrs, names, max_steps):
    """One iteration from start back to start: (steps, runs)."""
    runs = []
    steps = 0
    pc = start
    while True:
        # Count the instruction at pc, then execute it.
        name = where(pc, addrs, names)
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
        gdb.execute("stepi", to_string=True)
        steps += 1
        pc = pc_now()
        if pc == start or steps >= max_steps:
            return steps, runs


def profile(func, nm_file, max_steps, skip, iterations):
    addrs, names = load_symbols(nm_file)
    start = addrs[names.index(func)]
    gdb.execute("set pagination off")
    gdb.execute(f"hbreak *{start:#x}", to_string=True)
    # Let the program settle into its loop first.
    for _ in range(skip + 1):
        gdb.execute("continue", to_string=True)
    gdb.execute("delete")
    # The shortest of a few iterations: a tick's work or a preemption
    # lands in some of them.
    best = None
    for _ in range(iterations):
        one = step_once(start, addrs, names, max_steps)
        if one[0] >= max_steps:
            print(f"# profile: no second hit of {func} in {max_steps} steps")
            return
        if best is None or one[0] < best[0]:
            best = one
    steps, runs = best
    totals = collections.Counter()
    for name, n in runs:
        totals[name] += n
    print(f"# {func} to {func}: {steps} instructions "
          f"(the shortest of {iterations} iterations)")
    print("# in call order (consecutive instructions of one function):")
    for name, n in runs:
        print(f"#   {n:5d} {name}")
    print("# by function:")
    for name, n in totals.most_common():
        print(f"{n:6d} {name}")
