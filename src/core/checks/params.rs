//! Reading one parameter of an `[[assertions]]` entry: the small readers
//! every check file's validation shares (a string, a boolean, a positive
//! number, a set of output kinds), each holding its sentence once, and
//! Python's `canonical` for identity payloads.

use serde_json::{Number, Value};

use super::catalogue::Params;
use super::error::BuildError;
use super::kinds::OutputKind;
use crate::core::python::dumps::round6;
use crate::core::ratio::describe;

/// A string parameter (empty allowed; the check refuses it if it must).
pub fn string(token: &str, params: &Params, key: &str) -> Result<String, BuildError> {
    match params.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        other => Err(BuildError::invalid(
            token,
            key,
            format!(
                "`{key}` is {}, and it has to be a string",
                describe(other.unwrap_or(&Value::Null))
            ),
        )),
    }
}

/// A string parameter that must not be empty; `why` ends the sentence
/// (`` `needle` is empty, and <why>``).
pub fn non_empty(token: &str, params: &Params, key: &str, why: &str) -> Result<String, BuildError> {
    let value = string(token, params, key)?;
    if value.is_empty() {
        return Err(BuildError::invalid(
            token,
            key,
            format!("`{key}` is empty, and {why}"),
        ));
    }
    Ok(value)
}

/// A boolean parameter, `default` when absent.
pub fn boolean(token: &str, params: &Params, key: &str, default: bool) -> Result<bool, BuildError> {
    match params.get(key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(BuildError::invalid(
            token,
            key,
            format!(
                "`{key}` is {}, and it has to be true or false",
                describe(other)
            ),
        )),
    }
}

/// A number (int or float as written) that is > 0: a budget's cap.
pub fn positive(token: &str, params: &Params, key: &str) -> Result<Number, BuildError> {
    match params.get(key) {
        Some(Value::Number(n)) if n.as_f64().is_some_and(|x| x > 0.0 && x.is_finite()) => {
            Ok(n.clone())
        }
        Some(Value::Number(n)) => Err(BuildError::invalid(
            token,
            key,
            format!("`{key}` is {n}, and a cap has to be above 0"),
        )),
        other => Err(BuildError::invalid(
            token,
            key,
            format!(
                "`{key}` is {}, and it has to be a number",
                describe(other.unwrap_or(&Value::Null))
            ),
        )),
    }
}

/// An output kind by its word in `accepts`.
pub fn kind(word: &str) -> Option<OutputKind> {
    match word {
        "text" => Some(OutputKind::Text),
        "structured" => Some(OutputKind::Structured),
        "conversation" => Some(OutputKind::Conversation),
        _ => None,
    }
}

/// `accepts`: a set of output kinds, canonical as a sorted list of strings.
pub fn accepts_value(token: &str, given: &Value) -> Result<Value, BuildError> {
    let Value::Array(items) = given else {
        return Err(BuildError::invalid(
            token,
            "accepts",
            format!(
                "`accepts` is {}, and it has to be an array of output kinds, e.g. [\"text\"]",
                describe(given)
            ),
        ));
    };
    let mut words: Vec<String> = Vec::new();
    for item in items {
        match item {
            Value::String(s) => words.push(s.clone()),
            other => {
                return Err(BuildError::invalid(
                    token,
                    "accepts",
                    format!(
                        "`accepts` holds {}, and every entry has to be one of \"text\", \
                         \"structured\", \"conversation\"",
                        describe(other)
                    ),
                ))
            }
        }
    }
    words.sort();
    words.dedup();
    Ok(Value::Array(words.into_iter().map(Value::String).collect()))
}

/// `accepts` as output kinds: known words, at least one, sorted.
pub fn accepts_kinds(token: &str, value: &Value) -> Result<Vec<OutputKind>, BuildError> {
    let words = accepts_value(token, value)?;
    let mut kinds = Vec::new();
    for word in words.as_array().into_iter().flatten() {
        let word = word.as_str().unwrap_or_default();
        match kind(word) {
            Some(k) => kinds.push(k),
            None => {
                return Err(BuildError::invalid(
                    token,
                    "accepts",
                    format!(
                        "`accepts` holds '{word}', and the output kinds are \"text\", \
                         \"structured\" and \"conversation\""
                    ),
                ))
            }
        }
    }
    if kinds.is_empty() {
        return Err(BuildError::invalid(
            token,
            "accepts",
            "`accepts` is empty, so the check would judge no output at all".to_string(),
        ));
    }
    kinds.sort();
    Ok(kinds)
}

/// Python's `canonical` on a suite value: ints and strings as they are,
/// floats rounded to 6 decimals, containers recursively.
pub fn canonical(value: &Value) -> Value {
    match value {
        Value::Number(n) if n.is_f64() => float(round6(n.as_f64().unwrap_or(f64::NAN))),
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect())
        }
        other => other.clone(),
    }
}

/// A float as a JSON number (`null` when not finite).
pub fn float(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}
