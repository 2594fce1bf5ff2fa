# shellcheck shell=bash
# Common definitions for the node-lru scripts.  Sourced, never executed.
#
# Layout of build/ (all generated, ignored by git):
#   build/pristine/linux/      read-only extraction of the Debian tarball
#   build/k/<name>/src         work tree of one kernel (a copy of pristine, patched)
#   build/k/<name>/obj         its O= build directory
#   build/initramfs/           the guest image parts
#   build/runs/<id>/           one QEMU run: console log, results, command

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
PRISTINE_DIR=$BUILD/pristine
export PRISTINE=$PRISTINE_DIR/linux
# BASE: "PACKAGE VERSION", the Debian source package the series ends at.
BASE_PKG=linux-source-6.1
BASE_VERSION=
read -r BASE_PKG BASE_VERSION _ 2>/dev/null <"$TOP/BASE" || true
SRC_TARBALL_DEFAULT=/usr/src/$BASE_PKG.tar.xz
SRC_TARBALL=${SRC_TARBALL:-$SRC_TARBALL_DEFAULT}
SERIES=${NODELRU_SERIES:-$TOP/series}
PATCHES=${NODELRU_PATCHES:-$TOP/patches}

export LC_ALL=C

# SCRATCH=path/to/x.patch: a throw-away patch applied on top of the step's
# tree (tests/broken/ holds deliberately broken kernels that tests must
# catch).  It gets its own kernel name, <step>-<flavor>-x-<x>, its own
# tree and O= directory; the series' kernels are never touched.
SCRATCH=${SCRATCH:-}
if [ -n "$SCRATCH" ]; then
	case $SCRATCH in /*) ;; *) SCRATCH=$TOP/$SCRATCH ;; esac
	[ -f "$SCRATCH" ] || {
		printf 'error: SCRATCH=%s: no such patch file\n' "$SCRATCH" >&2
		exit 1
	}
fi
export SCRATCH

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

# The subject of a patch file, without its "[PATCH ...]" prefix.
patch_subject() {
	sed -n 's/^Subject: \(\[[^]]*\] \)\?//p' "$1" | head -n 1
}

# Standard input without its leading and trailing blank lines.
trim_blank() { sed -e '/./,$!d' | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}'; }

# The notes for reviewers of a patch file: the text between its "---"
# line and the diffstat (or the diff), without leading and trailing blank
# lines.  Empty when the patch has none.
patch_notes() {
	awk '/^---$/ && !n { n = 1; next }
		n && (/^ .* \| +[0-9]+ / || /^ [0-9]+ files? changed/ || /^--- /) { exit }
		n { print }' "$1" | trim_blank
}

# Hunks must apply where they say, give or take MAX_OFFSET lines (default
# 0: every patch was made against the exact tree it applies to).  patch(1)
# and quilt print "Hunk #N succeeded at L (offset K lines)"; quilt names
# the patch on its "Applying patch" line.
#   check_offsets WHAT OUTPUT LOG
check_offsets() {
	local what=$1 out=$2 log=$3 max=${MAX_OFFSET:-0} bad
	bad=$(awk -v max="$max" '
		/^Applying patch / { p = $3 }
		/^patching file / { f = $3 }
		/offset -?[0-9]+ line/ {
			k = $0; sub(/.*offset /, "", k); sub(/ line.*/, "", k)
			if ((k < 0 ? -k : k) > max) print (p != "" ? p ": " : "") f ": " $0
		}' <<<"$out")
	[ -z "$bad" ] || die "$what: hunks applied more than $max lines away from where the patch says:" \
		"$bad" "refresh the patch (scripts/mkpatch.sh) or raise MAX_OFFSET; full output: $log"
}

# Apply one patch file to DIR with fuzz 0, extra patch(1) options after
# it (-R to reverse); all output goes to LOG, and on failure the lines that
# name the file and hunk go to stderr and the status is non-zero.  The
# output is left in PATCH_OUT for the caller's offset check.
#   apply_patch DIR FILE LOG [OPTION...]
apply_patch() {
	local dir=$1 file=$2 log=$3
	shift 3
	if ! PATCH_OUT=$(patch -d "$dir" -p1 "$@" -F0 -N --no-backup-if-mismatch \
		--reject-file=- -i "$file" 2>&1); then
		printf '%s\n' "$PATCH_OUT" >>"$log"
		printf '%s\n' "$PATCH_OUT" | grep -E 'patching file|FAILED|hunk|malformed|No file' >&2 || true
		return 1
	fi
	printf '%s\n' "$PATCH_OUT" >>"$log"
}

# Reverse-apply the whole series to the tree in DIR, last patch first,
# fuzz 0 and no offsets (the rewind); patch(1) output goes to LOG.  After
# each patch, HOOK (a command, optional) runs with the patch's name.
#   rewind_series DIR LOG [HOOK]
rewind_series() {
	local dir=$1 log=$2 hook=${3:-} all i p
	mapfile -t all < <(series_patches)
	for ((i = ${#all[@]} - 1; i >= 0; i--)); do
		p=${all[i]}
		printf '[ -%s ]\n' "$p" >>"$log"
		apply_patch "$dir" "$PATCHES/$p" "$log" -R ||
			die "rewind: patch $p does not reverse-apply to the tree of the patches after it" \
				"(fuzz 0; the pristine tree is untouched, no work tree was left behind)" \
				"full output: $log"
		check_offsets "rewind: $p" "$PATCH_OUT" "$log"
		[ -z "$hook" ] || "$hook" "$p"
	done
	msg rewind "${#all[@]} patches reversed"
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

jobs_default() {
	nproc
}

# A build beside booting guests (OVERLAP) leaves the guests their CPUs:
# make's -j is JOBS, or the CPUs beyond GUESTS guests of SMP vCPUs each
# (GUESTS, default 1: those booted at once beside the build), at least one.
#   bg_jobs_default [GUESTS]
bg_jobs_default() {
	local j=${JOBS:-$(($(nproc) - ${1:-1} * ${SMP:-$DEFAULT_SMP}))}
	[ "$j" -ge 1 ] || j=1
	echo "$j"
}

# True when the next kernel is to build while the current one boots:
# OVERLAP=1, or OVERLAP=auto (the default) on 4 CPUs or more (on fewer
# the build and the guest only slow each other down).  check_settings
# has checked OVERLAP.
overlap_on() {
	case ${OVERLAP:-auto} in
	1) return 0 ;;
	0) return 1 ;;
	*) [ "$(nproc)" -ge 4 ] ;;
	esac
}

# Stop process $1 and everything it started (children first listed, then
# it; a process started in between is stopped by its parent's end or by
# the caller's own timeout).  Used by the EXIT traps of the scripts that
# run builds or guests in the background.
killtree() {
	local c
	for c in $(pgrep -P "$1" 2>/dev/null || true); do
		killtree "$c"
	done
	kill "$1" 2>/dev/null || true
}

# The QEMU accelerator: ACCEL=tcg or kvm as asked, or (auto, the default)
# kvm only where it really works: a kernel must boot far enough under it
# to print its banner.  (An accessible /dev/kvm is not enough: seen here,
# nested KVM that starts a VM whose guest never prints a line.)  The
# verdict is cached per host, QEMU and /dev/kvm.  Says what it chose.
#   pick_accel BZIMAGE
pick_accel() {
	local bz=$1 sig cache log
	case ${ACCEL:-auto} in
	tcg) echo tcg ;;
	kvm)
		[ -w /dev/kvm ] ||
			die "ACCEL=kvm but /dev/kvm is missing or not writable" "use ACCEL=tcg or ACCEL=auto"
		echo kvm
		;;
	auto)
		if ! [ -w /dev/kvm ]; then
			msg accel "tcg (no usable /dev/kvm)"
			echo tcg
			return
		fi
		sig=$( {
			uname -a
			qemu-system-x86_64 --version | head -n 1
			stat -c '%t:%T %Z' /dev/kvm
		} | sha256sum | cut -c1-16)
		cache=$BUILD/accel-probe.$sig
		if [ ! -f "$cache" ]; then
			log=$BUILD/accel-probe.log
			mkdir -p "$BUILD"
			timeout 30 qemu-system-x86_64 -accel kvm -M q35 -m 256 -nodefaults \
				-display none -no-reboot -serial "file:$log" -kernel "$bz" \
				-append "console=ttyS0 panic=-1" >/dev/null 2>&1 || true
			if grep -q 'Linux version' "$log" 2>/dev/null; then
				echo kvm >"$cache"
			else
				echo tcg >"$cache"
			fi
		fi
		if [ "$(cat "$cache")" = kvm ]; then
			msg accel "kvm (a kernel booted under it; probe cached in $cache)"
			echo kvm
		else
			msg accel "tcg (/dev/kvm is there but a kernel did not boot under it within 30 s; cached in $cache)"
			echo tcg
		fi
		;;
	*) die "ACCEL must be auto, tcg or kvm, not '$ACCEL'" ;;
	esac
}

# The guest's size when MEM and SMP are not set (scripts/qemu-run.sh).
# shellcheck disable=SC2034 # read by the scripts that source this file
DEFAULT_MEM=3072
# shellcheck disable=SC2034
DEFAULT_SMP=2

# Guest topologies are data: configs/topologies (its header says how).
TOPOLOGIES=$TOP/configs/topologies

# The topology names, in the order of the file.
topology_names() {
	[ -f "$TOPOLOGIES" ] || die "no topology list at $TOPOLOGIES"
	awk '$1 !~ /^#/ && $2 == "about" { print $1 }' "$TOPOLOGIES"
}

# One word of configs/topologies with {mem}, {smp}, {mem-2048}, ...
# replaced; fails (message on stdout) on anything else in braces.
#   topology_word WORD MEM SMP
topology_word() {
	local w=$1 mem=$2 smp=$3 out='' v k
	local re='^([^{}]*)[{](mem|smp)(([-+*/])([0-9]+))?[}](.*)$'
	while [[ $w =~ $re ]]; do
		v=$mem
		[ "${BASH_REMATCH[2]}" = mem ] || v=$smp
		k=${BASH_REMATCH[5]:-0}
		case ${BASH_REMATCH[4]} in
		+) v=$((v + 10#$k)) ;;
		-) v=$((v - 10#$k)) ;;
		'*') v=$((v * 10#$k)) ;;
		/)
			[ "$((10#$k))" -ne 0 ] || { echo "division by zero in '$1'"; return 1; }
			v=$((v / 10#$k))
			;;
		esac
		out+=${BASH_REMATCH[1]}$v
		w=${BASH_REMATCH[6]}
	done
	case $w in *[{}]*)
		echo "'$1': only {mem}, {smp} and {mem-N}-like arithmetic go in braces"
		return 1
		;;
	esac
	printf '%s\n' "$out$w"
}

# The QEMU arguments (array TOPO_QEMU) and kernel command line words
# (array TOPO_KERNEL) of topology TOPO for a guest of MEM MiB and SMP CPUs.
# Returns 1 with the reason in TOPO_ERROR when there is no such topology
# or the guest does not meet its needs.
#   topology_args TOPO MEM SMP
# shellcheck disable=SC2034 # TOPO_* are for the caller
topology_args() {
	local topo=$1 mem=$2 smp=$3 name kind rest known=0 words w x var op num have
	local re='^(mem|smp)(>=|<=|>|<|=)([0-9]+)[[:space:]]*(.*)$'
	TOPO_QEMU=()
	TOPO_KERNEL=()
	TOPO_ERROR=
	[ -f "$TOPOLOGIES" ] || { TOPO_ERROR="no topology list at $TOPOLOGIES"; return 1; }
	while read -r name kind rest; do
		[ "$name" = "$topo" ] || continue
		case $kind in
		about) known=1 ;;
		needs)
			if ! [[ $rest =~ $re ]]; then
				TOPO_ERROR="$TOPOLOGIES: $topo needs '$rest': not mem or smp, an operator and a number"
				return 1
			fi
			var=${BASH_REMATCH[1]} op=${BASH_REMATCH[2]} num=$((10#${BASH_REMATCH[3]}))
			have=$mem
			[ "$var" = mem ] || have=$smp
			case $op in
			'>') ((have > num)) ;;
			'>=') ((have >= num)) ;;
			'<') ((have < num)) ;;
			'<=') ((have <= num)) ;;
			=) ((have == num)) ;;
			esac || {
				x=${var^^}
				TOPO_ERROR="topology $topo needs $x$op$num${BASH_REMATCH[4]:+ (${BASH_REMATCH[4]})}, not $x=$have"
				return 1
			}
			;;
		qemu | kernel)
			read -r -a words <<<"$rest"
			for w in "${words[@]}"; do
				x=$(topology_word "$w" "$mem" "$smp") || {
					TOPO_ERROR="$TOPOLOGIES: $topo: $x"
					return 1
				}
				if [ "$kind" = qemu ]; then
					TOPO_QEMU+=("$x")
				else
					TOPO_KERNEL+=("$x")
				fi
			done
			;;
		*)
			TOPO_ERROR="$TOPOLOGIES: $topo: unknown kind '$kind' (about, needs, qemu, kernel)"
			return 1
			;;
		esac
	done < <(grep -v '^[[:space:]]*#' "$TOPOLOGIES")
	[ "$known" = 1 ] || {
		TOPO_ERROR="no topology '$topo'; topologies: $(topology_names | paste -sd' ') (configs/topologies)"
		return 1
	}
}

# The guest tests, "name sets timeout topo oom" a line in name order, from
# the "nodelru:" header line of each tests/*.sh and tests/*.c, read the
# way scripts/initramfs.sh reads it for /tests/index (without building).
test_index() {
	local files=()
	mapfile -t files < <(find "$TOP/tests" -maxdepth 1 -type f \( -name '*.sh' -o -name '*.c' \) | sort)
	[ ${#files[@]} -gt 0 ] || return 0
	awk '
	function field(k,   r) {
		if (!match(meta, "(^| )" k "=[^ ]*")) return ""
		r = substr(meta, RSTART, RLENGTH); sub(/^ /, "", r); sub(/^[^=]*=/, "", r)
		return r
	}
	FNR == 1 { done = 0 }
	!done && /nodelru: / {
		done = 1
		meta = substr($0, index($0, "nodelru: ")); sub(/ *\*\/$/, "", meta)
		name = FILENAME; sub(/.*\//, "", name); sub(/\.[^.]*$/, "", name)
		oom = field("oom")
		print name, field("sets"), field("timeout"), field("topo"), (oom == "" ? "no" : oom)
	}' "${files[@]}"
}

# Check the settings before anything is built or written, so that a typo
# fails at once, with the values that would do, instead of after a kernel
# build (or, worse, by building something else).  With no arguments every
# one of STEP STEPS FLAVOR TOPOS TESTS ACCEL MEM SMP MGLRU KERNELS OVERLAP
# JOBS that is
# set (non-empty) is checked; with names, only those.  A script checks an argument with
# NAME=$arg check_settings NAME.  All problems are reported in one message;
# then the script stops.  Then BUILD must be writable (check_build_dir),
# and, once per run, it says which kernel source the trees come from when
# it is not what BASE names (note_base).
#   check_settings [NAME...]
# shellcheck disable=SC2120 # the names are optional
check_settings() {
	local names=("$@") v val w n p problems=() words=() nosuch=() lines=() extras index=''
	local mem=${MEM:-$DEFAULT_MEM} smp=${SMP:-$DEFAULT_SMP} size_ok=1
	[ ${#names[@]} -gt 0 ] || names=(STEP STEPS FLAVOR TOPOS TESTS ACCEL MEM SMP MGLRU KERNELS OVERLAP JOBS QUICK BOOT CCACHE V KEEP_DISKS GUESTS ITER)
	for v in "${names[@]}"; do
		val=${!v:-}
		[ -n "$val" ] || continue
		case $v in
		STEP | STEPS)
			n=$(series_count)
			read -r -a words <<<"$val"
			nosuch=()
			for w in "${words[@]}"; do
				# A range A-B of two valid steps, A <= B.
				if [[ $w =~ ^([0-9]{1,4})-([0-9]{1,4})$ ]] &&
					[ "$((10#${BASH_REMATCH[1]}))" -le "$((10#${BASH_REMATCH[2]}))" ] &&
					[ "$((10#${BASH_REMATCH[2]}))" -le "$n" ]; then
					continue
				fi
				case $w in
				zone | node | all) ;;
				*[!0-9]* | ?????*) nosuch+=("$w") ;;
				*) [ "$((10#$w))" -le "$n" ] || nosuch+=("$w") ;;
				esac
			done
			[ ${#nosuch[@]} -eq 0 ] ||
				problems+=("$v=$val: no step ${nosuch[*]}; steps are zone, node, all, 0..$n (the series has $n patches) or a range A-B of those numbers")
			;;
		FLAVOR)
			extras=$(find "$TOP/configs" -maxdepth 1 -name '*.config' -printf '%f\n' |
				sed 's/\.config$//' | grep -vx 'debug\|bench\|qemu' | sort | paste -sd' ' || true)
			IFS=+ read -r -a words <<<"$val"
			p=
			case ${words[0]:-} in
			debug | bench) ;;
			*) p="it does not start with debug or bench" ;;
			esac
			for w in "${words[@]:1}"; do
				[ -n "$p" ] || [[ $w =~ ^[A-Za-z0-9_-]+$ ]] || p="'$w' is not a fragment name"
				[ -n "$p" ] || [ -f "$TOP/configs/$w.config" ] || p="there is no configs/$w.config"
			done
			[ -n "$p" ] || [[ $val != *+ ]] || p="it ends with +"
			[ -z "$p" ] ||
				problems+=("FLAVOR=$val: $p; flavors are debug or bench, optionally +EXTRA for each configs/EXTRA.config to add on top (extras: ${extras:-none})")
			;;
		TOPOS | TESTS | ACCEL) ;;
		MGLRU)
			case $val in
			0) ;;
			1)
				[[ ${FLAVOR:-} != *+mglru* ]] ||
					problems+=("MGLRU=1 with FLAVOR=$FLAVOR: MGLRU=1 adds the node end with FLAVOR+mglru, and FLAVOR has the multi-gen LRU already; use one or the other")
				;;
			*) problems+=("MGLRU=$val: MGLRU is 1 (make qemu-test and check also build and boot the node end with the multi-gen LRU, FLAVOR+mglru) or 0 (the default: the two ends only)") ;;
			esac
			;;
		KERNELS)
			read -r -a words <<<"${val//,/ }"
			nosuch=()
			p=
			for w in "${words[@]}"; do
				case $w in
				zone | node | mglru) [[ " $p " != *" $w "* ]] || nosuch+=("$w named twice") ;;
				*) nosuch+=("no kernel $w") ;;
				esac
				p+=" $w"
			done
			[ ${#words[@]} -gt 0 ] || nosuch+=("no kernel named")
			[ ${#nosuch[@]} -eq 0 ] ||
				problems+=("KERNELS=$val: ${nosuch[*]}; make bench's kernels are zone, node and mglru (one or more, separated by spaces; they always run in that order)")
			;;
		OVERLAP)
			case $val in
			auto | 0 | 1) ;;
			*) problems+=("OVERLAP=$val: OVERLAP is 1 (build the next kernel while this one boots), 0 (one at a time) or auto (the default: 1 from 4 CPUs up; here $(nproc))") ;;
			esac
			;;
		JOBS)
			case $val in
			*[!0-9]* | 0* | ?????*) problems+=("JOBS=$val: JOBS is make's -j for kernel builds, a whole number above 0 (default: the CPUs, $(nproc); beside a booting guest the CPUs beyond its SMP)") ;;
			esac
			;;
		MEM | SMP)
			case $val in
			*[!0-9]* | 0* | ??????????*)
				size_ok=0
				mem=$DEFAULT_MEM smp=$DEFAULT_SMP
				if [ "$v" = MEM ]; then
					problems+=("MEM=$val: MEM is the guest's memory in MiB, a whole number (default $DEFAULT_MEM)")
				else
					problems+=("SMP=$val: SMP is the number of guest CPUs, a whole number above 0 (default $DEFAULT_SMP)")
				fi
				;;
			esac
			;;
		QUICK | BOOT | CCACHE | V | KEEP_DISKS)
			case $val in
			0 | 1) ;;
			*) problems+=("$v=$val: $v is 1 or 0 ($(awk -F'\t' -v n="$v" '$1 == n { print $3 }' "$TOP/scripts/settings.tsv"))") ;;
			esac
			;;
		GUESTS)
			case $val in
			auto) ;;
			*[!0-9]* | 0* | ???*) problems+=("GUESTS=$val: GUESTS is the number of guests booted at once, 1 to 99, or auto (CPUs/SMP, as many as free memory holds)") ;;
			esac
			;;
		ITER)
			case $val in
			*[!0-9]* | 0* | ????*) problems+=("ITER=$val: ITER is make bench's rounds of the kernels, a whole number above 0 (default 3, 1 with QUICK=1)") ;;
			esac
			;;
		*) die "check_settings: no check for '$v'" ;;
		esac
	done
	for v in "${names[@]}"; do
		val=${!v:-}
		[ -n "$val" ] || continue
		case $v in
		TOPOS)
			read -r -a words <<<"$val"
			for w in "${words[@]}"; do
				topology_args "$w" "$mem" "$smp" && continue
				case $TOPO_ERROR in
				"no topology"*)
					p=$TOPO_ERROR
					[[ $w != *,* ]] || p+="; several are separated by spaces"
					problems+=("TOPOS=$val: $p")
					;;
				*) [ "$size_ok" = 0 ] || problems+=("TOPOS=$val: $TOPO_ERROR") ;;
				esac
			done
			;;
		TESTS)
			index=$(test_index)
			read -r -a words <<<"${val//,/ }"
			nosuch=()
			for w in "${words[@]}"; do
				awk -v w="$w" '$1 == w { f = 1 }
					{ n = split($2, s, ","); for (i = 1; i <= n; i++) if (s[i] == w) f = 1 }
					END { exit !f }' <<<"$index" || nosuch+=("$w")
			done
			[ ${#nosuch[@]} -eq 0 ] ||
				problems+=("TESTS=$val: no test or set named ${nosuch[*]} (several names are separated by commas or spaces)
sets: $(awk '{ n = split($2, s, ","); for (i = 1; i <= n; i++) print s[i] }' <<<"$index" | sort -u | paste -sd' ')
tests: $(cut -d' ' -f1 <<<"$index" | paste -sd' ' | fold -s -w 66 | sed 's/ $//')")
			;;
		ACCEL)
			case $val in
			auto | tcg | kvm) ;;
			*) problems+=("ACCEL=$val: ACCEL is auto (kvm where a kernel boots under it, else tcg), tcg or kvm") ;;
			esac
			;;
		esac
	done
	# Known names that select nothing on a topology: qemu-run would stop.
	if [ ${#problems[@]} -eq 0 ] && [ -n "$index" ] && [ -n "${TOPOS:-}" ] &&
		[[ " ${names[*]} " == *" TOPOS "* ]]; then
		for w in ${TOPOS}; do
			[ -n "$(awk -v want="${TESTS//,/ }" -v topo="$w" -f "$TOP/initramfs/select.awk" <<<"$index")" ] ||
				problems+=("TESTS=$TESTS selects no test on topology $w: a set runs only those of its tests whose header says topo=all or topo=$w")
		done
	fi
	if [ ${#problems[@]} -gt 0 ]; then
		for p in "${problems[@]}"; do
			mapfile -t -O "${#lines[@]}" lines <<<"$p"
		done
		die "${lines[@]}"
	fi
	check_build_dir
	note_base
}

# Say once per run (children inherit NODELRU_BASE_NOTED) which kernel
# source the trees come from, when it is not what BASE names, and why.
note_base() {
	local have what
	[ -z "${NODELRU_BASE_NOTED:-}" ] || return 0
	export NODELRU_BASE_NOTED=1
	if [ "$SRC_TARBALL" != "$SRC_TARBALL_DEFAULT" ]; then
		msg base "the trees come from SRC_TARBALL=$SRC_TARBALL (set in the environment), not from $BASE_PKG $BASE_VERSION as BASE says"
		return 0
	fi
	# No tarball: scripts/pristine.sh says how to install BASE's.
	[ -f "$SRC_TARBALL" ] || return 0
	have=$(dpkg-query -W -f '${Version}' "$BASE_PKG" 2>/dev/null || true)
	[ "$have" != "$BASE_VERSION" ] || return 0
	what="version $have"
	[ -n "$have" ] || what="which no installed package owns"
	printf 'warning: %s\n' \
		"BASE names $BASE_PKG $BASE_VERSION, but ${have:-no version of it} is installed: the trees come from $SRC_TARBALL, $what (the scripts use the tarball that is there, whatever its version)." \
		"The series was made on $BASE_VERSION and may not rewind or replay cleanly on ${have:-it}." \
		"For BASE's version: apt-get install $BASE_PKG=$BASE_VERSION (make deps leaves an installed version alone)." |
		sed '2,$s/^warning: /         /' >&2
}

# The scripts write under BUILD: when they cannot (a build/ made by
# another user, "sudo make ..." earlier; a read-only file system), say so
# once, up front, instead of a failure per file later.
check_build_dir() {
	local d=$BUILD unw='' me owner
	while [ ! -e "$d" ] && [ "$d" != / ]; do
		d=$(dirname "$d")
	done
	if [ "$d" = "$BUILD" ]; then
		unw=$(find "$BUILD" -maxdepth 2 -path "$PRISTINE" -prune -o \
			! -type l ! -writable -print -quit 2>/dev/null || true)
	elif [ ! -w "$d" ]; then
		unw=$d
	fi
	[ -n "$unw" ] || return 0
	me=$(id -un)
	owner=$(stat -c %U "$unw")
	if [ "$owner" = "$me" ]; then
		die "$unw is not writable ($(stat -c %A "$unw"); a read-only file system?), and the scripts write under $BUILD" \
			"make it writable, or build elsewhere: BUILD=/another/dir make ..."
	fi
	die "$unw belongs to $owner, not to you ($me), and the scripts write under $BUILD" \
		"(made by 'sudo make ...'?)  Give it back: sudo chown -R $me $BUILD; or build elsewhere: BUILD=/another/dir make ..."
}

# Remove a directory tree.  One that cannot be removed (another user's
# files, a read-only file system) is one message, not a line per file.
#   remove_tree DIR
remove_tree() {
	local d=$1 err
	[ -e "$d" ] || [ -L "$d" ] || return 0
	# Directories made read-only on purpose (the pristine tree) first;
	# only directories: rm needs no more (and a hard link's file mode is
	# its other names' too).
	find "$d" -type d ! -perm -u=w -exec chmod u+w {} + 2>/dev/null || true
	err=$(rm -rf -- "$d" 2>&1) && return 0
	die "could not remove $d: $(grep -c . <<<"$err") entries are left, the first: $(head -n 1 <<<"$err" | sed 's/^rm: //')" \
		"$d belongs to $(stat -c %U "$d" 2>/dev/null || echo '?'), you are $(id -un); if another user made it (sudo make ...): sudo rm -rf $d"
}

# scripts/settings.tsv as a table for a terminal (make help): name,
# default, and the meaning wrapped to 80 columns.
settings_table() {
	awk -F'\t' '
	/^#/ || NF < 3 { next }
	{
		line = sprintf("  %-16s %-12s", $1, $2)
		if (length(line) > 31) { print line; line = sprintf("%31s", "") }
		n = split($3, w, " ")
		cur = line
		for (i = 1; i <= n; i++) {
			if (length(cur) + 1 + length(w[i]) > 80 && cur != line) {
				print cur
				cur = sprintf("%31s", "")
				line = cur
			}
			cur = cur " " w[i]
		}
		print cur
	}' "$TOP/scripts/settings.tsv"
}

# config_lost CONFIG FRAGMENT...: the options the fragments ask for that
# CONFIG (a .config after olddefconfig) does not have, one line each as
# "CONFIG_X=y (got ...)"; nothing when all survived.  y/m/strings must be
# there exactly, =n as "is not set" or absent.  A later fragment overrides
# an earlier one (the bench kernels leave out ACPI and tracing): the last
# value asked for an option is the one checked, as merge_config.sh
# applies them.
config_lost() {
	local config=$1 line opt val got
	shift
	local -A asked=()
	local asked_order=()
	while IFS= read -r line; do
		line=${line%%#*}
		line=${line%"${line##*[![:space:]]}"}
		[ -n "$line" ] || continue
		opt=${line%%=*}
		[ -n "${asked[$opt]+set}" ] || asked_order+=("$opt")
		asked[$opt]=$line
	done < <(grep -h '^CONFIG_' "$@")
	for opt in "${asked_order[@]}"; do
		line=${asked[$opt]}
		val=${line#*=}
		if [ "$val" = n ]; then
			if grep -q "^$opt=" "$config"; then
				echo "$opt=n (got $(grep "^$opt=" "$config"))"
			fi
		elif ! grep -qxF "$line" "$config"; then
			got=$(grep -E "^$opt=|^# $opt is not set" "$config" || echo "absent")
			echo "$line (got $got)"
		fi
	done
}

# save_proc_files RUN_DIR: the guest's /proc/vmstat and /proc/zoneinfo as
# booted, from the runner's "# proc-vmstat: " and "# proc-zoneinfo: "
# lines before the plan line of RUN_DIR/results.ktap (so that no test's
# output can add to them), into RUN_DIR/proc-vmstat and proc-zoneinfo.  A
# file the guest printed no line of is not written.
save_proc_files() {
	local run=$1 f
	for f in vmstat zoneinfo; do
		awk -v p="# proc-$f: " '/^[0-9]+\.\.[0-9]+/ { exit }
			index($0, p) == 1 { print substr($0, length(p) + 1) }' \
			"$run/results.ktap" >"$run/proc-$f"
		[ -s "$run/proc-$f" ] || rm -f "$run/proc-$f"
	done
}

# abi_table_committed REV: scripts/abi-table.sh over the two ends' /proc
# files as committed in results/abi/ at REV (HEAD for make export), what
# make export puts in the cover letter.  Status 2, and nothing printed,
# when any of the four is not committed there.
abi_table_committed() {
	local rev=$1 f
	for f in zone-vmstat zone-zoneinfo node-vmstat node-zoneinfo; do
		git -C "$TOP" cat-file -e "$rev:results/abi/$f" 2>/dev/null || return 2
	done
	"$TOP/scripts/abi-table.sh" \
		<(git -C "$TOP" show "$rev:results/abi/zone-vmstat") \
		<(git -C "$TOP" show "$rev:results/abi/zone-zoneinfo") \
		<(git -C "$TOP" show "$rev:results/abi/node-vmstat") \
		<(git -C "$TOP" show "$rev:results/abi/node-zoneinfo")
}
