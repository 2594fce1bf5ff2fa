#!/usr/bin/env bash
# Every step of the series: build (debug fragment), boot, run the smoke
# set.  One row per step in build/bisect/summary.tsv, printed at the end:
#   step  build  boot  tests(pass/fail/skip)  seconds  subject  reported only
# The last column lists the expectations the tests only reported at that
# step instead of asserting them (a test says so with a line
# "nodelru-reported: WHAT", tests/lib/guest.sh's reported); "-" when every
# expectation of every test was asserted.
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
# OVERLAP, all checked before anything is built or written.
# OVERLAP=1 builds the next step while the current one boots (its build
# output goes to build/bisect/build-N.log and is shown when the step's
# turn comes), for a machine with cores a TCG guest leaves idle; the
# default (auto) is 1 from 4 CPUs up, 0 below.  The row's seconds are the
# step's own build and boot time either way (build+boot), so the sum of a
# column is what the steps cost, and the wall time is printed at the end.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
check_settings
overlap=0
! overlap_on || overlap=1
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

subject_of() {
	if [ "$1" -eq 0 ]; then
		echo "(rewound tree: the whole series reversed)"
	else
		patch_subject "$PATCHES/${names[$1 - 1]}"
	fi
}
key_of() {
	echo "$(tree_key "$1") $initrd_key $flavor $topos $tests"
}

# The steps still to run: a step whose row passed for this key is kept.
todo=()
declare -A seen=()
for n in "${steps[@]}"; do
	[ -z "${seen[$n]:-}" ] || continue
	seen[$n]=1
	row=$out/step-$n.row
	if [ -f "$row" ] && [ "$(head -n 1 "$row")" = "$(key_of "$n")" ] &&
		tail -n 1 "$row" | grep -q '^[0-9]*	ok	ok	[0-9]*/0/'; then
		msg resume "step $n already passed for this tree: $(tail -n 1 "$row" | cut -f1-4)"
		continue
	fi
	todo+=("$n")
done
[ "$overlap" = 0 ] || msg overlap "each next step builds while the current one boots (OVERLAP=1; $(nproc) CPUs)"

# Build step $1 in the background; build/bisect/build-N.rc gets "rc secs".
# It leaves the guest its CPUs: JOBS, or the CPUs beyond the guest's SMP
# (at least one), at a lower priority.
bg_jobs=$(bg_jobs_default 1)
# The accelerator, picked at the first boot (below).
accel=
# A build still running when the script ends (a failure, ^C) is stopped
# with everything it started.
declare -A bpid=()
# shellcheck disable=SC2317 # the EXIT trap
stop_builds() {
	local p
	for p in "${bpid[@]}"; do
		killtree "$p"
	done
}
trap stop_builds EXIT
build_bg() {
	local n=$1
	rm -f "$out/build-$n.rc"
	(
		t=$(date +%s) rc=0
		JOBS=$bg_jobs nice -n 10 "$TOP/scripts/kbuild.sh" "$n" "$flavor" >"$out/build-$n.log" 2>&1 || rc=$?
		echo "$rc $(($(date +%s) - t))" >"$out/build-$n.rc"
	) &
	bpid[$n]=$!
}

wall0=$(date +%s)
failed=0
for ((i = 0; i < ${#todo[@]}; i++)); do
	n=${todo[i]}
	subject=$(subject_of "$n")
	key=$(key_of "$n")
	row=$out/step-$n.row
	kname=$(kernel_name "$n" "$flavor")
	build=ok
	boot=-
	res=-
	if [ "$overlap" = 1 ]; then
		[ -n "${bpid[$n]:-}" ] || build_bg "$n"
		wait "${bpid[$n]}" || true
		unset "bpid[$n]"
		[ $((i + 1)) -ge ${#todo[@]} ] || build_bg "${todo[i + 1]}"
		stage "step $n: build (ran in the background; log: $out/build-$n.log)"
		cat "$out/build-$n.log"
		read -r rc build_secs <"$out/build-$n.rc" || { rc=1 build_secs=0; }
		[ "$rc" -eq 0 ] || build=FAIL
	else
		t0=$(date +%s)
		"$TOP/scripts/kbuild.sh" "$n" "$flavor" || build=FAIL
		build_secs=$(($(date +%s) - t0))
	fi
	t0=$(date +%s)
	if [ "$build" = ok ]; then
		pass=0 fail=0 skip=0 boot=ok reported=
		# The accelerator is picked (and said) once, at the first boot;
		# when it cannot be had, each run reports it.
		if [ -z "$accel" ]; then
			accel=$(pick_accel "$BUILD/k/$kname/obj/arch/x86/boot/bzImage") || accel=failed
		fi
		acc=()
		[ "$accel" = failed ] || acc=(ACCEL="$accel")
		for topo in $topos; do
			env "${acc[@]}" RUN_NAME="bisect-$n-$topo" "$TOP/scripts/qemu-run.sh" "$kname" "$topo" "$tests" || true
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
			reported+=$(sed -n 's/^# nodelru-reported: \(.*\)/\1; /p' \
				"$BUILD/runs/bisect-$n-$topo/results.ktap" 2>/dev/null | sort -u | tr -d '\n')
			pass=$((pass + $(grep -c '^PASS ' "$oc" || true)))
			fail=$((fail + $(grep -c '^FAIL ' "$oc" || true)))
			skip=$((skip + $(grep -c '^SKIP ' "$oc" || true)))
		done
		[ "$pass" -gt 0 ] || fail=$((fail + 1))
		res=$pass/$fail/$skip
	fi
	boot_secs=$(($(date +%s) - t0))
	secs="$((build_secs + boot_secs)) ($build_secs+$boot_secs)"
	reported=${reported:-}
	reported=${reported%; }
	printf '%s\n%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$n" "$build" "$boot" "$res" "$secs" "$subject" \
		"${reported:--}" >"$row"
	case $build/$boot/$res in
	ok/ok/*/0/*) ;;
	*) failed=$((failed + 1)) ;;
	esac
	if [ "$n" -ne 0 ] && [ "$n" -ne "$total" ]; then
		rm -rf "$BUILD/k/$kname/obj" "$BUILD/k/$kname/stamp" "$BUILD/k/$kname/obj.key"
	fi
done

{
	printf 'step\tbuild\tboot\ttests(p/f/s)\tseconds(build+boot)\tsubject\treported only\n'
	for ((n = 0; n <= total; n++)); do
		f=$out/step-$n.row
		if [ ! -f "$f" ]; then
			printf '%s\t-\t-\t-\t-\t(not run)\n' "$n"
		elif [ "$(head -n 1 "$f")" != "$(key_of "$n")" ]; then
			printf '%s\t-\t-\t-\t-\t(stale: recorded for another series or test image)\n' "$n"
		else
			tail -n 1 "$f"
		fi
	done
} >"$summary"
column -t -s "$(printf '\t')" "$summary" || cat "$summary"
msg summary "$summary (this run: ${#todo[@]} step(s) in $(($(date +%s) - wall0)) s of wall time, OVERLAP=$overlap)"
[ "$failed" -eq 0 ] || die "$failed step(s) failed; rows and logs: $out, $BUILD/runs/bisect-*"
exit
}
