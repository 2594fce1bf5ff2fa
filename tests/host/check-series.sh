#!/usr/bin/env bash
# Host test: check-series names each kind of bad patch with the file and
# line to fix, and passes a good one.  Starts from a real patch of the
# series and breaks one thing at a time, in a scratch series
# (NODELRU_SERIES/NODELRU_PATCHES), never the project's own.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/check-series
rm -rf "$work"
mkdir -p "$work/patches"
export NODELRU_SERIES=$work/series NODELRU_PATCHES=$work/patches
good=$top/patches/mm-page_alloc-cache-the-last-node-whose-dirty-limit-is-reached.patch
[ -f "$good" ] || { echo "not ok - the sample patch $good is missing"; exit 1; }

# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

# run NAME SED-SCRIPT: make patches/NAME.patch from the good one, check
# the series of just that patch, leave the output in $work/NAME.out and
# the exit code in $rc.
run() {
	local name=$1 script=$2
	rm -f "$work/patches/"*
	sed -e "$script" "$good" >"$work/patches/$name.patch"
	echo "$name.patch" >"$work/series"
	rc=0
	"$top/scripts/check-series.sh" >"$work/$name.out" 2>&1 || rc=$?
	sed 's/^/# /' "$work/$name.out"
}

run good ''
check "good patch: check-series passes" [ "$rc" -eq 0 ]
check "good patch: checkpatch ran" grep -q 'checkpatch clean on 1' "$work/good.out"

run nosob '/^Signed-off-by:/d'
check "no Signed-off-by: fails" [ "$rc" -ne 0 ]
check "no Signed-off-by: named" grep -q 'nosob.patch:1: no Signed-off-by: line' "$work/nosob.out"

run nolog '/^Subject:/,/^Signed-off-by:/{/^Subject:/!{/^Signed-off-by:/!d}}'
check "empty changelog: named at the Subject line" grep -q 'nolog.patch:2: no changelog' "$work/nolog.out"

run index '/^--- a\/mm\/page_alloc.c/i index 0123456..789abcd 100644'
check "index line: named with its line" grep -Eq 'index.patch:[0-9]+: "index" line' "$work/index.out"

run stamp 's|^+++ b/mm/page_alloc.c$|+++ b/mm/page_alloc.c\t2016-07-01 00:00:00|'
check "timestamp: named" grep -q 'timestamp after the file name' "$work/stamp.out"

# checkpatch: trailing whitespace on an added line is an ERROR.
run style '0,/^+.*last_pgdat_dirty_ok = false;$/s//& /'
check "checkpatch error: fails" [ "$rc" -ne 0 ]
check "checkpatch error: named with its line" grep -q 'checkpatch: style.patch:[0-9]*: ERROR:TRAILING_WHITESPACE' "$work/style.out"

# two patches with one subject
rm -f "$work/patches/"*
cp "$good" "$work/patches/a.patch"
cp "$good" "$work/patches/b.patch"
printf '%s\n' a.patch b.patch >"$work/series"
rc=0
CHECKPATCH=0 "$top/scripts/check-series.sh" >"$work/dup.out" 2>&1 || rc=$?
sed 's/^/# /' "$work/dup.out"
check "duplicate subject: named" grep -q 'patches/b.patch: subject ".*" is also the subject of a.patch' "$work/dup.out"

rm -rf "$work"
echo "check-series: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
