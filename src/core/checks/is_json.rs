//! `is_json`: the text output decodes as JSON, optionally with a given top
//! level (`top_level = "any" | "object" | "array"`).
//!
//! Decoding is Python's `json.loads` ([`crate::core::python::loads`]), so `NaN`, a bare
//! number or string, and surrounding whitespace decode, while a byte-order
//! mark, a Markdown code fence or a trailing comma do not. An undecodable
//! output is a **fail** (score 0.0, `json_kind: "invalid"`) whose reason
//! carries Python's message with line and column; a decoded one records
//! `json_kind` (`object`, `array` or `scalar`). Nesting too deep to decode
//! (more than 9995 levels) is an `error`, as 0.10.0's `RecursionError` is.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::catalogue::{field, per_case, per_case_fields, Build, Def, Grader, Kind, Params, TEXT};
use super::declared::{DeclaredCheck, Inputs};
use super::error::BuildError;
use super::judge::{verdict, with_text};
use super::outcome::Outcome;
use crate::core::python::loads::{self, Failure};
use crate::core::ratio::describe;
use crate::core::verdict::Verdict;

/// What the top level must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopLevel {
    /// Any JSON value.
    Any,
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
}

impl TopLevel {
    /// The word as declared (`any`, `object`, `array`).
    pub fn as_str(self) -> &'static str {
        match self {
            TopLevel::Any => "any",
            TopLevel::Object => "object",
            TopLevel::Array => "array",
        }
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        _ => "scalar",
    }
}

fn scored(score: f64, reason: String, kind: &str) -> Outcome {
    let mut metadata = Map::new();
    metadata.insert("json_kind".to_string(), Value::String(kind.to_string()));
    Outcome::Scored {
        score,
        reason,
        metadata,
    }
}

/// Judge `text`.
pub(super) fn judge(top_level: TopLevel, text: &str) -> Outcome {
    let decoded = match loads::loads_shape(text) {
        Ok(decoded) => decoded,
        Err(Failure::Invalid(e)) => {
            return scored(
                0.0,
                format!(
                    "does not decode as JSON: {} at line {} column {}",
                    e.msg, e.line, e.col
                ),
                "invalid",
            )
        }
        Err(Failure::TooDeep(what)) => return Outcome::Errored(too_deep(what)),
    };
    let kind = kind_of(&decoded.value);
    if top_level == TopLevel::Any || top_level.as_str() == kind {
        scored(1.0, format!("decodes as JSON ({kind})"), kind)
    } else {
        scored(
            0.0,
            format!(
                "decodes as JSON but the top level is {kind}, not {}",
                top_level.as_str()
            ),
            kind,
        )
    }
}

/// The reason for an output nested too deep to decode: what digline 0.10.0
/// records when Python's decoder raises `RecursionError` inside a check.
pub(super) fn too_deep(what: &str) -> String {
    format!(
        "assertion raised RecursionError: maximum recursion depth exceeded while decoding a \
         JSON {what} from a unicode string"
    )
}

/// The catalogue row of `is_json`.
pub const KIND: Kind = per_case(
    "is_json",
    "IsJson",
    per_case_fields!([field("top_level", Def::Str("any")),], "is_json", 1.0, TEXT),
    Build::Grader(build),
);

/// `is_json` parameters.
#[derive(Clone, Copy, Debug)]
pub struct IsJson {
    /// What the top level must be.
    pub top_level: TopLevel,
}

fn build(params: &Params) -> Result<Arc<dyn Grader>, BuildError> {
    let top_level = match params.get("top_level") {
        None => TopLevel::Any,
        Some(Value::String(s)) if s == "any" => TopLevel::Any,
        Some(Value::String(s)) if s == "object" => TopLevel::Object,
        Some(Value::String(s)) if s == "array" => TopLevel::Array,
        Some(other) => {
            return Err(BuildError::invalid(
                "is_json",
                "top_level",
                format!(
                    "`top_level` is {}, and it has to be \"any\", \"object\" or \"array\"",
                    describe(other)
                ),
            ))
        }
    };
    Ok(Arc::new(IsJson { top_level }))
}

impl Grader for IsJson {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let outcome = with_text(check, inputs.output, |t| judge(self.top_level, t));
        verdict(check, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_classifies() {
        use TopLevel::*;
        // (top_level, text, score, reason, json_kind) — 0.10.0's verdicts.
        let rows: &[(TopLevel, &str, f64, &str, &str)] = &[
            (Any, "{\"a\":1}", 1.0, "decodes as JSON (object)", "object"),
            (Any, " [1] ", 1.0, "decodes as JSON (array)", "array"),
            (Any, "\"s\"", 1.0, "decodes as JSON (scalar)", "scalar"),
            (Any, "NaN", 1.0, "decodes as JSON (scalar)", "scalar"),
            (Object, "[1]", 0.0, "decodes as JSON but the top level is array, not object", "array"),
            (Array, "1", 0.0, "decodes as JSON but the top level is scalar, not array", "scalar"),
            (Array, "[]", 1.0, "decodes as JSON (array)", "array"),
            (Any, "Thursday, probably.", 0.0, "does not decode as JSON: Expecting value at line 1 column 1", "invalid"),
            (Object, "```json\n{}\n```", 0.0, "does not decode as JSON: Expecting value at line 1 column 1", "invalid"),
            (Any, "[1,]", 0.0, "does not decode as JSON: Illegal trailing comma before end of array at line 1 column 3", "invalid"),
            (Any, "\u{feff}{}", 0.0, "does not decode as JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) at line 1 column 1", "invalid"),
        ];
        for &(top, text, score, reason, kind) in rows {
            assert_eq!(
                judge(top, text),
                scored(score, reason.to_string(), kind),
                "{text:?}"
            );
        }
        assert!(matches!(
            judge(Any, &"[".repeat(20_000)),
            Outcome::Errored(_)
        ));
    }
}
