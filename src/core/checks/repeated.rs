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
use crate::core::ratio::{as_agreement, describe, sample_count, too_many_samples, SamplesRefused};
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
    /// How many times it grades (2 to `MOST_SAMPLES`).
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

/// `samples`: how many gradings, 2 to [`MOST_SAMPLES`](crate::core::ratio::MOST_SAMPLES);
/// the one rule of both [`derive`] and [`build`].
fn repeat_count(params: &Params) -> Result<u32, BuildError> {
    let value = params.get("samples").unwrap_or(&Value::Null);
    let whole = value
        .as_i64()
        .map(i128::from)
        .or_else(|| value.as_u64().map(i128::from));
    let refused = |message: String| BuildError::invalid("repeated", "samples", message);
    match whole.map(|n| (n, sample_count(n, 2))) {
        Some((_, Ok(count))) => Ok(count),
        Some((n, Err(SamplesRefused::TooMany))) => Err(refused(too_many_samples(n))),
        _ => Err(refused(format!(
            "`samples` is {}, and repeating needs a whole number of at least 2 (repeating \
             once is the check itself)",
            describe(value)
        ))),
    }
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
    let samples = problems.note(repeat_count(params));
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
    let samples = repeat_count(params);
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every problem's sentence when a `repeated` around `contains` asks for
    /// `samples` with `min_agreement = 1`.
    fn problems_with(samples: Value) -> Vec<String> {
        let params = json!({"samples": samples, "min_agreement": 1,
            "inner": {"type": "contains", "needle": "x"}});
        let Value::Object(params) = params else {
            unreachable!("a table")
        };
        match registry::build("repeated", &params) {
            Ok(_) => Vec::new(),
            Err(e) => e.problems().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn samples_above_the_most_are_refused_naming_the_most() {
        for n in [
            1_001_u64,
            100_000_000,
            4_294_967_295,
            4_294_967_297,
            9_223_372_036_854_775_807,
        ] {
            assert_eq!(
                problems_with(json!(n)),
                [format!(
                    "`repeated`: `samples` is {n}, more than digline takes: at most 1000 (each \
                     sample is one more call or grading per case)"
                )],
                "{n}"
            );
        }
    }

    #[test]
    fn samples_from_two_to_the_most_are_taken_and_below_two_refused() {
        assert_eq!(problems_with(json!(2)), Vec::<String>::new());
        assert_eq!(problems_with(json!(1000)), Vec::<String>::new());
        for bad in [json!(1), json!(0), json!(-3), json!(2.5), json!("3")] {
            assert_eq!(
                problems_with(bad.clone()),
                [format!(
                    "`repeated`: `samples` is {}, and repeating needs a whole number of at \
                     least 2 (repeating once is the check itself)",
                    describe(&bad)
                )],
                "{bad}"
            );
        }
    }

    #[test]
    fn the_most_samples_build_with_that_count() {
        let params = json!({"samples": 1000, "min_agreement": "999/1000",
            "inner": {"type": "contains", "needle": "x"}});
        let Value::Object(params) = params else {
            unreachable!("a table")
        };
        let check = registry::build("repeated", &params).expect("1000 samples build");
        assert_eq!(check.grader.repetition().map(|r| r.samples), Some(1000));
    }
}
