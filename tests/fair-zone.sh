#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke timeout=300 topo=uma order=20
#
# Where streaming page cache is allocated, zone by zone (the first table
# of the 2016 cover letter).  A file of a third of Normal's free memory
# (at most 256 MiB) is written to the scratch disk; the pgalloc_* deltas
# give each zone's share of the allocations.
#
#   Fair zone allocation policy (nr_alloc_batch in /proc/zoneinfo, the
#   zone-LRU end of the series): allocations are spread over the node's
#   zones in proportion to their size.  Pass: DMA32's share is within
#   +-15 % (relative) of DMA32's share of the managed pages of DMA, DMA32
#   and Normal.
#
#   No fairness (the node-LRU end): allocations come from the highest
#   zone while it has free memory.  Pass: DMA32's share is under 5 %.
#
# The ends of the series must show their policy: a kernel release *-nodelru-zone-*
# must have nr_alloc_batch, a *-nodelru-node-* one must not.  All kernels print
# the shares, the managed pages and the fairness batches.
# Injected fault: fair-zone-other-policy checks the shares against the
# other policy than the kernel has: must fail at both ends.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

file=/mnt/scratch/fair-zone.dat
grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"

# "zone managed free low high batch" for node 0's DMA, DMA32 and Normal.
zinfo() {
	awk '
		/^Node/ { node = $2; sub(",", "", node); zone = $4 }
		node != 0 { next }
		$1 == "pages" && $2 == "free" { free[zone] = $3 }
		$1 == "low" { low[zone] = $2 }
		$1 == "high" { high[zone] = $2 }
		$1 == "managed" { managed[zone] = $2 }
		$1 == "nr_alloc_batch" { batch[zone] = $2 }
		END {
			for (z in managed)
				if (z == "DMA" || z == "DMA32" || z == "Normal")
					print z, managed[z], free[z], low[z], high[z], \
						(z in batch) ? batch[z] : "-"
		}
	' /proc/zoneinfo
}

zones=$(zinfo)
echo "$zones" | while read -r line; do echo "zone managed free low high nr_alloc_batch: $line"; done
field() { echo "$zones" | awk -v z="$1" -v f="$2" '$1 == z { print $f }'; }
m_dma32=$(field DMA32 2)
m_normal=$(field Normal 2)
m_dma=$(field DMA 2)
m_dma32=${m_dma32:-0} m_normal=${m_normal:-0} m_dma=${m_dma:-0}
[ "$m_dma32" -gt 0 ] || fail "expected a populated DMA32 zone on node 0, saw none"
[ "$m_normal" -gt 0 ] || fail "expected a populated Normal zone on node 0, saw none"

if grep -q nr_alloc_batch /proc/zoneinfo; then
	mode=fair
else
	mode=nofair
fi
series_end
case $end in
zone) [ "$mode" = fair ] || fail "zone end ($release): expected nr_alloc_batch in /proc/zoneinfo, saw none" ;;
node) [ "$mode" = nofair ] || fail "node end ($release): expected no nr_alloc_batch in /proc/zoneinfo, saw it" ;;
esac

sync
echo 3 >/proc/sys/vm/drop_caches
free_normal=$(awk '/^Node/ { zone = $4 } zone == "Normal" && $1 == "pages" && $2 == "free" { print $3; exit }' /proc/zoneinfo)
mib=$((free_normal * 4 / 1024 / 3))
[ "$mib" -le 256 ] || mib=256
[ "$mib" -ge 32 ] || fail "expected at least 96 MiB free in Normal to stream into, saw $((free_normal * 4 / 1024)) MiB"

b_dma=$(vm pgalloc_dma)
b_dma32=$(vm pgalloc_dma32)
b_normal=$(vm pgalloc_normal)
dd if=/dev/zero of="$file" bs=1M count="$mib" conv=fsync 2>/dev/null || fail "writing $mib MiB to $file failed"
a_dma=$(vm pgalloc_dma)
a_dma32=$(vm pgalloc_dma32)
a_normal=$(vm pgalloc_normal)
d_dma=$((a_dma - b_dma)) d_dma32=$((a_dma32 - b_dma32)) d_normal=$((a_normal - b_normal))
rm -f "$file"
total=$((d_dma + d_dma32 + d_normal))
echo "mode $mode, wrote $mib MiB: pgalloc dma $d_dma dma32 $d_dma32 normal $d_normal"
[ "$total" -ge $((mib * 256)) ] || fail "expected at least $((mib * 256)) page allocations for $mib MiB, saw $total"

# Shares in permille, to stay in shell arithmetic.
share=$((d_dma32 * 1000 / total))
expect=$((m_dma32 * 1000 / (m_dma + m_dma32 + m_normal)))
echo "DMA32 share of allocations: ${share} permille; of managed pages: ${expect} permille"
check=$mode
if inject fair-zone-other-policy; then
	if [ "$mode" = fair ]; then check=nofair; else check=fair; fi
	echo "injected fair-zone-other-policy: checking the $check policy's expectation"
fi
case $check in
fair)
	lo=$((expect * 85 / 100))
	hi=$((expect * 115 / 100))
	if [ "$share" -lt "$lo" ] || [ "$share" -gt "$hi" ]; then
		fail "fair zone policy: expected DMA32's share in [$lo, $hi] permille, saw $share"
	fi
	;;
nofair)
	[ "$share" -lt 50 ] ||
		fail "no fair zone policy: expected DMA32's share under 50 permille, saw $share"
	;;
esac
echo "ok: $check allocation distribution"
