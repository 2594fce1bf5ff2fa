#!/usr/bin/env python3
"""Set two kernels' zone-steal rounds side by side (tests/zone-steal.sh).

    scripts/zone-steal-compare.py RUN-A RUN-B

RUN-A and RUN-B are run directories (build/runs/KERNEL-TOPO, their
results.ktap is read) or KTAP files.  For every zone, the share of the
freed pages in each round, the mean and standard deviation over the
rounds of each kernel, and the difference of the means against its
standard error, sqrt(sdA^2/nA + sdB^2/nB).  A zone's shares agree "within
noise" when the difference is at most twice that (about a 95 % interval
for normal errors; with three rounds a kernel this is a coarse test, and
says so).  Exit 0 when every zone agrees, 1 when one does not, 2 when a
run has no rounds.
"""
import math
import os
import re
import sys

ROUND = re.compile(r"zone-steal: round (\d+) (\S+) freed (-?\d+) share ([0-9.]+)")


def rounds(path):
    if os.path.isdir(path):
        path = os.path.join(path, "results.ktap")
    shares, kernel = {}, path
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"kernel (\S+) topology", line)
            if m and kernel == path:
                kernel = m.group(1)
            m = ROUND.search(line)
            if m and m.group(2) != "total":
                shares.setdefault(m.group(2), []).append(float(m.group(4)))
    return kernel, shares


def stats(v):
    n = len(v)
    mean = sum(v) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1)) if n > 1 else 0.0
    return n, mean, sd


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    (ka, a), (kb, b) = rounds(sys.argv[1]), rounds(sys.argv[2])
    if not a or not b:
        print("no zone-steal rounds in %s" % (sys.argv[1] if not a else sys.argv[2]))
        return 2
    print("| zone | %s | %s | difference | 2 x std. error | verdict |" % (ka, kb))
    print("|---|---|---|---|---|---|")
    bad = 0
    for z in sorted(set(a) | set(b)):
        na, ma, sa = stats(a.get(z, [0.0]))
        nb, mb, sb = stats(b.get(z, [0.0]))
        se = math.sqrt(sa * sa / na + sb * sb / nb)
        d = mb - ma
        ok = abs(d) <= 2 * se or abs(d) < 1e-4
        bad += not ok
        print("| %s | %.4f ± %.4f (%d) | %.4f ± %.4f (%d) | %+.4f | %.4f | %s |" % (
            z, ma, sa, na, mb, sb, nb, d, 2 * se,
            "within noise" if ok else "DIFFERS"))
    print("\nShares of the pages freed per zone while a sparse file of 3/2 RAM "
          "is read (mean ± sd over rounds); within noise: |difference| <= 2 "
          "standard errors (or below 0.0001).")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
