#!/usr/bin/env bash
# make export: the series as a mail series for linux-mm.
#
#   build/export/linux   git repository: the rewound tree as the base
#                        commit, then the series imported with
#                        git quiltimport, one commit per patch
#   build/outgoing/      git format-patch --cover-letter --base -v N:
#                        v<N>-0000-cover-letter.patch, v<N>-00NN-*.patch
#
# Every precondition (git identity, VERSION, the template, the pristine
# tree, scripts/check-series.sh) is checked before anything is built.  The
# new repository and mails are made in build/export.tmp/ and replace
# build/export and build/outgoing only once the whole set is there: a
# failed export leaves the previous mails as they were (and its logs in
# build/export.tmp/).
#
# The commits are reproducible: the base commit has a fixed author and
# committer ("node-lru base", a label, not a person) and a fixed date, so
# the same rewound tree always gives the same base-commit hash; the
# imported commits keep the author of the patch's From: and get the same
# fixed dates and committer.  The sender of the mails (the cover letter's
# From:) is the git identity (user.name, user.email).
#
# The cover letter's text is scripts/cover-letter.txt, its first line the
# subject.  Markers: @BASE@ the BASE line; @BASE_TREE@ the base commit's
# tree hash; @NODELRU@ this repository's commit (git describe --dirty);
# @BENCH@ a headline table of make bench and @BENCH_REPORT@ which report it
# is: build/bench/latest/headline.md if there is one, else the newest
# committed results/*-full/ report (else the newest committed report),
# else a line saying there is none; @ABI@ the table of the /proc/vmstat
# and /proc/zoneinfo names whose place changes across the series,
# scripts/abi-table.sh over the two ends' files as committed in
# results/abi/ (abi_table_committed), and @ABI_SOURCE@ the kernels they
# came from (the "Captured:" line of results/abi/README.md), else lines
# saying there is none yet.  To and Cc come from the tree's
# scripts/get_maintainer.pl over the whole series.
# Environment: VERSION (the -v number, default 3: the posting with
# stretch 2 in front; raise it with each posting).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

version=${VERSION:-3}
template=$TOP/scripts/cover-letter.txt
exp=$BUILD/export
out=$BUILD/outgoing
tmp=$BUILD/export.tmp

# The label the base commit and the committer of every commit carry, and
# the one date of all of them.
fixed_ident=(
	GIT_AUTHOR_NAME="node-lru base" GIT_AUTHOR_EMAIL="base@node-lru.invalid"
	GIT_COMMITTER_NAME="node-lru base" GIT_COMMITTER_EMAIL="base@node-lru.invalid"
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
)

# --- Preconditions: nothing is removed or built before all of them hold.
[[ $version =~ ^[1-9][0-9]*$ ]] || die "VERSION must be a positive number, not '$version'"
name=$(git -C "$TOP" config user.name || true)
[ -n "$name" ] ||
	die "git user.name is not set: the mails are sent from it" \
		"git config --global user.name 'Your Name'"
email=$(git -C "$TOP" config user.email || true)
[ -n "$email" ] ||
	die "git user.email is not set: the mails are sent from it" \
		"git config --global user.email you@example.org"
for t in git perl patch; do
	command -v "$t" >/dev/null || die "$t is not installed (make deps)"
done
[ -f "$template" ] || die "no cover letter template at $template"
[ -n "$(head -n 1 "$template")" ] || die "$template: the first line (the subject) is empty"
unknown=$(grep -o '@[A-Z_]*@' "$template" | grep -vx '@\(BASE\|BASE_TREE\|NODELRU\|BENCH\|BENCH_REPORT\|ABI\|ABI_SOURCE\)@' | sort -u || true)
[ -z "$unknown" ] || die "$template: unknown markers:" "$unknown"
[ "$(series_count)" -gt 0 ] || die "the series is empty: nothing to export"
"$TOP/scripts/pristine.sh"
"$TOP/scripts/check-series.sh"

# The figures, chosen before anything is built.
#   report_commit INFO_TEXT: the "commit:" line of a report's meta/info.
report_commit() { sed -n 's/^commit: *//p' <<<"$1" | head -n 1; }
latest=$BUILD/bench/latest
if [ -f "$latest/headline.md" ]; then
	figures=$(cat "$latest/headline.md")
	stamp=$(basename "$(readlink -f "$latest")")
	c=$(report_commit "$(cat "$latest/meta/info" 2>/dev/null || true)")
	bench_report="make bench report $stamp (not committed to results/ yet) of the node-lru repository, measured at ${c:+its commit }${c:-an unrecorded commit}"
else
	# Committed reports only: those in HEAD, read as committed.
	mapfile -t reports < <(git -C "$TOP" ls-tree -d --name-only HEAD results/ |
		sed 's|^results/||' | sort | while read -r d; do
			if git -C "$TOP" cat-file -e "HEAD:results/$d/headline.md" 2>/dev/null; then echo "$d"; fi
		done)
	pick=
	for d in "${reports[@]}"; do
		case $d in *-full) pick=$d ;; esac
	done
	if [ -z "$pick" ] && [ "${#reports[@]}" -gt 0 ]; then
		pick=${reports[${#reports[@]} - 1]}
	fi
	if [ -n "$pick" ]; then
		figures=$(git -C "$TOP" show "HEAD:results/$pick/headline.md")
		c=$(report_commit "$(git -C "$TOP" show "HEAD:results/$pick/meta/info" 2>/dev/null || true)")
		if [ -n "$c" ]; then
			bench_report="make bench report results/$pick of the node-lru repository, measured at its commit $c"
		else
			c=$(git -C "$TOP" log -1 --format=%h -- "results/$pick")
			bench_report="make bench report results/$pick of the node-lru repository, committed at $c (the report does not record the commit it was measured at)"
		fi
	else
		figures="(none yet: make export adds the figures once there is a report)"
		bench_report="make bench report"
	fi
fi
nodelru=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)
# The /proc ABI table, made from the committed captures, never written
# by hand (results/abi/table.txt is the same table, for reading there).
abi_rc=0
abi=$(abi_table_committed HEAD) || abi_rc=$?
case $abi_rc in
0)
	abi_source=$(git -C "$TOP" show HEAD:results/abi/README.md 2>/dev/null |
		sed -n 's/^Captured: *//p' | head -n 1)
	[ -n "$abi_source" ] || abi_source="kernels results/abi/README.md does not name"
	;;
2)
	abi=$(printf '%s\n%s' "(none yet: make export adds the table once results/abi/ holds the" \
		"two ends' /proc files, which scripts/abi-collect.sh puts there)")
	abi_source="not captured yet"
	;;
*) die "scripts/abi-table.sh failed on the /proc files committed in results/abi/" ;;
esac

# --- Build everything in $tmp.  On failure only the logs stay there.
cleanup() {
	if [ -d "$tmp" ]; then
		# Interrupted while swapping: put the old set back.
		if [ -e "$tmp/old/export" ] && [ ! -e "$exp" ]; then mv "$tmp/old/export" "$exp"; fi
		if [ -e "$tmp/old/outgoing" ] && [ ! -e "$out" ]; then mv "$tmp/old/outgoing" "$out"; fi
		chmod -R u+w "$tmp" 2>/dev/null || true
		rm -rf "$tmp/export/linux" "$tmp/outgoing" "$tmp/old"
		printf 'export: failed; build/outgoing and build/export are unchanged, logs in %s\n' "$tmp" >&2
	fi
}
if [ -e "$tmp" ]; then
	chmod -R u+w "$tmp"
	rm -rf "$tmp"
fi
trap cleanup EXIT
texp=$tmp/export
repo=$texp/linux
tout=$tmp/outgoing

stage "export: base (rewound tree) and the series as commits, in $tmp"
mkdir -p "$texp"
t0=$(date +%s)
# Each phase says when it is done, counted from here (the whole export
# takes a minute or two, most of it copying and hashing 80000 files).
done_msg() { msg "$1" "$2 (at $(($(date +%s) - t0)) s)"; }
cp -a "$PRISTINE" "$repo"
chmod -R u+w "$repo"
done_msg copy "the pristine tree copied"
rewind_series "$repo" "$texp/rewind.log"
git -C "$repo" init -q
# No "git gc --auto" in the background: it would still be packing the
# 80000 loose objects (on CPUs a kernel build may need) when the
# repository is moved into place or replaced by the next export.
git -C "$repo" config gc.auto 0
git -C "$repo" add -A -f .
env "${fixed_ident[@]}" git -C "$repo" commit -q \
	-m "base: $(cat "$TOP/BASE"), rewound by the node-lru series" \
	-m "Every patch of the series reverse-applied, last first, fuzz 0."
base=$(git -C "$repo" rev-parse HEAD)
base_tree=$(git -C "$repo" rev-parse "HEAD^{tree}")
done_msg base "base commit $base ($(git -C "$repo" ls-files | wc -l) files)"
(cd "$repo" && env "${fixed_ident[@]}" \
	git quiltimport --patches "$PATCHES" --series "$SERIES" >"$texp/quiltimport.log" 2>&1) ||
	die "git quiltimport failed" "log: $texp/quiltimport.log"
n=$(git -C "$repo" rev-list --count "$base..HEAD")
[ "$n" -eq "$(series_count)" ] || die "quiltimport made $n commits for $(series_count) patches" "log: $texp/quiltimport.log"
git -C "$repo" diff --quiet "$base" HEAD -- . 2>/dev/null && die "the series changed nothing"

# git quiltimport takes the author date from the patch's Date: header, and
# the patches have none (it would be the time of the import): make each
# commit again with the same tree, parent, author and message and the
# fixed dates, so that the same series always gives the same commits.
head=$base
while read -r c; do
	an=$(git -C "$repo" log -1 --format=%an "$c")
	ae=$(git -C "$repo" log -1 --format=%ae "$c")
	head=$(git -C "$repo" cat-file commit "$c" | sed '1,/^$/d' |
		env "${fixed_ident[@]}" GIT_AUTHOR_NAME="$an" GIT_AUTHOR_EMAIL="$ae" \
			git -C "$repo" commit-tree "$c^{tree}" -p "$head")
done < <(git -C "$repo" rev-list --reverse "$base..HEAD")
[ "$(git -C "$repo" rev-parse "$head^{tree}")" = "$(git -C "$repo" rev-parse "HEAD^{tree}")" ] ||
	die "re-dating the imported commits changed the tree"
git -C "$repo" update-ref -m "export: fixed dates" HEAD "$head"
# The notes for reviewers below each patch's "---" line are no part of
# the commit message: carry them as git notes, which format-patch --notes
# puts below the "---" line of the mail again.
mapfile -t names < <(series_patches)
i=0
while read -r c; do
	notes=$(patch_notes "$PATCHES/${names[i]}")
	if [ -n "$notes" ]; then
		printf '%s\n' "$notes" | env "${fixed_ident[@]}" git -C "$repo" notes add -f -F - "$c"
	fi
	i=$((i + 1))
done < <(git -C "$repo" rev-list --reverse "$base..HEAD")
done_msg import "$n commits on $base (tree $base_tree)"

# Who to send it to: the memory management maintainer and list (the
# entries for mm/vmscan.c); everyone else get_maintainer.pl names for the
# series goes to Cc.
git -C "$repo" format-patch -q --stdout "$base..HEAD" >"$texp/all.mbox"
gm() { (cd "$repo" && perl scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback "$@" 2>/dev/null); }
mapfile -t to < <(gm -f mm/vmscan.c --m --nor --l)
mapfile -t all_cc < <(gm --m --r --l "$texp/all.mbox")
args=()
for a in "${to[@]}"; do args+=(--to="$a"); done
for a in "${all_cc[@]}"; do
	case " ${to[*]} " in *" $a "*) continue ;; esac
	args+=(--cc="$a")
done

git -C "$repo" -c user.name="$name" -c user.email="$email" format-patch -q \
	--notes --cover-letter --thread=shallow --base="$base" -v "$version" \
	"${args[@]}" -o "$tout" "$base..HEAD"

# The cover letter: subject and text from scripts/cover-letter.txt, the
# markers filled in by perl (bash's ${x//a/b} would expand & in b).  A
# paragraph with a marker in its text is wrapped again at 72 columns; the
# ones with @BENCH@ or @ABI@ (the tables) are left as they are.
cover=$tout/v$version-0000-cover-letter.patch
[ -f "$cover" ] || die "git format-patch wrote no $cover"
subject=$(head -n 1 "$template")
# shellcheck disable=SC2016 # perl code, not shell
fill='
	local $/;
	my @parts = split /(\n[ \t]*\n)/, <STDIN>;
	for my $p (@parts) {
		next if $p =~ /^\s*$/;
		my $wrap = $p =~ /@(BASE|BASE_TREE|NODELRU|BENCH_REPORT|ABI_SOURCE)@/ && $p !~ /\@(BENCH|ABI)\@/;
		$p =~ s/@(BASE|BASE_TREE|NODELRU|BENCH|BENCH_REPORT|ABI|ABI_SOURCE)@/$ENV{"M_$1"}/g;
		next unless $wrap;
		my ($line, @out) = ("");
		for my $w (split " ", $p) {
			if ($line ne "" && length($line) + 1 + length($w) > 72) { push @out, $line; $line = $w }
			else { $line = $line eq "" ? $w : "$line $w" }
		}
		$p = join("\n", @out, $line) . ($p =~ /\n\z/ ? "\n" : "");
	}
	print @parts;'
body=$(tail -n +2 "$template" | sed '/./,$!d' |
	M_BASE=$(cat "$TOP/BASE") M_BASE_TREE=$base_tree M_NODELRU=$nodelru \
		M_BENCH=$figures M_BENCH_REPORT=$bench_report \
		M_ABI=$abi M_ABI_SOURCE=$abi_source perl -e "$fill")
SUBJECT=$subject BODY=$body perl -0pi -e \
	's/\*\*\* SUBJECT HERE \*\*\*/$ENV{SUBJECT}/; s/\*\*\* BLURB HERE \*\*\*/$ENV{BODY}/' "$cover"
if grep -q 'SUBJECT HERE\|BLURB HERE' "$cover"; then
	die "the cover letter template was not filled in: $cover"
fi
grep -qx "base-commit: $base" "$cover" || die "the cover letter does not name the base commit $base: $cover"
[ "$(find "$tout" -name '*.patch' | wc -l)" -eq $((n + 1)) ] ||
	die "$tout holds $(find "$tout" -name '*.patch' | wc -l) mails, not the cover letter and $n patches"

# --- The new set is complete: it replaces the old one.
old=$tmp/old
mkdir -p "$old"
if [ -e "$exp" ]; then mv "$exp" "$old/export"; fi
if [ -e "$out" ]; then mv "$out" "$old/outgoing"; fi
mv "$texp" "$exp"
mv "$tout" "$out"
trap - EXIT
chmod -R u+w "$tmp" 2>/dev/null || true
rm -rf "$tmp"
msg outgoing "$out: $((n + 1)) mails (cover letter and $n patches), To: ${to[*]:-none}"
msg base "base-commit $base, tree $base_tree"
msg figures "$bench_report"
msg abi "/proc ABI table from results/abi/: $abi_source"
