//! Aggregates: run-level verdicts (`precision`, `recall`, `accuracy`, `f1`)
//! counted over one per-case check.
//!
//! An aggregate is declared in `suite.toml` like a check (`type =
//! "precision"`, `over = "<check name>"`, mandatory `threshold` and
//! `tolerance`, optional `name` and `by_group`). [`build_aggregate`]
//! validates the entry; the loader resolves `over` against the declared
//! check names, and [`expand_by_group`] adds one copy per case group,
//! named `<name>[group=<g>]`. After the cases are graded, [`evaluate`]
//! turns the `over` check's verdicts into a confusion matrix and a score.
//!
//! Counting (python-input.md §3.4, digline 0.10.0): each case is, in this
//! order of precedence, a canary (excluded), suspended (no verdict:
//! excluded), errored (excluded), unlabelled (excluded), or one cell:
//! positive+pass TP, positive+fail FN, negative+pass TN, negative+fail FP.
//! An empty denominator is an `error` verdict, never a 0. When every counted
//! case was sampled the same number of times (≥ 2), the aggregate is also
//! re-counted per sample index, and those values become its measured
//! interval (`samples`, `sample_min`, `sample_max`); the score is unchanged.
//! Pure: no I/O.

use serde_json::{Map, Value};

use super::checks::{group_copy_payload, identity_payload};
use super::checks::{BuildError, BuildErrorKind, Problems};
use super::identity::{self, RuleEntry};
use super::python::dumps::round6;
use super::ratio::{as_ratio, describe};
use super::verdict::{meets, Status, Verdict};

/// Which share an aggregate measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggregateKind {
    /// TP / (TP + FP).
    Precision,
    /// TP / (TP + FN).
    Recall,
    /// (TP + TN) / counted.
    Accuracy,
    /// 2TP / (2TP + FP + FN).
    F1,
}

impl AggregateKind {
    /// The kind for a `type` token, if it is an aggregate's.
    pub fn from_token(token: &str) -> Option<AggregateKind> {
        match token {
            "precision" => Some(AggregateKind::Precision),
            "recall" => Some(AggregateKind::Recall),
            "accuracy" => Some(AggregateKind::Accuracy),
            "f1" => Some(AggregateKind::F1),
            _ => None,
        }
    }

    /// The token (`precision` …), also the word reasons use.
    pub fn as_str(self) -> &'static str {
        match self {
            AggregateKind::Precision => "precision",
            AggregateKind::Recall => "recall",
            AggregateKind::Accuracy => "accuracy",
            AggregateKind::F1 => "f1",
        }
    }

    /// (numerator, denominator) of this share over `m`.
    pub fn fraction(self, m: &Matrix) -> (usize, usize) {
        match self {
            AggregateKind::Precision => (m.true_positive, m.true_positive + m.false_positive),
            AggregateKind::Recall => (m.true_positive, m.true_positive + m.false_negative),
            AggregateKind::Accuracy => (m.true_positive + m.true_negative, m.considered()),
            AggregateKind::F1 => (
                2 * m.true_positive,
                2 * m.true_positive + m.false_positive + m.false_negative,
            ),
        }
    }
}

/// One aggregate entry, validated (and, for a `by_group` copy, bound to a group).
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredAggregate {
    /// What it measures.
    pub kind: AggregateKind,
    /// The reported name (`precision`, or the declared `name`; copies add `[group=g]`).
    pub name: String,
    /// The name of the per-case check whose verdicts it counts.
    pub over: String,
    /// 0–1, the score must reach it (ratios like `"9/10"` are read as their value).
    pub threshold: f64,
    /// ≥ 0: how far the score may move against the baseline.
    pub tolerance: f64,
    /// True when the entry asked for one copy per case group.
    pub by_group: bool,
    /// The group a `by_group` copy counts; `None` for the whole-run aggregate.
    pub group: Option<String>,
    /// 16 hex chars, equal to digline 0.10.0's.
    pub assertion_id: String,
    /// The hashed identity payload (copies: with the group in the name).
    pub identity_payload: Value,
}

impl DeclaredAggregate {
    /// This aggregate's `config_hash` entry (threshold and tolerance as floats,
    /// as 0.10.0 hashes an aggregate's).
    pub fn rule(&self) -> RuleEntry {
        RuleEntry::floats(&self.assertion_id, self.threshold, self.tolerance)
    }
}

fn invalid(token: &str, key: &str, message: String) -> BuildError {
    BuildError::invalid(token, key, message)
}

/// Validate one aggregate entry (`type` token plus its other keys).
///
/// # Errors
/// Not an aggregate token; unknown or missing parameters (`over`,
/// `threshold`, `tolerance` are mandatory; `group` is not settable); `over`
/// not a non-empty string; `threshold` not a ratio in 0–1; `tolerance` not
/// a ratio ≥ 0; `name` empty, not a string or holding `[group=`; `by_group`
/// not a boolean.
pub fn build_aggregate(
    token: &str,
    params: &Map<String, Value>,
) -> Result<DeclaredAggregate, BuildError> {
    let Some(kind) = AggregateKind::from_token(token) else {
        // Not an aggregate: the payload's refusal names the type when it can.
        identity_payload(token, params)?;
        return Err(BuildError::new(BuildErrorKind::UnknownType {
            token: token.to_string(),
        }));
    };
    // Every independent problem of the entry is noted.
    let mut problems = Problems::default();
    let payload = problems.note(identity_payload(token, params));
    let over = match params.get("over") {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        other => {
            problems.push(invalid(
                token,
                "over",
                format!(
                    "`over` is {}, and it has to be the name of the check this aggregate counts",
                    describe(other.unwrap_or(&Value::Null))
                ),
            ));
            None
        }
    };
    let ratio = |key: &str, why: &str, within: fn(f64) -> bool| -> Result<f64, BuildError> {
        let value = params.get(key).unwrap_or(&Value::Null);
        let ratio = as_ratio(value, key).map_err(|e| invalid(token, key, e.message))?;
        if within(ratio) {
            Ok(ratio)
        } else {
            Err(invalid(
                token,
                key,
                format!("`{key}` is {}, {why}", describe(value)),
            ))
        }
    };
    let threshold = problems.note(ratio(
        "threshold",
        &format!("outside 0–1: a {token} is a share"),
        |t| (0.0..=1.0).contains(&t),
    ));
    let tolerance = problems.note(ratio(
        "tolerance",
        "below 0: it is how far the score may move",
        |t| t >= 0.0,
    ));
    let name = match params.get("name") {
        None => token.to_string(),
        Some(Value::String(s)) if !s.is_empty() && !s.contains("[group=") => s.clone(),
        Some(Value::String(s)) if !s.is_empty() => {
            problems.push(invalid(
                token,
                "name",
                format!(
                    "`name` is '{s}', and `[group=` is how digline names the per-group copies \
                     of an aggregate: choose a name without it"
                ),
            ));
            String::new()
        }
        Some(other) => {
            problems.push(invalid(
                token,
                "name",
                format!(
                    "`name` is {}, and it has to be a non-empty string",
                    describe(other)
                ),
            ));
            String::new()
        }
    };
    let by_group = match params.get("by_group") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            problems.push(invalid(
                token,
                "by_group",
                format!(
                    "`by_group` is {}, and it has to be true or false",
                    describe(other)
                ),
            ));
            false
        }
    };
    let (((payload, over), threshold), tolerance) =
        problems.give(params, payload.zip(over).zip(threshold).zip(tolerance))?;
    Ok(DeclaredAggregate {
        kind,
        name,
        over,
        threshold,
        tolerance,
        by_group,
        group: None,
        assertion_id: identity::digest(&payload),
        identity_payload: payload,
    })
}

/// Each aggregate followed, when it is `by_group`, by one copy per group
/// (`groups` sorted and deduplicated here) named `<name>[group=<g>]` with
/// the same threshold and tolerance and its own identity.
pub fn expand_by_group(
    aggregates: &[DeclaredAggregate],
    groups: &[&str],
) -> Vec<DeclaredAggregate> {
    let mut groups: Vec<&str> = groups.to_vec();
    groups.sort_unstable();
    groups.dedup();
    let mut out = Vec::new();
    for aggregate in aggregates {
        out.push(aggregate.clone());
        if !aggregate.by_group || aggregate.group.is_some() {
            continue;
        }
        for group in &groups {
            let payload = group_copy_payload(&aggregate.identity_payload, group);
            out.push(DeclaredAggregate {
                name: format!("{}[group={group}]", aggregate.name),
                group: Some((*group).to_string()),
                assertion_id: identity::digest(&payload),
                identity_payload: payload,
                ..aggregate.clone()
            });
        }
    }
    out
}

/// What an aggregate sees of one case.
#[derive(Clone, Copy, Debug)]
pub struct CaseOutcome<'a> {
    /// `positive`, `negative`, or none.
    pub label: Option<&'a str>,
    /// The `over` check's verdict; `None` when the case was not run (suspended).
    pub verdict: Option<&'a Verdict>,
    /// True for a canary case.
    pub canary: bool,
    /// The case's group, if any.
    pub group: Option<&'a str>,
}

/// The confusion matrix and the exclusions, as recorded in the verdict's metadata.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Matrix {
    /// Positive and passing.
    pub true_positive: usize,
    /// Negative and failing (0.10.0's reading; see the module doc).
    pub false_positive: usize,
    /// Negative and passing.
    pub true_negative: usize,
    /// Positive and failing.
    pub false_negative: usize,
    /// Cases not run.
    pub suspended_excluded: usize,
    /// Cases whose verdict is an error.
    pub errored_excluded: usize,
    /// Cases without a label.
    pub unlabelled_excluded: usize,
    /// Canary cases.
    pub canary_excluded: usize,
}

impl Matrix {
    /// Count `outcomes`, each with its case's status (`None`: not run).
    fn count<'a>(outcomes: impl Iterator<Item = (&'a CaseOutcome<'a>, Option<Status>)>) -> Matrix {
        let mut m = Matrix::default();
        for (outcome, status) in outcomes {
            if outcome.canary {
                m.canary_excluded += 1;
                continue;
            }
            let Some(status) = status else {
                m.suspended_excluded += 1;
                continue;
            };
            let positive = match (status, outcome.label) {
                (Status::Error, _) => {
                    m.errored_excluded += 1;
                    continue;
                }
                (_, None) => {
                    m.unlabelled_excluded += 1;
                    continue;
                }
                (_, Some(label)) => label == "positive",
            };
            m.add(positive, status == Status::Pass);
        }
        m
    }

    /// Count one judged, labelled case in its cell: positive + pass TP,
    /// positive + fail FN, negative + pass TN, negative + fail FP.
    pub fn add(&mut self, positive: bool, passed: bool) {
        match (positive, passed) {
            (true, true) => self.true_positive += 1,
            (true, false) => self.false_negative += 1,
            (false, true) => self.true_negative += 1,
            (false, false) => self.false_positive += 1,
        }
    }

    /// Cases in the four cells.
    pub fn considered(&self) -> usize {
        self.true_positive + self.false_positive + self.true_negative + self.false_negative
    }

    fn metadata(&self) -> Map<String, Value> {
        let mut map = Map::new();
        for (key, value) in [
            ("true_positive", self.true_positive),
            ("false_positive", self.false_positive),
            ("true_negative", self.true_negative),
            ("false_negative", self.false_negative),
            ("considered", self.considered()),
            ("suspended_excluded", self.suspended_excluded),
            ("errored_excluded", self.errored_excluded),
            ("unlabelled_excluded", self.unlabelled_excluded),
            ("canary_excluded", self.canary_excluded),
        ] {
            map.insert(key.to_string(), Value::from(value));
        }
        map
    }

    /// `(6 counted, 1 suspended, 0 could not be judged[, 2 canary])`.
    fn excluded(&self) -> String {
        let mut text = format!(
            "{} counted, {} suspended, {} could not be judged",
            self.considered(),
            self.suspended_excluded,
            self.errored_excluded
        );
        if self.canary_excluded > 0 {
            text.push_str(&format!(", {} canary", self.canary_excluded));
        }
        format!("({text})")
    }
}

/// The matrix of `aggregate` over `outcomes` (each case's status from
/// `status_of`) and, unless the denominator is empty, `(value, n, d)`.
fn measure<'a>(
    aggregate: &DeclaredAggregate,
    outcomes: &'a [CaseOutcome<'a>],
    status_of: impl Fn(&Verdict) -> Status,
) -> (Matrix, Option<(f64, usize, usize)>) {
    let matrix = Matrix::count(
        outcomes
            .iter()
            .filter(|o| aggregate.group.is_none() || o.group == aggregate.group.as_deref())
            .map(|o| (o, o.verdict.map(&status_of))),
    );
    let (n, d) = aggregate.kind.fraction(&matrix);
    if d == 0 {
        (matrix, None)
    } else {
        (matrix, Some((n as f64 / d as f64, n, d)))
    }
}

/// Evaluate `aggregate` over every case's outcome (in case order).
///
/// A `by_group` copy counts only the cases of its group. The verdict's
/// metadata holds the matrix; an empty denominator is an `error` verdict
/// (`nothing to measure: …`). See the module doc for the noise interval.
pub fn evaluate(aggregate: &DeclaredAggregate, outcomes: &[CaseOutcome]) -> Verdict {
    let label = aggregate.kind.as_str();
    let (matrix, value) = measure(aggregate, outcomes, |v| v.status);
    let Some((value, n, d)) = value else {
        return Verdict::errored(
            &aggregate.name,
            &aggregate.assertion_id,
            aggregate.threshold,
            aggregate.tolerance,
            format!(
                "nothing to measure: {label} has an empty denominator {}",
                matrix.excluded()
            ),
            matrix.metadata(),
        );
    };
    let mut verdict = Verdict::scored(
        &aggregate.name,
        &aggregate.assertion_id,
        value,
        aggregate.threshold,
        aggregate.tolerance,
        format!("{label} {value:.6} = {n}/{d} {}", matrix.excluded()),
        matrix.metadata(),
    );
    if let Some(values) = per_sample(aggregate, outcomes) {
        let lowest = values.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        verdict.samples = Some(values);
        verdict.sample_min = Some(lowest);
        verdict.sample_max = Some(highest);
    }
    verdict
}

/// The aggregate re-counted at each sample index, when every counted case
/// (not canary, run, judged; in the aggregate's group) carries the same
/// number (≥ 2) of sampled scores. A sample index whose count has an empty
/// denominator gives no value; `None` when no index gives one.
fn per_sample(aggregate: &DeclaredAggregate, outcomes: &[CaseOutcome]) -> Option<Vec<f64>> {
    let mut count = None;
    for outcome in outcomes {
        if outcome.canary
            || (aggregate.group.is_some() && outcome.group != aggregate.group.as_deref())
        {
            continue;
        }
        let Some(verdict) = outcome.verdict.filter(|v| v.status != Status::Error) else {
            continue;
        };
        let n = verdict.samples.as_ref().map_or(0, Vec::len);
        match count {
            None => count = Some(n),
            Some(c) if c != n => return None,
            Some(_) => {}
        }
    }
    let count = count.filter(|c| *c >= 2)?;
    let mut values = Vec::with_capacity(count);
    for index in 0..count {
        let (_, value) = measure(aggregate, outcomes, |v| match v.status {
            Status::Error => Status::Error,
            _ => match v.samples.as_ref().and_then(|s| s.get(index)) {
                Some(score) if meets(*score, *v.threshold) => Status::Pass,
                Some(_) => Status::Fail,
                None => Status::Error,
            },
        });
        if let Some((value, _, _)) = value {
            values.push(round6(value));
        }
    }
    (!values.is_empty()).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    fn aggregate(token: &str, threshold: f64) -> DeclaredAggregate {
        build_aggregate(
            token,
            &params(json!({"over": "c", "threshold": threshold, "tolerance": 0.0})),
        )
        .unwrap_or_else(|e| panic!("{token}: {e}"))
    }

    fn verdict(score: Option<f64>, samples: &[f64]) -> Verdict {
        let mut v = match score {
            Some(s) => Verdict::scored("c", "id", s, 1.0, 0.0, "r".into(), Map::new()),
            None => Verdict::errored("c", "id", 1.0, 0.0, "boom".into(), Map::new()),
        };
        if !samples.is_empty() {
            v.samples = Some(samples.to_vec());
        }
        v
    }

    fn outcome<'a>(
        label: Option<&'a str>,
        v: Option<&'a Verdict>,
        canary: bool,
    ) -> CaseOutcome<'a> {
        CaseOutcome {
            label,
            verdict: v,
            canary,
            group: None,
        }
    }

    #[test]
    fn each_exclusion_and_cell_in_precedence_order() {
        let (pass, fail, error) = (
            verdict(Some(1.0), &[]),
            verdict(Some(0.0), &[]),
            verdict(None, &[]),
        );
        let outcomes = [
            outcome(Some("positive"), Some(&pass), false),  // TP
            outcome(Some("negative"), Some(&fail), false),  // FP
            outcome(Some("positive"), None, false),         // suspended
            outcome(Some("positive"), Some(&error), false), // errored
            outcome(None, Some(&pass), false),              // unlabelled
            outcome(None, Some(&pass), true),               // canary
            outcome(Some("negative"), None, true),          // canary before suspended
            outcome(None, Some(&error), false),             // errored before unlabelled
        ];
        let rows = [
            ("precision", "pass", "precision 0.500000 = 1/2 (2 counted, 1 suspended, 2 could not be judged, 2 canary)"),
            ("recall", "pass", "recall 1.000000 = 1/1 (2 counted, 1 suspended, 2 could not be judged, 2 canary)"),
            ("accuracy", "pass", "accuracy 0.500000 = 1/2 (2 counted, 1 suspended, 2 could not be judged, 2 canary)"),
            ("f1", "pass", "f1 0.666667 = 2/3 (2 counted, 1 suspended, 2 could not be judged, 2 canary)"),
        ];
        for (token, status, reason) in rows {
            let got = evaluate(&aggregate(token, 0.5), &outcomes);
            assert_eq!(got.status.as_str(), status, "{token}");
            assert_eq!(got.reason, reason);
            assert_eq!(
                crate::core::python::dumps::dumps_canonical(&Value::Object(
                    got.metadata.into_map()
                )),
                r#"{"canary_excluded":2,"considered":2,"errored_excluded":2,"false_negative":0,"false_positive":1,"suspended_excluded":1,"true_negative":0,"true_positive":1,"unlabelled_excluded":1}"#
            );
        }
    }

    #[test]
    fn empty_denominators_are_errors() {
        let (pass, fail) = (verdict(Some(1.0), &[]), verdict(Some(0.0), &[]));
        let negative_fail = [outcome(Some("negative"), Some(&fail), false)];
        let negative_pass = [outcome(Some("negative"), Some(&pass), false)];
        let rows: [(&str, &[CaseOutcome], &str); 5] = [
            ("recall", &negative_fail, "nothing to measure: recall has an empty denominator (1 counted, 0 suspended, 0 could not be judged)"),
            ("precision", &negative_pass, "nothing to measure: precision has an empty denominator (1 counted, 0 suspended, 0 could not be judged)"),
            ("f1", &negative_pass, "nothing to measure: f1 has an empty denominator (1 counted, 0 suspended, 0 could not be judged)"),
            ("accuracy", &[], "nothing to measure: accuracy has an empty denominator (0 counted, 0 suspended, 0 could not be judged)"),
            ("precision", &negative_fail, ""),
        ];
        for (token, outcomes, reason) in rows {
            let got = evaluate(&aggregate(token, 0.5), outcomes);
            if reason.is_empty() {
                assert_eq!(got.score, Some(0.0), "a zero numerator is a score");
                assert_eq!(got.status, Status::Fail);
            } else {
                assert_eq!(got.status, Status::Error, "{token}");
                assert_eq!(got.score, None);
                assert_eq!(got.reason, reason);
            }
            assert!(got.is_consistent());
        }
    }

    #[test]
    fn by_group_expands_sorted_with_its_own_ids() {
        let declared = build_aggregate(
            "accuracy",
            &params(json!({"over": "contains", "threshold": "9/10", "tolerance": 0.05, "by_group": true})),
        )
        .unwrap();
        assert_eq!(declared.threshold, 0.9);
        assert_eq!(declared.assertion_id, "ddb968366023a5a1");
        let plain = aggregate("precision", 0.5);
        let expanded = expand_by_group(&[declared, plain], &["beta", "alpha", "beta"]);
        let got: Vec<(&str, &str)> = expanded
            .iter()
            .map(|a| (a.name.as_str(), a.assertion_id.as_str()))
            .collect();
        assert_eq!(got.len(), 4);
        assert_eq!(got[0], ("accuracy", "ddb968366023a5a1"));
        assert_eq!(got[1], ("accuracy[group=alpha]", "ecc5117c4cecaff1"));
        assert_eq!(got[2], ("accuracy[group=beta]", "e6ee5e9153bf89d6"));
        assert_eq!(got[3].0, "precision");
        assert_eq!(expanded[1].threshold, 0.9);
        assert_eq!(expanded[1].group.as_deref(), Some("alpha"));
        // A copy counts only its group's cases.
        let (pass, fail) = (verdict(Some(1.0), &[]), verdict(Some(0.0), &[]));
        let outcomes = [
            CaseOutcome {
                label: Some("positive"),
                verdict: Some(&pass),
                canary: false,
                group: Some("alpha"),
            },
            CaseOutcome {
                label: Some("positive"),
                verdict: Some(&fail),
                canary: false,
                group: Some("beta"),
            },
            CaseOutcome {
                label: Some("positive"),
                verdict: None,
                canary: false,
                group: Some("beta"),
            },
        ];
        let alpha = evaluate(&expanded[1], &outcomes);
        assert_eq!(
            alpha.reason,
            "accuracy 1.000000 = 1/1 (1 counted, 0 suspended, 0 could not be judged)"
        );
        assert_eq!(alpha.assertion, "accuracy[group=alpha]");
        let beta = evaluate(&expanded[2], &outcomes);
        assert_eq!(
            beta.reason,
            "accuracy 0.000000 = 0/1 (1 counted, 1 suspended, 0 could not be judged)"
        );
    }

    #[test]
    fn bad_entries_are_refused_by_key() {
        let rows = [
            (
                json!({"over": "c", "threshold": 1.5, "tolerance": 0}),
                "threshold",
            ),
            (
                json!({"over": "c", "threshold": "nine tenths", "tolerance": 0}),
                "threshold",
            ),
            (
                json!({"over": "c", "threshold": 0.5, "tolerance": -1}),
                "tolerance",
            ),
            (
                json!({"over": "", "threshold": 0.5, "tolerance": 0}),
                "over",
            ),
            (json!({"over": 3, "threshold": 0.5, "tolerance": 0}), "over"),
            (
                json!({"over": "c", "threshold": 0.5, "tolerance": 0, "name": "p[group=x]"}),
                "name",
            ),
            (
                json!({"over": "c", "threshold": 0.5, "tolerance": 0, "by_group": "yes"}),
                "by_group",
            ),
        ];
        for (p, key) in rows {
            match build_aggregate("precision", &params(p.clone())).map_err(|e| e.kind) {
                Err(BuildErrorKind::Invalid { key: Some(k), .. }) => assert_eq!(k, key, "{p}"),
                other => panic!("{p}: {other:?}"),
            }
        }
        let missing = build_aggregate("precision", &params(json!({"over": "c", "threshold": 0.5})));
        assert!(matches!(
            missing.map_err(|e| e.kind),
            Err(BuildErrorKind::MissingParameters { .. })
        ));
        let ratio = build_aggregate(
            "f1",
            &params(json!({"over": "c", "threshold": "9/10", "tolerance": "1/20"})),
        );
        assert_eq!(
            ratio.map(|a| (a.threshold, a.tolerance)).ok(),
            Some((0.9, 0.05))
        );
    }

    #[test]
    fn every_independent_problem_of_an_aggregate_is_refused() {
        let e = build_aggregate(
            "precision",
            &params(
                json!({"over": "", "threshold": 2, "tolerance": -1, "by_group": "yes",
                           "name": "p[group=x]"}),
            ),
        )
        .expect_err("refused");
        let keys: Vec<Option<&str>> = e
            .problems()
            .map(|p| match &p.kind {
                BuildErrorKind::Invalid { key, .. } => key.as_deref(),
                _ => None,
            })
            .collect();
        assert_eq!(
            keys,
            [
                Some("over"),
                Some("threshold"),
                Some("tolerance"),
                Some("name"),
                Some("by_group")
            ]
        );
        // A misspelled `tolerance` is not also "missing" or "not a ratio".
        let e = build_aggregate(
            "precision",
            &params(json!({"over": "c", "threshold": 2, "tolerence": 0})),
        )
        .expect_err("refused");
        let kinds: Vec<&BuildErrorKind> = e.problems().map(|p| &p.kind).collect();
        assert!(
            matches!(
                kinds[..],
                [
                    BuildErrorKind::UnknownParameters { .. },
                    BuildErrorKind::Invalid { .. }
                ]
            ),
            "{kinds:?}"
        );
    }

    #[test]
    fn the_noise_interval_counts_each_sample_index() {
        let a = verdict(Some(0.666667), &[1.0, 0.0, 1.0]); // fails at threshold 1
        let b = verdict(Some(0.333333), &[0.0, 1.0, 0.0]);
        let c = verdict(Some(1.0), &[1.0, 1.0, 1.0]);
        let canary = verdict(Some(1.0), &[1.0, 1.0]);
        let outcomes = [
            outcome(Some("positive"), Some(&a), false),
            outcome(Some("negative"), Some(&b), false),
            outcome(Some("positive"), Some(&c), false),
            outcome(Some("positive"), None, false),
            outcome(None, Some(&canary), true), // a canary's count does not matter
        ];
        let rows = [
            ("precision", Some(0.5), vec![0.666667, 1.0, 0.666667]),
            ("recall", Some(0.5), vec![1.0, 0.5, 1.0]),
            (
                "accuracy",
                Some(0.333333),
                vec![0.666667, 0.666667, 0.666667],
            ),
            ("f1", Some(0.5), vec![0.8, 0.666667, 0.8]),
        ];
        for (token, score, samples) in rows {
            let got = evaluate(&aggregate(token, 0.5), &outcomes);
            assert_eq!(got.score, score, "{token}");
            let lowest = samples.iter().copied().fold(f64::INFINITY, f64::min);
            let highest = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(got.samples.as_deref(), Some(samples.as_slice()), "{token}");
            assert_eq!(
                (got.sample_min, got.sample_max),
                (Some(lowest), Some(highest))
            );
        }
    }

    #[test]
    fn no_interval_without_a_common_sample_count() {
        let three = verdict(Some(1.0), &[1.0, 1.0, 1.0]);
        let two = verdict(Some(1.0), &[1.0, 1.0]);
        let none = verdict(Some(1.0), &[]);
        let one = verdict(Some(1.0), &[1.0]);
        let error = verdict(None, &[]);
        let negative_split = verdict(Some(0.0), &[0.0, 1.0]);
        let rows: Vec<(Vec<CaseOutcome>, Option<Vec<f64>>)> = vec![
            (
                vec![
                    outcome(Some("positive"), Some(&three), false),
                    outcome(None, Some(&two), false),
                ],
                None,
            ),
            (
                vec![
                    outcome(Some("positive"), Some(&three), false),
                    outcome(Some("positive"), Some(&none), false),
                ],
                None,
            ),
            (vec![outcome(Some("positive"), Some(&one), false)], None),
            (
                vec![
                    outcome(Some("positive"), Some(&three), false),
                    outcome(Some("negative"), Some(&error), false),
                ],
                Some(vec![1.0, 1.0, 1.0]),
            ),
            (
                vec![
                    outcome(Some("positive"), Some(&three), false),
                    outcome(Some("positive"), Some(&two), true),
                ],
                Some(vec![1.0, 1.0, 1.0]),
            ),
            // an index with an empty denominator gives no value
            (
                vec![outcome(Some("negative"), Some(&negative_split), false)],
                Some(vec![0.0]),
            ),
        ];
        for (outcomes, want) in rows {
            let got = evaluate(&aggregate("precision", 0.5), &outcomes);
            assert_eq!(got.samples, want, "{outcomes:?}");
        }
        // An errored aggregate records no interval.
        let split = verdict(Some(0.0), &[0.0, 1.0]);
        let got = evaluate(
            &aggregate("precision", 0.5),
            &[outcome(Some("positive"), Some(&split), false)],
        );
        assert_eq!((got.status, got.samples), (Status::Error, None));
    }
}
