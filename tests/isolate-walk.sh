#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=full timeout=300 topo=uma order=61
#
# How far one zone-exact isolation walks (issue 30 point 2).  At the zone
# end, isolate_lru_folios() takes only the pages of the zone being
# reclaimed from the node's lists and steps over the others; the walk
# ends once it has stepped over ISOLATE_SKIP_MAX = 32768 pages
# (SWAP_CLUSTER_MAX << 10) of other zones, so a DMA32 (or DMA) pass over
# a long list of Normal pages holds the LRU lock with interrupts off for
# a bounded walk.  The vmscan:mm_vmscan_lru_isolate event reports
# nr_requested (the pages the call was asked to isolate), nr_scanned
# (every page walked, stepped-over ones included), nr_skipped and
# nr_taken; with the bound, every event has
#	nr_scanned - nr_requested <= 32768 + 511
# (the walk stops after the folio that took it past 32768 stepped-over
# pages, or after the eligible folio that completed the request; a folio
# is at most 512 pages).
#
# The list: after drop_caches, the nodelru_hog module holds DMA32 down to
# its low watermark plus 512 pages, so that page cache (which may not
# take DMA32 below low plus its lowmem reserve) comes from Normal alone:
# a sparse file of up to 256 MiB read then (no disk I/O: holes read as
# zeroes) is a run of Normal pages at the tail of the inactive file list
# ("A").  mlock-hog then holds all but 64 MiB of MemFree, most of it
# Normal's, the module gives back 64 MiB of DMA32, and a second sparse
# file ("B") is read: its pages go to Normal until Normal is low, then to
# DMA32 (at the zone end the fair zone policy spreads them over both), so
# the list has DMA32 page cache behind A.  Then the module asks for every
# DMA32 page above the min watermark plus half of B's DMA32 page cache,
# with __GFP_DMA32: kswapd's and direct reclaim's DMA32 passes must walk
# A from the tail to reach DMA32 pages.  A histogram trigger keyed on
# (nr_scanned, nr_requested) records every isolation.
#   before "mm, vmscan: move LRU lists to node" (the zone end): every
#     zone has its own lists, so no isolation steps over anything: the
#     histogram's nr_skipped sums to 0 and no isolation walks more than
#     4096 pages (requests are at most SWAP_CLUSTER_MAX);
#   from that patch on, before "mm, vmscan: begin reclaiming pages on a
#     per-node basis": per-zone passes over the node's lists, the walk
#     bounded: the largest nr_scanned - nr_requested is > 4096
#     (ISOLATE_SKIP_IN_PLACE: otherwise the walk never went far and the
#     test proved nothing) and <= 32768 + 511;
#   from "begin reclaiming pages on a per-node basis" on (6.1's walk, up
#     to the node end): 6.1's isolation has no bound on the walk (the
#     hard lockup reported upstream in 2024 in isolate_lru_folios()), so
#     there is nothing to assert about it: the figures are printed and
#     the test skips (exit 4) saying so.
# Where it asserts, a histogram that dropped events (map full) fails the
# test (the largest walk could be among them), and so does a run
# without any isolation during the pressure, except with per-zone lists
# when no reclaim ran at all (pgscan +0: B's page cache stayed in Normal
# and free pages met the request), which skips saying so: pgskip_* = 0
# is checked by the books after every test there.  With the multi-gen LRU on,
# the test skips (its reclaim does not walk the zone-filtered lists).
# A needs room for 192 MiB of page cache in Normal (uma at MEM=3072 has
# about 1 GiB there); with less the test skips.
# Injected fault: isolate-walk-bound makes the bounded walk's check, with
# 4096 instead of 32768 + 511, at every step, so it must fail (a walk past
# 4096 is required as well).
# Broken kernel: tests/broken/isolate-walk-unbounded.patch (the walk no
# longer ends at ISOLATE_SKIP_MAX) must fail at the step after "mm, vmscan:
# move LRU lists to node" (step 3), the one step with the bounded walk.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

tr=/sys/kernel/tracing
ev=$tr/events/vmscan/mm_vmscan_lru_isolate
hogf=/sys/kernel/debug/nodelru_hog
fa=/mnt/scratch/isolate-walk-a.sparse
fb=/mnt/scratch/isolate-walk-b.sparse
out=/tmp/isolate-walk
in_place=4096			# ISOLATE_SKIP_IN_PLACE
bound=$((32768 + 511))		# ISOLATE_SKIP_MAX plus one folio
# One histogram of every isolation (a second trigger on the event, keyed
# on lru, was refused with EINVAL on both ends, with nothing in error_log).
big='hist:keys=nr_scanned,nr_requested:vals=hitcount,nr_skipped,nr_taken:size=65536'

[ -w "$ev/trigger" ] ||
	fail "expected histogram triggers on $ev (CONFIG_HIST_TRIGGERS), saw none"
for f in nr_requested nr_scanned nr_skipped nr_taken; do
	grep -q "field:unsigned long $f;" "$ev/format" ||
		fail "expected the field $f in $ev/format, saw: $(grep -o 'field:[^;]*' "$ev/format" | tr '\n' ' ')"
done
grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
series_end
lrugen_on
if [ "$lrugen" -eq 1 ]; then
	echo "SKIP: multi-gen LRU on: reclaim walks its per-zone generation lists, not the zone-filtered LRU walk"
	exit 4
fi

# the largest lowmem reserve of node 0's zone (what a page cache
# allocation, the highest class, must leave free above the watermark)
zprot() {
	awk -v z="$1" '
		/^Node/ { node = $2; sub(",", "", node); zone = $4 }
		node == 0 && zone == z && $1 == "protection:" {
			s = $0; sub(/.*\(/, "", s); sub(/\).*/, "", s)
			n = split(s, p, ", *"); m = 0
			for (i = 1; i <= n; i++) if (p[i] + 0 > m) m = p[i] + 0
			print m; exit
		}' /proc/zoneinfo
}
# page cache of node 0's zone (both file lists)
zfile() {
	echo $(($(zf "$1" nr_zone_inactive_file) + $(zf "$1" nr_zone_active_file)))
}
need() {
	[ -n "$2" ] || fail "expected $1 in /proc/zoneinfo for node 0, saw none"
}

# An unpopulated zone has no counters in /proc/zoneinfo.
[ "$(zf Normal managed)" -gt 0 ] 2>/dev/null ||
	{ echo "SKIP: no populated Normal zone on node 0: nothing for a DMA32 pass to step over"; exit 4; }
for z in DMA32 Normal; do
	for f in free min low high managed nr_zone_inactive_file nr_zone_active_file; do
		need "$z $f" "$(zf "$z" "$f")"
	done
	need "$z protection" "$(zprot "$z")"
done

insmod /lib/modules/nodelru/nodelru_hog.ko || fail "insmod nodelru_hog.ko failed"
[ -w "$hogf" ] || fail "expected $hogf after loading nodelru_hog, saw none"
cleanup() {
	echo "!$big" >>"$ev/trigger" 2>/dev/null || true
	: >"$ev/trigger" 2>/dev/null || true
	[ -e "$hogf" ] && echo free >"$hogf"
	rmmod nodelru_hog 2>/dev/null || true
	hog_release
	rm -f "$fa" "$fb" "$out".*
}
trap cleanup EXIT

sync
echo 3 >/proc/sys/vm/drop_caches

# 1. DMA32 down to its low watermark plus 512 pages, in a few requests
#    (some of each may come from DMA).
margin=512
i=0
while [ "$i" -lt 4 ]; do
	n=$(($(zf DMA32 free) - $(zf DMA32 low) - margin))
	[ "$n" -gt 0 ] || break
	echo "dma32 $n" >"$hogf" || fail "writing 'dma32 $n' to $hogf failed"
	i=$((i + 1))
done
read -r _ h_dma h_dma32 _ _ _ _ _ <"$hogf"
echo "DMA32 held down: module holds DMA $h_dma DMA32 $h_dma32 pages; DMA32 free $(zf DMA32 free), low $(zf DMA32 low), lowmem reserve $(zprot DMA32)"

# 2. A: a run of Normal page cache at the tail of the inactive file list.
room=$(($(zf Normal free) - $(zf Normal high) - 8192))
a=$((room < 65536 ? room : 65536))
[ "$a" -ge 49152 ] || { echo "SKIP: Normal has room for $room pages of page cache, the run needs 49152 (192 MiB; the walk must outrun ISOLATE_SKIP_MAX)"; exit 4; }
n0=$(zfile Normal)
d0=$(zfile DMA32)
truncate -s $((a * 4096)) "$fa"
dd if="$fa" of=/dev/null bs=1M 2>/dev/null || fail "reading $fa failed"
n1=$(zfile Normal)
d1=$(zfile DMA32)
echo "A: $a pages read; page cache Normal +$((n1 - n0)), DMA32 +$((d1 - d0))"

# 3. Normal nearly full (so that B goes to DMA32 at the node end too),
#    then 64 MiB of DMA32 back, then B.
hog_hold 64
echo "mlock-hog: $hog_said"
echo "free 16384" >"$hogf" || fail "writing 'free 16384' to $hogf failed"
b=$(($(zf Normal free) - $(zf Normal high) + ($(zf DMA32 free) - $(zf DMA32 high) - $(zprot DMA32)) / 2))
[ "$b" -ge 2048 ] || b=2048
truncate -s $((b * 4096)) "$fb"
dd if="$fb" of=/dev/null bs=1M 2>/dev/null || fail "reading $fb failed"
n2=$(zfile Normal)
d2=$(zfile DMA32)
b32=$((d2 - d1))
echo "B: $b pages read; page cache Normal +$((n2 - n1)), DMA32 +$b32"
echo "inactive file pages: Normal $(zf Normal nr_zone_inactive_file), DMA32 $(zf DMA32 nr_zone_inactive_file)"

# 4. DMA32 pressure, with the walks recorded.
echo "$big" >"$ev/trigger" ||
	fail "could not set the trigger '$big' on $ev: $(tail -n 3 "$tr/error_log" 2>/dev/null | tr '\n' ' ')"
cp /proc/vmstat "$out.before"
half=$((b32 / 2))
# A __GFP_DMA32 request also takes DMA's free pages before it reclaims
# (seen at the zone end: a request of DMA32's free pages above min plus
# half of B was met from free pages, without any reclaim).
want=$(($(zf DMA32 free) - $(zf DMA32 min) + $(zf DMA free) + half))
[ "$want" -gt 0 ] || want=1024
rc=0
timeout -s KILL 120 sh -c "echo 'dma32 $want' >$hogf" || rc=$?
sleep 2
cp "$ev/hist" "$out.hist"
cp /proc/vmstat "$out.after"
read -r _ p_dma p_dma32 _ _ _ _ failed <"$hogf"
echo "pressure: asked for dma32 $want (DMA32 free above min + DMA free + half of B's DMA32 page cache); the module now holds DMA $p_dma DMA32 $p_dma32, $failed of the request not had"
[ "$rc" -eq 0 ] || echo "  (the request was stopped after 120 s, exit $rc)"
scans=0
for k in pgskip_dma pgskip_dma32 pgskip_normal pgscan_kswapd pgscan_direct pgsteal_kswapd pgsteal_direct allocstall_dma32; do
	d=$(awk -v k="$k" 'FNR == NR { if ($1 == k) v = $2; next } $1 == k { print $2 - v }' "$out.before" "$out.after")
	[ -z "$d" ] || echo "  $k +$d"
	case $k in pgscan_*) scans=$((scans + ${d:-0})) ;; esac
done

# From the histogram: of all isolations, how many, the pages walked and
# stepped over; of the walks past 4096 pages, how many (events), how many
# went more than 4096 and more than 32768 + 511 pages beyond their request,
# the longest (its nr_scanned, nr_requested and mean nr_skipped); the
# dropped events.
awk -v in_place="$in_place" -v bound="$bound" '
	function num(name,   s) {
		if (!match($0, name ": *[0-9]+")) return -1
		s = substr($0, RSTART, RLENGTH); sub(/.*: */, "", s)
		return s + 0
	}
	/trigger info: hist:keys=nr_scanned,nr_requested/ { h = "big"; next }
	h == "big" && /^\{/ {
		hc = num("hitcount"); ex = num("nr_scanned") - num("nr_requested")
		ae += hc; as += hc * num("nr_scanned"); ask += num("nr_skipped")
		if (num("nr_scanned") <= in_place) next
		walks += hc
		if (ex > in_place) past += hc
		if (ex > bound) over += hc
		if (ex > max) {
			max = ex; sc = num("nr_scanned"); rq = num("nr_requested")
			sk = hc ? int(num("nr_skipped") / hc) : 0
		}
	}
	/Dropped:/ { if (h == "big") bd = $2 }
	END {
		printf "%.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", walks, past, over, max, sc, rq, sk,
			bd + 0, ae, as, ask
	}' "$out.hist" >"$out.fig"
read -r walks past over max sc rq sk dropped events scanned skipped <"$out.fig"
echo "isolations during the pressure: $events, $scanned pages walked, $skipped of them stepped over"
echo "walks of more than 4096 pages: $walks; more than 4096 beyond their request: $past; more than 32768 + 511 beyond: $over"
echo "longest walk: nr_scanned - nr_requested = $max (nr_scanned $sc, nr_requested $rq, nr_skipped $sk)"
echo "the five longest (nr_scanned, nr_requested) buckets:"
sed -n '/keys=nr_scanned/,/Dropped/p' "$out.hist" | { grep '^{' || true; } |
	sort -t: -k2 -n -r | awk 'NR <= 5 { print "  " $0 }'

[ "$dropped" -eq 0 ] || echo "the histogram dropped $dropped events (map full)"

if ! applied mm-vmscan-move-LRU-lists-to-node.patch; then
	check=lists
elif ! applied mm-vmscan-begin-reclaiming-pages-on-a-per-node-basis.patch; then
	check=bounded
else
	check=unbounded
fi
if inject isolate-walk-bound; then
	bound=$in_place
	check=bounded
fi
case $check in
lists)
	[ "$dropped" -eq 0 ] ||
		fail "expected the histogram to hold every isolation, it dropped $dropped events"
	# With per-zone lists B's page cache can stay out of DMA32 (kswapd
	# refills Normal by reclaiming A there), and then the request is met
	# from free pages without any reclaim: nothing to check here (the
	# books check pgskip_* = 0 after every test at these steps).
	if [ "$events" -eq 0 ] && [ "$scans" -eq 0 ]; then
		echo "SKIP: step $step: the DMA32 request was met without reclaim (pgscan +0, B's DMA32 page cache +$b32), so no DMA32 pass ran to check"
		exit 4
	fi
	[ "$events" -gt 0 ] ||
		fail "expected isolations (mm_vmscan_lru_isolate) while reclaiming for DMA32 (pgscan +$scans), saw none"
	[ "$skipped" -eq 0 ] ||
		fail "expected per-zone LRU lists (before the lists move to the node) to hold nothing to step over, saw $skipped pages stepped over"
	[ "$walks" -eq 0 ] ||
		fail "expected no isolation to walk more than 4096 pages on per-zone lists, saw $walks (longest $max beyond its request)"
	echo "ok: per-zone lists: $events isolations, none stepped over a page or walked more than 4096"
	;;
bounded)
	[ "$dropped" -eq 0 ] ||
		fail "expected the histogram to hold every isolation, it dropped $dropped events: the longest walk could be among them"
	[ "$events" -gt 0 ] ||
		fail "expected isolations (mm_vmscan_lru_isolate) while reclaiming for DMA32, saw none"
	[ "$max" -gt "$in_place" ] ||
		fail "expected a walk past ISOLATE_SKIP_IN_PLACE (nr_scanned - nr_requested > $in_place: a DMA32 pass stepping over A's Normal run), saw at most $max; the test proved nothing"
	[ "$max" -le "$bound" ] ||
		fail "expected every isolation to end within $bound pages beyond its request, saw $max (nr_scanned $sc, nr_requested $rq; $past event(s) beyond 4096, $over beyond 32768 + 511)"
	echo "ok: step $step: the longest walk went $max pages beyond its request (bound $bound)"
	;;
*)
	echo "SKIP: step $step: 6.1's zone-filtered isolation has no bound on the walk (upstream's 2024 hard lockup in isolate_lru_folios()); longest walk here $max pages beyond its request, $over walk(s) past 32768 + 511"
	exit 4
	;;
esac
