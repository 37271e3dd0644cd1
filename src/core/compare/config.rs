//! What surrounds the verdicts: how the target and the judges were
//! configured, and which declared files (artifacts) moved.
//!
//! Pure. A configuration side is read from a document's `target_config` or
//! `judge_config` object (`{"identities"?, "values"?, "withheld"?}`); an
//! artifact from `artifacts` (`{path: {"sha", "text"?} | {"withheld": true}}`).
//! The rules are digline 0.10.0's: a side that recorded nothing makes every
//! field `unknown`, a withheld field is `unknown`, and values compare with
//! Python's `==` (`1 == 1.0 == true`).

use std::collections::BTreeSet;

use crate::core::python::eq::python_eq;
use crate::core::strict_json::strings;
use serde_json::{Map, Value};

/// The field name a judge identity row carries (`field: "judge"`).
pub const IDENTITY_FIELD: &str = "judge";

/// What happened to one configuration field between the baseline and the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigOutcome {
    /// Recorded on both sides with equal values.
    Same,
    /// Recorded on both sides with different values.
    Changed,
    /// Recorded in the run only.
    New,
    /// Recorded in the baseline only.
    Missing,
    /// Withheld on a side, or one side recorded no configuration at all.
    Unknown,
}

impl ConfigOutcome {
    /// The lowercase word printed in `--json full` (`same`, `changed`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigOutcome::Same => "same",
            ConfigOutcome::Changed => "changed",
            ConfigOutcome::New => "new",
            ConfigOutcome::Missing => "missing",
            ConfigOutcome::Unknown => "unknown",
        }
    }

    /// True for `changed`, `new` and `missing`: an established change.
    pub fn is_change(self) -> bool {
        matches!(
            self,
            ConfigOutcome::Changed | ConfigOutcome::New | ConfigOutcome::Missing
        )
    }
}

/// One row of a configuration comparison: a parameter (`model`,
/// `temperature`, …) or, with `field == "judge"`, one judge identity.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigDelta {
    /// The parameter name, or [`IDENTITY_FIELD`] for an identity row.
    pub field: String,
    /// What happened to it.
    pub outcome: ConfigOutcome,
    /// The baseline's value (`Value::Null` when it recorded none).
    pub before: Value,
    /// The run's value (`Value::Null` when it recorded none).
    pub after: Value,
    /// True when either side withheld the value.
    pub withheld: bool,
}

/// One side's configuration as read from `target_config` / `judge_config`.
#[derive(Clone, Debug, Default, PartialEq)]
struct SystemConfig {
    identities: BTreeSet<String>,
    values: Map<String, Value>,
    withheld: BTreeSet<String>,
}

impl SystemConfig {
    /// Reads the object; unexpected shapes count as not recorded.
    fn read(raw: &Map<String, Value>) -> SystemConfig {
        let listed = |key: &str| -> BTreeSet<String> { strings(raw.get(key)) };
        SystemConfig {
            identities: listed("identities"),
            values: raw
                .get("values")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            withheld: listed("withheld"),
        }
    }

    fn recorded(&self) -> bool {
        !(self.identities.is_empty() && self.values.is_empty() && self.withheld.is_empty())
    }
}

/// Compares two configuration objects (`now` from the run, `before` from the
/// baseline) field by field.
///
/// Returns no rows when neither side recorded anything. Otherwise one row per
/// judge identity (sorted), then one row per field in the union of `values`
/// and `withheld`, sorted by name — with more than one identity on a side,
/// only the judges' gateways (`<identity>.base_url`).
pub fn config_deltas(now: &Map<String, Value>, before: &Map<String, Value>) -> Vec<ConfigDelta> {
    let now = SystemConfig::read(now);
    let before = SystemConfig::read(before);
    if !now.recorded() && !before.recorded() {
        return Vec::new();
    }
    let both = now.recorded() && before.recorded();
    let mut rows: Vec<ConfigDelta> = now
        .identities
        .union(&before.identities)
        .map(|label| {
            let here = now.identities.contains(label);
            let there = before.identities.contains(label);
            let outcome = match (both, here, there) {
                (false, _, _) => ConfigOutcome::Unknown,
                (true, true, true) => ConfigOutcome::Same,
                (true, true, false) => ConfigOutcome::New,
                _ => ConfigOutcome::Missing,
            };
            let named = |present: bool| {
                if present {
                    Value::String(label.clone())
                } else {
                    Value::Null
                }
            };
            ConfigDelta {
                field: IDENTITY_FIELD.to_string(),
                outcome,
                before: named(there),
                after: named(here),
                withheld: false,
            }
        })
        .collect();
    // With several judges on a side, only each judge's gateway is compared
    // (`<identity>.base_url`): the other values are per judge and not kept.
    let several = now.identities.len() > 1 || before.identities.len() > 1;
    let fields: BTreeSet<&String> = now
        .values
        .keys()
        .chain(before.values.keys())
        .chain(now.withheld.iter())
        .chain(before.withheld.iter())
        .filter(|name| !several || name.ends_with(".base_url"))
        .collect();
    for name in fields {
        let withheld = now.withheld.contains(name) || before.withheld.contains(name);
        let after = now.values.get(name);
        let prior = before.values.get(name);
        let outcome = if withheld || !both {
            ConfigOutcome::Unknown
        } else {
            match (prior, after) {
                (None, _) => ConfigOutcome::New,
                (_, None) => ConfigOutcome::Missing,
                (Some(a), Some(b)) if python_eq(a, b) => ConfigOutcome::Same,
                _ => ConfigOutcome::Changed,
            }
        };
        rows.push(ConfigDelta {
            field: name.clone(),
            outcome,
            before: prior.cloned().unwrap_or(Value::Null),
            after: after.cloned().unwrap_or(Value::Null),
            withheld,
        });
    }
    rows
}

/// What happened to one declared file between the baseline and the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArtifactOutcome {
    /// Same digest on both sides.
    Same,
    /// Different digests.
    Changed,
    /// Declared in the run only.
    New,
    /// Declared in the baseline only.
    Missing,
    /// Withheld on a side: whether it moved cannot be known.
    Unknown,
}

/// One declared file compared by digest. The texts are payload kept only so
/// the terminal can print a `+N −M lines` tally; no JSON carries them.
#[derive(Clone, Debug, PartialEq)]
pub struct ArtifactDelta {
    /// The declared path.
    pub path: String,
    /// What happened to it.
    pub outcome: ArtifactOutcome,
    /// The baseline's recorded text, if any.
    pub before_text: Option<String>,
    /// The run's recorded text, if any.
    pub after_text: Option<String>,
    /// True when either side was withheld (redacted).
    pub withheld: bool,
}

/// Compares the `artifacts` objects of the run (`now`) and the baseline
/// (`before`), one row per path in the union, sorted by path.
pub fn artifact_deltas(
    now: &Map<String, Value>,
    before: &Map<String, Value>,
) -> Vec<ArtifactDelta> {
    let paths: BTreeSet<&String> = now.keys().chain(before.keys()).collect();
    let is_withheld = |entry: Option<&Value>| {
        entry
            .and_then(|e| e.get("withheld"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let sha = |entry: &Value| entry.get("sha").and_then(Value::as_str).map(str::to_string);
    let text = |entry: Option<&Value>| {
        entry
            .and_then(|e| e.get("text"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    paths
        .into_iter()
        .map(|path| {
            let after = now.get(path);
            let prior = before.get(path);
            let withheld = is_withheld(after) || is_withheld(prior);
            let outcome = match (withheld, prior, after) {
                (true, _, _) => ArtifactOutcome::Unknown,
                (false, None, _) => ArtifactOutcome::New,
                (false, _, None) => ArtifactOutcome::Missing,
                (false, Some(p), Some(a)) => {
                    if sha(p) == sha(a) {
                        ArtifactOutcome::Same
                    } else {
                        ArtifactOutcome::Changed
                    }
                }
            };
            ArtifactDelta {
                path: path.clone(),
                outcome,
                before_text: text(prior),
                after_text: text(after),
                withheld,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_several_judges_each_gateway_is_compared() {
        let side = |url: Option<&str>| -> Map<String, Value> {
            let mut v = json!({"identities": ["anthropic/h", "openai/m"]});
            if let Some(url) = url {
                v["values"] = json!({"openai/m.base_url": url});
            }
            v.as_object().unwrap().clone()
        };
        let moved = config_deltas(&side(Some("10.0.0.9:4000")), &side(None));
        let gateway: Vec<_> = moved.iter().filter(|d| d.field != IDENTITY_FIELD).collect();
        assert_eq!(gateway.len(), 1, "{moved:?}");
        assert_eq!(gateway[0].field, "openai/m.base_url");
        assert_eq!(gateway[0].outcome, ConfigOutcome::New);
        let changed = config_deltas(&side(Some("10.0.0.9:4000")), &side(Some("127.0.0.1:1")));
        assert!(changed
            .iter()
            .any(|d| d.field == "openai/m.base_url" && d.outcome == ConfigOutcome::Changed));
        let same = config_deltas(&side(Some("127.0.0.1:1")), &side(Some("127.0.0.1:1")));
        assert!(same.iter().all(|d| !d.outcome.is_change()), "{same:?}");
    }
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn config_rows_follow_the_rules() {
        let stub = |model: &str| json!({"values": {"model": model, "provider": "stub", "temperature": 0.0}});
        type Row = (
            &'static str,
            &'static str,
            Value,
            Value,
            Vec<(&'static str, ConfigOutcome)>,
        );
        let table: Vec<Row> = vec![
            ("nothing on either side", "", json!({}), json!({}), vec![]),
            (
                "model moved",
                "",
                stub("stub-2"),
                stub("stub-1"),
                vec![
                    ("model", ConfigOutcome::Changed),
                    ("provider", ConfigOutcome::Same),
                    ("temperature", ConfigOutcome::Same),
                ],
            ),
            (
                "legacy baseline records nothing",
                "",
                stub("stub-2"),
                json!({}),
                vec![
                    ("model", ConfigOutcome::Unknown),
                    ("provider", ConfigOutcome::Unknown),
                    ("temperature", ConfigOutcome::Unknown),
                ],
            ),
            (
                "new, missing, withheld, 1 == 1.0 == true",
                "",
                json!({"values": {"a": 1, "b": true, "n": 2}, "withheld": ["base_url"]}),
                json!({"values": {"a": 1.0, "b": 1, "m": 3}}),
                vec![
                    ("a", ConfigOutcome::Same),
                    ("b", ConfigOutcome::Same),
                    ("base_url", ConfigOutcome::Unknown),
                    ("m", ConfigOutcome::Missing),
                    ("n", ConfigOutcome::New),
                ],
            ),
            (
                "judge identities, one each",
                "",
                json!({"identities": ["x/b"], "values": {"model": "b"}}),
                json!({"identities": ["x/a"], "values": {"model": "a"}}),
                vec![
                    ("judge", ConfigOutcome::Missing),
                    ("judge", ConfigOutcome::New),
                    ("model", ConfigOutcome::Changed),
                ],
            ),
            (
                "two identities stop after the identity rows",
                "",
                json!({"identities": ["x/a", "x/b"]}),
                json!({"identities": ["x/a"], "values": {"model": "a"}}),
                vec![
                    ("judge", ConfigOutcome::Same),
                    ("judge", ConfigOutcome::New),
                ],
            ),
        ];
        for (name, _, now, before, want) in table {
            let got: Vec<(String, ConfigOutcome)> = config_deltas(&obj(now), &obj(before))
                .into_iter()
                .map(|d| (d.field, d.outcome))
                .collect();
            let want: Vec<(String, ConfigOutcome)> =
                want.into_iter().map(|(f, o)| (f.to_string(), o)).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn artifacts_compare_by_digest() {
        let now = obj(json!({
            "a.md": {"sha": "1", "text": "x"},
            "b.md": {"sha": "2"},
            "c.md": {"withheld": true},
            "e.md": {"sha": "5"}
        }));
        let before = obj(json!({
            "a.md": {"sha": "1", "text": "x"},
            "b.md": {"sha": "3"},
            "c.md": {"sha": "4"},
            "d.md": {"sha": "4"}
        }));
        let got: Vec<(String, ArtifactOutcome)> = artifact_deltas(&now, &before)
            .into_iter()
            .map(|d| (d.path, d.outcome))
            .collect();
        let want = [
            ("a.md", ArtifactOutcome::Same),
            ("b.md", ArtifactOutcome::Changed),
            ("c.md", ArtifactOutcome::Unknown),
            ("d.md", ArtifactOutcome::Missing),
            ("e.md", ArtifactOutcome::New),
        ];
        let want: Vec<(String, ArtifactOutcome)> =
            want.iter().map(|(p, o)| (p.to_string(), *o)).collect();
        assert_eq!(got, want);
    }
}
