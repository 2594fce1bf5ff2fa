#!/usr/bin/env bash
# Build, boot and test kernels of the series; print one verdict.
#
# Environment (all optional):
#   STEP    one step only: zone, node, all or N (default: both ends)
#   FLAVOR  debug (default) or bench
#   TOPOS   topologies, default "uma numa" (also: movable)
#   TESTS   tests or sets for the guest, default smoke
#   RERUN=1 boot what is built, without checking the trees and builds;
#           stops before anything runs if a kernel is not built (make run)
#   GUESTS  guests booted at once (default auto: CPUs/SMP, since a guest
#           can keep SMP host CPUs busy under TCG (one thread a vCPU) as
#           under KVM, and no more than the free memory holds); the
#           kernels are built first, then every kernel x topology boots,
#           GUESTS at a time, each line of a guest's output prefixed with
#           its kernel/topology when more than one runs.  Measured on 2
#           CPUs with SMP=2: two smoke boots side by side took 525 and
#           572 s, against 270 and 329 s one after the other
# (and ACCEL, MEM, SMP, ... for scripts/qemu-run.sh: scripts/settings.tsv).
# Every setting is checked before anything is built or written.
# The last line is "qemu-test: N passed, N failed, N skipped"; the exit
# status is non-zero exactly when something failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
check_settings

flavor=${FLAVOR:-debug}
topos=${TOPOS:-uma numa}
tests=${TESTS:-smoke}
if [ -n "${STEP:-}" ]; then
	steps=$STEP
else
	steps="zone node"
fi

# How many guests at once: GUESTS, or auto (see above).
guests_at_once() {
	local cpus mem avail g
	case ${GUESTS:-auto} in
	auto)
		cpus=$(nproc)
		mem=${MEM:-$DEFAULT_MEM}
		g=$((cpus / ${SMP:-$DEFAULT_SMP}))
		avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
		[ "$g" -le $((avail / (mem + 512))) ] || g=$((avail / (mem + 512)))
		[ "$g" -ge 1 ] || g=1
		echo "$g"
		;;
	*) echo "$GUESTS" ;;
	esac
}

# One guest: qemu-run, then the outcome a runner that stopped before its
# verdict leaves.  $1 kernel, $2 topo, $3 label prefix ("" for none).
boot_one() {
	local kernel=$1 topo=$2 prefix=$3 out rc=0
	out=$BUILD/runs/$kernel-$topo/outcomes
	if [ -z "$prefix" ]; then
		"$TOP/scripts/qemu-run.sh" "$kernel" "$topo" "$tests" || rc=$?
	else
		{
			"$TOP/scripts/qemu-run.sh" "$kernel" "$topo" "$tests" 2>&1 || rc=$?
			echo "$rc" >"$BUILD/runs/$kernel-$topo.rc"
		} | sed -u "s#^#$prefix #" >&2
		rc=$(cat "$BUILD/runs/$kernel-$topo.rc" 2>/dev/null || echo 1)
		rm -f "$BUILD/runs/$kernel-$topo.rc"
	fi
	# A runner that stopped before its verdict is a failure too.
	if [ "$rc" != 0 ] && ! grep -qs '^FAIL ' "$out"; then
		mkdir -p "$(dirname "$out")"
		echo "FAIL $kernel/$topo/runner scripts/qemu-run.sh exited $rc without a verdict (its messages are above)" >>"$out"
	fi
}

# Guests still running when qemu-test is stopped (^C) are stopped too:
# background jobs of a script ignore SIGINT.
# shellcheck disable=SC2317 # the trap
stop_guests() {
	local p
	for p in $(jobs -p); do
		killtree "$p"
	done
	exit 130
}

main() {
	local t0 t list s kernel bo topo out times=() unbuilt=() built=() jobs=()
	local guests=1 accel=tcg j pid running=0
	# An old run list is emptied before anything can stop this run.
	list=$BUILD/runs/qemu-test.list
	[ ! -f "$list" ] || : >"$list"
	case ${GUESTS:-auto} in
	auto | [1-9] | [1-9][0-9]) ;;
	*) die "GUESTS=$GUESTS: GUESTS is the number of guests booted at once, 1 to 99, or auto (CPUs/SMP)" ;;
	esac
	if [ "${RERUN:-0}" = 1 ]; then
		for s in $steps; do
			kernel=$(kernel_name "$s" "$flavor")
			[ -f "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ] ||
				unbuilt+=("$kernel (no $BUILD/k/$kernel/obj/arch/x86/boot/bzImage): make kernel STEP=$s FLAVOR=$flavor${SCRATCH:+ SCRATCH=$SCRATCH}")
		done
		[ ${#unbuilt[@]} -eq 0 ] ||
			die "make run (RERUN=1) boots kernels as they are built and builds none; not built:" \
				"${unbuilt[@]}" "(or make qemu-test${STEP:+ STEP=\"$STEP\"} builds what is missing, then boots)"
	fi
	# The run list starts empty before anything that can fail runs, so
	# that no verdict is ever made of the previous run's outcomes.
	mkdir -p "$BUILD/runs"
	: >"$list"
	t0=$(date +%s)
	"$TOP/scripts/initramfs.sh"
	times+=("initramfs $(($(date +%s) - t0))s")
	for s in $steps; do
		kernel=$(kernel_name "$s" "$flavor")
		bo=$BUILD/runs/$kernel-build.outcomes
		rm -f "$bo"
		echo "$bo" >>"$list"
		t=$(date +%s)
		if [ "${RERUN:-0}" = 1 ] && [ -f "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ]; then
			msg kernel "$kernel (as built, RERUN=1)"
		elif ! "$TOP/scripts/kbuild.sh" "$s" "$flavor"; then
			echo "FAIL $kernel/build see $BUILD/k/$kernel/logs" >"$bo"
			times+=("$kernel tree+build $(($(date +%s) - t))s (failed)")
			continue
		fi
		echo "PASS $kernel/build" >"$bo"
		times+=("$kernel tree+build $(($(date +%s) - t))s")
		built+=("$kernel")
	done
	for kernel in "${built[@]}"; do
		for topo in $topos; do
			out=$BUILD/runs/$kernel-$topo/outcomes
			rm -f "$out"
			echo "$out" >>"$list"
			jobs+=("$kernel $topo")
		done
	done
	# When the accelerator cannot be had (ACCEL=kvm without /dev/kvm), the
	# guests run one at a time and each run reports it as its failure.
	if [ ${#jobs[@]} -gt 0 ] &&
		accel=$(pick_accel "$BUILD/k/${built[0]}/obj/arch/x86/boot/bzImage"); then
		guests=$(guests_at_once)
		[ "$guests" -le ${#jobs[@]} ] || guests=${#jobs[@]}
	fi
	t=$(date +%s)
	if [ ${#jobs[@]} -gt 0 ] && [ "$guests" -gt 1 ]; then
		msg guests "${#jobs[@]} boots, $guests at a time ($accel, $(nproc) CPUs; GUESTS=1 for one at a time)"
		# What the runs share is made once, before they start.
		for kernel in "${built[@]}"; do
			"$TOP/scripts/modbuild.sh" "$kernel" || true
		done
		"$TOP/scripts/toolsdisk.sh" || true
		export ACCEL=$accel
		trap stop_guests INT TERM
		for j in "${jobs[@]}"; do
			if [ "$running" -ge "$guests" ]; then
				wait -n || true
				running=$((running - 1))
			fi
			read -r kernel topo <<<"$j"
			boot_one "$kernel" "$topo" "[$kernel/$topo]" &
			running=$((running + 1))
		done
		for pid in $(jobs -p); do
			wait "$pid" || true
		done
		trap - INT TERM
	else
		for j in "${jobs[@]}"; do
			read -r kernel topo <<<"$j"
			boot_one "$kernel" "$topo" ""
		done
	fi
	for j in "${jobs[@]}"; do
		read -r kernel topo <<<"$j"
		if [ -f "$BUILD/runs/$kernel-$topo/times" ]; then
			read -r _ _ b _ tt <"$BUILD/runs/$kernel-$topo/times"
			times+=("$kernel/$topo boot ${b}s tests ${tt}s")
		fi
	done
	[ ${#jobs[@]} -eq 0 ] || times+=("boots $(($(date +%s) - t))s of wall time, ${guests:-1} at a time")
	msg time "$(($(date +%s) - t0)) s in all: $(printf '%s; ' "${times[@]}" | sed 's/; $//')"
	mapfile -t files <"$list"
	exec "$TOP/scripts/verdict.sh" "${files[@]}"
}

# All of the script is read before it runs, so editing it during a long
# run cannot change what the run does.
main "$@"
