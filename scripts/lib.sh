# shellcheck shell=bash
# Shared paths and helpers for the scripts in this folder; sourced, never run.
#
# Everything the harness builds goes under $SIDEBAND_BUILD (default: build/
# in the clone, ignored by git).  What survives a fresh clone lives under
# $SIDEBAND_CACHE (default: ~/.cache/sideband): ccache and the pristine base
# trees.  Results never depend on the cache: every cached item is checked
# against what it was made from before it is used.

SIDEBAND_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIDEBAND_BUILD=${SIDEBAND_BUILD:-$SIDEBAND_ROOT/build}
SIDEBAND_CACHE=${SIDEBAND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sideband}
# Where test results and stage logs go (the harness's own tests move them).
SIDEBAND_RESULTS=${SIDEBAND_RESULTS:-$SIDEBAND_BUILD/results}
SIDEBAND_LOGS=${SIDEBAND_LOGS:-$SIDEBAND_BUILD/logs}
export SIDEBAND_ROOT SIDEBAND_BUILD SIDEBAND_CACHE SIDEBAND_RESULTS SIDEBAND_LOGS

# ccache: one cache for every tree; paths under the build folder are
# rewritten to relative ones so that two clones share hits.
export CCACHE_DIR=${CCACHE_DIR:-$SIDEBAND_CACHE/ccache}
export CCACHE_BASEDIR=$SIDEBAND_BUILD
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}

# Fixed identity and dates for commits the harness makes itself, so the
# base commit and the applied series have the same hashes on every machine.
export GIT_COMMITTER_NAME="sideband harness"
export GIT_COMMITTER_EMAIL="harness@sideband.invalid"

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# flavor_field FLAVOR COLUMN: one column of kernel-config/flavors.
flavor_field() {
	local line
	line=$(awk -v f="$1" '$1 == f' "$SIDEBAND_ROOT/kernel-config/flavors")
	[ -n "$line" ] || die "unknown flavor '$1' (see kernel-config/flavors)"
	awk -v c="$2" '{ out = $c; for (i = c + 1; c == 3 && i <= NF; i++) out = out " " $i; print out }' <<<"$line"
}

# The source tree (e.g. linux-6.12) a flavor builds from, and its folders.
flavor_source() { flavor_field "$1" 2; }
flavor_fragments() { flavor_field "$1" 3; }
tree_dir() { echo "$SIDEBAND_BUILD/src/$1"; }
# The cached pristine git repository of TREE's source package (shared by
# the trees of one package; see prepare-tree).
base_repo() { echo "$SIDEBAND_CACHE/base/$(source_field "$1" 2).git"; }
kernel_dir() { echo "$SIDEBAND_BUILD/kernel/$1"; }
kernel_image() { echo "$(kernel_dir "$1")/arch/x86/boot/bzImage"; }
modules_dir() { echo "$SIDEBAND_BUILD/modules/$1"; }

# source_field TREE COLUMN: one column of kernel-config/sources (the series
# column is everything from column 4 on).
source_field() {
	local line
	line=$(awk -v t="$1" '$1 == t' "$SIDEBAND_ROOT/kernel-config/sources")
	[ -n "$line" ] || die "unknown source tree '$1' (see kernel-config/sources)"
	awk -v c="$2" '{ out = $c; for (i = c + 1; c == 4 && i <= NF; i++) out = out " " $i; print out }' <<<"$line"
}

# read_result FILE: the key=value pairs of a SUITE.result line (see
# scripts/run-suite) as variables r_KEY.
# shellcheck disable=SC2034 # the r_ variables are for the caller
read_result() {
	local k v
	r_passed=0 r_failed=0 r_skipped=0 r_xfail=0 r_xpass=0 r_splats=0
	r_rc=0 r_seconds=0 r_boot=-
	while IFS='=' read -r k v; do
		[ -n "$k" ] && printf -v "r_$k" '%s' "$v"
	done < <(tr ' ' '\n' <"$1")
}

# tap_diag: standard input as TAP diagnostic lines.
tap_diag() {
	sed 's/^/# /'
}
