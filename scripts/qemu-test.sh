#!/usr/bin/env bash
# Build, boot and test kernels of the series; print one verdict.
#
# Environment (all optional):
#   STEP    one step only: zone, node, all or N (default: both ends)
#   FLAVOR  debug (default) or bench
#   TOPOS   topologies, default "uma numa" (also: movable)
#   TESTS   tests or sets for the guest, default smoke
#   RERUN=1 boot what is built, without checking the trees and builds
# The last line is "qemu-test: N passed, N failed, N skipped"; the exit
# status is non-zero exactly when something failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

flavor=${FLAVOR:-debug}
topos=${TOPOS:-uma numa}
tests=${TESTS:-smoke}
if [ -n "${STEP:-}" ]; then
	steps=$STEP
else
	steps="zone node"
fi

t0=$(date +%s)
"$TOP/scripts/initramfs.sh"
list=$BUILD/runs/qemu-test.list
mkdir -p "$BUILD/runs"
: >"$list"
for s in $steps; do
	kernel=$(kernel_name "$s" "$flavor")
	bo=$BUILD/runs/$kernel-build.outcomes
	echo "$bo" >>"$list"
	if [ "${RERUN:-0}" = 1 ] && [ -f "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ]; then
		msg kernel "$kernel (as built, RERUN=1)"
	elif ! "$TOP/scripts/kbuild.sh" "$s" "$flavor"; then
		echo "FAIL $kernel/build see $BUILD/k/$kernel/logs" >"$bo"
		continue
	fi
	echo "PASS $kernel/build" >"$bo"
	for topo in $topos; do
		echo "$BUILD/runs/$kernel-$topo/outcomes" >>"$list"
		"$TOP/scripts/qemu-run.sh" "$kernel" "$topo" "$tests" || true
	done
done
msg time "$(($(date +%s) - t0)) s in all"
mapfile -t files <"$list"
exec "$TOP/scripts/verdict.sh" "${files[@]}"
