#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke,full timeout=420 topo=all order=60
#
# Zone-constrained reclaim: with every zone full, a kernel module
# (nodelru_hog) allocates and holds pages that may only come from a low
# zone, so reclaim must free memory *in that zone* while the higher zones
# are full too.
#   uma, numa: __GFP_DMA32 pages (node 0), then a quarter of DMA with
#              __GFP_DMA
#   movable:   GFP_KERNEL pages (highest zone Normal: kernel memory never
#              comes from Movable)
# Page cache comes from reading a sparse file of half of MemTotal on the
# scratch disk (no disk I/O: holes read as zeroes), run on CPU 0, which is
# node 0 on numa: the highest zones fill first, the rest spills into the
# lower ones.  Then mlock-hog holds all but 64 MiB of what is free
# (mlocked huge pages: cheap to fault under TCG, never reclaimed), so
# every zone is full, of page cache or of the hog, without reading a file
# of all of RAM (MemTotal, some 40 to 50 s a boot under TCG, until the
# smoke set was made lighter).  The request is what is free in the
# constrained zone and below plus half the constrained zone's file pages
# (at least an eighth of its managed pages must be page cache), so reclaim
# must free that half there.  A 32 MiB file of real data written before
# the pressure is verified after it.
# Pass: every requested page was had, each from an allowed zone, without
# an OOM kill (the runner fails on one), and reclaim ran (pgsteal moved by
# at least the half of the zone's file pages that no free page could
# stand for); before "mm, vmscan: move LRU lists to node" (the zone end)
# every zone has its own lists, so the scan skips nothing (every pgskip_*
# moved by 0); from that patch on, where the node also has higher zones
# with page cache (uma: Normal; movable: Movable), the scan skipped their
# pages (pgskip_* > 0), unless the multi-gen LRU is on (its lists are per
# zone within the node).  The module and
# mlock-hog let go before the test ends; the runner checks the books
# after the test (tests/lib/books.sh).
# Fault: INJECT=hog-wrongzone requests pages of the zone above the
# constrained one (Normal where DMA32 pages are expected; on movable,
# GFP_HIGHUSER_MOVABLE pages, which may come from Movable, where Normal
# ones are), so the zone check must fail on every topology.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh
hog=/sys/kernel/debug/nodelru_hog
data=/mnt/scratch/zone-pressure.dat
sparse=/mnt/scratch/zone-pressure.sparse

grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
insmod /lib/modules/nodelru/nodelru_hog.ko || fail "insmod nodelru_hog.ko failed"
cleanup() {
	[ -e "$hog" ] && echo free >"$hog"
	rmmod nodelru_hog 2>/dev/null || true
	hog_release
	rm -f "$data" "$sparse" /tmp/zone-pressure.before
}
trap cleanup EXIT


case "$NODELRU_TOPO" in
movable) zone=Normal req=normal higher=Movable ;;
numa) zone=DMA32 req=dma32 higher= ;;
*) zone=DMA32 req=dma32 higher=Normal ;;
esac
managed=$(zf "$zone" managed)
[ "${managed:-0}" -gt 0 ] || fail "expected a populated $zone zone on node 0, saw none"
# free pages of node 0's zones up to the constrained one (what the
# request may take without reclaim)
free_upto() {
	f=0
	for z in DMA DMA32 Normal; do
		n=$(zf "$z" free)
		f=$((f + ${n:-0}))
		[ "$z" != "$zone" ] || break
	done
	echo "$f"
}
# file pages of a zone of node 0 (both LRU lists): zone_file ZONE
zone_file() {
	zi=$(zf "$1" nr_zone_inactive_file)
	za=$(zf "$1" nr_zone_active_file)
	if [ -z "$zi" ] || [ -z "$za" ]; then
		echo "FAIL: expected nr_zone_inactive_file and nr_zone_active_file for $1 in /proc/zoneinfo, saw '$zi' and '$za'" >&2
		return 1
	fi
	echo $((zi + za))
}

dd if=/dev/urandom of="$data" bs=1M count=32 2>/dev/null
sum=$(md5sum <"$data")
total_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
truncate -s "$((total_kb * 512))" "$sparse"
taskset 1 dd if="$sparse" of=/dev/null bs=1M 2>/dev/null || fail "reading the sparse file failed"
hog_hold -c 0 64
free_before=$(free_upto)
file_before=$(zone_file "$zone")
need=$((file_before / 2))
want=$((free_before + need))
echo "constrained zone: $zone (managed $managed pages); mlock-hog $hog_said"
echo "after filling: $zone file pages $file_before, free up to $zone $free_before pages;" \
	"${higher:-no} higher zone's file pages ${higher:+$(zone_file "$higher")}"
echo "request $req x $want (free + half the file pages)"
[ "$file_before" -ge $((managed / 8)) ] ||
	fail "expected at least $((managed / 8)) of $zone's pages (an eighth) to be page cache, saw $file_before; the pressure would not need reclaim"

names="pgskip_dma pgskip_dma32 pgskip_normal pgskip_movable pgscan_kswapd pgscan_direct pgsteal_kswapd pgsteal_direct allocstall_dma32 allocstall_normal allocstall_movable"
cp /proc/vmstat /tmp/zone-pressure.before
# delta NAME: how far a /proc/vmstat counter moved since the copy above
delta() {
	awk -v k="$1" 'FNR == NR { if ($1 == k) b = $2; next } $1 == k { print $2 - b }' \
		/tmp/zone-pressure.before /proc/vmstat
}
s0=$(vm_sum pgsteal_kswapd pgsteal_direct)
if inject hog-wrongzone; then
	case $req in
	normal) req=movable ;;
	*) req=normal ;;
	esac
fi
taskset 1 sh -c "echo '$req $want' >$hog" || fail "writing '$req $want' to $hog failed"
# "held DMA DMA32 Normal Movable total requested failed"
read -r _ h_dma h_dma32 h_normal h_movable _ _ failed <"$hog"
echo "held: DMA $h_dma DMA32 $h_dma32 Normal $h_normal Movable $h_movable (requested $want, failed $failed)"
for n in $names; do
	d=$(delta "$n")
	[ -z "$d" ] || echo "  $n +$d"
done
s1=$(vm_sum pgsteal_kswapd pgsteal_direct)

[ "$failed" -eq 0 ] || fail "expected all $want $req pages, $failed could not be had"
case $zone in
DMA32) inzone=$((h_dma + h_dma32)) ;;
Normal) inzone=$((h_dma + h_dma32 + h_normal)) ;;
esac
[ "$inzone" -eq "$want" ] ||
	fail "expected all $want pages from $zone or below, saw $inzone there (Normal $h_normal, Movable $h_movable)"
[ $((s1 - s0)) -ge "$need" ] ||
	fail "expected reclaim to free at least $need pages (half of $zone's file pages; only $free_before were free up to $zone), pgsteal moved by $((s1 - s0))"
# The multi-gen LRU (bit 0 of /sys/kernel/mm/lru_gen/enabled) keeps a
# list per zone inside the node's lruvec and scans only the eligible
# zones' lists: nothing to skip there, so the check is for the classic LRU.
lrugen_on
hz=$(echo "$higher" | tr '[:upper:]' '[:lower:]')
if ! applied mm-vmscan-move-LRU-lists-to-node.patch; then
	skipped=0
	for n in pgskip_dma pgskip_dma32 pgskip_normal pgskip_movable; do
		vm_has "$n" || continue
		d=$(delta "$n")
		skipped=$((skipped + d))
	done
	[ "$skipped" -eq 0 ] ||
		fail "expected per-zone LRU lists (before the lists move to the node) to hold nothing to skip, saw the pgskip_* move by $skipped"
	echo "per-zone LRU lists: nothing skipped (pgskip_* +0)"
elif [ -n "$higher" ] && [ "$lrugen" -eq 0 ]; then
	vm_has "pgskip_$hz" ||
		fail "expected a pgskip_$hz counter in /proc/vmstat (node LRU lists count the $higher pages they step over), saw none"
	skipped=$(delta "pgskip_$hz")
	[ "$skipped" -gt 0 ] ||
		fail "expected the node-LRU scan to skip $higher pages (pgskip_$hz > 0) while reclaiming for $zone, saw $skipped"
elif [ "$lrugen" -eq 1 ]; then
	echo "multi-gen LRU on: per-zone lists, no skip expected (pgskip_normal +$(delta pgskip_normal))"
fi

# A little from DMA too, where it exists.
dma=$(zf DMA managed)
if [ "$zone" = DMA32 ] && [ "${dma:-0}" -gt 0 ]; then
	echo free >"$hog"
	w=$((dma / 4))
	taskset 1 sh -c "echo 'dma $w' >$hog"
	read -r _ h_dma _ _ _ _ _ failed <"$hog"
	echo "GFP_DMA: held DMA $h_dma of $w (failed $failed)"
	if [ "$failed" -ne 0 ] || [ "$h_dma" -ne "$w" ]; then
		fail "expected $w pages from DMA, saw $h_dma (failed $failed)"
	fi
fi
echo free >"$hog"

echo 3 >/proc/sys/vm/drop_caches
[ "$(md5sum <"$data")" = "$sum" ] || fail "expected $data to read back with md5 $sum after the pressure, it differs"
echo "zone-constrained reclaim for $zone: $want pages had, pgsteal +$((s1 - s0))"
