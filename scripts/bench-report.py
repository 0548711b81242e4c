#!/usr/bin/env python3
"""Render a bench run (work/bench/<stamp>/round*.json) as markdown tables and
PNG plots: VDS against EEVDF (or, for BAD= runs, VDS with a bad setting
against VDS at its default), medians with min-max, the ratio and a verdict.
bench-report.py DIR"""
import glob
import json
import os
import statistics
import subprocess
import sys

import benchlist

NOISE = 0.05  # below this relative difference, call it the same
LABELS = {"eevdf": "EEVDF", "vds": "VDS", "vds-rr1000": "VDS rr_interval=1000",
          "vds-nice19": "VDS, measured tasks at nice 19"}
INTER_MODELS = [("audio", "audio: 2.5 ms of CPU every 50 ms"),
                ("video", "video: 6.7 ms of CPU every 16.7 ms"),
                ("x", "X-like: period 20 ms, demand sweeping 0–100 %")]


def inter_loads(vals, model):
    """The loads b_interactive ran for a model, in the order it ran them."""
    loads = []
    for (b, _k) in vals:
        if b.startswith(f"inter:{model}:") and b.split(":", 2)[2] not in loads:
            loads.append(b.split(":", 2)[2])
    return loads


BENCHES = benchlist.benchmarks()
UNDECLARED = set()


def direction(bench, key):
    """+1 higher is better, -1 lower is better, 0 informational: as the
    benchmark's own file declares (vds-metric lines, scripts/benchlist.py).
    A key no declaration matches is informational and listed at the end."""
    d = benchlist.direction(bench, key, BENCHES)
    if d is None:
        UNDECLARED.add(f"{bench}:{key}")
        return 0
    return d


def verdict(bench, key, a, b):
    """a: baseline values, b: the other scheduler's."""
    ma, mb = statistics.median(a), statistics.median(b)
    dirn = direction(bench, key)
    if dirn == 0 or ma == 0:
        return "—"
    ratio = mb / ma
    overlap = min(b) <= max(a) and min(a) <= max(b) and len(a) > 1
    if abs(ratio - 1) < NOISE or overlap:
        return "same within noise"
    return "better" if (ratio > 1) == (dirn > 0) else "worse"


def fmt(xs):
    m = statistics.median(xs)
    if len(xs) == 1:
        return f"{m:.4g}"
    return f"{m:.4g} ({min(xs):.4g}–{max(xs):.4g})"


def main():
    d = sys.argv[1]
    runs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(d, "round*.json")))]
    if not runs:
        sys.exit(f"bench-report: no round*.json in {d}")
    scheds = []
    for r in runs:
        if r["scheduler"] not in scheds:
            scheds.append(r["scheduler"])
    base = "eevdf" if "eevdf" in scheds else "vds"
    other = [s for s in scheds if s != base]
    other = other[0] if other else base
    la, lb = LABELS.get(base, base), LABELS.get(other, other)
    ncpu = os.cpu_count() or 1
    vals = {}
    for r in runs:
        for bench, metrics in r["results"].items():
            for k, v in metrics.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    vals.setdefault((bench, k), {}).setdefault(r["scheduler"], []).append(v)
    out = []
    host = open(os.path.join(d, "host.txt")).read() if os.path.exists(os.path.join(d, "host.txt")) else ""
    out.append(f"# {lb} vs {la} benchmark report\n")
    out.append("```\n" + host + "```\n")
    # Busy: something else used more than a quarter of a host CPU during
    # the boot (host CPU time minus QEMU's own), or the load was high before.
    busy = [f"round {r['round']} {r['scheduler']} (other CPU use {r.get('host_other_cpus', 0):.2f}, "
            f"load before {r['host_load_before']})"
            for r in runs if r.get("host_other_cpus", 0) > 0.25 or r["host_load_before"] > 1.5 * ncpu]
    out.append("Rounds taken on a busy host: " + (", ".join(busy) if busy else "none") + "\n")
    # Boots whose guest log was not clean even after bench.sh's retry (a
    # boot JSON without "guest_log" says nothing about it: taken as clean).
    dirty = [f"round {r['round']} {r['scheduler']}: {r['guest_log']}"
             for r in runs if r.get("guest_log", "clean") != "clean"]
    if dirty:
        out.append("Guest logs not clean (judged as make check does): " + "; ".join(dirty) + "\n")
    # The clocksource a boot ended on: a guest that left the TSC (for the
    # HPET, emulated) pays for every clock read from then on (decision 56).
    clocks = [f"round {r['round']} {r['scheduler']}: {r['clocksource']}"
              for r in runs if r.get("clocksource", "tsc") != "tsc"]
    if clocks:
        out.append("Boots that ended on another clocksource than the TSC: " + "; ".join(clocks) + "\n")
    out.append("Host load per boot (1-min load average before → after, host CPU used by others):\n")
    for r in runs:
        out.append(f"- round {r['round']} {LABELS.get(r['scheduler'], r['scheduler'])}: "
                   f"{r['host_load_before']} → {r['host_load_after']}, "
                   f"{r.get('host_other_cpus', 0):.2f} CPUs")
    out.append("")

    def pair(b, k):
        per = vals.get((b, k), {})
        return per.get(base, []), per.get(other, [])

    benches = []
    for (b, _k) in vals:
        if b not in benches:
            benches.append(b)
    inter = [b for b in benches if b.startswith("inter:")]
    if inter:
        out.append("\n## Interactivity (b_interactive)\n")
        out.append(f"Medians over rounds, {la} / {lb}. Latency: waker's timestamp to the task "
                   "running (µs). CPU: share of the requested CPU time delivered. Met: frames "
                   "finished before the next period. Verdict on p99 and on deadlines met.\n")
        for model, title in INTER_MODELS:
            rows = [l for l in inter_loads(vals, model) if f"inter:{model}:{l}" in inter]
            if not rows:
                continue
            out.append(f"\n### {title}\n")
            out.append("| load | p50 µs | p99 µs | p99.9 µs | max µs | mean ± sd µs | CPU % | met % | p99 verdict | met verdict |")
            out.append("|---|---|---|---|---|---|---|---|---|---|")
            for l in rows:
                b = f"inter:{model}:{l}"
                cells = []
                for k in ("p50_us", "p99_us", "p999_us", "max_us"):
                    a, v = pair(b, k)
                    cells.append(f"{statistics.median(a):.0f} / {statistics.median(v):.0f}" if a and v else "–")
                (ma, mv), (sa, sv) = pair(b, "mean_us"), pair(b, "sd_us")
                cells.append(f"{statistics.median(ma):.0f}±{statistics.median(sa):.0f} / "
                             f"{statistics.median(mv):.0f}±{statistics.median(sv):.0f}" if ma and mv else "–")
                for k in ("cpu_pct", "deadlines_met_pct"):
                    a, v = pair(b, k)
                    cells.append(f"{statistics.median(a):.1f} / {statistics.median(v):.1f}" if a and v else "–")
                for k in ("p99_us", "deadlines_met_pct"):
                    a, v = pair(b, k)
                    cells.append(verdict(b, k, a, v) if a and v else "–")
                out.append(f"| {l} | " + " | ".join(cells) + " |")
    for b in [b for b in benches if not b.startswith("inter:")] + inter:
        if b == inter[0] if inter else False:
            out.append("\n## Details: interactivity, every metric\n")
        out.append(f"\n### {b}\n" if b.startswith("inter:") else f"\n## {b}\n")
        out.append(f"| metric | {la} median (min–max) | {lb} median (min–max) | {lb}/{la} | verdict |")
        out.append("|---|---|---|---|---|")
        for (bb, k), per in vals.items():
            if bb != b:
                continue
            a, v = per.get(base, []), per.get(other, [])
            if not a or not v:
                continue
            ma, mv = statistics.median(a), statistics.median(v)
            ratio = mv / ma if ma else float("nan")
            out.append(f"| {k} | {fmt(a)} | {fmt(v)} | {ratio:.3f} | {verdict(b, k, a, v)} |")
    plots = plot(d, vals, base, other, la, lb)
    if plots:
        out.append("\n## Plots\n")
        for p in plots:
            out.append(f"![{p}]({p})")
    if UNDECLARED:
        out.append("\nMetrics no benchmark declares (shown, not judged; add a vds-metric line "
                   "to the benchmark's header): " + ", ".join(sorted(UNDECLARED)) + "\n")
    open(os.path.join(d, "report.md"), "w").write("\n".join(out) + "\n")
    print("\n".join(out))


def gnuplot(script):
    subprocess.run(["gnuplot", "-e", script], check=True, capture_output=True)


def med(per, s, default=0):
    xs = per.get(s, [])
    return statistics.median(xs) if xs else default


def plot(d, vals, base, other, la, lb):
    """Latency percentiles and normalised throughput, with gnuplot."""
    made = []
    common = "set terminal png noenhanced size 900,480; set style data histograms; set style fill solid border -1;"
    try:
        # Interactivity: per model, p50/p99/p99.9 per load.
        for model, title in INTER_MODELS:
            rows = [l for l in inter_loads(vals, model) if (f"inter:{model}:{l}", "p99_us") in vals]
            if not rows:
                continue
            data = os.path.join(d, f"inter_{model}.dat")
            with open(data, "w") as f:
                for l in rows:
                    b = f"inter:{model}:{l}"
                    f.write(l + "".join(f" {max(med(vals[(b, k)], s), 1):.1f}"
                                        for k in ("p50_us", "p99_us", "p999_us") for s in (base, other)) + "\n")
            gnuplot(common + f"set output '{d}/inter_{model}.png'; set logscale y; set key top left;"
                    "set ylabel 'wakeup latency (us, log)'; set style histogram clustered gap 1;"
                    f"set title 'Interactivity, {title}: latency percentiles per load (median of rounds)';"
                    f"plot '{data}' using 2:xtic(1) title '{la} p50' lc rgb '#9ecae1',"
                    f" '' using 3 title '{lb} p50' lc rgb '#fdae6b',"
                    f" '' using 4 title '{la} p99' lc rgb '#3182bd', '' using 5 title '{lb} p99' lc rgb '#e6550d',"
                    f" '' using 6 title '{la} p99.9' lc rgb '#08519c', '' using 7 title '{lb} p99.9' lc rgb '#a63603'")
            made.append(f"inter_{model}.png")
        met = [(b, l) for (b, k) in vals if b.startswith("inter:") and k == "deadlines_met_pct"
               for l in [b[6:]]]
        if met:
            data = os.path.join(d, "inter_met.dat")
            with open(data, "w") as f:
                for b, l in met:
                    f.write(f"{l} {med(vals[(b, 'deadlines_met_pct')], base)} "
                            f"{med(vals[(b, 'deadlines_met_pct')], other)}\n")
            gnuplot(common.replace("900,480", "1100,480") + f"set output '{d}/inter_met.png'; set yrange [0:105];"
                    "set ylabel 'deadlines met (%)'; set xtics rotate by -45; set key outside right top;"
                    "set title 'Interactivity: frames finished before the next period (median of rounds)';"
                    f"plot '{data}' using 2:xtic(1) title '{la}', '' using 3 title '{lb}'")
            made.append("inter_met.png")
        lat = [(b, k) for b in ("latency_2M_hogs", "schbench")
               for k in ("p50_us", "p99_us", "p999_us", "wake_p50_us", "wake_p99_us", "wake_p999_us",
                         "req_p50_us", "req_p99_us", "req_p999_us") if (b, k) in vals]
        if lat:
            data = os.path.join(d, "latency.dat")
            with open(data, "w") as f:
                for b, k in lat:
                    short = {"latency_2M_hogs": "periodic", "schbench": "schbench"}[b]
                    f.write(f"{short}:{k.replace('_us', '')} {max(med(vals[(b, k)], base), 1)} "
                            f"{max(med(vals[(b, k)], other), 1)}\n")
            gnuplot(common + f"set output '{d}/latency.png'; set logscale y; set xtics rotate by -30;"
                    "set ylabel 'latency (us, log)';"
                    "set title 'Periodic task among 2M hogs, and schbench: percentiles (median of rounds)';"
                    f"plot '{data}' using 2:xtic(1) title '{la}', '' using 3 title '{lb}'")
            made.append("latency.png")
        # Throughput: rates as they are, times inverted (higher is better).
        thr = [(b, k) for (b, k) in vals if not b.startswith("inter:") and
               (k.endswith("_per_s") or k.endswith("mops_per_s") or
                (direction(b, k) == -1 and k.endswith("_s")))]
        if thr:
            data = os.path.join(d, "throughput.dat")
            with open(data, "w") as f:
                for b, k in thr:
                    per = vals[(b, k)]
                    ma, mb = med(per, base, 1) or 1, med(per, other, 0)
                    rel = mb / ma if direction(b, k) > 0 else (ma / mb if mb else 0)
                    f.write(f"{b}:{k} 1 {rel}\n")
            gnuplot(common.replace("900,480", "1000,520") + f"set output '{d}/throughput.png'; set yrange [0:*];"
                    f"set ylabel 'relative to {la} (higher is better)'; set xtics rotate by -40;"
                    f"set title 'Throughput, {lb} relative to {la} (median of rounds; times inverted)';"
                    f"plot '{data}' using 2:xtic(1) title '{la}', '' using 3 title '{lb}'")
            made.append("throughput.png")
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench-report: plots skipped: {e} {getattr(e, 'stderr', b'')[:300]}", file=sys.stderr)
    return made


if __name__ == "__main__":
    main()
