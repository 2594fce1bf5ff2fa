# shellcheck shell=bash
# The tests there are: each guest test's header line and the index of
# guest tests, sets and topologies made from them; the list of host tests.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

# A test (tests/*.sh, tests/*.c) says how it runs in a "nodelru:" header
# line, read here the one way for scripts/initramfs.sh (/tests/index in
# the guest) and for test_index (the settings check):
#   nodelru: sets=smoke,full timeout=SECONDS topo=all|uma,numa,... [oom=expected] [order=N] [disk=slow]
# For each FILE that has one: FILE, a NUL, and the first line with
# "nodelru: " from there on, a line each, in the order given.
#   test_header_lines FILE...
test_header_lines() {
	grep -m1 -o -H -Z 'nodelru: .*' "$@"
}

# The words of a header line (as test_header_lines gives it): TEST_META is
# the line without a closing " */"; TEST_SETS, TEST_TOPO, TEST_OOM and
# TEST_DISK are the values of its words (up to a space), TEST_TIMEOUT and
# TEST_ORDER the digits their values start with.  A word not there is
# empty; a word there twice, the last.
#   test_header_words LINE
# shellcheck disable=SC2034 # TEST_* are for the caller
test_header_words() {
	TEST_META=$1 TEST_SETS='' TEST_TIMEOUT='' TEST_TOPO='' TEST_OOM='' TEST_ORDER='' TEST_DISK=''
	if [[ $TEST_META == *'*/' ]]; then
		TEST_META=${TEST_META%'*/'}
		TEST_META=${TEST_META%"${TEST_META##*[! ]}"}
	fi
	[[ ! $TEST_META =~ .*sets=([^ ]*).* ]] || TEST_SETS=${BASH_REMATCH[1]}
	[[ ! $TEST_META =~ .*timeout=([0-9]*).* ]] || TEST_TIMEOUT=${BASH_REMATCH[1]}
	[[ ! $TEST_META =~ .*topo=([^ ]*).* ]] || TEST_TOPO=${BASH_REMATCH[1]}
	[[ ! $TEST_META =~ .*oom=([^ ]*).* ]] || TEST_OOM=${BASH_REMATCH[1]}
	[[ ! $TEST_META =~ .*order=([0-9]*).* ]] || TEST_ORDER=${BASH_REMATCH[1]}
	[[ ! $TEST_META =~ .*disk=([^ ]*).* ]] || TEST_DISK=${BASH_REMATCH[1]}
}

# The header line of one test FILE in TEST_META and its words in the other
# TEST_* (test_header_words).  Status 1, and every TEST_* empty, when FILE
# has no header line.
#   test_header FILE
test_header() {
	local file line
	if ! { IFS= read -r -d '' file && IFS= read -r line; } < <(test_header_lines "$1"); then
		test_header_words ''
		return 1
	fi
	test_header_words "$line"
}

# The guest tests, "name sets timeout topo oom" a line in name order, from
# the header line of each tests/*.sh and tests/*.c that has one, read as
# scripts/initramfs.sh reads it for /tests/index, without building.
test_index() {
	# (local: test_header_words sets them all; test_index leaves none behind)
	# shellcheck disable=SC2034
	local files=() file line name oom row rows='' TEST_META TEST_SETS TEST_TIMEOUT TEST_TOPO TEST_OOM TEST_ORDER TEST_DISK
	mapfile -t files < <(find "$TOP/tests" -maxdepth 1 -type f \( -name '*.sh' -o -name '*.c' \) | sort)
	[ ${#files[@]} -gt 0 ] || return 0
	while IFS= read -r -d '' file && IFS= read -r line; do
		test_header_words "$line"
		name=${file##*/} oom=$TEST_OOM
		printf -v row '%s %s %s %s %s\n' "${name%.*}" "$TEST_SETS" "$TEST_TIMEOUT" "$TEST_TOPO" "${oom:-no}"
		rows+=$row
	done < <(test_header_lines "${files[@]}")
	# In one write, by cat (bash's printf writes a line at a time): a
	# reader that stops early (test_index | head) must not make it fail
	# with SIGPIPE under pipefail.
	[ -z "$rows" ] || cat <<<"${rows%$'\n'}"
}

# The host tests (tests/host/NAME.sh), NAME a line, in the order of
# tests/host/list, which make check-host and scripts/check.sh both run.
host_tests() {
	local list=$TOP/tests/host/list names
	names=$(awk '{ sub(/#.*/, ""); for (i = 1; i <= NF; i++) print $i }' "$list") || names=''
	[ -n "$names" ] || die "$list names no host test"
	printf '%s\n' "$names"
}
