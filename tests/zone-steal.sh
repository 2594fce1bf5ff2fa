#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=full timeout=900 topo=uma order=67
#
# How much each zone gives to reclaim under one deterministic load: a
# sparse file of 3/2 of MemTotal on the scratch disk (holes: clean page
# cache without disk I/O) is read once with cat, three rounds, the caches
# dropped before each.  The figure is per zone, counted from the
# allocator's books: pages freed in zone Z during the read are
#	freed_Z = pgalloc_Z + (free_Z + pcp_Z)_after - (free_Z + pcp_Z)_before
# (free_Z: the zone's free pages, pcp_Z: the pages on its per-cpu lists,
# both from /proc/zoneinfo; pgalloc_Z from /proc/vmstat), and with nothing
# but the read running nearly all of it is reclaim (6.1 has no per-zone
# pgsteal).  Printed per round: each zone's freed pages and share of the
# total, pgsteal and pgfree.  scripts/zone-steal-compare.sh sets two
# kernels' rounds side by side: before and after "mm, vmscan: move LRU
# lists to node" the shares must agree within noise, since the lists'
# move changes the LRU order across zones, not how much each zone gives
# (issue 31).
# Checks, every round: reclaim ran (pgsteal > 0); the books close: the
# zones' freed pages sum to pgfree within 1 % + 2048 pages (what else ran
# during the snapshots), so the per-zone figure counts every free; and
# they are at least pgsteal less the same slack (every reclaimed page is
# a freed one).
# Injected fault: zone-steal-noalloc leaves pgalloc_Z out of the figure,
# so the books cannot close: must fail at every step.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
series_end
f=/mnt/scratch/zone-steal.sparse
trap 'rm -f "$f"' EXIT
kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
noalloc=0
if inject zone-steal-noalloc; then
	noalloc=1
fi

# snap: "ZONE free pcp" for node 0's populated zones, then "vm NAME VALUE"
# for pgalloc_*, pgfree, pgsteal_kswapd, pgsteal_direct.
snap() {
	echo 1 >/proc/sys/vm/stat_refresh
	awk '
		/^Node/ { node = $2; sub(",", "", node); zone = $4; next }
		node != 0 { next }
		$1 == "pages" && $2 == "free" { free[zone] = $3; order[++nz] = zone }
		$1 == "present" { present[zone] = $2 }
		$1 == "count:" { pcp[zone] += $2 }
		END { for (i = 1; i <= nz; i++) if (present[order[i]] > 0) print order[i], free[order[i]], pcp[order[i]] + 0 }
	' /proc/zoneinfo
	awk '$1 ~ /^pgalloc_/ || $1 == "pgfree" || $1 == "pgsteal_kswapd" || $1 == "pgsteal_direct" { print "vm", $1, $2 }' /proc/vmstat
}

echo "kernel $release (step $step), MemTotal $kb kB: three rounds, each reads a sparse file of $((kb * 3 / 2 / 1024)) MiB once"
for round in 1 2 3; do
	rm -f "$f"
	truncate -s "$((kb * 1024 * 3 / 2))" "$f" || fail "truncate $f failed"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	before=$(snap)
	cat "$f" >/dev/null || fail "round $round: reading $f failed"
	after=$(snap)
	rm -f "$f"
	# shellcheck disable=SC2016 # awk program
	res=$(printf '%s\n==\n%s\n' "$before" "$after" | awk -v round="$round" -v noalloc="$noalloc" '
		$1 == "==" { a = 1; next }
		$1 == "vm" { if (a) va[$2] = $3; else vb[$2] = $3; next }
		{ if (a) { fa[$1] = $2 + $3 } else { fb[$1] = $2 + $3; z[++nz] = $1 } }
		END {
			tot = 0
			for (i = 1; i <= nz; i++) {
				k = "pgalloc_" tolower(z[i])
				fr[i] = (noalloc ? 0 : va[k] - vb[k]) + fa[z[i]] - fb[z[i]]
				tot += fr[i]
			}
			for (i = 1; i <= nz; i++)
				printf "zone-steal: round %d %s freed %d share %.4f\n", round, z[i], fr[i], (tot > 0 ? fr[i] / tot : 0)
			steal = va["pgsteal_kswapd"] - vb["pgsteal_kswapd"] + va["pgsteal_direct"] - vb["pgsteal_direct"]
			pgfree = va["pgfree"] - vb["pgfree"]
			printf "zone-steal: round %d total freed %d pgfree %d pgsteal %d\n", round, tot, pgfree, steal
			printf "sums %d %d %d\n", tot, pgfree, steal
		}')
	echo "$res" | grep -v '^sums '
	# shellcheck disable=SC2046 # three numbers
	set -- $(echo "$res" | awk '$1 == "sums" { print $2, $3, $4 }')
	tot=$1 pgfree=$2 steal=$3
	slack=$((pgfree / 100 + 2048))
	[ "$steal" -gt 0 ] || fail "round $round: expected reclaim while reading 3/2 of RAM (pgsteal > 0), saw $steal"
	gap=$((tot - pgfree))
	[ "$gap" -ge 0 ] || gap=$((-gap))
	[ "$gap" -le "$slack" ] ||
		fail "round $round: expected the zones' freed pages ($tot) to sum to pgfree ($pgfree) within $slack, saw a gap of $gap"
	[ "$tot" -ge $((steal - slack)) ] ||
		fail "round $round: expected the zones' freed pages ($tot) to be at least pgsteal ($steal) less $slack"
done
echo "ok: three rounds, the per-zone books closed each time (shares above)"
