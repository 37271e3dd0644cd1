//! A loaded suite as pure data: its identity, its cases and its checks.
//!
//! `host::suite` builds it from `suite.toml` + `cases.json`; the driver
//! (`run`) reads it. The target is not here: it is `target`'s type.
//! Spec `10-suite.md`; design record ADR 0007 (`shared/seeds/004_*`).

use serde_json::{Map, Value};

use super::aggregate::DeclaredAggregate;
use super::checks::DeclaredCheck;
use super::identity::{config_hash, RuleEntry};

/// One entry of `cases.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Case {
    /// Unique, non-empty: the pairing key.
    pub id: String,
    /// Template variables and body references; payload.
    pub vars: Map<String, Value>,
    /// The expected answer (string or object), if any; payload.
    pub expected: Option<Value>,
    /// Retrieval context; payload.
    pub context: Vec<String>,
    /// Free-form data about the case; payload.
    pub metadata: Map<String, Value>,
    /// Why the case is not run, if it is suspended; payload.
    pub suspended: Option<String>,
    /// `positive` or `negative`, for aggregates.
    pub label: Option<String>,
    /// The group for `by_group` aggregates.
    pub group: Option<String>,
    /// True for a canary case (needs samples ≥ 2).
    pub canary: bool,
}

/// A suite ready to run.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The perimeter: `.digline/<tenant>/`.
    pub tenant: String,
    /// Where the run happens (`local`, `ci`, …); recorded.
    pub environment: String,
    /// The suite's name: the baseline's file name.
    pub name: String,
    /// Target calls per case (≥ 1).
    pub samples: u32,
    /// The fraction of samples that must agree, when `samples` > 1 (0–1).
    pub min_agreement: Option<f64>,
    /// Per-case checks in declaration order (= report order).
    pub checks: Vec<DeclaredCheck>,
    /// The cases in file order.
    pub cases: Vec<Case>,
    /// Record the answers in the run document.
    pub record_responses: bool,
    /// `[suite] max_usd`: the spending cap, USD (`--max-usd` may lower it).
    pub max_usd: Option<f64>,
    /// Declared artifact paths, as written (relative to the suite file).
    pub artifacts: Vec<String>,
    /// One `config_hash` entry per check, same order as `checks`, with
    /// threshold and tolerance as declared (integer or float).
    pub rules: Vec<RuleEntry>,
    /// Aggregates in declaration order, each `by_group` one followed by its
    /// per-group copies (groups sorted): the document's `aggregate` order.
    pub aggregates: Vec<DeclaredAggregate>,
    /// `[suite] false_alarm_rate`: the chance, for the whole gate, of calling
    /// an unchanged system worse (0 < rate < 0.5; default 0.05).
    pub false_alarm_rate: f64,
    /// `samples` and `min_agreement` as the suite declares them, when this
    /// run measures noise with another sample count (`run --samples N`):
    /// the hash keeps the declared rules, and no case errors for a missed
    /// agreement.
    pub declared_sampling: Option<(u32, Option<f64>)>,
}

/// The false-alarm rate of a gate when `[suite]` declares none.
pub const DEFAULT_FALSE_ALARM_RATE: f64 = 0.05;

/// The smallest `false_alarm_rate` a suite may declare: one false alarm in
/// 10,000 gates. Already at this rate a failure can be called worse only
/// against a reference of 19 samples or more that all passed, every re-ask
/// (`stats::sequential::MAX_CAP` of them) failing again; at 0.00001 it
/// takes 29, at 0.000001 43. Below it, every failure of an ordinary
/// reference would be undecided, and undecided never fails the gate: a
/// pull request could loosen the gate to nothing.
pub const LEAST_FALSE_ALARM_RATE: f64 = 1e-4;

#[cfg(test)]
impl Suite {
    /// A suite for the tests: tenant `t`, environment `e`, name `s`, one
    /// sample, `checks` over cases with these ids, nothing else declared.
    pub fn for_tests(checks: Vec<DeclaredCheck>, ids: impl IntoIterator<Item = String>) -> Suite {
        Suite {
            tenant: "t".into(),
            environment: "e".into(),
            name: "s".into(),
            samples: 1,
            min_agreement: None,
            checks,
            cases: ids
                .into_iter()
                .map(|id| Case {
                    id,
                    ..Case::default()
                })
                .collect(),
            record_responses: false,
            max_usd: None,
            artifacts: Vec::new(),
            rules: Vec::new(),
            aggregates: Vec::new(),
            false_alarm_rate: DEFAULT_FALSE_ALARM_RATE,
            declared_sampling: None,
        }
    }
}

impl Suite {
    /// The suite's `config_hash` (16 hex chars), equal to digline 0.10.0's:
    /// what two runs must share to compare the same rules. It covers each
    /// check's `assertion_id`, threshold and tolerance (order-free), the
    /// samples and `min_agreement` (by value: `"2/3"` and `"4/6"` agree),
    /// and every aggregate with its group copies (so the cases' groups
    /// count); not the target or `record_responses`.
    pub fn config_hash(&self) -> String {
        let (samples, min_agreement) = self
            .declared_sampling
            .unwrap_or((self.samples, self.min_agreement));
        let aggregates: Vec<RuleEntry> = self.aggregates.iter().map(|a| a.rule()).collect();
        if self.rules.len() == self.checks.len() {
            return config_hash(&self.rules, samples, min_agreement, &aggregates);
        }
        let rules: Vec<RuleEntry> = self
            .checks
            .iter()
            .map(|c| RuleEntry {
                assertion_id: c.assertion_id.clone(),
                threshold: c.threshold.to_number(),
                tolerance: c.tolerance.to_number(),
            })
            .collect();
        config_hash(&rules, samples, min_agreement, &aggregates)
    }

    /// Ask every case `samples` times to measure its noise (`run --samples
    /// N`): the declared sampling is kept for the hash, and the samples'
    /// agreement is not required (a borderline case is what is measured).
    pub fn measure_noise(&mut self, samples: u32) {
        if self.declared_sampling.is_none() {
            self.declared_sampling = Some((self.samples, self.min_agreement));
        }
        self.samples = samples;
    }

    /// The share of samples that must agree for a verdict: none while
    /// measuring noise, else `min_agreement` (all of them when unset).
    pub fn required_agreement(&self) -> f64 {
        if self.declared_sampling.is_some() {
            0.0
        } else {
            self.min_agreement.unwrap_or(1.0)
        }
    }

    /// How many times each answer is graded by each `repeated` check, as
    /// (reported name, times), in declaration order.
    pub fn repeated(&self) -> Vec<(&str, u32)> {
        self.checks
            .iter()
            .filter_map(|c| Some((c.name.as_str(), c.repetition()?.samples)))
            .collect()
    }
}

#[cfg(test)]
mod least_rate {
    use super::LEAST_FALSE_ALARM_RATE;
    use crate::core::compare::reask::rerun_weight;
    use crate::core::stats::{failure_ceiling, sequential_p, Path, Plan};

    /// The most re-asks a pair gets (`stats::sequential::MAX_CAP`).
    const MAX_CAP: u64 = 12;

    /// Whether a failure alone, its reference `n` samples that all passed,
    /// could be called worse at `alpha` by a first gate: every re-ask
    /// failing again.
    fn decidable(n: u64, alpha: f64) -> bool {
        let plan = Plan::new(alpha * rerun_weight(1), 1);
        let ceiling = failure_ceiling(n, n, plan.reference_level(), 1);
        let strongest = sequential_p(ceiling, MAX_CAP, Path::of(&[true; MAX_CAP as usize]));
        strongest <= plan.test_level()
    }

    #[test]
    fn the_least_rate_is_reachable_with_an_ordinary_reference_and_no_less() {
        let least = LEAST_FALSE_ALARM_RATE;
        assert!(decidable(19, least) && !decidable(18, least));
        assert!(decidable(29, 1e-5) && !decidable(28, 1e-5));
        assert!(decidable(30, 0.05) && decidable(5, 0.05));
        assert!(
            !decidable(30, 1e-9),
            "a rate no recommended reference reaches"
        );
    }
}
