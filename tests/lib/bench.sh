# shellcheck shell=sh
# Helpers for the benchmark workloads (tests/bench-*.sh), sourced from
# /lib/nodelru/bench.sh in the guest.  Every figure goes to stdout as
#   bench: WORKLOAD METRIC VALUE            a result of the workload
#   bench-vmstat: WORKLOAD COUNTER DELTA    /proc/vmstat moved (non-zero only)
#   bench-sample: WORKLOAD T COUNTERS...    1 Hz samples of the reclaim counters
#   bench-zonesample: WORKLOAD T nodeN/ZONE INACTIVE_ANON ACTIVE_ANON
#                     INACTIVE_FILE ACTIVE_FILE FREE
#                                           1 Hz, every populated zone
#   bench-counter: WORKLOAD SCOPE COUNTER BEFORE AFTER
#                                           every /proc/zoneinfo counter;
#                                           SCOPE is nodeN (per-node stats) or
#                                           nodeN/ZONE (per-zone)
#   bench-round: WORKLOAD ROUND VALUES...   per-round counts (hot-cold.c)
#   bench-lrugen: WORKLOAD VALUE            /sys/kernel/mm/lru_gen/enabled when
#                                           the workload began (0x0007: the
#                                           multi-gen LRU on), or "absent"
# which the host (scripts/bench-report.py) reads from the KTAP stream.  The
# report refuses a kernel whose runs say the wrong thing here: the mglru
# kernel must have bit 0 (LRU_GEN_CORE) set in every workload, the zone and
# node kernels must not.

# Quick mode (make bench QUICK=1): smaller sizes, shorter runs.
bench_quick() { [ "${NODELRU_QUICK:-0}" = 1 ]; }

# bench_fine_clock: latencies need a clocksource finer than the tick.
# Under TCG the kernel may mark the TSC unstable; without an HPET or ACPI
# PM timer to take over, jiffies is left, and every latency would come out
# in whole ticks.  (The runner's header line already names the clocksource.)
bench_fine_clock() {
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
	case $cs in
	jiffies | refined-jiffies)
		echo "FAIL: expected a clocksource finer than the tick to time latencies, saw '$cs'"
		return 1
		;;
	esac
}

mem_kb() { awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo; }

# The multi-gen LRU's state: the enabled mask, or "absent" when the kernel
# has no CONFIG_LRU_GEN.
bench_lrugen() {
	if [ -r /sys/kernel/mm/lru_gen/enabled ]; then
		cat /sys/kernel/mm/lru_gen/enabled
	else
		echo absent
	fi
}

# bench_ram_kb: the memory the workloads of tests/bench-{reread,anon,hotcold}.sh
# take their sizes from, the same on every kernel: MemTotal, or in quick
# mode a quarter of it (bench_shrink holds the rest).
bench_ram_kb() {
	if bench_quick; then
		echo $(($(mem_kb) / 4))
	else
		mem_kb
	fi
}

# bench_shrink: in quick mode, make the guest a machine of a quarter of
# its size, so that a short run keeps the ratios of the full one (a set
# larger than RAM still is): caches dropped, then mlock-hog holds all but
# MemTotal/4 of MemFree in mlocked huge pages (cheap to fault, never
# reclaimed); bench_unshrink (or the test's end: mlock-hog dies with its
# parent) gives it back.  Does nothing in full mode.
bench_shrink() {
	bench_quick || return 0
	sync
	echo 3 >/proc/sys/vm/drop_caches
	_leave=$(($(bench_ram_kb) / 1024))
	mlock-hog "$_leave" >/tmp/bench.hog 2>&1 &
	bench_hog=$!
	_i=0
	until grep -q '^held ' /tmp/bench.hog; do
		kill -0 "$bench_hog" 2>/dev/null ||
			{ echo "FAIL: expected mlock-hog to hold all but $_leave MiB of MemFree, saw: $(cat /tmp/bench.hog)"; return 1; }
		_i=$((_i + 1))
		[ "$_i" -le 300 ] || { echo "FAIL: mlock-hog did not hold memory within 300 s"; return 1; }
		sleep 1
	done
	echo "quick mode: mlock-hog $(cat /tmp/bench.hog); the workload has $_leave MiB (MemTotal/4)"
}

bench_unshrink() {
	[ -n "${bench_hog:-}" ] || return 0
	kill "$bench_hog" 2>/dev/null || true
	wait "$bench_hog" 2>/dev/null || true
	bench_hog=
	rm -f /tmp/bench.hog
}

BENCH_SAMPLED="pgscan_kswapd pgscan_direct pgsteal_kswapd pgsteal_direct pswpin pswpout allocstall_dma32 allocstall_normal allocstall_movable"

# kswapd's CPU time, all kswapd threads, in clock ticks (utime + stime).
bench_kswapd_ticks() {
	t=0
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in
		kswapd*) t=$((t + $(awk '{ print $14 + $15 }' "$p/stat" 2>/dev/null || echo 0))) ;;
		esac
	done
	echo "$t"
}

# bench_settle NAME: the same start for every workload, whatever ran
# before it in the boot: write back and drop the page cache, compact
# memory, and wait (at most 60 s) until kswapd has used no CPU for two
# seconds running.  Prints "bench-settle: NAME SECONDS KSWAPD_IDLE".
bench_settle() {
	_t0=$(date +%s)
	sync
	echo 3 >/proc/sys/vm/drop_caches
	[ ! -w /proc/sys/vm/compact_memory ] || echo 1 >/proc/sys/vm/compact_memory
	_idle=0
	_last=$(bench_kswapd_ticks)
	while [ $(($(date +%s) - _t0)) -lt 60 ]; do
		sleep 1
		_now=$(bench_kswapd_ticks)
		if [ "$_now" = "$_last" ]; then
			_idle=$((_idle + 1))
			[ "$_idle" -lt 2 ] || break
		else
			_idle=0
		fi
		_last=$_now
	done
	echo "bench-settle: $1 $(($(date +%s) - _t0)) $([ "$_idle" -ge 2 ] && echo idle || echo busy)"
}

# CPU time of the whole guest from /proc/stat: "USER SYSTEM" in ticks.
bench_cpu_ticks() { awk '$1 == "cpu" { print $2 + $3, $4; exit }' /proc/stat; }

# bench_begin NAME: settle (above), record the multi-gen LRU's state,
# snapshot /proc/vmstat and the CPU times and start the 1 Hz sampler.
bench_begin() {
	bench_settle "$1"
	echo "bench-lrugen: $1 $(bench_lrugen)"
	sync
	bench_kswapd_ticks >"/tmp/bench.$1.kswapd"
	bench_cpu_ticks >"/tmp/bench.$1.cpu"
	cp /proc/vmstat "/tmp/bench.$1.before"
	cp /proc/zoneinfo "/tmp/bench.$1.zoneinfo"
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
			# Each populated zone's LRU pages (both kinds, both
			# lists) and free pages, every node.
			awk -v t="$t" -v w="$1" '
				$1 == "Node" { z = "node" $2 "/" $4; sub(",", "", z); order[++n] = z; next }
				$1 == "pages" && $2 == "free" { free[z] = $3 }
				$1 == "present" { present[z] = $2 }
				$1 == "nr_zone_inactive_anon" { ia[z] = $2 }
				$1 == "nr_zone_active_anon" { aa[z] = $2 }
				$1 == "nr_zone_inactive_file" { fi[z] = $2 }
				$1 == "nr_zone_active_file" { fa[z] = $2 }
				END {
					for (i = 1; i <= n; i++) {
						z = order[i]
						if (present[z] > 0)
							printf "bench-zonesample: %s %d %s %d %d %d %d %d\n", w, t, z,
								ia[z], aa[z], fi[z], fa[z], free[z]
					}
				}' /proc/zoneinfo
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
	bench_zoneinfo "$1" "/tmp/bench.$1.zoneinfo" /proc/zoneinfo
	echo "bench: $1 elapsed_s $(($(date +%s) - $(cat "/tmp/bench.$1.t0")))"
	_hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	echo "bench: $1 kswapd_cpu_s $(awk -v a="$(bench_kswapd_ticks)" -v hz="$_hz" '{ printf "%.2f", (a - $1) / hz }' "/tmp/bench.$1.kswapd")"
	# shellcheck disable=SC2046 # two numbers
	set -- "$1" $(bench_cpu_ticks)
	awk -v w="$1" -v u="$2" -v s="$3" -v hz="$_hz" '{
		printf "bench: %s user_s %.2f\nbench: %s system_s %.2f\n", w, (u - $1) / hz, w, (s - $2) / hz }' "/tmp/bench.$1.cpu"
	rm -f "/tmp/bench.$1.before" "/tmp/bench.$1.zoneinfo" "/tmp/bench.$1.t0" "/tmp/bench.$1.samples" "/tmp/bench.$1.sampler" \
		"/tmp/bench.$1.kswapd" "/tmp/bench.$1.cpu"
}

# bench_zoneinfo NAME BEFORE AFTER: the per-node and per-zone counters
# of two /proc/zoneinfo snapshots, one "bench-counter:" line each (all of
# them, moved or not, so that a table never lacks one end's value).  The
# per-node stats are printed under the first zone of each node ("per-node
# stats"); a zone's own counters follow its "pages free" line;
# "pagesets" ends them (per-CPU data follows).
bench_zoneinfo() {
	awk -v w="$1" '
		FNR == 1 { f++; sect = "" }
		$1 == "Node" { node = "node" $2; sub(",", "", node); zone = $4; sect = ""; next }
		$1 == "per-node" { sect = "node"; next }
		$1 == "pages" && $2 == "free" { sect = "zone"; next }
		$1 == "pagesets" { sect = ""; next }
		sect != "" && NF == 2 && $2 ~ /^-?[0-9]+$/ {
			scope = sect == "node" ? node : node "/" zone
			k = scope " " $1
			if (f == 1) b[k] = $2
			else if (k in b) printf "bench-counter: %s %s %s %s\n", w, k, b[k], $2
		}' "$2" "$3"
}
