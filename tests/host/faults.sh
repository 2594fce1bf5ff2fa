#!/usr/bin/env bash
# Host test: tests/faults, the run plan of make prove, covers every fault
# the project has and names only what exists:
#   - every inject name a guest test or its helpers ask for (inject NAME in
#     shell, injected("NAME") in C, under tests/) has an inject: row;
#   - every file in tests/broken/ has a broken: row;
#   - every row names a test of tests/, a fault that exists (the inject's
#     name in that test's files, its helpers or tools, or the broken
#     file), and steps make prove can boot;
#   - a broken: row's test is among those its patch's header says must
#     catch it.
# Negative controls: copies of the file with a row taken out, a test
# renamed, a fault renamed and a step misspelt must each be refused, and
# FAULTS naming no row must stop scripts/prove.sh before anything is built.
# No kernel, no QEMU; a second or two.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/faults
rm -rf "$work"
mkdir -p "$work"

# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

tests_dir=$top/tests
nseries=$(grep -cv '^[[:space:]]*\(#\|$\)' "$top/series")

# Inject names asked for anywhere under tests/ (guest tests, lib, tools).
asked_injects() {
	grep -rhoE 'inject [a-z0-9-]+|injected\("[a-z0-9-]+"\)' \
		"$tests_dir"/*.sh "$tests_dir"/*.c "$tests_dir/lib" "$tests_dir/tools" |
		sed -E 's/^inject //; s/^injected\("(.*)"\)$/\1/' | sort -u
}

# problems FILE: one line per problem of the faults file FILE.
problems() {
	local file=$1 test fault steps kind name s f found
	local -A have=()
	while read -r test fault steps _; do
		case $test in '' | '#'*) continue ;; esac
		kind=${fault%%:*}
		name=${fault#*:}
		have[$fault]=1
		f=$tests_dir/$test.sh
		[ -r "$f" ] || f=$tests_dir/$test.c
		if [ ! -r "$f" ]; then
			echo "row '$test $fault': no test tests/$test.sh or .c"
			continue
		fi
		case $kind in
		inject)
			found=0
			grep -qE "inject $name( |;|\$)|injected\(\"$name\"\)" "$f" && found=1
			# a helper or tool the test runs may ask instead
			[ "$found" = 1 ] || ! grep -rqE "inject $name( |;|\$)|injected\(\"$name\"\)" \
				"$tests_dir/lib" "$tests_dir/tools" || found=1
			[ "$found" = 1 ] || echo "row '$test $fault': no inject '$name' in tests/"
			;;
		broken)
			if [ ! -r "$tests_dir/broken/$name" ]; then
				echo "row '$test $fault': no tests/broken/$name"
			elif ! sed -n '/^Must be caught by:/,/^$/p' "$tests_dir/broken/$name" | grep -qw -- "$test"; then
				echo "row '$test $fault': tests/broken/$name does not name $test under 'Must be caught by:'"
			fi
			;;
		*) echo "row '$test $fault': the fault is neither inject:NAME nor broken:FILE" ;;
		esac
		[ -n "$steps" ] || echo "row '$test $fault': no steps"
		for s in ${steps//,/ }; do
			case $s in
			zone | node) ;;
			*[!0-9]* | '') echo "row '$test $fault': step '$s' is not zone, node or a number" ;;
			*) [ "$s" -le "$nseries" ] || echo "row '$test $fault': step $s is beyond the series ($nseries)" ;;
			esac
		done
	done <"$file"
	for name in $(asked_injects); do
		[ -n "${have[inject:$name]:-}" ] || echo "inject '$name' is asked for in tests/ but has no row"
	done
	for f in "$tests_dir"/broken/*.patch; do
		name=$(basename "$f")
		[ -n "${have[broken:$name]:-}" ] || echo "tests/broken/$name has no row"
	done
}

real=$(problems "$tests_dir/faults")
[ -z "$real" ] || while read -r line; do echo "# $line"; done <<<"$real"
check "tests/faults covers every inject and broken kernel and names only what exists" [ -z "$real" ]
n_inj=$(asked_injects | wc -l)
check "some injects were found to check ($n_inj)" [ "$n_inj" -ge 30 ]

# Negative controls.
refused() { # NAME SED-EXPR EXPECTED-PROBLEM
	local said
	sed -e "$2" "$tests_dir/faults" >"$work/$1"
	said=$(problems "$work/$1")
	grep -qF -- "$3" <<<"$said"
}
check "a missing inject row is refused" refused no-row '/inject:anon-corrupt/d' "inject 'anon-corrupt' is asked for"
check "a missing broken row is refused" refused no-broken '/broken:leak-isolated/d' "tests/broken/leak-isolated.patch has no row"
check "an unknown test is refused" refused bad-test 's/^anon-swap /anon-swapx /' "no test tests/anon-swapx"
check "an unknown inject is refused" refused bad-inject 's/inject:anon-corrupt/inject:anon-corruptx/' "no inject 'anon-corruptx'"
check "a broken row for a test its patch does not name is refused" refused bad-catcher \
	's/^dirty-zone  *broken:/memcg-v2 broken:/' "does not name memcg-v2"
check "a misspelt step is refused" refused bad-step 's/inject:thp-corrupt  *zone,node/inject:thp-corrupt zone,nod/' "step 'nod'"

# FAULTS naming no row stops prove.sh before it builds or writes anything.
rc=0
msg=$(BUILD=$work/build FAULTS=no-such-fault "$top/scripts/prove.sh" 2>&1) || rc=$?
refused_ok=no
[ "$rc" -eq 0 ] || [[ $msg != *"no-such-fault"* ]] || refused_ok=yes
check "FAULTS=no-such-fault is refused (exit $rc: $(head -n 1 <<<"$msg"))" [ "$refused_ok" = yes ]
check "FAULTS=no-such-fault wrote nothing under BUILD" [ ! -e "$work/build/prove" ]

echo "# faults: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
