#!/usr/bin/env bash
# Static consistency of the series: every listed patch exists, none is
# listed twice, and every file in patches/ is listed.  Each problem is
# named with the line to fix.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

errors=0
err() {
	printf 'check-series: %s\n' "$*" >&2
	errors=$((errors + 1))
}

lineno=0
declare -A listed=()
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	p=${line%%#*}
	p=${p%%[[:space:]]*}
	[ -n "$p" ] || continue
	if [ -n "${listed[$p]:-}" ]; then
		err "series:$lineno: $p is listed again (first at line ${listed[$p]})"
	fi
	listed[$p]=$lineno
	[ -f "$PATCHES/$p" ] || err "series:$lineno: $p has no file in patches/"
done <"$SERIES"

while IFS= read -r f; do
	[ -n "${listed[$f]:-}" ] || err "patches/$f is not listed in series"
done < <(cd "$PATCHES" && find . -type f ! -name '.*' | sed 's|^\./||' | sort)

if [ "$errors" -gt 0 ]; then
	die "$errors problem(s) in series/patches"
fi
msg series "${#listed[@]} patches listed, all present, none unlisted"
