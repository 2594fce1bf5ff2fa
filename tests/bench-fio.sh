#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=900 topo=all order=50
#
# Benchmark workload 5, streaming I/O throughput (tiobench's role):
# Debian's fio, buffered 4 KiB sequential and random write and read at 1,
# 2 and 4 jobs, 15 s each (quick: 4 s), over a data set of twice RAM
# (quick: half of RAM) split between the jobs.  Prints KiB/s per case.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
total=$(($(mem_kb) * 2))
secs=15
if bench_quick; then
	total=$(($(mem_kb) / 2))
	secs=4
fi
mkdir -p /mnt/scratch/fio
bench_begin fio
for jobs in 1 2 4; do
	for rw in write read randwrite randread; do
		fio --name=tio --directory=/mnt/scratch/fio --rw="$rw" --bs=4k \
			--size="$((total / jobs))k" --numjobs="$jobs" --group_reporting \
			--runtime="$secs" --time_based --ioengine=psync --minimal \
			>/tmp/fio.out 2>/tmp/fio.err || { cat /tmp/fio.err; echo "FAIL: fio $rw x$jobs failed"; exit 1; }
		# terse v3: field 7 read KiB/s, field 48 write KiB/s
		bw=$(awk -F';' '{ print ($7 > 0 ? $7 : $48) }' /tmp/fio.out)
		echo "bench: fio ${rw}-${jobs}_kibps $bw"
	done
	rm -f /mnt/scratch/fio/*
done
bench_end fio
rm -rf /mnt/scratch/fio /tmp/fio.out /tmp/fio.err
