#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# getppid() untraced, under the process tracer with and without its
# system call class (and with it, for a task it does not follow), under
# the raw_syscalls trace events with set_event_pid (for a task outside the
# list, and for a listed one: the same line as the tracer's, by trace
# events; and the sys_exit event alone, one tracepoint per call as the
# tracer has), and under strace (for scale).
T=/sys/kernel/tracing
loop=$(dirname "$0")/lib/getppid_loop
n=20000

row() {
	printf 'getppid\t%s\t%s\t%s\n' "$1" "$2" "$3"
}

P=$T/process
[ -f $P/follow_pid ] || { echo "no process tracer in this kernel" >&2; exit 1; }

row "untraced" "$($loop $n)" ""

# Tracing system calls, but the loop is outside the followed tree (a
# sleep's): what every other task of the system pays.
sleep 1000 &
other=$!
echo $other > $P/follow_pid
echo process > $T/current_tracer
row "process tracer, other tree" "$($loop $n)" "<= 1.02"
kill $other

# The loop runs in a child of this shell: follow this shell's tree.
echo $$ > $P/follow_pid
row "process tracer, syscalls on" "$($loop $n)" "<= 3.00"
# Every task followed: no pid list to look the task up in.
echo 0 > $P/follow_pid
row "process tracer, every task" "$($loop $n)" ""
echo $$ > $P/follow_pid
echo 0 > $P/syscalls
row "process tracer, syscalls off" "$($loop $n)" "<= 1.005"
# The settings go back to their defaults with the tracer.
echo nop > $T/current_tracer

# The loop outside the list: the tracepoints run for listed tasks only.
sleep 1000 &
other=$!
echo $other > $T/set_event_pid
echo 1 > $T/events/raw_syscalls/enable
row "raw_syscalls events, other task" "$($loop $n)" "<= 1.02"
echo 0 > $T/events/raw_syscalls/enable
kill $other

echo $$ > $T/set_event_pid
echo 1 > $T/options/event-fork
echo 1 > $T/events/raw_syscalls/enable
row "raw_syscalls events, set_event_pid" "$($loop $n)" "<= 7.66"
echo 0 > $T/events/raw_syscalls/enable
echo 1 > $T/events/raw_syscalls/sys_exit/enable
row "sys_exit event, set_event_pid" "$($loop $n)" "scale"
echo 0 > $T/events/raw_syscalls/sys_exit/enable
echo 0 > $T/options/event-fork
# Truncate, write nothing: any write, even an empty line, marks every
# event as pid-filtered (event_pid_write()), and the benchmarks after
# this one would pay for the check.
: > $T/set_event_pid

# strace stops the task twice per call: fewer calls, same per-call figure.
row "strace" "$(strace -f -o /dev/null "$loop" $((n / 20)))" "scale"
