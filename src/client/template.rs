//! Prompt templates for provider targets: `{var}` slots filled from a
//! case's `vars` (reference `python-input.md` §4.2, "Templating").
//!
//! A slot is `{identifier}` with identifier `[A-Za-z_][A-Za-z0-9_]*`; every
//! other brace (`{}`, `{ x }`, JSON) stays literal and there is no escape
//! syntax (`{{a}}` still fills the inner `{a}`), as in digline. Values: a
//! string as it is; `true`/`false`/`null` and numbers as Python's `str()`
//! writes them (`True`, `None`, `940.0`); an object or array as compact
//! JSON with sorted keys and raw UTF-8. Variables the template does not use
//! are ignored; a missing one is an error, found for every case by the
//! preflight before any call.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::core::python::dumps::{dumps, float_repr, Escape, Style};

/// One prompt template: its text, and the file it came from (if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptTemplate {
    /// The template text as read (UTF-8).
    pub text: String,
    /// The file, as written in the suite (`prompt_file`, `system_file`), or
    /// `None` for inline text (`system = "…"`). Used to name the template in
    /// messages.
    pub origin: Option<String>,
}

/// A piece of a parsed template.
enum Piece<'a> {
    Literal(&'a str),
    Slot(&'a str),
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut literal_start = 0;
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < bytes.len() {
        if bytes[i] == b'{' {
            if let Some(len) = text[i + 1..].find('}') {
                let name = &text[i + 1..i + 1 + len];
                if is_identifier(name) {
                    if literal_start < i {
                        out.push(Piece::Literal(&text[literal_start..i]));
                    }
                    out.push(Piece::Slot(name));
                    i += len + 2;
                    literal_start = i;
                    continue;
                }
            }
        }
        i += 1;
    }
    if literal_start < text.len() {
        out.push(Piece::Literal(&text[literal_start..]));
    }
    out
}

impl PromptTemplate {
    /// A template from inline text (`system = "…"`).
    pub fn inline(text: &str) -> PromptTemplate {
        PromptTemplate {
            text: text.to_string(),
            origin: None,
        }
    }

    /// How messages name this template: its file, or `the inline system prompt`.
    pub fn describe(&self) -> String {
        match &self.origin {
            Some(path) => path.clone(),
            None => "the inline system prompt".to_string(),
        }
    }

    /// The distinct slot names, sorted.
    pub fn slots(&self) -> BTreeSet<String> {
        pieces(&self.text)
            .into_iter()
            .filter_map(|p| match p {
                Piece::Slot(name) => Some(name.to_string()),
                Piece::Literal(_) => None,
            })
            .collect()
    }

    /// The slots `vars` does not provide, sorted (empty when it can render).
    pub fn missing_for(&self, vars: &Map<String, Value>) -> Vec<String> {
        self.slots()
            .into_iter()
            .filter(|name| !vars.contains_key(name))
            .collect()
    }

    /// Fill every slot from `vars`.
    ///
    /// # Errors
    /// A sentence naming the missing variables (sorted), or a value that is
    /// not renderable (never happens for JSON values; kept for safety).
    pub fn render(&self, vars: &Map<String, Value>) -> Result<String, String> {
        let missing = self.missing_for(vars);
        if !missing.is_empty() {
            return Err(format!(
                "the case does not provide {} for {}",
                missing.join(", "),
                self.describe()
            ));
        }
        let mut out = String::with_capacity(self.text.len());
        for piece in pieces(&self.text) {
            match piece {
                Piece::Literal(text) => out.push_str(text),
                Piece::Slot(name) => {
                    out.push_str(&render_value(vars.get(name).unwrap_or(&Value::Null)))
                }
            }
        }
        Ok(out)
    }
}

/// A case variable as it appears in a rendered prompt.
pub fn render_value(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "None".to_string(),
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Number(n) if n.is_f64() => float_repr(n.as_f64().unwrap_or(f64::NAN)),
        Value::Number(n) => n.to_string(),
        Value::Array(_) | Value::Object(_) => dumps(
            value,
            Style {
                indent: None,
                item_separator: ",",
                key_separator: ":",
                escape: Escape::Utf8,
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn slots_and_literal_braces() {
        let rows: &[(&str, &[&str])] = &[
            ("Hello {name}", &["name"]),
            ("{a}{b}{a}", &["a", "b"]),
            ("json {\"k\": 1} and {} and { x }", &[]),
            ("{{a}}", &["a"]),
            ("{1a} {_ok} {a-b}", &["_ok"]),
            ("unclosed {a", &[]),
            ("ünï {çase} {case}", &["case"]),
        ];
        for (text, want) in rows {
            let got: Vec<String> = PromptTemplate::inline(text).slots().into_iter().collect();
            assert_eq!(got, *want, "{text}");
        }
    }

    #[test]
    fn values_render_as_python_str() {
        let t = PromptTemplate::inline("{s}|{i}|{f}|{t}|{n}|{o}|{l}|{{s}}|{x y}");
        let v = vars(json!({
            "s": "è", "i": 3, "f": 940.0, "t": true, "n": null,
            "o": {"b": 1, "a": "ü"}, "l": [1, 2.5], "extra": "ignored"
        }));
        assert_eq!(
            t.render(&v).unwrap(),
            "è|3|940.0|True|None|{\"a\":\"ü\",\"b\":1}|[1,2.5]|{è}|{x y}"
        );
    }

    #[test]
    fn missing_variables_are_listed_sorted() {
        let mut t = PromptTemplate::inline("{b} {a} {c}");
        t.origin = Some("prompt.txt".into());
        let v = vars(json!({"c": 1}));
        assert_eq!(t.missing_for(&v), ["a", "b"]);
        assert_eq!(
            t.render(&v).unwrap_err(),
            "the case does not provide a, b for prompt.txt"
        );
    }
}
