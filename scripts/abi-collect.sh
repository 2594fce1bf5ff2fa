#!/usr/bin/env bash
# results/abi/ from the two ends' runs: /proc/vmstat and /proc/zoneinfo
# as the booted kernels printed them (initramfs/runner, once a boot;
# scripts/qemu-run.sh saves them as proc-vmstat and proc-zoneinfo in the
# run directory), the table scripts/abi-table.sh makes of them, and a
# README line saying which kernels, series, flavour and topology.
#
#   scripts/abi-collect.sh [FLAVOR [TOPO]]      (default: debug uma)
#
# The runs it reads, build/runs/zone-FLAVOR-TOPO/ and node-FLAVOR-TOPO/,
# are made, once both ends are built, by
#   make run STEP="zone node" FLAVOR=debug TOPOS=uma TESTS=topology
# It refuses a run without the two files, a kernel built again after its
# run, a series with changes not committed (the README names the commit
# that holds the series), and a kernel whose tree is not the end of the
# series as it stands: its src.key is tree_key of step 0 or N, or else
# that of the series at one of the last 50 commits that changed it whose
# patches differ from today's only above their diffs (changelogs and
# notes; the trees are then the same), which the README then says.
# Commit results/abi/ afterwards; make export makes the cover letter's
# table from the files as committed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

flavor=${1:-debug}
topo=${2:-uma}
dest=$TOP/results/abi
git -C "$TOP" diff --quiet HEAD -- series patches BASE ||
	die "the series has changes not committed: the captures would name a commit that does not hold their series" \
		"commit them (or wait for them to be committed), then run this again"
commit=$(git -C "$TOP" rev-parse --short=12 HEAD)
n=$(series_count)

# code_of SERIES PATCHES: a hash of what makes the trees: the series and
# each patch from its diff on (its first "diff " or "Index: " line, or
# "--- " line followed by "+++ ", whichever comes first; a patch with no
# diff counts whole).
code_of() {
	local p
	{
		SERIES=$1 series_patches
		SERIES=$1 series_patches | while read -r p; do
			awk 'on { print; next }
				/^(diff |Index: )/ { on = 1; print; next }
				/^\+\+\+ / && prev ~ /^--- / { on = 1; print prev; print; next }
				{ prev = $0; all = all $0 "\n" }
				END { if (!on) printf "%s", all }' "$2/$p"
		done
	} | sha256sum | cut -c1-16
}
# same_trees_at KEY STEP: the commit whose series gave tree key KEY at
# STEP, if its trees are today's (code_of the same); else nothing.
same_trees_at() {
	local key=$1 step=$2 c d found=
	d=$(mktemp -d)
	for c in $(git -C "$TOP" log -50 --format=%h -- series patches BASE); do
		rm -rf "${d:?}"/*
		git -C "$TOP" archive "$c" series patches BASE 2>/dev/null |
			tar -x -C "$d" 2>/dev/null || continue
		if [ "$(SERIES=$d/series PATCHES=$d/patches tree_key "$step")" = "$key" ]; then
			[ "$(code_of "$d/series" "$d/patches")" != "$(code_of "$SERIES" "$PATCHES")" ] || found=$c
			break
		fi
	done
	rm -rf "$d"
	echo "$found"
}
declare -A rel=()
same=()
for end in zone node; do
	kernel=$(kernel_name "$end" "$flavor")
	run=$BUILD/runs/$kernel-$topo
	again="make kernel STEP=$end FLAVOR=$flavor, then make run STEP=\"zone node\" FLAVOR=$flavor TOPOS=$topo TESTS=topology"
	for f in proc-vmstat proc-zoneinfo; do
		[ -s "$run/$f" ] || die "no $run/$f: that run was not booted with a runner that prints it" "$again"
	done
	step=$(step_number "$end")
	key=$(tree_key "$step")
	have=$(cat "$BUILD/k/$kernel/src.key" 2>/dev/null || true)
	if [ "$have" != "$key" ]; then
		at=
		[ -z "$have" ] || at=$(same_trees_at "$have" "$step")
		[ -n "$at" ] ||
			die "$kernel was not built from step $step of the series as it stands (tree key $key, the kernel's ${have:-unknown})" "$again"
		msg abi "$kernel: built from the series at $at, which differs from today's only in changelogs and notes"
		same+=("the $end kernel built from the series at $at, whose patches differ only in changelogs and notes")
	fi
	[ "$run/results.ktap" -nt "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ] ||
		die "$kernel was built again after its run $run" "$again"
	rel[$end]=$(sed -n 's/^# nodelru: kernel \([^ ]*\) .*/\1/p' "$run/results.ktap" | head -n 1)
	[ -n "${rel[$end]}" ] || die "$run/results.ktap names no kernel release"
done

note=
for s in "${same[@]}"; do note+="${note:+; }$s"; done
mkdir -p "$dest"
for end in zone node; do
	run=$BUILD/runs/$(kernel_name "$end" "$flavor")-$topo
	cp "$run/proc-vmstat" "$dest/$end-vmstat"
	cp "$run/proc-zoneinfo" "$dest/$end-zoneinfo"
done
"$TOP/scripts/abi-table.sh" "$dest/zone-vmstat" "$dest/zone-zoneinfo" \
	"$dest/node-vmstat" "$dest/node-zoneinfo" >"$dest/table.txt"
cat >"$dest/README.md" <<EOF
# The /proc ABI at the two ends of the series

/proc/vmstat and /proc/zoneinfo of the two ends as booted, printed by the
guest runner once a boot, before the first test (\`initramfs/runner\`),
and saved by \`scripts/qemu-run.sh\` as \`proc-vmstat\` and
\`proc-zoneinfo\` in the run directory; the runs come from
\`make run STEP="zone node" FLAVOR=$flavor TOPOS=$topo TESTS=topology\`
(any tests will do) and \`scripts/abi-collect.sh $flavor $topo\` put
their files here:

- \`zone-vmstat\`, \`zone-zoneinfo\`: the rewound kernel (step 0);
- \`node-vmstat\`, \`node-zoneinfo\`: the last step (step $n);
- \`table.txt\`: \`scripts/abi-table.sh\` over them, the names whose place
  changes.  \`make export\` makes the same table from the files as
  committed and puts it in the cover letter, with the line below.

Captured: ${rel[zone]} and ${rel[node]}, $flavor config, QEMU $topo topology, the series at node-lru commit $commit${note:+ ($note)}
EOF
msg abi "$dest: $(sed -n 's/.*listed: //p' "$dest/table.txt" | tr -d .) names change place"
msg commit "git add results/abi && git commit -m '...' -- results/abi"
