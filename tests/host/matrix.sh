#!/usr/bin/env bash
# Host test: make matrix-check (scripts/matrix-check.sh) without building a
# kernel.
#   - The variant table, configs/matrix, parses: its five variants, and
#     memcg-off booted as scripts/kbuild.sh's FLAVOR debug+matrix-memcg-off.
#   - Broken tables are refused, the line named (an unknown ARCH, a BOOT
#     that is neither yes nor no, a missing fragment, a variant listed
#     twice, a booted i386 variant, a booted variant that kbuild.sh could
#     not build, a short line), and a table that is right after each of
#     those edits is taken: the check can fail and can pass.
#   - A wrong VARIANTS, MATRIX_TARGETS, BOOT or STEPS stops the script
#     within 2 s with one error naming the valid values, with nothing
#     written under an empty BUILD and no make, gcc or quilt run (stubs).
#   - Every variant configures on the pristine tree (the series' Kconfig
#     differs from it only by the LRU_GEN fence) with every requested
#     option kept, the way the script configures a cell (cell_make,
#     cell_configure, config_lost); memcg-off's CONFIG_MEMCG=n wins over
#     qemu.config's =y.  Negative control: smp-off without its
#     CONFIG_NR_CPUS=1 line must name qemu.config's CONFIG_NR_CPUS=8 as
#     lost (NR_CPUS is 1 without SMP).
#   - The summary from canned cell results: ok, FAIL and no result in the
#     right cells, the failure's first error line with the tree's path
#     taken off and its logs named, status 1; all ok gives status 0.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/matrix
rm -rf "$work"
mkdir -p "$work/stubs"
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/matrix-check.sh
. "$top/scripts/matrix-check.sh" # the functions; lib.sh with them
set +e                           # a failing check must not end the test
set -uo pipefail

# --- the table -------------------------------------------------------------
table=$(matrix_variants "$top/configs/matrix" 2>"$work/table.err")
check "configs/matrix parses" [ -n "$table" ]
check "its variants: memcg-off numa-off smp-off hotplug i386-highmem" \
	[ "$(cut -d' ' -f1 <<<"$table" | paste -sd' ')" = "memcg-off numa-off smp-off hotplug i386-highmem" ]
check "memcg-off is booted, i386-highmem is not" \
	grep -qx 'memcg-off x86_64 yes qemu debug matrix-memcg-off' <<<"$table"
check "i386-highmem: ARCH=i386, configs/i386.config as make i386-check" \
	grep -qx 'i386-highmem i386 no i386' <<<"$table"
check "memcg-off boots as FLAVOR debug+matrix-memcg-off ($(matrix_flavor x86_64 qemu debug matrix-memcg-off))" \
	[ "$(matrix_flavor x86_64 qemu debug matrix-memcg-off)" = debug+matrix-memcg-off ]

# refused TEXT PATTERN: a table of TEXT fails, its message matches PATTERN.
refused() {
	printf '%s\n' "$1" >"$work/t.matrix"
	if (matrix_variants "$work/t.matrix") >"$work/t.out" 2>&1; then
		echo "# taken: $1"
		return 1
	fi
	sed 's/^/# /' "$work/t.out"
	grep -Eq "$2" "$work/t.out"
}
taken() {
	printf '%s\n' "$1" >"$work/t.matrix"
	(matrix_variants "$work/t.matrix") >/dev/null 2>&1
}
ok_line='memcg-off x86_64 yes qemu debug matrix-memcg-off'
check "a right one-line table is taken" taken "$ok_line"
check "an unknown ARCH is refused, line named" \
	refused "$ok_line
arm64v arm64 no qemu" 't.matrix:2: arm64v: ARCH is x86_64 or i386'
check "a BOOT of 'maybe' is refused" \
	refused "numa-off x86_64 maybe qemu debug" "t.matrix:1: numa-off: BOOT is yes or no, not 'maybe'"
check "a missing fragment is refused" \
	refused "numa-off x86_64 no qemu debug matrix-nosuch" 'no configs/matrix-nosuch.config'
check "a variant listed twice is refused" \
	refused "$ok_line
$ok_line" 't.matrix:2: variant memcg-off is listed twice'
check "a booted i386 variant is refused" \
	refused "i386-highmem i386 yes i386" 'BOOT yes, but only x86_64 variants boot'
check "a booted variant kbuild.sh cannot build is refused" \
	refused "odd x86_64 yes debug qemu" 'BOOT yes, but a booted variant.s fragments are qemu, then debug or bench'
check "a line without fragments is refused" \
	refused "bare x86_64 no" "t.matrix:1: 'bare x86_64 no': a line is NAME ARCH BOOT FRAGMENT"
check "a variant named src is refused (it would be the tree)" \
	refused "src x86_64 no qemu debug" "variant name 'src'"
check "a table without variants is refused" refused "# nothing" 'no variant listed'

# --- settings, before anything is built or written -------------------------
for tool in make gcc quilt patch tar; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 1\n' "$tool" "$work" >"$work/stubs/$tool"
	chmod +x "$work/stubs/$tool"
done
nseries=$(grep -cv '^[[:space:]]*\(#\|$\)' "$top/series")
# bad NAME PATTERN VAR=value...: the script fails within 2 s, one error
# line matching PATTERN, nothing written, nothing built.
bad() {
	local name=$1 pattern=$2 log=$work/bad.out rc=0 t0 ms
	shift 2
	rm -f "$work/called"
	t0=$(date +%s%N)
	env BUILD="$work/empty" PATH="$work/stubs:$PATH" "$@" timeout 20 \
		"$top/scripts/matrix-check.sh" >"$log" 2>&1 || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	sed 's/^/# /' "$log"
	check "$name: fails" [ "$rc" -ne 0 ]
	check "$name: within 2 s (${ms} ms)" [ "$ms" -le 2000 ]
	check "$name: one error message" [ "$(grep -c '^error:' "$log")" -eq 1 ]
	check "$name: names the valid values" grep -Eq "$pattern" "$log"
	check "$name: nothing built" [ ! -e "$work/called" ]
	check "$name: nothing written under BUILD" [ ! -e "$work/empty" ]
	rm -rf "$work/empty"
}
bad "VARIANTS=memcg-off,nope" 'VARIANTS=memcg-off,nope: no variant nope; variants are memcg-off numa-off smp-off hotplug i386-highmem' \
	VARIANTS=memcg-off,nope
bad "MATRIX_TARGETS=oldconfig" "'oldconfig' is not a build target.*mm/" MATRIX_TARGETS=oldconfig
bad "BOOT=yes" 'BOOT=yes: BOOT is 1 .* or 0' BOOT=yes
bad "STEPS=99" "STEPS=99: no step 99; steps are zone, node, all, 0\.\.$nseries" STEPS=99
bad "BOOT=1 TOPOS=bogus" "no topology 'bogus'" BOOT=1 TOPOS=bogus

# --- every variant configures, every option kept ---------------------------
"$top/scripts/pristine.sh" >/dev/null 2>&1
# configured NAME ARCH FRAGMENT-FILE...: cell_configure in a scratch O=
# directory per ARCH (the config tools are built once); the lost options
# in $work/NAME.lost, the .config kept as $work/NAME.config.
configured() {
	local name=$1 arch=$2 obj=$work/obj-$2
	shift 2
	cell_make "$arch" "$PRISTINE" "$obj"
	if ! cell_configure "$PRISTINE" "$obj" "$work/logs-$name" "$@" >"$work/$name.lost"; then
		sed 's/^/# /' "$work/$name.lost"
		return 1
	fi
	cp "$obj/.config" "$work/$name.config"
}
# kept NAME: no option lost.
kept() { [ ! -s "$work/$1.lost" ] || { sed "s/^/# $1: /" "$work/$1.lost"; return 1; }; }
while read -r v arch _ frags; do
	files=()
	for f in $frags; do files+=("$top/configs/$f.config"); done
	check "$v: configures (ARCH=$arch tinyconfig + $frags)" configured "$v" "$arch" "${files[@]}"
	check "$v: every requested option survives olddefconfig" kept "$v"
done <<<"$table"
# has NAME LINE...: the .config of NAME has every LINE.
has() {
	local name=$1 line
	shift
	for line in "$@"; do
		grep -qxF -- "$line" "$work/$name.config" || { echo "# $name: no '$line'"; return 1; }
	done
}
check "memcg-off: CONFIG_MEMCG=n wins over qemu.config's =y; cgroups stay" \
	has memcg-off '# CONFIG_MEMCG is not set' CONFIG_CGROUPS=y
check "numa-off: no NUMA" has numa-off '# CONFIG_NUMA is not set'
check "smp-off: no SMP, NR_CPUS=1" has smp-off '# CONFIG_SMP is not set' CONFIG_NR_CPUS=1
check "hotplug: MEMORY_HOTPLUG, MEMORY_HOTREMOVE, ZONE_DEVICE on" \
	has hotplug CONFIG_MEMORY_HOTPLUG=y CONFIG_MEMORY_HOTREMOVE=y CONFIG_ZONE_DEVICE=y
check "i386-highmem: X86_32, HIGHMEM64G" has i386-highmem CONFIG_X86_32=y CONFIG_HIGHMEM64G=y
# The check can fail: smp-off without NR_CPUS=1.
grep -v '^CONFIG_NR_CPUS=' "$top/configs/matrix-smp-off.config" >"$work/smp-off-broken.config"
configured smp-off-broken x86_64 "$top/configs/qemu.config" "$top/configs/debug.config" "$work/smp-off-broken.config"
check "negative control: smp-off without NR_CPUS=1 names CONFIG_NR_CPUS=8 as lost" \
	grep -q '^CONFIG_NR_CPUS=8 (got CONFIG_NR_CPUS=1)' "$work/smp-off-broken.lost"

# --- the summary -----------------------------------------------------------
MATRIX_DIR=$work/m
TARGETS=(mm/ vmlinux)
BOOT=0
VARIANT_LINES=("memcg-off x86_64 yes qemu debug matrix-memcg-off" "i386-highmem i386 no i386")
k0m=$(cell_key 0 x86_64 qemu debug matrix-memcg-off)
k0i=$(cell_key 0 i386 i386)
mkdir -p "$MATRIX_DIR/0/memcg-off" "$MATRIX_DIR/0/i386-highmem" "$MATRIX_DIR/1/memcg-off"
printf '%s\tok\t85\t0\n' "$k0m" >"$MATRIX_DIR/0/memcg-off/result"
# A failed cell: its detail from first_error over a canned build log.
src=$MATRIX_DIR/0/src
printf '== make mm/\n  CC      mm/vmscan.o\n%s/mm/vmscan.c:1234:9: error: '"'"'nr_zone'"'"' undeclared\nmake[3]: *** [mm/vmscan.o] Error 1\n' \
	"$src" >"$MATRIX_DIR/0/i386-highmem/build.log"
check "first_error: the compiler's line, the tree's path taken off" \
	[ "$(first_error "$MATRIX_DIR/0/i386-highmem/build.log" "$src")" = "mm/vmscan.c:1234:9: error: 'nr_zone' undeclared" ]
echo "make mm/: $(first_error "$MATRIX_DIR/0/i386-highmem/build.log" "$src")" >"$MATRIX_DIR/0/i386-highmem/detail"
printf '%s\tFAIL\t12\t0\n' "$k0i" >"$MATRIX_DIR/0/i386-highmem/result"
# Step 1's memcg-off recorded for another tree: no result for this one.
printf '%s\tok\t60\t2\n' "0000000000000000" >"$MATRIX_DIR/1/memcg-off/result"
rc=0
matrix_table "0 1" >"$work/table.out" 2>&1 || rc=$?
sed 's/^/# /' "$work/table.out"
sum=$MATRIX_DIR/summary.tsv
check "summary: status 1 with a failed cell" [ "$rc" -eq 1 ]
check "summary: header step, variants, subject" \
	[ "$(head -n 1 "$sum")" = "$(printf 'step\tmemcg-off\ti386-highmem\tsubject')" ]
check "summary: step 0 ok 85 s and FAIL 12 s" \
	grep -q "^0	ok 85 s	FAIL 12 s	(rewound tree)$" "$sum"
check "summary: a result for another tree is no result (-)" grep -q '^1	-	-	' "$sum"
check "summary: the failure names the file and line, and the logs" \
	grep -q "^FAIL step 0 i386-highmem: make mm/: mm/vmscan.c:1234:9: error: 'nr_zone' undeclared (logs: $MATRIX_DIR/0/i386-highmem/)" "$work/table.out"
# All cells ok: status 0, warnings counted.
printf '%s\tok\t80\t3\n' "$k0i" >"$MATRIX_DIR/0/i386-highmem/result"
rc=0
matrix_table 0 >"$work/table.out" 2>&1 || rc=$?
check "summary: status 0 when every cell is ok" [ "$rc" -eq 0 ]
check "summary: warnings counted" grep -q "^0	ok 85 s	ok 80 s, 3 warnings	" "$sum"

# The scratch files stay for a look when something failed.
[ "$fail" -gt 0 ] || rm -rf "$work"
echo "matrix: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
