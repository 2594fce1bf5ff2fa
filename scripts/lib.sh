# shellcheck shell=bash
# Common definitions for the node-lru scripts.  Sourced, never executed.
#
# Layout of build/ (all generated, ignored by git):
#   build/pristine/linux/      read-only extraction of the Debian tarball
#   build/k/<name>/src         work tree of one kernel (hard links into pristine)
#   build/k/<name>/obj         its O= build directory
#   build/initramfs/           the guest image parts
#   build/runs/<id>/           one QEMU run: console log, results, command

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
PRISTINE_DIR=$BUILD/pristine
export PRISTINE=$PRISTINE_DIR/linux
SRC_TARBALL=${SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
SERIES=${NODELRU_SERIES:-$TOP/series}
PATCHES=${NODELRU_PATCHES:-$TOP/patches}

export LC_ALL=C

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
stage() { printf '=> %s\n' "$*" >&2; }
die() {
	printf 'error: %s\n' "$1" >&2
	shift
	local line
	for line in "$@"; do
		printf '       %s\n' "$line" >&2
	done
	exit 1
}

# The patches listed in the series file, in order (comments and blank
# lines dropped; quilt options after the name are not used here).
series_patches() {
	[ -f "$SERIES" ] || die "no series file at $SERIES"
	sed -e 's/#.*//' -e 's/[[:space:]].*//' "$SERIES" | grep -v '^$' || true
}

series_count() {
	series_patches | wc -l
}

# Resolve a step name to a number of applied patches: 0 or "zone" is the
# rewound tree, "all" or "node" the replayed one, N the first N patches.
step_number() {
	local step=$1 n
	n=$(series_count)
	case "$step" in
	zone | 0) echo 0 ;;
	node | all) echo "$n" ;;
	*[!0-9]*) die "STEP must be zone, node, all or a number, not '$step'" ;;
	*)
		[ "$step" -le "$n" ] ||
			die "STEP=$step is past the end of the series ($n patches)"
		echo "$((10#$step))"
		;;
	esac
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
	} | sha256sum | cut -c1-16
}

# The build/k directory name of a step's kernel.  The two ends keep their
# names (zone, node) even while the series is empty; other steps are stepN.
kernel_name() {
	local step=$1 flavor=$2 n name
	n=$(step_number "$step")
	case "$step" in
	zone | node) name=$step ;;
	all) name=node ;;
	*)
		name=step$n
		[ "$n" -ne 0 ] || name=zone
		[ "$n" -ne "$(series_count)" ] || name=node
		;;
	esac
	echo "$name-$flavor"
}

jobs_default() {
	nproc
}
