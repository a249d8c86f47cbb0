#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark guests' measurements into a table, JSON and a chart.

Usage: report.py OUT_DIR BENCH_OUT...

Each BENCH_OUT holds lines "BENCH {json}" written by a guest (tests/bench/bench-*.sh). For every
metric: the median of ours and of Linux's over the rounds, their ratio (ours / Linux), the A/A
band (the lowest and highest per-round ratio of Linux against itself on the identical second
device), and the spread of each side ((max - min) / median). A result counts as a win or a loss
only beyond the A/A band. Writes OUT_DIR/results.json, OUT_DIR/table.txt, OUT_DIR/ratios.dat
and, with gnuplot, OUT_DIR/ratios.png.
"""
import json
import os
import statistics
import subprocess
import sys
import time


def load(paths):
    runs = []
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.strip()
                if line.startswith("BENCH "):
                    try:
                        runs.append(json.loads(line[6:]))
                    except json.JSONDecodeError as e:
                        print("report: %s: bad line skipped (%s)" % (path, e), file=sys.stderr)
    return runs


def fio_metrics(run):
    """The metrics of one fio run: name -> (value, higher_is_better)."""
    job = run["fio"]["jobs"][0]
    rd, wr = job["read"], job["write"]
    ios = rd["total_ios"] + wr["total_ios"]
    name = run["job"]
    m = {}
    if "1m" in name:
        m["MB/s"] = ((rd["bw_bytes"] + wr["bw_bytes"]) / 1e6, True)
    else:
        m["IOPS"] = (rd["iops"] + wr["iops"], True)
    if name.endswith("qd1"):
        pct = rd["clat_ns"].get("percentile", {})
        m["p50 us"] = (pct.get("50.000000", 0) / 1000, False)
        m["p99 us"] = (pct.get("99.000000", 0) / 1000, False)
    if ios:
        m["kicks/req"] = (run["kicks"] / ios, False)
        m["irqs/req"] = (run["irqs"] / ios, False)
    return m


def iperf_metrics(run):
    end = run["iperf"]["end"]
    if run["job"].startswith("udp"):
        s = end["sum"]
        received = s["packets"] - s["lost_packets"]
        return {"packets/s": (received / s["seconds"] if s["seconds"] else 0, True)}
    return {"Mbit/s": (end["sum_received"]["bits_per_second"] / 1e6, True)}


def metrics_of(run):
    if "fio" in run:
        return fio_metrics(run)
    if "iperf" in run:
        return iperf_metrics(run)
    return {run["metric"]: (run["value"], run.get("higher_is_better", True))}


def spread(values):
    med = statistics.median(values)
    return (max(values) - min(values)) / med if med else 0.0


def summarize(runs):
    # (bench, job, metric) -> side -> round -> value
    table = {}
    better = {}
    for run in runs:
        for metric, (value, hib) in metrics_of(run).items():
            key = (run["bench"], run["job"], metric)
            table.setdefault(key, {}).setdefault(run["side"], {})[run["round"]] = value
            better[key] = hib
    rows = []
    for key in sorted(table, key=lambda k: (k[0], k[1], k[2])):
        sides = table[key]
        if "ours" not in sides and len(sides) == 1:
            # Measured on one side only (the copying transport): absolute values.
            (side, values), = sides.items()
            values = list(values.values())
            rows.append({"bench": key[0], "job": key[1], "metric": key[2],
                         "higher_is_better": better[key], "ours": statistics.median(values),
                         "linux": None, "ratio": None, "ours_spread": spread(values),
                         "linux_spread": 0.0, "rounds": len(values), "verdict": side})
            continue
        if "ours" not in sides or "linux" not in sides:
            continue
        ours = list(sides["ours"].values())
        linux = list(sides["linux"].values())
        row = {
            "bench": key[0], "job": key[1], "metric": key[2],
            "higher_is_better": better[key],
            "ours": statistics.median(ours), "linux": statistics.median(linux),
            "ours_spread": spread(ours), "linux_spread": spread(linux),
            "rounds": min(len(ours), len(linux)),
        }
        row["ratio"] = row["ours"] / row["linux"] if row["linux"] else None
        aa0, aa1 = sides.get("aa0", {}), sides.get("aa1", {})
        aa = [aa0[r] / aa1[r] for r in aa0 if r in aa1 and aa1[r]]
        if aa:
            row["aa_band"] = [min(aa), max(aa)]
            row["aa_median"] = statistics.median(aa)
        row["verdict"] = verdict(row)
        rows.append(row)
    return rows


def verdict(row):
    r = row["ratio"]
    band = row.get("aa_band")
    if r is None:
        return "n/a"
    if not band:
        return "no control"
    lo, hi = band
    if row["higher_is_better"]:
        return "win" if r > hi else "loss" if r < lo else "within noise"
    return "win" if r < lo else "loss" if r > hi else "within noise"


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 1:
        return "%.2f" % v
    return "%.3f" % v


def render(rows):
    head = ["bench", "job", "metric", "ours", "Linux", "ours/Linux", "A/A band",
            "spread ours/Linux", "verdict"]
    lines = [head]
    for r in rows:
        band = r.get("aa_band")
        lines.append([
            r["bench"], r["job"], r["metric"], fmt(r["ours"]), fmt(r["linux"]),
            fmt(r["ratio"]), "%.3f..%.3f" % tuple(band) if band else "-",
            "%.0f%%/%.0f%%" % (100 * r["ours_spread"], 100 * r["linux_spread"]),
            r["verdict"],
        ])
    widths = [max(len(str(l[i])) for l in lines) for i in range(len(head))]
    out = []
    for n, l in enumerate(lines):
        out.append("  ".join(str(c).ljust(w) for c, w in zip(l, widths)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out) + "\n"


def chart(rows, out_dir):
    rows = [r for r in rows if r["ratio"] is not None]
    dat = os.path.join(out_dir, "ratios.dat")
    with open(dat, "w") as f:
        f.write("# label ratio aa_lo aa_hi\n")
        for r in rows:
            if r["ratio"] is None:
                continue
            lo, hi = r.get("aa_band", [1.0, 1.0])
            label = "%s %s %s" % (r["bench"], r["job"], r["metric"])
            f.write('"%s" %.4f %.4f %.4f\n' % (label, r["ratio"], lo, hi))
    png = os.path.join(out_dir, "ratios.png")
    script = f"""
set terminal pngcairo size 1400,{200 + 22 * len(rows)} font ",10"
set output "{png}"
set title "ours / Linux (bars) and the A/A band of Linux against itself (whiskers)"
set style fill solid 0.5
set yrange [-1:{len(rows)}]
set ytics nomirror
set grid x
set xlabel "ratio (above 1: ours higher; for latency and costs lower is better)"
set arrow from 1, graph 0 to 1, graph 1 nohead dt 2
plot "{dat}" using 2:0:(0):2:($0-0.35):($0+0.35):yticlabels(1) with boxxyerror notitle, \\
     "{dat}" using 2:0:3:4 with xerrorbars lc rgb "black" pt 7 ps 0.5 notitle
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True)
        return png
    except (OSError, subprocess.CalledProcessError) as e:
        print("report: no chart (%s)" % e, file=sys.stderr)
        return None


def main():
    out_dir, paths = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    runs = load(paths)
    if not runs:
        sys.exit("report: no measurements in " + " ".join(paths))
    rows = summarize(runs)
    text = render(rows)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with open(os.path.join(out_dir, "table.txt"), "w") as f:
        f.write("measured %s\n\n%s" % (stamp, text))
    png = chart(rows, out_dir)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"date": stamp, "results": rows, "runs": len(runs)}, f, indent=1)
    print(text, end="")
    print("results: %s/results.json%s" % (out_dir, ", chart: " + png if png else ""))


if __name__ == "__main__":
    main()
