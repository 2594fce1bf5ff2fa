#!/usr/bin/env bash
# Build, boot and test kernels of the series; print one verdict.
#
# Environment (all optional):
#   STEP    one step only: zone, node, all or N (default: both ends)
#   FLAVOR  debug (default) or bench
#   TOPOS   topologies, default "uma numa" (also: movable)
#   TESTS   tests or sets for the guest, default smoke
#   RERUN=1 boot what is built, without checking the trees and builds;
#           stops before anything runs if a kernel is not built (make run)
# (and ACCEL, MEM, SMP, ... for scripts/qemu-run.sh: scripts/settings.tsv).
# Every setting is checked before anything is built or written.
# The last line is "qemu-test: N passed, N failed, N skipped"; the exit
# status is non-zero exactly when something failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
check_settings

flavor=${FLAVOR:-debug}
topos=${TOPOS:-uma numa}
tests=${TESTS:-smoke}
if [ -n "${STEP:-}" ]; then
	steps=$STEP
else
	steps="zone node"
fi

main() {
	local t0 t list s kernel bo topo out rc times=() unbuilt=()
	if [ "${RERUN:-0}" = 1 ]; then
		for s in $steps; do
			kernel=$(kernel_name "$s" "$flavor")
			[ -f "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ] ||
				unbuilt+=("$kernel (no $BUILD/k/$kernel/obj/arch/x86/boot/bzImage): make kernel STEP=$s FLAVOR=$flavor${SCRATCH:+ SCRATCH=$SCRATCH}")
		done
		[ ${#unbuilt[@]} -eq 0 ] ||
			die "make run (RERUN=1) boots kernels as they are built and builds none; not built:" \
				"${unbuilt[@]}" "(or make qemu-test${STEP:+ STEP=\"$STEP\"} builds what is missing, then boots)"
	fi
	# The run list starts empty before anything that can fail runs, so
	# that no verdict is ever made of the previous run's outcomes.
	list=$BUILD/runs/qemu-test.list
	mkdir -p "$BUILD/runs"
	: >"$list"
	t0=$(date +%s)
	"$TOP/scripts/initramfs.sh"
	times+=("initramfs $(($(date +%s) - t0))s")
	for s in $steps; do
		kernel=$(kernel_name "$s" "$flavor")
		bo=$BUILD/runs/$kernel-build.outcomes
		rm -f "$bo"
		echo "$bo" >>"$list"
		t=$(date +%s)
		if [ "${RERUN:-0}" = 1 ] && [ -f "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ]; then
			msg kernel "$kernel (as built, RERUN=1)"
		elif ! "$TOP/scripts/kbuild.sh" "$s" "$flavor"; then
			echo "FAIL $kernel/build see $BUILD/k/$kernel/logs" >"$bo"
			times+=("$kernel tree+build $(($(date +%s) - t))s (failed)")
			continue
		fi
		echo "PASS $kernel/build" >"$bo"
		times+=("$kernel tree+build $(($(date +%s) - t))s")
		for topo in $topos; do
			out=$BUILD/runs/$kernel-$topo/outcomes
			rm -f "$out"
			echo "$out" >>"$list"
			rc=0
			"$TOP/scripts/qemu-run.sh" "$kernel" "$topo" "$tests" || rc=$?
			# A runner that stopped before its verdict is a failure too.
			if [ "$rc" != 0 ] && ! grep -qs '^FAIL ' "$out"; then
				mkdir -p "$(dirname "$out")"
				echo "FAIL $kernel/$topo/runner scripts/qemu-run.sh exited $rc without a verdict (its messages are above)" >>"$out"
			fi
			if [ -f "$BUILD/runs/$kernel-$topo/times" ]; then
				read -r _ _ b _ tt <"$BUILD/runs/$kernel-$topo/times"
				times+=("$kernel/$topo boot ${b}s tests ${tt}s")
			fi
		done
	done
	msg time "$(($(date +%s) - t0)) s in all: $(printf '%s; ' "${times[@]}" | sed 's/; $//')"
	mapfile -t files <"$list"
	exec "$TOP/scripts/verdict.sh" "${files[@]}"
}

# All of the script is read before it runs, so editing it during a long
# run cannot change what the run does.
main "$@"
