#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke,full timeout=300 topo=all order=90
#
# The books balance (tests/lib/books.sh): every item kept both per zone
# and per node (the LRU lists; at the zone end of the series also the
# zone copies of file, dirty, writeback, shmem and mapped pages) sums
# exactly over a node's zones to the node's item and over the nodes to
# /proc/vmstat, and nr_isolated_* is 0 at rest.  The runner checks the
# same after every test; this test also drives the page cache paths that
# update the copies, one at a time, and checks after each:
#   page cache add (buffered write, pages dirty), writeback and clean
#   (sync), truncate, delete and drop_caches, shmem add and delete,
#   huge tmpfs (THP page cache) and its split by a truncate, compaction
#   (migration between the zones of a node).
# Before "mm: move most file-based accounting to the node" (the zone end
# and the steps before it; the guest reads its step from the series) the
# zone copies must be in /proc/zoneinfo, and from that patch on they must
# not; where they are, it also checks that they moved with the pages:
# nr_zone_file_pages and nr_zone_shmem rise by at least the pages
# written.  Huge tmpfs must give at least half of its file in huge pages
# (nr_shmem_hugepages), and compaction must be there: the test kernels
# have THP and compaction (configs/qemu.config), so a missing one fails.
# Must fail on tests/broken/zone-lru-skew.patch (the LRU items) and
# tests/broken/zone-shadow-drop.patch (a zone copy).  Injected fault:
# books-skew puts one zone's nr_zone_inactive_file one page off in every
# snapshot of the books (tests/lib/books.sh): must fail at every step (so
# does the runner's books check after every test).
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh
# shellcheck source=tests/lib/books.sh
. /lib/nodelru/books.sh

after() {
	books_at_rest 5 || fail "after $1 (above)"
	echo "  after $1: ok"
}

# The zone copies exist before the patch that removes them.
zone_total() {
	awk -v k="$1" '$1 == k { s += $2 } END { print s + 0 }' /proc/zoneinfo
}
echo 1 >/proc/sys/vm/stat_refresh
file_patch=mm-move-most-file-based-accounting-to-the-node.patch
if applied "$file_patch"; then want_copies=no; else want_copies=yes; fi
copies=no
grep -q '^ *nr_zone_file_pages ' /proc/zoneinfo && copies=yes
echo "step $step: zone copies of the file counters in /proc/zoneinfo: $copies (expected $want_copies)"
[ "$copies" = "$want_copies" ] ||
	fail "step $step: expected zone copies (nr_zone_file_pages) in /proc/zoneinfo: $want_copies (they go with $file_patch), saw $copies"

after "boot and the tests before"

dir=/mnt/scratch
grep -q " $dir " /proc/mounts || dir=/tmp
f=$dir/lru-sums.data
mb=32
pages=$((mb * 256))
before=$(zone_total nr_zone_file_pages)
dd if=/dev/zero of="$f" bs=1M count="$mb" 2>/dev/null || fail "writing $f"
after "a buffered write of $mb MiB to $dir"
if [ "$copies" = yes ]; then
	echo 1 >/proc/sys/vm/stat_refresh
	now=$(zone_total nr_zone_file_pages)
	echo "  nr_zone_file_pages summed over zones: before $before, after $now (expected a rise of at least $pages)"
	[ $((now - before)) -ge "$pages" ] || fail "nr_zone_file_pages rose by $((now - before)), expected at least $pages"
fi
sync
after "sync (dirty -> writeback -> clean)"
truncate -s $((mb / 2))M "$f" || fail "truncating $f"
after "truncate to half"
rm -f "$f"
echo 3 >/proc/sys/vm/drop_caches
after "delete and drop_caches"

t=/mnt/lru-sums-tmpfs
mkdir -p "$t"
mount -t tmpfs -o size=$((mb * 2))m tmpfs "$t" || fail "mounting tmpfs"
before=$(zone_total nr_zone_shmem)
dd if=/dev/zero of="$t/a" bs=1M count="$mb" 2>/dev/null || fail "writing to tmpfs"
after "a $mb MiB shmem file"
if [ "$copies" = yes ]; then
	echo 1 >/proc/sys/vm/stat_refresh
	now=$(zone_total nr_zone_shmem)
	echo "  nr_zone_shmem summed over zones: before $before, after $now (expected a rise of at least $pages)"
	[ $((now - before)) -ge "$pages" ] || fail "nr_zone_shmem rose by $((now - before)), expected at least $pages"
fi
rm -f "$t/a"
umount "$t"
after "shmem delete"

[ -e /sys/kernel/mm/transparent_hugepage/shmem_enabled ] ||
	fail "expected huge tmpfs (/sys/kernel/mm/transparent_hugepage/shmem_enabled, CONFIG_TRANSPARENT_HUGEPAGE), it is missing"
mount -t tmpfs -o size=$((mb * 2))m,huge=always tmpfs "$t" ||
	fail "mounting tmpfs with huge=always"
thp0=$(vm nr_shmem_hugepages)
dd if=/dev/zero of="$t/h" bs=2M count=$((mb / 2)) 2>/dev/null || fail "writing to huge tmpfs"
thp=$(vm nr_shmem_hugepages)
echo "  nr_shmem_hugepages: $thp0 before, $thp after writing $mb MiB (expected a rise of at least $((mb / 4)) huge pages)"
[ $((thp - thp0)) -ge $((mb / 4)) ] ||
	fail "expected at least $((mb / 4)) huge pages (half of a $mb MiB huge=always tmpfs file) in nr_shmem_hugepages, saw +$((thp - thp0))"
after "a $mb MiB huge tmpfs file"
truncate -s 3M "$t/h" || fail "truncating the huge tmpfs file"
after "huge tmpfs truncate (splits a huge page)"
rm -f "$t/h"
umount "$t"
after "huge tmpfs delete"

[ -e /proc/sys/vm/compact_memory ] ||
	fail "expected /proc/sys/vm/compact_memory (CONFIG_COMPACTION), it is missing"
dd if=/dev/zero of="$dir/lru-sums.compact" bs=1M count="$mb" 2>/dev/null || fail "writing the file to compact"
echo 1 >/proc/sys/vm/compact_memory
after "compaction with $mb MiB of page cache"
rm -f "$dir/lru-sums.compact"

books_at_rest 5 || fail "at the end (above)"
grep -E '^nr_(in)?active_(anon|file) |^nr_unevictable |^nr_file_pages |^nr_shmem ' /proc/vmstat
