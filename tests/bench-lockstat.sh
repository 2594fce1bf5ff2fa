#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=lockstat timeout=300 topo=all order=60
#
# Benchmark workload 6, LRU lock contention (a separate, labelled run on
# the debug kernels: CONFIG_LOCK_STAT perturbs timing).  Two readers of a
# sparse file of 1.25x RAM (page cache churn, no disk I/O) and a
# stress-ng vm worker of half of RAM (anon churn, swap) run for 60 s
# (quick: 20 s) with /proc/lock_stat cleared before; then the LRU lock
# class(es) are reported: contentions, wait time total (us),
# acquisitions, hold time total (us).
# Each of the three workers runs in a memory cgroup of its own (v2,
# lockstat-r1, lockstat-r2, lockstat-vm) when the kernel has the memory
# controller, so that the lock design shows: at the zone end the three
# memcgs' lruvecs of a zone share the zone's lock, after "mm, vmscan:
# move lru_lock to the node" they share the node's, and from "mm: one
# lru_lock per lruvec" on each has its own.  Without the controller the
# workers run in the root and the run says so.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
[ -r /proc/lock_stat ] || { echo "SKIP: no /proc/lock_stat (not a LOCK_STAT kernel)"; exit 4; }
secs=60
bench_quick && secs=20
kb=$(mem_kb)
f=/mnt/scratch/bench-lockstat.sparse
truncate -s "$((kb * 1024 * 5 / 4))" "$f"
cg=/sys/fs/cgroup
memcgs=0
if grep -qw memory "$cg/cgroup.controllers" 2>/dev/null &&
	echo +memory >"$cg/cgroup.subtree_control" 2>/dev/null; then
	for g in r1 r2 vm; do
		mkdir -p "$cg/lockstat-$g" || { echo "FAIL: mkdir $cg/lockstat-$g failed"; exit 1; }
	done
	memcgs=3
fi
echo "# lockstat: workers in $memcgs memory cgroup(s) of their own ($([ "$memcgs" = 0 ] && echo "no memory controller: all in the root" || echo "lockstat-r1, lockstat-r2, lockstat-vm"))"
# in_cg G CMD...: CMD in memcg lockstat-G when memcgs are in use.
# shellcheck disable=SC2016 # $0 and $@ expand in the inner shell
in_cg() {
	_g=$1
	shift
	if [ "$memcgs" != 0 ]; then
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg/lockstat-$_g" "$@"
	else
		"$@"
	fi
}
bench_begin lockstat
# Cleared after bench_begin's settle step, whose drop_caches and
# compaction would count otherwise.
echo 0 >/proc/lock_stat
# Readers stop when the time is up, even in the middle of a file.
# shellcheck disable=SC2016 # $0 expands in the inner shell
reader() { in_cg "$1" timeout -s KILL "$secs" sh -c 'while :; do cat "$0" >/dev/null; done' "$f" || true; }
reader r1 &
r1=$!
reader r2 &
r2=$!
in_cg vm stress-ng --vm 1 --vm-bytes "$((kb / 2))K" --timeout "${secs}s" --quiet ||
	{ echo "FAIL: stress-ng failed"; exit 1; }
wait "$r1" "$r2"
bench_end lockstat
awk '$1 ~ /lru_lock:$/ {
	name = $1; sub(":$", "", name)
	printf "bench: lockstat %s_contentions %s\n", name, $3
	printf "bench: lockstat %s_waittime_total_us %s\n", name, $6
	printf "bench: lockstat %s_acquisitions %s\n", name, $9
	printf "bench: lockstat %s_holdtime_total_us %s\n", name, $12
}' /proc/lock_stat
rm -f "$f"
if [ "$memcgs" != 0 ]; then
	for g in r1 r2 vm; do
		rmdir "$cg/lockstat-$g" || echo "# lockstat: rmdir $cg/lockstat-$g failed"
	done
fi
