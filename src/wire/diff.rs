//! What `digline diff --json counts|full` prints: symmetric, with no `worse`.
//!
//! digline 0.10.0's shape, key for key: `output_version`, `tenant`,
//! `suite`, `runs.{left,right}.{key,label,created_at,environment}`,
//! `counts` (total, differing, favours_left, favours_right,
//! within_tolerance, only_left, only_right, errored, interval_pairs,
//! left_exceeds, right_exceeds), `systems_differ`, `artifacts_differ`,
//! `judges`, `sentence`; `full` adds `checks[]` (case_id, scope, assertion,
//! outcome, favours, left, right, delta, tolerance, flipped,
//! left_interval, right_interval — `{min,max,samples}` or null —,
//! intervals_overlap, intervals_disjoint) and `target_config_deltas[]`.
//! No reason, output or metadata ever appears.

use serde_json::{json, Value};

use crate::core::diff::{CheckDifference, Difference, Interval};
use crate::core::document::RunDocument;

use super::compare::config_json;
use super::OUTPUT_VERSION;

fn interval_json(i: Option<&Interval>) -> Value {
    i.map_or(
        Value::Null,
        |i| json!({"min": i.min, "max": i.max, "samples": i.samples}),
    )
}

/// One check, without payload.
pub fn check_json(c: &CheckDifference) -> Value {
    json!({
        "case_id": c.case_id,
        "scope": c.scope.as_str(),
        "assertion": c.assertion,
        "outcome": c.outcome.as_str(),
        "favours": c.favours.as_str(),
        "left": c.left.and_then(|(_, s)| s),
        "right": c.right.and_then(|(_, s)| s),
        "delta": c.delta,
        "tolerance": c.tolerance,
        "flipped": c.flipped,
        "left_interval": interval_json(c.left_interval.as_ref()),
        "right_interval": interval_json(c.right_interval.as_ref()),
        "intervals_overlap": c.intervals_overlap,
        "intervals_disjoint": c.intervals_disjoint,
    })
}

/// The runs diffed: `(key, label, document)` for the left and the right.
pub type DiffSide<'a> = (&'a str, &'a str, &'a RunDocument);

/// The whole `--json` object; `full` adds the checks and configuration rows.
pub fn diff_json(
    d: &Difference,
    left: DiffSide,
    right: DiffSide,
    sentence: &str,
    full: bool,
) -> Value {
    let side = |(key, label, doc): DiffSide| json!({"key": key, "label": label, "created_at": doc.created_at, "environment": doc.environment});
    let c = d.counts();
    let mut out = json!({
        "output_version": OUTPUT_VERSION,
        "tenant": d.tenant,
        "suite": d.suite,
        "runs": {"left": side(left), "right": side(right)},
        "counts": {
            "total": c.total,
            "differing": c.differing,
            "favours_left": c.favours_left,
            "favours_right": c.favours_right,
            "within_tolerance": c.within_tolerance,
            "only_left": c.only_left,
            "only_right": c.only_right,
            "errored": c.errored,
            "interval_pairs": c.interval_pairs,
            "left_exceeds": c.left_exceeds,
            "right_exceeds": c.right_exceeds,
        },
        "systems_differ": d.systems_differ(),
        "artifacts_differ": d.artifacts_differ(),
        "judges": d.judges,
        "sentence": sentence,
    });
    if full {
        out["checks"] = d.checks.iter().map(check_json).collect();
        out["target_config_deltas"] = d.target_config_deltas.iter().map(config_json).collect();
    }
    out
}
