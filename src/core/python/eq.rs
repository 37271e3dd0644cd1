//! Python's `==` on decoded JSON values — one definition for every place
//! digline 0.10.0 compared values with it: `equals`, folding sampled
//! metadata, configuration deltas and holding a target to its first
//! configuration.
//!
//! Numbers and booleans compare by value across types (`1 == 1.0 == true`),
//! exactly (`9007199254740993 != 9007199254740992.0`); strings, `null`,
//! arrays (in order) and objects (any key order) compare structurally.

use serde_json::Value;

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
pub fn python_eq(a: &Value, b: &Value) -> bool {
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
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| python_eq(x, y))
        }
        (Value::Object(m), Value::Object(n)) => {
            m.len() == n.len()
                && m.iter()
                    .all(|(k, v)| n.get(k).is_some_and(|w| python_eq(v, w)))
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
            assert_eq!(python_eq(a, b), *want, "{a} == {b}");
            assert_eq!(python_eq(b, a), *want, "{b} == {a}");
        }
    }
}
