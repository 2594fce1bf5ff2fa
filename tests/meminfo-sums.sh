#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke,full timeout=120 topo=all order=91
#
# /proc/meminfo and the per-node meminfo files agree: for every field both
# have (MemFree, Active(file), Inactive(anon), Mlocked, Dirty, AnonPages,
# Mapped, Shmem, Slab, ...), the nodes' values add up to the global one.
# After vm.stat_refresh both come from folded counters, so they differ
# only by what other tasks did during the reads: lru-snap takes the
# snapshot without faulting (see lru-sums), the tolerance is 64 KiB per
# field, and up to 5 rounds are taken (a real mismatch is persistent).
# Fault: INJECT=meminfo-skew adds 1 MiB to node 0's MemFree as read.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh
skew=0
if inject meminfo-skew; then
	skew=1024
fi

check() {
	# shellcheck disable=SC2046 # one argument per node file
	lru-snap /proc/meminfo $(for nd in /sys/devices/system/node/node[0-9]*; do
		echo "$nd/meminfo"; done) >/tmp/meminfo-snap.out || fail "lru-snap failed"
	bad=$(awk -v skew="$skew" '
		$1 == "==>" { file = $2; next }
		file == "/proc/meminfo" { k = $1; sub(":", "", k); glob[k] = $2; next }
		$1 == "Node" {
			k = $3; sub(":", "", k)
			v = $4
			if ($2 == 0 && k == "MemFree") v += skew
			node[k] += v
		}
		END {
			for (k in node) {
				if (!(k in glob) || k ~ /^HugePages_/)
					continue
				n++
				d = node[k] - glob[k]
				if (d > 64 || d < -64)
					printf " %s(nodes=%.0f,meminfo=%.0f kB)", k, node[k], glob[k]
			}
			if (n < 10)
				printf " only %d common fields (expected 10+)", n
		}' /tmp/meminfo-snap.out)
	[ -z "$bad" ]
}

for round in 1 2 3 4 5; do
	if check; then
		echo "meminfo and the node meminfo files agree (round $round, within 64 kB per field)"
		rm -f /tmp/meminfo-snap.out
		exit 0
	fi
	echo "round $round: mismatch:$bad"
	sleep 1
done
rm -f /tmp/meminfo-snap.out
fail "meminfo and the sum of the node meminfo files disagree in 5 rounds:$bad"
