#!/usr/bin/env bash
# Count the outcomes of one or more runs and print the verdict.
#
#   scripts/verdict.sh OUTCOMES-FILE...
#
# Each file holds "PASS|FAIL|SKIP name detail" lines (qemu-run.sh writes
# them).  Failures are listed by name, then the last line is
#   qemu-test: N passed, N failed, N skipped
# Exit status 1 exactly when something failed, or when nothing ran at all.
set -euo pipefail

[ $# -gt 0 ] || {
	echo 'usage: scripts/verdict.sh OUTCOMES-FILE...' >&2
	exit 2
}
all=$(cat -- "$@" 2>/dev/null || true)
# A listed file that is not there is a run that stopped before it wrote
# its outcomes: a failure, never nothing.
for f in "$@"; do
	[ -e "$f" ] || all+=$'\n'"FAIL $f was listed but never written (the run stopped before it; see the messages above)"
done
count() { grep -c "^$1 " <<<"$all" || true; }
pass=$(count PASS)
fail=$(count FAIL)
skip=$(count SKIP)

if [ "$skip" -gt 0 ]; then
	echo "skipped:"
	grep '^SKIP ' <<<"$all" | sed 's/^SKIP /  /'
fi
if [ "$fail" -gt 0 ]; then
	echo "failed:"
	grep '^FAIL ' <<<"$all" | sed 's/^FAIL /  /'
fi
if [ $((pass + fail + skip)) -eq 0 ]; then
	echo "failed: no test ran at all"
	fail=1
fi
echo "qemu-test: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
