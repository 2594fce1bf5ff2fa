#!/bin/sh
# nodelru: sets=selftest timeout=60 topo=all order=2
#
# Harness self-test: crash the kernel through sysrq.  Only run by
# scripts/harness-selftest.sh, which expects the host to report PANIC.
echo c >/proc/sysrq-trigger
sleep 30
echo "FAIL: the kernel survived sysrq-c"
exit 1
