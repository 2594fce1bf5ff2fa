#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke timeout=900 topo=numa order=30
#
# vm.zone_reclaim_mode keeps page cache local.  With node 0's page cache
# dropped, all but 512 MiB of node 0's free memory is first held by
# mlock-hog bound to node 0 (mlocked huge pages: cheap to fault under TCG,
# never reclaimed), so what the reads must fill is that window, not all
# of node 0.  A file of 3/2 of the window (sparse: its holes are read into
# clean page cache without disk I/O) is read with a cold cache by a reader
# bound to a CPU of node 0, twice:
#   mode 0 (control): once node 0 is full, page cache spills to node 1.
#   mode 1: node 0 reclaims its own clean page cache instead (zone_reclaim
#   at the zone-LRU end, node_reclaim at the node-LRU end; both fire the
#   mm_vmscan_node_reclaim_begin event).
# Until the smoke set was made lighter the file was 5/4 of all of node 0
# (2406 MiB on the 3 GiB guest) and the test took some 80 s a boot; the
# window keeps what is shown (node 0 full of page cache its reader may
# reclaim, mapped page cache beside it) at a fraction of the reading.
# Pass: with mode 1 the reclaim event fired, and node 1's file pages grew
# by less than a quarter of what they grew by in the control run (and by
# less than 1/8 of the file).  The control must have spilled at least 1/8
# of the file, or the test proves nothing and fails.
#
# Skip storm: node 0 has DMA and DMA32.  When DMA32 is below its mark the
# allocation falls through to DMA, and the zone-era reclaim of the
# rewound tree reclaims the node with reclaim_idx at DMA, so isolation
# skips every DMA32 folio (pgskip_dma32) without counting it as scanned.
# Both reads report the pgskip_*, pgscan_direct, pgsteal_direct (and
# pgsteal_kswapd) deltas.
#   from "mm: convert zone_reclaim to node_reclaim" on (the node end and
#     the steps before it that have that patch): node_reclaim reclaims
#     for every zone the request may use, so the mode 1 read must skip
#     fewer than 1/64 of the file's pages;
#     With the multi-gen LRU on (bit 0 of /sys/kernel/mm/lru_gen/enabled)
#     the bound is the mapped file's pages plus 1/64 of the file: its
#     scan counts as skipped every folio it cannot isolate, and with
#     may_unmap=0 that is each mapped folio it passes (node-debug+mglru
#     on numa, with a mapped file of 120 MiB then: 30720 skipped over 115
#     events, its 30720 pages once each; the classic LRU counts only
#     other zones' folios);
#   zone end (before "mm, vmscan: move LRU lists to node"): every zone
#     has its own lists, nothing is skipped: the mode 1 read must skip 0
#     pages;
#   steps between: reported only (the storm is the known cost of the
#     hybrid of per-zone reclaim on per-node lists, described in
#     "mm: convert zone_reclaim to node_reclaim"; its size depends on how
#     the zones' folios interleave on the lists, so no bound holds).
#
# Mapped pages are spared: mode 1 is RECLAIM_ZONE without RECLAIM_UNMAP,
# so zone_reclaim and node_reclaim run with may_unmap=0 and must not
# reclaim mapped page cache (as Linux 4.7 did, and both ends keep).  For
# the mode 1 read, map-hold (tests/tools/map-hold.c) maps a file of 1/8
# of the window (at least 32 MiB, on the scratch disk, its memory bound
# to node 0 and its CPU the reader's) and touches every page, unlocked.
# Before the read all its pages must be resident and on node 0; after
# it, on SIGUSR1, map-hold counts its resident pages by mincore() and
# then verifies every page's pattern.  Pass: all of them still resident,
# exactly, and the data intact.  No slack is needed: when node 0 cannot
# reclaim, the reader's pages go to node 1 in the fast path, and node 1
# stays far above its watermarks (it gains a few hundred MiB of its 1 GiB
# in the control run, a few pages in mode 1), so neither kswapd nor
# direct reclaim, which may unmap, runs; and drop_caches leaves mapped
# pages alone.  The mode 1 figures include pgsteal_kswapd to show that
# kswapd stayed out.
# Faults: INJECT=zone-reclaim-skip adds the file's page count to the skips
# as read, so the zone end's zero and the node end's bound must fail (the
# steps from the lists patch to "mm: convert zone_reclaim to node_reclaim"
# report skips only, so there it cannot); INJECT=zone-reclaim-mapped
# takes one page off the resident count map-hold reports after the read,
# so the mapped-pages check must fail.  (Running the read with
# RECLAIM_UNMAP instead is no reliable fault: the first scan of a mapped
# page only clears its young bit and rotates it, and the read need not
# scan node 0's inactive list twice.)
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

file=/mnt/scratch/zone-reclaim.dat
mfile=/mnt/scratch/zone-reclaim.map
mlog=/tmp/zone-reclaim.map-hold
mpid=
# On any exit, map-hold and mlock-hog must not keep their pages for the
# next test.
cleanup() {
	[ -z "$mpid" ] || kill "$mpid" 2>/dev/null || true
	hog_release
	rm -f "$mfile" "$mlog" "$file"
}
trap cleanup EXIT
tr=/sys/kernel/tracing
ev=$tr/events/vmscan/mm_vmscan_node_reclaim_begin
grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
[ -d /sys/devices/system/node/node1 ] || fail "expected two nodes, saw no node1"
[ -e "$ev/enable" ] || fail "expected the tracepoint $ev, it is missing"
vm_has pgskip_dma32 || fail "expected pgskip_dma32 in /proc/vmstat (VM_EVENT_COUNTERS), saw none"
cpu=$(cut -d, -f1 /sys/devices/system/node/node0/cpulist | cut -d- -f1)
[ -n "$cpu" ] || fail "expected a CPU on node 0, saw none"

node_free_mib() { awk '$3 == "MemFree:" { print int($4 / 1024) }' /sys/devices/system/node/node0/meminfo; }
managed=$(awk '/^Node/ { node = $2; sub(",", "", node) } node == 0 && $1 == "managed" { s += $2 } END { print s }' /proc/zoneinfo)
sync
echo 3 >/proc/sys/vm/drop_caches
hog_hold -c "$cpu" 512 0
window=$(node_free_mib)
[ "$window" -ge 256 ] || fail "expected at least 256 MiB free on node 0 beside mlock-hog, saw $window MiB"
mib=$((window * 3 / 2))
pages=$((mib * 256))
mmib=$((window / 8))
[ "$mmib" -ge 32 ] || mmib=32
echo "node 0 managed $((managed * 4 / 1024)) MiB, mlock-hog: $hog_said; window $window MiB; file $mib MiB; mapped file $mmib MiB; reader on CPU $cpu"

echo 0 >/proc/sys/vm/zone_reclaim_mode
# A sparse file: reading its holes fills the page cache with clean
# zeroed pages, the same for reclaim as pages read from disk, without
# writing and reading the file on the disk (the costly part under TCG).
rm -f "$file"
truncate -s "${mib}M" "$file" || fail "making the sparse $mib MiB file $file failed"

file_pages() { awk '$1 == "nr_file_pages" { print $2 }' "/sys/devices/system/node/node$1/vmstat"; }
# The reclaim figures of /proc/vmstat as "name value" lines.
reclaim_stat() { awk '$1 ~ /^pgskip_/ || $1 == "pgscan_direct" || $1 == "pgsteal_direct" || $1 == "pgsteal_kswapd"' /proc/vmstat; }
# stat_delta BEFORE AFTER: a line of "name +delta" for each counter,
# then a line with the sum of the pgskip_* deltas.
stat_delta() {
	printf '%s\n--\n%s\n' "$1" "$2" | awk '$1 == "--" { a = 1; next }
		!a { b[$1] = $2; next }
		{ d = $2 - b[$1]; printf "%s +%d ", $1, d; if ($1 ~ /^pgskip_/) s += d }
		END { printf "\n%d\n", s }'
}

# read_cold MODE: sets growth (node 1's file pages), events, stats and
# skipped (the sum of the pgskip_* deltas).
read_cold() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo 0 >"$ev/enable"
	: >"$tr/trace"
	echo 1 >"$ev/enable"
	echo "$1" >/proc/sys/vm/zone_reclaim_mode
	before=$(file_pages 1)
	rs_before=$(reclaim_stat)
	taskset -c "$cpu" dd if="$file" of=/dev/null bs=1M 2>/dev/null || { echo 0 >/proc/sys/vm/zone_reclaim_mode; fail "reading $file failed"; }
	after=$(file_pages 1)
	rs_after=$(reclaim_stat)
	echo 0 >/proc/sys/vm/zone_reclaim_mode
	echo 0 >"$ev/enable"
	events=$(grep -c mm_vmscan_node_reclaim_begin "$tr/trace" || true)
	growth=$((after - before))
	delta=$(stat_delta "$rs_before" "$rs_after")
	stats=$(echo "$delta" | head -n 1)
	skipped=$(echo "$delta" | tail -n 1)
}

read_cold 0
ctl_growth=$growth ctl_events=$events
echo "mode 0: node 1 file pages +$ctl_growth, reclaim events $ctl_events"
echo "mode 0: $stats"

# map-hold on node 0 (zone_reclaim_mode is 0 here; node 0's page cache is
# dropped first, so its pages fit in the window without reclaim).
rm -f "$mfile" "$mlog"
sync
echo 3 >/proc/sys/vm/drop_caches
taskset -c "$cpu" map-hold "$mfile" "$mmib" 0 >"$mlog" 2>&1 &
mpid=$!
i=0
until grep -q '^mapped \|^FAIL\|^usage' "$mlog"; do
	i=$((i + 1))
	[ "$i" -le 300 ] || fail "expected map-hold to map $mmib MiB within 300 s, saw: $(cat "$mlog")"
	sleep 1
done
grep -q '^mapped ' "$mlog" || fail "map-hold: $(cat "$mlog")"
# "mapped N pages: R resident, K on node 0"
read -r mpages mres0 mnode0 <<EOF
$(awk '$1 == "mapped" { print $2, $4, $6 }' "$mlog")
EOF
echo "mapped file: $mpages pages, $mres0 resident, $mnode0 on node 0"
if [ "$mres0" -ne "$mpages" ] || [ "$mnode0" -ne "$mpages" ]; then
	fail "expected all $mpages pages of map-hold resident on node 0 before the mode 1 read, saw $mres0 resident, $mnode0 on node 0"
fi

read_cold 1
echo "mode 1: node 1 file pages +$growth, reclaim events $events"
echo "mode 1: $stats"
rm -f "$file"
kill -USR1 "$mpid" 2>/dev/null || true
mrc=0
wait "$mpid" || mrc=$?
mpid=
[ "$mrc" -eq 0 ] || fail "map-hold after the mode 1 read: expected exit 0, saw $mrc: $(tail -n 1 "$mlog")"
# "resident R of N pages, K on node 0; data ok"
read -r mres1 mnode1 <<EOF
$(awk '$1 == "resident" { print $2, $6 }' "$mlog")
EOF
[ -n "$mnode1" ] || fail "map-hold: expected a 'resident' line, saw: $(cat "$mlog")"
if inject zone-reclaim-mapped; then
	mres1=$((mres1 - 1))
fi
echo "mapped file after mode 1: $mres1 of $mpages pages resident (before: $mres0), $mnode1 on node 0; data ok"
if inject zone-reclaim-skip; then
	skipped=$((skipped + pages))
fi
series_end
echo "skip storm ($end end): mode 1 skipped $skipped pages over $events reclaim events, file $pages pages"

[ "$ctl_growth" -ge $((pages / 8)) ] ||
	fail "control: expected page cache to spill to node 1 (at least $((pages / 8)) pages), saw +$ctl_growth"
[ "$events" -gt 0 ] || fail "mode 1: expected mm_vmscan_node_reclaim_begin events, saw none"
[ "$growth" -lt $((ctl_growth / 4)) ] ||
	fail "mode 1: expected node 1 file pages to grow by under $((ctl_growth / 4)) (a quarter of the control), saw +$growth"
[ "$growth" -lt $((pages / 8)) ] ||
	fail "mode 1: expected node 1 file pages to grow by under $((pages / 8)), saw +$growth"
lrugen_on
if ! applied mm-vmscan-move-LRU-lists-to-node.patch; then
	[ "$skipped" -eq 0 ] ||
		fail "step $step, mode 1: expected per-zone LRU lists to hold nothing to skip, saw $skipped pages skipped"
elif ! applied mm-convert-zone_reclaim-to-node_reclaim.patch; then
	echo "step $step: per-zone reclaim on per-node lists, skips reported only"
	reported "zone-reclaim: mode 1 skips ($skipped pages; per-zone reclaim on per-node lists)"
elif [ "$lrugen" -eq 0 ]; then
	[ "$skipped" -lt $((pages / 64)) ] ||
		fail "step $step, mode 1: expected node_reclaim to skip under $((pages / 64)) pages (1/64 of the file), saw $skipped"
else
	[ "$skipped" -lt $((mpages + pages / 64)) ] ||
		fail "step $step, multi-gen LRU, mode 1: expected node_reclaim to skip under $((mpages + pages / 64)) pages (the $mpages mapped pages once, plus 1/64 of the file), saw $skipped"
fi
[ "$mres1" -eq "$mpages" ] ||
	fail "mode 1: expected zone reclaim without RECLAIM_UNMAP to leave all $mpages mapped pages resident, saw $mres1 (mode 1: $stats)"
echo "ok: zone_reclaim_mode=1 kept $((pages - growth)) of $pages pages local"
echo "ok: zone_reclaim_mode=1 left all $mpages mapped pages resident"
