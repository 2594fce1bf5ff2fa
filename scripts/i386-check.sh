#!/usr/bin/env bash
# make i386-check: compile steps of the series for 32-bit x86 with highmem.
#
# The test kernels are x86_64 only, where a long has 64 bits and there is
# no highmem zone.  The zone-era trees pack more into a word (the shadow
# entries of mm/workingset.c carry a zone id as well, in 32 bits here) and
# have lowmem and highmem as separate zones on one node, so each chosen
# step is configured as "make ARCH=i386 tinyconfig" plus
# configs/i386.config (PAE highmem, memcg, swap, THP, DEBUG_VM; every
# requested option is checked after olddefconfig) and compiled.  Nothing
# is booted.  One row per step: build ok or FAIL and the seconds it took.
#
#   scripts/i386-check.sh               both ends (steps 0 and N)
#   STEPS="0 3-5" scripts/i386-check.sh
#   I386_TARGETS=mm/ scripts/i386-check.sh    mm/ only, not vmlinux
# Trees and objects: build/k/<step>-i386/{src,obj,logs}, as make kernel
# has them; a step is rebuilt only when its tree or the fragment changed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

check_settings STEPS JOBS
total=$(series_count)
mapfile -t steps < <(expand_steps "${STEPS:-0 $total}")
frag=$TOP/configs/i386.config
read -r -a targets <<<"${I386_TARGETS:-vmlinux}"
[ ${#targets[@]} -gt 0 ] || die "I386_TARGETS is empty" "give make targets, e.g. vmlinux or mm/"
jobs=${JOBS:-$(jobs_default)}

# Configure and build step N; the build's output goes to its log.  Runs
# in a subshell of its own (see below): die ends that step only.
build_step() {
	local n=$1 name dir src obj logs key lost=() rc
	name=$(kernel_name "$n" i386)
	dir=$BUILD/k/$name
	src=$dir/src
	obj=$dir/obj
	logs=$dir/logs
	"$TOP/scripts/mktree.sh" "$n" "$dir"
	mkdir -p "$logs"
	key=$({
		cat "$dir/src.key" "$frag"
		echo "${targets[*]}"
	} | sha256sum | cut -c1-16)
	if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$key" ]; then
		msg i386 "$name: built (up to date)"
		return 0
	fi
	rm -f "$dir/stamp"
	# Objects are only reused for the very same tree.
	if [ ! -f "$dir/obj.key" ] || [ "$(cat "$dir/obj.key")" != "$(cat "$dir/src.key")" ]; then
		remove_tree "$obj"
	fi
	mkdir -p "$obj"
	cp "$dir/src.key" "$dir/obj.key"

	local kmake=(make -C "$src" O="$obj" ARCH=i386 -j"$jobs"
		KBUILD_BUILD_TIMESTAMP="$(date -u -d @0)"
		KBUILD_BUILD_USER=node-lru KBUILD_BUILD_HOST=i386)
	if command -v ccache >/dev/null 2>&1 && [ "${CCACHE:-1}" != 0 ]; then
		# As in kbuild.sh: relative paths, depend mode.
		export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
		export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
		kmake+=(CC="ccache gcc")
	fi

	stage "config: $name (ARCH=i386 tinyconfig + i386)"
	"${kmake[@]}" tinyconfig >"$logs/config.log" 2>&1 ||
		die "tinyconfig failed for $name" "log: $logs/config.log"
	env -C "$obj" "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "$frag" >"$logs/merge.log" 2>&1 ||
		die "merge_config.sh failed for $name" "log: $logs/merge.log"
	"${kmake[@]}" olddefconfig >"$logs/olddefconfig.log" 2>&1 ||
		die "olddefconfig failed for $name" "log: $logs/olddefconfig.log"
	# Every requested option must have survived (config_lost, lib.sh).
	mapfile -t lost < <(config_lost "$obj/.config" "$frag")
	[ ${#lost[@]} -eq 0 ] ||
		die "requested config options did not survive olddefconfig for $name:" \
			"${lost[@]}" "fix configs/i386.config (a missing dependency?)"
	cp "$obj/.config" "$dir/config"

	stage "build: $name ${targets[*]} (-j$jobs, log $logs/build.log)"
	rc=0
	if [ "${V:-0}" = 1 ]; then
		"${kmake[@]}" "${targets[@]}" 2>&1 | tee "$logs/build.log" || rc=$?
	else
		"${kmake[@]}" "${targets[@]}" >"$logs/build.log" 2>&1 || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		tail -n 25 "$logs/build.log" >&2
		die "i386 build failed for $name" "log: $logs/build.log"
	fi
	echo "$key" >"$dir/stamp"
	msg i386 "$name: ${targets[*]} built"
}

rows=()
failed=0
for s in "${steps[@]}"; do
	n=$(step_number "$s")
	t0=$(date +%s)
	res=ok
	# Not "build_step || ...": that would turn errexit off inside it.
	set +e
	(
		set -e
		build_step "$n"
	)
	rc=$?
	set -e
	if [ "$rc" -ne 0 ]; then
		res=FAIL
		failed=$((failed + 1))
	fi
	rows+=("$(printf '%s\t%s\t%s s' "$n" "$res" "$(($(date +%s) - t0))")")
done
printf 'step\ti386 HIGHMEM build (%s)\ttime\n' "${targets[*]}"
printf '%s\n' "${rows[@]}"
[ "$failed" -eq 0 ] || die "$failed step(s) failed to build for i386"
