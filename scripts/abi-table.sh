#!/usr/bin/env bash
# The /proc ABI the series changes, as a plain-text table for a mail.
#
#   scripts/abi-table.sh ZONE_VMSTAT ZONE_ZONEINFO NODE_VMSTAT NODE_ZONEINFO
#
# The four files are /proc/vmstat and /proc/zoneinfo of the two ends as
# booted: the rewound kernel (before the series) and the last step (after
# it); the runner prints them once a boot and scripts/qemu-run.sh saves
# them as build/runs/<run>/proc-vmstat and proc-zoneinfo.  Each counter
# name has a place at each end, any of:
#   zone    a zone's counters in /proc/zoneinfo: the "NAME VALUE" lines
#           after a zone's "pages free" line, up to its "pagesets"
#   node    the "per-node stats" block of /proc/zoneinfo
#   vmstat  /proc/vmstat
# (as tests/lib/bench.sh's bench_zoneinfo reads them).  Printed are only
# the names whose place differs between the ends, grouped (moved from the
# zones to the node, from the node to the zones, new, removed, other
# changes) and sorted by name within a group: two columns of places
# (at most 18 characters each) after the names, for a mail of 72
# columns with names of up to 30.  Each file is read once, so process
# substitutions do (scripts/export.sh passes committed files so).
# Exit status 1, with a message, when a file is missing or is not what
# its position says (a vmstat line that is not "NAME NUMBER", a zoneinfo
# without a zone's counters).
set -euo pipefail
export LC_ALL=C

if [ $# -ne 4 ]; then
	echo "usage: scripts/abi-table.sh ZONE_VMSTAT ZONE_ZONEINFO NODE_VMSTAT NODE_ZONEINFO" >&2
	exit 1
fi
for f in "$@"; do
	if [ ! -r "$f" ]; then
		echo "abi-table: cannot read $f" >&2
		exit 1
	fi
done

# One line per name whose place differs, "GROUP<tab>NAME<tab>BEFORE<tab>
# AFTER", and one "T<tab>COUNT" of all the names at either end.
places=$(awk '
	function fail(what) {
		printf "abi-table: %s: %s\n", FILENAME, what >"/dev/stderr"
		bad = 1
		exit 1
	}
	# f: the argument (set before each file, so an empty one counts
	# too); 1 and 3 are vmstat, 2 and 4 zoneinfo, 1 and 2 the start.
	FNR == 1 { sect = ""; end = f <= 2 ? 1 : 2 }
	{ sub(/\r$/, "") }
	f == 1 || f == 3 {
		if (NF == 0) next
		if (NF != 2 || $2 !~ /^-?[0-9]+$/) fail("line " FNR " is not \"NAME NUMBER\": " $0)
		at[end, $1, "vmstat"] = 1; names[$1] = 1; seen[f]++
		next
	}
	$1 == "Node" { sect = ""; next }
	$1 == "per-node" && $2 == "stats" { sect = "node"; next }
	$1 == "pages" && $2 == "free" { sect = "zone"; next }
	$1 == "pagesets" { sect = ""; next }
	sect != "" && NF == 2 && $2 ~ /^-?[0-9]+$/ {
		at[end, $1, sect] = 1; names[$1] = 1
		if (sect == "zone") seen[f]++
	}
	END {
		if (bad) exit 1
		for (i = 1; i <= 4; i++) if (!seen[i]) {
			printf "abi-table: argument %d holds no %s\n", i,
				i % 2 ? "vmstat counters" : "zone counters (\"pages free\" up to \"pagesets\")" >"/dev/stderr"
			exit 1
		}
		total = 0
		for (n in names) {
			total++
			for (e = 1; e <= 2; e++) {
				p = ""
				if ((e, n, "zone") in at) p = "zone"
				if ((e, n, "node") in at) p = p (p == "" ? "" : ", ") "node"
				if ((e, n, "vmstat") in at) p = p (p == "" ? "" : ", ") "vmstat"
				place[e] = p == "" ? "-" : p
			}
			if (place[1] == place[2]) continue
			z1 = (1, n, "zone") in at; n1 = (1, n, "node") in at
			z2 = (2, n, "zone") in at; n2 = (2, n, "node") in at
			if (place[1] == "-") g = 3
			else if (place[2] == "-") g = 4
			else if (z1 && !n1 && n2 && !z2) g = 1
			else if (n1 && !z1 && z2 && !n2) g = 2
			else g = 5
			printf "%d\t%s\t%s\t%s\n", g, n, place[1], place[2]
		}
		printf "T\t%d\n", total
	}' f=1 "$1" f=2 "$2" f=3 "$3" f=4 "$4")
total=$(sed -n 's/^T\t//p' <<<"$places")

# The table: a legend, then each group that has names, under its title.
{ grep -v '^T' <<<"$places" || true; } | sort -t "$(printf '\t')" -k1,1n -k2,2 |
	awk -F '\t' -v total="$total" '
	{ g[NR] = $1; n[NR] = $2; b[NR] = $3; a[NR] = $4
	  if (length($2) > wn) wn = length($2); if (length($3) > wb) wb = length($3) }
	END {
		title[1] = "Moved from the zone counters to the node counters:"
		title[2] = "Moved from the node counters to the zone counters:"
		title[3] = "New:"
		title[4] = "Removed:"
		title[5] = "Other changes:"
		if (wn < 4) wn = 4
		if (wb < 6) wb = 6
		print "Where each name of /proc/vmstat and /proc/zoneinfo is shown before"
		print "the series (the rewound kernel) and after it: zone = a zone'"'"'s"
		print "counters in /proc/zoneinfo, node = the \"per-node stats\" there,"
		print "vmstat = /proc/vmstat, - = nowhere.  Only the names whose place"
		printf "changes are listed: %d of %d.\n", NR, total
		if (NR == 0) exit
		for (i = 1; i <= NR; i++) {
			if (g[i] != g[i - 1]) {
				printf "\n%s\n", title[g[i]]
				printf "  %-*s  %-*s  %s\n", wn, "name", wb, "before", "after"
			}
			printf "  %-*s  %-*s  %s\n", wn, n[i], wb, b[i], a[i]
		}
	}'
