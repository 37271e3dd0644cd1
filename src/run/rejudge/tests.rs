//! Re-judge tests: a run made by the driver from a fixed target, replayed
//! under changed suites, and every refusal.

use super::*;
use crate::core::checks::build;
use crate::run::driver::{execute, NoJudges};
use crate::run::{Display, RetryPolicy};
use serde_json::json;

/// Answers `text` to every case, every time.
struct Fixed(&'static str);

impl Ask for Fixed {
    fn ask(&self, _case: &Case) -> Result<Response, Failure> {
        Ok(Response {
            tokens: None,
            output: Value::String(self.0.to_string()),
            input: "{\"q\": 1}".to_string(),
            cost_usd: Some(0.001),
            latency_ms: 7.0,
            config: None,
        })
    }

    fn target_config(&self) -> Map<String, Value> {
        json!({"values": {"model": "m"}})
            .as_object()
            .cloned()
            .unwrap_or_default()
    }
}

fn suite(cases: &[&str], maximum: u64) -> Suite {
    let check = |kind: &str, params: Value| {
        build(kind, params.as_object().unwrap_or(&Map::new())).unwrap_or_else(|e| panic!("{e}"))
    };
    let checks = vec![
        check("contains", json!({"needle": "yes"})),
        check("length", json!({"maximum": maximum})),
    ];
    Suite {
        record_responses: true,
        ..Suite::for_tests(checks, cases.iter().map(|id| (*id).to_string()))
    }
}

fn context(created_at: &str) -> RunContext {
    RunContext {
        created_at: created_at.into(),
        git_commit: None,
        digline_version: "0".into(),
        metadata: Map::new(),
        artifacts: json!({"p.txt": {"sha": "x", "text": "now"}})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        concurrency: 4,
        retry: RetryPolicy::default(),
        display: Display::Quiet,
        notices: crate::run::Notifier::silent(),
        seed: 1,
        quota: crate::run::quota::Quota::default(),
        retried: crate::run::retry::Retried::default(),
        cost: crate::run::CostControls::default(),
        anchors: crate::run::driver::AnchorPlan::default(),
    }
}

fn source(suite: &Suite) -> RunDocument {
    let mut ctx = context("2026-01-01T00:00:00+00:00");
    ctx.artifacts = json!({"p.txt": {"sha": "y", "text": "then"}})
        .as_object()
        .cloned()
        .unwrap_or_default();
    execute(suite, &Fixed("yes, twelve chars"), &NoJudges, &ctx).unwrap_or_else(|e| panic!("{e}"))
}

fn refusal(result: Result<RunDocument, RejudgeError>) -> String {
    match result {
        Err(RejudgeError::Refused(text)) => text,
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn new_rules_grade_the_recorded_answers() {
    let before = suite(&["a", "b"], 10);
    let run = source(&before);
    assert_eq!(run.results[0].verdicts[1].status, Status::Fail);
    let after = suite(&["b", "a"], 40);
    let doc = rejudge(
        &after,
        &run,
        "K",
        &MaskedRecord::default(),
        &NoJudges,
        &context("2026-02-01T00:00:00+00:00"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc.rejudged_from.as_deref(), Some("K"));
    assert_eq!(doc.config_hash, after.config_hash());
    assert_ne!(doc.config_hash, run.config_hash);
    let ids: Vec<&str> = doc.results.iter().map(|r| r.case_id.as_str()).collect();
    assert_eq!(ids, ["b", "a"], "the current case order");
    for result in &doc.results {
        assert_eq!(result.verdicts[1].status, Status::Pass);
        assert_eq!(result.responses, run.results[0].responses);
    }
    assert_eq!(doc.target_config, run.target_config, "carried");
    assert_eq!(doc.artifacts, run.artifacts, "carried, not today's");
    assert_eq!(doc.created_at, "2026-02-01T00:00:00+00:00");
}

#[test]
fn dropped_and_newly_suspended_cases_are_left_out() {
    let run = source(&suite(&["a", "b", "c"], 40));
    let mut after = suite(&["a", "b"], 40);
    after.cases[1].suspended = Some("paused".into());
    let doc = rejudge(
        &after,
        &run,
        "K",
        &MaskedRecord::default(),
        &NoJudges,
        &context("2026-02-01T00:00:00+00:00"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc.results.len(), 2);
    assert!(doc.results[1].suspended && doc.results[1].verdicts.is_empty());
    assert_eq!(doc.results[1].responses, None);
}

#[test]
fn responses_are_kept_only_when_the_suite_still_records_them() {
    let run = source(&suite(&["a"], 40));
    let mut after = suite(&["a"], 40);
    after.record_responses = false;
    let doc = rejudge(
        &after,
        &run,
        "K",
        &MaskedRecord::default(),
        &NoJudges,
        &context("2026-02-01T00:00:00+00:00"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc.results[0].responses, None);
}

#[test]
fn refusals_name_the_fix() {
    let s = suite(&["a", "b"], 40);
    let run = source(&s);
    let ctx = context("2026-02-01T00:00:00+00:00");
    let go = |suite: &Suite, run: &RunDocument| {
        refusal(rejudge(
            suite,
            run,
            "K",
            &MaskedRecord::default(),
            &NoJudges,
            &ctx,
        ))
    };

    let mut bare = run.clone();
    for r in &mut bare.results {
        r.responses = None;
    }
    assert!(go(&s, &bare).contains("set record_responses = true in [suite] and run again"));

    let mut other = s.clone();
    other.tenant = "u".into();
    assert!(go(&other, &run).contains("never crosses a tenant or a suite"));
    let mut other = s.clone();
    other.name = "z".into();
    assert!(go(&other, &run).contains("suite 'z'"));

    let grown = suite(&["a", "b", "new"], 40);
    assert!(go(&grown, &run).starts_with("case 'new' is not in run K (the suite gained it since)"));

    let mut sampled = s.clone();
    sampled.samples = 3;
    sampled.min_agreement = Some(2.0 / 3.0);
    assert!(go(&sampled, &run).contains(
        "recorded 1 answer(s) in run K and this suite samples 3 time(s): set samples back to 1"
    ));

    let mut paused = run.clone();
    paused.results[1].suspended = true;
    paused.results[1].responses = None;
    paused.results[1].verdicts.clear();
    assert!(go(&s, &paused).starts_with("case 'b' was suspended in run K"));

    let mut failed = run.clone();
    failed.results[1].responses = None;
    failed.results[1].verdicts = s.checks.iter().map(|c| c.errored("boom".into())).collect();
    assert!(go(&s, &failed).contains("because its call failed"));

    let mut withheld = run.clone();
    withheld.results[0].responses = Some(vec![json!({"withheld": true})]);
    assert!(go(&s, &withheld).contains("that was withheld, so it cannot be judged again"));
}

#[test]
fn recorded_answers_read_back() {
    let text =
        json!({"kind": "text", "output": "hi", "input": "q", "latency_ms": 3.0, "cost_usd": 0.5});
    let r = restore(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (r.output, r.input, r.cost_usd, r.latency_ms),
        (json!("hi"), "q".to_string(), Some(0.5), 3.0)
    );
    let structured =
        json!({"kind": "structured", "output": "{\"a\":1}", "input": "q", "latency_ms": 1});
    assert_eq!(restore(&structured).map(|r| r.output), Ok(json!({"a": 1})));
    let conversation = json!({"kind": "conversation", "output": "[{\"role\":\"user\",\"content\":\"x\"}]", "latency_ms": 1});
    assert_eq!(
        restore(&conversation).map(|r| r.output),
        Ok(json!([{"role": "user", "content": "x"}]))
    );
    for (bad, why) in [
        (json!("text"), "is not an object"),
        (json!({"oversize": true}), "was over the size ceiling"),
        (json!({"output": "x", "latency_ms": 1}), "has no kind"),
        (json!({"kind": "text", "latency_ms": 1}), "has no output"),
        (
            json!({"kind": "text", "output": 1, "latency_ms": 1}),
            "is not text",
        ),
        (
            json!({"kind": "structured", "output": "[1]", "latency_ms": 1}),
            "is not the JSON its kind says",
        ),
        (json!({"kind": "text", "output": "x"}), "has no latency_ms"),
        (
            json!({"kind": "text", "output": "x", "latency_ms": "1"}),
            "has a number that is not one",
        ),
    ] {
        assert_eq!(restore(&bad).map(|_| ()), Err(why), "{bad}");
    }
}

/// A case its run kept with a secret masked is never graded from the
/// recording: a check whose declaration and case did not move keeps the
/// run's verdict; a changed check, or a changed `expected`, is an error.
#[test]
fn a_masked_case_keeps_the_runs_verdicts_while_nothing_moved() {
    let before = suite(&["a", "b"], 10);
    let run = source(&before);
    let masked = |suite: &Suite| MaskedRecord {
        cases: vec![MaskedCase {
            case_id: "a".into(),
            graded_against: graded_against(&suite.cases[0], before.required_agreement()),
        }],
    };
    let ctx = context("2026-02-01T00:00:00+00:00");
    let statuses = |doc: &RunDocument, i: usize| -> Vec<(Status, String)> {
        doc.results[i]
            .verdicts
            .iter()
            .map(|v| (v.status, v.reason.clone()))
            .collect()
    };
    let again = rejudge(&before, &run, "K", &masked(&before), &NoJudges, &ctx).unwrap();
    assert_eq!(again.results[0].verdicts, run.results[0].verdicts);

    // `maximum` 40 would pass the recording; the check changed, so: error.
    let after = suite(&["a", "b"], 40);
    let doc = rejudge(&after, &run, "K", &masked(&before), &NoJudges, &ctx).unwrap();
    let a = statuses(&doc, 0);
    assert_eq!(a[0].0, Status::Pass);
    assert_eq!(
        (a[1].0, a[1].1.as_str()),
        (Status::Error, not_regraded("K").as_str())
    );
    assert_eq!(statuses(&doc, 1)[1].0, Status::Pass, "b is graded");

    // The case's expected moved: nothing of the run's holds.
    let mut moved = before.clone();
    moved.cases[0].expected = Some(json!("other"));
    let doc = rejudge(&moved, &run, "K", &masked(&before), &NoJudges, &ctx).unwrap();
    assert!(statuses(&doc, 0)
        .iter()
        .all(|(s, r)| *s == Status::Error && *r == not_regraded("K")));
}
