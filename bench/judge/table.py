#!/usr/bin/env python3
"""The Markdown tables of docs/statistics.md ("Judge drift, measured") from
the lines bench/judge/simulate.py wrote.

Usage:  bench/judge/table.py [RULE.jsonl [VARIANT.jsonl]]
        (default bench/results/judge-sim.jsonl; a variant file, written
        with --changed-alpha, adds its rename and named-swap columns)
        bench/judge/table.py --binary SUMMARY.jsonl...
        (bench/judge/run.py's summaries: one row per scenario, the last
        summary of each scenario, noise, shift and memo mode)
"""
import json
import sys


def pct(share, ci):
    return f"{100 * share:.1f} % ({100 * ci[0]:.1f}–{100 * ci[1]:.1f})"


def load(path):
    return [json.loads(line) for line in open(path)]


def one(rows, **want):
    hits = [r for r in rows if all(r[k] == v for k, v in want.items())]
    assert len(hits) == 1, (want, len(hits))
    return hits[0]


def worst(rows, key, lowest=True, **want):
    """Over base rates and churn: the lowest share of `key` (or highest)."""
    hits = [r for r in rows if all(r[k] == v for k, v in want.items())]
    if not hits:
        return None
    pick = min if lowest else max
    return pick(hits, key=lambda r: r[f"{key}_share"])


def cell(r, key):
    return "—" if r is None else pct(r[f"{key}_share"], r[f"{key}_ci95"])


def binary(paths):
    rows = {}
    for path in paths:
        for line in open(path):
            r = json.loads(line)
            rows[(r["binary_commit"], r["scenario"], r["noise"], r.get("shift", 0.1), r["judge_memo"])] = r
    print("| binary | scenario | noise | shift | memo | gates | exit 0 | exit 1 | exit 2 naming the judge "
          "| read as moved | read as renamed | judge calls per gate (median) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (commit, scenario, noise, shift, memo), r in rows.items():
        n = r["trials"]
        zero = r["exits"].get("0", 0)
        shift_cell = f"{round(100 * shift)} pts" if scenario in ("swap-named", "swap-silent", "pr-strict") else "—"
        renamed = pct(r["renamed"]["share"], r["renamed"]["ci95"]) if "renamed" in r else "—"
        moved = pct(r["moved"]["share"], r["moved"]["ci95"]) if "moved" in r else "—"
        print(f"| {' '.join(commit.split(' ')[:2])} | {scenario} | {noise} | {shift_cell} | {memo} | {n} | {zero} | "
              f"{pct(r['exit1']['share'], r['exit1']['ci95'])} | "
              f"{pct(r['exit2_naming_judge']['share'], r['exit2_naming_judge']['ci95'])} | {moved} | {renamed} | "
              f"{r['judge_calls_per_gate']} |")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--binary":
        binary(sys.argv[2:])
        return
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/judge-sim.jsonl"
    rows = load(path)
    variant = load(sys.argv[2]) if len(sys.argv) > 2 else None
    first = rows[0]
    noises = sorted({r["noise"] for r in rows})
    anchors = sorted({r["anchors"] for r in rows})
    rates = sorted({r["rate"] for r in rows if r["scenario"] == "swap"})
    shifts = sorted({r["shift"] for r in rows if r["scenario"] == "swap"})
    print(f"<!-- bench/judge/table.py {' '.join(sys.argv[1:])}: {len(rows)} scenarios, "
          f"{first['trials']} trials each, alpha {first['alpha']}, "
          f"seeds {min(r['seed'] for r in rows)}–{max(r['seed'] for r in rows)} -->\n")

    head = "| anchors | " + " | ".join(f"noise {q}" for q in noises) + " |\n" + "|---" * (len(noises) + 1) + "|"

    print("**(c) An unchanged judge read as moved** (target ≤ 5 %; in brackets the exact "
          "probability under the model):\n")
    print(head)
    for n in anchors:
        cells = []
        for q in noises:
            r = one(rows, scenario="steady", anchors=n, noise=q)
            cells.append(f"{cell(r, 'moved')} [{100 * r['moved_exact']:.1f} %]")
        print(f"| {n} | " + " | ".join(cells) + " |")

    print("\n**(b) A rename, behaviour the same, read as a rename and not as drift** (target ≥ 95 %)"
          + (f"; after the slash, the experiment `--changed-alpha {variant[0]['rule'].split('=')[1]}`"
             if variant else "") + ":\n")
    print(head)
    for n in anchors:
        cells = []
        for q in noises:
            c = cell(one(rows, scenario="rename", anchors=n, noise=q), "renamed")
            if variant:
                c += " / " + cell(one(variant, scenario="rename", anchors=n, noise=q), "renamed")
            cells.append(c)
        print(f"| {n} | " + " | ".join(cells) + " |")

    print("\n**(a) A swap whose identity changed** (another answered model), the anchors' pass rate "
          "moved by 10 points, read as *the judge changed* (target ≥ 95 %); the lowest over base "
          f"rates {', '.join(map(str, rates))} and churn 0 and 0.1"
          + ("; after the slash, the experiment" if variant else "") + ":\n")
    print(head)
    for n in anchors:
        cells = []
        for q in noises:
            c = cell(worst(rows, "moved", scenario="swap", identity="changed", shift=0.1, anchors=n, noise=q), "moved")
            if variant:
                c += " / " + cell(worst(variant, "moved", scenario="swap", identity="changed", shift=0.1,
                                        anchors=n, noise=q), "moved")
            cells.append(c)
        print(f"| {n} | " + " | ".join(cells) + " |")

    print("\n**(a) A silent swap** (same model name and fingerprint: only McNemar can see it), "
          "read as *the judge changed*, by how far the anchors' pass rate moved; the lowest over "
          f"base rates {', '.join(map(str, rates))}; churn 0 (a judge turned strict or lenient) / "
          "churn 0.1 (also 10 % of the anchors exchanged both ways):\n")
    print("| anchors | noise | " + " | ".join(f"{round(100 * s)} points" for s in shifts) + " |")
    print("|---|---" + "|---" * len(shifts) + "|")
    for n in anchors:
        for q in noises:
            cells = [" / ".join(cell(worst(rows, "moved", scenario="swap", identity="same", shift=s,
                                           anchors=n, noise=q, churn=c), "moved") for c in (0.0, 0.1))
                     for s in shifts]
            print(f"| {n} | {q} | " + " | ".join(cells) + " |")

    print("\n**Which anchor counts meet the targets** (every base rate and churn; ✓ the whole 95 % "
          "interval on the right side, ~ the estimate only, ✗ neither):\n")
    print("| anchors | noise | unchanged ≤ 5 % | rename ≥ 95 % | named swap 10 pts ≥ 95 % "
          "| silent swap 10 / 20 / 30 pts ≥ 95 % |")
    print("|---|---|---|---|---|---|")

    def mark(sel, key, good):
        if not sel:
            return "—"
        if all(good(r[f"{key}_ci95"][0]) and good(r[f"{key}_ci95"][1]) for r in sel):
            return "✓"
        return "~" if all(good(r[f"{key}_share"]) for r in sel) else "✗"

    for n in anchors:
        for q in noises:
            at = [r for r in rows if r["anchors"] == n and r["noise"] == q]
            swap = [r for r in at if r["scenario"] == "swap"]
            silent = " / ".join(
                mark([r for r in swap if r["identity"] == "same" and r["shift"] == s], "moved", lambda x: x >= 0.95)
                for s in shifts)
            print(f"| {n} | {q} | "
                  f"{mark([r for r in at if r['scenario'] == 'steady'], 'moved', lambda x: x <= 0.05)} | "
                  f"{mark([r for r in at if r['scenario'] == 'rename'], 'renamed', lambda x: x >= 0.95)} | "
                  f"{mark([r for r in swap if r['identity'] == 'changed' and r['shift'] == 0.1], 'moved', lambda x: x >= 0.95)} | "
                  f"{silent} |")


if __name__ == "__main__":
    main()
