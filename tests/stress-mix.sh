#!/bin/sh
# shellcheck shell=sh
# nodelru: sets=full timeout=300 topo=all order=45
#
# Debian's stress-ng (from the tools disk) as a second, independent load
# generator: two vm workers that keep their memory and verify every pass
# (--vm-keep --vm-populate --verify --vm-method zero-one: fill with zeroes
# and check, fill with ones and check), an mmap worker on a file of the
# scratch disk with msync, and an hdd worker writing and verifying files
# there, for 150 s.  mlock-hog first holds all but 1 GiB of MemFree
# (mlocked huge pages, never swapped), and the vm workers share 3/4 of
# what is then free, so that with the other workers' page cache reclaim
# runs all the time.  They are not made to swap: under TCG swap I/O is
# too slow for a worker whose buffer is in swap to finish a pass in
# minutes (seen at step 0: with 5/4 of MemTotal, MemTotal, or 5/4 of a
# 1 GiB remainder between them, 1.3 to 2.9 GB swapped out and not one
# pass done, so --verify checked nothing).  Data that went through swap is
# verified by anon-swap, churn, stutter and pressure-smoke; swap-outs here
# are printed.  stress-ng divides --vm-bytes among the vm workers (its
# stress-vm.c: vm_bytes /= num_instances, whatever the manual says).
# stress-ng checks its own data; this test checks its verdict and that
# reclaim really ran.
# Pass: stress-ng exits 0 and reports a successful run with no failed or
# untrustworthy stressor, every stressor did at least one bogo op (for the
# vm workers one op is one zero-one pass over the whole buffer, checked
# with --verify: with 0 ops nothing was verified), and reclaim ran during
# the run (pgscan_kswapd + pgscan_direct moved).
# The runner checks the books after the test (tests/lib/books.sh).
# Fault: INJECT=stress-fail adds a stressor option stress-ng rejects, so
# the exit status check must fail (stress-ng's own verification of data
# cannot be faulted from outside; it is the tool's job).
# shellcheck disable=SC3040 # busybox ash has pipefail
set -eu -o pipefail
# shellcheck source=tests/lib/guest.sh
. /lib/nodelru/guest.sh

command -v stress-ng >/dev/null || fail "expected stress-ng on the tools disk (/opt/tools/bin), it is missing"
grep -q ' /mnt/scratch ' /proc/mounts || fail "expected the scratch disk on /mnt/scratch, it is not mounted"
trap hog_release EXIT
hog_hold 1024
echo "mlock-hog: $hog_said"
free_kb=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
vm_kb=$((free_kb * 3 / 4))
extra=
if inject stress-fail; then
	extra="--vm-method no-such-method"
fi
echo "stress-ng: 2 vm workers sharing ${vm_kb} KiB (3/4 of MemFree, ${free_kb} KiB), mmap + hdd on /mnt/scratch, 150 s"
out=/mnt/scratch/stress-mix.log
pswp0=$(vm pswpout)
scan0=$(vm_sum pgscan_kswapd pgscan_direct)
rc=0
# shellcheck disable=SC2086 # $extra is empty or two words
(cd /mnt/scratch && stress-ng --vm 2 --vm-bytes "${vm_kb}K" --vm-keep --vm-populate --verify --vm-method zero-one \
	--mmap 1 --mmap-bytes 64M --mmap-file --hdd 1 --hdd-bytes 128M \
	--timeout 150s --metrics-brief --temp-path /mnt/scratch $extra) >"$out" 2>&1 || rc=$?
sed 's/^stress-ng: //' "$out" | tail -n 20
# stress-ng 0.15 (Debian 12) ends a good run with "successful run
# completed"; a failed or untrustworthy stressor is reported on a line of
# its own (newer versions also print "failed: N" and "untrustworthy: N").
done_ok=0
grep -q 'successful run completed' "$out" && done_ok=1
bad=$(grep -Ei 'fail|untrustworthy' "$out" | grep -Ev '(failed|untrustworthy): 0( |$)' || true)
# bogo ops of a stressor from --metrics-brief ("metrc: [PID] NAME OPS ..."),
# empty when the line is missing.
ops() {
	awk -v s="$1" '{ for (i = 1; i + 2 <= NF; i++)
		if ($i ~ /^\[[0-9]+\]$/ && $(i + 1) == s && $(i + 2) ~ /^[0-9]+$/) { print $(i + 2); exit } }' "$out"
}
ops_vm=$(ops vm) ops_mmap=$(ops mmap) ops_hdd=$(ops hdd)
rm -f "$out"
pswp1=$(vm pswpout)
pswp=$((pswp1 - pswp0))
scan=$(($(vm_sum pgscan_kswapd pgscan_direct) - scan0))
[ "$rc" -eq 0 ] || fail "expected stress-ng to exit 0, it exited $rc"
[ "$done_ok" = 1 ] || fail "expected stress-ng to report 'successful run completed', it did not (output above)"
[ -z "$bad" ] || fail "expected no failed or untrustworthy stressor, stress-ng said: $bad"
echo "bogo ops: vm ${ops_vm:-none} mmap ${ops_mmap:-none} hdd ${ops_hdd:-none}; pgscan +$scan, pswpout +$pswp"
for st in vm mmap hdd; do
	eval "n=\${ops_$st:-}"
	[ -n "$n" ] || fail "expected a --metrics-brief line for the $st stressor, saw none (output above)"
	[ "$n" -gt 0 ] || fail "expected the $st stressor to complete at least one bogo op (for vm: one verified pass), saw $n"
done
[ "$scan" -gt 0 ] || fail "expected reclaim during the run (pgscan_kswapd + pgscan_direct > 0), saw +$scan"
