# shellcheck shell=bash
# Jobs and processes: make's -j alone or beside booting guests, whether
# builds overlap boots (OVERLAP), and stopping a process tree.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

jobs_default() {
	nproc
}

# A build beside booting guests (OVERLAP) leaves the guests their CPUs:
# make's -j is JOBS, or the CPUs beyond GUESTS guests of SMP vCPUs each
# (GUESTS, default 1: those booted at once beside the build), at least one.
#   bg_jobs_default [GUESTS]
bg_jobs_default() {
	local j=${JOBS:-$(($(nproc) - ${1:-1} * ${SMP:-$DEFAULT_SMP}))}
	[ "$j" -ge 1 ] || j=1
	echo "$j"
}

# True when the next kernel is to build while the current one boots:
# OVERLAP=1, or OVERLAP=auto (the default) on 4 CPUs or more (on fewer
# the build and the guest only slow each other down).  check_settings
# has checked OVERLAP.
overlap_on() {
	case ${OVERLAP:-auto} in
	1) return 0 ;;
	0) return 1 ;;
	*) [ "$(nproc)" -ge 4 ] ;;
	esac
}

# Stop process $1 and everything it started (children first listed, then
# it; a process started in between is stopped by its parent's end or by
# the caller's own timeout).  Used by the EXIT traps of the scripts that
# run builds or guests in the background.
killtree() {
	local c
	for c in $(pgrep -P "$1" 2>/dev/null || true); do
		killtree "$c"
	done
	kill "$1" 2>/dev/null || true
}
