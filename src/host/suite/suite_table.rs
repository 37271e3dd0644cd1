//! `[suite]`: the tenant, environment and suite names, `cases`,
//! `artifacts`, `samples`, `min_agreement` and `record_responses`
//! (steps 4–9 of 0.10.0's load order), each problem noted.

use std::path::{Path, PathBuf};

use super::cases::read_cases;
use super::errors::{LoadError, LoadErrorKind};
use super::paths::inside_root;
use super::toml_values::{toml_to_json, toml_type};
use super::{err, noted, unknown_keys};
use crate::core::ratio::{as_agreement, sample_count, too_many_samples, SamplesRefused};
use crate::host::near_miss::did_you_mean;

/// Keys of `[suite]` in digline 0.10.0 (`disclosure` is known, and refused).
const SUITE_KEYS: &[&str] = &[
    "artifacts",
    "cases",
    "disclosure",
    "environment",
    "false_alarm_rate",
    "min_agreement",
    "name",
    "record_responses",
    "samples",
    "tenant",
];

/// `[suite]` itself: present, and a table.
pub(super) fn suite_section(value: Option<&toml::Value>) -> Result<&toml::Table, LoadError> {
    match value {
        None => Err(err(
            LoadErrorKind::Missing,
            None,
            Some("suite"),
            "no [suite] table, and every suite needs one: it names the tenant, the \
             environment, the suite and its cases file",
        )),
        Some(toml::Value::Table(t)) => Ok(t),
        Some(other) => Err(err(
            LoadErrorKind::Invalid,
            None,
            Some("suite"),
            &format!("[suite] is {}, not a table", toml_type(other)),
        )),
    }
}

/// What `[suite]` and the cases file it names hold, validated.
pub(super) struct SuiteValues {
    pub(super) tenant: String,
    pub(super) environment: String,
    pub(super) name: String,
    pub(super) samples: u32,
    pub(super) min_agreement: Option<f64>,
    pub(super) false_alarm_rate: f64,
    pub(super) record_responses: bool,
    pub(super) cases: Vec<crate::core::suite::Case>,
    pub(super) cases_name: String,
    pub(super) cases_text: String,
    pub(super) cases_path: PathBuf,
    pub(super) artifacts: Vec<String>,
    pub(super) artifact_paths: Vec<PathBuf>,
}

/// The `[suite]` keys and values (steps 4–9 of the load order), each
/// problem noted; `None` when any of them was refused.
pub(super) fn suite_values(
    suite_table: &toml::Table,
    suite_dir: &Path,
    root: &Path,
    problems: &mut Vec<LoadError>,
) -> Option<SuiteValues> {
    let before = problems.len();
    // 4. [suite] keys, 5. disclosure
    let unknown: Vec<&str> = suite_table
        .keys()
        .map(String::as_str)
        .filter(|k| !SUITE_KEYS.contains(k))
        .collect();
    // A key nobody knows that is a near miss of a key the suite needs is one
    // problem, not two: `enviroment` is not also "no `environment`".
    let meant: Vec<&str> = unknown
        .iter()
        .filter_map(|k| did_you_mean(k, SUITE_KEYS))
        .collect();
    if !unknown.is_empty() {
        problems.push(unknown_keys(
            Some("[suite]"),
            None,
            "key",
            &unknown,
            SUITE_KEYS,
        ));
    }
    if suite_table.contains_key("disclosure") {
        problems.push(err(
            LoadErrorKind::PythonOnly,
            Some("[suite]"),
            Some("disclosure"),
            "`disclosure` cannot be set from a data file: what a disclosure widens is what \
             leaves the perimeter, and a suite that is data never widens it. A suite that \
             must disclose more than the verdict is code, and needs a suite.py.",
        ));
    }
    // 6. cases, 7. perimeter and parse
    let cases_file = match suite_table.get("cases") {
        None if meant.contains(&"cases") => None,
        None => noted(
            problems,
            Err(err(
                LoadErrorKind::Missing,
                Some("[suite]"),
                Some("cases"),
                "no `cases`. Cases always live in a file of their own, e.g. \
                 `cases = \"cases.json\"`: a suite is rules, cases are data, and a diff has to \
                 say which of the two moved",
            )),
        ),
        Some(toml::Value::String(s)) if !s.is_empty() => {
            noted(problems, read_cases(s, suite_dir, root))
        }
        Some(other) => noted(
            problems,
            Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("cases"),
                &format!(
                    "`cases` is {}, and it has to be the path of the cases file",
                    toml_type(other)
                ),
            )),
        ),
    };
    // 8. artifacts
    let artifacts = noted(problems, artifacts(suite_table, suite_dir, root));
    // 9. the [suite] values
    let mut name_of = |key: &str| -> Option<String> {
        let refuse = |sentence: String| {
            Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some(key),
                &sentence,
            ))
        };
        let value = match suite_table.get(key) {
            None if meant.contains(&key) => return None,
            None => Err(err(
                LoadErrorKind::Missing,
                Some("[suite]"),
                Some(key),
                &format!("no `{key}`, and every suite needs one"),
            )),
            Some(toml::Value::String(s)) if s.is_empty() => {
                refuse(format!("`{key}` is empty, and it has to name something"))
            }
            Some(toml::Value::String(s)) if is_safe_name(s) => Ok(s.clone()),
            Some(toml::Value::String(s)) => refuse(format!(
                "`{key}` is '{s}', and a name may hold only letters, digits, `.`, `_` and `-`, \
                 starting with a letter or digit: it becomes a directory under .digline/"
            )),
            Some(other) => refuse(format!(
                "`{key}` is {}, and it has to be a string",
                toml_type(other)
            )),
        };
        noted(problems, value)
    };
    let tenant = name_of("tenant");
    let environment = name_of("environment");
    let name = name_of("name");
    let samples = noted(problems, samples(suite_table));
    let min_agreement = match samples {
        Some(samples) => noted(problems, min_agreement(suite_table, samples)),
        None => None,
    };
    let record_responses = noted(problems, record_responses(suite_table));
    let false_alarm_rate = noted(problems, false_alarm_rate(suite_table));
    if let (Some(samples), Some((cases, ..))) = (samples, &cases_file) {
        if samples < 2 {
            if let Some(canary) = cases.iter().find(|c| c.canary) {
                problems.push(err(
                    LoadErrorKind::Invalid,
                    Some("[suite]"),
                    Some("samples"),
                    &format!(
                        "case '{}' is a canary and the suite samples {samples} time(s). A canary \
                         is read by whether it moved beyond its own noise, and one sample has no \
                         noise to measure. Set samples to at least 2 (with min_agreement), or \
                         drop the canary flag",
                        canary.id
                    ),
                ));
            }
        }
    }
    if problems.len() > before {
        return None;
    }
    let (cases, cases_name, cases_text, cases_path) = cases_file?;
    let (artifacts, artifact_paths) = artifacts?;
    Some(SuiteValues {
        tenant: tenant?,
        environment: environment?,
        name: name?,
        samples: samples?,
        min_agreement: min_agreement?,
        false_alarm_rate: false_alarm_rate?,
        record_responses: record_responses?,
        cases,
        cases_name,
        cases_text,
        cases_path,
        artifacts,
        artifact_paths,
    })
}

/// `artifacts`: the written paths and where each resolves.
fn artifacts(
    suite_table: &toml::Table,
    suite_dir: &Path,
    root: &Path,
) -> Result<(Vec<String>, Vec<PathBuf>), LoadError> {
    match suite_table.get("artifacts") {
        None => Ok((Vec::new(), Vec::new())),
        Some(toml::Value::Array(items)) => {
            // Each entry on its own: every refused entry is noted, placed
            // at the entry.
            let mut problems = Vec::new();
            let mut written = Vec::new();
            let mut resolved = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let mut noted_at = |e: LoadError| problems.push(e.at_element(i));
                let toml::Value::String(path) = item else {
                    noted_at(err(
                        LoadErrorKind::Invalid,
                        Some("[suite]"),
                        Some("artifacts"),
                        &format!(
                            "`artifacts` holds {}, and every entry has to be a path",
                            toml_type(item)
                        ),
                    ));
                    continue;
                };
                if written.contains(path) {
                    noted_at(err(
                        LoadErrorKind::Invalid,
                        Some("[suite]"),
                        Some("artifacts"),
                        &format!("`artifacts` names {path} twice"),
                    ));
                    continue;
                }
                written.push(path.clone());
                match inside_root("artifacts", path, suite_dir, root) {
                    Ok(full) => resolved.push(full),
                    Err(e) => noted_at(e),
                }
            }
            match LoadError::all(problems) {
                Some(error) => Err(error),
                None => Ok((written, resolved)),
            }
        }
        Some(other) => Err(err(
            LoadErrorKind::Invalid,
            Some("[suite]"),
            Some("artifacts"),
            &format!(
                "`artifacts` is {}, and it has to be an array of paths, e.g. [\"prompt.md\"]",
                toml_type(other)
            ),
        )),
    }
}

/// `samples`: a whole number of calls per case, 1 when absent, at most
/// [`MOST_SAMPLES`](crate::core::ratio::MOST_SAMPLES).
fn samples(suite_table: &toml::Table) -> Result<u32, LoadError> {
    match suite_table.get("samples") {
        None => Ok(1),
        Some(toml::Value::Integer(n)) => match sample_count(i128::from(*n), 1) {
            Ok(count) => Ok(count),
            Err(SamplesRefused::TooMany) => Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("samples"),
                &too_many_samples(i128::from(*n)),
            )),
            Err(SamplesRefused::TooFew) => Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("samples"),
                &format!(
                    "`samples` is {n}, and at least one call per case is needed to judge \
                     anything"
                ),
            )),
        },
        Some(other) => Err(err(
            LoadErrorKind::Invalid,
            Some("[suite]"),
            Some("samples"),
            &format!(
                "`samples` is {}, and it has to be a whole number",
                toml_type(other)
            ),
        )),
    }
}

/// `min_agreement`: required when sampling, one `samples` can produce.
fn min_agreement(suite_table: &toml::Table, samples: u32) -> Result<Option<f64>, LoadError> {
    match suite_table.get("min_agreement") {
        None if samples > 1 => Err(err(
            LoadErrorKind::Missing,
            Some("[suite]"),
            Some("min_agreement"),
            &format!(
                "`samples` is {samples} and there is no `min_agreement`. Sampling measures \
                 how much the answers wobble; without a stated floor nobody has said how \
                 much wobble is acceptable. Add e.g. min_agreement = \"{}/{samples}\"",
                samples / 2 + 1
            ),
        )),
        None => Ok(None),
        Some(value) => {
            let value = toml_to_json(value).map_err(|why| {
                err(
                    LoadErrorKind::Invalid,
                    Some("[suite]"),
                    Some("min_agreement"),
                    &format!("`min_agreement` is {why}"),
                )
            })?;
            Ok(Some(
                as_agreement(&value, samples, "min_agreement").map_err(|e| {
                    err(
                        LoadErrorKind::Invalid,
                        Some("[suite]"),
                        Some("min_agreement"),
                        &e.message,
                    )
                })?,
            ))
        }
    }
}

/// `record_responses`: true or false, false when absent.
/// `false_alarm_rate`: a number above 0 and below 0.5 (default 0.05), the
/// chance for the whole gate of calling an unchanged system worse.
fn false_alarm_rate(suite_table: &toml::Table) -> Result<f64, LoadError> {
    let refuse = |why: String| {
        Err(err(
            LoadErrorKind::Invalid,
            Some("[suite]"),
            Some("false_alarm_rate"),
            &why,
        ))
    };
    let rate = match suite_table.get("false_alarm_rate") {
        None => return Ok(crate::core::suite::DEFAULT_FALSE_ALARM_RATE),
        Some(toml::Value::Float(x)) => *x,
        Some(toml::Value::Integer(n)) => *n as f64,
        Some(other) => {
            return refuse(format!(
                "`false_alarm_rate` is {}, and it has to be a number such as 0.05",
                toml_type(other)
            ))
        }
    };
    if rate > 0.0 && rate < 0.5 {
        Ok(rate)
    } else {
        refuse(format!(
            "`false_alarm_rate` is {rate}, and it has to be above 0 and below 0.5 (0.05 calls an \
             unchanged system worse in at most 1 gate of 20)"
        ))
    }
}

fn record_responses(suite_table: &toml::Table) -> Result<bool, LoadError> {
    match suite_table.get("record_responses") {
        None => Ok(false),
        Some(toml::Value::Boolean(b)) => Ok(*b),
        Some(other) => Err(err(
            LoadErrorKind::Invalid,
            Some("[suite]"),
            Some("record_responses"),
            &format!(
                "`record_responses` is {}, and it has to be true or false",
                toml_type(other)
            ),
        )),
    }
}

/// `^[A-Za-z0-9][A-Za-z0-9._-]*$`: one safe path segment.
fn is_safe_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}
