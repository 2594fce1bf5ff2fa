#!/usr/bin/env bash
# Show that the harness reports what goes wrong in a guest as a failure:
#   - a test that fails is FAIL, and the run exits non-zero;
#   - a kernel panic (sysrq-c) is FAIL with PANIC;
#   - a guest that never finishes is FAIL with TIMEOUT;
#   - each failed run leaves a report.txt whose title names the cause.
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

rc=0
RUN_NAME=selftest-hang QEMU_TIMEOUT=${HANG_TIMEOUT:-120} \
	"$TOP/scripts/qemu-run.sh" node-debug uma selftest-hang || rc=$?
expect hang-reported "$BUILD/runs/selftest-hang/outcomes" '^FAIL node-debug/uma/selftest-hang TIMEOUT'
expect hang-report-title "$BUILD/runs/selftest-hang/report.txt" '^TITLE: test failure: node-debug/uma/selftest-hang TIMEOUT'
cat "$out"
! grep -q '^FAIL ' "$out"
