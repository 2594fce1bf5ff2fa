#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=600 topo=all order=30
#
# Benchmark workload 3, stutter: the tests/tools/stutter.c load (anon hog
# of 3/4 of RAM, a file of 1/2 RAM copied over and over, mmap latency
# probe of 4 MiB) for 100 s (quick: 20 s).  Prints the percentiles and
# every sample ("bench-raw: stutter ...", 50 a line) for the CDF.  Refuses
# a tick-based clocksource, which would quantise every latency.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
bench_fine_clock
kb=$(mem_kb)
secs=100
bench_quick && secs=20
bench_begin stutter
stutter -t "$secs" -a "$((kb * 3 / 4))" -f "$((kb / 2))" -p 4096 -d /mnt/scratch \
	-r /tmp/stutter.raw >/tmp/stutter.out || { cat /tmp/stutter.out; echo "FAIL: stutter failed"; exit 1; }
bench_end stutter
cat /tmp/stutter.out
awk '/^stutter-lat [0-9]/ {
	split("min p25 p50 p75 p90 p93 p95 p99 max mean", k, " ")
	for (i = 1; i <= 10; i++) printf "bench: stutter lat_%s_us %s\n", k[i], $(i + 1)
}' /tmp/stutter.out
awk '{ printf "%s%s", (NR % 50 == 1 ? "bench-raw: stutter" : ""), " " $1 } NR % 50 == 0 { print "" } END { if (NR % 50) print "" }' /tmp/stutter.raw
rm -f /tmp/stutter.raw /tmp/stutter.out
