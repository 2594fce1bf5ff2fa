#!/bin/sh
# nodelru: sets=selftest-hang timeout=100000 topo=all
#
# Harness self-test: a guest that never finishes (the in-guest timeout is
# longer than any host timeout).  Only run by scripts/harness-selftest.sh
# with a short QEMU_TIMEOUT; the host must report TIMEOUT.
while :; do
	sleep 60
done
