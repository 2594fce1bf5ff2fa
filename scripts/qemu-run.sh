#!/usr/bin/env bash
# Boot one built kernel in QEMU and run guest tests.
#
#   scripts/qemu-run.sh KERNEL TOPO [TESTS]
#
# KERNEL: a directory name under build/k (zone-debug, node-debug, ...).
# TOPO:   uma (q35, DMA + DMA32 + Normal), numa (node 0: DMA + DMA32,
#         node 1: Normal only), movable (uma plus movablecore=); what each
#         gives QEMU and the kernel is in configs/topologies.
# TESTS:  comma-separated tests or sets (default: smoke).
#
# Environment: MEM (MiB, default 3072), SMP (2), ACCEL (auto: kvm when a
# probe VM starts with it, else tcg; or tcg, or kvm), QEMU_TIMEOUT (seconds, default: boot
# allowance plus the selected tests' timeouts), BOOT_TIMEOUT (seconds until
# the guest must have said "KTAP version 1", default 300), RUN_NAME (the
# run directory, default KERNEL-TOPO), KEEP_DISKS=1.
#
# Writes build/runs/KERNEL-TOPO/: console.log, results.ktap, qemu.cmd (a
# pasteable command line), qemu.status (what only the host saw) and
# proc-vmstat and proc-zoneinfo, the guest's /proc files as booted; then
# scripts/classify.sh makes outcomes from them, one "PASS|FAIL|SKIP name
# detail" a line, which scripts/verdict.sh counts, and report.txt after a
# failure.  Exit 0 when nothing failed.
# shellcheck disable=SC2054 # commas inside QEMU options are not separators
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# The whole script is one block: bash reads all of it before running any,
# so editing the file during a long run cannot change what the run does.
{

[ $# -ge 2 ] || die "usage: scripts/qemu-run.sh KERNEL TOPO [TESTS]"
kernel=$1
topo=$2
tests=${3:-smoke}
# Comma-separated on the kernel command line: a space there would end the
# parameter and the guest would run only the first name.
tests=$(tr -s ' ,' ',' <<<"$tests" | sed 's/^,//; s/,$//')
[ -n "$tests" ] || tests=smoke
# Everything is checked before anything is built or written.
TOPOS=$topo TESTS=$tests check_settings TOPOS TESTS ACCEL MEM SMP KERNEL_ARGS
mem=${MEM:-$DEFAULT_MEM}
smp=${SMP:-$DEFAULT_SMP}
topology_args "$topo" "$mem" "$smp" || die "$TOPO_ERROR"
kdir=$BUILD/k/$kernel
bz=$kdir/obj/arch/x86/boot/bzImage
initrd=$BUILD/initramfs/initramfs.cpio.gz
index=$BUILD/initramfs/stage/tests/index
[ -f "$bz" ] || die "no kernel at $bz" "build it first: make kernel STEP=... (or make qemu-test)"
# This run's outcomes start empty before anything that can fail runs
# (module build, tools disk): a run that stops there must not leave the
# previous run's PASS lines to be counted.
rm -f "$BUILD/runs/${RUN_NAME:-$kernel-$topo}/outcomes"
[ -f "$initrd" ] || die "no initramfs at $initrd" "build it first: make initramfs"
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 is not installed" "run 'make deps' as root"

# The test modules, built for this kernel, ride in a second archive.
"$TOP/scripts/modbuild.sh" "$kernel"
# Load generators (stress-ng, fio, bonnie++) on a read-only disk.
"$TOP/scripts/toolsdisk.sh"

run=$BUILD/runs/${RUN_NAME:-$kernel-$topo}
remove_tree "$run"
mkdir -p "$run"
outcomes=$run/outcomes
: >"$outcomes"
label=$kernel/$topo

# What will run, and how long the host waits for it.
sel=$(awk -v want="${tests//,/ }" -v topo="$topo" -f "$TOP/initramfs/select.awk" "$index")
[ -n "$sel" ] || die "no test matches '$tests' on topology $topo" \
	"tests and sets: $(cut -d' ' -f1,2 "$index" | tr '\n' ';')"
# A selected test whose header says disk=slow (the index's sixth column)
# gets a fourth disk whose writes QEMU throttles (below).
slow_disk=$(awk -v sel="$(cut -d' ' -f1 <<<"$sel" | tr '\n' ' ')" '
	BEGIN { n = split(sel, s, " "); for (i = 1; i <= n; i++) want[s[i]] = 1 }
	($1 in want) && $6 == "slow" { f = 1 }
	END { print f + 0 }' "$index")
boot_timeout=${BOOT_TIMEOUT:-300}
budget=$(awk -v b="$boot_timeout" '{ s += $2 + 30 } END { print s + b + 60 }' <<<"$sel")
host_timeout=${QEMU_TIMEOUT:-$budget}

accel=$(pick_accel "$bz")

# Disks: swap (as large as RAM) and the scratch ext4 (twice RAM), sparse
# files: the host holds what the guest wrote to them, not their sizes.
# The scratch disk takes discards (discard=unmap) and the runner trims
# its file system after every test, so the host holds at once what one
# test left there plus the swap written so far: the smoke set on UMA with
# 3072 MiB held at most 2556 MiB untrimmed (every test's blocks stayed in
# the image after it removed its files), 1708 MiB trimmed (1154 MiB of it
# swap, written by pressure-smoke).
# A run needs MEM MiB free to start; one that fills the host's disk all
# the same gets I/O errors in the guest (werror=report, not QEMU's
# default of pausing the guest until the host timeout), and the console
# check fails it with the free space said.
need_kb=$((mem * 1024))
avail_kb=$(df --output=avail -k "$run" | tail -n1)
[ "$avail_kb" -ge "$need_kb" ] ||
	die "$((avail_kb / 1024)) MiB free under $run: a guest of ${mem} MiB needs ${mem} MiB for the swap and scratch it writes" \
		"free disk space (old runs: rm -rf $BUILD/runs; old trees: build/k/*/src.edited-*) or run with a smaller MEM"
[ "$avail_kb" -ge $((need_kb * 3)) ] ||
	msg disk "$((avail_kb / 1024)) MiB free under $run; the guest disks are $((mem * 3)) MiB sparse (a run that fills the host's disk fails on I/O errors)"
# The disks are removed when the run ends, however it ends, unless
# KEEP_DISKS=1 (to inspect the scratch file system after a failure); a
# guest still running then (the run was stopped: TERM, ^C) is stopped.
qpid=
# shellcheck disable=SC2317 # the traps
on_exit() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	[ "${KEEP_DISKS:-0}" = 1 ] || rm -f "$run/swap.img" "$run/scratch.img" "$run/slow.img"
}
trap on_exit EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
cat "$initrd" "$BUILD/mod/$kernel/modules.cpio.gz" >"$run/initrd.img"
truncate -s "${mem}M" "$run/swap.img"
truncate -s "$((mem * 2))M" "$run/scratch.img"
mkfs.ext4 -q -F -L scratch "$run/scratch.img" >/dev/null 2>"$run/mkfs.log" ||
	die "mkfs.ext4 of the scratch disk failed" "log: $run/mkfs.log"

# oops=panic: after a BUG or an Oops the guest cannot be trusted and often
# hangs (a dead kswapd holding a page lock), so it stops at once instead
# of running into the host timeout; the console keeps the first report.
append="console=ttyS0 panic=-1 oops=panic loglevel=6 nodelru.topo=$topo nodelru.tests=$tests"
[ -z "${INJECT:-}" ] || append="$append nodelru.inject=$INJECT"
[ "${QUICK:-0}" != 1 ] || append="$append nodelru.quick=1"
[ -z "${SHUFFLE:-}" ] || append="$append nodelru.shuffle=$SHUFFLE"
# Extra kernel arguments for every boot (cgroup_disable=memory, ...).
[ -z "${KERNEL_ARGS:-}" ] || append="$append $KERNEL_ARGS"
# One socket per CPU, so that a NUMA node never splits a cache domain.
qemu=(qemu-system-x86_64 -M q35 -accel "$accel" -m "${mem}M"
	-smp "$smp,sockets=$smp,cores=1,threads=1"
	-kernel "$bz" -initrd "$run/initrd.img"
	-display none -monitor none -no-reboot
	-serial "file:$run/console.log" -serial "file:$run/results.ktap"
	-drive "file=$run/swap.img,format=raw,if=virtio,cache=unsafe,werror=report,rerror=report"
	-drive "file=$run/scratch.img,format=raw,if=virtio,cache=unsafe,discard=unmap,werror=report,rerror=report"
	-drive "file=$BUILD/tools-disk/tools.img,format=raw,if=virtio,readonly=on"
	-device isa-debug-exit,iobase=0xf4,iosize=0x04)
# The slow disk (disk=slow in a test's header): an ext4 without a journal
# (its inode tables written here, so that no ext4lazyinit thread writes
# them at the guest's 4 MiB/s) on a sparse file of 1 GiB, writes
# throttled by QEMU to 4 MiB/s
# (bps_wr), so that pages stay under writeback for seconds (a guest test
# cannot slow a virtio disk itself: no device-mapper, no blk-throttle in
# the test kernels).  Found in the guest by its serial, nodelru-slow
# (/sys/block/vdX/serial), mounted by the test that asked for it; it
# holds no more than 4 MiB for each second the guest wrote to it.  Its
# PCI slot (0x10) comes after the if=virtio disks' automatic ones, so
# that the guest still finds swap on vda and the scratch disk on vdb (an
# automatic slot for it came first and made it vda).
if [ "$slow_disk" = 1 ]; then
	truncate -s 1024M "$run/slow.img"
	mkfs.ext4 -q -F -O ^has_journal -E lazy_itable_init=0 -L slow "$run/slow.img" \
		>/dev/null 2>"$run/mkfs-slow.log" ||
		die "mkfs.ext4 of the slow disk failed" "log: $run/mkfs-slow.log"
	qemu+=(-drive "file=$run/slow.img,format=raw,if=none,id=slow,cache=unsafe,werror=report,rerror=report,bps_wr=$((4 << 20))"
		-device virtio-blk-pci,drive=slow,serial=nodelru-slow,addr=0x10)
fi
# The topology's own arguments (configs/topologies).
qemu+=("${TOPO_QEMU[@]}")
[ ${#TOPO_KERNEL[@]} -eq 0 ] || append="$append ${TOPO_KERNEL[*]}"
qemu+=(-append "$append")
{
	printf '# %s on %s, tests %s; host timeout %ss\n' "$kernel" "$topo" "$tests" "$host_timeout"
	printf '%q ' "${qemu[@]}"
	echo
} >"$run/qemu.cmd"
# What only the host knows, for scripts/classify.sh (the rest is added
# when the guest has stopped).
{
	echo "kernel $kernel"
	echo "topo $topo"
	echo "tests $tests"
	echo "selected $(cut -d' ' -f1 <<<"$sel" | paste -sd' ')"
	echo "boot-timeout $boot_timeout"
	echo "host-timeout $host_timeout"
	echo "reproduce TESTS=$tests${INJECT:+ INJECT=$INJECT} MEM=$mem SMP=$smp ACCEL=$accel KEEP_DISKS=1 scripts/qemu-run.sh $kernel $topo $tests"
} >"$run/qemu.status"

stage "boot: $label (tests: $tests; $accel, ${mem} MiB, host timeout ${host_timeout}s)"
start=$(date +%s)
timeout -k 10 "$host_timeout" "${qemu[@]}" >"$run/qemu.out" 2>&1 &
qpid=$!
booted=0
boot_s=0
shown=0
bootfail=0
while kill -0 "$qpid" 2>/dev/null; do
	sleep 2
	if [ "$booted" = 0 ]; then
		if grep -q '^KTAP version 1' "$run/results.ktap" 2>/dev/null; then
			booted=1
			boot_s=$(($(date +%s) - start))
			msg booted "after $boot_s s"
		elif [ $(($(date +%s) - start)) -ge "$boot_timeout" ]; then
			bootfail=1
			kill "$qpid" 2>/dev/null || true
			break
		fi
	fi
	# Progress: the result lines as they arrive.
	n=$(grep -cE '^(not )?ok ' "$run/results.ktap" 2>/dev/null || true)
	if [ "${n:-0}" -gt "$shown" ]; then
		grep -E '^(not )?ok ' "$run/results.ktap" | tr -d '\r' |
			sed -n "$((shown + 1)),\$p" | sed 's/^/  /' >&2
		shown=$n
	fi
done
rc=0
wait "$qpid" || rc=$?
qpid=
took=$(($(date +%s) - start))
tr -d '\r' <"$run/results.ktap" >"$run/results.tmp" && mv "$run/results.tmp" "$run/results.ktap"
# proc-vmstat and proc-zoneinfo: the guest's /proc files as booted, for
# scripts/abi-table.sh.
save_proc_files "$run"
touch "$run/console.log"
{
	echo "exit $rc"
	echo "boot-timed-out $bootfail"
	echo "free-mib $(($(df --output=avail -k "$run" | tail -n1) / 1024))"
} >>"$run/qemu.status"

# The outcomes, the title and report.txt, from the files above alone.
crc=0
verdict=$("$TOP/scripts/classify.sh" "$run") || crc=$?
[ "$crc" -le 1 ] || die "scripts/classify.sh could not classify $run"

# Phase times, for qemu-test's summary line.
if [ "$booted" = 1 ]; then
	echo "$label boot $boot_s tests $((took - boot_s))" >"$run/times"
else
	echo "$label boot $took tests 0" >"$run/times"
fi
msg "done" "$label in ${took}s (boot ${boot_s}s, QEMU exit $rc); log: $run/console.log"
# The runner's "# took NAME Ns" lines: where the time went.
slowest=$(awk '/^# took / { t = $4; sub(/s$/, "", t); print t, $3 }' "$run/results.ktap" |
	sort -rn | head -n 5 | awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1 }')
[ -z "$slowest" ] || msg slowest "$slowest"
if [ "$crc" = 1 ]; then
	grep '^FAIL ' "$run/outcomes" | sed 's/^/  /' >&2
	msg report "${verdict#* }"
	msg ""     "$run/report.txt"
	exit 1
fi
exit 0
}
