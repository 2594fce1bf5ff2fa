# shellcheck shell=bash
# Guest topologies: the guest's default size and configs/topologies, read
# into QEMU arguments and kernel command line words.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

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
