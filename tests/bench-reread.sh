#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=900 topo=all order=60
#
# Benchmark workload 7, a file re-read larger than RAM (the working-set
# case the multi-gen LRU was built for): tests/tools/reread.c makes a
# sparse file of 13/10 of RAM on the scratch ext4 (holes read into clean
# page cache without disk I/O; evicting such a page leaves a shadow entry
# and reading it again is a refault, as with data) and reads it through
# twice, nothing dropped in between.  Per pass it counts the pages found
# in the page cache right before each read (mincore(): the same count on
# every kernel) and the vmstat deltas: workingset_refault_file,
# workingset_activate_file, workingset_restore_file, pgscan, pgsteal,
# pgrefill.  RAM is MemTotal, or in quick mode a quarter of it, the rest
# held by mlock-hog (bench_shrink), so that the file still exceeds it.
# Pass: both reads complete and every page read is zeroes.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
f=/mnt/scratch/bench-reread.sparse
grep -q ' /mnt/scratch ' /proc/mounts || { echo "FAIL: expected the scratch disk on /mnt/scratch, it is not mounted"; exit 1; }
trap 'bench_unshrink; rm -f "$f"' EXIT
sync
echo 3 >/proc/sys/vm/drop_caches
bench_shrink || exit 1
mib=$(($(bench_ram_kb) * 13 / 10 / 1024))
echo "file of $mib MiB (13/10 of $(($(bench_ram_kb) / 1024)) MiB), read twice"
bench_begin reread
reread "$f" "$mib" 2 || { echo "FAIL: reread failed (above)"; exit 1; }
bench_end reread
echo "bench: reread mib $mib"
