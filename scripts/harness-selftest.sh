#!/usr/bin/env bash
# Show that the harness reports what goes wrong in a guest as a failure:
#   - a test that fails is FAIL, and the run exits non-zero;
#   - a kernel panic (sysrq-c) is FAIL with PANIC;
#   - a guest that never finishes is FAIL with TIMEOUT;
#   - each failed run leaves a report.txt whose title names the cause;
#   - a run that stops before booting (the module build fails) leaves no
#     PASS line of an earlier run behind.
# Uses the node end's debug kernel.  Writes build/runs/harness.outcomes,
# PASS/FAIL a line for each expectation, for scripts/verdict.sh.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
check_settings ACCEL MEM SMP

out=$BUILD/runs/harness.outcomes
mkdir -p "$BUILD/runs"
: >"$out"
expect() {
	local what=$1 file=$2 pattern=$3
	if grep -qE "$pattern" "$file"; then
		echo "PASS harness/$what" >>"$out"
	else
		echo "FAIL harness/$what expected /$pattern/ in $file" >>"$out"
	fi
}

"$TOP/scripts/kbuild.sh" node debug
"$TOP/scripts/initramfs.sh"

# The hanging guest mostly waits for its timeout: it runs beside the
# failing one when there is a CPU for each (its output goes to a log).
# What both runs share is made first, so they do not race to make it.
"$TOP/scripts/modbuild.sh" node-debug
"$TOP/scripts/toolsdisk.sh"
ACCEL=$(pick_accel "$BUILD/k/node-debug/obj/arch/x86/boot/bzImage")
export ACCEL
hang_log=$BUILD/runs/selftest-hang.log
hang() {
	local rc=0
	RUN_NAME=selftest-hang QEMU_TIMEOUT=${HANG_TIMEOUT:-120} \
		"$TOP/scripts/qemu-run.sh" node-debug uma selftest-hang >"$hang_log" 2>&1 || rc=$?
	echo "hang run: qemu-run.sh exited $rc" >>"$hang_log"
}
hang_pid=
if [ "$(nproc)" -ge 2 ]; then
	msg selftest "the hanging guest runs beside the others (log: $hang_log)"
	hang &
	hang_pid=$!
	# Stopped with this script (a background job ignores ^C).
	trap '[ -z "$hang_pid" ] || killtree "$hang_pid"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
fi

rc=0
RUN_NAME=selftest "$TOP/scripts/qemu-run.sh" node-debug uma selftest || rc=$?
r=$BUILD/runs/selftest/outcomes
expect fail-reported "$r" '^FAIL node-debug/uma/selftest-fail '
expect panic-reported "$r" '^FAIL node-debug/uma/selftest-panic PANIC'
expect panic-report-title "$BUILD/runs/selftest/report.txt" '^TITLE: kernel panic: sysrq triggered crash'
if [ "$rc" -ne 0 ]; then
	echo "PASS harness/nonzero-exit" >>"$out"
else
	echo "FAIL harness/nonzero-exit qemu-run.sh exited 0 on a failing guest" >>"$out"
fi

if [ -n "$hang_pid" ]; then
	wait "$hang_pid" || true
	hang_pid=
else
	hang
fi
cat "$hang_log"
expect hang-reported "$BUILD/runs/selftest-hang/outcomes" '^FAIL node-debug/uma/selftest-hang TIMEOUT'
expect hang-report-title "$BUILD/runs/selftest-hang/report.txt" '^TITLE: test failure: node-debug/uma/selftest-hang TIMEOUT'
# A run that stops before booting (here the module build: a kernel
# without Module.symvers) must not leave the previous run's PASS lines
# behind to be counted.
stale=selftest-nomod
remove_tree "$BUILD/k/$stale"
mkdir -p "$BUILD/k/$stale/obj/arch/x86/boot" "$BUILD/runs/$stale-uma"
cp "$BUILD/k/node-debug/obj/arch/x86/boot/bzImage" "$BUILD/k/$stale/obj/arch/x86/boot/"
echo "PASS $stale/uma/stale-from-an-earlier-run" >"$BUILD/runs/$stale-uma/outcomes"
rc=0
"$TOP/scripts/qemu-run.sh" "$stale" uma smoke >"$BUILD/runs/$stale.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] && grep -q 'no Module.symvers' "$BUILD/runs/$stale.log"; then
	echo "PASS harness/module-build-fails" >>"$out"
else
	echo "FAIL harness/module-build-fails expected qemu-run.sh to stop at the module build (rc $rc, log $BUILD/runs/$stale.log)" >>"$out"
fi
if grep -qs '^PASS ' "$BUILD/runs/$stale-uma/outcomes"; then
	echo "FAIL harness/no-stale-pass the previous run's PASS is still in $BUILD/runs/$stale-uma/outcomes" >>"$out"
else
	echo "PASS harness/no-stale-pass" >>"$out"
fi
remove_tree "$BUILD/k/$stale"

cat "$out"
! grep -q '^FAIL ' "$out"
