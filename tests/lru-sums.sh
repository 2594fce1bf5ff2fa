#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke,full timeout=120 topo=all order=90
#
# LRU accounting adds up, after the per-cpu counters are folded
# (vm.stat_refresh):
#   - per node, the zone LRU counters (nr_zone_*) summed over the node's
#     zones equal the node's LRU items (nr_*) in nodeN/vmstat;
#   - the node items summed over nodes equal /proc/vmstat;
#   - nr_isolated_anon and nr_isolated_file are 0 at rest.
# Each round takes its snapshot with lru-snap, which locks its memory,
# folds the per-cpu counters and reads all files without touching the LRU
# in between, so the sums must agree exactly.  Other tasks (kswapd,
# writeback, khugepaged) may still move pages in that window, so up to 5
# rounds are taken; a real leak is persistent and fails every round.
# (Reading with ordinary tools instead skews the sums by up to the per-cpu
# fold thresholds: their own page faults change the zone and node counters
# after the fold, and the two fold at different thresholds.)
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
fail() { echo "FAIL: $*"; exit 1; }
LISTS="inactive_anon active_anon inactive_file active_file unevictable"

check() {
	# shellcheck disable=SC2046 # one argument per node file
	lru-snap /proc/zoneinfo $(for nd in /sys/devices/system/node/node[0-9]*; do
		echo "$nd/vmstat"; done) /proc/vmstat >/tmp/lru-snap.out || fail "lru-snap failed"
	bad=$(awk -v lists="$LISTS" '
		$1 == "==>" { file = $2; next }
		file == "/proc/zoneinfo" {
			if ($1 == "Node") { node = $2; sub(",", "", node) }
			if ($1 ~ /^nr_zone_/) { k = $1; sub("nr_zone_", "", k); zone[node, k] += $2 }
			next
		}
		file == "/proc/vmstat" { glob[$1] = $2; next }
		{
			n = file; sub(".*/node", "", n); sub("/vmstat", "", n)
			nodes[n] = 1; nv[n, $1] = $2; sum[$1] += $2
		}
		END {
			split(lists, L, " ")
			for (n in nodes)
				for (i in L)
					if (zone[n, L[i]] + 0 != nv[n, "nr_" L[i]] + 0)
						printf " node%s:%s(zones=%.0f,node=%.0f)", n, L[i], zone[n, L[i]], nv[n, "nr_" L[i]]
			L["x1"] = "isolated_anon"; L["x2"] = "isolated_file"
			for (i in L) {
				k = "nr_" L[i]
				if (sum[k] + 0 != glob[k] + 0)
					printf " %s(nodes=%.0f,vmstat=%.0f)", L[i], sum[k], glob[k]
			}
			if (glob["nr_isolated_anon"] + 0 != 0 || glob["nr_isolated_file"] + 0 != 0)
				printf " nr_isolated(expected=0,saw=%.0f+%.0f)", glob["nr_isolated_anon"], glob["nr_isolated_file"]
		}' /tmp/lru-snap.out)
	[ -z "$bad" ]
}

for round in 1 2 3 4 5; do
	if check; then
		echo "LRU sums agree (round $round)"
		grep -E '^nr_(in)?active_(anon|file) |^nr_unevictable ' /proc/vmstat
		exit 0
	fi
	echo "round $round: mismatch:$bad"
	sleep 1
done
echo "FAIL: LRU counters disagree in 5 rounds:$bad"
exit 1
