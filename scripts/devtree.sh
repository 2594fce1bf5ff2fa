#!/usr/bin/env bash
# Make the development tree: a git repository of the pristine tree with
# one commit per reverse step, so that a step can be changed with git
# (rebase, amend) and its forward patch written again with mkpatch.sh.
#
#   scripts/devtree.sh [DIR]        (default build/dev/linux)
#
# Commit 1 is the pristine tree; then, for the series' patches from last
# to first, one commit that reverse-applies the patch ("reverse: <its
# subject>").  HEAD is the rewound (zone-LRU) tree.  An existing DIR is
# left alone: remove it to start again.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

dir=${1:-$BUILD/dev/linux}
[ ! -e "$dir" ] || die "$dir exists; remove it to make it again"
"$TOP/scripts/pristine.sh"
mkdir -p "$(dirname "$dir")"
tmp=$dir.tmp
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
stage "devtree: $dir"
cp -a "$PRISTINE" "$tmp"
chmod -R u+w "$tmp"
git -C "$tmp" init -q
# Debian's .gitignore ignores the whole top level: add everything by force.
git -C "$tmp" add -A -f .
git -C "$tmp" commit -q -m "pristine $(cat "$TOP/BASE")"
commit_reverse() {
	git -C "$tmp" add -A -f .
	git -C "$tmp" commit -q -m "reverse: $(patch_subject "$PATCHES/$1")" -m "Undoes patches/$1."
}
rewind_series "$tmp" "$dir.log" commit_reverse
mv "$tmp" "$dir"
trap - EXIT
msg devtree "$(series_count) reverse steps on the pristine tree; HEAD is the rewound tree"
