# shellcheck shell=sh
# Helpers for the benchmark workloads (tests/bench-*.sh), sourced from
# /lib/nodelru/bench.sh in the guest.  Every figure goes to stdout as
#   bench: WORKLOAD METRIC VALUE            a result of the workload
#   bench-vmstat: WORKLOAD COUNTER DELTA    /proc/vmstat moved (non-zero only)
#   bench-sample: WORKLOAD T COUNTERS...    1 Hz samples of the reclaim counters
# which the host (scripts/bench-report.sh) reads from the KTAP stream.

# Quick mode (make bench QUICK=1): smaller sizes, shorter runs.
bench_quick() { [ "${NODELRU_QUICK:-0}" = 1 ]; }

mem_kb() { awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo; }

BENCH_SAMPLED="pgscan_kswapd pgscan_direct pgsteal_kswapd pgsteal_direct pswpin pswpout allocstall_dma32 allocstall_normal allocstall_movable"

# bench_begin NAME: snapshot /proc/vmstat and start the 1 Hz sampler.
bench_begin() {
	sync
	cp /proc/vmstat "/tmp/bench.$1.before"
	date +%s >"/tmp/bench.$1.t0"
	(
		t=0
		while :; do
			awk -v t="$t" -v w="$1" -v want="$BENCH_SAMPLED" '
				BEGIN { n = split(want, k, " "); for (i = 1; i <= n; i++) pos[k[i]] = i }
				$1 in pos { v[pos[$1]] = $2 }
				END {
					printf "bench-sample: %s %d", w, t
					for (i = 1; i <= n; i++) printf " %d", v[i]
					printf "\n"
				}' /proc/vmstat
			sleep 1
			t=$((t + 1))
		done
	) >"/tmp/bench.$1.samples" 2>/dev/null &
	echo $! >"/tmp/bench.$1.sampler"
}

# bench_end NAME: stop the sampler, print the samples, the vmstat deltas
# and the elapsed time.
bench_end() {
	kill "$(cat "/tmp/bench.$1.sampler")" 2>/dev/null || true
	wait "$(cat "/tmp/bench.$1.sampler")" 2>/dev/null || true
	echo "bench-sample: $1 header $BENCH_SAMPLED"
	cat "/tmp/bench.$1.samples"
	awk -v w="$1" 'FNR == NR { b[$1] = $2; next }
		($1 in b) && $2 != b[$1] { printf "bench-vmstat: %s %s %d\n", w, $1, $2 - b[$1] }' \
		"/tmp/bench.$1.before" /proc/vmstat
	echo "bench: $1 elapsed_s $(($(date +%s) - $(cat "/tmp/bench.$1.t0")))"
	rm -f "/tmp/bench.$1.before" "/tmp/bench.$1.t0" "/tmp/bench.$1.samples" "/tmp/bench.$1.sampler"
}
