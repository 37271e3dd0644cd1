//! `tools_called`: the tools the model called, in order, equal the declared
//! list.
//!
//! Reads the response metadata's `tools` (the names the target reported). A
//! target that reports none — every HTTP target of digline 0.10.0 — gives an
//! `error`, never a fail: what was called is not knowable. A `tools` that is
//! not a list is an error; a turn that ended on a tool call and named none
//! (`finish = "tool_use"` with an empty list) is an error. Otherwise the
//! names (each as Python's `str()`, so a null name reads `None`) must equal
//! the declared ones exactly and in order. Metadata `tool_calls` (how many)
//! and `called` (the names). Tool names are declared parameters and target
//! facts, not answer text, so the reason quotes them as 0.10.0 does.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::catalogue::{
    field, per_case, per_case_fields, Build, Def, Grader, Kind, Params, ALL_KINDS,
};
use super::declared::{DeclaredCheck, Inputs};
use super::error::BuildError;
use super::judge::{verdict, with_kind};
use super::outcome::Outcome;
use crate::core::python::repr::{repr_str, str_value, type_name};
use crate::core::ratio::describe;
use crate::core::verdict::Verdict;

/// Judge the reported calls in `response` against `expected`.
pub(super) fn judge(expected: &[String], response: &Map<String, Value>) -> Outcome {
    let Some(tools) = response.get("tools") else {
        return Outcome::Errored(
            "this target reports no tool calls, so what the model called is not knowable: only a \
             provider target on a provider that reports them can be judged on its trajectory"
                .to_string(),
        );
    };
    let Value::Array(tools) = tools else {
        return Outcome::Errored(format!(
            "the target reported its tool calls as a {}, not a list of names: there is no \
             trajectory to read",
            type_name(tools)
        ));
    };
    if tools.is_empty() && response.get("finish").and_then(Value::as_str) == Some("tool_use") {
        return Outcome::Errored(
            "the provider reported that the turn ended on a tool call and then named no tool: \
             the trajectory cannot be read from a reply that disagrees with itself"
                .to_string(),
        );
    }
    let called: Vec<String> = tools.iter().map(str_value).collect();
    let list = |names: &[String]| {
        if names.is_empty() {
            "nothing".to_string()
        } else {
            names
                .iter()
                .map(|n| repr_str(n))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let reason = format!("called {}, expected {}", list(&called), list(expected));
    let mut metadata = Map::new();
    metadata.insert("tool_calls".to_string(), Value::from(called.len()));
    metadata.insert(
        "called".to_string(),
        Value::Array(called.iter().cloned().map(Value::String).collect()),
    );
    Outcome::Scored {
        score: if called == expected { 1.0 } else { 0.0 },
        reason,
        metadata,
    }
}

/// The catalogue row of `tools_called`.
pub const KIND: Kind = per_case(
    "tools_called",
    "ToolsCalled",
    per_case_fields!(
        [field("expected", Def::Mandatory),],
        "tools_called",
        1.0,
        ALL_KINDS
    ),
    Build::Grader(build),
);

/// `tools_called` parameters.
#[derive(Clone, Debug)]
pub struct ToolsCalled {
    /// Tool names, in the order they must be called.
    pub expected: Vec<String>,
}

/// `expected`: an array of non-empty tool names (may be empty: "no tool
/// may be called").
fn build(params: &Params) -> Result<Arc<dyn Grader>, BuildError> {
    let invalid = |message: String| BuildError::invalid("tools_called", "expected", message);
    let Some(Value::Array(items)) = params.get("expected") else {
        return Err(invalid(format!(
            "`expected` is {}, and it has to be an array of tool names in call order, \
             e.g. [\"search_orders\"]",
            describe(params.get("expected").unwrap_or(&Value::Null))
        )));
    };
    let expected = items
        .iter()
        .map(|item| match item {
            Value::String(s) if !s.is_empty() => Ok(s.clone()),
            other => Err(invalid(format!(
                "`expected` holds {}, and every entry has to be a tool's name",
                describe(other)
            ))),
        })
        .collect::<Result<Vec<String>, BuildError>>()?;
    Ok(Arc::new(ToolsCalled { expected }))
}

impl Grader for ToolsCalled {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let outcome = with_kind(check, inputs.output, |_| {
            judge(&self.expected, inputs.response_metadata)
        });
        verdict(check, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reported_calls_against_the_declared_order() {
        let expected = vec!["a".to_string(), "b".to_string()];
        let rows: &[(Value, Option<f64>, &str)] = &[
            (json!({}), None, "this target reports no tool calls, so what the model called is not knowable: only a provider target on a provider that reports them can be judged on its trajectory"),
            (json!({"tools": ["a", "b"]}), Some(1.0), "called 'a', 'b', expected 'a', 'b'"),
            (json!({"tools": ["b", "a"]}), Some(0.0), "called 'b', 'a', expected 'a', 'b'"),
            (json!({"tools": ["a"]}), Some(0.0), "called 'a', expected 'a', 'b'"),
            (json!({"tools": ["a", null]}), Some(0.0), "called 'a', 'None', expected 'a', 'b'"),
            (json!({"tools": []}), Some(0.0), "called nothing, expected 'a', 'b'"),
            (json!({"tools": "a"}), None, "the target reported its tool calls as a str, not a list of names: there is no trajectory to read"),
            (json!({"tools": [], "finish": "tool_use"}), None, "the provider reported that the turn ended on a tool call and then named no tool: the trajectory cannot be read from a reply that disagrees with itself"),
        ];
        for (response, score, want) in rows {
            let response = response.as_object().cloned().unwrap_or_default();
            match judge(&expected, &response) {
                Outcome::Scored {
                    score: s, reason, ..
                } => {
                    assert_eq!((Some(s), reason.as_str()), (*score, *want))
                }
                Outcome::Errored(reason) => assert_eq!((None, reason.as_str()), (*score, *want)),
            }
        }
        let Outcome::Scored { reason, .. } = judge(
            &[],
            &json!({"tools": ["a"]})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        ) else {
            panic!("errored");
        };
        assert_eq!(reason, "called 'a', expected nothing");
    }
}
