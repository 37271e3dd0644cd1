//! Unit tests of `diff`: the rules, the counts, symmetry and the refusals.

use serde_json::{json, Value};

use super::*;

/// `(status, score, tolerance, samples)` as a verdict with id `id`.
fn v(id: &str, status: &str, score: Option<f64>, tol: f64, samples: &[f64]) -> Value {
    let mut out = json!({
        "assertion": "contains", "assertion_id": id, "metadata": {}, "reason": "secret",
        "score": score, "status": status, "threshold": 0.5, "tolerance": tol
    });
    if !samples.is_empty() {
        let lo = samples.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        out["samples"] = json!(samples);
        out["sample_min"] = json!(lo);
        out["sample_max"] = json!(hi);
    }
    out
}

fn doc(verdicts: Vec<Value>, hash: &str, judges: &[&str]) -> RunDocument {
    let judge = if judges.is_empty() {
        json!({})
    } else {
        json!({ "identities": judges })
    };
    serde_json::from_value(json!({
        "aggregate": [], "artifacts": {}, "config_hash": hash,
        "created_at": "2026-01-01T00:00:00+00:00", "digline_version": "0.11.0",
        "environment": "local", "git_commit": null, "judge_config": judge, "metadata": {},
        "redacted": false, "results": [{"case_id": "c", "suspended": false, "verdicts": verdicts}],
        "schema_version": 10, "suite": "s", "target_config": {}, "tenant": "t"
    }))
    .unwrap()
}

const H: &str = "0123456789abcdef";

#[test]
fn each_rule_decides_one_row() {
    // (left verdicts, right verdicts, outcome, favours, flipped, overlap, disjoint)
    type Row = (
        Vec<Value>,
        Vec<Value>,
        DiffOutcome,
        Favours,
        bool,
        bool,
        bool,
    );
    let rows: Vec<(&str, Row)> = vec![
        (
            "same score",
            (
                vec![v("a", "pass", Some(0.9), 0.0, &[])],
                vec![v("a", "pass", Some(0.9), 0.0, &[])],
                DiffOutcome::Same,
                Favours::Neither,
                false,
                false,
                false,
            ),
        ),
        (
            "within tolerance",
            (
                vec![v("a", "pass", Some(0.9), 0.05, &[])],
                vec![v("a", "pass", Some(0.86), 0.0, &[])],
                DiffOutcome::Same,
                Favours::Neither,
                false,
                false,
                false,
            ),
        ),
        (
            "right higher",
            (
                vec![v("a", "pass", Some(0.6), 0.0, &[])],
                vec![v("a", "pass", Some(0.9), 0.0, &[])],
                DiffOutcome::Differs,
                Favours::Right,
                false,
                false,
                false,
            ),
        ),
        (
            "left higher",
            (
                vec![v("a", "pass", Some(0.9), 0.0, &[])],
                vec![v("a", "pass", Some(0.6), 0.0, &[])],
                DiffOutcome::Differs,
                Favours::Left,
                false,
                false,
                false,
            ),
        ),
        (
            "a flip beats tolerance",
            (
                vec![v("a", "pass", Some(0.5), 1.0, &[])],
                vec![v("a", "fail", Some(0.49), 1.0, &[])],
                DiffOutcome::Differs,
                Favours::Left,
                true,
                false,
                false,
            ),
        ),
        (
            "errored",
            (
                vec![v("a", "error", None, 0.0, &[])],
                vec![v("a", "pass", Some(0.9), 0.0, &[])],
                DiffOutcome::Errored,
                Favours::Neither,
                false,
                false,
                false,
            ),
        ),
        (
            "only left",
            (
                vec![v("a", "pass", Some(0.9), 0.0, &[])],
                vec![],
                DiffOutcome::OnlyLeft,
                Favours::Neither,
                false,
                false,
                false,
            ),
        ),
        (
            "only right",
            (
                vec![],
                vec![v("a", "pass", Some(0.9), 0.0, &[])],
                DiffOutcome::OnlyRight,
                Favours::Neither,
                false,
                false,
                false,
            ),
        ),
        (
            "overlapping intervals do not overrule",
            (
                vec![v("a", "pass", Some(0.6), 0.0, &[0.5, 0.7])],
                vec![v("a", "pass", Some(0.7), 0.0, &[0.6, 0.8])],
                DiffOutcome::Differs,
                Favours::Right,
                false,
                true,
                false,
            ),
        ),
        (
            "disjoint intervals",
            (
                vec![v("a", "pass", Some(0.6), 0.0, &[0.55, 0.65])],
                vec![v("a", "pass", Some(0.9), 0.0, &[0.85, 0.95])],
                DiffOutcome::Differs,
                Favours::Right,
                false,
                false,
                true,
            ),
        ),
    ];
    for (name, (l, r, outcome, favours, flipped, overlap, disjoint)) in rows {
        let d = diff(&doc(l, H, &[]), &doc(r, H, &[])).unwrap();
        let c = &d.checks[0];
        assert_eq!(
            (
                c.outcome,
                c.favours,
                c.flipped,
                c.intervals_overlap,
                c.intervals_disjoint
            ),
            (outcome, favours, flipped, overlap, disjoint),
            "{name}"
        );
    }
}

#[test]
fn swapping_the_runs_swaps_the_columns_only() {
    let l = doc(
        vec![
            v("a", "pass", Some(0.6), 0.0, &[0.55, 0.65]),
            v("b", "pass", Some(0.9), 0.0, &[]),
        ],
        H,
        &[],
    );
    let r = doc(
        vec![
            v("a", "pass", Some(0.9), 0.0, &[0.85, 0.95]),
            v("c", "fail", Some(0.1), 0.0, &[]),
        ],
        H,
        &[],
    );
    let ab = diff(&l, &r).unwrap().counts();
    let ba = diff(&r, &l).unwrap().counts();
    assert_eq!(
        (ab.favours_left, ab.favours_right),
        (ba.favours_right, ba.favours_left)
    );
    assert_eq!((ab.only_left, ab.only_right), (ba.only_right, ba.only_left));
    assert_eq!(
        (ab.left_exceeds, ab.right_exceeds),
        (ba.right_exceeds, ba.left_exceeds)
    );
    assert_eq!((ab.total, ab.differing, ab.interval_pairs), (3, 3, 1));
    assert_eq!(ab.right_exceeds, 1);
    let d1 = diff(&l, &r).unwrap();
    let d2 = diff(&r, &l).unwrap();
    assert_eq!(d1.checks[0].delta, d2.checks[0].delta.map(|x| -x));
}

#[test]
fn runs_measured_differently_are_refused() {
    let a = doc(vec![], H, &[]);
    let rows: Vec<(&str, RunDocument, &str)> = vec![
        (
            "other rules",
            doc(vec![], "fedcba9876543210", &[]),
            "different suites (config_hash 0123456789abcdef against fedcba9876543210)",
        ),
        (
            "a judge on one side",
            doc(vec![], H, &["openai/gpt-4o"]),
            "the second run records the judge openai/gpt-4o and the first records none",
        ),
        (
            "another tenant",
            {
                let mut d = doc(vec![], H, &[]);
                d.tenant = "u".into();
                d
            },
            "cannot diff across tenants",
        ),
        (
            "another suite",
            {
                let mut d = doc(vec![], H, &[]);
                d.suite = "u".into();
                d
            },
            "cannot diff across suites",
        ),
    ];
    for (name, b, want) in rows {
        let err = diff(&a, &b).expect_err(name).to_string();
        assert!(err.contains(want), "{name}: {err}");
    }
    let j1 = doc(vec![], H, &["a/x"]);
    let j2 = doc(vec![], H, &["b/y"]);
    assert!(diff(&j1, &j2)
        .unwrap_err()
        .0
        .contains("different judges (a/x against b/y)"));
    assert_eq!(
        diff(&j1, &j1.clone()).unwrap().judges,
        vec!["a/x".to_string()]
    );
}
