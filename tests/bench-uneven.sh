#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=1800 topo=all order=90
#
# Benchmark workload 11, pressure that falls unevenly on the zones (the
# case the series was written about, the cover letter's point 3, and the
# price node LRUs pay for it: Joonsoo Kim's large-Movable/small-DMA32
# case, Minchan Kim's lowmem case).  The hot/cold workload of
# tests/tools/hot-cold.c (hot set 2/5 of RAM, half anon and half a written
# file, used again after each of 8 chunks of a sparse cold file of 3/2
# RAM) runs as "uneven" while a second task keeps making allocations that
# only node 0's DMA32 zone and below may satisfy: through the nodelru_hog
# module it takes an eighth of DMA32's managed pages with
# GFP_KERNEL | __GFP_DMA32, holds them a second, gives them back, and
# again, until the hot/cold workload ends.  On the movable topology it
# asks for GFP_KERNEL pages instead (Normal and below: kernel memory never
# comes from Movable), so the pressure falls on everything but the small
# top zone.
#
# Every such request reclaims for the low zone alone: with per-zone lists
# (the zone end) from that zone's lists, so the hot pages that happen to
# sit there age faster than the rest; with per-node lists (the node end)
# from the node's lists, stepping over every page of the higher zones
# (pgskip_*).  Figures: the hot set's survival per zone it was in
# (hot-cold.c: bench-zround lines and hot_anon_survival_pct_ZONE), the
# per-zone LRU sizes over time (bench-zonesample), pages skipped, scanned
# per reclaimed, allocation stalls (vmstat during the workload), and of
# the constrained requests: how many were made, the pages they asked for
# and could not have, and their mean time (TCG ms).
# RAM is MemTotal, or in quick mode a quarter of it (bench_shrink).  Pass:
# the hot set intact at the end (hot-cold.c checks every word) and at
# least one constrained request made.
# Injected fault: hot-cold-corrupt (hot-cold.c) fails it as it fails
# bench-hotcold.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
dir=/mnt/scratch
hog=/sys/kernel/debug/nodelru_hog
stopf=/tmp/bench-uneven.stop
log=/tmp/bench-uneven.hog
grep -q " $dir " /proc/mounts || { echo "FAIL: expected the scratch disk on $dir, it is not mounted"; exit 1; }
insmod /lib/modules/nodelru/nodelru_hog.ko || { echo "FAIL: insmod nodelru_hog.ko failed"; exit 1; }
presser=
cleanup() {
	[ -z "$presser" ] || { touch "$stopf"; wait "$presser" 2>/dev/null || true; }
	[ ! -e "$hog" ] || echo free >"$hog"
	rmmod nodelru_hog 2>/dev/null || true
	bench_unshrink
	rm -f "$dir/hot-cold.hot" "$dir/hot-cold.cold" "$stopf" "$log"
}
trap cleanup EXIT
sync
echo 3 >/proc/sys/vm/drop_caches
bench_shrink || exit 1

case ${NODELRU_TOPO:-uma} in
movable) zone=Normal req=normal ;;
*) zone=DMA32 req=dma32 ;;
esac
managed=$(awk -v z="$zone" '$1 == "Node" { n = $2; sub(",", "", n); cur = $4; next }
	n == 0 && cur == z && $1 == "managed" { print $2; exit }' /proc/zoneinfo)
[ "${managed:-0}" -gt 0 ] || { echo "FAIL: expected a populated $zone zone on node 0, saw none"; exit 1; }
chunk=$((managed / 8))
ram=$(($(bench_ram_kb) / 1024))
hot=$((ram / 5))
cold=$((ram * 3 / 2))
echo "uneven: hot set $hot MiB anon + $hot MiB file, cold stream $cold MiB in 8 rounds;" \
	"beside it requests of $chunk $req pages ($zone and below, an eighth of $zone's $managed managed pages), held 1 s each"

# The constrained requests, until told to stop: one line per request,
# "MS FAILED" (milliseconds from /proc/uptime, so in steps of 10; pages
# not had).
rm -f "$stopf" "$log"
# After bench_begin's settle step, which waits for kswapd to go idle.
bench_begin uneven
(
	while [ ! -e "$stopf" ]; do
		t0=$(awk '{ print int($1 * 100) }' /proc/uptime)
		echo "$req $chunk" >"$hog" 2>/dev/null || true
		t1=$(awk '{ print int($1 * 100) }' /proc/uptime)
		read -r _ _ _ _ _ _ _ failed <"$hog"
		echo "$(((t1 - t0) * 10)) $failed" >>"$log"
		sleep 1
		echo free >"$hog"
		sleep 1
	done
) &
presser=$!
rc=0
hot-cold "$dir" "$hot" "$hot" "$cold" 8 uneven || rc=$?
bench_end uneven
touch "$stopf"
wait "$presser" 2>/dev/null || true
presser=
[ "$rc" -eq 0 ] || { echo "FAIL: hot-cold failed (above)"; exit 1; }
[ -s "$log" ] || { echo "FAIL: expected constrained requests beside the workload, saw none"; exit 1; }
awk -v req="$req" '{ n++; ms += $1; failed += $2 }
	END {
		printf "bench: uneven hog_requests %d\n", n
		printf "bench: uneven hog_pages_failed %d\n", failed
		printf "bench: uneven hog_request_ms %.1f\n", n ? ms / n : 0
	}' "$log"
echo "bench: uneven chunk_pages $chunk"
