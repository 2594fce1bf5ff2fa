#!/usr/bin/env bash
# Static checks of the repository: shellcheck on every shell script (host
# scripts, guest init and runner, guest and host tests, .ci/run) and the
# series/patches consistency.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$TOP"
mapfile -t files < <(ls scripts/*.sh scripts/lib/*.sh tests/*.sh tests/lib/*.sh tests/host/*.sh .ci/run 2>/dev/null)
shellcheck -x "${files[@]}"
shellcheck -s sh initramfs/init initramfs/runner
msg shellcheck "$((${#files[@]} + 2)) scripts clean"
"$TOP/scripts/check-series.sh"
# Kernel coding style for the C under tests/: the modules as kernel code;
# the guest programs are userspace, where the kernel's attribute macros
# and ARRAY_SIZE do not exist, a volatile sink is how a test forces its
# reads (and a path such as "/proc/vmstat" in
# vmstat() is not an embedded function name).
mapfile -t user < <(ls tests/*.c tests/tools/*.c tests/lib/*.h 2>/dev/null)
mapfile -t mods < <(ls tests/modules/*.c 2>/dev/null)
"$PRISTINE/scripts/checkpatch.pl" --no-tree --quiet --ignore \
	PREFER_DEFINED_ATTRIBUTE_MACRO,ARRAY_SIZE,EMBEDDED_FUNCTION_NAME,VOLATILE -f "${user[@]}" ||
	die "checkpatch: the guest programs above are not in kernel style"
if [ ${#mods[@]} -gt 0 ]; then
	"$PRISTINE/scripts/checkpatch.pl" --no-tree --quiet -f "${mods[@]}" ||
		die "checkpatch: the test modules above are not in kernel style"
fi
msg style "$((${#user[@]} + ${#mods[@]})) C files under tests/ in kernel style"
