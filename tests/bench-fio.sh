#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=900 topo=all order=50
#
# Benchmark workload 5, streaming I/O throughput (tiobench's role):
# Debian's fio, buffered 4 KiB sequential and random write and read at 1,
# 2 and 4 jobs, 10 s each (quick: 3 s), over a data set of twice RAM
# (quick: a quarter of RAM) split between the jobs.  Prints KiB/s per case.
# The write cases end with fsync (--end_fsync=1), so their figure includes
# getting the data to the disk, and a read case never starts behind the
# previous case's dirty pages: without it fio's cache invalidation at the
# start of each random read case waited for that writeback and the case
# read a few KiB in its whole run (0 KiB/s in the first reports).  A case
# that moves no data at all fails the workload.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
total=$(($(mem_kb) * 2))
secs=10
if bench_quick; then
	total=$(($(mem_kb) / 4))
	secs=2
fi
mkdir -p /mnt/scratch/fio
bench_begin fio
for jobs in 1 2 4; do
	for rw in write read randwrite randread; do
		fio --name=tio --directory=/mnt/scratch/fio --rw="$rw" --bs=4k \
			--size="$((total / jobs))k" --numjobs="$jobs" --group_reporting \
			--runtime="$secs" --time_based --ioengine=psync --end_fsync=1 --minimal \
			>/tmp/fio.out 2>/tmp/fio.err || { cat /tmp/fio.err; echo "FAIL: fio $rw x$jobs failed"; exit 1; }
		# terse v3: fields 6/7 read KiB and KiB/s, 47/48 the same for writes
		# shellcheck disable=SC2046 # two numbers, split on purpose
		set -- $(awk -F';' '{ print $6 + $47, $7 + $48 }' /tmp/fio.out)
		[ "${1:-0}" -gt 0 ] || { echo "FAIL: expected fio $rw x$jobs to move data, it moved ${1:-nothing} KiB"; exit 1; }
		echo "bench: fio ${rw}-${jobs}_kibps $2"
	done
	rm -f /mnt/scratch/fio/*
done
bench_end fio
rm -rf /mnt/scratch/fio /tmp/fio.out /tmp/fio.err
