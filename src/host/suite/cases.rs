//! Loading `cases.json`: a JSON array of case objects, refused with located
//! sentences when it is anything else.
//!
//! Tolerated (spec over 0.10.0): a UTF-8 BOM and CRLF line endings.
//! Refused: invalid UTF-8 (with the byte offset), invalid JSON (line and
//! column), `NaN`/`Infinity`, a duplicate key inside any object (serde_json
//! would silently keep the last; [`parse_json`] detects it and names the key
//! and entry), a top level that is not an array, an empty array, an entry
//! that is not an object, unknown fields (with the near miss), duplicate ids,
//! and every field rule of `10-suite.md`. A file shaped otherwise
//! (`{id, question}`) is refused, never mapped.
//!
//! Messages name fields and ids, never the values of `vars`, `metadata` or
//! `expected` (payload).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::errors::{LoadError, LoadErrorKind};
use super::fields::unknown_sentence;
use super::paths::inside_root;
use super::{err, io_reason, located};
use crate::core::strict_json::{self, noun, StrictJsonError};
use crate::core::suite::Case;

/// The fields a case may have (0.10.0's `Case`), sorted.
pub const CASE_FIELDS: &[&str] = &[
    "canary",
    "context",
    "expected",
    "group",
    "id",
    "label",
    "metadata",
    "suspended",
    "vars",
];

/// Decode `bytes` as UTF-8 text, dropping a leading BOM.
///
/// # Errors
/// A [`LoadErrorKind::Read`] sentence naming `file` and the byte offset of
/// the first invalid byte, placed at that byte's line and column.
pub fn decode_utf8<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str, LoadError> {
    let (skipped, bytes) = match bytes.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => (3, rest),
        None => (0, bytes),
    };
    std::str::from_utf8(bytes).map_err(|e| {
        // Placed where the bad byte is: the text before it is UTF-8.
        let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
        LoadError::new(
            LoadErrorKind::Read,
            file,
            None,
            None,
            &format!(
                "this file is not UTF-8: the byte at offset {} cannot start or continue a \
                 character. Save it as UTF-8",
                skipped + e.valid_up_to()
            ),
        )
        .at(super::located::line_column(valid, valid.len()))
    })
}

/// The cases file being read: its name and text, which place a refusal.
struct CasesFile<'a> {
    file: &'a str,
    text: &'a str,
}

impl CasesFile<'_> {
    /// A refusal at entry `n` (1-based) and `key` inside it, or at the
    /// file's start.
    fn refuse(
        &self,
        kind: LoadErrorKind,
        n: Option<usize>,
        key: Option<&str>,
        sentence: &str,
    ) -> LoadError {
        let locator = n.map(|n| format!("#{n}"));
        LoadError::new(kind, self.file, locator.as_deref(), key, sentence)
            .at(located::in_cases(self.text, n, key))
    }
}

/// Parse JSON text into a [`Value`], refusing duplicate keys and the
/// non-standard numbers `NaN`/`Infinity`.
///
/// # Errors
/// A [`LoadErrorKind::Syntax`] sentence naming `file`: the line and column
/// of a syntax error, or the duplicated key and (for an array of objects)
/// the 1-based entry holding it.
pub fn parse_json(text: &str, file: &str) -> Result<Value, LoadError> {
    let at = |line, column, sentence: &str| {
        LoadError::new(LoadErrorKind::Syntax, file, None, None, sentence).at((line, column))
    };
    strict_json::parse(text).map_err(|err| match err {
        StrictJsonError::Duplicate { key, entry } => CasesFile { file, text }.refuse(
            LoadErrorKind::Syntax,
            entry,
            Some(&key),
            &format!(
                "the key `{key}` appears twice in one object, and JSON readers disagree on \
                 which one counts. Keep one"
            ),
        ),
        StrictJsonError::NonStandardNumber { line, column } => at(
            line,
            column,
            &format!(
                "line {line}, column {column} holds NaN or Infinity, which JSON does not \
                 have. Write a number, or leave the value out"
            ),
        ),
        StrictJsonError::Syntax {
            message,
            line,
            column,
        } => at(line, column, &format!("this is not valid JSON: {message}")),
    })
}

/// Read the cases from the bytes of a cases file named `file`.
///
/// # Errors
/// A located [`LoadError`] for every rule of `10-suite.md` on cases: each
/// case is checked on its own, and the first refused case carries the
/// others ([`LoadError::further`]).
pub fn parse_cases(bytes: &[u8], file: &str) -> Result<Vec<Case>, LoadError> {
    let text = decode_utf8(bytes, file)?;
    let value = parse_json(text, file)?;
    let at = CasesFile { file, text };
    let Value::Array(entries) = value else {
        return Err(at.refuse(
            LoadErrorKind::Invalid,
            None,
            None,
            &format!(
                "this file holds {}, and a cases file is an array of case objects",
                noun(&value)
            ),
        ));
    };
    if entries.is_empty() {
        return Err(at.refuse(
            LoadErrorKind::Invalid,
            None,
            None,
            "this file holds no cases, and a suite without cases checks nothing",
        ));
    }
    // Each case is checked on its own: every refused case is noted.
    let mut problems = Vec::new();
    let mut cases = Vec::with_capacity(entries.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, mut entry) in entries.into_iter().enumerate() {
        let n = i + 1;
        let case = match parse_case(&mut entry, n, &at) {
            Ok(case) => case,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        if let Some(first) = seen.get(&case.id) {
            problems.push(at.refuse(
                LoadErrorKind::Invalid,
                Some(n),
                Some("id"),
                &format!(
                    "the case id '{}' is already taken by #{first}: ids are how a result \
                     finds its counterpart in the baseline, so each must be unique",
                    case.id
                ),
            ));
            continue;
        }
        seen.insert(case.id.clone(), n);
        cases.push(case);
    }
    match LoadError::all(problems) {
        Some(error) => Err(error),
        None => Ok(cases),
    }
}

/// One case from its entry; what it keeps (id, vars, metadata, expected,
/// context) is moved out of `entry`, not copied.
fn parse_case(entry: &mut Value, n: usize, at: &CasesFile<'_>) -> Result<Case, LoadError> {
    let refuse = |kind: LoadErrorKind, key: Option<&str>, sentence: String| {
        at.refuse(kind, Some(n), key, &sentence)
    };
    let invalid = |key: &str, sentence: String| refuse(LoadErrorKind::Invalid, Some(key), sentence);
    let Value::Object(fields) = entry else {
        return Err(refuse(
            LoadErrorKind::Invalid,
            None,
            format!("this entry is {}, not an object", noun(entry)),
        ));
    };
    let unknown: Vec<&str> = fields
        .keys()
        .map(String::as_str)
        .filter(|k| !CASE_FIELDS.contains(k))
        .collect();
    if let Some(first) = unknown.first() {
        let sentence = unknown_sentence(None, "field", &unknown, CASE_FIELDS);
        return Err(refuse(LoadErrorKind::Unknown, Some(first), sentence));
    }
    let id = match fields.get("id") {
        None => {
            return Err(refuse(
                LoadErrorKind::Missing,
                Some("id"),
                "no `id`, and every case needs one: it pairs the case with the baseline"
                    .to_string(),
            ))
        }
        Some(Value::String(s)) if s.chars().any(|c| c.is_control() && c != '\t') => {
            return Err(invalid(
                "id",
                "`id` holds a control character (a line break, an escape…): an id is \
                 printed in terminals, comments and reports, where it could forge lines. \
                 Use visible characters"
                    .into(),
            ))
        }
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::String(_)) => {
            return Err(invalid(
                "id",
                "`id` is empty, and an id must name the case".into(),
            ))
        }
        Some(other) => {
            return Err(invalid(
                "id",
                format!("`id` is {}, and it has to be a string", noun(other)),
            ))
        }
    };
    let object = |key: &str| -> Result<(), LoadError> {
        match fields.get(key) {
            None | Some(Value::Object(_)) => Ok(()),
            Some(other) => Err(invalid(
                key,
                format!(
                    "case '{id}': `{key}` is {}, and it has to be an object",
                    noun(other)
                ),
            )),
        }
    };
    object("vars")?;
    object("metadata")?;
    match fields.get("expected") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s.is_empty() => return Err(empty_expected(&id, &invalid)),
        Some(Value::Object(m)) if m.is_empty() => return Err(empty_expected(&id, &invalid)),
        Some(Value::String(_) | Value::Object(_)) => {}
        Some(other) => {
            return Err(invalid(
                "expected",
                format!(
                    "case '{id}': `expected` is {}, and it has to be a string or an object",
                    noun(other)
                ),
            ))
        }
    };
    match fields.get("context") {
        None => {}
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {}
        Some(_) => {
            return Err(invalid(
                "context",
                format!("case '{id}': `context` has to be an array of strings"),
            ))
        }
    };
    let optional_text = |key: &str, why: &str| -> Result<Option<String>, LoadError> {
        match fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(Value::String(_)) => {
                Err(invalid(key, format!("case '{id}': `{key}` is empty{why}")))
            }
            Some(other) => Err(invalid(
                key,
                format!(
                    "case '{id}': `{key}` is {}, and it has to be a non-empty string",
                    noun(other)
                ),
            )),
        }
    };
    let suspended = optional_text(
        "suspended",
        ": a suspension nobody can justify is a case quietly dropped. Give the reason",
    )?;
    let group = optional_text("group", ", and a group needs a name")?;
    if let Some(why) = group
        .as_deref()
        .and_then(|g| crate::host::visible::refusal("group", g))
    {
        return Err(invalid("group", format!("case '{id}': {why}")));
    }
    let label = match fields.get("label") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s == "positive" || s == "negative" => Some(s.clone()),
        Some(Value::String(s)) => {
            return Err(invalid(
                "label",
                format!(
                    "case '{id}': `label` is '{s}', and a label is \"positive\" or \"negative\""
                ),
            ))
        }
        Some(other) => {
            return Err(invalid(
                "label",
                format!(
                    "case '{id}': `label` is {}, and a label is \"positive\" or \"negative\"",
                    noun(other)
                ),
            ))
        }
    };
    let canary = match fields.get("canary") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(invalid(
                "canary",
                format!(
                    "case '{id}': `canary` is {}, and it has to be true or false",
                    noun(other)
                ),
            ))
        }
    };
    if canary && group.is_some() {
        return Err(invalid(
            "group",
            format!(
                "case '{id}' is a canary and declares a group: a canary is counted in no \
                 aggregate, so its group would gate nothing. Leave the group unset"
            ),
        ));
    }
    // Checked above: each is absent or of its kind, so moving is all that is left.
    let mut object = |key: &str| match fields.remove(key) {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let (vars, metadata) = (object("vars"), object("metadata"));
    let expected = fields.remove("expected").filter(|v| !v.is_null());
    let context = match fields.remove("context") {
        Some(Value::Array(items)) => items
            .into_iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(Case {
        id,
        vars,
        expected,
        context,
        metadata,
        suspended,
        label,
        group,
        canary,
    })
}

fn empty_expected(id: &str, invalid: &dyn Fn(&str, String) -> LoadError) -> LoadError {
    invalid(
        "expected",
        format!(
            "case '{id}' declares an empty `expected`, which an empty output would match \
             perfectly. Leave it out if there is nothing to compare against: absence is not \
             emptiness"
        ),
    )
}

/// The cases file `cases_rel` names: inside the root, read, parsed.
pub(super) fn read_cases(
    cases_rel: &str,
    suite_dir: &Path,
    root: &Path,
) -> Result<(Vec<crate::core::suite::Case>, String, String, PathBuf), LoadError> {
    let cases_path = inside_root("cases", cases_rel, suite_dir, root)?;
    let cases_name = Path::new(cases_rel).file_name().map_or_else(
        || cases_rel.to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let cases_bytes = std::fs::read(&cases_path).map_err(|e| {
        err(
            LoadErrorKind::Read,
            Some("[suite]"),
            Some("cases"),
            &format!(
                "the cases file {cases_rel} could not be read at {}: {}",
                cases_path.display(),
                io_reason(&e)
            ),
        )
    })?;
    let cases = parse_cases(&cases_bytes, &cases_name)?;
    let text = decode_utf8(&cases_bytes, &cases_name)?;
    Ok((cases, cases_name.clone(), text.to_string(), cases_path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case is checked on its own: every refused case and every
    /// taken id is reported in one run, in file order.
    #[test]
    fn every_refused_case_is_reported_at_once() {
        let text = r#"[{"id": "a", "expectd": "x"}, {"id": "b"}, {"vars": {}}, {"id": "b"}]"#;
        let e = parse_cases(text.as_bytes(), "cases.json").unwrap_err();
        let sentences: Vec<&str> = e.problems().map(|p| p.message.as_str()).collect();
        assert_eq!(
            sentences,
            [
                "cases.json:1:14 #1: no such field `expectd`. Did you mean `expected`?",
                "cases.json:1:44 #3: no `id`, and every case needs one: it pairs the case with the \
                 baseline",
                "cases.json:1:59 #4: the case id 'b' is already taken by #2: ids are how a result \
                 finds its counterpart in the baseline, so each must be unique",
            ]
        );
    }

    #[test]
    fn good_files_load() {
        let table: &[(&[u8], usize)] = &[
            (br#"[{"id": "a"}]"#, 1),
            (b"\xef\xbb\xbf[{\"id\": \"a\"}]", 1),
            (b"[\r\n {\"id\": \"a\",\r\n  \"vars\": {\"q\": \"x\"}},\r\n {\"id\": \"b\"}\r\n]\r\n", 2),
            (
                br#"[{"id": "a", "vars": {"q": 1}, "expected": {"k": 1}, "context": ["c"],
                   "metadata": {"m": null}, "suspended": "flaky", "label": "negative",
                   "group": "g", "canary": false}]"#,
                1,
            ),
            (br#"[{"id": "a", "canary": true, "expected": "yes"}]"#, 1),
        ];
        for (bytes, count) in table {
            let cases = parse_cases(bytes, "cases.json")
                .unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(bytes)));
            assert_eq!(cases.len(), *count);
        }
        let cases = parse_cases(
            br#"[{"id": "a", "expected": "x", "context": ["c1", "c2"], "label": "positive"}]"#,
            "cases.json",
        )
        .unwrap();
        assert_eq!(cases[0].expected, Some(Value::String("x".into())));
        assert_eq!(cases[0].context, vec!["c1".to_string(), "c2".to_string()]);
        assert_eq!(cases[0].label.as_deref(), Some("positive"));
    }

    #[test]
    fn bad_files_are_refused_with_a_located_sentence() {
        let table: &[(&[u8], &str)] = &[
            (b"[{\"id\": \"a\xff\"}]", "offset 10"),
            (b"\xef\xbb\xbf[{\"id\": \"a\xff\"}]", "offset 13"),
            (
                b"{\"id\": \"a\"}",
                "cases.json:1:1: this file holds an object",
            ),
            (b"[]", "holds no cases"),
            (b"[{\"id\": 1,}]", "not valid JSON"),
            (
                b"[{\"id\": \"r1\", \"id\": \"r2\"}]",
                "cases.json:1:3 #1: the key `id` appears twice",
            ),
            (
                b"[{\"id\": \"a\"}, {\"id\": \"b\", \"vars\": {\"x\": 1, \"x\": 2}}]",
                "cases.json:1:15 #2: the key `x` appears twice",
            ),
            (
                b"[{\"id\": \"a\", \"metadata\": {\"x\": NaN}}]",
                "holds NaN or Infinity",
            ),
            (
                b"[{\"id\": \"a\", \"metadata\": {\"x\": -Infinity}}]",
                "holds NaN or Infinity",
            ),
            (
                b"[{\"id\": \"a\"}, \"b\"]",
                "cases.json:1:15 #2: this entry is a string, not an object",
            ),
            (
                b"[{\"id\": \"a\", \"expectd\": \"x\"}]",
                "#1: no such field `expectd`. Did you mean `expected`?",
            ),
            (
                b"[{\"id\": \"a\", \"question\": \"x\"}]",
                "no such field `question`. Known fields: `canary`",
            ),
            (b"[{\"vars\": {}}]", "#1: no `id`"),
            (b"[{\"id\": \"\"}]", "`id` is empty"),
            (b"[{\"id\": 3}]", "`id` is a number"),
            (
                b"[{\"id\": \"r1\"}, {\"id\": \"r1\"}]",
                "#2: the case id 'r1' is already taken by #1",
            ),
            (b"[{\"id\": \"a\", \"expected\": \"\"}]", "empty `expected`"),
            (b"[{\"id\": \"a\", \"expected\": {}}]", "empty `expected`"),
            (
                b"[{\"id\": \"a\", \"expected\": [1]}]",
                "`expected` is an array",
            ),
            (
                b"[{\"id\": \"a\", \"context\": \"c\"}]",
                "`context` has to be an array of strings",
            ),
            (b"[{\"id\": \"a\", \"vars\": []}]", "`vars` is an array"),
            (
                b"[{\"id\": \"a\", \"metadata\": \"m\"}]",
                "`metadata` is a string",
            ),
            (
                b"[{\"id\": \"a\", \"suspended\": \"\"}]",
                "`suspended` is empty",
            ),
            (
                b"[{\"id\": \"a\", \"label\": \"maybe\"}]",
                "`label` is 'maybe'",
            ),
            (b"[{\"id\": \"a\", \"group\": \"\"}]", "`group` is empty"),
            (
                b"[{\"id\": \"a\", \"canary\": \"yes\"}]",
                "`canary` is a string",
            ),
            (
                b"[{\"id\": \"c\", \"canary\": true, \"group\": \"g\"}]",
                "is a canary and declares a group",
            ),
        ];
        for (bytes, fragment) in table {
            let err = parse_cases(bytes, "cases.json").expect_err(&String::from_utf8_lossy(bytes));
            assert!(
                err.message.contains(fragment),
                "{}: {}",
                String::from_utf8_lossy(bytes),
                err.message
            );
            assert!(err.message.starts_with("cases.json"), "{}", err.message);
        }
    }

    #[test]
    fn messages_never_quote_vars_metadata_or_expected() {
        let secret = "s3cr3t-payload";
        let inputs = [
            format!(r#"[{{"id": "a", "vars": {{"k": "{secret}"}}, "expected": ""}}]"#),
            format!(r#"[{{"id": "a", "metadata": {{"k": "{secret}"}}, "context": "x"}}]"#),
            format!(r#"[{{"id": "a", "expected": "{secret}", "label": 3}}]"#),
        ];
        for input in inputs {
            let err = parse_cases(input.as_bytes(), "cases.json").unwrap_err();
            assert!(!err.message.contains(secret), "{}", err.message);
        }
    }
}
