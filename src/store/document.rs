//! Reading and writing schema-10 run documents.
//!
//! Writing: one case result at a time, `serde` → `serde_json::Value` →
//! [`write_document_streamed`](crate::core::python::dumps::write_document_streamed),
//! the bytes digline 0.10.0 writes (sorted keys, 2-space indent, raw UTF-8, Python
//! float repr, trailing newline).
//!
//! Reading is strict, and every refusal names the file (exit 64):
//! exactly schema 10 (an integer, not a boolean or a float); no unknown key;
//! the types 0.10.0 writes; `null` only where 0.10.0 writes `null`
//! (`git_commit`, and `score` on an errored verdict) — a key 0.10.0 leaves
//! out when there is nothing to say (`digline_version`, `promoted_at`,
//! `rejudged_from`, `suspended_reason`, `canary`, `responses`, the sample
//! interval) is refused as `null` or as `""`, because absent already means
//! *not recorded* and an empty value would be a second spelling of it; safe
//! tenant and suite names; a 16-hex `config_hash`; no verdict whose status
//! contradicts its score, and no sample interval that is not its samples'.
//! Absent and empty keep their meanings: `metadata: {}` is *nothing
//! annotated*, a missing `metadata` is refused. Reads never migrate
//! (ADR 0014 §2, `shared/seeds/001_*`).

use std::path::Path;

use serde_json::{Map, Value};

use crate::core::document::{run_key, RunDocument, SCHEMA_VERSION};
use crate::core::python::dumps::{round6, write_document_streamed};
use crate::core::strict_json;
use crate::core::verdict::Verdict;

use super::repo::is_safe_name;
use super::StoreError;

/// The exact bytes of `doc` on disk.
pub fn to_bytes(doc: &RunDocument) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = to_writer(doc, &mut out);
    out
}

/// Write the exact bytes of `doc` to `w`, one case result at a time: a
/// 10,000-case run never exists as one JSON tree, nor as one string.
///
/// # Errors
/// The first error `w` returns.
pub fn to_writer(doc: &RunDocument, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    // The document without its results, which are written one at a time.
    // Every field is named, so a new field cannot be left out silently.
    let shell = RunDocument {
        aggregate: doc.aggregate.clone(),
        artifacts: doc.artifacts.clone(),
        config_hash: doc.config_hash.clone(),
        created_at: doc.created_at.clone(),
        digline_version: doc.digline_version.clone(),
        environment: doc.environment.clone(),
        git_commit: doc.git_commit.clone(),
        judge_config: doc.judge_config.clone(),
        metadata: doc.metadata.clone(),
        redacted: doc.redacted,
        results: Vec::new(),
        schema_version: doc.schema_version,
        suite: doc.suite.clone(),
        target_config: doc.target_config.clone(),
        tenant: doc.tenant.clone(),
        rejudged_from: doc.rejudged_from.clone(),
        promoted_at: doc.promoted_at.clone(),
        judge_anchors: doc.judge_anchors.clone(),
    };
    // Serializing plain structs of strings, numbers and maps cannot fail.
    let value = serde_json::to_value(&shell).unwrap_or(Value::Null);
    let results = doc
        .results
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or(Value::Null));
    write_document_streamed(&value, "results", results, &mut |chunk: &str| {
        w.write_all(chunk.as_bytes())
    })
}

/// Parse `bytes` as a JSON object and read its declared `schema_version`,
/// without validating anything else: what `migrate` and `list` need to
/// decide what to do with a file of another schema.
///
/// # Errors
/// [`StoreError::Malformed`] for bytes that are not UTF-8, not JSON, not an
/// object, or whose `schema_version` is absent or not an integer.
pub fn parse_versioned(path: &Path, bytes: &[u8]) -> Result<(Map<String, Value>, i64), StoreError> {
    let malformed = |cause: String| StoreError::Malformed {
        path: path.to_path_buf(),
        cause,
    };
    let text = std::str::from_utf8(bytes)
        .map_err(|e| malformed(format!("it is not UTF-8 at byte {}", e.valid_up_to())))?;
    let value: Value = crate::core::strict_json::parse(text)
        .map_err(|e| malformed(format!("it is not JSON ({e})")))?;
    let Value::Object(map) = value else {
        return Err(malformed(format!(
            "it holds {}, not a run object",
            strict_json::noun(&value)
        )));
    };
    let version = match map.get("schema_version") {
        None => return Err(malformed("it has no `schema_version`".to_string())),
        Some(Value::Number(n)) if n.is_i64() => n.as_i64().unwrap_or_default(),
        Some(other) => {
            return Err(malformed(format!(
                "`schema_version` is {}, not an integer",
                strict_json::noun(other)
            )))
        }
    };
    Ok((map, version))
}

/// The refusal for a document at schema `found` ≠ [`SCHEMA_VERSION`]: the
/// advice matches the direction (newer: upgrade digline; older: migrate).
pub fn version_refusal(path: &Path, found: i64) -> StoreError {
    if found > SCHEMA_VERSION {
        StoreError::Newer {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        }
    } else {
        StoreError::Older {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        }
    }
}

/// Parse and validate a document's bytes; `path` only names the file in errors.
///
/// # Errors
/// [`StoreError::Malformed`] for bytes that are not a valid schema-10
/// document, [`StoreError::Newer`]/[`StoreError::Older`] for another schema.
pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<RunDocument, StoreError> {
    // One typed pass, as strict as the checks below (duplicate keys at any
    // depth, `null` and `""` where they are refused, unknown keys); it is
    // 3–4× faster than reading a JSON tree first. Anything it refuses is
    // read again the slow way, for the exact, located sentence.
    if let Ok(doc) = serde_json::from_slice::<RunDocument>(bytes) {
        let optional_empty = [&doc.promoted_at, &doc.rejudged_from]
            .iter()
            .any(|v| v.as_deref() == Some(""));
        if doc.schema_version == SCHEMA_VERSION && !optional_empty && validate(&doc).is_ok() {
            return Ok(doc);
        }
    }
    let (map, version) = parse_versioned(path, bytes)?;
    if version != SCHEMA_VERSION {
        return Err(version_refusal(path, version));
    }
    from_map(path, map)
}

/// Validate an already parsed schema-10 object (what `migrate` re-reads
/// before it writes anything).
///
/// # Errors
/// [`StoreError::Malformed`] naming the file and the first fault found.
pub fn from_map(path: &Path, map: Map<String, Value>) -> Result<RunDocument, StoreError> {
    let malformed = |cause: String| StoreError::Malformed {
        path: path.to_path_buf(),
        cause,
    };
    check_absences(&map).map_err(malformed)?;
    let doc: RunDocument =
        serde_json::from_value(Value::Object(map)).map_err(|e| malformed(e.to_string()))?;
    validate(&doc).map_err(malformed)?;
    Ok(doc)
}

/// Read and validate the document at `path`.
///
/// # Errors
/// [`StoreError::Io`] when the file cannot be read, else as [`from_bytes`].
pub fn read(path: &Path) -> Result<RunDocument, StoreError> {
    let bytes = std::fs::read(path).map_err(|e| StoreError::io(path, e))?;
    from_bytes(path, &bytes)
}

/// Top-level keys 0.10.0 writes only when they carry something.
const OPTIONAL_TOP: [&str; 4] = [
    "digline_version",
    "judge_anchors",
    "promoted_at",
    "rejudged_from",
];
/// Case keys 0.10.0 writes only when they apply.
const OPTIONAL_CASE: [&str; 3] = ["suspended_reason", "canary", "responses"];
/// Verdict keys 0.10.0 writes only on sampled (or judged) verdicts.
const OPTIONAL_VERDICT: [&str; 5] = [
    "samples",
    "sample_min",
    "sample_max",
    "sample_means",
    "judged",
];

/// `null` is refused everywhere 0.10.0 never writes it; `""` is refused on
/// the optional strings, whose absence already says *not recorded*.
fn check_absences(map: &Map<String, Value>) -> Result<(), String> {
    for (key, value) in map {
        let optional = OPTIONAL_TOP.contains(&key.as_str());
        match value {
            Value::Null if key != "git_commit" => {
                return Err(if optional {
                    format!("`{key}` is null: a document leaves it out when there is nothing to record, and never writes null")
                } else {
                    format!("`{key}` is null, where a value is required")
                })
            }
            Value::String(s) if optional && s.is_empty() => {
                return Err(format!(
                    "`{key}` is empty: a document leaves it out when it was not recorded, and never writes \"\""
                ))
            }
            _ => {}
        }
    }
    let verdict_nulls = |v: &Value, case: &str| -> Result<(), String> {
        let Some(obj) = v.as_object() else {
            return Ok(());
        };
        for (key, value) in obj {
            if value.is_null() && key != "score" {
                let name = obj.get("assertion").and_then(Value::as_str).unwrap_or("?");
                let why = if OPTIONAL_VERDICT.contains(&key.as_str()) {
                    "it is left out on a verdict that was not sampled"
                } else {
                    "a value is required"
                };
                return Err(format!(
                    "the verdict '{name}' of case '{case}' has `{key}` null: {why}"
                ));
            }
        }
        Ok(())
    };
    if let Some(Value::Array(results)) = map.get("results") {
        for case in results {
            let Some(obj) = case.as_object() else {
                continue;
            };
            let id = obj.get("case_id").and_then(Value::as_str).unwrap_or("?");
            for (key, value) in obj {
                if value.is_null() {
                    let why = if OPTIONAL_CASE.contains(&key.as_str()) {
                        "it is left out when it does not apply"
                    } else {
                        "a value is required"
                    };
                    return Err(format!("case '{id}' has `{key}` null: {why}"));
                }
            }
            if let Some(Value::Array(verdicts)) = obj.get("verdicts") {
                for v in verdicts {
                    verdict_nulls(v, id)?;
                }
            }
        }
    }
    if let Some(Value::Array(aggregate)) = map.get("aggregate") {
        for v in aggregate {
            verdict_nulls(v, "(run)")?;
        }
    }
    Ok(())
}

fn is_hex16(s: &str) -> bool {
    s.len() == 16
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn validate(doc: &RunDocument) -> Result<(), String> {
    for (name, value) in [
        ("environment", &doc.environment),
        ("created_at", &doc.created_at),
    ] {
        if value.is_empty() {
            return Err(format!("`{name}` is empty"));
        }
    }
    for (name, value) in [("tenant", &doc.tenant), ("suite", &doc.suite)] {
        if !is_safe_name(value) {
            return Err(format!(
                "its {name} '{value}' is not a safe name (letters, digits, dot, dash and underscore, starting with a letter or digit)"
            ));
        }
    }
    if !is_hex16(&doc.config_hash) {
        return Err(format!(
            "its `config_hash` '{}' is not 16 lowercase hex characters",
            doc.config_hash
        ));
    }
    let key = run_key(&doc.created_at, &doc.config_hash);
    if !is_safe_name(&key) || key.starts_with('-') {
        return Err(format!(
            "its `created_at` '{}' gives no usable run key",
            doc.created_at
        ));
    }
    if let Some(from) = &doc.rejudged_from {
        if !is_safe_name(from) {
            return Err(format!("its `rejudged_from` '{from}' is not a run key"));
        }
    }
    let all = doc
        .results
        .iter()
        .flat_map(|c| c.verdicts.iter().map(move |v| (c.case_id.as_str(), v)))
        .chain(doc.aggregate.iter().map(|v| ("(run)", v)));
    for (case, v) in all {
        validate_verdict(case, v)?;
    }
    let mut seen = std::collections::BTreeSet::new();
    for c in &doc.results {
        if c.case_id.is_empty() {
            return Err("a case has an empty `case_id`".to_string());
        }
        if !seen.insert(c.case_id.as_str()) {
            return Err(format!("case '{}' appears twice", c.case_id));
        }
        match (c.suspended, c.suspended_reason.as_deref()) {
            (true, None | Some("")) => {
                return Err(format!(
                    "case '{}' is suspended without a reason",
                    c.case_id
                ))
            }
            (false, Some(_)) => {
                return Err(format!(
                    "case '{}' has a `suspended_reason` but is not suspended",
                    c.case_id
                ))
            }
            (true, Some(_)) if !c.verdicts.is_empty() || c.responses.is_some() => {
                return Err(format!(
                    "case '{}' is suspended but carries verdicts or answers: a suspended case is not run",
                    c.case_id
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

fn validate_verdict(case: &str, v: &Verdict) -> Result<(), String> {
    if v.assertion_id.is_empty() {
        return Err(format!(
            "a verdict of case '{case}' has an empty `assertion_id`"
        ));
    }
    if !v.is_consistent() {
        return Err(format!(
            "the verdict '{}' of case '{case}' says {} with score {}, which contradict each other",
            v.assertion,
            v.status.as_str(),
            v.score
                .map(crate::core::python::dumps::float_repr)
                .unwrap_or_else(|| "null".into())
        ));
    }
    if !(0.0..=1.0).contains(&*v.threshold) || *v.tolerance < 0.0 || !v.tolerance.is_finite() {
        return Err(format!(
            "the verdict '{}' of case '{case}' has a threshold outside 0–1 or a negative tolerance",
            v.assertion
        ));
    }
    match (&v.samples, v.sample_min, v.sample_max) {
        (None, None, None) => {}
        (Some(samples), Some(low), Some(high)) => {
            let in_range = samples.iter().all(|s| (0.0..=1.0).contains(s));
            let lowest = samples.iter().copied().fold(f64::INFINITY, f64::min);
            let highest = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if samples.is_empty()
                || !in_range
                || round6(lowest) != round6(low)
                || round6(highest) != round6(high)
            {
                return Err(format!(
                    "the verdict '{}' of case '{case}' has a sample interval that is not its samples' lowest and highest",
                    v.assertion
                ));
            }
        }
        _ => {
            return Err(format!(
                "the verdict '{}' of case '{case}' carries only part of `samples`, `sample_min`, `sample_max`: the three go together",
                v.assertion
            ))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
