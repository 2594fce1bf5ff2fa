#!/usr/bin/env bash
# make export: the series as a mail series for linux-mm.
#
#   build/export/linux   git repository: the rewound tree as the base
#                        commit, then the series imported with
#                        git quiltimport, one commit per patch
#   build/outgoing/      git format-patch --cover-letter --base -v N:
#                        v<N>-0000-cover-letter.patch, v<N>-00NN-*.patch
#
# The cover letter's text is scripts/cover-letter.txt; @BASE@ becomes the
# BASE line and @BENCH@ the headline table of the latest make bench report
# (build/bench/latest/headline.md), or a line saying there is none.
# To and Cc come from the tree's scripts/get_maintainer.pl over the whole
# series.  Environment: VERSION (the -v number, default 1).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

version=${VERSION:-1}
exp=$BUILD/export
repo=$exp/linux
out=$BUILD/outgoing
"$TOP/scripts/check-series.sh"
"$TOP/scripts/pristine.sh"

stage "export: base (rewound tree) and the series as commits in $repo"
rm -rf "$exp" "$out"
mkdir -p "$exp"
cp -a "$PRISTINE" "$repo"
chmod -R u+w "$repo"
rewind_series "$repo" "$exp/rewind.log"
name=$(git config user.name) || die "git user.name is not set"
email=$(git config user.email) || die "git user.email is not set"
git -C "$repo" init -q
git -C "$repo" add -A -f .
git -C "$repo" -c user.name="$name" -c user.email="$email" commit -q \
	-m "base: $(cat "$TOP/BASE"), rewound by the node-lru series" \
	-m "Every patch of the series reverse-applied, last first, fuzz 0."
base=$(git -C "$repo" rev-parse HEAD)
(cd "$repo" && git -c user.name="$name" -c user.email="$email" \
	quiltimport --patches "$PATCHES" --series "$SERIES" >"$exp/quiltimport.log" 2>&1) ||
	die "git quiltimport failed" "log: $exp/quiltimport.log"
n=$(git -C "$repo" rev-list --count "$base..HEAD")
[ "$n" -eq "$(series_count)" ] || die "quiltimport made $n commits for $(series_count) patches" "log: $exp/quiltimport.log"
git -C "$repo" diff --quiet "$base" HEAD -- . 2>/dev/null && die "the series changed nothing"
msg import "$n commits on $base"

# Who to send it to: the memory management maintainer and list (the
# entries for mm/vmscan.c); everyone else get_maintainer.pl names for the
# series goes to Cc.
git -C "$repo" format-patch -q --stdout "$base..HEAD" >"$exp/all.mbox"
gm() { (cd "$repo" && perl scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback "$@" 2>/dev/null); }
mapfile -t to < <(gm -f mm/vmscan.c --m --nor --l)
mapfile -t all_cc < <(gm --m --r --l "$exp/all.mbox")
args=()
for a in "${to[@]}"; do args+=(--to="$a"); done
for a in "${all_cc[@]}"; do
	case " ${to[*]} " in *" $a "*) continue ;; esac
	args+=(--cc="$a")
done

git -C "$repo" format-patch -q --cover-letter --thread=shallow --base="$base" -v "$version" \
	"${args[@]}" -o "$out" "$base..HEAD"

# The cover letter: subject and text from scripts/cover-letter.txt.
cover=$(ls "$out"/v"$version"-0000-cover-letter.patch)
bench=$BUILD/bench/latest/headline.md
if [ -f "$bench" ]; then
	figures=$(cat "$bench")
else
	figures="(no make bench report yet: the figures are added by make export once one exists)"
fi
subject=$(head -n 1 "$TOP/scripts/cover-letter.txt")
body=$(tail -n +2 "$TOP/scripts/cover-letter.txt" | sed '/./,$!d')
body=${body//@BASE@/$(cat "$TOP/BASE")}
body=${body//@BENCH@/$figures}
SUBJECT=$subject BODY=$body perl -0pi -e \
	's/\*\*\* SUBJECT HERE \*\*\*/$ENV{SUBJECT}/; s/\*\*\* BLURB HERE \*\*\*/$ENV{BODY}/' "$cover"
grep -q 'SUBJECT HERE\|BLURB HERE' "$cover" && die "the cover letter template was not filled in: $cover"
msg outgoing "$out: $(find "$out" -name '*.patch' | wc -l) mails (cover letter and $n patches), To: ${to[*]:-none}"
