//! The decision per (case, check): is a failure that the pull request's
//! answer showed credibly worse than the rate its reference leaves
//! plausible?
//!
//! A pair enters the *family* when the run's first answer failed where the
//! reference passed; it is then re-asked, one call per round, up to its cap
//! (`sequential::cap_for`: fixed from the family's size before the first
//! re-ask). After each round [`decide`] looks at every pair of the family
//! at once:
//!
//! - the reference's count is never taken as the case's rate: it gives a
//!   **ceiling** on the failure rate (`bound::failure_ceiling`: one minus
//!   the Clopper–Pearson lower bound at `γ / exposed`, held jointly over
//!   the measured pairs whose first answer failed, `γ` being
//!   [`REFERENCE_SHARE`] of the declared rate). A reference that passed 5
//!   of 5 by luck among many borderline cases then promises little, and
//!   the selection that put it in the family cannot make it look worse;
//! - a pair's p-value is the sequential p-value of its **re-asks only**
//!   against that ceiling (`sequential::sequential_p`: the binomial tail
//!   at each look, the looks themselves paid for). The first failure chose
//!   the pair; counting it again would be choosing the evidence by its own
//!   outcome;
//! - the family is controlled by the Benjamini–Hochberg step-up procedure
//!   at the rest of the declared rate, `α − γ`. When nothing changed every
//!   pair is a false alarm, and then the step-up procedure is Simes' test:
//!   the probability that the gate fails at all is at most `α − γ` on the
//!   event that every ceiling holds, an event of probability at least
//!   `1 − γ` over the reference — at most `α` in all, and at most `α − γ`
//!   for all but a share `γ` of the references a team could approve;
//! - a pair whose p-value could no longer reach `α − γ` (the step-up's
//!   most lenient step) even if every remaining re-ask failed stops: its
//!   answers wobbled within the reference's measured noise — or, when not
//!   even a re-ask failing every time could have reached it, its reference
//!   is too thin to tell (undecided);
//! - a pair at its cap that is not worse is *undecided* when its own p is
//!   below `α − γ` (evidence the family correction does not let through),
//!   else within noise. Undecided never fails a gate.
//!
//! The adjusted p-value a reader sees is on the declared rate's scale: the
//! step-up's adjusted p divided by `1 − REFERENCE_SHARE`, so a pair is
//! worse exactly when it is at most the declared rate.
//!
//! A reference of one sample measured no noise: a check is worse when the
//! first answer and two re-asks all fail (three in a row); a re-ask that
//! passes makes it undecided (the reference cannot say whether that wobble
//! is new).

use super::benjamini_hochberg;
use super::bound::{failure_ceiling, REFERENCE_SHARE};
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

    /// The highest failure rate the reference leaves plausible, among
    /// `exposed` pairs at the plan's reference level.
    pub fn ceiling(&self, plan: Plan, exposed: usize) -> f64 {
        failure_ceiling(self.passed, self.samples, plan.reference_level(), exposed)
    }

    fn p(&self, ceiling: f64, cap: u64) -> f64 {
        sequential_p(ceiling, cap, self.path)
    }

    /// The smallest p-value still reachable: every remaining re-ask fails.
    fn best(&self, ceiling: f64, cap: u64) -> f64 {
        sequential_p(ceiling, cap, self.path.failing_to(cap))
    }
}

/// How the family is tested.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The declared false-alarm rate of the whole gate (`[suite]
    /// false_alarm_rate`, default 0.05).
    pub alpha: f64,
    /// How many measured pairs' first answers failed, whatever their
    /// reference: the set the reference's bounds are held jointly over (at
    /// least the family; a smaller number is read as the family's size).
    pub exposed: usize,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan {
            alpha: 0.05,
            exposed: 0,
        }
    }
}

impl Plan {
    /// The declared rate at `alpha`, the bounds held over `exposed` pairs.
    pub fn new(alpha: f64, exposed: usize) -> Plan {
        Plan { alpha, exposed }
    }

    /// The share of the declared rate the reference's bounds spend.
    pub fn reference_level(self) -> f64 {
        self.alpha * REFERENCE_SHARE
    }

    /// The rest: the level the family's re-asks are tested at.
    pub fn test_level(self) -> f64 {
        self.alpha - self.reference_level()
    }
}

/// Every pair's verdict, in the input's order. Pure: the caller re-asks
/// the `Open` pairs once and calls again, until none is open.
pub fn decide(pairs: &[Pair], plan: Plan) -> Vec<Decision> {
    let measured: Vec<usize> = (0..pairs.len()).filter(|&i| pairs[i].samples > 1).collect();
    let exposed = plan.exposed.max(measured.len());
    let level = plan.test_level();
    let ceilings: Vec<f64> = measured
        .iter()
        .map(|&i| pairs[i].ceiling(plan, exposed))
        .collect();
    let caps: Vec<u64> = ceilings
        .iter()
        .map(|&c| cap_for(c, measured.len(), level))
        .collect();
    let raw: Vec<f64> = measured
        .iter()
        .enumerate()
        .map(|(slot, &i)| pairs[i].p(ceilings[slot], caps[slot]))
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
        let test = Test {
            ceiling: ceilings[slot],
            cap: caps[slot],
            level,
        };
        out[i] = Decision {
            verdict: measured_verdict(&pairs[i], p, adjusted, test),
            p: Some(p),
            adjusted: Some(on_declared_scale(adjusted)),
        };
    }
    for (i, pair) in pairs.iter().enumerate() {
        if pair.samples <= 1 {
            out[i].verdict = unmeasured_verdict(pair);
        }
    }
    out
}

/// A step-up adjusted p-value on the declared rate's scale: at most the
/// declared rate exactly when at most the test level.
fn on_declared_scale(adjusted: f64) -> f64 {
    (adjusted / (1.0 - REFERENCE_SHARE)).min(1.0)
}

/// What one measured pair is tested with.
#[derive(Clone, Copy, Debug)]
struct Test {
    /// The failure rate its reference leaves plausible.
    ceiling: f64,
    /// Its re-asks at most.
    cap: u64,
    /// The family's level (the declared rate less the reference's share).
    level: f64,
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
/// its family-adjusted p-value and its test.
fn measured_verdict(pair: &Pair, p: f64, adjusted: f64, test: Test) -> Verdict {
    let Test {
        ceiling,
        cap,
        level,
    } = test;
    if adjusted <= level {
        Verdict::Worse
    } else if pair.path.asked >= cap {
        if p <= level {
            Verdict::Undecided
        } else {
            Verdict::Noise
        }
    } else if pair.best(ceiling, cap) > level {
        // The step-up's most lenient step: a pair still able to reach it
        // may yet be worse. One that never could, not even failing every
        // re-ask from the first, showed no wobble either: its reference is
        // too thin (or the declared rate too small) to tell.
        let fresh = Pair {
            path: Path::default(),
            ..*pair
        };
        if fresh.best(ceiling, cap) > level {
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
    let level = plan.test_level();
    let ceiling = pair.ceiling(plan, plan.exposed.max(family));
    let cap = cap_for(ceiling, family, level);
    let p = pair.p(ceiling, cap);
    let adjusted = (p * family as f64).min(1.0);
    let test = Test {
        ceiling,
        cap,
        level,
    };
    measured_verdict(pair, p, adjusted, test)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_no_evidence_could_reach_leaves_a_failure_undecided_not_within_noise() {
        let tiny = Plan::new(1e-9, 1);
        let broken = Pair::after(30, 30, &[]);
        let d = decide(&[broken], tiny)[0];
        assert_eq!(d.verdict, Verdict::Undecided);
        // At the default rate the same failure is re-asked, and a steady
        // reference whose re-asks pass is within its noise.
        assert_eq!(decide(&[broken], Plan::default())[0].verdict, Verdict::Open);
        let wobbled = Pair::after(30, 30, &[false, false, false]);
        assert_eq!(
            decide(&[wobbled], Plan::default())[0].verdict,
            Verdict::Noise
        );
        // A reference of 3 of 5 promises nothing a cap of re-asks could
        // contradict: too thin to tell, undecided at once, never noise.
        let thin = Pair::after(3, 5, &[]);
        assert_eq!(
            decide(&[thin], Plan::default())[0].verdict,
            Verdict::Undecided
        );
    }

    #[test]
    fn a_lucky_reference_among_many_failures_promises_less() {
        // The same 5 of 5 and the same re-asks: alone it is worse; when
        // many measured pairs' first answers failed, the bound held over
        // them all leaves a ceiling no four failing re-asks can beat.
        let pair = Pair::after(5, 5, &[true, true, true, true]);
        let alone = decide(&[pair], Plan::new(0.05, 1))[0];
        assert_eq!(alone.verdict, Verdict::Open);
        let crowded = decide(&[pair], Plan::new(0.05, 200))[0];
        assert!(crowded.p.unwrap() > alone.p.unwrap());
        let steady = Pair::after(30, 30, &[true, true, true]);
        assert_eq!(
            decide(&[steady], Plan::new(0.05, 1))[0].verdict,
            Verdict::Worse
        );
    }

    #[test]
    fn the_adjusted_p_is_on_the_declared_rates_scale() {
        let steady = Pair::after(30, 30, &[true, true, true]);
        let d = decide(&[steady], Plan::new(0.05, 1))[0];
        let p = d.p.unwrap();
        assert!((d.adjusted.unwrap() - p / (1.0 - REFERENCE_SHARE)).abs() < 1e-15);
        assert!(d.adjusted.unwrap() <= 0.05);
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
