#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What the per-task syscall tracepoints (the series' patch "tracing: Let
# pid-filtered syscall events choose the tasks that run them") cost tasks
# that are not traced: a context switch (pipe ping-pong on one CPU) with a
# pid list alone (upstream's sched_switch probes of set_event_pid), with a
# pid-filtered sys_enter event (the patch's probe that hands the task its
# work flag, on top), and with sys_enter for every task (for scale); and
# what attaching a perf event to raw_syscalls:sys_enter costs, alone and
# while a pid-filtered sys_enter event makes the tracepoint choose its
# tasks (leaving that mode waits for an RCU grace period).  Goals: the
# patch's probe within 3% of a switch over the pid list's own probes, and
# an attach within 10% of one without the mode (perf's own detach waits
# for grace periods too).
T=/sys/kernel/tracing
lib=$(dirname "$0")/lib
n=5000

row() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4"
}

sleep 1000 &
other=$!
id=$(cat $T/events/raw_syscalls/sys_enter/id)

row ctxswitch "untraced" "$("$lib"/pingpong $n)" ""
echo $other > $T/set_event_pid
row ctxswitch "set_event_pid, another task" "$("$lib"/pingpong $n)" "scale"
echo 1 > $T/events/raw_syscalls/sys_enter/enable
row ctxswitch "and sys_enter, pid-filtered" "$("$lib"/pingpong $n)" "<= 1.12"
echo > $T/set_event_pid
row ctxswitch "sys_enter, every task" "$("$lib"/pingpong $n)" "scale"
echo 0 > $T/events/raw_syscalls/sys_enter/enable
echo > $T/trace

row tp-attach "perf on raw_syscalls:sys_enter" "$("$lib"/tp_attach 21 "$id")" ""
echo $other > $T/set_event_pid
echo 1 > $T/events/raw_syscalls/sys_enter/enable
row tp-attach "while sys_enter is pid-filtered" "$("$lib"/tp_attach 21 "$id")" "<= 1.10"
echo 0 > $T/events/raw_syscalls/sys_enter/enable
echo > $T/set_event_pid
echo > $T/trace
kill $other
