#!/usr/bin/env bash
# Configure and build one kernel of the series.
#
#   scripts/kbuild.sh STEP FLAVOR
#
# STEP: zone | node | N (see mktree.sh).  FLAVOR: debug | bench, optionally
# followed by +EXTRA fragments (debug+mglru: configs/mglru.config on top).
# Result: build/k/<step>-<flavor>/obj/arch/x86/boot/bzImage, its .config
# (kept as build/k/<step>-<flavor>/config), and a stamp.  The config is
# tinyconfig with configs/qemu.config and configs/<flavor>.config merged by
# the tree's merge_config.sh; every requested option is checked after
# olddefconfig.  A kernel is rebuilt only when the tree key (BASE, series,
# patches, step) or the fragments changed; a changed tree gets a fresh O=
# directory, so no object built from other sources survives.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# The whole script is one block: bash reads all of it before running any,
# so editing the file during a build (minutes) cannot change what it does.
{

[ $# -eq 2 ] || die "usage: scripts/kbuild.sh STEP FLAVOR"
step=$1
flavor=$2
# Before anything is built or written.
STEP=$step FLAVOR=$flavor check_settings STEP FLAVOR JOBS
# The fragments, in the order they are merged (the last value wins).
IFS=+ read -r -a parts <<<"$flavor"
case "${parts[0]:-}" in
debug | bench) ;;
*) die "unknown flavor '$flavor'" "flavors: debug, bench (configs/<flavor>.config), optionally +EXTRA (e.g. debug+mglru)" ;;
esac
frags=()
for part in "${parts[@]}"; do
	[ -f "$TOP/configs/$part.config" ] ||
		die "flavor '$flavor': no fragment configs/$part.config"
	frags+=("$TOP/configs/$part.config")
done

n=$(step_number "$step")
name=$(kernel_name "$step" "$flavor")
dir=$BUILD/k/$name
src=$dir/src
obj=$dir/obj
logs=$dir/logs
mkdir -p "$logs"

"$TOP/scripts/mktree.sh" "$n" "$dir"

key=$(
	{
		cat "$dir/src.key"
		cat "$TOP/configs/qemu.config" "${frags[@]}"
	} | sha256sum | cut -c1-16
)
if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$key" ] &&
	[ -f "$obj/arch/x86/boot/bzImage" ]; then
	msg kernel "$obj/arch/x86/boot/bzImage (up to date)"
	exit 0
fi
rm -f "$dir/stamp"
# Objects are only reused for the very same tree.
if [ ! -f "$dir/obj.key" ] || [ "$(cat "$dir/obj.key")" != "$(cat "$dir/src.key")" ]; then
	remove_tree "$obj"
fi
mkdir -p "$obj"
cp "$dir/src.key" "$dir/obj.key"

jobs=${JOBS:-$(jobs_default)}
kmake=(make -C "$src" O="$obj" -j"$jobs"
	KBUILD_BUILD_TIMESTAMP="$(date -u -d @0)"
	KBUILD_BUILD_USER=node-lru KBUILD_BUILD_HOST=qemu
	LOCALVERSION="-$name")
if command -v ccache >/dev/null 2>&1 && [ "${CCACHE:-1}" != 0 ]; then
	# Relative paths (obj and src are siblings in every kernel's
	# directory) let one kernel's objects serve the others.
	export CCACHE_BASEDIR=$BUILD
	export CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	# Depend mode takes the headers from the -MMD file kbuild asks gcc
	# for, instead of running the preprocessor once more on every miss.
	# Measured on mm/ here: plain gcc 46 s, ccache cold 67 s, cold in
	# depend mode 44 s, warm 12 s.
	export CCACHE_DEPEND=1
	kmake+=(CC="ccache gcc")
fi

run() {
	local what=$1 log=$logs/$2
	shift 2
	if ! "$@" >"$log" 2>&1; then
		tail -n 25 "$log" >&2
		die "$what failed for $name" "log: $log"
	fi
}

stage "config: $name (tinyconfig + qemu + ${flavor//+/ + })"
run "tinyconfig" config.log "${kmake[@]}" tinyconfig
# From the object directory: merge_config.sh makes its temporary files in
# the current directory, and the source tree must stay as mktree.sh made
# it (a file made and removed there changes its state, see mktree.sh).
run "merge_config.sh" merge.log \
	env -C "$obj" "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
	"$obj/.config" "$TOP/configs/qemu.config" "${frags[@]}"
run "olddefconfig" olddefconfig.log "${kmake[@]}" olddefconfig

# Every requested option must have survived (config_lost, lib.sh).
mapfile -t lost < <(config_lost "$obj/.config" "$TOP/configs/qemu.config" "${frags[@]}")
if [ ${#lost[@]} -gt 0 ]; then
	die "requested config options did not survive olddefconfig for $name:" \
		"${lost[@]}" "fix the fragments under configs/ (a missing dependency?)"
fi
cp "$obj/.config" "$dir/config"
msg config "$dir/config ($(grep -c '=y' "$obj/.config") options on)"

stage "build: $name (-j$jobs, log $logs/build.log)"
start=$(date +%s)
# The build's output goes to its log; a line a minute says how far it
# got (objects compiled so far).  V=1 shows the whole output as well.
build_log=$logs/build.log
if [ "${V:-0}" = 1 ]; then
	rc=0
	"${kmake[@]}" bzImage modules 2>&1 | tee "$build_log" || rc=$?
else
	"${kmake[@]}" bzImage modules >"$build_log" 2>&1 &
	pid=$!
	trap 'kill "$pid" 2>/dev/null || true' EXIT
	next=$((start + 60))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		now=$(date +%s)
		if [ "$now" -ge "$next" ]; then
			msg build "$name: $(((now - start) / 60)) min, $(grep -c '^  CC ' "$build_log" || true) objects compiled"
			next=$((next + 60))
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	trap - EXIT
fi
if [ "$rc" -ne 0 ]; then
	tail -n 25 "$build_log" >&2
	die "kernel build failed for $name" "log: $build_log"
fi
msg kernel "$obj/arch/x86/boot/bzImage ($(($(date +%s) - start)) s)"
echo "$key" >"$dir/stamp"
exit 0
}
