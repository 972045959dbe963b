# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the make bench-peers groups (syscalls.sh, messages.sh).

# ready PID: wait until PID sleeps in poll, ppoll or epoll_wait (a tool that
# waits for events: it is attached), at most 20 minutes of guest time.
ready() {
	local s
	for _ in $(seq 2400); do
		read -r s _ <"/proc/$1/syscall" 2>/dev/null || return 1
		case $s in
		7 | 271 | 232 | 281 | 441) return 0 ;;
		esac
		sleep 0.5
	done
	return 1
}
