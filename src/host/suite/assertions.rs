//! `[[assertions]]`: every entry built in file order, a check by
//! `core::checks` (its parameters validated there) or an aggregate by
//! `core::aggregate`; a refused entry is noted and the others are still
//! built. The aggregates' suite-level rules run once the cases are read.

use serde_json::Map;
use toml::de::DeValue;

use super::errors::{LoadError, LoadErrorKind};
use super::fields::{unknown_sentence, Fields};
use super::located::{in_cases, line_column, LineColumn};
use super::suite_table::SuiteValues;
use super::toml_values::{kind, to_json};
use super::{err, noted};
use crate::client::provider::parse_coordinate;
use crate::core::aggregate::{build_aggregate, expand_by_group, DeclaredAggregate};
use crate::core::checks::registry::kind as kind_of;
use crate::core::checks::{
    build, is_aggregate, per_case_types, per_run_types, rule_entry, BuildError, BuildErrorKind,
    DeclaredCheck,
};
use crate::core::identity::RuleEntry;
use crate::host::near_miss::hint;

/// The checks, in file order, with their `config_hash` entries, and the
/// aggregates with their entry's locator and where their `over` is.
type Built = (
    Vec<DeclaredCheck>,
    Vec<RuleEntry>,
    Vec<(String, LineColumn, DeclaredAggregate)>,
);

/// The `[suite]`-level rules about aggregates (0.10.0 checks them when the
/// suite is built, after samples and canaries): some per-case check is
/// declared; each aggregate's `over` names exactly one check; every case
/// that is not a canary has a label. Returns the aggregates expanded by group.
pub(super) fn check_aggregates(
    top: &Fields<'_, '_>,
    checks: &[DeclaredCheck],
    declared: Vec<(String, LineColumn, DeclaredAggregate)>,
    values: &SuiteValues,
) -> Result<Vec<DeclaredAggregate>, LoadError> {
    if declared.is_empty() {
        return Ok(Vec::new());
    }
    if checks.is_empty() {
        return Err(top.refuse(
            LoadErrorKind::Missing,
            Some("assertions"),
            top.at_key("assertions"),
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
    for (locator, over_at, aggregate) in &declared {
        let matching = checks.iter().filter(|c| c.name == aggregate.over).count();
        let over = &aggregate.over;
        let token = aggregate.kind.as_str();
        let sentence = match matching {
            1 => continue,
            0 => match hint(over, &names) {
                Some(h) => {
                    format!("`{token}` counts `over = '{over}'`, and no check is called that. {h}")
                }
                None => format!(
                    "`{token}` counts `over = '{over}'`, and no check is called that. Declared: {}",
                    names.join(", ")
                ),
            },
            _ => format!(
                "`{token}` counts `over = '{over}'`, and {matching} checks are called that. \
                 Give the one you mean a distinct `name`: an aggregate cannot choose between \
                 them"
            ),
        };
        problems.push(
            err(
                LoadErrorKind::Invalid,
                Some(locator),
                Some("over"),
                &sentence,
            )
            .at(*over_at),
        );
    }
    let missing: Vec<&str> = (values.cases.iter())
        .filter(|c| !c.canary && c.label.is_none())
        .map(|c| c.id.as_str())
        .collect();
    if !missing.is_empty() {
        problems.push(
            LoadError::new(
                LoadErrorKind::Missing,
                &values.cases_name,
                None,
                Some("label"),
                &format!(
                    "the suite declares an aggregate, which counts positive and negative cases, \
                     so every case but a canary needs `label` = \"positive\" or \"negative\". \
                     Missing on: {}",
                    missing.join(", ")
                ),
            )
            .at(in_cases(&values.cases_text, None, Some("label"))),
        );
    }
    if let Some(error) = LoadError::all(problems) {
        return Err(error);
    }
    let groups: Vec<&str> = (values.cases.iter())
        .filter_map(|c| c.group.as_deref())
        .collect();
    let declared: Vec<DeclaredAggregate> = declared.into_iter().map(|(_, _, a)| a).collect();
    Ok(expand_by_group(&declared, &groups))
}

/// Every `[[assertions]]` entry built in file order; each refused entry is
/// noted among `problems` and the others are still built.
pub(super) fn build_assertions(top: &Fields<'_, '_>, problems: &mut Vec<LoadError>) -> Built {
    let mut built: Built = (Vec::new(), Vec::new(), Vec::new());
    let entries = match top.get("assertions").map(|v| v.get_ref()) {
        Some(DeValue::Array(entries)) if !entries.is_empty() => entries,
        None | Some(DeValue::Array(_)) => {
            problems.push(top.refuse(
                LoadErrorKind::Missing,
                Some("assertions"),
                top.at_key("assertions"),
                "no [[assertions]]. A run that checks nothing passes vacuously, and a gate that \
                 cannot fail is no gate: declare at least one check",
            ));
            return built;
        }
        Some(other) => {
            problems.push(top.invalid(
                "assertions",
                &format!(
                    "`assertions` is {}, and it has to be an array of tables ([[assertions]])",
                    kind(other)
                ),
            ));
            return built;
        }
    };
    for (i, entry) in entries.iter().enumerate() {
        let locator = format!("[[assertions]] #{}", i + 1);
        let at = entry.span().start;
        let DeValue::Table(table) = entry.get_ref() else {
            let refused = err(
                LoadErrorKind::Invalid,
                Some(&locator),
                None,
                "this entry is not a table",
            );
            problems.push(refused.at(line_column(top.text, at)));
            continue;
        };
        let f = Fields {
            locator: Some(&locator),
            at,
            table,
            ..*top
        };
        match noted(problems, build_entry(&f)) {
            Some(Entry::Check(check, rule)) => {
                built.0.push(*check);
                built.1.push(rule);
            }
            Some(Entry::Aggregate(aggregate)) => {
                let over_at = line_column(f.text, f.find("over"));
                built.2.push((locator.clone(), over_at, aggregate));
            }
            None => {}
        }
    }
    built
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

fn build_entry(f: &Fields<'_, '_>) -> Result<Entry, LoadError> {
    let Some(token) = f.optional::<String>("type", "it has to be the name of a check")? else {
        return Err(f.refuse(
            LoadErrorKind::Missing,
            Some("type"),
            f.find("type"),
            &format!(
                "no `type`, so nothing says which check this is.{}",
                type_lists()
            ),
        ));
    };
    // Each parameter a JSON value, every one that is not noted.
    let mut params = Map::new();
    let mut problems = Vec::new();
    for (key, value) in f.entries().filter(|(k, _)| *k != "type") {
        match to_json(value.get_ref()) {
            Ok(json) => {
                params.insert(key.to_string(), json);
            }
            Err(why) => problems.push(f.invalid(key, &format!("`{key}` is {why}"))),
        }
    }
    if let Some(error) = LoadError::all(problems) {
        return Err(error);
    }
    if let Some((key, why)) = crate::host::visible::check_params(&params) {
        return Err(f.refuse(LoadErrorKind::Invalid, Some(&key), f.find(&key), &why));
    }
    if is_aggregate(&token) {
        let aggregate = build_aggregate(&token, &params).map_err(|e| build_error(&e, f))?;
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
            let locator = format!("{}, `{token}`", f.locator.unwrap_or_default());
            let at = Fields {
                locator: Some(&locator),
                ..*f
            };
            at.refuse(
                LoadErrorKind::Invalid,
                Some("judge"),
                f.find("judge"),
                &format!("`judge`: {why}"),
            )
        })
    });
    let check = match built {
        Ok(check) => check,
        Err(e) => {
            let mut refused = build_error(&e, f);
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
    kind_of(token).is_some_and(|k| k.fields.iter().any(|f| f.name == "judge" && f.settable))
}

/// Locate each problem of a [`BuildError`] and add its near miss: one
/// refusal per problem, in the order the check found them.
fn build_error(e: &BuildError, entry: &Fields<'_, '_>) -> LoadError {
    let problems = e.problems().map(|p| build_problem(p, entry)).collect();
    LoadError::all(problems).unwrap_or_else(|| build_problem(e, entry))
}

/// One problem of a [`BuildError`], placed at the key it blames inside
/// the (nested) table it names, with its near miss.
fn build_problem(e: &BuildError, entry: &Fields<'_, '_>) -> LoadError {
    let mut place = entry.locator.unwrap_or_default().to_string();
    for part in &e.within {
        place.push_str(&format!(", [{part}]"));
    }
    let invalid_in = |token: &str| format!("{place}, `{token}`");
    let (kind, locator, key, sentence) = match &e.kind {
        BuildErrorKind::UnknownParameters { token, keys, known } => {
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            let sentence = unknown_sentence(Some(token), "parameter", &keys, &known);
            (
                LoadErrorKind::Unknown,
                place.clone(),
                keys.first().map(|k| k.to_string()),
                sentence,
            )
        }
        BuildErrorKind::UnknownType { token } => {
            let mut known: Vec<&str> = per_case_types();
            known.extend(per_run_types());
            let sentence = match hint(token, &known) {
                Some(h) => format!("there is no check called `{token}`. {h}"),
                None => format!("there is no check called `{token}`.{}", type_lists()),
            };
            (
                LoadErrorKind::Unknown,
                place.clone(),
                Some("type".to_string()),
                sentence,
            )
        }
        BuildErrorKind::MissingType => (
            LoadErrorKind::Missing,
            place.clone(),
            Some("type".to_string()),
            format!("{e}{}", type_lists()),
        ),
        BuildErrorKind::MissingParameters { keys, .. } => (
            LoadErrorKind::Missing,
            place.clone(),
            keys.first().cloned(),
            e.to_string(),
        ),
        BuildErrorKind::Invalid {
            token,
            key,
            message,
        } => (
            LoadErrorKind::Invalid,
            invalid_in(token),
            key.clone(),
            message.clone(),
        ),
        BuildErrorKind::NotBuiltYet { .. } => (
            LoadErrorKind::NotBuiltYet,
            place.clone(),
            Some("type".to_string()),
            e.to_string(),
        ),
        BuildErrorKind::PythonOnly { .. } => (
            LoadErrorKind::PythonOnly,
            place.clone(),
            None,
            e.to_string(),
        ),
        _ => (LoadErrorKind::Invalid, place.clone(), None, e.to_string()),
    };
    let table = entry.below(&e.within);
    let at = key.as_deref().map_or(table.at, |key| table.find(key));
    err(kind, Some(&locator), key.as_deref(), &sentence).at(line_column(entry.text, at))
}
