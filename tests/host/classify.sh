#!/usr/bin/env bash
# Host test: scripts/classify.sh turns a finished run's files into its
# outcome, title and report, without QEMU.  Each directory under
# tests/host/fixtures/classify/ is a canned run (results.ktap,
# console.log, qemu.status as scripts/qemu-run.sh leaves them) and an
# expect file:
#   # what the case is (comment lines)
#   outcome PASS|FAIL|PANIC|TIMEOUT|BOOTFAIL
#   title   the exact title classify.sh prints (and report.txt starts with)
#   line    an extended regular expression some line of outcomes matches
#           (any number of these)
# The cases: a pass, a test failure, a panic after a BUG and one from
# sysrq, a hang, a WARN, a lockdep splat, a negative vmstat counter, an
# OOM kill (and an expected one, which passes), a missing test, an I/O
# error, zero tests run, a boot that never reached the runner and a disk
# the guest could not set up (a setup failure).  Each
# is classified in a copy (classify.sh writes outcomes and report.txt).
# Also: the exit status (0 only for PASS), report.txt only after a
# failure, a directory that is no run refused, and the bad-line table
# written out nowhere but scripts/bad-lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/classify
fixtures=$top/tests/host/fixtures/classify
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

# expected CASE KEY: the value of KEY in the case's expect file.
expected() { sed -n "s/^$2 //p" "$fixtures/$1/expect" | head -n 1; }
# has_line FILE RE: some line of FILE matches RE.
has_line() { grep -Eq -- "$2" "$1"; }
# passed_quietly RC DIR: exit 0 and no report.txt.
passed_quietly() { [ "$1" = 0 ] && [ ! -e "$2/report.txt" ]; }
# refused RC ERRFILE: exit 2, and the reason said.
refused() { [ "$1" = 2 ] && grep -q 'no qemu.status' "$2"; }

n=0
for dir in "$fixtures"/*/; do
	c=$(basename "$dir")
	n=$((n + 1))
	cp -r "$dir" "$work/$c"
	rm -f "$work/$c/expect"
	rc=0
	failed_before=$fail
	BUILD=$work/build "$top/scripts/classify.sh" "$work/$c" >"$work/$c.out" 2>"$work/$c.err" || rc=$?
	saw=$(cat "$work/$c.out")
	want_outcome=$(expected "$c" outcome)
	want_title=$(expected "$c" title)
	saw_outcome=${saw%% *}
	saw_title=${saw#* }
	[ "$saw" != "$saw_outcome" ] || saw_title=
	[ ! -s "$work/$c.err" ] || sed "s/^/# $c: stderr: /" "$work/$c.err"
	check "$c: outcome $want_outcome (saw ${saw_outcome:-nothing})" [ "$saw_outcome" = "$want_outcome" ]
	check "$c: title '$want_title' (saw '$saw_title')" [ "$saw_title" = "$want_title" ]
	if [ "$want_outcome" = PASS ]; then
		check "$c: exit 0 (saw $rc), no report.txt" passed_quietly "$rc" "$work/$c"
	else
		check "$c: exit 1 (saw $rc)" [ "$rc" = 1 ]
		check "$c: report.txt starts with 'TITLE: $want_title' (saw '$(head -n 1 "$work/$c/report.txt" 2>/dev/null)')" \
			[ "$(head -n 1 "$work/$c/report.txt" 2>/dev/null)" = "TITLE: $want_title" ]
	fi
	while read -r re; do
		check "$c: outcomes has /$re/" has_line "$work/$c/outcomes" "$re"
	done < <(sed -n 's/^line //p' "$fixtures/$c/expect")
	# What it saw in full, when a check of this case failed.
	if [ "$fail" -gt "$failed_before" ] && [ -e "$work/$c/outcomes" ]; then
		sed "s/^/# $c: outcomes: /" "$work/$c/outcomes"
	fi
done
check "at least 14 canned runs (found $n)" [ "$n" -ge 14 ]

# Classifying again gives the same outcomes (a run can be classified
# again after the table changes), not a second copy of each line.
cp "$work/test-failure/outcomes" "$work/outcomes.first"
BUILD=$work/build "$top/scripts/classify.sh" "$work/test-failure" >/dev/null 2>&1 || true
check "classified twice: the same outcomes" cmp -s "$work/outcomes.first" "$work/test-failure/outcomes"

# A directory that is no run of qemu-run.sh: status 2, said why.
mkdir -p "$work/empty"
rc=0
"$top/scripts/classify.sh" "$work/empty" >/dev/null 2>"$work/empty.err" || rc=$?
check "no qemu.status: exit 2 (saw $rc), said" refused "$rc" "$work/empty.err"

# The one table: no script spells out a bad console line of its own.
dups=$(grep -l -e 'hard LOCKUP' -e 'inconsistent lock state' -e 'list_del corruption' \
	"$top"/scripts/*.sh "$top"/scripts/lib/*.sh || true)
check "bad console lines only in scripts/bad-lines (also in: ${dups:-none})" [ -z "$dups" ]

echo "# classify: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
