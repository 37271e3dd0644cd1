//! `digline migrate`: bringing schema 4–9 documents forward to schema 10.
//!
//! Only additive steps exist, each writing a value the old document already
//! justifies and never a guess (ADR 0014 §1–§2, `shared/seeds/001_*`):
//!
//! | from | what the step writes |
//! |---|---|
//! | 4 | `suspended: false` on every case (none was set aside before the idea existed) |
//! | 5 | `aggregate: []` |
//! | 6 | `artifacts: {}` |
//! | 7 | `target_config: {}` and `judge_config: {}` (nothing was recorded) |
//! | 8 | `samples`, `sample_min`, `sample_max` on every verdict whose `metadata.scores` is a non-empty list — read from the scores already there |
//! | 9 | nothing: `digline_version`, `responses`, `canary` and `promoted_at` stay absent, which already means *not recorded* / *not a canary* |
//!
//! Below 4 the bump was not additive (`assertion_id`, `tenant`, `redacted`,
//! `environment` have no honest default) and the file is refused; above 10
//! it is refused with "upgrade digline". A migrated document is re-read
//! with the current strict reader *before* anything is written, then
//! written atomically in the writer's canonical form — the bytes digline
//! 0.10.0's `migrate` writes. A document already at 10 is left untouched.
//! Migration is a command a person runs; reads never migrate.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::core::document::{RunDocument, SCHEMA_VERSION};
use crate::core::python::dumps::round6;
use crate::core::verdict::{round_floats, Verdict};

use super::atomic::write_atomic;
use super::document::{from_map, parse_versioned, to_bytes, version_refusal};
use super::StoreError;

/// The oldest schema with an additive path to [`SCHEMA_VERSION`].
pub const OLDEST_MIGRATABLE: i64 = 4;

/// What happened to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Brought forward from this schema (or, in a dry run, would be).
    Migrated(i64),
    /// Already at schema 10: untouched.
    Current,
}

/// What a migration did, file by file; a refusal never stops the others.
#[derive(Debug, Default)]
pub struct Report {
    /// Files migrated (or that would be), with the schema they came from.
    pub migrated: Vec<(PathBuf, i64)>,
    /// Files already at schema 10.
    pub current: usize,
    /// Files refused, with the sentence saying why; each left untouched.
    pub refused: Vec<(PathBuf, String)>,
}

/// Apply the additive steps from the document's schema up to 10.
///
/// # Errors
/// [`StoreError::Newer`] above 10; [`StoreError::Malformed`] below 4 (the
/// sentence names what that version introduced) or when a step finds a
/// value it cannot read (a `metadata.scores` entry that is not a number).
pub fn upgrade(
    path: &Path,
    mut map: Map<String, Value>,
    from: i64,
) -> Result<Map<String, Value>, StoreError> {
    if from > SCHEMA_VERSION {
        return Err(version_refusal(path, from));
    }
    let refuse = |cause: String| StoreError::Malformed {
        path: path.to_path_buf(),
        cause,
    };
    if from < OLDEST_MIGRATABLE {
        let introduced = match from {
            1 => "`assertion_id` on every verdict, which pairs a verdict with its counterpart",
            2 => {
                "`tenant` and `redacted` on the run: a tenant is a perimeter and cannot be guessed"
            }
            3 => "`environment` on the run: nothing says whether it measured staging or production",
            _ => "fields with no answer in the older document",
        };
        return Err(refuse(format!(
            "it is at schema {from}, and schema {} introduced {introduced}. No migration can supply that without guessing; run the suite again instead",
            from + 1
        )));
    }
    for version in from..SCHEMA_VERSION {
        match version {
            4 => match map.get_mut("results") {
                None => {
                    map.insert("results".into(), Value::Array(Vec::new()));
                }
                Some(Value::Array(cases)) => {
                    for case in cases.iter_mut().filter_map(Value::as_object_mut) {
                        case.entry("suspended").or_insert(Value::Bool(false));
                    }
                }
                // Not a list: left for the reader to refuse, never replaced.
                Some(_) => {}
            },
            5 => {
                map.entry("aggregate")
                    .or_insert_with(|| Value::Array(Vec::new()));
            }
            6 => {
                map.entry("artifacts")
                    .or_insert_with(|| Value::Object(Map::new()));
            }
            7 => {
                map.entry("target_config")
                    .or_insert_with(|| Value::Object(Map::new()));
                map.entry("judge_config")
                    .or_insert_with(|| Value::Object(Map::new()));
            }
            8 => add_sample_intervals(&mut map).map_err(refuse)?,
            // 9 → 10 writes nothing (ADR 0014 §2); the arm says so.
            _ => {}
        }
        map.insert("schema_version".into(), Value::from(version + 1));
    }
    Ok(map)
}

/// 8 → 9: a sampled verdict's interval, read from the scores it already carries.
fn add_sample_intervals(map: &mut Map<String, Value>) -> Result<(), String> {
    if let Some(Value::Array(cases)) = map.get_mut("results") {
        for case in cases {
            if let Some(Value::Array(verdicts)) = case.get_mut("verdicts") {
                intervals_in(verdicts)?;
            }
        }
    }
    if let Some(Value::Array(verdicts)) = map.get_mut("aggregate") {
        intervals_in(verdicts)?;
    }
    Ok(())
}

fn intervals_in(verdicts: &mut [Value]) -> Result<(), String> {
    for obj in verdicts.iter_mut().filter_map(Value::as_object_mut) {
        let scores = match obj.get("metadata").and_then(|m| m.get("scores")) {
            Some(Value::Array(scores)) if !scores.is_empty() => scores.clone(),
            _ => continue,
        };
        let name = obj.get("assertion").and_then(Value::as_str).unwrap_or("?");
        let mut values = Vec::with_capacity(scores.len());
        for s in &scores {
            let x = match s {
                Value::Number(n) => n.as_f64(),
                Value::Bool(b) => Some(f64::from(u8::from(*b))),
                _ => None,
            };
            values.push(x.ok_or_else(|| {
                format!("the verdict '{name}' has a `metadata.scores` entry that is not a number, so its interval cannot be read")
            })?);
        }
        let low = values.iter().copied().fold(f64::INFINITY, f64::min);
        let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let num = |x: f64| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number);
        obj.insert("samples".into(), values.iter().map(|x| num(*x)).collect());
        obj.insert("sample_min".into(), num(low));
        obj.insert("sample_max".into(), num(high));
    }
    Ok(())
}

/// The canonical form the writer gives a migrated document: numbers at
/// storage precision, flags and lists that say nothing left out.
fn canonical(mut doc: RunDocument) -> RunDocument {
    fn verdict(v: Verdict) -> Verdict {
        let mut v = v.at_storage_precision();
        v.score = v.score.map(round6);
        v.threshold = crate::core::level::Level::declared(&v.threshold.to_number());
        v.tolerance = crate::core::level::Level::declared(&v.tolerance.to_number());
        v.samples = v.samples.map(|s| s.into_iter().map(round6).collect());
        v.sample_min = v.sample_min.map(round6);
        v.sample_max = v.sample_max.map(round6);
        v
    }
    for case in &mut doc.results {
        case.verdicts = std::mem::take(&mut case.verdicts)
            .into_iter()
            .map(verdict)
            .collect();
        if case.canary == Some(false) {
            case.canary = None;
        }
        if case.responses.as_ref().is_some_and(Vec::is_empty) {
            case.responses = None;
        }
    }
    doc.aggregate = std::mem::take(&mut doc.aggregate)
        .into_iter()
        .map(verdict)
        .collect();
    for value in doc.metadata.values_mut() {
        round_floats(value);
    }
    doc
}

/// Migrate the file at `path`: its schema if it was migrated, `Current`
/// if already at 10. Nothing is written when `dry_run`, or when anything
/// fails; the write is atomic.
///
/// # Errors
/// A [`StoreError`] naming the file: unreadable, not an object, a schema
/// outside 4–10, or an upgraded document the current reader refuses.
pub fn migrate_file(path: &Path, dry_run: bool) -> Result<Outcome, StoreError> {
    let bytes = std::fs::read(path).map_err(|e| StoreError::io(path, e))?;
    let (map, version) = parse_versioned(path, &bytes)?;
    if version == SCHEMA_VERSION {
        return Ok(Outcome::Current);
    }
    let upgraded = upgrade(path, map, version)?;
    let doc = canonical(from_map(path, upgraded)?);
    if !dry_run {
        write_atomic(path, &to_bytes(&doc), 0o600)?;
    }
    Ok(Outcome::Migrated(version))
}

/// Migrate every path, collecting refusals rather than stopping at the first.
pub fn migrate_paths(paths: &[PathBuf], dry_run: bool) -> Report {
    let mut report = Report::default();
    for path in paths {
        match migrate_file(path, dry_run) {
            Ok(Outcome::Current) => report.current += 1,
            Ok(Outcome::Migrated(from)) => report.migrated.push((path.clone(), from)),
            Err(e) => report.refused.push((path.clone(), e.to_string())),
        }
    }
    report
}

#[cfg(test)]
mod tests;
