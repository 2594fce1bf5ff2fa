#!/usr/bin/env bash
# Build the guest's tools disk: Debian's stress-ng, fio and bonnie++ with
# every shared library they link, on a small read-only ext4 image that the
# runner attaches as the third virtio disk and the guest mounts on
# /opt/tools.
#
#   scripts/toolsdisk.sh        -> build/tools-disk/tools.img
#
# Why a disk and not the initramfs: fio alone links 60-odd libraries
# (80 MiB).  In the initramfs they would be pinned, unreclaimable memory
# in every test; on a disk they are page cache like any program's text.
# Each tool runs through a wrapper in /opt/tools/bin that starts it with
# the image's own dynamic loader and libraries, so nothing on the guest's
# root has to match.  Rebuilt only when a tool or library changed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tools=(stress-ng fio bonnie++)
out=$BUILD/tools-disk
img=$out/tools.img

paths=()
for t in "${tools[@]}"; do
	p=$(command -v "$t" 2>/dev/null) ||
		die "$t is not installed (the guest's load generators)" "run 'make deps' as root"
	paths+=("$p")
done
libs() {
	ldd "$1" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
}
mapfile -t all < <(for p in "${paths[@]}"; do libs "$p"; done | sort -u)

key=$(
	for f in "${paths[@]}" "${all[@]}"; do
		printf '%s %s\n' "$f" "$(stat -L -c '%s %Y' "$f")"
	done | sha256sum | cut -c1-16
)
if [ -f "$out/key" ] && [ "$(cat "$out/key")" = "$key" ] && [ -f "$img" ]; then
	exit 0
fi

remove_tree "$out"
mkdir -p "$out/root/bin" "$out/root/libexec" "$out/root/lib"
for f in "${all[@]}"; do
	cp -L "$f" "$out/root/lib/"
done
loader=$(printf '%s\n' "${all[@]}" | grep -m1 '/ld-linux') ||
	die "no dynamic loader among the tools' libraries"
for p in "${paths[@]}"; do
	t=$(basename "$p")
	cp "$p" "$out/root/libexec/$t"
	cat >"$out/root/bin/$t" <<WRAP
#!/bin/sh
exec /opt/tools/lib/$(basename "$loader") --library-path /opt/tools/lib /opt/tools/libexec/$t "\$@"
WRAP
	chmod 0755 "$out/root/bin/$t"
done
{
	for p in "${paths[@]}"; do
		# shellcheck disable=SC2016 # dpkg-query format, not shell
		printf '%s %s\n' "$(basename "$p")" \
			"$(dpkg -S "$p" 2>/dev/null | cut -d: -f1 | xargs -r dpkg-query -W -f '${Package} ${Version}')"
	done
} >"$out/root/VERSIONS"
find "$out/root" -exec touch -h -d @0 {} +
mb=$(($(du -sm "$out/root" | cut -f1) * 5 / 4 + 16))
E2FSPROGS_FAKE_TIME=0 mkfs.ext4 -q -F -L tools -d "$out/root" "$img.tmp" "${mb}M" \
	>"$out/mkfs.log" 2>&1 || die "mkfs.ext4 -d of the tools disk failed" "log: $out/mkfs.log"
mv "$img.tmp" "$img"
echo "$key" >"$out/key"
msg tools "$img (${mb} MiB: ${tools[*]}, ${#all[@]} libraries)"
