//! Unit tests of pairing, outcomes, headline facts and exit codes.

use serde_json::{json, Value};

use super::*;

/// A verdict as JSON: `(name, id, status, score, tolerance, samples)`.
fn verdict(
    name: &str,
    id: &str,
    status: &str,
    score: Option<f64>,
    tol: f64,
    samples: &[f64],
) -> Value {
    let mut v = json!({
        "assertion": name, "assertion_id": id, "metadata": {}, "reason": format!("secret reason {name}"),
        "score": score, "status": status, "threshold": 0.5, "tolerance": tol
    });
    if !samples.is_empty() {
        let lo = samples.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        v["samples"] = json!(samples);
        v["sample_min"] = json!(lo);
        v["sample_max"] = json!(hi);
    }
    v
}

fn pass(id: &str, score: f64) -> Value {
    verdict("contains", id, "pass", Some(score), 0.05, &[])
}

fn fail(id: &str, score: f64) -> Value {
    verdict("contains", id, "fail", Some(score), 0.05, &[])
}

fn errored(id: &str) -> Value {
    verdict("contains", id, "error", None, 0.05, &[])
}

/// A document with the given cases (`(case_id, verdicts)`) and aggregates.
fn doc(tenant: &str, cases: Vec<(&str, Vec<Value>)>, aggregate: Vec<Value>) -> RunDocument {
    let results: Vec<Value> = cases
        .into_iter()
        .map(|(id, verdicts)| json!({"case_id": id, "suspended": false, "verdicts": verdicts}))
        .collect();
    let raw = json!({
        "aggregate": aggregate, "artifacts": {}, "config_hash": "0000000000000000",
        "created_at": "2026-01-01T00:00:00+00:00", "digline_version": "0.10.0",
        "environment": "local", "git_commit": null, "judge_config": {}, "metadata": {},
        "redacted": false, "results": results, "schema_version": 10, "suite": "s",
        "target_config": {}, "tenant": tenant
    });
    serde_json::from_value(raw).unwrap_or_else(|e| panic!("test document: {e}"))
}

fn outcomes(c: &Comparison) -> Vec<(String, String, usize, Outcome, bool)> {
    c.deltas
        .iter()
        .map(|d| {
            (
                d.key.case_id.to_string(),
                d.key.assertion_id.to_string(),
                d.key.occurrence,
                d.outcome,
                d.within_noise,
            )
        })
        .collect()
}

fn one(run: Value, base: Value) -> (Outcome, bool) {
    let r = doc("t", vec![("c", vec![run])], vec![]);
    let b = doc("t", vec![("c", vec![base])], vec![]);
    let c = compare(&r, &b).unwrap_or_else(|e| panic!("{e}"));
    (c.deltas[0].outcome, c.deltas[0].within_noise)
}

#[test]
fn outcome_rules_in_order() {
    let sampled =
        |score: f64, samples: &[f64]| verdict("lev", "b", "pass", Some(score), 0.02, samples);
    let table: Vec<(&str, Value, Value, (Outcome, bool))> = vec![
        (
            "same score",
            pass("a", 1.0),
            pass("a", 1.0),
            (Outcome::Unchanged, false),
        ),
        (
            "drop within tolerance",
            pass("a", 0.96),
            pass("a", 1.0),
            (Outcome::Unchanged, false),
        ),
        (
            "drop exactly at tolerance",
            pass("a", 0.95),
            pass("a", 1.0),
            (Outcome::Unchanged, false),
        ),
        (
            "drop beyond tolerance",
            pass("a", 0.94),
            pass("a", 1.0),
            (Outcome::Regressed, false),
        ),
        (
            "rise beyond tolerance",
            pass("a", 1.0),
            pass("a", 0.9),
            (Outcome::Improved, false),
        ),
        (
            "flip by a hair is still a flip",
            fail("a", 0.499),
            pass("a", 0.5),
            (Outcome::Regressed, false),
        ),
        (
            "upward flip",
            pass("a", 0.5),
            fail("a", 0.49),
            (Outcome::Improved, false),
        ),
        (
            "errored in run",
            errored("a"),
            pass("a", 1.0),
            (Outcome::Errored, false),
        ),
        (
            "errored in baseline",
            pass("a", 1.0),
            errored("a"),
            (Outcome::Errored, false),
        ),
        (
            "inside the baseline's interval",
            sampled(0.95, &[]),
            sampled(0.98, &[0.94, 1.0, 1.0]),
            (Outcome::Unchanged, true),
        ),
        (
            "below the baseline's interval",
            sampled(0.9, &[]),
            sampled(0.98, &[0.94, 1.0, 1.0]),
            (Outcome::Regressed, false),
        ),
        (
            "the run's own samples are not the interval",
            sampled(0.9, &[0.8, 1.0]),
            sampled(0.98, &[]),
            (Outcome::Regressed, false),
        ),
    ];
    for (name, run, base, want) in table {
        assert_eq!(one(run, base), want, "{name}");
    }
}

#[test]
fn the_runs_tolerance_decides() {
    let run = verdict("contains", "a", "pass", Some(0.9), 0.2, &[]);
    let base = verdict("contains", "a", "pass", Some(1.0), 0.0, &[]);
    assert_eq!(one(run.clone(), base.clone()), (Outcome::Unchanged, false));
    assert_eq!(one(base, run), (Outcome::Improved, false));
}

#[test]
fn pairing_is_by_id_and_occurrence_not_name_or_position() {
    // Two checks sharing an id in one case pair by occurrence; a renamed
    // check with the same id still pairs; reordering distinct ids changes nothing.
    let run = doc(
        "t",
        vec![(
            "c",
            vec![
                pass("x", 1.0),
                pass("y", 1.0),
                fail("x", 0.0),
                verdict("renamed", "z", "pass", Some(1.0), 0.0, &[]),
            ],
        )],
        vec![],
    );
    let base = doc(
        "t",
        vec![(
            "c",
            vec![
                pass("y", 1.0),
                pass("x", 1.0),
                pass("x", 1.0),
                verdict("old", "z", "pass", Some(1.0), 0.0, &[]),
            ],
        )],
        vec![],
    );
    let c = compare(&run, &base).unwrap_or_else(|e| panic!("{e}"));
    let got = outcomes(&c);
    let want = vec![
        (
            "c".to_string(),
            "x".to_string(),
            0,
            Outcome::Unchanged,
            false,
        ),
        (
            "c".to_string(),
            "x".to_string(),
            1,
            Outcome::Regressed,
            false,
        ),
        (
            "c".to_string(),
            "y".to_string(),
            0,
            Outcome::Unchanged,
            false,
        ),
        (
            "c".to_string(),
            "z".to_string(),
            0,
            Outcome::Unchanged,
            false,
        ),
    ];
    assert_eq!(got, want);
    assert_eq!(c.deltas[3].assertion, "renamed");
    assert_eq!(exit_code(&c), ExitStatus::Worse);
}

#[test]
fn new_missing_and_key_order() {
    let run = doc(
        "t",
        vec![("b", vec![pass("x", 1.0)]), ("a", vec![pass("x", 1.0)])],
        vec![pass("p", 0.7)],
    );
    let base = doc(
        "t",
        vec![("a", vec![pass("x", 1.0)]), ("c", vec![pass("x", 1.0)])],
        vec![],
    );
    let c = compare(&run, &base).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(Scope, String, Outcome)> = c
        .deltas
        .iter()
        .map(|d| (d.key.scope, d.key.case_id.to_string(), d.outcome))
        .collect();
    assert_eq!(
        got,
        vec![
            (Scope::Case, "a".into(), Outcome::Unchanged),
            (Scope::Case, "b".into(), Outcome::New),
            (Scope::Case, "c".into(), Outcome::Missing),
            (Scope::Run, String::new(), Outcome::New),
        ]
    );
    // Case c passed in the reference and is not in the run: the reference
    // was not judged in full (0.10.0 exited 0 here; spec 40-compare.md).
    assert_eq!(c.uncovered_passes, 1);
    assert_eq!(exit_code(&c), ExitStatus::Unjudged);
}

#[test]
fn cross_tenant_is_refused() {
    let run = doc("acme", vec![("a", vec![pass("x", 1.0)])], vec![]);
    let base = doc("globex", vec![("a", vec![pass("x", 1.0)])], vec![]);
    let err = compare(&run, &base).err();
    let Some(err) = err else {
        panic!("comparing across tenants must be refused");
    };
    assert_eq!(
        err.kind(),
        &CompareErrorKind::CrossTenant {
            run: "acme".into(),
            baseline: "globex".into()
        }
    );
    assert!(err.to_string().contains("\"acme\"") && err.to_string().contains("\"globex\""));
    assert!(compare(&run, &run).is_ok());
}

#[test]
fn strict_exit_codes() {
    let agg_ok = verdict("precision", "p", "pass", Some(0.8), 0.0, &[]);
    let agg_err = verdict("precision", "p", "error", None, 0.0, &[]);
    let case = || vec![("a", vec![pass("x", 1.0)])];
    type Row = (
        &'static str,
        RunDocument,
        RunDocument,
        i32,
        Vec<String>,
        bool,
    );
    let table: Vec<Row> = vec![
        (
            "all fine",
            doc("t", case(), vec![agg_ok.clone()]),
            doc("t", case(), vec![agg_ok.clone()]),
            0,
            vec![],
            false,
        ),
        (
            "errored aggregate in the run",
            doc("t", case(), vec![agg_err.clone()]),
            doc("t", case(), vec![agg_ok.clone()]),
            2,
            vec!["precision".to_string()],
            false,
        ),
        (
            "errored aggregate only in the baseline is not the run's problem",
            doc("t", case(), vec![agg_ok.clone()]),
            doc("t", case(), vec![agg_err.clone()]),
            0,
            vec![],
            false,
        ),
        (
            "errored aggregate new in the run",
            doc("t", case(), vec![agg_err.clone()]),
            doc("t", case(), vec![]),
            2,
            vec!["precision".to_string()],
            false,
        ),
        (
            "every case renamed: nothing compared",
            doc("t", vec![("b", vec![pass("x", 1.0)])], vec![]),
            doc("t", case(), vec![]),
            2,
            vec![],
            true,
        ),
        (
            "both empty: nothing compared",
            doc("t", vec![], vec![]),
            doc("t", vec![], vec![]),
            2,
            vec![],
            true,
        ),
        (
            "worse outranks unjudged",
            doc(
                "t",
                vec![("a", vec![fail("x", 0.0)]), ("b", vec![errored("y")])],
                vec![],
            ),
            doc(
                "t",
                vec![("a", vec![pass("x", 1.0)]), ("b", vec![pass("y", 1.0)])],
                vec![],
            ),
            1,
            vec![],
            false,
        ),
        (
            "errored case in the run",
            doc(
                "t",
                vec![("a", vec![pass("x", 1.0)]), ("b", vec![errored("y")])],
                vec![],
            ),
            doc(
                "t",
                vec![("a", vec![pass("x", 1.0)]), ("b", vec![pass("y", 1.0)])],
                vec![],
            ),
            2,
            vec![],
            false,
        ),
    ];
    for (name, run, base, code, uncomputed, nothing) in table {
        let c = compare(&run, &base).unwrap_or_else(|e| panic!("{name}: {e}"));
        let head = c.headline();
        assert_eq!(exit_code(&c).code(), code, "{name}");
        assert_eq!(head.uncomputed_measures, uncomputed, "{name}");
        assert_eq!(head.nothing_compared, nothing, "{name}");
    }
}

#[test]
fn canaries_move_in_either_direction() {
    let canary_doc = |score: f64| {
        let mut d = doc("t", vec![("k", vec![pass("x", score)])], vec![]);
        d.results[0].canary = Some(true);
        d
    };
    let up = compare(&canary_doc(1.0), &canary_doc(0.8)).unwrap_or_else(|e| panic!("{e}"));
    assert!(up.headline().canary_moved && !up.headline().worse);
    assert_eq!(exit_code(&up), ExitStatus::Worse);
    let still = compare(&canary_doc(1.0), &canary_doc(0.99)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!still.headline().canary_moved);
    assert_eq!(exit_code(&still), ExitStatus::Proceed);
}

#[test]
fn noise_is_attached_only_without_a_flip() {
    let base = verdict("lev", "b", "pass", Some(0.98), 0.0, &[0.94, 1.0, 1.0]);
    let r = doc(
        "t",
        vec![("c", vec![verdict("lev", "b", "fail", Some(0.2), 0.0, &[])])],
        vec![],
    );
    let b = doc("t", vec![("c", vec![base.clone()])], vec![]);
    let c = compare(&r, &b).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (c.deltas[0].outcome, c.deltas[0].noise),
        (Outcome::Regressed, None)
    );
    let r = doc(
        "t",
        vec![("c", vec![verdict("lev", "b", "pass", Some(0.9), 0.0, &[])])],
        vec![],
    );
    let c = compare(&r, &b).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        c.deltas[0].noise,
        Some(Noise {
            min: 0.94,
            max: 1.0,
            samples: 3
        })
    );
    assert_eq!(c.deltas[0].delta, Some(-0.08));
}

#[test]
fn a_passing_reference_verdict_missing_from_the_run_could_not_be_judged() {
    let baseline = doc(
        "t",
        vec![
            ("a", vec![pass("aaaaaaaaaaaaaaaa", 1.0)]),
            ("b", vec![pass("aaaaaaaaaaaaaaaa", 1.0)]),
        ],
        vec![],
    );
    let run = doc(
        "t",
        vec![("a", vec![pass("aaaaaaaaaaaaaaaa", 1.0)])],
        vec![],
    );
    let c = compare(&run, &baseline).unwrap();
    assert_eq!(c.uncovered_passes, 1);
    let head = c.headline();
    assert!(head.coverage_changed);
    assert_eq!(exit_code(&c), ExitStatus::Unjudged);

    // A failing reference verdict that went missing is listed, not exit 2.
    let baseline = doc(
        "t",
        vec![
            ("a", vec![pass("aaaaaaaaaaaaaaaa", 1.0)]),
            ("b", vec![fail("aaaaaaaaaaaaaaaa", 0.0)]),
        ],
        vec![],
    );
    let c = compare(&run, &baseline).unwrap();
    assert_eq!(c.uncovered_passes, 0);
    assert!(c.headline().coverage_changed);
    assert_eq!(exit_code(&c), ExitStatus::Proceed);

    // A case the run suspends is expected to be missing.
    let mut run = doc(
        "t",
        vec![("a", vec![pass("aaaaaaaaaaaaaaaa", 1.0)]), ("b", vec![])],
        vec![],
    );
    run.results[1].suspended = true;
    let baseline = doc(
        "t",
        vec![
            ("a", vec![pass("aaaaaaaaaaaaaaaa", 1.0)]),
            ("b", vec![pass("aaaaaaaaaaaaaaaa", 1.0)]),
        ],
        vec![],
    );
    let c = compare(&run, &baseline).unwrap();
    assert_eq!(c.uncovered_passes, 0);
    assert_eq!(exit_code(&c), ExitStatus::Proceed);
}

#[test]
fn rule_changes_are_itemized_with_their_direction() {
    let with = |v: Value, threshold: f64, tolerance: f64| {
        let mut v = v;
        v["threshold"] = json!(threshold);
        v["tolerance"] = json!(tolerance);
        v
    };
    let baseline = doc(
        "t",
        vec![
            (
                "a",
                vec![
                    with(pass("aaaaaaaaaaaaaaaa", 0.9), 0.8, 0.05),
                    verdict("length", "1111111111111111", "pass", Some(1.0), 0.0, &[]),
                ],
            ),
            ("b", vec![with(pass("aaaaaaaaaaaaaaaa", 0.9), 0.8, 0.05)]),
        ],
        vec![],
    );
    let run = doc(
        "t",
        vec![
            (
                "a",
                vec![
                    with(pass("aaaaaaaaaaaaaaaa", 0.9), 0.5, 0.01),
                    verdict("length", "2222222222222222", "pass", Some(1.0), 0.0, &[]),
                ],
            ),
            ("b", vec![with(pass("aaaaaaaaaaaaaaaa", 0.9), 0.5, 0.01)]),
        ],
        vec![],
    );
    let c = compare(&run, &baseline).unwrap();
    let got: Vec<(String, RuleField, String, String, Option<Direction>, usize)> = c
        .rule_changes
        .iter()
        .map(|r| {
            (
                r.check.clone(),
                r.field,
                r.before.clone(),
                r.after.clone(),
                r.direction,
                r.pairs,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "contains".into(),
                RuleField::Threshold,
                "0.800000".into(),
                "0.500000".into(),
                Some(Direction::Loosened),
                2
            ),
            (
                "contains".into(),
                RuleField::Tolerance,
                "0.050000".into(),
                "0.010000".into(),
                Some(Direction::Tightened),
                2
            ),
            (
                "length".into(),
                RuleField::Parameters,
                "1111111111111111".into(),
                "2222222222222222".into(),
                None,
                1
            ),
        ]
    );
    assert_eq!(c.uncovered_passes, 1, "the edited check's old verdict");
    assert_eq!(exit_code(&c), ExitStatus::Unjudged);
}

#[test]
fn parameter_directions_and_spelled_edits() {
    use super::{
        parameter_direction, spell_parameters, DeclaredCheck, Direction, RuleChange, RuleField,
    };
    let v = |s: &str| Some(s.to_string());
    let dir = |k: &str, a: &str, b: &str| parameter_direction(k, v(a).as_ref(), v(b).as_ref());
    assert_eq!(dir("maximum", "40", "50"), Some(Direction::Loosened));
    assert_eq!(dir("max_usd", "0.01", "0.005"), Some(Direction::Tightened));
    assert_eq!(dir("minimum", "10", "5"), Some(Direction::Loosened));
    assert_eq!(dir("threshold", "0.8", "0.5"), Some(Direction::Loosened));
    assert_eq!(dir("tolerance", "0.05", "0.01"), Some(Direction::Tightened));
    assert_eq!(dir("needle", "a", "b"), None);
    assert_eq!(dir("unit", "1", "2"), None);

    let change = RuleChange {
        check: "length".into(),
        field: RuleField::Parameters,
        before: "aaaa".into(),
        after: "bbbb".into(),
        direction: None,
        pairs: 2,
        parameter: None,
        key: super::PairKey {
            scope: super::Scope::Case,
            case_id: "c".into(),
            assertion_id: "aaaa".into(),
            occurrence: 0,
        },
    };
    let check = |max: &str, long: &str| -> DeclaredCheck {
        (
            "length".into(),
            [
                ("maximum".to_string(), max.to_string()),
                ("unit".to_string(), long.to_string()),
            ]
            .into_iter()
            .collect(),
        )
    };
    let long = "x".repeat(100);
    let spelled = spell_parameters(
        vec![change.clone()],
        &[check("40", "words")],
        &[check("50", &long)],
    );
    assert_eq!(spelled.len(), 2);
    assert_eq!(spelled[0].parameter.as_deref(), Some("maximum"));
    assert_eq!(
        (spelled[0].before.as_str(), spelled[0].after.as_str()),
        ("40", "50")
    );
    assert_eq!(spelled[0].direction, Some(Direction::Loosened));
    assert_eq!(spelled[0].pairs, 2);
    assert_eq!(spelled[1].after, format!("{}…", "x".repeat(60)));
    // Declared twice under one name: which is which cannot be told.
    let twice = spell_parameters(
        vec![change.clone()],
        &[check("40", "words"), check("30", "words")],
        &[check("50", "words")],
    );
    assert_eq!(twice, vec![change]);
}

#[test]
fn a_delta_is_held_in_at_most_200_bytes_and_owns_no_string() {
    // 224 bytes and three strings of its own while keys and names were owned.
    assert!(
        std::mem::size_of::<Delta>() <= 200,
        "{}",
        std::mem::size_of::<Delta>()
    );
    let run = doc(
        "t",
        vec![("c1", vec![pass("a", 1.0), pass("b", 1.0)])],
        vec![],
    );
    let base = doc(
        "t",
        vec![("c1", vec![pass("a", 1.0), fail("b", 0.0)])],
        vec![],
    );
    let c = compare(&run, &base).unwrap_or_else(|e| panic!("{e}"));
    let (first, second) = (&c.deltas[0], &c.deltas[1]);
    // The two deltas of one case share its id; ids and names are the verdicts'.
    assert!(std::ptr::eq(
        first.key.case_id.as_str(),
        second.key.case_id.as_str()
    ));
    assert!(std::ptr::eq(
        first.key.assertion_id.as_str(),
        run.results[0].verdicts[0].assertion_id.as_str()
    ));
    assert_eq!(
        (first.key.case_id.as_str(), second.outcome),
        ("c1", Outcome::Improved)
    );
}

mod reasks {
    //! Re-asked pairs: measured counts, triggers and the verdicts they reach.
    use super::*;
    use crate::core::compare::reask::{
        fails_again, measured, triggered, PairVerdict, ReaskRecord, Reasked,
    };

    fn sampled_pass(id: &str, samples: &[f64]) -> Value {
        let mean = samples.iter().sum::<f64>() / samples.len() as f64;
        verdict("contains", id, "pass", Some(mean), 0.0, samples)
    }

    fn record(base: &RunDocument, pairs: Vec<(&str, Vec<bool>)>) -> ReaskRecord {
        ReaskRecord {
            reference_created_at: base.created_at.clone(),
            reference_config_hash: base.config_hash.clone(),
            false_alarm_rate: 0.05,
            exposed: 0,
            attempt: 1,
            carried: Vec::new(),
            pairs: pairs
                .into_iter()
                .map(|(case, failed)| Reasked {
                    case_id: case.into(),
                    assertion_id: "a".into(),
                    occurrence: 0,
                    failed,
                })
                .collect(),
        }
    }

    /// A reference measured 30 of 30 for cases `x` and `y`; the run fails
    /// both.
    fn fixture() -> (RunDocument, RunDocument) {
        let thirty = [1.0; 30];
        let base = doc(
            "t",
            vec![
                ("x", vec![sampled_pass("a", &thirty)]),
                ("y", vec![sampled_pass("a", &thirty)]),
            ],
            vec![],
        );
        let run = doc(
            "t",
            vec![("x", vec![fail("a", 0.0)]), ("y", vec![fail("a", 0.0)])],
            vec![],
        );
        (run, base)
    }

    #[test]
    fn a_reference_verdict_reports_its_pass_count() {
        let five = serde_json::from_value::<crate::core::verdict::Verdict>(verdict(
            "c",
            "a",
            "pass",
            Some(0.6),
            0.0,
            &[1.0, 0.0, 1.0, 0.0, 1.0],
        ))
        .unwrap();
        assert_eq!(measured(&five), (3, 5));
        let one = serde_json::from_value::<crate::core::verdict::Verdict>(pass("a", 1.0)).unwrap();
        assert_eq!(measured(&one), (1, 1));
    }

    #[test]
    fn a_reference_of_many_samples_is_bounded_on_its_first_thousand() {
        let mut scores = vec![1.0; 5000];
        scores[1200] = 0.0;
        let sampled = |scores: &[f64]| {
            serde_json::from_value::<crate::core::verdict::Verdict>(sampled_pass("a", scores))
                .unwrap()
        };
        assert_eq!(measured(&sampled(&scores)), (1000, 1000));
        scores[3] = 0.0;
        assert_eq!(measured(&sampled(&scores)), (999, 1000));
        // A run --samples 1000 reference (the most `samples` allows) is
        // decided as quickly as any: two failing re-asks of a case that
        // passed 1,000 times are worse.
        let all = vec![1.0; 1000];
        let base = doc("t", vec![("x", vec![sampled_pass("a", &all)])], vec![]);
        let run = doc("t", vec![("x", vec![fail("a", 0.0)])], vec![]);
        let mut c = compare(&run, &base).unwrap();
        c.apply_reasks(&record(&base, vec![("x", vec![true, true])]), &base);
        assert_eq!(c.reasked_as(PairVerdict::Worse).count(), 1);
        c.state_power(&base, 0.05);
        assert_eq!(c.power.as_ref().map(|p| p.samples), Some(1000));
    }

    #[test]
    fn a_wobble_within_noise_is_not_worse_and_a_repeated_failure_is() {
        let (run, base) = fixture();
        let mut c = compare(&run, &base).unwrap();
        assert_eq!(triggered(&c).len(), 2);
        assert_eq!(exit_code(&c), ExitStatus::Worse);
        // x failed three re-asks; y passed two.
        c.apply_reasks(
            &record(
                &base,
                vec![("x", vec![true, true, true]), ("y", vec![false, false])],
            ),
            &base,
        );
        let head = c.headline();
        assert!(head.worse && head.reasked);
        assert_eq!((head.wobbled, head.undecided), (1, 0));
        assert_eq!(c.reasked_as(PairVerdict::Worse).count(), 1);
        assert_eq!(c.deltas[1].outcome, Outcome::Unchanged);
        assert!(c.deltas[1].within_noise);
        let y = c.reasked_as(PairVerdict::Noise).next().unwrap();
        assert_eq!(
            (y.evidence.reference_passed, y.evidence.reference_samples),
            (30, 30)
        );
        assert_eq!((y.evidence.now_passed, y.evidence.now_asked), (2, 3));
    }

    #[test]
    fn only_wobbles_exit_zero_and_undecided_never_fails_the_gate() {
        let thirty = [1.0; 30];
        let ids = ["x", "y", "z"];
        let base = doc(
            "t",
            ids.iter()
                .map(|id| (*id, vec![sampled_pass("a", &thirty)]))
                .collect(),
            vec![],
        );
        let run = doc(
            "t",
            ids.iter().map(|id| (*id, vec![fail("a", 0.0)])).collect(),
            vec![],
        );
        let mut c = compare(&run, &base).unwrap();
        // z reaches its cap (5, in a family of three) without a decision:
        // its p is below the test level, not below the family's.
        c.apply_reasks(
            &record(
                &base,
                vec![
                    ("x", vec![false, false]),
                    ("y", vec![false, false]),
                    ("z", vec![false, true, true, true, false]),
                ],
            ),
            &base,
        );
        assert_eq!(exit_code(&c), ExitStatus::Proceed);
        let head = c.headline();
        assert!(!head.worse);
        assert_eq!((head.wobbled, head.undecided, head.unreasked), (2, 1, 0));
    }

    #[test]
    fn a_failure_whose_re_asks_ran_out_could_not_be_judged() {
        let (run, base) = fixture();
        let mut c = compare(&run, &base).unwrap();
        // y's re-asks stopped before the rule could decide it (its calls
        // failed): neither worse nor a wobble, so 2 — not a quiet 0.
        c.apply_reasks(
            &record(&base, vec![("x", vec![false, false]), ("y", vec![true])]),
            &base,
        );
        assert_eq!(exit_code(&c), ExitStatus::Unjudged);
        let head = c.headline();
        assert!(!head.worse);
        assert_eq!((head.wobbled, head.undecided, head.unreasked), (1, 0, 1));
        let y = c
            .deltas
            .iter()
            .find(|d| d.key.case_id.as_str() == "y")
            .unwrap();
        assert!(y.unreasked && y.unjudged_now(), "{y:?}");
    }

    #[test]
    fn the_attempts_of_one_head_share_the_declared_rate() {
        use crate::core::compare::reask::rerun_weight;
        let total: f64 = (1..=100_000).map(rerun_weight).sum();
        assert!(total <= 1.0 + 1e-12 && total > 0.9999, "{total}");
        assert_eq!(rerun_weight(1), 0.8);
        assert!((rerun_weight(2) - 0.1).abs() < 1e-15);
        // The same evidence that is worse at a first attempt is not at a
        // fifth, whose share of the rate is 1 %.
        let (run, base) = fixture();
        let decide_at = |attempt| {
            let mut c = compare(&run, &base).unwrap();
            let mut r = record(
                &base,
                vec![("x", vec![true, true, true]), ("y", vec![false, false])],
            );
            r.attempt = attempt;
            c.apply_reasks(&r, &base);
            c.reasked_as(PairVerdict::Worse).count()
        };
        assert_eq!(decide_at(1), 1);
        assert_eq!(decide_at(5), 0);
    }

    #[test]
    fn a_check_found_worse_stays_worse_on_a_rerun_whose_answer_passes() {
        use crate::core::compare::reask::RerunRecord;
        let (run, base) = fixture();
        // Attempt 1: x failed its re-asks (worse), y passed (noise).
        let first = record(
            &base,
            vec![("x", vec![true, true, true]), ("y", vec![false, false])],
        );
        let carried = RerunRecord::default().after(&first, &base);
        assert_eq!(carried.attempts, 1);
        let verdicts: Vec<(&str, &str)> = carried
            .decided
            .iter()
            .map(|c| (c.case_id.as_str(), c.verdict.as_str()))
            .collect();
        assert_eq!(verdicts, [("x", "worse"), ("y", "noise")]);
        // Attempt 2: both answers pass now; x is still worse, and y's
        // wobble is carried, not re-asked.
        let passing = doc(
            "t",
            vec![("x", vec![pass("a", 1.0)]), ("y", vec![pass("a", 1.0)])],
            vec![],
        );
        let mut c = compare(&passing, &base).unwrap();
        assert_eq!(exit_code(&c), ExitStatus::Proceed);
        let mut second = record(&base, vec![]);
        second.attempt = 2;
        second.carried = carried.decided.clone();
        c.apply_reasks(&second, &base);
        assert_eq!(exit_code(&c), ExitStatus::Worse);
        let worse: Vec<&str> = c
            .reasked_as(PairVerdict::Worse)
            .map(|d| d.key.case_id.as_str())
            .collect();
        assert_eq!(worse, ["x"]);
        // A rerun whose y fails again is not made worse by it.
        let mut c = compare(&run, &base).unwrap();
        c.apply_reasks(&second, &base);
        assert!(c
            .deltas
            .iter()
            .any(|d| d.key.case_id.as_str() == "y" && d.within_noise));
        assert_eq!(carried.decided_keys().len(), 2);
    }

    #[test]
    fn a_record_of_another_reference_changes_nothing() {
        let (run, base) = fixture();
        let mut c = compare(&run, &base).unwrap();
        let mut other = record(&base, vec![("x", vec![false]), ("y", vec![false])]);
        other.reference_created_at = "2020-01-01T00:00:00+00:00".into();
        c.apply_reasks(&other, &base);
        assert_eq!(exit_code(&c), ExitStatus::Worse);
        assert!(c.reasked.is_empty());
    }

    #[test]
    fn a_deterministic_reference_is_worse_after_two_failing_re_asks() {
        let base = doc("t", vec![("x", vec![pass("a", 1.0)])], vec![]);
        let run = doc("t", vec![("x", vec![fail("a", 0.0)])], vec![]);
        let mut c = compare(&run, &base).unwrap();
        c.apply_reasks(&record(&base, vec![("x", vec![true, true])]), &base);
        assert_eq!(exit_code(&c), ExitStatus::Worse);
        let mut c = compare(&run, &base).unwrap();
        c.apply_reasks(&record(&base, vec![("x", vec![true, false])]), &base);
        assert_eq!(exit_code(&c), ExitStatus::Proceed);
        assert_eq!(c.headline().undecided, 1);
    }

    #[test]
    fn a_re_ask_is_judged_by_the_rule_the_answer_was() {
        let key = PairKey {
            scope: Scope::Case,
            case_id: Name::unshared("x"),
            assertion_id: Name::unshared("a"),
            occurrence: 0,
        };
        let v =
            |value: Value| serde_json::from_value::<crate::core::verdict::Verdict>(value).unwrap();
        let before = v(pass("a", 1.0));
        assert_eq!(fails_again(&key, &before, &v(fail("a", 0.0))), Some(true));
        assert_eq!(fails_again(&key, &before, &v(pass("a", 1.0))), Some(false));
        assert_eq!(fails_again(&key, &before, &v(errored("a"))), None);
    }
}

#[test]
fn a_moved_judge_makes_its_checks_unable_to_gate_and_leaves_the_others_worse() {
    use crate::core::anchors::{Drift, JudgeReading, Regraded};
    // Case c: the judged check j regressed; case d: the plain check k did.
    let run = doc(
        "t",
        vec![("c", vec![fail("j", 0.1)]), ("d", vec![pass("k", 1.0)])],
        vec![],
    );
    let base = doc(
        "t",
        vec![("c", vec![pass("j", 0.9)]), ("d", vec![pass("k", 1.0)])],
        vec![],
    );
    let mut c = compare(&run, &base).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(exit_code(&c), ExitStatus::Worse);
    let lost = vec![
        Regraded {
            reference: true,
            now: false,
            label: None,
        };
        10
    ];
    c.judges = vec![JudgeReading {
        check: "j".into(),
        assertion_id: "j".into(),
        coordinate: "openai/m".into(),
        reference_coordinate: "openai/m".into(),
        drift: Drift::measure(&lost, Vec::new(), 0.05, None),
    }];
    // The judge moved: its regression is not counted, and nothing else is
    // worse: exit 2, never 1.
    let head = c.headline();
    assert!(!head.worse);
    assert_eq!(head.judges_moved, 1);
    assert_eq!(exit_code(&c), ExitStatus::Unjudged);
    // A plain check that regressed is still worse (1).
    let run = doc(
        "t",
        vec![("c", vec![fail("j", 0.1)]), ("d", vec![fail("k", 0.0)])],
        vec![],
    );
    let mut worse = compare(&run, &base).unwrap_or_else(|e| panic!("{e}"));
    worse.judges = c.judges.clone();
    assert_eq!(worse.gated_regressions(), 1);
    assert_eq!(exit_code(&worse), ExitStatus::Worse);
}
