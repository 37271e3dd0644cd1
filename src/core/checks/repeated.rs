//! `repeated`: the inner check graded `samples` times on the same answer,
//! the verdicts folded as sampled verdicts are (`core::sampling`), with
//! `min_agreement` the share of gradings that must agree.
//!
//! The inner check is declared as `[assertions.inner]` and validated by
//! the same rules as any entry, its refusals located in `inner`. A
//! `repeated` takes its threshold, tolerance and accepts from the inner
//! check, and its name too unless one is given. Its identity payload
//! nests all of the inner check's fields (threshold and tolerance
//! included) without `__type__`.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::catalogue::{derived, field, Build, Def, Grader, Kind, Params, Repetition};
use super::declared::{DeclaredCheck, Inputs};
use super::error::{BuildError, BuildErrorKind, Problems};
use super::params;
use super::registry::{self, is_aggregate};
use crate::core::identity;
use crate::core::python::dumps::round6;
use crate::core::ratio::{as_agreement, describe};
use crate::core::sampling;
use crate::core::verdict::Verdict;

/// The catalogue row of `repeated`.
pub const KIND: Kind = Kind {
    token: "repeated",
    class: "Repeated",
    per_run: false,
    fields: &[
        field("inner", Def::Mandatory),
        field("samples", Def::Mandatory),
        field("min_agreement", Def::Mandatory),
        field("name", Def::Str("")),
        derived("threshold", Def::Float(0.0)),
        derived("tolerance", Def::Float(0.0)),
        derived("accepts", Def::Kinds(&[])),
    ],
    walls: |params| match params.get("inner") {
        Some(inner) => inner_fields(inner).map(|_| ()),
        None => Ok(()),
    },
    derive,
    build: Build::Whole(build),
};

/// `repeated` parameters.
#[derive(Clone, Debug)]
pub struct Repeated {
    /// The wrapped check (its threshold, tolerance and accepts are the Repeated's).
    pub inner: DeclaredCheck,
    /// How many times it grades (≥ 2).
    pub samples: u32,
    /// The share of gradings that must agree (0–1, reachable as k/samples).
    pub min_agreement: f64,
}

/// A refusal inside `[assertions.inner]`.
fn located(e: BuildError) -> BuildError {
    e.inside("inner")
}

/// The JSON type of a value, as a noun phrase for messages.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a float",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a table",
    }
}

/// The nested check of a `repeated`: all its fields, no `__type__`.
fn inner_fields(value: &Value) -> Result<Map<String, Value>, BuildError> {
    let Value::Object(table) = value else {
        return Err(BuildError::invalid(
            "repeated",
            "inner",
            format!(
                "`inner` is {}, and it has to be a table: write the wrapped check as \
                 [assertions.inner]",
                describe(value)
            ),
        ));
    };
    let token = match table.get("type") {
        None => return Err(located(BuildError::new(BuildErrorKind::MissingType))),
        Some(Value::String(t)) => t.clone(),
        Some(other) => {
            return Err(located(BuildError::new(BuildErrorKind::TypeNotAName {
                found: json_type(other).to_string(),
            })))
        }
    };
    if is_aggregate(&token) {
        return Err(BuildError::invalid(
            "repeated",
            "inner",
            format!(
                "`inner` is the aggregate `{token}`, a verdict about the whole run, and only \
                 a per-case check can be repeated"
            ),
        ));
    }
    let kind = registry::lookup(&token).map_err(located)?;
    let mut params = table.clone();
    params.remove("type");
    registry::field_values(kind, &params).map_err(located)
}

/// Threshold, tolerance and accepts come from the inner check, the name
/// too when none is given; `min_agreement` must be reachable.
fn derive(out: &mut Map<String, Value>, params: &Params) -> Result<(), BuildError> {
    let mut problems = Problems::default();
    let inner = problems.note(inner_fields(params.get("inner").unwrap_or(&Value::Null)));
    if let Some(inner) = &inner {
        for key in ["threshold", "tolerance", "accepts"] {
            out.insert(
                key.to_string(),
                inner.get(key).cloned().unwrap_or(Value::Null),
            );
        }
        if out.get("name").and_then(Value::as_str) == Some("") {
            out.insert(
                "name".to_string(),
                inner.get("name").cloned().unwrap_or(Value::Null),
            );
        }
    }
    let samples = match params.get("samples").and_then(Value::as_u64) {
        Some(n) if n >= 2 => Some(u32::try_from(n).unwrap_or(u32::MAX)),
        _ => {
            problems.push(BuildError::invalid(
                "repeated",
                "samples",
                format!(
                    "`samples` is {}, and repeating needs a whole number of at least 2 \
                     (repeating once is the check itself)",
                    describe(params.get("samples").unwrap_or(&Value::Null))
                ),
            ));
            None
        }
    };
    if let Some(samples) = samples {
        let agreement = as_agreement(
            params.get("min_agreement").unwrap_or(&Value::Null),
            samples,
            "min_agreement",
        )
        .map_err(|e| BuildError::invalid("repeated", "min_agreement", e.message));
        if let Some(agreement) = problems.note(agreement) {
            out.insert(
                "min_agreement".to_string(),
                params::float(round6(agreement)),
            );
        }
    }
    if let Some(inner) = inner {
        out.insert("inner".to_string(), Value::Object(inner));
    }
    problems.finish(params)
}

/// Build the inner check (errors located in `inner`), take its threshold,
/// tolerance and accepts, and its name unless one is given.
fn build(params: &Params, payload: Value) -> Result<DeclaredCheck, BuildError> {
    let token = "repeated";
    let mut problems = Problems::default();
    let inner = match params.get("inner") {
        Some(value @ Value::Object(table)) => {
            let mut inner_params = table.clone();
            match inner_params.remove("type") {
                // The walls' refusal again (noted once): only a per-case
                // check can be repeated.
                Some(Value::String(t)) if is_aggregate(&t) => {
                    problems.note(inner_fields(value));
                    None
                }
                Some(Value::String(t)) => {
                    problems.note(registry::build(&t, &inner_params).map_err(located))
                }
                _ => {
                    problems.push(located(BuildError::new(BuildErrorKind::MissingType)));
                    None
                }
            }
        }
        _ => {
            problems.push(BuildError::invalid(
                token,
                "inner",
                "`inner` has to be a table: write the wrapped check as [assertions.inner]"
                    .to_string(),
            ));
            None
        }
    };
    let samples = params
        .get("samples")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n >= 2)
        .ok_or_else(|| {
            BuildError::invalid(
                token,
                "samples",
                "`samples` has to be a whole number of at least 2".to_string(),
            )
        });
    let samples = problems.note(samples);
    let min_agreement = samples.and_then(|samples| {
        let agreement = as_agreement(
            params.get("min_agreement").unwrap_or(&Value::Null),
            samples,
            "min_agreement",
        )
        .map_err(|e| BuildError::invalid(token, "min_agreement", e.message));
        problems.note(agreement)
    });
    let name = match params.get("name") {
        None => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            problems.push(BuildError::invalid(
                token,
                "name",
                format!("`name` is {}, and it has to be a string", describe(other)),
            ));
            None
        }
    };
    let ((inner, samples), min_agreement) =
        problems.give(params, inner.zip(samples).zip(min_agreement))?;
    Ok(DeclaredCheck {
        token: token.to_string(),
        name: name.unwrap_or_else(|| inner.name.clone()),
        threshold: inner.threshold,
        tolerance: inner.tolerance,
        accepts: inner.accepts.clone(),
        assertion_id: identity::digest(&payload),
        identity_payload: payload,
        grader: Arc::new(Repeated {
            inner,
            samples,
            min_agreement,
        }),
    })
}

impl Grader for Repeated {
    /// Grade the same inputs `samples` times with the inner check and fold
    /// with `min_agreement`; the verdict carries the Repeated's name and id.
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let verdicts: Vec<Verdict> = (0..self.samples.max(1))
            .map(|_| self.inner.evaluate(inputs))
            .collect();
        let mut verdict = sampling::fold(&verdicts, self.min_agreement)
            .unwrap_or_else(|| check.errored("nothing was graded".to_string()));
        verdict.assertion = check.name.as_str().into();
        verdict.assertion_id = check.assertion_id.as_str().into();
        verdict
    }

    fn repetition(&self) -> Option<Repetition<'_>> {
        Some(Repetition {
            inner: &self.inner,
            samples: self.samples,
            min_agreement: self.min_agreement,
        })
    }
}
