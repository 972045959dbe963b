# shellcheck shell=bash
# shellcheck disable=SC2034 # bin is the tests'
# SPDX-License-Identifier: GPL-2.0
# needs: lttng lttng-sessiond babeltrace2
# Helpers of the lttng tests, sourced from the clone (build-selftests
# installs only executables): a kernel tracing session around a command,
# babeltrace2's text as one line per event; KTAP checks come from
# selftests/include/ktap-lib.sh.
# shellcheck source=selftests/include/ktap-lib.sh
. "$SIDEBAND_ROOT/selftests/include/ktap-lib.sh" || exit 1

# The programs of the Makefile, installed beside the tests.
bin=$(cd "$(dirname "$0")" && pwd)/bin

# lttng_sessiond: a root session daemon, which loads lttng-modules from
# /lib/modules (vm-run mounts the flavour's modules there): the probes of
# its own list, and lttng-probe-perf (perf_uevent), which that list does
# not name yet.
lttng_sessiond() {
	command -v lttng-sessiond >/dev/null || skip "no lttng-sessiond (lttng-tools)"
	command -v babeltrace2 >/dev/null || skip "no babeltrace2"
	[ -x "$bin/pidns-cpu" ] || skip "no $bin (make -C selftests/lttng)"
	if ! lttng list >/dev/null 2>&1; then
		LTTNG_EXTRA_KMOD_PROBES=perf lttng-sessiond --daemonize || return 1
	fi
	# "Kernel tracer not available" when the modules did not load.
	lttng list --kernel >/dev/null || skip "no LTTng kernel tracer"
}

# lttng_trace DIR EVENTS CMD...: a kernel session with EVENTS (a comma
# separated list) written to DIR while CMD runs; CMD's status.  Eight
# 1 MiB sub-buffers per CPU: a TCG guest's consumer daemon is slow.
lttng_trace() {
	local dir=$1 events=$2 name=sideband-$$ rc=0
	shift 2
	lttng create "$name" --output="$dir" >/dev/null
	lttng enable-channel --kernel --subbuf-size=1M --num-subbuf=8 chan >/dev/null
	lttng enable-event --kernel --channel=chan "$events" >/dev/null
	lttng start >/dev/null
	"$@" || rc=$?
	lttng stop >/dev/null
	lttng destroy "$name" >/dev/null
	return $rc
}

# bt2_events DIR: the events of the trace in DIR, one line each: the
# event's name, then its payload as key=value (strings keep their quotes,
# arrays become a,b,c).  A lost event fails a test, on stderr (stdout is
# the events; kselftest's runner merges the two).
bt2_events() {
	babeltrace2 "$1" 2>"$1.bt2-stderr" | awk '
	{
		name = $4
		sub(/:$/, "", name)
		p = $0
		sub(/.*\}, \{ /, "", p)
		sub(/ \}$/, "", p)
		gsub(/\[[0-9]+\] = /, "", p)
		out = ""
		depth = 0
		for (i = 1; i <= length(p); i++) {
			c = substr(p, i, 1)
			if (c == "[") depth++
			else if (c == "]") depth--
			else if (c != " " || depth == 0) out = out c
		}
		gsub(/ = /, "=", out)
		gsub(/, /, " ", out)
		print name, out
	}'
	if grep -i 'discarded\|lost' "$1.bt2-stderr" >&2; then
		ktap_test_fail "the trace lost events" >&2
	fi
}

# field LINE KEY: the value of KEY in a line of bt2_events.
field() {
	if [[ " $1 " =~ \ $2=([^ ]*)\  ]]; then
		echo "${BASH_REMATCH[1]}"
	fi
}

# pidns_report DIR: pidns-cpu's report of DIR/trace into DIR/report,
# shown as diagnostics; a trace that lost events ends the test, failed.
pidns_report() {
	"$bin/pidns-cpu" "$1/trace" >"$1/report"
	cut -c1-200 "$1/report" | sed 's/^/# /'
	grep -q '^lost events: 0$' "$1/report" || { ktap_test_fail "the trace lost events"; ktap_finished; }
}

# within DIR NAME NS MS: pidns-cpu's report (DIR/report) gives namespace
# NS MS ms of CPU time, +- 10%; DIR/NAME is what its burner printed.
within() {
	local got
	got=$(awk -v id="$3" '$1 == id { print $5 }' "$1/report")
	echo "# figures: pidns-cpu: namespace $2 burnt $(sed -n 's/^cpu //p' "$1/$2"), attributed ${got:-nothing} ms"
	check "namespace $2 ($3): ${4} ms within 10%" \
		"$(awk -v got="${got:-0}" -v want="$4" \
			'BEGIN { print (got >= want * 0.9 && got <= want * 1.1) ? "yes" : "no (" got ")" }')" yes
}
