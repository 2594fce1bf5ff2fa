#!/usr/bin/env bash
# Host test: a step tree is a working quilt tree, with configs/quiltrc.
#   1. in the step 0 tree (made from a copy of patches/ and series, so
#      that nothing here can touch the repository's), quilt finds the
#      series through the tree's .pc, with nothing applied
#   2. quilt push applies the first patch, quilt pop takes it off again
#   3. after that, mktree.sh does not take the tree for step 0: it keeps
#      it aside and makes the step again
#   4. quilt push -a applies the rest at fuzz 0, and the tree then equals
#      the pristine tree
#   5. quilt refresh of the top patch keeps its header and its diff, and
#      the refreshed patch passes check-series' format checks
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/quilt
rm -rf "$work"
mkdir -p "$work/p"
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
command -v quilt >/dev/null || { echo "quilt: not installed (make deps installs it)"; exit 1; }

"$top/scripts/pristine.sh" >/dev/null 2>&1
cp -a "$top/patches" "$top/series" "$work/p/"
export NODELRU_PATCHES=$work/p/patches NODELRU_SERIES=$work/p/series
export QUILTRC=$top/configs/quiltrc
mapfile -t names < <(grep -v '^[[:space:]]*\(#\|$\)' "$top/series")
first=${names[0]}
last=${names[${#names[@]} - 1]}
src=$work/k/src

rc=0
"$top/scripts/mktree.sh" 0 "$work/k" >"$work/mktree1.out" 2>&1 || rc=$?
check "mktree.sh makes step 0" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || { tail -n 5 "$work/mktree1.out"; rm -rf "$work"; exit 1; }
# shellcheck disable=SC2317 # called through check
in_src() { (cd "$src" && "$@") >"$work/q.out" 2>&1; }
# shellcheck disable=SC2317
said() { grep -qF -- "$1" "$work/q.out"; }
in_src quilt series || true
check "quilt in the step 0 tree lists the series (first: $first)" said "$first"
rc=0
in_src quilt applied || rc=$?
check "nothing is applied at step 0" said "No patches applied"
check "quilt push applies the first patch" in_src quilt push
in_src quilt top || true
check "quilt top names it" said "$first"
check "quilt pop takes it off" in_src quilt pop
rc=0
"$top/scripts/mktree.sh" 0 "$work/k" >"$work/mktree2.out" 2>&1 || rc=$?
check "after push and pop, mktree.sh makes step 0 again" \
	grep -q 'was changed since it was made' "$work/mktree2.out"
rm -rf "$work"/k/src.edited-*
check "quilt push -a applies every patch (fuzz 0)" in_src quilt push -a
check "after quilt push -a the tree equals the pristine tree" \
	diff -rq --no-dereference -x .pc "$build/pristine/linux" "$src"
cp "$work/p/patches/$last" "$work/before.patch"
check "quilt refresh of the top patch" in_src quilt refresh
# shellcheck disable=SC2317
diff_part() { sed -n '/^--- a\//,$p' "$1"; }
# shellcheck disable=SC2317
header() { sed -n '1,/^---$/p' "$1"; }
check "the refresh kept the header" cmp -s <(header "$work/before.patch") <(header "$work/p/patches/$last")
check "the refresh kept the diff" cmp -s <(diff_part "$work/before.patch") <(diff_part "$work/p/patches/$last")
# shellcheck disable=SC2317
notes() { (. "$top/scripts/lib.sh" && patch_notes "$1"); }
check "the refresh kept the notes for reviewers" cmp -s <(notes "$work/before.patch") <(notes "$work/p/patches/$last")
sed -n '/^---$/,/^--- a\//p' "$work/p/patches/$last" | sed 's/^/# refreshed: /'
rc=0
CHECKPATCH=0 "$top/scripts/check-series.sh" >"$work/check-series.out" 2>&1 || rc=$?
sed 's/^/# /' "$work/check-series.out" | tail -n 3
check "the refreshed series passes check-series' format checks" [ "$rc" -eq 0 ]
rm -rf "$work"
echo "quilt: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
