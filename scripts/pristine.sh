#!/usr/bin/env bash
# Extract Debian's kernel source tarball (of the package BASE names,
# /usr/src/linux-source-6.1.tar.xz; or SRC_TARBALL) once into
# build/pristine/linux and make it read-only.  Re-running is cheap: the
# stamp records the tarball's identity, and a changed tarball is
# extracted afresh.
#
#   scripts/pristine.sh          extract (or confirm) the pristine tree
#   scripts/pristine.sh verify   also re-hash every file against the manifest
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$SRC_TARBALL" != "$SRC_TARBALL_DEFAULT" ]; then
	[ -f "$SRC_TARBALL" ] || die "SRC_TARBALL=$SRC_TARBALL: no such file" \
		"unset SRC_TARBALL to use $SRC_TARBALL_DEFAULT ($BASE_PKG, as BASE says)"
else
	[ -f "$SRC_TARBALL" ] ||
		die "$SRC_TARBALL is missing" \
			"install it: apt-get install $BASE_PKG=$BASE_VERSION (or run 'make deps' as root)"
fi
# Which source, when it is not BASE's, and why (once per run).
note_base

have=$(dpkg-query -W -f '${Version}' "$BASE_PKG" 2>/dev/null || echo unknown)

id=$(stat -c '%s %Y' "$SRC_TARBALL")
id="$have $id"
stamp=$PRISTINE_DIR/stamp
manifest=$PRISTINE_DIR/manifest

hash_tree() {
	(cd "$PRISTINE" && find . -type f -print0 | sort -z |
		xargs -0 sha256sum) | sha256sum | cut -d' ' -f1
}

if [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$id" ] && [ -d "$PRISTINE" ]; then
	if [ "${1:-}" = verify ]; then
		stage "verifying the pristine tree against its manifest"
		[ "$(hash_tree)" = "$(cat "$manifest")" ] ||
			die "the pristine tree $PRISTINE was modified" \
				"remove $PRISTINE_DIR (chmod -R u+w first) and run this again"
		msg ok "pristine tree unchanged"
	fi
	exit 0
fi

stage "extracting $SRC_TARBALL ($have)"
# A partial or stale extraction is removed whole before starting again.
remove_tree "$PRISTINE_DIR"
tmp=$PRISTINE_DIR.tmp
remove_tree "$tmp"
mkdir -p "$tmp"
avail=$(df --output=avail -k "$tmp" | tail -n1)
[ "$avail" -gt $((4 * 1024 * 1024)) ] ||
	die "only $((avail / 1024)) MiB free under $BUILD; the trees and builds need several GiB" \
		"free disk space and run this again"
tar -C "$tmp" -xf "$SRC_TARBALL"
top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
if [ "$(printf '%s\n' "$top" | wc -l)" != 1 ] || [ ! -f "$top/Makefile" ]; then
	die "unexpected layout in $SRC_TARBALL (no single top directory with a Makefile)"
fi
mv "$top" "$tmp/linux"
mv "$tmp" "$PRISTINE_DIR"
stage "hashing the pristine tree"
hash_tree >"$manifest"
echo "$id" >"$stamp"
chmod -R a-w "$PRISTINE"
msg tree "$PRISTINE (read-only, $(find "$PRISTINE" -type f | wc -l) files)"
