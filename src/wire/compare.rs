//! What `compare --json` prints: the headline object, and with `full` the
//! deltas and the configuration deltas.
//!
//! # Wire format
//!
//! Printed with [`crate::core::python::dumps::dumps_pretty`] (sorted keys, indent
//! 2, raw UTF-8) followed by one `\n`. Keys of the headline (`--json` or
//! `--json headline`), all present in digline 0.10.0 unless noted:
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `output_version` | int | [`OUTPUT_VERSION`] |
//! | `worse` | bool | some check regressed |
//! | `unjudged` | int | cases in the run with an errored check |
//! | `suspended` | int | suspended cases in the run |
//! | `config_changed` | bool | the config hashes differ |
//! | `counts` | object | the six outcomes → int, zeros included |
//! | `reasons_available` | bool | neither side is redacted |
//! | `sentence` | string | the headline sentence (do not parse) |
//! | `artifacts_changed`, `target_config_changed`, `judge_config_changed` | bool | a known change on that side |
//! | `rejudged` | bool | the run's answers were replayed |
//! | `canary_moved` | bool | a canary check regressed or improved |
//! | `within_noise` | int | deltas inside the baseline's sampled interval |
//! | `exit_code` | int | [`crate::core::compare::exit_code`] |
//! | `uncomputed_measures` | array of strings | **added here**: run-level measures that errored in the run |
//! | `nothing_compared` | bool | **added here**: run and baseline share no pairable verdict |
//! | `uncovered_passes` | int | **added here**: reference verdicts that passed and are not in the run (exit 2) |
//! | `coverage_changed` | bool | **added here**: the set of case · check verdicts differs from the reference |
//! | `not_in_run` | array | **added here**: `{scope, case_id, assertion, assertion_id, before}` (`before`: the reference's status) per reference verdict absent from the run |
//! | `rule_changes` | array | **added here**: `{check, field, before, after, direction, pairs}` (plus `parameter`, the key, when a parameter edit is spelled out from the base's `suite.toml`); `field` is `threshold`, `tolerance` or `parameters`, `direction` `loosened`, `tightened` or null |
//!
//! `full` adds `deltas[]` (`case_id, scope, assertion, outcome, before,
//! after, delta, within_noise, noise_min, noise_max, noise_samples, canary`)
//! in pairing-key order, and `target_config_deltas[]` /
//! `judge_config_deltas[]` (`field, outcome, before, after, withheld`).
//! No reason text, output or case input is ever part of it: the
//! [`Comparison`] it is built from does not hold any.

use serde_json::{json, Map, Value};

use crate::core::compare::{
    headline_exit_code, Comparison, ConfigDelta, Delta, Headline, Outcome, RuleChange,
};

/// The version of every `compare --json` shape. It moves only on a rename,
/// removal or type change — never for an added key.
pub const OUTPUT_VERSION: u32 = 1;

/// The keys this product prints beyond digline 0.10.0's `compare --json`.
pub const ADDED_KEYS: [&str; 6] = [
    "coverage_changed",
    "not_in_run",
    "nothing_compared",
    "rule_changes",
    "uncomputed_measures",
    "uncovered_passes",
];

/// Keys added only for a run the gate judged under the statistics of spec
/// `45-statistics.md` (a comparison of two documents has none of them).
pub const MEASURED_KEYS: [&str; 3] = ["paired_measures", "power", "reasked"];

/// The `--json` (headline) object for `comparison`, carrying `sentence` (the
/// headline sentence the text renderer produced for the same comparison).
pub fn headline_json(comparison: &Comparison, sentence: &str) -> Value {
    let head = comparison.headline();
    let mut map = headline_map(&head, sentence);
    add_integrity(&mut map, comparison);
    Value::Object(map)
}

/// The coverage and rule-change keys (added here, spec `40-compare.md`).
fn add_integrity(map: &mut Map<String, Value>, comparison: &Comparison) {
    let not_in_run: Vec<Value> = comparison
        .listed()
        .filter(|d| d.outcome == Outcome::Missing)
        .map(|d| {
            json!({
                "scope": d.key.scope.as_str(),
                "case_id": d.key.case_id,
                "assertion": d.assertion,
                "assertion_id": d.key.assertion_id,
                "before": d.before.as_ref().map(|b| b.status.as_str()),
            })
        })
        .collect();
    map.insert("not_in_run".into(), Value::Array(not_in_run));
    map.insert(
        "rule_changes".into(),
        Value::Array(comparison.rule_changes.iter().map(rule_json).collect()),
    );
    // Added only when the reference measured noise (spec `45-statistics.md`).
    if let Some(power) = &comparison.power {
        let measures: Vec<Value> = power
            .measures
            .iter()
            .map(|m| {
                json!({
                    "name": m.name,
                    "smallest_drop": m.drop,
                    "tolerance": m.tolerance,
                    "tolerance_detectable": !m.tolerance_undetectable(),
                })
            })
            .collect();
        map.insert(
            "power".into(),
            json!({
                "power": crate::core::compare::power::POWER,
                "false_alarm_rate": power.alpha,
                "reference_samples": power.samples,
                "case_smallest_failure_rate": power.case_drop,
                "measures": measures,
            }),
        );
    }
    // Added only when the suite declares whole-run measures and the caller
    // paired them (spec `45-statistics.md`).
    if !comparison.paired_measures.is_empty() {
        let measures: Vec<Value> = comparison
            .paired_measures
            .iter()
            .map(|m| {
                json!({
                    "name": m.name,
                    "assertion_id": m.assertion_id,
                    "cases": m.cases,
                    "difference": m.difference,
                    "interval": [m.interval.0, m.interval.1],
                    "mcnemar_p": m.p,
                    "real_drop": m.real_drop,
                })
            })
            .collect();
        map.insert("paired_measures".into(), Value::Array(measures));
    }
    // Added only when the gate re-asked (spec `45-statistics.md`): each
    // re-asked pair's verdict and evidence.
    if !comparison.reasked.is_empty() {
        let reasked: Vec<Value> = comparison
            .reasked
            .iter()
            .map(|d| {
                let e = d.evidence;
                json!({
                    "case_id": d.key.case_id,
                    "assertion": d.assertion,
                    "assertion_id": d.key.assertion_id,
                    "verdict": d.decision.verdict.as_str(),
                    "reference_passed": e.reference_passed,
                    "reference_samples": e.reference_samples,
                    "now_passed": e.now_passed,
                    "now_asked": e.now_asked,
                    "p": d.decision.p,
                    "p_adjusted": d.decision.adjusted,
                })
            })
            .collect();
        map.insert("reasked".into(), Value::Array(reasked));
    }
    if !comparison.judges.is_empty() {
        map.insert(
            "judges".into(),
            Value::Array(judges_json(&comparison.judges)),
        );
    }
}

/// One itemized rule change.
pub fn rule_json(change: &RuleChange) -> Value {
    let mut value = json!({
        "check": change.check,
        "field": change.field.as_str(),
        "before": change.before,
        "after": change.after,
        "direction": change.direction.map(|d| d.as_str()),
        "pairs": change.pairs,
    });
    // Added only for a parameter spelled out from the base's suite file.
    if let (Some(key), Value::Object(map)) = (&change.parameter, &mut value) {
        map.insert("parameter".into(), Value::String(key.clone()));
    }
    value
}

/// The `--json full` object: the headline plus `deltas`,
/// `target_config_deltas` and `judge_config_deltas`.
pub fn full_json(comparison: &Comparison, sentence: &str) -> Value {
    let head = comparison.headline();
    let mut map = headline_map(&head, sentence);
    add_integrity(&mut map, comparison);
    map.insert(
        "deltas".into(),
        Value::Array(comparison.deltas.iter().map(delta_json).collect()),
    );
    map.insert(
        "target_config_deltas".into(),
        Value::Array(
            comparison
                .target_config_deltas
                .iter()
                .map(config_json)
                .collect(),
        ),
    );
    map.insert(
        "judge_config_deltas".into(),
        Value::Array(
            comparison
                .judge_config_deltas
                .iter()
                .map(config_json)
                .collect(),
        ),
    );
    Value::Object(map)
}

fn headline_map(head: &Headline, sentence: &str) -> Map<String, Value> {
    let counts: Map<String, Value> = Outcome::ALL
        .iter()
        .map(|o| (o.as_str().to_string(), json!(head.counts.get(*o))))
        .collect();
    let value = json!({
        "output_version": OUTPUT_VERSION,
        "worse": head.worse,
        "unjudged": head.unjudged,
        "suspended": head.suspended,
        "config_changed": head.config_changed,
        "counts": counts,
        "reasons_available": head.reasons_available,
        "sentence": sentence,
        "artifacts_changed": head.artifacts_changed,
        "target_config_changed": head.target_config_changed,
        "judge_config_changed": head.judge_config_changed,
        "rejudged": head.rejudged,
        "canary_moved": head.canary_moved,
        "within_noise": head.within_noise,
        "exit_code": headline_exit_code(head).code(),
        "uncomputed_measures": head.uncomputed_measures,
        "nothing_compared": head.nothing_compared,
        "uncovered_passes": head.uncovered_passes,
        "coverage_changed": head.coverage_changed,
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// One delta as a pipeline reads it: the structured facts, never a reason.
pub fn delta_json(delta: &Delta) -> Value {
    let score = |side: &Option<crate::core::compare::Side>| side.as_ref().and_then(|s| s.score);
    json!({
        "case_id": delta.key.case_id,
        "scope": delta.key.scope.as_str(),
        "assertion": delta.assertion,
        "outcome": delta.outcome.as_str(),
        "before": score(&delta.before),
        "after": score(&delta.after),
        "delta": delta.delta,
        "within_noise": delta.within_noise,
        "noise_min": delta.noise.map(|n| n.min),
        "noise_max": delta.noise.map(|n| n.max),
        "noise_samples": delta.noise.map_or(0, |n| n.samples),
        "canary": delta.canary,
    })
}

/// One configuration row: `field, outcome, before, after, withheld`. The
/// values travel (a model id is a measurement of the system, not payload).
pub fn config_json(delta: &ConfigDelta) -> Value {
    json!({
        "field": delta.field,
        "outcome": delta.outcome.as_str(),
        "before": delta.before,
        "after": delta.after,
        "withheld": delta.withheld,
    })
}

/// The exact bytes `compare --json` writes to stdout for `value`.
pub fn print(value: &Value) -> String {
    let mut text = crate::core::python::dumps::dumps_pretty(value);
    text.push('\n');
    text
}

#[cfg(test)]
mod tests;

/// The `judges` objects of `outcome.json` and `--json` (stable fields,
/// described in `docs/checks.md`).
pub fn judges_json(readings: &[crate::core::anchors::JudgeReading]) -> Vec<Value> {
    readings
        .iter()
        .map(|r| {
            let d = &r.drift;
            let kappa = d.agreement.and_then(|a| a.kappa);
            json!({
                "check": r.check,
                "coordinate": r.coordinate,
                "reference_coordinate": r.reference_coordinate,
                "reading": match d.reading {
                    crate::core::anchors::Reading::Steady => "steady",
                    crate::core::anchors::Reading::Renamed => "renamed",
                    crate::core::anchors::Reading::Moved => "moved",
                    crate::core::anchors::Reading::Unproven => "unproven",
                    crate::core::anchors::Reading::Unanchored => "unanchored",
                },
                "gates": d.reading.gates(),
                "anchors": d.anchors,
                "expected": d.expected,
                "lost": d.lost,
                "gained": d.gained,
                "shift": d.shift,
                "moved_low": d.moved.low,
                "moved_high": d.moved.high,
                "p": d.p,
                "detectable": d.detectable,
                "changed": d.changed,
                "kappa": kappa.map(|k| k.kappa),
                "kappa_low": kappa.map(|k| k.low),
                "kappa_high": kappa.map(|k| k.high),
                "labels_needed": d.labels_needed,
            })
        })
        .collect()
}
