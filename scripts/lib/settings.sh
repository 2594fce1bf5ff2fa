# shellcheck shell=bash
# Settings: every variable checked before anything is built or written,
# the note on which kernel source is used, and scripts/settings.tsv as a table.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

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
	[ ${#names[@]} -gt 0 ] || names=(STEP STEPS FLAVOR TOPOS TESTS ACCEL MEM SMP MGLRU KERNELS OVERLAP JOBS QUICK BOOT CCACHE V KEEP_DISKS GUESTS ITER KERNEL_ARGS)
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
			*[!0-9]* | 0* | ????*) problems+=("ITER=$val: ITER is make bench's rounds of the kernels, a whole number above 0 (default 5, 1 with QUICK=1)") ;;
			esac
			;;
		KERNEL_ARGS)
			for w in $val; do
				case $w in
				nodelru.* | console=* | panic=* | oops=*)
					problems+=("KERNEL_ARGS=$val: '$w' is set by the harness itself (scripts/qemu-run.sh)") ;;
				*[!A-Za-z0-9_.,=:/+-]*)
					problems+=("KERNEL_ARGS=$val: '$w' is not a plain kernel argument (letters, digits and _ . , = : / + - only)") ;;
				esac
			done
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
