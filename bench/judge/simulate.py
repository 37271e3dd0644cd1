#!/usr/bin/env python3
"""Judge drift as the gate reads it, simulated: how often a moved judge is
caught, a renamed one is only renamed, and an unchanged noisy one is left
alone, by anchor count.

Not digline: the rule of src/core/anchors.rs (`Drift::measure`) written
again in Python on statsmodels, for one judge and its anchors:

  moved    = McNemar exact two-sided p(lost, gained) < alpha
             or (identity changed and lost + gained > 0)
  renamed  = not moved and identity changed
  steady   = neither

where `lost` anchors passed in the reference and fail now, `gained` the
reverse, and alpha is the suite's `false_alarm_rate` (0.05 by default).
`bench/judge/run.py` measures the binary on a loopback judge.

The model. A suite commits N anchors; the reference's judge passes
round(rate * N) of them (its behaviour: a fixed verdict per anchor). Every
grading — the reference's and the gate's — flips each anchor's verdict
independently with probability `noise`. Scenarios:

  swap     the gate's judge differs: exactly round(shift * N) anchors that
           the old judge passed now fail (strict) or the reverse (lenient,
           direction drawn per trial; the other way when too few anchors
           can move), plus `churn * N` anchors exchanged both ways (a
           different model disagreeing without moving the rate). Its
           identity changed (`named`) or did not (`silent`: an alias
           re-pointed behind the same name and fingerprint).
  rename   identity changed, behaviour byte-identical.
  steady   nothing changed but the noise.

Each scenario runs --trials seeded trials (numpy PCG64, seed = --seed plus
the scenario's index in the grid) and prints one JSON line: the share read
as moved / renamed / steady with 95 % Clopper-Pearson intervals, and for
rename and steady the exact probability of "moved" under the model (a
check on the simulation).

Usage:  bench/judge/simulate.py [--trials 2000] [--seed 20261207]
                                [--alpha 0.05] [--out FILE]
                                [--changed-alpha A]   (an experiment)
"""
import argparse
import functools
import json
import math
import sys

import numpy as np
from scipy.stats import binom
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

ANCHORS = (10, 20, 40, 100, 200)
RATES = (0.3, 0.5, 0.8)
NOISES = (0.0, 0.05, 0.15)
SHIFTS = (0.10, 0.20, 0.30)


@functools.lru_cache(None)
def p_value(lost, gained):
    """statsmodels' exact McNemar, as `core::stats::mcnemar_exact`."""
    if lost + gained == 0:
        return 1.0
    return float(mcnemar([[0, lost], [gained, 0]], exact=True).pvalue)


# --changed-alpha: an experiment, not the rule. With it, a changed identity
# counts as moved when McNemar's p is under this looser level instead of
# on any moved anchor (the rule has none: any move of a changed judge).
CHANGED_ALPHA = None


def reading(lost, gained, changed, alpha):
    if CHANGED_ALPHA is None:
        changed_moved = changed and lost + gained > 0
    else:
        changed_moved = changed and p_value(lost, gained) < CHANGED_ALPHA
    if p_value(lost, gained) < alpha or changed_moved:
        return "moved"
    return "renamed" if changed else "steady"


def noisy(verdicts, noise, rng):
    if noise == 0:
        return verdicts
    return verdicts ^ (rng.random(verdicts.size) < noise)


def swapped(old, shift, churn, rng):
    """The new judge's fixed verdicts: `round(shift*n)` anchors moved one
    way, `round(churn*n)` exchanged both ways."""
    n = old.size
    new = old.copy()
    k = round(shift * n)
    strict = rng.random() < 0.5
    passing, failing = np.flatnonzero(old), np.flatnonzero(~old)
    if strict and passing.size < k or not strict and failing.size < k:
        strict = not strict
    source = passing if strict else failing
    if source.size < k:
        raise ValueError(f"{n} anchors at this rate cannot move {shift}")
    moved = rng.choice(source, k, replace=False)
    new[moved] = ~new[moved]
    c = round(churn * n)
    if c:
        rest_pass = np.setdiff1d(np.flatnonzero(new), moved)
        rest_fail = np.setdiff1d(np.flatnonzero(~new), moved)
        c = min(c, rest_pass.size, rest_fail.size)
        for pool in (rest_pass, rest_fail):
            picked = rng.choice(pool, c, replace=False)
            new[picked] = ~new[picked]
    return new


def exact_moved(n, noise, changed, alpha):
    """P(read as moved) for an unchanged behaviour graded twice with
    independent flips: discordant anchors D ~ Bin(n, 2q(1-q)), each one
    lost or gained with probability 1/2."""
    d = 2 * noise * (1 - noise)
    total = 0.0
    for m in range(n + 1):
        pm = binom.pmf(m, n, d)
        if pm < 1e-15:
            continue
        total += pm * sum(
            binom.pmf(lost, m, 0.5) for lost in range(m + 1)
            if reading(lost, m - lost, changed, alpha) == "moved"
        )
    return total


def interval(x, n):
    low, high = proportion_confint(x, n, alpha=0.05, method="beta")
    return [round(float(low), 4), round(float(high), 4)]


def run(scenario, n, rate, noise, trials, seed, alpha, shift=0.0, churn=0.0, changed=False):
    rng = np.random.default_rng(seed)
    old = np.zeros(n, dtype=bool)
    old[: round(rate * n)] = True
    counts = {"moved": 0, "renamed": 0, "steady": 0}
    shifts = []
    for _ in range(trials):
        judge = swapped(old, shift, churn, rng) if scenario == "swap" else old
        before, now = noisy(old, noise, rng), noisy(judge, noise, rng)
        lost = int(np.sum(before & ~now))
        gained = int(np.sum(~before & now))
        counts[reading(lost, gained, changed, alpha)] += 1
        shifts.append(abs(int(judge.sum()) - int(old.sum())) / n)
    line = {
        "scenario": scenario,
        "identity": "changed" if changed else "same",
        "anchors": n,
        "rate": rate,
        "noise": noise,
        "shift": shift,
        "churn": churn,
        "alpha": alpha,
        "trials": trials,
        "seed": seed,
        "min_true_shift": round(min(shifts), 4),
        "rule": "anchors.rs" if CHANGED_ALPHA is None else f"changed_alpha={CHANGED_ALPHA}",
    }
    for key, x in counts.items():
        line[key] = x
        line[f"{key}_share"] = round(x / trials, 4)
        line[f"{key}_ci95"] = interval(x, trials)
    if scenario != "swap":
        line["moved_exact"] = round(exact_moved(n, noise, changed, alpha), 6)
    return line


def grid():
    for n in ANCHORS:
        for noise in NOISES:
            yield ("steady", n, 0.5, noise, {})
            yield ("rename", n, 0.5, noise, {"changed": True})
        for rate in RATES:
            for shift in SHIFTS:
                if round(shift * n) > n - round(rate * n) and round(shift * n) > round(rate * n):
                    continue
                for noise in NOISES:
                    for churn in (0.0, 0.1):
                        for changed in (False, True):
                            yield ("swap", n, rate, noise,
                                   {"shift": shift, "churn": churn, "changed": changed})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--out", default="bench/results/judge-sim.jsonl")
    ap.add_argument("--changed-alpha", type=float, default=None,
                    help="experiment: a changed identity is moved when p < this, not on any move")
    args = ap.parse_args()
    global CHANGED_ALPHA
    CHANGED_ALPHA = args.changed_alpha
    with open(args.out, "w") as out:
        for i, (scenario, n, rate, noise, extra) in enumerate(grid()):
            line = run(scenario, n, rate, noise, args.trials, args.seed + i, args.alpha, **extra)
            text = json.dumps(line, sort_keys=True)
            out.write(text + "\n")
            out.flush()
            print(text, file=sys.stderr if args.out == "-" else sys.stdout, flush=True)


if __name__ == "__main__":
    main()
