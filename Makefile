# sideband: build, boot and test the series.  Every target is one script
# of scripts/; `make help` lists them.  Variables: SUITES (names of
# qemu/suites/ for make test), FLAVOR (for make kernel).

SUITES ?=
FLAVOR ?= series

.PHONY: all check test deps tree kernel perf selftests initramfs \
	dev-tree export checkpatch shellcheck bisect sparse kernel-doc htmldocs bad-input \
	test-harness series-mail bench summary clean help

all:		## main job: build everything, boot, run every suite, summary
	@scripts/pipeline

check:		## the test suite: the main job plus static checks and harness tests
	@scripts/pipeline --check

test:		## run the suites (SUITES=...) on what is already built
	@scripts/pipeline --no-build $(SUITES)

deps:		## install the Debian packages the harness needs
	@scripts/install-deps --check

tree:		## build/src/linux-6.12: the base with the series applied
	@scripts/prepare-tree linux-6.12

kernel:		## build the kernel of FLAVOR (default: series)
	@scripts/build-kernel --flavor $(FLAVOR)

perf:		## build the perf tool of the series tree
	@scripts/build-perf

selftests:	## build and install the kselftests
	@scripts/build-selftests

initramfs:	## build the guest's initramfs
	@scripts/build-initramfs

dev-tree:	## make linux/, the editable tree with the series as commits
	@scripts/make-dev-tree

export:		## write linux/'s commits back to patches/ and tools-perf-patches/
	@scripts/export-series

checkpatch:	## checkpatch --strict and git apply of every patch (TAP)
	@scripts/check-patches

shellcheck:	## shellcheck over the project's scripts (TAP)
	@scripts/check-shell

bisect:		## the base and every prefix of the series build, -Werror (TAP)
	@scripts/check-bisect

sparse:		## no new sparse warning in the files the series changes (TAP)
	@scripts/check-sparse

kernel-doc:	## no new kernel-doc warning in the files the series changes (TAP)
	@scripts/check-kernel-doc

htmldocs:	## the series' Documentation pages build with Sphinx (TAP)
	@scripts/check-docs

bad-input:	## Documentation/bad-input.md is what the bad-input test tries (TAP)
	@scripts/check-bad-input

series-mail:	## prepare the next version's mails and dry-run git send-email
	@scripts/install-deps --check
	@scripts/prepare-series

test-harness:	## the harness's own tests (TAP)
	@scripts/test-harness

bench:		## run every benchmark in one VM and print the table of ratios
	@scripts/bench

summary:	## print the summary of the last run again
	@scripts/summary

clean:		## remove build/ (the cache in ~/.cache/sideband stays)
	rm -rf build

help:		## list the targets
	@sed -n 's/^\([a-z-]*\):[^#]*## \(.*\)/  \1\t\2/p' $(MAKEFILE_LIST) | expand -t 16
