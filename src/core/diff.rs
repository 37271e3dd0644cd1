//! `diff`: what differs between two runs, neither of them a reference.
//!
//! The same pairing as `compare` (`(scope, case_id, assertion_id,
//! occurrence)`, [`keyed_verdicts`]) and the same first rules — one side
//! only, either side errored, a pass/fail flip regardless of tolerance —
//! but no verdict: nothing here is `worse`, `regressed` or an exit code. A
//! difference *favours* the run with the higher score. After the numeric
//! rule (against the larger of the two declared tolerances) the two
//! measured intervals ride beside the difference as evidence and never
//! overrule it. Symmetric: swapping the runs swaps the columns and negates
//! `delta`, nothing else.
//!
//! Refused (exit 64): runs of different tenants, suites or `config_hash`
//! (a diff would compare the rulers, not the systems), and runs graded by
//! different judges. The caller refuses a run diffed with itself.
//! digline 0.10.0's `diff` (ADR 0008); spec `40-compare.md`.

use std::collections::BTreeSet;
use std::fmt;

use super::compare::{
    artifact_deltas, config_deltas, join_verdicts, keyed_verdicts, ArtifactDelta, ArtifactOutcome,
    ConfigDelta, ConfigOutcome, PairKey, Scope,
};
use super::document::RunDocument;
use super::python::dumps::round6;
use super::verdict::{within, Status, Verdict};

/// What one paired check did across the two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffOutcome {
    /// The two answered differently (beyond tolerance, or a flip).
    Differs,
    /// Within the larger declared tolerance.
    Same,
    /// Either side could not judge.
    Errored,
    /// Checked in the left run only.
    OnlyLeft,
    /// Checked in the right run only.
    OnlyRight,
}

impl DiffOutcome {
    /// The word in `--json full` (`differs`, `same`, `errored`, `only_left`, `only_right`).
    pub fn as_str(self) -> &'static str {
        match self {
            DiffOutcome::Differs => "differs",
            DiffOutcome::Same => "same",
            DiffOutcome::Errored => "errored",
            DiffOutcome::OnlyLeft => "only_left",
            DiffOutcome::OnlyRight => "only_right",
        }
    }
}

/// Which run a difference's numbers favour (a statement about two numbers,
/// not a direction of travel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Favours {
    /// The left run scored higher (or passes where the right fails).
    Left,
    /// The right run scored higher (or passes where the left fails).
    Right,
    /// Neither: the same, errored or one side only.
    Neither,
}

impl Favours {
    /// The word in `--json full` (`left`, `right`, `neither`).
    pub fn as_str(self) -> &'static str {
        match self {
            Favours::Left => "left",
            Favours::Right => "right",
            Favours::Neither => "neither",
        }
    }
}

/// A sampled verdict's measured interval: scores 0–1 and the sample count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The lowest sampled score.
    pub min: f64,
    /// The highest sampled score.
    pub max: f64,
    /// How many samples.
    pub samples: usize,
}

impl Interval {
    fn of(v: &Verdict) -> Option<Interval> {
        let samples = v.samples.as_ref().filter(|s| !s.is_empty())?;
        Some(Interval {
            min: v.sample_min?,
            max: v.sample_max?,
            samples: samples.len(),
        })
    }
}

/// One check as the two runs answered it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckDifference {
    /// The case id (`""` for a run-level measure).
    pub case_id: String,
    /// The check's name (display only; pairing is by id).
    pub assertion: String,
    /// The check's identity (what pairs it).
    pub assertion_id: String,
    /// 0 for the first verdict with this identity in the case, 1 for the second, …
    pub occurrence: usize,
    /// Case or run.
    pub scope: Scope,
    /// What happened.
    pub outcome: DiffOutcome,
    /// The left run's status and score (`None` when it did not check it).
    pub left: Option<(Status, Option<f64>)>,
    /// The right run's status and score.
    pub right: Option<(Status, Option<f64>)>,
    /// Which run the numbers favour.
    pub favours: Favours,
    /// `round6(right − left)` when both scored.
    pub delta: Option<f64>,
    /// The larger of the two declared tolerances (0 when not both scored).
    pub tolerance: f64,
    /// True when one passes and the other fails.
    pub flipped: bool,
    /// The left run's interval (not reported on a flip).
    pub left_interval: Option<Interval>,
    /// The right run's interval (not reported on a flip).
    pub right_interval: Option<Interval>,
    /// Both intervals known and touching or overlapping.
    pub intervals_overlap: bool,
    /// Both intervals known and apart.
    pub intervals_disjoint: bool,
}

impl CheckDifference {
    /// True unless the outcome is [`DiffOutcome::Same`].
    pub fn differs(&self) -> bool {
        self.outcome != DiffOutcome::Same
    }
}

/// What differs between two runs. No `worse`, by design.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The shared tenant.
    pub tenant: String,
    /// The shared suite.
    pub suite: String,
    /// Every paired check, in pairing-key order.
    pub checks: Vec<CheckDifference>,
    /// Target configuration, left as *before* and right as *after*.
    pub target_config_deltas: Vec<ConfigDelta>,
    /// Declared files, left as *before* and right as *after*.
    pub artifact_deltas: Vec<ArtifactDelta>,
    /// The judge identities both runs share (sorted).
    pub judges: Vec<String>,
}

/// The counts `diff` reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffCounts {
    /// Paired checks.
    pub total: usize,
    /// Checks not `same`.
    pub differing: usize,
    /// Differences favouring the left run.
    pub favours_left: usize,
    /// Differences favouring the right run.
    pub favours_right: usize,
    /// Checks within tolerance.
    pub within_tolerance: usize,
    /// Checked in the left run only.
    pub only_left: usize,
    /// Checked in the right run only.
    pub only_right: usize,
    /// Either side errored.
    pub errored: usize,
    /// Differing checks with an interval on both sides.
    pub interval_pairs: usize,
    /// Left-favouring differences whose intervals are disjoint.
    pub left_exceeds: usize,
    /// Right-favouring differences whose intervals are disjoint.
    pub right_exceeds: usize,
}

impl Difference {
    /// The counts over [`Difference::checks`].
    pub fn counts(&self) -> DiffCounts {
        let n = |f: &dyn Fn(&CheckDifference) -> bool| self.checks.iter().filter(|c| f(c)).count();
        DiffCounts {
            total: self.checks.len(),
            differing: n(&|c| c.differs()),
            favours_left: n(&|c| c.favours == Favours::Left),
            favours_right: n(&|c| c.favours == Favours::Right),
            within_tolerance: n(&|c| c.outcome == DiffOutcome::Same),
            only_left: n(&|c| c.outcome == DiffOutcome::OnlyLeft),
            only_right: n(&|c| c.outcome == DiffOutcome::OnlyRight),
            errored: n(&|c| c.outcome == DiffOutcome::Errored),
            interval_pairs: n(&|c| {
                c.differs() && c.left_interval.is_some() && c.right_interval.is_some()
            }),
            left_exceeds: n(&|c| c.favours == Favours::Left && c.intervals_disjoint),
            right_exceeds: n(&|c| c.favours == Favours::Right && c.intervals_disjoint),
        }
    }

    /// True when the two systems are known to have been configured differently.
    pub fn systems_differ(&self) -> bool {
        self.target_config_deltas
            .iter()
            .any(|d| !matches!(d.outcome, ConfigOutcome::Same | ConfigOutcome::Unknown))
    }

    /// True when a declared file is known to differ.
    pub fn artifacts_differ(&self) -> bool {
        self.artifact_deltas
            .iter()
            .any(|d| !matches!(d.outcome, ArtifactOutcome::Same | ArtifactOutcome::Unknown))
    }
}

/// Why two runs cannot be diffed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffRefused(pub String);

impl fmt::Display for DiffRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DiffRefused {}

fn identities(doc: &RunDocument) -> Vec<String> {
    let set: BTreeSet<String> = doc
        .judge_config
        .get("identities")
        .and_then(|v| v.as_array())
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    set.into_iter().collect()
}

/// Diff `left` against `right`.
///
/// # Errors
/// [`DiffRefused`] for different tenants, suites, `config_hash` or judges.
pub fn diff(left: &RunDocument, right: &RunDocument) -> Result<Difference, DiffRefused> {
    if left.tenant != right.tenant {
        return Err(DiffRefused(format!(
            "cannot diff across tenants: one run is '{}', the other is '{}'",
            left.tenant, right.tenant
        )));
    }
    if left.suite != right.suite {
        return Err(DiffRefused(format!(
            "cannot diff across suites: one run is '{}', the other is '{}'",
            left.suite, right.suite
        )));
    }
    if left.config_hash != right.config_hash {
        return Err(DiffRefused(format!(
            "the two runs were produced under different suites (config_hash {} against {}): a diff between them would compare the rulers, not the systems. Run one side again under the other's suite",
            left.config_hash, right.config_hash
        )));
    }
    let (here, there) = (identities(left), identities(right));
    if here != there {
        let sentence = match (here.is_empty(), there.is_empty()) {
            (false, true) | (true, false) => {
                let (recorded, blank, judges) = if there.is_empty() {
                    ("first", "second", &here)
                } else {
                    ("second", "first", &there)
                };
                format!(
                    "the {recorded} run records the judge {} and the {blank} records none: nothing says the two were graded by the same instrument, and a difference measured on two scales is not a difference. Run one side again under the other's judge",
                    judges.join(", ")
                )
            }
            _ => format!(
                "the two runs were graded by different judges ({} against {}): a difference between these scores is not a difference in the systems. Run one side again under the other's judge",
                here.join(", "),
                there.join(", ")
            ),
        };
        return Err(DiffRefused(sentence));
    }
    let (a, b) = (keyed_verdicts(left), keyed_verdicts(right));
    let checks = join_verdicts(&a, &b)
        .into_iter()
        .map(|(key, one, other)| {
            let named = one
                .or(other)
                .map(|v| v.assertion.clone())
                .unwrap_or_default();
            check(key.to_key(), named.to_string(), one, other)
        })
        .collect();
    Ok(Difference {
        tenant: left.tenant.clone(),
        suite: left.suite.clone(),
        checks,
        target_config_deltas: config_deltas(&right.target_config, &left.target_config),
        artifact_deltas: artifact_deltas(&right.artifacts, &left.artifacts),
        judges: here,
    })
}

fn check(
    key: PairKey,
    assertion: String,
    left: Option<&Verdict>,
    right: Option<&Verdict>,
) -> CheckDifference {
    let side = |v: Option<&Verdict>| v.map(|v| (v.status, v.score));
    let mut row = CheckDifference {
        case_id: key.case_id.to_string(),
        assertion,
        assertion_id: key.assertion_id.to_string(),
        occurrence: key.occurrence,
        scope: key.scope,
        outcome: DiffOutcome::Same,
        left: side(left),
        right: side(right),
        favours: Favours::Neither,
        delta: None,
        tolerance: 0.0,
        flipped: false,
        left_interval: None,
        right_interval: None,
        intervals_overlap: false,
        intervals_disjoint: false,
    };
    let (l, r) = match (left, right) {
        (Some(_), None) => {
            row.outcome = DiffOutcome::OnlyLeft;
            return row;
        }
        (None, _) => {
            row.outcome = DiffOutcome::OnlyRight;
            return row;
        }
        (Some(l), Some(r)) => (l, r),
    };
    let (Some(ls), Some(rs)) = (l.score, r.score) else {
        row.outcome = DiffOutcome::Errored;
        return row;
    };
    if l.status == Status::Error || r.status == Status::Error {
        row.outcome = DiffOutcome::Errored;
        return row;
    }
    let delta = round6(rs - ls);
    row.delta = Some(delta);
    row.tolerance = l.tolerance.max(*r.tolerance);
    if l.status != r.status {
        row.outcome = DiffOutcome::Differs;
        row.flipped = true;
        row.favours = if r.status == Status::Pass {
            Favours::Right
        } else {
            Favours::Left
        };
        return row;
    }
    let (li, ri) = (Interval::of(l), Interval::of(r));
    if let (Some(x), Some(y)) = (li, ri) {
        let overlap = within(x.min, y.max) && within(y.min, x.max);
        row.intervals_overlap = overlap;
        row.intervals_disjoint = !overlap;
    }
    row.left_interval = li;
    row.right_interval = ri;
    if !within(delta.abs(), row.tolerance) {
        row.outcome = DiffOutcome::Differs;
        row.favours = if delta > 0.0 {
            Favours::Right
        } else {
            Favours::Left
        };
    }
    row
}

#[cfg(test)]
mod tests;
