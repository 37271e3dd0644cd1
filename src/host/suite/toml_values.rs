//! TOML values as the loader reads them: the phrase for a value's type
//! (`a string`, `an integer` …) and the conversion to JSON that keeps
//! integers and floats apart.

use serde_json::{Map, Number, Value};

pub(super) fn toml_type(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a float",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date-time",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    }
}

/// Convert a TOML value to JSON, keeping integers and floats apart
/// (`800` and `800.0` are different identities).
///
/// # Errors
/// A phrase for a value JSON cannot hold: NaN, an infinity, a date-time.
pub fn toml_to_json(value: &toml::Value) -> Result<Value, String> {
    Ok(match value {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::Number(Number::from(*i)),
        toml::Value::Float(x) => match Number::from_f64(*x) {
            Some(n) => Value::Number(n),
            None => return Err(format!("{x}, which is not a finite number")),
        },
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => {
            return Err(format!("the date-time {d}, which no parameter takes"))
        }
        toml::Value::Array(items) => {
            Value::Array(items.iter().map(toml_to_json).collect::<Result<_, _>>()?)
        }
        toml::Value::Table(table) => Value::Object(
            table
                .iter()
                .map(|(k, v)| toml_to_json(v).map(|v| (k.clone(), v)))
                .collect::<Result<Map<_, _>, _>>()?,
        ),
    })
}
