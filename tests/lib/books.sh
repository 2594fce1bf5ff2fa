# shellcheck shell=sh
# The books: every vmstat item kept both per zone and per node adds up,
# exactly, and nothing is left isolated at rest.
#   - per node, each zone item nr_zone_X summed over the node's zones
#     equals the node item nr_X in nodeN/vmstat, for every X that has
#     both (the LRU lists always; at the zone end of the series also the
#     zone copies of file, dirty, writeback, shmem and mapped pages);
#   - each of those node items, and nr_isolated_anon/file, summed over
#     the nodes equals /proc/vmstat;
#   - nr_isolated_anon and nr_isolated_file are 0, in every node's
#     nodeN/vmstat and in /proc/vmstat;
#   - before "mm, vmscan: move LRU lists to node" (the zone end), where
#     every zone has its own lists and an isolation never meets another
#     zone's folio, every pgskip_* of /proc/vmstat is 0 (they count from
#     boot, so the first test after which one moved is the one named).
# One round takes its snapshot with lru-snap, which locks its memory,
# folds the per-cpu counters (vm.stat_refresh) and reads all files
# without touching the LRU in between, so the sums must agree exactly.
# Other tasks (kswapd, writeback, khugepaged) may still move pages in
# that window, and kswapd may be mid-isolation for seconds after a heavy
# load under TCG, so books_at_rest takes up to ROUNDS rounds a second
# apart; a real leak is persistent and fails every one.
# Sourced from /lib/nodelru/books.sh by lru-sums and by the runner, which
# checks the books after every test.
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

# books_check: one round.  Returns 0 when the books balance; sets
# books_bad (what disagreed, with both figures) and books_items (the
# zone/node pairs compared).
books_check() {
	# shellcheck disable=SC2046 # one argument per node file
	lru-snap /proc/zoneinfo $(for nd in /sys/devices/system/node/node[0-9]*; do
		echo "$nd/vmstat"; done) /proc/vmstat >/tmp/books.snap || {
		books_bad=" lru-snap failed"
		books_items=
		return 1
	}
	# Injected fault books-skew: one zone's inactive file count is one
	# page off in the snapshot, so the books must not balance.
	if inject books-skew; then
		awk '$1 == "nr_zone_inactive_file" && !done { $2 = $2 + 1; done = 1 } { print }' \
			/tmp/books.snap >/tmp/books.snap.skew && mv /tmp/books.snap.skew /tmp/books.snap
	fi
	books_items=$(awk '
		$1 == "==>" { file = $2; next }
		file == "/proc/zoneinfo" { if ($1 ~ /^nr_zone_/) { k = $1; sub("nr_zone_", "", k); z[k] = 1 }; next }
		file != "/proc/vmstat" { n[$1] = 1 }
		END { for (k in z) if (n["nr_" k]) printf "%s ", k }' /tmp/books.snap)
	books_bad=$(awk -v items="$books_items" '
		$1 == "==>" { file = $2; next }
		file == "/proc/zoneinfo" {
			if ($1 == "Node") { node = $2; sub(",", "", node) }
			if ($1 ~ /^nr_zone_/) { k = $1; sub("nr_zone_", "", k); zone[node, k] += $2 }
			next
		}
		file == "/proc/vmstat" { glob[$1] = $2; next }
		{
			n = file; sub(".*/node", "", n); sub("/vmstat", "", n)
			nodes[n] = 1; nv[n, $1] = $2; sum[$1] += $2
		}
		END {
			split(items, L, " ")
			for (n in nodes)
				for (i in L)
					if (zone[n, L[i]] + 0 != nv[n, "nr_" L[i]] + 0)
						printf " node%s:%s(zones=%.0f,node=%.0f)", n, L[i], zone[n, L[i]], nv[n, "nr_" L[i]]
			L["x1"] = "isolated_anon"; L["x2"] = "isolated_file"
			for (i in L) {
				k = "nr_" L[i]
				if (sum[k] + 0 != glob[k] + 0)
					printf " %s(nodes=%.0f,vmstat=%.0f)", L[i], sum[k], glob[k]
			}
			for (n in nodes)
				if (nv[n, "nr_isolated_anon"] + 0 != 0 || nv[n, "nr_isolated_file"] + 0 != 0)
					printf " node%s:nr_isolated(expected=0,saw=%.0f+%.0f)", n, nv[n, "nr_isolated_anon"], nv[n, "nr_isolated_file"]
			if (glob["nr_isolated_anon"] + 0 != 0 || glob["nr_isolated_file"] + 0 != 0)
				printf " nr_isolated(expected=0,saw=%.0f+%.0f)", glob["nr_isolated_anon"], glob["nr_isolated_file"]
		}' /tmp/books.snap)
	if ! applied mm-vmscan-move-LRU-lists-to-node.patch; then
		books_bad="$books_bad$(awk '
			$1 == "==>" { file = $2; next }
			file == "/proc/vmstat" && $1 ~ /^pgskip_/ && $2 != 0 {
				printf " %s(expected=0 with per-zone lists,saw=%s)", $1, $2
			}' /tmp/books.snap)"
	fi
	# The LRU lists exist at every step: without them nothing was compared.
	case " $books_items" in
	*" inactive_anon "*) ;;
	*) books_bad="$books_bad no LRU items found in /proc/zoneinfo and nodeN/vmstat" ;;
	esac
	[ -z "$books_bad" ]
}

# books_at_rest ROUNDS: up to ROUNDS rounds, a second apart.  Prints one
# line saying what balanced, or FAIL with the last mismatch; returns 0/1.
books_at_rest() {
	_rounds=$1
	_round=1
	while :; do
		if books_check; then
			echo "books balance (round $_round): $(echo "$books_items" | wc -w) items per node: $books_items"
			return 0
		fi
		if [ "$_round" -ge "$_rounds" ]; then
			echo "FAIL: the books do not balance in $_rounds rounds:$books_bad"
			return 1
		fi
		[ "$_round" -ne 1 ] || echo "books round 1:$books_bad; waiting for reclaim to settle"
		_round=$((_round + 1))
		sleep 1
	done
}
