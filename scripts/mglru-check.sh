#!/usr/bin/env bash
# make mglru-check: build steps of the series with the multi-gen LRU on.
#
# Every step before "mm: allow the multi-gen LRU again" fences LRU_GEN off
# ("depends on BROKEN"), so the multi-gen LRU code that earlier patches
# edit (the lock patch changes several of its functions) is compiled by
# no step's kernel.  This builds the chosen steps with the fence lifted
# (SCRATCH=configs/mglru-unfence.patch) and FLAVOR=debug+mglru, so those
# edits are compiled, and prints one row per step: build ok or FAIL and
# the seconds it took.
#
#   scripts/mglru-check.sh              the first step with the LRU lists
#                                       on the node (after "mm, vmscan: move
#                                       LRU lists to node") and N-2, the
#                                       last step before the lock patch
#   STEPS="2 3 7" scripts/mglru-check.sh
# Before the lists patch the LRU lists are per zone: the multi-gen LRU
# keeps its generations on the node's lruvec while folios would go to the
# zones' lists, so it is not built there (the fence is why the series can
# have zone lists).
# Steps that have no fence (the last) build with FLAVOR=debug+mglru alone.
# BOOT=1 also boots each built kernel (UMA, TESTS, default topology).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

total=$(series_count)
[ "$total" -ge 2 ] || die "the series has $total patches; nothing to check"
check_settings STEPS BOOT
lists=$(series_patches | grep -n -x 'mm-vmscan-move-LRU-lists-to-node.patch' | cut -d: -f1) ||
	die "series: no mm-vmscan-move-LRU-lists-to-node.patch, so no first step with node lists"
mapfile -t steps < <(expand_steps "${STEPS:-$lists $((total - 2))}")
unfence=$TOP/configs/mglru-unfence.patch
flavor=${FLAVOR:-debug}+mglru

rows=()
failed=0
for s in "${steps[@]}"; do
	n=$(step_number "$s")
	t0=$(date +%s)
	scratch=
	[ "$n" -eq "$total" ] || scratch=$unfence
	if SCRATCH=$scratch "$TOP/scripts/kbuild.sh" "$n" "$flavor"; then
		res=ok
		if [ "${BOOT:-0}" = 1 ]; then
			kname=$(SCRATCH=$scratch kernel_name "$n" "$flavor")
			if SCRATCH=$scratch RUN_NAME="mglru-$n-uma" \
				"$TOP/scripts/qemu-run.sh" "$kname" uma "${TESTS:-smoke}"; then
				res="ok, booted"
			else
				res="ok, boot FAIL"
				failed=$((failed + 1))
			fi
		fi
	else
		res=FAIL
		failed=$((failed + 1))
	fi
	rows+=("$(printf '%s\t%s\t%s s' "$n" "$res" "$(($(date +%s) - t0))")")
done
printf 'step\tLRU_GEN=y build\ttime\n'
printf '%s\n' "${rows[@]}"
[ "$failed" -eq 0 ] || die "$failed step(s) failed with the multi-gen LRU on"
