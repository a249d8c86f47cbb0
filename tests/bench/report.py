#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark guests' measurements into a table, JSON and a chart.

Usage: report.py OUT_DIR [--rounds N] [--host JSON] BENCH_OUT...

Each BENCH_OUT holds lines "BENCH {json}" written by a guest (tests/bench/bench-*.sh). Every
round measures three sides back to back: ours, Linux ("linux") and Linux again ("again"). For
every metric: the per-round ratios ours/linux and, the noise control, again/linux; the median of
each with a 95% bootstrap confidence interval (rounds resampled with replacement). A result is
a win or a loss only when the two intervals do not overlap; otherwise it is within noise. A row
with fewer rounds than asked (--rounds), or than MIN_ROUNDS, gets no verdict. --host is the
host's state before the run (load, other QEMU processes), shown above the table. Writes OUT_DIR/results.json,
OUT_DIR/table.txt, OUT_DIR/ratios.dat and, with gnuplot, OUT_DIR/ratios.png.
"""
import json
import os
import random
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
    # Total latency (submission included) at every depth: what batching costs shows at depth
    # 32 as at depth 2. The direction that did requests (a job reads or writes, not both).
    side = rd if rd["total_ios"] else wr
    if side["total_ios"]:
        pct = side["lat_ns"].get("percentile", {})
        m["p50 us"] = (pct.get("50.000000", 0) / 1000, False)
        m["p99 us"] = (pct.get("99.000000", 0) / 1000, False)
    if ios:
        m["kicks/req"] = (run["kicks"] / ios, False)
        m["irqs/req"] = (run["irqs"] / ios, False)
        # Guest CPU per request: fio's user and system time over the run.
        cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] * 1000
        m["CPU us/req"] = (cpu / ios, False)
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


def bootstrap(values, resamples=2000, seed=1):
    """The median of VALUES and a 95% bootstrap confidence interval of it."""
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(values, k=len(values)))
                  for _ in range(resamples))
    return statistics.median(values), meds[int(0.025 * resamples)], meds[int(0.975 * resamples) - 1]


def ratios(num, den):
    """Per-round ratios NUM/DEN over the rounds both sides measured."""
    return [num[r] / den[r] for r in sorted(num) if r in den and den[r]]


def summarize(runs, rounds_asked):
    # (bench, job, metric) -> side -> round -> value
    table = {}
    better = {}
    exact = set()
    for run in runs:
        for metric, (value, hib) in metrics_of(run).items():
            key = (run["bench"], run["job"], metric)
            table.setdefault(key, {}).setdefault(run["side"], {})[run["round"]] = value
            better[key] = hib
            if run.get("deterministic"):
                exact.add(key)
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
        ours, linux = sides["ours"], sides["linux"]
        row = {
            "bench": key[0], "job": key[1], "metric": key[2],
            "higher_is_better": better[key],
            "ours": statistics.median(ours.values()), "linux": statistics.median(linux.values()),
            "ours_spread": spread(list(ours.values())),
            "linux_spread": spread(list(linux.values())),
        }
        ab = ratios(ours, linux)
        aa = ratios(sides.get("again", {}), linux)
        row["rounds"] = min(len(ab), len(aa))
        row["ratio"] = None
        if ab:
            row["ratio"], lo, hi = bootstrap(ab)
            row["ratio_ci"] = [lo, hi]
        if aa:
            row["aa_median"], lo, hi = bootstrap(aa)
            row["aa_ci"] = [lo, hi]
        row["verdict"] = verdict(row, rounds_asked, key in exact)
        rows.append(row)
    return rows


# A measured row's fewest rounds for a verdict: a median's bootstrap interval lies within its
# rounds' range, which misses the true median with chance 2 / 2**n: under 5% from 6 rounds on.
MIN_ROUNDS = 6


def verdict(row, rounds_asked, exact):
    """EXACT: a count that is the same on every run (the ring's instructions): one round."""
    if row["ratio"] is None:
        return "n/a"
    if "aa_ci" not in row:
        return "no control"
    if exact:
        rounds_asked = 1
    if rounds_asked and row["rounds"] < rounds_asked:
        return "incomplete (%d of %d rounds)" % (row["rounds"], rounds_asked)
    if not exact and row["rounds"] < MIN_ROUNDS:
        return "too few rounds (%d of %d)" % (row["rounds"], MIN_ROUNDS)
    (lo, hi), (aa_lo, aa_hi) = row["ratio_ci"], row["aa_ci"]
    if lo <= aa_hi and aa_lo <= hi:
        return "within noise"
    above = lo > aa_hi
    return "win" if above == row["higher_is_better"] else "loss"


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 1:
        return "%.2f" % v
    return "%.3f" % v


def render(rows):
    head = ["bench", "job", "metric", "ours", "Linux", "ours/Linux (95% CI)",
            "A/A (95% CI)", "rounds", "verdict"]
    lines = [head]
    for r in rows:
        ci, aa = r.get("ratio_ci"), r.get("aa_ci")
        lines.append([
            r["bench"], r["job"], r["metric"], fmt(r["ours"]), fmt(r["linux"]),
            "%s (%s..%s)" % (fmt(r["ratio"]), fmt(ci[0]), fmt(ci[1])) if ci else fmt(r["ratio"]),
            "%s (%s..%s)" % (fmt(r["aa_median"]), fmt(aa[0]), fmt(aa[1])) if aa else "-",
            str(r["rounds"]), r["verdict"],
        ])
    widths = [max(len(str(l[i])) for l in lines) for i in range(len(head))]
    out = []
    for n, l in enumerate(lines):
        out.append("  ".join(str(c).ljust(w) for c, w in zip(l, widths)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out) + "\n"


def host_line(host):
    """One line on the host's state before the run; NOISY when it was not quiet."""
    if not host:
        return "host: not recorded"
    state = "quiet" if host.get("quiet") else "NOISY: figures less trustworthy"
    return "host: %s (load %s, %d other QEMU processes, %s CPUs)" % (
        state, host.get("load1"), host.get("other_qemu", 0), host.get("cpus"))


def chart(rows, out_dir):
    rows = [r for r in rows if r["ratio"] is not None]
    dat = os.path.join(out_dir, "ratios.dat")
    with open(dat, "w") as f:
        f.write("# label ratio aa_lo aa_hi\n")
        for r in rows:
            if r["ratio"] is None:
                continue
            lo, hi = r.get("aa_ci", [1.0, 1.0])
            label = "%s %s %s" % (r["bench"], r["job"], r["metric"])
            f.write('"%s" %.4f %.4f %.4f\n' % (label, r["ratio"], lo, hi))
    png = os.path.join(out_dir, "ratios.png")
    script = f"""
set terminal pngcairo size 1400,{200 + 22 * len(rows)} font ",10"
set output "{png}"
set title "ours / Linux, median of the rounds (bars), and the 95% interval of Linux against itself (whiskers)"
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
    args = sys.argv[1:]
    out_dir, paths, rounds_asked, host = args[0], [], 0, None
    i = 1
    while i < len(args):
        if args[i] == "--rounds":
            rounds_asked = int(args[i + 1])
            i += 2
        elif args[i] == "--host":
            host = json.loads(args[i + 1])
            i += 2
        else:
            paths.append(args[i])
            i += 1
    os.makedirs(out_dir, exist_ok=True)
    runs = load(paths)
    if not runs:
        sys.exit("report: no measurements in " + " ".join(paths))
    rows = summarize(runs, rounds_asked)
    text = host_line(host) + "\n\n" + render(rows)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with open(os.path.join(out_dir, "table.txt"), "w") as f:
        f.write("measured %s\n%s" % (stamp, text))
    png = chart(rows, out_dir)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"date": stamp, "host": host, "rounds_asked": rounds_asked,
                   "results": rows, "runs": len(runs)}, f, indent=1)
    print(text, end="")
    print("results: %s/results.json%s" % (out_dir, ", chart: " + png if png else ""))


if __name__ == "__main__":
    main()
