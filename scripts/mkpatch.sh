#!/usr/bin/env bash
# Write the forward patch that undoes one reverse step of the development
# tree (a git repository of the pristine tree with one commit per reverse
# step, see README.md "Making a step").
#
#   scripts/mkpatch.sh [-C GITDIR] REV MSGFILE >patches/<name>.patch
#
# MSGFILE is either a text file (subject on the first line, changelog
# after it, then optionally a line "---" and notes for reviewers) or an
# existing patch, whose subject, changelog and notes are kept.  Notes go
# below the "---" line of the mail, above the diffstat: git am and quilt
# leave them out of the commit.
# The patch is the diff from REV back to its parent, in the normalised
# form check-series expects: a mail header (From and Signed-off-by from the
# git identity, Subject from the first line of MSGFILE, the rest of MSGFILE
# as the changelog), a diffstat, and "-p ab" hunks without index or
# "diff --git" lines.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

gitdir=$BUILD/dev/linux
if [ "${1:-}" = -C ]; then
	gitdir=$2
	shift 2
fi
[ $# -eq 2 ] || die "usage: scripts/mkpatch.sh [-C GITDIR] REV MSGFILE"
rev=$1
msgfile=$2
[ -s "$msgfile" ] || die "$msgfile: no changelog"

name=$(git -C "$gitdir" config user.name) || die "git user.name is not set"
email=$(git -C "$gitdir" config user.email) || die "git user.email is not set"
if grep -q '^Subject: ' "$msgfile"; then
	subject=$(patch_subject "$msgfile")
	body=$(sed -n '/^Subject: /,/^Signed-off-by: /p' "$msgfile" | sed -e '1d' -e '$d' | trim_blank)
	notes=$(patch_notes "$msgfile")
else
	subject=$(head -n 1 "$msgfile")
	body=$(tail -n +2 "$msgfile" | sed '/^---$/,$d' | trim_blank)
	notes=$(tail -n +2 "$msgfile" | sed '1,/^---$/d' | trim_blank)
fi
[ -n "$subject" ] || die "$msgfile: the subject is empty"
[ -n "$body" ] || die "$msgfile: the changelog after the subject is empty"

printf 'From: %s <%s>\n' "$name" "$email"
printf 'Subject: %s\n\n' "$subject"
# A trailer that ends the changelog (Link:, Reported-by: ...) stays in
# one block with the Signed-off-by, as git interpret-trailers keeps them.
if printf '%s\n' "$body" | tail -n 1 | grep -Eq '^[A-Z][A-Za-z-]*: '; then
	printf '%s\n' "$body"
else
	printf '%s\n\n' "$body"
fi
printf 'Signed-off-by: %s <%s>\n' "$name" "$email"
printf -- '---\n'
if [ -n "$notes" ]; then
	printf '%s\n\n' "$notes"
fi
git -C "$gitdir" diff --no-color --no-renames --stat=72 "$rev" "$rev~1"
printf '\n'
git -C "$gitdir" diff --no-color --no-renames --src-prefix=a/ --dst-prefix=b/ \
	"$rev" "$rev~1" | grep -v -e '^diff --git ' -e '^index '
