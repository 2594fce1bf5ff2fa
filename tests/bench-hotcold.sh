#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=bench timeout=2400 topo=all order=80
#
# Benchmark workload 9, a hot set and a cold stream (where the three
# designs are expected to differ): tests/tools/hot-cold.c keeps a hot set
# of 2/5 of RAM, half anon memory and half a written file, and uses all of
# it again after each sixteenth of a cold file of 3/2 of RAM (sparse:
# clean page cache without disk I/O) is read once.  Before each use it
# counts what of the hot set is still in memory (mincore() on the hot
# file, /proc/self/pagemap on the anon pages), and during it the pages of
# the hot file read in again and the swap-ins (major faults) of the anon
# part: the survival of the hot set, counted page by page, the same way on
# every kernel.  RAM is MemTotal, or in quick mode a quarter of it, the
# rest held by mlock-hog (bench_shrink).  Pass: every word of the hot set
# intact at the end.
# Between two uses of a hot page that set touches about 0.49 of RAM, so
# every kernel keeps the hot set whole.  The second workload,
# hotcold-tight, is sized to separate the designs: a hot set of 0.55 of
# RAM (0.275 anon, 0.275 file) used again after each chunk of 0.6 of RAM
# of the cold file, 8 rounds (4.8 RAM streamed): hot set plus one chunk
# exceed RAM, so reclaim must choose between the hot set and the stream.
# Injected fault: hot-cold-corrupt (one bit of one anon page after the
# fill); the workload must fail naming page and word.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/bench.sh
. /lib/nodelru/bench.sh
dir=/mnt/scratch
grep -q " $dir " /proc/mounts || { echo "FAIL: expected the scratch disk on $dir, it is not mounted"; exit 1; }
trap 'bench_unshrink; rm -f "$dir/hot-cold.hot" "$dir/hot-cold.cold"' EXIT
sync
echo 3 >/proc/sys/vm/drop_caches
bench_shrink || exit 1
ram=$(($(bench_ram_kb) / 1024))
hot=$((ram / 5))
cold=$((ram * 3 / 2))
echo "hot set $hot MiB anon + $hot MiB file, cold stream $cold MiB, RAM $ram MiB"
bench_begin hotcold
hot-cold "$dir" "$hot" "$hot" "$cold" 16 || { echo "FAIL: hot-cold failed (above)"; exit 1; }
bench_end hotcold
thot=$((ram * 11 / 40))
tcold=$((ram * 48 / 10))
echo "hotcold-tight: hot set $thot MiB anon + $thot MiB file, cold stream $tcold MiB in 8 rounds"
bench_begin hotcold-tight
hot-cold "$dir" "$thot" "$thot" "$tcold" 8 hotcold-tight || { echo "FAIL: hot-cold (tight) failed (above)"; exit 1; }
bench_end hotcold-tight
