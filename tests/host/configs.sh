#!/usr/bin/env bash
# Host test: every kernel flavor the project builds configures, with every
# option its fragments ask for, before any of them is built.
#   For debug, bench, debug+mglru and bench+mglru (make check builds only
#   debug; make bench the others): tinyconfig, then configs/qemu.config
#   and the flavor's fragments merged by the tree's merge_config.sh, then
#   olddefconfig, in a scratch object directory of the pristine tree (the
#   series' end; the step trees differ from it in Kconfig only by the
#   LRU_GEN fence of the last patch, and no +mglru kernel is built below
#   it), and every requested option must have survived (config_lost, as
#   kbuild.sh checks it).  A fragment that asks for an option whose
#   dependency another fragment turns off fails here, in seconds, and not
#   after a make bench has built its first kernel.
#   Then a fragment asking for CONFIG_KPROBE_EVENTS=y on top of bench
#   (which turns tracing off) must be caught, and the option named: the
#   check can fail (make bench failed so for two sessions, unnoticed).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
work=$build/selftest/configs
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh" # config_lost, PRISTINE

"$top/scripts/pristine.sh" >/dev/null 2>&1

# configure NAME FRAGMENT...: the lost options, one a line, in $work/NAME.lost.
configure() {
	local name=$1 obj=$work/$1
	shift
	mkdir -p "$obj"
	if ! { make -C "$PRISTINE" O="$obj" tinyconfig &&
		env -C "$obj" "$PRISTINE/scripts/kconfig/merge_config.sh" -m -O "$obj" \
			"$obj/.config" "$top/configs/qemu.config" "$@" &&
		make -C "$PRISTINE" O="$obj" olddefconfig; } >"$obj.log" 2>&1; then
		echo "configuring failed (log $obj.log)" >"$obj.lost"
		return 0
	fi
	config_lost "$obj/.config" "$top/configs/qemu.config" "$@" >"$obj.lost"
}
# shellcheck disable=SC2317 # called through check
clean() { [ ! -s "$work/$1.lost" ] || { sed "s/^/# $1: /" "$work/$1.lost"; return 1; }; }

for flavor in debug bench debug+mglru bench+mglru; do
	frags=()
	IFS=+ read -r -a parts <<<"$flavor"
	for p in "${parts[@]}"; do frags+=("$top/configs/$p.config"); done
	configure "$flavor" "${frags[@]}"
	check "flavor $flavor: every requested option survives olddefconfig" clean "$flavor"
done

# The check can fail: tracing off (bench), kprobe events asked for.
printf 'CONFIG_KPROBE_EVENTS=y\n' >"$work/inject.config"
configure inject "$top/configs/bench.config" "$work/inject.config"
check "bench + CONFIG_KPROBE_EVENTS=y: the lost option is named" \
	grep -q '^CONFIG_KPROBE_EVENTS=y (got' "$work/inject.lost"

# The scratch configs stay for a look when something failed.
[ "$fail" -gt 0 ] || rm -rf "$work"
echo "configs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
