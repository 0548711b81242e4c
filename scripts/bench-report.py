#!/usr/bin/env python3
"""Render a bench run (work/bench/<stamp>/round*.json) as markdown tables and
PNG plots: VDS against EEVDF, medians with min-max, the ratio VDS/EEVDF and a
verdict.  bench-report.py DIR"""
import glob
import json
import os
import statistics
import subprocess
import sys

# Direction of each metric: +1 higher is better, -1 lower is better,
# 0 informational (no verdict).
DIRECTION = {
    "samples": 0, "mean_us": -1, "sd_us": -1, "p50_us": -1, "p99_us": -1,
    "p999_us": -1, "max_us": -1, "same_cpu_rt_per_s": 1, "two_cpus_rt_per_s": 1,
    "M_mops_per_s": 1, "2M1_mops_per_s": 1, "M_jain": 1, "2M1_jain": 1,
    "nice10_share_pct": 0, "process_s": -1, "thread_s": -1,
}
NOISE = 0.05  # below this relative difference, call it the same


def main():
    d = sys.argv[1]
    runs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(d, "round*.json")))]
    if not runs:
        sys.exit(f"bench-report: no round*.json in {d}")
    ncpu = os.cpu_count() or 1
    vals = {}
    for r in runs:
        for bench, metrics in r["results"].items():
            for k, v in metrics.items():
                if isinstance(v, (int, float)):
                    vals.setdefault((bench, k), {}).setdefault(r["scheduler"], []).append(v)
    out = []
    host = open(os.path.join(d, "host.txt")).read() if os.path.exists(os.path.join(d, "host.txt")) else ""
    out.append("# VDS vs EEVDF benchmark report\n")
    out.append("```\n" + host + "```\n")
    # Busy: something else used more than a quarter of a host CPU during
    # the boot (host CPU time minus QEMU's own), or the load was high before.
    busy = [f"round {r['round']} {r['scheduler']} (other CPU use {r.get('host_other_cpus', 0):.2f}, "
            f"load before {r['host_load_before']})"
            for r in runs if r.get("host_other_cpus", 0) > 0.25 or r["host_load_before"] > 1.5 * ncpu]
    out.append("Rounds taken on a busy host: " + (", ".join(busy) if busy else "none") + "\n")
    benches = []
    for (b, _k) in vals:
        if b not in benches:
            benches.append(b)
    for b in benches:
        out.append(f"\n## {b}\n")
        out.append("| metric | EEVDF median (min–max) | VDS median (min–max) | VDS/EEVDF | verdict |")
        out.append("|---|---|---|---|---|")
        for (bb, k), per in vals.items():
            if bb != b:
                continue
            e, v = per.get("eevdf", []), per.get("vds", [])
            if not e or not v:
                continue
            me, mv = statistics.median(e), statistics.median(v)
            ratio = mv / me if me else float("nan")
            dirn = DIRECTION.get(k, 0)
            if dirn == 0 or me == 0:
                verdict = "—"
            else:
                overlap = min(v) <= max(e) and min(e) <= max(v) and len(e) > 1
                if abs(ratio - 1) < NOISE or overlap:
                    verdict = "same within noise"
                elif (ratio > 1) == (dirn > 0):
                    verdict = "better"
                else:
                    verdict = "worse"

            def fmt(xs, m):
                return f"{m:.4g} ({min(xs):.4g}–{max(xs):.4g})"
            out.append(f"| {k} | {fmt(e, me)} | {fmt(v, mv)} | {ratio:.3f} | {verdict} |")
    plots = plot(d, vals)
    if plots:
        out.append("\n## Plots\n")
        for p in plots:
            out.append(f"![{p}]({p})")
    open(os.path.join(d, "report.md"), "w").write("\n".join(out) + "\n")
    print("\n".join(out))


def plot(d, vals):
    """Latency percentiles and normalised throughput, with gnuplot."""
    made = []
    try:
        lat = [(k, vals[("latency_2M_hogs", k)]) for k in ("p50_us", "p99_us", "p999_us")
               if ("latency_2M_hogs", k) in vals]
        if lat:
            data = os.path.join(d, "latency.dat")
            with open(data, "w") as f:
                for k, per in lat:
                    f.write(f"{k} {statistics.median(per.get('eevdf', [0]))} "
                            f"{statistics.median(per.get('vds', [0]))}\n")
            script = (f"set terminal png noenhanced size 800,480; set output '{d}/latency.png';"
                      "set style data histograms; set style fill solid; set logscale y;"
                      "set ylabel 'wakeup latency (us, log)';"
                      "set title 'Periodic task among 2M hogs: latency percentiles (median of rounds)';"
                      f"plot '{data}' using 2:xtic(1) title 'EEVDF', '' using 3 title 'VDS'")
            subprocess.run(["gnuplot", "-e", script], check=True, capture_output=True)
            made.append("latency.png")
        thr = [(b, k) for (b, k) in vals if DIRECTION.get(k) == 1]
        if thr:
            data = os.path.join(d, "throughput.dat")
            with open(data, "w") as f:
                for b, k in thr:
                    per = vals[(b, k)]
                    me = statistics.median(per.get("eevdf", [1])) or 1
                    f.write(f"{k} 1 {statistics.median(per.get('vds', [0])) / me}\n")
            script = (f"set terminal png noenhanced size 800,480; set output '{d}/throughput.png';"
                      "set style data histograms; set style fill solid; set yrange [0:*];"
                      "set ylabel 'relative to EEVDF (higher is better)'; set xtics rotate by -30;"
                      "set title 'Throughput, VDS relative to EEVDF (median of rounds)';"
                      f"plot '{data}' using 2:xtic(1) title 'EEVDF', '' using 3 title 'VDS'")
            subprocess.run(["gnuplot", "-e", script], check=True, capture_output=True)
            made.append("throughput.png")
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench-report: plots skipped: {e}", file=sys.stderr)
    return made


if __name__ == "__main__":
    main()
