#!/usr/bin/env bash
# Host test: a step's work tree is its own copy, and a changed tree is
# noticed.
#   1. scripts/mktree.sh makes step 0 in a scratch directory
#   2. appending to a file of that tree (as whoever runs this, root in
#      CI) leaves the pristine tree's file as it was
#   3. mktree.sh then does not call the tree unchanged: it keeps the
#      edited tree aside and makes the step again, without the edit
#   4. mktree.sh on an untouched tree says "unchanged" and keeps it
#   5. a file made and removed in the tree's top directory (what
#      merge_config.sh did when run there) changes no file: the tree is
#      still "unchanged", and nothing is kept aside
#   6. a new file in the tree is a change
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/tree-isolation
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

"$top/scripts/pristine.sh" >/dev/null 2>&1
marker="tree-isolation $$"
lacks() { ! grep -qF "$marker" "$1"; }
has_aside() { grep -qF "$marker" "$work"/k/src.edited-*/README; }
rc=0
"$top/scripts/mktree.sh" 0 "$work/k" >"$work/mktree1.out" 2>&1 || rc=$?
check "mktree.sh makes step 0" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || { tail -n 5 "$work/mktree1.out"; rm -rf "$work"; exit 1; }
check "the step tree's README is not a hard link into pristine" \
	[ "$(stat -c %h "$work/k/src/README")" -eq 1 ]
echo "$marker" >>"$work/k/src/README"
check "an edit of the step tree does not reach the pristine tree" \
	lacks "$build/pristine/linux/README"
rc=0
"$top/scripts/mktree.sh" 0 "$work/k" >"$work/mktree2.out" 2>&1 || rc=$?
sed 's/^/# /' "$work/mktree2.out" | tail -n 3
check "mktree.sh makes step 0 again after the edit" [ "$rc" -eq 0 ]
check "mktree.sh says the tree was changed" grep -q 'was changed since it was made' "$work/mktree2.out"
check "the new tree does not have the edit" lacks "$work/k/src/README"
check "the edited tree is kept aside" has_aside
rc=0
"$top/scripts/mktree.sh" 0 "$work/k" >"$work/mktree3.out" 2>&1 || rc=$?
check "an untouched tree is kept (unchanged)" grep -q 'unchanged' "$work/mktree3.out"
asides() { find "$work/k" -maxdepth 1 -name 'src.edited-*' | wc -l; }
before=$(asides)
tmpf=$(mktemp "$work/k/src/.tmp.config.XXXXXXXXXX")
rm -f "$tmpf"
rc=0
"$top/scripts/mktree.sh" 0 "$work/k" >"$work/mktree4.out" 2>&1 || rc=$?
check "a file made and removed in the top directory: still unchanged" \
	grep -q 'unchanged' "$work/mktree4.out"
check "a file made and removed in the top directory: nothing kept aside" \
	[ "$(asides)" -eq "$before" ]
: >"$work/k/src/new-file"
rc=0
"$top/scripts/mktree.sh" 0 "$work/k" >"$work/mktree5.out" 2>&1 || rc=$?
check "a new file in the tree is a change" grep -q 'was changed since it was made' "$work/mktree5.out"
check "the tree made again has no new file" [ ! -e "$work/k/src/new-file" ]
rm -rf "$work"
echo "tree-isolation: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
