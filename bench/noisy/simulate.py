#!/usr/bin/env python3
"""A fast simulation of the re-ask rule on the noisy benchmark's model.

Not digline: the rule of src/core/stats (decide.rs, sequential.rs) written
again in Python on scipy, run on the model of bench/noisy/noisy.py (200
cases, 10 borderline at pass rates 0.3-0.9, the rest at 0.995, a 5-sample
reference, one answer per case in the pull request), thousands of gates in
a minute instead of a hundred in ten. It is how the rule's constants were
chosen (docs/statistics.md); the benchmark measures the binary.

Usage:  bench/noisy/simulate.py [--gates N] [--seed S] [--last-look] [--wobbling]
  --last-look   test each look with its own Boschloo p-value (no price for
                looking after every re-ask): the rule without step 3
  --wobbling    a reference that passed fewer than all samples is tested too
                (as when the check's threshold lets 4 of 5 pass), when its
                re-asks could make it worse at all
Prints, per scenario: the share of gates that exit 1 and the calls beyond
one per case. Needs scipy and numpy.
"""
import argparse
import functools
import itertools
import math
import random

import numpy as np
from scipy.stats import hypergeom

ALPHA, MAX_CAP, MIN_CAP, SLACK, N = 0.05, 8, 3, 2, 5
GRID = np.linspace(1e-6, 1 - 1e-6, 4001)


def fisher_worse(passed, samples, failed, asked):
    return hypergeom.sf(failed - 1, samples + asked, samples - passed + failed, asked)


@functools.lru_cache(None)
def boschloo(passed, samples, failed, asked):
    if failed == 0:
        return 1.0
    bar = fisher_worse(passed, samples, failed, asked) * (1 + 1e-13)
    total = np.zeros_like(GRID)
    for f in range(samples + 1):
        for j in range(asked + 1):
            if fisher_worse(samples - f, samples, j, asked) <= bar:
                total += math.comb(samples, f) * math.comb(asked, j) * GRID ** (f + j) \
                    * (1 - GRID) ** (samples - f + asked - j)
    return min(1.0, float(total.max()))


def smallest_look(passed, samples, path):
    failed, smallest = 0, 1.0
    for i, x in enumerate(path, 1):
        failed += x
        smallest = min(smallest, boschloo(passed, samples, failed, i))
    return smallest


@functools.lru_cache(None)
def design(samples, cap):
    return [(smallest_look(k, samples, full), math.comb(samples, k), samples - k + sum(full))
            for k in range(samples + 1) for full in itertools.product((0, 1), repeat=cap)]


@functools.lru_cache(None)
def sequential(samples, cap, seen):
    total = np.zeros_like(GRID)
    for smallest, weight, fails in design(samples, cap):
        if smallest <= seen * (1 + 1e-9):
            total += weight * GRID ** fails * (1 - GRID) ** (samples + cap - fails)
    return min(1.0, float(total.max()))


@functools.lru_cache(None)
def attainable(passed):
    """Whether a reference of `passed` of N could be found worse at all: its
    re-asks failing every time, at the cap it would have alone."""
    cap = cap_for(1)
    seen = smallest_look(passed, N, (1,) * cap)
    return seen < 1.0 and sequential(N, cap, seen) <= ALPHA


def p_value(passed, cap, path, last_look):
    if not path:
        return 1.0
    if last_look:
        return boschloo(passed, N, sum(path), len(path))
    seen = smallest_look(passed, N, path)
    return 1.0 if seen >= 1.0 else sequential(N, cap, seen)


def cap_for(family):
    share = ALPHA / max(family, 1)
    fewest = next((r for r in range(1, MAX_CAP + 1) if boschloo(N, N, r, r) <= share), MAX_CAP)
    return min(MAX_CAP, max(MIN_CAP, fewest + SLACK))


def benjamini_hochberg(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    rejected = [False] * m
    for k in range(m, 0, -1):
        if ps[order[k - 1]] <= k * ALPHA / m:
            for i in order[:k]:
                rejected[i] = True
            break
    return rejected


def gate(rng, broken, last_look, wobbling):
    reference = [0.995] * 200
    borderline = rng.sample(range(200), 10)
    for i in borderline:
        reference[i] = rng.uniform(0.3, 0.9)
    now = list(reference)
    for i in rng.sample([i for i in range(200) if i not in set(borderline)], broken):
        now[i] = 0.3
    # A pair enters when its answer fails and its reference passed enough
    # samples that failing every re-ask could make it worse.
    family = []
    for i in range(200):
        passed = sum(rng.random() < reference[i] for _ in range(N))
        enters = attainable(passed) if wobbling else passed == N
        if enters and rng.random() >= now[i]:
            family.append([i, [], None, passed])
    cap = cap_for(len(family))
    calls = 0
    for _ in range(cap + 1):
        ps = [p_value(f[3], cap, f[1], last_look) for f in family]
        for f, p, worse in zip(family, ps, benjamini_hochberg(ps)):
            if f[2] is not None:
                continue
            if worse:
                f[2] = "worse"
            elif len(f[1]) >= cap:
                f[2] = "undecided"
            elif p_value(f[3], cap, f[1] + [1] * (cap - len(f[1])), last_look) > ALPHA:
                f[2] = "noise"
        still = [f for f in family if f[2] is None]
        if not still:
            break
        for f in still:
            calls += 1
            f[1].append(1 if rng.random() >= now[f[0]] else 0)
    return any(f[2] == "worse" for f in family), calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gates", type=int, default=3000)
    parser.add_argument("--seed", default="20261204")
    parser.add_argument("--last-look", action="store_true")
    parser.add_argument("--wobbling", action="store_true")
    args = parser.parse_args()
    for scenario, broken in [("unchanged", 0), ("drop5", 5), ("drop15", 15)]:
        rng = random.Random(f"{args.seed}-{scenario}")
        rows = [gate(rng, broken, args.last_look, args.wobbling) for _ in range(args.gates)]
        worse = sum(r[0] for r in rows) / args.gates
        calls = sum(r[1] for r in rows) / args.gates / 200
        print(f"{scenario}: exit 1 in {worse:.1%} of {args.gates} gates, "
              f"calls beyond one per case {calls:.1%}", flush=True)


if __name__ == "__main__":
    main()
