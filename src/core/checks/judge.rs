//! Judging one answer: what every check's [`Grader`](super::catalogue::Grader)
//! shares.
//!
//! Checks that read the text first look at the output's kind
//! ([`with_text`]): a shape that is no valid output, or a kind outside the
//! check's `accepts`, is an `error` verdict worded as digline 0.10.0 words
//! it. Budgets judge the call, not the answer, and (as in 0.10.0) do not
//! look at the output at all. Each check returns an [`Outcome`];
//! [`verdict`] turns it into a [`Verdict`] with the declared threshold and
//! tolerance.

use serde_json::Value;

use super::declared::DeclaredCheck;
use super::kinds::{output_kind, OutputKind};
use super::outcome::Outcome;
use crate::core::verdict::Verdict;

/// The verdict of `check` for what it decided.
pub fn verdict(check: &DeclaredCheck, outcome: Outcome) -> Verdict {
    match outcome {
        Outcome::Scored {
            score,
            reason,
            metadata,
        } => Verdict::scored(
            &check.name,
            &check.assertion_id,
            score,
            check.threshold,
            check.tolerance,
            reason,
            metadata,
        ),
        Outcome::Errored(reason) => check.errored(reason),
    }
}

/// Run `judge` on the output's text, or say why the output cannot be judged.
pub fn with_text(
    check: &DeclaredCheck,
    output: &Value,
    judge: impl FnOnce(&str) -> Outcome,
) -> Outcome {
    match text_of(check, output) {
        Ok(text) => judge(text),
        Err(reason) => Outcome::Errored(reason),
    }
}

/// Run `judge` on an output of a kind the check accepts, or say why not.
pub fn with_kind(
    check: &DeclaredCheck,
    output: &Value,
    judge: impl FnOnce(OutputKind) -> Outcome,
) -> Outcome {
    match accepted(check, output) {
        Ok(kind) => judge(kind),
        Err(reason) => Outcome::Errored(reason),
    }
}

/// The output as text, after the kind checks 0.10.0 makes.
///
/// # Errors
/// - not a valid output shape: `output of type <T> is not a valid Output (…)`
///   with `<T>` Python's type name (`int`, `float`, `bool`, `NoneType`, `list`);
/// - a kind outside `accepts`: `<name> does not accept '<kind>' output
///   (accepts: <kinds, sorted, comma-separated>)`;
/// - an accepted kind that is not text (a declaration that widened
///   `accepts` of a text check): `<name> can only judge text output, not '<kind>'`.
fn text_of<'a>(check: &DeclaredCheck, output: &'a Value) -> Result<&'a str, String> {
    let kind = accepted(check, output)?;
    match output {
        Value::String(text) => Ok(text),
        _ => Err(format!(
            "{} can only judge text output, not '{}'",
            check.name,
            kind.as_str()
        )),
    }
}

/// The output's kind, if it is a valid output of a kind the check accepts.
///
/// # Errors
/// The two first cases of [`text_of`], worded the same.
fn accepted(check: &DeclaredCheck, output: &Value) -> Result<OutputKind, String> {
    let Some(kind) = output_kind(output) else {
        return Err(format!(
            "output of type {} is not a valid Output (expected str, Mapping or Sequence[Message])",
            crate::core::python::repr::type_name(output)
        ));
    };
    if !check.accepts.contains(&kind) {
        let mut accepted: Vec<&str> = check.accepts.iter().map(|k| k.as_str()).collect();
        accepted.sort_unstable();
        accepted.dedup();
        return Err(format!(
            "{} does not accept '{}' output (accepts: {})",
            check.name,
            kind.as_str(),
            accepted.join(", ")
        ));
    }
    Ok(kind)
}

#[cfg(test)]
mod tests;
