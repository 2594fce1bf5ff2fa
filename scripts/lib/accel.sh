# shellcheck shell=bash
# The QEMU accelerator: kvm where a kernel really boots under it, else tcg.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

# The QEMU accelerator: ACCEL=tcg or kvm as asked, or (auto, the default)
# kvm only where it really works: a kernel must boot far enough under it
# to print its banner.  (An accessible /dev/kvm is not enough: seen here,
# nested KVM that starts a VM whose guest never prints a line.)  The
# verdict is cached per host, QEMU and /dev/kvm.  Says what it chose.
#   pick_accel BZIMAGE
pick_accel() {
	local bz=$1 sig cache log
	case ${ACCEL:-auto} in
	tcg) echo tcg ;;
	kvm)
		[ -w /dev/kvm ] ||
			die "ACCEL=kvm but /dev/kvm is missing or not writable" "use ACCEL=tcg or ACCEL=auto"
		echo kvm
		;;
	auto)
		if ! [ -w /dev/kvm ]; then
			msg accel "tcg (no usable /dev/kvm)"
			echo tcg
			return
		fi
		sig=$( {
			uname -a
			qemu-system-x86_64 --version | head -n 1
			stat -c '%t:%T %Z' /dev/kvm
		} | sha256sum | cut -c1-16)
		cache=$BUILD/accel-probe.$sig
		if [ ! -f "$cache" ]; then
			log=$BUILD/accel-probe.log
			mkdir -p "$BUILD"
			timeout 30 qemu-system-x86_64 -accel kvm -M q35 -m 256 -nodefaults \
				-display none -no-reboot -serial "file:$log" -kernel "$bz" \
				-append "console=ttyS0 panic=-1" >/dev/null 2>&1 || true
			if grep -q 'Linux version' "$log" 2>/dev/null; then
				echo kvm >"$cache"
			else
				echo tcg >"$cache"
			fi
		fi
		if [ "$(cat "$cache")" = kvm ]; then
			msg accel "kvm (a kernel booted under it; probe cached in $cache)"
			echo kvm
		else
			msg accel "tcg (/dev/kvm is there but a kernel did not boot under it within 30 s; cached in $cache)"
			echo tcg
		fi
		;;
	*) die "ACCEL must be auto, tcg or kvm, not '$ACCEL'" ;;
	esac
}
