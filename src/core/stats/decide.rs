//! The decision per (case, check): is a failure that the pull request's
//! answer showed credibly worse than the reference's own measured rate?
//!
//! A pair enters the *family* when the run's first answer failed where the
//! reference passed; it is then re-asked, one call per round, up to its cap
//! (`sequential::cap_for`: fixed from the family's size before the first
//! re-ask). After each round [`decide`] looks at every pair of the family
//! at once:
//!
//! - a pair's p-value is the sequential p-value of its **re-asks only**
//!   against the reference's `passed`/`samples` (`sequential::sequential_p`:
//!   Boschloo's exact one-sided test at each look, the looks themselves
//!   paid for). The first failure chose the pair; counting it again would
//!   be choosing the evidence by its own outcome;
//! - the family is controlled by the Benjamini–Hochberg step-up procedure
//!   at `alpha`. When nothing changed every pair is a false alarm, and then
//!   the step-up procedure is Simes' test: the probability that the gate
//!   fails at all is at most `alpha` (independent re-asks). When some pairs
//!   are worse, the gate rightly fails, and the share of named pairs that
//!   are not worse stays at most `alpha` on average;
//! - a pair whose p-value could no longer reach `alpha` (the step-up's most
//!   lenient step) even if every remaining re-ask failed stops: its answers
//!   wobbled within the reference's measured noise;
//! - a pair at its cap that is not worse is *undecided* when its own p is
//!   below `alpha` (evidence the family correction does not let through),
//!   else within noise. Undecided never fails a gate.
//!
//! A reference of one sample measured no noise: a deterministic system
//! keeps today's strictness. Two re-asks that fail again make the pair
//! worse; a re-ask that passes makes it undecided (the reference cannot say
//! whether that wobble is new).

use super::benjamini_hochberg;
use super::sequential::{cap_for, sequential_p, Path};

pub use super::sequential::MAX_CAP as CAP;

/// Re-asks that decide a pair whose reference has one sample.
const CONFIRMATIONS: u64 = 2;

/// One tested pair: the reference's count and the re-asks so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// Reference samples that passed.
    pub passed: u64,
    /// Reference samples (1 = no noise measured).
    pub samples: u64,
    /// The re-asks after the first, failing answer, in call order.
    pub path: Path,
}

/// Where a pair stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Credibly worse than the reference: the gate fails.
    Worse,
    /// Within the reference's measured noise.
    Noise,
    /// Not decided within the cap (or the reference measured no noise).
    Undecided,
    /// Needs another re-ask.
    Open,
}

impl Verdict {
    /// The word printed in `--json` (`worse`, `noise`, `undecided`, `open`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Worse => "worse",
            Verdict::Noise => "noise",
            Verdict::Undecided => "undecided",
            Verdict::Open => "open",
        }
    }
}

/// A pair's verdict and its evidence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// Where the pair stands.
    pub verdict: Verdict,
    /// The pair's own one-sided p-value (`None` for a one-sample reference).
    pub p: Option<f64>,
    /// The p-value adjusted for the family (Benjamini–Hochberg).
    pub adjusted: Option<f64>,
}

/// The evidence a reader sees for one pair: reference `k/N`, now `j/m`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evidence {
    /// Reference samples that passed (`k`).
    pub reference_passed: u64,
    /// Reference samples (`N`).
    pub reference_samples: u64,
    /// The run's answers that passed, the first one included (`j`).
    pub now_passed: u64,
    /// The run's answers, the first one included (`m`).
    pub now_asked: u64,
}

impl Pair {
    /// What a reader sees: the first failing answer counts among the run's.
    pub fn evidence(&self) -> Evidence {
        Evidence {
            reference_passed: self.passed,
            reference_samples: self.samples,
            now_passed: self.path.asked - self.path.failed(),
            now_asked: self.path.asked + 1,
        }
    }

    /// A pair of a reference's `passed` of `samples` and its re-asks so
    /// far (`true`: failed again).
    pub fn after(passed: u64, samples: u64, outcomes: &[bool]) -> Pair {
        Pair {
            passed,
            samples,
            path: Path::of(outcomes),
        }
    }

    fn p(&self, cap: u64) -> f64 {
        sequential_p(self.passed, self.samples, cap, self.path)
    }

    /// The smallest p-value still reachable: every remaining re-ask fails.
    fn best(&self, cap: u64) -> f64 {
        sequential_p(self.passed, self.samples, cap, self.path.failing_to(cap))
    }
}

/// How the family is tested.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The declared false-alarm rate of the whole gate (`[suite]
    /// false_alarm_rate`, default 0.05).
    pub alpha: f64,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan { alpha: 0.05 }
    }
}

/// Every pair's verdict, in the input's order. Pure: the caller re-asks
/// the `Open` pairs once and calls again, until none is open.
pub fn decide(pairs: &[Pair], plan: Plan) -> Vec<Decision> {
    let measured: Vec<usize> = (0..pairs.len()).filter(|&i| pairs[i].samples > 1).collect();
    let caps: Vec<u64> = measured
        .iter()
        .map(|&i| cap_for(pairs[i].samples, measured.len(), plan.alpha))
        .collect();
    let raw: Vec<f64> = measured
        .iter()
        .zip(&caps)
        .map(|(&i, &cap)| pairs[i].p(cap))
        .collect();
    let adjusted = benjamini_hochberg(&raw);
    let mut out = vec![
        Decision {
            verdict: Verdict::Open,
            p: None,
            adjusted: None,
        };
        pairs.len()
    ];
    for (slot, &i) in measured.iter().enumerate() {
        let (p, adjusted) = (raw[slot], adjusted[slot]);
        out[i] = Decision {
            verdict: measured_verdict(&pairs[i], p, adjusted, caps[slot], plan.alpha),
            p: Some(p),
            adjusted: Some(adjusted),
        };
    }
    for (i, pair) in pairs.iter().enumerate() {
        if pair.samples <= 1 {
            out[i].verdict = unmeasured_verdict(pair);
        }
    }
    out
}

/// The verdict of a pair whose reference has one sample: today's
/// strictness.
fn unmeasured_verdict(pair: &Pair) -> Verdict {
    if pair.path.failed() < pair.path.asked {
        Verdict::Undecided
    } else if pair.path.asked >= CONFIRMATIONS {
        Verdict::Worse
    } else {
        Verdict::Open
    }
}

/// The verdict of a pair of a measured reference, from its own p-value,
/// its family-adjusted p-value and its cap.
fn measured_verdict(pair: &Pair, p: f64, adjusted: f64, cap: u64, alpha: f64) -> Verdict {
    if adjusted <= alpha {
        Verdict::Worse
    } else if pair.path.asked >= cap {
        if p <= alpha {
            Verdict::Undecided
        } else {
            Verdict::Noise
        }
    } else if pair.best(cap) > alpha {
        // The step-up's most lenient step: a pair still able to reach it
        // may yet be worse. One that never could, not even had its
        // reference passed every sample (a false-alarm rate too small for
        // the reference's samples and the cap), showed no wobble either.
        let strongest = Pair::after(pair.samples, pair.samples, &[]);
        if strongest.best(cap) > alpha {
            Verdict::Undecided
        } else {
            Verdict::Noise
        }
    } else {
        Verdict::Open
    }
}

/// The verdict [`decide`] gives `pair` (of a measured reference) in a
/// family of `family` pairs whose others showed no failing re-ask (p = 1),
/// without building that family: the step-up procedure then adjusts the
/// pair's p-value to `min(1, family · p)`. What the power computation
/// needs, in time that does not grow with the family.
pub fn decide_among_quiet(pair: &Pair, family: usize, plan: Plan) -> Verdict {
    if pair.samples <= 1 {
        return unmeasured_verdict(pair);
    }
    let family = family.max(1);
    let cap = cap_for(pair.samples, family, plan.alpha);
    let p = pair.p(cap);
    let adjusted = (p * family as f64).min(1.0);
    measured_verdict(pair, p, adjusted, cap, plan.alpha)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_no_evidence_could_reach_leaves_a_failure_undecided_not_within_noise() {
        let tiny = Plan { alpha: 1e-9 };
        let broken = Pair::after(5, 5, &[]);
        let d = decide(&[broken], tiny)[0];
        assert_eq!(d.verdict, Verdict::Undecided);
        // At the default rate the same failure is re-asked, and a borderline
        // reference whose re-asks pass is within its noise.
        assert_eq!(decide(&[broken], Plan::default())[0].verdict, Verdict::Open);
        let wobbly = Pair::after(3, 5, &[false, false]);
        assert_eq!(
            decide(&[wobbly], Plan::default())[0].verdict,
            Verdict::Noise
        );
    }

    #[test]
    fn a_pair_among_quiet_pairs_is_decided_as_in_the_whole_family() {
        let plan = Plan::default();
        let quiet = Pair::after(1, 2, &[false]);
        let paths: [&[bool]; 6] = [
            &[],
            &[true],
            &[true, true],
            &[true, false, true],
            &[true, true, true, true],
            &[false, false],
        ];
        for samples in [1, 2, 5, 12] {
            for family in [1, 2, 7, 40] {
                for path in paths {
                    let pair = Pair::after(samples, samples, path);
                    let mut pairs = vec![quiet; family];
                    pairs[0] = pair;
                    assert_eq!(
                        decide_among_quiet(&pair, family, plan),
                        decide(&pairs, plan)[0].verdict,
                        "{samples} samples, family {family}, path {path:?}"
                    );
                }
            }
        }
    }
}
