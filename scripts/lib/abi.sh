# shellcheck shell=bash
# The guest's /proc files: saved from a run's results, and the ABI table
# of the two ends' files as committed.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

# save_proc_files RUN_DIR: the guest's /proc/vmstat and /proc/zoneinfo as
# booted, from the runner's "# proc-vmstat: " and "# proc-zoneinfo: "
# lines before the plan line of RUN_DIR/results.ktap (so that no test's
# output can add to them), into RUN_DIR/proc-vmstat and proc-zoneinfo.  A
# file the guest printed no line of is not written.
save_proc_files() {
	local run=$1 f
	for f in vmstat zoneinfo; do
		awk -v p="# proc-$f: " '/^[0-9]+\.\.[0-9]+/ { exit }
			index($0, p) == 1 { print substr($0, length(p) + 1) }' \
			"$run/results.ktap" >"$run/proc-$f"
		[ -s "$run/proc-$f" ] || rm -f "$run/proc-$f"
	done
}

# abi_table_committed REV: scripts/abi-table.sh over the two ends' /proc
# files as committed in results/abi/ at REV (HEAD for make export), what
# make export puts in the cover letter.  Status 2, and nothing printed,
# when any of the four is not committed there.
abi_table_committed() {
	local rev=$1 f
	for f in zone-vmstat zone-zoneinfo node-vmstat node-zoneinfo; do
		git -C "$TOP" cat-file -e "$rev:results/abi/$f" 2>/dev/null || return 2
	done
	"$TOP/scripts/abi-table.sh" \
		<(git -C "$TOP" show "$rev:results/abi/zone-vmstat") \
		<(git -C "$TOP" show "$rev:results/abi/zone-zoneinfo") \
		<(git -C "$TOP" show "$rev:results/abi/node-vmstat") \
		<(git -C "$TOP" show "$rev:results/abi/node-zoneinfo")
}
