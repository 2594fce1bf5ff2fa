#!/usr/bin/env bash
# Build, boot and test kernels of the series; print one verdict.
#
# Environment (all optional):
#   STEP    the steps to build and boot instead of the two ends: zone,
#           node, all, N or a range A-B, several separated by spaces
#   FLAVOR  debug (default) or bench
#   TOPOS   topologies, default "uma numa" (also: movable)
#   TESTS   tests or sets for the guest, default smoke
#   RERUN=1 boot what is built, without checking the trees and builds;
#           stops before anything runs if a kernel is not built (make run)
#   GUESTS  guests booted at once (default auto: CPUs/SMP, since a guest
#           can keep SMP host CPUs busy under TCG (one thread a vCPU) as
#           under KVM, and no more than the free memory holds, nor the
#           free disk at MEM MiB a guest); the kernels are built first,
#           then every kernel x topology boots, GUESTS at a time, each
#           line of a guest's output prefixed with its kernel/topology
#           when more than one runs.  Measured on 2
#           CPUs with SMP=2: two smoke boots side by side took 525 and
#           572 s, against 270 and 329 s one after the other
#   OVERLAP 1: build the next kernel (at nice 10, with the CPUs beyond
#           the vCPUs of the guests booted at once, at least one) while
#           the one before it boots; 0: build
#           all, then boot; auto (default): 1 from 4 CPUs up
#   MGLRU   1: also the multi-gen LRU kernel, the node end with FLAVOR
#           plus configs/mglru.config (node-debug+mglru by default), built
#           and booted on the same topologies with the same tests after
#           the others; 0 (default): the two ends (or STEP) alone
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
	# A range A-B stands for its steps, by number (check_settings has
	# checked every word).
	steps=
	for w in $STEP; do
		case $w in
		*-*) steps+=" $(expand_steps "$w" | paste -sd' ')" ;;
		*) steps+=" $w" ;;
		esac
	done
else
	steps="zone node"
fi
# The kernels to build and boot, "STEP FLAVOR" each: the steps with
# FLAVOR, then with MGLRU=1 the node end with the multi-gen LRU on (the
# last step has no LRU_GEN fence, so no SCRATCH is needed).
builds=()
for s in $steps; do
	builds+=("$s $flavor")
done
[ "${MGLRU:-0}" != 1 ] || builds+=("node $flavor+mglru")
# kname "STEP FLAVOR": the kernel's build/k name.
kname() { kernel_name "${1% *}" "${1#* }"; }

# How many guests at once: GUESTS, or auto (see above).
guests_at_once() {
	local cpus mem avail disk g
	case ${GUESTS:-auto} in
	auto)
		cpus=$(nproc)
		mem=${MEM:-$DEFAULT_MEM}
		g=$((cpus / ${SMP:-$DEFAULT_SMP}))
		avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
		[ "$g" -le $((avail / (mem + 512))) ] || g=$((avail / (mem + 512)))
		# and no more than the disk holds: MEM MiB each (qemu-run.sh).
		mkdir -p "$BUILD/runs"
		disk=$(df --output=avail -m "$BUILD/runs" | tail -n1)
		[ "$g" -le $((disk / mem)) ] || g=$((disk / mem))
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
# shellcheck disable=SC2317 # the traps
stop_jobs() {
	local p
	for p in $(jobs -p); do
		killtree "$p"
	done
}
# shellcheck disable=SC2317 # the trap
stop_guests() {
	stop_jobs
	exit 130
}

# Build $1, "STEP FLAVOR" (STEP zone, node or N); its outcome goes to
# build/runs/KERNEL-build.outcomes and its time to the times file.
build_step() {
	local s=${1% *} f=${1#* } kernel bo t
	kernel=$(kname "$1")
	bo=$BUILD/runs/$kernel-build.outcomes
	t=$(date +%s)
	if [ "${RERUN:-0}" = 1 ] && [ -f "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ]; then
		msg kernel "$kernel (as built, RERUN=1)"
	elif ! "$TOP/scripts/kbuild.sh" "$s" "$f"; then
		echo "FAIL $kernel/build see $BUILD/k/$kernel/logs" >"$bo"
		echo "$kernel tree+build $(($(date +%s) - t))s (failed)" >>"$times_file"
		return
	fi
	echo "PASS $kernel/build" >"$bo"
	echo "$kernel tree+build $(($(date +%s) - t))s" >>"$times_file"
}

# Boot kernels $@ on every topology, GUESTS at a time.
boot_kernels() {
	local kernel topo out j pid running=0 jobs=() t
	for kernel in "$@"; do
		grep -qs '^PASS ' "$BUILD/runs/$kernel-build.outcomes" || continue
		for topo in $topos; do
			out=$BUILD/runs/$kernel-$topo/outcomes
			rm -f "$out"
			echo "$out" >>"$list"
			jobs+=("$kernel $topo")
		done
	done
	[ ${#jobs[@]} -gt 0 ] || return 0
	# The accelerator once; when it cannot be had (ACCEL=kvm without
	# /dev/kvm), the guests run one at a time and each run reports it.
	if [ -z "$accel" ]; then
		if accel=$(pick_accel "$BUILD/k/${jobs[0]%% *}/obj/arch/x86/boot/bzImage"); then
			guests=$(guests_at_once)
		else
			accel=failed guests=1
		fi
	fi
	t=$(date +%s)
	if [ "$guests" -gt 1 ] && [ ${#jobs[@]} -gt 1 ]; then
		msg guests "${#jobs[@]} boots, up to $guests at a time ($accel, $(nproc) CPUs; GUESTS=1 for one at a time)"
		# What the runs share is made once, before they start.
		for j in "${jobs[@]}"; do
			[ "${j#* }" != "${topos%% *}" ] || "$TOP/scripts/modbuild.sh" "${j%% *}" || true
		done
		"$TOP/scripts/toolsdisk.sh" || true
		for j in "${jobs[@]}"; do
			if [ "$running" -ge "$guests" ]; then
				wait -n "${guest_pids[@]}" 2>/dev/null || true
				running=$((running - 1))
			fi
			read -r kernel topo <<<"$j"
			ACCEL=$accel boot_one "$kernel" "$topo" "[$kernel/$topo]" &
			guest_pids+=("$!")
			running=$((running + 1))
		done
		for pid in "${guest_pids[@]}"; do
			wait "$pid" || true
		done
		guest_pids=()
	else
		# The accelerator picked above goes down too (qemu-run.sh would
		# otherwise pick, and say so, once more for every boot).
		for j in "${jobs[@]}"; do
			read -r kernel topo <<<"$j"
			if [ "$accel" = failed ]; then
				boot_one "$kernel" "$topo" ""
			else
				ACCEL=$accel boot_one "$kernel" "$topo" ""
			fi
		done
	fi
	for j in "${jobs[@]}"; do
		read -r kernel topo <<<"$j"
		if [ -f "$BUILD/runs/$kernel-$topo/times" ]; then
			read -r _ _ b _ tt <"$BUILD/runs/$kernel-$topo/times"
			echo "$kernel/$topo boot ${b}s tests ${tt}s" >>"$times_file"
		fi
	done
	echo "boots of $* $(($(date +%s) - t))s of wall time" >>"$times_file"
}

# Shared by the functions above: the accelerator and guests at once
# (decided at the first boot), the run list and the times file.
accel=
guests=1
guest_pids=()
list=
times_file=

main() {
	local t0 b kernel unbuilt=() steps_a=() kernels=() i n overlap bg_pid bg_log bg_rc bg_jobs g n_topos again
	# An old run list is emptied before anything can stop this run.
	list=$BUILD/runs/qemu-test.list
	[ ! -f "$list" ] || : >"$list"
	case ${GUESTS:-auto} in
	auto | [1-9] | [1-9][0-9]) ;;
	*) die "GUESTS=$GUESTS: GUESTS is the number of guests booted at once, 1 to 99, or auto (CPUs/SMP)" ;;
	esac
	overlap=0
	! overlap_on || overlap=1
	if [ "${RERUN:-0}" = 1 ]; then
		overlap=0
		declare -A seen=()
		for b in "${builds[@]}"; do
			kernel=$(kname "$b")
			[ -z "${seen[$kernel]:-}" ] || continue
			seen[$kernel]=1
			[ -f "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ] ||
				unbuilt+=("$kernel (no $BUILD/k/$kernel/obj/arch/x86/boot/bzImage): make kernel STEP=${b% *} FLAVOR=${b#* }${SCRATCH:+ SCRATCH=$SCRATCH}")
		done
		again="make qemu-test${STEP:+ STEP=\"$STEP\"}"
		[ "${MGLRU:-0}" != 1 ] || again+=" MGLRU=1"
		[ ${#unbuilt[@]} -eq 0 ] ||
			die "make run (RERUN=1) boots kernels as they are built and builds none; not built:" \
				"${unbuilt[@]}" "(or $again builds what is missing, then boots)"
	fi
	# The run list starts empty before anything that can fail runs, so
	# that no verdict is ever made of the previous run's outcomes.
	mkdir -p "$BUILD/runs"
	: >"$list"
	trap stop_guests INT TERM
	# A failure of this script itself stops what runs in the background.
	trap stop_jobs EXIT
	times_file=$BUILD/runs/qemu-test.times
	: >"$times_file"
	t0=$(date +%s)
	"$TOP/scripts/initramfs.sh"
	echo "initramfs $(($(date +%s) - t0))s" >>"$times_file"
	# Each kernel once (STEP="0 zone" names one kernel twice).
	declare -A named=()
	for b in "${builds[@]}"; do
		kernel=$(kname "$b")
		[ -z "${named[$kernel]:-}" ] || continue
		named[$kernel]=1
		steps_a+=("$b")
	done
	for b in "${steps_a[@]}"; do
		kernel=$(kname "$b")
		rm -f "$BUILD/runs/$kernel-build.outcomes"
		echo "$BUILD/runs/$kernel-build.outcomes" >>"$list"
	done
	n=${#steps_a[@]}
	if [ "$overlap" = 0 ]; then
		for b in "${steps_a[@]}"; do
			build_step "$b"
		done
		for b in "${steps_a[@]}"; do
			kernels+=("$(kname "$b")")
		done
		boot_kernels "${kernels[@]}"
	else
		# Each next kernel builds (at nice 10, with the CPUs beyond the
		# guests' vCPUs: as many guests as boot at once, no more than the
		# topologies of one kernel) while the one before it boots.
		g=$(guests_at_once)
		n_topos=$(wc -w <<<"$topos")
		[ "$g" -le "$n_topos" ] || g=$n_topos
		bg_jobs=$(bg_jobs_default "$g")
		build_step "${steps_a[0]}"
		for ((i = 0; i < n; i++)); do
			bg_pid=
			if [ $((i + 1)) -lt "$n" ]; then
				bg_log=$BUILD/runs/$(kname "${steps_a[i + 1]}")-build.log
				msg overlap "building $(kname "${steps_a[i + 1]}") while $(kname "${steps_a[i]}") boots (log: $bg_log)"
				(
					renice -n 10 -p "$BASHPID" >/dev/null || true
					JOBS=$bg_jobs
					export JOBS
					build_step "${steps_a[i + 1]}"
				) >"$bg_log" 2>&1 &
				bg_pid=$!
			fi
			boot_kernels "$(kname "${steps_a[i]}")"
			if [ -n "$bg_pid" ]; then
				bg_rc=0
				wait "$bg_pid" || bg_rc=$?
				stage "build of $(kname "${steps_a[i + 1]}") (ran while the kernel before it booted)"
				cat "$bg_log" >&2
				[ "$bg_rc" -eq 0 ] || msg overlap "the background build exited $bg_rc"
				msg build "$(cat "$BUILD/runs/$(kname "${steps_a[i + 1]}")-build.outcomes" 2>/dev/null || echo "no outcome written")"
			fi
		done
	fi
	msg time "$(($(date +%s) - t0)) s in all: $(paste -sd';' "$times_file" | sed 's/;/; /g')"
	mapfile -t files <"$list"
	exec "$TOP/scripts/verdict.sh" "${files[@]}"
}

# All of the script is read before it runs, so editing it during a long
# run cannot change what the run does.
main "$@"
