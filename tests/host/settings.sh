#!/usr/bin/env bash
# Host test: a wrong setting (STEP, FLAVOR, TOPOS, TESTS, ACCEL, MEM, SMP,
# OVERLAP, JOBS, GUESTS, MGLRU, KERNELS, QUICK, ITER, KEEP_DISKS, CCACHE,
# BOOT, V)
# stops every entry point at once, before anything is built or written:
# within two seconds, with one "error:" message that names the valid
# values.  Each run gets an empty BUILD directory that must still not
# exist afterwards (so nothing under build/runs, or anywhere in build/, is
# touched), and PATH starts with stubs of make, gcc, quilt, patch, tar,
# mkfs.ext4, apt-get and qemu-system-x86_64 that record being called: a
# check that let a bad value through would be caught building, not build.
# Needs no kernel, no pristine tree and no root; takes a few seconds.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/settings
rm -rf "$work"
mkdir -p "$work/stubs"

# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

realmake=$(command -v make)
for tool in make gcc quilt patch tar mkfs.ext4 apt-get qemu-system-x86_64; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/called"\necho "stub %s called" >&2\nexit 1\n' \
		"$tool" "$work" "$tool" >"$work/stubs/$tool"
	chmod +x "$work/stubs/$tool"
done
nseries=$(grep -cv '^[[:space:]]*\(#\|$\)' "$top/series")

# bad NAME PATTERN COMMAND...: run COMMAND (VAR=value words first) in an
# empty BUILD and the stubs; it must fail within 2 s, print exactly one
# "error:" line, match PATTERN (grep -E) and leave nothing behind.
n=0
# shellcheck disable=SC2317 # called through check
quiet() { ! grep -q 'integer expression\|unbound variable\|command not found\|syntax error' "$1"; }
bad() {
	local name=$1 pattern=$2 out rc t0 ms
	shift 2
	n=$((n + 1))
	out=$work/$n.out
	rm -f "$work/called"
	t0=$(date +%s%N)
	rc=0
	(cd "$work" && env BUILD="$work/build" PATH="$work/stubs:$PATH" \
		timeout 20 "$@") >"$out" 2>&1 || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	sed 's/^/# /' "$out"
	check "$name: fails" [ "$rc" -ne 0 ]
	check "$name: within 2 s (${ms} ms)" [ "$ms" -le 2000 ]
	check "$name: one error message" [ "$(grep -c '^error:' "$out")" -eq 1 ]
	check "$name: names the valid values" grep -Eq "$pattern" "$out"
	check "$name: no shell noise" quiet "$out"
	check "$name: nothing built" [ ! -e "$work/called" ]
	check "$name: nothing written under BUILD" [ ! -e "$work/build" ]
	rm -rf "$work/build"
}

qt=$top/scripts/qemu-test.sh
topos='topologies: uma numa movable'
bad "qemu-test TOPOS=bogus" "TOPOS=bogus: no topology 'bogus'; $topos" env TOPOS=bogus "$qt"
bad "qemu-test TOPOS=uma,numa" "no topology 'uma,numa'; $topos.*separated by spaces" env TOPOS=uma,numa "$qt"
bad "qemu-test TESTS=nonexistent" 'TESTS=nonexistent: no test or set named nonexistent' env TESTS=nonexistent "$qt"
bad "qemu-test TESTS lists the sets" 'sets: .*full.*smoke' env TESTS=smoke,nonexistent "$qt"
bad "qemu-test STEP=99" "STEP=99: no step 99; steps are zone, node, all, 0\.\.$nseries" env STEP=99 "$qt"
bad "qemu-test STEP=x" "steps are zone, node, all, 0\.\.$nseries" env STEP="zone x" "$qt"
bad "bisect-check STEPS=5-3" "STEPS=5-3: no step 5-3; .*range A-B" env STEPS=5-3 "$top/scripts/bisect-check.sh"
bad "qemu-test FLAVOR=weird" 'FLAVOR=weird: .*flavors are debug or bench, optionally \+EXTRA.*mglru' env FLAVOR=weird "$qt"
bad "qemu-test FLAVOR=debug+nope" 'no configs/nope.config; flavors are debug or bench' env FLAVOR=debug+nope "$qt"
bad "qemu-test ACCEL=hvf" 'ACCEL=hvf: ACCEL is auto .*tcg or kvm' env ACCEL=hvf "$qt"
bad "qemu-test MEM=3G" 'MEM=3G: MEM is .* a whole number' env MEM=3G "$qt"
bad "qemu-test OVERLAP=yes" 'OVERLAP=yes: OVERLAP is 1 .*, 0 .* or auto' env OVERLAP=yes "$qt"
bad "qemu-test GUESTS=two" 'GUESTS=two: GUESTS is the number of guests booted at once, 1 to 99, or auto' env GUESTS=two "$qt"
bad "qemu-test MGLRU=yes" 'MGLRU=yes: MGLRU is 1 .*or 0' env MGLRU=yes "$qt"
bad "qemu-test MGLRU=1 FLAVOR=debug+mglru" 'MGLRU=1 with FLAVOR=debug\+mglru: .*use one or the other' env MGLRU=1 FLAVOR=debug+mglru "$qt"
bad "make check MGLRU=2" 'MGLRU=2: MGLRU is 1 .*or 0' env MGLRU=2 "$top/scripts/check.sh"
bad "bench KERNELS=zone,foo" "KERNELS=zone,foo: no kernel foo; make bench's kernels are zone, node and mglru" env KERNELS=zone,foo "$top/scripts/bench.sh"
bad "bench KERNELS='node node'" 'KERNELS=node node: node named twice' env KERNELS="node node" "$top/scripts/bench.sh"
bad "make settings KERNELS=mglu" 'KERNELS=mglu: no kernel mglu' "$realmake" -s -f "$top/Makefile" settings KERNELS=mglu
bad "qemu-test SMP=0" 'SMP=0: SMP is .* above 0' env SMP=0 "$qt"
bad "qemu-test numa MEM=2048" 'topology numa needs MEM>2048.*not MEM=2048' env TOPOS=numa MEM=2048 "$qt"
bad "qemu-test numa SMP=1" 'topology numa needs SMP>=2' env TOPOS="uma numa" SMP=1 "$qt"
bad "qemu-test RERUN=1, nothing built" 'make run \(RERUN=1\) boots kernels as they are built and builds none; not built:' env RERUN=1 TOPOS=uma "$qt"
check "make run names the command that builds it" grep -q 'make kernel STEP=zone FLAVOR=debug' "$work/$n.out"
bad "qemu-test RERUN=1 STEP='1-2 zone'" 'not built:' env RERUN=1 TOPOS=uma STEP="1-2 zone" "$qt"
check "a range names each of its steps" grep -q 'make kernel STEP=1 FLAVOR=debug' "$work/$n.out"
check "a range names each of its steps (2)" grep -q 'make kernel STEP=2 FLAVOR=debug' "$work/$n.out"
check "a range beside a name" grep -q 'make kernel STEP=zone FLAVOR=debug' "$work/$n.out"
bad "qemu-test RERUN=1 STEP='0-1 zone'" 'not built:' env RERUN=1 TOPOS=uma STEP="0-1 zone" "$qt"
check "a kernel named twice is listed once ($(grep -c 'zone-debug (no' "$work/$n.out"))" [ "$(grep -c 'zone-debug (no' "$work/$n.out")" -eq 1 ]
bad "bisect-check STEP=99" "STEP=99: .*0\.\.$nseries" env STEP=99 "$top/scripts/bisect-check.sh"
bad "i386-check STEPS=99" "STEPS=99: .*0\.\.$nseries" env STEPS=99 "$top/scripts/i386-check.sh"
bad "bisect-check TOPOS=bogus" "$topos" env TOPOS=bogus "$top/scripts/bisect-check.sh"
bad "bisect-check OVERLAP=2" 'OVERLAP=2: OVERLAP is 1 .*, 0 .* or auto' env OVERLAP=2 "$top/scripts/bisect-check.sh"
bad "qemu-test JOBS=0" 'JOBS=0: JOBS is make.s -j for kernel builds, a whole number above 0' env JOBS=0 "$qt"
bad "kbuild node debug JOBS=two" 'JOBS=two: JOBS is make.s -j' env JOBS=two "$top/scripts/kbuild.sh" node debug
bad "bench TOPOS=bogus" "$topos" env TOPOS=bogus "$top/scripts/bench.sh"
bad "bench TOPOS='uma numa'" 'TOPOS=uma numa: make bench measures one topology' env TOPOS="uma numa" "$top/scripts/bench.sh"
bad "bench TOPO=numa" 'make bench reads TOPOS' env TOPO=numa "$top/scripts/bench.sh"
bad "qemu-run TOPO bogus" "$topos" "$top/scripts/qemu-run.sh" node-debug bogus smoke
bad "qemu-run TESTS nonexistent" 'no test or set named nonexistent' "$top/scripts/qemu-run.sh" node-debug uma nonexistent
bad "mktree FLAVOR=weird" 'FLAVOR=weird: .*flavors are debug or bench' env FLAVOR=weird "$top/scripts/mktree.sh" node
bad "mktree 99" "STEP=99: .*0\.\.$nseries" "$top/scripts/mktree.sh" 99
bad "kbuild node weird" 'FLAVOR=weird: .*flavors are debug or bench' "$top/scripts/kbuild.sh" node weird
# Through make, from another directory: the settings are checked before
# deps (which may install packages) and before any script runs.
bad "make tree FLAVOR=weird" 'FLAVOR=weird: .*flavors are debug or bench' \
	"$realmake" -s -f "$top/Makefile" tree FLAVOR=weird
bad "make qemu-test TOPOS=bogus" "$topos" "$realmake" -s -f "$top/Makefile" qemu-test TOPOS=bogus
bad "make kernel STEP=99" "STEP=99: .*0\.\.$nseries" "$realmake" -s -f "$top/Makefile" kernel STEP=99
bad "bench QUICK=yes" 'QUICK=yes: QUICK is 1 or 0' env QUICK=yes "$top/scripts/bench.sh"
bad "bench ITER=0" 'ITER=0: ITER is make bench.s rounds of the kernels, a whole number above 0' env ITER=0 "$top/scripts/bench.sh"
bad "qemu-test GUESTS=two" 'GUESTS=two: GUESTS is the number of guests booted at once, 1 to 99, or auto' env GUESTS=two "$qt"
bad "qemu-test KEEP_DISKS=yes" 'KEEP_DISKS=yes: KEEP_DISKS is 1 or 0' env KEEP_DISKS=yes "$qt"
bad "qemu-test CCACHE=no" 'CCACHE=no: CCACHE is 1 or 0' env CCACHE=no "$qt"
bad "qemu-test KERNEL_ARGS=nodelru.tests=x" "KERNEL_ARGS=nodelru.tests=x: 'nodelru.tests=x' is set by the harness itself" \
	env KERNEL_ARGS=nodelru.tests=x "$qt"
bad "qemu-test KERNEL_ARGS with a quote" "is not a plain kernel argument" env "KERNEL_ARGS=a=\"b" "$qt"
bad "mglru-check BOOT=yes" 'BOOT=yes: BOOT is 1 or 0' env BOOT=yes "$top/scripts/mglru-check.sh"
bad "make settings V=2" 'V=2: V is 1 or 0' "$realmake" -s -f "$top/Makefile" settings V=2

# Good values pass, in every spelling the scripts take.
# good VAR=value...: check_settings accepts these together.
# shellcheck disable=SC2317 # called through check
good() {
	local out
	# shellcheck disable=SC2016 # $1 is expanded by the inner bash
	out=$(cd "$work" && env BUILD="$work/build" "$@" bash -c '. "$1/scripts/lib.sh" && check_settings' - "$top" 2>&1) ||
		{ printf '%s\n' "$out" | sed 's/^/# /'; return 1; }
}
# each VAR=value...: check_settings accepts each of them alone.
# shellcheck disable=SC2317 # called through check
each() {
	local a
	for a in "$@"; do
		good "$a" || return 1
	done
}
check "good: STEP=zone, node, all, 0, $nseries, 'zone 3'" \
	each STEP=zone STEP=node STEP=all STEP=0 STEP="$nseries" STEP="zone 3"
check "good: FLAVOR=debug, bench, debug+mglru, bench+mglru" \
	each FLAVOR=debug FLAVOR=bench FLAVOR=debug+mglru FLAVOR=bench+mglru
check "good: TOPOS='uma numa movable'" good TOPOS="uma numa movable"
check "good: TESTS=smoke,anon-swap / 'full lockstat' / selftest / selftest-hang" \
	each TESTS=smoke,anon-swap TESTS="full lockstat" TESTS=selftest TESTS=selftest-hang
check "good: a test named directly runs on any topology (TESTS=numa-bind TOPOS=uma)" \
	good TESTS=numa-bind TOPOS=uma
check "good: ACCEL=auto, tcg, kvm" each ACCEL=auto ACCEL=tcg ACCEL=kvm
check "good: MEM=4096 SMP=4 TOPOS=numa" good MEM=4096 SMP=4 TOPOS=numa
check "good: MGLRU=0, MGLRU=1" each MGLRU=0 MGLRU=1
check "good: MGLRU=1 FLAVOR=bench" good MGLRU=1 FLAVOR=bench
check "good: KERNELS=zone / 'zone node' / 'node,mglru' / 'zone node mglru'" \
	each KERNELS=zone KERNELS="zone node" KERNELS=node,mglru KERNELS="zone node mglru"
check "good: OVERLAP=auto, 0, 1; JOBS=1, 16" each OVERLAP=auto OVERLAP=0 OVERLAP=1 JOBS=1 JOBS=16
check "good: nothing written under BUILD" [ ! -e "$work/build" ]

# The table of settings (scripts/settings.tsv, printed by make help) names
# every variable a script reads with a default, and nothing else.
table=$top/scripts/settings.tsv
mapfile -t read_vars < <(grep -ohE '\$\{[A-Z][A-Z0-9_]*:-' "$top"/scripts/*.sh "$top"/scripts/lib/*.sh "$top/Makefile" |
	sed 's/^\$[{]//; s/:-$//' | sort -u | grep -vx 'TOPO\|NODELRU_BASE_NOTED')
undocumented=()
for v in "${read_vars[@]}"; do
	grep -q "^$v	" "$table" || undocumented+=("$v")
done
check "settings.tsv has every variable the scripts read (missing: ${undocumented[*]:-none})" \
	[ ${#undocumented[@]} -eq 0 ]
stale=()
while IFS=$'\t' read -r v _; do
	grep -qw -- "$v" "$top"/scripts/*.sh "$top"/scripts/lib/*.sh "$top/Makefile" || stale+=("$v")
done < <(grep -v '^#' "$table")
check "settings.tsv names no variable that nothing reads (stale: ${stale[*]:-none})" [ ${#stale[@]} -eq 0 ]
# (the whole of make help read into a file first: grep -q stopping at
# its match closed the pipe, and make reported Error 141)
"$realmake" -s -f "$top/Makefile" help >"$work/help.out"
check "make help prints the table" grep -q 'MAX_OFFSET  *0  *lines a hunk' "$work/help.out"

# make's -j beside guests (OVERLAP): the CPUs beyond the guests' vCPUs,
# at least one, or JOBS.  nproc is a function here, for the CPU count.
# bgj CPUS SMP GUESTS [JOBS]
bgj() {
	(
		cpus=$1
		# shellcheck disable=SC2317 # called by bg_jobs_default
		nproc() { echo "$cpus"; }
		export SMP="$2"
		unset JOBS
		[ -z "${4:-}" ] || export JOBS="$4"
		. "$top/scripts/lib.sh"
		bg_jobs_default "$3"
	)
}
check "bg jobs: 8 CPUs, 2 guests of 2 vCPUs: 4 ($(bgj 8 2 2))" [ "$(bgj 8 2 2)" = 4 ]
check "bg jobs: 8 CPUs, 1 guest of 2 vCPUs: 6 ($(bgj 8 2 1))" [ "$(bgj 8 2 1)" = 6 ]
check "bg jobs: 4 CPUs, 3 guests of 2 vCPUs: at least 1 ($(bgj 4 2 3))" [ "$(bgj 4 2 3)" = 1 ]
check "bg jobs: JOBS=3 wins ($(bgj 8 2 2 3))" [ "$(bgj 8 2 2 3)" = 3 ]

rm -rf "$work"
echo "settings: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
