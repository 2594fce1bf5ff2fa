#!/usr/bin/env bash
# make matrix-check: every step of the series compiled in the
# configurations users run, not only the test kernels' one.
#
# The test kernels are x86_64 with SMP, NUMA, MEMCG, COMPACTION and SWAP
# on.  The variants of configs/matrix change one of those at a time
# (memcg-off, numa-off, smp-off, hotplug) or the architecture
# (i386-highmem, as make i386-check configures it).  Each cell, a step in
# a variant, is "make ARCH=<arch> tinyconfig", the variant's fragments
# merged in order by the tree's merge_config.sh (an option given twice
# gets the last value), olddefconfig, every requested option checked
# (config_lost, lib.sh: one that did not stick fails the cell, named),
# then MATRIX_TARGETS made one after the other (default "mm/ vmlinux": the
# mm objects, then the link).
#
#   scripts/matrix-check.sh                     every step, every variant
#   STEPS="0 3-5" VARIANTS=numa-off,smp-off scripts/matrix-check.sh
#   MATRIX_TARGETS=mm/ scripts/matrix-check.sh  the mm objects only
#   BOOT=1 scripts/matrix-check.sh              also build the two ends of
#       each variant marked BOOT yes in configs/matrix (memcg-off) as
#       kernels (scripts/kbuild.sh, FLAVOR debug+matrix-memcg-off) and boot
#       them with TESTS (smoke) on TOPOS (make: uma)
#
# Layout: one tree per step, build/matrix/<step>/src (scripts/mktree.sh),
# and beside it one O= directory per variant, build/matrix/<step>/obj-<v>
# (siblings of src, as in build/k/<kernel>/, so that ccache's relative
# paths are the same in every cell and every kernel); logs, the config
# and the result of a cell in build/matrix/<step>/<v>/.  Resumable: a
# cell whose result is ok for the same tree, fragments, arch and targets
# (its key) is not built again; failed cells are.  Once every cell of a
# step in the middle of the series passed, its tree and objects are
# removed (the ends are kept: BOOT and reruns use them).  The table, step
# by variant, ok/FAIL and seconds, is build/matrix/summary.tsv, printed at
# the end with each failure's first error line and log; the status is
# non-zero when any cell or boot failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MATRIX_TABLE=$TOP/configs/matrix
MATRIX_DIR=$BUILD/matrix

# matrix_flavor ARCH FRAGMENT...: the scripts/kbuild.sh flavor that builds
# a variant as a bootable kernel (qemu debug matrix-memcg-off ->
# debug+matrix-memcg-off); else the reason on stdout and status 1.
matrix_flavor() {
	local arch=$1
	shift
	if [ "$arch" != x86_64 ]; then
		echo "only x86_64 variants boot (the guest's userspace is x86_64)"
		return 1
	fi
	if [ "${1:-}" != qemu ] || { [ "${2:-}" != debug ] && [ "${2:-}" != bench ]; }; then
		echo "a booted variant's fragments are qemu, then debug or bench, then extras (what scripts/kbuild.sh builds), not '$*'"
		return 1
	fi
	shift
	local IFS=+
	echo "$*"
}

# matrix_variants FILE: the variant table (configs/matrix), checked,
# "NAME ARCH BOOT FRAGMENT..." a line in its order.  Every problem is
# named with its line, in one message, and the script stops.
matrix_variants() {
	local file=$1 line ln=0 where name arch boot f p words=() frags=()
	local problems=() out=() seen=' '
	[ -f "$file" ] || die "no variant table at $file"
	while IFS= read -r line || [ -n "$line" ]; do
		ln=$((ln + 1))
		line=${line%%#*}
		read -r -a words <<<"$line"
		[ ${#words[@]} -gt 0 ] || continue
		where="$file:$ln"
		if [ ${#words[@]} -lt 4 ]; then
			problems+=("$where: '${words[*]}': a line is NAME ARCH BOOT FRAGMENT... (one fragment at least)")
			continue
		fi
		name=${words[0]} arch=${words[1]} boot=${words[2]}
		frags=("${words[@]:3}")
		# Its cell directory sits beside the step's src, logs and obj-*.
		[[ $name =~ ^[a-z0-9][a-z0-9-]*$ ]] && [[ $name != obj-* ]] &&
			[ "$name" != src ] && [ "$name" != logs ] && [ "$name" != all ] ||
			problems+=("$where: variant name '$name': lower-case letters, digits and -, and not all, src, logs or obj-*")
		[[ $seen != *" $name "* ]] || problems+=("$where: variant $name is listed twice")
		seen+="$name "
		case $arch in
		x86_64 | i386) ;;
		*) problems+=("$where: $name: ARCH is x86_64 or i386, not '$arch'") ;;
		esac
		case $boot in
		yes | no) ;;
		*) problems+=("$where: $name: BOOT is yes or no, not '$boot'") ;;
		esac
		for f in "${frags[@]}"; do
			if ! [[ $f =~ ^[A-Za-z0-9_-]+$ ]]; then
				problems+=("$where: $name: fragment '$f': a name, configs/NAME.config without the directory and .config")
			elif [ ! -f "$TOP/configs/$f.config" ]; then
				problems+=("$where: $name: no configs/$f.config")
			fi
		done
		if [ "$boot" = yes ] && ! p=$(matrix_flavor "$arch" "${frags[@]}"); then
			problems+=("$where: $name: BOOT yes, but $p")
		fi
		out+=("$name $arch $boot ${frags[*]}")
	done <"$file"
	[ ${#out[@]} -gt 0 ] || [ ${#problems[@]} -gt 0 ] || problems+=("$file: no variant listed")
	[ ${#problems[@]} -eq 0 ] || die "the variant table is wrong:" "${problems[@]}"
	printf '%s\n' "${out[@]}"
}

# matrix_settings TABLE-LINES: VARIANTS, MATRIX_TARGETS and BOOT checked,
# all problems in one message, before anything is built or written; then
# check_settings for the rest.  Sets the arrays VARIANT_LINES (the chosen
# variants' table lines, in table order) and TARGETS.
matrix_settings() {
	local table=$1 names w t words=() problems=() nosuch=() want=' ' val=${VARIANTS:-all}
	names=$(cut -d' ' -f1 <<<"$table" | paste -sd' ')
	read -r -a words <<<"${val//,/ }"
	for w in "${words[@]}"; do
		if [ "$w" = all ]; then
			want+="$names "
		elif [[ " $names " == *" $w "* ]]; then
			want+="$w "
		else
			nosuch+=("$w")
		fi
	done
	[ ${#nosuch[@]} -eq 0 ] && [ "$want" != ' ' ] ||
		problems+=("VARIANTS=${VARIANTS:-}: no variant ${nosuch[*]:-named}; variants are $names (configs/matrix) or all, separated by spaces or commas")
	read -r -a TARGETS <<<"${MATRIX_TARGETS:-mm/ vmlinux}"
	[ ${#TARGETS[@]} -gt 0 ] ||
		problems+=("MATRIX_TARGETS is empty: give make targets, e.g. 'mm/ vmlinux' (the default) or mm/")
	for t in "${TARGETS[@]}"; do
		case $t in
		*config | clean | mrproper | distclean | help | -*)
			problems+=("MATRIX_TARGETS=$MATRIX_TARGETS: '$t' is not a build target; give what to build of each cell, e.g. 'mm/ vmlinux' (the default) or mm/")
			;;
		*[!A-Za-z0-9_./-]*)
			problems+=("MATRIX_TARGETS=$MATRIX_TARGETS: '$t' is not a make target; give what to build of each cell, e.g. 'mm/ vmlinux' (the default) or mm/")
			;;
		esac
	done
	case ${BOOT:-0} in
	0 | 1) ;;
	*) problems+=("BOOT=$BOOT: BOOT is 1 (also build and boot the two ends of the variants marked BOOT yes in configs/matrix) or 0 (the default: compile only)") ;;
	esac
	if [ ${#problems[@]} -gt 0 ]; then
		die "${problems[@]}"
	fi
	VARIANT_LINES=()
	while read -r w _; do
		[[ $want != *" $w "* ]] || VARIANT_LINES+=("$(grep "^$w " <<<"$table")")
	done <<<"$table"
	if [ "${BOOT:-0}" = 1 ]; then
		check_settings STEP STEPS JOBS TOPOS TESTS ACCEL MEM SMP BOOT
	else
		check_settings STEP STEPS JOBS BOOT
	fi
}

# The directory of step N (its tree, objects and cells).
step_dir() {
	echo "$MATRIX_DIR/$1${SCRATCH:+-x-$(basename "$SCRATCH" .patch)}"
}

# cell_key N ARCH FRAGMENT...: what a cell's result is valid for: the
# tree (tree_key: BASE, the series, the step, SCRATCH), the architecture,
# the targets and every fragment's name and text.
cell_key() {
	local n=$1 arch=$2 f
	shift 2
	{
		tree_key "$n"
		echo "arch $arch"
		echo "targets ${TARGETS[*]}"
		for f in "$@"; do
			echo "fragment $f"
			cat "$TOP/configs/$f.config"
		done
	} | sha256sum | cut -c1-16
}

# cell_make ARCH SRC OBJ: the make command of a cell, in the array
# CELL_MAKE: ARCH, O=, JOBS, fixed build stamps, and ccache as kbuild.sh
# has it (relative paths from CCACHE_BASEDIR, depend mode) unless
# CCACHE=0.  Exports the ccache settings: call it in the cell's subshell.
cell_make() {
	local arch=$1 src=$2 obj=$3
	CELL_MAKE=(make -C "$src" O="$obj" ARCH="$arch" -j"${JOBS:-$(jobs_default)}"
		KBUILD_BUILD_TIMESTAMP="$(date -u -d @0)"
		KBUILD_BUILD_USER=node-lru KBUILD_BUILD_HOST=matrix)
	if command -v ccache >/dev/null 2>&1 && [ "${CCACHE:-1}" != 0 ]; then
		export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
		export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
		CELL_MAKE+=(CC="ccache gcc")
	fi
}

# cell_configure SRC OBJ LOGS FRAGMENT-FILE...: tinyconfig, the fragments
# merged in order, olddefconfig, with CELL_MAKE (cell_make, for the same
# SRC and OBJ); logs config.log, merge.log, olddefconfig.log in LOGS.  Prints the requested options that
# did not survive (config_lost), one a line, nothing when all did;
# status 1 (and the failing step and its log on stdout) when a step
# failed.
cell_configure() {
	local src=$1 obj=$2 logs=$3
	shift 3
	mkdir -p "$logs" "$obj"
	"${CELL_MAKE[@]}" tinyconfig >"$logs/config.log" 2>&1 ||
		{ echo "tinyconfig failed (log: $logs/config.log)"; return 1; }
	# From the object directory: merge_config.sh makes its temporary files
	# in the current directory, and the tree must stay as mktree.sh made it.
	env -C "$obj" "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "$@" >"$logs/merge.log" 2>&1 ||
		{ echo "merge_config.sh failed (log: $logs/merge.log)"; return 1; }
	"${CELL_MAKE[@]}" olddefconfig >"$logs/olddefconfig.log" 2>&1 ||
		{ echo "olddefconfig failed (log: $logs/olddefconfig.log)"; return 1; }
	config_lost "$obj/.config" "$@"
}

# first_error LOG SRC: the first line of a failed build's LOG that names
# what failed (a compiler error with its file and line, a link error,
# else make's first "***" line), with the tree's path taken off.
first_error() {
	local log=$1 src=$2 line
	line=$(grep -m1 -E ': (fatal )?error: |undefined reference to |multiple definition of |Error [0-9]' "$log" ||
		grep -m1 -F '***' "$log" || echo "no error line; see the log")
	line=${line//$src\//}
	line=${line//..\/src\//}
	echo "$line"
}

# run_cell N VARIANT ARCH FRAGMENT...: configure and build one cell in its
# O= directory; its logs and config in the cell's directory.  Run in a
# subshell: die ends the cell.  On failure, the cell's "detail" file says
# what failed and where its log is.
run_cell() {
	local n=$1 v=$2 arch=$3 dir src obj cdir logs frag_files=() f lost rc t
	shift 3
	dir=$(step_dir "$n")
	src=$dir/src
	obj=$dir/obj-$v
	cdir=$dir/$v
	logs=$cdir
	mkdir -p "$cdir"
	rm -f "$cdir/detail" "$cdir/config"
	for f in "$@"; do
		frag_files+=("$TOP/configs/$f.config")
	done
	# Objects are only reused for the very same tree.
	if [ ! -f "$cdir/obj.key" ] || [ "$(cat "$cdir/obj.key")" != "$(cat "$dir/src.key")" ]; then
		remove_tree "$obj"
	fi
	mkdir -p "$obj"
	cp "$dir/src.key" "$cdir/obj.key"
	cell_make "$arch" "$src" "$obj"

	stage "config: step $n $v (ARCH=$arch tinyconfig + $*)"
	if ! lost=$(cell_configure "$src" "$obj" "$logs" "${frag_files[@]}"); then
		echo "config: $lost" >"$cdir/detail"
		die "step $n $v: $lost"
	fi
	if [ -n "$lost" ]; then
		{
			printf 'config: %s option(s) did not survive olddefconfig: ' "$(grep -c . <<<"$lost")"
			paste -sd';' <<<"$lost"
		} >"$cdir/detail"
		die "requested config options did not survive olddefconfig for step $n $v:" \
			"$lost" "fix configs/ (the fragments of $v in configs/matrix: a missing dependency?)"
	fi
	cp "$obj/.config" "$cdir/config"

	: >"$logs/build.log"
	for t in "${TARGETS[@]}"; do
		stage "build: step $n $v $t (-j${JOBS:-$(jobs_default)}, log $logs/build.log)"
		echo "== make $t" >>"$logs/build.log"
		rc=0
		if [ "${V:-0}" = 1 ]; then
			"${CELL_MAKE[@]}" "$t" 2>&1 | tee -a "$logs/build.log" || rc=$?
		else
			"${CELL_MAKE[@]}" "$t" >>"$logs/build.log" 2>&1 || rc=$?
		fi
		if [ "$rc" -ne 0 ]; then
			tail -n 25 "$logs/build.log" >&2
			echo "make $t: $(first_error "$logs/build.log" "$src")" >"$cdir/detail"
			die "step $n $v: make $t failed: $(first_error "$logs/build.log" "$src")" \
				"log: $logs/build.log"
		fi
	done
}

# The text of a cell in the table, from its result file when it was made
# for KEY: "ok 85 s", "ok 85 s, 3 warnings", "FAIL 12 s"; "-" when the
# cell has no result for KEY.
#   cell_text RESULT-FILE KEY
cell_text() {
	local k res secs warn
	[ -f "$1" ] || { echo -; return; }
	IFS=$'\t' read -r k res secs warn _ <"$1" || true
	[ "$k" = "$2" ] || { echo -; return; }
	case ${warn:-0} in
	0) echo "$res $secs s" ;;
	1) echo "$res $secs s, 1 warning" ;;
	*) echo "$res $secs s, $warn warnings" ;;
	esac
}

# matrix_table STEPS-LINE: build/matrix/summary.tsv, step by variant (the
# chosen ones, VARIANT_LINES), then a boot column per booted variant, then
# the step's subject; and after it, on stderr, one line per failed cell
# with what failed and its log.  Status 1 when a cell or a boot failed
# or has no result.
matrix_table() {
	local steps=$1 n line v arch boot frags row bad=0 summary=$MATRIX_DIR/summary.tsv
	local heads=(step) fails=() all=() text
	mapfile -t all < <(series_patches)
	for line in "${VARIANT_LINES[@]}"; do
		heads+=("${line%% *}")
	done
	if [ "${BOOT:-0}" = 1 ]; then
		for line in "${VARIANT_LINES[@]}"; do
			read -r v arch boot _ <<<"$line"
			[ "$boot" = no ] || heads+=("$v boot (${TOPOS:-uma}: p/f/s)")
		done
	fi
	heads+=(subject)
	mkdir -p "$MATRIX_DIR"
	{
		(
			IFS=$'\t'
			echo "${heads[*]}"
		)
		for n in $steps; do
			row=("$n")
			for line in "${VARIANT_LINES[@]}"; do
				read -r v arch boot frags <<<"$line"
				# shellcheck disable=SC2086 # the fragments are words
				text=$(cell_text "$(step_dir "$n")/$v/result" "$(cell_key "$n" "$arch" $frags)")
				row+=("$text")
				case $text in
				ok*) ;;
				*)
					bad=$((bad + 1))
					fails+=("step $n $v: $(cat "$(step_dir "$n")/$v/detail" 2>/dev/null || echo "no result for this tree and config") (logs: $(step_dir "$n")/$v/)")
					;;
				esac
			done
			if [ "${BOOT:-0}" = 1 ]; then
				for line in "${VARIANT_LINES[@]}"; do
					read -r v arch boot _ <<<"$line"
					[ "$boot" = yes ] || continue
					if [ "$n" -ne 0 ] && [ "$n" -ne "${#all[@]}" ]; then
						row+=(-)
						continue
					fi
					text=$(cut -f2- "$(step_dir "$n")/$v/boot" 2>/dev/null | tr '\t' ' ' || true)
					row+=("${text:--}")
					case $text in
					ok*) ;;
					*)
						bad=$((bad + 1))
						fails+=("step $n $v boot: ${text:-not booted} (runs: $BUILD/runs/matrix-$v-$n-*)")
						;;
					esac
				done
			fi
			if [ "$n" -eq 0 ]; then
				row+=("(rewound tree)")
			else
				row+=("$(patch_subject "$PATCHES/${all[n - 1]}")")
			fi
			(
				IFS=$'\t'
				echo "${row[*]}"
			)
		done
	} >"$summary"
	column -t -s "$(printf '\t')" "$summary" || cat "$summary"
	msg summary "$summary"
	if [ ${#fails[@]} -gt 0 ]; then
		printf 'FAIL %s\n' "${fails[@]}" >&2
	fi
	[ "$bad" -eq 0 ]
}

# boot_ends N VARIANT FRAGMENT...: build step N of VARIANT as a kernel
# (scripts/kbuild.sh, the variant's flavor) and boot it on each of TOPOS
# with TESTS; the result, "key ok|FAIL p/f/s secs", in the cell's "boot"
# file.  A boot that passed for the same kernel, test image, topologies
# and tests is not run again.
boot_end() {
	local n=$1 v=$2 flavor kname key rec oc topo pass=0 fail=0 skip=0 res=ok t0 topos tests
	shift 2
	flavor=$(matrix_flavor x86_64 "$@")
	topos=${TOPOS:-uma}
	tests=${TESTS:-smoke}
	rec=$(step_dir "$n")/$v/boot
	mkdir -p "$(dirname "$rec")"
	t0=$(date +%s)
	if ! "$TOP/scripts/kbuild.sh" "$n" "$flavor"; then
		printf '%s\tFAIL\tkernel build failed (scripts/kbuild.sh %s %s)\n' - "$n" "$flavor" >"$rec"
		return 1
	fi
	kname=$(kernel_name "$n" "$flavor")
	key=$(echo "$(cat "$BUILD/k/$kname/stamp") $INITRD_KEY $topos $tests" | sha256sum | cut -c1-16)
	if [ -f "$rec" ] && [ "$(cut -f1 "$rec")" = "$key" ] && [ "$(cut -f2 "$rec")" = ok ]; then
		msg resume "step $n $v already booted for this kernel: $(cut -f2- "$rec" | tr '\t' ' ')"
		return 0
	fi
	if [ -z "$ACCEL_PICKED" ]; then
		ACCEL_PICKED=$(pick_accel "$BUILD/k/$kname/obj/arch/x86/boot/bzImage") || ACCEL_PICKED=failed
	fi
	local acc=()
	[ "$ACCEL_PICKED" = failed ] || acc=(ACCEL="$ACCEL_PICKED")
	for topo in $topos; do
		env "${acc[@]}" RUN_NAME="matrix-$v-$n-$topo" "$TOP/scripts/qemu-run.sh" "$kname" "$topo" "$tests" || true
		oc=$BUILD/runs/matrix-$v-$n-$topo/outcomes
		if [ ! -s "$oc" ]; then
			# qemu-run stopped before booting (disk space, missing files)
			fail=$((fail + 1))
			continue
		fi
		pass=$((pass + $(grep -c '^PASS ' "$oc" || true)))
		fail=$((fail + $(grep -c '^FAIL ' "$oc" || true)))
		skip=$((skip + $(grep -c '^SKIP ' "$oc" || true)))
	done
	[ "$pass" -gt 0 ] || fail=$((fail + 1))
	[ "$fail" -eq 0 ] || res=FAIL
	printf '%s\t%s\t%s\t%s s\n' "$key" "$res" "$pass/$fail/$skip" "$(($(date +%s) - t0))" >"$rec"
	[ "$res" = ok ]
}

main() {
	local table total steps=() n line v arch boot frags key rec dir t0 rc res cells=0 ran=0 wall0 ok_all
	table=$(matrix_variants "$MATRIX_TABLE") || exit 1
	matrix_settings "$table"
	total=$(series_count)
	mapfile -t steps < <(expand_steps "${STEPS:-${STEP:-0-$total}}" | awk '!seen[$0]++')
	wall0=$(date +%s)
	msg matrix "steps ${steps[*]}; variants $(cut -d' ' -f1 <<<"$(printf '%s\n' "${VARIANT_LINES[@]}")" | paste -sd' '); targets ${TARGETS[*]}"

	for n in "${steps[@]}"; do
		dir=$(step_dir "$n")
		# The cells still to build; a cell whose result is ok for its key
		# is kept, without making the tree again.
		local todo=()
		for line in "${VARIANT_LINES[@]}"; do
			read -r v arch boot frags <<<"$line"
			cells=$((cells + 1))
			rec=$dir/$v/result
			# shellcheck disable=SC2086 # the fragments are words
			key=$(cell_key "$n" "$arch" $frags)
			if [ -f "$rec" ] && [ "$(cut -f1-2 "$rec")" = "$key"$'\t'ok ]; then
				msg resume "step $n $v: $(cell_text "$rec" "$key") earlier"
				continue
			fi
			todo+=("$line")
		done
		[ ${#todo[@]} -gt 0 ] || continue
		t0=$(date +%s)
		if ! "$TOP/scripts/mktree.sh" "$n" "$dir"; then
			for line in "${todo[@]}"; do
				read -r v arch boot frags <<<"$line"
				mkdir -p "$dir/$v"
				echo "tree: scripts/mktree.sh $n failed (log: $dir/logs/tree.log)" >"$dir/$v/detail"
				# shellcheck disable=SC2086 # the fragments are words
				printf '%s\tFAIL\t%s\t0\n' "$(cell_key "$n" "$arch" $frags)" "$(($(date +%s) - t0))" >"$dir/$v/result"
			done
			continue
		fi
		msg tree "step $n: $(($(date +%s) - t0)) s"
		ok_all=1
		for line in "${todo[@]}"; do
			read -r v arch boot frags <<<"$line"
			ran=$((ran + 1))
			# shellcheck disable=SC2086 # the fragments are words
			key=$(cell_key "$n" "$arch" $frags)
			t0=$(date +%s)
			# Not "run_cell || ...": that would turn errexit off inside it.
			set +e
			(
				set -e
				# shellcheck disable=SC2086 # the fragments are words
				run_cell "$n" "$v" "$arch" $frags
			)
			rc=$?
			set -e
			res=ok
			if [ "$rc" -ne 0 ]; then
				res=FAIL
				ok_all=0
				[ -s "$dir/$v/detail" ] || echo "stopped (status $rc)" >"$dir/$v/detail"
			fi
			printf '%s\t%s\t%s\t%s\n' "$key" "$res" "$(($(date +%s) - t0))" \
				"$(grep -c ': warning: ' "$dir/$v/build.log" 2>/dev/null || true)" >"$dir/$v/result"
			msg cell "step $n $v: $(cell_text "$dir/$v/result" "$key")"
		done
		# The disk: a middle step's tree and objects go once its cells
		# passed (1.5 GB a tree); the logs, configs and results stay.
		if [ "$ok_all" = 1 ] && [ "$n" -ne 0 ] && [ "$n" -ne "$total" ]; then
			remove_tree "$dir/src"
			rm -f "$dir/src.key" "$dir/src.state"
			for line in "${todo[@]}"; do
				remove_tree "$dir/obj-${line%% *}"
			done
		fi
	done

	if [ "${BOOT:-0}" = 1 ]; then
		"$TOP/scripts/initramfs.sh"
		INITRD_KEY=$(sha256sum "$BUILD/initramfs/initramfs.cpio.gz" | cut -c1-16)
		ACCEL_PICKED=
		for line in "${VARIANT_LINES[@]}"; do
			read -r v arch boot frags <<<"$line"
			[ "$boot" = yes ] || continue
			for n in "${steps[@]}"; do
				[ "$n" -eq 0 ] || [ "$n" -eq "$total" ] || continue
				stage "boot: step $n $v (${TOPOS:-uma}, ${TESTS:-smoke})"
				# shellcheck disable=SC2086 # the fragments are words
				boot_end "$n" "$v" $frags || true
			done
		done
	fi

	msg matrix "$cells cell(s), $ran built in this run; $(($(date +%s) - wall0)) s of wall time"
	matrix_table "${steps[*]}" || die "the build matrix has failures (above); logs: $MATRIX_DIR/<step>/<variant>/"
}

# Sourced (tests/host/matrix.sh): the functions only.  Run: all of it,
# read by bash before any of it runs.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
	exit
fi
