//! Python-compatible JSON text: the one writer behind every byte digline
//! must share with digline 0.10.0.
//!
//! digline 0.10.0 writes three kinds of JSON text, and identities, config
//! hashes and documents only match when ours is the same to the byte:
//!
//! | use | Python call | here |
//! |---|---|---|
//! | `assertion_id`, `config_hash` | `json.dumps(v, sort_keys=True, separators=(",", ":"))` | [`dumps_canonical`] |
//! | run documents, baselines | `json.dumps(v, sort_keys=True, indent=2, ensure_ascii=False) + "\n"` | [`dumps_document`] |
//! | the HTTP request body | `json.dumps(v, sort_keys=True)` | [`dumps_request_body`] |
//!
//! Numbers follow Python's `repr(float)`: shortest round-trip digits, fixed
//! notation when the decimal exponent is in `[-4, 16)` and always with a
//! fraction (`1.0`, `0.0002`), scientific otherwise with a signed two-digit
//! exponent (`1e-05`, `1.5e+16`). Integers stay integers. Keys sort by code
//! point. Design record: ADR 0014 (`shared/seeds/001_*`), spec
//! `95-parity-traps.md`.

use std::fmt::Write as _;

use serde_json::Value;

/// Python's `round(x, 6)`: exact-decimal rounding of the binary value,
/// half-to-even on exact ties. Scores, thresholds and tolerances are stored
/// at this precision (0–1 scores, USD, ms alike).
pub fn round6(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    // Fast and exact away from ties: below 1e9 the product `x * 1e6` is off
    // the exact decimal value by less than 1e-7, so a fraction more than
    // 1e-6 away from one half rounds to the same integer either way, and
    // `integer / 1e6` is one correctly rounded division: the double nearest
    // the decimal, which is what Python's round returns.
    let scaled = x * 1e6;
    if scaled.abs() < 1e9 {
        let floor = scaled.floor();
        let fraction = scaled - floor;
        if (fraction - 0.5).abs() > 1e-6 {
            let whole = if fraction < 0.5 { floor } else { floor + 1.0 };
            // Python keeps the sign of a value that rounds to zero (-0.0).
            return if whole == 0.0 {
                0.0_f64.copysign(x)
            } else {
                whole / 1e6
            };
        }
    }
    round6_exact(x)
}

/// [`round6`] the slow, always-exact way: `{:.6}` rounds the exact binary
/// value half-to-even, as Python's round does.
fn round6_exact(x: f64) -> f64 {
    format!("{x:.6}").parse::<f64>().unwrap_or(x)
}

/// Python's `repr(x)` for a float, as `json.dumps` writes it
/// (`NaN`, `Infinity`, `-Infinity` for the non-finite values).
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.5e-6", "1e16".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` exponent is an integer");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if x < 0.0 { "-" } else { "" };
    let text = if !(-4..16).contains(&exponent) {
        let mut m = digits[..1].to_string();
        if digits.len() > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        }
        let esign = if exponent < 0 { '-' } else { '+' };
        format!("{m}e{esign}{:02}", exponent.abs())
    } else if exponent >= 0 {
        let int_len = exponent as usize + 1;
        if digits.len() <= int_len {
            format!("{}{}.0", digits, "0".repeat(int_len - digits.len()))
        } else {
            format!("{}.{}", &digits[..int_len], &digits[int_len..])
        }
    } else {
        format!("0.{}{}", "0".repeat((-exponent - 1) as usize), digits)
    };
    format!("{sign}{text}")
}

/// How strings are escaped: Python's `ensure_ascii` switch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Escape {
    /// `ensure_ascii=True`: everything outside space..`~` as `\uXXXX`
    /// (lowercase hex, surrogate pairs above U+FFFF).
    Ascii,
    /// `ensure_ascii=False`: raw UTF-8; only `"`, `\`, and C0 controls escaped.
    Utf8,
}

/// The layout of one `json.dumps` call.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// `indent=N`, or `None` for one line.
    pub indent: Option<usize>,
    /// The separator after an item (`","` or `", "`); with an indent Python uses `","`.
    pub item_separator: &'static str,
    /// The separator between a key and its value (`":"` or `": "`).
    pub key_separator: &'static str,
    /// String escaping.
    pub escape: Escape,
}

/// `json.dumps(v, sort_keys=True, separators=(",", ":"))`: the canonical
/// form hashed into `assertion_id` and `config_hash`.
pub fn dumps_canonical(value: &Value) -> String {
    dumps(
        value,
        Style {
            indent: None,
            item_separator: ",",
            key_separator: ":",
            escape: Escape::Ascii,
        },
    )
}

/// `json.dumps(v, sort_keys=True, indent=2, ensure_ascii=False) + "\n"`:
/// the bytes of a run document or baseline on disk.
pub fn dumps_document(value: &Value) -> String {
    let mut text = dumps_pretty(value);
    text.push('\n');
    text
}

/// `json.dumps(v, sort_keys=True)`: the HTTP target's request body, which is
/// also the recorded `input` a judge is shown.
pub fn dumps_request_body(value: &Value) -> String {
    dumps(
        value,
        Style {
            indent: None,
            item_separator: ", ",
            key_separator: ": ",
            escape: Escape::Ascii,
        },
    )
}

/// `json.dumps(v, sort_keys=True, indent=2, ensure_ascii=False)` without the
/// trailing newline: what `compare --json` prints.
pub fn dumps_pretty(value: &Value) -> String {
    dumps(
        value,
        Style {
            indent: Some(2),
            item_separator: ",",
            key_separator: ": ",
            escape: Escape::Utf8,
        },
    )
}

/// Serialize `value` with `sort_keys=True` in the given style.
pub fn dumps(value: &Value, style: Style) -> String {
    let mut out = String::new();
    write_value(&mut out, value, style, 0);
    out
}

/// `json.dumps(v, sort_keys=True, indent=2, ensure_ascii=False) + "\n"` of
/// the object `value` with its member `key` (an empty array in `value`)
/// written from `items` instead, one element at a time: the same bytes as
/// [`dumps_document`] on the whole value, without ever holding the whole
/// tree (a run's `results` are most of a document).
pub fn dumps_document_streamed<I>(value: &Value, key: &str, items: I) -> String
where
    I: ExactSizeIterator<Item = Value>,
{
    let mut out = String::new();
    let _ = write_document_streamed(value, key, items, &mut |chunk: &str| {
        out.push_str(chunk);
        Ok::<(), std::convert::Infallible>(())
    });
    out
}

/// As [`dumps_document_streamed`], handing the text to `sink` in pieces
/// (one per element of `items`) instead of returning it: the document is
/// never held as one string either.
///
/// # Errors
/// The first error `sink` returns.
pub fn write_document_streamed<I, E>(
    value: &Value,
    key: &str,
    mut items: I,
    sink: &mut dyn FnMut(&str) -> Result<(), E>,
) -> Result<(), E>
where
    I: ExactSizeIterator<Item = Value>,
{
    let style = Style {
        indent: Some(2),
        item_separator: ",",
        key_separator: ": ",
        escape: Escape::Utf8,
    };
    let Value::Object(map) = value else {
        return sink(&dumps_document(value));
    };
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    if entries.is_empty() {
        return sink("{}\n");
    }
    let mut out = String::from("{");
    for (i, (name, item)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push_str(style.item_separator);
        }
        newline(&mut out, style, 1);
        write_string(&mut out, name, style.escape);
        out.push_str(style.key_separator);
        if name == key && items.len() > 0 {
            out.push('[');
            for (j, element) in items.by_ref().enumerate() {
                if j > 0 {
                    out.push_str(style.item_separator);
                }
                newline(&mut out, style, 2);
                write_value(&mut out, &element, style, 2);
                sink(&out)?;
                out.clear();
            }
            newline(&mut out, style, 1);
            out.push(']');
        } else {
            write_value(&mut out, item, style, 1);
        }
    }
    newline(&mut out, style, 0);
    out.push('}');
    out.push('\n');
    sink(&out)
}

fn newline(out: &mut String, style: Style, depth: usize) {
    if let Some(indent) = style.indent {
        out.push('\n');
        for _ in 0..indent * depth {
            out.push(' ');
        }
    }
}

fn write_value(out: &mut String, value: &Value, style: Style, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else {
                out.push_str(&float_repr(n.as_f64().unwrap_or(f64::NAN)));
            }
        }
        Value::String(s) => write_string(out, s, style.escape),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(style.item_separator);
                }
                newline(out, style, depth + 1);
                write_value(out, item, style, depth + 1);
            }
            newline(out, style, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(style.item_separator);
                }
                newline(out, style, depth + 1);
                write_string(out, key, style.escape);
                out.push_str(style.key_separator);
                write_value(out, item, style, depth + 1);
            }
            newline(out, style, depth);
            out.push('}');
        }
    }
}

/// Write `s` as a JSON string literal the way Python's encoder does.
pub fn write_string(out: &mut String, s: &str, escape: Escape) {
    out.push('"');
    // Most strings need no escape at all: copy them whole.
    let plain =
        |b: u8| b >= 0x20 && b != b'"' && b != b'\\' && (escape == Escape::Utf8 || b < 0x7f);
    if s.bytes().all(plain) {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if escape == Escape::Ascii && !(' '..='~').contains(&c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn float_repr_matches_python() {
        let table: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (1e-05, "1e-05"),
            (0.0001, "0.0001"),
            (0.0002, "0.0002"),
            (1.5e-06, "1.5e-06"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (2.0 / 3.0, "0.6666666666666666"),
            (0.909091, "0.909091"),
            (800.0, "800.0"),
            (-2.5, "-2.5"),
            (1e-07, "1e-07"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (0.00625, "0.00625"),
            (12345.678, "12345.678"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
        ];
        for (x, want) in table {
            assert_eq!(float_repr(*x), *want, "repr of {x:e}");
        }
    }

    #[test]
    fn round6_fast_path_matches_the_exact_rounding() {
        // A deterministic spread of values: scores, deltas, ties, signs, scales.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut values = vec![
            0.0,
            -0.0,
            1e-9,
            -1e-9,
            5e-7,
            -5e-7,
            0.0000005,
            0.0000015,
            0.1234565,
            2.5e-6,
            999.9999995,
            1e9,
            1e12,
            -3.0000005,
            0.3,
            0.7,
            1.0 / 3.0,
        ];
        for _ in 0..200_000 {
            let bits = next();
            values.push(f64::from_bits(bits));
            values.push((bits % 2_000_001) as f64 / 1e6 - 1.0);
            values.push((bits % 20_000_001) as f64 / 1e7);
            values.push((bits >> 11) as f64 / (1u64 << 53) as f64);
        }
        for x in values {
            let (fast, exact) = (round6(x), round6_exact(x));
            assert!(
                fast.to_bits() == exact.to_bits() || (fast.is_nan() && exact.is_nan()),
                "{x:e}: {fast:e} != {exact:e}"
            );
        }
    }

    #[test]
    fn round6_is_half_even_on_the_binary_value() {
        assert_eq!(round6(0.9523809523809523), 0.952381);
        assert_eq!(round6(2.0 / 3.0), 0.666667);
        // 0.0000005 is slightly below the tie in binary: Python rounds it to 0.0.
        assert_eq!(round6(0.0000005), 0.0);
        assert_eq!(round6(0.0000015), 0.000002);
        assert_eq!(round6(1.0), 1.0);
    }

    #[test]
    fn canonical_escapes_like_ensure_ascii() {
        let v = json!({"b": "é😀", "a": [1, 1.0, 1e-07, true, null], "c": "\u{7f}\"\\\n\u{1f}"});
        assert_eq!(
            dumps_canonical(&v),
            r#"{"a":[1,1.0,1e-07,true,null],"b":"\u00e9\ud83d\ude00","c":"\u007f\"\\\n\u001f"}"#
        );
    }

    #[test]
    fn document_is_indented_utf8_with_newline() {
        let v = json!({"z": {}, "a": [], "m": {"é": "ß\u{7f}\u{1f}", "n": [0.5]}});
        assert_eq!(
            dumps_document(&v),
            "{\n  \"a\": [],\n  \"m\": {\n    \"n\": [\n      0.5\n    ],\n    \"é\": \"ß\u{7f}\\u001f\"\n  },\n  \"z\": {}\n}\n"
        );
    }

    #[test]
    fn streamed_document_is_the_same_bytes() {
        let results = vec![json!({"b": 1, "a": "é"}), json!({"c": [0.1, {}]})];
        for items in [results.clone(), Vec::new()] {
            let whole = json!({"z": 1, "results": items, "a": {"k": "\u{1f}"}});
            let shell = json!({"z": 1, "results": [], "a": {"k": "\u{1f}"}});
            assert_eq!(
                dumps_document_streamed(&shell, "results", items.clone().into_iter()),
                dumps_document(&whole)
            );
        }
        assert_eq!(
            dumps_document_streamed(&json!({}), "results", Vec::new().into_iter()),
            dumps_document(&json!({}))
        );
    }

    #[test]
    fn request_body_uses_default_separators() {
        let v = json!({"question": "Wie geht's?", "id": "grüße-1"});
        assert_eq!(
            dumps_request_body(&v),
            r#"{"id": "gr\u00fc\u00dfe-1", "question": "Wie geht's?"}"#
        );
    }
}
