#!/usr/bin/env bash
# The checks prove they can fail: boot every row of tests/faults (an
# injected fault or a broken kernel, the test it must fail, the steps)
# and pass only when each one makes its test fail.
#
#   scripts/prove.sh            (make prove; FAULTS=NAME[,NAME] for some rows)
#
# FAULTS selects rows by test name, fault name (the inject's name or the
# broken patch's file name) or "inject"/"broken" (all of that kind);
# default all.  Each boot is scripts/qemu-test.sh with STEP, TOPOS and
# TESTS of the row and INJECT or SCRATCH set, its output in
# build/prove/logs/; the kernels are built as make qemu-test builds them
# (the series' kernels for injects, STEP-FLAVOR-x-NAME for broken ones).
# A row is "caught" when the run's outcomes have a FAIL line for its test
# (an inject must fail there), or, for a broken kernel, also when the boot
# ended in a panic (scripts/classify.sh: a DEBUG_VM BUG is how such a
# check fails).  "MISSED" is a fault the test let pass: the check cannot
# fail as it claims.  The table is build/prove/summary.tsv (test, fault,
# step, topology, result, seconds, classify's line), printed at the end;
# exit 1 when a row was missed or could not run.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

faults_file=$TOP/tests/faults
[ -r "$faults_file" ] || die "$faults_file is missing"
FLAVOR=${FLAVOR:-debug}
export FLAVOR

# FAULTS: every word must select a row, checked before anything is built.
if [ -n "${FAULTS:-}" ]; then
	known=" inject broken $(awk '!/^#/ && NF >= 3 {
		n = $2; sub(/^[a-z]*:/, "", n); m = n; sub(/\.patch$/, "", m)
		printf "%s %s %s ", $1, n, m }' "$faults_file")"
	for w in ${FAULTS//,/ }; do
		[[ $known == *" $w "* ]] ||
			die "FAULTS=$FAULTS: '$w' is no test, fault or kind (inject, broken) of tests/faults"
	done
fi
out=$BUILD/prove
mkdir -p "$out/logs"
summary=$out/summary.tsv
printf 'test\tfault\tstep\ttopo\tresult\tseconds\tclassify\n' >"$summary"

# The topology a row runs on: its own, else uma where the test runs there,
# else the first of the test's header topo=.
row_topo() {
	local test=$1 given=$2 topo
	[ -z "$given" ] || { echo "$given"; return; }
	topo=$(test_index | awk -v t="$test" '$1 == t { print $4 }')
	[ -n "$topo" ] || die "tests/faults: no test named $test"
	case ",$topo," in
	*,all,* | *,uma,*) echo uma ;;
	*) echo "${topo%%,*}" ;;
	esac
}

selected() {
	local test=$1 kind=$2 name=$3 w
	[ -n "${FAULTS:-}" ] || return 0
	for w in ${FAULTS//,/ }; do
		case $w in
		"$test" | "$kind" | "$name" | "${name%.patch}") return 0 ;;
		esac
	done
	return 1
}

rows=0 caught=0 bad=0
start=$(date +%s)
while read -r test fault steps topo; do
	case $test in '' | '#'*) continue ;; esac
	kind=${fault%%:*}
	name=${fault#*:}
	selected "$test" "$kind" "$name" || continue
	topo=$(row_topo "$test" "${topo:-}")
	inject=''
	scratch=''
	case $kind in
	inject) inject=$name ;;
	broken)
		scratch=$TOP/tests/broken/$name
		[ -r "$scratch" ] || die "tests/faults: $scratch is missing"
		;;
	*) die "tests/faults: '$fault' is neither inject:NAME nor broken:FILE" ;;
	esac
	for step in ${steps//,/ }; do
		rows=$((rows + 1))
		kernel=$(SCRATCH=$scratch kernel_name "$step" "$FLAVOR")
		run=$BUILD/runs/$kernel-$topo
		log=$out/logs/$test-$name-$step-$topo.log
		stage "prove: $test with $fault at step $step on $topo"
		t0=$(date +%s)
		rc=0
		STEP=$step TOPOS=$topo TESTS=$test INJECT=$inject SCRATCH=$scratch \
			"$TOP/scripts/qemu-test.sh" >"$log" 2>&1 || rc=$?
		secs=$(($(date +%s) - t0))
		line=$("$TOP/scripts/classify.sh" "$run" 2>/dev/null || true)
		result=MISSED
		if [ ! -s "$run/outcomes" ] && [ "$rc" -ne 0 ]; then
			result=ERROR
		elif grep -q "^FAIL $kernel/$topo/$test " "$run/outcomes" ||
			grep -qx "FAIL $kernel/$topo/$test" "$run/outcomes"; then
			result=caught
		elif [ "$kind" = broken ] && [ "${line%% *}" = PANIC ]; then
			result=caught
		fi
		case $result in
		caught)
			caught=$((caught + 1))
			msg caught "$test: $fault at step $step ($topo), ${secs}s: $line"
			;;
		*)
			bad=$((bad + 1))
			msg "$result" "$test: $fault at step $step ($topo), ${secs}s: ${line:-no outcome} (qemu-test exit $rc, log $log)"
			;;
		esac
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$test" "$fault" "$step" "$topo" \
			"$result" "$secs" "$line" >>"$summary"
	done
done <"$faults_file"

[ "$rows" -gt 0 ] || die "FAULTS=${FAULTS:-}: no row of tests/faults selected"
echo
column -t -s $'\t' "$summary"
echo "prove: $caught of $rows faults caught, $bad missed or not run, $(($(date +%s) - start)) s"
[ "$bad" -eq 0 ]
