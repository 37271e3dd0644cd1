//! Executing a suite: ask, grade, assemble.
//!
//! Cases are asked by a bounded pool of workers (`--concurrency`) paced by
//! a shared [`Throttle`]; results land in case order whatever the
//! completion order. Each attempt that fails transiently (429, 5xx, a
//! reset, a timeout) is retried ([`retrying`]); a call that still fails
//! errors every check of that case with a one-line cause (`target raised
//! ValueError: …`, the wording digline 0.10.0 records); it never fails a
//! check. Judged checks (`llm_rubric`, `faithfulness`) call their judge
//! inside the same worker, with the same retries; a judge that cannot be
//! called, or whose reply cannot be read, errors that check only. The first
//! unsuspended case is asked alone, so the configuration it reports (which
//! the target holds every later answer to) is the first in case order, as
//! in digline 0.10.0's sequential run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use super::progress::{Display, Progress};
use super::retry::{retrying, RetryPolicy, Throttle};
use crate::core::checks::judged::JudgeRequest;
use crate::core::checks::{output_kind, DeclaredCheck, Inputs};
use crate::core::document::{CaseResult, RunDocument, SCHEMA_VERSION};
use crate::core::suite::{Case, Suite};
use crate::core::verdict::{Status, Verdict};
use crate::target::failure::Failure;
use crate::target::http::{HttpTarget, Response};
use crate::target::judge::{JudgeAnswer, Judges};
use crate::target::provider::ProviderTarget;

/// Something that answers a case: the HTTP target, a provider, or a fake.
pub trait Ask: Sync {
    /// One attempt at one case (the driver retries transient failures).
    ///
    /// # Errors
    /// A [`Failure`]: a one-line cause, naming the endpoint by host:port at
    /// most, and whether another attempt could help.
    fn ask(&self, case: &Case) -> Result<Response, Failure>;

    /// What the system under test reported about itself (`{"values": {...}}`,
    /// or `{}`), fixed by the first answer in case order.
    fn target_config(&self) -> Map<String, Value>;
}

impl Ask for HttpTarget {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        self.attempt(case)
    }

    fn target_config(&self) -> Map<String, Value> {
        HttpTarget::target_config(self)
    }
}

impl Ask for ProviderTarget {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        self.attempt(case)
    }

    fn target_config(&self) -> Map<String, Value> {
        ProviderTarget::target_config(self)
    }
}

/// Something that answers a judging request: the judges of a suite, or a fake.
pub trait Judge: Sync {
    /// One attempt at one judging request.
    ///
    /// # Errors
    /// A [`Failure`] as for [`Ask::ask`] (a judge the suite does not hold
    /// is a permanent one).
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, Failure>;

    /// The run's `judge_config` (`{}` without judges).
    fn judge_config(&self) -> Map<String, Value>;
}

impl Judge for Judges {
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, Failure> {
        match self.get(&request.coordinate) {
            Some(client) => client.ask(request.system, &request.prompt),
            None => NoJudges.judge(request),
        }
    }

    fn judge_config(&self) -> Map<String, Value> {
        self.config()
    }
}

/// The judge of a suite without judged checks.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoJudges;

impl Judge for NoJudges {
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, Failure> {
        Err(Failure::permanent(format!(
            "no judge {} was set up for this run",
            request.coordinate
        )))
    }

    fn judge_config(&self) -> Map<String, Value> {
        Map::new()
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
    /// Cases in flight at most (≥ 1).
    pub concurrency: usize,
    /// How transient failures are retried.
    pub retry: RetryPolicy,
    /// How progress is shown on stderr.
    pub display: Display,
    /// Seeds the retry jitter (any value; the caller may use the clock).
    pub seed: u64,
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

/// The services a worker uses.
struct Services<'a> {
    target: &'a dyn Ask,
    judge: &'a dyn Judge,
    retry: RetryPolicy,
    throttle: Throttle,
    progress: Progress,
}

/// Run `suite` against `target`, grading judged checks with `judge`, and
/// return the run document (not yet stored).
///
/// # Errors
/// [`RunError::NotSupported`] when the suite asks for sampling (`samples`
/// > 1), which this release does not run yet.
pub fn execute(
    suite: &Suite,
    target: &dyn Ask,
    judge: &dyn Judge,
    ctx: &RunContext,
) -> Result<RunDocument, RunError> {
    if suite.samples != 1 {
        return Err(RunError::NotSupported(format!(
            "[suite] samples = {}: sampling is a digline feature this release does not run yet; use samples = 1",
            suite.samples
        )));
    }
    let asked = suite.cases.iter().filter(|c| c.suspended.is_none()).count();
    let services = Services {
        target,
        judge,
        retry: ctx.retry,
        throttle: Throttle::new(ctx.concurrency, ctx.seed),
        progress: Progress::new(asked, ctx.display),
    };
    let outcomes = run_all(suite, &services);
    services.progress.finish();
    let results = suite
        .cases
        .iter()
        .zip(outcomes)
        .map(|(case, outcome)| {
            let mut result = CaseResult {
                case_id: case.id.clone(),
                suspended: case.suspended.is_some(),
                suspended_reason: case.suspended.clone(),
                canary: case.canary.then_some(true),
                verdicts: Vec::new(),
                responses: None,
            };
            if let Some((verdicts, response)) = outcome {
                result.verdicts = verdicts;
                if suite.record_responses {
                    result.responses = response.as_ref().map(|r| vec![recorded(r)]);
                }
            }
            result
        })
        .collect();
    Ok(RunDocument {
        aggregate: Vec::new(),
        artifacts: ctx.artifacts.clone(),
        config_hash: suite.config_hash(),
        created_at: ctx.created_at.clone(),
        digline_version: ctx.digline_version.clone(),
        environment: suite.environment.clone(),
        git_commit: ctx.git_commit.clone(),
        judge_config: judge.judge_config(),
        metadata: ctx.metadata.clone(),
        redacted: false,
        results,
        schema_version: SCHEMA_VERSION,
        suite: suite.name.clone(),
        target_config: target.target_config(),
        tenant: suite.tenant.clone(),
        promoted_at: None,
    })
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

/// A case's verdicts and the answer they graded (none when the call failed).
type Outcome = Option<(Vec<Verdict>, Option<Response>)>;

/// Ask one case (with retries) and grade the answer (judges with retries).
fn run_case(suite: &Suite, case: &Case, svc: &Services) -> (Vec<Verdict>, Option<Response>) {
    let answer = retrying(&svc.retry, &svc.throttle, &case.id, || svc.target.ask(case));
    let (verdicts, response) = match answer {
        Ok(response) => {
            tracing::debug!(case = %case.id, latency_ms = response.latency_ms, "answered");
            let verdicts = grade(suite, case, &response, svc);
            (verdicts, Some(response))
        }
        Err(cause) => {
            tracing::debug!(case = %case.id, "the call failed; its checks will be errors");
            let reason = format!("target raised ValueError: {}", clip(&cause));
            let verdicts = suite
                .checks
                .iter()
                .map(|c| c.errored(reason.clone()))
                .collect();
            (verdicts, None)
        }
    };
    let errored = verdicts.iter().any(|v: &Verdict| v.status == Status::Error);
    let cost = response.as_ref().and_then(|r| r.cost_usd).unwrap_or(0.0);
    svc.progress.case_done(errored, cost);
    (verdicts, response)
}

/// Every check's verdict on one answer, judged checks through the judge.
fn grade(suite: &Suite, case: &Case, response: &Response, svc: &Services) -> Vec<Verdict> {
    let metadata = Map::new();
    let inputs = Inputs {
        output: &response.output,
        input: Some(&response.input),
        expected: case.expected.as_ref(),
        context: &case.context,
        cost_usd: response.cost_usd,
        latency_ms: Some(response.latency_ms),
        response_metadata: &metadata,
    };
    suite
        .checks
        .iter()
        .map(|check| grade_one(check, &inputs, &case.id, svc).at_storage_precision())
        .collect()
}

fn grade_one(check: &DeclaredCheck, inputs: &Inputs, case_id: &str, svc: &Services) -> Verdict {
    match check.judge_request(inputs) {
        None => check.evaluate(inputs),
        Some(Err(verdict)) => verdict,
        Some(Ok(request)) => {
            let answer = retrying(&svc.retry, &svc.throttle, case_id, || {
                svc.judge.judge(&request)
            });
            match answer {
                Ok(answer) => {
                    svc.progress.judge_spent(answer.cost_usd);
                    check.judged_verdict(Ok(&answer.text))
                }
                Err(cause) => check.judged_verdict(Err(&clip(&cause))),
            }
        }
    }
}

/// Ask every unsuspended case, the pool's limit at a time; `None` for
/// suspended cases. Results are in case order.
fn run_all(suite: &Suite, svc: &Services) -> Vec<Outcome> {
    let slots: Vec<Mutex<Outcome>> = suite.cases.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    if let Some(first) = suite.cases.iter().position(|c| c.suspended.is_none()) {
        let outcome = run_case(suite, &suite.cases[first], svc);
        if let Ok(mut slot) = slots[first].lock() {
            *slot = Some(outcome);
        }
        next.store(first + 1, Ordering::SeqCst);
    }
    let workers = svc.throttle.limit().min(suite.cases.len()).max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                svc.throttle.enter();
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = suite.cases.get(i) else {
                    svc.throttle.leave();
                    break;
                };
                if case.suspended.is_some() {
                    svc.throttle.leave();
                    continue;
                }
                let outcome = run_case(suite, case, svc);
                svc.throttle.leave();
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(outcome);
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
mod tests;
