#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=300 topo=uma order=10
#
# Benchmark workload 1, allocation distribution (the cover letter's first
# table): stream a file of a quarter of RAM to the scratch disk and count
# the page allocations per zone (pgalloc_*).  No pass criterion beyond the
# write succeeding: the figures are the result.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
mib=$(($(mem_kb) / 4 / 1024))
bench_quick && mib=$((mib / 2))
echo 3 >/proc/sys/vm/drop_caches
bench_begin alloc
dd if=/dev/zero of=/mnt/scratch/bench-alloc.dat bs=1M count="$mib" conv=fsync 2>/dev/null ||
	{ echo "FAIL: writing $mib MiB failed"; exit 1; }
bench_end alloc
echo "bench: alloc mib $mib"
rm -f /mnt/scratch/bench-alloc.dat
