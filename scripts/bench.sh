#!/usr/bin/env bash
# make bench: the cover letter's measurements, three generations of page
# reclaim side by side on one kernel tree:
#   zone   the zone LRU: the rewound end of the series (step 0)
#   node   the node LRU: the replayed end (every patch), classic LRU
#   mglru  the multi-gen LRU: the node end built with configs/mglru.config
#          (LRU_GEN on from boot; the last step has no LRU_GEN fence)
#
# Builds them with the bench fragment (no debug options; mglru is
# FLAVOR=bench+mglru), boots each on the same topology and runs the
# "bench" set (tests/bench-*.sh) alternately: zone, node, mglru, zone,
# node, mglru, ... ITER times.  Every workload records
# /sys/kernel/mm/lru_gen/enabled (tests/lib/bench.sh), and the report
# marks a column INVALID when its guests did not run what its label says.
# Then, as its own labelled run, the "lockstat" workload on the debug
# kernels of the same three (node-debug+mglru for mglru; LOCK_STAT
# perturbs timing, so it never mixes with the timed runs).  Finally
# scripts/bench-report.py writes the report.
#
# Environment: KERNELS (default "zone node mglru": which of the three,
# always run in that order; e.g. KERNELS="zone node" for the two ends
# alone), ITER (default 5, or 1 with QUICK=1), QUICK=1 (smaller sizes and
# shorter runs: a smoke run of the whole pipeline; the lockstat run then
# only happens for the debug kernels built already), TOPOS (one topology,
# default uma: DMA32 and Normal on one node; the report compares the
# kernels on one topology, so run bench once per topology), MEM (default
# 3072), SMP, ACCEL; checked before anything is built or written.
#
# Output: build/bench/<UTC date-time>/ (raw/KERNEL-N.ktap, data/, plots/,
# report.md, headline.md, meta/) and the link build/bench/latest.  Exit
# status non-zero when a kernel did not build, a workload failed or the
# report marks a column invalid: a report is still written from what ran,
# and says what is missing.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# The whole script is one block: bash reads all of it before running any,
# so editing the file during a long run cannot change what the run does.
{

check_settings TOPOS ACCEL MEM SMP KERNELS QUICK ITER
# The kernels, always in this order (KERNELS only selects).
kernels=()
for k in zone node mglru; do
	k_all=${KERNELS:-zone node mglru}
	[[ " ${k_all//,/ } " != *" $k "* ]] || kernels+=("$k")
done
# step_of LABEL / flavor_of LABEL FLAVOR: what builds the kernel a label
# names (mglru: the node end with configs/mglru.config on top).
step_of() { if [ "$1" = zone ]; then echo zone; else echo node; fi; }
flavor_of() { if [ "$1" = mglru ]; then echo "$2+mglru"; else echo "$2"; fi; }
# kname LABEL FLAVOR: its build/k directory name (node-bench+mglru, ...).
kname() { kernel_name "$(step_of "$1")" "$(flavor_of "$1" "$2")"; }
quick=${QUICK:-0}
iter=${ITER:-}
[ -n "$iter" ] || { [ "$quick" = 1 ] && iter=1 || iter=5; }
case $iter in '' | *[!0-9]* | 0) die "ITER must be a positive number, not '$iter'" ;; esac
[ -z "${TOPO:-}" ] || die "TOPO=$TOPO: make bench reads TOPOS, as every target does (TOPOS=$TOPO)"
read -r -a topos <<<"${TOPOS:-uma}"
[ ${#topos[@]} -eq 1 ] ||
	die "TOPOS=${TOPOS}: make bench measures one topology a run (its report compares the kernels on one);" \
		"run it once per topology: make bench TOPOS=${topos[0]}, then make bench TOPOS=${topos[1]}, ..."
topo=${topos[0]}
export MEM=${MEM:-$DEFAULT_MEM}
export QUICK=$quick

t0=$(date +%s)
stamp=$(date -u +%Y%m%d-%H%M%S)
out=$BUILD/bench/$stamp
mkdir -p "$out/raw" "$out/meta"
ln -sfn "$stamp" "$BUILD/bench/latest"
status=$out/meta/status
: >"$status"
stage "bench: $out (KERNELS=\"${kernels[*]}\" ITER=$iter QUICK=$quick TOPOS=$topo MEM=$MEM)"

# Seconds spent building kernels and running guests: a fresh machine's
# cold ccache makes the first figure dominate, so meta/info gives both.
build_s=0
run_s=0
# build LABEL FLAVOR: one kernel (FLAVOR bench or debug; mglru adds
# +mglru); says "build KERNEL ok|FAILED SECONDS" in the status file and
# fails when the build did.
build() {
	local t verdict=ok dt
	t=$(date +%s)
	"$TOP/scripts/kbuild.sh" "$(step_of "$1")" "$(flavor_of "$1" "$2")" || verdict=FAILED
	dt=$(($(date +%s) - t))
	build_s=$((build_s + dt))
	echo "build $(kname "$1" "$2") $verdict $dt" >>"$status"
	[ "$verdict" = ok ]
}
# boot NAME KERNEL TESTS: one guest run under RUN_NAME=NAME; leaves its
# exit status in rc and its seconds in dt.
boot() {
	local t
	t=$(date +%s)
	rc=0
	RUN_NAME=$1 "$TOP/scripts/qemu-run.sh" "$2" "$topo" "$3" || rc=$?
	dt=$(($(date +%s) - t))
	run_s=$((run_s + dt))
}

for k in "${kernels[@]}"; do
	build "$k" bench || true
done
"$TOP/scripts/initramfs.sh"

failed=0
for ((i = 1; i <= iter; i++)); do
	for k in "${kernels[@]}"; do
		kernel=$(kname "$k" bench)
		grep -q "^build $kernel ok" "$status" || continue
		name=bench-$kernel-$i
		# The workloads in an order of their own in every iteration,
		# the same for every kernel of it (the seed is the iteration).
		SHUFFLE=$i boot "$name" "$kernel" bench
		cp "$BUILD/runs/$name/results.ktap" "$out/raw/$k-$i.ktap" 2>/dev/null || true
		cp "$BUILD/runs/$name/qemu.cmd" "$out/meta/qemu-$k.cmd" 2>/dev/null || true
		if [ "$rc" = 0 ]; then
			echo "run $k $i ok $dt" >>"$status"
		else
			echo "run $k $i FAILED $dt $BUILD/runs/$name" >>"$status"
			failed=1
		fi
	done
done

# Lock contention: a separate run on the LOCK_STAT (debug) kernels.
for k in "${kernels[@]}"; do
	kernel=$(kname "$k" debug)
	if [ "$quick" = 1 ] && [ ! -f "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ]; then
		hint="make qemu-test"
		[ "$k" != mglru ] || hint="make qemu-test MGLRU=1"
		echo "lockstat $k skipped (QUICK=1 and $kernel is not built; $hint builds it)" >>"$status"
		continue
	fi
	if ! build "$k" debug; then
		echo "lockstat $k FAILED (build)" >>"$status"
		failed=1
		continue
	fi
	name=bench-lockstat-$k
	boot "$name" "$kernel" lockstat
	cp "$BUILD/runs/$name/results.ktap" "$out/raw/lockstat-$k.ktap" 2>/dev/null || true
	if [ "$rc" = 0 ]; then
		echo "lockstat $k ok $dt" >>"$status"
	else
		echo "lockstat $k FAILED $dt $BUILD/runs/$name" >>"$status"
		failed=1
	fi
done

# Metadata: what was measured, on what.
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "base: $(cat "$TOP/BASE")"
	echo "series: $(series_count) patches, sha256 $(cat "$SERIES" "$PATCHES"/*.patch | sha256sum | cut -c1-16)"
	echo "guest: $topo, ${MEM} MiB, ${SMP:-2} vCPUs, $(pick_accel "$BUILD/k/$(kname "${kernels[0]}" bench)/obj/arch/x86/boot/bzImage" 2>/dev/null)"
	echo "kernels: ${kernels[*]}"
	echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "qemu: $(qemu-system-x86_64 --version | head -n 1)"
	echo "iterations: $iter (quick=$quick)"
	echo "elapsed: $(($(date +%s) - t0)) s (kernel builds $build_s s, guest runs $run_s s)"
} >"$out/meta/info"
for k in "${kernels[@]}"; do
	cp "$BUILD/k/$(kname "$k" bench)/config" "$out/meta/config-$k-bench" 2>/dev/null || true
done
cp "$TOP/configs/qemu.config" "$TOP/configs/bench.config" "$out/meta/"
[[ " ${kernels[*]} " != *" mglru "* ]] || cp "$TOP/configs/mglru.config" "$out/meta/"

stage "report"
rc=0
python3 "$TOP/scripts/bench-report.py" "$out" || rc=$?
case $rc in
0) ;;
2)
	echo "report INVALID: a kernel's guests did not run what its label says (report.md, first lines)" >>"$status"
	failed=1
	;;
*) die "bench-report.py failed" "raw data: $out/raw" ;;
esac
msg time "$(($(date +%s) - t0)) s in all: kernel builds $build_s s, guest runs $run_s s"
msg report "$out/report.md"
if [ "$failed" = 1 ] || grep -q FAILED "$status"; then
	grep -E 'FAILED|INVALID' "$status" | sed 's/^/  /' >&2
	die "some bench runs failed or the report marks a kernel invalid; the report covers what ran"
fi
exit 0
}
