#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=600 topo=all order=40
#
# Benchmark workload 4, the page allocator microbenchmark (the cover
# letter's total-odr0-N table): tests/modules/nodelru_pagealloc times
# batches of 1 to 16384 order-0 and order-1 pages, allocated with
# GFP_KERNEL and freed, 40 loops each (quick: 8); the minimum cycles per
# page per batch size is the figure.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
loops=40
bench_quick && loops=8
f=/sys/kernel/debug/nodelru_pagealloc
insmod /lib/modules/nodelru/nodelru_pagealloc.ko || { echo "FAIL: insmod nodelru_pagealloc.ko failed"; exit 1; }
trap 'rmmod nodelru_pagealloc 2>/dev/null || true' EXIT
echo 3 >/proc/sys/vm/drop_caches
bench_begin pagealloc
for order in 0 1; do
	echo "$order 16384 $loops" >"$f" || { echo "FAIL: the order-$order run failed"; exit 1; }
	# order batch alloc free total (cycles per page)
	awk '{ printf "bench: pagealloc odr%s-%s_alloc %s\nbench: pagealloc odr%s-%s_free %s\nbench: pagealloc odr%s-%s_total %s\n", $1, $2, $3, $1, $2, $4, $1, $2, $5 }' "$f"
done
bench_end pagealloc
