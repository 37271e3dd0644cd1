//! Whole-run measures compared paired, over the same cases (spec
//! `45-statistics.md`, decision 4).
//!
//! Each declared aggregate (and each `by_group` copy) is re-read case by
//! case from both documents: the `over` check's status in the reference and
//! in the run, with the case's label and group from the suite. Cases
//! counted on both sides (labelled, judged, not a canary, in the group) are
//! the pairs.
//!
//! - **accuracy** and **recall** are shares of the same cases (every counted
//!   case, or every positive one): McNemar's exact one-sided test on the
//!   cases that went from right to wrong against those that went the other
//!   way. A case is counted in the aggregates' own cells (`docs/checks.md`,
//!   [`Matrix::add`]): negative + pass is a true negative, so a case is
//!   right exactly when its `over` check passed;
//! - **precision** and **F1** are ratios whose denominators move with the
//!   answers: a paired bootstrap over cases (2,000 resamples, seeded), the
//!   drop real when the upper `1 − α` quantile of the difference is below 0.
//!
//! Every measure reports the interval on the *difference* (run − reference,
//! the bootstrap's central `1 − α` interval). A drop the paired test calls
//! real makes the measure `regressed` even when it sat inside the
//! reference's sampled `[min, max]`: that interval no longer excuses it.

use std::collections::HashMap;

use super::{Comparison, Outcome, Scope};
use crate::core::aggregate::{AggregateKind, DeclaredAggregate, Matrix};
use crate::core::document::RunDocument;
use crate::core::stats::{mcnemar_worse, paired_bootstrap, percentile_interval, quantile};
use crate::core::suite::Suite;
use crate::core::verdict::Status;

/// Resamples of the paired bootstrap.
const RESAMPLES: usize = 2_000;

/// Its seed: a gate is reproducible.
const SEED: u64 = 45;

/// One measure compared paired.
#[derive(Clone, Debug, PartialEq)]
pub struct PairedMeasure {
    /// The measure's name (`accuracy`, `f1[group=a]`).
    pub name: String,
    /// The aggregate's identity.
    pub assertion_id: String,
    /// Cases counted on both sides.
    pub cases: usize,
    /// The measure over those cases: run − reference.
    pub difference: f64,
    /// The central `1 − α` interval of the difference (paired bootstrap).
    pub interval: (f64, f64),
    /// McNemar's one-sided p-value (accuracy, recall); `None` for the
    /// bootstrapped ratios.
    pub p: Option<f64>,
    /// True when the paired test calls the drop real.
    pub real_drop: bool,
}

/// One counted case: (label is positive, passed in the reference, passes now).
type Paired = (bool, bool, bool);

/// Every declared measure compared paired, in declaration order (a measure
/// without a counted pair is left out).
pub fn paired_measures(
    suite: &Suite,
    run: &RunDocument,
    reference: &RunDocument,
    alpha: f64,
) -> Vec<PairedMeasure> {
    suite
        .aggregates
        .iter()
        .filter_map(|aggregate| measure(suite, aggregate, run, reference, alpha))
        .collect()
}

fn statuses<'a>(doc: &'a RunDocument, over: &str) -> HashMap<&'a str, Status> {
    doc.results
        .iter()
        .filter(|c| !c.suspended)
        .filter_map(|c| {
            let v = c
                .verdicts
                .iter()
                .find(|v| v.assertion_id.as_str() == over)?;
            Some((c.case_id.as_str(), v.status))
        })
        .collect()
}

fn measure(
    suite: &Suite,
    aggregate: &DeclaredAggregate,
    run: &RunDocument,
    reference: &RunDocument,
    alpha: f64,
) -> Option<PairedMeasure> {
    let over = suite.checks.iter().find(|c| c.name == aggregate.over)?;
    let (now, before) = (
        statuses(run, over.assertion_id.as_str()),
        statuses(reference, over.assertion_id.as_str()),
    );
    let pairs: Vec<Paired> = suite
        .cases
        .iter()
        .filter(|c| !c.canary && (aggregate.group.is_none() || c.group == aggregate.group))
        .filter_map(|c| {
            let positive = match c.label.as_deref()? {
                "positive" => true,
                "negative" => false,
                _ => return None,
            };
            let judged = |s: Status| (s != Status::Error).then_some(s == Status::Pass);
            let was = judged(*before.get(c.id.as_str())?)?;
            let is = judged(*now.get(c.id.as_str())?)?;
            Some((positive, was, is))
        })
        .collect();
    let kind = aggregate.kind;
    let value = |side: &dyn Fn(&Paired) -> bool, indices: &[usize]| -> Option<f64> {
        score(kind, indices.iter().map(|&i| (pairs[i].0, side(&pairs[i]))))
    };
    let all: Vec<usize> = (0..pairs.len()).collect();
    let difference = value(&|p| p.2, &all)? - value(&|p| p.1, &all)?;
    let distribution = paired_bootstrap(pairs.len(), RESAMPLES, SEED, 6, |indices| {
        match (value(&|p| p.2, indices), value(&|p| p.1, indices)) {
            (Some(a), Some(b)) => a - b,
            _ => 0.0,
        }
    });
    let interval = percentile_interval(&distribution, alpha);
    let p = match kind {
        AggregateKind::Accuracy | AggregateKind::Recall => {
            let counted = pairs
                .iter()
                .filter(|p| kind == AggregateKind::Accuracy || p.0);
            let (mut lost, mut gained) = (0u64, 0u64);
            // A case is right when its `over` check passed (TP or TN, as
            // the aggregates count it), wrong when it failed (FN or FP).
            for &(_, right_before, right_now) in counted {
                match (right_before, right_now) {
                    (true, false) => lost += 1,
                    (false, true) => gained += 1,
                    _ => {}
                }
            }
            Some(mcnemar_worse(lost, gained))
        }
        AggregateKind::Precision | AggregateKind::F1 => None,
    };
    let real_drop = difference < 0.0
        && match p {
            Some(p) => p <= alpha,
            None => quantile(&distribution, 1.0 - alpha) < 0.0,
        };
    Some(PairedMeasure {
        name: aggregate.name.clone(),
        assertion_id: aggregate.assertion_id.clone(),
        cases: pairs.len(),
        difference,
        interval,
        p,
        real_drop,
    })
}

/// The measure over `(positive, passed)` cases, counted in the aggregates'
/// own cells ([`Matrix::add`]: negative + pass is a true negative);
/// `None` for an empty denominator.
fn score(kind: AggregateKind, cases: impl Iterator<Item = (bool, bool)>) -> Option<f64> {
    let mut matrix = Matrix::default();
    for (positive, passed) in cases {
        matrix.add(positive, passed);
    }
    let (n, d) = kind.fraction(&matrix);
    (d > 0).then(|| n as f64 / d as f64)
}

impl Comparison {
    /// Attach the paired comparison of the whole-run measures. With
    /// `decide` (the gate, and `compare`/MCP of a run the gate re-asked), a
    /// measure whose drop the paired test calls real is `regressed`,
    /// whatever the reference's sampled interval said; without it (a
    /// comparison of two documents) the measures are shown and 0.10.0's
    /// rule decides.
    pub fn apply_paired(&mut self, measures: Vec<PairedMeasure>, decide: bool) {
        for m in &measures {
            if !decide || !m.real_drop {
                continue;
            }
            let found = self.deltas.iter_mut().find(|d| {
                d.key.scope == Scope::Run && d.key.assertion_id.as_str() == m.assertion_id
            });
            if let Some(delta) = found {
                if delta.outcome == Outcome::Unchanged && delta.within_noise {
                    delta.outcome = Outcome::Regressed;
                    delta.within_noise = false;
                }
            }
        }
        self.paired_measures = measures;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::checks::build;
    use serde_json::{json, Map, Value};

    fn suite(labels: &[&str], kind: AggregateKind) -> Suite {
        let params = json!({"needle": "yes"});
        let check = build("contains", params.as_object().unwrap_or(&Map::new())).unwrap();
        let aggregate = DeclaredAggregate {
            kind,
            name: kind.as_str().into(),
            over: check.name.to_string(),
            threshold: 0.5,
            tolerance: 0.0,
            by_group: false,
            group: None,
            assertion_id: "agg0000000000000".into(),
            identity_payload: Value::Null,
        };
        let ids = (0..labels.len()).map(|i| format!("c{i:02}"));
        let mut suite = Suite {
            aggregates: vec![aggregate],
            ..Suite::for_tests(vec![check], ids)
        };
        for (case, label) in suite.cases.iter_mut().zip(labels) {
            case.label = Some((*label).to_string());
        }
        suite
    }

    fn doc(suite: &Suite, passes: &[bool]) -> RunDocument {
        let id = suite.checks[0].assertion_id.to_string();
        let results: Vec<Value> = suite
            .cases
            .iter()
            .zip(passes)
            .map(|(c, pass)| {
                json!({"case_id": c.id, "suspended": false, "verdicts": [{
                    "assertion": "contains", "assertion_id": id, "metadata": {}, "reason": "",
                    "score": if *pass { 1.0 } else { 0.0 },
                    "status": if *pass { "pass" } else { "fail" },
                    "threshold": 1.0, "tolerance": 0.0
                }]})
            })
            .collect();
        serde_json::from_value(json!({
            "aggregate": [], "artifacts": {}, "config_hash": "0000000000000000",
            "created_at": "2026-01-01T00:00:00+00:00", "digline_version": "0.10.0",
            "environment": "e", "git_commit": null, "judge_config": {}, "metadata": {},
            "redacted": false, "results": results, "schema_version": 10, "suite": "s",
            "target_config": {}, "tenant": "t"
        }))
        .unwrap()
    }

    #[test]
    fn ten_cases_lost_and_none_gained_is_a_real_accuracy_drop() {
        let s = suite(&["positive"; 40], AggregateKind::Accuracy);
        let before = doc(&s, &[true; 40]);
        let mut now = vec![true; 40];
        now[..10].fill(false);
        let m = &paired_measures(&s, &doc(&s, &now), &before, 0.05)[0];
        assert_eq!(m.cases, 40);
        assert!((m.difference + 0.25).abs() < 1e-12);
        assert!((m.p.unwrap() - 0.5f64.powi(10)).abs() < 1e-12);
        assert!(m.real_drop);
        assert!(m.interval.1 < 0.0, "{:?}", m.interval);
        // The same answers: no drop.
        let same = &paired_measures(&s, &before, &before, 0.05)[0];
        assert!(!same.real_drop && same.difference == 0.0 && same.p == Some(1.0));
    }

    #[test]
    fn two_lost_and_one_gained_is_not_a_real_drop_and_f1_is_bootstrapped() {
        let labels: Vec<&str> = (0..30)
            .map(|i| if i % 2 == 0 { "positive" } else { "negative" })
            .collect();
        let s = suite(&labels, AggregateKind::Accuracy);
        // Every case right: positives pass (TP), negatives pass (TN).
        let right = vec![true; 30];
        let mut now = right.clone();
        now[0] = false;
        now[1] = false;
        let mut before = right.clone();
        before[3] = false;
        let m = &paired_measures(&s, &doc(&s, &now), &doc(&s, &before), 0.05)[0];
        assert!(!m.real_drop, "{m:?}");
        assert!(m.p.unwrap() > 0.05);
        let f1 = suite(&labels, AggregateKind::F1);
        let mut broken = right.clone();
        for i in (0..30).step_by(2).take(10) {
            broken[i] = false;
        }
        let m = &paired_measures(&f1, &doc(&f1, &broken), &doc(&f1, &right), 0.05)[0];
        assert_eq!(m.p, None);
        assert!(m.real_drop && m.difference < 0.0, "{m:?}");
        // Reproducible: the bootstrap is seeded.
        assert_eq!(
            m,
            &paired_measures(&f1, &doc(&f1, &broken), &doc(&f1, &right), 0.05)[0]
        );
    }

    /// The aggregates' cells (`docs/checks.md`): a negative case that passes
    /// is a true negative. Accuracy that rose from 0.50 to 0.65 is no drop.
    #[test]
    fn negatives_that_now_pass_raise_accuracy_as_the_aggregates_count_it() {
        let labels: Vec<&str> = (0..20)
            .map(|i| if i < 10 { "positive" } else { "negative" })
            .collect();
        // Reference: positives pass, negatives fail: 10 TP + 10 FP = 0.50.
        let before: Vec<bool> = (0..20).map(|i| i < 10).collect();
        // Now three negatives pass as well: 10 TP + 3 TN = 0.65.
        let mut now = before.clone();
        now[10..13].fill(true);
        for kind in [
            AggregateKind::Accuracy,
            AggregateKind::Precision,
            AggregateKind::F1,
        ] {
            let s = suite(&labels, kind);
            let (now_doc, before_doc) = (doc(&s, &now), doc(&s, &before));
            let m = &paired_measures(&s, &now_doc, &before_doc, 0.05)[0];
            assert!(m.difference > 0.0 && !m.real_drop, "{kind:?}: {m:?}");
            // The same number the aggregate itself reports, run − reference.
            let value = |d: &RunDocument| {
                let outcomes: Vec<crate::core::aggregate::CaseOutcome> = s
                    .cases
                    .iter()
                    .zip(&d.results)
                    .map(|(c, r)| crate::core::aggregate::CaseOutcome {
                        verdict: r.verdicts.first(),
                        label: c.label.as_deref(),
                        canary: false,
                        group: None,
                    })
                    .collect();
                crate::core::aggregate::evaluate(&s.aggregates[0], &outcomes)
                    .score
                    .unwrap()
            };
            // (The aggregate's score is stored to six decimals.)
            let moved = value(&now_doc) - value(&before_doc);
            assert!(
                (m.difference - moved).abs() < 1e-6,
                "{kind:?}: {m:?} {moved}"
            );
        }
        let s = suite(&labels, AggregateKind::Accuracy);
        let m = &paired_measures(&s, &doc(&s, &now), &doc(&s, &before), 0.05)[0];
        assert!((m.difference - 0.15).abs() < 1e-12, "{m:?}");
        assert_eq!(m.p, Some(1.0));
        // The other way round, three lost: 0.65 → 0.50, p = 1/8.
        let m = &paired_measures(&s, &doc(&s, &before), &doc(&s, &now), 0.05)[0];
        assert!((m.difference + 0.15).abs() < 1e-12, "{m:?}");
        assert!((m.p.unwrap() - 0.125).abs() < 1e-12, "{m:?}");
    }
}
