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
echo 0 >/proc/lock_stat
bench_begin lockstat
# Readers stop when the time is up, even in the middle of a file.
# shellcheck disable=SC2016 # $0 expands in the inner shell
reader() { timeout -s KILL "$secs" sh -c 'while :; do cat "$0" >/dev/null; done' "$f" || true; }
reader &
r1=$!
reader &
r2=$!
stress-ng --vm 1 --vm-bytes "$((kb / 2))K" --timeout "${secs}s" --quiet ||
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
