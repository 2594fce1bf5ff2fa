#!/usr/bin/env python3
"""The LRU lock classes of lockstat runs side by side (tests/bench-lockstat.sh).

    scripts/lockstat-table.py RUN...

Each RUN is a run directory (build/runs/KERNEL-TOPO, its results.ktap is
read) or a KTAP file.  Prints a markdown table: per run, the kernel, the
memory cgroups the workers ran in, and for every lru_lock class its
contentions, wait time, acquisitions and hold time (the lock_stat totals
of the 60 s workload), then the contentions per million acquisitions.
Exit 1 when a run has no lru_lock figures.
"""
import os
import re
import sys

FIG = re.compile(r"bench: lockstat (\S*lru_lock)_(contentions|waittime_total_us|"
                 r"acquisitions|holdtime_total_us) (\S+)")


def read(path):
    if os.path.isdir(path):
        path = os.path.join(path, "results.ktap")
    kernel, memcgs, figs = path, "?", {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"kernel (\S+) topology", line)
            if m and kernel == path:
                kernel = m.group(1)
            m = re.search(r"lockstat: workers in (\d+) memory cgroup", line)
            if m:
                memcgs = m.group(1)
            m = FIG.search(line)
            if m:
                figs.setdefault(m.group(1), {})[m.group(2)] = float(m.group(3))
    return kernel, memcgs, figs


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("| kernel | memcgs | lock class | contentions | wait time (us) | "
          "acquisitions | hold time (us) | contentions per 10^6 acquisitions |")
    print("|---|---|---|---|---|---|---|---|")
    bad = 0
    for path in sys.argv[1:]:
        kernel, memcgs, figs = read(path)
        if not figs:
            print("| %s | %s | none | - | - | - | - | - |" % (kernel, memcgs))
            bad = 1
        for cls, v in sorted(figs.items()):
            acq = v.get("acquisitions", 0)
            print("| %s | %s | `%s` | %.0f | %.0f | %.0f | %.0f | %s |" % (
                kernel, memcgs, cls, v.get("contentions", 0),
                v.get("waittime_total_us", 0), acq,
                v.get("holdtime_total_us", 0),
                "%.1f" % (1e6 * v.get("contentions", 0) / acq) if acq else "-"))
    return bad


if __name__ == "__main__":
    sys.exit(main())
