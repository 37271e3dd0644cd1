//! What a shard must carry for each of its cases: everything a single run
//! records for that case, so a shard edited to drop a failing case's
//! verdicts is refused instead of merged into a run that only errors.
//!
//! The rule, per case the plan gives the shard (`run::driver` is what
//! makes it so):
//!
//! - a **suspended** case carries no verdict and no answer;
//! - any other case carries **one verdict per declared check, in
//!   declaration order** (paired by `assertion_id`), none more, each under
//!   the check's reported name and with its declared threshold and
//!   tolerance — an errored case too: a call that failed errors every
//!   check, it never drops one;
//! - a verdict is marked `judged` exactly when its check is judged
//!   (`llm_rubric`, `faithfulness`, or a `repeated` one wrapping them),
//!   errored or not;
//! - a **sampled** check (suite `samples` = N > 1, else a `repeated` one
//!   grading N times) that did not error carries its sampled scores: 1 to
//!   N of them (errored samples count in N but have no score) with their
//!   lowest and highest; an unsampled check, and any errored verdict,
//!   carries none;
//! - with `record_responses = true`, an answered case carries its N
//!   answers (one per suite sample), and only a case whose every verdict
//!   errored (the call failed) may carry none; without it, no case carries
//!   answers.
//!
//! Whether each verdict's status follows from its score is checked where
//! every document is read (`store::document`). What no structure can show
//! (a score edited with its status) stays the shard job's word, as it is
//! for a single run's file.

use crate::core::document::CaseResult;
use crate::core::suite::{Case, Suite};
use crate::core::verdict::Status;
use crate::run::plan::plural;

/// Whether `result` carries everything `suite` declares for `case`; the
/// error is what is missing or extra, to follow the shard's path
/// (`lacks the verdict of check 'label' on case 'ticket-02'`). No reason,
/// answer or other payload is quoted.
pub(super) fn carries_declared(
    suite: &Suite,
    case: &Case,
    result: &CaseResult,
) -> Result<(), String> {
    let id = &case.id;
    if case.suspended.is_some() {
        if !result.verdicts.is_empty() {
            return Err(format!(
                "records verdicts on case '{id}', which the suite suspends"
            ));
        }
        if result.responses.is_some() {
            return Err(format!(
                "records answers to case '{id}', which the suite suspends"
            ));
        }
        return Ok(());
    }
    for (i, check) in suite.checks.iter().enumerate() {
        let name = &check.name;
        let Some(v) = result
            .verdicts
            .get(i)
            .filter(|v| v.assertion_id == check.assertion_id)
        else {
            let elsewhere = result
                .verdicts
                .iter()
                .any(|v| v.assertion_id == check.assertion_id);
            return Err(if elsewhere {
                format!(
                    "records the verdicts on case '{id}' out of the suite's order (check '{name}' is declared {})",
                    ordinal(i + 1)
                )
            } else {
                format!("lacks the verdict of check '{name}' on case '{id}'")
            });
        };
        if v.assertion != *name {
            return Err(format!(
                "records the verdict of check '{name}' on case '{id}' under another name"
            ));
        }
        if v.threshold != check.threshold || v.tolerance != check.tolerance {
            return Err(format!(
                "records the verdict of check '{name}' on case '{id}' with another threshold or tolerance than the suite declares"
            ));
        }
        match (check.judge_coordinate().is_some(), v.judged == Some(true)) {
            (true, false) => {
                return Err(format!(
                    "records the verdict of check '{name}' on case '{id}' as not judged, but the check is judged"
                ))
            }
            (false, true) => {
                return Err(format!(
                    "records the verdict of check '{name}' on case '{id}' as judged, but the check is not judged"
                ))
            }
            _ => {}
        }
        if v.judged == Some(false) {
            return Err(format!(
                "records the verdict of check '{name}' on case '{id}' with `judged: false`, which no run records"
            ));
        }
        let sampled = if suite.samples > 1 {
            suite.samples
        } else {
            check.repetition().map_or(1, |r| r.samples)
        };
        let scores = v.samples.as_ref().map_or(0, Vec::len);
        let any_sample_field =
            v.samples.is_some() || v.sample_min.is_some() || v.sample_max.is_some();
        if sampled > 1 && v.status != Status::Error {
            let complete = v.sample_min.is_some() && v.sample_max.is_some();
            if !complete || scores == 0 || scores > sampled as usize {
                return Err(format!(
                    "lacks the sampled scores of check '{name}' on case '{id}' (a sampled verdict carries 1 to {sampled} of them, with their lowest and highest)"
                ));
            }
        } else if any_sample_field {
            return Err(format!(
                "records sampled scores for check '{name}' on case '{id}', which {}",
                if sampled > 1 {
                    "an errored verdict never carries"
                } else {
                    "is not sampled"
                }
            ));
        }
    }
    if result.verdicts.len() > suite.checks.len() {
        return Err(format!(
            "records {} on case '{id}', but the suite declares {}",
            plural(result.verdicts.len(), "verdict"),
            plural(suite.checks.len(), "check")
        ));
    }
    let samples = suite.samples.max(1) as usize;
    match (&result.responses, suite.record_responses) {
        (Some(_), false) => Err(format!(
            "records answers to case '{id}', but the suite does not record answers"
        )),
        (Some(answers), true) if answers.len() != samples => Err(format!(
            "records {} to case '{id}', but the suite asks each case {}",
            plural(answers.len(), "answer"),
            plural(samples, "time")
        )),
        (None, true) if result.verdicts.iter().any(|v| v.status != Status::Error) => {
            Err(format!(
                "lacks the answers to case '{id}', whose checks were graded (the suite records answers)"
            ))
        }
        _ => Ok(()),
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, … `11th`, `21st`.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests;
