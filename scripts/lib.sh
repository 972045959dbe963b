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

# The tables (kernel-config/flavors and sources, outgoing/postings) are
# read by scripts/sideband_tables.py alone, by column name.
# table_get TABLE KEY COLUMN: one value; table_rows TABLE COLUMN...: those
# columns of every row, tab-separated; table_keys TABLE: the first column.
table_get() {
	"$SIDEBAND_ROOT/scripts/sideband_tables.py" get "$@" || die "see above"
}
table_rows() {
	"$SIDEBAND_ROOT/scripts/sideband_tables.py" rows "$@" || die "see above"
}
table_keys() {
	"$SIDEBAND_ROOT/scripts/sideband_tables.py" keys "$1" || die "see above"
}

# flavors: every flavour of kernel-config/flavors, in table order.  The
# first is the primary one: the series kernel `make` builds and tests.
flavors() { table_keys flavors; }
primary_flavor() { flavors | head -n1; }

# The source tree (e.g. linux-6.12) a flavor builds from, the out-of-tree
# modules built for it ("-": none; NAME is built by scripts/build-NAME),
# and its config fragments.
flavor_source() { table_get flavors "$1" source; }
flavor_arch() { table_get flavors "$1" arch; }
# arch_cross ARCH: the CROSS_COMPILE prefix of Debian's compiler for ARCH
# ("" for this machine's own); arch_make ARCH: the make arguments that
# build for ARCH, for kmake.
arch_cross() {
	case $1 in
	x86_64) ;;
	arm64) echo aarch64-linux-gnu- ;;
	*) die "no cross compiler for $1 (see arch_cross in scripts/lib.sh)" ;;
	esac
}
arch_make() {
	local cross
	cross=$(arch_cross "$1")
	printf '%s\n' "ARCH=$1" "CROSS_COMPILE=$cross" "CC=ccache ${cross}gcc"
}
# arch_suffix ARCH: "" for the machine's own architecture, else "-ARCH":
# what names the folders of what is built for another one.
arch_suffix() { [ "$1" = x86_64 ] || echo "-$1"; }
flavor_modules() { table_get flavors "$1" modules; }
flavor_fragments() { table_get flavors "$1" fragments; }
# flavor_is_image FLAVOR: true for a distribution's kernel image (fragments
# "-"), which build-kernel unpacks from its package rather than compiles.
flavor_is_image() { [ "$(flavor_fragments "$1")" = - ]; }
# The tree of the primary flavour: the base with the series applied, where
# perf, the kselftests, checkpatch and the mails come from.
series_tree() { flavor_source "$(primary_flavor)"; }
tree_dir() { echo "$SIDEBAND_BUILD/src/$1"; }
# The cached pristine git repository of TREE's source package (shared by
# the trees of one package; see prepare-tree).
base_repo() { echo "$SIDEBAND_CACHE/base/$(source_field "$1" package).git"; }
# obj_dir TREE NAME: a kernel build folder (O=) of TREE.  It is a folder
# of the tree itself (ignored by the kernel's .gitignore), so that kbuild
# names sources by relative paths ("../kernel/fork.c"): every tree's
# builds then compile with the same command lines, and a compile of one
# tree hits the ccache entries of another wherever the sources and the
# config agree (the base kernel and the series', the gate's builds and
# both).
obj_dir() { echo "$(tree_dir "$1")/.obj-$2"; }
kernel_dir() { obj_dir "$(flavor_source "$1")" "$1"; }
kernel_image() {
	case $(flavor_arch "$1") in
	arm64) echo "$(kernel_dir "$1")/arch/arm64/boot/Image" ;;
	*) echo "$(kernel_dir "$1")/arch/x86/boot/bzImage" ;;
	esac
}
# kernel_target FLAVOR: the make target of kernel_image.
kernel_target() { basename "$(kernel_image "$1")"; }
modules_dir() { echo "$SIDEBAND_BUILD/modules/$1"; }
# perf_dir TREE [ARCH]: where scripts/build-perf puts the perf of TREE
# (for ARCH: build/perf-arm64); series_perf: the perf of the series tree,
# the one the suites use.
series_perf() { echo "$(perf_dir "$(series_tree)")/perf"; }
perf_dir() {
	local tree=$1 suffix
	suffix=$(arch_suffix "${2:-x86_64}")
	if [ "$tree" = "$(series_tree)" ]; then
		echo "$SIDEBAND_BUILD/perf$suffix"
	else
		echo "$SIDEBAND_BUILD/perf-$tree$suffix"
	fi
}
# tree_flavor TREE [ARCH]: the first flavour built from TREE for ARCH
# (default: x86_64), whose kernel build folder has the headers the tree's
# selftests compile against.
tree_flavor() {
	local f
	for f in $(flavors); do
		[ "$(flavor_source "$f")" = "$1" ] && [ "$(flavor_arch "$f")" = "${2:-x86_64}" ] &&
			echo "$f" && return
	done
	die "no flavour builds $1 for ${2:-x86_64} (see kernel-config/flavors)"
}
# flavor_userland FLAVOR: the tree whose perf and kselftests the suites of
# FLAVOR run: its own if it carries the series (the lts leg's 6.12 tree),
# else the primary series tree (base).
flavor_userland() {
	local tree
	tree=$(flavor_source "$1")
	if [ "$(source_field "$tree" series)" != - ]; then
		echo "$tree"
	else
		series_tree
	fi
}
# kselftest_dir [TREE [ARCH]]: the installed kselftests of TREE (default:
# the series tree) for ARCH (default: x86_64); own_selftests_dir [ARCH]:
# the project's selftests/, laid out the same way (built against the series
# tree for x86_64 only); the guest's initramfs.
kselftest_dir() {
	local tree=${1:-$(series_tree)} suffix
	suffix=$(arch_suffix "${2:-x86_64}")
	if [ "$tree" = "$(series_tree)" ]; then
		echo "$SIDEBAND_BUILD/kselftest$suffix"
	else
		echo "$SIDEBAND_BUILD/kselftest-$tree$suffix"
	fi
}
own_selftests_dir() { echo "$SIDEBAND_BUILD/sideband-selftests$(arch_suffix "${1:-x86_64}")"; }
initramfs_path() { echo "$SIDEBAND_BUILD/initramfs$(arch_suffix "${1:-x86_64}").cpio"; }
# guest_root ARCH: the Debian root a guest of a foreign architecture
# mounts instead of this machine's (scripts/build-guest-root).
guest_root() { echo "$SIDEBAND_BUILD/guest/root-$1"; }
# guest_sysroot ARCH: the real path of guest_root, the sysroot of ARCH's
# cross builds; it must have been built.
guest_sysroot() {
	local root
	root=$(realpath "$(guest_root "$1")")
	[ -d "$root/usr/include" ] || die "no $root (run scripts/build-guest-root $1)"
	echo "$root"
}
# guest_image FLAVOR: the root a farm boots (scripts/build-guest-image).
guest_image() { echo "$SIDEBAND_BUILD/guest/$1.cpio"; }
# guest_cmdline [ARCH]: the kernel command line of every guest, vm-run's and the
# farm's.  pci=noacpi: virtio uses MSI-X; ACPI interrupt routing costs
# 0.5 s of AML under TCG.  loglevel=5: warnings reach the console, chatter
# does not.
guest_cmdline() {
	case ${1:-x86_64} in
	arm64) echo "console=ttyAMA0 loglevel=5 panic=-1" ;;
	*) echo "console=ttyS0 loglevel=5 panic=-1 pci=noacpi random.trust_cpu=on" ;;
	esac
}
# suite_env FLAVOR: the variables a suite runs with on FLAVOR (or host),
# one VAR=value a line (see scripts/run-suite; it adds SUITE and
# RESULTS_DIR): the tree, perf and kselftests of the flavour's leg.
suite_env() {
	local userland arch=x86_64
	if [ "$1" = host ]; then
		userland=$(series_tree)
	else
		userland=$(flavor_userland "$1")
		arch=$(flavor_arch "$1")
	fi
	printf '%s\n' "SIDEBAND_ROOT=$SIDEBAND_ROOT" "SIDEBAND_BUILD=$SIDEBAND_BUILD" \
		"SIDEBAND_TREE=$(tree_dir "$userland")" \
		"SIDEBAND_PERF=$(perf_dir "$userland" "$arch")/perf" \
		"SIDEBAND_KSELFTEST=$(kselftest_dir "$userland" "$arch")" \
		"SIDEBAND_SELFTESTS=$(own_selftests_dir "$arch")"
}

# Suites (see Documentation/harness.md): executables of qemu/suites/, each
# with a "# flavors:" header (kernel flavours, or "host") and an optional
# "# timeout:" in seconds.
suite_dir() { echo "${SIDEBAND_SUITES:-$SIDEBAND_ROOT/qemu/suites}"; }
# suite_path SUITE: the program of SUITE, a name in the suites folder or a
# path to a program elsewhere.
suite_path() {
	case $1 in
	*/*) realpath "$1" ;;
	*) echo "$(suite_dir)/$1" ;;
	esac
}
# suite_header FILE KEY: the value of FILE's "# KEY:" header line.
suite_header() { "$SIDEBAND_ROOT/scripts/sideband_tables.py" header "$1" "$2"; }
# suite_contract FILE: FILE's headers, checked, with their defaults:
# KEY=VALUE lines (flavors, check, uses, lock, timeout, cmdline).
suite_contract() { "$SIDEBAND_ROOT/scripts/sideband_tables.py" contract "$1"; }
# contract_value CONTRACT KEY: KEY's value in suite_contract's output.
contract_value() { sed -n "s/^$2=//p" <<<"$1"; }

# source_field TREE COLUMN: one column (package, version, from, series) of
# kernel-config/sources, or of SIDEBAND_SOURCES (the harness's tests use a
# table of their own).
source_field() { table_get sources "$1" "$2"; }

# system_suite: the Debian suite of this machine (bookworm); the sources
# table's packages "from" it are installed by scripts/install-deps, the
# others fetched by scripts/fetch-source.
system_suite() { . /etc/os-release && echo "$VERSION_CODENAME"; }
# debian_mirror: the Debian mirror this machine's apt uses.
debian_mirror() {
	{
		sed -n 's|^URIs: *\([^ ]*debian\)/*$|\1|p' /etc/apt/sources.list.d/*.sources
		sed -n 's|^deb  *\(\[[^]]*\] *\)\?\([^ ]*debian\)/* .*|\2|p' /etc/apt/sources.list
	} 2>/dev/null | head -n1 | grep . || echo http://deb.debian.org/debian
}

# kmake SRC OUT ARGS...: make in kernel tree SRC with objects in OUT, the
# way every kernel of the harness is built (x86_64, or arch_make's
# arguments among ARGS; ccache; fixed build identity so that two builds of
# one tree are byte for byte the same).
kmake() {
	local src=$1 out=$2
	shift 2
	# LOCALVERSION= (set, empty): no "+" for a tree that is not at a tag.
	# ARCH and CC may be given again in the arguments: make takes the
	# last assignment of a variable on its command line.
	make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_USER=sideband KBUILD_BUILD_HOST=sideband LOCALVERSION= \
		-j"$(nproc)" "$@"
}

# series_files TREE: the patch files of TREE's series folders, in apply
# order, one per line, as paths relative to the clone (patches/0001-...).
series_files() {
	local d
	for d in $(source_field "$1" series); do
		folder_patches "$d"
	done
}

# folder_patches DIR: the patches of DIR/series (DIR: patches/, ...), in
# order, one per line, as paths relative to the clone.
folder_patches() {
	local p
	[ -f "$SIDEBAND_ROOT/$1/series" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SIDEBAND_ROOT/$1/series" |
		while read -r p; do echo "$1/$p"; done
}

# lock_dir DIR: hold an exclusive lock on DIR (a scratch tree) until the
# script ends; a second script that wants it waits.
lock_dir() {
	mkdir -p "$(dirname "$1")"
	exec 9>"$1.lock"
	flock 9
}

# series_config OUT: OUT/.config becomes the series kernel's config (with
# CONFIG_WERROR: werror.config), for the checks that build the series
# commit by commit.  Copied before each step: olddefconfig on an early
# commit drops what only later commits define.
series_config() {
	local cfg
	cfg=$(kernel_dir "$(primary_flavor)")/.config
	[ -f "$cfg" ] || die "no $cfg (run scripts/build-kernel)"
	grep -qx 'CONFIG_WERROR=y' "$cfg" || die "$cfg lacks CONFIG_WERROR=y (kernel-config/werror.config)"
	mkdir -p "$1"
	cp "$cfg" "$1/.config.series"
	cmp -s "$1/.config.series" "$1/.config" || cp "$1/.config.series" "$1/.config"
}

# config_misses CONFIG FRAGMENT...: the requests of the fragments that
# the .config file CONFIG does not hold, one a line as written.  For each
# option its last line counts, as merge_config.sh lets a later fragment
# override an earlier one (debug.config turns off one of base.config's).
config_misses() {
	local cfg=$1 line sym
	shift
	awk '/^CONFIG_[^=]*=|^# CONFIG_[^ ]* is not set$/ {
		sym = $0; sub(/^# /, "", sym); sub(/[= ].*/, "", sym); last[sym] = $0 }
		END { for (sym in last) print last[sym] }' "$@" | while read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF "$line" "$cfg" && continue ;;
		*)
			sym=${line#\# }
			sym=${sym%% *}
			grep -q "^$sym=" "$cfg" || continue
			;;
		esac
		echo "$line"
	done
}

# The checks whose answer depends only on their inputs (check-sparse,
# check-w1, check-docs) keep it in the cache folder KEPT, named by the
# hash of those inputs.  kept_load KEPT DIR FILE...: true, with the FILEs
# copied from KEPT to DIR, when KEPT holds them all; kept_store KEPT DIR
# FILE...: keep DIR's FILEs in KEPT, replacing it at once.
kept_load() {
	local kept=$1 dir=$2 f
	shift 2
	for f; do [ -f "$kept/$f" ] || return 1; done
	for f; do cp "$kept/$f" "$dir/"; done
	touch "$kept"
}
kept_store() {
	local kept=$1 dir=$2 f
	shift 2
	rm -rf "$kept.tmp"
	mkdir -p "$kept.tmp"
	for f; do cp "$dir/$f" "$kept.tmp/"; done
	rm -rf "$kept"
	mv "$kept.tmp" "$kept"
	cache_prune 8 "$(dirname "$kept")"/*
}

# cache_prune KEEP ENTRY...: keep the KEEP of the cache entries ENTRY
# (files or folders of one kind, each named by the hash of what made it)
# that were made or used last, and remove the others.  Each change of
# the series adds an entry to most kinds; users touch the entry they use.
cache_prune() {
	local keep=$1 old
	shift
	# (newest first; the names are hashes, with no newline)
	find "$@" -maxdepth 0 -printf '%T@ %p\n' 2>/dev/null | sort -rn |
		tail -n +"$((keep + 1))" | while read -r _ old; do
		rm -rf -- "$old"
	done
}

# built_objects OUT FILES: the objects in OUT of the C files among FILES
# (paths in the tree, one a line), one per line (kernel/fork.o).
built_objects() {
	local c
	grep '\.c$' <<<"$2" | while read -r c; do
		if [ -f "$1/${c%.c}.o" ]; then echo "${c%.c}.o"; fi
	done
}

# findings CHECK LOG TREE OUT FILES: what CHECK (W=1 or coccicheck)
# reported in a kbuild log of TREE (objects in OUT) about FILES (paths in
# the tree, one a line), one per line as "FILE: MESSAGE", repeats
# numbered, line numbers left out (the series moves lines).  kbuild
# names a source by its path from OUT or by its absolute path: FILE
# either way; a reported path it cannot read as the tree's stops the
# script, since every finding would be dropped unseen.  Coccinelle's
# reports read FILE:LINE:COL-COL: MESSAGE (or FILE:LINE: MESSAGE), and a
# message may name lines of its own; the compiler's own lines in a
# coccicheck log (it compiles too) are not its reports.
findings() {
	local pat tree rel found
	case $1 in
	W=1) pat='s/^([^ :]+):[0-9]+:[0-9]+: warning: (.*)$/\1: \2/p' ;;
	coccicheck) pat='/^[^ :]+:[0-9]+:[0-9]+: (warning|note|error): /d
		s/^([^ :]+):[0-9]+(:[0-9]+(-[0-9]+)?)?: (.*)$/\1: \4/p' ;;
	*) die "findings: no check $1" ;;
	esac
	# The two prefixes, as sed matches them literally.
	{ read -r tree; read -r rel; } < <(printf '%s\n' "$3" "$(realpath --relative-to="$4" "$3")" |
		sed 's/[][\\.*^$|]/\\&/g')
	found=$(sed -e "s|^$tree/||" -e "s|^$rel/||" "$2" | sed -nE "$pat")
	if grep -qE '^(/|\.\./)' <<<"$found"; then
		die "$2: paths not of $3: $(grep -E '^(/|\.\./)' <<<"$found" | head -n1)"
	fi
	[ -n "$found" ] || return 0
	sed -E 's/line [0-9]+/line N/g' <<<"$found" |
		awk -F': ' 'NR == FNR { mine[$0]; next } $1 in mine' <(echo "$5") - |
		number_repeats
}

# renumber: findings' lines of two lists, numbered again as one.
renumber() {
	sed 's/ #[0-9]*$//' | number_repeats
}

# number_repeats: standard input's lines, each repeat of a line numbered
# ("msg #1", "msg #2"), sorted in the C locale: comm(1) on two such lists
# then compares how often each line occurs, not only whether it does.
number_repeats() {
	awk '{ print $0 " #" ++c[$0] }' | LC_ALL=C sort
}

# read_result FILE: the key=value pairs of a SUITE.result or SUITE.status
# line (see scripts/sideband_results.py) as variables r_KEY.
# shellcheck disable=SC2034 # the r_ variables are for the caller
read_result() {
	local k v
	r_passed=0 r_failed=0 r_skipped=0 r_xfail=0 r_xpass=0 r_splats=0
	r_rc=0 r_seconds=0 r_boot=- r_verdict=-
	while IFS='=' read -r k v; do
		[ -n "$k" ] && printf -v "r_$k" '%s' "$v"
	done < <(tr ' ' '\n' <"$1")
}

# tap_diag: standard input as TAP diagnostic lines.
tap_diag() {
	sed 's/^/# /'
}

# KTAP output for the host scripts: these mirror kselftest's
# tools/testing/selftests/kselftest/ktap_helpers.sh (names, counters, lines
# printed, ktap_finished's status), which the guest's tests source.  That
# file echoes its arguments unquoted (split and globbed); these quote them,
# and ktap_print_msg makes each line of its message a "# " line.
KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0 KSFT_NUM_TESTS=0
ktap_print_header() { echo "TAP version 13"; }
ktap_print_msg() { tap_diag <<<"$*"; }
ktap_set_plan() { KSFT_NUM_TESTS=$1; echo "1..$1"; }
ktap_skip_all() { printf '1..0 # SKIP %s\n' "$*"; }
# __ktap_test RESULT DESCRIPTION: one numbered result line.
__ktap_test() {
	printf '%s %d %s\n' "$1" "$KTAP_TESTNO" "$2"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
}
ktap_test_pass() { __ktap_test ok "$1"; KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1)); }
ktap_test_fail() { __ktap_test "not ok" "$1"; KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1)); }
ktap_test_skip() { __ktap_test ok "$1 # SKIP"; KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1)); }
ktap_print_totals() {
	echo "# Totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL xfail:0 xpass:0 skip:$KTAP_CNT_SKIP error:0"
}
ktap_exit_fail_msg() { printf 'Bail out! %s\n' "$*"; ktap_print_totals; exit 1; }
# ktap_finished: the totals, then exit 0 if every planned test passed or
# skipped, 1 if not.
ktap_finished() {
	ktap_print_totals
	[ $((KTAP_CNT_PASS + KTAP_CNT_SKIP)) -eq "$KSFT_NUM_TESTS" ] && exit 0
	exit 1
}
