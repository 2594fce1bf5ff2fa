# shellcheck shell=bash
# Shared by the host tests: TAP-style checks and their counts.  Sourced.
pass=0
fail=0
# check WHAT COMMAND...: "ok - WHAT" when COMMAND succeeds, else "not ok".
check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok - $what"
		pass=$((pass + 1))
	else
		echo "not ok - $what"
		fail=$((fail + 1))
	fi
}
