#!/usr/bin/env bash
# Host test: scripts/bisect-merge.sh joins the rows of bisect-check runs
# split over machines (STEPS=A-B each) into one table for this series,
# and fails when a step is missing, failed, was recorded for another
# tree, or was made with another test image.  The rows are synthetic, in
# bisect-check's format (key line, then the row), keyed with this series'
# tree keys.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/bisect-merge
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

total=$(series_count)
half=$((total / 2))
# row DIR STEP [INITRD] [RESULT]: one step's row as bisect-check writes it.
row() {
	local d=$1 n=$2 initrd=${3:-abcd1234abcd1234} res=${4:-9/0/0}
	mkdir -p "$d"
	printf '%s %s debug uma smoke\n%s\tok\tok\t%s\t300 (200+100)\tstep %s\n' \
		"$(tree_key "$n")" "$initrd" "$n" "$res" "$n" >"$d/step-$n.row"
}
merge() {
	local name=$1 rc=0
	shift
	(cd "$work" && BUILD="$work/build" "$top/scripts/bisect-merge.sh" "$@") \
		>"$work/$name.out" 2>&1 || rc=$?
	sed 's/^/# /' "$work/$name.out"
	echo "$rc" >"$work/$name.rc"
}
rc_of() { cat "$work/$1.rc"; }

for ((n = 0; n <= half; n++)); do row "$work/a" "$n"; done
for ((n = half + 1; n <= total; n++)); do row "$work/b" "$n"; done
merge good "$work/a" "$work/b"
check "two halves: the merge passes" [ "$(rc_of good)" -eq 0 ]
check "two halves: every step in the table" \
	[ "$(grep -c $'\tok\tok\t' "$work/build/bisect/merged.tsv")" -eq $((total + 1)) ]
check "two halves: each row says where it came from" \
	grep -q $'^'"$total"$'\t.*\t'"$work/b"'$' "$work/build/bisect/merged.tsv"

merge missing "$work/a"
check "one half: fails" [ "$(rc_of missing)" -ne 0 ]
check "one half: names a step not run" grep -q "step $total: no row for this series' tree" "$work/missing.out"

cp -r "$work/b" "$work/c"
row "$work/c" "$total" ffff0000ffff0000
merge image "$work/a" "$work/c"
check "another test image: fails" [ "$(rc_of image)" -ne 0 ]
check "another test image: names the step and both" grep -q "step $total .*ffff0000ffff0000.*abcd1234abcd1234" "$work/image.out"

cp -r "$work/b" "$work/d"
row "$work/d" "$total" abcd1234abcd1234 8/1/0
merge failed "$work/a" "$work/d"
check "a failed step: fails" [ "$(rc_of failed)" -ne 0 ]
check "a failed step: named" grep -q "step $total: did not pass" "$work/failed.out"

cp -r "$work/b" "$work/e"
printf '%s %s debug uma smoke\n%s\tok\tok\t9/0/0\t1\tstale\n' 0123456789abcdef abcd1234abcd1234 "$total" >"$work/e/step-$total.row"
merge stale "$work/a" "$work/e"
check "a row of another tree: not used, fails" [ "$(rc_of stale)" -ne 0 ]
check "a row of another tree: step named as not run" grep -q "step $total: no row for this series' tree" "$work/stale.out"

merge none
check "no directory: usage" grep -q 'usage: scripts/bisect-merge.sh DIR' "$work/none.out"
echo "# bisect-merge: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
