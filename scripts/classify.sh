#!/usr/bin/env bash
# Classify one finished guest run from its files alone: no QEMU, no kernel.
#
#   scripts/classify.sh RUN-DIR
#
# Reads, in RUN-DIR (scripts/qemu-run.sh leaves them there):
#   results.ktap  the runner's KTAP (second serial port, \r removed)
#   console.log   the kernel console (first serial port)
#   qemu.status   what only the host saw, one "key value" a line: kernel,
#                 topo, tests, selected (the test names the host selected,
#                 blank-separated), boot-timeout, host-timeout, exit (QEMU's
#                 exit status under timeout(1)), boot-timed-out (1 when the
#                 host stopped a guest that printed no KTAP header in time),
#                 free-mib (free space under RUN-DIR after the run),
#                 reproduce (the command that runs the same boot again)
# and scripts/bad-lines, the one table of bad console lines.
#
# Writes RUN-DIR/outcomes, one "PASS|FAIL|SKIP KERNEL/TOPO/name detail" a
# line (scripts/verdict.sh counts them), and, when anything failed,
# RUN-DIR/report.txt, syzbot style: a title naming what went wrong and
# where, the kernel, how to see it again, the console from the first bad
# line.  The title comes from the first bad console line ("WARNING in
# shrink_node", "BUG: kernel NULL pointer dereference in
# isolate_lru_pages", "kernel panic: ...") and otherwise from the first
# failed outcome ("test failure: ...").
#
# Prints one line, the run's outcome and its title:
#   PASS N passed, N skipped
#   FAIL|PANIC|TIMEOUT|BOOTFAIL TITLE
# PANIC, TIMEOUT and BOOTFAIL name how the guest ended; FAIL is every other
# failure (a test, the console, a missing test, the runner).  Exit 0 for
# PASS, 1 for the others, 2 when RUN-DIR is not a finished run.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || {
	echo "usage: scripts/classify.sh RUN-DIR" >&2
	exit 2
}
run=$1
status=$run/qemu.status
[ -f "$status" ] || {
	printf 'error: %s: no qemu.status, not a run of scripts/qemu-run.sh\n' "$run" >&2
	exit 2
}
# fact KEY: the value of KEY in qemu.status (empty when absent).
fact() { sed -n "s/^$1 //p" "$status" | head -n 1; }
kernel=$(fact kernel)
topo=$(fact topo)
if [ -z "$kernel" ] || [ -z "$topo" ]; then
	printf 'error: %s: qemu.status names no kernel or topo\n' "$run" >&2
	exit 2
fi
label=$kernel/$topo
rc=$(fact exit)
host_timeout=$(fact host-timeout)
boot_timeout=$(fact boot-timeout)
ktap=$run/results.ktap
console=$run/console.log
[ -f "$ktap" ] || ktap=/dev/null
[ -f "$console" ] || console=/dev/null

# bad_re [-]KIND...: the table's expressions of those kinds (with "-", of
# every kind but those; none: of every kind), joined into one.  None at
# all is an error (status 2), never an empty expression that matches
# every line.
bad_re() {
	awk -v args="$*" '
		BEGIN { n = split(args, a, " "); out = (a[1] ~ /^-/)
			for (i = 1; i <= n; i++) { sub(/^-/, "", a[i]); k[a[i]] = 1 } }
		/^#/ || NF < 2 { next }
		{ kind = $1; re = $0; sub(/^[^ \t]+[ \t]+/, "", re)
		  if (n == 0 || (kind in k) != out) { printf "%s%s", sep, re; sep = "|" } }
		END { if (sep == "") { printf "error: scripts/bad-lines: no line for %s\n", args > "/dev/stderr"; exit 2 }
		      print "" }' "$TOP/scripts/bad-lines"
}
panic_re=$(bad_re panic)
disk_re=$(bad_re disk)
console_re=$(bad_re -panic)
any_re=$(bad_re)
# An expression grep cannot read would fail no run at all: refused.
re_rc=0
grep -Eq -- "$any_re" /dev/null || re_rc=$?
[ "$re_rc" -le 1 ] || {
	echo "error: scripts/bad-lines: grep -E cannot read it (status $re_rc)" >&2
	exit 2
}
strip() { sed -e 's/^\[[^]]*\] //' -e 's/\r$//'; }

outcomes=$run/outcomes
: >"$outcomes"
outcome() {
	printf '%s %s %s\n' "$1" "$label/$2" "${3:-}" >>"$outcomes"
}
failed() { grep -q '^FAIL ' "$outcomes"; }

# The test that was running when the guest stopped, if any.
running=$(awk '/^# start / { t = $3 } /^(not )?ok / { t = "" } END { print t }' "$ktap")

# What the harness provides (swap on vda, the scratch disk on vdb, the
# tools disk on vdc): the runner says when setting one up failed, and that
# fails the run, since the tests that need it would only skip.  First, so
# that it names the failure.
sed -n 's/^# nodelru-setup-failed: //p' "$ktap" | while IFS= read -r what; do
	outcome FAIL setup "$what failed in the guest (the tests that need it would skip)"
done

# Per-test results from KTAP.
awk '
	/^ok [0-9]+ [^ ]+ # SKIP/ { r = $0; sub(/.*# SKIP */, "", r); print "SKIP", $3, r; next }
	/^ok [0-9]+ / { print "PASS", $3; next }
	/^not ok [0-9]+ / { r = $0; sub(/^[^#]*# */, "", r); print "FAIL", $4, r }
' "$ktap" | while read -r verdict name detail; do
	outcome "$verdict" "$name" "$detail"
done

# How the guest ended: the first that applies.
kind=FAIL
end=$(grep -c '^# nodelru-end ' "$ktap" || true)
if grep -Eq "$panic_re" "$console"; then
	kind=PANIC
	outcome FAIL "${running:-boot}" "PANIC: $(grep -Em1 "$panic_re" "$console" | strip)"
elif [ "$(fact boot-timed-out)" = 1 ]; then
	kind=BOOTFAIL
	outcome FAIL boot "BOOTFAIL: no KTAP header within ${boot_timeout}s"
elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	kind=TIMEOUT
	outcome FAIL "${running:-boot}" "TIMEOUT: the guest did not finish within ${host_timeout}s"
elif ! grep -q '^KTAP version 1' "$ktap"; then
	kind=BOOTFAIL
	outcome FAIL boot "BOOTFAIL: QEMU exited ($rc) before the guest printed KTAP"
elif [ "$end" != 1 ]; then
	outcome FAIL "${running:-runner}" "the guest stopped without its end marker (QEMU exit $rc)"
elif [ "$rc" != 33 ] && [ "$rc" != 35 ]; then
	outcome FAIL runner "unexpected QEMU exit status $rc (33 = all passed, 35 = failures)"
fi
# A guest that ended normally must have run something (said before the
# exit status it then ends with), and every test the host selected (a
# panic or timeout is reported above, once).
ran=$(grep -cE '^(not )?ok ' "$ktap" || true)
if [ "$end" = 1 ] && [ "$ran" = 0 ]; then
	plan=$(grep -m1 -E '^[0-9]+\.\.[0-9]+' "$ktap" || true)
	outcome FAIL runner "zero tests ran${plan:+ (plan: $plan)}"
fi
if [ "$rc" = 35 ] && ! failed; then
	outcome FAIL runner "the guest reported failures (exit 35) but no 'not ok' line arrived"
fi
if [ "$end" = 1 ]; then
	for t in $(fact selected); do
		grep -qE "^(not )?ok [0-9]+ $t( |\$)" "$ktap" ||
			outcome FAIL "$t" "selected by the host but the guest never reported it"
	done
fi

# The console must be clean: any bad line but a panic (above) fails the run.
if grep -Eq "$console_re" "$console"; then
	detail="$(grep -Ec "$console_re" "$console") bad line(s), first: $(grep -Em1 "$console_re" "$console" | strip)"
	free=$(fact free-mib)
	! grep -Eq "$disk_re" "$console" ||
		detail="$detail (host: ${free:-?} MiB free under $run after the run)"
	outcome FAIL console "$detail"
else
	outcome PASS console
fi

if ! failed; then
	rm -f "$run/report.txt"
	echo "PASS $(grep -c '^ok [0-9]* [^ ]*$' "$ktap" || true) passed, $(grep -c '^SKIP ' "$outcomes" || true) skipped"
	exit 0
fi

# The report.  The first bad console line, a panic's too, names the cause.
first=$(grep -Enm1 "$any_re" "$console" || true)
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
	f=$(grep -m1 '^FAIL ' "$outcomes" | cut -d' ' -f2-)
	case $f in
	*/setup\ *) title="setup failure: $f" ;;
	*) title="test failure: $f" ;;
	esac
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
# I/O error, dev vdb, sector 2048 op 0x1:(WRITE) flags 0x800 phys_seg 1 ...
*"I/O error, dev "*) title=${bad%%, sector*} ;;
# Buffer I/O error on dev vdb, logical block 1234, lost async page write
*"I/O error on dev "*) title=${bad%%, logical block*} ;;
*) title=$bad ;;
esac

release=$(grep -m1 -o 'Linux version [^ ]*' "$console" | cut -d' ' -f3 || true)
{
	echo "TITLE: $title"
	echo
	echo "kernel:    ${release:-unknown} ($kernel)"
	echo "config:    $BUILD/k/$kernel/config"
	echo "tree key:  $(cat "$BUILD/k/$kernel/src.key" 2>/dev/null || echo unknown)"
	echo "console:   $run/console.log"
	echo "results:   $run/results.ktap"
	echo "reproduce: $(fact reproduce)"
	echo "           (QEMU alone: $run/qemu.cmd, with KEEP_DISKS=1 on the run above)"
	echo
	echo "outcomes:"
	grep '^FAIL ' "$outcomes" | sed 's/^/  /'
	if [ -n "$first" ]; then
		echo
		echo "console from the first bad line ($run/console.log:$line):"
		tail -n +"$line" "$console" | head -n 40 | strip | sed 's/^/  /'
	fi
} >"$run/report.txt"
echo "$kind $title"
exit 1
