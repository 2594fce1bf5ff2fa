#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the make bench report from the raw guest results.

    scripts/bench-report.py BENCH-DIR

BENCH-DIR holds raw/{zone,node}-N.ktap (the bench set, iteration N),
raw/lockstat-{zone,node}.ktap and meta/ (see scripts/bench.sh).  Writes
data/*.tsv (every figure, every iteration), plots/*.png (gnuplot, when
installed), report.md and headline.md (the cover letter's table).

Every figure is computed from the raw files; nothing is typed in.  The
vmstat figures follow mmtests' MonitorMmtestsvmstat.pm (2016): deltas
over the workload, efficiency = 100 * reclaimed / scanned, velocity =
scanned / elapsed seconds.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys

ENDS = ("zone", "node")


def parse_ktap(path):
    """Yield the payload lines of a results.ktap file (test output is
    prefixed "# " by the runner)."""
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# "):
                yield line[2:]
            elif line.startswith("ok ") or line.startswith("not ok "):
                yield "ktap: " + line


class Data:
    def __init__(self):
        self.results = {}    # (workload, metric) -> end -> [values]
        self.vmstat = {}     # workload -> end -> [ {counter: delta} ]
        self.samples = {}    # (end, iter, workload) -> (header, rows)
        self.raw = {e: [] for e in ENDS}   # stutter latencies, pooled
        self.ktap = {}       # (end, iter) -> [(ok, name, detail)]
        self.bonnie = {}     # end -> [csv fields]
        # (end, iter, workload) -> {(scope, counter): (before, after)}
        self.counters = {}
        self.iters = {e: 0 for e in ENDS}
        self.seen = {e: set() for e in ENDS}   # what the guest reported

    def add(self, workload, metric, end, value):
        self.results.setdefault((workload, metric), {}).setdefault(
            end, []).append(value)


def load(bench):
    d = Data()
    raw = os.path.join(bench, "raw")
    for name in sorted(os.listdir(raw)):
        m = re.match(r"(zone|node)-(\d+)\.ktap$", name)
        lock = re.match(r"lockstat-(zone|node)\.ktap$", name)
        if not m and not lock:
            continue
        end = (m or lock).group(1)
        it = int(m.group(2)) if m else 0
        if m:
            d.iters[end] = max(d.iters[end], it)
        vm = {}
        for line in parse_ktap(os.path.join(raw, name)):
            if line.startswith("ktap: "):
                t = line[6:]
                ok = t.startswith("ok ")
                parts = t.split()
                d.ktap.setdefault((end, it if m else "lockstat"), []).append(
                    (ok and "# SKIP" not in t, parts[3 if not ok else 2], t))
                continue
            tag, _, rest = line.partition(": ")
            f = rest.split()
            g = re.match(r"kernel (\S+) topology (\S+) \((\d+) cpus, "
                         r"(\d+) nodes(?:, clocksource (\S+))?\)", rest) \
                if tag == "nodelru" else None
            if g:
                d.seen[end].add("%s on %s: %s CPUs, %s node(s)" % g.groups()[:4]
                                + (", clocksource %s" % g.group(5)
                                   if g.group(5) else ""))
                continue
            if tag == "bench" and len(f) >= 3:
                if f[0] == "bonnie" and f[1] == "csv":
                    d.bonnie.setdefault(end, []).append(
                        " ".join(f[2:]).split(","))
                    continue
                try:
                    d.add(f[0], f[1], end, float(f[2]))
                except ValueError:
                    pass
            elif tag == "bench-vmstat" and len(f) == 3:
                vm.setdefault(f[0], {})[f[1]] = int(f[2])
            elif tag == "bench-sample" and len(f) >= 3:
                key = (end, it, f[0])
                hdr, rows = d.samples.setdefault(key, ([], []))
                if f[1] == "header":
                    hdr[:] = f[2:]
                else:
                    rows.append([int(x) for x in f[1:]])
            elif tag == "bench-counter" and len(f) == 5:
                try:
                    d.counters.setdefault((end, it, f[0]), {})[(f[1], f[2])] = (
                        int(f[3]), int(f[4]))
                except ValueError:
                    pass
            elif tag == "bench-raw" and f and f[0] == "stutter":
                d.raw[end].extend(float(x) for x in f[1:])
        for w, c in vm.items():
            d.vmstat.setdefault(w, {}).setdefault(end, []).append(c)
    return d


def vm_figures(c, elapsed):
    """The mmtests vmstat summary of one workload run."""
    def s(prefix):
        return sum(v for k, v in c.items() if k == prefix or
                   k.startswith(prefix + "_"))
    ks, kr = s("pgscan_kswapd"), s("pgsteal_kswapd")
    ds, dr = s("pgscan_direct"), s("pgsteal_direct")
    el = max(elapsed, 1)
    allocs = {z: c.get("pgalloc_" + z, 0)
              for z in ("dma", "dma32", "normal", "movable")}
    total = sum(allocs.values())
    fig = {
        "swap_ins": c.get("pswpin", 0),
        "swap_outs": c.get("pswpout", 0),
        "allocation_stalls": s("allocstall"),
        "kswapd_pages_scanned": ks,
        "kswapd_pages_reclaimed": kr,
        "direct_pages_scanned": ds,
        "direct_pages_reclaimed": dr,
        "kswapd_efficiency_pct": 100.0 * kr / ks if ks else None,
        "kswapd_velocity": ks / el,
        "direct_efficiency_pct": 100.0 * dr / ds if ds else 100.0,
        "direct_velocity": ds / el,
        "percentage_direct_scans": 100.0 * ds / (ks + ds) if ks + ds else 0.0,
        "pages_skipped_pgskip": s("pgskip"),
        "page_writes_by_reclaim": c.get("nr_vmscan_write", 0),
        "slabs_scanned": c.get("slabs_scanned", 0),
        "workingset_refaults": s("workingset_refault"),
        "major_faults": c.get("pgmajfault", 0),
    }
    for z, v in allocs.items():
        fig["pgalloc_" + z] = v
        fig["alloc_share_%s_pct" % z] = 100.0 * v / total if total else 0.0
    return fig


def stats(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    mean = statistics.fmean(vals)
    sd = statistics.stdev(vals) if len(vals) > 1 else 0.0
    return {"n": len(vals), "mean": mean, "sd": sd,
            "min": min(vals), "max": max(vals)}


def fmt(x):
    if x is None:
        return "-"
    if abs(x) >= 1000 or x == int(x):
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.2f" % x


def compare(z, n):
    """'node/zone ratio', 'verdict' for two stats dicts."""
    if not z or not n:
        return "-", "missing"
    ratio = "%.3f" % (n["mean"] / z["mean"]) if z["mean"] else (
        "=" if n["mean"] == 0 else "inf")
    if z["n"] < 2 or n["n"] < 2:
        return ratio, "n=1, no spread"
    if abs(n["mean"] - z["mean"]) <= z["sd"] + n["sd"]:
        return ratio, "within noise"
    return ratio, "differs"


def cell(st):
    if not st:
        return "-"
    if st["n"] < 2:
        return fmt(st["mean"])
    return "%s ± %s" % (fmt(st["mean"]), fmt(st["sd"]))


def table(rows):
    """rows: [(label, zone_vals, node_vals)] -> markdown lines."""
    out = ["| figure | zone end | node end | node/zone | |",
           "|---|---|---|---|---|"]
    tsv = []
    for label, zv, nv in rows:
        z, n = stats(zv), stats(nv)
        if not z and not n:
            continue
        ratio, verdict = compare(z, n)
        out.append("| %s | %s | %s | %s | %s |" % (
            label, cell(z), cell(n), ratio, verdict))
        tsv.append((label, z, n, ratio, verdict))
    return out, tsv


def best_means(lat):
    s = sorted(lat)
    res = {}
    for pct in (99, 95, 90, 50, 10, 5, 1):
        k = max(1, int(len(s) * pct / 100))
        res["Best%d%%Mean" % pct] = statistics.fmean(s[:k]) if s else None
    return res


def gnuplot(script, cwd):
    if not shutil.which("gnuplot"):
        return False
    r = subprocess.run(["gnuplot"], input=script, text=True, cwd=cwd,
                       capture_output=True)
    if r.returncode:
        sys.stderr.write("gnuplot: %s\n" % r.stderr)
    return r.returncode == 0


def read_meta(bench):
    """meta/info as a dict and meta/status as lines (each may be missing)."""
    meta = {}
    info = os.path.join(bench, "meta", "info")
    if os.path.exists(info):
        for line in open(info):
            k, _, v = line.partition(": ")
            meta[k] = v.strip()
    status = open(os.path.join(bench, "meta", "status")).read().splitlines() \
        if os.path.exists(os.path.join(bench, "meta", "status")) else []
    return meta, status


def workload_figures(d):
    """Per-workload vmstat figures, every iteration:
    workload -> figure -> end -> [values]."""
    vmfig = {}
    for w, ends in d.vmstat.items():
        for end, runs in ends.items():
            el = d.results.get((w, "elapsed_s"), {}).get(end, [])
            for i, c in enumerate(runs):
                for k, v in vm_figures(c, el[i] if i < len(el) else 1).items():
                    vmfig.setdefault(w, {}).setdefault(k, {}).setdefault(
                        end, []).append(v)
    return vmfig


def write_figures(d, vmfig, data):
    """All figures, all iterations, to one TSV."""
    with open(os.path.join(data, "figures.tsv"), "w") as f:
        f.write("workload\tfigure\tend\titeration\tvalue\n")
        for (w, m), ends in sorted(d.results.items()):
            for end, vals in ends.items():
                for i, v in enumerate(vals, 1):
                    f.write("%s\t%s\t%s\t%d\t%s\n" % (w, m, end, i, v))
        for w, figs in sorted(vmfig.items()):
            for k, ends in sorted(figs.items()):
                for end, vals in ends.items():
                    for i, v in enumerate(vals, 1):
                        f.write("%s\tvm:%s\t%s\t%d\t%s\n" % (w, k, end, i, v))


def report_head(d, meta, status):
    """Title, run facts, how to read the tables, and what failed."""
    md = []
    md.append("# node-lru benchmark: zone end against node end\n")
    md.append("Generated by `scripts/bench-report.py` from the raw results in "
              "`raw/`; no figure is edited by hand.\n")
    md.append("| | |\n|---|---|")
    for k in ("date", "commit", "base", "series", "guest", "host", "qemu",
              "iterations", "elapsed"):
        if k in meta:
            md.append("| %s | %s |" % (k, meta[k]))
    for end in ENDS:
        if d.seen[end]:
            md.append("| %s end, seen in the guest | %s |"
                      % (end, "; ".join(sorted(d.seen[end]))))
    md.append("")
    md.append("**Read this first.** The guest runs under QEMU TCG (binary "
              "translation, no KVM): absolute times and throughputs are not "
              "hardware numbers, and TCG's timer and emulated TSC make "
              "latencies noisy.  Lead with the counts (allocations per zone, "
              "pages scanned and reclaimed, stalls) and the node/zone ratios. "
              "Each cell is mean ± sample standard deviation over the "
              "iterations; *within noise* means the two means differ by no "
              "more than the sum of the two deviations; with one iteration "
              "there is no spread to judge by.\n")
    bad = [s for s in status if "FAILED" in s or "skipped" in s]
    if bad:
        md.append("Runs that failed or were skipped (their figures are "
                  "missing):\n")
        md.extend("- `%s`" % s for s in bad)
        md.append("")
    failed_tests = [(e, i, t) for (e, i), l in sorted(
        d.ktap.items(), key=lambda x: str(x[0])) for ok, _, t in l if not ok]
    if failed_tests:
        md.append("Workloads that did not pass in the guest:\n")
        md.extend("- %s end, run %s: `%s`" % x for x in failed_tests)
        md.append("")
    return md


# Each section below returns its report.md lines and its headline rows
# (label, zone stats, node stats, ratio, verdict), in report order.

def alloc_section(vmfig, bench):
    """1. Allocation distribution; writes data/alloc-share.tsv and its plot."""
    md = ["## 1. Allocation distribution (streaming write, pgalloc per zone)\n"]
    rows = []
    f = vmfig.get("alloc", {})
    for z in ("dma", "dma32", "normal", "movable"):
        rows.append(("%s share of allocations (%%)" % z.upper(),
                     f.get("alloc_share_%s_pct" % z, {}).get("zone", []),
                     f.get("alloc_share_%s_pct" % z, {}).get("node", [])))
    for z in ("dma", "dma32", "normal"):
        rows.append(("pgalloc_%s" % z, f.get("pgalloc_" + z, {}).get("zone", []),
                     f.get("pgalloc_" + z, {}).get("node", [])))
    t, tsv = table(rows)
    md.extend(t)
    headline = [r for r in tsv if "DMA32 share" in r[0] or "NORMAL share" in r[0]]
    with open(os.path.join(bench, "data", "alloc-share.tsv"), "w") as out:
        out.write("end\tDMA\tDMA32\tNormal\n")
        for end in ENDS:
            vals = [stats(f.get("alloc_share_%s_pct" % z, {}).get(end, []))
                    for z in ("dma", "dma32", "normal")]
            out.write("%s\t%s\n" % (end, "\t".join(
                "%.2f" % (v["mean"] if v else 0) for v in vals)))
    if gnuplot("""set terminal png size 640,400
set output 'plots/alloc-share.png'
set title 'Share of page allocations per zone (streaming write)'
set style data histograms
set style histogram clustered
set style fill solid 0.8
set ylabel 'percent of pgalloc'
set yrange [0:100]
plot 'data/alloc-share.tsv' using 2:xtic(1) title 'DMA', '' using 3 title 'DMA32', '' using 4 title 'Normal'
""", bench):
        md.append("\n![allocation share](plots/alloc-share.png)\n")
    md.append("")
    return md, headline


BONNIE_FIELDS = {9: "SeqOut Char KiB/s", 11: "SeqOut Block KiB/s",
                 13: "SeqOut Rewrite KiB/s", 15: "SeqIn Char KiB/s",
                 17: "SeqIn Block KiB/s", 19: "Random seeks /s",
                 26: "SeqCreate Create /s", 28: "SeqCreate Read /s",
                 30: "SeqCreate Delete /s", 32: "RandCreate Create /s",
                 34: "RandCreate Read /s", 36: "RandCreate Delete /s"}


def bonnie_section(d, vmfig):
    """2. bonnie++: its CSV fields, then vmstat during the run."""
    sizes = sorted({int(v) for vs in d.results.get(("bonnie", "size_mib"), {}).values()
                    for v in vs})
    md = ["## 2. bonnie++ (ext4, data set %s MiB)\n" % (
        "/".join(str(x) for x in sizes) or "?")]
    md.append("Full runs use twice RAM and bonnie++ 2.00's per-character "
              "tests (over its default of 20 MiB); quick runs a smaller set "
              "without them.\n")
    rows = []
    for idx, label in BONNIE_FIELDS.items():
        vals = {}
        for end in ENDS:
            for csv in d.bonnie.get(end, []):
                try:
                    vals.setdefault(end, []).append(float(csv[idx]))
                except (IndexError, ValueError):
                    pass    # skipped (quick mode) or "+++++" (too fast)
        rows.append((label, vals.get("zone", []), vals.get("node", [])))
    t, tsv = table(rows)
    md.extend(t)
    headline = [r for r in tsv if r[0] in ("SeqOut Block KiB/s",
                                           "SeqIn Block KiB/s")]
    md.append("\nvmstat during bonnie++:\n")
    t, tsv = vm_table(vmfig.get("bonnie", {}))
    md.extend(t)
    headline += [("bonnie " + r[0], *r[1:]) for r in tsv
                 if r[0] in ("allocation_stalls", "kswapd_efficiency_pct")]
    md.append("")
    return md, headline


def stutter_section(d, vmfig, bench):
    """3. stutter: latency percentiles, best-N% means, vmstat, plots and
    the per-zone LRU pages when it ended."""
    md = ["## 3. stutter (anon hog + file copy + mmap latency probe)\n"]
    rows = []
    for m in ("min", "p25", "p50", "p75", "p90", "p93", "p95", "p99",
              "max", "mean"):
        r = d.results.get(("stutter", "lat_%s_us" % m), {})
        rows.append(("mmap latency %s (us)" % m, r.get("zone", []),
                     r.get("node", [])))
    t, tsv = table(rows)
    md.extend(t)
    headline = [r for r in tsv if r[0] in ("mmap latency p50 (us)",
                                           "mmap latency p99 (us)",
                                           "mmap latency max (us)")]
    bm = {e: best_means(d.raw[e]) for e in ENDS}
    md.append("\nBest-N%% means over all samples of all iterations "
              "(zone: %d samples, node: %d):\n" % (len(d.raw["zone"]),
                                                   len(d.raw["node"])))
    md.append("| figure (us) | zone end | node end | node/zone |\n|---|---|---|---|")
    for k in bm["zone"]:
        z, n = bm["zone"][k], bm["node"][k]
        md.append("| %s | %s | %s | %s |" % (
            k, fmt(z), fmt(n), "%.3f" % (n / z) if z and n else "-"))
    md.append("\nvmstat during stutter:\n")
    t, tsv = vm_table(vmfig.get("stutter", {}))
    md.extend(t)
    headline += [("stutter " + r[0], *r[1:]) for r in tsv if r[0] in (
        "kswapd_efficiency_pct", "direct_velocity", "allocation_stalls",
        "page_writes_by_reclaim")]
    md += stutter_plots(d, bench)
    md.append("")
    md += zone_lru_table(d, "stutter")
    return md, headline


def stutter_plots(d, bench):
    """The latency CDF and, from the first iteration of each end, the scan
    rates over time: data/*.tsv and their plots."""
    md = []
    data = os.path.join(bench, "data")
    for end in ENDS:
        s = sorted(d.raw[end])
        with open(os.path.join(data, "stutter-cdf-%s.tsv" % end), "w") as out:
            for i, v in enumerate(s, 1):
                out.write("%s\t%.5f\n" % (v, i / len(s)))
    if d.raw["zone"] and d.raw["node"] and gnuplot("""set terminal png size 640,400
set output 'plots/stutter-cdf.png'
set title 'stutter: mmap+touch latency of 4 MiB, CDF'
set logscale x
set xlabel 'latency (us, TCG)'
set ylabel 'fraction of samples'
set key bottom right
plot 'data/stutter-cdf-zone.tsv' using 1:2 with lines title 'zone end', \\
     'data/stutter-cdf-node.tsv' using 1:2 with lines title 'node end'
""", bench):
        md.append("\n![stutter latency CDF](plots/stutter-cdf.png)\n")
    # scan rates over time, first iteration of each end
    plotted = []
    for end in ENDS:
        key = (end, 1, "stutter")
        if key not in d.samples:
            continue
        hdr, rows = d.samples[key]
        if not hdr or len(rows) < 2:
            continue
        ik, idd = hdr.index("pgscan_kswapd") + 1, hdr.index("pgscan_direct") + 1
        with open(os.path.join(data, "scan-rate-%s.tsv" % end), "w") as out:
            out.write("t\tkswapd\tdirect\n")
            for a, b in zip(rows, rows[1:]):
                out.write("%d\t%d\t%d\n" % (b[0], b[ik] - a[ik], b[idd] - a[idd]))
        plotted.append(end)
    if len(plotted) == 2 and gnuplot("""set terminal png size 800,400
set output 'plots/scan-rates.png'
set title 'stutter, first iteration: pages scanned per second'
set xlabel 'seconds'
set ylabel 'pages/s'
plot 'data/scan-rate-zone.tsv' using 1:2 with lines title 'zone kswapd', \\
     'data/scan-rate-zone.tsv' using 1:3 with lines title 'zone direct', \\
     'data/scan-rate-node.tsv' using 1:2 with lines title 'node kswapd', \\
     'data/scan-rate-node.tsv' using 1:3 with lines title 'node direct'
""", bench):
        md.append("\n![scan rates](plots/scan-rates.png)\n")
    return md


def pagealloc_section(d):
    """4. Page allocator microbenchmark, orders 0 and 1, batches 1 to 16384."""
    md = ["## 4. Page allocator microbenchmark (cycles per page, "
          "minimum over the loops)\n"]
    rows = []
    for order in (0, 1):
        b = 1
        while b <= 16384:
            r = d.results.get(("pagealloc", "odr%d-%d_total" % (order, b)), {})
            if r:
                rows.append(("total-odr%d-%d" % (order, b), r.get("zone", []),
                             r.get("node", [])))
            b *= 2
    t, tsv = table(rows)
    md.extend(t)
    headline = [r for r in tsv if r[0] in ("total-odr0-1", "total-odr0-64",
                                           "total-odr0-16384")]
    md.append("")
    return md, headline


def fio_section(d, vmfig):
    """5. fio throughput, then vmstat during the run."""
    md = ["## 5. Streaming I/O throughput (fio, buffered 4 KiB, KiB/s)\n"]
    rows = []
    for jobs in (1, 2, 4):
        for rw in ("write", "read", "randwrite", "randread"):
            r = d.results.get(("fio", "%s-%d_kibps" % (rw, jobs)), {})
            rows.append(("%s %d job%s" % (rw, jobs, "s" if jobs > 1 else ""),
                         r.get("zone", []), r.get("node", [])))
    t, tsv = table(rows)
    md.extend(t)
    headline = [("fio " + r[0], *r[1:]) for r in tsv
                if r[0] in ("read 1 job", "write 1 job")]
    md.append("\nvmstat during fio:\n")
    t, _ = vm_table(vmfig.get("fio", {}))
    md.extend(t)
    md.append("")
    return md, headline


def lockstat_section(d):
    """6. LRU lock contention from the lockstat run; no headline rows."""
    md = ["## 6. LRU lock contention (debug kernels with LOCK_STAT, a "
          "separate run: not comparable with the timings above)\n"]
    lock = [(w, m) for (w, m) in d.results if w == "lockstat" and
            "lru_lock" in m]
    if lock:
        # "&pgdat->lru_lock_contentions": the class differs between the ends
        byfig, classes = {}, {}
        for w, m in lock:
            cls, fig = re.match(r"^(.*lru_lock)_(.*)$", m).groups()
            for end, vals in d.results[(w, m)].items():
                byfig.setdefault(fig, {})[end] = vals[0]
                classes.setdefault(end, set()).add(cls)
        md.append("| figure | zone end | node end | node/zone |\n|---|---|---|---|")
        md.append("| lock class | %s | %s | |" % tuple(
            ", ".join("`%s`" % c for c in sorted(classes.get(e, []))) or "-"
            for e in ENDS))
        for fig in sorted(byfig):
            z, n = byfig[fig].get("zone"), byfig[fig].get("node")
            md.append("| %s | %s | %s | %s |" % (
                fig, fmt(z), fmt(n), "%.3f" % (n / z) if z and n else "-"))
        md.append("\nThe zone end has one lock per node (`&pgdat->lru_lock`), "
                  "the node end one per lruvec (`&lruvec->lru_lock`): on a "
                  "one-node guest without memcgs in use the two are the same "
                  "number of locks, so this shows the lock in use and its "
                  "traffic, not a scaling difference.")
    else:
        md.append("Not run (see the status above).")
    md.append("")
    return md, []


def headline_text(meta, headline):
    """headline.md: plain text for the cover letter."""
    hl = ["Measured with `make bench` (%s, %s iteration(s), guest %s)."
          % (meta.get("commit", "?"), meta.get("iterations", "?"),
             meta.get("guest", "?")),
          "QEMU TCG: counts and ratios matter, absolute times do not.", "",
          "%-34s %16s %16s %9s  %s" % ("", "zone end", "node end",
                                       "node/zone", "")]
    for label, z, n, ratio, verdict in headline:
        hl.append("%-34s %16s %16s %9s  %s" % (label[:34], cell(z), cell(n),
                                               ratio, verdict))
    return hl


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-report.py BENCH-DIR")
    bench = sys.argv[1]
    d = load(bench)
    data = os.path.join(bench, "data")
    os.makedirs(data, exist_ok=True)
    os.makedirs(os.path.join(bench, "plots"), exist_ok=True)
    meta, status = read_meta(bench)
    vmfig = workload_figures(d)
    write_counters(d, data)
    write_figures(d, vmfig, data)

    md = report_head(d, meta, status)
    headline = []
    for lines, rows in (alloc_section(vmfig, bench),
                        bonnie_section(d, vmfig),
                        stutter_section(d, vmfig, bench),
                        pagealloc_section(d),
                        fio_section(d, vmfig),
                        lockstat_section(d)):
        md += lines
        headline += rows
    with open(os.path.join(bench, "report.md"), "w") as out:
        out.write("\n".join(md) + "\n")

    hl = headline_text(meta, headline)
    with open(os.path.join(bench, "headline.md"), "w") as out:
        out.write("\n".join(hl) + "\n")
    print("\n".join(hl))


def write_counters(d, data):
    """Every per-node and per-zone counter, before and after."""
    with open(os.path.join(data, "counters.tsv"), "w") as out:
        out.write("end\titer\tworkload\tscope\tcounter\tbefore\tafter\n")
        for (end, it, w), c in sorted(d.counters.items()):
            for (scope, name), (b, a) in sorted(c.items()):
                out.write("%s\t%s\t%s\t%s\t%s\t%d\t%d\n" % (
                    end, it, w, scope, name, b, a))


LRU_ZONE = ("nr_zone_inactive_anon", "nr_zone_active_anon",
            "nr_zone_inactive_file", "nr_zone_active_file", "nr_free_pages")


def zone_lru_table(d, workload):
    """LRU and free pages per zone when the workload ended (zoneinfo)."""
    cells = {}   # (scope, counter) -> end -> [after]
    for (end, it, w), c in d.counters.items():
        if w != workload or it == 0:
            continue
        for (scope, name), (_, a) in c.items():
            if "/" in scope and name in LRU_ZONE:
                cells.setdefault((scope, name), {}).setdefault(end, []).append(a)
    if not cells:
        return []
    rows = []
    for scope in sorted({k[0] for k in cells}):
        for name in LRU_ZONE:
            if (scope, name) in cells:
                v = cells[(scope, name)]
                rows.append(("%s %s" % (scope, name),
                             v.get("zone", []), v.get("node", [])))
    t, _ = table(rows)
    return ["Per-zone pages when %s ended (/proc/zoneinfo, pages; every "
            "counter, per node too, before and after each workload, is in "
            "`data/counters.tsv`):\n" % workload] + t + [""]


def vm_table(figs):
    order = ["swap_ins", "swap_outs", "allocation_stalls",
             "kswapd_pages_scanned", "kswapd_pages_reclaimed",
             "direct_pages_scanned", "direct_pages_reclaimed",
             "kswapd_efficiency_pct", "kswapd_velocity",
             "direct_efficiency_pct", "direct_velocity",
             "percentage_direct_scans", "pages_skipped_pgskip",
             "page_writes_by_reclaim", "slabs_scanned",
             "workingset_refaults", "major_faults"]
    rows = [(k, figs.get(k, {}).get("zone", []), figs.get(k, {}).get("node", []))
            for k in order]
    return table(rows)


if __name__ == "__main__":
    main()
