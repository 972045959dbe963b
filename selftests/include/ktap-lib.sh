# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# KTAP helpers of the shell tests of selftests/, sourced from the clone
# (build-selftests installs only executables): skip a whole test, check a
# value, clean up on exit.
#
# KTAP comes from kselftest's ktap_helpers.sh, installed beside the
# groups' folders.  It echoes its arguments unquoted, so check and skip
# turn off globbing while they call it.
# shellcheck source=/dev/null
. "$(dirname "$0")/../kselftest/ktap_helpers.sh" || exit 1

# skip WHY: the whole test is skipped (before its plan).
skip() {
	set -f
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# check WHAT GOT WANT: one test, WHAT; a mismatch fails it, and its line
# says what it got and wanted.
check() {
	local -
	set -f
	if [ "$2" = "$3" ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1: got '$2', want '$3'"
	fi
}

# on_exit CMD: run CMD when the test ends.  A command that fails under
# set -e ends the test without a word: the trap names it first.
on_exit() {
	# shellcheck disable=SC2064,SC2154 # CMD now; rc and the command then
	trap "rc=\$?
	case \$rc:\$BASH_COMMAND in
	0:* | $KSFT_SKIP:* | *:exit*) ;;
	*) echo \"# status \$rc from: \$BASH_COMMAND\" ;;
	esac
	$1 || true
	exit \$rc" EXIT
}
