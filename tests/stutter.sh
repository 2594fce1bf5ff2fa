#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=full timeout=600 topo=all order=50
#
# The cover letter's "stutter" load (tests/tools/stutter.c): an anon hog
# of 3/4 of MemTotal verified over and over, a file of 1/2 MemTotal
# copied and verified over and over on the scratch disk, and a probe
# timing mmap + touch + munmap of 4 MiB of fresh memory, for 45 s.  The
# latency percentiles are recorded for make bench; they are not asserted.
# Pass: the hog's memory and every finished copy verified, the probe took
# 10+ samples, and reclaim ran (pgscan moved).
# Fault: INJECT=stutter-corrupt flips one bit of the hog's memory.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
total_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
hog=$((total_kb * 3 / 4))
file=$((total_kb / 2))
echo "stutter: hog ${hog} KiB, file ${file} KiB, probe 4096 KiB, 45 s (MemTotal ${total_kb} KiB)"
s0=$(vm_sum pgscan_kswapd pgscan_direct)
stutter -t 45 -a "$hog" -f "$file" -p 4096 -d /mnt/scratch ||
	fail "expected the hog and the copier to verify all their data and 10+ probe samples (see above)"
s1=$(vm_sum pgscan_kswapd pgscan_direct)
s=$((s1 - s0))
echo "pgscan +$s"
[ "$s" -gt 0 ] || fail "expected reclaim to run (pgscan > 0), saw +$s"
echo 1 >/proc/sys/vm/stat_refresh || fail "vm.stat_refresh failed"
