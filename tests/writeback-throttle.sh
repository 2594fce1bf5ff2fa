#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=full timeout=300 topo=uma order=64 disk=slow
#
# kswapd's writeback stall (issue 30 point 1): when kswapd isolates only
# pages under writeback, the allocation rate outruns the laundering rate
# and kswapd throttles itself: reclaim_throttle(pgdat,
# VMSCAN_THROTTLE_WRITEBACK), seen as the event vmscan:mm_vmscan_throttled
# with reason=VMSCAN_THROTTLE_WRITEBACK (stored as 1 << 0 = 1) in a
# kswapd thread.
#   zone end (step 0): shrink_inactive_list() sets ZONE_WRITEBACK on
#     the zone of the pass when every folio kswapd isolated in a batch was
#     under writeback; later batches of the same pass count folios under
#     writeback marked PG_reclaim as nr_immediate, and shrink_zone()
#     throttles at the end of the pass; kswapd_shrink_zone() clears the
#     flag after the pass (steps 1 and 2: the node's PGDAT_WRITEBACK, set
#     and cleared at the same places);
#   node end (6.1, from "make kswapd reclaim in terms of nodes" on):
#     shrink_node() sets PGDAT_WRITEBACK at the end of a pass whose
#     isolated pages were all under writeback, and it stays until kswapd
#     sleeps; same nr_immediate count and throttle.
# Pass at every step: at least one such event from kswapd (kswapd0 or
# kswapd1; a histogram trigger keyed on common_pid.execname and reason
# counts them).
#
# The load: every page kswapd meets must be dirty or under writeback.
# The page cache is emptied (drop_caches), mlock-hog holds all but 256
# MiB of MemFree, and the dirty limits are lifted (vm.dirty_bytes twice
# MemTotal, so balance_dirty_pages() never throttles the writer and
# every file page may be dirty; vm.dirty_background_bytes 4 MiB, so the
# flushers write from the start); both are put back at exit.  dd then
# streams zeroes into a file, so the file LRU fills with pages in
# the order the flushers write them: kswapd reaches the writeback front
# at the tail, marks what it finds PG_reclaim and activates it, and
# meets it again at the tail while it is still under writeback.
#   phase 1, in the guest alone: 512 MiB to the scratch ext4 (whether
#     the virtio disk is slow enough under TCG is what this phase finds
#     out; its figures are printed either way);
#   phase 2, only when phase 1 saw no kswapd writeback throttle: the
#     slow disk, which scripts/qemu-run.sh attaches for a test with
#     disk=slow in its header (serial nodelru-slow, an ext4 without a
#     journal, writes throttled by QEMU to 4 MiB/s); its queue is cut
#     to 32 requests of at most 256 KiB a hardware queue, so at most
#     some 16 MiB are in flight (removing the file waits for them).  dd
#     writes for at most 50 s.
# Each phase stops as soon as the event is seen; the file is removed at
# once (its dirty pages are dropped unwritten).  Printed per phase: time,
# MiB written, the peaks of nr_dirty and nr_writeback, the kswapd
# writeback throttles, and the moves of nr_vmscan_immediate_reclaim,
# pgrotated, pgscan_kswapd and pgsteal_kswapd; at the end every throttle
# event by task and reason.
# With the multi-gen LRU on, the test skips: 6.1's evict_folios() keeps
# none of the sc->nr counts that the flag and the throttle are made
# from, so kswapd never stalls for writeback there.
# Injected fault: wb-throttle-comm counts the writeback throttles of the
# tasks that are not kswapd instead (there are none without cgroup v1
# reclaim or a WB_SYNC_ALL writeback that runs out of memory, and kernel
# threads other than kswapd return before the event), so the check must
# fail.
# Broken kernel: tests/broken/zone-writeback-flag.patch (the zone end
# never sets ZONE_WRITEBACK) must fail at the zone end.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

ev=/sys/kernel/tracing/events/vmscan/mm_vmscan_throttled
trig='hist:keys=common_pid.execname,reason:vals=hitcount'
out=/tmp/writeback-throttle
slow=/mnt/slow
leave=256

[ -w "$ev/trigger" ] ||
	fail "expected histogram triggers on $ev (CONFIG_HIST_TRIGGERS), saw none"
grep -q 'field:int reason;' "$ev/format" ||
	fail "expected a reason field in $ev/format, saw: $(grep -o 'field:[^;]*' "$ev/format" | tr '\n' ' ')"
grep -q 'VMSCAN_THROTTLE_WRITEBACK' "$ev/format" ||
	fail "expected VMSCAN_THROTTLE_WRITEBACK among the reasons of $ev, saw: $(grep print "$ev/format")"
grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
series_end
lrugen_on
if [ "$lrugen" -eq 1 ]; then
	echo "SKIP: multi-gen LRU on: evict_folios() keeps no sc->nr counts, kswapd never throttles for writeback in 6.1's multi-gen LRU"
	exit 4
fi
which=kswapd
if inject wb-throttle-comm; then
	which=other
fi

ddpid=
files=
sysctls="dirty_ratio dirty_background_ratio dirty_bytes dirty_background_bytes"
for k in $sysctls; do
	eval "saved_$k=\$(cat /proc/sys/vm/$k)"
done
# shellcheck disable=SC2154 # saved_* are set by the eval above
restore() {
	if [ "$saved_dirty_bytes" -ne 0 ]; then
		echo "$saved_dirty_bytes" >/proc/sys/vm/dirty_bytes
	else
		echo "$saved_dirty_ratio" >/proc/sys/vm/dirty_ratio
	fi
	if [ "$saved_dirty_background_bytes" -ne 0 ]; then
		echo "$saved_dirty_background_bytes" >/proc/sys/vm/dirty_background_bytes
	else
		echo "$saved_dirty_background_ratio" >/proc/sys/vm/dirty_background_ratio
	fi
}
cleanup() {
	if [ -n "$ddpid" ]; then
		kill -KILL "$ddpid" 2>/dev/null || true
		wait "$ddpid" 2>/dev/null || true
	fi
	for f in $files; do rm -f "$f"; done
	if grep -q " $slow " /proc/mounts; then umount "$slow" || true; fi
	restore || true
	echo "!$trig" >>"$ev/trigger" 2>/dev/null || true
	hog_release
	rm -f "$out".*
}
trap cleanup EXIT

# The writeback throttles in the histogram of the tasks counted: kswapd
# threads (or, injected, every other task).  Key lines read
# "{ common_pid: kswapd0         [        39], reason:          1 } hitcount: 3".
wb_count() {
	awk -v which="$which" '
		/^\{/ {
			c = $0; sub(/.*common_pid: */, "", c); sub(/ *\[.*/, "", c)
			r = $0; sub(/.*reason: */, "", r); r += 0
			h = $0; sub(/.*hitcount: */, "", h); h += 0
			if (r == 1 && (which == "kswapd") == (c ~ /^kswapd/)) n += h
		}
		END { print n + 0 }' "$ev/hist"
}
# vmstat item or 0 (for the figures only)
vmv() {
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' /proc/vmstat
}

# phase NAME DIR MIB SECONDS: dd MIB MiB of zeroes to DIR in the
# background until it ends, SECONDS pass or the event is seen (looked at
# every 2 s: few forks while memory is short); prints the figures,
# removes the file; sets got (the phase's count).
phase() {
	name=$1
	file=$2/writeback-throttle.dat
	files="$files $file"
	c0=$(wb_count)
	cp /proc/vmstat "$out.before"
	dd if=/dev/zero of="$file" bs=1M count="$3" 2>/dev/null &
	ddpid=$!
	t=0
	pd=0
	pw=0
	got=0
	while kill -0 "$ddpid" 2>/dev/null && [ "$t" -lt "$4" ]; do
		sleep 2
		t=$((t + 2))
		d=$(vmv nr_dirty)
		w=$(vmv nr_writeback)
		if [ "$d" -gt "$pd" ]; then pd=$d; fi
		if [ "$w" -gt "$pw" ]; then pw=$w; fi
		got=$(($(wb_count) - c0))
		if [ "$got" -gt 0 ]; then break; fi
	done
	kill -KILL "$ddpid" 2>/dev/null || true
	wait "$ddpid" 2>/dev/null || true
	ddpid=
	got=$(($(wb_count) - c0))
	size=$(stat -c %s "$file" 2>/dev/null || echo 0)
	cp /proc/vmstat "$out.after"
	start=$(date +%s)
	rm -f "$file"
	echo "$name: ${t}s, $((size >> 20)) MiB written (removed in $(($(date +%s) - start))s); peaks: nr_dirty $pd, nr_writeback $pw pages; $which writeback throttles: $got"
	for k in nr_vmscan_immediate_reclaim pgrotated pgscan_kswapd pgsteal_kswapd pgscan_direct allocstall_normal; do
		dv=$(awk -v k="$k" 'FNR == NR { if ($1 == k) v = $2; next } $1 == k { print $2 - v }' "$out.before" "$out.after")
		[ -z "$dv" ] || echo "  $k +$dv"
	done
}

sync
echo 3 >/proc/sys/vm/drop_caches
total_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
echo $((total_kb * 2048)) >/proc/sys/vm/dirty_bytes
echo $((4 << 20)) >/proc/sys/vm/dirty_background_bytes
echo "kernel $release ($end end); dirty_bytes $(cat /proc/sys/vm/dirty_bytes), dirty_background_bytes $(cat /proc/sys/vm/dirty_background_bytes)"
hog_hold "$leave"
echo "mlock-hog: $hog_said"
echo "$trig" >"$ev/trigger" || fail "could not set the trigger '$trig' on $ev"

phase "phase 1 (scratch disk)" /mnt/scratch $((leave * 2)) 60
n1=$got
n2=0
if [ "$n1" -eq 0 ]; then
	dev=
	for s in /sys/block/vd*/serial; do
		[ -r "$s" ] || continue
		if [ "$(cat "$s")" = nodelru-slow ]; then
			dev=${s%/serial}
			dev=${dev##*/}
		fi
	done
	[ -n "$dev" ] ||
		fail "expected the write-throttled disk (serial nodelru-slow) that scripts/qemu-run.sh attaches for a test with disk=slow, saw none (an initramfs index from before disk=?)"
	mkdir -p "$slow"
	mount -t ext4 "/dev/$dev" "$slow" || fail "mounting /dev/$dev on $slow failed"
	q=/sys/block/$dev/queue
	echo 32 >"$q/nr_requests" || echo "  (could not set $q/nr_requests)"
	echo 256 >"$q/max_sectors_kb" || echo "  (could not set $q/max_sectors_kb)"
	nq=0
	for h in /sys/block/"$dev"/mq/*; do
		if [ -e "$h" ]; then nq=$((nq + 1)); fi
	done
	echo "slow disk /dev/$dev: nr_requests $(cat "$q/nr_requests"), max_sectors_kb $(cat "$q/max_sectors_kb"), $nq hardware queue(s)"
	phase "phase 2 (slow disk)" "$slow" $((leave * 4)) 50
	n2=$got
	umount "$slow" || echo "  (umount $slow failed)"
else
	echo "phase 2 (slow disk) not needed: phase 1 saw the throttle"
fi

echo "mm_vmscan_throttled by task and reason (1 WRITEBACK, 2 ISOLATED, 4 NOPROGRESS, 8 CONGESTED):"
awk '/^\{/ {
	c = $0; sub(/.*common_pid: */, "", c); sub(/ *\].*/, "]", c); gsub(/  */, " ", c)
	r = $0; sub(/.*reason: */, "", r); r += 0
	h = $0; sub(/.*hitcount: */, "", h); h += 0
	printf "  %s reason %d: %d\n", c, r, h
}' "$ev/hist"
n=$((n1 + n2))
[ "$n" -gt 0 ] ||
	fail "expected kswapd to throttle for writeback (mm_vmscan_throttled reason=VMSCAN_THROTTLE_WRITEBACK from kswapd), saw $n ($which: phase 1 $n1, phase 2 $n2)"
echo "ok: $end end: kswapd throttled for writeback $n time(s) (phase 1 $n1, phase 2 $n2)"
