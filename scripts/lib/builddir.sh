# shellcheck shell=bash
# Files under BUILD: writable up front, and trees removed with one message
# when they cannot be (another user's files, a read-only file system).
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

# The scripts write under BUILD: when they cannot (a build/ made by
# another user, "sudo make ..." earlier; a read-only file system), say so
# once, up front, instead of a failure per file later.
check_build_dir() {
	local d=$BUILD unw='' me owner
	while [ ! -e "$d" ] && [ "$d" != / ]; do
		d=$(dirname "$d")
	done
	if [ "$d" = "$BUILD" ]; then
		unw=$(find "$BUILD" -maxdepth 2 -path "$PRISTINE" -prune -o \
			! -type l ! -writable -print -quit 2>/dev/null || true)
	elif [ ! -w "$d" ]; then
		unw=$d
	fi
	[ -n "$unw" ] || return 0
	me=$(id -un)
	owner=$(stat -c %U "$unw")
	if [ "$owner" = "$me" ]; then
		die "$unw is not writable ($(stat -c %A "$unw"); a read-only file system?), and the scripts write under $BUILD" \
			"make it writable, or build elsewhere: BUILD=/another/dir make ..."
	fi
	die "$unw belongs to $owner, not to you ($me), and the scripts write under $BUILD" \
		"(made by 'sudo make ...'?)  Give it back: sudo chown -R $me $BUILD; or build elsewhere: BUILD=/another/dir make ..."
}

# Remove a directory tree.  One that cannot be removed (another user's
# files, a read-only file system) is one message, not a line per file.
#   remove_tree DIR
remove_tree() {
	local d=$1 err
	[ -e "$d" ] || [ -L "$d" ] || return 0
	# Directories made read-only on purpose (the pristine tree) first;
	# only directories: rm needs no more (and a hard link's file mode is
	# its other names' too).
	find "$d" -type d ! -perm -u=w -exec chmod u+w {} + 2>/dev/null || true
	err=$(rm -rf -- "$d" 2>&1) && return 0
	die "could not remove $d: $(grep -c . <<<"$err") entries are left, the first: $(head -n 1 <<<"$err" | sed 's/^rm: //')" \
		"$d belongs to $(stat -c %U "$d" 2>/dev/null || echo '?'), you are $(id -un); if another user made it (sudo make ...): sudo rm -rf $d"
}
