#!/usr/bin/env bash
# Install the Debian packages the project needs; fast when all are there.
#
# The kernel source package BASE names (linux-source-6.1) is installed at
# the version BASE names when the archive has it, otherwise the newest
# one, and it says so.  An installed one at another version is left
# alone: the scripts that use it say which they use (note_base in lib.sh).
# As root this runs apt-get; as anyone else it prints the exact command
# and fails.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# git: make export, scripts/devtree.sh and mkpatch.sh, the round-trip test.
# procps: pgrep, to stop what a script started in the background.
pkgs=(quilt gcc make bc flex bison libelf-dev libssl-dev libc6-dev
	qemu-system-x86 busybox-static cpio e2fsprogs xz-utils file
	ccache shellcheck stress-ng fio bonnie++ python3 gnuplot-nox git procps)
# Optional: used when present, installed when we can (root), never required.
#   b4: the round trip through "b4 am" (tests/host/round-trip.sh)
optional=(b4)
[ -n "$BASE_VERSION" ] ||
	die "$TOP/BASE must say PACKAGE VERSION (linux-source-6.1 6.1.192-3), not '$(cat "$TOP/BASE" 2>/dev/null)'"
pkg=$BASE_PKG
want=$BASE_VERSION

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
missing_opt=()
for p in "${optional[@]}"; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing_opt+=("$p")
done
src_have=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || true)
if [ ${#missing[@]} -eq 0 ] && [ -n "$src_have" ] && [ -f "$SRC_TARBALL" ]; then
	if [ ${#missing_opt[@]} -gt 0 ]; then
		mkdir -p "$BUILD"
		if [ "$(id -u)" = 0 ] &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
				"${missing_opt[@]}" >"$BUILD/apt-optional.log" 2>&1; then
			msg deps "installed the optional ${missing_opt[*]}"
		else
			printf 'warning: optional packages missing: %s (what uses them is skipped, and says so)\n' \
				"${missing_opt[*]}" >&2
		fi
	fi
	msg deps "all required packages present"
	exit 0
fi

src_pkg=()
if [ -z "$src_have" ] || [ ! -f "$SRC_TARBALL" ]; then
	src_pkg=("$pkg=$want")
fi
cmd=(apt-get install -y --no-install-recommends "${missing[@]}" "${missing_opt[@]}" "${src_pkg[@]}")
if [ "$(id -u)" != 0 ]; then
	die "missing packages: ${missing[*]} ${src_pkg[*]}" \
		"run as root: apt-get update && ${cmd[*]}"
fi

mkdir -p "$BUILD"
stage "installing: ${missing[*]} ${src_pkg[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >"$BUILD/apt-update.log" 2>&1 ||
	die "apt-get update failed" "log: $BUILD/apt-update.log"
if [ ${#src_pkg[@]} -gt 0 ] &&
	! apt-cache madison "$pkg" | awk '{ print $3 }' | grep -qxF "$want"; then
	newest=$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')
	if [ -z "$newest" ] || [ "$newest" = "(none)" ]; then
		die "BASE names $pkg $want, and the archive has no $pkg at all" "check /etc/apt/sources.list, or BASE"
	fi
	printf 'warning: %s\n' \
		"BASE names $pkg $want, which the archive no longer has: installing $pkg $newest, the archive's, and the trees will come from it." \
		"The series was made on $want and may not rewind or replay cleanly on $newest." |
		sed '2,$s/^warning: /         /' >&2
	cmd=(apt-get install -y --no-install-recommends "${missing[@]}" "${missing_opt[@]}" "$pkg")
fi
"${cmd[@]}" >"$BUILD/apt-install.log" 2>&1 ||
	die "apt-get install failed" "log: $BUILD/apt-install.log"
msg deps "installed"
