#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke timeout=180 topo=all order=80
#
# Which LRU lock the kernel takes, by its lockdep class in /proc/lock_stat
# (CONFIG_LOCK_STAT), after some page cache and anon LRU traffic.  The
# step of the series decides which one is expected:
#   before "mm, vmscan: move lru_lock to the node" (the zone end):
#     &zone->lru_lock, one per zone, shared by every memcg's lruvec of it;
#   from that patch to "mm: one lru_lock per lruvec": &pgdat->lru_lock,
#     the node's lock shared by every lruvec of the node;
#   from that patch on (the node end): &lruvec->lru_lock, one per lruvec.
# A class counts when it has acquisitions.  Fails when none of the three
# or more than one is in use, or when it is not the one the step expects.
# Injected fault: lru-lock-next expects the class of the next design
# (zone -> pgdat -> lruvec -> zone) instead: must fail at every step.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

[ -r /proc/lock_stat ] || fail "expected /proc/lock_stat (CONFIG_LOCK_STAT), it is missing"
if ! applied mm-vmscan-move-lru_lock-to-the-node.patch; then
	expect='&zone->lru_lock'
elif ! applied mm-one-lru_lock-per-lruvec.patch; then
	expect='&pgdat->lru_lock'
else
	expect='&lruvec->lru_lock'
fi
if inject lru-lock-next; then
	case $expect in
	'&zone->lru_lock') expect='&pgdat->lru_lock' ;;
	'&pgdat->lru_lock') expect='&lruvec->lru_lock' ;;
	*) expect='&zone->lru_lock' ;;
	esac
	echo "injected lru-lock-next: expecting $expect"
fi

# LRU traffic: page cache in and out, anon in and out.
f=/tmp/lru-lock.dat
dd if=/dev/zero of="$f" bs=1M count=32 2>/dev/null || fail "writing $f failed"
cat "$f" >/dev/null
rm -f "$f"
dd if=/dev/zero bs=1M count=64 2>/dev/null | cat >/dev/null

used=$(awk '$1 ~ /->lru_lock:$/ && $9 > 0 { name = $1; sub(":$", "", name); printf "%s=%s ", name, $9 }' /proc/lock_stat)
echo "kernel $release, step $step; lru_lock classes with acquisitions: ${used:-none}"
n=0
for c in '&zone->lru_lock' '&pgdat->lru_lock' '&lruvec->lru_lock'; do
	case " $used" in *" $c="*) n=$((n + 1)) ;; esac
done
[ "$n" -eq 1 ] ||
	fail "expected exactly one of &zone->lru_lock, &pgdat->lru_lock and &lruvec->lru_lock in use, saw: ${used:-none}"
case " $used" in
*" $expect="*) ;;
*) fail "expected $expect at step $step ($release), saw: $used" ;;
esac
echo "ok: $expect in use at step $step"
