//! Strict JSON: `serde_json` parsing that refuses what it would silently
//! accept — a key written twice in one object (serde_json keeps the last) —
//! and says where a `NaN`/`Infinity` sits.
//!
//! Used for every file digline reads that a person or a tool may have
//! written: `cases.json` (`host::suite::cases`) and run documents (`store`).
//! Pure: text in, value or error out; and the one noun phrase both use
//! for a value of the wrong JSON type ([`noun`]), and the one reading of a
//! recorded list of strings ([`strings`]).

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};

/// The JSON type of a value as a noun phrase for messages about a file
/// that should hold another (`an object`, `a string`); never the value.
pub fn noun(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The strings of a recorded JSON array, in order: a value that is not an
/// array reads as none, an item that is not a string is passed over.
pub fn strings<C: FromIterator<String>>(value: Option<&Value>) -> C {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// Why strict parsing failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StrictJsonError {
    /// A key appears twice in one object.
    Duplicate {
        /// The key.
        key: String,
        /// The 1-based entry of a top-level array holding it, if the top level is an array.
        entry: Option<usize>,
    },
    /// `NaN`, `Infinity` or `-Infinity`, which JSON does not have (1-based position).
    NonStandardNumber {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// Any other syntax error (1-based position and serde_json's words).
    Syntax {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for StrictJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrictJsonError::Duplicate { key, .. } => {
                write!(f, "the key `{key}` appears twice in one object")
            }
            StrictJsonError::NonStandardNumber { line, column } => write!(
                f,
                "line {line}, column {column} holds NaN or Infinity, which JSON does not have"
            ),
            StrictJsonError::Syntax { message, .. } => write!(f, "{message}"),
        }
    }
}

/// Parse `text` as one JSON value, refusing duplicate keys at any depth.
///
/// # Errors
/// A [`StrictJsonError`] saying what and where.
pub fn parse(text: &str) -> Result<Value, StrictJsonError> {
    let state = RefCell::new(DupState::default());
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = ValueSeed {
        state: &state,
        depth: 0,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    parsed.map_err(|err| {
        let state = state.into_inner();
        if let Some(key) = state.duplicate {
            return StrictJsonError::Duplicate {
                key,
                entry: state.entry,
            };
        }
        let (line, column) = (err.line(), err.column());
        if non_standard_number_at(text, line, column) {
            StrictJsonError::NonStandardNumber { line, column }
        } else {
            StrictJsonError::Syntax {
                line,
                column,
                message: err.to_string(),
            }
        }
    })
}

/// Deserialize one [`Value`] from any serde deserializer, refusing a key
/// written twice in one object at any depth: what `deserialize_with` uses
/// for the free-form parts of a typed document (metadata, configurations),
/// so that a typed single-pass read is as strict as [`parse`].
///
/// # Errors
/// The deserializer's error, or a custom one naming the duplicated key.
pub fn deserialize_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    let state = RefCell::new(DupState::default());
    ValueSeed {
        state: &state,
        // Not the top level: no entry numbers to track.
        depth: 1,
    }
    .deserialize(deserializer)
    .map_err(|err| match state.into_inner().duplicate {
        Some(key) => de::Error::custom(format!("the key `{key}` appears twice in one object")),
        None => err,
    })
}

/// As [`deserialize_value`], for a field that must hold an object.
///
/// # Errors
/// As [`deserialize_value`], or a custom error when the value is not an object.
pub fn deserialize_object<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Map<String, Value>, D::Error> {
    match deserialize_value(deserializer)? {
        Value::Object(map) => Ok(map),
        other => Err(de::Error::custom(format!(
            "invalid type: {}, expected an object",
            kind(&other)
        ))),
    }
}

/// For an optional key that is left out when there is nothing to say:
/// present means a value, and `null` is refused (absent and `null` would be
/// two spellings of *not recorded*). Use with `#[serde(default)]`.
///
/// # Errors
/// The deserializer's error for `null` or a value of the wrong type.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// As [`present`], for an optional list of free-form values (each read as
/// [`deserialize_value`] reads it).
///
/// # Errors
/// As [`deserialize_value`], or a custom error when the value is not a list.
pub fn present_values<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<Value>>, D::Error> {
    match deserialize_value(deserializer)? {
        Value::Array(items) => Ok(Some(items)),
        other => Err(de::Error::custom(format!(
            "invalid type: {}, expected a list",
            kind(&other)
        ))),
    }
}

/// For a string that is left out when empty: present means non-empty.
///
/// # Errors
/// The deserializer's error, or a custom one for `""`.
pub fn non_empty<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.is_empty() {
        return Err(de::Error::custom(
            "an empty string where the key is left out when there is nothing to record",
        ));
    }
    Ok(text)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// True when the syntax error at (line, column), both 1-based, sits on a
/// `NaN`, `Infinity` or `-Infinity` token.
fn non_standard_number_at(text: &str, line: usize, column: usize) -> bool {
    let Some(row) = text.split('\n').nth(line.saturating_sub(1)) else {
        return false;
    };
    let chars: Vec<char> = row.chars().collect();
    let start = column.saturating_sub(2).min(chars.len());
    let around: String = chars[start..].iter().take(12).collect();
    let around = around.trim_start_matches(|c: char| !c.is_ascii_alphabetic() && c != '-');
    ["NaN", "Infinity", "-Infinity"]
        .iter()
        .any(|word| around.starts_with(word))
}

#[derive(Default)]
struct DupState {
    /// The 1-based index of the top-level array entry being read.
    current: Option<usize>,
    /// The entry where a duplicate key was found.
    entry: Option<usize>,
    /// The duplicated key.
    duplicate: Option<String>,
}

/// Deserializes a [`Value`] like serde_json does, but refuses duplicate keys.
struct ValueSeed<'s> {
    state: &'s RefCell<DupState>,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        let mut index = 0usize;
        loop {
            if self.depth == 0 {
                index += 1;
                self.state.borrow_mut().current = Some(index);
            }
            let next = seq.next_element_seed(ValueSeed {
                state: self.state,
                depth: self.depth + 1,
            })?;
            match next {
                Some(item) => items.push(item),
                None => break,
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            if map.contains_key(&key) {
                let mut state = self.state.borrow_mut();
                state.entry = state.current;
                state.duplicate = Some(key);
                return Err(de::Error::custom("duplicate key"));
            }
            let value = access.next_value_seed(ValueSeed {
                state: self.state,
                depth: self.depth + 1,
            })?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A duplicated key and the top-level entry holding it.
    type Found<'a> = Option<(&'a str, Option<usize>)>;

    #[test]
    fn duplicates_are_found_at_any_depth() {
        let rows: &[(&str, Found)] = &[
            (r#"{"a": 1, "b": 2}"#, None),
            (r#"{"a": 1, "a": 2}"#, Some(("a", None))),
            (
                r#"[{"id": "x"}, {"id": "y", "v": {"k": 1, "k": 2}}]"#,
                Some(("k", Some(2))),
            ),
            (r#"[{"a": 1}, {"a": 1}]"#, None),
        ];
        for (text, want) in rows {
            match (parse(text), want) {
                (Ok(_), None) => {}
                (Err(StrictJsonError::Duplicate { key, entry }), Some((k, e))) => {
                    assert_eq!((key.as_str(), entry), (*k, *e), "{text}");
                }
                (got, _) => panic!("{text}: {got:?}"),
            }
        }
    }

    #[test]
    fn typed_fields_refuse_duplicates_at_any_depth() {
        #[derive(serde::Deserialize, Debug)]
        struct Holder {
            #[serde(deserialize_with = "deserialize_object")]
            meta: Map<String, Value>,
        }
        let ok: Holder = serde_json::from_str(r#"{"meta": {"a": [1, {"b": 2}]}}"#).unwrap();
        assert_eq!(ok.meta["a"], serde_json::json!([1, {"b": 2}]));
        for text in [
            r#"{"meta": {"a": 1, "a": 2}}"#,
            r#"{"meta": {"a": [{"k": 1, "k": 1}]}}"#,
        ] {
            let err = serde_json::from_str::<Holder>(text)
                .unwrap_err()
                .to_string();
            assert!(err.contains("appears twice"), "{text}: {err}");
        }
        for text in [r#"{"meta": null}"#, r#"{"meta": [1]}"#] {
            let err = serde_json::from_str::<Holder>(text)
                .unwrap_err()
                .to_string();
            assert!(err.contains("expected an object"), "{text}: {err}");
        }
    }

    #[test]
    fn non_standard_numbers_and_syntax_are_told_apart() {
        assert!(matches!(
            parse(r#"{"x": NaN}"#),
            Err(StrictJsonError::NonStandardNumber { line: 1, .. })
        ));
        assert!(matches!(
            parse("{\"x\": }"),
            Err(StrictJsonError::Syntax { .. })
        ));
        assert_eq!(parse("[1, 2.5]").unwrap(), serde_json::json!([1, 2.5]));
    }
}
