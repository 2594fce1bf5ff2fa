#!/usr/bin/env bash
# Build the guest initramfs: build/initramfs/initramfs.cpio.gz
#
# Contents: Debian's static busybox, initramfs/init and runner, every test
# under tests/ (shell tests copied, C tests linked statically) and
# /tests/index, made from the "nodelru:" line in each test's header (read
# by test_header, scripts/lib/tests.sh, as test_index reads it too):
#   nodelru: sets=smoke,full timeout=SECONDS topo=all|uma,numa,... [oom=expected] [order=N] [disk=slow]
# (index columns: name sets timeout topo oom disk; disk=slow makes
# scripts/qemu-run.sh attach a write-throttled disk, see there).
# The archive is reproducible: gen_init_cpio (from the pristine tree) with
# fixed timestamps, entries sorted, gzip -n.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

out=$BUILD/initramfs
stagedir=$out/stage
tools=$BUILD/tools
busybox=${BUSYBOX:-/bin/busybox}

"$TOP/scripts/pristine.sh"
file "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	die "$busybox is not a static binary" "install busybox-static (make deps)"

mkdir -p "$tools"
if [ ! -x "$tools/gen_init_cpio" ] ||
	[ "$PRISTINE/usr/gen_init_cpio.c" -nt "$tools/gen_init_cpio" ]; then
	gcc -O2 -o "$tools/gen_init_cpio" "$PRISTINE/usr/gen_init_cpio.c"
fi

remove_tree "$stagedir"
mkdir -p "$stagedir/tests"
: >"$stagedir/tests/index"
for t in "$TOP"/tests/*.sh "$TOP"/tests/*.c; do
	[ -e "$t" ] || continue
	base=$(basename "$t")
	name=${base%.*}
	test_header "$t" ||
		die "$t has no 'nodelru: sets=... timeout=... topo=...' header line"
	meta=$TEST_META sets=$TEST_SETS timeout=$TEST_TIMEOUT topo=$TEST_TOPO
	oom=$TEST_OOM disk=$TEST_DISK order=$TEST_ORDER
	if [ -z "$sets" ] || [ -z "$timeout" ] || [ -z "$topo" ]; then
		die "$t: header line '$meta' lacks sets=, timeout= or topo="
	fi
	case ${disk:-} in
	'' | slow) ;;
	*) die "$t: header line '$meta': disk=$disk (the only disk a test may ask for is disk=slow)" ;;
	esac
	case $t in
	*.sh) install -m 0755 "$t" "$stagedir/tests/$name" ;;
	*.c)
		if ! gcc -static -O2 -Wall -Wextra -Werror -I"$TOP/tests" \
			-o "$stagedir/tests/$name" "$t" 2>"$out/$name.log"; then
			cat "$out/$name.log" >&2
			die "test $t does not compile" "log: $out/$name.log"
		fi
		;;
	esac
	printf '%03d %s %s %s %s %s %s\n' "${order:-50}" "$name" "$sets" "$timeout" \
		"$topo" "${oom:-no}" "${disk:--}" >>"$stagedir/tests/index.tmp"
done
[ -s "$stagedir/tests/index.tmp" ] || die "no tests found under $TOP/tests"
# Helpers the tests call (tests/tools/*.c), installed in /usr/bin.
mkdir -p "$stagedir/tools"
for t in "$TOP"/tests/tools/*.c; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .c)
	if ! gcc -static -O2 -Wall -Wextra -Werror -I"$TOP/tests" \
		-o "$stagedir/tools/$name" "$t" 2>"$out/tool-$name.log"; then
		cat "$out/tool-$name.log" >&2
		die "helper $t does not compile" "log: $out/tool-$name.log"
	fi
done
# Run order: order= (default 50), then name.
sort "$stagedir/tests/index.tmp" | cut -d' ' -f2- >"$stagedir/tests/index"
rm "$stagedir/tests/index.tmp"

install -m 0755 "$TOP/initramfs/init" "$TOP/initramfs/runner" "$stagedir/"
# root in /etc/passwd and /etc/group: tools look their user up by name
# (bonnie++ -u root).
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stagedir/passwd"
printf 'root:x:0:\n' >"$stagedir/group"
install -m 0644 "$TOP/initramfs/select.awk" "$stagedir/"
# The series, one patch per line in order, so that a test can tell which
# patches a step's kernel has (applied in tests/lib/guest.sh).
series_patches >"$stagedir/series"
# Shell helpers the tests source from /lib/nodelru (tests/lib/*.sh).
mkdir -p "$stagedir/lib"
for f in "$TOP"/tests/lib/*.sh; do
	[ -e "$f" ] || continue
	install -m 0644 "$f" "$stagedir/lib/"
done
cp "$busybox" "$stagedir/busybox"
# gen_init_cpio takes regular files' mtimes from the files themselves.
find "$stagedir" -exec touch -h -d @0 {} +

list=$out/cpio.list
{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /dev /proc /sys /tmp /mnt \
		/mnt/scratch /root /etc /lib /lib/nodelru /tests; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox $stagedir/busybox 0755 0 0"
	echo "slink /bin/sh /bin/busybox 0777 0 0"
	echo "file /init $stagedir/init 0755 0 0"
	echo "file /etc/passwd $stagedir/passwd 0644 0 0"
	echo "file /etc/group $stagedir/group 0644 0 0"
	echo "file /lib/nodelru/runner $stagedir/runner 0755 0 0"
	echo "file /lib/nodelru/select.awk $stagedir/select.awk 0644 0 0"
	echo "file /lib/nodelru/series $stagedir/series 0644 0 0"
	echo "file /tests/index $stagedir/tests/index 0644 0 0"
	find "$stagedir/tests" -type f ! -name index | sort | while read -r f; do
		echo "file /tests/$(basename "$f") $f 0755 0 0"
	done
	find "$stagedir/lib" -type f | sort | while read -r f; do
		echo "file /lib/nodelru/$(basename "$f") $f 0644 0 0"
	done
	find "$stagedir/tools" -type f | sort | while read -r f; do
		echo "file /usr/bin/$(basename "$f") $f 0755 0 0"
	done
} >"$list"
"$tools/gen_init_cpio" -t 0 "$list" | gzip -n -9 >"$out/initramfs.cpio.gz.tmp"
mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
msg initrd "$out/initramfs.cpio.gz ($(wc -l <"$stagedir/tests/index") tests, $(du -k "$out/initramfs.cpio.gz" | cut -f1) KiB)"
