//! What a suite can see: the smallest drop caught with a given probability
//! (80 % in every sentence digline prints) at the declared false-alarm rate.
//!
//! Per case, [`mde_case`] is exact for the rule of [`super::decide`]: the
//! probability that a case whose reference passed every sample, and that
//! now fails at rate `q`, ends *worse* is summed over every path of its
//! re-asks ([`case_power`]), and the smallest `q` reaching the power is
//! found by bisection. For whole-run measures the normal approximation of
//! a one-sided paired test gives the drop ([`mde_normal`],
//! [`mde_paired_proportion`]).

use super::decide::{decide, Pair, Plan, Verdict};
use super::normal_quantile;

/// The probability that one case, its reference `samples` of `samples`
/// passing, is found worse when it now fails at rate `q`, tested among
/// `family` re-asked pairs whose other members are not worse.
pub fn case_power(samples: u64, q: f64, plan: Plan, family: usize) -> f64 {
    let start = Pair::after(samples, samples, &[]);
    q * paths(start, q, plan, family.max(1))
}

/// The probability of ending worse from `pair`, re-asks failing at rate `q`.
fn paths(pair: Pair, q: f64, plan: Plan, family: usize) -> f64 {
    // Others of the family that wobbled back: no failing re-ask.
    let quiet = Pair::after(1, 2, &[false]);
    let mut pairs = vec![quiet; family];
    pairs[0] = pair;
    match decide(&pairs, plan)[0].verdict {
        Verdict::Worse => 1.0,
        Verdict::Noise | Verdict::Undecided => 0.0,
        Verdict::Open => {
            let step = |failed: bool| Pair {
                path: pair.path.then(failed),
                ..pair
            };
            let (failed, passed) = (step(true), step(false));
            q * paths(failed, q, plan, family) + (1.0 - q) * paths(passed, q, plan, family)
        }
    }
}

/// The smallest failure rate (for a case whose reference passed every one
/// of its `samples`: the smallest drop in its pass rate) caught with
/// probability `power`; `None` when not even a case that always fails is.
pub fn mde_case(samples: u64, plan: Plan, family: usize, power: f64) -> Option<f64> {
    if case_power(samples, 1.0, plan, family) < power {
        return None;
    }
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    for _ in 0..60 {
        let middle = (low + high) / 2.0;
        if case_power(samples, middle, plan, family) >= power {
            high = middle;
        } else {
            low = middle;
        }
    }
    Some(high)
}

/// The smallest drop of a mean caught by a one-sided z-test at `alpha`
/// with probability `power`: `(z₁₋α + z_power) · sd / √n`.
pub fn mde_normal(sd: f64, n: u64, alpha: f64, power: f64) -> f64 {
    if n == 0 {
        return f64::INFINITY;
    }
    (normal_quantile(1.0 - alpha) + normal_quantile(power)) * sd / (n as f64).sqrt()
}

/// The smallest drop of a pass/fail measure over `n` paired cases, when a
/// share `discordant` of cases may change side by noise alone (the paired
/// difference's variance under no change): [`mde_normal`] with
/// `sd = √discordant`.
pub fn mde_paired_proportion(n: u64, discordant: f64, alpha: f64, power: f64) -> f64 {
    mde_normal(discordant.max(0.0).sqrt(), n, alpha, power)
}
