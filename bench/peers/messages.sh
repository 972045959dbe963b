#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-peers, group 2: a message from user space into a trace
# stream, by prctl(PR_TASK_PERF_UEVENT) and by what a user would pick
# instead, side by side in one boot.  msgloop (bench/peers/msgloop.c)
# sends 5 runs of 5000 messages of 17 bytes; the first row is the call
# with nobody listening.  Each row prints a second line: what the
# listener kept and lost of the 25000 (ftrace's buffer stats, perf's
# ring, LTTng's and bpftrace's own counts).  The ftrace rows read their
# buffer after each run (as trace_marker is read), the perf event's ring
# is read as it fills, LTTng's consumer daemon and bpftrace read as the
# messages come: under QEMU -icount their work is in the row.  Under the
# table: the cheapest peer that puts every message into a kernel trace
# stream, and our ratios to it.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/peers/lib.sh
. "$here/lib.sh"
loop=$here/msgloop
W=/tmp/peers
expected=$((5 * 5000))
bench=peers-message
rm -rf "$W"
mkdir -p "$W"
# 4 MiB a CPU, as bench/uevent.c: a run of 5000 messages fits (the
# buffer is not expanded from its boot size until a tracer or an event
# is on, and trace_marker alone expands nothing).
echo 4096 >/sys/kernel/tracing/buffer_size_kb

row() {		# VARIANT NS_OR_REASON
	printf '%s\t%s\t%s\t\n' "$bench" "$1" "$2"
}


# result VARIANT KIND OUTPUT [WRITTEN LOST]: the row and its second line.
# KIND: ours, peer (every message into a kernel trace stream) or other.
best='' best_ns='' ours=''
result() {
	local variant=$1 kind=$2 ns written lost what
	read -r ns written lost <<<"$3"
	if [ "$ns" = "not" ]; then
		row "$variant" "$3"
		return
	fi
	[ $# -lt 4 ] || written=$4 lost=$5
	row "$variant" "$ns"
	case $kind in
	none) echo "#   delivered: nothing (nobody listens)"; return ;;
	ust) what="; a user-space buffer of its own, not ordered with the kernel's events" ;;
	esac
	missed=$((expected - written - lost))
	[ "$missed" -ge 0 ] || missed=0
	echo "#   delivered: $written written, $lost lost, $missed not captured of $expected messages$what"
	[ "$lost" = 0 ] && [ "$missed" = 0 ] || return 0
	case $kind in
	ours) ours="$ours${ours:+;}$variant $ns" ;;
	peer)
		if [ -z "$best_ns" ] || awk -v a="$ns" -v b="$best_ns" 'BEGIN { exit !(a < b) }'; then
			best=$variant best_ns=$ns
		fi ;;
	esac
}

result "PR_TASK_PERF_UEVENT, no listener" none "$("$loop" none)"
result "write(trace_marker)" peer "$("$loop" marker)"
result "write(trace_marker_raw)" peer "$("$loop" marker_raw)"
result "writev(user_events_data)" peer "$("$loop" user_event)"
result "PR_TASK_PERF_UEVENT, perf event" ours "$("$loop" perf)"
result "PR_TASK_PERF_UEVENT, ftrace event" ours "$("$loop" ftrace)"

# LTTng: the perf_uevent event of lttng-patches/ (lttng-probe-perf, which
# the session daemon loads when asked, as selftests/lttng does).
lttng_row() {
	command -v lttng-sessiond >/dev/null || { echo "not run: no lttng-sessiond (lttng-tools)"; return; }
	LTTNG_EXTRA_KMOD_PROBES=perf lttng-sessiond --daemonize >/dev/null 2>&1
	lttng list --kernel 2>/dev/null | grep -q ' perf_uevent ' ||
		{ echo "not run: no LTTng perf_uevent event (lttng-modules with lttng-patches/)"; return; }
	lttng create peers --output="$W/lttng" >/dev/null
	lttng enable-event --kernel perf_uevent >/dev/null
	lttng start >/dev/null
	"$loop" prctl >"$W/out"
	lttng stop >/dev/null
	lttng destroy >/dev/null
	babeltrace2 "$W/lttng" 2>"$W/err" | grep -c ' perf_uevent: ' >"$W/written"
	read -r ns _ <"$W/out"
	echo "$ns $(cat "$W/written") $(sed -n 's/.*[Tt]racer discarded \([0-9]*\) events.*/\1/p' "$W/err" |
		awk '{ s += $1 } END { print s + 0 }')"
}
result "PR_TASK_PERF_UEVENT, LTTng" ours "$(lttng_row)"

# A USDT probe with bpftrace attached (a uprobe: a trap per message),
# printing each message as a user would.
usdt_row() {
	local out tool
	out=$("$loop" usdt)
	case $out in not\ run*) echo "$out"; return ;; esac
	command -v bpftrace >/dev/null || { echo "not run: no bpftrace"; return; }
	bpftrace -o "$W/trace" -e "usdt:$loop:sideband:msg { printf(\"%s\\n\", str(arg0)); }" >"$W/stdout" 2>"$W/err" &
	tool=$!
	ready "$tool" || { echo "not run: bpftrace did not start: $(head -c 200 "$W/err")"; kill "$tool"; return; }
	read -r ns _ <<<"$("$loop" usdt)"
	kill -INT "$tool"
	wait "$tool"
	echo "$ns $(grep -c '^request 4711 done$' "$W/trace") $(sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' "$W/trace" "$W/err" |
		awk '{ s += $1 } END { print s + 0 }')"
}
result "USDT + bpftrace printf" peer "$(usdt_row)"

# LTTng-UST's tracef(): counted by LTTng's own session (user space).
tracef_row() {
	local out
	out=$("$loop" tracef)
	case $out in not\ run*) echo "$out"; return ;; esac
	lttng create peers-ust --output="$W/ust" >/dev/null
	lttng enable-event --userspace 'lttng_ust_tracef:*' >/dev/null
	lttng start >/dev/null
	"$loop" tracef >"$W/out"
	lttng stop >/dev/null
	lttng destroy >/dev/null
	read -r ns _ <"$W/out"
	echo "$ns $(babeltrace2 "$W/ust" 2>"$W/err" | grep -c 'lttng_ust_tracef:event') $(sed -n 's/.*[Tt]racer discarded \([0-9]*\) events.*/\1/p' "$W/err" |
		awk '{ s += $1 } END { print s + 0 }')"
}
result "LTTng-UST tracef()" ust "$(tracef_row)"

if [ -z "$best" ]; then
	echo "# $bench: no peer put every message into a kernel trace stream"
else
	echo "$ours" | tr ';' '\n' | awk -v best="$best" -v b="$best_ns" -v bench="$bench" '
		{ ns = $NF; $NF = ""; sub(/^ +/, ""); sub(/ +$/, ""); sub(/^PR_TASK_PERF_UEVENT, /, ""); out = out sep sprintf("%s %.2fx", $0, ns / b); sep = ", " }
		END { printf "# %s: cheapest peer with the same data: %s (%.1f); PR_TASK_PERF_UEVENT to: %s of it\n", bench, best, b, out }'
fi
echo 1408 >/sys/kernel/tracing/buffer_size_kb
rm -rf "$W"
