# shellcheck shell=sh
# The accounting check the shell tests end with, as check_accounting() in
# nodelru.h does for the C tests: vm.stat_refresh can be written, and
# nr_isolated_anon and nr_isolated_file are 0 in /proc/vmstat.  kswapd may
# still be mid-isolation for seconds after a heavy load under TCG, so up to
# 30 s of tries; a leaked count is permanent and fails every one.
# Sourced from /lib/nodelru/accounting.sh; prints FAIL and exits 1.

check_isolated_at_rest() {
	_try=1
	while :; do
		echo 1 >/proc/sys/vm/stat_refresh || { echo "FAIL: vm.stat_refresh failed"; exit 1; }
		_a=$(awk '$1 == "nr_isolated_anon" { print $2 }' /proc/vmstat)
		_f=$(awk '$1 == "nr_isolated_file" { print $2 }' /proc/vmstat)
		if [ "$_a" -eq 0 ] && [ "$_f" -eq 0 ]; then
			echo "accounting: stat_refresh ok, nr_isolated_anon 0, nr_isolated_file 0 (try $_try)"
			return 0
		fi
		if [ "$_try" -ge 30 ]; then
			echo "FAIL: expected nr_isolated_anon 0 and nr_isolated_file 0 at rest, saw $_a and $_f (30 tries over 30 s)"
			exit 1
		fi
		[ "$_try" -ne 1 ] || echo "accounting try 1: nr_isolated_anon $_a nr_isolated_file $_f; waiting for reclaim to settle"
		_try=$((_try + 1))
		sleep 1
	done
}
