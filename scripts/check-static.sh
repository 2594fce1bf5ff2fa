#!/usr/bin/env bash
# Static checks of the repository: shellcheck on every shell script (host
# scripts, guest init and runner, guest and host tests, .ci/run) and the
# series/patches consistency.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$TOP"
mapfile -t files < <(ls scripts/*.sh tests/*.sh tests/host/*.sh .ci/run 2>/dev/null)
shellcheck -x "${files[@]}"
shellcheck -s sh initramfs/init initramfs/runner
msg shellcheck "$((${#files[@]} + 2)) scripts clean"
"$TOP/scripts/check-series.sh"
