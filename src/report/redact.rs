//! The redacted form of a run document: what may cross the perimeter.
//!
//! `report --redacted` (and the gate, unless told otherwise) drops every
//! payload field before rendering: judge reasons, suspension reasons,
//! recorded responses, run metadata, string verdict metadata and artifact
//! texts; perimeter configuration fields move to `withheld`. Names, ids,
//! statuses, scores, thresholds, tolerances and measured numbers stay.
//! Idempotent; never widens. Pure.

use serde_json::{json, Map, Value};

use crate::core::document::RunDocument;
use crate::core::strict_json::strings;

/// Configuration fields withheld on every redaction.
const PERIMETER: [&str; 2] = ["base_url", "fingerprint"];

/// True for a perimeter field: `base_url`, `fingerprint`, or one judge's
/// among several (`openai/gpt-4o-mini.base_url`).
fn is_perimeter(field: &str) -> bool {
    PERIMETER.iter().any(|p| {
        field == *p
            || field
                .strip_suffix(p)
                .is_some_and(|head| head.ends_with('.'))
    })
}

/// Configuration fields also withheld when the side names an endpoint (`base_url`).
const ENDPOINT_BOUND: [&str; 5] = [
    "resolved_model",
    "input_per_mtok",
    "output_per_mtok",
    "cache_read_per_mtok",
    "cache_write_per_mtok",
];

/// `doc` with every payload field dropped and `redacted` set.
pub fn redact(doc: &RunDocument) -> RunDocument {
    redact_owned(doc.clone())
}

/// [`redact`] of a document the caller gives up: stripped in place, never copied.
pub fn redact_owned(mut out: RunDocument) -> RunDocument {
    out.redacted = true;
    out.metadata = Map::new();
    for case in &mut out.results {
        case.suspended_reason = None;
        if let Some(responses) = &mut case.responses {
            for r in responses.iter_mut() {
                *r = json!({"withheld": true});
            }
        }
        for v in &mut case.verdicts {
            strip_verdict(v);
        }
    }
    for v in &mut out.aggregate {
        strip_verdict(v);
    }
    for entry in out.artifacts.values_mut() {
        *entry = json!({"withheld": true});
    }
    withhold_perimeter(&mut out.target_config);
    withhold_perimeter(&mut out.judge_config);
    out
}

fn strip_verdict(v: &mut crate::core::verdict::Verdict) {
    v.reason = String::new();
    v.metadata
        .retain(|_, value| matches!(value, Value::Number(_) | Value::Bool(_)));
}

/// Moves the perimeter fields of one configuration side into `withheld`.
/// The one rule for configuration values that name infrastructure (the
/// perimeter fields, `base_url` and `fingerprint`): they are compared — a
/// change still counts and is named — but their values stay in the run
/// document and the full `digline report`. Every printed or published
/// surface built from a comparison (the terminal text of `compare` and
/// `gate`, `--json`, the comment, the job summary, the annotation, the
/// Actions outputs, the gate's report, MCP) says `base_url changed (the
/// value is not included)`. This blanks those values in `comparison`.
pub fn withhold_perimeter_values(comparison: &mut crate::core::compare::Comparison) {
    for delta in comparison
        .target_config_deltas
        .iter_mut()
        .chain(comparison.judge_config_deltas.iter_mut())
    {
        if is_perimeter(&delta.field) && (!delta.before.is_null() || !delta.after.is_null()) {
            delta.before = Value::Null;
            delta.after = Value::Null;
            delta.withheld = true;
        }
    }
}

fn withhold_perimeter(config: &mut Map<String, Value>) {
    let mut withheld: Vec<String> = strings(config.get("withheld"));
    let Some(values) = config.get_mut("values").and_then(Value::as_object_mut) else {
        return;
    };
    let named_endpoint =
        values.contains_key("base_url") || withheld.iter().any(|k| k == "base_url");
    let moved: Vec<String> = values
        .keys()
        .filter(|k| is_perimeter(k) || (named_endpoint && ENDPOINT_BOUND.contains(&k.as_str())))
        .cloned()
        .collect();
    for key in &moved {
        values.remove(key);
    }
    if moved.is_empty() {
        return;
    }
    withheld.extend(moved);
    withheld.sort();
    withheld.dedup();
    config.insert(
        "withheld".to_string(),
        Value::Array(withheld.into_iter().map(Value::String).collect()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> RunDocument {
        serde_json::from_value(json!({
            "aggregate": [{"assertion": "precision", "assertion_id": "a", "metadata": {"considered": 3, "note": "secret-agg"},
                "reason": "secret-reason-agg", "score": 1.0, "status": "pass", "threshold": 0.5, "tolerance": 0.0}],
            "artifacts": {"prompt.md": {"sha": "00", "text": "secret-prompt"}},
            "config_hash": "h", "created_at": "2026-01-01T00:00:00+00:00", "digline_version": "0.10.0",
            "environment": "e", "git_commit": null, "judge_config": {},
            "metadata": {"build": "secret-meta"}, "redacted": false,
            "results": [
                {"case_id": "c1", "suspended": false, "responses": [{"output": "secret-output"}],
                 "verdicts": [{"assertion": "contains", "assertion_id": "b", "metadata": {"scores": ["secret-score"], "n": 1},
                   "reason": "secret-reason", "score": 1.0, "status": "pass", "threshold": 1.0, "tolerance": 0.0}]},
                {"case_id": "c2", "suspended": true, "suspended_reason": "secret-suspension", "verdicts": []}
            ],
            "schema_version": 10, "suite": "s",
            "target_config": {"values": {"provider": "p", "model": "m", "base_url": "secret-host:1", "resolved_model": "r"}},
            "tenant": "t"
        }))
        .unwrap()
    }

    #[test]
    fn every_payload_field_is_dropped() {
        let red = redact(&doc());
        let text = serde_json::to_string(&red).unwrap();
        assert!(!text.contains("secret"), "{text}");
        assert!(red.redacted);
        assert_eq!(
            red.results[0].verdicts[0].metadata.get("n"),
            Some(&json!(1))
        );
        assert_eq!(red.aggregate[0].metadata.get("considered"), Some(&json!(3)));
        assert_eq!(red.results[0].responses.as_ref().map(Vec::len), Some(1));
        assert_eq!(
            red.target_config.get("withheld"),
            Some(&json!(["base_url", "resolved_model"]))
        );
        assert_eq!(red.results[0].verdicts[0].score, Some(1.0));
    }

    #[test]
    fn redaction_is_idempotent() {
        let once = redact(&doc());
        assert_eq!(redact(&once), once);
    }
}
