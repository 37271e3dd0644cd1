//! Re-judging a stored run: its recorded answers graded again with the
//! suite's current checks and judges, at no cost to the target.
//!
//! The recorded answers stand in for the target ([`Replay`] implements
//! [`Ask`]), so the driver's own pool, grading, sampling fold, judges and
//! aggregates do the work: a re-judge grades exactly as a run does. What is
//! fresh and what is carried follows digline 0.10.0 (ADR 0015 §6):
//!
//! - `config_hash`, the verdicts, `judge_config`, `created_at`,
//!   `git_commit`, `digline_version` and `metadata` are this evaluation's;
//! - `target_config` and `artifacts` are the source run's, since they
//!   describe the system and the prompt that produced these answers;
//! - `rejudged_from` names the source run's key (the run re-judged, not
//!   its own source when it was itself a replay), so the store refuses to
//!   promote the result;
//! - the responses are written again only when the suite still records them.
//!
//! Every refusal comes before the first judge call, each one sentence with
//! the fix: a run of another tenant or suite; a run that recorded no
//! answers; an unsuspended case of the current suite without recorded
//! answers (added since, suspended then, or its call failed); an answer
//! withheld, oversize or unreadable; a sample count that moved. Cases the
//! suite dropped since are left out, the current case order and suspensions
//! apply, and a case whose `vars` or `expected` changed is graded with the
//! current `expected`/`context` against the input that was recorded (a judge
//! sees the question the answer was given to) — all as 0.10.0 does.
//!
//! One departure, for answers 0.10.0 never masked: a case whose recorded
//! answers were kept with a secret masked (the run's `core::masked`
//! record says so) is not graded from them, since they are not the answers
//! the target gave. A check not judged keeps the run's own verdict — the
//! grade of the real answer — when nothing it depends on moved (the same
//! declaration, threshold and tolerance; the same `expected`, `context`
//! and `min_agreement`); otherwise it is an error ([`not_regraded`]). A
//! judged check is an error as in the run (`NOT_SENT_TO_JUDGE`): the real
//! answer holds a secret, and a judge is never sent one. Either error
//! makes the gate answer 2, never a wrong pass or fail.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde_json::{Map, Value};

use super::driver::{execute_spent, Ask, Judge, RunContext, RunError, NOT_SENT_TO_JUDGE};
use super::journal::{Prior, Recorder};
use crate::client::failure::Failure;
use crate::client::http::Response;
use crate::core::checks::DeclaredCheck;
use crate::core::document::{CaseResult, RunDocument};
use crate::core::masked::{graded_against, MaskedCase, MaskedRecord};
use crate::core::spend::Spend;
use crate::core::suite::{Case, Suite};
use crate::core::verdict::{Status, Verdict};

/// Why a stored run cannot be re-judged with this suite.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RejudgeError {
    /// The run and the suite do not fit together; one sentence with the fix.
    #[error("{0}")]
    Refused(String),
    /// The driver refused the suite.
    #[error(transparent)]
    Run(#[from] RunError),
}

/// A target that answers from a stored run: each case's recorded answers,
/// in the order they were recorded (sample k gets the k-th).
#[derive(Debug)]
pub struct Replay {
    source_key: String,
    pending: Mutex<HashMap<String, VecDeque<Response>>>,
    target_config: Map<String, Value>,
    /// The cases whose answers were kept with a secret masked, with the
    /// run's verdicts of each.
    masked: HashMap<String, (MaskedCase, Vec<Verdict>)>,
    /// The share of samples that must agree, as the suite says now.
    min_agreement: f64,
}

/// The reason of a check not graded again from an answer kept with a
/// secret masked, whose run verdict no longer applies.
pub fn not_regraded(source_key: &str) -> String {
    format!(
        "not graded again: run {source_key} kept this answer with a secret masked as ***, so it is not the answer the target gave, and this check or the case's expected, context or min_agreement changed since; run the suite again to grade it"
    )
}

impl Ask for Replay {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        let mut pending = self
            .pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        pending
            .get_mut(&case.id)
            .and_then(VecDeque::pop_front)
            .ok_or_else(|| {
                // Unreachable through `rejudge`, which counts every case first.
                Failure::permanent(format!(
                    "case '{}' has no recorded answer left in run {}",
                    case.id, self.source_key
                ))
            })
    }

    fn target_config(&self) -> Map<String, Value> {
        self.target_config.clone()
    }

    fn replayed(&self) -> bool {
        true
    }

    fn recorded_masked(&self, case: &Case) -> Option<MaskedCase> {
        self.masked.get(&case.id).map(|(entry, _)| entry.clone())
    }

    fn instead_of_grading(&self, case: &Case, check: &DeclaredCheck) -> Option<Verdict> {
        let (entry, verdicts) = self.masked.get(&case.id)?;
        if check.judge_coordinate().is_some() {
            return Some(check.errored(NOT_SENT_TO_JUDGE.to_string()));
        }
        let unchanged = entry.graded_against == graded_against(case, self.min_agreement);
        let kept = verdicts.iter().find(|v| {
            v.assertion_id.as_str() == check.assertion_id
                && v.threshold == check.threshold
                && v.tolerance == check.tolerance
                && v.judged.is_none()
        });
        Some(match kept {
            Some(verdict) if unchanged => {
                let mut verdict = verdict.clone();
                verdict.assertion = check.name.as_str().into();
                verdict
            }
            _ => check.errored(not_regraded(&self.source_key)),
        })
    }
}

impl Replay {
    /// The replay of `source` (filed under `source_key`) for `suite`, or the
    /// first reason it would measure something other than the suite declares.
    ///
    /// # Errors
    /// [`RejudgeError::Refused`], one sentence naming the fix.
    pub fn new(
        suite: &Suite,
        source: &RunDocument,
        source_key: &str,
        masked: &MaskedRecord,
    ) -> Result<Replay, RejudgeError> {
        let refuse = |text: String| Err(RejudgeError::Refused(text));
        if source.tenant != suite.tenant || source.suite != suite.name {
            return refuse(format!(
                "run {source_key} belongs to tenant '{}', suite '{}', and this suite is tenant '{}', suite '{}': a re-judge never crosses a tenant or a suite, so re-judge one of this suite's own runs (digline list shows them)",
                source.tenant, source.suite, suite.tenant, suite.name
            ));
        }
        if !source
            .results
            .iter()
            .any(|r| r.responses.as_ref().is_some_and(|v| !v.is_empty()))
        {
            return refuse(format!(
                "run {source_key} recorded no answers, so there is nothing to re-judge: set record_responses = true in [suite] and run again"
            ));
        }
        let recorded: HashMap<&str, &CaseResult> = source
            .results
            .iter()
            .map(|r| (r.case_id.as_str(), r))
            .collect();
        let samples = suite.samples.max(1) as usize;
        let mut pending = HashMap::new();
        for case in suite.cases.iter().filter(|c| c.suspended.is_none()) {
            let id = &case.id;
            let Some(stored) = recorded.get(id.as_str()) else {
                return refuse(format!(
                    "case '{id}' is not in run {source_key} (the suite gained it since), so re-judging would measure less than the suite declares: run the suite again, or suspend the case to re-judge the rest"
                ));
            };
            if stored.suspended {
                return refuse(format!(
                    "case '{id}' was suspended in run {source_key}, so nothing was recorded for it: run the suite again, or suspend the case again to re-judge the rest"
                ));
            }
            let answers = stored.responses.as_deref().unwrap_or_default();
            if answers.is_empty() {
                let failed = stored.verdicts.iter().any(|v| v.status == Status::Error);
                return refuse(if failed {
                    format!(
                        "case '{id}' has no recorded answer in run {source_key} because its call failed: run the suite again, or suspend the case to re-judge the rest"
                    )
                } else {
                    format!(
                        "case '{id}' has no recorded answer in run {source_key}: set record_responses = true in [suite] and run again"
                    )
                });
            }
            if answers.len() != samples {
                return refuse(format!(
                    "case '{id}' recorded {} answer(s) in run {source_key} and this suite samples {samples} time(s): set samples back to {} in [suite], or run the suite again",
                    answers.len(),
                    answers.len()
                ));
            }
            let mut queue = VecDeque::with_capacity(answers.len());
            for answer in answers {
                queue.push_back(restore(answer).map_err(|why| {
                    RejudgeError::Refused(format!(
                        "case '{id}' has a recorded answer in run {source_key} that {why}, so it cannot be judged again: run the suite again"
                    ))
                })?);
            }
            pending.insert(id.clone(), queue);
        }
        let masked = masked
            .cases
            .iter()
            .filter_map(|entry| {
                let stored = recorded.get(entry.case_id.as_str())?;
                Some((
                    entry.case_id.clone(),
                    (entry.clone(), stored.verdicts.clone()),
                ))
            })
            .collect();
        Ok(Replay {
            source_key: source_key.to_string(),
            pending: Mutex::new(pending),
            target_config: source.target_config.clone(),
            masked,
            min_agreement: suite.required_agreement(),
        })
    }
}

/// One recorded answer read back (`recorded` in the driver, backwards):
/// text as is, a structured or conversation output from its JSON text.
fn restore(recorded: &Value) -> Result<Response, &'static str> {
    let Value::Object(entry) = recorded else {
        return Err("is not an object");
    };
    if entry.get("withheld") == Some(&Value::Bool(true)) {
        return Err("was withheld");
    }
    if entry.get("oversize") == Some(&Value::Bool(true)) {
        return Err("was over the size ceiling");
    }
    let kind = match entry.get("kind") {
        Some(Value::String(kind)) => kind.as_str(),
        _ => return Err("has no kind"),
    };
    let output = match (kind, entry.get("output")) {
        (_, None | Some(Value::Null)) => return Err("has no output"),
        ("structured" | "conversation", Some(Value::String(text))) => {
            let parsed: Value =
                serde_json::from_str(text).map_err(|_| "is not the JSON its kind says")?;
            match (kind, &parsed) {
                ("structured", Value::Object(_)) | ("conversation", Value::Array(_)) => parsed,
                _ => return Err("is not the JSON its kind says"),
            }
        }
        ("text", Some(output)) if !output.is_string() => return Err("is not text"),
        (_, Some(output)) => output.clone(),
    };
    let number = |name: &str| -> Result<Option<f64>, &'static str> {
        match entry.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(_) => Err("has a number that is not one"),
        }
    };
    let latency_ms = number("latency_ms")?.ok_or("has no latency_ms")?;
    let input = match entry.get("input") {
        None => String::new(),
        Some(Value::String(input)) => input.clone(),
        Some(_) => return Err("has an input that is not text"),
    };
    Ok(Response {
        tokens: None,
        output,
        input,
        cost_usd: number("cost_usd")?,
        latency_ms,
        config: None,
    })
}

/// Grade `source`'s recorded answers with `suite` and `judge`, and return
/// the new run (not yet stored) with `rejudged_from` = `source_key`.
/// `masked`: the source run's record of answers kept with a secret masked.
/// `ctx.artifacts` is ignored: the source run's artifacts are carried.
///
/// # Errors
/// [`RejudgeError::Refused`] before any judge call when the run and the
/// suite do not fit (see the module documentation).
pub fn rejudge(
    suite: &Suite,
    source: &RunDocument,
    source_key: &str,
    masked: &MaskedRecord,
    judge: &dyn Judge,
    ctx: &RunContext,
) -> Result<RunDocument, RejudgeError> {
    rejudge_spent(suite, source, source_key, masked, judge, ctx).map(|(doc, ..)| doc)
}

/// [`rejudge`], also returning what the judges spent (the target's part
/// is empty: its recorded answers are not paid for again) and what the
/// judge memo saved, for the spend record beside the new run, and which of
/// its cases' answers are kept with a secret masked (the source run's
/// record, for the cases the new run holds).
///
/// # Errors
/// As [`rejudge`].
pub fn rejudge_spent(
    suite: &Suite,
    source: &RunDocument,
    source_key: &str,
    masked: &MaskedRecord,
    judge: &dyn Judge,
    ctx: &RunContext,
) -> Result<(RunDocument, Spend, MaskedRecord), RejudgeError> {
    let replay = Replay::new(suite, source, source_key, masked)?;
    let ctx = RunContext {
        artifacts: source.artifacts.clone(),
        ..ctx.clone()
    };
    let (mut doc, spend, _, masked) = execute_spent(
        suite,
        &replay,
        judge,
        &ctx,
        &Prior::none(),
        &Recorder::new(None, None),
    )?;
    doc.rejudged_from = Some(source_key.to_string());
    Ok((doc, spend, masked))
}

#[cfg(test)]
mod tests;
