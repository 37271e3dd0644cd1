//! Driver tests of the judge memo and the spending cap, with a fake target
//! and a judge whose every reply differs (so a reused reply shows).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::*;
use crate::core::checks::build;
use crate::core::verdict::Status;
use crate::run::budget::Budget;
use crate::run::memo::{MemoMode, REPLAY_MISS};
use crate::store::memo::MemoReader;
use crate::store::Store;

/// Answers `echo:<id>` (or a fixed text), costing 0.001, worst case 0.002.
struct Target(Option<&'static str>);

impl Ask for Target {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        Ok(Response {
            tokens: None,
            output: Value::String(
                self.0
                    .map_or_else(|| format!("echo:{}", case.id), str::to_string),
            ),
            input: "in".into(),
            cost_usd: Some(0.001),
            latency_ms: 1.0,
            config: None,
        })
    }

    fn target_config(&self) -> Map<String, Value> {
        Map::new()
    }

    fn worst_case_usd(&self, _case: &Case) -> Option<f64> {
        Some(0.002)
    }
}

/// Scores 0.1, 0.2, … 0.9, 0.1, …: a judge that never says the same twice
/// in a row, counting its calls.
#[derive(Default)]
struct Wobbly {
    calls: AtomicUsize,
}

impl Judge for Wobbly {
    fn judge(&self, _request: &JudgeRequest) -> Result<JudgeAnswer, Failure> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let score = (n % 9 + 1) as f64 / 10.0;
        Ok(JudgeAnswer {
            model: None,
            tokens: Some((100, 10)),
            text: format!("{{\"score\": {score}, \"reason\": \"call {n}\"}}"),
            cost_usd: Some(0.0005),
            latency_ms: 1.0,
        })
    }

    fn judge_config(&self) -> Map<String, Value> {
        Map::new()
    }

    fn worst_case_usd(&self, _request: &JudgeRequest) -> Option<f64> {
        Some(0.001)
    }
}

fn rubric(text: &str) -> DeclaredCheck {
    build(
        "llm_rubric",
        json!({"rubric": text, "judge": "openai/m", "threshold": 0.5, "tolerance": 0})
            .as_object()
            .unwrap(),
    )
    .unwrap()
}

use super::pool_tests::suite;

fn ctx(cost: CostControls) -> RunContext {
    RunContext {
        cost,
        ..super::pool_tests::ctx(4, 4)
    }
}

fn memo(dir: &std::path::Path, mode: MemoMode) -> CostControls {
    CostControls {
        memo: Some(Arc::new(JudgeMemo::new(
            mode,
            MemoReader::new(Store::new(dir), "t"),
        ))),
        budget: None,
        shared_quota: None,
    }
}

fn run(s: &Suite, target: &Target, judge: &Wobbly, cost: CostControls) -> (RunDocument, Spend) {
    let (doc, spend, ..) = execute_spent(
        s,
        target,
        judge,
        &ctx(cost),
        &Prior::none(),
        &Recorder::new(None, None),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (doc, spend)
}

fn scores(doc: &RunDocument) -> Vec<(String, Status, Option<f64>)> {
    doc.results
        .iter()
        .flat_map(|r| {
            r.verdicts
                .iter()
                .map(|v| (r.case_id.clone(), v.status, v.score))
        })
        .collect()
}

#[test]
fn an_unchanged_rerun_asks_no_judge_and_keeps_every_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let s = suite(5, vec![rubric("is it polite?")]);
    let judge = Wobbly::default();
    let (first, spent) = run(&s, &Target(None), &judge, memo(dir.path(), MemoMode::On));
    assert_eq!(judge.calls.load(Ordering::SeqCst), 5);
    assert_eq!((spent.memo.hits, spent.memo.misses), (0, 5));
    for _ in 0..20 {
        let (again, spent) = run(&s, &Target(None), &judge, memo(dir.path(), MemoMode::On));
        assert_eq!(
            scores(&again),
            scores(&first),
            "identical answers, identical verdicts"
        );
        assert_eq!((spent.memo.hits, spent.memo.misses), (5, 0));
        assert!((spent.memo.saved_usd - 0.0025).abs() < 1e-12);
        assert_eq!(spent.judges.calls, 0);
        assert_eq!(spent.judges.usd, None, "no judge was paid");
    }
    assert_eq!(
        judge.calls.load(Ordering::SeqCst),
        5,
        "no judge asked again"
    );
    // Off: every judge asked again (and its wobble shows).
    let (_, spent) = run(&s, &Target(None), &judge, CostControls::default());
    assert_eq!(spent.judges.calls, 5);
    assert!(spent.memo.is_empty());
}

#[test]
fn a_rubric_edit_or_a_moved_answer_re_asks_exactly_what_it_touches() {
    let dir = tempfile::tempdir().unwrap();
    let judge = Wobbly::default();
    let before = suite(3, vec![rubric("polite?"), rubric("short?")]);
    run(
        &before,
        &Target(None),
        &judge,
        memo(dir.path(), MemoMode::On),
    );
    assert_eq!(judge.calls.load(Ordering::SeqCst), 6);
    let after = suite(3, vec![rubric("polite?"), rubric("short and kind?")]);
    let (_, spent) = run(
        &after,
        &Target(None),
        &judge,
        memo(dir.path(), MemoMode::On),
    );
    assert_eq!((spent.memo.hits, spent.memo.misses), (3, 3));
    assert_eq!(
        judge.calls.load(Ordering::SeqCst),
        9,
        "only the edited check"
    );
    // One answer that moved re-asks that case's checks only.
    let (_, spent) = run(
        &after,
        &Target(Some("same for all")),
        &judge,
        memo(dir.path(), MemoMode::On),
    );
    assert_eq!(
        spent.memo.misses, 2,
        "three cases now answer the same bytes: one key per check"
    );
    assert_eq!(spent.memo.hits, 4);
}

#[test]
fn replay_never_asks_and_a_miss_is_not_judged_naming_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let judge = Wobbly::default();
    run(
        &suite(2, vec![rubric("polite?")]),
        &Target(None),
        &judge,
        memo(dir.path(), MemoMode::On),
    );
    let calls = judge.calls.load(Ordering::SeqCst);
    let edited = suite(2, vec![rubric("polite and short?")]);
    let (doc, spent) = run(
        &edited,
        &Target(None),
        &judge,
        memo(dir.path(), MemoMode::Replay),
    );
    assert_eq!(
        judge.calls.load(Ordering::SeqCst),
        calls,
        "replay never calls a judge"
    );
    assert_eq!(spent.judges.calls, 0);
    for result in &doc.results {
        let verdict = &result.verdicts[0];
        assert_eq!(verdict.status, Status::Error);
        assert_eq!(
            verdict.reason,
            format!("{REPLAY_MISS}; the nearest entry for this case and check differs in: rubric or prompt, check declaration")
        );
    }
    assert_eq!(doc.unjudged_cases(), 2);
    // Replay of an unchanged suite judges every case from the memo.
    let (doc, _) = run(
        &suite(2, vec![rubric("polite?")]),
        &Target(None),
        &judge,
        memo(dir.path(), MemoMode::Replay),
    );
    assert_eq!(doc.unjudged_cases(), 0);
    assert_eq!(judge.calls.load(Ordering::SeqCst), calls);
}

#[test]
fn repeated_draws_are_kept_apart() {
    let dir = tempfile::tempdir().unwrap();
    let judge = Wobbly::default();
    let repeated = build(
        "repeated",
        json!({"samples": 3, "min_agreement": "2/3", "inner": {"type": "llm_rubric", "rubric": "r", "judge": "openai/m", "threshold": 0.5, "tolerance": 0}})
            .as_object()
            .unwrap(),
    )
    .unwrap();
    let s = suite(1, vec![repeated]);
    let (first, _) = run(&s, &Target(None), &judge, memo(dir.path(), MemoMode::On));
    assert_eq!(
        judge.calls.load(Ordering::SeqCst),
        3,
        "three draws, three calls"
    );
    let (again, spent) = run(&s, &Target(None), &judge, memo(dir.path(), MemoMode::On));
    assert_eq!((spent.memo.hits, spent.memo.misses), (3, 0));
    assert_eq!(scores(&again), scores(&first));
}

#[test]
fn the_cap_stops_dispatch_spend_stays_under_it_and_the_rest_is_not_judged() {
    let s = suite(40, vec![rubric("polite?")]);
    let judge = Wobbly::default();
    let cap = 0.02;
    let cost = CostControls {
        memo: None,
        budget: Some(Arc::new(Budget::new(cap))),
        shared_quota: None,
    };
    let (doc, spent) = run(&s, &Target(None), &judge, cost);
    let total = spent.target.usd.unwrap_or(0.0) + spent.judges.usd.unwrap_or(0.0);
    assert!(total <= cap + 1e-12, "{total} > {cap}");
    assert!(total > 0.0);
    assert!(spent.budget_exhausted);
    assert_eq!(spent.max_usd, Some(cap));
    let unjudged = doc.unjudged_cases();
    assert!(unjudged > 20 && unjudged < 40, "{unjudged}");
    let budget_reasons = doc
        .results
        .iter()
        .flat_map(|r| &r.verdicts)
        .filter(|v| v.status == Status::Error)
        .filter(|v| {
            v.reason.starts_with(crate::run::budget::BUDGET_REASON)
                || v.reason
                    .starts_with("the judge could not be called: the spending cap was reached")
        })
        .count();
    assert_eq!(
        budget_reasons, unjudged,
        "every case not judged names the budget"
    );
    for v in doc
        .results
        .iter()
        .flat_map(|r| &r.verdicts)
        .filter(|v| v.status == Status::Error)
    {
        let cause = crate::report::cause::classify(&v.reason);
        assert_eq!(
            cause.category,
            crate::report::cause::Category::Budget,
            "{}",
            v.reason
        );
    }
}

#[test]
fn a_re_ask_is_a_fresh_judging_never_the_memos_reply() {
    let dir = tempfile::tempdir().unwrap();
    let s = suite(3, vec![rubric("is it polite?")]);
    let judge = Wobbly::default();
    let (first, _) = run(&s, &Target(None), &judge, memo(dir.path(), MemoMode::On));
    assert_eq!(judge.calls.load(Ordering::SeqCst), 3);
    let ids: std::collections::BTreeSet<String> = s.cases.iter().map(|c| c.id.clone()).collect();
    // The same deterministic answers, asked again as re-asks with the memo
    // on: every one is judged live (the judge is called, its wobble
    // shows), and nothing the re-asks got is kept.
    for round in 1..=4 {
        let (again, spent) = crate::run::reask::ask_again(
            &s,
            &ids,
            &Target(None),
            &judge,
            &ctx(memo(dir.path(), MemoMode::On)),
        )
        .unwrap();
        assert_eq!(judge.calls.load(Ordering::SeqCst), 3 + 3 * round);
        assert_eq!(spent.judges.calls, 3);
        assert!(spent.memo.is_empty(), "the memo was not asked");
        assert!(again.values().flatten().all(|v| v.status != Status::Error));
    }
    // The run's own entries are untouched: an unchanged rerun still costs
    // no judge call and keeps every verdict.
    let (rerun, spent) = run(&s, &Target(None), &judge, memo(dir.path(), MemoMode::On));
    assert_eq!(scores(&rerun), scores(&first));
    assert_eq!((spent.memo.hits, spent.judges.calls), (3, 0));
    // Replay calls no judge: a re-ask under it is not judged, and says why.
    let before = judge.calls.load(Ordering::SeqCst);
    let (again, _) = crate::run::reask::ask_again(
        &s,
        &ids,
        &Target(None),
        &judge,
        &ctx(memo(dir.path(), MemoMode::Replay)),
    )
    .unwrap();
    assert_eq!(judge.calls.load(Ordering::SeqCst), before);
    let reasons: Vec<&str> = again
        .values()
        .flatten()
        .map(|v| v.reason.as_str())
        .collect();
    assert_eq!(reasons, vec![crate::run::memo::REPLAY_REASK; 3]);
}
