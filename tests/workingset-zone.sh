#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=full timeout=1200 topo=uma order=5
#
# Working set detection with the shadow entry of each end of the series.
# At the zone end a shadow entry packs the zone id as well as the node id
# ("mm, workingset: make working set detection node-aware" takes it out),
# so the eviction timestamp has ZONES_SHIFT bits fewer; the kernel says
# how many it has at boot:
#	workingset: timestamp_bits=B max_order=M bucket_order=O
# B = BITS_PER_LONG - EVICTION_SHIFT, and EVICTION_SHIFT is
#	1 (xarray value tag) + 1 (WORKINGSET_SHIFT) + NODES_SHIFT
#	+ MEM_CGROUP_ID_SHIFT (16 with memcg, else 0)
#	+ ZONES_SHIFT (zone end only)
# The inputs come from /proc/config.gz when the kernel has it; without it
# ZONES_SHIFT comes from the number of zones /proc/zoneinfo lists for
# node 0 (it lists empty zones too), memcg from /proc/cgroups, and
# NODES_SHIFT is the x86 Kconfig default (6 on x86_64, 3 on i386) when
# the kernel has NUMA (/sys/devices/system/node), else 0.  Which end:
# the kernel release (*-nodelru-zone-*, *-nodelru-node-*); a kernel of a
# step between takes the node form when /proc/zoneinfo has no
# nr_zone_file_pages (the file accounting patch comes after the
# workingset one), else either form.
#
# Then a file of 13/10 of MemTotal is written to the scratch disk (the
# per-page pattern of tests/lib, seeded at random) and read twice through
# the page cache with every word checked (tests/tools/pattern-file),
# nothing dropped by hand: each read evicts what it read first, so the second
# read refaults on the shadow entries the first left.  Each read reports
# the deltas of workingset_refault_file, workingset_activate_file and
# workingset_nodes (/proc/vmstat) and its time.
#
# Pass: timestamp_bits as computed above; the second read has
# workingset_refault_file > 0; both reads give back every word
# written.  The activations are reported only: a file read once a pass
# leaves the active list empty, and a stream longer than memory is,
# correctly, not activated (tests/file-stream.c makes them happen).
# Fault: INJECT=workingset-bits adds 1 to the expected timestamp_bits.
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

dir=/mnt/scratch
f=$dir/workingset-zone.dat
grep -q " $dir " /proc/mounts || fail "expected the scratch disk on $dir, it is not mounted"
trap 'rm -f "$f"' EXIT

# The boot line, while it is still in the log buffer (this test runs
# first in its set).
line=$(dmesg | grep -o 'workingset: timestamp_bits=.*' | tail -n 1 || true)
[ -n "$line" ] || fail "expected the 'workingset: timestamp_bits=' line in dmesg, saw none (log buffer overwritten?)"
echo "boot: $line"
bits=$(echo "$line" | sed 's/.*timestamp_bits=\([0-9]*\).*/\1/')

# The bit budget the kernel's configuration implies.
cfg=
if [ -r /proc/config.gz ]; then
	cfg=$(zcat /proc/config.gz)
fi
opt() { echo "$cfg" | sed -n "s/^CONFIG_$1=//p"; }
case $(uname -m) in
x86_64) long=64 def_nodes=6 ;;
i?86) long=32 def_nodes=3 ;;
*) fail "expected x86_64 or i386, saw $(uname -m)" ;;
esac
nzones=$(awk '/^Node 0, zone/ { n++ } END { print n + 0 }' /proc/zoneinfo)
zshift=0
[ "$nzones" -le 1 ] || zshift=1
[ "$nzones" -le 2 ] || zshift=2
[ "$nzones" -le 4 ] || zshift=3
if [ -n "$cfg" ]; then
	src="/proc/config.gz"
	memcg=0
	[ "$(opt MEMCG)" != y ] || memcg=16
	nodes=$(opt NODES_SHIFT)
	nodes=${nodes:-0}
else
	src="no /proc/config.gz: memcg from /proc/cgroups, NODES_SHIFT assumed the Kconfig default"
	memcg=0
	! grep -q '^memory[[:space:]]' /proc/cgroups 2>/dev/null || memcg=16
	nodes=0
	[ ! -d /sys/devices/system/node ] || nodes=$def_nodes
fi
node_form=$((long - 1 - 1 - nodes - memcg))
zone_form=$((node_form - zshift))
echo "bit budget ($src): BITS_PER_LONG $long, NODES_SHIFT $nodes, MEM_CGROUP_ID_SHIFT $memcg, $nzones zones (ZONES_SHIFT $zshift)"
echo "  node form: $node_form timestamp bits; zone form: $zone_form"

zone_marker=no
grep -q '^ *nr_zone_file_pages ' /proc/zoneinfo && zone_marker=yes
series_end
case $end in
zone) want=$zone_form ;;
node) want=$node_form ;;
*)
	if [ "$zone_marker" = no ]; then
		end="step (no nr_zone_file_pages: node form)" want=$node_form
	else
		end="step (either form)" want=
	fi
	;;
esac
if inject workingset-bits; then
	node_form=$((node_form + 1))
	zone_form=$((zone_form + 1))
	[ -z "$want" ] || want=$((want + 1))
fi
echo "end: $end; nr_zone_file_pages in /proc/zoneinfo: $zone_marker; timestamp_bits=$bits"
if [ -n "$want" ]; then
	[ "$bits" -eq "$want" ] || fail "expected timestamp_bits=$want ($end), saw $bits"
else
	[ "$bits" -eq "$zone_form" ] || [ "$bits" -eq "$node_form" ] ||
		fail "expected timestamp_bits=$zone_form (zone form) or $node_form (node form), saw $bits"
	form=node
	[ "$bits" -ne "$zone_form" ] || form=zone
	echo "  this step has the $form form"
fi

# The file: 13/10 of MemTotal, the per-page pattern of tests/lib
# (pattern-file write; a shell loop with md5sum took over 13 minutes for
# 1.9 GiB under TCG), every word checked on each read (pattern-file verify).
total_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
mib=$((total_kb * 13 / 10 / 1024))
avail_kb=$(df -k "$dir" | awk 'NR == 2 { print $4 }')
[ "$avail_kb" -gt $(((mib + 64) * 1024)) ] ||
	fail "expected $((mib + 64)) MiB free on $dir for the file, saw $((avail_kb / 1024)) MiB"
seedval=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
echo "MemTotal $((total_kb / 1024)) MiB; writing $mib MiB to $f (seed $seedval)"
t0=$(date +%s)
pattern-file write "$f" "$mib" "$seedval" || fail "writing $f"
echo "  written and synced in $(($(date +%s) - t0)) s"

ws() { awk '$1 == "workingset_refault_file" || $1 == "workingset_activate_file" || $1 == "workingset_nodes" { print $1, $2 }' /proc/vmstat; }
# delta BEFORE AFTER NAME
delta() { printf '%s\n%s\n' "$1" "$2" | awk -v k="$3" '$1 == k { v[n++] = $2 } END { print v[1] - v[0] }'; }
ws0=$(ws)
for k in workingset_refault_file workingset_activate_file workingset_nodes; do
	echo "$ws0" | grep -q "^$k " || fail "expected $k in /proc/vmstat, saw none"
done

# read N: every word of the file checked; sets refaults.
read_pass() {
	before=$(ws)
	t0=$(date +%s)
	pattern-file verify "$f" "$mib" "$seedval" || fail "read $1: the data read back is not what was written (above)"
	after=$(ws)
	refaults=$(delta "$before" "$after" workingset_refault_file)
	echo "read $1: $(($(date +%s) - t0)) s; workingset_refault_file +$refaults," \
		"workingset_activate_file +$(delta "$before" "$after" workingset_activate_file)," \
		"workingset_nodes $(delta "$before" "$after" workingset_nodes)"
}
read_pass 1
read_pass 2
[ "$refaults" -gt 0 ] || fail "read 2: expected workingset_refault_file to grow (the first read evicted the start of the file), saw +$refaults"
echo "ok: timestamp_bits=$bits, read 2 refaulted $refaults pages, data intact"
