#!/usr/bin/env bash
# Host test: scripts/bench-report.py computes its figures from the raw
# results and from nothing else.  Two iterations per end of synthetic KTAP
# in the runner's format, with known counters; the report must show the
# shares, efficiencies, spreads and ratios those numbers give, mark what
# is missing, and list a workload that failed.
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
# nodelru: kernel 6.1.0-$1-bench topology uma (2 cpus, 1 nodes, clocksource hpet) tests: bench
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
check "report.md written" [ -s "$r" ]
# DMA32 share: zone 600/900 and 700/1050 = 66.67 %; node 0 %.
check "DMA32 share from pgalloc: zone 66.7 ± 0, node 0" has "| DMA32 share of allocations (%) | 66.7 ± 0 | 0 ± 0 | 0.000 | differs |"
# kswapd efficiency 80 % both zone iterations; node 99 %.
check "kswapd efficiency from pgsteal/pgscan" has "| kswapd_efficiency_pct | 80 ± 0 | 99 ± 0 | 1.238 | differs |"
# p50 zone 100 and 300: mean 200, sd 141; node 100 ± 0: ratio 0.5, within noise.
check "spread and noise verdict" has "| mmap latency p50 (us) | 200 ± 141.4 | 100 ± 0 | 0.500 | within noise |"
check "bonnie data set size from its size_mib line" has "## 2. bonnie++ (ext4, data set 6144 MiB)"
check "bonnie block output from the CSV (field 12)" has "| SeqOut Block KiB/s | 1050 ± 70.7 | 1000 ± 0 | 0.952 | within noise |"
check "bonnie '+++++' fields are left out, not zero" bash -c "grep -q 'SeqCreate Create' '$r' && ! grep -q 'SeqCreate Read' '$r'"
check "a failed workload is listed" has "node end, run 2: \`not ok 3 bench-fio # exit=1 after 5s\`"
check "a skipped run is listed" has "lockstat zone skipped"
check "missing lockstat says not run" has "Not run (see the status above)."
check "what the guest saw, per end" has "| node end, seen in the guest | 6.1.0-node-bench on uma: 2 CPUs, 1 node(s), clocksource hpet |"
check "headline written" grep -q 'DMA32 share' "$work/headline.md"
check "figures.tsv has every iteration" [ "$(grep -c $'^alloc\tvm:pgalloc_dma32\t' "$work/data/figures.tsv")" = 4 ]
# zoneinfo counters: DMA32 inactive file after stutter zone 1000 and 2000,
# node 1500 twice; the per-node line is in counters.tsv, not the table.
check "per-zone LRU pages after stutter" has "| node0/DMA32 nr_zone_inactive_file | 1500 ± 707.1 | 1500 ± 0 | 1.000 | within noise |"
check "counters.tsv has before and after" grep -q $'^zone\t2\tstutter\tnode0\tnr_inactive_file\t1000\t4000$' "$work/data/counters.tsv"
echo "# bench-report: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
