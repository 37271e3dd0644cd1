//! `[[assertions]]`: every entry built in file order, a check by
//! `core::checks` (its parameters validated there) or an aggregate by
//! `core::aggregate`; a refused entry is noted and the others are still
//! built. The aggregates' suite-level rules run once the cases are read.

use serde_json::Map;

use super::errors::{LoadError, LoadErrorKind};
use super::toml_values::{toml_to_json, toml_type};
use super::{err, noted, unknown_keys};
use crate::client::provider::parse_coordinate;
use crate::core::aggregate::{build_aggregate, expand_by_group, DeclaredAggregate};
use crate::core::checks::registry::kind;
use crate::core::checks::{
    build, is_aggregate, per_case_types, per_run_types, rule_entry, BuildError, BuildErrorKind,
    DeclaredCheck,
};
use crate::core::identity::RuleEntry;
use crate::host::near_miss::hint;

/// The checks, in file order, with their `config_hash` entries, and the
/// aggregates with their entry's locator.
type Built = (
    Vec<DeclaredCheck>,
    Vec<RuleEntry>,
    Vec<(String, DeclaredAggregate)>,
);

/// The `[suite]`-level rules about aggregates (0.10.0 checks them when the
/// suite is built, after samples and canaries): some per-case check is
/// declared; each aggregate's `over` names exactly one check; every case
/// that is not a canary has a label. Returns the aggregates expanded by group.
pub(super) fn check_aggregates(
    checks: &[DeclaredCheck],
    declared: Vec<(String, DeclaredAggregate)>,
    cases: &[crate::core::suite::Case],
    cases_name: &str,
) -> Result<Vec<DeclaredAggregate>, LoadError> {
    if declared.is_empty() {
        return Ok(Vec::new());
    }
    if checks.is_empty() {
        return Err(err(
            LoadErrorKind::Missing,
            None,
            Some("assertions"),
            "every [[assertions]] entry is an aggregate, and an aggregate counts the verdicts of \
             a per-case check: declare the check it counts",
        ));
    }
    let mut names: Vec<&str> = Vec::new();
    for check in checks {
        if !names.contains(&check.name.as_str()) {
            names.push(&check.name);
        }
    }
    // Each aggregate on its own, and the labels: every problem is noted.
    let mut problems = Vec::new();
    for (locator, aggregate) in &declared {
        let matching = checks.iter().filter(|c| c.name == aggregate.over).count();
        let over = &aggregate.over;
        let token = aggregate.kind.as_str();
        if matching == 0 {
            let sentence = match hint(over, &names) {
                Some(h) => {
                    format!("`{token}` counts `over = '{over}'`, and no check is called that. {h}")
                }
                None => format!(
                    "`{token}` counts `over = '{over}'`, and no check is called that. Declared: {}",
                    names.join(", ")
                ),
            };
            problems.push(err(
                LoadErrorKind::Invalid,
                Some(locator),
                Some("over"),
                &sentence,
            ));
            continue;
        }
        if matching > 1 {
            problems.push(err(
                LoadErrorKind::Invalid,
                Some(locator),
                Some("over"),
                &format!(
                    "`{token}` counts `over = '{over}'`, and {matching} checks are called that. \
                     Give the one you mean a distinct `name`: an aggregate cannot choose between \
                     them"
                ),
            ));
        }
    }
    let missing: Vec<&str> = cases
        .iter()
        .filter(|c| !c.canary && c.label.is_none())
        .map(|c| c.id.as_str())
        .collect();
    if !missing.is_empty() {
        problems.push(LoadError::new(
            LoadErrorKind::Missing,
            cases_name,
            None,
            Some("label"),
            &format!(
                "the suite declares an aggregate, which counts positive and negative cases, so \
                 every case but a canary needs `label` = \"positive\" or \"negative\". \
                 Missing on: {}",
                missing.join(", ")
            ),
        ));
    }
    if let Some(error) = LoadError::all(problems) {
        return Err(error);
    }
    let groups: Vec<&str> = cases.iter().filter_map(|c| c.group.as_deref()).collect();
    let declared: Vec<DeclaredAggregate> = declared.into_iter().map(|(_, a)| a).collect();
    Ok(expand_by_group(&declared, &groups))
}

/// Every `[[assertions]]` entry built in file order; each refused entry is
/// noted among `problems` and the others are still built.
pub(super) fn build_assertions(
    value: Option<&toml::Value>,
    problems: &mut Vec<LoadError>,
) -> Built {
    let no_checks = || {
        err(
            LoadErrorKind::Missing,
            None,
            Some("assertions"),
            "no [[assertions]]. A run that checks nothing passes vacuously, and a gate that \
             cannot fail is no gate: declare at least one check",
        )
    };
    let mut checks = Vec::new();
    let mut rules = Vec::new();
    let mut aggregates = Vec::new();
    let entries = match value {
        None => {
            problems.push(no_checks());
            return (checks, rules, aggregates);
        }
        Some(toml::Value::Array(entries)) if entries.is_empty() => {
            problems.push(no_checks());
            return (checks, rules, aggregates);
        }
        Some(toml::Value::Array(entries)) => entries,
        Some(other) => {
            problems.push(err(
                LoadErrorKind::Invalid,
                None,
                Some("assertions"),
                &format!(
                    "`assertions` is {}, and it has to be an array of tables ([[assertions]])",
                    toml_type(other)
                ),
            ));
            return (checks, rules, aggregates);
        }
    };
    for (i, entry) in entries.iter().enumerate() {
        let locator = format!("[[assertions]] #{}", i + 1);
        let toml::Value::Table(table) = entry else {
            problems.push(err(
                LoadErrorKind::Invalid,
                Some(&locator),
                None,
                "this entry is not a table",
            ));
            continue;
        };
        match noted(problems, build_entry(table, &locator)) {
            Some(Entry::Check(check, rule)) => {
                checks.push(*check);
                rules.push(rule);
            }
            Some(Entry::Aggregate(aggregate)) => aggregates.push((locator, aggregate)),
            None => {}
        }
    }
    (checks, rules, aggregates)
}

/// One built `[[assertions]]` entry.
enum Entry {
    /// A per-case check and its `config_hash` entry.
    Check(Box<DeclaredCheck>, RuleEntry),
    /// An aggregate (not yet expanded by group).
    Aggregate(DeclaredAggregate),
}

fn type_lists() -> String {
    format!(
        "\n  per case: {}\n  per run:  {}",
        per_case_types().join(", "),
        per_run_types().join(", ")
    )
}

fn build_entry(table: &toml::Table, locator: &str) -> Result<Entry, LoadError> {
    let token = match table.get("type") {
        None => {
            return Err(err(
                LoadErrorKind::Missing,
                Some(locator),
                Some("type"),
                &format!(
                    "no `type`, so nothing says which check this is.{}",
                    type_lists()
                ),
            ))
        }
        Some(toml::Value::String(t)) => t.clone(),
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                Some(locator),
                Some("type"),
                &format!(
                    "`type` is {}, and it has to be the name of a check",
                    toml_type(other)
                ),
            ))
        }
    };
    // Each parameter a JSON value, every one that is not noted.
    let mut params = Map::new();
    let mut problems = Vec::new();
    for (key, value) in table.iter().filter(|(k, _)| k.as_str() != "type") {
        match toml_to_json(value) {
            Ok(json) => {
                params.insert(key.clone(), json);
            }
            Err(why) => problems.push(err(
                LoadErrorKind::Invalid,
                Some(locator),
                Some(key),
                &format!("`{key}` is {why}"),
            )),
        }
    }
    if let Some(error) = LoadError::all(problems) {
        return Err(error);
    }
    if let Some((key, why)) = crate::host::visible::check_params(&params) {
        return Err(err(LoadErrorKind::Invalid, Some(locator), Some(&key), &why));
    }
    if is_aggregate(&token) {
        let aggregate = build_aggregate(&token, &params).map_err(|e| build_error(&e, locator))?;
        return Ok(Entry::Aggregate(aggregate));
    }
    let built = build(&token, &params);
    // Whether digline speaks the judge's provider is the loader's to say;
    // it is said with the entry's other problems, unless `judge` is one.
    let coordinate = match &built {
        Ok(check) => check.judge_coordinate(),
        Err(e) if takes_judge(&token) && !e.blames("judge") => {
            params.get("judge").and_then(serde_json::Value::as_str)
        }
        Err(_) => None,
    };
    let judge = coordinate.and_then(|coordinate| {
        parse_coordinate(coordinate).err().map(|why| {
            err(
                LoadErrorKind::Invalid,
                Some(&format!("{locator}, `{token}`")),
                Some("judge"),
                &format!("`judge`: {why}"),
            )
        })
    });
    let check = match built {
        Ok(check) => check,
        Err(e) => {
            let mut refused = build_error(&e, locator);
            let mut further = refused.take_further();
            further.extend(judge);
            refused.set_further(further);
            return Err(refused);
        }
    };
    if let Some(refused) = judge {
        return Err(refused);
    }
    let rule = rule_entry(&check, &params);
    Ok(Entry::Check(Box::new(check), rule))
}

/// True for a check type with a `judge` parameter.
fn takes_judge(token: &str) -> bool {
    kind(token).is_some_and(|k| k.fields.iter().any(|f| f.name == "judge" && f.settable))
}

/// Locate each problem of a [`BuildError`] and add its near miss: one
/// refusal per problem, in the order the check found them.
fn build_error(e: &BuildError, locator: &str) -> LoadError {
    let problems = e.problems().map(|p| build_problem(p, locator)).collect();
    LoadError::all(problems).unwrap_or_else(|| build_problem(e, locator))
}

/// One problem of a [`BuildError`], located, with its near miss.
fn build_problem(e: &BuildError, locator: &str) -> LoadError {
    let mut place = locator.to_string();
    for part in &e.within {
        place.push_str(&format!(", [{part}]"));
    }
    match &e.kind {
        BuildErrorKind::UnknownParameters { token, keys, known } => {
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            unknown_keys(Some(&place), Some(token), "parameter", &keys, &known)
        }
        BuildErrorKind::UnknownType { token } => {
            let mut known: Vec<&str> = per_case_types();
            known.extend(per_run_types());
            let sentence = match hint(token, &known) {
                Some(h) => format!("there is no check called `{token}`. {h}"),
                None => format!("there is no check called `{token}`.{}", type_lists()),
            };
            err(
                LoadErrorKind::Unknown,
                Some(&place),
                Some("type"),
                &sentence,
            )
        }
        BuildErrorKind::MissingType => err(
            LoadErrorKind::Missing,
            Some(&place),
            Some("type"),
            &format!("{e}{}", type_lists()),
        ),
        BuildErrorKind::MissingParameters { keys, .. } => err(
            LoadErrorKind::Missing,
            Some(&place),
            keys.first().map(String::as_str),
            &e.to_string(),
        ),
        BuildErrorKind::Invalid {
            token,
            key,
            message,
        } => err(
            LoadErrorKind::Invalid,
            Some(&format!("{place}, `{token}`")),
            key.as_deref(),
            message,
        ),
        BuildErrorKind::NotBuiltYet { .. } => err(
            LoadErrorKind::NotBuiltYet,
            Some(&place),
            Some("type"),
            &e.to_string(),
        ),
        BuildErrorKind::PythonOnly { .. } => err(
            LoadErrorKind::PythonOnly,
            Some(&place),
            None,
            &e.to_string(),
        ),
        _ => err(LoadErrorKind::Invalid, Some(&place), None, &e.to_string()),
    }
}
