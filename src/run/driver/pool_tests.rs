//! Driver tests with fake targets and judges: case order under
//! concurrency, retries, exhausted retries, judged checks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::*;
use crate::core::checks::build;
use crate::core::verdict::Status;

/// Answers `echo:<id>` after a delay that shrinks with the case index, so
/// later cases finish first; fails the first `fail_first` attempts of each
/// case with the given failure.
struct Fake {
    delay_ms: u64,
    fail_first: usize,
    failure: Failure,
    attempts: Mutex<HashMap<String, usize>>,
    total: AtomicUsize,
}

impl Fake {
    fn new(delay_ms: u64, fail_first: usize, failure: Failure) -> Fake {
        Fake {
            delay_ms,
            fail_first,
            failure,
            attempts: Mutex::new(HashMap::new()),
            total: AtomicUsize::new(0),
        }
    }
}

impl Ask for Fake {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        self.total.fetch_add(1, Ordering::SeqCst);
        let n = {
            let mut a = self.attempts.lock().unwrap();
            let n = a.entry(case.id.clone()).or_insert(0);
            *n += 1;
            *n
        };
        let index: u64 = case.id.trim_start_matches('c').parse().unwrap_or(0);
        std::thread::sleep(Duration::from_millis(self.delay_ms.saturating_sub(index)));
        if n <= self.fail_first {
            return Err(self.failure.clone());
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

struct FakeJudge(&'static str);

impl Judge for FakeJudge {
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, Failure> {
        assert!(request.prompt.contains("Output to judge:\necho:"));
        Ok(JudgeAnswer {
            model: None,
            tokens: None,
            text: self.0.to_string(),
            cost_usd: Some(0.0001),
            latency_ms: 1.0,
        })
    }

    fn judge_config(&self) -> Map<String, Value> {
        json!({"identities": ["anthropic/m"]})
            .as_object()
            .cloned()
            .unwrap_or_default()
    }
}

pub(super) fn suite(n: usize, checks: Vec<DeclaredCheck>) -> Suite {
    Suite {
        environment: "local".into(),
        ..Suite::for_tests(checks, (0..n).map(|i| format!("c{i}")))
    }
}

fn contains(needle: &str) -> DeclaredCheck {
    build("contains", json!({"needle": needle}).as_object().unwrap()).unwrap()
}

fn rubric() -> DeclaredCheck {
    build(
        "llm_rubric",
        json!({"rubric": "r", "judge": "anthropic/m", "threshold": 0.5, "tolerance": 0})
            .as_object()
            .unwrap(),
    )
    .unwrap()
}

pub(super) fn ctx(concurrency: usize, max_retries: u32) -> RunContext {
    RunContext {
        retry: RetryPolicy {
            max_retries,
            base: Duration::from_millis(1),
            cap: Duration::from_millis(2),
            ..RetryPolicy::default()
        },
        ..RunContext::for_tests("2026-01-01T00:00:00+00:00", concurrency)
    }
}

#[test]
fn results_land_in_case_order_under_concurrency() {
    let s = suite(40, vec![contains("echo")]);
    let fake = Fake::new(30, 0, Failure::permanent("x"));
    let started = std::time::Instant::now();
    let doc = execute(&s, &fake, &NoJudges, &ctx(16, 0)).unwrap();
    let ids: Vec<&str> = doc.results.iter().map(|r| r.case_id.as_str()).collect();
    let want: Vec<String> = (0..40).map(|i| format!("c{i}")).collect();
    assert_eq!(ids, want);
    assert!(doc
        .results
        .iter()
        .all(|r| r.verdicts[0].status == Status::Pass));
    // 1 alone + 39 over 16 workers ≈ 4 rounds of ≤ 30 ms, far from 40 × 30 ms
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn transient_failures_are_retried_and_exhausted_ones_error() {
    type Row = (usize, u32, Failure, Option<&'static str>, usize);
    let rows: Vec<Row> = vec![
        (
            2,
            4,
            Failure::transient(
                "h:1 could not be called: HTTP Error 503: Service Unavailable",
                None,
                false,
            ),
            None,
            3,
        ),
        (
            3,
            4,
            Failure::transient("429", Some(Duration::from_millis(5)), true),
            None,
            4,
        ),
        (
            9,
            2,
            Failure::transient("h:1 could not be called: timed out", None, false),
            Some("target raised ValueError: h:1 could not be called: timed out"),
            3,
        ),
        (
            9,
            0,
            Failure::transient("h:1 could not be called: reset", None, false),
            Some("target raised ValueError: h:1 could not be called: reset"),
            1,
        ),
        (
            9,
            4,
            Failure::permanent("h:1 could not be called: HTTP Error 400: Bad Request"),
            Some("HTTP Error 400: Bad Request"),
            1,
        ),
    ];
    for (fail_first, max_retries, failure, want, calls_per_case) in rows {
        let s = suite(3, vec![contains("echo"), rubric()]);
        let fake = Fake::new(0, fail_first, failure.clone());
        let doc = execute(
            &s,
            &fake,
            &FakeJudge(r#"{"score": 0.9, "reason": "fine"}"#),
            &ctx(2, max_retries),
        )
        .unwrap();
        assert_eq!(
            fake.total.load(Ordering::SeqCst),
            3 * calls_per_case,
            "{failure:?}"
        );
        for r in &doc.results {
            for v in &r.verdicts {
                match want {
                    None => assert_eq!(v.status, Status::Pass, "{failure:?}: {}", v.reason),
                    Some(reason) => {
                        assert_eq!(v.status, Status::Error);
                        assert!(v.reason.contains(reason), "{}", v.reason);
                    }
                }
            }
            assert_eq!(r.verdicts[1].judged, Some(true));
        }
    }
}

#[test]
fn judge_replies_become_verdicts() {
    let rows: &[(&str, Status)] = &[
        (r#"{"score": 0.9, "reason": "fine"}"#, Status::Pass),
        (r#"Here: {"score": "0.2", "reason": "weak"}"#, Status::Fail),
        ("I cannot grade this", Status::Error),
        (r#"{"score": 3, "reason": "x"}"#, Status::Error),
        (r#"{"abstain": true, "reason": "empty"}"#, Status::Error),
    ];
    for (reply, status) in rows {
        let s = suite(2, vec![rubric()]);
        let fake = Fake::new(0, 0, Failure::permanent("x"));
        let doc = execute(&s, &fake, &FakeJudge(reply), &ctx(2, 0)).unwrap();
        assert_eq!(
            doc.judge_config,
            json!({"identities": ["anthropic/m"]})
                .as_object()
                .cloned()
                .unwrap()
        );
        for r in &doc.results {
            assert_eq!(r.verdicts[0].status, *status, "{reply}");
        }
    }
    // no judge set up: an error, never a verdict
    let s = suite(1, vec![rubric()]);
    let doc = execute(
        &s,
        &Fake::new(0, 0, Failure::permanent("x")),
        &NoJudges,
        &ctx(1, 3),
    )
    .unwrap();
    assert_eq!(doc.results[0].verdicts[0].status, Status::Error);
    assert!(doc.results[0].verdicts[0]
        .reason
        .contains("no judge anthropic/m"));
}

/// Counts its calls; answers a fixed reply.
struct CountingJudge(AtomicUsize);

impl Judge for CountingJudge {
    fn judge(&self, _: &JudgeRequest) -> Result<JudgeAnswer, Failure> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(JudgeAnswer {
            model: None,
            tokens: None,
            text: r#"{"score": 0.8, "reason": "ok"}"#.into(),
            cost_usd: None,
            latency_ms: 1.0,
        })
    }

    fn judge_config(&self) -> Map<String, Value> {
        Map::new()
    }
}

#[test]
fn a_repeated_judged_check_asks_its_judge_each_time() {
    let repeated = build(
        "repeated",
        json!({"inner": {"type": "llm_rubric", "rubric": "r", "judge": "openai/gpt-4o-mini",
                         "threshold": 0.5, "tolerance": 0},
               "samples": 3, "min_agreement": "2/3"})
        .as_object()
        .unwrap(),
    )
    .unwrap();
    assert_eq!(repeated.judge_coordinate(), Some("openai/gpt-4o-mini"));
    assert_eq!(repeated.gradings(), 3);
    let s = suite(2, vec![repeated]);
    let judge = CountingJudge(AtomicUsize::new(0));
    let doc = execute(
        &s,
        &Fake::new(0, 0, Failure::permanent("x")),
        &judge,
        &ctx(2, 0),
    )
    .unwrap();
    assert_eq!(judge.0.load(Ordering::SeqCst), 6);
    for r in &doc.results {
        let v = &r.verdicts[0];
        assert_eq!(
            (v.status, v.score),
            (Status::Pass, Some(0.8)),
            "{}",
            v.reason
        );
        assert_eq!(v.judged, Some(true));
    }
}
