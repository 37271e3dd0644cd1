//! `[target.body]`: the request payload, with `case.*` references.
//!
//! A string leaf that starts with `case.` is a reference into the case;
//! every other leaf (numbers, booleans, arrays, other strings) is sent as
//! written. Nested tables are searched, arrays are not. Readable:
//! `case.id`, `case.expected`, `case.context`, `case.vars.<key>`,
//! `case.metadata.<key>` (the key is everything after the second dot, so
//! `case.vars.a.b` reads the key `a.b`). `label` is deliberately not
//! readable: a body carrying the label would hand the mark to the thing
//! being marked.
//!
//! References are checked at load ([`check_body_references`]) and read at
//! call time ([`render_body`]), where a case without the key errors that
//! case with 0.10.0's sentence.

use serde_json::{Map, Value};

use crate::core::python::repr::repr_str;
use crate::core::suite::Case;

/// What a leaf must start with to be a reference.
const PREFIX: &str = "case.";

/// What a body can read, in the order the refusal lists it.
const READABLE: &str =
    "case.id, case.expected, case.context, case.vars.<key> and case.metadata.<key>";

/// A reference, taken apart.
#[derive(Debug, PartialEq)]
enum Reference<'a> {
    Id,
    Expected,
    Context,
    /// `case.vars.<key>` (`true`) or `case.metadata.<key>` (`false`).
    Keyed {
        vars: bool,
        key: &'a str,
    },
}

/// Take a `case.…` reference apart, or say why it reads nothing.
/// `where_` names the leaf (`body.question`).
fn parse<'a>(reference: &'a str, where_: &str) -> Result<Reference<'a>, String> {
    let path = reference.strip_prefix(PREFIX).unwrap_or(reference);
    let (head, rest) = path.split_once('.').unwrap_or((path, ""));
    // Quoted only for a refusal: the load checks every case's references.
    let quoted = || repr_str(reference);
    match head {
        "id" | "expected" | "context" if !rest.is_empty() => Err(format!(
            "{where_} is {}, but case.{head} is a single value, so nothing can follow it. \
             A body can read {READABLE}",
            quoted()
        )),
        "id" => Ok(Reference::Id),
        "expected" => Ok(Reference::Expected),
        "context" => Ok(Reference::Context),
        "vars" | "metadata" if rest.is_empty() => Err(format!(
            "{where_} is {}, which is the whole case.{head} table rather than one value \
             in it. Write case.{head}.<key>",
            quoted()
        )),
        "vars" | "metadata" => Ok(Reference::Keyed {
            vars: head == "vars",
            key: rest,
        }),
        _ => Err(format!(
            "{where_} is {}, but a case has no field {}. A body can read {READABLE}",
            quoted(),
            repr_str(head)
        )),
    }
}

/// Check the `case.*` references of a `[target.body]` at load time.
///
/// Walks nested tables (not arrays); the first bad reference refuses the
/// body.
///
/// # Errors
/// A sentence naming the leaf (`body.question`), the reference as written,
/// and what a case can provide: an unknown field (`case.question`), a whole
/// table (`case.vars`), or anything after a single value (`case.id.x`).
pub fn check_body_references(body: &Map<String, Value>) -> Result<(), String> {
    check_at(body, "body")
}

fn check_at(body: &Map<String, Value>, at: &str) -> Result<(), String> {
    for (key, value) in body {
        let where_ = format!("{at}.{key}");
        match value {
            Value::Object(inner) => check_at(inner, &where_)?,
            Value::String(s) if s.starts_with(PREFIX) => {
                parse(s, &where_)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// The body with its references replaced by this case's values: `case.id`
/// a string, `case.expected` the expected value or `null`, `case.context`
/// an array of strings, `case.vars.<key>` / `case.metadata.<key>` the value
/// as written in `cases.json`.
///
/// # Errors
/// A case without the key a reference names (0.10.0's sentence: `case 'c1'
/// has no vars['q'], which the body asks for as 'case.vars.q'. It has: a,
/// b`), or a reference [`check_body_references`] would have refused.
pub fn render_body(body: &Map<String, Value>, case: &Case) -> Result<Map<String, Value>, String> {
    render_at(body, case, "body")
}

/// [`render_body`]'s refusal for `case`, without building the body: what
/// the load asks of every case, so it reads the references and renders
/// only a case that fails (for the sentence).
///
/// # Errors
/// As [`render_body`].
pub fn check_case(body: &Map<String, Value>, case: &Case) -> Result<(), String> {
    if reads_all(body, case) {
        Ok(())
    } else {
        render_body(body, case).map(|_| ())
    }
}

/// True when every reference of `body` (nested tables too) reads something in `case`.
fn reads_all(body: &Map<String, Value>, case: &Case) -> bool {
    body.values().all(|value| match value {
        Value::Object(inner) => reads_all(inner, case),
        Value::String(s) if s.starts_with(PREFIX) => match parse(s, "") {
            Ok(Reference::Keyed { vars: true, key }) => case.vars.contains_key(key),
            Ok(Reference::Keyed { vars: false, key }) => case.metadata.contains_key(key),
            Ok(_) => true,
            Err(_) => false,
        },
        _ => true,
    })
}

fn render_at(
    body: &Map<String, Value>,
    case: &Case,
    at: &str,
) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for (key, value) in body {
        let where_ = format!("{at}.{key}");
        let filled = match value {
            Value::Object(inner) => Value::Object(render_at(inner, case, &where_)?),
            Value::String(s) if s.starts_with(PREFIX) => read(s, case, &where_)?,
            other => other.clone(),
        };
        out.insert(key.clone(), filled);
    }
    Ok(out)
}

fn read(reference: &str, case: &Case, where_: &str) -> Result<Value, String> {
    Ok(match parse(reference, where_)? {
        Reference::Id => Value::String(case.id.clone()),
        Reference::Expected => case.expected.clone().unwrap_or(Value::Null),
        Reference::Context => {
            Value::Array(case.context.iter().cloned().map(Value::String).collect())
        }
        Reference::Keyed { vars, key } => {
            let (name, holder) = if vars {
                ("vars", &case.vars)
            } else {
                ("metadata", &case.metadata)
            };
            match holder.get(key) {
                Some(v) => v.clone(),
                None => {
                    let keys: Vec<&str> = holder.keys().map(String::as_str).collect();
                    let available = if keys.is_empty() {
                        "nothing".to_string()
                    } else {
                        keys.join(", ")
                    };
                    return Err(format!(
                        "case {} has no {name}[{}], which the body asks for as {}. It has: {available}",
                        repr_str(&case.id),
                        repr_str(key),
                        repr_str(reference)
                    ));
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn load_check_accepts_readable_references() {
        let good = [
            json!({"id": "case.id", "q": "case.vars.question"}),
            json!({"e": "case.expected", "c": "case.context", "m": "case.metadata.tier"}),
            json!({"dotted": "case.vars.a.b", "trailing_dot": "case.id."}),
            json!({"literal": "cases are fine", "n": 3, "arr": ["case.nope"], "t": true}),
            json!({"outer": {"inner": {"deep": "case.vars.x"}}}),
        ];
        for body in good {
            assert_eq!(check_body_references(&map(body.clone())), Ok(()), "{body}");
        }
    }

    #[test]
    fn load_check_refuses_what_a_case_cannot_provide() {
        let bad = [
            (
                json!({"question": "case.question"}),
                "body.question is 'case.question', but a case has no field 'question'",
            ),
            (
                json!({"q": "case.vars"}),
                "body.q is 'case.vars', which is the whole case.vars table",
            ),
            (json!({"q": "case.metadata"}), "Write case.metadata.<key>"),
            (json!({"q": "case.vars."}), "whole case.vars table"),
            (
                json!({"q": "case.id.x"}),
                "body.q is 'case.id.x', but case.id is a single value",
            ),
            (
                json!({"q": "case.expected.answer"}),
                "case.expected is a single value",
            ),
            (json!({"q": "case.label"}), "no field 'label'"),
            (json!({"q": "case."}), "no field ''"),
            (json!({"a": {"b": "case.nope"}}), "body.a.b is 'case.nope'"),
        ];
        for (body, want) in bad {
            let got = check_body_references(&map(body.clone())).expect_err("refused");
            assert!(got.contains(want), "{body}: {got}");
            if got.contains("no field") {
                assert!(got.contains(READABLE), "lists what is readable: {got}");
            }
        }
    }

    fn case() -> Case {
        Case {
            id: "c-é".to_string(),
            vars: map(
                json!({"question": "Où est ma commande?", "a.b": 2, "obj": {"z": 1, "a": [1]}}),
            ),
            expected: Some(json!("yes")),
            context: vec!["ctx1".to_string(), "ctx2".to_string()],
            metadata: map(json!({"tier": "gold"})),
            ..Case::default()
        }
    }

    #[test]
    fn render_fills_references_and_keeps_literals() {
        let body = map(json!({
            "id": "case.id",
            "q": "case.vars.question",
            "dotted": "case.vars.a.b",
            "obj": "case.vars.obj",
            "exp": "case.expected",
            "ctx": "case.context",
            "nested": {"tier": "case.metadata.tier", "n": 1.5},
            "arr": ["case.id", 1],
            "lit": "plain",
        }));
        let got = render_body(&body, &case()).expect("renders");
        let want = map(json!({
            "id": "c-é",
            "q": "Où est ma commande?",
            "dotted": 2,
            "obj": {"z": 1, "a": [1]},
            "exp": "yes",
            "ctx": ["ctx1", "ctx2"],
            "nested": {"tier": "gold", "n": 1.5},
            "arr": ["case.id", 1],
            "lit": "plain",
        }));
        assert_eq!(got, want);
        let no_expected = Case {
            expected: None,
            ..case()
        };
        let got = render_body(&map(json!({"e": "case.expected"})), &no_expected).expect("renders");
        assert_eq!(got.get("e"), Some(&Value::Null));
    }

    #[test]
    fn render_errors_a_case_without_the_key() {
        let table = [
            (
                json!({"q": "case.vars.missing"}),
                case(),
                "case 'c-é' has no vars['missing'], which the body asks for as 'case.vars.missing'. It has: a.b, obj, question",
            ),
            (
                json!({"n": {"m": "case.metadata.x"}}),
                Case { id: "c2".to_string(), ..Case::default() },
                "case 'c2' has no metadata['x'], which the body asks for as 'case.metadata.x'. It has: nothing",
            ),
        ];
        for (body, case, want) in table {
            assert_eq!(
                render_body(&map(body.clone()), &case),
                Err(want.to_string())
            );
            assert_eq!(check_case(&map(body), &case), Err(want.to_string()));
        }
    }

    /// The load's check of a case refuses exactly what rendering refuses,
    /// with the same sentence.
    #[test]
    fn the_load_check_of_a_case_says_what_rendering_says() {
        let bodies = [
            json!({"id": "case.id", "q": "case.vars.question", "lit": "x", "n": 1}),
            json!({"n": {"deep": {"m": "case.metadata.tier"}}, "e": "case.expected"}),
            json!({"c": "case.context", "dotted": "case.vars.a.b"}),
            json!({"q": "case.vars.missing"}),
            json!({"q": "case.question"}),
            json!({"q": "case.vars"}),
            json!({"q": "case.id.x"}),
        ];
        let mut tiered = case();
        tiered.metadata.insert("tier".into(), json!("gold"));
        for body in bodies {
            for c in [case(), tiered.clone(), Case::default()] {
                let body = map(body.clone());
                assert_eq!(
                    check_case(&body, &c),
                    render_body(&body, &c).map(|_| ()),
                    "{body:?}"
                );
            }
        }
    }
}
