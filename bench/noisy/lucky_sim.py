#!/usr/bin/env python3
"""The lucky-reference notice, simulated (issue 33; docs/statistics.md).

The rule of `core::history::History::lucky`, written again on scipy's
exact tests: every pair whose check at least 10 gates judged is tested,
the history's failures `f` of `a` answers against the reference's `k` of
`N` passed, with Boschloo's one-sided test (`boschloo_exact`, "greater")
at the declared rate divided among the pairs whose least attainable p
(the table holding as many of their failures in the history as it can) is
at most the rate (Tarone's count, at least 1).

A suite of CASES cases, all steady (pass 99.5 %) but one borderline case
passing RATE of the time; a 5-sample reference; the base branch's gates
answer each case once (a 5-sample reference's check is never re-asked:
docs/statistics.md, "A thin reference sees little"). Scenarios:

  lucky   the borderline case's reference passed 5 of 5
  sound   it passed at most 4 of 5 (drawn given that)
  honest  every reference drawn as it comes (the null: any name is false)

Each row: the share of trials where the notice named the borderline case
(lucky) or any case (sound, honest), read once at GATES gates, and — the
notice is read by every pull request while the history grows — at any of
the looks from 10 gates to GATES. With 95 % Wilson intervals.

    bench/noisy/lucky_sim.py [--trials 2000] [--seed 20261207]

Writes bench/results/lucky-sim.jsonl and prints a table.
"""
import argparse
import functools
import json
import math
import pathlib

import numpy as np
from scipy.stats import boschloo_exact, fisher_exact

ALPHA = 0.05
AFTER = 10
SAMPLES = 5
STEADY = 0.995
BOSCHLOO_UP_TO = 200
REPO = pathlib.Path(__file__).resolve().parents[2]


def table(passed, samples, failed, asked):
    return [[passed, asked - failed], [samples - passed, failed]]


@functools.lru_cache(None)
def worse_p(passed, samples, failed, asked):
    if failed == 0:
        return 1.0
    t = table(passed, samples, failed, asked)
    if asked <= BOSCHLOO_UP_TO:
        return float(boschloo_exact(t, alternative="greater", n=64).pvalue)
    return float(fisher_exact(t, alternative="greater")[1])


@functools.lru_cache(None)
def least_p(passed, samples, failed, asked):
    failures = (samples - passed) + failed
    most = min(failures, asked)
    ref_failed = failures - most
    fisher = float(fisher_exact(table(samples - ref_failed, samples, most, asked), alternative="greater")[1])
    if fisher > 10 * ALPHA:
        return fisher
    return worse_p(samples - ref_failed, samples, most, asked)


def named(passed, failed, asked):
    """Indexes of the pairs the notice names (arrays over cases)."""
    family = 0
    for k, f in zip(passed, failed):
        if least_p(int(k), SAMPLES, int(f), asked) <= ALPHA:
            family += 1
    family = max(family, 1)
    return [i for i, (k, f) in enumerate(zip(passed, failed))
            if f > 0 and worse_p(int(k), SAMPLES, int(f), asked) <= ALPHA / family]


def reference_of_borderline(rng, rate, scenario):
    while True:
        k = rng.binomial(SAMPLES, rate)
        if scenario == "honest" or (k == SAMPLES) == (scenario == "lucky"):
            return k


def trial(rng, cases, rate, scenario, gates):
    rates = np.full(cases, STEADY)
    rates[0] = rate
    passed = rng.binomial(SAMPLES, rates)
    passed[0] = reference_of_borderline(rng, rate, scenario)
    # One first answer per gate: failures per case, gate by gate.
    fails = rng.random((gates, cases)) >= rates
    cumulative = np.cumsum(fails, axis=0)
    def hit(look):
        failed = cumulative[look - 1]
        # Only the cases with a failure can be named or widen the family.
        idx = np.nonzero((failed > 0) | (passed < SAMPLES))[0]
        names = named(passed[idx], failed[idx], look)
        hits = [int(idx[i]) for i in names]
        return (0 in hits) if scenario == "lucky" else bool(hits)
    at_end = hit(gates)
    any_look = at_end or any(hit(g) for g in range(AFTER, gates))
    return at_end, any_look


def wilson(k, n, z=1.959964):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z / d * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return [round(max(0.0, c - h), 4), round(min(1.0, c + h), 4)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--out", default=str(REPO / "bench/results/lucky-sim.jsonl"))
    args = ap.parse_args()
    rows = []
    shapes = [(cases, rate, scenario, gates)
              for scenario in ("lucky", "sound", "honest")
              for rate in (0.35, 0.65)
              for cases in (20, 200, 2000)
              for gates in (10, 30)]
    with open(args.out, "w") as sink:
        for cases, rate, scenario, gates in shapes:
            rng = np.random.default_rng([args.seed, cases, int(rate * 100), gates,
                                         ["lucky", "sound", "honest"].index(scenario)])
            trials = args.trials if cases < 2000 else max(args.trials // 4, 200)
            results = [trial(rng, cases, rate, scenario, gates) for _ in range(trials)]
            end = sum(r[0] for r in results)
            anyl = sum(r[1] for r in results)
            row = {"scenario": scenario, "cases": cases, "rate": rate, "gates": gates,
                   "trials": trials, "named_at_last_gate": round(end / trials, 4),
                   "interval_95": wilson(end, trials),
                   "named_at_any_look_from_10": round(anyl / trials, 4),
                   "any_look_interval_95": wilson(anyl, trials), "seed": args.seed}
            rows.append(row)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            print(f"{scenario:6} cases {cases:5} rate {rate:.2f} gates {gates:2}: "
                  f"{row['named_at_last_gate']:.3f} {row['interval_95']}  any look "
                  f"{row['named_at_any_look_from_10']:.3f} {row['any_look_interval_95']}", flush=True)


if __name__ == "__main__":
    main()
