//! Driver tests with a scripted target: samples asked in order per case and folded.

use super::*;
use crate::core::checks::build;
use std::collections::HashMap;

/// Answers per case id from a list, in call order; `None` entries fail.
struct Scripted {
    answers: HashMap<String, Vec<Option<&'static str>>>,
    calls: Mutex<HashMap<String, usize>>,
}

impl Ask for Scripted {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        let n = {
            let mut calls = self
                .calls
                .lock()
                .map_err(|e| Failure::permanent(e.to_string()))?;
            let n = calls.entry(case.id.clone()).or_insert(0);
            *n += 1;
            *n - 1
        };
        // Let other workers interleave between a case's samples.
        std::thread::sleep(std::time::Duration::from_millis(1));
        match self
            .answers
            .get(&case.id)
            .and_then(|a| a.get(n))
            .copied()
            .flatten()
        {
            Some(text) => Ok(Response {
                tokens: None,
                output: Value::String(text.to_string()),
                input: "{}".to_string(),
                cost_usd: Some(0.001),
                latency_ms: 5.0,
                config: None,
            }),
            None => Err(Failure::permanent("127.0.0.1:1 could not be called: boom")),
        }
    }

    fn target_config(&self) -> Map<String, Value> {
        Map::new()
    }
}

fn suite(cases: &[&str], samples: u32) -> Suite {
    let params = serde_json::json!({"needle": "yes"});
    let check = build("contains", params.as_object().unwrap_or(&Map::new()))
        .unwrap_or_else(|e| panic!("{e}"));
    Suite {
        tenant: "t".into(),
        environment: "e".into(),
        name: "s".into(),
        samples,
        min_agreement: Some(1.0 / 3.0),
        checks: vec![check],
        cases: cases
            .iter()
            .map(|id| Case {
                id: (*id).to_string(),
                ..Case::default()
            })
            .collect(),
        record_responses: true,
        artifacts: Vec::new(),
        rules: Vec::new(),
        aggregates: Vec::new(),
        false_alarm_rate: crate::core::suite::DEFAULT_FALSE_ALARM_RATE,
        declared_sampling: None,
    }
}

fn context(concurrency: usize) -> RunContext {
    RunContext {
        created_at: "2026-01-01T00:00:00+00:00".into(),
        git_commit: None,
        digline_version: "0".into(),
        metadata: Map::new(),
        artifacts: Map::new(),
        concurrency,
        retry: RetryPolicy::default(),
        display: Display::Quiet,
        notices: crate::run::Notifier::silent(),
        seed: 1,
        quota: crate::run::quota::Quota::default(),
        retried: crate::run::retry::Retried::default(),
    }
}

#[test]
fn samples_are_asked_in_order_per_case_and_folded() {
    let mut answers = HashMap::new();
    for (i, id) in ["a", "b", "c", "d"].iter().enumerate() {
        // case i passes only on sample i % 3: the fold shows which sample was which.
        let mut list = vec![Some("no"), Some("no"), Some("no")];
        list[i % 3] = Some("yes");
        answers.insert((*id).to_string(), list);
    }
    answers.insert("e".to_string(), vec![Some("yes"), None, Some("yes")]);
    let target = Scripted {
        answers,
        calls: Mutex::new(HashMap::new()),
    };
    let doc = execute(
        &suite(&["a", "b", "c", "d", "e"], 3),
        &target,
        &NoJudges,
        &context(4),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let rows: &[(&str, &[f64])] = &[
        ("a", &[1.0, 0.0, 0.0]),
        ("b", &[0.0, 1.0, 0.0]),
        ("c", &[0.0, 0.0, 1.0]),
        ("d", &[1.0, 0.0, 0.0]),
    ];
    for ((id, samples), result) in rows.iter().zip(&doc.results) {
        assert_eq!(result.case_id, *id);
        let verdict = &result.verdicts[0];
        assert_eq!(verdict.samples.as_deref(), Some(*samples), "{id}");
        assert_eq!(verdict.score, Some(0.333333), "{id}");
        assert_eq!(result.responses.as_ref().map(Vec::len), Some(3));
    }
    // A failed call on any sample errors the case, and no sample is recorded.
    let errored = &doc.results[4];
    assert_eq!(
        errored.verdicts[0].status,
        crate::core::verdict::Status::Error
    );
    assert!(errored.verdicts[0]
        .reason
        .starts_with("target raised ValueError: "));
    assert_eq!(errored.responses, None);
    let calls = target
        .calls
        .lock()
        .map(|c| c.get("e").copied())
        .ok()
        .flatten();
    assert_eq!(calls, Some(2), "the samples after a failure are not asked");
}
