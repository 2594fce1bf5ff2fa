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
# It refuses a run without the two files, a kernel whose tree is not the
# end of the series as it stands (its src.key is not tree_key of step 0
# or N), a kernel built again after its run, and a series with changes
# not committed (the README names the commit that holds the series).
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
declare -A rel=()
for end in zone node; do
	kernel=$(kernel_name "$end" "$flavor")
	run=$BUILD/runs/$kernel-$topo
	again="make kernel STEP=$end FLAVOR=$flavor, then make run STEP=\"zone node\" FLAVOR=$flavor TOPOS=$topo TESTS=topology"
	for f in proc-vmstat proc-zoneinfo; do
		[ -s "$run/$f" ] || die "no $run/$f: that run was not booted with a runner that prints it" "$again"
	done
	step=$(step_number "$end")
	key=$(tree_key "$step")
	[ "$(cat "$BUILD/k/$kernel/src.key" 2>/dev/null)" = "$key" ] ||
		die "$kernel was not built from step $step of the series as it stands (tree key $key)" "$again"
	[ "$run/results.ktap" -nt "$BUILD/k/$kernel/obj/arch/x86/boot/bzImage" ] ||
		die "$kernel was built again after its run $run" "$again"
	rel[$end]=$(sed -n 's/^# nodelru: kernel \([^ ]*\) .*/\1/p' "$run/results.ktap" | head -n 1)
	[ -n "${rel[$end]}" ] || die "$run/results.ktap names no kernel release"
done

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
guest runner once a boot (\`initramfs/runner\`) and saved by
\`scripts/qemu-run.sh\`; made into this directory by
\`scripts/abi-collect.sh $flavor $topo\`:

- \`zone-vmstat\`, \`zone-zoneinfo\`: the rewound kernel (step 0);
- \`node-vmstat\`, \`node-zoneinfo\`: the last step (step $n);
- \`table.txt\`: \`scripts/abi-table.sh\` over them, the names whose place
  changes.  \`make export\` makes the same table from the files as
  committed and puts it in the cover letter, with the line below.

Captured: ${rel[zone]} and ${rel[node]}, $flavor config, QEMU $topo topology, the series at node-lru commit $commit
EOF
msg abi "$dest: $(sed -n 's/.*listed: //p' "$dest/table.txt" | tr -d .) names change place"
msg commit "git add results/abi && git commit -m '...' -- results/abi"
