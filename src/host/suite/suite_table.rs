//! `[suite]`: the tenant, environment and suite names, `cases`,
//! `artifacts`, `samples`, `min_agreement` and `record_responses`
//! (steps 4–9 of 0.10.0's load order), each problem noted.

use std::path::{Path, PathBuf};

use toml::de::DeValue;

use super::cases::read_cases;
use super::errors::{LoadError, LoadErrorKind};
use super::fields::{Fields, FromToml, Num};
use super::noted;
use super::paths::inside_root;
use super::toml_values::{kind, to_json};
use crate::core::ratio::{as_agreement, sample_count, too_many_samples, SamplesRefused};

/// Keys of `[suite]` in digline 0.10.0 (`disclosure` is known, and refused).
const SUITE_KEYS: &[&str] = &[
    "artifacts",
    "cases",
    "disclosure",
    "environment",
    "false_alarm_rate",
    "max_usd",
    "min_agreement",
    "name",
    "record_responses",
    "samples",
    "tenant",
];

/// What `[suite]` and the cases file it names hold, validated.
pub(super) struct SuiteValues {
    pub(super) tenant: String,
    pub(super) environment: String,
    pub(super) name: String,
    pub(super) samples: u32,
    pub(super) min_agreement: Option<f64>,
    pub(super) false_alarm_rate: f64,
    pub(super) record_responses: bool,
    pub(super) max_usd: Option<f64>,
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
    f: &Fields<'_, '_>,
    suite_dir: &Path,
    root: &Path,
    problems: &mut Vec<LoadError>,
) -> Option<SuiteValues> {
    let before = problems.len();
    // 4. [suite] keys, 5. disclosure. A key nobody knows that is a near
    // miss of a key the suite needs is one problem, not two: `enviroment`
    // is not also "no `environment`".
    let meant = f.known(SUITE_KEYS, &[], None, "key", problems);
    if f.get("disclosure").is_some() {
        problems.push(f.refuse(
            LoadErrorKind::PythonOnly,
            Some("disclosure"),
            f.at_key("disclosure"),
            "`disclosure` cannot be set from a data file: what a disclosure widens is what \
             leaves the perimeter, and a suite that is data never widens it. A suite that \
             must disclose more than the verdict is code, and needs a suite.py.",
        ));
    }
    let missing = |key: &str, sentence: &str| {
        (!meant.contains(&key)).then(|| f.refuse(LoadErrorKind::Missing, Some(key), f.at, sentence))
    };
    // 6. cases, 7. perimeter and parse
    let cases_file =
        match f.optional::<WrittenPath>("cases", "it has to be the path of the cases file") {
            Ok(None) => {
                problems.extend(missing(
                    "cases",
                    "no `cases`. Cases always live in a file of their own, e.g. \
                 `cases = \"cases.json\"`: a suite is rules, cases are data, and a diff has to \
                 say which of the two moved",
                ));
                None
            }
            Ok(Some(WrittenPath(written))) => noted(
                problems,
                read_cases(&written, suite_dir, root).map_err(|e| f.place(e, f.at_key("cases"))),
            ),
            Err(e) => noted(problems, Err(e)),
        };
    // 8. artifacts
    let artifacts = noted(problems, artifacts(f, suite_dir, root));
    // 9. the [suite] values
    let mut name_of = |key: &str| -> Option<String> {
        let name = match f.optional::<String>(key, "it has to be a string") {
            Ok(None) => {
                problems.extend(missing(
                    key,
                    &format!("no `{key}`, and every suite needs one"),
                ));
                return None;
            }
            Ok(Some(s)) if s.is_empty() => Err(f.invalid(
                key,
                &format!("`{key}` is empty, and it has to name something"),
            )),
            Ok(Some(s)) if is_safe_name(&s) => Ok(s),
            Ok(Some(s)) => Err(f.invalid(
                key,
                &format!(
                    "`{key}` is '{s}', and a name may hold only letters, digits, `.`, `_` and \
                     `-`, starting with a letter or digit: it becomes a directory under .digline/"
                ),
            )),
            Err(e) => Err(e),
        };
        noted(problems, name)
    };
    let tenant = name_of("tenant");
    let environment = name_of("environment");
    let name = name_of("name");
    let samples = noted(problems, samples(f));
    let min_agreement = match samples {
        Some(samples) => noted(problems, min_agreement(f, samples)),
        None => None,
    };
    let record_responses = noted(
        problems,
        f.optional("record_responses", "it has to be true or false"),
    );
    let max_usd = noted(
        problems,
        f.bounded(
            "max_usd",
            "it has to be a number of US dollars, 0 or more (max_usd = 0.50)",
            |n: &Num| n.at_least(0.0),
        ),
    );
    let false_alarm_rate = noted(
        problems,
        f.bounded(
            "false_alarm_rate",
            "it has to be a number of at least 0.0001 and below 0.5 (0.05 calls an unchanged \
             system worse in at most 1 gate of 20; below 0.0001 a failure could be called \
             worse only against a reference of 19 samples or more that all passed, so a gate would pass \
             whatever failed)",
            |n: &Num| n.at_least(crate::core::suite::LEAST_FALSE_ALARM_RATE) && n.x < 0.5,
        ),
    );
    if let (Some(samples), Some((cases, ..))) = (samples, &cases_file) {
        if let Some(canary) = cases.iter().find(|c| c.canary).filter(|_| samples < 2) {
            problems.push(f.invalid(
                "samples",
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
        false_alarm_rate: false_alarm_rate?
            .map_or(crate::core::suite::DEFAULT_FALSE_ALARM_RATE, |n| n.x),
        record_responses: record_responses?.unwrap_or(false),
        max_usd: max_usd?.map(|n| n.x),
        cases,
        cases_name,
        cases_text,
        cases_path,
        artifacts,
        artifact_paths,
    })
}

/// A path a suite names: a string that is not empty (an empty one is
/// refused as any other string).
struct WrittenPath(String);

impl FromToml for WrittenPath {
    fn from_toml(value: &DeValue<'_>) -> Result<Self, String> {
        match value.as_str() {
            Some(path) if !path.is_empty() => Ok(WrittenPath(path.to_string())),
            _ => Err(kind(value).to_string()),
        }
    }
}

/// `artifacts`: the written paths and where each resolves.
fn artifacts(
    f: &Fields<'_, '_>,
    suite_dir: &Path,
    root: &Path,
) -> Result<(Vec<String>, Vec<PathBuf>), LoadError> {
    let items = match f.get("artifacts").map(|v| v.get_ref()) {
        None => return Ok((Vec::new(), Vec::new())),
        Some(DeValue::Array(items)) => items,
        Some(other) => {
            return Err(f.invalid(
                "artifacts",
                &format!(
                    "`artifacts` is {}, and it has to be an array of paths, e.g. [\"prompt.md\"]",
                    kind(other)
                ),
            ))
        }
    };
    // Each entry on its own: every refused entry is noted, placed at the entry.
    let mut problems = Vec::new();
    let mut written = Vec::new();
    let mut resolved = Vec::new();
    for item in items.iter() {
        let refuse = |sentence: &str| {
            f.refuse(
                LoadErrorKind::Invalid,
                Some("artifacts"),
                item.span().start,
                sentence,
            )
        };
        let Some(path) = item.get_ref().as_str() else {
            problems.push(refuse(&format!(
                "`artifacts` holds {}, and every entry has to be a path",
                kind(item.get_ref())
            )));
            continue;
        };
        if written.iter().any(|w| w == path) {
            problems.push(refuse(&format!("`artifacts` names {path} twice")));
            continue;
        }
        written.push(path.to_string());
        match inside_root("artifacts", path, suite_dir, root) {
            Ok(full) => resolved.push(full),
            Err(e) => problems.push(f.place(e, item.span().start)),
        }
    }
    match LoadError::all(problems) {
        Some(error) => Err(error),
        None => Ok((written, resolved)),
    }
}

/// `samples`: a whole number of calls per case, 1 when absent, at most
/// [`MOST_SAMPLES`](crate::core::ratio::MOST_SAMPLES).
fn samples(f: &Fields<'_, '_>) -> Result<u32, LoadError> {
    let Some(n) = f.optional::<i64>("samples", "it has to be a whole number")? else {
        return Ok(1);
    };
    sample_count(i128::from(n), 1).map_err(|refused| {
        f.invalid(
            "samples",
            &match refused {
                SamplesRefused::TooMany => too_many_samples(i128::from(n)),
                SamplesRefused::TooFew => format!(
                    "`samples` is {n}, and at least one call per case is needed to judge \
                     anything"
                ),
            },
        )
    })
}

/// `min_agreement`: required when sampling, one `samples` can produce.
fn min_agreement(f: &Fields<'_, '_>, samples: u32) -> Result<Option<f64>, LoadError> {
    let invalid = |sentence: &str| f.invalid("min_agreement", sentence);
    match f.get("min_agreement") {
        None if samples > 1 => Err(f.refuse(
            LoadErrorKind::Missing,
            Some("min_agreement"),
            f.at,
            &format!(
                "`samples` is {samples} and there is no `min_agreement`. Sampling measures \
                 how much the answers wobble; without a stated floor nobody has said how \
                 much wobble is acceptable. Add e.g. min_agreement = \"{}/{samples}\"",
                samples / 2 + 1
            ),
        )),
        None => Ok(None),
        Some(value) => {
            let value = to_json(value.get_ref())
                .map_err(|why| invalid(&format!("`min_agreement` is {why}")))?;
            as_agreement(&value, samples, "min_agreement")
                .map(Some)
                .map_err(|e| invalid(&e.message))
        }
    }
}

/// `^[A-Za-z0-9][A-Za-z0-9._-]*$`: one safe path segment.
fn is_safe_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}
