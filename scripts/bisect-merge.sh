#!/usr/bin/env bash
# Merge the rows of make bisect-check runs made on several machines (each
# with its own STEPS range) into one table for this series.
#
#   scripts/bisect-merge.sh DIR...
#
# DIR: a build/bisect directory (copied from another machine, or this
# one's).  For every step 0..N the row is taken from the first DIR whose
# step-N.row passed for this series' tree of that step (the tree key at
# the start of the row's key line), or else from the first with a row for
# that tree; rows for another series are not used.  The merged table goes to build/bisect/merged.tsv and is printed;
# it says which directory each row came from.  The rows must have been
# made with the same flavor, topologies and tests, and the same test
# image (initramfs hash): a row that differs from the first one used in
# any of these is named, and the merge fails.  A step with no row is
# "(not run)" and fails the merge too.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: scripts/bisect-merge.sh DIR..." \
	"DIR: a build/bisect directory of a make bisect-check run (STEPS=A-B on each machine)"
for d in "$@"; do
	[ -d "$d" ] || die "no directory $d" "give build/bisect directories of make bisect-check runs"
done
total=$(series_count)
out=$BUILD/bisect
mkdir -p "$out"
merged=$out/merged.tsv
rest_ref=
problems=()
{
	printf 'step\tbuild\tboot\ttests(p/f/s)\tseconds(build+boot)\tsubject\tfrom\n'
	for ((n = 0; n <= total; n++)); do
		want=$(tree_key "$n")
		row=
		# The first passing row of this tree; else the first of this tree.
		for d in "$@"; do
			f=$d/step-$n.row
			[ -f "$f" ] || continue
			read -r key rest <"$f" || continue
			[ "$key" = "$want" ] || continue
			[ -n "$row" ] || row=$f
			if tail -n 1 "$f" | grep -q '^[0-9]*	ok	ok	[0-9]*/0/'; then
				row=$f
				break
			fi
		done
		if [ -z "$row" ]; then
			printf '%s\t-\t-\t-\t-\t(not run)\t-\n' "$n"
			problems+=("step $n: no row for this series' tree in $*")
			continue
		fi
		read -r _ rest <"$row"
		if [ -z "$rest_ref" ]; then
			rest_ref=$rest
		elif [ "$rest" != "$rest_ref" ]; then
			problems+=("step $n ($row): made with '$rest', the first row used with '$rest_ref' (initramfs hash, flavor, topologies, tests)")
		fi
		tail -n 1 "$row" | tr -d '\n'
		printf '\t%s\n' "$(dirname "$row")"
		tail -n 1 "$row" | grep -q '^[0-9]*	ok	ok	[0-9]*/0/' ||
			problems+=("step $n: did not pass ($row)")
	done
} >"$merged"
column -t -s "$(printf '\t')" "$merged" || cat "$merged"
msg merged "$merged"
[ ${#problems[@]} -eq 0 ] || die "the merged table is not a pass of every step:" "${problems[@]}"
msg merged "every step 0..$total passed, with the same test image, flavor, topologies and tests"
