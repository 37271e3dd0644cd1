#!/usr/bin/env python3
"""A fast simulation of the re-ask rule, at the sizes and references teams have.

Not digline: the rule of src/core/stats (bound.rs, sequential.rs,
decide.rs) written again in Python on scipy, run on the model of
bench/noisy/noisy.py (cases at a steady rate, a share of them borderline at
0.3-0.9, a reference of N samples, one answer per case in the pull request
plus the gate's re-asks), thousands of gates in minutes. It is how the
rule's constants were chosen (docs/statistics.md); noisy.py measures the
binary.

Usage:  bench/noisy/simulate.py SCENARIO [options]
Scenarios:
  gates      fresh reference per gate: --cases, --border, --steady,
             --samples, --broken (cases dropped to 0.3), --gates
  perref     --refs references, each gated --gates times unchanged: the
             distribution of per-reference false-block rates
  reruns     --gates heads, each gated --reruns times against one
             reference, the evidence carried between reruns
  judge      a deterministic target graded by a judge that passes each
             answer with --judge-rate (every judging independent)
Prints one JSON line with each rate and its 95 % Wilson interval.
"""
import argparse
import functools
import json

import numpy as np
from scipy.stats import beta, binom

from wilson import wilson

import os
ALPHA, REFERENCE_SHARE, MAX_CAP, BROKEN = 0.05, 0.3, 12, 0.3
SLACK = int(os.environ.get("DIGLINE_SIM_SLACK", 2))  # the rule has 2; other values are experiments


def rerun_weight(attempt):
    """The share of the declared rate the attempt-th gate of one head may
    spend on pairs no earlier attempt decided: 0.8, then 0.2/(r(r-1))."""
    return 0.8 if attempt == 1 else 0.2 / (attempt * (attempt - 1))


def lower_bound(k, n, delta):
    return 0.0 if k == 0 else float(beta.ppf(delta, k, n - k + 1))


@functools.lru_cache(None)
def look(f, t, q0):
    return 1.0 if f == 0 else float(binom.sf(f - 1, t, q0))


def cap_for(q0, family, level):
    share = level / max(family, 1)
    fewest = next((r for r in range(1, MAX_CAP + 1) if look(r, r, q0) <= share), MAX_CAP)
    return min(MAX_CAP, fewest + SLACK)


def smallest(q0, path):
    f, s = 0, 1.0
    for t, x in enumerate(path, 1):
        f += x
        s = min(s, look(f, t, q0))
    return s


@functools.lru_cache(None)
def sequential_p(q0, cap, path):
    seen = smallest(q0, path)
    if seen >= 1.0:
        return 1.0
    bar, alive, hit = seen * (1 + 1e-9), {0: 1.0}, 0.0
    for t in range(1, cap + 1):
        nxt = {}
        for f, p in alive.items():
            for g, w in ((f + 1, q0), (f, 1 - q0)):
                if look(g, t, q0) <= bar:
                    hit += p * w
                else:
                    nxt[g] = nxt.get(g, 0.0) + p * w
        alive = nxt
    return min(1.0, hit)


def bh_adjusted(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adj, running = [1.0] * m, 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, m / (rank + 1) * ps[i])
        adj[i] = running
    return adj


def decide(rng, now, k, n, first_failed, triggered, alpha, carried=None):
    """One gate's re-asks and verdicts. `triggered`: indices whose first
    answer failed where the reference passed; `first_failed`: how many
    measured pairs' first answers failed (the bound's family). Returns
    (any worse, calls, {index: (verdict, path)})."""
    level, gamma = alpha * (1 - REFERENCE_SHARE), alpha * REFERENCE_SHARE
    exposed = max(first_failed, len(triggered), 1)
    fam = [[i, 1 - lower_bound(int(k[i]), int(n[i]), gamma / exposed), []] for i in triggered]
    m = len(fam)
    caps = [cap_for(f[1], m, level) for f in fam]
    verdict = [None] * m
    calls = 0
    for _ in range(MAX_CAP + 1):
        ps = [sequential_p(f[1], caps[j], tuple(f[2])) for j, f in enumerate(fam)]
        adj = bh_adjusted(ps) if m else []
        for j, f in enumerate(fam):
            if verdict[j] is not None:
                continue
            path = tuple(f[2])
            if adj[j] <= level:
                verdict[j] = "worse"
            elif len(path) >= caps[j]:
                verdict[j] = "undecided" if ps[j] <= level else "noise"
            elif sequential_p(f[1], caps[j], path + (1,) * (caps[j] - len(path))) > level:
                fresh = sequential_p(f[1], caps[j], (1,) * caps[j])
                verdict[j] = "undecided" if fresh > level else "noise"
        still = [j for j in range(m) if verdict[j] is None]
        if not still:
            break
        for j in still:
            calls += 1
            fam[j][2].append(1 if rng.random() >= now[fam[j][0]] else 0)
    return any(v == "worse" for v in verdict), calls, {f[0]: (v, f[2]) for f, v in zip(fam, verdict)}


def rates(rng, cases, border, steady, all_half=False):
    if all_half:
        return np.full(cases, 0.5), np.arange(cases)
    r = np.full(cases, steady)
    b = rng.choice(cases, int(round(cases * border)), replace=False)
    r[b] = rng.uniform(0.3, 0.9, len(b))
    return r, b


def measure(rng, r, samples):
    return rng.binomial(samples, r), np.full(len(r), samples)


def one_gate(rng, now, k, n, alpha=ALPHA * 0.8, skip=(), threshold=1.0):
    """A pull request asked once per case. A check's reference passes when
    the share of its samples that passed reaches the threshold (0.10.0's
    mean-against-threshold rule: every sample for `contains`); a
    one-sample reference is left out (it has its own rule). A first gate
    of a head spends rerun_weight(1) = 0.8 of the declared rate."""
    failed = rng.random(len(now)) >= now
    measured = n > 1
    first_failed = int((failed & measured).sum())
    passed = k >= threshold * n - 1e-9
    triggered = [int(i) for i in np.nonzero(failed & measured & passed)[0] if int(i) not in skip]
    return decide(rng, now, k, n, first_failed, triggered, alpha)


def rate(x, n):
    lo, hi = wilson(x, n)
    return {"rate": round(x / n, 4), "low": round(lo, 4), "high": round(hi, 4), "of": n}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=["gates", "perref", "reruns", "judge"])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--border", type=float, default=0.05)
    ap.add_argument("--steady", type=float, default=0.995)
    ap.add_argument("--all-half", action="store_true")
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--broken", type=int, default=0)
    ap.add_argument("--gates", type=int, default=1000)
    ap.add_argument("--refs", type=int, default=20)
    ap.add_argument("--reruns", type=int, default=5)
    ap.add_argument("--judge-rate", type=float, default=0.8)
    ap.add_argument("--seed", type=int, default=20261207)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    out = {"scenario": a.scenario, "cases": a.cases, "border": a.border, "steady": a.steady,
           "all_half": a.all_half, "samples": a.samples, "broken": a.broken}
    if a.scenario == "gates":
        worse = calls = 0
        for _ in range(a.gates):
            ref, border = rates(rng, a.cases, a.border, a.steady, a.all_half)
            now = ref.copy()
            if a.broken:
                steady = np.setdiff1d(np.arange(a.cases), border)
                now[rng.choice(steady, a.broken, replace=False)] = BROKEN
            k, n = measure(rng, ref, a.samples)
            w, c, _ = one_gate(rng, now, k, n)
            worse += w
            calls += c
        out.update(exit1=rate(worse, a.gates), calls_share=round(calls / a.gates / a.cases, 4))
    elif a.scenario == "perref":
        per = []
        for _ in range(a.refs):
            ref, _ = rates(rng, a.cases, a.border, a.steady, a.all_half)
            k, n = measure(rng, ref, a.samples)
            per.append(sum(one_gate(rng, ref, k, n)[0] for _ in range(a.gates)) / a.gates)
        per.sort()
        out.update(refs=a.refs, gates=a.gates, per_reference=per, max=per[-1],
                   share_at_most_10pct=sum(x <= 0.10 for x in per) / len(per))
    elif a.scenario == "reruns":
        ever = stayed = found = 0
        for _ in range(a.gates):
            ref, border = rates(rng, a.cases, a.border, a.steady)
            k, n = measure(rng, ref, a.samples)
            now = ref.copy()
            if a.broken:
                steady = np.setdiff1d(np.arange(a.cases), border)
                now[rng.choice(steady, a.broken, replace=False)] = BROKEN
            decided, red = {}, []
            for attempt in range(1, a.reruns + 1):
                w, _, verdicts = one_gate(rng, now, k, n, ALPHA * rerun_weight(attempt), skip=decided)
                for i, (v, _) in verdicts.items():
                    decided[i] = v
                red.append(any(v == "worse" for v in decided.values()))
            ever += any(red)
            if red[0]:
                found += 1
                stayed += all(red)
        out.update(reruns=a.reruns, some_exit1=rate(ever, a.gates),
                   found_first=found, stayed_worse=rate(stayed, found) if found else None)
    else:
        # A deterministic answer per case; the judge passes it with
        # probability judge_rate at every judging (reference samples and
        # re-asks included: never served from a memo), against a rubric's
        # threshold of 0.5 on the mean of the reference's judgings.
        worse = 0
        for _ in range(a.gates):
            ref = np.full(a.cases, a.judge_rate)
            k, n = measure(rng, ref, a.samples)
            worse += one_gate(rng, ref, k, n, threshold=0.5)[0]
        out.update(judge_rate=a.judge_rate, exit1=rate(worse, a.gates))
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
