#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=full timeout=600 topo=uma order=58
#
# How many zones one direct reclaim passes over.  A kprobe on the
# function that reclaims one unit of memory records its first argument
# (%di on x86_64): shrink_zone(zone, sc, is_classzone) where the kernel
# has it (the zone end), else shrink_node(pgdat, sc).  Both are called
# out of line from do_try_to_free_pages() (checked in the built objects).
# Direct reclaim comes from the pressure-smoke program, run as the load
# with its heavy sizes (it mlocks all but 448 MiB of what is free, then
# fills anon beyond what is free, and checks every byte it wrote; it must
# pass here too).  Each direct reclaim is
# one mm_vmscan_direct_reclaim_begin/end pair in the allocating task; per
# pair the distinct first arguments of the probe's hits are counted (the
# probe is filtered to that task: kswapd's passes are not counted).  The
# pairs of a costly order (above PAGE_ALLOC_COSTLY_ORDER, the load's THP
# faults) are counted apart and not classified: shrink_zones() skips for
# them every zone already ready for compaction (seen at step 0: 57 of 289
# pairs passed over one zone, 80 % over two or more).
#   before "mm, vmscan: begin reclaiming pages on a per-node basis" (the
#     zone end and the first steps): the probe is on shrink_zone, and at
#     least 90 % of the pairs that reclaimed pass over two or more zones:
#     shrink_zones() calls shrink_zone() for every zone of the zonelist
#     the allocation may use (DMA, DMA32 and Normal on uma), as 4.7 did;
#   from that patch on: the probe is on shrink_node, and every pair
#     passes over one node (uma has one): shrink_zones() calls
#     shrink_node() per zone until "by default have direct reclaim only
#     shrink once per node", once per node from it on, always with the
#     node as its first argument.
# A second kprobe on vmpressure_prio(), which do_try_to_free_pages() calls
# once at the start of every priority pass, cuts each pair into passes,
# and a pass "repeats" when it calls the probed function twice with the
# same first argument.  On uma one node always is one node, so this is
# what tells the per-node steps apart:
#   before the per-node patch: no pass repeats (each zone once a pass);
#   from it to "by default have direct reclaim only shrink once per
#     node": at least 90 % of the passes that reclaimed repeat (the node
#     once for every eligible zone);
#   from that patch on: no pass repeats (the node once a pass).
# A trace buffer that overran fails the test (the counts would be short).
# Injected fault: direct-zones-swap checks every step against the other
# expectation (zone for node and node for zone), so it must fail at
# every step.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

tr=/sys/kernel/tracing
ev=$tr/events/vmscan
[ -w "$tr/kprobe_events" ] ||
	fail "expected kprobe events (CONFIG_KPROBE_EVENTS) in $tr, saw no kprobe_events"
for e in mm_vmscan_direct_reclaim_begin mm_vmscan_direct_reclaim_end; do
	[ -w "$ev/$e/enable" ] || fail "expected the $e trace event in $ev, saw none"
done
[ -x /tests/pressure-smoke ] || fail "expected the pressure-smoke program in /tests, saw none"
if awk '$3 == "shrink_zone" { f = 1 } END { exit !f }' /proc/kallsyms; then
	fn=shrink_zone
elif awk '$3 == "shrink_node" { f = 1 } END { exit !f }' /proc/kallsyms; then
	fn=shrink_node
else
	fail "expected shrink_zone or shrink_node in /proc/kallsyms, saw neither"
fi
if applied mm-vmscan-begin-reclaiming-pages-on-a-per-node-basis.patch; then
	want=node
else
	want=zone
fi
# Whether a pass may call the unit function twice for one unit.
if [ $want = node ] && ! applied mm-vmscan-by-default-have-direct-reclaim-only-shrink-once-per-node.patch; then
	repeat=yes
else
	repeat=no
fi
if inject direct-zones-swap; then
	case $want in zone) want=node ;; node) want=zone ;; esac
	case $repeat in yes) repeat=no ;; no) repeat=yes ;; esac
fi

out=/tmp/direct-zones
bufkb=$(sed 's/ .*//' "$tr/buffer_size_kb")
cleanup() {
	echo 0 >"$tr/tracing_on" 2>/dev/null || true
	echo 0 >"$ev/mm_vmscan_direct_reclaim_begin/enable" 2>/dev/null || true
	echo 0 >"$ev/mm_vmscan_direct_reclaim_end/enable" 2>/dev/null || true
	echo 0 >"$tr/events/nodelru/unit/enable" 2>/dev/null || true
	echo 0 >"$tr/events/nodelru/pass/enable" 2>/dev/null || true
	echo '-:nodelru/unit' >>"$tr/kprobe_events" 2>/dev/null || true
	echo '-:nodelru/pass' >>"$tr/kprobe_events" 2>/dev/null || true
	: >"$tr/trace" 2>/dev/null || true
	echo "$bufkb" >"$tr/buffer_size_kb" 2>/dev/null || true
	echo 1 >"$tr/tracing_on" 2>/dev/null || true
	rm -f "$out".*
}
trap cleanup EXIT

echo "p:nodelru/unit $fn unit=%di:x64" >>"$tr/kprobe_events" ||
	fail "could not place a kprobe on $fn"
echo 'comm != "kswapd0"' >"$tr/events/nodelru/unit/filter"
echo 'p:nodelru/pass vmpressure_prio' >>"$tr/kprobe_events" ||
	fail "could not place a kprobe on vmpressure_prio (the start of each priority pass of direct reclaim)"
echo 'comm != "kswapd0"' >"$tr/events/nodelru/pass/filter"
echo 8192 >"$tr/buffer_size_kb"
: >"$tr/trace"
echo 1 >"$ev/mm_vmscan_direct_reclaim_begin/enable"
echo 1 >"$ev/mm_vmscan_direct_reclaim_end/enable"
echo 1 >"$tr/events/nodelru/unit/enable"
echo 1 >"$tr/events/nodelru/pass/enable"
echo "kernel $release (step $step, $end); kprobe on $fn; expect $want reclaim, passes repeating a unit: $repeat; load: pressure-smoke"
rc=0
/tests/pressure-smoke heavy >"$out.load" 2>&1 || rc=$?
echo 0 >"$tr/tracing_on"
sed 's/^/  /' "$out.load"
[ "$rc" -ne 4 ] || { echo "SKIP: the load skipped: $(sed -n 's/^SKIP: //p' "$out.load" | tail -n 1)"; exit 4; }
[ "$rc" -eq 0 ] || fail "expected the load (pressure-smoke) to pass, it exited $rc"
overrun=$(awk '$1 == "overrun:" { s += $2 } END { print s + 0 }' "$tr"/per_cpu/cpu*/stats)
[ "$overrun" -eq 0 ] || fail "the trace buffer overran ($overrun events lost): the counts would be short"

# Per begin/end pair of one task: the probe's hits and their distinct
# first arguments.  Lines are "COMM-PID [CPU] FLAGS TIME: EVENT: ...".
cp "$tr/trace" "$out.trace"
awk '
	/^#/ { next }
	{
		s = $0
		sub(/ +\[[0-9]+\].*/, "", s)
		sub(/.*-/, "", s)
		pid = s
	}
	# endpass PID: count the pass of PID that ends here
	function endpass(p,   k, q) {
		if (pcalls[p] > 0) { cpasses++; if (prep[p]) rpasses++ }
		for (k in pseen) { split(k, q, SUBSEP); if (q[1] == p) delete pseen[k] }
		pcalls[p] = 0; prep[p] = 0
	}
	/ mm_vmscan_direct_reclaim_begin:/ {
		open[pid] = 1; hits[pid] = 0; nd[pid] = 0; endpass(pid)
		o = $0
		sub(/.*order=/, "", o)
		sub(/[^0-9].*/, "", o)
		ord[pid] = o + 0
		next
	}
	/ pass: / { if (pid in open) { endpass(pid); passes++ }; next }
	/ unit: / {
		if (!(pid in open)) next
		u = $0
		sub(/.*unit=/, "", u)
		sub(/ .*/, "", u)
		hits[pid]++
		if (!((pid, u) in seen)) { seen[pid, u] = 1; nd[pid]++; units[u] = 1 }
		pcalls[pid]++
		if ((pid, u) in pseen) prep[pid] = 1
		pseen[pid, u] = 1
		next
	}
	/ mm_vmscan_direct_reclaim_end:/ {
		if (!(pid in open)) next
		endpass(pid)
		pairs++
		# A costly order (above PAGE_ALLOC_COSTLY_ORDER, 3: THP faults)
		# skips the zones that are ready for compaction: counted apart.
		if (ord[pid] > 3) costly++
		else if (hits[pid] == 0) none++
		else if (nd[pid] == 1) one++
		else several++
		if (nd[pid] > most) most = nd[pid]
		calls += hits[pid]
		for (k in seen) { split(k, p, SUBSEP); if (p[1] == pid) delete seen[k] }
		delete open[pid]
	}
	END {
		n = 0
		for (u in units) n++
		printf "%d %d %d %d %d %d %d %d %d %d %d\n", pairs, none, one, several, most, calls, n, passes, cpasses, rpasses, costly
	}
' "$out.trace" >"$out.counts"
read -r pairs none one several most calls units passes cpasses rpasses costly <"$out.counts"
echo "direct reclaims of a costly order (above 3, counted apart: they skip zones ready for compaction): $costly"
echo "priority passes: $passes; with a call of $fn: $cpasses; of them repeating a unit: $rpasses"
echo "direct reclaims (begin/end pairs): $pairs; of them passing over no $fn call: $none, one unit: $one, two or more: $several; most units in one: $most; $calls calls of $fn in all, on $units distinct units"
[ "$pairs" -gt 0 ] || fail "expected direct reclaim during the load (mm_vmscan_direct_reclaim_begin/end), saw none"
hit=$((one + several))
[ "$hit" -gt 0 ] || fail "expected $fn to be called inside direct reclaim, saw no call in $pairs pairs"
case $want in
zone)
	[ $((several * 10)) -ge $((hit * 9)) ] ||
		fail "step $step: expected at least 90 % of the $hit direct reclaims to pass over two or more zones, saw $several"
	[ "$fn" = shrink_zone ] || fail "step $step: expected the probe on shrink_zone, the kernel has $fn"
	;;
node)
	[ "$several" -eq 0 ] ||
		fail "step $step: expected every direct reclaim to pass over one node (uma), saw $several of $hit over two or more"
	[ "$fn" = shrink_node ] || fail "step $step: expected the probe on shrink_node, the kernel has $fn"
	;;
esac
[ "$cpasses" -gt 0 ] || fail "expected priority passes (vmpressure_prio) with calls of $fn inside direct reclaim, saw none of $passes"
case $repeat in
yes)
	[ $((rpasses * 10)) -ge $((cpasses * 9)) ] ||
		fail "step $step: expected at least 90 % of the $cpasses passes to call $fn more than once for the node (once per eligible zone), saw $rpasses"
	;;
no)
	[ "$rpasses" -eq 0 ] ||
		fail "step $step: expected no pass to call $fn twice for one unit (each $want once a pass), saw $rpasses of $cpasses"
	;;
esac
