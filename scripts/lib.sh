# shellcheck shell=bash
# Common definitions for the node-lru scripts, the one file they source.
# Sourced, never executed.  It sets the common variables, then sources
# the functions from scripts/lib/, one job a file (at its end).
#
# Layout of build/ (all generated, ignored by git):
#   build/pristine/linux/      read-only extraction of the Debian tarball
#   build/k/<name>/src         work tree of one kernel (a copy of pristine, patched)
#   build/k/<name>/obj         its O= build directory
#   build/initramfs/           the guest image parts
#   build/runs/<id>/           one QEMU run: console log, results, command

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
PRISTINE_DIR=$BUILD/pristine
export PRISTINE=$PRISTINE_DIR/linux
# BASE: "PACKAGE VERSION", the Debian source package the series ends at.
BASE_PKG=linux-source-6.1
BASE_VERSION=
read -r BASE_PKG BASE_VERSION _ 2>/dev/null <"$TOP/BASE" || true
SRC_TARBALL_DEFAULT=/usr/src/$BASE_PKG.tar.xz
SRC_TARBALL=${SRC_TARBALL:-$SRC_TARBALL_DEFAULT}
SERIES=${NODELRU_SERIES:-$TOP/series}
PATCHES=${NODELRU_PATCHES:-$TOP/patches}

export LC_ALL=C

# SCRATCH=path/to/x.patch: a throw-away patch applied on top of the step's
# tree (tests/broken/ holds deliberately broken kernels that tests must
# catch).  It gets its own kernel name, <step>-<flavor>-x-<x>, its own
# tree and O= directory; the series' kernels are never touched.
SCRATCH=${SCRATCH:-}
if [ -n "$SCRATCH" ]; then
	case $SCRATCH in /*) ;; *) SCRATCH=$TOP/$SCRATCH ;; esac
	[ -f "$SCRATCH" ] || {
		printf 'error: SCRATCH=%s: no such patch file\n' "$SCRATCH" >&2
		exit 1
	}
fi
export SCRATCH

# The functions, one job a file under scripts/lib/ (each file's first
# comment says which), sourced in this order.  They only define
# functions and the topology defaults (DEFAULT_MEM, DEFAULT_SMP,
# TOPOLOGIES): a function may call one of a later file.
# shellcheck source=scripts/lib/log.sh
. "$TOP/scripts/lib/log.sh"
# shellcheck source=scripts/lib/patches.sh
. "$TOP/scripts/lib/patches.sh"
# shellcheck source=scripts/lib/steps.sh
. "$TOP/scripts/lib/steps.sh"
# shellcheck source=scripts/lib/jobs.sh
. "$TOP/scripts/lib/jobs.sh"
# shellcheck source=scripts/lib/accel.sh
. "$TOP/scripts/lib/accel.sh"
# shellcheck source=scripts/lib/topology.sh
. "$TOP/scripts/lib/topology.sh"
# shellcheck source=scripts/lib/tests.sh
. "$TOP/scripts/lib/tests.sh"
# shellcheck source=scripts/lib/settings.sh
. "$TOP/scripts/lib/settings.sh"
# shellcheck source=scripts/lib/builddir.sh
. "$TOP/scripts/lib/builddir.sh"
# shellcheck source=scripts/lib/config.sh
. "$TOP/scripts/lib/config.sh"
# shellcheck source=scripts/lib/abi.sh
. "$TOP/scripts/lib/abi.sh"
