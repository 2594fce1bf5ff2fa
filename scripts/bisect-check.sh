#!/usr/bin/env bash
# Every step of the series: build (debug fragment), boot, run the smoke
# set.  One row per step in build/bisect/summary.tsv, printed at the end:
#   step  build  boot  tests(pass/fail/skip)  seconds  subject
# Resumable: a step whose row was recorded for the same tree and tests is
# not run again (failed steps are).  To keep the disk small, a step's
# object directory is removed once its row is written, except for the
# two ends (make check and make bench use those).
#
#   scripts/bisect-check.sh            all steps, 0 (rewound) .. N (replayed)
#   STEP=N scripts/bisect-check.sh     one step (STEP="2 5": those steps)
#   STEPS=0-4 scripts/bisect-check.sh  a range (with STEPS=5-9 on another
#                                      machine, the run splits in two)
# Environment: TOPOS (default uma), TESTS (default smoke), FLAVOR (debug),
# all checked before anything is built or written.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
check_settings
# The whole script is one block: bash reads all of it before running any,
# so editing the file during a long run cannot change what the run does.
{

topos=${TOPOS:-uma}
tests=${TESTS:-smoke}
flavor=${FLAVOR:-debug}
total=$(series_count)
out=$BUILD/bisect
mkdir -p "$out"
summary=$out/summary.tsv

if [ -n "${STEPS:-${STEP:-}}" ]; then
	mapfile -t steps < <(expand_steps "${STEPS:-$STEP}")
else
	mapfile -t steps < <(seq 0 "$total")
fi
mapfile -t names < <(series_patches)

"$TOP/scripts/initramfs.sh"
initrd_key=$(sha256sum "$BUILD/initramfs/initramfs.cpio.gz" | cut -c1-16)

failed=0
for n in "${steps[@]}"; do
	if [ "$n" -eq 0 ]; then
		subject="(rewound tree: the whole series reversed)"
	else
		subject=$(patch_subject "$PATCHES/${names[n - 1]}")
	fi
	key="$(tree_key "$n") $initrd_key $flavor $topos $tests"
	row=$out/step-$n.row
	if [ -f "$row" ] && [ "$(head -n 1 "$row")" = "$key" ] &&
		tail -n 1 "$row" | grep -q '^[0-9]*	ok	ok	[0-9]*/0/'; then
		msg resume "step $n already passed for this tree: $(tail -n 1 "$row" | cut -f1-4)"
		continue
	fi
	t0=$(date +%s)
	kname=$(kernel_name "$n" "$flavor")
	build=ok
	boot=-
	res=-
	if ! "$TOP/scripts/kbuild.sh" "$n" "$flavor"; then
		build=FAIL
	else
		pass=0 fail=0 skip=0 boot=ok
		for topo in $topos; do
			RUN_NAME="bisect-$n-$topo" "$TOP/scripts/qemu-run.sh" "$kname" "$topo" "$tests" || true
			oc=$BUILD/runs/bisect-$n-$topo/outcomes
			if [ ! -s "$oc" ]; then
				# qemu-run stopped before booting (disk space, missing files)
				boot=-
				fail=$((fail + 1))
				continue
			fi
			if grep -q 'BOOTFAIL' "$oc" ||
				{ grep -q '^FAIL .*/boot ' "$oc" && ! grep -q '^PASS ' "$oc"; }; then
				boot=FAIL
			fi
			pass=$((pass + $(grep -c '^PASS ' "$oc" || true)))
			fail=$((fail + $(grep -c '^FAIL ' "$oc" || true)))
			skip=$((skip + $(grep -c '^SKIP ' "$oc" || true)))
		done
		[ "$pass" -gt 0 ] || fail=$((fail + 1))
		res=$pass/$fail/$skip
	fi
	secs=$(($(date +%s) - t0))
	printf '%s\n%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$n" "$build" "$boot" "$res" "$secs" "$subject" >"$row"
	case $build/$boot/$res in
	ok/ok/*/0/*) ;;
	*) failed=$((failed + 1)) ;;
	esac
	if [ "$n" -ne 0 ] && [ "$n" -ne "$total" ]; then
		rm -rf "$BUILD/k/$kname/obj" "$BUILD/k/$kname/stamp" "$BUILD/k/$kname/obj.key"
	fi
done

{
	printf 'step\tbuild\tboot\ttests(p/f/s)\tseconds\tsubject\n'
	for ((n = 0; n <= total; n++)); do
		f=$out/step-$n.row
		if [ ! -f "$f" ]; then
			printf '%s\t-\t-\t-\t-\t(not run)\n' "$n"
		elif [ "$(head -n 1 "$f")" != "$(tree_key "$n") $initrd_key $flavor $topos $tests" ]; then
			printf '%s\t-\t-\t-\t-\t(stale: recorded for another series or test image)\n' "$n"
		else
			tail -n 1 "$f"
		fi
	done
} >"$summary"
column -t -s "$(printf '\t')" "$summary" || cat "$summary"
msg summary "$summary"
[ "$failed" -eq 0 ] || die "$failed step(s) failed; rows and logs: $out, $BUILD/runs/bisect-*"
exit
}
