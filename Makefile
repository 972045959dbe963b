# sideband: build, boot and test the series.  Every target is one script
# of scripts/; `make help` lists them.  Variables: SUITES (names of
# qemu/suites/ for make test), FLAVOR (for make kernel), J (suites at a
# time; default: the number of CPUs), A and B (result folders, for make
# compare).

SUITES ?=
FLAVOR ?=
J ?= $(shell nproc)

.PHONY: all check check-full test deps tree kernel perf selftests initramfs \
	dev-tree export check-deps checkpatch uapi-abi shellcheck bisect sparse w1 kernel-doc htmldocs doc-tables \
	matrix harness grading reports lava series-mail rehearse-send range-diff bench bench-peers summary compare clean help \
	guest-image lava-jobs suites flavors man-pages

all:		## main job: the series kernel, perf, kselftests, their suites, summary
	@scripts/pipeline -j $(J)

check:		## the test suite (CI): the series, kcsan and Debian kernels' suites, host checks
	@scripts/pipeline --check -j $(J)

check-full:	## every suite on every flavour it names: also bisect, base, debug, ftrace, lts, arm64
	@scripts/pipeline --check --full -j $(J)

test:		## run the suites (SUITES=...) on what is already built
	@scripts/pipeline --no-build -j $(J) $(SUITES)

deps:		## install the Debian packages the harness needs
	@scripts/install-deps

tree:		## build/src/TREE: the primary base with the series applied
	@scripts/prepare-tree

kernel:		## build the kernel of FLAVOR (default: the primary flavour)
	@scripts/build-kernel $(if $(FLAVOR),--flavor $(FLAVOR))

perf:		## build the perf tool of the series tree
	@scripts/build-perf

selftests:	## build and install the kselftests
	@scripts/build-selftests

initramfs:	## build the guest's initramfs
	@scripts/build-initramfs

guest-image:	## build/guest/FLAVOR.cpio: the Debian root a test farm boots (FLAVOR=...)
	@scripts/build-guest-image $(if $(FLAVOR),--flavor $(FLAVOR))

lava-jobs:	## build/lava/FLAVOR/SUITE.yaml: a LAVA job per guest suite and flavour (SUITES=...)
	@scripts/make-lava-jobs $(SUITES)

dev-tree:	## make linux/, the editable tree with the series as commits
	@scripts/make-dev-tree

export:		## write linux/'s commits back to patches/ and tools-perf-patches/
	@scripts/export-series

check-deps:	## every tool a script needs comes with install-deps' packages (TAP)
	@scripts/check-deps

checkpatch:	## checkpatch --strict and git apply of every patch (TAP)
	@scripts/check-patches

uapi-abi:	## both legs' uapi headers keep their base's ABI at every patch (TAP)
	@scripts/check-uapi-abi.py

shellcheck:	## shellcheck over the project's scripts (TAP)
	@scripts/check-shell

bisect:		## the base and every prefix of the series build, -Werror (TAP)
	@scripts/check-bisect

matrix:		## the series builds on every arch, compiler and config of kernel-config/matrix (TAP)
	@scripts/install-deps --matrix
	@scripts/check-build-matrix

sparse:		## no new sparse warning in the files the series changes (TAP)
	@scripts/check-sparse

w1:		## no new gcc W=1 warning in the files the series changes (TAP)
	@scripts/check-w1

kernel-doc:	## no new kernel-doc warning in the files the series changes (TAP)
	@scripts/check-kernel-doc

htmldocs:	## the series' Documentation pages build with Sphinx (TAP)
	@scripts/check-docs

doc-tables:	## the documentation's generated tables are what the code says (TAP)
	@scripts/check-doc-tables

man-pages:	## man-pages-patches/ apply onto Debian's manpages-dev and lint clean (TAP)
	@scripts/check-man-pages

series-mail:	## each posting's next version (outgoing/postings) through b4, git am-checked, not sent
	@scripts/install-deps
	@scripts/prepare-series

rehearse-send:	## the postings through git send-email, a public-inbox and b4 am on 127.0.0.1, and 3 planted defects (TAP)
	@scripts/install-deps
	@scripts/rehearse-send --plants

range-diff:	## git range-diff of the lts leg's series against the mainline one
	@scripts/range-diff-legs

harness:	## the harness's own tests (TAP)
	@scripts/test-harness

grading:	## grade-suite on fixture runs and planted defects (KTAP)
	@scripts/test-grading

reports:	## the KCIDB and JUnit reports of fixture runs, checked (KTAP)
	@scripts/test-reports

lava:		## LAVA jobs checked, one run by lava-run beside the harness's (as a suite: root)
	@scripts/run-suite lava

bench:		## run every benchmark in one VM and print the table of ratios
	@scripts/bench

bench-peers:	## the series' tracing beside what users pick instead, one VM per group
	@scripts/bench-peers

summary:	## print the summary of the last run again
	@scripts/summary

compare:	## regressions, fixes, new and vanished cases, figure changes from A= to B= (result folders)
	@scripts/compare_results.py "$(A)" "$(B)"

clean:		## remove build/ (the cache in ~/.cache/sideband stays)
	rm -rf build

suites:		## the suites, their flavours and watchdogs, from their files (markdown)
	@scripts/sideband_tables.py suites

flavors:	## the kernel flavours, their configs and suites, from kernel-config/flavors (markdown)
	@scripts/sideband_tables.py flavors

help:		## list the targets
	@sed -n 's/^\([a-z-]*\):[^#]*## \(.*\)/  \1\t\2/p' $(MAKEFILE_LIST) | expand -t 16
