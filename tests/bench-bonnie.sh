#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=1800 topo=all order=20
#
# Benchmark workload 2: Debian's bonnie++ on the scratch ext4, data set
# twice RAM (bonnie++ 2.00 runs its per-character tests over 20 MiB
# whatever -s says; quick mode: a quarter of RAM, no per-character tests),
# 16x1024 files for the create/read/delete phase, one iteration.  Prints
# bonnie++'s CSV line as "bench: bonnie csv ..." plus the vmstat deltas.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
ram=$(($(mem_kb) / 1024))
size=$((ram * 2))
fast=
if bench_quick; then
	size=$((ram / 4))
	fast=-f
fi
mkdir -p /mnt/scratch/bonnie
bench_begin bonnie
# shellcheck disable=SC2086 # $fast is empty or one option
bonnie++ -q -d /mnt/scratch/bonnie -s "$size" -r "$((size / 2))" -n 16 -u root -x 1 $fast \
	>/tmp/bonnie.csv 2>/tmp/bonnie.err || { cat /tmp/bonnie.err; echo "FAIL: bonnie++ failed"; exit 1; }
bench_end bonnie
echo "bench: bonnie size_mib $size"
echo "bench: bonnie csv $(tail -n 1 /tmp/bonnie.csv)"
rm -rf /mnt/scratch/bonnie /tmp/bonnie.csv /tmp/bonnie.err
