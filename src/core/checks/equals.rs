//! `equals`: the output equals the case's `expected`.
//!
//! Text is compared exactly (no trimming, casefolding or Unicode
//! normalisation: `é` and `e` + U+0301 differ). A structured output is
//! compared with a structured `expected` by Python's `==` on the decoded
//! values, as digline 0.10.0 does: key order does not matter, and numbers
//! compare by value across types (`1 == 1.0 == true`), exactly
//! (`9007199254740993 != 9007199254740992.0`). Outputs and expectations of
//! different kinds cannot be compared and give an `error`, as does a case
//! without `expected`. Reasons never quote either side.

use std::sync::Arc;

use serde_json::Value;

use super::catalogue::{per_case, per_case_fields, Build, Grader, Kind, Params, ALL_KINDS};
use super::declared::{DeclaredCheck, Inputs};
use super::error::BuildError;
use super::judge::{verdict, with_kind};
use super::kinds::{output_kind, OutputKind};
use super::outcome::Outcome;
use crate::core::python::eq::python_eq;
use crate::core::verdict::Verdict;

/// Judge `output` (of the accepted `kind`) against `expected`. The reasons
/// say `equals` whatever the check's declared name, as 0.10.0's do.
pub(super) fn judge(output: &Value, kind: OutputKind, expected: Option<&Value>) -> Outcome {
    let Some(expected) = expected else {
        return Outcome::Errored(
            "expected is missing: equals cannot judge without an expected value".to_string(),
        );
    };
    let expected_kind = output_kind(expected).map_or("invalid", OutputKind::as_str);
    if expected_kind != kind.as_str() {
        return Outcome::Errored(format!(
            "output is '{}' but expected is '{expected_kind}': Output branches are not comparable",
            kind.as_str()
        ));
    }
    if python_eq(output, expected) {
        Outcome::binary(true, "identical to expected".to_string())
    } else {
        Outcome::binary(false, "differs from expected".to_string())
    }
}

/// The catalogue row of `equals`.
pub const KIND: Kind = per_case(
    "equals",
    "Equals",
    per_case_fields!([], "equals", 1.0, ALL_KINDS),
    Build::Grader(build),
);

/// `equals` takes no parameters of its own: it compares with the case's `expected`.
#[derive(Clone, Copy, Debug)]
pub struct Equals;

fn build(_: &Params) -> Result<Arc<dyn Grader>, BuildError> {
    Ok(Arc::new(Equals))
}

impl Grader for Equals {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let outcome = with_kind(check, inputs.output, |kind| {
            judge(inputs.output, kind, inputs.expected)
        });
        verdict(check, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_and_missing_expected() {
        let text = OutputKind::Text;
        type Row = (Value, OutputKind, Option<Value>, Option<f64>, &'static str);
        let rows: &[Row] = &[
            (json!("a"), text, Some(json!("a")), Some(1.0), "identical to expected"),
            (json!("a"), text, Some(json!("b")), Some(0.0), "differs from expected"),
            (json!("a"), text, None, None, "expected is missing: equals cannot judge without an expected value"),
            (json!("x"), text, Some(json!({"a": 1})), None, "output is 'text' but expected is 'structured': Output branches are not comparable"),
            (json!({"a": 1}), OutputKind::Structured, Some(json!("x")), None, "output is 'structured' but expected is 'text': Output branches are not comparable"),
            (json!([]), OutputKind::Conversation, Some(json!("x")), None, "output is 'conversation' but expected is 'text': Output branches are not comparable"),
        ];
        for (output, kind, expected, score, reason) in rows {
            let got = judge(output, *kind, expected.as_ref());
            match got {
                Outcome::Scored {
                    score: s,
                    reason: r,
                    ..
                } => {
                    assert_eq!((Some(s), r.as_str()), (*score, *reason));
                }
                Outcome::Errored(r) => assert_eq!((None, r.as_str()), (*score, *reason)),
            }
        }
    }
}
