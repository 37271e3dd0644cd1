#!/usr/bin/env python3
"""The Markdown tables of docs/statistics.md ("Judge drift, measured") from
bench/results/judge-sim.jsonl (bench/judge/simulate.py).

Usage:  bench/judge/table.py [bench/results/judge-sim.jsonl]
"""
import json
import sys
from collections import defaultdict


def pct(share, ci):
    return f"{100 * share:.1f} % ({100 * ci[0]:.1f}–{100 * ci[1]:.1f})"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/judge-sim.jsonl"
    rows = [json.loads(line) for line in open(path)]
    first = rows[0]
    print(f"<!-- {len(rows)} scenarios, {first['trials']} trials each, alpha {first['alpha']}, "
          f"seeds {min(r['seed'] for r in rows)}–{max(r['seed'] for r in rows)} -->\n")

    noises = sorted({r["noise"] for r in rows})
    anchors = sorted({r["anchors"] for r in rows})

    print("Unchanged judge, read as moved (target ≤ 5 %); exact value under the model in brackets:\n")
    print("| anchors | " + " | ".join(f"noise {n}" for n in noises) + " |")
    print("|---" * (len(noises) + 1) + "|")
    for n in anchors:
        cells = []
        for q in noises:
            r = next(r for r in rows if r["scenario"] == "steady" and r["anchors"] == n and r["noise"] == q)
            cells.append(f"{pct(r['moved_share'], r['moved_ci95'])} [{100 * r['moved_exact']:.1f} %]")
        print(f"| {n} | " + " | ".join(cells) + " |")

    print("\nRenamed judge, same behaviour: read as a rename, not drift (target ≥ 95 %):\n")
    print("| anchors | " + " | ".join(f"noise {n}" for n in noises) + " |")
    print("|---" * (len(noises) + 1) + "|")
    for n in anchors:
        cells = []
        for q in noises:
            r = next(r for r in rows if r["scenario"] == "rename" and r["anchors"] == n and r["noise"] == q)
            cells.append(pct(r["renamed_share"], r["renamed_ci95"]))
        print(f"| {n} | " + " | ".join(cells) + " |")

    swaps = [r for r in rows if r["scenario"] == "swap"]
    for identity, title in (("same", "Silent swap (same name and fingerprint)"),
                            ("changed", "Named swap (the answered model changed)")):
        for shift in sorted({r["shift"] for r in swaps}):
            sel = [r for r in swaps if r["identity"] == identity and r["shift"] == shift]
            if not sel:
                continue
            print(f"\n{title}, the anchors' pass rate moved by {round(100 * shift)} points: read as "
                  "*the judge changed* (target ≥ 95 %); the lowest of the base rates "
                  f"{', '.join(str(x) for x in sorted({r['rate'] for r in sel}))}, "
                  "churn 0 / churn 0.1:\n")
            print("| anchors | " + " | ".join(f"noise {n}" for n in noises) + " |")
            print("|---" * (len(noises) + 1) + "|")
            for n in anchors:
                cells = []
                for q in noises:
                    parts = []
                    for churn in (0.0, 0.1):
                        cand = [r for r in sel if r["anchors"] == n and r["noise"] == q and r["churn"] == churn]
                        if not cand:
                            parts.append("—")
                            continue
                        worst = min(cand, key=lambda r: r["moved_share"])
                        parts.append(pct(worst["moved_share"], worst["moved_ci95"]))
                    cells.append(" / ".join(parts))
                print(f"| {n} | " + " | ".join(cells) + " |")

    # Which anchor counts meet the targets, point estimate and interval.
    print("\nMeets the targets (every base rate and churn; point estimate / whole 95 % interval):\n")
    print("| anchors | noise | steady ≤ 5 % | rename ≥ 95 % | silent swap 10 pts ≥ 95 % | silent swap 20 pts ≥ 95 % | named swap 10 pts ≥ 95 % |")
    print("|---|---|---|---|---|---|---|")
    for n in anchors:
        for q in noises:
            def verdict(sel, key, good):
                if not sel:
                    return "—"
                point = all(good(r[f"{key}_share"]) for r in sel)
                whole = all(good(r[f"{key}_ci95"][0]) and good(r[f"{key}_ci95"][1]) for r in sel)
                return "yes / yes" if whole else ("yes / no" if point else "no")
            at = [r for r in rows if r["anchors"] == n and r["noise"] == q]
            steady = [r for r in at if r["scenario"] == "steady"]
            rename = [r for r in at if r["scenario"] == "rename"]
            s10 = [r for r in at if r["scenario"] == "swap" and r["identity"] == "same" and r["shift"] == 0.1]
            s20 = [r for r in at if r["scenario"] == "swap" and r["identity"] == "same" and r["shift"] == 0.2]
            n10 = [r for r in at if r["scenario"] == "swap" and r["identity"] == "changed" and r["shift"] == 0.1]
            print(f"| {n} | {q} | {verdict(steady, 'moved', lambda x: x <= 0.05)} | "
                  f"{verdict(rename, 'renamed', lambda x: x >= 0.95)} | "
                  f"{verdict(s10, 'moved', lambda x: x >= 0.95)} | "
                  f"{verdict(s20, 'moved', lambda x: x >= 0.95)} | "
                  f"{verdict(n10, 'moved', lambda x: x >= 0.95)} |")


if __name__ == "__main__":
    main()
