//! Python's `repr()` and `str()` for JSON values (HTTP answers, schema violations).
//!
//! digline 0.10.0 quotes values from an answer with `!r` in its case errors
//! (`cannot read 'data.x'`, `'usage.cost' holds True, which is not a
//! number`), and those sentences land in run documents, so the quoting has to
//! be Python's: single quotes unless the text holds `'` and no `"`, `\xNN`,
//! `\uNNNN`, `\UNNNNNNNN` for characters Python does not print, `True`,
//! `False`, `None`, floats as `repr(float)`.
//!
//! Known difference: a JSON object is quoted with its keys in code-point
//! order (serde_json keeps no insertion order); Python shows the order the
//! answer used.

use serde_json::Value;

use crate::core::python::dumps::float_repr;

/// `repr(s)` for a Python `str`.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c => {
                let n = u32::from(c);
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n <= 0xffff {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable()` for one character, without the full Unicode
/// tables: controls (Cc), separators other than the space (Zs, Zl, Zp), the
/// common format characters (Cf), private use (Co) and the noncharacters
/// U+FFFE/U+FFFF are not printable; everything else is.
fn is_printable(c: char) -> bool {
    let n = u32::from(c);
    !matches!(n,
        0x00..=0x1f | 0x7f..=0xa0 | 0xad
        | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890 | 0x891 | 0x8e2
        | 0x1680 | 0x180e
        | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x2064 | 0x2066..=0x206f
        | 0x3000 | 0xd800..=0xf8ff | 0xfeff | 0xfff9..=0xfffb | 0xfffe | 0xffff
        | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3
        | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f
        | 0xf0000..=0x10ffff)
}

/// `repr(v)` for a value decoded by Python's `json.loads`.
pub fn repr_value(v: &Value) -> String {
    match v {
        Value::String(s) => repr_str(s),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(repr_value).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", repr_str(k), repr_value(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => str_value(other),
    }
}

/// `str(v)`: like [`repr_value`] except that a string is itself, unquoted.
pub fn str_value(v: &Value) -> String {
    match v {
        Value::Null => "None".to_string(),
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(u)) => u.to_string(),
            _ => float_repr(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => s.clone(),
        Value::Array(_) | Value::Object(_) => repr_value(v),
    }
}

/// The name of the Python type `json.loads` gives for this value
/// (`str`, `int`, `float`, `bool`, `NoneType`, `list`, `dict`).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_quote_like_python() {
        let table: &[(&str, &str)] = &[
            ("hi", "'hi'"),
            ("", "''"),
            ("it's", "\"it's\""),
            ("it's \"x\"", "'it\\'s \"x\"'"),
            ("say \"x\"", "'say \"x\"'"),
            ("a\\b", "'a\\\\b'"),
            ("l1\nl2\r\t", "'l1\\nl2\\r\\t'"),
            ("\u{1}\u{7f}", "'\\x01\\x7f'"),
            ("é — 😀", "'é — 😀'"),
            ("\u{a0}\u{ad}", "'\\xa0\\xad'"),
            ("\u{200b}\u{2028}\u{feff}", "'\\u200b\\u2028\\ufeff'"),
            ("\u{e0001}", "'\\U000e0001'"),
        ];
        for (input, want) in table {
            assert_eq!(&repr_str(input), want, "repr of {input:?}");
        }
    }

    #[test]
    fn values_quote_like_python() {
        let table = [
            (json!(null), "None"),
            (json!(true), "True"),
            (json!(false), "False"),
            (json!(3), "3"),
            (json!(-3), "-3"),
            (json!(0.0), "0.0"),
            (json!(1e-05), "1e-05"),
            (json!(18446744073709551615u64), "18446744073709551615"),
            (json!([1, "a", null]), "[1, 'a', None]"),
            (json!({"b": 1, "a": [true]}), "{'a': [True], 'b': 1}"),
        ];
        for (input, want) in table {
            assert_eq!(repr_value(&input), want, "repr of {input}");
        }
        assert_eq!(str_value(&json!("x y")), "x y");
        assert_eq!(str_value(&json!(1.5)), "1.5");
    }

    #[test]
    fn type_names_are_python_names() {
        let table = [
            (json!(null), "NoneType"),
            (json!(false), "bool"),
            (json!(1), "int"),
            (json!(1.0), "float"),
            (json!("s"), "str"),
            (json!([]), "list"),
            (json!({}), "dict"),
        ];
        for (input, want) in table {
            assert_eq!(type_name(&input), want, "type of {input}");
        }
    }
}
