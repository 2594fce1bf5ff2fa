#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=1200 topo=all order=70
#
# Benchmark workload 8, an anon working set larger than RAM:
# tests/tools/anon-twice.c fills 5/4 of RAM of anon memory with the
# per-page pattern (what does not fit goes to swap), counts the pages in
# swap (/proc/self/pagemap), then reads every word back, last page first,
# dropping what it has checked (so that pass 2 swaps in what pass 1 swapped
# out, and pushes nothing out again: under TCG swap costs about a minute
# a GiB).  Figures per pass: pswpin, pswpout, workingset_refault_anon,
# workingset_activate_anon, pgscan, pgsteal, the process's major faults.
# RAM is MemTotal, or in quick mode a quarter of it, the rest held by
# mlock-hog (bench_shrink).  Pass: every word of every page intact.
# Skips when swap cannot hold what does not fit (with a quarter spare).
# Injected fault: anon-twice-corrupt (one bit of one page, after the
# fill); the workload must fail naming page and word.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
trap 'bench_unshrink' EXIT
sync
echo 3 >/proc/sys/vm/drop_caches
bench_shrink || exit 1
mib=$(($(bench_ram_kb) * 5 / 4 / 1024))
avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
swap=$(awk '$1 == "SwapFree:" { print int($2 / 1024) }' /proc/meminfo)
[ $(((mib - avail) * 4 / 3)) -le "$swap" ] ||
	{ echo "SKIP: $mib MiB of anon with $avail MiB available needs $(((mib - avail) * 4 / 3)) MiB of swap, SwapFree is $swap MiB"; exit 4; }
echo "anon set of $mib MiB (5/4 of $(($(bench_ram_kb) / 1024)) MiB; MemAvailable $avail MiB, SwapFree $swap MiB)"
bench_begin anon
anon-twice "$mib" || { echo "FAIL: anon-twice failed (above)"; exit 1; }
bench_end anon
echo "bench: anon mib $mib"
