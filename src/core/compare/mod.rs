//! Comparison of a run with its baseline: pairing, outcomes, headline facts.
//!
//! Verdicts pair by `(scope, case_id, assertion_id, occurrence)` — never by
//! name or position. Per pair, in order: only in the run → `new`; only in the
//! baseline → `missing`; either side errored → `errored`; statuses differ →
//! a flip, `regressed`/`improved` (tolerance and noise never rescue it);
//! otherwise `round6(|delta|)` within the **run's** tolerance → `unchanged`;
//! inside the **baseline's** sampled interval → `unchanged` + `within_noise`;
//! else `regressed`/`improved` beyond the measured noise. This is digline
//! 0.10.0's `compare`, plus two deliberate strictnesses of this product
//! (spec `40-compare.md`): an errored run-level measure, and a comparison
//! that paired nothing, both mean "could not be judged" (exit 2).
//!
//! Pure: the [`Comparison`] carries no payload (no reason, output or case
//! input), only scores, statuses, thresholds and names.

mod config;
mod coverage;
mod labels;
pub mod paired;
pub mod power;
pub mod reask;

use std::collections::BTreeSet;
use std::fmt;

pub use config::{
    artifact_deltas, config_deltas, ArtifactDelta, ArtifactOutcome, ConfigDelta, ConfigOutcome,
    IDENTITY_FIELD,
};
pub use coverage::{
    is_uncovered_pass, parameter_direction, spell_parameters, DeclaredCheck, Direction, RuleChange,
    RuleField, PARAMETER_VALUE_LIMIT,
};
pub use labels::CheckLabels;

use super::document::RunDocument;
use super::exit::ExitStatus;
use super::name::Name;
use super::python::dumps::round6;
use super::verdict::{meets, within, Status, Verdict};

/// Whether a verdict belongs to one case or to the whole run (an aggregate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// A per-case check (`results[].verdicts[]`). Sorts first.
    Case,
    /// A run-level measure (`aggregate[]`), with `case_id` `""`.
    Run,
}

impl Scope {
    /// The word printed in `--json full` (`case`, `run`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Case => "case",
            Scope::Run => "run",
        }
    }
}

/// What happened to one paired check. Declaration order is 0.10.0's
/// headline order (`regressed, errored, new, missing, improved, unchanged`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// Got worse: a pass→fail flip, or a drop beyond tolerance and noise.
    Regressed,
    /// Either side could not judge.
    Errored,
    /// Only in the run.
    New,
    /// Only in the baseline (a suspended or removed case lands here).
    Missing,
    /// Got better: a fail→pass flip, or a rise beyond tolerance and noise.
    Improved,
    /// Within the run's tolerance, or within the baseline's noise.
    Unchanged,
}

impl Outcome {
    /// All six, in headline order.
    pub const ALL: [Outcome; 6] = [
        Outcome::Regressed,
        Outcome::Errored,
        Outcome::New,
        Outcome::Missing,
        Outcome::Improved,
        Outcome::Unchanged,
    ];

    /// The lowercase word printed in JSON (`regressed`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Regressed => "regressed",
            Outcome::Errored => "errored",
            Outcome::New => "new",
            Outcome::Missing => "missing",
            Outcome::Improved => "improved",
            Outcome::Unchanged => "unchanged",
        }
    }

    fn index(self) -> usize {
        match self {
            Outcome::Regressed => 0,
            Outcome::Errored => 1,
            Outcome::New => 2,
            Outcome::Missing => 3,
            Outcome::Improved => 4,
            Outcome::Unchanged => 5,
        }
    }
}

/// The pairing key: `(scope, case_id, assertion_id, occurrence)`. Its
/// derived order (scope, then case id, then id, then occurrence, comparing
/// strings by code point) is the order deltas come out in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PairKey {
    /// Case or run.
    pub scope: Scope,
    /// The case id; `""` for run-level measures (shared by the deltas of one case).
    pub case_id: Name,
    /// The 16-hex identity of the check's declaration (shared with the verdicts).
    pub assertion_id: Name,
    /// 0 for the first verdict with this id in the case (or aggregate list),
    /// 1 for the second, …
    pub occurrence: usize,
}

/// One side of a pair, without payload: what a verdict decided.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    /// pass, fail or error.
    pub status: Status,
    /// 0–1, rounded to 6 decimals; `None` iff errored.
    pub score: Option<f64>,
    /// The bar, 0–1.
    pub threshold: f64,
    /// How far the score may move before it counts.
    pub tolerance: f64,
}

impl Side {
    fn of(verdict: &Verdict) -> Side {
        Side {
            status: verdict.status,
            score: verdict.score,
            threshold: *verdict.threshold,
            tolerance: *verdict.tolerance,
        }
    }
}

/// The interval a baseline measured by sampling a check: scores 0–1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    /// The lowest sampled score.
    pub min: f64,
    /// The highest sampled score.
    pub max: f64,
    /// How many samples were taken.
    pub samples: usize,
}

impl Noise {
    /// The baseline verdict's interval, when it was sampled (non-empty `samples`).
    fn of(verdict: &Verdict) -> Option<Noise> {
        let samples = verdict.samples.as_ref().filter(|s| !s.is_empty())?;
        let lowest = samples.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Noise {
            min: round6(verdict.sample_min.unwrap_or(lowest)),
            max: round6(verdict.sample_max.unwrap_or(highest)),
            samples: samples.len(),
        })
    }

    /// True when `score` lies inside `[min, max]` (at 6 decimals).
    pub fn covers(&self, score: f64) -> bool {
        meets(score, self.min) && within(score, self.max)
    }
}

/// What happened to one paired check.
#[derive(Clone, Debug, PartialEq)]
pub struct Delta {
    /// The pairing key.
    pub key: PairKey,
    /// The check's reported name (the run's, else the baseline's): display only.
    pub assertion: Name,
    /// The outcome.
    pub outcome: Outcome,
    /// The baseline's verdict, if it has one.
    pub before: Option<Side>,
    /// The run's verdict, if it has one.
    pub after: Option<Side>,
    /// `round6(after − before)` when both scored; `None` otherwise.
    pub delta: Option<f64>,
    /// True when the move stayed inside the baseline's sampled interval.
    pub within_noise: bool,
    /// Failed where the reference passed, and its re-asks could not be
    /// judged (the target or the spending cap stopped them): `errored`,
    /// listed with what could not be judged.
    pub unreasked: bool,
    /// The baseline's sampled interval; attached only when neither side
    /// errored and the status did not flip (as 0.10.0 does).
    pub noise: Option<Noise>,
    /// True when the case is a canary (in the run, or in the baseline for a
    /// case the run does not have).
    pub canary: bool,
}

impl Delta {
    /// True when the run's side exists and errored.
    pub fn errored_now(&self) -> bool {
        self.after
            .as_ref()
            .is_some_and(|s| s.status == Status::Error)
    }

    /// True when this check could not be judged now: its verdict errored,
    /// or its re-asks could not be judged.
    pub fn unjudged_now(&self) -> bool {
        self.errored_now() || self.unreasked
    }
}

/// Tallies of the six outcomes, zeros included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts([usize; 6]);

impl Counts {
    /// How many deltas have `outcome`.
    pub fn get(&self, outcome: Outcome) -> usize {
        self.0[outcome.index()]
    }
}

/// Why two documents could not be compared at all.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompareErrorKind {
    /// The run and the baseline belong to different tenants.
    CrossTenant {
        /// The run's tenant.
        run: String,
        /// The baseline's tenant.
        baseline: String,
    },
}

/// A refusal to compare (exit 64 at the front end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompareError {
    kind: CompareErrorKind,
}

impl CompareError {
    /// What was refused.
    pub fn kind(&self) -> &CompareErrorKind {
        &self.kind
    }
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            CompareErrorKind::CrossTenant { run, baseline } => write!(
                f,
                "cannot compare across tenants: the run belongs to tenant {run:?} and the \
                 reference to tenant {baseline:?}; each tenant is compared only with its own reference"
            ),
        }
    }
}

impl std::error::Error for CompareError {}

/// A run compared with its baseline: every delta, the configuration and
/// artifact deltas, and the run facts the headline needs. No payload.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The tenant both documents belong to.
    pub tenant: String,
    /// The run's suite name.
    pub suite: String,
    /// The run's environment.
    pub environment: String,
    /// The baseline's environment (reported, never refused).
    pub baseline_environment: String,
    /// True when the two `config_hash` values differ: the numbers compare different rules.
    pub config_changed: bool,
    /// One delta per key in the union of both sides, in key order.
    pub deltas: Vec<Delta>,
    /// One row per declared file, sorted by path.
    pub artifact_deltas: Vec<ArtifactDelta>,
    /// The target's configuration rows (see [`config_deltas`]).
    pub target_config_deltas: Vec<ConfigDelta>,
    /// The judges' configuration rows.
    pub judge_config_deltas: Vec<ConfigDelta>,
    /// Cases in the run with at least one errored verdict.
    pub unjudged: usize,
    /// Suspended cases in the run.
    pub suspended: usize,
    /// True when neither side is redacted.
    pub reasons_available: bool,
    /// Names of the run-level measures (aggregates) that errored in the run,
    /// in aggregate order: measures that could not be computed.
    pub uncomputed_measures: Vec<String>,
    /// How many keys have a verdict on both sides.
    pub paired: usize,
    /// Verdicts that passed in the reference and are absent from the run
    /// (outside cases the run suspended): the run did not cover what was
    /// approved, so it could not be judged (spec `40-compare.md`).
    pub uncovered_passes: usize,
    /// Cases the run suspended (their verdicts are missing on purpose).
    pub suspended_in_run: BTreeSet<String>,
    /// Every threshold, tolerance and parameter change, itemized, in
    /// listing order.
    pub rule_changes: Vec<RuleChange>,
    /// What the pull request changes about the evaluation against its
    /// base (`[suite]`, `[target]`, the cases): set by the gate when the
    /// base could be read, empty otherwise.
    pub evaluation_changes: Vec<super::evaluation::EvalChange>,
    /// The gate looked for the pull request's base and could not read it
    /// (a shallow clone): what defines the evaluation is the pull
    /// request's own, not verified against the base, and no surface may
    /// call the suite unchanged.
    pub base_unverified: bool,
    /// With [`Comparison::base_unverified`]: the knobs the pull request's
    /// suite declares (`false_alarm_rate`, `samples`, `min_agreement`,
    /// thresholds, tolerances), each listed as not verified against the
    /// base. Empty otherwise.
    pub unverified_knobs: Vec<super::evaluation::Knob>,
    /// The indices of `deltas` in the order a reader sees them listed
    /// (key order until [`Comparison::arrange_by`] sets suite order).
    pub listing: Vec<usize>,
    /// The pairs the gate re-asked, with their evidence and verdict, in key
    /// order (empty without re-asks: see [`Comparison::apply_reasks`]).
    pub reasked: Vec<reask::PairDecision>,
    /// What the reference lets the gate see, when it measured noise (set by
    /// [`Comparison::state_power`]).
    pub power: Option<power::Power>,
    /// The whole-run measures compared paired over the same cases (set by
    /// [`Comparison::apply_paired`]; empty otherwise).
    pub paired_measures: Vec<paired::PairedMeasure>,
    /// The run was stopped by its spending cap (`--max-usd`, read from its
    /// spend record by the use case): not asked whole, so it could not be
    /// judged, whatever it shows.
    pub capped: bool,
    /// Each judged check's judge read on its anchors against the
    /// reference's (set by the gate; empty without anchors in both).
    pub judges: Vec<crate::core::anchors::JudgeReading>,
    /// The command that re-measures the reference with the judges as they
    /// are now (said with a judge that moved; set with `judges`).
    pub judge_rerun: String,
}

/// The facts of a comparison's headline (what `compare --json` prints
/// besides the sentence).
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    /// Some check regressed.
    pub worse: bool,
    /// Cases in the run with an errored verdict.
    pub unjudged: usize,
    /// Suspended cases in the run.
    pub suspended: usize,
    /// The config hashes differ.
    pub config_changed: bool,
    /// The six outcome counts.
    pub counts: Counts,
    /// Neither side is redacted.
    pub reasons_available: bool,
    /// Some artifact delta is neither `same` nor `unknown`.
    pub artifacts_changed: bool,
    /// Some target configuration row is a change.
    pub target_config_changed: bool,
    /// Some judge configuration row is a change.
    pub judge_config_changed: bool,
    /// The run's answers were replayed (never, for schema-10 documents).
    pub rejudged: bool,
    /// A canary check regressed or improved.
    pub canary_moved: bool,
    /// Deltas that stayed inside the baseline's noise.
    pub within_noise: usize,
    /// Run-level measures that errored in the run (this product's strictness).
    pub uncomputed_measures: Vec<String>,
    /// Nothing was paired: no verdict shared by run and baseline (strictness).
    pub nothing_compared: bool,
    /// Verdicts that passed in the reference and are not in the run
    /// (strictness: the reference was not judged in full).
    pub uncovered_passes: usize,
    /// The set of case · check verdicts differs from the reference (some
    /// `new`, or `missing` outside a case the run suspended): the headline
    /// never says "unchanged" then.
    pub coverage_changed: bool,
    /// How many rule changes are itemized.
    pub rules_changed: usize,
    /// Re-asked pairs that wobbled within their measured noise.
    pub wobbled: usize,
    /// Re-asked pairs the rule could not decide within its cap.
    pub undecided: usize,
    /// Failing pairs whose re-asks could not be judged (the target or the
    /// spending cap stopped them): not known to be worse, so the gate
    /// could not judge them (2).
    pub unreasked: usize,
    /// True when some re-asked pair was judged against a reference that
    /// measured its noise (more than one sample): "worse" then means beyond
    /// the measured noise. A one-sample reference keeps 0.10.0's words.
    pub reasked: bool,
    /// The run was stopped by its spending cap: exit 2, never 1.
    pub capped: bool,
    /// Judges whose anchors moved (or whose agreement with people is not
    /// shown under `min_judge_kappa`): their checks cannot gate, exit 2,
    /// never 1 — what they graded worse is not counted as worse.
    pub judges_moved: usize,
}

impl Comparison {
    /// Sets the listing order of the deltas and of the rule changes to
    /// `rank` (stable: ties keep key order). `deltas` itself keeps key
    /// order, which `compare` and `diff` print as 0.10.0 does.
    pub fn arrange_by<K: Ord>(&mut self, rank: impl Fn(&PairKey) -> K) {
        let mut listing: Vec<usize> = (0..self.deltas.len()).collect();
        listing.sort_by_cached_key(|&i| rank(&self.deltas[i].key));
        self.listing = listing;
        self.rule_changes.sort_by_cached_key(|c| rank(&c.key));
    }

    /// The deltas in listing order.
    pub fn listed(&self) -> impl Iterator<Item = &Delta> {
        self.listing.iter().filter_map(|&i| self.deltas.get(i))
    }

    /// State what `reference` lets the gate see at false-alarm rate
    /// `alpha` (nothing when the reference measured no noise).
    pub fn state_power(&mut self, reference: &RunDocument, alpha: f64) {
        self.power = power::power(reference, alpha);
    }

    /// The six outcome counts.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for d in &self.deltas {
            counts.0[d.outcome.index()] += 1;
        }
        counts
    }

    /// True when `d` belongs to a case the run suspended (its verdicts are
    /// missing on purpose).
    pub fn suspended_here(&self, d: &Delta) -> bool {
        d.key.scope == Scope::Case && self.suspended_in_run.contains(d.key.case_id.as_str())
    }

    /// The canary deltas that regressed or improved, in delta order.
    /// A canary graded by a judge that moved could not be judged: not one.
    pub fn moved_canaries(&self) -> Vec<&Delta> {
        let ungated = self.ungated();
        self.deltas
            .iter()
            .filter(|d| d.canary && matches!(d.outcome, Outcome::Regressed | Outcome::Improved))
            .filter(|d| !ungated.contains(d.key.assertion_id.as_str()))
            .collect()
    }

    /// The target rows whose outcome is `changed`: what a drop "coincides with".
    pub fn config_changes(&self) -> Vec<&ConfigDelta> {
        self.target_config_deltas
            .iter()
            .filter(|d| d.outcome == ConfigOutcome::Changed)
            .collect()
    }

    /// The `assertion_id`s of the checks whose judge moved (or is not
    /// shown to agree with people): they cannot gate.
    pub fn ungated(&self) -> BTreeSet<&str> {
        self.judges
            .iter()
            .filter(|j| !j.drift.reading.gates())
            .map(|j| j.assertion_id.as_str())
            .collect()
    }

    /// The regressions that count as worse: every one, but those of a
    /// check whose judge moved (it could not be judged).
    pub fn gated_regressions(&self) -> usize {
        let ungated = self.ungated();
        self.deltas
            .iter()
            .filter(|d| {
                d.outcome == Outcome::Regressed && !ungated.contains(d.key.assertion_id.as_str())
            })
            .count()
    }

    /// The headline facts.
    pub fn headline(&self) -> Headline {
        let counts = self.counts();
        let changed = |rows: &[ConfigDelta]| rows.iter().any(|d| d.outcome.is_change());
        Headline {
            worse: self.gated_regressions() > 0,
            unjudged: self.unjudged,
            suspended: self.suspended,
            config_changed: self.config_changed,
            counts,
            reasons_available: self.reasons_available,
            artifacts_changed: self
                .artifact_deltas
                .iter()
                .any(|d| !matches!(d.outcome, ArtifactOutcome::Same | ArtifactOutcome::Unknown)),
            target_config_changed: changed(&self.target_config_deltas),
            judge_config_changed: changed(&self.judge_config_deltas),
            rejudged: false,
            canary_moved: !self.moved_canaries().is_empty(),
            within_noise: self.deltas.iter().filter(|d| d.within_noise).count(),
            uncomputed_measures: self.uncomputed_measures.clone(),
            nothing_compared: self.paired == 0,
            uncovered_passes: self.uncovered_passes,
            coverage_changed: self.deltas.iter().any(|d| {
                d.outcome == Outcome::New
                    || (d.outcome == Outcome::Missing && !self.suspended_here(d))
            }),
            rules_changed: self.rule_changes.len(),
            wobbled: self.reasked_as(reask::PairVerdict::Noise).count(),
            undecided: self.reasked_as(reask::PairVerdict::Undecided).count(),
            unreasked: self.reasked_as(reask::PairVerdict::Open).count(),
            reasked: self
                .reasked
                .iter()
                .any(|d| d.evidence.reference_samples > 1),
            capped: self.capped,
            judges_moved: self
                .judges
                .iter()
                .filter(|j| !j.drift.reading.gates())
                .count(),
        }
    }
}

/// The exit status of `compare` (and the `exit_code` JSON field):
/// 1 when something got worse or a canary moved; else 2 when a case could not
/// be judged, a run-level measure could not be computed, nothing was paired,
/// or a verdict that passed in the reference is not in the run; else 0.
pub fn exit_code(comparison: &Comparison) -> ExitStatus {
    headline_exit_code(&comparison.headline())
}

/// [`exit_code`] from already computed headline facts. A run stopped by its
/// spending cap is 2 even where something looks worse: it was not asked
/// whole, and its failures could not be re-asked within the cap.
pub fn headline_exit_code(head: &Headline) -> ExitStatus {
    if head.capped {
        ExitStatus::Unjudged
    } else if head.worse || head.canary_moved {
        ExitStatus::Worse
    } else if head.judges_moved > 0
        || head.unjudged > 0
        || head.unreasked > 0
        || !head.uncomputed_measures.is_empty()
        || head.nothing_compared
        || head.uncovered_passes > 0
    {
        ExitStatus::Unjudged
    } else {
        ExitStatus::Proceed
    }
}

/// A [`PairKey`] that borrows its strings from a document: what pairing
/// sorts and joins on, so that only the deltas own their keys. Same fields,
/// same order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyRef<'a> {
    /// Case or run.
    pub scope: Scope,
    /// The case id; `""` for run-level measures.
    pub case_id: &'a str,
    /// The 16-hex identity of the check's declaration.
    pub assertion_id: &'a Name,
    /// 0 for the first verdict with this id in the case, 1 for the second, …
    pub occurrence: usize,
}

impl KeyRef<'_> {
    /// The owned key.
    pub fn to_key(self) -> PairKey {
        self.to_key_in(Name::unshared(self.case_id))
    }

    /// The owned key, its case id given as an already shared `case_id`
    /// (the deltas of one case share one).
    fn to_key_in(self, case_id: Name) -> PairKey {
        PairKey {
            scope: self.scope,
            case_id,
            assertion_id: self.assertion_id.clone(),
            occurrence: self.occurrence,
        }
    }
}

impl PairKey {
    /// The borrowed form, to look a key up among [`keyed_verdicts`].
    pub fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            scope: self.scope,
            case_id: self.case_id.as_str(),
            assertion_id: &self.assertion_id,
            occurrence: self.occurrence,
        }
    }
}

/// Every verdict of `doc` with its pairing key, sorted by key; when a key
/// repeats (a document with a case twice, which the store refuses) the
/// later verdict wins. Linear in verdicts plus one sort.
pub fn keyed_verdicts(doc: &RunDocument) -> Vec<(KeyRef<'_>, &Verdict)> {
    let mut out = Vec::with_capacity(
        doc.results.iter().map(|c| c.verdicts.len()).sum::<usize>() + doc.aggregate.len(),
    );
    fn keyed<'a>(
        scope: Scope,
        case_id: &'a str,
        verdicts: &'a [Verdict],
        out: &mut Vec<(KeyRef<'a>, &'a Verdict)>,
    ) {
        for (i, v) in verdicts.iter().enumerate() {
            // Lists are short (a case's checks): count the earlier namesakes.
            let occurrence = verdicts[..i]
                .iter()
                .filter(|w| w.assertion_id == v.assertion_id)
                .count();
            let key = KeyRef {
                scope,
                case_id,
                assertion_id: &v.assertion_id,
                occurrence,
            };
            out.push((key, v));
        }
    }
    for case in &doc.results {
        keyed(Scope::Case, &case.case_id, &case.verdicts, &mut out);
    }
    keyed(Scope::Run, "", &doc.aggregate, &mut out);
    // Stable: among equal keys the later verdict stays last, and is kept.
    out.sort_by(|a, b| a.0.cmp(&b.0));
    let mut deduped: Vec<(KeyRef<'_>, &Verdict)> = Vec::with_capacity(out.len());
    for entry in out {
        match deduped.last_mut() {
            Some(last) if last.0 == entry.0 => *last = entry,
            _ => deduped.push(entry),
        }
    }
    deduped
}

/// One key of a [`join`]: the key, the left side's verdict, the right side's.
pub type Joined<'a> = (KeyRef<'a>, Option<&'a Verdict>, Option<&'a Verdict>);

/// Every key of either side, in key order, with each side's verdict: the
/// merge of two [`keyed_verdicts`] lists (what `compare`, `diff` and the
/// report walk).
pub fn join_verdicts<'a>(
    left: &[(KeyRef<'a>, &'a Verdict)],
    right: &[(KeyRef<'a>, &'a Verdict)],
) -> Vec<Joined<'a>> {
    join(left, right).collect()
}

/// [`join_verdicts`] one key at a time, never held whole.
pub fn join<'a, 's>(
    left: &'s [(KeyRef<'a>, &'a Verdict)],
    right: &'s [(KeyRef<'a>, &'a Verdict)],
) -> impl Iterator<Item = Joined<'a>> + 's {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        let order = match (left.get(i), right.get(j)) {
            (Some(l), Some(r)) => l.0.cmp(&r.0),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => return None,
        };
        Some(match order {
            std::cmp::Ordering::Less => {
                i += 1;
                (left[i - 1].0, Some(left[i - 1].1), None)
            }
            std::cmp::Ordering::Greater => {
                j += 1;
                (right[j - 1].0, None, Some(right[j - 1].1))
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
                (left[i - 1].0, Some(left[i - 1].1), Some(right[j - 1].1))
            }
        })
    })
}

/// Where one verdict sits in a document: its case (`u32::MAX` for the
/// run-level list), its place in the case's list, and its occurrence.
/// Eight bytes, where a keyed entry takes forty-eight: what `compare` sorts.
#[derive(Clone, Copy)]
struct At {
    case: u32,
    index: u16,
    occurrence: u16,
}

impl At {
    fn verdict(self, doc: &RunDocument) -> &Verdict {
        match doc.results.get(self.case as usize) {
            Some(case) => &case.verdicts[usize::from(self.index)],
            None => &doc.aggregate[usize::from(self.index)],
        }
    }

    fn key(self, doc: &RunDocument) -> KeyRef<'_> {
        let (scope, case_id) = match doc.results.get(self.case as usize) {
            Some(case) => (Scope::Case, case.case_id.as_str()),
            None => (Scope::Run, ""),
        };
        KeyRef {
            scope,
            case_id,
            assertion_id: &self.verdict(doc).assertion_id,
            occurrence: usize::from(self.occurrence),
        }
    }
}

/// [`keyed_verdicts`] as positions, when every list fits them (fewer than
/// 2³² cases, 2¹⁶ verdicts a case): sorted by key, the later of equal keys
/// kept.
fn sorted_positions(doc: &RunDocument) -> Option<Vec<At>> {
    if doc.results.len() >= u32::MAX as usize {
        return None;
    }
    let lists = doc
        .results
        .iter()
        .map(|c| c.verdicts.as_slice())
        .chain(std::iter::once(doc.aggregate.as_slice()));
    let mut out = Vec::with_capacity(
        doc.results.iter().map(|c| c.verdicts.len()).sum::<usize>() + doc.aggregate.len(),
    );
    for (case, verdicts) in lists.enumerate() {
        if verdicts.len() > usize::from(u16::MAX) {
            return None;
        }
        let case = if case == doc.results.len() {
            u32::MAX
        } else {
            case as u32
        };
        for (i, v) in verdicts.iter().enumerate() {
            let occurrence = verdicts[..i]
                .iter()
                .filter(|w| w.assertion_id == v.assertion_id)
                .count();
            out.push(At {
                case,
                index: i as u16,
                occurrence: occurrence as u16,
            });
        }
    }
    out.sort_by(|a, b| a.key(doc).cmp(&b.key(doc)));
    let mut deduped: Vec<At> = Vec::with_capacity(out.len());
    for at in out {
        match deduped.last_mut() {
            Some(last) if last.key(doc) == at.key(doc) => *last = at,
            _ => deduped.push(at),
        }
    }
    Some(deduped)
}

/// Every verdict of `doc` by its borrowed pairing key, for lookups.
pub fn index_verdicts(doc: &RunDocument) -> std::collections::HashMap<KeyRef<'_>, &Verdict> {
    keyed_verdicts(doc).into_iter().collect()
}

/// [`join`] over two [`sorted_positions`] lists.
fn join_positions<'a>(
    left_doc: &'a RunDocument,
    left: &'a [At],
    right_doc: &'a RunDocument,
    right: &'a [At],
) -> impl Iterator<Item = Joined<'a>> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        let l = left
            .get(i)
            .map(|at| (at.key(left_doc), at.verdict(left_doc)));
        let r = right
            .get(j)
            .map(|at| (at.key(right_doc), at.verdict(right_doc)));
        Some(match (l, r) {
            (None, None) => return None,
            (Some(l), Some(r)) if l.0 == r.0 => {
                i += 1;
                j += 1;
                (l.0, Some(l.1), Some(r.1))
            }
            (Some(l), Some(r)) if l.0 < r.0 => {
                i += 1;
                (l.0, Some(l.1), None)
            }
            (Some(l), None) => {
                i += 1;
                (l.0, Some(l.1), None)
            }
            (_, Some(r)) => {
                j += 1;
                (r.0, None, Some(r.1))
            }
        })
    })
}

/// Compares `run` with `baseline` (digline 0.10.0's `compare`).
///
/// Errors: [`CompareErrorKind::CrossTenant`] when the tenants differ.
/// Different environments and different config hashes are reported, not refused.
pub fn compare(run: &RunDocument, baseline: &RunDocument) -> Result<Comparison, CompareError> {
    if run.tenant != baseline.tenant {
        return Err(CompareError {
            kind: CompareErrorKind::CrossTenant {
                run: run.tenant.clone(),
                baseline: baseline.tenant.clone(),
            },
        });
    }
    // Sorted as positions (8 bytes a verdict, not 48): at 100,000 cases the
    // two sorted lists sit beside the documents and the deltas.
    let positions = sorted_positions(run).zip(sorted_positions(baseline));
    let (current, previous) = match &positions {
        Some(_) => (Vec::new(), Vec::new()),
        None => (keyed_verdicts(run), keyed_verdicts(baseline)),
    };
    let joined: Box<dyn Iterator<Item = Joined<'_>>> = match &positions {
        Some((now, before)) => Box::new(join_positions(run, now, baseline, before)),
        None => Box::new(join(&current, &previous)),
    };
    let in_run: BTreeSet<&str> = run.results.iter().map(|c| c.case_id.as_str()).collect();
    let mut canaries: BTreeSet<&str> = run
        .results
        .iter()
        .filter(|c| c.is_canary())
        .map(|c| c.case_id.as_str())
        .collect();
    canaries.extend(
        baseline
            .results
            .iter()
            .filter(|c| c.is_canary() && !in_run.contains(c.case_id.as_str()))
            .map(|c| c.case_id.as_str()),
    );
    let capacity = match &positions {
        Some((now, before)) => now.len().max(before.len()),
        None => current.len().max(previous.len()),
    };
    let mut deltas = Vec::with_capacity(capacity);
    let mut paired = 0;
    // The deltas of one case share its id (keys come in case order).
    let mut case_id = Name::unshared("");
    for (key, now, before) in joined {
        if now.is_some() && before.is_some() {
            paired += 1;
        }
        if case_id.as_str() != key.case_id {
            case_id = Name::unshared(key.case_id);
        }
        let canary = !canaries.is_empty() && canaries.contains(key.case_id);
        if let Some(delta) = pair(key, case_id.clone(), now, before, canary) {
            deltas.push(delta);
        }
    }
    drop((current, previous, positions));
    deltas.shrink_to_fit();
    let suspended_in_run: BTreeSet<String> = run
        .results
        .iter()
        .filter(|c| c.suspended)
        .map(|c| c.case_id.clone())
        .collect();
    let suspended_ids: BTreeSet<&str> = suspended_in_run.iter().map(String::as_str).collect();
    let uncovered_passes = coverage::uncovered_passes(&deltas, &suspended_ids);
    let rule_changes = coverage::rule_changes(&deltas);
    let listing = (0..deltas.len()).collect();
    Ok(Comparison {
        tenant: run.tenant.clone(),
        suite: run.suite.clone(),
        environment: run.environment.clone(),
        baseline_environment: baseline.environment.clone(),
        config_changed: run.config_hash != baseline.config_hash,
        deltas,
        artifact_deltas: artifact_deltas(&run.artifacts, &baseline.artifacts),
        target_config_deltas: config_deltas(&run.target_config, &baseline.target_config),
        judge_config_deltas: config_deltas(&run.judge_config, &baseline.judge_config),
        unjudged: run.unjudged_cases(),
        suspended: run.suspended_cases(),
        reasons_available: !(run.redacted || baseline.redacted),
        uncomputed_measures: run
            .aggregate
            .iter()
            .filter(|v| v.status == Status::Error)
            .map(|v| v.assertion.to_string())
            .collect(),
        paired,
        uncovered_passes,
        suspended_in_run,
        rule_changes,
        evaluation_changes: Vec::new(),
        base_unverified: false,
        unverified_knobs: Vec::new(),
        listing,
        reasked: Vec::new(),
        power: None,
        paired_measures: Vec::new(),
        capped: false,
        judges: Vec::new(),
        judge_rerun: String::new(),
    })
}

/// Decides one key. `None` only when neither side has a verdict (never, for
/// keys drawn from the two indexes).
fn pair(
    key: KeyRef<'_>,
    case_id: Name,
    now: Option<&Verdict>,
    before: Option<&Verdict>,
    canary: bool,
) -> Option<Delta> {
    let assertion = now.or(before)?.assertion.clone();
    let mut delta = Delta {
        key: key.to_key_in(case_id),
        assertion,
        outcome: Outcome::Unchanged,
        before: before.map(Side::of),
        after: now.map(Side::of),
        delta: None,
        within_noise: false,
        unreasked: false,
        noise: None,
        canary,
    };
    let (now, before) = match (now, before) {
        (Some(_), None) => {
            delta.outcome = Outcome::New;
            return Some(delta);
        }
        (None, _) => {
            delta.outcome = Outcome::Missing;
            return Some(delta);
        }
        (Some(n), Some(b)) => (n, b),
    };
    let (now_score, before_score) = match (now.status, before.status, now.score, before.score) {
        (Status::Error, _, _, _) | (_, Status::Error, _, _) => {
            delta.outcome = Outcome::Errored;
            return Some(delta);
        }
        (_, _, Some(n), Some(b)) => (n, b),
        // A scored status without a score is a tampered document; it cannot
        // be judged, and the store refuses it before we get here.
        _ => {
            delta.outcome = Outcome::Errored;
            return Some(delta);
        }
    };
    let moved = round6(now_score - before_score);
    delta.delta = Some(moved);
    if now.status != before.status {
        delta.outcome = if before.status == Status::Pass {
            Outcome::Regressed
        } else {
            Outcome::Improved
        };
        return Some(delta);
    }
    let noise = Noise::of(before);
    delta.noise = noise;
    delta.outcome = if within(moved.abs(), *now.tolerance) {
        Outcome::Unchanged
    } else if noise.is_some_and(|n| n.covers(now_score)) {
        delta.within_noise = true;
        Outcome::Unchanged
    } else if moved < 0.0 {
        Outcome::Regressed
    } else {
        Outcome::Improved
    };
    Some(delta)
}

#[cfg(test)]
pub(crate) mod golden_scenarios;
#[cfg(test)]
mod tests;
