#!/usr/bin/env bash
# Host test: what make export mails out applies with git am on the base it
# names, and the result is Debian's tree.
#   1. scripts/export.sh succeeds: base commit, one commit per patch,
#      a cover letter and one mail per patch in build/outgoing/
#   2. the cover letter is filled in (no template markers) and names the
#      base commit and its tree; the base commit carries the fixed label
#      and date that make its hash the same on every export
#   3. a fresh clone checked out at that base commit takes every mail
#      with git am (no fuzz: git am applies exactly or fails), through the
#      recipe of README.md ("For reviewers"): the line after its
#      "round-trip recipe" marker, run as written in the clone with $out
#      set to build/outgoing
#   4. the result equals the pristine extraction (diff -r)
#   5. with Debian's b4 installed, the same through "b4 --offline-mode am"
#      (skipped, and said so, without b4).  b4 0.12 cannot parse a folded
#      From: header, which git format-patch writes for a long identity, so
#      the headers are unfolded first.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/round-trip
rm -rf "$work"
mkdir -p "$work"

# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh" # patch_notes
skip=0
# shellcheck disable=SC2317 # called through check
filled() { [ -f "$1" ] && ! grep -q 'SUBJECT HERE\|BLURB HERE\|@[A-Z_]\+@' "$1"; }
# The export is a kernel repository (2 GB with its work tree): one this
# test made is removed again, so that make check leaves the disk to the
# guests; one that was there before (make export) is kept, made anew.
made_export=1
[ ! -d "$build/export" ] || made_export=0
finish() {
	rm -rf "$work"
	if [ "$made_export" = 1 ]; then
		rm -rf "$build/export"
		echo "# removed $build/export, which this test made (make export keeps it)"
	fi
	echo "round-trip: $pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit
}

rc=0
"$top/scripts/export.sh" >"$work/export.out" 2>&1 || rc=$?
sed 's/^/# /' "$work/export.out" | tail -n 5
check "make export succeeds" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || finish
npatch=$(grep -cv '^[[:space:]]*\(#\|$\)' "$top/series")
mapfile -t mails < <(find "$build/outgoing" -name 'v*-*.patch' ! -name '*-0000-cover-letter.patch' | sort)
cover=$(find "$build/outgoing" -name 'v*-0000-cover-letter.patch')
check "one mail per patch (${#mails[@]} for $npatch)" [ "${#mails[@]}" -eq "$npatch" ]
# Each patch's notes for reviewers (below its "---") reach its mail.
# shellcheck disable=SC2317 # called through check
notes_in_mails() {
	local i=0 p first
	while read -r p; do
		first=$(patch_notes "$top/patches/$p" | head -n 1)
		if [ -n "$first" ] && ! grep -qF -- "$first" "${mails[i]}"; then
			echo "# notes of $p missing from ${mails[i]}"
			return 1
		fi
		i=$((i + 1))
	done < <(grep -v '^[[:space:]]*\(#\|$\)' "$top/series")
}
check "every patch's notes for reviewers are in its mail" notes_in_mails
check "the cover letter exists" [ -f "$cover" ]
check "the cover letter is filled in" filled "$cover"
base=$(sed -n 's/^base-commit: //p' "$cover")
check "the cover letter names the base commit" [ -n "$base" ]

git clone -q --no-checkout "$build/export/linux" "$work/linux"
# A local clone hard-links the export's loose objects: no background
# "git gc --auto" after git am, packing them while this test removes them.
git -C "$work/linux" config gc.auto 0
git -C "$work/linux" -c advice.detachedHead=false checkout -q "$base"
tree=$(git -C "$work/linux" rev-parse "$base^{tree}")
check "the cover letter gives the base commit's tree ($tree)" grep -q "$tree" "$cover"
check "the base commit has the fixed author, committer and date" \
	[ "$(git -C "$work/linux" log -1 --format='%an <%ae> %at|%cn <%ce> %ct' "$base")" = \
	"node-lru base <base@node-lru.invalid> 946684800|node-lru base <base@node-lru.invalid> 946684800" ]

# The reviewers' recipe, exactly as README.md gives it.
recipe=$(awk '/<!-- round-trip recipe/ { f = 1; next }
	f && /^$/ { next }
	f { if (/^    [^ ]/) { sub(/^    /, ""); print } exit }' "$top/README.md")
check "README.md gives the git am recipe after its round-trip marker" [ -n "$recipe" ]
echo "# recipe: $recipe"
rc=0
(cd "$work/linux" && out=$build/outgoing GIT_COMMITTER_NAME=roundtrip \
	GIT_COMMITTER_EMAIL=roundtrip@invalid bash -c "${recipe:-false}") >"$work/am.out" 2>&1 || rc=$?
sed 's/^/# /' "$work/am.out" | tail -n 5
check "the README's git am recipe takes every mail on the base commit" [ "$rc" -eq 0 ]
check "git am made one commit per mail" \
	[ "$(git -C "$work/linux" rev-list --count "$base..HEAD")" -eq "${#mails[@]}" ]
check "the result equals the pristine tree" \
	diff -rq --no-dereference -x .git "$build/pristine/linux" "$work/linux"

if ! command -v b4 >/dev/null; then
	echo "ok - b4 round trip # SKIP b4 is not installed (make deps installs it)"
	skip=$((skip + 1))
	finish
fi
mkdir -p "$work/b4"
# One message per "From <sha>" line; unfold continuation lines in headers.
perl -ne 'if (/^From [0-9a-f]{40} /) { $h = 1 } elsif ($h && /^$/) { $h = 0 }
	if ($h && /^[ \t]/ && defined $prev) { chomp $prev; s/^[ \t]+/ /; $prev .= $_; next }
	print $prev if defined $prev; $prev = $_;
	END { print $prev if defined $prev }' "$cover" "${mails[@]}" >"$work/b4/series.mbox"
rc=0
(cd "$work/b4" && b4 --offline-mode am -m series.mbox -o . >b4.out 2>&1) || rc=$?
sed 's/^/# /' "$work/b4/b4.out" | tail -n 4
check "b4 am (offline) makes an mbox ready for git am" [ "$rc" -eq 0 ]
mbx=$(find "$work/b4" -name '*.mbx' | head -n 1)
check "b4 am wrote the .mbx" [ -n "$mbx" ]
if [ -n "$mbx" ]; then
	git -C "$work/linux" -c advice.detachedHead=false checkout -q "$base"
	rc=0
	git -C "$work/linux" -c user.name=roundtrip -c user.email=roundtrip@invalid \
		am -q "$mbx" >"$work/b4am.out" 2>&1 || rc=$?
	check "git am takes b4's mbox on the base commit" [ "$rc" -eq 0 ]
	check "after b4, the result equals the pristine tree" \
		diff -rq --no-dereference -x .git "$build/pristine/linux" "$work/linux"
fi
finish
