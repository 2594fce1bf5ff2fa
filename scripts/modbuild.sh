#!/usr/bin/env bash
# Build the test modules (tests/modules/*.c) for one built kernel and pack
# them as a cpio archive to append to the initramfs.
#
#   scripts/modbuild.sh KERNEL
#
# KERNEL: a directory name under build/k (zone-debug, node-debug, ...).
# Result: build/mod/KERNEL/modules.cpio.gz, with the modules in
# /lib/modules/nodelru/ of the guest (tests load them with insmod).  The
# kernel decompresses concatenated archives one after the other, so the
# runner boots "initramfs.cpio.gz + modules.cpio.gz".  Rebuilt only when
# the module sources or the kernel changed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: scripts/modbuild.sh KERNEL"
kernel=$1
kdir=$BUILD/k/$kernel
out=$BUILD/mod/$kernel
gen=$BUILD/tools/gen_init_cpio
[ -f "$kdir/obj/Module.symvers" ] ||
	die "kernel $kernel has no Module.symvers (not built with modules?)" \
		"build it: make kernel STEP=..."
[ -x "$gen" ] || die "no $gen" "make initramfs builds it"

key=$(
	{
		cat "$kdir/stamp" 2>/dev/null || echo unstamped
		sha256sum "$TOP"/tests/modules/*
	} | sha256sum | cut -c1-16
)
if [ -f "$out/key" ] && [ "$(cat "$out/key")" = "$key" ] &&
	[ -f "$out/modules.cpio.gz" ]; then
	exit 0
fi

remove_tree "$out"
mkdir -p "$out/src"
cp "$TOP"/tests/modules/* "$out/src/"
if ! make -C "$kdir/src" O="$kdir/obj" M="$out/src" modules \
	>"$out/build.log" 2>&1; then
	tail -n 25 "$out/build.log" >&2
	die "the test modules do not build for $kernel" "log: $out/build.log"
fi
{
	echo "dir /lib 0755 0 0"
	echo "dir /lib/modules 0755 0 0"
	echo "dir /lib/modules/nodelru 0755 0 0"
	find "$out/src" -name '*.ko' | sort | while read -r ko; do
		touch -d @0 "$ko"
		echo "file /lib/modules/nodelru/$(basename "$ko") $ko 0644 0 0"
	done
} >"$out/cpio.list"
"$gen" -t 0 "$out/cpio.list" | gzip -n -9 >"$out/modules.cpio.gz"
echo "$key" >"$out/key"
msg modules "$out/modules.cpio.gz ($(grep -c '\.ko ' "$out/cpio.list") modules for $kernel)"
