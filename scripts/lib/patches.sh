# shellcheck shell=bash
# The series and its patch files: the patches in order, a patch's subject
# and notes, and applying or reversing patches with fuzz 0 and no offsets.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

# The patches listed in the series file, in order (comments and blank
# lines dropped; quilt options after the name are not used here).
series_patches() {
	[ -f "$SERIES" ] || die "no series file at $SERIES"
	sed -e 's/#.*//' -e 's/[[:space:]].*//' "$SERIES" | grep -v '^$' || true
}

# The subject of a patch file, without its "[PATCH ...]" prefix.
patch_subject() {
	sed -n 's/^Subject: \(\[[^]]*\] \)\?//p' "$1" | head -n 1
}

# Standard input without its leading and trailing blank lines.
trim_blank() { sed -e '/./,$!d' | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}'; }

# The notes for reviewers of a patch file: the text between its "---"
# line and the diffstat (or the diff), without leading and trailing blank
# lines.  Empty when the patch has none.
patch_notes() {
	awk '/^---$/ && !n { n = 1; next }
		n && (/^ .* \| +[0-9]+ / || /^ [0-9]+ files? changed/ || /^--- /) { exit }
		n { print }' "$1" | trim_blank
}

# Hunks must apply where they say, give or take MAX_OFFSET lines (default
# 0: every patch was made against the exact tree it applies to).  patch(1)
# and quilt print "Hunk #N succeeded at L (offset K lines)"; quilt names
# the patch on its "Applying patch" line.
#   check_offsets WHAT OUTPUT LOG
check_offsets() {
	local what=$1 out=$2 log=$3 max=${MAX_OFFSET:-0} bad
	bad=$(awk -v max="$max" '
		/^Applying patch / { p = $3 }
		/^patching file / { f = $3 }
		/offset -?[0-9]+ line/ {
			k = $0; sub(/.*offset /, "", k); sub(/ line.*/, "", k)
			if ((k < 0 ? -k : k) > max) print (p != "" ? p ": " : "") f ": " $0
		}' <<<"$out")
	[ -z "$bad" ] || die "$what: hunks applied more than $max lines away from where the patch says:" \
		"$bad" "refresh the patch (scripts/mkpatch.sh) or raise MAX_OFFSET; full output: $log"
}

# Apply one patch file to DIR with fuzz 0, extra patch(1) options after
# it (-R to reverse); all output goes to LOG, and on failure the lines that
# name the file and hunk go to stderr and the status is non-zero.  The
# output is left in PATCH_OUT for the caller's offset check.
#   apply_patch DIR FILE LOG [OPTION...]
apply_patch() {
	local dir=$1 file=$2 log=$3
	shift 3
	if ! PATCH_OUT=$(patch -d "$dir" -p1 "$@" -F0 -N --no-backup-if-mismatch \
		--reject-file=- -i "$file" 2>&1); then
		printf '%s\n' "$PATCH_OUT" >>"$log"
		printf '%s\n' "$PATCH_OUT" | grep -E 'patching file|FAILED|hunk|malformed|No file' >&2 || true
		return 1
	fi
	printf '%s\n' "$PATCH_OUT" >>"$log"
}

# Reverse-apply the whole series to the tree in DIR, last patch first,
# fuzz 0 and no offsets (the rewind); patch(1) output goes to LOG.  After
# each patch, HOOK (a command, optional) runs with the patch's name.
#   rewind_series DIR LOG [HOOK]
rewind_series() {
	local dir=$1 log=$2 hook=${3:-} all i p
	mapfile -t all < <(series_patches)
	for ((i = ${#all[@]} - 1; i >= 0; i--)); do
		p=${all[i]}
		printf '[ -%s ]\n' "$p" >>"$log"
		apply_patch "$dir" "$PATCHES/$p" "$log" -R ||
			die "rewind: patch $p does not reverse-apply to the tree of the patches after it" \
				"(fuzz 0; the pristine tree is untouched, no work tree was left behind)" \
				"full output: $log"
		check_offsets "rewind: $p" "$PATCH_OUT" "$log"
		[ -z "$hook" ] || "$hook" "$p"
	done
	msg rewind "${#all[@]} patches reversed"
}

series_count() {
	series_patches | wc -l
}
