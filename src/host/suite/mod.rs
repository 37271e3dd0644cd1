//! Loading `suite.toml` + `cases.json` into a [`Suite`] and an
//! [`HttpTargetSpec`], refusing bad input with located sentences.
//!
//! The order of the checks is digline 0.10.0's load order (python-input.md
//! §1.2), which is also the precedence of errors: top-level keys; `[suite]`
//! present; `[[assertions]]` present and each entry built in file order;
//! `[suite]` keys; `disclosure`; `cases` named, inside the root, read; the
//! `artifacts`; the `[suite]` values; then `[target]`.
//!
//! Paths (`cases`, `artifacts`) resolve against the suite file's directory
//! and must stay inside `root` after symlinks are resolved. A UTF-8 BOM and
//! CRLF line endings are tolerated in both files; invalid UTF-8 is refused
//! with its byte offset. Header values may name environment variables as
//! `${NAME}`; [`expand_headers`] fills them in before the first call.
//! Spec `10-suite.md`, `25-targets.md`.

use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Number, Value};

use super::cases::{decode_utf8, parse_cases};
use super::load_errors::{LoadError, LoadErrorKind};
use super::located;
use super::near_miss::{did_you_mean, hint, listing};
use crate::core::aggregate::{build_aggregate, expand_by_group, DeclaredAggregate};
use crate::core::checks::build::{is_aggregate, rule_entry, PER_CASE_TYPES, PER_RUN_TYPES};
use crate::core::checks::{build, BuildError, BuildErrorKind, DeclaredCheck};
use crate::core::identity::RuleEntry;
use crate::core::ratio::as_agreement;
use crate::core::suite::Suite;
use crate::target::http::{check_body_references, HttpTargetSpec};
use crate::target::provider::{parse_coordinate, ProviderSpec};

use super::provider_suite::provider_target;

const SUITE_FILE: &str = "suite.toml";

/// Top-level tables of `suite.toml`.
const TOP_LEVEL: &[&str] = &["assertions", "suite", "target"];

/// Keys of `[suite]` in digline 0.10.0 (`disclosure` is known, and refused).
const SUITE_KEYS: &[&str] = &[
    "artifacts",
    "cases",
    "disclosure",
    "environment",
    "min_agreement",
    "name",
    "record_responses",
    "samples",
    "tenant",
];

/// Parameters of `[target] type = "http"` in digline 0.10.0.
const HTTP_KEYS: &[&str] = &[
    "allow_ci_tokens",
    "body",
    "config_path",
    "cost_path",
    "headers",
    "latency_from_response",
    "output_path",
    "timeout",
    "url",
];

/// `[target]`, validated: the two forms a suite that is data can declare.
#[derive(Clone, Debug, PartialEq)]
pub enum TargetSpec {
    /// `type = "http"`: a service the team runs.
    Http(HttpTargetSpec),
    /// `type = "provider"`: a hosted model asked with a prompt template.
    Provider(ProviderSpec),
}

impl TargetSpec {
    /// The HTTP target, if that is the form.
    pub fn http(&self) -> Option<&HttpTargetSpec> {
        match self {
            TargetSpec::Http(spec) => Some(spec),
            TargetSpec::Provider(_) => None,
        }
    }

    /// The provider target, if that is the form.
    pub fn provider(&self) -> Option<&ProviderSpec> {
        match self {
            TargetSpec::Provider(spec) => Some(spec),
            TargetSpec::Http(_) => None,
        }
    }
}

/// A suite loaded and validated, with where it came from.
#[derive(Clone, Debug)]
pub struct LoadedSuite {
    /// The suite as pure data (checks, cases, samples …).
    pub suite: Suite,
    /// The target: HTTP (headers not yet expanded, see [`expand_headers`])
    /// or a provider (no key read yet).
    pub target: TargetSpec,
    /// The suite file as given to [`load`].
    pub suite_path: PathBuf,
    /// The suite file's directory, symlinks resolved: relative paths start here.
    pub suite_dir: PathBuf,
    /// The repository root (the perimeter), symlinks resolved.
    pub root: PathBuf,
    /// The cases file, resolved.
    pub cases_path: PathBuf,
    /// Each `artifacts` entry resolved (same order as `suite.artifacts`).
    pub artifact_paths: Vec<PathBuf>,
}

/// Load `suite_path` (a `suite.toml`) and the cases file it names, with
/// `root` as the perimeter no path may leave.
///
/// # Errors
/// A [`LoadError`] whose message names the file, the entry, the key and the
/// near miss: unreadable or malformed files, unknown keys, missing or
/// invalid values, checks not built yet, Python-only constructs, inline
/// credentials, and paths outside `root`.
pub fn load(suite_path: &Path, root: &Path) -> Result<LoadedSuite, LoadError> {
    let name = suite_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| SUITE_FILE.to_string());
    load_named(suite_path, root).map_err(|e| {
        if e.file == SUITE_FILE {
            e.in_file(&name)
        } else {
            e
        }
    })
}

fn load_named(suite_path: &Path, root: &Path) -> Result<LoadedSuite, LoadError> {
    let bytes = std::fs::read(suite_path).map_err(|e| {
        LoadError::new(
            LoadErrorKind::Read,
            SUITE_FILE,
            None,
            None,
            &format!(
                "could not be read at {}: {}",
                suite_path.display(),
                io_reason(&e)
            ),
        )
    })?;
    let root = std::fs::canonicalize(root).map_err(|e| {
        LoadError::new(
            LoadErrorKind::Read,
            "--root",
            None,
            None,
            &format!(
                "the root {} cannot be resolved: {}",
                root.display(),
                io_reason(&e)
            ),
        )
    })?;
    let suite_dir = std::fs::canonicalize(suite_path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| root.clone());
    let text = decode_utf8(&bytes, SUITE_FILE)?;
    // CR LF read as LF, as 0.10.0's reader does (multi-line strings included).
    let folded = super::crlf::fold_crlf(text);
    let text: &str = &folded;
    let table = parse_toml(text)?;
    let mut loaded = from_table(&table, text, &suite_dir, &root)?;
    loaded.suite_path = suite_path.to_path_buf();
    Ok(loaded)
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

pub(super) fn err(
    kind: LoadErrorKind,
    locator: Option<&str>,
    key: Option<&str>,
    sentence: &str,
) -> LoadError {
    LoadError::new(kind, SUITE_FILE, locator, key, sentence)
}

/// Parse the suite file's text (BOM dropped, CR LF folded); a syntax
/// error is placed at its line and column.
fn parse_toml(text: &str) -> Result<toml::Table, LoadError> {
    text.parse::<toml::Table>().map_err(|e| {
        let refusal = err(
            LoadErrorKind::Syntax,
            None,
            None,
            &format!(
                "this is not valid TOML: {}",
                e.message().trim_end_matches('\n')
            ),
        );
        match e.span() {
            Some(span) => refusal.at(located::line_column(text, span.start)),
            None => refusal,
        }
    })
}

/// One or several unknown keys, with near misses or the known keys.
pub(super) fn unknown_keys(
    locator: Option<&str>,
    owner: Option<&str>,
    noun: &str,
    keys: &[&str],
    known: &[&str],
) -> LoadError {
    let subject = match owner {
        Some(owner) => format!("`{owner}` has no"),
        None => "no such".to_string(),
    };
    let sentence = if let [key] = keys {
        match hint(key, known) {
            Some(h) => format!("{subject} {noun} `{key}`. {h}"),
            None if known.is_empty() => format!("{subject} {noun} `{key}`. It takes none at all."),
            None => format!(
                "{subject} {noun} `{key}`. Known {noun}s: {}",
                listing(known)
            ),
        }
    } else {
        let named: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
        let mut lines = vec![format!("{subject} {noun}s {}.", named.join(", "))];
        let hints: Vec<String> = keys
            .iter()
            .filter_map(|k| did_you_mean(k, known).map(|h| format!("  `{k}`: did you mean `{h}`?")))
            .collect();
        if hints.is_empty() {
            lines.push(format!("Known {noun}s: {}", listing(known)));
        } else {
            lines.extend(hints);
        }
        lines.join("\n")
    };
    err(
        LoadErrorKind::Unknown,
        locator,
        keys.first().copied(),
        &sentence,
    )
}

pub(super) fn toml_type(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a float",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date-time",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    }
}

/// Convert a TOML value to JSON, keeping integers and floats apart
/// (`800` and `800.0` are different identities).
///
/// # Errors
/// A phrase for a value JSON cannot hold: NaN, an infinity, a date-time.
pub fn toml_to_json(value: &toml::Value) -> Result<Value, String> {
    Ok(match value {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::Number(Number::from(*i)),
        toml::Value::Float(x) => match Number::from_f64(*x) {
            Some(n) => Value::Number(n),
            None => return Err(format!("{x}, which is not a finite number")),
        },
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => {
            return Err(format!("the date-time {d}, which no parameter takes"))
        }
        toml::Value::Array(items) => {
            Value::Array(items.iter().map(toml_to_json).collect::<Result<_, _>>()?)
        }
        toml::Value::Table(table) => Value::Object(
            table
                .iter()
                .map(|(k, v)| toml_to_json(v).map(|v| (k.clone(), v)))
                .collect::<Result<Map<_, _>, _>>()?,
        ),
    })
}

/// Keep `result`'s value, or note its error among `problems`.
fn noted<T>(problems: &mut Vec<LoadError>, result: Result<T, LoadError>) -> Option<T> {
    result.map_err(|e| problems.push(e)).ok()
}

/// Validate the parsed suite file section by section. Every independent
/// problem is collected, in 0.10.0's load order (so the first is the one
/// 0.10.0 names); a rule whose input was already refused is not run, so a
/// problem is never reported twice under two names.
fn from_table(
    table: &toml::Table,
    text: &str,
    suite_dir: &Path,
    root: &Path,
) -> Result<LoadedSuite, LoadError> {
    let mut problems = Vec::new();
    // 1. top-level keys
    let unknown: Vec<&str> = table
        .keys()
        .map(String::as_str)
        .filter(|k| !TOP_LEVEL.contains(k))
        .collect();
    if !unknown.is_empty() {
        problems.push(unknown_keys(
            Some("top level"),
            None,
            "table",
            &unknown,
            TOP_LEVEL,
        ));
    }
    // 2. [suite]
    let suite_table = noted(&mut problems, suite_section(table.get("suite")));
    // 3. [[assertions]]
    let (checks, rules, declared_aggregates) =
        build_assertions(table.get("assertions"), &mut problems);
    let assertions_ok = problems.is_empty();
    // 4.–9. the [suite] keys and values, the cases file, the artifacts
    let suite = suite_table.and_then(|t| suite_values(t, suite_dir, root, &mut problems));
    let aggregates = match &suite {
        Some(values) if assertions_ok => noted(
            &mut problems,
            check_aggregates(
                &checks,
                declared_aggregates,
                &values.cases,
                &values.cases_name,
            ),
        ),
        _ => None,
    };
    // 10. [target]
    let target = noted(
        &mut problems,
        load_target(table.get("target"), suite_dir, root),
    );
    if let (Some(TargetSpec::Http(spec)), Some(values)) = (&target, &suite) {
        noted(
            &mut problems,
            check_body_against_cases(spec, &values.cases, &values.cases_name),
        );
    }
    if let Some(error) = LoadError::all(problems) {
        let cases = suite
            .as_ref()
            .map(|v| (v.cases_name.as_str(), v.cases_text.as_str()));
        return Err(located::place(error, Some(text), cases));
    }
    let (Some(values), Some(aggregates), Some(target)) = (suite, aggregates, target) else {
        unreachable!("every section that failed noted a problem");
    };
    Ok(LoadedSuite {
        suite: Suite {
            tenant: values.tenant,
            environment: values.environment,
            name: values.name,
            samples: values.samples,
            min_agreement: values.min_agreement,
            checks,
            cases: values.cases,
            record_responses: values.record_responses,
            artifacts: values.artifacts,
            rules,
            aggregates,
        },
        target,
        suite_path: PathBuf::new(),
        suite_dir: suite_dir.to_path_buf(),
        root: root.to_path_buf(),
        cases_path: values.cases_path,
        artifact_paths: values.artifact_paths,
    })
}

/// `[suite]` itself: present, and a table.
fn suite_section(value: Option<&toml::Value>) -> Result<&toml::Table, LoadError> {
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
struct SuiteValues {
    tenant: String,
    environment: String,
    name: String,
    samples: u32,
    min_agreement: Option<f64>,
    record_responses: bool,
    cases: Vec<crate::core::suite::Case>,
    cases_name: String,
    cases_text: String,
    cases_path: PathBuf,
    artifacts: Vec<String>,
    artifact_paths: Vec<PathBuf>,
}

/// The `[suite]` keys and values (steps 4–9 of the load order), each
/// problem noted; `None` when any of them was refused.
fn suite_values(
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
        record_responses: record_responses?,
        cases,
        cases_name,
        cases_text,
        cases_path,
        artifacts,
        artifact_paths,
    })
}

/// The cases file `cases_rel` names: inside the root, read, parsed.
fn read_cases(
    cases_rel: &str,
    suite_dir: &Path,
    root: &Path,
) -> Result<(Vec<crate::core::suite::Case>, String, String, PathBuf), LoadError> {
    let cases_path = inside_root("cases", cases_rel, suite_dir, root)?;
    let cases_name = Path::new(cases_rel).file_name().map_or_else(
        || cases_rel.to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let cases_bytes = std::fs::read(&cases_path).map_err(|e| {
        err(
            LoadErrorKind::Read,
            Some("[suite]"),
            Some("cases"),
            &format!(
                "the cases file {cases_rel} could not be read at {}: {}",
                cases_path.display(),
                io_reason(&e)
            ),
        )
    })?;
    let text = decode_utf8(&cases_bytes, &cases_name).unwrap_or_default();
    let cases = parse_cases(&cases_bytes, &cases_name)
        .map_err(|e| located::place(e, None, Some((&cases_name, text))))?;
    Ok((cases, cases_name.clone(), text.to_string(), cases_path))
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
            let mut written = Vec::new();
            let mut resolved = Vec::new();
            for item in items {
                let toml::Value::String(path) = item else {
                    return Err(err(
                        LoadErrorKind::Invalid,
                        Some("[suite]"),
                        Some("artifacts"),
                        &format!(
                            "`artifacts` holds {}, and every entry has to be a path",
                            toml_type(item)
                        ),
                    ));
                };
                if written.contains(path) {
                    return Err(err(
                        LoadErrorKind::Invalid,
                        Some("[suite]"),
                        Some("artifacts"),
                        &format!("`artifacts` names {path} twice"),
                    ));
                }
                resolved.push(inside_root("artifacts", path, suite_dir, root)?);
                written.push(path.clone());
            }
            Ok((written, resolved))
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

/// `samples`: a whole number of calls per case, 1 when absent.
fn samples(suite_table: &toml::Table) -> Result<u32, LoadError> {
    match suite_table.get("samples") {
        None => Ok(1),
        Some(toml::Value::Integer(n)) if *n >= 1 => u32::try_from(*n).map_err(|_| {
            err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("samples"),
                &format!("`samples` is {n}, more calls per case than digline can count"),
            )
        }),
        Some(toml::Value::Integer(n)) => Err(err(
            LoadErrorKind::Invalid,
            Some("[suite]"),
            Some("samples"),
            &format!(
                "`samples` is {n}, and at least one call per case is needed to judge anything"
            ),
        )),
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

/// Resolve `written` against the suite directory and refuse it outside `root`.
pub(super) fn inside_root(
    key: &str,
    written: &str,
    suite_dir: &Path,
    root: &Path,
) -> Result<PathBuf, LoadError> {
    let joined = suite_dir.join(written);
    let resolved = std::fs::canonicalize(&joined).unwrap_or_else(|_| normalize(&joined));
    if resolved.starts_with(root) {
        Ok(resolved)
    } else {
        Err(err(
            LoadErrorKind::Perimeter,
            Some("[suite]"),
            Some(key),
            &format!(
                "`{key}` names {}, which is outside {}. A suite that is data reads only inside \
                 its own repository; move the file in, or pass the right --root",
                resolved.display(),
                root.display()
            ),
        ))
    }
}

/// Lexically drop `.` and resolve `..` (for a path that does not exist yet).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

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
fn check_aggregates(
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
            return Err(err(
                LoadErrorKind::Invalid,
                Some(locator),
                Some("over"),
                &sentence,
            ));
        }
        if matching > 1 {
            return Err(err(
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
        return Err(LoadError::new(
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
    let groups: Vec<&str> = cases.iter().filter_map(|c| c.group.as_deref()).collect();
    let declared: Vec<DeclaredAggregate> = declared.into_iter().map(|(_, a)| a).collect();
    Ok(expand_by_group(&declared, &groups))
}

/// Every `[[assertions]]` entry built in file order; each refused entry is
/// noted among `problems` and the others are still built.
fn build_assertions(value: Option<&toml::Value>, problems: &mut Vec<LoadError>) -> Built {
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
        PER_CASE_TYPES.join(", "),
        PER_RUN_TYPES.join(", ")
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
    let mut params = Map::new();
    for (key, value) in table.iter().filter(|(k, _)| k.as_str() != "type") {
        let json = toml_to_json(value).map_err(|why| {
            err(
                LoadErrorKind::Invalid,
                Some(locator),
                Some(key),
                &format!("`{key}` is {why}"),
            )
        })?;
        params.insert(key.clone(), json);
    }
    if let Some((key, why)) = super::visible::check_params(&params) {
        return Err(err(LoadErrorKind::Invalid, Some(locator), Some(&key), &why));
    }
    if is_aggregate(&token) {
        let aggregate = build_aggregate(&token, &params).map_err(|e| build_error(&e, locator))?;
        return Ok(Entry::Aggregate(aggregate));
    }
    let check = build(&token, &params).map_err(|e| build_error(&e, locator))?;
    if let Some(coordinate) = check.judge_coordinate() {
        parse_coordinate(coordinate).map_err(|why| {
            err(
                LoadErrorKind::Invalid,
                Some(locator),
                Some("judge"),
                &format!("`{token}`: `judge`: {why}"),
            )
        })?;
    }
    let rule = rule_entry(&check, &params);
    Ok(Entry::Check(Box::new(check), rule))
}

/// Locate a [`BuildError`] and add its near miss.
fn build_error(e: &BuildError, locator: &str) -> LoadError {
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
            let mut known: Vec<&str> = PER_CASE_TYPES.to_vec();
            known.extend_from_slice(PER_RUN_TYPES);
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

/// Find `api_key` anywhere in a TOML table; returns the dotted path.
fn find_api_key(table: &toml::Table, prefix: &str) -> Option<String> {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        if key.eq_ignore_ascii_case("api_key") {
            return Some(path);
        }
        if let toml::Value::Table(inner) = value {
            if let Some(found) = find_api_key(inner, &path) {
                return Some(found);
            }
        }
    }
    None
}

fn load_target(
    value: Option<&toml::Value>,
    suite_dir: &Path,
    root: &Path,
) -> Result<TargetSpec, LoadError> {
    const AT: Option<&str> = Some("[target]");
    let table = match value {
        None => {
            return Err(err(
                LoadErrorKind::Missing,
                None,
                Some("target"),
                "no [target] table, and every suite needs one: it says what system the cases \
                 are asked of",
            ))
        }
        Some(toml::Value::Table(t)) => t,
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                None,
                Some("target"),
                &format!("[target] is {}, not a table", toml_type(other)),
            ))
        }
    };
    if let Some(path) = find_api_key(table, "") {
        return Err(err(
            LoadErrorKind::Credential,
            AT,
            Some("api_key"),
            &format!(
                "`{path}` is a credential, and a suite file gets committed. Leave it out: a \
                 provider's key comes from its environment variable, and a header takes a secret \
                 as ${{NAME}} from the environment"
            ),
        ));
    }
    let forms = "there are two forms, \"http\" (a service you run) and \"provider\" (a hosted \
                 model). A target that is a function is code, and needs a suite.py";
    match table.get("type") {
        None => Err(err(
            LoadErrorKind::Missing,
            AT,
            Some("type"),
            &format!("no `type`, and {forms}"),
        )),
        Some(toml::Value::String(t)) if t == "http" => http_target(table).map(TargetSpec::Http),
        Some(toml::Value::String(t)) if t == "provider" => {
            if table.contains_key("client") {
                return Err(err(
                    LoadErrorKind::PythonOnly,
                    AT,
                    Some("client"),
                    "`client` is an SDK object, which a data file cannot hold: a provider target \
                     builds its own client from the environment. Injecting one needs a suite.py",
                ));
            }
            provider_target(table, suite_dir, root).map(TargetSpec::Provider)
        }
        Some(toml::Value::String(t)) => Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("type"),
            &format!("`type` is '{t}', and {forms}"),
        )),
        Some(other) => Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("type"),
            &format!("`type` is {}, and {forms}", toml_type(other)),
        )),
    }
}

fn http_target(table: &toml::Table) -> Result<HttpTargetSpec, LoadError> {
    const AT: Option<&str> = Some("[target]");
    if table.contains_key("request") {
        return Err(err(
            LoadErrorKind::PythonOnly,
            AT,
            Some("request"),
            "`request` would compute the body with code, which a data file cannot hold. Write \
             the body as [target.body] with case.* references; a body that must be computed \
             needs a suite.py",
        ));
    }
    if table.contains_key("pricing") {
        return Err(err(
            LoadErrorKind::PythonOnly,
            AT,
            Some("pricing"),
            "`pricing` does not apply to an HTTP target: its cost is what the service reports \
             at `cost_path`",
        ));
    }
    let unknown: Vec<&str> = table
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "type" && !HTTP_KEYS.contains(k))
        .collect();
    if !unknown.is_empty() {
        return Err(unknown_keys(
            AT,
            Some("http"),
            "parameter",
            &unknown,
            HTTP_KEYS,
        ));
    }
    let missing: Vec<&str> = ["url", "output_path", "body"]
        .into_iter()
        .filter(|k| !table.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        let named: Vec<String> = missing.iter().map(|k| format!("`{k}`")).collect();
        return Err(err(
            LoadErrorKind::Missing,
            AT,
            missing.first().copied(),
            &format!(
                "`http` needs {}, which this table does not give it.",
                named.join(", ")
            ),
        ));
    }
    let text = |key: &str| -> Result<Option<String>, LoadError> {
        match table.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(other) => Err(err(
                LoadErrorKind::Invalid,
                AT,
                Some(key),
                &format!(
                    "`{key}` is {}, and it has to be a non-empty string",
                    if matches!(other, toml::Value::String(_)) {
                        "empty"
                    } else {
                        toml_type(other)
                    }
                ),
            )),
        }
    };
    let url = text("url")?.unwrap_or_default();
    let has_host = url
        .split_once("://")
        .filter(|(scheme, _)| *scheme == "http" || *scheme == "https")
        .and_then(|(_, rest)| rest.split(['/', '?', '#']).next())
        .and_then(|authority| authority.rsplit('@').next())
        .is_some_and(|host| !host.is_empty() && !host.starts_with(':'));
    if !has_host {
        return Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("url"),
            "`url` has to be an http:// or https:// address with a host",
        ));
    }
    if url.contains("${") {
        return Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("url"),
            "`url` holds a ${NAME}, and only [target.headers] values take variables from the \
             environment. Write the address, and put a secret in a header",
        ));
    }
    if let Some(port) = url_port(&url) {
        if port.parse::<u16>().map_or(true, |p| p == 0) {
            return Err(err(
                LoadErrorKind::Invalid,
                AT,
                Some("url"),
                &format!("`url` names the port '{port}', and a port is a number from 1 to 65535"),
            ));
        }
    }
    if let Err(why) = crate::target::http::check_url(&url) {
        return Err(err(
            LoadErrorKind::Invalid,
            AT,
            Some("url"),
            &format!("`url`: {why}"),
        ));
    }
    let output_path = text("output_path")?.unwrap_or_default();
    let cost_path = text("cost_path")?;
    let latency_from_response = text("latency_from_response")?;
    let config_path = text("config_path")?;
    let body = match table.get("body") {
        Some(toml::Value::Table(body)) => match toml_to_json(&toml::Value::Table(body.clone())) {
            Ok(Value::Object(map)) => map,
            Ok(_) => Map::new(),
            Err(why) => {
                return Err(err(
                    LoadErrorKind::Invalid,
                    AT,
                    Some("body"),
                    &format!("`body` holds {why}"),
                ))
            }
        },
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                AT,
                Some("body"),
                &format!(
                    "`body` is {}, and it has to be a table ([target.body]) shaped like the \
                     request",
                    toml_type(other)
                ),
            ))
        }
        None => Map::new(),
    };
    check_body_references(&body)
        .map_err(|why| err(LoadErrorKind::Invalid, AT, Some("body"), &why))?;
    let allowed = allowed_ci_tokens(table)?;
    let headers = match table.get("headers") {
        None => Vec::new(),
        Some(toml::Value::Table(h)) => {
            let mut headers = Vec::new();
            for (name, value) in h {
                let toml::Value::String(value) = value else {
                    return Err(err(
                        LoadErrorKind::Invalid,
                        Some("[target.headers]"),
                        Some(name),
                        &format!(
                            "`{name}` is {}, and a header value is a string",
                            toml_type(value)
                        ),
                    ));
                };
                if !is_header_name(name) {
                    return Err(err(
                        LoadErrorKind::Invalid,
                        Some("[target.headers]"),
                        Some(name),
                        &format!(
                            "`{name}` is not a valid HTTP header name: letters, digits and \
                             !#$%&'*+-.^_`|~ only, no spaces"
                        ),
                    ));
                }
                if value.contains(['\r', '\n', '\0']) {
                    return Err(err(
                        LoadErrorKind::Invalid,
                        Some("[target.headers]"),
                        Some(name),
                        &format!(
                            "`{name}` holds a line break or NUL, which would split the request"
                        ),
                    ));
                }
                let vars = header_variables(value).map_err(|why| {
                    err(
                        LoadErrorKind::Invalid,
                        Some("[target.headers]"),
                        Some(name),
                        &format!("`{name}`: {why}"),
                    )
                })?;
                if let Some(why) = vars
                    .iter()
                    .find_map(|var| super::ci_tokens::refused(name, var, &allowed))
                {
                    return Err(err(
                        LoadErrorKind::Credential,
                        Some("[target.headers]"),
                        Some(name),
                        &why,
                    ));
                }
                if carries_credential(name) && vars.is_empty() {
                    let example = if name.to_ascii_lowercase().contains("authorization") {
                        "Bearer ${SUPPORT_TOKEN}"
                    } else {
                        "${SUPPORT_TOKEN}"
                    };
                    return Err(err(
                        LoadErrorKind::Credential,
                        Some("[target.headers]"),
                        Some(name),
                        &format!(
                            "`{name}` carries a credential, and its value is written into the \
                             suite file, which gets committed. Take it from the environment \
                             instead, e.g. {name} = \"{example}\""
                        ),
                    ));
                }
                headers.push((name.clone(), value.clone()));
            }
            headers
        }
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                AT,
                Some("headers"),
                &format!(
                    "`headers` is {}, and it has to be a table of strings ([target.headers])",
                    toml_type(other)
                ),
            ))
        }
    };
    let timeout_s = match table.get("timeout") {
        None => 30.0,
        Some(toml::Value::Integer(n)) if *n > 0 => *n as f64,
        Some(toml::Value::Float(x)) if *x > 0.0 && x.is_finite() => *x,
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                AT,
                Some("timeout"),
                &format!(
                    "`timeout` is {}, and it has to be a number of seconds above 0",
                    match other {
                        toml::Value::Integer(n) => n.to_string(),
                        toml::Value::Float(x) => x.to_string(),
                        _ => toml_type(other).to_string(),
                    }
                ),
            ))
        }
    };
    Ok(HttpTargetSpec {
        url,
        output_path,
        body,
        cost_path,
        latency_from_response,
        config_path,
        headers,
        timeout_s,
    })
}

/// `[target] allow_ci_tokens`: the CI token names the suite lets its
/// headers read (see `host::ci_tokens`); empty when absent.
fn allowed_ci_tokens(table: &toml::Table) -> Result<Vec<String>, LoadError> {
    let key = super::ci_tokens::ALLOW_KEY;
    let refuse = |why: String| err(LoadErrorKind::Invalid, Some("[target]"), Some(key), &why);
    match table.get(key) {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                toml::Value::String(name) if super::ci_tokens::is_ci_token(name) => {
                    Ok(name.clone())
                }
                toml::Value::String(name) => Err(refuse(format!(
                    "`{key}` names {name}, which is not one of the CI's own tokens; only those \
                     need allowing"
                ))),
                other => Err(refuse(format!(
                    "`{key}` holds {}, and it is a list of environment variable names",
                    toml_type(other)
                ))),
            })
            .collect(),
        Some(other) => Err(refuse(format!(
            "`{key}` is {}, and it is a list of environment variable names, e.g. \
             {key} = [\"GITHUB_TOKEN\"]",
            toml_type(other)
        ))),
    }
}

/// Every case that will be asked must have what `[target.body]` reads
/// (`case.vars.<k>`, `case.metadata.<k>`): found here, for all cases at
/// once, instead of as one errored case per typo during the run.
fn check_body_against_cases(
    spec: &HttpTargetSpec,
    cases: &[crate::core::suite::Case],
    cases_name: &str,
) -> Result<(), LoadError> {
    let problems: Vec<(usize, String)> = cases
        .iter()
        .enumerate()
        .filter(|(_, c)| c.suspended.is_none())
        .filter_map(|(i, c)| {
            crate::target::http::render_body(&spec.body, c)
                .err()
                .map(|why| (i + 1, why))
        })
        .collect();
    let Some((first, why)) = problems.first() else {
        return Ok(());
    };
    let more = match problems.len() {
        1 => String::new(),
        n => format!(
            " ({} more case(s) too: #{})",
            n - 1,
            problems[1..]
                .iter()
                .map(|(i, _)| i.to_string())
                .collect::<Vec<_>>()
                .join(", #")
        ),
    };
    Err(LoadError::new(
        LoadErrorKind::Invalid,
        cases_name,
        Some(&format!("#{first}")),
        None,
        &format!("{why}{more}. Fix the case or the body: nothing was sent"),
    ))
}

/// The port a URL spells out after its host, if any (`http://h:8080/x` → `8080`).
fn url_port(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let after_host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split_once(']')?.1,
        None => host_port,
    };
    after_host.rsplit_once(':').map(|(_, port)| port)
}

/// True for a valid HTTP header name (an RFC 9110 token).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// True for a header whose name carries a credential: `Authorization`,
/// `Proxy-Authorization`, `Cookie`, or any name containing `key`, `token`
/// or `secret` (case-insensitive). Its value must come from `${NAME}`.
pub fn carries_credential(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "authorization" | "proxy-authorization" | "cookie"
    ) || ["key", "token", "secret"].iter().any(|w| lower.contains(w))
}

/// The `${NAME}` variables a header value uses, in order (repeats kept once).
/// `NAME` is `[A-Za-z_][A-Za-z0-9_]*`.
///
/// # Errors
/// A phrase for a `${` that does not close, or a name that is not a
/// variable name.
pub fn header_variables(value: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err("a `${` is not closed by `}`".to_string());
        };
        let name = &after[..end];
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "`${{{name}}}` is no environment variable name (letters, digits and `_`, not \
                 starting with a digit)"
            ));
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        rest = &after[end + 1..];
    }
    Ok(names)
}

/// The target's headers with every `${NAME}` replaced by `env(NAME)`.
/// The expanded values are secrets: never print, log or record them.
///
/// # Errors
/// A [`LoadErrorKind::Environment`] error naming the header and the
/// variable that `env` does not know (so the run is refused before any
/// call), or a malformed `${…}`.
pub fn expand_headers(
    spec: &HttpTargetSpec,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>, LoadError> {
    let mut out = Vec::with_capacity(spec.headers.len());
    for (name, value) in &spec.headers {
        let vars = header_variables(value).map_err(|why| {
            err(
                LoadErrorKind::Invalid,
                Some("[target.headers]"),
                Some(name),
                &format!("`{name}`: {why}"),
            )
        })?;
        for var in &vars {
            if env(var).is_some_and(|v| v.is_empty()) {
                return Err(err(
                    LoadErrorKind::Environment,
                    Some("[target.headers]"),
                    Some(name),
                    &format!(
                        "`{name}` takes ${{{var}}} from the environment, and {var} is set but \
                         empty. Set it to the value; nothing was sent"
                    ),
                ));
            }
            if env(var).is_some_and(|v| v.contains(['\r', '\n', '\0'])) {
                return Err(err(
                    LoadErrorKind::Environment,
                    Some("[target.headers]"),
                    Some(name),
                    &format!(
                        "`{name}` takes ${{{var}}} from the environment, and {var} holds a line \
                         break or NUL, which would split the request. Nothing was sent"
                    ),
                ));
            }
            if env(var).is_none() {
                return Err(err(
                    LoadErrorKind::Environment,
                    Some("[target.headers]"),
                    Some(name),
                    &format!(
                        "`{name}` takes ${{{var}}} from the environment, and {var} is not set. \
                         Set it before the run; nothing was sent"
                    ),
                ));
            }
        }
        // One pass, so a secret that happens to contain `${…}` is never expanded again.
        let mut expanded = String::with_capacity(value.len());
        let mut rest = value.as_str();
        while let Some(at) = rest.find("${") {
            expanded.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let end = after.find('}').unwrap_or(after.len());
            expanded.push_str(&env(&after[..end]).unwrap_or_default());
            rest = after.get(end + 1..).unwrap_or("");
        }
        expanded.push_str(rest);
        out.push((name.clone(), expanded));
    }
    Ok(out)
}

/// The values of the `${NAME}` variables the headers use that are secrets
/// (`target::mask`): those of a credential header, or whose NAME names a
/// credential, and that can be secrets (8 characters or more, not an
/// ordinary word). The target masks them in what is kept or shown.
pub fn header_secrets(spec: &HttpTargetSpec, env: impl Fn(&str) -> Option<String>) -> Vec<String> {
    use crate::target::mask;
    let values = spec
        .headers
        .iter()
        .filter_map(|(name, value)| Some((name, header_variables(value).ok()?)))
        .flat_map(|(name, vars)| {
            vars.into_iter()
                .filter(|var| mask::is_credential_header(name) || mask::names_a_credential(var))
                .collect::<Vec<_>>()
        })
        .filter_map(|var| env(&var));
    mask::secrets(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::checks::build::{
        default_threshold, group_copy_payload, identity_payload, is_aggregate,
    };
    use crate::core::identity;
    use crate::core::ratio::as_ratio;
    use serde_json::Number;
    use std::fs;

    fn goldens() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/goldens")
    }

    /// A temp dir holding `suite.toml` and `cases.json` with these contents.
    fn fixture(suite: &str, cases: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("a temp dir");
        fs::write(dir.path().join("suite.toml"), suite).expect("write suite");
        fs::write(dir.path().join("cases.json"), cases).expect("write cases");
        dir
    }

    fn load_in(dir: &tempfile::TempDir) -> Result<LoadedSuite, LoadError> {
        load(&dir.path().join("suite.toml"), dir.path())
    }

    /// What a refusal row must give.
    enum Want {
        /// Refused, and the message holds every fragment.
        Refused(&'static [&'static str]),
        /// Loads (BOM, CRLF: the spec tolerates them).
        Loads,
        /// Not a loader matter.
        Skip,
        /// Refused iff `check_body_references` (another module) refuses the body.
        BodyReference,
        /// 0.10.0 refused it for lack of a plugin that digline ships: loads.
        BuiltIn,
    }

    #[test]
    fn every_golden_refusal_row() {
        use Want::*;
        let table: &[(&str, Want)] = &[
            (
                "01",
                Refused(&[
                    "suite.toml, [suite]:",
                    "`min_agrement`",
                    "Did you mean `min_agreement`?",
                ]),
            ),
            (
                "02",
                Refused(&[
                    "[target]:",
                    "`http`",
                    "`output_pth`",
                    "Did you mean `output_path`?",
                ]),
            ),
            (
                "03",
                Refused(&[
                    "[[assertions]] #1:",
                    "`treshold`",
                    "Did you mean `threshold`?",
                ]),
            ),
            (
                "04",
                Refused(&[
                    "[[assertions]] #2, [inner]:",
                    "`neddle`",
                    "Did you mean `needle`?",
                ]),
            ),
            (
                "05",
                Refused(&["top level:", "`suites`", "Did you mean `suite`?"]),
            ),
            (
                "06",
                Refused(&["cases.json #1:", "`expectd`", "Did you mean `expected`?"]),
            ),
            (
                "07",
                Refused(&[
                    "[[assertions]] #1:",
                    "`contain`",
                    "Did you mean `contains`?",
                ]),
            ),
            (
                "08",
                Refused(&["[[assertions]] #1:", "no `type`", "per case:", "per run:"]),
            ),
            ("09", Refused(&["[suite]:", "no `cases`"])),
            (
                "10",
                Refused(&["[suite]:", "nope.json", "could not be read"]),
            ),
            ("11", Refused(&["cases.json:", "an object", "array"])),
            ("12", Refused(&["cases.json #2:", "not an object"])),
            (
                "13",
                Refused(&["cases.json #1:", "`question`", "Known fields"]),
            ),
            ("14", Refused(&["cases.json:", "no cases"])),
            ("15", Refused(&["cases.json #2:", "'r1'", "#1"])),
            ("16", Refused(&["cases.json #1:", "no `id`"])),
            (
                "17",
                Refused(&["[[assertions]] #1, `contains`:", "`needle` is empty"]),
            ),
            ("18", Refused(&["suite.toml:", "no [[assertions]]"])),
            (
                "19",
                Refused(&["[suite]:", "`min_agreement`", "`samples` is 3"]),
            ),
            (
                "20",
                Refused(&["[suite]:", "`min_agreement`", "2/3 = 0.666667"]),
            ),
            ("21", Refused(&["[suite]:", "`samples` is 0"])),
            ("22", Refused(&["[suite]:", "canary", "samples 1"])),
            (
                "23",
                Refused(&[
                    "[[assertions]] #2:",
                    "`precision`",
                    "'regex'",
                    "Declared: contains",
                ]),
            ),
            (
                "24",
                Refused(&[
                    "[[assertions]] #3:",
                    "`precision`",
                    "2 checks are called that",
                    "distinct `name`",
                ]),
            ),
            ("25", Refused(&["cases.json:", "`label`", "Missing on: r2"])),
            // 26: 0.10.0 ran it; the spec refuses any label but positive/negative.
            ("26", Refused(&["cases.json #1:", "`label`", "'maybe'"])),
            (
                "27",
                Refused(&[
                    "[[assertions]] #2:",
                    "`precision` needs `threshold`, `tolerance`",
                ]),
            ),
            ("28", Refused(&["[target]:", "`api_key`", "credential"])),
            // 29: 0.10.0 ran it; the spec refuses api_key anywhere in [target].
            ("29", Refused(&["[target]:", "api_key", "credential"])),
            ("30", Refused(&["[suite]:", "`disclosure`", "suite.py"])),
            (
                "31",
                Refused(&["[target]:", "'python'", "\"http\"", "\"provider\""]),
            ),
            ("32", Refused(&["suite.toml:", "no [target]"])),
            (
                "33",
                Refused(&[
                    "[[assertions]] #2:",
                    "'digline_anthropic:AnthropicJudge'",
                    "coordinate",
                ]),
            ),
            // 34: 0.10.0 refuses it because its Anthropic provider was a
            // separate package; digline ships the provider, so it loads.
            ("34", BuiltIn),
            (
                "35",
                Refused(&["[[assertions]] #2:", "`from_autoevals`", "suite.py"]),
            ),
            (
                "36",
                Refused(&["[[assertions]] #2:", "`patterns`", "suite.py"]),
            ),
            (
                "37",
                Refused(&["[[assertions]] #2, `regex`:", "`pattern` does not compile"]),
            ),
            (
                "38",
                Refused(&[
                    "[[assertions]] #2, `json_schema`:",
                    "`schema` is not a valid Draft 2020-12 schema",
                    "objekt",
                ]),
            ),
            (
                "39",
                Refused(&["[[assertions]] #2:", "`cost_budget` needs `tolerance`"]),
            ),
            (
                "40",
                Refused(&["[[assertions]] #2, `latency_budget`:", "`max_ms` is 0"]),
            ),
            (
                "41",
                Refused(&[
                    "[[assertions]] #2, `length`:",
                    "`minimum`, `maximum` or both",
                ]),
            ),
            (
                "42",
                Refused(&["[[assertions]] #2, `affix`:", "`at`", "'middle'"]),
            ),
            ("43", Refused(&["[suite]:", "`tenant`", "'../x'"])),
            ("44", Refused(&["cases.json #1:", "empty `expected`"])),
            ("45", Refused(&["cases.json #1:", "`suspended` is empty"])),
            ("46", Refused(&["cases.json #2:", "canary", "group"])),
            // 47, 48: 0.10.0 ran them; the spec refuses duplicate keys and NaN.
            ("47", Refused(&["cases.json #1:", "`id` appears twice"])),
            ("48", Refused(&["cases.json:", "NaN or Infinity", "line 1"])),
            (
                "49",
                Refused(&["cases.json:", "not valid JSON", "line 1 column 14"]),
            ),
            ("50", Refused(&["suite.toml:4:8:", "not valid TOML"])),
            // 51–53: 0.10.0 refused the BOMs; the spec tolerates BOM and CRLF.
            ("51", Loads),
            ("52", Loads),
            ("53", Loads),
            ("54", Refused(&["cases.json:", "not UTF-8", "offset 10"])),
            ("55", Refused(&["suite.toml:", "not UTF-8", "offset 381"])),
            // 56: `--target` beside a TOML suite is refused by the CLI, not the loader.
            ("56", Skip),
            // 57, 58: body references are checked by target::http::check_body_references.
            ("57", BodyReference),
            ("58", BodyReference),
        ];
        let mut dirs: Vec<PathBuf> = fs::read_dir(goldens().join("refusals"))
            .expect("refusals folder")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        assert_eq!(dirs.len(), 58);
        assert_eq!(table.len(), 58);
        for (dir, (row, want)) in dirs.iter().zip(table) {
            let folder = dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            assert!(folder.starts_with(row), "{folder} vs row {row}");
            let exit = fs::read_to_string(dir.join("exit")).unwrap_or_default();
            let tmp = tempfile::tempdir().expect("temp dir");
            for name in ["suite.toml", "cases.json"] {
                fs::copy(dir.join(name), tmp.path().join(name)).expect("copy");
            }
            let got = load(&tmp.path().join("suite.toml"), tmp.path());
            match want {
                Refused(fragments) => {
                    let e = got
                        .err()
                        .unwrap_or_else(|| panic!("{folder}: loaded, want refused"));
                    // The fragments name the file and entry without the
                    // place; the full text is the fixture's (tests/cli/fixtures.rs).
                    let unplaced = match e.line_column() {
                        Some((l, c)) => e.message.replacen(&format!(":{l}:{c}"), "", 1),
                        None => e.message.clone(),
                    };
                    for fragment in *fragments {
                        assert!(
                            e.message.contains(fragment) || unplaced.contains(fragment),
                            "{folder}: {:?} lacks {fragment:?}",
                            e.message
                        );
                    }
                }
                Loads => {
                    assert_eq!(
                        exit.trim(),
                        if folder.starts_with("53") { "0" } else { "64" }
                    );
                    let loaded = got.unwrap_or_else(|e| panic!("{folder}: {e}"));
                    assert_eq!(loaded.suite.checks.len(), 1, "{folder}");
                    assert_eq!(
                        loaded.target.http().map(|t| t.output_path.as_str()),
                        Some("data.answer")
                    );
                }
                Skip => assert_eq!(exit.trim(), "64", "{folder}"),
                BuiltIn => {
                    assert_eq!(exit.trim(), "64", "{folder}");
                    let loaded = got.unwrap_or_else(|e| panic!("{folder}: {e}"));
                    assert_eq!(loaded.suite.checks.len(), 2, "{folder}");
                }
                BodyReference => {
                    let loaded_body =
                        fs::read_to_string(dir.join("suite.toml")).unwrap_or_default();
                    let table: toml::Table = loaded_body.parse().expect("row's TOML parses");
                    let body = table
                        .get("target")
                        .and_then(|t| t.get("body"))
                        .map(|b| toml_to_json(b).expect("plain body"))
                        .and_then(|b| b.as_object().cloned())
                        .unwrap_or_default();
                    match (check_body_references(&body), got) {
                        (Err(why), Err(e)) => {
                            assert!(e.message.starts_with("suite.toml:"), "{folder}");
                            assert!(e.message.contains(", [target]:"), "{folder}");
                            assert!(e.message.contains(&why), "{folder}");
                        }
                        (Ok(()), Ok(_)) => {}
                        (want, got) => {
                            panic!("{folder}: body check {want:?}, load {:?}", got.err())
                        }
                    }
                }
            }
        }
    }

    fn entry_params(snippet: &str) -> (String, Map<String, Value>) {
        let table: toml::Table = snippet.parse().expect("snippet parses");
        let entry = table["assertions"][0].as_table().expect("an entry").clone();
        let mut params = match toml_to_json(&toml::Value::Table(entry)) {
            Ok(Value::Object(map)) => map,
            other => panic!("{other:?}"),
        };
        let token = params
            .remove("type")
            .and_then(|t| t.as_str().map(str::to_string))
            .expect("type");
        (token, params)
    }

    fn identities() -> Vec<Value> {
        let text = fs::read_to_string(goldens().join("identities/identities.json")).expect("read");
        serde_json::from_str(&text).expect("identities.json parses")
    }

    #[test]
    fn identity_payloads_match_every_golden_check_and_aggregate() {
        let (mut checks, mut aggregates) = (0, 0);
        for entry in identities() {
            let kind = entry["kind"].as_str().unwrap_or_default();
            if kind != "check" && kind != "aggregate" {
                continue;
            }
            let label = entry["label"].as_str().unwrap_or_default();
            let name = entry["assertion"].as_str().unwrap_or_default();
            let (token, params) = entry_params(entry["toml"].as_str().unwrap_or_default());
            let mut payload =
                identity_payload(&token, &params).unwrap_or_else(|e| panic!("{label}: {e}"));
            if let Some((_, group)) = name.split_once("[group=") {
                payload = group_copy_payload(&payload, group.trim_end_matches(']'));
            }
            assert_eq!(payload["name"], name, "{label}");
            assert_eq!(identity::digest(&payload), entry["assertion_id"], "{label}");
            if crate::core::checks::build::BUILT_TYPES.contains(&token.as_str()) {
                match build(&token, &params) {
                    Ok(built) => {
                        assert_eq!(built.name, name, "{label}");
                        assert_eq!(built.assertion_id, entry["assertion_id"], "{label}");
                    }
                    // A `repeated` whose inner check is not built here yet.
                    Err(e)
                        if e.within == ["inner"]
                            && matches!(e.kind, BuildErrorKind::NotBuiltYet { .. }) => {}
                    Err(e) => panic!("{label}: {e}"),
                }
            } else if kind == "aggregate" {
                let built =
                    build_aggregate(&token, &params).unwrap_or_else(|e| panic!("{label}: {e}"));
                let expanded = expand_by_group(&[built], &["alpha", "beta"]);
                let found = expanded
                    .iter()
                    .find(|a| a.name == name)
                    .unwrap_or_else(|| panic!("{label}"));
                assert_eq!(found.assertion_id, entry["assertion_id"], "{label}");
            }
            if kind == "check" {
                checks += 1;
            } else {
                aggregates += 1;
            }
        }
        assert_eq!((checks, aggregates), (47, 12));
    }

    /// A per-case rule keeps declared numbers; an aggregate's are floats.
    fn rule(token: &str, params: &Map<String, Value>, id: String) -> RuleEntry {
        let threshold = params
            .get("threshold")
            .map(|t| as_ratio(t, "threshold").expect("ratio"))
            .or_else(|| default_threshold(token))
            .expect("a threshold");
        let tolerance = params
            .get("tolerance")
            .map_or(0.0, |t| as_ratio(t, "tolerance").expect("ratio"));
        let mut entry = RuleEntry::floats(&id, threshold, tolerance);
        if !is_aggregate(token) {
            for (key, slot) in [
                ("threshold", &mut entry.threshold),
                ("tolerance", &mut entry.tolerance),
            ] {
                if let Some(Value::Number(n)) = params.get(key) {
                    *slot = n.clone();
                }
            }
        }
        entry
    }

    #[test]
    fn config_hash_matches_every_golden_suite() {
        let cases = r#"[{"id": "a", "vars": {"question": "q"}}]"#;
        let (mut loaded_count, mut computed_count) = (0, 0);
        for entry in identities().iter().filter(|e| e["kind"] == "suite") {
            let label = entry["label"].as_str().unwrap_or_default();
            let text = entry["toml"].as_str().unwrap_or_default();
            let table: toml::Table = text.parse().expect("suite parses");
            let entries = table["assertions"].as_array().cloned().unwrap_or_default();
            let all_built = entries.iter().all(|e| {
                crate::core::checks::build::BUILT_TYPES
                    .contains(&e["type"].as_str().unwrap_or_default())
            });
            let want_ids: Vec<String> = entry["assertion_ids"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            if all_built {
                let dir = fixture(text, cases);
                let loaded = load_in(&dir).unwrap_or_else(|e| panic!("{label}: {e}"));
                let ids: Vec<String> = loaded
                    .suite
                    .checks
                    .iter()
                    .map(|c| c.assertion_id.clone())
                    .collect();
                // One golden row records no ids (only its hash).
                if !want_ids.is_empty() {
                    assert_eq!(ids, want_ids, "{label}");
                }
                assert_eq!(loaded.suite.config_hash(), entry["config_hash"], "{label}");
                loaded_count += 1;
                continue;
            }
            // Some checks are not built yet: compute through identity_payload.
            let (mut rules, mut runs) = (Vec::new(), Vec::new());
            // 0.10.0 lists per-case ids first, then the (expanded) aggregates.
            let (mut ids, mut run_ids) = (Vec::new(), Vec::new());
            for item in &entries {
                let mut wrapper = toml::Table::new();
                wrapper.insert("assertions".into(), toml::Value::Array(vec![item.clone()]));
                let (token, params) = entry_params(&toml::to_string(&wrapper).expect("render"));
                let payload =
                    identity_payload(&token, &params).unwrap_or_else(|e| panic!("{label}: {e}"));
                let id = identity::digest(&payload);
                if is_aggregate(&token) {
                    run_ids.push(id.clone());
                    runs.push(rule(&token, &params, id));
                    if params.get("by_group") == Some(&Value::Bool(true)) {
                        for group in ["alpha", "beta"] {
                            let copy = identity::digest(&group_copy_payload(&payload, group));
                            run_ids.push(copy.clone());
                            runs.push(rule(&token, &params, copy));
                        }
                    }
                } else {
                    ids.push(id.clone());
                    rules.push(rule(&token, &params, id));
                }
            }
            let samples = table["suite"]
                .get("samples")
                .and_then(|s| s.as_integer())
                .unwrap_or(1);
            let samples = u32::try_from(samples).expect("small");
            let min_agreement = table["suite"].get("min_agreement").map(|m| {
                as_agreement(&toml_to_json(m).expect("json"), samples, "m").expect("reachable")
            });
            ids.extend(run_ids);
            assert_eq!(ids, want_ids, "{label}");
            assert_eq!(
                identity::config_hash(&rules, samples, min_agreement, &runs),
                entry["config_hash"],
                "{label}"
            );
            computed_count += 1;
        }
        assert_eq!(loaded_count + computed_count, 22);
        assert!(loaded_count >= 15, "{loaded_count} loaded");
    }

    const HEAD: &str = r#"[suite]
tenant = "acme"
environment = "ci"
name = "support"
cases = "cases.json"
"#;

    const TARGET: &str = r#"
[target]
type = "http"
url = "http://127.0.0.1:8730/answer"
output_path = "data.answer"
[target.body]
question = "case.vars.question"
"#;

    const CHECK: &str = "\n[[assertions]]\ntype = \"contains\"\nneedle = \"Northwind\"\n";

    const CASES: &str = r#"[{"id": "a", "vars": {"question": "q"}}]"#;

    #[test]
    fn a_suite_with_every_built_check_and_key_loads() {
        let suite = r#"[suite]
tenant = "acme"
environment = "ci"
name = "support.v2"
cases = "cases.json"
samples = 3
min_agreement = "2/3"
artifacts = ["prompt.md"]
record_responses = true

[target]
type = "http"
url = "http://127.0.0.1:8730/answer"
output_path = "data.answer"
cost_path = "usage.cost_usd"
latency_from_response = "usage.elapsed_ms"
config_path = "config"
timeout = 5
[target.headers]
Authorization = "Bearer ${SUPPORT_TOKEN}"
Accept-Language = "it"
[target.body]
id = "case.id"
question = "case.vars.question"
mode = "brief"

[[assertions]]
type = "contains"
needle = "Northwind"
case_sensitive = false
name = "brand"
[[assertions]]
type = "not_contains"
needle = "refund"
threshold = "9/10"
tolerance = 0.05
[[assertions]]
type = "regex"
pattern = '\d{4}'
[[assertions]]
type = "length"
unit = "words"
minimum = 2
maximum = 12.5
accepts = ["text"]
[[assertions]]
type = "cost_budget"
max_usd = 0.01
tolerance = 0.001
[[assertions]]
type = "latency_budget"
max_ms = 800
tolerance = 0
"#;
        let dir = fixture(
            suite,
            r#"[{"id": "a", "vars": {"question": "q"}, "canary": true}]"#,
        );
        fs::write(dir.path().join("prompt.md"), "prompt").expect("artifact");
        let loaded = load_in(&dir).unwrap_or_else(|e| panic!("{e}"));
        let s = &loaded.suite;
        assert_eq!(
            (s.tenant.as_str(), s.environment.as_str(), s.name.as_str()),
            ("acme", "ci", "support.v2")
        );
        assert_eq!(s.samples, 3);
        assert_eq!(s.min_agreement, Some(2.0 / 3.0));
        assert!(s.record_responses);
        assert_eq!(s.artifacts, vec!["prompt.md".to_string()]);
        assert_eq!(loaded.artifact_paths.len(), 1);
        let names: Vec<&str> = s.checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "brand",
                "not_contains",
                "regex",
                "length",
                "cost_budget",
                "latency_budget"
            ]
        );
        assert_eq!(*s.checks[1].threshold, 0.9);
        assert_eq!(*s.checks[1].tolerance, 0.05);
        assert_eq!(*s.checks[4].threshold, 0.5);
        assert_eq!(s.rules[5].tolerance, Number::from(0));
        assert_eq!(s.cases.len(), 1);
        let t = loaded.target.http().expect("an HTTP target");
        assert_eq!(t.url, "http://127.0.0.1:8730/answer");
        assert_eq!(t.cost_path.as_deref(), Some("usage.cost_usd"));
        assert_eq!(t.latency_from_response.as_deref(), Some("usage.elapsed_ms"));
        assert_eq!(t.config_path.as_deref(), Some("config"));
        assert_eq!(t.timeout_s, 5.0);
        assert_eq!(t.body.len(), 3);
        assert_eq!(t.headers.len(), 2);
        let expanded = expand_headers(t, |name| {
            (name == "SUPPORT_TOKEN").then(|| "tok-1".to_string())
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(expanded.contains(&("Authorization".to_string(), "Bearer tok-1".to_string())));
        assert!(expanded.contains(&("Accept-Language".to_string(), "it".to_string())));
        let missing = expand_headers(t, |_| None).unwrap_err();
        assert_eq!(missing.kind, LoadErrorKind::Environment);
        assert!(
            missing.message.contains("SUPPORT_TOKEN is not set"),
            "{}",
            missing.message
        );
    }

    #[test]
    fn the_document_suites_load_with_0_10_0_ids() {
        for (document, names) in [
            (
                "01-unicode-text",
                "contains not_contains ends_with length length regex cost_budget pii_absent",
            ),
            (
                "02-json-checks",
                "is_json is_json is_json json_schema equals",
            ),
            ("05-errors", "contains equals tools_called cost_budget"),
        ] {
            let dir = goldens().join("documents").join(document);
            let loaded = load(&dir.join("suite.toml"), &dir).unwrap_or_else(|e| panic!("{e}"));
            let got: Vec<&str> = loaded
                .suite
                .checks
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            assert_eq!(got.join(" "), names, "{document}");
            let run: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(dir.join("run.json")).unwrap_or_default())
                    .unwrap_or_default();
            let ids: Vec<&str> = run["results"][0]["verdicts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v["assertion_id"].as_str())
                .collect();
            let ours: Vec<&str> = loaded
                .suite
                .checks
                .iter()
                .map(|c| c.assertion_id.as_str())
                .collect();
            assert_eq!(ours, ids, "{document}");
        }
    }

    #[test]
    fn aggregates_load_expand_and_refuse() {
        let agg = |extra: &str| {
            format!(
                "{HEAD}{TARGET}{CHECK}\n[[assertions]]\ntype = \"precision\"\nover = \"contains\"\n\
                 threshold = \"9/10\"\ntolerance = 0.0\n{extra}"
            )
        };
        let labelled = r#"[{"id": "a", "label": "positive", "group": "z", "vars": {"question": "q"}},
            {"id": "b", "label": "negative", "group": "y", "vars": {"question": "q"}},
            {"id": "k", "canary": true, "vars": {"question": "q"}}]"#;
        // Loads: groups sorted, the canary needs no label.
        let dir = fixture(
            &agg("by_group = true\n").replace(
                "[suite]\n",
                "[suite]\nsamples = 2\nmin_agreement = \"1/2\"\n",
            ),
            labelled,
        );
        let loaded = load_in(&dir).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = loaded
            .suite
            .aggregates
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["precision", "precision[group=y]", "precision[group=z]"]
        );
        assert_eq!(loaded.suite.aggregates[0].threshold, 0.9);
        // Aggregates join the config hash.
        let plain = fixture(
            &format!("{HEAD}{TARGET}{CHECK}").replace(
                "[suite]\n",
                "[suite]\nsamples = 2\nmin_agreement = \"1/2\"\n",
            ),
            labelled,
        );
        let plain = load_in(&plain).unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(plain.suite.config_hash(), loaded.suite.config_hash());
        // Refusals.
        let rows: Vec<(String, &str, &[&str])> = vec![
            (agg("").replace("over = \"contains\"", "over = \"contain\""), labelled, &["[[assertions]] #2:", "'contain'", "Did you mean `contains`?"]),
            (agg("").replace("over = \"contains\"", "over = \"zzz\""), labelled, &["'zzz'", "Declared: contains"]),
            (agg("") + CHECK, labelled, &["[[assertions]] #2:", "2 checks are called that"]),
            (agg(""), r#"[{"id": "a", "label": "positive"}, {"id": "b"}, {"id": "c"}]"#, &["cases.json:", "Missing on: b, c"]),
            (agg("").replace("tolerance = 0.0", "tolerance = -0.1"), labelled, &["`tolerance` is -0.1, below 0"]),
            (agg("").replace("tolerance = 0.0\n", ""), labelled, &["`precision` needs `tolerance`"]),
            (agg("group = \"y\"\n"), labelled, &["`precision` has no parameter `group`"]),
            (agg("").replace("\"9/10\"", "\"11/10\""), labelled, &["`threshold` is '11/10', outside 0–1"]),
            (format!("{HEAD}{TARGET}[[assertions]]\ntype = \"f1\"\nover = \"x\"\nthreshold = 1\ntolerance = 0\n"), labelled, &["every [[assertions]] entry is an aggregate"]),
        ];
        for (suite, cases, fragments) in rows {
            let suite = suite.replace(
                "[suite]\n",
                "[suite]\nsamples = 2\nmin_agreement = \"1/2\"\n",
            );
            let dir = fixture(&suite, cases);
            let e = load_in(&dir)
                .err()
                .unwrap_or_else(|| panic!("loaded: {suite}"));
            for fragment in fragments {
                assert!(
                    e.message.contains(fragment),
                    "{:?} lacks {fragment:?}",
                    e.message
                );
            }
        }
    }

    #[test]
    fn repeated_loads_with_its_inner_rules() {
        let suite = format!(
            "{HEAD}{TARGET}[[assertions]]\ntype = \"repeated\"\nsamples = 3\nmin_agreement = \"2/3\"\n\
             [assertions.inner]\ntype = \"length\"\nmaximum = 60\nthreshold = 1\ntolerance = 0.1\n"
        );
        let dir = fixture(&suite, CASES);
        let loaded = load_in(&dir).unwrap_or_else(|e| panic!("{e}"));
        let check = &loaded.suite.checks[0];
        assert_eq!(
            (check.name.as_str(), *check.threshold, *check.tolerance),
            ("length", 1.0, 0.1)
        );
        assert_eq!(loaded.suite.repeated(), [("length", 3)]);
        // The inner's declared (integer) threshold is what the config hash sees.
        assert_eq!(loaded.suite.rules[0].threshold, Number::from(1));
        let rows: &[(&str, &str)] = &[
            (
                "[assertions.inner]\ntype = \"affix\"\naffix = \"x\"\nat = \"middle\"\n",
                "[[assertions]] #1, [inner]",
            ),
            (
                "[assertions.inner]\ntype = \"contains\"\nneedle = \"\"\n",
                "`needle` is empty",
            ),
        ];
        for (inner, fragment) in rows {
            let suite = format!(
                "{HEAD}{TARGET}[[assertions]]\ntype = \"repeated\"\nsamples = 3\nmin_agreement = \"2/3\"\n{inner}"
            );
            let dir = fixture(&suite, CASES);
            let e = load_in(&dir)
                .err()
                .unwrap_or_else(|| panic!("loaded: {inner}"));
            assert!(
                e.message.contains(fragment),
                "{:?} lacks {fragment:?}",
                e.message
            );
        }
    }

    #[test]
    fn suite_and_target_refusals() {
        let with_target = |target: &str| format!("{HEAD}{target}{CHECK}");
        let with_suite = |extra: &str| format!("{HEAD}{extra}{TARGET}{CHECK}");
        let table: Vec<(String, LoadErrorKind, &str)> = vec![
            (with_suite("pinned = [\"a.md\"]\n"), LoadErrorKind::Unknown, "[suite]: no such key `pinned`"),
            (with_suite("tenantt = \"x\"\nsampels = 2\n"), LoadErrorKind::Unknown, "`tenantt`: did you mean `tenant`?"),
            (with_suite("samples = \"3\"\n"), LoadErrorKind::Invalid, "`samples` is a string"),
            (with_suite("samples = 2\nmin_agreement = 0.7\n"), LoadErrorKind::Invalid, "1/2 = 0.500000"),
            (with_suite("min_agreement = \"1/2\"\n"), LoadErrorKind::Invalid, "1/1 = 1.000000"),
            (with_suite("min_agreement = \"most\"\n"), LoadErrorKind::Invalid, "not a number or a fraction"),
            (with_suite("record_responses = 1\n"), LoadErrorKind::Invalid, "`record_responses` is an integer"),
            (with_suite("artifacts = \"a.md\"\n"), LoadErrorKind::Invalid, "`artifacts` is a string"),
            (with_suite("artifacts = [\"a.md\", \"a.md\"]\n"), LoadErrorKind::Invalid, "names a.md twice"),
            (with_suite("artifacts = [\"../../etc/passwd\"]\n"), LoadErrorKind::Perimeter, "outside"),
            (HEAD.replace("\"ci\"", "\"c i\"") + TARGET + CHECK, LoadErrorKind::Invalid, "`environment` is 'c i'"),
            (HEAD.replace("\"support\"", "\"\"") + TARGET + CHECK, LoadErrorKind::Invalid, "`name` is empty"),
            (HEAD.replace("tenant = \"acme\"\n", "") + TARGET + CHECK, LoadErrorKind::Missing, "no `tenant`"),
            (HEAD.replace("\"cases.json\"", "\"../cases.json\"") + TARGET + CHECK, LoadErrorKind::Perimeter, "`cases` names"),
            (format!("assertions = 3\n{HEAD}{TARGET}"), LoadErrorKind::Invalid, "`assertions` is an integer"),
            (format!("assertions = [1]\n{HEAD}{TARGET}"), LoadErrorKind::Invalid, "[[assertions]] #1: this entry is not a table"),
            (format!("assertions = []\n{HEAD}{TARGET}"), LoadErrorKind::Missing, "no [[assertions]]"),
            (format!("{HEAD}{TARGET}[[assertions]]\ntype = 3\n"), LoadErrorKind::Invalid, "`type` is an integer"),
            (format!("{HEAD}{TARGET}[[assertions]]\ntype = \"zzz\"\n"), LoadErrorKind::Unknown, "per case: affix"),
            (format!("{HEAD}{TARGET}[[assertions]]\ntype = \"length\"\nmaximum = nan\n"), LoadErrorKind::Invalid, "`maximum` is NaN"),
            (format!("{HEAD}{TARGET}[[assertions]]\ntype = \"contains\"\nneedle = \"x\"\ntreshold = 1\ncase-sensitive = true\n"),
                LoadErrorKind::Unknown, "`case-sensitive`: did you mean `case_sensitive`?"),
            (format!("{HEAD}suite = 1\n{TARGET}{CHECK}").replace("[suite]\n", "[suitee]\n"), LoadErrorKind::Unknown, "no such table `suitee`"),
            (format!("[suite]\n{TARGET}{CHECK}").replace("[suite]\n", "suite = 1\n"), LoadErrorKind::Invalid, "[suite] is an integer"),
            (with_target("\n[target]\nurl = \"http://h/x\"\n"), LoadErrorKind::Missing, "no `type`"),
            (with_target("\n[target]\ntype = \"provider\"\nprovider = \"anthropic/m\"\n"), LoadErrorKind::Missing, "`prompt_file`, `max_tokens`"),
            (with_target("\n[target]\ntype = \"provider\"\nclient = \"x\"\n"), LoadErrorKind::PythonOnly, "`client`"),
            (with_target("\n[target]\ntype = \"provider\"\nprovider = \"openai/m\"\napi_key = \"sk\"\n"), LoadErrorKind::Credential, "`api_key`"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\nrequest = \"f\"\n[target.body]\nq = 1\n"), LoadErrorKind::PythonOnly, "`request`"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\n[target.pricing]\ninput = 1\n[target.body]\nq = 1\n"), LoadErrorKind::PythonOnly, "`pricing`"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\nexpect_config = {model = \"m\"}\n[target.body]\nq = 1\n"), LoadErrorKind::Unknown, "`http` has no parameter `expect_config`"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\ntools_path = \"t\"\n[target.body]\nq = 1\n"), LoadErrorKind::Unknown, "`tools_path`"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\n"), LoadErrorKind::Missing, "`http` needs `body`"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"h/x\"\noutput_path = \"a\"\n[target.body]\nq = 1\n"), LoadErrorKind::Invalid, "`url`"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\ntimeout = 0\n[target.body]\nq = 1\n"), LoadErrorKind::Invalid, "`timeout` is 0"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\nbody = \"x\"\n"), LoadErrorKind::Invalid, "`body` is a string"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\n[target.headers]\nAuthorization = \"Bearer abc\"\n[target.body]\nq = 1\n"), LoadErrorKind::Credential, "`Authorization` carries a credential"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\n[target.headers]\nX-Api-Key = \"abc\"\n[target.body]\nq = 1\n"), LoadErrorKind::Credential, "`X-Api-Key`"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\n[target.headers]\nCookie = \"s=${SESSION\"\n[target.body]\nq = 1\n"), LoadErrorKind::Invalid, "not closed"),
            (with_target("\n[target]\ntype = \"http\"\nurl = \"http://h/x\"\noutput_path = \"a\"\n[target.headers]\nX-Trace = 5\n[target.body]\nq = 1\n"), LoadErrorKind::Invalid, "a header value is a string"),
        ];
        for (suite, kind, fragment) in &table {
            let dir = fixture(suite, CASES);
            let e = load_in(&dir)
                .err()
                .unwrap_or_else(|| panic!("loaded:\n{suite}"));
            assert!(
                e.message.contains(fragment),
                "{fragment:?} not in {:?}",
                e.message
            );
            assert_eq!(e.kind, *kind, "{}", e.message);
            assert!(
                !e.message.contains("sk\""),
                "a credential leaked: {}",
                e.message
            );
        }
    }

    #[test]
    fn a_symlink_out_of_the_root_is_refused() {
        let outside = tempfile::tempdir().expect("temp dir");
        fs::write(outside.path().join("cases.json"), CASES).expect("write");
        let dir = fixture(&format!("{HEAD}{TARGET}{CHECK}"), CASES);
        fs::remove_file(dir.path().join("cases.json")).expect("remove");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                outside.path().join("cases.json"),
                dir.path().join("cases.json"),
            )
            .expect("symlink");
            let e = load_in(&dir).unwrap_err();
            assert_eq!(e.kind, LoadErrorKind::Perimeter, "{}", e.message);
            // The same file inside the perimeter loads.
            assert!(load(&dir.path().join("suite.toml"), Path::new("/")).is_ok());
        }
    }

    #[test]
    fn header_variables_are_listed_and_checked() {
        let table: &[(&str, Result<&[&str], &str>)] = &[
            ("Bearer ${SUPPORT_TOKEN}", Ok(&["SUPPORT_TOKEN"])),
            ("${A}-${B_2}-${A}", Ok(&["A", "B_2"])),
            ("plain", Ok(&[])),
            ("$NAME", Ok(&[])),
            ("${1X}", Err("no environment variable name")),
            ("${}", Err("no environment variable name")),
            ("${A", Err("not closed")),
        ];
        for (value, want) in table {
            match (header_variables(value), want) {
                (Ok(got), Ok(want)) => assert_eq!(got, *want, "{value}"),
                (Err(got), Err(fragment)) => assert!(got.contains(fragment), "{value}: {got}"),
                (got, want) => panic!("{value}: {got:?} vs {want:?}"),
            }
        }
        for (name, credential) in [
            ("Authorization", true),
            ("proxy-authorization", true),
            ("Cookie", true),
            ("X-API-KEY", true),
            ("x-auth-token", true),
            ("Client-Secret", true),
            ("Accept", false),
            ("X-Trace-Id", false),
        ] {
            assert_eq!(carries_credential(name), credential, "{name}");
        }
    }

    #[test]
    fn an_expanded_secret_is_not_expanded_again() {
        let spec = HttpTargetSpec {
            url: "http://h/x".into(),
            output_path: "a".into(),
            body: Map::new(),
            cost_path: None,
            latency_from_response: None,
            config_path: None,
            headers: vec![("Authorization".into(), "Bearer ${A}${B}".into())],
            timeout_s: 30.0,
        };
        let got = expand_headers(&spec, |n| {
            Some(if n == "A" { "${B}".into() } else { "b".into() })
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got[0].1, "Bearer ${B}b");
    }
}
