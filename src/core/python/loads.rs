//! Python's `json.loads`, for the checks that decode an answer (`is_json`,
//! `json_schema`).
//!
//! digline 0.10.0 decodes with Python's standard `json` module and puts the
//! decoder's complaint in the verdict's reason (`Expecting ',' delimiter at
//! line 1 column 7`). So this decoder accepts exactly what Python accepts and
//! fails at exactly the same position with the same message:
//!
//! - whitespace is only space, tab, newline and carriage return;
//! - `NaN`, `Infinity` and `-Infinity` are numbers, `1e400` overflows to
//!   infinity, integers have no size limit, duplicate keys are allowed (the
//!   last wins), `\ud800` (a lone surrogate escape) is allowed;
//! - a leading U+FEFF is refused as `Unexpected UTF-8 BOM (decode using
//!   utf-8-sig)`, control characters below U+0020 inside strings as `Invalid
//!   control character at`, `[1,]` as `Illegal trailing comma before end of
//!   array`;
//! - positions count code points; line = newlines before the position + 1,
//!   column = code points since the last newline + 1.
//!
//! What a Rust value cannot hold is reported in [`Decoded::lossy`]: a
//! non-finite number (held as `null`) and a lone surrogate (held as U+FFFD).
//! Integers beyond 64 bits are held as the nearest float. Nesting deeper than
//! [`MAX_DEPTH`] is an error of its own ([`Failure::TooDeep`]), where Python
//! raises `RecursionError`. The parser keeps its own stack of open
//! containers (no recursion), so no input can exhaust the thread's stack.

use serde_json::{Map, Number, Value};

/// How deep arrays and objects may nest: inside a 0.10.0 check, Python
/// 3.13's decoder decodes 9995 levels and raises `RecursionError` at the
/// next one (measured with the oracle; Python's exact limit moves a little
/// with its own call depth).
pub const MAX_DEPTH: usize = 9995;

/// A decoded document.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// The value (see the module doc for what is approximated).
    pub value: Value,
    /// What could not be held exactly, if anything: `"NaN"`, `"Infinity"`,
    /// `"-Infinity"` or `"a lone surrogate"` (the first met).
    pub lossy: Option<&'static str>,
}

/// Why a text does not decode.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// Python's `JSONDecodeError`.
    Invalid(DecodeError),
    /// Nested deeper than [`MAX_DEPTH`] (Python: `RecursionError`); the
    /// container that was one too many: `"array"` or `"object"`.
    TooDeep(&'static str),
}

/// Python's `JSONDecodeError`: message and position.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeError {
    /// The message without position (`Expecting value`).
    pub msg: &'static str,
    /// Code-point offset (`char` in Python's message).
    pub pos: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in code points.
    pub col: usize,
}

impl DecodeError {
    /// `str(JSONDecodeError)`: `<msg>: line L column C (char P)`.
    pub fn python_str(&self) -> String {
        format!(
            "{}: line {} column {} (char {})",
            self.msg, self.line, self.col, self.pos
        )
    }
}

/// How deep [`loads`] keeps values: deeper members are decoded and checked
/// but not held (and [`Decoded::lossy`] says so), so that no value is too
/// deep to drop, compare or validate without exhausting the stack.
pub const KEEP_DEPTH: usize = 256;

/// Decode `text` as Python's `json.loads(text)` does.
///
/// # Errors
/// [`Failure::Invalid`] with Python's message and position, or
/// [`Failure::TooDeep`].
pub fn loads(text: &str) -> Result<Decoded, Failure> {
    decode(text, KEEP_DEPTH)
}

/// Decode `text` for its shape only: the same acceptance and errors as
/// [`loads`], but a container at the top comes back empty.
///
/// # Errors
/// As [`loads`].
pub fn loads_shape(text: &str) -> Result<Decoded, Failure> {
    decode(text, 0)
}

fn decode(text: &str, keep: usize) -> Result<Decoded, Failure> {
    let chars: Vec<char> = text.chars().collect();
    let mut parser = Parser {
        s: &chars,
        lossy: None,
        keep,
    };
    let fail =
        |parser: &Parser, msg: &'static str, pos: usize| Failure::Invalid(parser.error(msg, pos));
    if chars.first() == Some(&'\u{feff}') {
        return Err(fail(
            &parser,
            "Unexpected UTF-8 BOM (decode using utf-8-sig)",
            0,
        ));
    }
    let start = parser.skip_ws(0);
    let (value, end) = match parser.value(start) {
        Ok(found) => found,
        Err(Stop::Value(pos)) => return Err(fail(&parser, "Expecting value", pos)),
        Err(Stop::Error(msg, pos)) => return Err(fail(&parser, msg, pos)),
        Err(Stop::TooDeep(what)) => return Err(Failure::TooDeep(what)),
    };
    let end = parser.skip_ws(end);
    if end != chars.len() {
        return Err(fail(&parser, "Extra data", end));
    }
    Ok(Decoded {
        value,
        lossy: parser.lossy,
    })
}

/// Why parsing stopped: no value at a position (Python's `StopIteration`),
/// a decode error, or too deep.
enum Stop {
    Value(usize),
    Error(&'static str, usize),
    TooDeep(&'static str),
}

struct Parser<'a> {
    s: &'a [char],
    lossy: Option<&'static str>,
    /// Containers deeper than this are not held.
    keep: usize,
}

/// An open container: an array and its items so far, or an object, its
/// members so far and the key whose value is being read.
enum Frame {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

impl Parser<'_> {
    fn error(&self, msg: &'static str, pos: usize) -> DecodeError {
        let before = &self.s[..pos.min(self.s.len())];
        let line = before.iter().filter(|c| **c == '\n').count() + 1;
        let col = match before.iter().rposition(|c| *c == '\n') {
            Some(nl) => pos - nl,
            None => pos + 1,
        };
        DecodeError {
            msg,
            pos,
            line,
            col,
        }
    }

    fn at(&self, i: usize) -> Option<char> {
        self.s.get(i).copied()
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        while self.at(i).is_some_and(is_ws) {
            i += 1;
        }
        i
    }

    fn starts(&self, i: usize, word: &str) -> bool {
        (i..).zip(word.chars()).all(|(j, c)| self.at(j) == Some(c))
    }

    fn note(&mut self, what: &'static str) {
        if self.lossy.is_none() {
            self.lossy = Some(what);
        }
    }

    /// One value starting exactly at `i` (Python's `scan_once`), containers
    /// included: each `[`/`{` opens a frame, each value closes into the
    /// innermost frame, with Python's checks and positions at every step.
    fn value(&mut self, start: usize) -> Result<(Value, usize), Stop> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut i = start;
        'value: loop {
            let (mut value, mut end) = match self.at(i) {
                Some('[') => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(Stop::TooDeep("array"));
                    }
                    let j = self.skip_ws(i + 1);
                    if self.at(j) == Some(']') {
                        (Value::Array(Vec::new()), j + 1)
                    } else {
                        stack.push(Frame::Array(Vec::new()));
                        i = j;
                        continue 'value;
                    }
                }
                Some('{') => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(Stop::TooDeep("object"));
                    }
                    let j = self.skip_ws(i + 1);
                    if self.at(j) == Some('}') {
                        (Value::Object(Map::new()), j + 1)
                    } else {
                        let (key, next) = self.key(j)?;
                        stack.push(Frame::Object(Map::new(), key));
                        i = next;
                        continue 'value;
                    }
                }
                _ => self.scalar(i)?,
            };
            // Close the value into its container(s).
            loop {
                let depth = stack.len();
                let Some(frame) = stack.last_mut() else {
                    return Ok((value, end));
                };
                let held = depth <= self.keep;
                let (close, trailing) = match frame {
                    Frame::Array(items) => {
                        if held {
                            items.push(value);
                        }
                        (']', "Illegal trailing comma before end of array")
                    }
                    Frame::Object(map, key) => {
                        let key = std::mem::take(key);
                        if held {
                            map.insert(key, value);
                        }
                        ('}', "Illegal trailing comma before end of object")
                    }
                };
                if !held && self.keep > 0 {
                    self.note("arrays or objects nested more than 256 levels deep");
                }
                let j = self.skip_ws(end);
                match self.at(j) {
                    Some(c) if c == close => {
                        value = match stack.pop() {
                            Some(Frame::Array(items)) => Value::Array(items),
                            Some(Frame::Object(map, _)) => Value::Object(map),
                            None => Value::Null,
                        };
                        end = j + 1;
                    }
                    Some(',') => {
                        let k = self.skip_ws(j + 1);
                        if self.at(k) == Some(close) {
                            return Err(Stop::Error(trailing, j));
                        }
                        if let Some(Frame::Object(_, key)) = stack.last_mut() {
                            let (next_key, next) = self.key(k)?;
                            *key = next_key;
                            i = next;
                        } else {
                            i = k;
                        }
                        continue 'value;
                    }
                    _ => return Err(Stop::Error("Expecting ',' delimiter", j)),
                }
            }
        }
    }

    /// An object key at `i`, its `:` and the whitespace after it: the key
    /// and the position of its value.
    fn key(&mut self, i: usize) -> Result<(String, usize), Stop> {
        if self.at(i) != Some('"') {
            return Err(Stop::Error(
                "Expecting property name enclosed in double quotes",
                i,
            ));
        }
        let (key, next) = self.string(i + 1)?;
        let j = self.skip_ws(next);
        if self.at(j) != Some(':') {
            return Err(Stop::Error("Expecting ':' delimiter", j));
        }
        Ok((key, self.skip_ws(j + 1)))
    }

    /// A string, literal or number at `i`.
    fn scalar(&mut self, i: usize) -> Result<(Value, usize), Stop> {
        let Some(c) = self.at(i) else {
            return Err(Stop::Value(i));
        };
        match c {
            '"' => {
                let (s, end) = self.string(i + 1)?;
                Ok((Value::String(s), end))
            }
            'n' if self.starts(i, "null") => Ok((Value::Null, i + 4)),
            't' if self.starts(i, "true") => Ok((Value::Bool(true), i + 4)),
            'f' if self.starts(i, "false") => Ok((Value::Bool(false), i + 5)),
            'N' if self.starts(i, "NaN") => {
                self.note("NaN");
                Ok((Value::Null, i + 3))
            }
            'I' if self.starts(i, "Infinity") => {
                self.note("Infinity");
                Ok((Value::Null, i + 8))
            }
            '-' if self.starts(i, "-Infinity") => {
                self.note("-Infinity");
                Ok((Value::Null, i + 9))
            }
            _ => self.number(i),
        }
    }

    fn digit(&self, i: usize) -> bool {
        self.at(i).is_some_and(|c| c.is_ascii_digit())
    }

    /// A number at `i`, as Python's `_match_number` reads it.
    fn number(&mut self, start: usize) -> Result<(Value, usize), Stop> {
        let mut i = start;
        if self.at(i) == Some('-') {
            i += 1;
        }
        match self.at(i) {
            Some('1'..='9') => {
                i += 1;
                while self.digit(i) {
                    i += 1;
                }
            }
            Some('0') => i += 1,
            _ => return Err(Stop::Value(start)),
        }
        let mut is_float = false;
        if self.at(i) == Some('.') && self.digit(i + 1) {
            is_float = true;
            i += 2;
            while self.digit(i) {
                i += 1;
            }
        }
        if matches!(self.at(i), Some('e' | 'E')) && i + 1 < self.s.len() {
            let e_start = i;
            i += 1;
            if matches!(self.at(i), Some('-' | '+')) && i + 1 < self.s.len() {
                i += 1;
            }
            let digits_from = i;
            while self.digit(i) {
                i += 1;
            }
            if i > digits_from {
                is_float = true;
            } else {
                i = e_start;
            }
        }
        let text: String = self.s[start..i].iter().collect();
        let value = if is_float {
            self.float(&text)
        } else if let Ok(n) = text.parse::<i64>() {
            Value::Number(n.into())
        } else if let Ok(n) = text.parse::<u64>() {
            Value::Number(n.into())
        } else {
            // Python keeps the integer exact; the nearest float is the best a
            // JSON value here can hold.
            self.float(&text)
        };
        Ok((value, i))
    }

    fn float(&mut self, text: &str) -> Value {
        let x = text.parse::<f64>().unwrap_or(f64::NAN);
        match Number::from_f64(x) {
            Some(n) => Value::Number(n),
            None => {
                self.note(if x > 0.0 { "Infinity" } else { "-Infinity" });
                Value::Null
            }
        }
    }

    /// A string whose opening quote is at `begin - 1` (Python's `scanstring`).
    fn string(&mut self, begin: usize) -> Result<(String, usize), Stop> {
        let quote = begin - 1;
        let mut out = String::new();
        let mut units: Vec<u16> = Vec::new();
        let mut i = begin;
        loop {
            let Some(c) = self.at(i) else {
                return Err(Stop::Error("Unterminated string starting at", quote));
            };
            match c {
                '"' => {
                    self.flush(&mut units, &mut out);
                    return Ok((out, i + 1));
                }
                '\\' => {
                    let Some(e) = self.at(i + 1) else {
                        return Err(Stop::Error("Unterminated string starting at", quote));
                    };
                    if e == 'u' {
                        let (unit, next) = self.hex4(i + 2)?;
                        units.push(unit);
                        i = next;
                    } else {
                        let ch = match e {
                            '"' => '"',
                            '\\' => '\\',
                            '/' => '/',
                            'b' => '\u{8}',
                            'f' => '\u{c}',
                            'n' => '\n',
                            'r' => '\r',
                            't' => '\t',
                            _ => return Err(Stop::Error("Invalid \\escape", i)),
                        };
                        self.flush(&mut units, &mut out);
                        out.push(ch);
                        i += 2;
                    }
                }
                c if u32::from(c) <= 0x1f => {
                    return Err(Stop::Error("Invalid control character at", i));
                }
                c => {
                    self.flush(&mut units, &mut out);
                    out.push(c);
                    i += 1;
                }
            }
        }
    }

    /// Four hex digits at `i` (just after `\u`): the UTF-16 unit and the
    /// position after them.
    fn hex4(&self, i: usize) -> Result<(u16, usize), Stop> {
        // Python needs the four digits and at least one more character.
        if i + 4 >= self.s.len() {
            return Err(Stop::Error("Invalid \\uXXXX escape", i - 1));
        }
        let mut unit: u16 = 0;
        for k in 0..4 {
            let d = self.at(i + k).and_then(|c| c.to_digit(16));
            match d {
                Some(d) => unit = unit * 16 + d as u16,
                None => return Err(Stop::Error("Invalid \\uXXXX escape", i - 1)),
            }
        }
        Ok((unit, i + 4))
    }

    /// Turn pending `\u` escapes into text: surrogate pairs join, a lone
    /// surrogate becomes U+FFFD (and is noted).
    fn flush(&mut self, units: &mut Vec<u16>, out: &mut String) {
        if units.is_empty() {
            return;
        }
        for decoded in char::decode_utf16(units.drain(..)) {
            match decoded {
                Ok(c) => out.push(c),
                Err(_) => {
                    if self.lossy.is_none() {
                        self.lossy = Some("a lone surrogate");
                    }
                    out.push('\u{fffd}');
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(text: &str) -> String {
        match loads(text) {
            Err(Failure::Invalid(e)) => e.python_str(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn decodes_what_python_decodes() {
        let rows: &[(&str, Value, Option<&str>)] = &[
            (
                r#" {"a": [1, 2.5, -0, 1e2]} "#,
                json!({"a": [1, 2.5, 0, 100.0]}),
                None,
            ),
            (r#"{"a":1,"a":2}"#, json!({"a": 2}), None),
            ("NaN", Value::Null, Some("NaN")),
            ("[-Infinity]", json!([null]), Some("-Infinity")),
            ("1e400", Value::Null, Some("Infinity")),
            (r#""\ud83d\ude00""#, json!("😀"), None),
            (r#""\ud800x""#, json!("\u{fffd}x"), Some("a lone surrogate")),
            ("18446744073709551616", json!(18446744073709551616.0), None),
            (r#""é\/\t""#, json!("é/\t"), None),
        ];
        for (text, value, lossy) in rows {
            let got = loads(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            assert_eq!(&got.value, value, "{text}");
            assert_eq!(got.lossy, *lossy, "{text}");
        }
    }

    #[test]
    fn fails_where_python_fails() {
        // Messages and positions from the oracle (Python 3.13's json).
        let rows: &[(&str, &str)] = &[
            ("", "Expecting value: line 1 column 1 (char 0)"),
            ("   ", "Expecting value: line 1 column 4 (char 3)"),
            (
                "{\"a\":1",
                "Expecting ',' delimiter: line 1 column 7 (char 6)",
            ),
            ("{\"a\":1}x", "Extra data: line 1 column 8 (char 7)"),
            (
                "\n\n  {\n \"a\": tru }",
                "Expecting value: line 4 column 7 (char 12)",
            ),
            (
                "[1,]",
                "Illegal trailing comma before end of array: line 1 column 3 (char 2)",
            ),
            (
                "{'a':1}",
                "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            ),
            ("01", "Extra data: line 1 column 2 (char 1)"),
            (
                "{\"a\":\"\u{1}\"}",
                "Invalid control character at: line 1 column 7 (char 6)",
            ),
            (
                "\u{feff}{}",
                "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)",
            ),
            ("😀", "Expecting value: line 1 column 1 (char 0)"),
        ];
        for (text, want) in rows {
            assert_eq!(err(text), *want, "{text:?}");
        }
    }

    #[test]
    fn nests_as_deep_as_python_and_no_deeper() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(loads_shape(&nested(MAX_DEPTH)).is_ok());
        assert_eq!(
            loads_shape(&nested(MAX_DEPTH + 1)),
            Err(Failure::TooDeep("array"))
        );
        assert_eq!(
            loads(&"{\"a\":".repeat(100_000)),
            Err(Failure::TooDeep("object"))
        );
        let objects = format!("{}1{}", "{\"a\":".repeat(MAX_DEPTH), "}".repeat(MAX_DEPTH));
        assert!(loads_shape(&objects).is_ok());
        let deep = loads(&objects).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            deep.lossy,
            Some("arrays or objects nested more than 256 levels deep")
        );
        assert_eq!(loads(&nested(KEEP_DEPTH)).map(|d| d.lossy), Ok(None));
    }
}
