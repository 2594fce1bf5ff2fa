#!/usr/bin/env bash
# Host test: bad series input is reported by name and leaves nothing
# behind.  Uses a scratch series (NODELRU_SERIES/NODELRU_PATCHES), never
# the project's own.
#   1. a patch that does not reverse-apply: mktree fails naming the patch
#      and the failing hunk; no work tree is left; pristine is unchanged
#   2. a series entry without its file: named by mktree and check-series
#   3. a file in patches/ that series does not list: named by check-series
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/broken-series
rm -rf "$work"
mkdir -p "$work/patches"
export NODELRU_SERIES=$work/series NODELRU_PATCHES=$work/patches

# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

# 1. a patch whose new side is not in the tree
cat >"$work/patches/mm-broken.patch" <<'PATCH'
From: Self Test <selftest@invalid>
Subject: [PATCH] mm: a patch that cannot be reversed

Deliberately broken.

Signed-off-by: Self Test <selftest@invalid>
---
--- a/mm/vmscan.c
+++ b/mm/vmscan.c
@@ -1,3 +1,3 @@
 // SPDX-License-Identifier: GPL-2.0
-/* this line was never in vmscan.c */
+/* and neither was this one */
 /*
PATCH
echo mm-broken.patch >"$work/series"
rc=0
"$top/scripts/mktree.sh" zone "$work/tree" >"$work/out1" 2>&1 || rc=$?
sed 's/^/# /' "$work/out1"
check "broken patch: mktree fails" [ "$rc" -ne 0 ]
check "broken patch: the patch is named" grep -q 'patch mm-broken.patch does not reverse-apply' "$work/out1"
check "broken patch: the failing hunk is shown" grep -q 'Hunk #1 FAILED' "$work/out1"
absent() { [ ! -e "$1" ] && [ ! -e "$2" ]; }
check "broken patch: no work tree left behind" absent "$work/tree/src" "$work/tree/src.tmp"
check "broken patch: pristine tree unchanged" "$top/scripts/pristine.sh" verify

# 2. a listed patch without a file
echo mm-missing.patch >"$work/series"
rm "$work/patches/mm-broken.patch"
rc=0
"$top/scripts/mktree.sh" zone "$work/tree" >"$work/out2" 2>&1 || rc=$?
sed 's/^/# /' "$work/out2"
check "missing patch: mktree fails" [ "$rc" -ne 0 ]
check "missing patch: mktree names it" grep -q 'mm-missing.patch' "$work/out2"
rc=0
"$top/scripts/check-series.sh" >"$work/out3" 2>&1 || rc=$?
sed 's/^/# /' "$work/out3"
check "missing patch: check-series names series line 1" \
	grep -q 'series:1: mm-missing.patch has no file' "$work/out3"

# 3. an unlisted patch file
: >"$work/series"
touch "$work/patches/mm-stray.patch"
rc=0
"$top/scripts/check-series.sh" >"$work/out4" 2>&1 || rc=$?
sed 's/^/# /' "$work/out4"
check "unlisted patch: check-series fails naming it" \
	grep -q 'patches/mm-stray.patch is not listed' "$work/out4"

# 4. a patch whose hunks land away from where they say: the rewind stops
#    and names the patch, the file and the offset
: >"$work/series"
rm -f "$work/patches/"*
sample=$top/patches/mm-page_alloc-cache-the-last-node-whose-dirty-limit-is-reached.patch
if [ -f "$sample" ]; then
	awk '/^@@ / { split($2, a, ","); split($3, b, ",");
		sub(/^-/, "", a[1]); sub(/^\+/, "", b[1]);
		$2 = "-" (a[1] + 7) "," a[2]; $3 = "+" (b[1] + 7) "," b[2] } { print }' \
		"$sample" >"$work/patches/mm-shifted.patch"
	echo mm-shifted.patch >"$work/series"
	rc=0
	"$top/scripts/mktree.sh" zone "$work/tree" >"$work/out5" 2>&1 || rc=$?
	sed 's/^/# /' "$work/out5"
	check "offset: mktree fails" [ "$rc" -ne 0 ]
	check "offset: the patch and the offset are named" \
		grep -q 'rewind: mm-shifted.patch: hunks applied more than 0 lines away' "$work/out5"
	check "offset: the hunk line is shown" grep -q 'offset -7 lines' "$work/out5"
	check "offset: no work tree left behind" absent "$work/tree/src" "$work/tree/src.tmp"
else
	check "offset: the sample patch $sample exists" false
fi

rm -rf "$work"
echo "broken-series: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
