#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=smoke timeout=600 topo=uma order=40
#
# Which zone kswapd wakeups are for.  A histogram trigger counts the
# mm_vmscan_wakeup_kswapd events by zid while page cache of MemFree plus
# 128 MiB is streamed to the scratch disk (GFP_HIGHUSER_MOVABLE: the
# highest zone index such a request may use is Movable, 3).  All but 256
# MiB of MemFree is first held by mlock-hog (mlocked huge pages, cheap to
# fault), so the stream is some 384 MiB instead of all of RAM (100 s
# alone under TCG before; 768 MiB, 33 to 37 s a boot, until the smoke set
# was made lighter): the zones still run low and wake kswapd, with the
# same requests.
# What the wakeups carry depends on the step of the series (the guest
# reads it from its series file):
#   before "mm, vmscan: only wakeup kswapd once per node for the requested
#     classzone" kswapd is woken per zone, and the event names the zone
#     that was low; from it to "mm, page_alloc: wake kswapd based on the
#     highest eligible zone" once per node, with the preferred zone's
#     index.  Either way every wakeup carries the index of a populated
#     zone (DMA 0, DMA32 1, Normal 2) and none the empty Movable index 3
#     (before the first patch only the first low zone of a pass is
#     traced: the calls for the next zones find kswapd already awake);
#   from "wake kswapd based on the highest eligible zone" on, wakeups
#     carry the highest zone the request may use: some carry zid 3 (page
#     cache), and at least 90 % carry 3 or 2 (GFP_KERNEL);
#   mm_vmscan_kswapd_wake has a zid field from "mm, vmscan: add
#     classzone information to tracepoints" on, and none before it.
# Every step: wakeups happened (more than 0).
# Injected fault: kswapd-wake-other-end checks the wakeups' zids against
# the other side of "wake kswapd based on the highest eligible zone" than
# the step is on: must fail at every step.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

ev=/sys/kernel/tracing/events/vmscan
[ -w "$ev/mm_vmscan_wakeup_kswapd/trigger" ] ||
	fail "expected histogram triggers on $ev/mm_vmscan_wakeup_kswapd (CONFIG_HIST_TRIGGERS), saw none"
grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
series_end

trap hog_release EXIT
hog_hold 256
echo "mlock-hog: $hog_said"
free_mib=$(awk '$1 == "MemFree:" { print int($2 / 1024) }' /proc/meminfo)
mib=$((free_mib + 128))
file=/mnt/scratch/kswapd-wake.dat
trig=$ev/mm_vmscan_wakeup_kswapd/trigger
echo 'hist:keys=zid' >"$trig"
dd if=/dev/zero of="$file" bs=1M count="$mib" 2>/dev/null || { echo '!hist:keys=zid' >"$trig"; fail "writing $mib MiB to $file failed"; }
hist=$(awk '$1 == "{" && $2 == "zid:" { printf "%s:%s ", $3, $6 }' "$ev/mm_vmscan_wakeup_kswapd/hist")
echo '!hist:keys=zid' >"$trig"
rm -f "$file"
hog_release
echo "kernel $release; wrote $mib MiB; kswapd wakeups by zid (zid:count): ${hist:-none}"

count() { echo "$hist" | tr ' ' '\n' | awk -F: -v z="$1" '$1 == z { print $2; f = 1 } END { if (!f) print 0 }'; }
total=0
for z in 0 1 2 3 4; do total=$((total + $(count "$z"))); done
[ "$total" -gt 0 ] || fail "expected kswapd wakeups while streaming $mib MiB, saw none"
if grep -q 'field:int zid' "$ev/mm_vmscan_kswapd_wake/format"; then kz=yes; else kz=no; fi
echo "mm_vmscan_kswapd_wake has a zid field: $kz"

zid_patch=mm-page_alloc-wake-kswapd-based-on-the-highest-eligible-zone.patch
highest=no
! applied "$zid_patch" || highest=yes
if inject kswapd-wake-other-end; then
	if [ $highest = yes ]; then highest=no; else highest=yes; fi
	echo "injected kswapd-wake-other-end: checking as if $zid_patch were$([ $highest = yes ] || echo " not") applied"
fi
if [ $highest = yes ]; then
	[ "$(count 3)" -gt 0 ] || fail "step $step (has $zid_patch): expected wakeups with zid 3 (Movable, the page cache request's highest index), saw ${hist}"
	[ $((($(count 3) + $(count 2)) * 10)) -ge $((total * 9)) ] ||
		fail "step $step (has $zid_patch): expected at least 90 % of $total wakeups with zid 3 or 2, saw ${hist}"
	said="wakeups for the highest eligible zone"
else
	[ $(($(count 0) + $(count 1) + $(count 2))) -eq "$total" ] ||
		fail "step $step (without $zid_patch): expected every wakeup to carry a populated zone's index (0-2), saw ${hist}"
	said="wakeups for populated zones only"
fi
tp_patch=mm-vmscan-add-classzone-information-to-tracepoints.patch
if applied "$tp_patch"; then
	[ "$kz" = yes ] || fail "step $step (has $tp_patch): expected a zid field in mm_vmscan_kswapd_wake, saw none"
else
	[ "$kz" = no ] || fail "step $step (without $tp_patch): expected mm_vmscan_kswapd_wake without a zid field, saw one"
fi
echo "ok: step $step ($end): $said, kswapd_wake zid field: $kz"
