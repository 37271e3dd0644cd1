#!/usr/bin/env python3
"""Turn bench/results/latest.tsv into the Markdown table of docs/performance.md:
medians over the repetitions, the ratio to the physical limit, and the ratio
of the Python digline 0.10.0 and promptfoo to this binary."""
import argparse
import collections
import json
import os
import platform
import re
import statistics
import subprocess


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("tsv")
    p.add_argument("--report-bytes", type=int, default=0)
    p.add_argument("--hyperfine", default="")
    p.add_argument("--binary", default="")
    p.add_argument("--static", default="", help="the static musl release binary")
    p.add_argument("--crates", type=int, default=0, help="unique crates in the normal dependency tree")
    a = p.parse_args()
    rows = collections.OrderedDict()
    with open(a.tsv) as f:
        next(f)
        for line in f:
            row, tool, _rep, wall, cpu, kb, rc, limit = line.rstrip("\n").split("\t")
            rows.setdefault(row, collections.OrderedDict()).setdefault(tool, []).append(
                (float(wall), float(cpu), int(kb), int(rc), float(limit))
            )
    cpu = sh("lscpu | sed -n 's/^Model name: *//p' | head -1")
    print(f"Machine: {os.cpu_count()} cores ({cpu}), "
          f"{round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GiB, "
          f"Linux {platform.release()}; {sh('rustc --version')}; "
          f"load average at the end {os.getloadavg()[0]:.1f} (other jobs share the machine).")
    print()
    print("| measure | tool | n | wall (median) | CPU user+sys | peak RSS | limit | wall / limit | × digline | exits |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row, tools in rows.items():
        ours = tools.get("digline")
        ours_wall = statistics.median(r[0] for r in ours) if ours else None
        for tool, reps in tools.items():
            wall = statistics.median(r[0] for r in reps)
            cpu_s = statistics.median(r[1] for r in reps)
            kb = statistics.median(r[2] for r in reps)
            limit = reps[0][4]
            exits = ",".join(sorted({str(r[3]) for r in reps}))
            extra = ""
            m = re.match(r"overhead ([\d,]+) cases", row)
            if m:
                n = int(m.group(1).replace(",", ""))
                extra = f" ({n / wall:,.0f} cases/s)" if wall > 0 else ""
            vs_limit = f"{wall / limit:.2f}" if limit > 0 else "—"
            vs_ours = f"{wall / ours_wall:.1f}×" if ours_wall and tool != "digline" and ours_wall > 0 else "—"
            print(f"| {row} | {tool} | {len(reps)} | {wall:.2f} s{extra} | {cpu_s:.2f} s | "
                  f"{kb / 1024:.1f} MiB | {f'{limit:.2f} s' if limit > 0 else '—'} | {vs_limit} | {vs_ours} | {exits} |")
    print()
    if a.report_bytes:
        print(f"HTML report for the largest suite: {a.report_bytes / 1e6:.2f} MB.")
    if a.hyperfine and os.path.exists(a.hyperfine):
        r = json.load(open(a.hyperfine))["results"][0]
        print(f"`digline --version` (hyperfine -N, {len(r['times'])} runs): "
              f"median {r['median'] * 1000:.2f} ms, mean {r['mean'] * 1000:.2f} ± {r['stddev'] * 1000:.2f} ms.")
    if a.binary and os.path.exists(a.binary):
        size = os.path.getsize(a.binary)
        print(f"Release binary (the one measured above): {size:,} B = {size / 1e6:.2f} MB "
              f"({size / 2**20:.2f} MiB), {sh('file -b ' + a.binary).split(',')[1].strip()}.")
    if a.static and os.path.exists(a.static):
        size = os.path.getsize(a.static)
        kind = ", ".join(x.strip() for x in sh('file -b ' + a.static).split(',') if "static" in x or "stripped" in x)
        print(f"Static release binary (x86_64-unknown-linux-musl, what the image ships): {size:,} B = "
              f"{size / 1e6:.2f} MB ({size / 2**20:.2f} MiB), {kind}.")
    if a.crates:
        print(f"Dependencies: {a.crates} crates in the normal dependency tree (digline included).")


if __name__ == "__main__":
    main()
