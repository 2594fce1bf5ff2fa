# shellcheck shell=sh
# What the guest shell tests share.  Sourced from /lib/nodelru/guest.sh
# right after a test's "set -eu -o pipefail":
#   fail MSG      print "FAIL: MSG" and end the test with status 1 (the
#                 runner reports the test as not ok, with MSG)
#   inject NAME   true, after saying so on the console, when NAME is one
#                 of the faults asked for (make qemu-test INJECT=a,b puts
#                 them in NODELRU_INJECT); a test uses it to bend one of
#                 its own figures and show that its check can fail
#   series_end    sets release to the kernel's release and end to which
#                 kernel this is: "zone" (the rewound end, step 0, release
#                 *-nodelru-zone-*), "node" (the replayed end, release
#                 *-nodelru-node-*), or "step" (any step between, release
#                 *-nodelru-stepN-*); and step to the number of patches
#                 of the series the kernel has (0 .. the series' length)
#   applied PATCH true when the kernel has PATCH (a file name of the
#                 series, as in the series file) applied: PATCH is among
#                 the first $step lines of /lib/nodelru/series.  Calls
#                 series_end.  A name not in the series fails the test
#                 (a renamed patch must not read as "not applied")
#   lrugen_on     sets lrugen to 1 when the multi-gen LRU is on (bit 0 of
#                 /sys/kernel/mm/lru_gen/enabled), else 0 (off, or a
#                 kernel without CONFIG_LRU_GEN)
#   vm NAME       prints the /proc/vmstat item NAME; when the kernel has no
#                 such item it says so on stderr ("FAIL: ...") and returns
#                 1, so that in a plain assignment, x=$(vm NAME), a typo
#                 or a missing counter ends the test instead of reading as
#                 0.  Read into a variable first: inside $((...)), [ ],
#                 "local" or a function called from if/||, the failure is
#                 not seen and the value is empty
#   vm_has NAME   true when /proc/vmstat has the item NAME
#   zf ZONE FIELD a field of node 0's zone from /proc/zoneinfo (below)
# These variables are for the sourcing test.
# shellcheck disable=SC2034

fail() {
	echo "FAIL: $*"
	exit 1
}

# reported WHAT: this step's expectation WHAT is printed, not asserted
# (make bisect-check lists these per step in its table).
reported() { echo "nodelru-reported: $*"; }

inject() {
	case ",${NODELRU_INJECT:-}," in
	*",$1,"*)
		echo "# injecting fault '$1'"
		return 0
		;;
	esac
	return 1
}

series_end() {
	release=$(uname -r)
	case $release in
	*-nodelru-zone-*)
		end=zone
		step=0
		;;
	*-nodelru-node-*)
		end=node
		step=$(wc -l </lib/nodelru/series)
		;;
	*-nodelru-step[0-9]*)
		end=step
		step=${release#*-nodelru-step}
		step=${step%%[!0-9]*}
		;;
	*) fail "expected a release *-nodelru-{zone,node,stepN}-*, saw $release" ;;
	esac
}

applied() {
	series_end
	n=$(awk -v p="$1" '$1 == p { print NR; exit }' /lib/nodelru/series)
	[ -n "$n" ] || fail "applied: $1 is not a patch of the series (/lib/nodelru/series)"
	[ "$n" -le "$step" ]
}

lrugen_on() {
	lrugen=0
	if [ -r /sys/kernel/mm/lru_gen/enabled ]; then
		lrugen=$(($(cat /sys/kernel/mm/lru_gen/enabled) & 1))
	fi
}

vm() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { exit !f }' /proc/vmstat && return 0
	echo "FAIL: expected /proc/vmstat to have $1, kernel $(uname -r) has no such item" >&2
	return 1
}

vm_has() {
	grep -q "^$1 " /proc/vmstat
}

# hog_hold [-c CPUS] LEAVE_MIB [NODE]: mlock-hog in the background (on
# CPUS with -c, so that the local node is theirs), holding all but
# LEAVE_MIB MiB of MemFree (of NODE's, bound there, when given); returns
# once it holds, fails the test if it cannot.  Sets hog_said (its "held"
# line).  hog_release lets go; call it from the test's EXIT trap too.
hog_hold() {
	hog_log=/tmp/nodelru-hog.$$
	if [ "$1" = -c ]; then
		taskset -c "$2" mlock-hog "$3" ${4:+"$4"} >"$hog_log" 2>&1 &
		shift 2
	else
		mlock-hog "$@" >"$hog_log" 2>&1 &
	fi
	hog_pid=$!
	_i=0
	until grep -q '^held ' "$hog_log"; do
		kill -0 "$hog_pid" 2>/dev/null || fail "expected mlock-hog $* to hold memory, saw: $(cat "$hog_log")"
		_i=$((_i + 1))
		[ "$_i" -le 300 ] || fail "expected mlock-hog $* to hold memory within 300 s, saw: $(cat "$hog_log")"
		sleep 1
	done
	hog_said=$(cat "$hog_log")
}

hog_release() {
	[ -n "${hog_pid:-}" ] || return 0
	kill "$hog_pid" 2>/dev/null || true
	wait "$hog_pid" 2>/dev/null || true
	hog_pid=
	rm -f "$hog_log"
}

# vm_sum NAME...: the sum of /proc/vmstat items; like vm, says which item
# the kernel lacks and returns 1 (use it in a plain assignment).
vm_sum() {
	_sum=0
	for _item in "$@"; do
		_val=$(vm "$_item") || return 1
		_sum=$((_sum + _val))
	done
	echo "$_sum"
}

# zf ZONE FIELD: a field of node 0's zone ZONE from /proc/zoneinfo ("free",
# "min", "managed" ... from its "pages" lines, or a counter such as
# nr_zone_inactive_file); prints nothing when the zone or field is absent.
zf() {
	awk -v z="$1" -v f="$2" '
		/^Node/ { node = $2; sub(",", "", node); zone = $4 }
		node == 0 && zone == z && ($1 == f || ($1 == "pages" && $2 == f)) {
			print ($1 == "pages" ? $3 : $2); exit
		}' /proc/zoneinfo
}
