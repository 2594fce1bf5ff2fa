#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke timeout=60 topo=all order=10
#
# The kernel booted on the topology QEMU gave it: /proc/zoneinfo and the
# per-node vmstat files exist, and the populated zones per node are the
# ones the topology promises.
#   uma:     one node with DMA, DMA32 and Normal populated
#   numa:    two nodes, node 0 with two or more zones, node 1 with one
#   movable: one node with a populated Movable zone (movablecore=)
# And which LRU design runs: a kernel built with the multi-gen LRU (its
# release names the flavor, *+mglru*: node-debug+mglru, bench+mglru) must
# have it on, bit 0 (LRU_GEN_CORE) of /sys/kernel/mm/lru_gen/enabled; any
# other kernel must not (no such file, or bit 0 clear).
# Injected fault: lrugen-flip expects the other state; the test must fail.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

[ -r /proc/zoneinfo ] || fail "expected /proc/zoneinfo, it is missing"
set -- /sys/devices/system/node/node[0-9]*
[ -e "$1" ] || set --
nodes=$#
[ "$nodes" -ge 1 ] || fail "expected /sys/devices/system/node/node*, saw none"
for n in /sys/devices/system/node/node[0-9]*; do
	[ -r "$n/vmstat" ] || fail "expected $n/vmstat, it is missing"
done

# "node zone present managed" for every zone with present pages.
zones=$(awk '
	/^Node/ { node = $2; sub(",", "", node); zone = $4 }
	$1 == "present" { present = $2 }
	$1 == "managed" { if (present > 0) print node, zone, present, $2 }
' /proc/zoneinfo)
echo "$zones" | while read -r line; do echo "node zone present managed: $line"; done

populated() { echo "$zones" | awk -v n="$1" '$1 == n' | wc -l; }
has() { echo "$zones" | awk -v n="$1" -v z="$2" '$1 == n && $2 == z' | grep -q .; }

case "$NODELRU_TOPO" in
uma)
	[ "$nodes" -eq 1 ] || fail "uma: expected 1 node, saw $nodes"
	for z in DMA DMA32 Normal; do
		has 0 "$z" || fail "uma: expected a populated $z zone on node 0, it is empty or missing"
	done
	;;
numa)
	[ "$nodes" -eq 2 ] || fail "numa: expected 2 nodes, saw $nodes"
	[ "$(populated 0)" -ge 2 ] || fail "numa: expected 2+ populated zones on node 0, saw $(populated 0)"
	[ "$(populated 1)" -eq 1 ] || fail "numa: expected 1 populated zone on node 1, saw $(populated 1)"
	;;
movable)
	has 0 Movable || fail "movable: expected a populated Movable zone on node 0"
	;;
*)
	fail "unknown topology '$NODELRU_TOPO'"
	;;
esac
echo "topology $NODELRU_TOPO: $nodes node(s) as expected"

raw=absent
[ ! -r /sys/kernel/mm/lru_gen/enabled ] || raw=$(cat /sys/kernel/mm/lru_gen/enabled)
want=off
case $(uname -r) in *+mglru*) want=on ;; esac
if inject lrugen-flip; then
	if [ "$want" = on ]; then want=off; else want=on; fi
fi
lrugen_on
on=off
[ "$lrugen" -eq 0 ] || on=on
echo "kernel $(uname -r): multi-gen LRU $on (/sys/kernel/mm/lru_gen/enabled: $raw)"
[ "$on" = "$want" ] ||
	fail "expected the multi-gen LRU $want in kernel $(uname -r), saw it $on (/sys/kernel/mm/lru_gen/enabled: $raw)"
