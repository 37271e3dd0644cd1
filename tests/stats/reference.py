"""Reference values for src/core/stats, computed with scipy and statsmodels.

Run from the repository root:  python3 tests/stats/reference.py
It rewrites tests/stats/reference.json, which src/core/stats/tests.rs reads
and checks to 1e-9. Needs scipy and statsmodels (pip install scipy statsmodels).
"""
import functools
import itertools
import json
import pathlib

import numpy as np
import scipy
import statsmodels
from math import comb

from scipy.stats import beta, binom, boschloo_exact, fisher_exact, norm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

OUT = pathlib.Path(__file__).with_name("reference.json")


def table(passed, samples, failed, asked):
    # Columns: reference, run; rows: pass, fail. "greater": the reference
    # passes more often than the run.
    return [[passed, asked - failed], [samples - passed, failed]]


def binomial():
    rows = []
    for n, k, p in [(5, 0, 0.3), (5, 3, 0.3), (10, 7, 0.5), (20, 1, 0.005),
                    (200, 190, 0.995), (1000, 480, 0.5), (7, 7, 0.9), (3, 0, 0.0)]:
        rows.append({"k": k, "n": n, "p": p,
                     "pmf": float(binom.pmf(k, n, p)),
                     "upper": float(binom.sf(k - 1, n, p)),
                     "lower": float(binom.cdf(k, n, p))})
    return rows


TABLES = [(5, 5, 2, 2), (5, 5, 3, 3), (5, 5, 3, 4), (5, 5, 4, 4), (5, 5, 1, 4),
          (4, 5, 3, 3), (3, 5, 4, 4), (10, 10, 2, 2), (9, 10, 4, 4), (1, 1, 3, 3),
          (2, 2, 2, 2), (5, 5, 0, 3), (20, 20, 3, 4), (7, 8, 2, 3)]


def exact_tests():
    fisher, boschloo = [], []
    for passed, samples, failed, asked in TABLES:
        t = table(passed, samples, failed, asked)
        key = {"passed": passed, "samples": samples, "failed": failed, "asked": asked}
        fisher.append({**key, "p": float(fisher_exact(t, alternative="greater")[1])})
        boschloo.append({**key, "p": float(boschloo_exact(t, alternative="greater", n=64).pvalue)})
    return fisher, boschloo


def mcnemar_rows():
    rows = []
    for b, c in [(0, 0), (1, 0), (3, 0), (5, 1), (10, 4), (2, 9), (25, 12), (60, 40), (7, 7)]:
        exact = float(mcnemar([[0, b], [c, 0]], exact=True).pvalue) if b + c else 1.0
        n = b + c
        mid = float(min(1.0, exact - binom.pmf(min(b, c), n, 0.5))) if n else 1.0
        worse = float(binom.sf(b - 1, n, 0.5)) if n and b else 1.0
        rows.append({"b": b, "c": c, "exact": exact, "mid_p": mid, "worse": worse})
    return rows


def family():
    rows = []
    for p in [[0.01, 0.04, 0.03, 0.005], [0.2], [0.001, 0.5, 0.0125, 0.0125, 0.9, 0.02],
              [0.015, 0.005, 0.002, 0.3, 1.0, 1.0, 0.04]]:
        rows.append({"p": p,
                     "holm": [float(x) for x in multipletests(p, method="holm")[1]],
                     "hochberg": [float(x) for x in multipletests(p, method="simes-hochberg")[1]],
                     "fdr_bh": [float(x) for x in multipletests(p, method="fdr_bh")[1]]})
    return rows


def wilson():
    rows = []
    for k, n, alpha in [(0, 5, 0.05), (5, 5, 0.05), (3, 5, 0.05), (190, 200, 0.05),
                        (1, 1, 0.1), (47, 100, 0.01)]:
        low, high = proportion_confint(k, n, alpha=alpha, method="wilson")
        rows.append({"k": k, "n": n, "alpha": alpha, "low": float(low), "high": float(high)})
    return rows


def quantiles():
    return [{"p": p, "z": float(norm.ppf(p))} for p in [0.8, 0.95, 0.975, 0.995, 0.5, 0.01]]


def mde():
    rows = []
    for sd, n, alpha, power in [(0.5, 200, 0.05, 0.8), (0.1, 200, 0.05, 0.8),
                                (0.3, 50, 0.01, 0.8), (1.0, 10, 0.05, 0.9)]:
        value = (norm.ppf(1 - alpha) + norm.ppf(power)) * sd / np.sqrt(n)
        rows.append({"sd": sd, "n": n, "alpha": alpha, "power": power, "mde": float(value)})
    return rows


def bootstrap():
    rows = []
    for before, after in [([1, 1, 0], [1, 0, 0]),
                          ([1, 1, 1, 0, 1], [0, 1, 1, 0, 0]),
                          ([0.9, 0.8, 1.0, 0.7, 0.6, 1.0], [0.5, 0.9, 1.0, 0.2, 0.6, 0.4])]:
        n = len(before)
        diffs = np.array(after, dtype=float) - np.array(before, dtype=float)
        values = sorted(float(np.mean(diffs[list(idx)])) for idx in itertools.product(range(n), repeat=n))
        values = np.array(values)
        rows.append({"before": before, "after": after, "count": len(values),
                     "mean": float(np.mean(values)),
                     "low": float(np.quantile(values, 0.025)),
                     "high": float(np.quantile(values, 0.975))})
    return rows


# Boschloo's test (kept in src/core/stats for its callers), then the re-ask
# rule of src/core/stats/bound.rs, sequential.rs and decide.rs, written
# again here on scipy's beta and binomial distributions.
@functools.lru_cache(None)
def boschloo(passed, samples, failed, asked):
    if asked == 0 or failed == 0:
        return 1.0
    return float(boschloo_exact(table(passed, samples, failed, asked), alternative="greater", n=64).pvalue)


MAX_CAP, SLACK, REFERENCE_SHARE = 12, 2, 0.3


def lower_bound(passed, samples, delta):
    """One-sided Clopper-Pearson lower bound of a pass rate (scipy's beta)."""
    if passed == 0:
        return 0.0
    return float(beta.ppf(delta, passed, samples - passed + 1))


def ceiling(passed, samples, alpha, exposed):
    return 1.0 - lower_bound(passed, samples, alpha * REFERENCE_SHARE / max(exposed, 1))


def look(failed, asked, q0):
    return 1.0 if failed == 0 else float(binom.sf(failed - 1, asked, q0))


def cap_for(q0, family, level):
    share = level / max(family, 1)
    fewest = next((r for r in range(1, MAX_CAP + 1) if look(r, r, q0) <= share), MAX_CAP)
    return min(MAX_CAP, fewest + SLACK)


def smallest_look(q0, path):
    failed, smallest = 0, 1.0
    for i, outcome in enumerate(path, 1):
        failed += outcome
        smallest = min(smallest, look(failed, i, q0))
    return smallest


@functools.lru_cache(None)
def sequential_p(q0, cap, path):
    """The probability at failure rate q0 that a design of `cap` re-asks with
    a look after each ever shows a tail at most the smallest `path` showed:
    every full path of the design enumerated (no recursion shared with the
    Rust first-passage sum)."""
    seen = smallest_look(q0, path)
    if seen >= 1.0:
        return 1.0
    bar = seen * (1 + 1e-9)
    total = 0.0
    for full in itertools.product((0, 1), repeat=cap):
        if smallest_look(q0, full) <= bar:
            f = sum(full)
            total += q0 ** f * (1 - q0) ** (cap - f)
    return min(1.0, total)


def bound_rows():
    rows = []
    for passed, samples, delta in [(5, 5, 0.05), (5, 5, 1.5e-4), (29, 30, 0.01), (30, 30, 7.5e-5),
                                   (3, 5, 0.015), (17, 40, 0.001), (1, 1, 0.5), (99, 100, 1e-6)]:
        rows.append({"passed": passed, "samples": samples, "delta": delta,
                     "lower": lower_bound(passed, samples, delta)})
    return rows


def sequential_rows():
    rows = []
    for passed, samples, family, exposed, path in [
            (5, 5, 1, 1, "FF"), (5, 5, 1, 1, "FPF"), (30, 30, 3, 6, "FF"),
            (30, 30, 5, 20, "FFF"), (30, 30, 5, 5, "PFFF"), (30, 30, 12, 40, "FFFF"),
            (29, 30, 1, 3, "FFF"), (10, 10, 2, 2, "FF"), (30, 30, 1, 1, "F"),
            (5, 5, 1, 1, "PP"), (40, 40, 4, 200, "FPFFPF")]:
        q0 = ceiling(passed, samples, 0.05, exposed)
        cap = cap_for(q0, family, 0.05 * (1 - REFERENCE_SHARE))
        outcomes = tuple(1 if c == "F" else 0 for c in path)
        rows.append({"passed": passed, "samples": samples, "family": family, "exposed": exposed,
                     "path": path, "ceiling": q0, "cap": cap,
                     "p": sequential_p(q0, cap, outcomes)})
    return rows


def rule_power(samples, q, alpha, family):
    """One pair whose reference passed every sample, among `family` pairs
    whose others are not worse (the step-up procedure then asks m·p ≤ the
    test level), the bound held over the family, now failing at rate q: the
    probability it ends worse, summed over every path of its re-asks."""
    level = alpha * (1 - REFERENCE_SHARE)
    q0 = ceiling(samples, samples, alpha, family)
    cap = cap_for(q0, family, level)

    def walk(path):
        p = sequential_p(q0, cap, path)
        if min(1.0, family * p) <= level:
            return 1.0
        if len(path) >= cap:
            return 0.0
        if sequential_p(q0, cap, path + (1,) * (cap - len(path))) > level:
            return 0.0
        return q * walk(path + (1,)) + (1 - q) * walk(path + (0,))
    return q * walk(())


def power_rows():
    rows = []
    for samples, q, alpha, family in [(30, 0.7, 0.05, 1), (30, 0.7, 0.05, 5),
                                      (30, 0.7, 0.05, 15), (5, 1.0, 0.05, 10),
                                      (10, 0.5, 0.05, 3), (20, 0.9, 0.05, 2), (40, 0.5, 0.05, 8)]:
        rows.append({"samples": samples, "q": q, "alpha": alpha, "family": family,
                     "power": rule_power(samples, q, alpha, family)})
    return rows


def main():
    fisher, bosch = exact_tests()
    data = {
        "made_by": f"tests/stats/reference.py with scipy {scipy.__version__}, statsmodels {statsmodels.__version__}",
        "binomial": binomial(), "fisher": fisher, "boschloo": bosch,
        "mcnemar": mcnemar_rows(), "family": family(), "wilson": wilson(),
        "quantile": quantiles(), "mde_normal": mde(), "bootstrap": bootstrap(),
        "bound": bound_rows(), "sequential": sequential_rows(), "case_power": power_rows(),
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
