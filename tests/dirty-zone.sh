#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=full timeout=480 topo=uma order=65
#
# Per-zone dirty limits (zone_dirty_ok() in get_page_from_freelist()) at
# the zone-LRU end of the series, the per-node limit at the node-LRU end.
#
# vm.dirty_ratio and vm.dirty_background_ratio are set to 5 (background
# writeback from half the limit), periodic writeback is off (all six
# dirty sysctls are restored at exit), the caches are dropped, and a file
# of 3 times the sum of the zones' dirty limits (256 to 768 MiB, at most a
# third of MemFree) is written with dd to the scratch disk.  Every 200 ms
# during the write /proc/zoneinfo is read once and, for every populated
# zone of node 0, the dirty limit is computed as zone_dirty_limit() does:
#	reserve = min(managed, max(protection) + high - boost)
#	limit   = dirty_ratio * (max(free - reserve, 0)
#		  + nr_zone_inactive_file + nr_zone_active_file) / 100
# (reserve is zone->totalreserve_pages as calculate_totalreserve_pages()
# sets it; high - boost is the high watermark it saw), and compared with
# the zone's nr_zone_write_pending (dirty + writeback).  The node limit is
# the same formula over the node's sums, compared with nr_dirty +
# nr_writeback of the per-node stats.
#
# Which end: the zone end has nr_zone_file_pages in /proc/zoneinfo; a
# kernel release *-nodelru-zone-* must have it, *-nodelru-node-* must not.
#
# Zone end, run 1 (plain): every sample's write_pending of every zone is
# within
#	bound = limit + limit / 8 + ncpu * stat_threshold + 64
# where stat_threshold is the zone's "vm stats threshold" (the per-cpu
# drift of NR_ZONE_WRITE_PENDING the allocator could not see), limit / 8
# covers the limit moving between the allocator's check and the sample
# (free and file pages change as writeback completes and kswapd runs;
# zoneinfo is not one atomic read), and 64 pages the folios allocated after
# the check and dirtied after it.  A sample where the zones together hold
# more than the sum of their limits is excused: then no zone was within
# its limit and the slowpath allocates regardless (the XXX in
# get_page_from_freelist()).  An excused sample counts in no zone figure
# (neither the bound nor the ratios below), and at most half the samples
# may be excused, else the zone limits were hardly tested.  The write must
# reach at least half of
# Normal's limit (else the check is vacuous), and DMA32 must take page
# cache (pgalloc_dma32 rises).  With the fair zone allocation policy, also
# at the zone end, DMA32 takes its share from the start, so that last
# check cannot tell the dirty limit from fairness; run 2 can:
# Zone end, run 2 (DMA32 squeezed): nodelru_hog holds two thirds of
# DMA32's free pages, so DMA32's dirtyable share (about 0.4) falls below
# its fair allocation share (about 0.67); the same bound must hold for
# DMA32, which a kernel without per-zone dirty limits overshoots (about
# 1.6 times its limit), and DMA32 must reach half of its limit.
#
# Node end: run 1 only; the same figures are printed, and only the node is
# checked: nr_dirty + nr_writeback within 3/2 * node limit + 1024 (the
# slack of dirty-writeback: ratelimit batches and the slowly falling hard
# limit of balance_dirty_pages()), and at least 40 % of the node limit
# reached in some sample (else the bound is vacuous; background writeback
# starts at half of it, and the zone end's runs peaked at 53 to 56 %).
#
# Both ends: no dd error, at least 10 samples.  The runner checks the
# books after the test (tests/lib/books.sh).
#
# Injected faults: dirty-zone-tight checks against a quarter of each zone's
# limit (an eighth of the node's at the node end): must fail.  On the
# kernel side, tests/broken/zone-dirty-ok-true.patch (zone_dirty_ok()
# always true) must fail run 2 at the zone end.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

file=/mnt/scratch/dirty-zone.dat
samples=/tmp/dirty-zone.samples
done_file=/tmp/dirty-zone.done
hog=/sys/kernel/debug/nodelru_hog
vmdir=/proc/sys/vm
ratio=5
grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"

saved_r=$(cat $vmdir/dirty_ratio) saved_br=$(cat $vmdir/dirty_background_ratio)
saved_b=$(cat $vmdir/dirty_bytes) saved_bb=$(cat $vmdir/dirty_background_bytes)
saved_wc=$(cat $vmdir/dirty_writeback_centisecs) saved_ec=$(cat $vmdir/dirty_expire_centisecs)
hog_loaded=0
cleanup() {
	[ "$hog_loaded" -eq 0 ] || { echo free >"$hog"; rmmod nodelru_hog 2>/dev/null || true; }
	echo "$saved_r" >$vmdir/dirty_ratio
	echo "$saved_br" >$vmdir/dirty_background_ratio
	echo "$saved_wc" >$vmdir/dirty_writeback_centisecs
	echo "$saved_ec" >$vmdir/dirty_expire_centisecs
	[ "$saved_b" -eq 0 ] || echo "$saved_b" >$vmdir/dirty_bytes
	[ "$saved_bb" -eq 0 ] || echo "$saved_bb" >$vmdir/dirty_background_bytes
	rm -f "$file" "$samples" "$done_file"
}
trap cleanup EXIT

if grep -q '^ *nr_zone_file_pages ' /proc/zoneinfo; then
	form=zone
else
	form=node
fi
series_end
case $end in
zone) [ $form = zone ] || fail "zone end ($release): expected nr_zone_file_pages in /proc/zoneinfo, saw none" ;;
node) [ $form = node ] || fail "node end ($release): expected no nr_zone_file_pages in /proc/zoneinfo, saw it" ;;
esac
ncpu=$(grep -c '^processor' /proc/cpuinfo)
tight=0
if inject dirty-zone-tight; then
	tight=1
fi

# One sample of node 0: "S total_pend total_limit node_pend node_limit
# ZONE pend limit bound ..." for every populated zone.
sample() {
	awk -v ratio="$ratio" -v ncpu="$ncpu" -v tight="$tight" '
		/^Node/ { node = $2; sub(",", "", node); zone = $4; next }
		node != 0 { next }
		$1 == "pages" && $2 == "free" { free[zone] = $3; order[++nz] = zone; next }
		$1 == "boost" { boost[zone] = $2 }
		$1 == "high" { high[zone] = $2 }
		$1 == "managed" { managed[zone] = $2 }
		$1 == "protection:" {
			m = 0
			for (i = 2; i <= NF; i++) { v = $i; gsub(/[(),]/, "", v); if (v + 0 > m) m = v + 0 }
			prot[zone] = m
		}
		$1 == "nr_zone_inactive_file" || $1 == "nr_zone_active_file" { file[zone] += $2 }
		$1 == "nr_zone_write_pending" { pend[zone] = $2; pop[zone] = 1 }
		$1 == "nr_dirty" || $1 == "nr_writeback" { npend += $2 }
		$1 == "vm" && $2 == "stats" && $3 == "threshold:" { if ($4 > thr[zone]) thr[zone] = $4 }
		END {
			line = ""
			for (i = 1; i <= nz; i++) {
				z = order[i]
				if (!pop[z])
					continue
				res = prot[z] + high[z] - boost[z]
				if (res > managed[z])
					res = managed[z]
				d = free[z] > res ? free[z] - res : 0
				lim = int(ratio * (d + file[z]) / 100)
				bound = tight ? int(lim / 4) : lim + int(lim / 8) + ncpu * thr[z] + 64
				line = line sprintf(" %s %d %d %d", z, pend[z], lim, bound)
				tp += pend[z]; tl += lim
				nfree += free[z]; nres += res; nfile += file[z]
			}
			nd = nfree > nres ? nfree - nres : 0
			nlim = int(ratio * (nd + nfile) / 100)
			printf "S %d %d %d %d%s\n", tp, tl, npend, nlim, line
		}' /proc/zoneinfo
}

# run NAME MIB: write MIB MiB while sampling; leaves the samples in $samples
# and the pgalloc deltas in d_dma32 and d_normal.
run() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	rm -f "$samples" "$done_file"
	b32=$(vm pgalloc_dma32)
	bn=$(vm pgalloc_normal)
	(
		rc=0
		dd if=/dev/zero of="$file" bs=1M count="$2" 2>/dev/null || rc=$?
		echo "$rc" >"$done_file"
	) &
	while [ ! -e "$done_file" ]; do
		sample >>"$samples"
		sleep 0.2
	done
	wait
	sample >>"$samples"
	[ "$(cat "$done_file")" -eq 0 ] || fail "$1: writing $2 MiB to $file failed (dd exit $(cat "$done_file"))"
	a32=$(vm pgalloc_dma32)
	an=$(vm pgalloc_normal)
	d_dma32=$((a32 - b32)) d_normal=$((an - bn))
	sync
	rm -f "$file"
	n=$(wc -l <"$samples")
	echo "$1: wrote $2 MiB, $n samples; pgalloc dma32 +$d_dma32 normal +$d_normal"
	[ "$n" -ge 10 ] || fail "$1: expected at least 10 samples during the write, saw $n"
}

# report: per zone and for the node, the largest write_pending, its limit
# then, the largest ratio, the samples over the bound (excused ones apart)
# and the first one over; "max ZONE ratio" lines for the checks below.
report() {
	awk '
		{
			tp = $2; tl = $3
			if (NR == 1 || $4 > nmax) { nmax = $4; nlim_at = $5 }
			nr = $5 > 0 ? $4 / $5 : ($4 > 0 ? 99 : 0)
			if (nr > nrmax) nrmax = nr
			nb = int($5 * 3 / 2) + 1024
			if (ENVIRON["tight"] == 1) nb = int($5 / 8)
			if ($4 > nb) { nover++; if (nfirst == "") nfirst = $0 }
			# Zones together over the sum of their limits: no zone
			# was within its limit, the slowpath allocates anyway.
			# Such a sample says nothing about the zone limits and
			# counts in no zone figure.
			if (tp > tl) { nexc++; next }
			for (i = 6; i + 3 <= NF; i += 4) {
				z = $i; p = $(i + 1); l = $(i + 2); b = $(i + 3)
				zs[z] = 1
				if (!(z in pmax) || p > pmax[z]) { pmax[z] = p; lat[z] = l }
				r = l > 0 ? p / l : (p > 0 ? 99 : 0)
				if (r > rmax[z]) rmax[z] = r
				if (p > b) {
					over[z]++
					if (first[z] == "") first[z] = $0
				}
			}
		}
		END {
			for (z in zs) {
				printf "zone %s: max write_pending %d (limit then %d), max ratio %.2f, over bound %d\n", \
					z, pmax[z], lat[z], rmax[z], over[z] + 0
				if (over[z]) printf "  first over: %s\n", first[z]
				printf "max %s %.3f %d\n", z, rmax[z], over[z] + 0
			}
			printf "samples: %d, excused (zones over the sum of their limits) %d\n", NR, nexc + 0
			printf "node: max nr_dirty+nr_writeback %d (limit then %d), max ratio %.2f, over 3/2*limit+1024: %d\n", nmax, nlim_at, nrmax, nover + 0
			if (nover) printf "  first over: %s\n", nfirst
			printf "max node %.3f %d\n", nrmax, nover + 0
			printf "excused %d %d\n", nexc + 0, NR
		}' "$samples"
}
# field of a "max ZONE ratio over" line of the report in $rep
rmax() { echo "$rep" | awk -v z="$1" '$1 == "max" && $2 == z { print int($3 * 1000) }'; }
nover() { echo "$rep" | awk -v z="$1" '$1 == "max" && $2 == z { print $4 }'; }
show() { echo "$rep" | grep -v '^max '; }

echo $ratio >$vmdir/dirty_ratio
# Background writeback from half the limit only (the kernel halves a
# background ratio not below dirty_ratio), and no periodic or expiry
# writeback: the virtio disk under TCG writes back as fast as dd dirties
# with a background ratio of 1 (seen: Normal at 23% of its limit), and
# the zone limits are only tested when the zones fill up to them.
echo $ratio >$vmdir/dirty_background_ratio
echo 0 >$vmdir/dirty_writeback_centisecs
echo 360000 >$vmdir/dirty_expire_centisecs
sync
echo 3 >/proc/sys/vm/drop_caches
# shellcheck disable=SC2046 # the sample's words
set -- $(sample)
sumlim=$3
mib=$((sumlim * 3 / 256))
[ "$mib" -ge 256 ] || mib=256
[ "$mib" -le 768 ] || mib=768
memfree_mib=$(($(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo) / 1024))
[ "$mib" -le $((memfree_mib / 3)) ] || mib=$((memfree_mib / 3))
echo "end: $end, form: $form ($release), $ncpu cpus, dirty_ratio $ratio, background $ratio (halved), no periodic writeback;" \
	"zone limits now sum to $sumlim pages, node limit $5 pages; writing $mib MiB"
echo "first sample: $*"

run run1 "$mib"
export tight
rep=$(report)
show
echo "$rep" | grep -q '^max Normal ' || fail "expected a populated Normal zone on node 0, saw none"
echo "$rep" | grep -q '^max DMA32 ' || fail "expected a populated DMA32 zone on node 0, saw none"

if [ $form = node ]; then
	[ "$(nover node)" -eq 0 ] ||
		fail "node end: expected node 0's nr_dirty+nr_writeback within 3/2 of its limit + 1024 in every sample, saw $(nover node) over"
	[ "$(rmax node)" -ge 400 ] ||
		fail "node end: expected the write to bring node 0 to at least 40% of its dirty limit (background writeback starts at 50%), saw $(($(rmax node) / 10))%"
	echo "ok: node end, node dirty limit held and reached ($(($(rmax node) / 10))%); Normal reached $(($(rmax Normal) / 10))% of its zone limit (not checked)"
	exit 0
fi
# excused: "excused N SAMPLES" of the report in $rep
excused_ok() {
	echo "$rep" | awk '$1 == "excused" { exit !($2 * 2 <= $3) }'
}

for z in $(echo "$rep" | awk '$1 == "max" && $2 != "node" { print $2 }'); do
	[ "$(nover "$z")" -eq 0 ] ||
		fail "run1: expected $z's nr_zone_write_pending within its dirty limit bound in every sample, saw $(nover "$z") samples over"
done
[ "$(rmax Normal)" -ge 500 ] ||
	fail "run1: expected the write to bring Normal to at least half its dirty limit, saw $(($(rmax Normal) / 10))%"
[ "$d_dma32" -gt 0 ] || fail "run1: expected page cache to spill into DMA32 (pgalloc_dma32 > 0), saw $d_dma32"
excused_ok || fail "run1: expected at most half the samples excused (zones over the sum of their limits), saw $(echo "$rep" | awk '$1 == "excused" { print $2 " of " $3 }')"
echo "ok: run1, zone dirty limits held, Normal reached $(($(rmax Normal) / 10))% of its limit, DMA32 took $d_dma32 pages"

# Run 2: squeeze DMA32 so that its dirty limit, not fairness, decides.
insmod /lib/modules/nodelru/nodelru_hog.ko || fail "insmod nodelru_hog.ko failed"
hog_loaded=1
f32=$(awk '/^Node/ { zone = $4 } zone == "DMA32" && $1 == "pages" && $2 == "free" { print $3; exit }' /proc/zoneinfo)
want=$((f32 * 2 / 3))
echo "dma32 $want" >"$hog" || fail "writing 'dma32 $want' to $hog failed"
read -r _ _ h32 _ _ _ _ failed <"$hog"
echo "run2: DMA32 had $f32 free pages, the hog holds $h32 of them (failed $failed)"
[ "$h32" -ge $((want * 9 / 10)) ] || fail "run2: expected the hog to hold $want DMA32 pages, it holds $h32"
run run2 "$mib"
rep=$(report)
show
[ "$(nover DMA32)" -eq 0 ] ||
	fail "run2: expected DMA32's nr_zone_write_pending within its dirty limit bound with DMA32 squeezed, saw $(nover DMA32) samples over"
[ "$(rmax DMA32)" -ge 500 ] ||
	fail "run2: expected the write to bring DMA32 to at least half its dirty limit, saw $(($(rmax DMA32) / 10))%"
excused_ok || fail "run2: expected at most half the samples excused (zones over the sum of their limits), saw $(echo "$rep" | awk '$1 == "excused" { print $2 " of " $3 }')"
echo free >"$hog"
echo "ok: run2, DMA32 held to its dirty limit (max $(($(rmax DMA32) / 10))%) while fairness favours it; Normal took $d_normal pages"
