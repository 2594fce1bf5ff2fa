#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke timeout=900 topo=numa order=30
#
# vm.zone_reclaim_mode keeps page cache local.  A file of 5/4 of node 0's
# managed memory is read with a cold cache by a reader bound to a CPU of
# node 0, twice:
#   mode 0 (control): once node 0 is full, page cache spills to node 1.
#   mode 1: node 0 reclaims its own clean page cache instead (zone_reclaim
#   at the zone-LRU end, node_reclaim at the node-LRU end; both fire the
#   mm_vmscan_node_reclaim_begin event).
# Pass: with mode 1 the reclaim event fired, and node 1's file pages grew
# by less than a quarter of what they grew by in the control run (and by
# less than 1/8 of the file).  The control must have spilled at least 1/8
# of the file, or the test proves nothing and fails.
#
# Skip storm: node 0 has DMA and DMA32.  When DMA32 is below its mark the
# allocation falls through to DMA, and the zone-era reclaim of the
# rewound tree reclaims the node with reclaim_idx at DMA, so isolation
# skips every DMA32 folio (pgskip_dma32) without counting it as scanned.
# Both reads report the pgskip_* and pgscan_direct/pgsteal_direct deltas.
#   node end (*-nodelru-node-*): node_reclaim reclaims for every zone the
#     request may use, so the mode 1 read must skip fewer than 1/64 of
#     the file's pages;
#   zone end and steps between: reported only (the storm is the known
#     cost of the hybrid described in "mm: convert zone_reclaim to
#     node_reclaim"; later stretches bring zone-exact isolation).
# Fault: INJECT=zone-reclaim-skip adds the file's page count to the skips
# as read, so the node end's bound must fail.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
fail() { echo "FAIL: $*"; exit 1; }

file=/mnt/scratch/zone-reclaim.dat
tr=/sys/kernel/tracing
ev=$tr/events/vmscan/mm_vmscan_node_reclaim_begin
grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
[ -d /sys/devices/system/node/node1 ] || fail "expected two nodes, saw no node1"
[ -e "$ev/enable" ] || fail "expected the tracepoint $ev, it is missing"
grep -q '^pgskip_dma32 ' /proc/vmstat || fail "expected pgskip_dma32 in /proc/vmstat (VM_EVENT_COUNTERS), saw none"
cpu=$(cut -d, -f1 /sys/devices/system/node/node0/cpulist | cut -d- -f1)
[ -n "$cpu" ] || fail "expected a CPU on node 0, saw none"

managed=$(awk '/^Node/ { node = $2; sub(",", "", node) } node == 0 && $1 == "managed" { s += $2 } END { print s }' /proc/zoneinfo)
mib=$((managed * 5 / 1024))
pages=$((mib * 256))
echo "node 0 managed $((managed * 4 / 1024)) MiB; file $mib MiB; reader on CPU $cpu"

echo 0 >/proc/sys/vm/zone_reclaim_mode
dd if=/dev/zero of="$file" bs=1M count="$mib" conv=fsync 2>/dev/null || fail "writing $mib MiB to $file failed"

file_pages() { awk '$1 == "nr_file_pages" { print $2 }' "/sys/devices/system/node/node$1/vmstat"; }
# The reclaim figures of /proc/vmstat as "name value" lines.
reclaim_stat() { awk '$1 ~ /^pgskip_/ || $1 == "pgscan_direct" || $1 == "pgsteal_direct"' /proc/vmstat; }
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
read_cold 1
echo "mode 1: node 1 file pages +$growth, reclaim events $events"
echo "mode 1: $stats"
rm -f "$file"
case ",${NODELRU_INJECT:-}," in
*,zone-reclaim-skip,*)
	echo "# injecting fault 'zone-reclaim-skip'"
	skipped=$((skipped + pages))
	;;
esac
case $(uname -r) in
*-nodelru-node-*) end=node ;;
*-nodelru-zone-*) end=zone ;;
*) end=step ;;
esac
echo "skip storm ($end end): mode 1 skipped $skipped pages over $events reclaim events, file $pages pages"

[ "$ctl_growth" -ge $((pages / 8)) ] ||
	fail "control: expected page cache to spill to node 1 (at least $((pages / 8)) pages), saw +$ctl_growth"
[ "$events" -gt 0 ] || fail "mode 1: expected mm_vmscan_node_reclaim_begin events, saw none"
[ "$growth" -lt $((ctl_growth / 4)) ] ||
	fail "mode 1: expected node 1 file pages to grow by under $((ctl_growth / 4)) (a quarter of the control), saw +$growth"
[ "$growth" -lt $((pages / 8)) ] ||
	fail "mode 1: expected node 1 file pages to grow by under $((pages / 8)), saw +$growth"
if [ "$end" = node ]; then
	[ "$skipped" -lt $((pages / 64)) ] ||
		fail "node end, mode 1: expected node_reclaim to skip under $((pages / 64)) pages (1/64 of the file), saw $skipped"
fi
echo "ok: zone_reclaim_mode=1 kept $((pages - growth)) of $pages pages local"
