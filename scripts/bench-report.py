#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the make bench report from the raw guest results.

    scripts/bench-report.py BENCH-DIR

BENCH-DIR holds raw/KERNEL-N.ktap (the bench set, iteration N; KERNEL is
zone, node or mglru), raw/lockstat-KERNEL.ktap and meta/ (see
scripts/bench.sh).  Writes data/*.tsv (every figure, every iteration),
plots/*.png (gnuplot, when installed), report.md and headline.md (the cover
letter's table).  Works with any of the three kernels present (the reports
in results/ made before the multi-gen LRU kernel have two).

Every figure is computed from the raw files; nothing is typed in.  The
vmstat figures follow mmtests' MonitorMmtestsvmstat.pm (2016): deltas
over the workload, efficiency = 100 * reclaimed / scanned, velocity =
scanned / elapsed seconds.  Each comparison is a ratio with its spread and
a word for its direction, better defined per figure as mmtests' compare
scripts do (pdiff: higher is better, pndiff: lower is better).

Exit status 2 (after writing everything) when a kernel's column is
invalid: its guests did not run the kernel its label says (the multi-gen
LRU on for mglru, off for zone and node; the kernel release).
"""
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

KERNELS = ("zone", "node", "mglru")
# The kernels the others are compared against, in this order.
BASES = ("zone", "node")
ABOUT = {
    "zone": "zone LRU: the rewound end of the series (step 0), bench config",
    "node": "node LRU: the replayed end (all patches), classic LRU, bench config",
    "mglru": "multi-gen LRU: the node end with configs/mglru.config "
             "(CONFIG_LRU_GEN=y, CONFIG_LRU_GEN_ENABLED=y), bench config",
}

# How a figure compares: which way is better, and whether the multi-gen
# LRU counts it the way the classic LRU does.
#   pref: "higher" / "lower" is better; "none": no better or worse
#   ("differs" / "within noise"); "dist": a distribution, no better or
#   worse ("differs" / "same").
#   mg: None (counted alike), "dagger" (6.1's multi-gen LRU counts it
#   differently: its comparisons carry a dagger), "absent" (it never
#   counts it: comparisons with mglru are not made).
HIGHER, LOWER, NONE, DIST = "higher", "lower", "none", "dist"
DAGGER, ABSENT = "dagger", "absent"


class Fig:
    """rate: a rate (per second): its mean over the iterations is the
    harmonic mean, as mmtests takes it, and the test is made on the
    reciprocals (the time per unit), whose arithmetic mean that is."""
    def __init__(self, pref, mg=None, tcg=False, rate=False):
        self.pref, self.mg, self.tcg, self.rate = pref, mg, tcg, rate


VM_FIGS = {
    "swap_ins": Fig(LOWER),
    "swap_outs": Fig(LOWER),
    "allocation_stalls": Fig(LOWER),
    "oom_kills": Fig(LOWER),
    "kswapd_pages_scanned": Fig(LOWER, DAGGER),
    "kswapd_pages_reclaimed": Fig(NONE),
    "direct_pages_scanned": Fig(LOWER, DAGGER),
    "direct_pages_reclaimed": Fig(LOWER),
    "kswapd_efficiency_pct": Fig(HIGHER, DAGGER),
    "direct_efficiency_pct": Fig(HIGHER, DAGGER),
    "pages_examined_scan_refill": Fig(LOWER, DAGGER),
    "reclaimed_per_examined_pct": Fig(HIGHER, DAGGER),
    "reclaimed_per_scanned_less_skipped_pct": Fig(HIGHER, DAGGER),
    "kswapd_velocity": Fig(NONE, DAGGER, tcg=True, rate=True),
    "direct_velocity": Fig(NONE, DAGGER, tcg=True, rate=True),
    "percentage_direct_scans": Fig(LOWER, DAGGER),
    "pages_skipped_pgskip": Fig(LOWER),
    "pgskip_dma": Fig(LOWER),
    "pgskip_dma32": Fig(LOWER),
    "pgskip_normal": Fig(LOWER),
    "pgskip_movable": Fig(LOWER),
    "page_writes_by_reclaim": Fig(LOWER),
    "slabs_scanned": Fig(NONE),
    "workingset_refaults": Fig(LOWER, DAGGER),
    "workingset_refault_anon": Fig(LOWER, DAGGER),
    "workingset_refault_file": Fig(LOWER, DAGGER),
    "workingset_activate_anon": Fig(NONE, ABSENT),
    "workingset_activate_file": Fig(NONE, ABSENT),
    "workingset_restore_anon": Fig(LOWER, DAGGER),
    "workingset_restore_file": Fig(LOWER, DAGGER),
    "major_faults": Fig(LOWER),
}
VM_ORDER = list(VM_FIGS)


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
        self.results = {}    # (workload, metric) -> kernel -> [values]
        self.vmstat = {}     # workload -> kernel -> [ {counter: delta} ]
        self.samples = {}    # (kernel, iter, workload) -> (header, rows)
        # (kernel, iter, workload) -> zone -> [(t, lru pages, free)]
        self.zsamples = {}
        self.raw = {k: [] for k in KERNELS}   # stutter latencies, pooled
        self.ktap = {}       # (kernel, iter) -> [(ok, name, detail)]
        self.bonnie = {}     # kernel -> [csv fields]
        # (kernel, iter, workload) -> {(scope, counter): (before, after)}
        self.counters = {}
        # (kernel, workload) -> round -> [[values], ...] (one per iteration)
        self.rounds = {}
        self.iters = {k: 0 for k in KERNELS}
        self.seen = {k: set() for k in KERNELS}   # what the guest reported
        self.release = {k: [] for k in KERNELS}   # (file, uname -r)
        # kernel -> [(file, workload, /sys/kernel/mm/lru_gen/enabled)]
        self.lrugen = {k: [] for k in KERNELS}
        self.files = {k: [] for k in KERNELS}     # (file, had bench lines)
        self.invalid = {}    # kernel -> [reasons]

    def add(self, workload, metric, kernel, value):
        self.results.setdefault((workload, metric), {}).setdefault(
            kernel, []).append(value)

    def present(self):
        """The kernels with any result, in the order of KERNELS."""
        have = set()
        for ends in self.results.values():
            have.update(ends)
        for ends in self.vmstat.values():
            have.update(ends)
        have.update(k for k in KERNELS if self.raw[k] or self.bonnie.get(k))
        return [k for k in KERNELS if k in have]


def load(bench):
    d = Data()
    raw = os.path.join(bench, "raw")
    names = "|".join(KERNELS)
    for name in sorted(os.listdir(raw)):
        m = re.match(r"(%s)-(\d+)\.ktap$" % names, name)
        lock = re.match(r"lockstat-(%s)\.ktap$" % names, name)
        if not m and not lock:
            continue
        kern = (m or lock).group(1)
        it = int(m.group(2)) if m else 0
        if m:
            d.iters[kern] = max(d.iters[kern], it)
        vm = {}
        benched = False
        for line in parse_ktap(os.path.join(raw, name)):
            if line.startswith("ktap: "):
                t = line[6:]
                ok = t.startswith("ok ")
                parts = t.split()
                d.ktap.setdefault((kern, it if m else "lockstat"), []).append(
                    (ok and "# SKIP" not in t, parts[3 if not ok else 2], t))
                continue
            tag, _, rest = line.partition(": ")
            f = rest.split()
            g = re.match(r"kernel (\S+) topology (\S+) \((\d+) cpus, "
                         r"(\d+) nodes(?:, clocksource (\S+))?\)", rest) \
                if tag == "nodelru" else None
            if g:
                d.seen[kern].add("%s on %s: %s CPUs, %s node(s)" % g.groups()[:4]
                                 + (", clocksource %s" % g.group(5)
                                    if g.group(5) else ""))
                d.release[kern].append((name, g.group(1)))
                continue
            if tag == "bench-lrugen" and len(f) == 2:
                d.lrugen[kern].append((name, f[0], f[1]))
            elif tag == "bench" and len(f) >= 3:
                benched = True
                if f[0] == "bonnie" and f[1] == "csv":
                    d.bonnie.setdefault(kern, []).append(
                        " ".join(f[2:]).split(","))
                    continue
                try:
                    d.add(f[0], f[1], kern, float(f[2]))
                except ValueError:
                    pass
            elif tag == "bench-vmstat" and len(f) == 3:
                vm.setdefault(f[0], {})[f[1]] = int(f[2])
            elif tag == "bench-sample" and len(f) >= 3:
                key = (kern, it, f[0])
                hdr, rows = d.samples.setdefault(key, ([], []))
                if f[1] == "header":
                    hdr[:] = f[2:]
                else:
                    rows.append([int(x) for x in f[1:]])
            elif tag == "bench-zonesample" and len(f) == 8:
                try:
                    v = [int(x) for x in f[3:]]
                except ValueError:
                    continue
                d.zsamples.setdefault((kern, it, f[0]), {}).setdefault(
                    f[2], []).append((int(f[1]), sum(v[:4]), v[4]))
            elif tag == "bench-counter" and len(f) == 5:
                try:
                    d.counters.setdefault((kern, it, f[0]), {})[(f[1], f[2])] = (
                        int(f[3]), int(f[4]))
                except ValueError:
                    pass
            elif tag == "bench-round" and len(f) >= 3:
                try:
                    vals = [int(x) for x in f[2:]]
                except ValueError:
                    continue
                d.rounds.setdefault((kern, f[0]), {}).setdefault(
                    int(f[1]), []).append(vals)
            elif tag == "bench-raw" and f and f[0] == "stutter":
                d.raw[kern].extend(float(x) for x in f[1:])
        for w, c in vm.items():
            d.vmstat.setdefault(w, {}).setdefault(kern, []).append(c)
        d.files[kern].append((name, benched))
    validate(d)
    return d


def lrugen_on(value):
    """Is bit 0 (LRU_GEN_CORE) of an lru_gen/enabled value set?  None when
    the value is no number."""
    try:
        return bool(int(value, 16) & 1)
    except ValueError:
        return None


def validate(d):
    """A kernel's column is invalid when its guests did not run what its
    label says: the release (uname -r) of another kernel, the multi-gen
    LRU off on mglru, or on on zone and node."""
    for k in KERNELS:
        why = []
        for name, rel in d.release[k]:
            mglru = "mglru" in rel
            ok = {"zone": "-nodelru-zone-" in rel,
                  "node": "-nodelru-node-" in rel and not mglru,
                  "mglru": "-nodelru-node-" in rel and mglru}[k]
            if not ok:
                why.append("raw/%s: the guest ran %s, which is not the %s "
                           "kernel" % (name, rel, k))
        for name, w, v in d.lrugen[k]:
            on = lrugen_on(v)
            if k == "mglru" and not on:
                why.append("raw/%s: /sys/kernel/mm/lru_gen/enabled was %s "
                           "during %s: the multi-gen LRU was not on"
                           % (name, v, w))
            elif k != "mglru" and on:
                why.append("raw/%s: /sys/kernel/mm/lru_gen/enabled was %s "
                           "during %s: the multi-gen LRU was on in the %s "
                           "kernel" % (name, v, w, k))
        if k == "mglru":
            recorded = {name for name, _, _ in d.lrugen[k]}
            for name, benched in d.files[k]:
                if benched and name not in recorded:
                    why.append("raw/%s: no bench-lrugen record: nothing "
                               "shows that the multi-gen LRU was on" % name)
        if why:
            d.invalid[k] = why


def vm_figures(c, elapsed):
    """The mmtests vmstat summary of one workload run."""
    def s(prefix):
        return sum(v for k, v in c.items() if k == prefix or
                   k.startswith(prefix + "_"))
    ks, kr = s("pgscan_kswapd"), s("pgsteal_kswapd")
    ds, dr = s("pgscan_direct"), s("pgsteal_direct")
    refill = c.get("pgrefill", 0)
    el = max(elapsed, 1)
    allocs = {z: c.get("pgalloc_" + z, 0)
              for z in ("dma", "dma32", "normal", "movable")}
    total = sum(allocs.values())
    fig = {
        "swap_ins": c.get("pswpin", 0),
        "swap_outs": c.get("pswpout", 0),
        "allocation_stalls": s("allocstall"),
        "oom_kills": c.get("oom_kill", 0),
        "kswapd_pages_scanned": ks,
        "kswapd_pages_reclaimed": kr,
        "direct_pages_scanned": ds,
        "direct_pages_reclaimed": dr,
        "kswapd_efficiency_pct": 100.0 * kr / ks if ks else None,
        "kswapd_velocity": ks / el,
        "direct_efficiency_pct": 100.0 * dr / ds if ds else 100.0,
        "direct_velocity": ds / el,
        "pages_examined_scan_refill": ks + ds + refill,
        "reclaimed_per_examined_pct":
            100.0 * (kr + dr) / (ks + ds + refill) if ks + ds + refill else None,
        # 6.1 counts the pages isolate_lru_folios() steps over (pgskip_*)
        # as scanned; the zone end has none to skip.  Reclaimed against
        # scanned less skipped is the figure a skip cannot inflate.
        "reclaimed_per_scanned_less_skipped_pct":
            100.0 * (kr + dr) / (ks + ds - s("pgskip"))
            if ks + ds - s("pgskip") > 0 else None,
        "percentage_direct_scans": 100.0 * ds / (ks + ds) if ks + ds else 0.0,
        "pages_skipped_pgskip": s("pgskip"),
        "page_writes_by_reclaim": c.get("nr_vmscan_write", 0),
        "slabs_scanned": c.get("slabs_scanned", 0),
        "workingset_refaults": s("workingset_refault"),
        "major_faults": c.get("pgmajfault", 0),
    }
    for z in ("dma", "dma32", "normal", "movable"):
        fig["pgskip_" + z] = c.get("pgskip_" + z, 0)
    for t in ("refault", "activate", "restore"):
        for lru in ("anon", "file"):
            k = "workingset_%s_%s" % (t, lru)
            fig[k] = c.get(k, 0)
    for z, v in allocs.items():
        fig["pgalloc_" + z] = v
        fig["alloc_share_%s_pct" % z] = 100.0 * v / total if total else 0.0
    return fig


def stats(vals, rate=False):
    """n, mean, sd, min, max of the values; for a rate with every value
    above 0 the mean is the harmonic mean and "recip" holds the stats of
    the reciprocals, which the test uses."""
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    sd = statistics.stdev(vals) if len(vals) > 1 else 0.0
    st = {"n": len(vals), "mean": statistics.fmean(vals), "sd": sd,
          "min": min(vals), "max": max(vals)}
    if rate and all(v > 0 for v in vals):
        st["mean"] = statistics.harmonic_mean(vals)
        st["recip"] = stats([1.0 / v for v in vals])
    return st


def fmt(x):
    if x is None:
        return "-"
    if abs(x) >= 1000 or x == int(x):
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.2f" % x


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-12:
            break
    return h


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
           a * math.log(x) + b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def welch_p(base, other):
    """Two-sided p-value of Welch's t-test of two stats dicts; None when it
    cannot be made: fewer than two values a side, or no spread on either
    side while the means differ (a difference nothing can weigh)."""
    nb, no = base["n"], other["n"]
    if nb < 2 or no < 2:
        return None
    vb, vo = base["sd"] ** 2 / nb, other["sd"] ** 2 / no
    diff = other["mean"] - base["mean"]
    se2 = vb + vo
    if se2 == 0:
        return 1.0 if diff == 0 else None
    t = diff / math.sqrt(se2)
    df = se2 ** 2 / ((vb ** 2 / (nb - 1)) + (vo ** 2 / (no - 1)))
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def bh_adjust(ps):
    """Benjamini-Hochberg: the adjusted values (q) of a list of p-values,
    None kept as None."""
    idx = sorted((i for i, p in enumerate(ps) if p is not None),
                 key=lambda i: ps[i])
    m = len(idx)
    q = list(ps)
    prev = 1.0
    for rank in range(m, 0, -1):
        i = idx[rank - 1]
        prev = min(prev, ps[i] * m / rank)
        q[i] = prev
    return q


ALPHA = 0.05


def ratio_text(base, other):
    """'ratio ± spread' of other/base; the difference instead when base's
    mean is 0 or within one standard deviation of 0 (a ratio over a
    denominator that may be 0 says nothing)."""
    b, o = base["mean"], other["mean"]
    one = base["n"] < 2 and other["n"] < 2
    if b == 0:
        return "=" if o == 0 else "Δ %+g" % float(fmt(o - b))
    if base["n"] > 1 and abs(b) <= base["sd"]:
        return "Δ %s (base ≈ 0)" % fmt(o - b) if o - b < 0 else \
            "Δ +%s (base ≈ 0)" % fmt(o - b)
    r = o / b
    if one:
        return "%.3f" % r
    if o:
        sd = abs(r) * math.hypot(base["sd"] / b, other["sd"] / o)
    else:
        sd = other["sd"] / abs(b)
    return "%.3f ± %.3f" % (r, sd)


def compare(base, other, pref=NONE, q=None):
    """Compare OTHER against BASE (two stats dicts): the ratio text and the
    verdict.  Q is the adjusted p-value of Welch's t-test for this
    comparison (bh_adjust over the table's comparisons); a difference is
    called only when Q <= ALPHA: better or worse when the figure has a
    better direction, else "differs"; otherwise "within noise" ("same"
    for a distribution).  With one value a side there is nothing to test
    (n=1); with no spread on either side and different means the
    difference is shown untested."""
    if not base or not other:
        return "-", "missing"
    ratio = ratio_text(base, other)
    b, o = base["mean"], other["mean"]
    if base["n"] < 2 or other["n"] < 2:
        return ratio, "n=1, no spread"
    if q is None:
        word = "differs" if pref in (NONE, DIST) else \
            ("higher" if o > b else "lower")
        return ratio, "%s, no spread (untested)" % word
    if q > ALPHA:
        return ratio, ("same" if pref == DIST else "within noise") + \
            " (q=%.2f)" % q
    if pref == HIGHER:
        word = "better" if o > b else "worse"
    elif pref == LOWER:
        word = "better" if o < b else "worse"
    else:
        word = "differs"
    return ratio, "%s (q=%s)" % (word, "%.3f" % q if q >= 0.001 else "<0.001")


def cell(st):
    if not st:
        return "-"
    if st["n"] < 2:
        return fmt(st["mean"])
    return "%s ± %s" % (fmt(st["mean"]), fmt(st["sd"]))


class Report:
    """The kernels in the report, the comparisons made, and the tables."""

    def __init__(self, d):
        self.d = d
        self.kernels = d.present()
        self.pairs = [(o, b) for b in BASES if b in self.kernels
                      for o in self.kernels
                      if KERNELS.index(o) > KERNELS.index(b)]
        # node/zone first, then the pairs of mglru
        self.pairs.sort(key=lambda p: KERNELS.index(p[0]))

    def head(self):
        return ["figure"] + [k + (" (INVALID)" if k in self.d.invalid else "")
                             for k in self.kernels] + \
            ["%s/%s" % p for p in self.pairs]

    def comparable(self, o, b, fig):
        """None when kernels O and B are compared on FIG, else the cell."""
        if o in self.d.invalid or b in self.d.invalid:
            return ("-", "invalid")
        if "mglru" in (o, b) and fig.mg == ABSENT:
            return ("-", "n/a: not counted by MGLRU")
        return None

    def verdicts(self, st, fig, qs=None):
        """The ratio cells of one row; QS: the adjusted p-value of each
        pair (None: not tested)."""
        out = []
        for i, (o, b) in enumerate(self.pairs):
            c = self.comparable(o, b, fig)
            if c:
                out.append(c)
                continue
            ratio, verdict = compare(st.get(b), st.get(o), fig.pref,
                                     qs[i] if qs else None)
            if "mglru" in (o, b) and fig.mg == DAGGER and verdict != "missing":
                verdict += " †"
            out.append((ratio, verdict))
        return out

    def pvalues(self, st, fig):
        """Welch's p-value of each pair of one row (None: not tested)."""
        ps = []
        for o, b in self.pairs:
            if self.comparable(o, b, fig) or not st.get(b) or not st.get(o):
                ps.append(None)
            elif "recip" in st[b] and "recip" in st[o]:
                ps.append(welch_p(st[b]["recip"], st[o]["recip"]))
            else:
                ps.append(welch_p(st[b], st[o]))
        return ps

    def table(self, rows):
        """rows: [(label, {kernel: [values]}, Fig)] -> markdown lines and
        headline rows (label, {kernel: stats}, [(ratio, verdict)], Fig)."""
        h = self.head()
        out = ["| " + " | ".join(h) + " |", "|" + "---|" * len(h)]
        tsv = []
        kept = []
        for label, vals, fig in rows:
            st = {k: stats(vals.get(k, []), fig.rate) for k in self.kernels}
            if any(st.values()):
                kept.append((label, st, fig, self.pvalues(st, fig)))
        # One family per table: the Benjamini-Hochberg adjustment runs
        # over every comparison the table makes.
        flat = [p for _, _, _, ps in kept for p in ps]
        q = bh_adjust(flat)
        for j, (label, st, fig, ps) in enumerate(kept):
            qs = q[j * len(self.pairs):(j + 1) * len(self.pairs)]
            v = self.verdicts(st, fig, qs)
            cells = ["INVALID" if k in self.d.invalid else cell(st[k])
                     for k in self.kernels]
            out.append("| %s | %s |" % (
                label + (" (TCG)" if fig.tcg else ""),
                " | ".join(cells + ["%s %s" % x if x[0] != "-" else x[1]
                                    for x in v])))
            tsv.append((label, st, v, fig))
        if not tsv:
            return ["No figures in `raw/` (not run)."], []
        return out, tsv

    def plain_table(self, rows):
        """rows: [(label, {kernel: value}, Fig)], one value per kernel
        (pooled or single runs): ratios without spread."""
        h = self.head()
        out = ["| " + " | ".join(h) + " |", "|" + "---|" * len(h)]
        for label, vals, fig in rows:
            cells = ["INVALID" if k in self.d.invalid else fmt(vals.get(k))
                     for k in self.kernels]
            rat = []
            for o, b in self.pairs:
                x, y = vals.get(o), vals.get(b)
                if o in self.d.invalid or b in self.d.invalid:
                    rat.append("invalid")
                elif x is not None and y:
                    rat.append("%.3f" % (x / y))
                else:
                    rat.append("-")
            out.append("| %s | %s |" % (label, " | ".join(cells + rat)))
        return out


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
    workload -> figure -> kernel -> [values]."""
    vmfig = {}
    for w, kerns in d.vmstat.items():
        for kern, runs in kerns.items():
            el = d.results.get((w, "elapsed_s"), {}).get(kern, [])
            for i, c in enumerate(runs):
                for k, v in vm_figures(c, el[i] if i < len(el) else 1).items():
                    vmfig.setdefault(w, {}).setdefault(k, {}).setdefault(
                        kern, []).append(v)
    return vmfig


def write_figures(d, vmfig, data):
    """All figures, all iterations, to one TSV."""
    with open(os.path.join(data, "figures.tsv"), "w") as f:
        f.write("workload\tfigure\tkernel\titeration\tvalue\n")
        for (w, m), kerns in sorted(d.results.items()):
            for kern, vals in kerns.items():
                for i, v in enumerate(vals, 1):
                    f.write("%s\t%s\t%s\t%d\t%s\n" % (w, m, kern, i, v))
        for w, figs in sorted(vmfig.items()):
            for k, kerns in sorted(figs.items()):
                for kern, vals in kerns.items():
                    for i, v in enumerate(vals, 1):
                        f.write("%s\tvm:%s\t%s\t%d\t%s\n" % (w, k, kern, i, v))


def report_head(rep, meta, status):
    """Title, run facts, how to read the tables, and what failed."""
    d = rep.d
    md = []
    md.append("# node-lru benchmark: %s\n" % ", ".join(
        {"zone": "zone LRU", "node": "node LRU",
         "mglru": "multi-gen LRU"}[k] for k in rep.kernels))
    md.append("Generated by `scripts/bench-report.py` from the raw results in "
              "`raw/`; no figure is edited by hand.\n")
    for k in rep.kernels:
        if k in d.invalid:
            md.append("**INVALID: the `%s` column.** Its guests did not run "
                      "the kernel the label says, so none of its figures is "
                      "shown or compared:\n" % k)
            md.extend("- %s" % r for r in d.invalid[k])
            md.append("")
    md.append("| | |\n|---|---|")
    for k in ("date", "commit", "base", "series", "guest", "host", "qemu",
              "iterations", "elapsed"):
        if k in meta:
            md.append("| %s | %s |" % (k, meta[k]))
    for k in rep.kernels:
        md.append("| `%s` | %s |" % (k, ABOUT[k]))
    for k in rep.kernels:
        if d.seen[k]:
            md.append("| %s, seen in the guest | %s |"
                      % (k, "; ".join(sorted(d.seen[k]))))
        vals = sorted({v for _, _, v in d.lrugen[k]})
        md.append("| %s, /sys/kernel/mm/lru_gen/enabled | %s |" % (
            k, ", ".join(vals) if vals else
            "not recorded (runs before the record was added)"))
    md.append("")
    md.append("**Read this first.** The guest runs under QEMU TCG (binary "
              "translation, no KVM): absolute times and throughputs are not "
              "hardware numbers, and TCG's timer and emulated TSC make "
              "latencies noisy; every such figure is marked *(TCG)* or sits "
              "in a section titled so.  The comparison rests on the counts "
              "(allocations per zone, pages scanned and reclaimed, stalls, "
              "swap-ins and swap-outs, OOM kills, and the pages that the "
              "workloads find in memory or not, counted directly), which "
              "come first in the summary.\n")
    md.append("Each cell is mean ± sample standard deviation over the "
              "iterations (for a rate, per second, the harmonic mean, as "
              "mmtests takes it, tested on the reciprocals).  A column "
              "`A/B` is the ratio of A's mean to B's, "
              "± its spread (the two relative deviations added in "
              "quadrature), or the difference `Δ` where B's mean is 0 or "
              "within one deviation of it, and a word for A against B.  "
              "The test: Welch's t-test of the two kernels' values, its "
              "p-value adjusted by Benjamini-Hochberg over every comparison "
              "of the same table (`q`); a difference is called only when "
              "q <= 0.05, else *within noise*.  With one iteration there is "
              "nothing to test (*n=1, no spread*); with no spread on either "
              "side and different means the direction is shown but "
              "*untested*.  With three iterations a test has little power: "
              "*within noise* is not *equal*.  A called difference gives the "
              "direction, per figure as mmtests' compare "
              "scripts do: *better* or *worse* for A where the figure has a "
              "better direction (fewer pages scanned per page reclaimed, "
              "higher throughput, fewer stalls, refaults of hot pages, "
              "swap-ins and OOM kills, lower latency and fewer cycles; more "
              "of the hot set surviving), *differs* where it has none (pages "
              "reclaimed, scan velocity, slab scans), and *differs* or "
              "*same* for a distribution (the share of allocations per "
              "zone, the pages per zone).\n")
    if "mglru" in rep.kernels:
        md.append("† The multi-gen LRU of 6.1 counts these differently: "
                  "`pgscan_*` counts only the pages it isolates for eviction "
                  "(pages it keeps go to `pgrefill`, and its page table "
                  "walks count nowhere), so its scan and efficiency figures "
                  "are not the classic LRU's; `workingset_refault_*` counts "
                  "a refault only while the evicted page's generation is "
                  "still the oldest, `workingset_restore_*` is its own "
                  "notion of a stall, and `workingset_activate_*` it never "
                  "counts (no comparison is made).  "
                  "`pages_examined_scan_refill` (pgscan + pgrefill) is the "
                  "closest common measure of scanning.  The counts of pages "
                  "found in memory (re-read hits, hot set survival, pages in "
                  "swap, major faults) and pswpin/pswpout mean the same on "
                  "every kernel.\n")
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
        md.extend("- %s, run %s: `%s`" % x for x in failed_tests)
        md.append("")
    return md


def kvals(f, name, kernels):
    """{kernel: values} of figure NAME in a workload's figure dict."""
    return {k: f.get(name, {}).get(k, []) for k in kernels}


def rvals(d, workload, metric):
    return d.results.get((workload, metric), {})


# Each section below returns its report.md lines and its headline rows
# (label, {kernel: stats}, [(ratio, verdict)], Fig), in report order.

def alloc_section(rep, vmfig, bench):
    """1. Allocation distribution; writes data/alloc-share.tsv and its plot."""
    md = ["## 1. Allocation distribution (streaming write, pgalloc per zone)\n"]
    rows = []
    f = vmfig.get("alloc", {})
    for z in ("dma", "dma32", "normal", "movable"):
        rows.append(("%s share of allocations (%%)" % z.upper(),
                     kvals(f, "alloc_share_%s_pct" % z, rep.kernels), Fig(DIST)))
    for z in ("dma", "dma32", "normal"):
        rows.append(("pgalloc_%s" % z, kvals(f, "pgalloc_" + z, rep.kernels),
                     Fig(DIST)))
    t, tsv = rep.table(rows)
    md.extend(t)
    headline = [r for r in tsv if "DMA32 share" in r[0] or "NORMAL share" in r[0]]
    with open(os.path.join(bench, "data", "alloc-share.tsv"), "w") as out:
        out.write("kernel\tDMA\tDMA32\tNormal\n")
        for k in rep.kernels:
            vals = [stats(f.get("alloc_share_%s_pct" % z, {}).get(k, []))
                    for z in ("dma", "dma32", "normal")]
            out.write("%s\t%s\n" % (k, "\t".join(
                "%.2f" % (v["mean"] if v else 0) for v in vals)))
    if rep.kernels and gnuplot("""set terminal png size 640,400
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


def bonnie_section(rep, vmfig):
    """2. bonnie++: its CSV fields, then vmstat during the run."""
    d = rep.d
    sizes = sorted({int(v) for vs in rvals(d, "bonnie", "size_mib").values()
                    for v in vs})
    md = ["## 2. bonnie++ (ext4, data set %s MiB; throughputs are TCG "
          "timings)\n" % ("/".join(str(x) for x in sizes) or "?")]
    md.append("Full runs use twice RAM and bonnie++ 2.00's per-character "
              "tests (over its default of 20 MiB); quick runs a smaller set "
              "without them.\n")
    rows = []
    for idx, label in BONNIE_FIELDS.items():
        vals = {}
        for k in rep.kernels:
            for csv in d.bonnie.get(k, []):
                try:
                    vals.setdefault(k, []).append(float(csv[idx]))
                except (IndexError, ValueError):
                    pass    # skipped (quick mode) or "+++++" (too fast)
        rows.append((label, vals, Fig(HIGHER, tcg=True, rate=True)))
    t, tsv = rep.table(rows)
    md.extend(t)
    headline = [r for r in tsv if r[0] in ("SeqOut Block KiB/s",
                                           "SeqIn Block KiB/s")]
    md.append("\nvmstat during bonnie++:\n")
    t, tsv = vm_table(rep, vmfig.get("bonnie", {}))
    md.extend(t)
    headline += [("bonnie " + r[0], *r[1:]) for r in tsv
                 if r[0] in ("allocation_stalls", "kswapd_efficiency_pct",
                             "reclaimed_per_scanned_less_skipped_pct")]
    md.append("")
    return md, headline


def stutter_section(rep, vmfig, bench):
    """3. stutter: latency percentiles, best-N% means, vmstat, plots and
    the per-zone LRU pages when it ended."""
    d = rep.d
    md = ["## 3. stutter (anon hog + file copy + mmap latency probe; "
          "latencies are TCG timings)\n"]
    rows = []
    for m in ("min", "p25", "p50", "p75", "p90", "p93", "p95", "p99",
              "max", "mean"):
        rows.append(("mmap latency %s (us)" % m,
                     rvals(d, "stutter", "lat_%s_us" % m), Fig(LOWER, tcg=True)))
    t, tsv = rep.table(rows)
    md.extend(t)
    headline = [r for r in tsv if r[0] in ("mmap latency p50 (us)",
                                           "mmap latency p99 (us)",
                                           "mmap latency max (us)")]
    bm = {k: best_means(d.raw[k]) for k in rep.kernels}
    md.append("\nBest-N%% means over all samples of all iterations (%s; "
              "pooled, so no spread):\n" % ", ".join(
                  "%s: %d samples" % (k, len(d.raw[k])) for k in rep.kernels))
    keys = list(best_means([]))
    md.extend(rep.plain_table([(k + " (us, TCG)",
                                {e: bm[e][k] for e in rep.kernels}, Fig(LOWER))
                               for k in keys]))
    md.append("\nvmstat during stutter:\n")
    t, tsv = vm_table(rep, vmfig.get("stutter", {}))
    md.extend(t)
    headline += [("stutter " + r[0], *r[1:]) for r in tsv if r[0] in (
        "kswapd_efficiency_pct", "reclaimed_per_scanned_less_skipped_pct",
        "direct_velocity", "allocation_stalls", "page_writes_by_reclaim")]
    md += stutter_plots(rep, bench)
    md.append("")
    md += zone_lru_table(rep, "stutter")
    md += zone_lru_plot(rep, bench, "stutter")
    return md, headline


def stutter_plots(rep, bench):
    """The latency CDF and, from the first iteration of each kernel, the
    scan rates over time: data/*.tsv and their plots."""
    d = rep.d
    md = []
    data = os.path.join(bench, "data")
    cdf = []
    for k in rep.kernels:
        s = sorted(d.raw[k])
        if not s:
            continue
        with open(os.path.join(data, "stutter-cdf-%s.tsv" % k), "w") as out:
            for i, v in enumerate(s, 1):
                out.write("%s\t%.5f\n" % (v, i / len(s)))
        cdf.append(k)
    if len(cdf) >= 2 and gnuplot("""set terminal png size 640,400
set output 'plots/stutter-cdf.png'
set title 'stutter: mmap+touch latency of 4 MiB, CDF'
set logscale x
set xlabel 'latency (us, TCG)'
set ylabel 'fraction of samples'
set key bottom right
plot %s
""" % ", \\\n     ".join("'data/stutter-cdf-%s.tsv' using 1:2 with lines title '%s'"
                        % (k, k) for k in cdf), bench):
        md.append("\n![stutter latency CDF](plots/stutter-cdf.png)\n")
    # scan rates over time, first iteration of each kernel
    plotted = []
    for k in rep.kernels:
        key = (k, 1, "stutter")
        if key not in d.samples:
            continue
        hdr, rows = d.samples[key]
        if not hdr or len(rows) < 2:
            continue
        ik, idd = hdr.index("pgscan_kswapd") + 1, hdr.index("pgscan_direct") + 1
        with open(os.path.join(data, "scan-rate-%s.tsv" % k), "w") as out:
            out.write("t\tkswapd\tdirect\n")
            for a, b in zip(rows, rows[1:]):
                out.write("%d\t%d\t%d\n" % (b[0], b[ik] - a[ik], b[idd] - a[idd]))
        plotted.append(k)
    if len(plotted) >= 2 and gnuplot("""set terminal png size 800,400
set output 'plots/scan-rates.png'
set title 'stutter, first iteration: pages scanned per second (TCG seconds)'
set xlabel 'seconds'
set ylabel 'pages/s'
plot %s
""" % ", \\\n     ".join(
            "'data/scan-rate-%s.tsv' using 1:%d with lines title '%s %s'"
            % (k, col, k, what) for k in plotted
            for col, what in ((2, "kswapd"), (3, "direct"))), bench):
        md.append("\n![scan rates](plots/scan-rates.png)\n")
    return md


def pagealloc_section(rep):
    """4. Page allocator microbenchmark, orders 0 and 1, batches 1 to 16384."""
    d = rep.d
    md = ["## 4. Page allocator microbenchmark (cycles per page, "
          "minimum over the loops; TCG cycles)\n"]
    rows = []
    for order in (0, 1):
        b = 1
        while b <= 16384:
            r = rvals(d, "pagealloc", "odr%d-%d_total" % (order, b))
            if r:
                rows.append(("total-odr%d-%d" % (order, b), r,
                             Fig(LOWER, tcg=True)))
            b *= 2
    t, tsv = rep.table(rows)
    md.extend(t)
    headline = [r for r in tsv if r[0] in ("total-odr0-1", "total-odr0-64",
                                           "total-odr0-16384")]
    md.append("")
    return md, headline


def fio_section(rep, vmfig):
    """5. fio throughput, then vmstat during the run."""
    d = rep.d
    md = ["## 5. Streaming I/O throughput (fio, buffered 4 KiB, KiB/s; TCG "
          "timings)\n"]
    rows = []
    for jobs in (1, 2, 4):
        for rw in ("write", "read", "randwrite", "randread"):
            rows.append(("%s %d job%s" % (rw, jobs, "s" if jobs > 1 else ""),
                         rvals(d, "fio", "%s-%d_kibps" % (rw, jobs)),
                         Fig(HIGHER, tcg=True, rate=True)))
    t, tsv = rep.table(rows)
    md.extend(t)
    headline = [("fio " + r[0], *r[1:]) for r in tsv
                if r[0] in ("read 1 job", "write 1 job")]
    md.append("\nvmstat during fio:\n")
    t, _ = vm_table(rep, vmfig.get("fio", {}))
    md.extend(t)
    md.append("")
    return md, headline


LOCK_PREF = {"contentions": Fig(LOWER), "waittime_total_us": Fig(LOWER, tcg=True),
             "acquisitions": Fig(NONE), "holdtime_total_us": Fig(NONE, tcg=True)}


def lockstat_section(rep):
    """6. LRU lock contention from the lockstat run; no headline rows."""
    d = rep.d
    md = ["## 6. LRU lock contention (debug kernels with LOCK_STAT, a "
          "separate run: not comparable with the timings above)\n"]
    lock = [(w, m) for (w, m) in d.results if w == "lockstat" and
            "lru_lock" in m]
    if lock:
        # "&zone->lru_lock_contentions": the class differs between the ends
        byfig, classes = {}, {}
        for w, m in lock:
            cls, fig = re.match(r"^(.*lru_lock)_(.*)$", m).groups()
            for kern, vals in d.results[(w, m)].items():
                byfig.setdefault(fig, {})[kern] = vals[0]
                classes.setdefault(kern, set()).add(cls)
        t = rep.plain_table([(fig + (" (TCG)" if LOCK_PREF.get(
            fig, Fig(NONE)).tcg else ""), byfig[fig], LOCK_PREF.get(fig, Fig(NONE)))
            for fig in sorted(byfig)])
        md.append(t[0])
        md.append(t[1])
        md.append("| lock class | %s |" % " | ".join(
            [", ".join("`%s`" % c for c in sorted(classes.get(k, []))) or "-"
             for k in rep.kernels] + [""] * len(rep.pairs)))
        md.extend(t[2:])
        md.append("\nOne run per kernel: ratios without spread.  The lock "
                  "class row names the lock each kernel takes: one per zone "
                  "(`&zone->lru_lock`, the zone end once the series moves "
                  "the lock to the node), one per node (`&pgdat->lru_lock`, "
                  "the zone end of earlier series and the steps between), "
                  "or one per lruvec (`&lruvec->lru_lock`, the node end and "
                  "the multi-gen LRU).  The three workers run in memcgs of "
                  "their own where the kernel has the memory controller "
                  "(`raw/lockstat-*.ktap` says how many): their lruvecs "
                  "share a zone's lock at the zone end and the node's lock "
                  "at the steps between, and each has its own at the node "
                  "end.  Three memcgs on one node are a handful of locks: "
                  "this shows the lock in use and its traffic, not a "
                  "scaling difference.")
    else:
        md.append("Not run (see the status above).")
    md.append("")
    return md, []


def counted_section(rep, vmfig, md, rows, key, headline_names, extra=None):
    """The end that the page-counting workload sections share: their table,
    the headline rows named, extra lines (a plot) and vmstat during the
    workload; or "Not run" when raw/ has none of their figures."""
    if not rows:
        return md + ["Not run (no figures in `raw/`).", ""], []
    t, tsv = rep.table(rows)
    md.extend(t)
    headline = [(key + " " + r[0], *r[1:]) for r in tsv
                if r[0] in headline_names]
    if extra:
        md += extra()
    md.append("\nvmstat during the whole workload:\n")
    t, _ = vm_table(rep, vmfig.get(key, {}))
    md.extend(t)
    md.append("")
    return md, headline


def reread_section(rep, vmfig):
    """7. A file re-read larger than RAM: hits per pass, workingset."""
    d = rep.d
    md = ["## 7. File re-read larger than RAM (sparse file of 13/10 RAM, "
          "read twice)\n"]
    md.append("`passN_hit_pages`: pages of the file found in the page cache "
              "right before each read (mincore(), the same count on every "
              "kernel); pass 1 starts with none.  In pass 2 a hit is a page "
              "that survived the first pass.\n")
    rows = []
    for p in (1, 2):
        for m, fig in (("hit_pct", Fig(HIGHER)), ("hit_pages", Fig(HIGHER)),
                       ("miss_pages", Fig(LOWER)),
                       ("workingset_refault_file", VM_FIGS["workingset_refault_file"]),
                       ("workingset_activate_file", VM_FIGS["workingset_activate_file"]),
                       ("workingset_restore_file", VM_FIGS["workingset_restore_file"]),
                       ("pgscan_kswapd", Fig(LOWER, DAGGER)),
                       ("pgscan_direct", Fig(LOWER, DAGGER)),
                       ("pgsteal_kswapd", Fig(NONE)),
                       ("pgsteal_direct", Fig(LOWER)),
                       ("pgrefill", Fig(NONE, DAGGER)),
                       ("s", Fig(LOWER, tcg=True))):
            name = "pass%d_%s" % (p, m)
            r = rvals(d, "reread", name)
            if r:
                rows.append((name, r, fig))
    return counted_section(rep, vmfig, md, rows, "reread",
                           ("pass2_hit_pct", "pass2_workingset_refault_file"))


def anon_section(rep, vmfig):
    """8. An anon set larger than RAM, touched twice: swap traffic."""
    d = rep.d
    md = ["## 8. Anon working set larger than RAM (5/4 of RAM, filled, then "
          "every word read back)\n"]
    md.append("`pass1_swapped_pages`: pages in swap after the fill "
              "(/proc/self/pagemap); pass 2 reads them back (`pass2_majflt`: "
              "the process's major faults).  `pages_verified` must equal "
              "`pages`: nothing lost.\n")
    rows = []
    for name, fig in (("pages", Fig(NONE)), ("pages_verified", Fig(NONE)),
                      ("pass1_swapped_pages", Fig(LOWER)),
                      ("pass1_resident_pages", Fig(HIGHER)),
                      ("pass1_pswpout", Fig(LOWER)),
                      ("pass2_pswpin", Fig(LOWER)),
                      ("pass2_majflt", Fig(LOWER)),
                      ("pass1_workingset_refault_anon",
                       VM_FIGS["workingset_refault_anon"]),
                      ("pass2_workingset_refault_anon",
                       VM_FIGS["workingset_refault_anon"]),
                      ("pass2_workingset_activate_anon",
                       VM_FIGS["workingset_activate_anon"]),
                      ("pass1_pgscan_kswapd", Fig(LOWER, DAGGER)),
                      ("pass1_pgscan_direct", Fig(LOWER, DAGGER)),
                      ("pass1_pgsteal_kswapd", Fig(NONE)),
                      ("pass1_pgsteal_direct", Fig(LOWER)),
                      ("pass1_oom_kill", Fig(LOWER)),
                      ("pass2_oom_kill", Fig(LOWER)),
                      ("pass1_s", Fig(LOWER, tcg=True)),
                      ("pass2_s", Fig(LOWER, tcg=True))):
        r = rvals(d, "anon", name)
        if r:
            rows.append((name, r, fig))
    return counted_section(rep, vmfig, md, rows, "anon",
                           ("pass1_pswpout", "pass2_pswpin"))


HOTCOLD = {
    "hotcold": "## 9. Hot set and cold stream (hot: 2/5 of RAM, half anon, "
               "half file, used again after each 1/16 of a cold file of 3/2 "
               "RAM)\n",
    "hotcold-tight": "## 10. Hot set and cold stream, tight (hot: 0.55 of RAM, "
                     "half anon, half file, used again after each chunk of "
                     "0.6 of RAM of the cold stream, 8 rounds: hot set and "
                     "chunk exceed RAM)\n",
    "uneven": "## 11. Uneven pressure (the hot/cold workload, 8 rounds, "
              "beside repeated allocations only DMA32 and below may satisfy; "
              "Normal and below on the movable topology)\n",
}


def hotcold_section(rep, vmfig, bench, key="hotcold"):
    """9, 10. Hot set and cold stream: how much of the hot set survives."""
    d = rep.d
    md = [HOTCOLD[key]]
    md.append("Counted page by page before each use of the hot set: "
              "`hot_file_missing_pages` (mincore()) and "
              "`hot_anon_swapped_pages` (/proc/self/pagemap), summed over the "
              "rounds; `hot_survival_pct` is the share of the hot set found in "
              "memory, over all rounds.  During each use: "
              "`hot_file_reread_pages` (pages of the hot file read in again) "
              "and `hot_anon_majflt` (swap-ins).\n")
    rows = []
    for name, fig in (("hot_survival_pct", Fig(HIGHER)),
                      ("hot_file_survival_pct", Fig(HIGHER)),
                      ("hot_anon_survival_pct", Fig(HIGHER)),
                      ("worst_round_survival_pct", Fig(HIGHER)),
                      ("hot_file_missing_pages", Fig(LOWER)),
                      ("hot_anon_swapped_pages", Fig(LOWER)),
                      ("hot_file_reread_pages", Fig(LOWER)),
                      ("hot_anon_majflt", Fig(LOWER)),
                      ("rounds_workingset_refault_file",
                       VM_FIGS["workingset_refault_file"]),
                      ("rounds_workingset_refault_anon",
                       VM_FIGS["workingset_refault_anon"]),
                      ("rounds_workingset_activate_file",
                       VM_FIGS["workingset_activate_file"]),
                      ("rounds_pswpin", Fig(LOWER)),
                      ("rounds_pswpout", Fig(LOWER)),
                      ("rounds_pgscan_kswapd", Fig(LOWER, DAGGER)),
                      ("rounds_pgscan_direct", Fig(LOWER, DAGGER)),
                      ("rounds_oom_kill", Fig(LOWER)),
                      ("pages_verified", Fig(NONE)),
                      ("rounds_s", Fig(LOWER, tcg=True))):
        r = rvals(d, key, name)
        if r:
            rows.append((name, r, fig))
    if key == "uneven":
        for name, fig in (("hog_requests", Fig(NONE)),
                          ("hog_pages_failed", Fig(LOWER)),
                          ("hog_request_ms", Fig(LOWER, tcg=True))):
            r = rvals(d, key, name)
            if r:
                rows.append((name, r, fig))
    # Survival of the hot anon pages by the zone they were in at their
    # last use (hot-cold.c, from the page frames).
    for w, name in sorted(d.results):
        if w == key and name.startswith("hot_anon_survival_pct_node"):
            rows.append((name, rvals(d, key, name), Fig(HIGHER)))
    return counted_section(rep, vmfig, md, rows, key,
                           ("hot_survival_pct", "hot_file_reread_pages",
                            "hot_anon_majflt"),
                           extra=lambda: hotcold_plot(rep, bench, key) +
                           zone_lru_plot(rep, bench, key))


def hotcold_plot(rep, bench, key="hotcold"):
    """Survival of the hot set per round, mean over the iterations."""
    d = rep.d
    plotted = []
    for k in rep.kernels:
        rounds = d.rounds.get((k, key), {})
        if not rounds:
            continue
        with open(os.path.join(bench, "data", "%s-rounds-%s.tsv" % (key, k)),
                  "w") as out:
            out.write("round\thot_survival_pct\tfile_missing\tanon_swapped\n")
            for r in sorted(rounds):
                v = [x for x in rounds[r] if len(x) == 4 and x[1] + x[3]]
                if not v:
                    continue
                surv = statistics.fmean(
                    100.0 * (x[1] + x[3] - x[0] - x[2]) / (x[1] + x[3])
                    for x in v)
                out.write("%d\t%.3f\t%.1f\t%.1f\n" % (
                    r, surv, statistics.fmean(x[0] for x in v),
                    statistics.fmean(x[2] for x in v)))
        plotted.append(k)
    if plotted and gnuplot("""set terminal png size 640,400
set output 'plots/%s-survival.png'
set title 'Hot set found in memory before each use (mean over iterations)'
set xlabel 'round (one chunk of the cold stream each)'
set ylabel 'percent of the hot set'
set yrange [0:105]
set key bottom left
plot %s
""" % (key, ", \\\n     ".join(
            "'data/%s-rounds-%s.tsv' using 1:2 with linespoints title '%s'"
            % (key, k, k) for k in plotted)), bench):
        return ["\n![hot set survival](plots/%s-survival.png)\n" % key]
    return []


def headline_text(rep, meta, headline):
    """headline.md: plain text for the cover letter; the counts first,
    then the TCG timings."""
    d = rep.d
    hl = ["Measured with `make bench` (%s, %s iteration(s), guest %s)."
          % (meta.get("commit", "?"), meta.get("iterations", "?"),
             meta.get("guest", "?")),
          "Kernels: %s." % "; ".join("%s = %s" % (k, ABOUT[k])
                                     for k in rep.kernels),
          "QEMU TCG: counts and ratios matter, absolute times do not."]
    for k in rep.kernels:
        if k in d.invalid:
            hl.append("INVALID: the %s column (its guests did not run the %s "
                      "kernel; see report.md)." % (k, k))
    if any(r[3].mg == DAGGER for r in headline) and "mglru" in rep.kernels:
        hl.append("†: counted differently by the multi-gen LRU (report.md "
                  "says how).")
    hl.append("")
    fmt_row = "%-40s" + " %16s" * len(rep.kernels) + " %30s" * len(rep.pairs)
    head = fmt_row % tuple([""] + list(rep.kernels) +
                           ["%-14s" % ("%s/%s" % p) for p in rep.pairs])
    for title, tcg in (("Counts (independent of TCG timing):", False),
                       ("TCG timings (not hardware numbers):", True)):
        rows = [r for r in headline if r[3].tcg == tcg]
        if not rows:
            continue
        hl += [title, head.rstrip()]
        for label, st, v, fig in rows:
            hl.append((fmt_row % tuple(
                [label[:40]] + ["INVALID" if k in d.invalid else cell(st[k])
                                for k in rep.kernels] +
                ["%15s %-14s" % x for x in v])).rstrip())
        hl.append("")
    return hl


def summary_section(rep, headline):
    """The headline rows as the report's first table: counts, then the
    TCG timings."""
    md = ["## Summary\n"]
    h = rep.head()
    for title, tcg in (("Counts (independent of TCG timing):", False),
                       ("TCG timings (not hardware numbers):", True)):
        rows = [r for r in headline if r[3].tcg == tcg]
        if not rows:
            continue
        md += [title + "\n", "| " + " | ".join(h) + " |", "|" + "---|" * len(h)]
        for label, st, v, fig in rows:
            md.append("| %s | %s |" % (label, " | ".join(
                ["INVALID" if k in rep.d.invalid else cell(st[k])
                 for k in rep.kernels] +
                ["%s %s" % x if x[0] != "-" else x[1] for x in v])))
        md.append("")
    return md


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-report.py BENCH-DIR")
    bench = sys.argv[1]
    d = load(bench)
    rep = Report(d)
    data = os.path.join(bench, "data")
    os.makedirs(data, exist_ok=True)
    os.makedirs(os.path.join(bench, "plots"), exist_ok=True)
    meta, status = read_meta(bench)
    vmfig = workload_figures(d)
    write_counters(d, data)
    write_figures(d, vmfig, data)

    md = report_head(rep, meta, status)
    body = []
    headline = []
    for lines, rows in (alloc_section(rep, vmfig, bench),
                        bonnie_section(rep, vmfig),
                        stutter_section(rep, vmfig, bench),
                        pagealloc_section(rep),
                        fio_section(rep, vmfig),
                        lockstat_section(rep),
                        reread_section(rep, vmfig),
                        anon_section(rep, vmfig),
                        hotcold_section(rep, vmfig, bench),
                        hotcold_section(rep, vmfig, bench, "hotcold-tight"),
                        hotcold_section(rep, vmfig, bench, "uneven")):
        body += lines
        headline += rows
    md += summary_section(rep, headline) + body
    with open(os.path.join(bench, "report.md"), "w") as out:
        out.write("\n".join(md) + "\n")

    hl = headline_text(rep, meta, headline)
    with open(os.path.join(bench, "headline.md"), "w") as out:
        out.write("\n".join(hl) + "\n")
    print("\n".join(hl))
    if d.invalid:
        for k, why in d.invalid.items():
            sys.stderr.write("bench-report: INVALID: the %s column: %s\n"
                             % (k, "; ".join(why)))
        sys.exit(2)


def write_counters(d, data):
    """Every per-node and per-zone counter, before and after."""
    with open(os.path.join(data, "counters.tsv"), "w") as out:
        out.write("kernel\titer\tworkload\tscope\tcounter\tbefore\tafter\n")
        for (kern, it, w), c in sorted(d.counters.items()):
            for (scope, name), (b, a) in sorted(c.items()):
                out.write("%s\t%s\t%s\t%s\t%s\t%d\t%d\n" % (
                    kern, it, w, scope, name, b, a))


LRU_ZONE = ("nr_zone_inactive_anon", "nr_zone_active_anon",
            "nr_zone_inactive_file", "nr_zone_active_file", "nr_free_pages")


def zone_lru_plot(rep, bench, workload):
    """LRU pages of every zone over the workload's first iteration, one
    panel per kernel: data/zonelru-WORKLOAD-KERNEL.tsv and its plot."""
    d = rep.d
    panels = []
    for k in rep.kernels:
        zs = d.zsamples.get((k, 1, workload))
        if not zs:
            continue
        zones = sorted(zs)
        times = sorted({t for z in zones for t, _, _ in zs[z]})
        if len(times) < 2:
            continue
        by = {z: {t: lru for t, lru, _ in zs[z]} for z in zones}
        name = "zonelru-%s-%s.tsv" % (workload, k)
        with open(os.path.join(bench, "data", name), "w") as out:
            out.write("t\t%s\n" % "\t".join(zones))
            for t in times:
                out.write("%d\t%s\n" % (t, "\t".join(
                    str(by[z].get(t, "")) for z in zones)))
        panels.append((k, name, zones))
    if not panels:
        return []
    plots = []
    for k, name, zones in panels:
        plots.append("set title '%s'\nplot %s" % (k, ", \\\n     ".join(
            "'data/%s' using 1:%d with lines title '%s'" % (name, i + 2, z)
            for i, z in enumerate(zones))))
    if gnuplot("""set terminal png size %d,400
set output 'plots/zonelru-%s.png'
set multiplot layout 1,%d title '%s, first iteration: LRU pages per zone (1 Hz samples)'
set xlabel 'seconds (TCG)'
set ylabel 'pages on the LRU lists'
set key top left
%s
unset multiplot
""" % (420 * len(panels), workload, len(panels), workload,
           "\n".join(plots)), bench):
        return ["\n![LRU pages per zone over time, %s](plots/zonelru-%s.png)\n"
                % (workload, workload)]
    return []


def zone_lru_table(rep, workload):
    """LRU and free pages per zone when the workload ended (zoneinfo)."""
    cells = {}   # (scope, counter) -> kernel -> [after]
    for (kern, it, w), c in rep.d.counters.items():
        if w != workload or it == 0:
            continue
        for (scope, name), (_, a) in c.items():
            if "/" in scope and name in LRU_ZONE:
                cells.setdefault((scope, name), {}).setdefault(kern, []).append(a)
    if not cells:
        return []
    rows = []
    for scope in sorted({k[0] for k in cells}):
        for name in LRU_ZONE:
            if (scope, name) in cells:
                rows.append(("%s %s" % (scope, name), cells[(scope, name)],
                             Fig(DIST)))
    t, _ = rep.table(rows)
    return ["Per-zone pages when %s ended (/proc/zoneinfo, pages; every "
            "counter, per node too, before and after each workload, is in "
            "`data/counters.tsv`; under the multi-gen LRU the pages of its two "
            "youngest generations count as active, the older ones as "
            "inactive):\n" % workload] + t + [""]


def vm_table(rep, figs):
    rows = [(k, {e: figs.get(k, {}).get(e, []) for e in rep.kernels},
             VM_FIGS[k]) for k in VM_ORDER]
    return rep.table(rows)


if __name__ == "__main__":
    main()
