//! The one list of check types, and what is done with any of them: the
//! identity payload of a declaration, and its validation into a
//! [`DeclaredCheck`].
//!
//! [`KINDS`] holds every check type of digline 0.10.0 (read from its
//! dataclasses with the oracle), each declared in its own file.
//! [`identity_payload`] works for every type, built or not, so
//! `assertion_id`s equal 0.10.0's; [`build`] validates the checks this
//! release runs strictly by type, and refuses the other known types as
//! not built yet.
//!
//! Identity rule (python-input.md §0): `{"__type__": class, field:
//! canonical(value)…}` minus `threshold`/`tolerance` (aggregates also minus
//! `by_group`/`group`), hashed with [`identity::digest`]. `canonical` keeps
//! ints as ints, rounds floats to 6 decimals, writes `accepts` (a set) as a
//! sorted list of strings, and a nested check (`repeated.inner`) as all of
//! its fields (threshold and tolerance included) without `__type__`.

use serde_json::{Map, Number, Value};

use super::catalogue::{Build, Def, Kind, Params};
use super::declared::DeclaredCheck;
use super::error::{BuildError, BuildErrorKind, Problems};
use super::kinds::OutputKind;
use super::{
    affix, aggregates, budget, contains, equals, is_json, json_schema, judged, length, levenshtein,
    params, pii, regex, repeated, tools,
};
use crate::core::identity::{self, RuleEntry};
use crate::core::level::Level;
use crate::core::ratio::{as_ratio, describe};

/// Every check type of digline 0.10.0: per-case types sorted by token,
/// then per-run (aggregate) types sorted by token.
pub static KINDS: &[&Kind] = &[
    &affix::KIND,
    &contains::CONTAINS,
    &budget::COST,
    &equals::KIND,
    &judged::FAITHFULNESS,
    &is_json::KIND,
    &json_schema::KIND,
    &budget::LATENCY,
    &length::KIND,
    &levenshtein::KIND,
    &judged::LLM_RUBRIC,
    &contains::NOT_CONTAINS,
    &pii::KIND,
    &regex::KIND,
    &repeated::KIND,
    &tools::KIND,
    &aggregates::ACCURACY,
    &aggregates::F1,
    &aggregates::PRECISION,
    &aggregates::RECALL,
];

/// The catalogue row of a token, if 0.10.0 has such a check.
pub fn kind(token: &str) -> Option<&'static Kind> {
    KINDS.iter().copied().find(|k| k.token == token)
}

/// Per-case check types of digline 0.10.0, sorted.
pub fn per_case_types() -> Vec<&'static str> {
    KINDS
        .iter()
        .filter(|k| !k.per_run)
        .map(|k| k.token)
        .collect()
}

/// Per-run (aggregate) types of digline 0.10.0, sorted.
pub fn per_run_types() -> Vec<&'static str> {
    KINDS
        .iter()
        .filter(|k| k.per_run)
        .map(|k| k.token)
        .collect()
}

/// True for an aggregate token (`precision`, `recall`, `accuracy`, `f1`).
pub fn is_aggregate(token: &str) -> bool {
    kind(token).is_some_and(|k| k.per_run)
}

/// True for a check type this release builds and runs.
pub fn is_built(token: &str) -> bool {
    kind(token).is_some_and(|k| !matches!(k.build, Build::NotYet))
}

/// The sentence for a check only a suite.py can express, if `token` is one.
fn python_only_token(token: &str) -> Option<String> {
    (token == "from_autoevals").then(|| {
        "`from_autoevals` wraps a scorer, which is a Python object: a suite that is data \
         cannot hold one. Custom checks are code, so this check needs a suite.py."
            .to_string()
    })
}

/// The catalogue row of a token, or why there is none.
pub(super) fn lookup(token: &str) -> Result<&'static Kind, BuildError> {
    if let Some(message) = python_only_token(token) {
        return Err(BuildError::new(BuildErrorKind::PythonOnly {
            key: None,
            message,
        }));
    }
    kind(token).ok_or_else(|| {
        BuildError::new(BuildErrorKind::UnknownType {
            token: token.to_string(),
        })
    })
}

/// The identity payload of a check declaration, for every 0.10.0 type
/// (built or not, aggregates included): `{"__type__": class, field: value…}`
/// with defaults filled in and values canonicalised, minus the fields
/// identity excludes. `params` are the entry's keys except `type`, TOML
/// integers and floats kept apart.
///
/// # Errors
/// Unknown or Python-only type, unknown or missing parameters, a Python-only
/// parameter (`pii_absent.patterns`, a judge written as a table or import),
/// or a value the payload cannot be derived from (`repeated` with a bad
/// `inner`, `samples` or `min_agreement`; `affix` with a bad `at`; a
/// non-string `accepts` entry).
pub fn identity_payload(token: &str, params: &Params) -> Result<Value, BuildError> {
    payload_of(lookup(token)?, params)
}

/// [`identity_payload`] of a known check type.
fn payload_of(kind: &Kind, params: &Params) -> Result<Value, BuildError> {
    let mut fields = field_values(kind, params)?;
    let excluded: &[&str] = if kind.per_run {
        &["threshold", "tolerance", "by_group", "group"]
    } else {
        &["threshold", "tolerance"]
    };
    for key in excluded {
        fields.remove(*key);
    }
    fields.insert(
        "__type__".to_string(),
        Value::String(kind.class.to_string()),
    );
    Ok(Value::Object(fields))
}

/// The payload of one `by_group` copy of an aggregate: the whole-run
/// payload with its name set to `<name>[group=<group>]`.
pub fn group_copy_payload(payload: &Value, group: &str) -> Value {
    let mut copy = payload.clone();
    if let Value::Object(map) = &mut copy {
        let name = map
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        map.insert(
            "name".to_string(),
            Value::String(format!("{name}[group={group}]")),
        );
    }
    copy
}

/// Every field of the check (identity exclusions not yet applied) with its
/// canonical value: what Python's `asdict` + `canonical` give. Every
/// independent problem of the entry is noted, in this order: unknown keys,
/// Python-only walls (and a nested check's refusals), missing parameters,
/// `accepts`, what the check derives.
pub(super) fn field_values(kind: &Kind, params: &Params) -> Result<Map<String, Value>, BuildError> {
    let mut problems = Problems::default();
    // 1. unknown keys
    let known: Vec<&str> = kind
        .fields
        .iter()
        .filter(|f| f.settable)
        .map(|f| f.name)
        .collect();
    let unknown: Vec<String> = params
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        let mut known: Vec<String> = known.iter().map(|k| k.to_string()).collect();
        known.sort();
        problems.push(BuildError::new(BuildErrorKind::UnknownParameters {
            token: kind.token.to_string(),
            keys: unknown,
            known,
        }));
    }
    // 2. what only Python can express, and a nested check's refusals
    problems.note((kind.walls)(params));
    // 3. missing mandatory parameters
    let missing: Vec<String> = kind
        .fields
        .iter()
        .filter(|f| matches!(f.def, Def::Mandatory) && !params.contains_key(f.name))
        .map(|f| f.name.to_string())
        .collect();
    if !missing.is_empty() {
        problems.push(BuildError::new(BuildErrorKind::MissingParameters {
            token: kind.token.to_string(),
            keys: missing,
        }));
    }
    // 4. values
    let mut out = Map::new();
    for field in kind.fields {
        let value = match (field.name, params.get(field.name)) {
            ("accepts", Some(given)) => problems
                .note(params::accepts_value(kind.token, given))
                .unwrap_or(Value::Null),
            (_, Some(given)) => params::canonical(given),
            (_, None) => default_value(field.def),
        };
        out.insert(field.name.to_string(), value);
    }
    // 5. what the check derives
    problems.note((kind.derive)(&mut out, params));
    problems.finish(params)?;
    Ok(out)
}

fn default_value(def: Def) -> Value {
    match def {
        Def::Mandatory | Def::Null => Value::Null,
        Def::Bool(b) => Value::Bool(b),
        Def::Str(s) => Value::String(s.to_string()),
        Def::Float(x) => params::float(x),
        Def::Kinds(kinds) => {
            let mut kinds: Vec<&str> = kinds.to_vec();
            kinds.sort_unstable();
            Value::Array(kinds.into_iter().map(|k| Value::String(k.into())).collect())
        }
        Def::PiiPatterns => pii::canonical_patterns(),
    }
}

/// The threshold a check of this type has when the entry writes none
/// (0–1), or `None` when `threshold` is mandatory (judged checks,
/// aggregates) or the type is unknown. `repeated` takes its inner check's.
pub fn default_threshold(token: &str) -> Option<f64> {
    kind(token)?
        .fields
        .iter()
        .find(|f| f.name == "threshold" && f.settable)
        .and_then(|f| match f.def {
            Def::Float(x) => Some(x),
            _ => None,
        })
}

/// A declared threshold or tolerance: an integer in the file stays an
/// integer (as 0.10.0 writes it back); anything else is the parsed value.
fn as_level(declared: &Value, parsed: f64) -> Level {
    match declared {
        Value::Number(n) if n.is_i64() => Level::declared(n),
        _ => Level::float(parsed),
    }
}

/// The check's `config_hash` entry: its id with threshold and tolerance as
/// the entry wrote them (an integer stays an integer, as 0.10.0 hashes it);
/// defaults and ratio strings give floats.
pub fn rule_entry(check: &DeclaredCheck, params: &Params) -> RuleEntry {
    // A `repeated` has its inner check's threshold and tolerance, as declared there.
    let mut params = params;
    let mut current = check;
    while let (Some(repetition), Some(Value::Object(table))) =
        (current.grader.repetition(), params.get("inner"))
    {
        current = repetition.inner;
        params = table;
    }
    let declared = |key: &str, parsed: Level| -> Number {
        match params.get(key) {
            Some(Value::Number(n)) => n.clone(),
            _ => parsed.to_number(),
        }
    };
    RuleEntry {
        assertion_id: check.assertion_id.clone(),
        threshold: declared("threshold", check.threshold),
        tolerance: declared("tolerance", check.tolerance),
    }
}

/// Validate one entry (`type` token plus its other keys, TOML integers and
/// floats kept apart) into a [`DeclaredCheck`].
///
/// Order of refusals: unknown type (alone: nothing else can be judged),
/// then every independent problem in this order: unknown parameters (the
/// loader adds the near miss), Python-only walls, missing parameters, then
/// — for the built checks — name, threshold, tolerance, accepts and each of
/// the check's own values by type and range. Every other 0.10.0 type is
/// [`BuildErrorKind::NotBuiltYet`]. A `repeated` builds its inner check by
/// the same rules (errors located in `inner`) and takes its threshold,
/// tolerance and accepts.
///
/// # Errors
/// A [`BuildError`] saying which key is wrong and why, carrying the
/// entry's other problems ([`BuildError::problems`]).
pub fn build(token: &str, params: &Params) -> Result<DeclaredCheck, BuildError> {
    let kind = lookup(token)?;
    let mut problems = Problems::default();
    let payload = problems.note(payload_of(kind, params));
    let grader = match kind.build {
        Build::NotYet => {
            problems.push(BuildError::new(BuildErrorKind::NotBuiltYet {
                token: token.to_string(),
            }));
            return problems.give(params, None);
        }
        Build::Whole(declare) => {
            // The check's own validation runs even when the payload could
            // not be derived, so that its independent problems are noted too.
            let declared = problems.note(declare(params, payload.clone().unwrap_or(Value::Null)));
            return problems.give(params, declared);
        }
        Build::Grader(grader) => grader,
    };
    let default_of = |key: &str| {
        kind.fields
            .iter()
            .find(|f| f.name == key)
            .map(|f| f.def)
            .unwrap_or(Def::Null)
    };
    let name = match params.get("name") {
        // The payload holds the default, derived where 0.10.0 derives it
        // (`affix` → `starts_with`/`ends_with`).
        None => match payload.as_ref().and_then(|p| p.get("name")?.as_str()) {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => token.to_string(),
        },
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(other) => {
            problems.push(BuildError::invalid(
                token,
                "name",
                format!(
                    "`name` is {}, and it has to be a non-empty string: the name is what \
                     reports and aggregates call the check",
                    describe(other)
                ),
            ));
            String::new()
        }
    };
    let threshold = match params.get("threshold") {
        None => Some(Level::float(match default_of("threshold") {
            Def::Float(x) => x,
            _ => 1.0,
        })),
        Some(v) => problems.note(level(token, "threshold", v)),
    };
    let tolerance = match params.get("tolerance") {
        None => Some(Level::float(0.0)),
        Some(v) => problems.note(level(token, "tolerance", v)),
    };
    let accepts = match params.get("accepts") {
        None => Some(match default_of("accepts") {
            Def::Kinds(kinds) => kinds.iter().filter_map(|k| params::kind(k)).collect(),
            _ => vec![OutputKind::Text],
        }),
        Some(v) => problems.note(params::accepts_kinds(token, v)),
    };
    let grader = problems.note(grader(params));
    let ((((payload, threshold), tolerance), accepts), grader) = problems.give(
        params,
        payload
            .zip(threshold)
            .zip(tolerance)
            .zip(accepts)
            .zip(grader),
    )?;
    Ok(DeclaredCheck {
        token: token.to_string(),
        name,
        grader,
        threshold,
        tolerance,
        accepts,
        assertion_id: identity::digest(&payload),
        identity_payload: payload,
    })
}

/// A declared `threshold` (a share, 0–1) or `tolerance` (≥ 0).
fn level(token: &str, key: &str, v: &Value) -> Result<Level, BuildError> {
    let t = as_ratio(v, key).map_err(|e| BuildError::invalid(token, key, e.message))?;
    let why = match key {
        "threshold" if !(0.0..=1.0).contains(&t) => "outside 0–1: a score is a share",
        "tolerance" if t < 0.0 => "below 0: it is how far a score may move",
        _ => return Ok(as_level(v, t)),
    };
    Err(BuildError::invalid(
        token,
        key,
        format!("`{key}` is {}, {why}", describe(v)),
    ))
}

#[cfg(test)]
mod tests;
