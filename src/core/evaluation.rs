//! What a pull request changes about the evaluation itself, against its
//! base: the `[suite]` and `[target]` tables of `suite.toml` and the cases
//! of `cases.json` (checks are itemized from the documents, see
//! [`crate::core::compare::RuleChange`]). A regression hidden by rewording
//! a case, pointing `[target]` at another server or sampling less must be
//! listed, not read as "unchanged".
//!
//! Each change names its subject; a value the documents withhold (the
//! endpoint, a header, anything naming a variable with `${…}`) stays
//! withheld: the field is named, never its value. Where the direction is
//! defined the change is labelled loosened or tightened: fewer `samples`, a
//! lower `min_agreement`, a longer `timeout`, `allow_ci_tokens` turned on.
//!
//! Pure: JSON values in (the host parses the files), changes out.

use serde_json::{Map, Value};

use super::compare::Direction;
use super::ratio::parse_fraction;

/// What a change is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A key of `[suite]` (`samples`, `name`, …).
    Suite(String),
    /// A key of `[target]`, dotted below it (`url`, `headers.Authorization`).
    Target(String),
    /// A case, by id.
    Case(String),
    /// The store root: the folder holding `.digline/` (`--root`), moved
    /// against the base, its baseline with it.
    StoreRoot,
    /// The suite file itself: moved (the base's path before), or not at
    /// the base at all (no path before).
    SuiteFile,
    /// The content of the judge anchors file `[suite] judge_anchors`
    /// names on each side: what the judges are read on.
    AnchorsFile,
}

/// How the subject changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Only in the pull request.
    Added,
    /// Only at the base.
    Removed,
    /// On both sides, different.
    Edited,
}

/// One itemized change of what is evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalChange {
    /// What changed.
    pub subject: Subject,
    /// Added, removed or edited.
    pub change: Change,
    /// The base's value as shown (`None`: absent, or withheld).
    pub before: Option<String>,
    /// The pull request's value as shown (`None`: absent, or withheld).
    pub after: Option<String>,
    /// True when the values are withheld (an endpoint, a header, a secret).
    pub withheld: bool,
    /// For an edited case: the fields that differ (`vars`, `expected`, …).
    pub fields: Vec<String>,
    /// Loosened or tightened, where defined.
    pub direction: Option<Direction>,
}

/// The `[suite]` and `[target]` changes between two parsed `suite.toml`
/// files (as JSON), in key order; `[[assertions]]` is left to the
/// documents.
pub fn suite_changes(before: &Map<String, Value>, after: &Map<String, Value>) -> Vec<EvalChange> {
    let empty = Map::new();
    let table = |doc: &'_ Map<String, Value>, key: &str| -> Map<String, Value> {
        doc.get(key)
            .and_then(Value::as_object)
            .unwrap_or(&empty)
            .clone()
    };
    let mut out = Vec::new();
    let (b, a) = (
        flatten(&table(before, "suite")),
        flatten(&table(after, "suite")),
    );
    for (key, old, new) in union(&b, &a) {
        out.push(change(Subject::Suite(key.clone()), old, new, false, || {
            suite_direction(&key, old, new)
        }));
    }
    let (b, a) = (
        flatten(&table(before, "target")),
        flatten(&table(after, "target")),
    );
    for (key, old, new) in union(&b, &a) {
        let withheld = is_withheld(&key, old, new);
        out.push(change(
            Subject::Target(key.clone()),
            old,
            new,
            withheld,
            || target_direction(&key, old, new),
        ));
    }
    out
}

/// The cases added, removed and edited between two `cases.json` arrays
/// (by id; an entry without a string id is skipped), in the pull
/// request's order, removed cases after, in the base's order.
pub fn case_changes(before: &[Value], after: &[Value]) -> Vec<EvalChange> {
    let by_id = |list: &[Value]| -> Vec<(String, Map<String, Value>)> {
        list.iter()
            .filter_map(|c| {
                let obj = c.as_object()?;
                Some((obj.get("id")?.as_str()?.to_string(), obj.clone()))
            })
            .collect()
    };
    let (b, a) = (by_id(before), by_id(after));
    let find = |list: &[(String, Map<String, Value>)], id: &str| {
        list.iter().find(|(i, _)| i == id).map(|(_, c)| c.clone())
    };
    let mut out = Vec::new();
    for (id, case) in &a {
        let subject = Subject::Case(id.clone());
        match find(&b, id) {
            None => out.push(bare(subject, Change::Added)),
            Some(old) => {
                let mut keys: Vec<&String> = old.keys().chain(case.keys()).collect();
                keys.sort();
                keys.dedup();
                let fields: Vec<String> = keys
                    .into_iter()
                    .filter(|k| k.as_str() != "id" && old.get(*k) != case.get(*k))
                    .cloned()
                    .collect();
                if !fields.is_empty() {
                    let mut edit = bare(subject, Change::Edited);
                    edit.direction = case_direction(&old, case);
                    edit.fields = fields;
                    out.push(edit);
                }
            }
        }
    }
    for (id, _) in &b {
        if find(&a, id).is_none() {
            out.push(bare(Subject::Case(id.clone()), Change::Removed));
        }
    }
    out
}

/// The store root moved from `from` (the base's) to `to` (this run's),
/// both relative to the repository.
pub fn store_root_moved(from: &str, to: &str) -> EvalChange {
    EvalChange {
        before: Some(from.to_string()),
        after: Some(to.to_string()),
        ..bare(Subject::StoreRoot, Change::Edited)
    }
}

/// The suite file moved from `from` (the base's path) to `to`, or, with no
/// `from`, a suite file the base does not hold: everything it declares is
/// the pull request's.
pub fn suite_file_moved(from: Option<String>, to: String) -> EvalChange {
    EvalChange {
        change: if from.is_some() {
            Change::Edited
        } else {
            Change::Added
        },
        before: from,
        after: Some(to),
        ..bare(Subject::SuiteFile, Change::Edited)
    }
}

/// The judge anchors file's bytes at the base against the pull request's
/// (`None`: the side names none, or it cannot be read), each shown as 16
/// hex of its bytes — never an answer (payload); `None` when equal. The
/// anchors take no part in `config_hash`, so this is where a pull request
/// that edits them is itemized.
pub fn anchors_changed(before: Option<&[u8]>, after: Option<&[u8]>) -> Option<EvalChange> {
    if before == after {
        return None;
    }
    let shown = |bytes: Option<&[u8]>| bytes.map(|b| super::identity::sha256_hex(b, 8));
    let change = match (before, after) {
        (None, _) => Change::Added,
        (_, None) => Change::Removed,
        _ => Change::Edited,
    };
    Some(EvalChange {
        before: shown(before),
        after: shown(after),
        ..bare(Subject::AnchorsFile, change)
    })
}

fn bare(subject: Subject, change: Change) -> EvalChange {
    EvalChange {
        subject,
        change,
        before: None,
        after: None,
        withheld: false,
        fields: Vec::new(),
        direction: None,
    }
}

fn change(
    subject: Subject,
    old: Option<&Value>,
    new: Option<&Value>,
    withheld: bool,
    direction: impl FnOnce() -> Option<Direction>,
) -> EvalChange {
    let kind = match (old, new) {
        (None, _) => Change::Added,
        (_, None) => Change::Removed,
        _ => Change::Edited,
    };
    let show = |v: Option<&Value>| v.filter(|_| !withheld).map(shown);
    EvalChange {
        before: show(old),
        after: show(new),
        withheld,
        direction: direction(),
        ..bare(subject, kind)
    }
}

/// A value as the suite wrote it: a string bare, anything else as JSON.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Nested tables flattened to dotted keys (`headers.Authorization`).
fn flatten(table: &Map<String, Value>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (key, value) in table {
        match value {
            Value::Object(inner) if !inner.is_empty() => {
                for (k, v) in flatten(inner) {
                    out.push((format!("{key}.{k}"), v));
                }
            }
            other => out.push((key.clone(), other.clone())),
        }
    }
    out
}

/// Every key of either side whose values differ, in key order.
fn union<'a>(
    before: &'a [(String, Value)],
    after: &'a [(String, Value)],
) -> Vec<(String, Option<&'a Value>, Option<&'a Value>)> {
    let get = |list: &'a [(String, Value)], key: &str| {
        list.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    };
    let mut keys: Vec<&String> = before.iter().chain(after).map(|(k, _)| k).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let (old, new) = (get(before, k), get(after, k));
            (old != new).then(|| (k.clone(), old, new))
        })
        .collect()
}

/// The endpoint, every header, and any value naming a variable.
fn is_withheld(key: &str, old: Option<&Value>, new: Option<&Value>) -> bool {
    let names_variable = |v: Option<&Value>| v.is_some_and(|v| shown(v).contains("${"));
    key == "url"
        || key.ends_with("base_url")
        || key == "headers"
        || key.starts_with("headers.")
        || names_variable(old)
        || names_variable(new)
}

fn direction_of(before: f64, after: f64, up_loosens: bool) -> Option<Direction> {
    if after == before || before.is_nan() || after.is_nan() {
        return None;
    }
    Some(if (after > before) == up_loosens {
        Direction::Loosened
    } else {
        Direction::Tightened
    })
}

fn number(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_fraction(s),
        _ => None,
    }
}

/// Fewer samples, a lower agreement or a lower false-alarm rate (a
/// re-asked check then needs more evidence to be worse): easier to pass.
fn suite_direction(key: &str, old: Option<&Value>, new: Option<&Value>) -> Option<Direction> {
    match key {
        // Absent means 1 sample, and no agreement to reach.
        "samples" => direction_of(
            number(old).unwrap_or(1.0),
            number(new).unwrap_or(1.0),
            false,
        ),
        "min_agreement" => direction_of(
            number(old).unwrap_or(1.0),
            number(new).unwrap_or(1.0),
            false,
        ),
        "false_alarm_rate" => direction_of(
            number(old).unwrap_or(crate::core::suite::DEFAULT_FALSE_ALARM_RATE),
            number(new).unwrap_or(crate::core::suite::DEFAULT_FALSE_ALARM_RATE),
            false,
        ),
        _ => None,
    }
}

/// A longer timeout, or credentials allowed in CI: easier to pass.
fn target_direction(key: &str, old: Option<&Value>, new: Option<&Value>) -> Option<Direction> {
    match key {
        "timeout" => direction_of(number(old)?, number(new)?, true),
        // The variables whose credentials may go to the target in CI.
        "allow_ci_tokens" => {
            let names = |v: Option<&Value>| -> Vec<String> {
                match v {
                    Some(Value::Array(list)) => list.iter().map(shown).collect(),
                    Some(Value::Bool(true)) => vec!["*".into()],
                    _ => Vec::new(),
                }
            };
            let (old, new) = (names(old), names(new));
            let grows = new.iter().any(|n| !old.contains(n));
            let shrinks = old.iter().any(|n| !new.contains(n));
            match (grows, shrinks) {
                (true, false) => Some(Direction::Loosened),
                (false, true) => Some(Direction::Tightened),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A case newly suspended is checked no more: loosened; one resumed:
/// tightened. Other edits have no direction.
fn case_direction(old: &Map<String, Value>, new: &Map<String, Value>) -> Option<Direction> {
    match (old.contains_key("suspended"), new.contains_key("suspended")) {
        (false, true) => Some(Direction::Loosened),
        (true, false) => Some(Direction::Tightened),
        _ => None,
    }
}

/// One knob of the pull request's suite that bounds how strict the gate
/// is, as the suite declares it: shown as *not verified against the base*
/// when the base could not be read (a shallow clone), since nothing then
/// says the pull request did not loosen it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knob {
    /// `[suite] false_alarm_rate`, `[[assertions]] helpful threshold`.
    pub what: String,
    /// The value as the suite wrote it.
    pub value: String,
}

/// The `[suite]` keys that set how strict the gate is.
pub const SUITE_KNOBS: [&str; 3] = ["false_alarm_rate", "samples", "min_agreement"];

/// The keys of a check that set how strict it is.
pub const CHECK_KNOBS: [&str; 4] = ["threshold", "tolerance", "samples", "min_agreement"];

/// Every knob a parsed `suite.toml` (as JSON) declares, in file order:
/// `[suite]`'s ([`SUITE_KNOBS`]), then each `[[assertions]]` entry's
/// ([`CHECK_KNOBS`], the check named by `name`, else `type`, else its
/// position). A knob left to its default is not listed: the default is
/// digline's, not the pull request's.
pub fn declared_knobs(suite: &Map<String, Value>) -> Vec<Knob> {
    let mut out = Vec::new();
    if let Some(table) = suite.get("suite").and_then(Value::as_object) {
        for key in SUITE_KNOBS {
            if let Some(value) = table.get(key) {
                out.push(Knob {
                    what: format!("[suite] {key}"),
                    value: shown(value),
                });
            }
        }
    }
    let checks = suite
        .get("assertions")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for (at, check) in checks.iter().enumerate() {
        let Some(check) = check.as_object() else {
            continue;
        };
        let name = check
            .get("name")
            .or_else(|| check.get("type"))
            .and_then(Value::as_str)
            .map_or_else(|| format!("#{}", at + 1), str::to_string);
        for key in CHECK_KNOBS {
            if let Some(value) = check.get(key) {
                out.push(Knob {
                    what: format!("[[assertions]] {name} {key}"),
                    value: shown(value),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn an_anchors_file_edited_added_or_removed_is_itemized_by_digest() {
        assert_eq!(anchors_changed(Some(b"[1]"), Some(b"[1]")), None);
        assert_eq!(anchors_changed(None, None), None);
        let edited = anchors_changed(Some(b"[1]"), Some(b"[2]")).unwrap();
        assert_eq!(
            (edited.subject.clone(), edited.change),
            (Subject::AnchorsFile, Change::Edited)
        );
        assert_eq!(edited.before.as_deref().map(str::len), Some(16));
        assert_ne!(edited.before, edited.after);
        let removed = anchors_changed(Some(b"[1]"), None).unwrap();
        assert_eq!((removed.change, removed.after), (Change::Removed, None));
        let added = anchors_changed(None, Some(b"[1]")).unwrap();
        assert_eq!((added.change, added.before), (Change::Added, None));
    }

    #[test]
    fn declared_knobs_are_listed_in_file_order_and_defaults_are_not() {
        let suite: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "suite": {"name": "s", "samples": 3, "min_agreement": "2/3", "false_alarm_rate": 1e-9},
            "target": {"url": "http://x"},
            "assertions": [
                {"type": "llm_rubric", "name": "helpful", "threshold": 0.7, "tolerance": 0.1},
                {"type": "contains", "needle": "a"},
                {"type": "accuracy", "threshold": "9/10"},
                {"threshold": 0.5}
            ]
        }))
        .unwrap();
        let knobs: Vec<String> = declared_knobs(&suite)
            .into_iter()
            .map(|k| format!("{} = {}", k.what, k.value))
            .collect();
        assert_eq!(
            knobs,
            [
                "[suite] false_alarm_rate = 1e-9",
                "[suite] samples = 3",
                "[suite] min_agreement = 2/3",
                "[[assertions]] helpful threshold = 0.7",
                "[[assertions]] helpful tolerance = 0.1",
                "[[assertions]] accuracy threshold = 9/10",
                "[[assertions]] #4 threshold = 0.5",
            ]
        );
        assert!(declared_knobs(&Map::new()).is_empty());
    }

    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn target_and_suite_fields_are_itemized_with_values_withheld() {
        let before = obj(json!({
            "suite": {"name": "support", "samples": 3, "min_agreement": "3/3"},
            "target": {"url": "http://a/x", "output_path": "data.answer",
                       "headers": {"Authorization": "Bearer ${TOKEN}"}, "timeout": 10},
            "assertions": [{"type": "contains"}]
        }));
        let after = obj(json!({
            "suite": {"name": "support2", "samples": 1},
            "target": {"url": "http://b/x", "output_path": "data.other",
                       "headers": {"Authorization": "Bearer ${OTHER}", "X-Mode": "easy"},
                       "timeout": 60, "allow_ci_tokens": ["GITHUB_TOKEN"]},
            "assertions": [{"type": "equals"}]
        }));
        let got = suite_changes(&before, &after);
        let find = |s: Subject| got.iter().find(|c| c.subject == s).unwrap().clone();
        let samples = find(Subject::Suite("samples".into()));
        assert_eq!(
            (samples.before.as_deref(), samples.after.as_deref()),
            (Some("3"), Some("1"))
        );
        assert_eq!(samples.direction, Some(Direction::Loosened));
        let agreement = find(Subject::Suite("min_agreement".into()));
        assert_eq!(agreement.change, Change::Removed);
        // One sample agrees with itself: 3/3 → (none) has no direction.
        assert_eq!(agreement.direction, None);
        let lower = suite_changes(
            &obj(json!({"suite": {"samples": 3, "min_agreement": "3/3"}})),
            &obj(json!({"suite": {"samples": 3, "min_agreement": "1/3"}})),
        );
        assert_eq!(lower.len(), 1);
        assert_eq!(lower[0].direction, Some(Direction::Loosened));
        assert_eq!(lower[0].after.as_deref(), Some("1/3"));
        // A tiny false-alarm rate lets no re-asked check be worse: loosened.
        let rate = |before: Value, after: Value| {
            suite_changes(
                &obj(json!({ "suite": before })),
                &obj(json!({ "suite": after })),
            )
        };
        let quieter = rate(json!({}), json!({"false_alarm_rate": 1e-9}));
        assert_eq!(quieter[0].direction, Some(Direction::Loosened));
        let stricter = rate(json!({"false_alarm_rate": 0.01}), json!({}));
        assert_eq!(stricter[0].direction, Some(Direction::Tightened));
        let name = find(Subject::Suite("name".into()));
        assert_eq!(name.after.as_deref(), Some("support2"));
        let url = find(Subject::Target("url".into()));
        assert!(url.withheld && url.before.is_none() && url.after.is_none());
        let header = find(Subject::Target("headers.X-Mode".into()));
        assert!(header.withheld);
        assert_eq!(header.change, Change::Added);
        let auth = find(Subject::Target("headers.Authorization".into()));
        assert!(auth.withheld && auth.after.is_none());
        let path = find(Subject::Target("output_path".into()));
        assert_eq!(path.after.as_deref(), Some("data.other"));
        assert_eq!(path.direction, None);
        let timeout = find(Subject::Target("timeout".into()));
        assert_eq!(timeout.direction, Some(Direction::Loosened));
        let tokens = find(Subject::Target("allow_ci_tokens".into()));
        assert_eq!(tokens.direction, Some(Direction::Loosened));
        // Checks are the documents' to itemize; nothing else is listed.
        assert_eq!(got.len(), 9, "{got:?}");
        assert!(suite_changes(&before, &before).is_empty());
    }

    #[test]
    fn cases_added_removed_and_edited_name_their_fields() {
        let before = vec![
            json!({"id": "a", "vars": {"q": "1"}, "expected": "x"}),
            json!({"id": "b", "vars": {"q": "2"}}),
            json!({"id": "c", "vars": {"q": "3"}, "label": "positive"}),
            json!({"id": "d"}),
        ];
        let after = vec![
            json!({"id": "a", "vars": {"q": "1 reworded"}, "expected": "y"}),
            json!({"id": "b", "vars": {"q": "2"}}),
            json!({"id": "c", "vars": {"q": "3"}, "label": "negative", "group": "g"}),
            json!({"id": "d", "suspended": "later"}),
            json!({"id": "e"}),
        ];
        let got = case_changes(&before, &after);
        let ids: Vec<(String, Change, Vec<String>)> = got
            .iter()
            .map(|c| match &c.subject {
                Subject::Case(id) => (id.clone(), c.change, c.fields.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            ids,
            vec![
                (
                    "a".into(),
                    Change::Edited,
                    vec!["expected".into(), "vars".into()]
                ),
                (
                    "c".into(),
                    Change::Edited,
                    vec!["group".into(), "label".into()]
                ),
                ("d".into(), Change::Edited, vec!["suspended".into()]),
                ("e".into(), Change::Added, vec![]),
            ]
        );
        assert_eq!(got[2].direction, Some(Direction::Loosened));
        let removed = case_changes(&after, &before);
        assert!(removed
            .iter()
            .any(|c| c.subject == Subject::Case("e".into()) && c.change == Change::Removed));
    }
}
