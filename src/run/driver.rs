//! Executing a suite: ask, grade, assemble.
//!
//! Cases are asked by a bounded pool of workers; results land in case
//! order whatever the completion order. A failed call errors every check
//! of that case with a one-line cause (`target raised ValueError: …`, the
//! wording digline 0.10.0 records); it never fails a check. The first
//! unsuspended case is asked alone, so the configuration it reports (which
//! the target holds every later answer to) is the first in case order, as
//! in digline 0.10.0's sequential run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use crate::core::checks::{output_kind, Inputs};
use crate::core::document::{CaseResult, RunDocument, SCHEMA_VERSION};
use crate::core::suite::{Case, Suite};
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
/// [`RunError::NotSupported`] when the suite asks for sampling (`samples`
/// > 1), which this release does not run yet.
pub fn execute(suite: &Suite, target: &dyn Ask, ctx: &RunContext) -> Result<RunDocument, RunError> {
    if suite.samples != 1 {
        return Err(RunError::NotSupported(format!(
            "[suite] samples = {}: sampling is a digline feature this release does not run yet; use samples = 1",
            suite.samples
        )));
    }
    let answers = ask_all(suite, target, ctx.concurrency.max(1));
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
            Some(Ok(response)) => {
                let inputs = Inputs {
                    output: &response.output,
                    input: Some(&response.input),
                    expected: case.expected.as_ref(),
                    context: &case.context,
                    cost_usd: response.cost_usd,
                    latency_ms: Some(response.latency_ms),
                    response_metadata: &Map::new(),
                };
                result.verdicts = suite
                    .checks
                    .iter()
                    .map(|c| c.evaluate(&inputs).at_storage_precision())
                    .collect();
                if suite.record_responses {
                    result.responses = Some(vec![recorded(&response)]);
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
    Ok(RunDocument {
        aggregate: Vec::new(),
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

/// The suite's `config_hash` (per-case rules only in this release).
fn suite_config_hash(suite: &Suite) -> String {
    suite.config_hash()
}

fn recorded(response: &Response) -> Value {
    let kind = output_kind(&response.output).map_or("invalid", |k| k.as_str());
    json!({
        "cost_usd": response.cost_usd,
        "input": response.input,
        "kind": kind,
        "latency_ms": response.latency_ms,
        "output": response.output,
    })
}

type Answer = Option<Result<Response, String>>;

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

/// Ask every unsuspended case once, `concurrency` at a time; `None` for suspended cases.
fn ask_all(suite: &Suite, target: &dyn Ask, concurrency: usize) -> Vec<Answer> {
    let slots: Vec<Mutex<Answer>> = suite.cases.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    if let Some(first) = suite.cases.iter().position(|c| c.suspended.is_none()) {
        if let Ok(mut slot) = slots[first].lock() {
            *slot = Some(ask_logged(target, &suite.cases[first]));
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
                let answer = ask_logged(target, case);
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
