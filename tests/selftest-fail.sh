#!/bin/sh
# nodelru: sets=selftest timeout=30 topo=all order=1
#
# Harness self-test: a guest test that fails.  Only run by
# scripts/harness-selftest.sh, which expects the host to report it FAIL.
echo "FAIL: expected 1, saw 2 (deliberate)"
exit 1
