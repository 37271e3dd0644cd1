//! TOML values as the loader reads them off the spanned tree
//! ([`DeValue`]): the phrase for a value's type (`a string`, `an integer`
//! …), numbers, the conversion to JSON that keeps integers and floats
//! apart, and the syntax rule for a number no TOML value holds.

use serde_json::{Map, Number, Value};
use toml::de::{DeFloat, DeInteger, DeTable, DeValue};

/// A value of the suite file and where it is written.
pub(super) type Node<'t> = toml::Spanned<DeValue<'t>>;

/// The phrase for `value`'s type, as a refusal names it.
pub(super) fn kind(value: &DeValue<'_>) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

/// An integer of the tree (one that does not fit was refused by
/// [`overflowing`] before any section reads it).
pub(super) fn integer(n: &DeInteger<'_>) -> i64 {
    i64::from_str_radix(n.as_str(), n.radix()).unwrap_or_default()
}

/// A float of the tree (`nan`, `inf` included).
pub(super) fn float(x: &DeFloat<'_>) -> f64 {
    x.as_str().parse().unwrap_or(f64::NAN)
}

/// Convert a TOML value to JSON, keeping integers and floats apart
/// (`800` and `800.0` are different identities).
///
/// # Errors
/// A phrase for a value JSON cannot hold: NaN, an infinity, a date-time.
pub(super) fn to_json(value: &DeValue<'_>) -> Result<Value, String> {
    Ok(match value {
        DeValue::String(s) => Value::String(s.to_string()),
        DeValue::Integer(n) => Value::Number(Number::from(integer(n))),
        DeValue::Float(x) => {
            let x = float(x);
            match Number::from_f64(x) {
                Some(n) => Value::Number(n),
                None => return Err(format!("{x}, which is not a finite number")),
            }
        }
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => return Err(format!("the date-time {d}, which no parameter takes")),
        DeValue::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| to_json(item.get_ref()))
                .collect::<Result<_, _>>()?,
        ),
        DeValue::Table(table) => Value::Object(
            table
                .iter()
                .map(|(k, v)| to_json(v.get_ref()).map(|v| (k.get_ref().to_string(), v)))
                .collect::<Result<Map<_, _>, _>>()?,
        ),
    })
}

/// The first number of `table` that no TOML value holds (an integer
/// beyond 64 bits, a float beyond `f64`), in the order the toml crate
/// reads a table (keys sorted, depth first): its start, and the crate's
/// own words for it.
pub(super) fn overflowing(table: &DeTable<'_>) -> Option<(usize, String)> {
    table.values().find_map(overflowing_in)
}

fn overflowing_in(node: &Node<'_>) -> Option<(usize, String)> {
    let why = match node.get_ref() {
        DeValue::Integer(n) => {
            let (digits, radix) = (n.as_str(), n.radix());
            if i64::from_str_radix(digits, radix).is_ok() {
                return None;
            }
            if u64::from_str_radix(digits, radix).is_ok() {
                "u64 value was too large".to_string()
            } else if let Ok(big) = i128::from_str_radix(digits, radix) {
                format!("invalid type: integer `{big}` as i128, expected any valid TOML value")
            } else if let Ok(big) = u128::from_str_radix(digits, radix) {
                format!("invalid type: integer `{big}` as u128, expected any valid TOML value")
            } else {
                "integer number overflowed".to_string()
            }
        }
        DeValue::Float(x) if float(x).is_infinite() && !x.as_str().contains("inf") => {
            "floating-point number overflowed".to_string()
        }
        DeValue::Array(items) => return items.iter().find_map(overflowing_in),
        DeValue::Table(table) => return overflowing(table),
        _ => return None,
    };
    Some((node.span().start, why))
}
