# shellcheck shell=bash
# The guest tests' header lines: the index of tests, sets and topologies.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

# The guest tests, "name sets timeout topo oom" a line in name order, from
# the "nodelru:" header line of each tests/*.sh and tests/*.c, read the
# way scripts/initramfs.sh reads it for /tests/index (without building).
test_index() {
	local files=()
	mapfile -t files < <(find "$TOP/tests" -maxdepth 1 -type f \( -name '*.sh' -o -name '*.c' \) | sort)
	[ ${#files[@]} -gt 0 ] || return 0
	awk '
	function field(k,   r) {
		if (!match(meta, "(^| )" k "=[^ ]*")) return ""
		r = substr(meta, RSTART, RLENGTH); sub(/^ /, "", r); sub(/^[^=]*=/, "", r)
		return r
	}
	FNR == 1 { done = 0 }
	!done && /nodelru: / {
		done = 1
		meta = substr($0, index($0, "nodelru: ")); sub(/ *\*\/$/, "", meta)
		name = FILENAME; sub(/.*\//, "", name); sub(/\.[^.]*$/, "", name)
		oom = field("oom")
		print name, field("sets"), field("timeout"), field("topo"), (oom == "" ? "no" : oom)
	}' "${files[@]}"
}
