#!/usr/bin/env bash
# Host test: the cover letter's /proc ABI table.
#   1. scripts/abi-table.sh on small canned /proc/vmstat and /proc/zoneinfo
#      files of two ends, in 6.1's format: the names that move between a
#      zone's counters and the per-node stats are listed, in the right
#      direction, and so are the new and removed ones and a name that only
#      enters /proc/vmstat; names in the same places at both ends (the
#      negative controls) and what is no counter (per-CPU pagesets, the
#      tail lines, the protection line) are not; the whole table, exactly,
#      72 columns at most; a wrong or missing file is an error.
#   2. save_proc_files (scripts/lib.sh): the host keeps the runner's
#      "# proc-vmstat: " and "# proc-zoneinfo: " lines from before the
#      plan line, not a test's output that looks like them, and writes no
#      file for a guest that printed none; the runner prints that prefix.
#   3. What make export puts in the cover letter (abi_table_committed):
#      when results/abi/ is committed, the table from the committed files
#      is results/abi/table.txt as committed, and shows nr_vmscan_write
#      moving from the zone counters to the node counters; a commit
#      without the files gives status 2.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/abi-table
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
table=$top/scripts/abi-table.sh

# --- 1. The table from canned files.
# The start: nr_vmscan_write in every zone, nr_dirtied in DMA32 only (a
# zone's counters all the same), nr_mlock per node; the Movable zone is
# not populated (its block ends at the protection line, as 6.1 prints it).
cat >"$work/zone-zoneinfo" <<'EOF'
Node 0, zone      DMA
  per-node stats
      nr_inactive_anon 10
      nr_active_anon 5
      nr_mlock     3
      workingset_nodes 0
  pages free     3840
        boost    0
        min      21
        low      26
        high     31
        spanned  4095
        present  3998
        managed  3840
        cma      0
        protection: (0, 2929, 2929, 2929)
      nr_free_pages 3840
      nr_zone_file_pages 7
      nr_vmscan_write 2
      nr_alloc_batch 43
  pagesets
    cpu: 0
              count: 0
              high:  0
              batch: 1
  vm stats threshold: 4
  node_unreclaimable:  0
  start_pfn:           1
Node 0, zone    DMA32
  pages free     100
        boost    0
        min      5
        low      6
        high     7
        spanned  100
        present  100
        managed  100
        cma      0
        protection: (0, 0, 0, 0)
      nr_free_pages 100
      nr_zone_file_pages 9
      nr_vmscan_write 0
      nr_alloc_batch 10
      nr_dirtied   4
  pagesets
    cpu: 0
              count: 5
              high:  6
              batch: 1
  vm stats threshold: 4
  node_unreclaimable:  0
  start_pfn:           4096
Node 0, zone  Movable
  pages free     0
        boost    0
        min      0
        low      0
        high     0
        spanned  0
        present  0
        managed  0
        cma      0
        protection: (0, 0, 0, 0)
EOF
cat >"$work/zone-vmstat" <<'EOF'
nr_free_pages 3940
nr_zone_file_pages 16
nr_vmscan_write 2
nr_dirtied 4
nr_alloc_batch 53
nr_inactive_anon 10
nr_active_anon 5
nr_mlock 3
pgskip_dma 0
pgfoo_gone 1
EOF
# The end: nr_vmscan_write and nr_dirtied per node, nr_mlock per zone,
# nr_zone_write_pending new, workingset_nodes now in /proc/vmstat too.
cat >"$work/node-zoneinfo" <<'EOF'
Node 0, zone      DMA
  per-node stats
      nr_inactive_anon 10
      nr_active_anon 5
      workingset_nodes 0
      nr_vmscan_write 2
      nr_dirtied   4
  pages free     3840
        boost    0
        min      21
        low      26
        high     31
        spanned  4095
        present  3998
        managed  3840
        cma      0
        protection: (0, 2929, 2929, 2929)
      nr_free_pages 3840
      nr_mlock     3
      nr_zone_write_pending 0
  pagesets
    cpu: 0
              count: 0
              high:  0
              batch: 1
  vm stats threshold: 4
  node_unreclaimable:  0
  start_pfn:           1
Node 0, zone    DMA32
  pages free     100
        boost    0
        min      5
        low      6
        high     7
        spanned  100
        present  100
        managed  100
        cma      0
        protection: (0, 0, 0, 0)
      nr_free_pages 100
      nr_mlock     0
      nr_zone_write_pending 0
  pagesets
    cpu: 0
              count: 5
              high:  6
              batch: 1
  vm stats threshold: 4
  node_unreclaimable:  0
  start_pfn:           4096
EOF
cat >"$work/node-vmstat" <<'EOF'
nr_free_pages 3940
nr_mlock 3
nr_zone_write_pending 0
nr_inactive_anon 10
nr_active_anon 5
workingset_nodes 0
nr_vmscan_write 2
nr_dirtied 4
pgskip_dma 0
EOF
files=("$work/zone-vmstat" "$work/zone-zoneinfo" "$work/node-vmstat" "$work/node-zoneinfo")
rc=0
"$table" "${files[@]}" >"$work/table" 2>"$work/table.err" || rc=$?
sed 's/^/# /' "$work/table" "$work/table.err"
check "canned ends: exit 0" [ "$rc" -eq 0 ]

# The group a name is listed under (its title line), or nothing.
group_of() {
	awk -v n="$1" '/^[A-Z].*:$/ { g = $0 } $1 == n && /^  / { print g }' "$2"
}
# The whole row of a name: NAME BEFORE AFTER, spaces squeezed.
row_of() { awk -v n="$1" '/^  / && $1 == n' "$2" | tr -s ' ' | sed 's/^ //'; }
is() { [ "$1" = "$2" ] || { echo "# got '$1', expected '$2'"; return 1; }; }

zn="Moved from the zone counters to the node counters:"
nz="Moved from the node counters to the zone counters:"
check "moved zone to node: nr_vmscan_write listed there" is "$(group_of nr_vmscan_write "$work/table")" "$zn"
check "moved zone to node: nr_vmscan_write zone, vmstat -> node, vmstat" \
	is "$(row_of nr_vmscan_write "$work/table")" "nr_vmscan_write zone, vmstat node, vmstat"
check "moved zone to node: nr_dirtied (in one zone's counters only) listed there" is "$(group_of nr_dirtied "$work/table")" "$zn"
check "moved node to zone: nr_mlock listed there" is "$(group_of nr_mlock "$work/table")" "$nz"
check "new: nr_zone_write_pending" is "$(group_of nr_zone_write_pending "$work/table")" "New:"
check "removed: nr_zone_file_pages" is "$(group_of nr_zone_file_pages "$work/table")" "Removed:"
check "removed: nr_alloc_batch" is "$(group_of nr_alloc_batch "$work/table")" "Removed:"
check "removed from /proc/vmstat alone: pgfoo_gone, vmstat -> -" is "$(row_of pgfoo_gone "$work/table")" "pgfoo_gone vmstat -"
check "other: workingset_nodes enters /proc/vmstat" \
	is "$(row_of workingset_nodes "$work/table")" "workingset_nodes node node, vmstat"
check "other: workingset_nodes under 'Other changes:'" is "$(group_of workingset_nodes "$work/table")" "Other changes:"
# Negative controls: in the same places at both ends.
for n in nr_free_pages nr_inactive_anon nr_active_anon pgskip_dma min managed protection:; do
	check "not moved: $n is not listed" is "$(row_of "$n" "$work/table")" ""
done
for n in count: high: batch: cpu: start_pfn: node_unreclaimable: threshold:; do
	check "no counter: $n is not listed" is "$(row_of "$n" "$work/table")" ""
done
cat >"$work/expected" <<'EOF'
Where each name of /proc/vmstat and /proc/zoneinfo is shown before
the series (the rewound kernel) and after it: zone = a zone's
counters in /proc/zoneinfo, node = the "per-node stats" there,
vmstat = /proc/vmstat, - = nowhere.  Only the names whose place
changes are listed: 8 of 20.

Moved from the zone counters to the node counters:
  name                   before        after
  nr_dirtied             zone, vmstat  node, vmstat
  nr_vmscan_write        zone, vmstat  node, vmstat

Moved from the node counters to the zone counters:
  name                   before        after
  nr_mlock               node, vmstat  zone, vmstat

New:
  name                   before        after
  nr_zone_write_pending  -             zone, vmstat

Removed:
  name                   before        after
  nr_alloc_batch         zone, vmstat  -
  nr_zone_file_pages     zone, vmstat  -
  pgfoo_gone             vmstat        -

Other changes:
  name                   before        after
  workingset_nodes       node          node, vmstat
EOF
check "canned ends: the whole table as expected (groups, order, columns)" \
	diff "$work/expected" "$work/table"
# shellcheck disable=SC2016 # awk code
check "canned ends: no line over 72 columns" \
	awk 'length > 72 { print "# " length ": " $0; bad = 1 } END { exit bad }' "$work/table"

# The same files the other way round: the moves go the other way.
"$table" "$work/node-vmstat" "$work/node-zoneinfo" "$work/zone-vmstat" "$work/zone-zoneinfo" >"$work/back"
check "ends swapped: nr_vmscan_write moves from the node to the zones" is "$(group_of nr_vmscan_write "$work/back")" "$nz"
check "ends swapped: nr_mlock moves from the zones to the node" is "$(group_of nr_mlock "$work/back")" "$zn"
# Process substitutions (what make export passes): each file read once.
"$table" <(cat "$work/zone-vmstat") <(cat "$work/zone-zoneinfo") \
	<(cat "$work/node-vmstat") <(cat "$work/node-zoneinfo") >"$work/piped"
check "process substitutions: the same table" cmp -s "$work/table" "$work/piped"
# One end against itself: nothing changes.
"$table" "$work/node-vmstat" "$work/node-zoneinfo" "$work/node-vmstat" "$work/node-zoneinfo" >"$work/same"
check "one end twice: no name listed" grep -q 'listed: 0 of ' "$work/same"
# shellcheck disable=SC2016 # expanded by the inner shell
check "one end twice: no group" bash -c '! grep -q "^  name " "$1"' _ "$work/same"
# CRLF line ends (a serial console's) read as LF.
sed 's/$/\r/' "$work/zone-zoneinfo" >"$work/crlf-zoneinfo"
"$table" "$work/zone-vmstat" "$work/crlf-zoneinfo" "$work/node-vmstat" "$work/node-zoneinfo" >"$work/crlf"
check "CRLF zoneinfo: the same table" cmp -s "$work/table" "$work/crlf"

# Errors: status 1 and a message naming the problem.
fails() {
	local want=$1 rc=0
	shift
	"$table" "$@" >"$work/err.out" 2>&1 || rc=$?
	sed 's/^/# /' "$work/err.out"
	[ "$rc" -eq 1 ] && grep -q -- "$want" "$work/err.out"
}
check "vmstat and zoneinfo swapped: fails" fails 'is not "NAME NUMBER"' \
	"$work/zone-zoneinfo" "$work/zone-vmstat" "$work/node-vmstat" "$work/node-zoneinfo"
check "an empty zoneinfo: fails" fails 'argument 4 holds no zone counters' \
	"$work/zone-vmstat" "$work/zone-zoneinfo" "$work/node-vmstat" /dev/null
check "an empty vmstat: fails" fails 'argument 1 holds no vmstat counters' \
	/dev/null "$work/zone-zoneinfo" "$work/node-vmstat" "$work/node-zoneinfo"
check "a missing file: fails" fails "cannot read $work/none" \
	"$work/zone-vmstat" "$work/none" "$work/node-vmstat" "$work/node-zoneinfo"
check "three arguments: usage" fails 'usage:' "$work/zone-vmstat" "$work/zone-zoneinfo" "$work/node-vmstat"

# --- 2. From the guest's KTAP to the run's files.
mkdir -p "$work/run" "$work/run-old"
{
	echo "KTAP version 1"
	echo "# nodelru: kernel 6.1.192-nodelru-zone-debug topology uma (2 cpus, 1 nodes, clocksource hpet) tests: topology"
	sed 's/^/# proc-vmstat: /' "$work/zone-vmstat"
	sed 's/^/# proc-zoneinfo: /' "$work/zone-zoneinfo"
	echo "1..1"
	echo "# start topology (timeout 60s)"
	echo "# proc-vmstat: nr_from_a_test 1"
	echo "# # proc-zoneinfo: nr_from_a_test 1"
	echo "ok 1 topology"
} >"$work/run/results.ktap"
save_proc_files "$work/run"
check "save_proc_files: proc-vmstat is the guest's /proc/vmstat" cmp -s "$work/zone-vmstat" "$work/run/proc-vmstat"
check "save_proc_files: proc-zoneinfo is its /proc/zoneinfo, indentation kept" \
	cmp -s "$work/zone-zoneinfo" "$work/run/proc-zoneinfo"
printf 'KTAP version 1\n1..1\nok 1 topology\n' >"$work/run-old/results.ktap"
save_proc_files "$work/run-old"
check "save_proc_files: a runner that printed none: no proc-vmstat" [ ! -e "$work/run-old/proc-vmstat" ]
check "save_proc_files: a runner that printed none: no proc-zoneinfo" [ ! -e "$work/run-old/proc-zoneinfo" ]
# shellcheck disable=SC2016 # the runner's text, not to be expanded
check "the runner prints the prefix the host reads" \
	grep -qF 'sed "s/^/# proc-$f: /" "/proc/$f"' "$top/initramfs/runner"

# --- 3. What make export puts in the cover letter.
if git -C "$top" cat-file -e HEAD:results/abi/table.txt 2>/dev/null; then
	rc=0
	abi_table_committed HEAD >"$work/committed" || rc=$?
	check "results/abi as committed: the table is made (status 0)" [ "$rc" -eq 0 ]
	check "results/abi as committed: table.txt is the table of the committed files" \
		cmp -s "$work/committed" <(git -C "$top" show HEAD:results/abi/table.txt)
	check "results/abi as committed: nr_vmscan_write moves from the zone counters to the node" \
		is "$(group_of nr_vmscan_write "$work/committed")" "$zn"
	# shellcheck disable=SC2016 # expanded by the inner shell
	check "results/abi as committed: the README says where the files came from" \
		bash -c 'git -C "$1" show HEAD:results/abi/README.md | grep -q "^Captured: .*nodelru-zone-.* .*nodelru-node-"' _ "$top"
else
	echo "# results/abi/table.txt is not committed yet: the committed table is not checked"
fi
root=$(git -C "$top" rev-list --max-parents=0 HEAD | tail -n 1)
rc=0
abi_table_committed "$root" >"$work/none.out" || rc=$?
check "a commit without results/abi: status 2" [ "$rc" -eq 2 ]
check "a commit without results/abi: nothing printed" [ ! -s "$work/none.out" ]

echo "# abi-table: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
