#!/usr/bin/env bash
# make check: what CI runs.  Static checks, host tests, both ends of the
# series built with the debug fragment and booted on UMA and NUMA with the
# smoke set, and the harness self-tests.  Every part is an outcome; the
# last line is the verdict over all of them.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# The whole script is one block: bash reads all of it before running any,
# so editing the file during a long run cannot change what the run does.
{

# qemu-test gets FLAVOR, TOPOS and TESTS from here; the rest from outside
# (MGLRU=1 adds the multi-gen LRU kernel to the boots).
check_settings STEP ACCEL MEM SMP MGLRU
mkdir -p "$BUILD/runs"
out=$BUILD/runs/check.outcomes
: >"$out"
part() {
	local name=$1
	shift
	if "$@"; then
		echo "PASS check/$name" >>"$out"
	else
		echo "FAIL check/$name" >>"$out"
	fi
}

t0=$(date +%s)
part pristine "$TOP/scripts/pristine.sh"
part static "$TOP/scripts/check-static.sh"
part pristine-verify "$TOP/scripts/pristine.sh" verify
# The host tests, a part each, in the order of tests/host/list (make
# check-host runs the same list).
host=$(host_tests)
mapfile -t host <<<"$host"
for name in "${host[@]}"; do
	part "$name" "$TOP/tests/host/$name.sh"
done
# The run list is emptied here too: a qemu-test that stops before it
# empties the list itself must not leave the previous run's to be counted.
: >"$BUILD/runs/qemu-test.list"
FLAVOR=debug TOPOS="uma numa" TESTS=smoke "$TOP/scripts/qemu-test.sh" >/dev/null || true
part harness-selftest "$TOP/scripts/harness-selftest.sh"
msg time "make check took $(($(date +%s) - t0)) s"
mapfile -t files <"$BUILD/runs/qemu-test.list"
# qemu-test empties its run list first: an empty one means it stopped
# before any kernel was built or booted (the initramfs, say).
[ ${#files[@]} -gt 0 ] ||
	echo "FAIL check/qemu-test no kernel was built or booted (see scripts/qemu-test.sh's messages)" >>"$out"
exec "$TOP/scripts/verdict.sh" "$out" "${files[@]}" "$BUILD/runs/harness.outcomes"
exit
}
