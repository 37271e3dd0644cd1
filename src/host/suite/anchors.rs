//! Loading the judge anchors file `[suite] judge_anchors` names: a JSON
//! array of `{"check", "answer", "vars", "context", "label"}`, each naming
//! a judged check of the suite, refused with located sentences when it is
//! anything else (the cases file's rules: UTF-8, strict JSON, no duplicate
//! key, entries placed by [`located::in_cases`]).
//!
//! Messages name fields and checks, never an anchor's `answer`, `vars` or
//! `context` (payload).

use std::path::Path;

use serde_json::{Map, Value};

use super::cases::{decode_utf8, parse_json};
use super::errors::{LoadError, LoadErrorKind};
use super::fields::unknown_sentence;
use super::paths::inside_root;
use super::{err, io_reason, located};
use crate::core::anchors::{Anchor, Label};
use crate::core::strict_json::noun;

/// The fields an anchor may have, sorted.
pub const ANCHOR_FIELDS: &[&str] = &["answer", "check", "context", "label", "vars"];

/// The anchors file `written` names: inside the root, read, parsed, each
/// `check` one of `judged` (the suite's judged checks, by name).
pub(super) fn read_anchors(
    written: &str,
    suite_dir: &Path,
    root: &Path,
    judged: &[&str],
) -> Result<(Vec<Anchor>, std::path::PathBuf), LoadError> {
    let path = inside_root("judge_anchors", written, suite_dir, root)?;
    let name = Path::new(written)
        .file_name()
        .map_or_else(|| written.to_string(), |n| n.to_string_lossy().into_owned());
    let bytes = std::fs::read(&path).map_err(|e| {
        err(
            LoadErrorKind::Read,
            Some("[suite]"),
            Some("judge_anchors"),
            &format!(
                "the judge anchors file {written} could not be read at {}: {}",
                path.display(),
                io_reason(&e)
            ),
        )
    })?;
    Ok((parse_anchors(&bytes, &name, judged)?, path))
}

/// The anchors in the bytes of an anchors file named `file`.
///
/// # Errors
/// A located [`LoadError`]: not UTF-8, not JSON, not an array, an empty
/// array, an entry that is not an object, an unknown field (near miss), a
/// `check` that names no judged check (near miss), an empty or
/// whitespace-only `answer`, a `label` other than "pass" or "fail" (null
/// included: an unlabelled anchor has no `label`), `vars` not an object, `context`
/// not strings. Every refused entry is noted.
pub fn parse_anchors(bytes: &[u8], file: &str, judged: &[&str]) -> Result<Vec<Anchor>, LoadError> {
    let text = decode_utf8(bytes, file)?;
    let value = parse_json(text, file)?;
    let refuse = |n: Option<usize>, key: Option<&str>, kind, sentence: &str| {
        let locator = n.map(|n| format!("#{n}"));
        LoadError::new(kind, file, locator.as_deref(), key, sentence)
            .at(located::in_cases(text, n, key))
    };
    let Value::Array(entries) = value else {
        return Err(refuse(
            None,
            None,
            LoadErrorKind::Invalid,
            &format!(
                "this file holds {}, and a judge anchors file is an array of \
                 {{\"check\", \"answer\", \"label\"}} objects",
                noun(&value)
            ),
        ));
    };
    if entries.is_empty() {
        return Err(refuse(
            None,
            None,
            LoadErrorKind::Invalid,
            "this file holds no anchors, and a judge with no anchors cannot be seen to move. \
             Add labelled answers, or drop `judge_anchors`",
        ));
    }
    let mut problems = Vec::new();
    let mut anchors = Vec::with_capacity(entries.len());
    for (i, entry) in entries.into_iter().enumerate() {
        let n = i + 1;
        match anchor(entry, judged) {
            Ok(anchor) => anchors.push(anchor),
            Err((kind, key, sentence)) => {
                problems.push(refuse(Some(n), key.as_deref(), kind, &sentence));
            }
        }
    }
    match LoadError::all(problems) {
        Some(error) => Err(error),
        None => Ok(anchors),
    }
}

/// A refusal of one entry: its kind, the key it blames, the sentence.
type Refusal = (LoadErrorKind, Option<String>, String);

fn anchor(entry: Value, judged: &[&str]) -> Result<Anchor, Refusal> {
    let invalid =
        |key: &str, sentence: String| (LoadErrorKind::Invalid, Some(key.to_string()), sentence);
    // "`key` is <what it is>, and <what it has to be>".
    let wrong = |key: &str, other: &Value, must: &str| {
        invalid(key, format!("`{key}` is {}, and {must}", noun(other)))
    };
    let Value::Object(mut fields) = entry else {
        return Err((
            LoadErrorKind::Invalid,
            None,
            format!("this entry is {}, not an object", noun(&entry)),
        ));
    };
    let unknown: Vec<&str> = fields
        .keys()
        .map(String::as_str)
        .filter(|k| !ANCHOR_FIELDS.contains(k))
        .collect();
    if let Some(first) = unknown.first() {
        let sentence = unknown_sentence(None, "field", &unknown, ANCHOR_FIELDS);
        return Err((LoadErrorKind::Unknown, Some(first.to_string()), sentence));
    }
    let check = match fields.remove("check") {
        None => {
            return Err((
                LoadErrorKind::Missing,
                Some("check".into()),
                "no `check`, and every anchor names the judged check that grades it".into(),
            ))
        }
        Some(Value::String(name)) if judged.contains(&name.as_str()) => name,
        Some(Value::String(name)) => {
            let known = if judged.is_empty() {
                "This suite has no judged check (llm_rubric, faithfulness), so it has no \
                 judge to anchor"
                    .to_string()
            } else {
                unknown_sentence(None, "judged check", &[name.as_str()], judged)
            };
            return Err(invalid(
                "check",
                format!("`check` names no judged check of this suite: {known}"),
            ));
        }
        Some(other) => return Err(wrong("check", &other, "it has to name a judged check")),
    };
    let answer = match fields.remove("answer") {
        None => {
            return Err((
                LoadErrorKind::Missing,
                Some("answer".into()),
                "no `answer`, and an anchor is a fixed answer for the judge to grade".into(),
            ))
        }
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(Value::String(s)) if s.is_empty() => {
            return Err(invalid("answer", "`answer` is empty".into()));
        }
        Some(Value::String(_)) => {
            return Err(invalid(
                "answer",
                "`answer` is only whitespace, and an anchor is an answer for the judge to grade"
                    .into(),
            ));
        }
        Some(other) => return Err(wrong("answer", &other, "it has to be a string")),
    };
    let vars = match fields.remove("vars") {
        None => Map::new(),
        Some(Value::Object(map)) => map,
        Some(other) => return Err(wrong("vars", &other, "it has to be an object")),
    };
    let context = match fields.remove("context") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Some(_) => {
            return Err(invalid(
                "context",
                "`context` has to be an array of strings".into(),
            ))
        }
    };
    let label = match fields.remove("label") {
        None => None,
        Some(Value::Null) => {
            return Err(invalid(
                "label",
                "`label` is null, and a label is \"pass\" or \"fail\": leave `label` out of \
                 an anchor no person labelled"
                    .into(),
            ));
        }
        Some(Value::String(s)) if s == "pass" => Some(Label::Pass),
        Some(Value::String(s)) if s == "fail" => Some(Label::Fail),
        Some(Value::String(s)) => {
            let near = crate::host::near_miss::did_you_mean(&s, &["pass", "fail"])
                .map_or(String::new(), |m| format!(" (did you mean \"{m}\"?)"));
            return Err(invalid(
                "label",
                format!("`label` is '{s}', and a label is \"pass\" or \"fail\"{near}"),
            ));
        }
        Some(other) => return Err(wrong("label", &other, "a label is \"pass\" or \"fail\"")),
    };
    Ok(Anchor {
        check,
        answer,
        vars,
        context,
        label,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const JUDGED: &[&str] = &["helpful", "grounded"];

    fn refused(text: &str) -> String {
        parse_anchors(text.as_bytes(), "judge-anchors.json", JUDGED)
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn a_good_file_loads_every_field() {
        let text = r#"[
  {"check": "helpful", "answer": "Paris.", "vars": {"q": "capital?"}, "label": "pass"},
  {"check": "grounded", "answer": "x", "context": ["a", "b"], "label": "fail"},
  {"check": "helpful", "answer": "unlabelled"}
]"#;
        let anchors = parse_anchors(text.as_bytes(), "a.json", JUDGED).expect("loads");
        assert_eq!(anchors.len(), 3);
        assert_eq!(anchors[0].label, Some(Label::Pass));
        assert_eq!(anchors[0].vars["q"], "capital?");
        assert_eq!(anchors[1].context, vec!["a", "b"]);
        assert_eq!(anchors[1].label, Some(Label::Fail));
        assert_eq!(anchors[2].label, None);
    }

    #[test]
    fn an_unknown_key_is_refused_at_its_place_with_the_near_miss() {
        let message =
            refused("[\n  {\"check\": \"helpful\", \"answer\": \"a\",\n   \"lable\": \"pass\"}\n]");
        assert_eq!(
            message,
            "judge-anchors.json:3:4 #1: no such field `lable`. Did you mean `label`?"
        );
    }

    #[test]
    fn a_check_that_is_not_judged_is_refused_with_the_near_miss() {
        let message = refused("[{\"check\": \"helpfull\", \"answer\": \"a\"}]");
        assert_eq!(
            message,
            "judge-anchors.json:1:3 #1: `check` names no judged check of this suite: no such \
             judged check `helpfull`. Did you mean `helpful`?"
        );
        let none = parse_anchors(b"[{\"check\": \"x\", \"answer\": \"a\"}]", "f.json", &[])
            .expect_err("refused")
            .to_string();
        assert!(none.contains("has no judged check"), "{none}");
    }

    #[test]
    fn a_bad_label_an_empty_list_and_a_bad_shape_are_refused() {
        let message =
            refused("[{\"check\": \"helpful\", \"answer\": \"a\", \"label\": \"passed\"}]");
        assert_eq!(
            message,
            "judge-anchors.json:1:38 #1: `label` is 'passed', and a label is \"pass\" or \
             \"fail\" (did you mean \"pass\"?)"
        );
        assert_eq!(
            refused("  []"),
            "judge-anchors.json:1:3: this file holds no anchors, and a judge with no anchors \
             cannot be seen to move. Add labelled answers, or drop `judge_anchors`"
        );
        assert!(refused("{}").starts_with("judge-anchors.json:1:1: this file holds an object"));
        assert!(refused("[{\"check\": \"helpful\"}]").contains("no `answer`"));
        assert!(refused("[{\"answer\": \"a\"}]").contains("no `check`"));
        assert!(
            refused("[{\"check\": \"helpful\", \"answer\": \"a\", \"vars\": []}]")
                .contains("`vars` is an array")
        );
        assert!(
            refused("[{\"check\": \"helpful\", \"answer\": \"a\", \"check\": \"grounded\"}]")
                .contains("appears twice")
        );
    }

    #[test]
    fn a_whitespace_answer_and_a_null_label_are_refused_at_their_place() {
        assert_eq!(
            refused("[{\"check\": \"helpful\", \"answer\": \"   \"}]"),
            "judge-anchors.json:1:23 #1: `answer` is only whitespace, and an anchor is an \
             answer for the judge to grade"
        );
        assert_eq!(
            refused("[{\"check\": \"helpful\", \"answer\": \"a\",\n  \"label\": null}]"),
            "judge-anchors.json:2:3 #1: `label` is null, and a label is \"pass\" or \"fail\": \
             leave `label` out of an anchor no person labelled"
        );
    }

    #[test]
    fn a_byte_that_is_not_utf8_is_placed_at_its_line_and_column() {
        // The 0xFF is byte 38: line 2, after 35 characters of it (é is one).
        let bytes = b"[\n  {\"check\": \"helpful\", \"answer\": \"\xc3\xa9\xff\"}]";
        let message = parse_anchors(bytes, "judge-anchors.json", JUDGED)
            .expect_err("refused")
            .to_string();
        assert_eq!(
            message,
            "judge-anchors.json:2:36: this file is not UTF-8: the byte at offset 38 cannot start \
             or continue a character. Save it as UTF-8"
        );
    }

    #[test]
    fn a_refusal_never_repeats_the_answer() {
        let message =
            refused("[{\"check\": \"nope\", \"answer\": \"SECRET-ANSWER\", \"label\": 3}]");
        assert!(!message.contains("SECRET-ANSWER"), "{message}");
    }
}
