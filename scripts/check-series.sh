#!/usr/bin/env bash
# Consistency of the series, without applying it:
#   - every listed patch exists, none is listed twice, every file in
#     patches/ is listed;
#   - every patch has a mail header: From, Subject, a changelog, a
#     Signed-off-by line; subjects are unique;
#   - the patch is in the normalised form (quilt refresh -p ab style: no
#     "diff --git" or "index" lines, no timestamps, a/ and b/ prefixes);
#   - scripts/checkpatch.pl of the pristine tree reports no error and no
#     warning, except those allowed with a reason in
#     scripts/checkpatch-allow.txt ("patch TYPE reason" a line).
# Each problem is named with the file and line to fix.  CHECKPATCH=0 skips
# checkpatch (it needs the pristine tree; say so rather than pass).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

ALLOW=${CHECKPATCH_ALLOW:-$TOP/scripts/checkpatch-allow.txt}
errors=0
err() {
	printf 'check-series: %s\n' "$*" >&2
	errors=$((errors + 1))
}

lineno=0
declare -A listed=()
order=()
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	p=${line%%#*}
	p=${p%%[[:space:]]*}
	[ -n "$p" ] || continue
	if [ -n "${listed[$p]:-}" ]; then
		err "series:$lineno: $p is listed again (first at line ${listed[$p]})"
		continue
	fi
	listed[$p]=$lineno
	if [ -f "$PATCHES/$p" ]; then
		order+=("$p")
	else
		err "series:$lineno: $p has no file in patches/"
	fi
done <"$SERIES"

while IFS= read -r f; do
	[ -n "${listed[$f]:-}" ] || err "patches/$f is not listed in series"
done < <(cd "$PATCHES" && find . -path ./wip -prune -o -type f ! -name '.*' -print |
	sed 's|^\./||' | sort)

# Header and format, one awk pass per patch; it prints "line: problem".
check_patch() {
	awk '
		function bad(l, m) { printf "%d: %s\n", l, m; nbad++ }
		!in_diff && /^From: / { from = NR; if ($0 !~ /^From: .+ <[^@ ]+@[^> ]+>$/) bad(NR, "From: is not \"Name <address>\"") }
		!in_diff && /^Subject: / {
			subj = NR; s = $0; sub(/^Subject: (\[[^]]*\] )?/, "", s)
			if (s == "") bad(NR, "empty Subject:")
			print "SUBJECT " s
		}
		!in_diff && subj && !from_done && NR > subj && !/^$/ && !/^Signed-off-by: / && !/^---$/ && !/^[A-Za-z-]+: / { text++ }
		!in_diff && /^Signed-off-by: / { sob = NR; if ($0 !~ /^Signed-off-by: .+ <[^@ ]+@[^> ]+>$/) bad(NR, "Signed-off-by: is not \"Name <address>\"") }
		!in_diff && /^---$/ { from_done = 1 }
		/^--- / { in_diff = 1
			if ($0 !~ /^--- (a\/|\/dev\/null)/) bad(NR, "old file name without the a/ prefix (quilt refresh -p ab)")
			if ($0 ~ /\t/) bad(NR, "timestamp after the file name (quilt refresh --no-timestamps)")
		}
		/^\+\+\+ / {
			if ($0 !~ /^\+\+\+ (b\/|\/dev\/null)/) bad(NR, "new file name without the b/ prefix (quilt refresh -p ab)")
			if ($0 ~ /\t/) bad(NR, "timestamp after the file name (quilt refresh --no-timestamps)")
		}
		/^diff --git / { bad(NR, "\"diff --git\" line (quilt refresh style has none)") }
		/^index [0-9a-f]+\.\.[0-9a-f]+/ { bad(NR, "\"index\" line (quilt refresh --no-index)") }
		/^Index: / { bad(NR, "\"Index:\" line (quilt refresh --no-index)") }
		END {
			if (!from) bad(1, "no From: line")
			if (!subj) bad(1, "no Subject: line")
			if (!text) bad(subj ? subj : 1, "no changelog between Subject: and Signed-off-by:")
			if (!sob) bad(1, "no Signed-off-by: line")
			if (!in_diff) bad(NR, "no diff")
		}
	' "$1"
}

declare -A subjects=()
for p in "${order[@]}"; do
	while IFS= read -r out; do
		case $out in
		"SUBJECT "*)
			s=${out#SUBJECT }
			if [ -n "${subjects[$s]:-}" ]; then
				err "patches/$p: subject \"$s\" is also the subject of ${subjects[$s]}"
			fi
			subjects[$s]=$p
			;;
		*) err "patches/$p:$out" ;;
		esac
	done < <(check_patch "$PATCHES/$p")
done

# checkpatch.pl from the pristine tree.
checked=0
allowed=0
if [ "${CHECKPATCH:-1}" = 0 ]; then
	msg checkpatch "skipped (CHECKPATCH=0)"
elif [ "${#order[@]}" -gt 0 ]; then
	cp=$PRISTINE/scripts/checkpatch.pl
	[ -f "$cp" ] || die "no $cp: run 'make pristine' first (or CHECKPATCH=0 to skip checkpatch, reported as skipped)"
	for p in "${order[@]}"; do
		# UNKNOWN_COMMIT_ID: checkpatch looks commit ids up with git in
		# the tree it runs from; the pristine tree has no history, so
		# every id would be "unknown".  The format of a reference
		# (GIT_COMMIT_ID) is still checked.
		out=$(cd "$PRISTINE" && perl scripts/checkpatch.pl --no-color --show-types \
			--no-summary --terse --ignore UNKNOWN_COMMIT_ID "$PATCHES/$p" 2>&1) || true
		checked=$((checked + 1))
		while IFS= read -r l; do
			[ -n "$l" ] || continue
			type=$(sed -n 's/.*: \(ERROR\|WARNING\|CHECK\):\([A-Z_0-9]*\):.*/\2/p' <<<"$l")
			if [ -n "$type" ] && [ -f "$ALLOW" ] &&
				awk -v p="$p" -v t="$type" '$1 == p && $2 == t && NF > 2 { f = 1 } END { exit !f }' "$ALLOW"; then
				msg allowed "$p: $type (reason in ${ALLOW#"$TOP"/})"
				allowed=$((allowed + 1))
				continue
			fi
			case $l in
			*ERROR:* | *WARNING:*) err "checkpatch: ${l#"$PATCHES"/}" ;;
			esac
		done <<<"$out"
	done
fi

if [ "$errors" -gt 0 ]; then
	die "$errors problem(s) in series/patches"
fi
msg series "${#order[@]} patches listed, all present, none unlisted; headers and format ok; checkpatch clean on $checked ($allowed allowed findings)"
