//! Executing a suite: ask, grade, assemble.
//!
//! Cases are asked by a bounded pool of workers; results land in case
//! order whatever the completion order. With `[suite] samples = N` a case
//! is asked N times, **one call after the other by the same worker**, so a
//! case's samples are numbered in call order (a target that answers
//! per call, like the test stub's `answers` lists, gives sample k its k-th
//! answer); different cases still run in parallel. Each check grades every
//! sample and the N verdicts fold into one (`core::sampling`, with the
//! suite's `min_agreement`). A failed call on any sample errors every
//! check of that case with a one-line cause (`target raised ValueError:
//! …`, the wording digline 0.10.0 records); it never fails a check, and
//! the case's remaining samples are not asked. The first unsuspended case
//! is asked alone, so the configuration it reports (which the target holds
//! every later answer to) is the first in case order, as in digline
//! 0.10.0's sequential run. Aggregates are counted last, over the folded
//! verdicts (`core::aggregate`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use crate::core::aggregate::{self, CaseOutcome};
use crate::core::checks::{output_kind, DeclaredCheck, Inputs};
use crate::core::document::{CaseResult, RunDocument, SCHEMA_VERSION};
use crate::core::pyjson::{dumps, Escape, Style};
use crate::core::sampling;
use crate::core::suite::{Case, Suite};
use crate::core::verdict::Verdict;
use crate::target::http::{HttpTarget, Response};

/// Something that answers a case: the HTTP target, or a fake in tests.
pub trait Ask: Sync {
    /// Ask about one case.
    ///
    /// # Errors
    /// A one-line cause, naming the endpoint by host:port at most.
    fn ask(&self, case: &Case) -> Result<Response, String>;

    /// What the system under test reported about itself (`{"values": {...}}`,
    /// or `{}`), fixed by the first answer in case order.
    fn target_config(&self) -> Map<String, Value>;
}

impl Ask for HttpTarget {
    fn ask(&self, case: &Case) -> Result<Response, String> {
        self.call(case)
    }

    fn target_config(&self) -> Map<String, Value> {
        HttpTarget::target_config(self)
    }
}

/// What the caller knows that the driver must not look up itself.
#[derive(Clone, Debug)]
pub struct RunContext {
    /// `host::clock::now_iso()` at the start of the run.
    pub created_at: String,
    /// The repository's commit, if any.
    pub git_commit: Option<String>,
    /// This binary's version (`CARGO_PKG_VERSION`).
    pub digline_version: String,
    /// `--meta K=V` pairs; payload.
    pub metadata: Map<String, Value>,
    /// Declared artifacts: path → `{sha, text}`.
    pub artifacts: Map<String, Value>,
    /// Parallel calls at most (≥ 1).
    pub concurrency: usize,
}

/// Why a run could not be executed at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The suite asks for something this release cannot run yet.
    #[error("{0}")]
    NotSupported(String),
}

/// The longest cause recorded in a reason, in characters.
const MAX_CAUSE: usize = 500;

fn clip(text: &str) -> String {
    if text.chars().count() <= MAX_CAUSE {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX_CAUSE).collect();
        s.push('…');
        s
    }
}

/// Run `suite` against `target` and return the run document (not yet stored).
///
/// # Errors
/// None in this release (every suite the loader accepts runs); the
/// `Result` stays for suites a later release may refuse here.
pub fn execute(suite: &Suite, target: &dyn Ask, ctx: &RunContext) -> Result<RunDocument, RunError> {
    let answers = ask_all(suite, target, ctx.concurrency.max(1));
    let min_agreement = suite.min_agreement.unwrap_or(1.0);
    let mut results = Vec::with_capacity(suite.cases.len());
    for (case, answer) in suite.cases.iter().zip(answers) {
        let mut result = CaseResult {
            case_id: case.id.clone(),
            suspended: case.suspended.is_some(),
            suspended_reason: case.suspended.clone(),
            canary: case.canary.then_some(true),
            verdicts: Vec::new(),
            responses: None,
        };
        match answer {
            None => {}
            Some(Ok(responses)) => {
                result.verdicts = suite
                    .checks
                    .iter()
                    .map(|c| grade(c, case, &responses, min_agreement).at_storage_precision())
                    .collect();
                if suite.record_responses {
                    result.responses = Some(responses.iter().map(recorded).collect());
                }
            }
            Some(Err(cause)) => {
                let reason = format!("target raised ValueError: {}", clip(&cause));
                result.verdicts = suite
                    .checks
                    .iter()
                    .map(|c| c.errored(reason.clone()))
                    .collect();
            }
        }
        results.push(result);
    }
    let target_config = target.target_config();
    let aggregate = count_aggregates(suite, &results);
    Ok(RunDocument {
        aggregate,
        artifacts: ctx.artifacts.clone(),
        config_hash: suite_config_hash(suite),
        created_at: ctx.created_at.clone(),
        digline_version: ctx.digline_version.clone(),
        environment: suite.environment.clone(),
        git_commit: ctx.git_commit.clone(),
        judge_config: Map::new(),
        metadata: ctx.metadata.clone(),
        redacted: false,
        results,
        schema_version: SCHEMA_VERSION,
        suite: suite.name.clone(),
        target_config,
        tenant: suite.tenant.clone(),
        rejudged_from: None,
        promoted_at: None,
    })
}

/// The suite's `config_hash` (per-case rules, sampling and aggregates).
fn suite_config_hash(suite: &Suite) -> String {
    suite.config_hash()
}

/// One check's verdict on one case: every sample graded, then folded.
fn grade(
    check: &DeclaredCheck,
    case: &Case,
    responses: &[Response],
    min_agreement: f64,
) -> Verdict {
    let metadata = Map::new();
    let samples: Vec<Verdict> = responses
        .iter()
        .map(|response| {
            check.evaluate(&Inputs {
                output: &response.output,
                input: Some(&response.input),
                expected: case.expected.as_ref(),
                context: &case.context,
                cost_usd: response.cost_usd,
                latency_ms: Some(response.latency_ms),
                response_metadata: &metadata,
            })
        })
        .collect();
    sampling::fold(&samples, min_agreement)
        .unwrap_or_else(|| check.errored("the target gave no answer to judge".to_string()))
}

/// The suite's aggregates (group copies included) over the graded cases.
fn count_aggregates(suite: &Suite, results: &[CaseResult]) -> Vec<Verdict> {
    suite
        .aggregates
        .iter()
        .map(|declared| {
            // The loader guarantees exactly one check carries the `over` name.
            let over_id = suite
                .checks
                .iter()
                .find(|c| c.name == declared.over)
                .map(|c| c.assertion_id.as_str());
            let outcomes: Vec<CaseOutcome> = suite
                .cases
                .iter()
                .zip(results)
                .map(|(case, result)| CaseOutcome {
                    label: case.label.as_deref(),
                    verdict: result
                        .verdicts
                        .iter()
                        .find(|v| Some(v.assertion_id.as_str()) == over_id),
                    canary: case.canary,
                    group: case.group.as_deref(),
                })
                .collect();
            aggregate::evaluate(declared, &outcomes).at_storage_precision()
        })
        .collect()
}

/// One recorded answer (`record_responses`), as 0.10.0 writes it: a
/// structured output as its compact, key-sorted JSON text (raw UTF-8), any
/// other output as is; `cost_usd` only when the target reported one.
fn recorded(response: &Response) -> Value {
    let kind = output_kind(&response.output).map_or("invalid", |k| k.as_str());
    let output = match &response.output {
        Value::Object(_) => Value::String(dumps(
            &response.output,
            Style {
                indent: None,
                item_separator: ",",
                key_separator: ":",
                escape: Escape::Utf8,
            },
        )),
        other => other.clone(),
    };
    let mut entry = Map::new();
    if let Some(cost) = response.cost_usd {
        entry.insert("cost_usd".into(), json!(cost));
    }
    entry.insert("input".into(), json!(response.input));
    entry.insert("kind".into(), json!(kind));
    entry.insert("latency_ms".into(), json!(response.latency_ms));
    entry.insert("output".into(), output);
    Value::Object(entry)
}

/// A case's answers, one per sample in call order, or the first failure;
/// `None` for a suspended case.
type Answer = Option<Result<Vec<Response>, String>>;

/// Ask `case` `samples` times, one call after the other; stop at the first failure.
fn ask_samples(target: &dyn Ask, case: &Case, samples: u32) -> Result<Vec<Response>, String> {
    (0..samples.max(1))
        .map(|_| ask_logged(target, case))
        .collect()
}

/// Ask one case, logging at debug level whether it answered (the case id
/// and the latency only: never the answer or the cause, which may quote it).
fn ask_logged(target: &dyn Ask, case: &Case) -> Result<Response, String> {
    let answer = target.ask(case);
    match &answer {
        Ok(r) => tracing::debug!(case = %case.id, latency_ms = r.latency_ms, "answered"),
        Err(_) => tracing::debug!(case = %case.id, "the call failed; its checks will be errors"),
    }
    answer
}

/// Ask every unsuspended case `suite.samples` times, `concurrency` cases at
/// a time (a case's samples in order, on one worker); `None` for suspended cases.
fn ask_all(suite: &Suite, target: &dyn Ask, concurrency: usize) -> Vec<Answer> {
    let slots: Vec<Mutex<Answer>> = suite.cases.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    if let Some(first) = suite.cases.iter().position(|c| c.suspended.is_none()) {
        if let Ok(mut slot) = slots[first].lock() {
            *slot = Some(ask_samples(target, &suite.cases[first], suite.samples));
        }
        next.store(first + 1, Ordering::SeqCst);
    }
    let workers = concurrency.min(suite.cases.len()).max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = suite.cases.get(i) else {
                    break;
                };
                if case.suspended.is_some() {
                    continue;
                }
                let answer = ask_samples(target, case, suite.samples);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(answer);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::checks::build;
    use std::collections::HashMap;

    /// Answers per case id from a list, in call order; `None` entries fail.
    struct Scripted {
        answers: HashMap<String, Vec<Option<&'static str>>>,
        calls: Mutex<HashMap<String, usize>>,
    }

    impl Ask for Scripted {
        fn ask(&self, case: &Case) -> Result<Response, String> {
            let n = {
                let mut calls = self.calls.lock().map_err(|e| e.to_string())?;
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
                    output: Value::String(text.to_string()),
                    input: "{}".to_string(),
                    cost_usd: Some(0.001),
                    latency_ms: 5.0,
                    config: None,
                }),
                None => Err("127.0.0.1:1 could not be called: boom".to_string()),
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
        let doc = execute(&suite(&["a", "b", "c", "d", "e"], 3), &target, &context(4))
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
}
