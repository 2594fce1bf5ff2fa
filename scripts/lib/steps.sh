# shellcheck shell=bash
# Steps and their trees: a step's name to its number of patches, lists
# and ranges of steps, the content key of a step's tree, a kernel's name.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

# Resolve a step name to a number of applied patches: 0 or "zone" is the
# rewound tree, "all" or "node" the replayed one, N the first N patches.
step_number() {
	local step=$1 n
	n=$(series_count)
	case "$step" in
	zone | 0) echo 0 ;;
	node | all) echo "$n" ;;
	'' | *[!0-9]* | ?????*) die "STEP=$step: steps are zone, node, all or 0..$n (the series has $n patches)" ;;
	*)
		[ "$((10#$step))" -le "$n" ] ||
			die "STEP=$step: steps are zone, node, all or 0..$n (the series has $n patches)"
		echo "$((10#$step))"
		;;
	esac
}

# The step numbers that a list of steps names, one a line: each word is
# zone, node, all, N or a range A-B (A <= B).  Dies on a bad word.
expand_steps() {
	local w a b
	for w in $1; do
		case $w in
		*-*)
			a=$(step_number "${w%%-*}")
			b=$(step_number "${w#*-}")
			[ "$a" -le "$b" ] || die "steps $w: the range runs backward"
			seq "$a" "$b"
			;;
		*) step_number "$w" ;;
		esac
	done
}

# A content key for the tree at step N: hash of the BASE line, of the
# whole series (the rewind depends on every patch) and of N.
tree_key() {
	local n=$1 p
	{
		cat "$TOP/BASE"
		echo "step $n"
		series_patches | while read -r p; do
			echo "$p"
			cat "$PATCHES/$p" 2>/dev/null || echo missing
		done
		[ -z "$SCRATCH" ] || { echo "scratch"; cat "$SCRATCH"; }
	} | sha256sum | cut -c1-16
}

# The build/k directory name of a step's kernel.  The two ends keep their
# names (zone, node) even while the series is empty; other steps are stepN.
kernel_name() {
	local step=$1 flavor=$2 n name
	# exit: in $(kernel_name ...) a failed step_number must not go on to
	# name some other kernel (command substitution does not inherit set -e).
	n=$(step_number "$step") || exit 1
	case "$step" in
	zone | node) name=$step ;;
	all) name=node ;;
	*)
		name=step$n
		[ "$n" -ne 0 ] || name=zone
		[ "$n" -ne "$(series_count)" ] || name=node
		;;
	esac
	echo "$name-$flavor${SCRATCH:+-x-$(basename "$SCRATCH" .patch)}"
}
