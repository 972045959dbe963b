#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-peers, group 1: following a process tree's system calls with
# the process tracer and with what a user would pick instead, side by side
# in one boot.  Two workloads: a getppid() loop (bench/lib/getppid_loop,
# 5 runs of 2000 calls, the cheapest call there is) and a shell script
# that runs 200 short commands (3 runs, per command: forks and execs).
#
# Each tool is started as its documentation tells a user to, on the pid
# of the workload, which waits at a gate until the tool is ready (the
# ftrace files take effect as they are written, lttng start returns
# when tracing is on; perf trace and bpftrace are ready once they wait
# for events); strace starts the workload itself, as --seccomp-bpf needs.
# Under QEMU -icount the guest's clock counts the instructions of both
# CPUs: a tool that reads and formats while the workload runs (perf
# trace, bpftrace, strace, LTTng's consumer, cat trace_pipe) is charged
# for it; ftrace's "cat trace" after the run is not.
#
# Each row prints a second line: the calls the tool wrote, those it lost
# (by its own count: ftrace's overrun, perf trace's and bpftrace's LOST
# lines, LTTng's discarded events) and those it did not capture (fewer
# calls than the workload made, as perf stat -e raw_syscalls:sys_enter
# counts them), so that a cheap row that drops data cannot look good.
# Under each workload: the cheapest peer that delivers the same data
# (every call of the tree with its arguments and result, none lost or
# missed) and the process tracer's ratio to it.
T=/sys/kernel/tracing
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/peers/lib.sh
. "$here/lib.sh"
build=$(cd "$here/../.." && pwd)
perf=$build/perf/perf
loop=$build/bench/lib/getppid_loop
W=/tmp/peers
# Per CPU, for the ftrace rows: a run's entries fit, none is overwritten.
ftrace_kb=16384
rm -rf "$W"
mkdir -p "$W"
echo "$ftrace_kb" >$T/buffer_size_kb

# The workloads: NAME, the command, and the calls counted as "the data".
cat >"$W/commands.sh" <<'EOF'
#!/bin/sh
i=0
while [ $i -lt 100 ]; do
	/bin/true
	/bin/echo "$i" >/dev/null
	i=$((i + 1))
done
EOF
chmod +x "$W/commands.sh"
# The guest's / is the host's over 9p under a tmpfs overlay: an open of
# a file of the 9p layer waits for the host, and under -icount an idle
# guest's clock jumps to its next timer, which would make each exec cost
# what the host's 9p server takes.  Touched, the files the commands load
# are copied up to the tmpfs, as a warm page cache would serve them.
for f in /bin/sh /bin/true /bin/echo /lib64/ld-linux-x86-64.so.2 /etc/ld.so.cache \
	"$here/runcmd" $(ldd /bin/true /bin/sh | awk '$2 == "=>" { print $3 }'); do
	touch -r "$f" "$(realpath "$f")"
done
getppid_cmd=("$loop" 2000)
commands_cmd=("$here/runcmd" 3 200 /bin/sh "$W/commands.sh")

row() {		# BENCH VARIANT NS_OR_REASON
	printf '%s\t%s\t%s\t\n' "$1" "$2" "$3"
}

# stat_sum FIELD: a field of the ftrace buffer's per-CPU stats, summed.
stat_sum() {
	cat "$T"/per_cpu/cpu*/stats | awk -v f="$1:" '
		{ v = $NF; $NF = ""; sub(/ $/, "") }
		$0 == f { s += v }
		END { print s + 0 }'
}

ftrace_lost() {
	echo $(($(stat_sum overrun) + $(stat_sum "commit overrun") + $(stat_sum "dropped events")))
}


# finish PID: wait for PID to end, at most 10 minutes of guest time,
# then interrupt it.
finish() {
	for _ in $(seq 600); do
		kill -0 "$1" 2>/dev/null || break
		sleep 1
	done
	kill -INT "$1" 2>/dev/null
	wait "$1"
}

# quiet FILE: wait until FILE stops growing for a second.
quiet() {
	local size=-1
	while [ "$(stat -c %s "$1")" != "$size" ]; do
		size=$(stat -c %s "$1")
		sleep 1
	done
}

# gate CMD...: start CMD held until release; its pid in gpid.
gate() {
	rm -f "$W/go" "$W/out"
	mkfifo "$W/go"
	sh -c 'read -r _ <"$0"; exec "$@"' "$W/go" "$@" >"$W/out" &
	gpid=$!
}

release() {
	echo >"$W/go"
	wait "$gpid"
	ns=$(cat "$W/out")
}

# count WORKLOAD FILE ALL_RE GETPPID_RE: the calls of FILE that are data.
count() {
	if [ "$1" = getppid ]; then
		grep -c -E -e "$4" "$2"
	else
		grep -c -E -e "$3" "$2"
	fi
}

# The tools.  Each runs the workload $wl ($cmd) and sets ns, written,
# lost and what ("the data it keeps"); a tool that cannot run sets skip.
t_untraced() {
	ns=$("${cmd[@]}")
	written=- lost=- what="nothing"
}

# release_and_read LIVE: let the workload go and read the ftrace buffer
# into $W/trace: as it fills with LIVE (cat trace_pipe, drained once
# recording is off), else after the run (cat trace); lost: ftrace's own
# count.
release_and_read() {
	local reader
	[ -z "$1" ] || { cat $T/trace_pipe >"$W/trace" & reader=$!; }
	release
	echo 0 >$T/tracing_on
	if [ -n "$1" ]; then
		while [ "$(stat_sum entries)" -gt 0 ]; do sleep 0.2; done
		kill "$reader"
		wait "$reader" 2>/dev/null
	else
		cat $T/trace >"$W/trace"
	fi
	lost=$(ftrace_lost)
}

# The process tracer as Documentation/trace/process.rst shows it: follow
# the pid, start the tracer, then "cat trace" after the run; live: "cat
# trace_pipe" while it runs.
process_tracer() {	# LIVE
	[ -f $T/process/follow_pid ] || { skip="no process tracer in this kernel"; return; }
	: >$T/trace
	gate "${cmd[@]}"
	echo "$gpid" >$T/process/follow_pid
	echo process >$T/current_tracer
	release_and_read "$1"
	written=$(count "$wl" "$W/trace" ' syscall -?[0-9]+ \[.*\] (rc|exited)' ' syscall 110 \[.*\] rc')
	echo nop >$T/current_tracer
	echo 1 >$T/tracing_on
	: >$T/trace
	what="calls, arguments, results (one line a call)"
}
t_process() { process_tracer ""; }
t_process_pipe() { process_tracer live; }

# raw_syscalls with set_event_pid and event-fork (ftrace's own way to
# follow a tree), read the same two ways.
raw_syscalls() {	# LIVE
	: >$T/trace
	gate "${cmd[@]}"
	echo "$gpid" >$T/set_event_pid
	echo 1 >$T/options/event-fork
	echo 1 >$T/events/raw_syscalls/enable
	release_and_read "$1"
	written=$(count "$wl" "$W/trace" ' sys_enter: NR ' ' sys_enter: NR 110 ')
	echo 0 >$T/events/raw_syscalls/enable
	echo 0 >$T/options/event-fork
	# Truncated, not written: see bench/process_tracer.sh.
	: >$T/set_event_pid
	echo 1 >$T/tracing_on
	: >$T/trace
	what="calls, arguments, results (sys_enter and sys_exit lines)"
}
t_raw() { raw_syscalls ""; }
t_raw_pipe() { raw_syscalls live; }

# perf trace -p PID, the series' perf (its only BPF use would be the
# augmented syscalls of BUILD_BPF_SKEL, which this perf is built without:
# it reads the raw_syscalls and syscalls:* tracepoints).
t_perftrace() {
	[ -x "$perf" ] || { skip="no $perf"; return; }
	gate "${cmd[@]}"
	"$perf" trace -p "$gpid" -o "$W/trace" 2>"$W/err" &
	local tool=$!
	ready "$tool" || { skip="perf trace did not start: $(head -c 200 "$W/err")"; kill "$tool" "$gpid"; return; }
	release
	# perf trace ends when its process does, after it has read what
	# its buffers hold (a ^C would drop that); wait for it.
	finish "$tool"
	lost=$(sed -n 's/.*LOST \([0-9]*\) events.*/\1/p' "$W/trace" "$W/err" | awk '{ s += $1 } END { print s + 0 }')
	# A call that sleeps has a second, "[continued]" line.
	written=$(count "$wl" "$W/trace" '^ *[0-9.?]+ \(.*\): [^ ]' ' getppid\(\) ')
	what="calls, decoded arguments, results (one line a call)"
}

# bpftrace on tracepoint:raw_syscalls:sys_enter /pid == N/: counting
# (per system call number, the usual one-liner), and printing each call.
bpftrace_row() {	# PROGRAM
	command -v bpftrace >/dev/null || { skip="no bpftrace"; return; }
	gate "${cmd[@]}"
	bpftrace -o "$W/trace" -e "${1//PID/$gpid}" >"$W/stdout" 2>"$W/err" &
	local tool=$!
	ready "$tool" || { skip="bpftrace did not start: $(head -c 200 "$W/err")"; kill "$tool" "$gpid"; return; }
	release
	# bpftrace runs until ^C, then reads what its buffers hold.
	quiet "$W/trace"
	kill -INT "$tool"
	wait "$tool"
	lost=$(sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' "$W/trace" "$W/stdout" "$W/err" | awk '{ s += $1 } END { print s + 0 }')
}
t_bt_count() {
	bpftrace_row 'tracepoint:raw_syscalls:sys_enter /pid == PID/ { @[args->id] = count(); }'
	[ -z "$skip" ] || return
	if [ "$wl" = getppid ]; then
		written=$(sed -n 's/^@\[110\]: //p' "$W/trace")
	else
		written=$(sed -n 's/^@\[[0-9-]*\]: //p' "$W/trace" | awk '{ s += $1 } END { print s + 0 }')
	fi
	what="a count per call number (no arguments, results or order)"
}
t_bt_print() {
	bpftrace_row 'tracepoint:raw_syscalls:sys_enter /pid == PID/ { printf("%d enter %d %lx %lx %lx %lx %lx %lx\n", tid, args->id, args->args[0], args->args[1], args->args[2], args->args[3], args->args[4], args->args[5]); }
tracepoint:raw_syscalls:sys_exit /pid == PID/ { printf("%d exit %d %d\n", tid, args->id, args->ret); }'
	[ -z "$skip" ] || return
	written=$(count "$wl" "$W/trace" '^[0-9]+ enter ' '^[0-9]+ enter 110 ')
	what="calls, arguments, results (enter and exit lines)"
}

# LTTng: the kernel system calls of one process (lttng track --pid).
lttng_up=
t_lttng() {
	command -v lttng-sessiond >/dev/null || { skip="no lttng-sessiond (lttng-tools)"; return; }
	if [ -z "$lttng_up" ]; then
		lttng-sessiond --daemonize >/dev/null 2>&1
		lttng_up=1
	fi
	lttng list --kernel >/dev/null 2>&1 || { skip="no LTTng kernel tracer (lttng-modules not loaded)"; return; }
	rm -rf "$W/lttng"
	gate "${cmd[@]}"
	lttng create peers --output="$W/lttng" >/dev/null
	lttng enable-event --kernel --syscall --all >/dev/null
	lttng track --kernel --pid="$gpid" >/dev/null
	lttng start >/dev/null
	release
	lttng stop >/dev/null
	lttng destroy >/dev/null
	babeltrace2 "$W/lttng" >"$W/trace" 2>"$W/err"
	lost=$(sed -n 's/.*[Tt]racer discarded \([0-9]*\) events.*/\1/p' "$W/err" | awk '{ s += $1 } END { print s + 0 }')
	written=$(count "$wl" "$W/trace" ' syscall_entry_' ' syscall_entry_getppid:')
	what="calls, arguments, results (entry and exit events)"
}

# strace -f, with and without --seccomp-bpf, which needs strace to start
# the command.
strace_row() {		# OPTIONS...
	command -v strace >/dev/null || { skip="no strace"; return; }
	ns=$(strace -f "$@" -o "$W/trace" "${cmd[@]}" 2>"$W/err")
	lost=0
	written=$(count "$wl" "$W/trace" '^([0-9]+ +)?[a-z_0-9]+\(' '^([0-9]+ +)?getppid\(\)')
	what="calls, decoded arguments, results (one line a call)"
	# Without -e trace=, every call stops the task: strace says so.
	! grep -q 'no syscalls to filter' "$W/err" ||
		what="$what; strace: \"no syscalls to filter\" without -e trace="
}
t_strace_seccomp() { strace_row --seccomp-bpf; }
t_strace() { strace_row; }

rows=(
	"untraced:t_untraced"
	"process tracer, cat trace:t_process"
	"process tracer, cat trace_pipe:t_process_pipe"
	"raw_syscalls+set_event_pid, trace:t_raw"
	"raw_syscalls+set_event_pid, pipe:t_raw_pipe"
	"perf trace -p:t_perftrace"
	"bpftrace pid==N, count:t_bt_count"
	"bpftrace pid==N, printf:t_bt_print"
	"lttng syscalls, track --pid:t_lttng"
	"strace -f --seccomp-bpf:t_strace_seccomp"
	"strace -f:t_strace"
)

for wl in getppid commands; do
	if [ "$wl" = getppid ]; then
		cmd=("${getppid_cmd[@]}")
		bench="peers-getppid"
		expected=$((5 * 2000))
		unit="getppid() calls"
	else
		cmd=("${commands_cmd[@]}")
		bench="peers-commands"
		# What the tree calls, as perf stat counts it: about the same
		# from run to run (the shell's waits and signals vary).
		expected=$("$perf" stat -x, -e raw_syscalls:sys_enter -- "${cmd[@]}" 2>&1 >/dev/null |
			awk -F, '/raw_syscalls:sys_enter/ { print $1 }')
		unit="system calls (perf stat: ~$expected)"
	fi
	best='' best_ns='' ours=''
	for r in "${rows[@]}"; do
		label=${r%%:*}
		skip='' ns='' written='' lost='' what=''
		"${r#*:}"
		if [ -n "$skip" ]; then
			row "$bench" "$label" "not run: $skip"
			continue
		fi
		row "$bench" "$label" "$ns"
		if [ "$written" = - ]; then
			echo "#   delivered: $what"
			continue
		fi
		missed=$((expected - written - lost))
		# The commands' count varies by a few calls from run to run.
		[ "$wl" = getppid ] || [ "${missed#-}" -gt $((expected / 100)) ] || missed=0
		[ "$missed" -ge 0 ] || missed=0
		echo "#   delivered: $written written, $lost lost, $missed not captured of $expected $unit; $what"
		full=
		case $what in calls,\ *) [ "$lost" = 0 ] && [ "$missed" = 0 ] && full=1 ;; esac
		case $label in
		process\ tracer*) ours="$ours${ours:+;}$label $ns" ;;
		*)
			if [ -n "$full" ] && { [ -z "$best_ns" ] || awk -v a="$ns" -v b="$best_ns" 'BEGIN { exit !(a < b) }'; }; then
				best=$label best_ns=$ns
			fi ;;
		esac
	done
	if [ -z "$best" ]; then
		echo "# $bench: no peer delivered every call with its arguments and result"
	else
		echo "$ours" | tr ';' '\n' | awk -v best="$best" -v b="$best_ns" -v bench="$bench" '
			{ ns = $NF; $NF = ""; sub(/^ +/, ""); sub(/ +$/, ""); out = out sep sprintf("%s %.2fx", $0, ns / b); sep = ", " }
			END { printf "# %s: cheapest peer with the same data: %s (%.1f); ours: %s of it\n", bench, best, b, out }'
	fi
done
echo 1408 >$T/buffer_size_kb
rm -rf "$W"
