#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke timeout=120 topo=all order=90
#
# LRU accounting adds up, after the per-cpu counters are folded
# (vm.stat_refresh):
#   - per node, the zone LRU counters (nr_zone_*) summed over the node's
#     zones equal the node's LRU items (nr_*) in nodeN/vmstat;
#   - the node items summed over nodes equal /proc/vmstat;
#   - nr_isolated_anon and nr_isolated_file are 0 at rest.
# Pages move while we read, so up to 5 rounds are taken; a real leak is
# persistent and fails every round.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
LISTS="inactive_anon active_anon inactive_file active_file unevictable"

check() {
	echo 1 >/proc/sys/vm/stat_refresh
	bad=""
	for nd in /sys/devices/system/node/node[0-9]*; do
		n=${nd##*node}
		for l in $LISTS; do
			z=$(awk -v n="$n" -v k="nr_zone_$l" '
				/^Node/ { node = $2; sub(",", "", node) }
				node == n && $1 == k { s += $2 }
				END { print s + 0 }' /proc/zoneinfo)
			v=$(awk -v k="nr_$l" '$1 == k { print $2 }' "$nd/vmstat")
			[ "$z" = "$v" ] ||
				bad="$bad node$n:$l(zones=$z,node=$v)"
		done
	done
	for l in $LISTS isolated_anon isolated_file; do
		s=$(cat /sys/devices/system/node/node[0-9]*/vmstat |
			awk -v k="nr_$l" '$1 == k { s += $2 } END { print s + 0 }')
		g=$(awk -v k="nr_$l" '$1 == k { print $2 }' /proc/vmstat)
		[ "$s" = "$g" ] || bad="$bad $l(nodes=$s,vmstat=$g)"
	done
	for l in isolated_anon isolated_file; do
		g=$(awk -v k="nr_$l" '$1 == k { print $2 }' /proc/vmstat)
		[ "$g" = 0 ] || bad="$bad nr_$l(expected=0,saw=$g)"
	done
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
