# node-lru: move LRU page reclaim from zones to nodes, as a quilt series
# on Debian's linux-source-6.1.  See README.md.
#
# The two commands:
#   make qemu-test    build and boot both ends of the series, run the tests
#   make check        the project's tests (what CI runs)

SHELL := /bin/bash
# The directory of this Makefile, so that make -f path/to/Makefile works
# from any directory.
TOP := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
S := $(TOP)scripts

# Options (environment or command line), passed through to the scripts.
STEP ?=
FLAVOR ?= debug
TOPOS ?= uma numa
TESTS ?= smoke
export STEP FLAVOR TOPOS TESTS
# Which kernel source is used, when it is not BASE's, is said once by the
# settings check, not again by every script.
export NODELRU_BASE_NOTED := 1

.PHONY: help settings deps pristine tree kernel initramfs run qemu-test \
	check check-static check-series check-host harness-selftest \
	bisect-check mglru-check i386-check matrix-check export bench devtree clean \
	prove

help:
	@echo 'node-lru targets:'
	@echo '  qemu-test         apply, build, boot and test both ends (STEP=zone|node|N|A-B instead;'
	@echo '                    MGLRU=1 adds the node end with the multi-gen LRU, node-debug+mglru)'
	@echo '  check             static checks, host tests, both ends booted with the smoke set,'
	@echo '                    and the harness self-tests (what .ci/run runs)'
	@echo '  deps              install the Debian packages (root), or print the apt-get line'
	@echo '  pristine          extract the Debian tarball once, read-only'
	@echo '  tree STEP=N       make the work tree of step N (zone = 0, node = all)'
	@echo '  kernel STEP=N     build that step (FLAVOR=debug|bench)'
	@echo '  initramfs         build the guest image with the tests'
	@echo '  run               boot the already built kernel(s) again, no rebuild (STEP, TOPOS, TESTS);'
	@echo '                    fails, naming the make kernel command, when one is not built'
	@echo '  check-static      shellcheck and series consistency (headers, format, checkpatch)'
	@echo '  check-series      the series alone: every patch listed and present, mail headers,'
	@echo '                    unique subjects, quilt format, checkpatch (CHECKPATCH=0 skips it)'
	@echo '  check-host        the host tests (tests/host/): no kernel, no QEMU'
	@echo '  export            the series as mails for linux-mm in build/outgoing (VERSION=N)'
	@echo '  bisect-check      every step: build, boot, smoke set; resumable (STEP=N for one)'
	@echo '  scripts/bisect-merge.sh DIR...  one table from bisect-check runs split over machines'
	@echo '  mglru-check       build steps with the multi-gen LRU on (STEPS="2 7"; BOOT=1 boots them)'
	@echo '  i386-check        compile steps for i386 with highmem, no boot (STEPS="0 7"; default both ends)'
	@echo '  matrix-check      every step compiled in each variant of configs/matrix (memcg-off numa-off'
	@echo '                    smp-off hotplug i386-highmem); resumable; STEPS, VARIANTS, MATRIX_TARGETS;'
	@echo '                    BOOT=1 boots the ends of memcg-off; table in build/matrix/summary.tsv'
	@echo '  harness-selftest  show that a failing test, a panic and a hang are failures'
	@echo '  prove             boot every fault of tests/faults (injects, broken kernels): each must'
	@echo '                    fail its test (FAULTS=NAME[,NAME] for some; hours for all)'
	@echo '  bench             zone LRU, node LRU and multi-gen LRU side by side on one topology'
	@echo '                    (KERNELS="zone node mglru", ITER=N, QUICK=1, TOPOS=uma)'
	@echo '  settings          check the settings below (every target does that first)'
	@echo '  clean             remove build/ (the ccache stays)'
	@echo 'making a step (README.md, "Making a step"):'
	@echo '  devtree           build/dev/linux: a git repository of the tree, a "reverse:" commit'
	@echo '                    per patch, last first; HEAD is the rewound tree'
	@echo '  scripts/mkpatch.sh REV MSGFILE >patches/NAME.patch'
	@echo '                    the forward patch undoing commit REV of the devtree'
	@echo 'now: STEP=$(STEP) FLAVOR=$(FLAVOR) TOPOS="$(TOPOS)" TESTS=$(TESTS)'
	@echo 'settings (environment or make VAR=value; scripts/settings.tsv):'
	@bash -c '. "$$1/lib.sh" && settings_table' - "$(S)"

# Every variable is checked before anything is installed, built or written.
settings:
	@NODELRU_BASE_NOTED= bash -c '. "$$1/lib.sh" && check_settings' - "$(S)"

deps: settings
	@$(S)/deps.sh

pristine: deps
	@$(S)/pristine.sh

tree: deps
	@$(S)/mktree.sh "$(or $(STEP),node)"

kernel: deps
	@$(S)/kbuild.sh "$(or $(STEP),node)" $(FLAVOR)

initramfs: deps
	@$(S)/initramfs.sh

run: deps
	@RERUN=1 $(S)/qemu-test.sh

qemu-test: deps
	@$(S)/qemu-test.sh

check-static: pristine
	@$(S)/check-static.sh

check-series: pristine
	@$(S)/check-series.sh

# The host tests of tests/host/list (host_tests), a recipe line each (the
# line break after each is newline's), in its order: the first that fails
# stops the rest.  scripts/check.sh runs the same list.
define newline


endef
check-host: deps
	$(eval host_tests := $(shell bash -c '. "$$1/lib.sh" && host_tests' - "$(S)"))
	$(if $(host_tests),,$(error no host tests to run (tests/host/list)))
	$(foreach t,$(host_tests),@$(TOP)tests/host/$(t).sh$(newline))

export: pristine
	@$(S)/export.sh

# UMA only unless TOPOS is given: the every-step run is long already.
bisect-check: deps
	@TOPOS="$(if $(filter file,$(origin TOPOS)),uma,$(TOPOS))" $(S)/bisect-check.sh

# Not part of check: two or more kernel builds.
mglru-check: deps
	@$(S)/mglru-check.sh

# Not part of check: 32-bit kernel builds, compile only.
i386-check: deps
	@$(S)/i386-check.sh

# Not part of check: every step in five configurations, some hours on 2
# CPUs.  BOOT=1 boots on uma unless TOPOS is given.
matrix-check: deps
	@TOPOS="$(if $(filter file,$(origin TOPOS)),uma,$(TOPOS))" $(S)/matrix-check.sh

# Not part of check: the full run of the three kernels takes hours (QUICK=1:
# tens of minutes).  One topology a run: uma unless TOPOS is given.
bench: deps
	@TOPOS="$(if $(filter file,$(origin TOPOS)),uma,$(TOPOS))" $(S)/bench.sh

devtree: deps
	@$(S)/devtree.sh

harness-selftest: deps
	@$(S)/harness-selftest.sh

# Not part of check: some seventy boots (two ends per inject), hours on 2
# CPUs.  FAULTS selects rows of tests/faults.
prove: deps
	@$(S)/prove.sh

# CI: everything above that fits in its budget.  The verdict line of the
# guest runs is printed last.
check: deps
	@$(S)/check.sh

# One message, not one per file, when build/ cannot be removed.
clean:
	@bash -c '. "$$1/lib.sh" && remove_tree "$$2" && msg clean "removed $$2"' - "$(S)" "$(TOP)build"
