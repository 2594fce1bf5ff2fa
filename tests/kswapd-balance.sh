#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=full timeout=420 topo=all order=59
#
# How far kswapd balances a node before it sleeps, and that it rests then.
# A sparse file of 5/4 of MemTotal (MemTotal in kB x 1280 bytes) is read
# on CPU 0 (node 0 on numa; holes read into clean page cache without disk
# I/O), so that page cache fills node 0 and kswapd has been at work.  Then
# another such file is read until kswapd0 is woken, and the reader is
# stopped at once, so that kswapd finishes on a node where nothing else
# allocates (see the comment at the round loop).  When kswapd0's last
# trace event is mm_vmscan_kswapd_sleep (gone fully to sleep, not only
# napped) and stays so, the per-cpu counters are folded (vm.stat_refresh)
# and each zone of node 0 with managed pages and pages on its evictable
# LRU lists is read from /proc/zoneinfo:
#   before "mm, vmscan: make kswapd reclaim in terms of nodes" (the zone
#     end and the first steps): every such zone has free >= high.  kswapd
#     balances every zone up to the one it works for (4.7's
#     pgdat_balanced() for order 0), each toward high plus the balance gap
#     min(low, managed/100); how many zones ended above high + gap is
#     printed, not checked (kswapd stops at high for all of them);
#   from that patch on (the node end): at least one such zone has free >=
#     high (a node is balanced when any eligible zone is).
# The pgskip_* events of the read count pages that an isolation pass
# stepped over because they belong to another zone:
#   before "mm, vmscan: move LRU lists to node" (the zone end): every
#     zone has its own lists, there is nothing to step over, and every
#     pgskip_* moves by 0;
#   from that patch on they are printed (per-zone passes over the node's
#     lists step over other zones' pages; at the node end page cache
#     reclaim is for the highest zone and skips nothing).
# Then the guest idles for 10 s, and kswapd must rest: its CPU time
# (utime + stime of /proc/PID/stat) grows by at most 1 s, node 0 is not
# marked unreclaimable (node_unreclaimable 0: kswapd_failures below
# MAX_RECLAIM_RETRIES), and no zone keeps a watermark boost.
# Injected fault: kswapd-balance-mark raises each zone's mark by its
# managed pages, a mark no zone can meet, so the check must fail at every
# step.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

tr=/sys/kernel/tracing
ev=$tr/events/vmscan
[ -w "$ev/mm_vmscan_kswapd_sleep/enable" ] ||
	fail "expected the mm_vmscan_kswapd_sleep trace event in $ev, saw none"
grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
series_end
pid=
for c in /proc/[0-9]*/comm; do
	[ "$(cat "$c" 2>/dev/null)" = kswapd0 ] || continue
	pid=${c#/proc/}
	pid=${pid%/comm}
	break
done
[ -n "$pid" ] || fail "expected a kswapd0 thread, saw none"
sparse=/mnt/scratch/kswapd-balance.sparse
reader=
cleanup() {
	[ -z "$reader" ] || kill "$reader" 2>/dev/null || true
	echo 0 >"$ev/mm_vmscan_kswapd_sleep/enable" 2>/dev/null || true
	echo 0 >"$ev/mm_vmscan_kswapd_wake/enable" 2>/dev/null || true
	: >"$tr/trace" 2>/dev/null || true
	rm -f "$sparse" "$sparse".* /tmp/kswapd-balance.vmstat
}
trap cleanup EXIT

: >"$tr/trace"
cp /proc/vmstat /tmp/kswapd-balance.vmstat
echo 1 >"$ev/mm_vmscan_kswapd_wake/enable"
echo 1 >"$ev/mm_vmscan_kswapd_sleep/enable"
total_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
truncate -s "$((total_kb * 1280))" "$sparse"
echo 3 >/proc/sys/vm/drop_caches
taskset 1 cat "$sparse" >/dev/null || fail "reading the sparse file failed"
wakes=$(grep -c 'mm_vmscan_kswapd_wake' "$tr/trace" || true)
[ "$wakes" -gt 0 ] || fail "expected kswapd to be woken while reading $((total_kb * 5 / 4 / 1024)) MiB of page cache, saw no mm_vmscan_kswapd_wake"

# The zones after that read are wherever the allocations left them: the
# allocator wakes kswapd only when every eligible zone is below its low
# watermark, and keeps allocating from the zones above it while kswapd
# sleeps.  So the state kswapd leaves behind is taken from a quiet node:
# another sparse file is read until kswapd is woken, the reader is
# stopped at once, a marker goes into the trace, and kswapd must still be
# awake at the marker (its last event before it is a wakeup; if it is a
# sleep, kswapd finished while the reader ran, and the round is made
# again with a new file).  kswapd then finishes with nothing allocating,
# and its next sleep leaves the zones as they are read below.
# kswapd0's last wake/sleep event (before the marker with "before").
last() {
	awk -v stop="${1:-}" '
		stop != "" && /nodelru: reader stopped/ { exit }
		/mm_vmscan_kswapd_(wake|sleep): nid=0/ { l = ($0 ~ /kswapd_sleep/) ? "sleep" : "wake" }
		END { print l }' "$tr/trace"
}
round=0
while :; do
	round=$((round + 1))
	[ "$round" -le 5 ] ||
		fail "expected kswapd0 to be still at work when the reader stopped in one of 5 rounds, it had always gone to sleep already"
	: >"$tr/trace"
	truncate -s "$((total_kb * 1280))" "$sparse.$round"
	taskset 1 cat "$sparse.$round" >/dev/null &
	reader=$!
	i=0
	while ! grep -q 'mm_vmscan_kswapd_wake: nid=0' "$tr/trace"; do
		kill -0 "$reader" 2>/dev/null || break
		i=$((i + 1))
		[ "$i" -le 3000 ] || fail "expected kswapd0 to be woken within 300 s of reading $((total_kb * 5 / 4 / 1024)) MiB more, it was not"
		sleep 0.1
	done
	kill "$reader" 2>/dev/null || true
	wait "$reader" 2>/dev/null || true
	reader=
	echo "nodelru: reader stopped" >"$tr/trace_marker"
	[ "$(last before)" = wake ] && break
	echo "round $round: kswapd0 had gone to sleep before the reader stopped; again"
done
i=0 asleep=0
while [ "$asleep" -lt 2 ]; do
	if grep -q 'nodelru: reader stopped' "$tr/trace" && [ "$(last)" = sleep ]; then
		asleep=$((asleep + 1))
	else
		asleep=0
	fi
	i=$((i + 1))
	[ "$i" -le 240 ] || fail "expected kswapd0 to go to sleep within 120 s after the reader stopped, its last event is still '$(last)'"
	sleep 0.5
done
echo 1 >/proc/sys/vm/stat_refresh
# delta NAME: how far a /proc/vmstat counter moved since before the read;
# like vm, says which item the kernel lacks and returns 1 (use it in a
# plain assignment).
delta() {
	awk -v k="$1" 'FNR == NR { if ($1 == k) b = $2; next } $1 == k { print $2 - b; f = 1 } END { exit !f }' \
		/tmp/kswapd-balance.vmstat /proc/vmstat && return 0
	echo "FAIL: expected /proc/vmstat to have $1, kernel $(uname -r) has no such item" >&2
	return 1
}
skip_dma=$(delta pgskip_dma)
skip_dma32=$(delta pgskip_dma32)
skip_normal=$(delta pgskip_normal)
skip_movable=$(delta pgskip_movable)
scan_kswapd=$(delta pgscan_kswapd)
scan_direct=$(delta pgscan_direct)
echo "during the reads: pgskip_dma +$skip_dma pgskip_dma32 +$skip_dma32 pgskip_normal +$skip_normal" \
	"pgskip_movable +$skip_movable; pgscan_kswapd +$scan_kswapd pgscan_direct +$scan_direct"
if ! applied mm-vmscan-move-LRU-lists-to-node.patch; then
	skipped=$((skip_dma + skip_dma32 + skip_normal + skip_movable))
	[ "$skipped" -eq 0 ] ||
		fail "expected per-zone LRU lists (before the lists move to the node) to hold nothing to skip, saw the pgskip_* move by $skipped"
fi

# zone lines of node 0: NAME FREE MIN LOW HIGH MANAGED LRU BOOST
zones=$(awk '
	/^Node/ { node = $2; sub(",", "", node); zone = $4 }
	node != 0 { next }
	$1 == "pages" && $2 == "free" { free[zone] = $3; order[++n] = zone }
	$1 == "boost" { boost[zone] = $2 }
	$1 == "min" { min[zone] = $2 }
	$1 == "low" { low[zone] = $2 }
	$1 == "high" { high[zone] = $2 }
	$1 == "managed" { managed[zone] = $2 }
	$1 ~ /^nr_zone_(in)?active_(anon|file)$/ { lru[zone] += $2 }
	END {
		for (i = 1; i <= n; i++) {
			z = order[i]
			printf "%s %d %d %d %d %d %d %d\n", z, free[z], min[z], low[z], high[z], managed[z], lru[z], boost[z]
		}
	}' /proc/zoneinfo)
echo "kernel $release ($end end); $wakes kswapd wakeups in the first read, $round round(s) to stop a reader while kswapd worked; node 0 zones when kswapd slept (free min low high managed lru boost):"
echo "$zones" | sed 's/^/  /'
checked=0 at_high=0 at_gap=0 below=
raise=0
if inject kswapd-balance-mark; then raise=1; fi
while read -r name free _ low high managed lru _; do
	if [ "$managed" -eq 0 ] || [ "$lru" -eq 0 ]; then continue; fi
	[ "$raise" -eq 0 ] || high=$((high + managed))
	checked=$((checked + 1))
	gap=$(((managed + 99) / 100))
	[ "$gap" -le "$low" ] || gap=$low
	if [ "$free" -ge "$high" ]; then at_high=$((at_high + 1)); else below="$below $name($free<$high)"; fi
	[ "$free" -lt $((high + gap)) ] || at_gap=$((at_gap + 1))
done <<EOF
$zones
EOF
echo "zones checked $checked: at or above high $at_high, at or above high + balance gap $at_gap"
[ "$checked" -gt 0 ] || fail "expected node 0 to have a zone with managed pages on its LRU lists, saw none"
if ! applied mm-vmscan-make-kswapd-reclaim-in-terms-of-nodes.patch; then
	[ "$at_high" -eq "$checked" ] ||
		fail "step $step: expected every zone of node 0 at or above its high watermark when kswapd slept, saw below:$below"
	said="every zone"
else
	[ "$at_high" -ge 1 ] ||
		fail "step $step: expected at least one zone of node 0 at or above its high watermark when kswapd slept, saw below:$below"
	said="at least one zone"
fi

# kswapd rests: CPU time over 10 s of idling, in USER_HZ (100 on x86)
# ticks of /proc/PID/stat.
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hz=100
t0=$(ticks)
sleep 10
t1=$(ticks)
echo "kswapd0 CPU time over 10 s idle: $((t1 - t0)) ticks of 1/$hz s"
[ $((t1 - t0)) -le "$hz" ] ||
	fail "expected kswapd0 to rest after balancing (at most 1 s of CPU in 10 s), saw $((t1 - t0)) ticks at $hz per second"
unrecl=$(awk '/^Node 0,/ { n = 1 } n && $1 == "node_unreclaimable:" { print $2; exit }' /proc/zoneinfo)
[ "${unrecl:-x}" = 0 ] || fail "expected node 0 not unreclaimable after kswapd balanced it, saw node_unreclaimable ${unrecl:-missing}"
boosts=$(awk '/^Node 0,/ { n = 1 } /^Node [1-9]/ { n = 0 } n && $1 == "boost" && $2 != 0 { c++ } END { print c + 0 }' /proc/zoneinfo)
[ "$boosts" -eq 0 ] || fail "expected every watermark boost of node 0 to be drained, saw $boosts zone(s) still boosted"
echo "ok: step $step ($end): kswapd balanced $at_high of $checked zones to high ($said expected) and rested"
