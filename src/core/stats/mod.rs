//! The statistics of the verdict: exact tails, intervals, family control,
//! the paired bootstrap and the smallest detectable drop — pure.
//!
//! Every function here is checked against scipy / statsmodels values to
//! 1e-9 (`tests/stats/reference.py` writes `tests/stats/reference.json`,
//! read by `tests.rs`). Log-gamma and the normal quantile come from
//! `statrs`; the bootstrap's generator is `rand_pcg`, seeded.
//!
//! Conventions. A *reference* is `passed` of `samples` answers of one case
//! and check; the *run* (the pull request's answers) failed `failed` of
//! `asked`. The one-sided alternative is always "the run fails more often
//! than the reference": a drop, never a rise.

mod bound;
mod decide;
mod power;
mod sequential;

pub use bound::{failure_ceiling, lower_bound, REFERENCE_SHARE};
pub use decide::{decide, Decision, Evidence, Pair, Plan, Verdict as PairVerdict, CAP};
pub use power::{case_power, mde_case, mde_normal, mde_paired_proportion};
pub use sequential::{cap_for, sequential_p, Path};

use rand::{RngExt, SeedableRng};
use statrs::distribution::{ContinuousCDF, Normal};
use statrs::function::factorial::ln_binomial;

/// `P(X = k)` for `X ~ Binomial(n, p)`.
pub fn binomial_pmf(k: u64, n: u64, p: f64) -> f64 {
    if k > n {
        return 0.0;
    }
    if p <= 0.0 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    if p >= 1.0 {
        return if k == n { 1.0 } else { 0.0 };
    }
    let (k, nf) = (k as f64, n as f64);
    (ln_binomial(n, k as u64) + k * p.ln() + (nf - k) * (-p).ln_1p()).exp()
}

/// `P(X ≥ k)` for `X ~ Binomial(n, p)` (the upper tail, `k` included).
pub fn binomial_upper(k: u64, n: u64, p: f64) -> f64 {
    (k..=n).map(|i| binomial_pmf(i, n, p)).sum::<f64>().min(1.0)
}

/// `P(X ≤ k)` for `X ~ Binomial(n, p)` (the lower tail, `k` included).
pub fn binomial_lower(k: u64, n: u64, p: f64) -> f64 {
    (0..=k.min(n))
        .map(|i| binomial_pmf(i, n, p))
        .sum::<f64>()
        .min(1.0)
}

/// Fisher's exact test, one-sided: the probability, with both margins
/// fixed, that the run holds at least `failed` of all the failures.
/// Reference `passed`/`samples`, run `failed`/`asked`.
pub fn fisher_worse(passed: u64, samples: u64, failed: u64, asked: u64) -> f64 {
    let total = samples + asked;
    let failures = (samples - passed) + failed;
    let ln_all = ln_binomial(total, asked);
    let top = failures.min(asked);
    (failed..=top)
        .filter(|&x| failures - x <= samples)
        .map(|x| {
            (ln_binomial(failures, x) + ln_binomial(total - failures, asked - x) - ln_all).exp()
        })
        .sum::<f64>()
        .min(1.0)
}

/// Boschloo's exact unconditional test, one-sided (scipy's
/// `boschloo_exact(alternative="greater")` on the table
/// `[[passed, asked − failed], [samples − passed, failed]]`): Fisher's
/// one-sided p orders the tables, and the p-value is the largest
/// probability, over the common failure rate, of a table at least as
/// extreme as the one seen. Uniformly more powerful than Fisher's test and
/// still exact for every rate.
pub fn boschloo_worse(passed: u64, samples: u64, failed: u64, asked: u64) -> f64 {
    if failed == 0 {
        // Every table is at least as extreme as one without a failure.
        return 1.0;
    }
    let key = (passed, samples, failed, asked);
    if let Some(p) = BOSCHLOO.with(|memo| memo.borrow().get(&key).copied()) {
        return p;
    }
    let p = boschloo_uncached(passed, samples, failed, asked);
    BOSCHLOO.with(|memo| memo.borrow_mut().insert(key, p));
    p
}

thread_local! {
    /// Boschloo p-values already computed: the re-ask rule and the power
    /// computation ask for the same few tables many times.
    static BOSCHLOO: std::cell::RefCell<std::collections::HashMap<(u64, u64, u64, u64), f64>> =
        std::cell::RefCell::default();
}

fn boschloo_uncached(passed: u64, samples: u64, failed: u64, asked: u64) -> f64 {
    let observed = fisher_worse(passed, samples, failed, asked);
    let bar = observed * (1.0 + 1e-13);
    // ln of the summed binomial weight of every table as extreme, by its
    // number of failures (the reference's and the run's): the probability
    // of a table depends on nothing else, so a rate is weighed in
    // `samples + asked + 1` terms, not one per table.
    let total = samples + asked;
    let mut weight = vec![f64::NEG_INFINITY; total as usize + 1];
    for f in 0..=samples {
        for j in 0..=asked {
            if fisher_worse(samples - f, samples, j, asked) <= bar {
                let ln = ln_binomial(samples, f) + ln_binomial(asked, j);
                let w = &mut weight[(f + j) as usize];
                *w = ln_add(*w, ln);
            }
        }
    }
    let probability = |q: f64| -> f64 {
        if q <= 0.0 || q >= 1.0 {
            // Only the table with no failures (q = 0), or with no passes
            // (q = 1), has any probability.
            let certain = if q <= 0.0 { 0 } else { total as usize };
            return if weight[certain].is_finite() {
                1.0
            } else {
                0.0
            };
        }
        let (lq, lp) = (q.ln(), (-q).ln_1p());
        weight
            .iter()
            .enumerate()
            .filter(|(_, w)| w.is_finite())
            .map(|(t, &w)| (w + t as f64 * lq + (total as usize - t) as f64 * lp).exp())
            .sum()
    };
    maximum(probability).min(1.0)
}

/// `ln(eˣ + eʸ)`, exact when either is `-∞`.
fn ln_add(x: f64, y: f64) -> f64 {
    let (high, low) = if x >= y { (x, y) } else { (y, x) };
    if low == f64::NEG_INFINITY {
        high
    } else {
        high + (low - high).exp().ln_1p()
    }
}

/// The largest value of a smooth function on [0, 1]: a grid, then a
/// golden-section search around each of the best grid points.
fn maximum(f: impl Fn(f64) -> f64) -> f64 {
    const GRID: usize = 400;
    let values: Vec<f64> = (0..=GRID).map(|i| f(i as f64 / GRID as f64)).collect();
    let mut best = values.iter().copied().fold(0.0_f64, f64::max);
    for i in 0..=GRID {
        let left = values[i.saturating_sub(1)];
        let right = values[(i + 1).min(GRID)];
        if values[i] < left || values[i] < right {
            continue;
        }
        let (mut a, mut b) = (
            i.saturating_sub(1) as f64 / GRID as f64,
            (i + 1).min(GRID) as f64 / GRID as f64,
        );
        let ratio = (5f64.sqrt() - 1.0) / 2.0;
        let (mut c, mut d) = (b - ratio * (b - a), a + ratio * (b - a));
        let (mut fc, mut fd) = (f(c), f(d));
        for _ in 0..80 {
            if fc > fd {
                b = d;
                d = c;
                fd = fc;
                c = b - ratio * (b - a);
                fc = f(c);
            } else {
                a = c;
                c = d;
                fc = fd;
                d = a + ratio * (b - a);
                fd = f(d);
            }
        }
        best = best.max(fc).max(fd);
    }
    best
}

/// McNemar's exact test, two-sided, as statsmodels' `mcnemar(exact=True)`:
/// `b` pairs went one way, `c` the other; `min(1, 2·P(X ≤ min(b, c)))`
/// with `X ~ Binomial(b + c, ½)`.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    (2.0 * binomial_lower(b.min(c), n, 0.5)).min(1.0)
}

/// McNemar's mid-p test, two-sided: the exact p less the probability of
/// the table seen (Fagerland, Lydersen and Laake 2013).
pub fn mcnemar_mid_p(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    (mcnemar_exact(b, c) - binomial_pmf(b.min(c), n, 0.5)).clamp(0.0, 1.0)
}

/// McNemar's exact test, one-sided for a drop: `lost` pairs passed in the
/// reference and fail now, `gained` the reverse; `P(X ≥ lost)` with
/// `X ~ Binomial(lost + gained, ½)`.
pub fn mcnemar_worse(lost: u64, gained: u64) -> f64 {
    let n = lost + gained;
    if n == 0 || lost == 0 {
        return 1.0;
    }
    binomial_upper(lost, n, 0.5)
}

/// Holm's step-down adjusted p-values (statsmodels `multipletests(…,
/// method="holm")`), in the input's order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max((m - rank) as f64 * p[i]).min(1.0);
        adjusted[i] = running;
    }
    adjusted
}

/// Hochberg's step-up adjusted p-values (statsmodels `multipletests(…,
/// method="simes-hochberg")`), in the input's order. Valid when the tests
/// are independent (or positively dependent): here each pair's re-asks are
/// separate calls.
pub fn hochberg(p: &[f64]) -> Vec<f64> {
    step_up(p, |m, rank| (m - rank) as f64)
}

/// Benjamini and Hochberg's step-up adjusted p-values (statsmodels
/// `multipletests(…, method="fdr_bh")`), in the input's order. When every
/// hypothesis is true this is Simes' test of them all: a family of
/// independent tests rejects anything with probability at most the level.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    step_up(p, |m, rank| m as f64 / (rank + 1) as f64)
}

/// A step-up adjustment: from the largest p-value down, the running
/// minimum of `factor(m, rank) · p` (rank 0 for the smallest), at most 1.
fn step_up(p: &[f64], factor: impl Fn(usize, usize) -> f64) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 1.0;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(factor(m, rank) * p[i]).min(1.0);
        adjusted[i] = running;
    }
    adjusted
}

/// The standard normal quantile.
pub fn normal_quantile(probability: f64) -> f64 {
    Normal::standard().inverse_cdf(probability)
}

/// Wilson's score interval for `successes` of `n` at `1 − alpha`
/// (statsmodels `proportion_confint(method="wilson")`); `(0, 1)` for n = 0.
pub fn wilson(successes: u64, n: u64, alpha: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = normal_quantile(1.0 - alpha / 2.0);
    let (nf, p) = (n as f64, successes as f64 / n as f64);
    let z2 = z * z;
    let denominator = 1.0 + z2 / nf;
    let centre = (p + z2 / (2.0 * nf)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The `q` quantile of sorted `values`, interpolated linearly between the
/// two nearest ranks (numpy's default, "linear").
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let position = q * (n - 1) as f64;
            let low = position.floor() as usize;
            let high = (low + 1).min(n - 1);
            let weight = position - low as f64;
            sorted[low] + (sorted[high] - sorted[low]) * weight
        }
    }
}

/// A paired bootstrap over cases: `statistic(indices)` is the measure's
/// difference (run − reference) over a resample of case indices. Returns
/// every resample's value, sorted.
///
/// With `n ≤ exact_up_to` every one of the `nⁿ` resamples is enumerated
/// (the exact bootstrap distribution); otherwise `resamples` draws from a
/// PCG generator seeded with `seed`, so a run is reproducible.
pub fn paired_bootstrap(
    n: usize,
    resamples: usize,
    seed: u64,
    exact_up_to: usize,
    statistic: impl Fn(&[usize]) -> f64,
) -> Vec<f64> {
    let mut values = Vec::new();
    if n == 0 {
        return values;
    }
    if n <= exact_up_to {
        let mut indices = vec![0usize; n];
        loop {
            values.push(statistic(&indices));
            let mut position = 0;
            loop {
                if position == n {
                    values.sort_by(f64::total_cmp);
                    return values;
                }
                indices[position] += 1;
                if indices[position] < n {
                    break;
                }
                indices[position] = 0;
                position += 1;
            }
        }
    }
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut indices = vec![0usize; n];
    for _ in 0..resamples {
        for slot in indices.iter_mut() {
            *slot = rng.random_range(0..n);
        }
        values.push(statistic(&indices));
    }
    values.sort_by(f64::total_cmp);
    values
}

/// The percentile interval `[α/2, 1 − α/2]` of a bootstrap distribution.
pub fn percentile_interval(sorted: &[f64], alpha: f64) -> (f64, f64) {
    (
        quantile(sorted, alpha / 2.0),
        quantile(sorted, 1.0 - alpha / 2.0),
    )
}

#[cfg(test)]
mod tests;
