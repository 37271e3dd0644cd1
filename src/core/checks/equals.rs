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

use serde_json::Value;

use super::eval::Outcome;
use super::{output_kind, OutputKind};

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
    if py_eq(output, expected) {
        Outcome::binary(true, "identical to expected".to_string())
    } else {
        Outcome::binary(false, "differs from expected".to_string())
    }
}

/// A JSON number or boolean as Python compares it: an exact integer or a float.
#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
}

fn num(value: &Value) -> Option<Num> {
    match value {
        Value::Bool(b) => Some(Num::Int(i128::from(*b))),
        Value::Number(n) => Some(if let Some(i) = n.as_i64() {
            Num::Int(i128::from(i))
        } else if let Some(u) = n.as_u64() {
            Num::Int(i128::from(u))
        } else {
            Num::Float(n.as_f64().unwrap_or(f64::NAN))
        }),
        _ => None,
    }
}

/// Python's exact `int == float`.
fn int_eq_float(i: i128, x: f64) -> bool {
    // 2^127 as f64 is exact; beyond that no i128 can be equal.
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    x.is_finite() && x.fract() == 0.0 && x.abs() < LIMIT && (x as i128) == i
}

/// Python's `==` on two decoded JSON values.
pub(super) fn py_eq(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return match (x, y) {
            (Num::Int(i), Num::Int(j)) => i == j,
            (Num::Float(f), Num::Float(g)) => f == g,
            (Num::Int(i), Num::Float(f)) | (Num::Float(f), Num::Int(i)) => int_eq_float(i, f),
        };
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(s), Value::String(t)) => s == t,
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| py_eq(x, y))
        }
        (Value::Object(m), Value::Object(n)) => {
            m.len() == n.len() && m.iter().all(|(k, v)| n.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_equality_on_json_values() {
        let rows: &[(Value, Value, bool)] = &[
            (json!("a"), json!("a"), true),
            (json!(" a "), json!("a"), false),
            (json!("é"), json!("e\u{301}"), false),
            (json!({"a": 1}), json!({"a": 1.0}), true),
            (json!({"a": true}), json!({"a": 1}), true),
            (json!({"a": false}), json!({"a": 0.0}), true),
            (
                json!({"a": [1, {"b": 2}]}),
                json!({"a": [1, {"b": 2.0}]}),
                true,
            ),
            (json!({"a": 1}), json!({"a": 1, "b": null}), false),
            (
                json!({"a": 9007199254740993_u64}),
                json!({"a": 9007199254740992.0}),
                false,
            ),
            (json!({"a": null}), json!({"a": 0}), false),
            (json!({"a": "1"}), json!({"a": 1}), false),
            (json!({"a": [1, 2]}), json!({"a": [2, 1]}), false),
            (json!({"a": 0.1}), json!({"a": 0.1}), true),
        ];
        for (a, b, want) in rows {
            assert_eq!(py_eq(a, b), *want, "{a} == {b}");
            assert_eq!(py_eq(b, a), *want, "{b} == {a}");
        }
    }

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
