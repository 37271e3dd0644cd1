//! What a reference lets the gate see, said before anyone trusts a green:
//! the smallest drop caught 8 times in 10 at the declared false-alarm rate.
//!
//! - **Per case**: a case whose reference passed all of its N samples and
//!   now fails at rate `q` is found worse with a probability summed exactly
//!   over the re-ask rule's paths (`core::stats::mde_case`); the family is
//!   taken as the reference's wobbling pairs (those that passed fewer than
//!   all of their samples), at least one.
//! - **Per whole-run measure**: the spread of the measure over the
//!   reference's samples (`samples` of the aggregate's verdict) gives the
//!   standard deviation `σ` of one sample; a pull request's single sample
//!   against the reference's mean of N differs by noise alone with
//!   `s = σ·√(1 + 1/N)`. A drop is found worse when it passes both the
//!   measure's tolerance `t` and the noise (`z₁₋α·s`), so the smallest drop
//!   caught 8 times in 10 is `max(t, z₁₋α·s) + z₀.₈·s`. A measure whose
//!   tolerance is below the noise's threshold is named: the suite cannot see
//!   a drop that small. A reference whose samples did not vary (`s = 0`)
//!   catches every drop beyond the tolerance, and says so (never "a drop of
//!   0.000").
//!
//! Read from schema-10 fields only; `None` when the reference measured no
//! noise (every verdict of one sample).

use super::reask::measured;
use crate::core::document::RunDocument;
use crate::core::stats::{mde_case, normal_quantile, Plan};
use crate::core::verdict::Status;

/// The power of 80 %, in every sentence digline prints.
pub const POWER: f64 = 0.8;

/// One whole-run measure's smallest detectable drop.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasurePower {
    /// The measure's name (`accuracy`, `f1[group=a]`).
    pub name: String,
    /// The smallest drop caught with 80 % probability, tolerance included.
    pub drop: f64,
    /// The measure's declared tolerance.
    pub tolerance: f64,
    /// The drop noise alone reaches at the false-alarm rate (`z₁₋α·s`); 0
    /// when the reference's samples did not vary.
    pub noise: f64,
}

impl MeasurePower {
    /// The power of a measure with tolerance `tolerance` whose difference
    /// (one sample against the reference's mean) varies by `sd` under no
    /// change, at false-alarm rate `alpha`.
    pub fn of(name: String, tolerance: f64, sd: f64, alpha: f64) -> MeasurePower {
        let noise = normal_quantile(1.0 - alpha) * sd;
        MeasurePower {
            name,
            drop: tolerance.max(noise) + normal_quantile(POWER) * sd,
            tolerance,
            noise,
        }
    }

    /// True when a drop as small as the tolerance would mostly go unseen:
    /// the noise, not the tolerance, decides what is caught.
    pub fn tolerance_undetectable(&self) -> bool {
        self.tolerance < self.noise
    }

    /// True when the reference's samples did not vary: every drop beyond
    /// the tolerance is caught.
    pub fn steady(&self) -> bool {
        self.noise <= 0.0
    }
}

/// What the reference lets the gate see.
#[derive(Clone, Debug, PartialEq)]
pub struct Power {
    /// The declared false-alarm rate.
    pub alpha: f64,
    /// The reference's samples per case (the most common count).
    pub samples: u64,
    /// The smallest failure rate of a case that always passed in the
    /// reference caught 8 times in 10 (`None`: not even a case that always
    /// fails is).
    pub case_drop: Option<f64>,
    /// Each whole-run measure sampled in the reference.
    pub measures: Vec<MeasurePower>,
}

/// What a gate against a reference of one sample a case can see: no noise
/// was measured, so no false-alarm rate holds; a check is worse after three
/// failures in a row, and a case now failing at rate `q` is caught with
/// probability `q³` (`mde_case` of one sample). Asked after [`power`]
/// found no measured reference; `None` when no verdict has one sample.
pub fn one_sample(reference: &RunDocument, alpha: f64) -> Option<Power> {
    let any = reference
        .results
        .iter()
        .filter(|c| !c.suspended)
        .flat_map(|c| c.verdicts.iter())
        .any(|v| v.status != Status::Error && measured(v).1 == 1);
    any.then(|| Power {
        alpha,
        samples: 1,
        case_drop: mde_case(
            1,
            Plan::new(alpha * super::reask::rerun_weight(1), 1),
            1,
            POWER,
        ),
        measures: Vec::new(),
    })
}

/// The power of a gate against `reference` at false-alarm rate `alpha`.
pub fn power(reference: &RunDocument, alpha: f64) -> Option<Power> {
    let counts: Vec<(u64, u64)> = reference
        .results
        .iter()
        .filter(|c| !c.suspended)
        .flat_map(|c| c.verdicts.iter())
        .filter(|v| v.status != Status::Error)
        .map(measured)
        .collect();
    let mut by_samples: Vec<(u64, usize)> = Vec::new();
    for &(_, n) in &counts {
        match by_samples.iter_mut().find(|(m, _)| *m == n) {
            Some((_, k)) => *k += 1,
            None => by_samples.push((n, 1)),
        }
    }
    let samples = by_samples.iter().max_by_key(|(_, k)| *k).map(|(n, _)| *n)?;
    if samples < 2 {
        return None;
    }
    let wobbling = counts.iter().filter(|(k, n)| *n > 1 && k < n).count();
    // A first gate of a head spends its share of the declared rate.
    let plan = Plan::new(alpha * super::reask::rerun_weight(1), wobbling.max(1));
    let case_drop = mde_case(samples, plan, wobbling.max(1), POWER);
    let measures = reference
        .aggregate
        .iter()
        .filter_map(|v| {
            let values = v.samples.as_ref().filter(|s| s.len() > 1)?;
            let n = values.len() as f64;
            let mean = values.iter().sum::<f64>() / n;
            let variance = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
            let sd = variance.sqrt() * (1.0 + 1.0 / n).sqrt();
            Some(MeasurePower::of(
                v.assertion.to_string(),
                *v.tolerance,
                sd,
                alpha,
            ))
        })
        .collect();
    Some(Power {
        alpha,
        samples,
        case_drop,
        measures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drop_passes_the_tolerance_and_the_noise() {
        let (z95, z80) = (normal_quantile(0.95), normal_quantile(0.8));
        // Noise above the tolerance: the noise decides, the tolerance is blind.
        let m = MeasurePower::of("accuracy".into(), 0.01, 0.05, 0.05);
        assert!((m.drop - (z95 + z80) * 0.05).abs() < 1e-12, "{m:?}");
        assert!(m.tolerance_undetectable() && !m.steady());
        // A tolerance above the noise's threshold: it is part of the drop.
        let m = MeasurePower::of("accuracy".into(), 0.2, 0.05, 0.05);
        assert!((m.drop - (0.2 + z80 * 0.05)).abs() < 1e-12, "{m:?}");
        assert!(!m.tolerance_undetectable() && !m.steady());
        // A reference that did not vary: every drop beyond the tolerance.
        let m = MeasurePower::of("accuracy".into(), 0.0, 0.0, 0.05);
        assert!(m.steady() && !m.tolerance_undetectable() && m.drop == 0.0);
    }
}
