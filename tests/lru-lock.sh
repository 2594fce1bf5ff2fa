#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke timeout=180 topo=all order=80
#
# Which LRU lock the kernel takes, by its lockdep class in /proc/lock_stat
# (CONFIG_LOCK_STAT), after some page cache and anon LRU traffic:
#   zone end of the series (kernel release *-nodelru-zone-*): &pgdat->lru_lock,
#     the node's lock shared by every lruvec of the node;
#   node end (*-nodelru-node-*): &lruvec->lru_lock, one lock per lruvec;
#   steps between: exactly one of the two.
# A class counts when it has acquisitions.  Fails when neither or both
# are in use, or when an end shows the other end's lock.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

[ -r /proc/lock_stat ] || fail "expected /proc/lock_stat (CONFIG_LOCK_STAT), it is missing"
series_end
case $end in
zone) expect='&pgdat->lru_lock' ;;
node) expect='&lruvec->lru_lock' ;;
*) expect= ;;
esac

# LRU traffic: page cache in and out, anon in and out.
f=/tmp/lru-lock.dat
dd if=/dev/zero of="$f" bs=1M count=32 2>/dev/null || fail "writing $f failed"
cat "$f" >/dev/null
rm -f "$f"
dd if=/dev/zero bs=1M count=64 2>/dev/null | cat >/dev/null

used=$(awk '$1 ~ /->lru_lock:$/ && $9 > 0 { name = $1; sub(":$", "", name); printf "%s=%s ", name, $9 }' /proc/lock_stat)
echo "kernel $release; lru_lock classes with acquisitions: ${used:-none}"
pg=0
lv=0
case " $used" in *" &pgdat->lru_lock="*) pg=1 ;; esac
case " $used" in *" &lruvec->lru_lock="*) lv=1 ;; esac
[ $((pg + lv)) -eq 1 ] ||
	fail "expected exactly one of &pgdat->lru_lock and &lruvec->lru_lock in use, saw: ${used:-none}"
if [ -n "$expect" ]; then
	case " $used" in
	*" $expect="*) ;;
	*) fail "expected $expect at this end of the series ($release), saw: $used" ;;
	esac
fi
echo "ok: ${expect:-one LRU lock class} in use"
