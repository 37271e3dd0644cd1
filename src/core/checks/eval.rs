//! Evaluation of declared checks: pure functions of the answer.
//!
//! [`evaluate`] dispatches on the check's parameters. Checks that read the
//! text (`contains`, `not_contains`, `regex`, `length`) first look at the
//! output's kind: a shape that is no valid output, or a kind outside the
//! check's `accepts`, is an `error` verdict worded as digline 0.10.0 words
//! it. Budgets judge the call, not the answer, and (as in 0.10.0) do not
//! look at the output at all. Each check module returns an [`Outcome`];
//! this module turns it into a [`Verdict`] with the declared threshold and
//! tolerance.

use serde_json::{Map, Value};

use super::{budget, length, output_kind, regex, text, Check, DeclaredCheck, Inputs};
use crate::core::verdict::Verdict;

/// What one check decided about one answer, before it becomes a verdict.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Outcome {
    /// The check judged: a 0–1 score, why, and measured facts.
    Scored {
        /// 0–1 (rounded to 6 decimals when the verdict is built).
        score: f64,
        /// Why; may quote declared parameters, never the answer.
        reason: String,
        /// Measured facts (lengths, costs); never the answer.
        metadata: Map<String, Value>,
    },
    /// The check could not judge, for this one-line reason.
    Errored(String),
}

impl Outcome {
    /// A binary outcome: score 1.0 when `passed`, else 0.0, no metadata.
    pub(super) fn binary(passed: bool, reason: String) -> Outcome {
        Outcome::Scored {
            score: if passed { 1.0 } else { 0.0 },
            reason,
            metadata: Map::new(),
        }
    }
}

/// Judge one answer with one declared check. Never panics.
pub(super) fn evaluate(check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
    let outcome = match &check.check {
        Check::Contains {
            needle,
            case_sensitive,
        } => with_text(check, inputs.output, |t| {
            text::contains(needle, *case_sensitive, t)
        }),
        Check::NotContains {
            needle,
            case_sensitive,
        } => with_text(check, inputs.output, |t| {
            text::not_contains(needle, *case_sensitive, t)
        }),
        Check::Regex { pattern, compiled } => with_text(check, inputs.output, |t| {
            regex::search(pattern, compiled, t)
        }),
        Check::Length {
            minimum,
            maximum,
            unit,
        } => with_text(check, inputs.output, |t| {
            length::judge(minimum.as_ref(), maximum.as_ref(), *unit, t)
        }),
        Check::CostBudget { max_usd } => budget::judge(
            budget::Budget::Cost,
            max_usd,
            inputs.cost_usd,
            check.threshold,
        ),
        Check::LatencyBudget { max_ms } => budget::judge(
            budget::Budget::Latency,
            max_ms,
            inputs.latency_ms,
            check.threshold,
        ),
    };
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
fn with_text(
    check: &DeclaredCheck,
    output: &Value,
    judge: impl FnOnce(&str) -> Outcome,
) -> Outcome {
    match text_of(check, output) {
        Ok(text) => judge(text),
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
    let Some(kind) = output_kind(output) else {
        return Err(format!(
            "output of type {} is not a valid Output (expected str, Mapping or Sequence[Message])",
            python_type_name(output)
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
    match output {
        Value::String(text) => Ok(text),
        _ => Err(format!(
            "{} can only judge text output, not '{}'",
            check.name,
            kind.as_str()
        )),
    }
}

/// The name of the Python type a JSON value decodes to (`str`, `int`, `float`,
/// `bool`, `NoneType`, `list`, `dict`).
fn python_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}
