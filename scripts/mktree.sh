#!/usr/bin/env bash
# Make the work tree of one step of the series.
#
#   scripts/mktree.sh STEP [DIR]
#
# STEP is zone (0: the rewound tree), node/all (the replayed tree) or N.
# DIR (default build/k/<kernel name>) gets the tree in DIR/src; it is rebuilt only when the series, BASE or
# STEP changed since it was made.  The tree is made beside DIR as src.tmp:
# a copy of the read-only pristine tree, every patch in series
# reverse-applied last first with fuzz 0 (the rewind), then quilt pushes
# the first STEP patches with fuzz 0.  Only a tree that got through all of
# that is moved into place, so a failing patch never leaves a half-applied
# tree behind.  At the end of the series the tree must equal the pristine
# extraction.  With SCRATCH=x.patch (see lib.sh) that patch goes on top
# last, after the identity check.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

case $# in 1 | 2) ;; *) die "usage: scripts/mktree.sh STEP [DIR]" ;; esac
step=$1
# Before anything is extracted or written (FLAVOR names the directory).
STEP=$step check_settings STEP FLAVOR
n=$(step_number "$step")
dir=${2:-$BUILD/k/$(kernel_name "$step" "${FLAVOR:-debug}")}
"$TOP/scripts/pristine.sh"

total=$(series_count)
key=$(tree_key "$n")
src=$dir/src
logs=$dir/logs

keyfile=$dir/src.key
# The state of a tree as made: every file's and symlink's path, size and
# modification time (quilt's .pc included).  An edit, a 'quilt push' or
# 'pop' in the tree changes it, so the tree is not taken for step N any
# more.  Directories are left out: their times change when a tool makes
# and removes a temporary file in them, which changes no file of the tree
# (merge_config.sh did, in the top directory, until kbuild.sh ran it in
# the object directory).  "f2" names this form of the state.
statefile=$dir/src.state
tree_state() {
	(cd "$1" && find . ! -type d -printf '%P %s %T@\n' | sort | sha256sum | cut -c1-16 | sed 's/^/f2-/')
}
if [ -d "$src" ] && [ -f "$keyfile" ] && [ "$(cat "$keyfile")" = "$key" ]; then
	if [ ! -f "$statefile" ]; then
		msg tree "$src was made by an older mktree.sh (hard links into pristine): making step $n again"
	elif ! grep -q '^f2-' "$statefile"; then
		msg tree "$src has its state in an older form (directory times counted): making step $n again"
	elif [ "$(tree_state "$src")" = "$(cat "$statefile")" ]; then
		msg tree "$src (step $n of $total, unchanged)"
		exit 0
	else
		aside=$dir/src.edited-$(date +%Y%m%d-%H%M%S)
		mv "$src" "$aside"
		msg tree "$src was changed since it was made (edits, quilt push/pop): kept as $aside, making step $n again"
	fi
fi

mkdir -p "$logs"
log=$logs/tree.log
: >"$log"
tmp=$dir/src.tmp
remove_tree "$tmp"
trap 'rm -rf "$tmp"' EXIT

stage "tree: step $n of $total -> $src"
# Every listed patch must exist before anything is touched.
missing=$(series_patches | while read -r p; do
	[ -f "$PATCHES/$p" ] || echo "$p"
done)
[ -z "$missing" ] || die "series lists patches that are not in patches/:" "$missing"

# A real copy, not hard links: an edit in a step tree (as root, even of
# a read-only file) must never reach the pristine tree or another step.
cp -a "$PRISTINE" "$tmp"
chmod -R u+w "$tmp"

# Rewind: reverse-apply the whole series, last patch first.
rewind_series "$tmp" "$log"

# Replay the first N with quilt; the tree keeps quilt's state so that
# 'quilt push/pop' can go on from here (QUILT_PATCHES and QUILT_SERIES
# point into the repository).
if [ "$n" -gt 0 ]; then
	if ! out=$(cd "$tmp" && QUILT_PATCHES=$PATCHES QUILT_SERIES=$SERIES \
		quilt --quiltrc - push --fuzz=0 "$n" 2>&1); then
		printf '%s\n' "$out" >>"$log"
		printf '%s\n' "$out" | grep -E '^Applying|FAILED|hunk' | tail -n 5 >&2 || true
		die "replay: quilt push stopped before step $n (fuzz 0)" \
			"the last 'Applying' line above names the patch; full output: $log"
	fi
	printf '%s\n' "$out" >>"$log"
	check_offsets "replay" "$out" "$log"
fi
# Step 0 gets quilt's state too (no patch applied), so that quilt in the
# tree finds this repository's patches and never climbs to a .pc or
# patches/ above it.
if [ "$n" -eq 0 ]; then
	mkdir -p "$tmp/.pc"
	printf '%s\n' "$PATCHES" >"$tmp/.pc/.quilt_patches"
	printf '%s\n' "$SERIES" >"$tmp/.pc/.quilt_series"
	echo 2 >"$tmp/.pc/.version"
fi
msg replay "$n patches applied"

if [ "$n" -eq "$total" ]; then
	if ! diff -rq --no-dereference -x .pc "$PRISTINE" "$tmp" >"$logs/replay-diff.log" 2>&1; then
		head -n 20 "$logs/replay-diff.log" >&2
		die "the replayed tree differs from the pristine tree" \
			"rewind followed by replay must be the identity; list: $logs/replay-diff.log"
	fi
	msg identity "replayed tree equals the pristine extraction"
fi

if [ -n "$SCRATCH" ]; then
	printf '[ +scratch %s ]\n' "$SCRATCH" >>"$log"
	apply_patch "$tmp" "$SCRATCH" "$log" ||
		die "scratch patch $SCRATCH does not apply to step $n (fuzz 0)" \
			"no work tree was left behind; full output: $log"
	msg scratch "$(basename "$SCRATCH") applied on top"
fi

rm -f "$keyfile" "$statefile"
remove_tree "$src"
mv "$tmp" "$src"
trap - EXIT
echo "$key" >"$keyfile"
tree_state "$src" >"$statefile"
msg tree "$src"
