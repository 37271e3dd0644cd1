//! What a shard's case must carry, checked against what the driver really
//! records for every kind of check (plain, judged, `repeated`, both),
//! sampled or not, answers recorded or not, with a failed call and a
//! failed judge; then each thing a shard could drop or add, named.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::carries_declared;
use crate::client::failure::Failure;
use crate::client::http::Response;
use crate::client::judge::JudgeAnswer;
use crate::core::checks::judged::JudgeRequest;
use crate::core::checks::{build, DeclaredCheck};
use crate::core::document::{CaseResult, RunDocument};
use crate::core::suite::{Case, Suite};
use crate::core::verdict::Status;
use crate::run::driver::{execute, Ask, Judge, RunContext};
use crate::run::progress::Display;
use crate::run::retry::RetryPolicy;

/// Answers `echo:<id>`; the case `failed` cannot be called.
struct Target;

impl Ask for Target {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        if case.id == "failed" {
            return Err(Failure::permanent("127.0.0.1:1 could not be called"));
        }
        Ok(Response {
            tokens: None,
            output: Value::String(format!("echo:{}", case.id)),
            input: "in".into(),
            cost_usd: Some(0.001),
            latency_ms: 1.0,
            config: None,
        })
    }

    fn target_config(&self) -> Map<String, Value> {
        Map::new()
    }
}

/// Scores 0.9; cannot be reached for the answer of case `unjudged`.
struct Judges;

impl Judge for Judges {
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, Failure> {
        if request.prompt.contains("echo:unjudged") {
            return Err(Failure::permanent("the judge could not be called"));
        }
        Ok(JudgeAnswer {
            model: None,
            tokens: None,
            text: r#"{"score": 0.9, "reason": "fine"}"#.into(),
            cost_usd: None,
            latency_ms: 1.0,
        })
    }

    fn judge_config(&self) -> Map<String, Value> {
        Map::new()
    }
}

fn check(token: &str, params: Value) -> DeclaredCheck {
    build(token, params.as_object().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

fn checks() -> Vec<DeclaredCheck> {
    let rubric = json!({"rubric": "r", "judge": "anthropic/m", "threshold": 0.5, "tolerance": 0});
    vec![
        check("contains", json!({"needle": "echo"})),
        check("llm_rubric", rubric.clone()),
        check(
            "repeated",
            json!({"name": "again", "inner": {"type": "contains", "needle": "echo"},
                   "samples": 3, "min_agreement": "2/3"}),
        ),
        check(
            "repeated",
            json!({"name": "judged again", "inner": {"type": "llm_rubric", "rubric": "r",
                   "judge": "anthropic/m", "threshold": 0.5, "tolerance": 0},
                   "samples": 2, "min_agreement": "1/2"}),
        ),
    ]
}

fn suite(samples: u32, record_responses: bool) -> Suite {
    let ids = ["answered", "failed", "unjudged", "suspended"];
    let mut suite = Suite {
        environment: "local".into(),
        samples,
        record_responses,
        ..Suite::for_tests(checks(), ids.map(str::to_string))
    };
    suite.cases[3].suspended = Some("moving".into());
    suite
}

fn run(suite: &Suite) -> RunDocument {
    let ctx = RunContext {
        created_at: "2026-01-01T00:00:00+00:00".into(),
        git_commit: None,
        digline_version: "0".into(),
        metadata: Map::new(),
        artifacts: Map::new(),
        concurrency: 2,
        retry: RetryPolicy {
            max_retries: 0,
            base: Duration::from_millis(1),
            cap: Duration::from_millis(2),
            ..RetryPolicy::default()
        },
        display: Display::Quiet,
        notices: crate::run::Notifier::silent(),
        seed: 1,
        quota: crate::run::quota::Quota::default(),
        retried: crate::run::retry::Retried::default(),
        cost: crate::run::CostControls::default(),
        anchors: crate::run::driver::AnchorPlan::default(),
    };
    execute(suite, &Target, &Judges, &ctx).unwrap()
}

/// The result of case `id` in `doc`.
fn result<'a>(doc: &'a RunDocument, id: &str) -> &'a CaseResult {
    doc.results.iter().find(|r| r.case_id == id).unwrap()
}

#[test]
fn what_a_run_records_is_carried_for_every_kind_of_check() {
    for samples in [1, 3] {
        for record in [false, true] {
            let s = suite(samples, record);
            let doc = run(&s);
            for (case, r) in s.cases.iter().zip(&doc.results) {
                assert_eq!(
                    carries_declared(&s, case, r),
                    Ok(()),
                    "samples {samples}, record_responses {record}: {r:?}"
                );
            }
            // What was covered: a failed call errors every check, a failed
            // judge its judged checks, and sampled verdicts carry scores.
            let failed = result(&doc, "failed");
            assert!(failed.verdicts.iter().all(|v| v.status == Status::Error));
            let unjudged = result(&doc, "unjudged");
            assert_eq!(unjudged.verdicts[0].status, Status::Pass);
            assert_eq!(unjudged.verdicts[1].status, Status::Error);
            assert_eq!(unjudged.verdicts[1].judged, Some(true));
            let answered = result(&doc, "answered");
            assert!(answered.verdicts.iter().all(|v| v.status == Status::Pass));
            assert_eq!(
                answered.verdicts[0].samples.is_some(),
                samples > 1,
                "{:?}",
                answered.verdicts[0]
            );
            assert!(answered.verdicts[2].samples.is_some());
            assert_eq!(answered.responses.is_some(), record);
        }
    }
}

/// The refusal of `doc`'s case `id` once `alter` changed it.
fn altered(s: &Suite, doc: &RunDocument, id: &str, alter: impl Fn(&mut CaseResult)) -> String {
    let mut r = result(doc, id).clone();
    alter(&mut r);
    let case = s.cases.iter().find(|c| c.id == id).unwrap();
    carries_declared(s, case, &r).unwrap_err()
}

#[test]
fn a_dropped_or_added_verdict_is_named_with_its_check_and_case() {
    let s = suite(1, false);
    let doc = run(&s);
    for (i, name) in ["contains", "llm_rubric", "again", "judged again"]
        .iter()
        .enumerate()
    {
        for id in ["answered", "failed", "unjudged"] {
            assert_eq!(
                altered(&s, &doc, id, |r| {
                    r.verdicts.remove(i);
                }),
                format!("lacks the verdict of check '{name}' on case '{id}'")
            );
        }
    }
    assert_eq!(
        altered(&s, &doc, "answered", |r| r.verdicts.clear()),
        "lacks the verdict of check 'contains' on case 'answered'"
    );
    assert_eq!(
        altered(&s, &doc, "answered", |r| r.verdicts.swap(1, 2)),
        "records the verdicts on case 'answered' out of the suite's order (check 'llm_rubric' is declared 2nd)"
    );
    assert_eq!(
        altered(&s, &doc, "answered", |r| {
            let again = r.verdicts[0].clone();
            r.verdicts.push(again);
        }),
        "records 5 verdicts on case 'answered', but the suite declares 4 checks"
    );
    assert_eq!(
        altered(&s, &doc, "answered", |r| r.verdicts[2].assertion =
            "x".into()),
        "records the verdict of check 'again' on case 'answered' under another name"
    );
    assert_eq!(
        altered(&s, &doc, "failed", |r| r.verdicts[1].threshold = 0.0.into()),
        "records the verdict of check 'llm_rubric' on case 'failed' with another threshold or tolerance than the suite declares"
    );
    assert_eq!(
        altered(&s, &doc, "answered", |r| r.verdicts[0].tolerance = 0.5.into()),
        "records the verdict of check 'contains' on case 'answered' with another threshold or tolerance than the suite declares"
    );
    let suspended = result(&doc, "answered").verdicts.clone();
    assert_eq!(
        altered(&s, &doc, "suspended", |r| r.verdicts = suspended.clone()),
        "records verdicts on case 'suspended', which the suite suspends"
    );
}

#[test]
fn a_judged_mark_follows_the_check_errored_or_not() {
    let s = suite(1, false);
    let doc = run(&s);
    for id in ["answered", "failed", "unjudged"] {
        for (i, name) in [(1, "llm_rubric"), (3, "judged again")] {
            assert_eq!(
                altered(&s, &doc, id, |r| r.verdicts[i].judged = None),
                format!("records the verdict of check '{name}' on case '{id}' as not judged, but the check is judged")
            );
        }
        assert_eq!(
            altered(&s, &doc, id, |r| r.verdicts[2].judged = Some(true)),
            format!("records the verdict of check 'again' on case '{id}' as judged, but the check is not judged")
        );
        assert_eq!(
            altered(&s, &doc, id, |r| r.verdicts[0].judged = Some(false)),
            format!("records the verdict of check 'contains' on case '{id}' with `judged: false`, which no run records")
        );
    }
}

#[test]
fn a_sampled_verdict_carries_its_scores_and_no_other_does() {
    // Sampled by the suite: every check; by `repeated`: its own.
    for (samples, plain, sampled, n) in
        [(1, "contains", "again", 3), (3, "contains", "contains", 3)]
    {
        let s = suite(samples, false);
        let doc = run(&s);
        let at = |name: &str| s.checks.iter().position(|c| c.name == name).unwrap();
        let lacks = format!(
            "lacks the sampled scores of check '{sampled}' on case 'answered' (a sampled verdict carries 1 to {n} of them, with their lowest and highest)"
        );
        assert_eq!(
            altered(&s, &doc, "answered", |r| r.verdicts[at(sampled)].samples =
                None),
            lacks
        );
        assert_eq!(
            altered(&s, &doc, "answered", |r| r.verdicts[at(sampled)]
                .sample_max = None),
            lacks
        );
        assert_eq!(
            altered(&s, &doc, "answered", |r| {
                r.verdicts[at(sampled)].samples = Some(vec![1.0; n as usize + 1]);
            }),
            lacks
        );
        assert_eq!(
            altered(&s, &doc, "failed", |r| r.verdicts[at(sampled)].samples = Some(vec![1.0])),
            format!("records sampled scores for check '{sampled}' on case 'failed', which an errored verdict never carries")
        );
        if samples == 1 {
            assert_eq!(
                altered(&s, &doc, "answered", |r| r.verdicts[at(plain)].sample_min = Some(1.0)),
                format!("records sampled scores for check '{plain}' on case 'answered', which is not sampled")
            );
        }
    }
}

#[test]
fn recorded_answers_are_carried_by_every_answered_case() {
    let s = suite(3, true);
    let doc = run(&s);
    assert_eq!(
        altered(&s, &doc, "answered", |r| r.responses = None),
        "lacks the answers to case 'answered', whose checks were graded (the suite records answers)"
    );
    // A failed judge still graded the rest: its answers were recorded.
    assert_eq!(
        altered(&s, &doc, "unjudged", |r| r.responses = None),
        "lacks the answers to case 'unjudged', whose checks were graded (the suite records answers)"
    );
    assert_eq!(
        altered(&s, &doc, "answered", |r| {
            r.responses.as_mut().unwrap().pop();
        }),
        "records 2 answers to case 'answered', but the suite asks each case 3 times"
    );
    assert_eq!(
        altered(&s, &doc, "suspended", |r| r.responses = Some(Vec::new())),
        "records answers to case 'suspended', which the suite suspends"
    );
    let unrecorded = suite(3, false);
    let doc = run(&unrecorded);
    assert_eq!(
        altered(&unrecorded, &doc, "answered", |r| r.responses =
            Some(Vec::new())),
        "records answers to case 'answered', but the suite does not record answers"
    );
}
