# shellcheck shell=bash
# Logging: progress lines (msg, stage) and the one way to stop (die).
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
stage() { printf '=> %s\n' "$*" >&2; }
die() {
	printf 'error: %s\n' "$1" >&2
	shift
	local line
	for line in "$@"; do
		printf '       %s\n' "$line" >&2
	done
	exit 1
}
