#!/usr/bin/env bash
# Host test: scripts/bench-report.py computes its figures from the raw
# results and from nothing else.  Two iterations per kernel of synthetic
# KTAP in the runner's format, with known counters; the report must show
# the shares, efficiencies, spreads, ratios and direction words those
# numbers give, mark what is missing, and list a workload that failed:
#   1. two kernels (zone, node), as the reports in results/ have;
#   2. three kernels (zone, node, mglru) with the new workloads (re-read,
#      anon, hot/cold), the multi-gen LRU's counters marked and the ratios
#      against both ends;
#   3. the refusal: a column whose guests did not run what its label says
#      (the multi-gen LRU off on mglru, on on zone, no record, another
#      kernel's release) is INVALID, loudly, and the exit status is 2;
#   4. a committed report's raw data (results/20261205-full) still makes a
#      report.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/bench-report
rm -rf "$work"
mkdir -p "$work/raw" "$work/meta"
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

# ktap END ITER DMA32 NORMAL KSCAN KSTEAL P50 BONNIE-BLOCK-OUT INACTIVE-FILE
ktap() {
	cat <<EOK
KTAP version 1
# nodelru: kernel 6.1.192-nodelru-$1-bench topology uma (2 cpus, 1 nodes, clocksource hpet) tests: bench
1..3
# start bench-alloc (timeout 300s)
# bench-sample: alloc header pgscan_kswapd pgscan_direct
# bench-sample: alloc 0 0 0
# bench-vmstat: alloc pgalloc_dma32 $3
# bench-vmstat: alloc pgalloc_normal $4
# bench: alloc elapsed_s 10
ok 1 bench-alloc
# start bench-stutter (timeout 600s)
# bench-sample: stutter header pgscan_kswapd pgscan_direct pgsteal_kswapd
# bench-sample: stutter 0 100 0 50
# bench-sample: stutter 1 200 10 150
# bench-sample: stutter 2 400 10 300
# bench-zonesample: stutter 0 node0/DMA32 10 20 30 40 500
# bench-zonesample: stutter 0 node0/Normal 1 2 3 4 50
# bench-zonesample: stutter 1 node0/DMA32 20 20 30 40 400
# bench-zonesample: stutter 1 node0/Normal 2 2 3 4 40
# bench-vmstat: stutter pgscan_kswapd $5
# bench-vmstat: stutter pgsteal_kswapd $6
# bench: stutter elapsed_s 100
# bench: stutter lat_p50_us $7
# bench-raw: stutter 10 20 30 40 $7
# bench-counter: stutter node0 nr_inactive_file 1000 $9
# bench-counter: stutter node0/DMA32 nr_zone_inactive_file 500 $((${9} / 2))
ok 2 bench-stutter
# bench: bonnie size_mib 6144
# bench: bonnie csv 1.98,2.00a,vm,1,1,6G,,8192,5,,,$8,50,100,20,,,300,30,120.5,5,16,,,,,500,10,+++++,+++,600,10,,,,,,,
$( [ "$1" = node ] && [ "$2" = 2 ] && echo "not ok 3 bench-fio # exit=1 after 5s" || echo "ok 3 bench-fio")
EOK
}
ktap zone 1 600 300 1000 800 100 1000 2000 >"$work/raw/zone-1.ktap"
ktap zone 2 700 350 3000 2400 300 1100 4000 >"$work/raw/zone-2.ktap"
ktap node 1 0 900 1000 990 100 1000 3000 >"$work/raw/node-1.ktap"
ktap node 2 0 1050 1000 990 100 1000 3000 >"$work/raw/node-2.ktap"
printf 'build zone-bench ok 1\nlockstat zone skipped (QUICK=1 and zone-debug is not built)\n' >"$work/meta/status"
printf 'commit: abc123\niterations: 2 (quick=0)\n' >"$work/meta/info"

out=$work/report.out
rc=0
python3 "$top/scripts/bench-report.py" "$work" >"$out" 2>&1 || rc=$?
sed 's/^/# /' "$out"
r=$work/report.md
has() { grep -qF -- "$1" "$r"; }
check "bench-report.py exits 0" [ "$rc" = 0 ]
# The statistics against reference values (the two-sided tail of the t
# density integrated numerically, outside this code; Benjamini-Hochberg by hand).
stat() { python3 -c "import importlib.util as u, sys; s = u.spec_from_file_location('br', '$top/scripts/bench-report.py'); m = u.module_from_spec(s); s.loader.exec_module(m); print($1)"; }
check "Welch: [1,2,3] vs [4,5,6] gives p 0.0213 (t -3.674, 4 df)" \
	[ "$(stat "'%.4f' % m.welch_p(m.stats([1,2,3]), m.stats([4,5,6]))")" = 0.0213 ]
check "Welch: unequal spreads, [10,12,14,16] vs [11,11.5,12] gives p 0.3325 (t -1.134, 3.30 df; the t density integrated numerically)" \
	[ "$(stat "'%.4f' % m.welch_p(m.stats([10,12,14,16]), m.stats([11,11.5,12]))")" = 0.3325 ]
check "Welch: no spread and different means is not tested (None)" \
	[ "$(stat "m.welch_p(m.stats([1,1]), m.stats([2,2]))")" = None ]
check "Benjamini-Hochberg: 0.01 0.04 0.03 0.2 -> 0.04 0.0533 0.0533 0.2" \
	[ "$(stat "' '.join('%.4f' % q for q in m.bh_adjust([0.01, 0.04, 0.03, 0.2]))")" = "0.0400 0.0533 0.0533 0.2000" ]
check "report.md written" [ -s "$r" ]
# LRU pages per zone over time: t, then DMA32 and Normal (sum of the four lists).
check "per-zone LRU samples: data/zonelru-stutter-zone.tsv" \
	[ "$(tr '\t' ' ' <"$work/data/zonelru-stutter-zone.tsv" 2>/dev/null)" = "$(printf 't node0/DMA32 node0/Normal\n0 100 10\n1 110 11')" ]
# DMA32 share: zone 600/900 and 700/1050 = 66.67 %; node 0 %.
check "DMA32 share from pgalloc: zone 66.7 ± 0, node 0" has "| DMA32 share of allocations (%) | 66.7 ± 0 | 0 ± 0 | 0.000 ± 0.000 differs, no spread (untested) |"
# kswapd efficiency 80 % both zone iterations; node 99 %.
check "kswapd efficiency from pgsteal/pgscan; no spread on either side: higher, untested" has "| kswapd_efficiency_pct | 80 ± 0 | 99 ± 0 | 1.238 ± 0.000 higher, no spread (untested) |"
# p50 zone 100 and 300: mean 200, sd 141; node 100 ± 0: ratio 0.5, within noise.
check "spread and noise verdict" has "| mmap latency p50 (us) (TCG) | 200 ± 141.4 | 100 ± 0 | 0.500 ± 0.354 within noise (q=0.50) |"
check "bonnie data set size from its size_mib line" has "## 2. bonnie++ (ext4, data set 6144 MiB;"
check "bonnie block output from the CSV (field 12), a rate: harmonic mean of 1000 and 1100" has "| SeqOut Block KiB/s (TCG) | 1048 ± 70.7 | 1000 ± 0 | 0.955 ± 0.064 within noise (q=1.00) |"
check "bonnie '+++++' fields are left out, not zero" bash -c "grep -q 'SeqCreate Create' '$r' && ! grep -q 'SeqCreate Read' '$r'"
check "a failed workload is listed" has "node, run 2: \`not ok 3 bench-fio # exit=1 after 5s\`"
check "a skipped run is listed" has "lockstat zone skipped"
check "missing lockstat says not run" has "Not run (see the status above)."
check "what the guest saw, per kernel" has "| node, seen in the guest | 6.1.192-nodelru-node-bench on uma: 2 CPUs, 1 node(s), clocksource hpet |"
check "headline written" grep -q 'DMA32 share' "$work/headline.md"
check "figures.tsv has every iteration" [ "$(grep -c $'^alloc\tvm:pgalloc_dma32\t' "$work/data/figures.tsv")" = 4 ]
# zoneinfo counters: DMA32 inactive file after stutter zone 1000 and 2000,
# node 1500 twice; the per-node line is in counters.tsv, not the table.
check "per-zone LRU pages after stutter: a distribution, same" has "| node0/DMA32 nr_zone_inactive_file | 1500 ± 707.1 | 1500 ± 0 | 1.000 ± 0.471 same (q=1.00) |"
check "counters.tsv has before and after" grep -q $'^zone\t2\tstutter\tnode0\tnr_inactive_file\t1000\t4000$' "$work/data/counters.tsv"

# 2. Three kernels.  ktap3 KERNEL ITER RELEASE LRUGEN STALLS KSTEAL ACTIVATE
# SURVIVAL HIT BLOCKOUT: the bench set's lines with these figures (the
# other ones the same on every kernel); an empty LRUGEN leaves the
# bench-lrugen lines out.
ktap3() {
	local lg=
	[ -z "$4" ] || lg="# bench-lrugen: alloc $4"
	cat <<EOK
KTAP version 1
# nodelru: kernel $3 topology uma (2 cpus, 1 nodes, clocksource hpet) tests: bench
1..4
# start bench-alloc (timeout 300s)
$lg
# bench-vmstat: alloc pgalloc_dma32 $([ "$1" = zone ] && echo 600 || echo 0)
# bench-vmstat: alloc pgalloc_normal $([ "$1" = zone ] && echo 300 || echo 900)
# bench: alloc elapsed_s 10
ok 1 bench-alloc
# bench: bonnie csv 1.98,2.00a,vm,1,1,6G,,8192,5,,,${10},50,100,20,,,300,30,120.5,5,16,,,,,500,10,+++++,+++,600,10,,,,,,,
ok 2 bench-bonnie
# start bench-reread (timeout 900s)
$([ -z "$4" ] || echo "# bench-lrugen: reread $4")
# bench-vmstat: reread allocstall_normal $5
# bench-vmstat: reread pgscan_kswapd 1000
# bench-vmstat: reread pgsteal_kswapd $6
# bench-vmstat: reread workingset_activate_file $7
# bench-vmstat: reread oom_kill 0
# bench: reread elapsed_s 10
# bench: reread pages 1000
# bench: reread pass2_hit_pct $9
# bench: reread pass2_workingset_refault_file 500
ok 3 bench-reread
# start bench-hotcold (timeout 1200s)
$([ -z "$4" ] || echo "# bench-lrugen: hotcold $4")
# bench-round: hotcold 1 100 1000 0 1000
# bench-round: hotcold 2 $((2000 - 20 * $8)) 1000 0 1000
# bench: hotcold hot_survival_pct $8
# bench: hotcold hot_anon_majflt 0
ok 4 bench-hotcold
EOK
}
# three NAME [KERNEL=LRUGEN...]: a bench directory with two iterations of
# each kernel; KERNEL=VALUE overrides that kernel's lru_gen record
# (VALUE "none": no record), KERNEL@ITER=RELEASE its release in one run.
three() {
	local dir=$build/selftest/bench-report-$1 k i rel lg a stalls steal act surv hit blk
	shift
	rm -rf "$dir"
	mkdir -p "$dir/raw" "$dir/meta"
	printf 'commit: abc123\niterations: 2 (quick=0)\n' >"$dir/meta/info"
	for k in zone node mglru; do
		for i in 1 2; do
			case $k in
			zone) rel=6.1.192-nodelru-zone-bench lg=absent stalls=$((995 + 10 * i)) steal=800 act=100 surv=$((48 + 2 * i)) hit=0 blk=$((900 + 100 * i)) ;;
			node) rel=6.1.192-nodelru-node-bench lg=absent stalls=$((497 + 5 * i)) steal=900 act=100 surv=$((58 + 2 * i)) hit=0 blk=1000 ;;
			mglru) rel=6.1.192-nodelru-node-bench+mglru lg=0x0007 stalls=$((695 + 10 * i)) steal=990 act=0 surv=$((89 + i)) hit=$((18 + 2 * i)) blk=$((1950 + 100 * i)) ;;
			esac
			for a in "$@"; do
				case $a in
				"$k=none") lg= ;;
				"$k="*) lg=${a#*=} ;;
				"$k@$i="*) rel=${a#*=} ;;
				esac
			done
			ktap3 "$k" "$i" "$rel" "$lg" "$stalls" "$steal" "$act" "$surv" "$hit" "$blk" >"$dir/raw/$k-$i.ktap"
		done
	done
	rc=0
	python3 "$top/scripts/bench-report.py" "$dir" >"$dir/report.out" 2>&1 || rc=$?
	sed 's/^/# /' "$dir/report.out"
	r=$dir/report.md
}
three ok
check "three kernels: exits 0" [ "$rc" = 0 ]
check "three kernels: a column each, ratios against zone and node" \
	has "| figure | zone | node | mglru | node/zone | mglru/zone | mglru/node |"
# alloc stalls (lower is better): zone 1005/1015, node 502/507, mglru 705/715
check "three kernels: fewer stalls is better (Welch, BH q <= 0.05); 1.4x more from two runs a side is not significant" \
	has "| allocation_stalls | 1010 ± 7.07 | 504.5 ± 3.54 | 710 ± 7.07 | 0.500 ± 0.005 better (q=0.038) | 0.703 ± 0.009 better (q=0.038) | 1.407 ± 0.017 within noise (q=0.10) |"
check "three kernels: the multi-gen LRU's scan figures carry a dagger" \
	has "| kswapd_efficiency_pct | 80 ± 0 | 90 ± 0 | 99 ± 0 | 1.125 ± 0.000 higher, no spread (untested) | 1.238 ± 0.000 higher, no spread (untested) † | 1.100 ± 0.000 higher, no spread (untested) † |"
check "three kernels: workingset_activate is not compared with the multi-gen LRU" \
	has "| workingset_activate_file | 100 ± 0 | 100 ± 0 | 0 ± 0 | 1.000 ± 0.000 within noise (q=1.00) | n/a: not counted by MGLRU | n/a: not counted by MGLRU |"
check "three kernels: a distribution is 'same' or 'differs'" \
	has "| DMA32 share of allocations (%) | 66.7 ± 0 | 0 ± 0 | 0 ± 0 | 0.000 ± 0.000 differs, no spread (untested) | 0.000 ± 0.000 differs, no spread (untested) | = same (q=1.00) |"
check "three kernels: 2x the throughput from two runs a side, no test passes after BH: within noise (TCG)" \
	has "| SeqOut Block KiB/s (TCG) | 1048 ± 70.7 | 1000 ± 0 | 2099 ± 70.7 | 0.955 ± 0.064 within noise (q=1.00) | 2.003 ± 0.151 within noise (q=0.43) | 2.099 ± 0.071 within noise (q=0.25) |"
check "three kernels: hot set survival, more is better" \
	has "| hot_survival_pct | 51 ± 1.41 | 61 ± 1.41 | 90.5 ± 0.71 | 1.196 ± 0.043 better (q=0.039) | 1.775 ± 0.051 better (q=0.018) | 1.484 ± 0.036 better (q=0.018) |"
check "three kernels: re-read hits from 0: a difference, not a ratio over 0" has "| pass2_hit_pct | 0 ± 0 | 0 ± 0 | 21 ± 1.41 | = within noise (q=1.00) | Δ +21 within noise (q=0.09) | Δ +21 within noise (q=0.09) |"
check "three kernels: the dagger is explained" has "† The multi-gen LRU of 6.1 counts these differently"
check "three kernels: each kernel's lru_gen state in the head" has "| mglru, /sys/kernel/mm/lru_gen/enabled | 0x0007 |"
check "three kernels: the summary puts counts before TCG timings" \
	bash -c "grep -n 'Counts (independent' '$r' | head -1 | cut -d: -f1 | { read -r a; b=\$(grep -n 'TCG timings (not' '$r' | head -1 | cut -d: -f1); [ \"\$a\" -lt \"\$b\" ]; }"
check "three kernels: per-round survival written" grep -q $'^2\t' "$build/selftest/bench-report-ok/data/hotcold-rounds-mglru.tsv"
check "three kernels: figures.tsv names the kernel" grep -q $'^reread\tvm:allocation_stalls\tmglru\t2\t715$' "$build/selftest/bench-report-ok/data/figures.tsv"
check "three kernels: headline has the three and the ratios" grep -q 'mglru/node' "$build/selftest/bench-report-ok/headline.md"
check "three kernels: nothing invalid" bash -c "! grep -qi invalid '$r'"

# 3. The refusal.
three mglru-off mglru=0x0000
check "mglru off: exit 2" [ "$rc" = 2 ]
check "mglru off: loud at the top" has "**INVALID: the \`mglru\` column.**"
check "mglru off: says why" has "/sys/kernel/mm/lru_gen/enabled was 0x0000 during alloc: the multi-gen LRU was not on"
check "mglru off: the column shows no figure" has "| allocation_stalls | 1010 ± 7.07 | 504.5 ± 3.54 | INVALID | 0.500 ± 0.005 better (q=0.027) | invalid | invalid |"
check "mglru off: the header says so" has "| figure | zone | node | mglru (INVALID) |"
check "mglru off: the headline says so" grep -q '^INVALID: the mglru column' "$build/selftest/bench-report-mglru-off/headline.md"
check "mglru off: stderr says so" grep -q 'bench-report: INVALID: the mglru column' "$build/selftest/bench-report-mglru-off/report.out"
three zone-on zone=0x0007
check "multi-gen LRU on in the zone kernel: exit 2" [ "$rc" = 2 ]
check "multi-gen LRU on in the zone kernel: zone INVALID" has "the multi-gen LRU was on in the zone kernel"
check "multi-gen LRU on in the zone kernel: node/mglru still compared" has "| invalid | invalid | 1.407 ± 0.017 within noise (q=0.09) |"
three mglru-none mglru=none
check "no lru_gen record from mglru: exit 2" [ "$rc" = 2 ]
check "no lru_gen record from mglru: says so" has "no bench-lrugen record: nothing shows that the multi-gen LRU was on"
three mglru-release "mglru@2=6.1.192-nodelru-node-bench"
check "another kernel's release in an mglru run: exit 2" [ "$rc" = 2 ]
check "another kernel's release in an mglru run: says which" has "raw/mglru-2.ktap: the guest ran 6.1.192-nodelru-node-bench, which is not the mglru kernel"

# 4. A committed report's raw data (two kernels, no lru_gen record).
old=$build/selftest/bench-report-committed
rm -rf "$old"
mkdir -p "$old"
cp -r "$top/results/20261205-full/raw" "$top/results/20261205-full/meta" "$old/"
rc=0
python3 "$top/scripts/bench-report.py" "$old" >"$old/report.out" 2>&1 || rc=$?
r=$old/report.md
check "results/20261205-full regenerates: exit 0" [ "$rc" = 0 ]
check "results/20261205-full regenerates: the allocation shares" \
	has "| DMA32 share of allocations (%) | 66.5 ± 0.03 | 0 ± 0 | 0.000 ± 0.000 differs (q=<0.001) |"
check "results/20261205-full regenerates: two columns, one ratio" has "| figure | zone | node | node/zone |"
check "results/20261205-full regenerates: lru_gen not recorded, not invalid" \
	bash -c "grep -q 'not recorded (runs before the record was added)' '$r' && ! grep -qi invalid '$r'"

echo "# bench-report: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
