#!/usr/bin/env bash
# Write the failure report of one QEMU run, syzbot style: a title line
# that names what went wrong and where, then how to see it again.
#
#   scripts/report.sh RUN-DIR KERNEL REPRODUCE
#
# REPRODUCE is the command that runs the same boot again.
# Reads RUN-DIR/console.log and RUN-DIR/outcomes, writes
# RUN-DIR/report.txt and prints its title.  The title comes from the first
# bad console line ("WARNING in shrink_node", "BUG: kernel NULL pointer
# dereference in isolate_lru_pages", "kernel panic: ..."), and otherwise
# from the first failed test.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: scripts/report.sh RUN-DIR KERNEL REPRODUCE"
run=$1
kernel=$2
repro=$3
console=$run/console.log
pat='BUG:|WARNING:|Oops|general protection fault|kernel BUG|INFO: task .* blocked for more than|soft lockup|hard LOCKUP|possible recursive locking|circular locking|inconsistent lock state|vmstat_refresh: |UBSAN:|list_add corruption|list_del corruption|Kernel panic - not syncing'

strip() { sed -e 's/^\[[^]]*\] //' -e 's/\r$//'; }
first=$(grep -Enm1 "$pat" "$console" 2>/dev/null || true)
line=${first%%:*}
bad=$(printf '%s\n' "${first#*:}" | strip)
# The function the first RIP line after the bad line names, if any.
rip=""
if [ -n "$first" ]; then
	rip=$(tail -n +"$line" "$console" | strip |
		sed -n 's/^RIP: [0-9a-f]*:\([A-Za-z0-9_.]*\)+.*/\1/p' | head -n 1)
fi

case $bad in
"")
	f=$(grep -m1 '^FAIL ' "$run/outcomes" 2>/dev/null | cut -d' ' -f2- || true)
	title="test failure: ${f:-unknown (no FAIL outcome recorded)}"
	;;
"WARNING: CPU:"*" at "*)
	# WARNING: CPU: 1 PID: 42 at mm/vmscan.c:123 shrink_node+0x1a/0x2b0
	fn=$(sed -n 's/.* at [^ ]* \([A-Za-z0-9_.]*\)+.*/\1/p' <<<"$bad")
	title="WARNING in ${fn:-${rip:-unknown}}"
	;;
"BUG: "* | "general protection fault"* | "kernel BUG"* | "UBSAN:"*)
	title="${bad%%, address*}${rip:+ in $rip}"
	;;
"Kernel panic - not syncing: "*) title="kernel panic: ${bad#Kernel panic - not syncing: }" ;;
*) title=$bad ;;
esac

release=$(grep -m1 -o 'Linux version [^ ]*' "$console" 2>/dev/null | cut -d' ' -f3 || true)
{
	echo "TITLE: $title"
	echo
	echo "kernel:    ${release:-unknown} ($kernel)"
	echo "config:    $BUILD/k/$kernel/config"
	echo "tree key:  $(cat "$BUILD/k/$kernel/src.key" 2>/dev/null || echo unknown)"
	echo "console:   $console"
	echo "results:   $run/results.ktap"
	echo "reproduce: $repro"
	echo "           (QEMU alone: $run/qemu.cmd, with KEEP_DISKS=1 on the run above)"
	echo
	echo "outcomes:"
	grep '^FAIL ' "$run/outcomes" 2>/dev/null | sed 's/^/  /' || true
	if [ -n "$first" ]; then
		echo
		echo "console from the first bad line ($console:$line):"
		tail -n +"$line" "$console" | head -n 40 | strip | sed 's/^/  /'
	fi
} >"$run/report.txt"
echo "$title"
