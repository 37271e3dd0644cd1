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
use super::near_miss::{did_you_mean, hint, listing};
use crate::core::checks::build::{PER_CASE_TYPES, PER_RUN_TYPES};
use crate::core::checks::{build, BuildError, BuildErrorKind, DeclaredCheck};
use crate::core::ratio::as_agreement;
use crate::core::suite::Suite;
use crate::target::http::{check_body_references, HttpTargetSpec};

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
    "body",
    "config_path",
    "cost_path",
    "headers",
    "latency_from_response",
    "output_path",
    "timeout",
    "url",
];

/// A suite loaded and validated, with where it came from.
#[derive(Clone, Debug)]
pub struct LoadedSuite {
    /// The suite as pure data (checks, cases, samples …).
    pub suite: Suite,
    /// The HTTP target, headers not yet expanded (see [`expand_headers`]).
    pub target: HttpTargetSpec,
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
            SUITE_FILE,
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
    let table = parse_toml(&bytes)?;
    let mut loaded = from_table(&table, &suite_dir, &root)?;
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

fn err(kind: LoadErrorKind, locator: Option<&str>, key: Option<&str>, sentence: &str) -> LoadError {
    LoadError::new(kind, SUITE_FILE, locator, key, sentence)
}

/// Decode and parse the suite file's bytes (BOM and CRLF tolerated).
fn parse_toml(bytes: &[u8]) -> Result<toml::Table, LoadError> {
    let text = decode_utf8(bytes, SUITE_FILE)?;
    text.parse::<toml::Table>().map_err(|e| {
        let place = e
            .span()
            .map(|span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                format!(" (line {line}, column {column})")
            })
            .unwrap_or_default();
        err(
            LoadErrorKind::Syntax,
            None,
            None,
            &format!(
                "this is not valid TOML: {}{place}",
                e.message().trim_end_matches('\n')
            ),
        )
    })
}

/// One or several unknown keys, with near misses or the known keys.
fn unknown_keys(
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
            None => format!("{subject} {noun} `{key}`. Known {noun}s: {}", listing(known)),
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
    err(LoadErrorKind::Unknown, locator, keys.first().copied(), &sentence)
}

fn toml_type(value: &toml::Value) -> &'static str {
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

fn from_table(
    table: &toml::Table,
    suite_dir: &Path,
    root: &Path,
) -> Result<LoadedSuite, LoadError> {
    // 1. top-level keys
    let unknown: Vec<&str> = table
        .keys()
        .map(String::as_str)
        .filter(|k| !TOP_LEVEL.contains(k))
        .collect();
    if !unknown.is_empty() {
        return Err(unknown_keys(Some("top level"), None, "table", &unknown, TOP_LEVEL));
    }
    // 2. [suite]
    let suite_table = match table.get("suite") {
        None => {
            return Err(err(
                LoadErrorKind::Missing,
                None,
                Some("suite"),
                "no [suite] table, and every suite needs one: it names the tenant, the \
                 environment, the suite and its cases file",
            ))
        }
        Some(toml::Value::Table(t)) => t,
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                None,
                Some("suite"),
                &format!("[suite] is {}, not a table", toml_type(other)),
            ))
        }
    };
    // 3. [[assertions]]
    let checks = build_assertions(table.get("assertions"))?;
    // 4. [suite] keys, 5. disclosure
    let unknown: Vec<&str> = suite_table
        .keys()
        .map(String::as_str)
        .filter(|k| !SUITE_KEYS.contains(k))
        .collect();
    if !unknown.is_empty() {
        return Err(unknown_keys(Some("[suite]"), None, "key", &unknown, SUITE_KEYS));
    }
    if suite_table.contains_key("disclosure") {
        return Err(err(
            LoadErrorKind::PythonOnly,
            Some("[suite]"),
            Some("disclosure"),
            "`disclosure` cannot be set from a data file: what a disclosure widens is what \
             leaves the perimeter, and a suite that is data never widens it. A suite that \
             must disclose more than the verdict is code, and needs a suite.py.",
        ));
    }
    // 6. cases, 7. perimeter and parse
    let cases_rel = match suite_table.get("cases") {
        None => {
            return Err(err(
                LoadErrorKind::Missing,
                Some("[suite]"),
                Some("cases"),
                "no `cases`. Cases always live in a file of their own, e.g. \
                 `cases = \"cases.json\"`: a suite is rules, cases are data, and a diff has to \
                 say which of the two moved",
            ))
        }
        Some(toml::Value::String(s)) if !s.is_empty() => s.clone(),
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("cases"),
                &format!(
                    "`cases` is {}, and it has to be the path of the cases file",
                    toml_type(other)
                ),
            ))
        }
    };
    let cases_path = inside_root("cases", &cases_rel, suite_dir, root)?;
    let cases_name = Path::new(&cases_rel)
        .file_name()
        .map_or_else(|| cases_rel.clone(), |n| n.to_string_lossy().into_owned());
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
    let cases = parse_cases(&cases_bytes, &cases_name)?;
    // 8. artifacts
    let (artifacts, artifact_paths) = match suite_table.get("artifacts") {
        None => (Vec::new(), Vec::new()),
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
            (written, resolved)
        }
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("artifacts"),
                &format!(
                    "`artifacts` is {}, and it has to be an array of paths, e.g. [\"prompt.md\"]",
                    toml_type(other)
                ),
            ))
        }
    };
    // 9. the [suite] values
    let name_of = |key: &str| -> Result<String, LoadError> {
        let refuse = |sentence: String| {
            err(LoadErrorKind::Invalid, Some("[suite]"), Some(key), &sentence)
        };
        match suite_table.get(key) {
            None => Err(err(
                LoadErrorKind::Missing,
                Some("[suite]"),
                Some(key),
                &format!("no `{key}`, and every suite needs one"),
            )),
            Some(toml::Value::String(s)) if s.is_empty() => {
                Err(refuse(format!("`{key}` is empty, and it has to name something")))
            }
            Some(toml::Value::String(s)) if is_safe_name(s) => Ok(s.clone()),
            Some(toml::Value::String(s)) => Err(refuse(format!(
                "`{key}` is '{s}', and a name may hold only letters, digits, `.`, `_` and `-`, \
                 starting with a letter or digit: it becomes a directory under .digline/"
            ))),
            Some(other) => Err(refuse(format!(
                "`{key}` is {}, and it has to be a string",
                toml_type(other)
            ))),
        }
    };
    let tenant = name_of("tenant")?;
    let environment = name_of("environment")?;
    let name = name_of("name")?;
    let samples = match suite_table.get("samples") {
        None => 1,
        Some(toml::Value::Integer(n)) if *n >= 1 => u32::try_from(*n).map_err(|_| {
            err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("samples"),
                &format!("`samples` is {n}, more calls per case than digline can count"),
            )
        })?,
        Some(toml::Value::Integer(n)) => {
            return Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("samples"),
                &format!(
                    "`samples` is {n}, and at least one call per case is needed to judge anything"
                ),
            ))
        }
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("samples"),
                &format!("`samples` is {}, and it has to be a whole number", toml_type(other)),
            ))
        }
    };
    let min_agreement = match suite_table.get("min_agreement") {
        None if samples > 1 => {
            return Err(err(
                LoadErrorKind::Missing,
                Some("[suite]"),
                Some("min_agreement"),
                &format!(
                    "`samples` is {samples} and there is no `min_agreement`. Sampling measures \
                     how much the answers wobble; without a stated floor nobody has said how \
                     much wobble is acceptable. Add e.g. min_agreement = \"{}/{samples}\"",
                    samples / 2 + 1
                ),
            ))
        }
        None => None,
        Some(value) => {
            let value = toml_to_json(value).map_err(|why| {
                err(
                    LoadErrorKind::Invalid,
                    Some("[suite]"),
                    Some("min_agreement"),
                    &format!("`min_agreement` is {why}"),
                )
            })?;
            Some(as_agreement(&value, samples, "min_agreement").map_err(|e| {
                err(
                    LoadErrorKind::Invalid,
                    Some("[suite]"),
                    Some("min_agreement"),
                    &e.message,
                )
            })?)
        }
    };
    let record_responses = match suite_table.get("record_responses") {
        None => false,
        Some(toml::Value::Boolean(b)) => *b,
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("record_responses"),
                &format!(
                    "`record_responses` is {}, and it has to be true or false",
                    toml_type(other)
                ),
            ))
        }
    };
    if samples < 2 {
        if let Some(canary) = cases.iter().find(|c| c.canary) {
            return Err(err(
                LoadErrorKind::Invalid,
                Some("[suite]"),
                Some("samples"),
                &format!(
                    "case '{}' is a canary and the suite samples {samples} time(s). A canary is \
                     read by whether it moved beyond its own noise, and one sample has no noise \
                     to measure. Set samples to at least 2 (with min_agreement), or drop the \
                     canary flag",
                    canary.id
                ),
            ));
        }
    }
    // 10. [target]
    let target = load_target(table.get("target"))?;
    Ok(LoadedSuite {
        suite: Suite {
            tenant,
            environment,
            name,
            samples,
            min_agreement,
            checks,
            cases,
            record_responses,
            artifacts,
        },
        target,
        suite_path: PathBuf::new(),
        suite_dir: suite_dir.to_path_buf(),
        root: root.to_path_buf(),
        cases_path,
        artifact_paths,
    })
}

/// `^[A-Za-z0-9][A-Za-z0-9._-]*$`: one safe path segment.
fn is_safe_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Resolve `written` against the suite directory and refuse it outside `root`.
fn inside_root(key: &str, written: &str, suite_dir: &Path, root: &Path) -> Result<PathBuf, LoadError> {
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

fn build_assertions(value: Option<&toml::Value>) -> Result<Vec<DeclaredCheck>, LoadError> {
    let no_checks = || {
        err(
            LoadErrorKind::Missing,
            None,
            Some("assertions"),
            "no [[assertions]]. A run that checks nothing passes vacuously, and a gate that \
             cannot fail is no gate: declare at least one check",
        )
    };
    let entries = match value {
        None => return Err(no_checks()),
        Some(toml::Value::Array(entries)) => entries,
        Some(other) => {
            return Err(err(
                LoadErrorKind::Invalid,
                None,
                Some("assertions"),
                &format!(
                    "`assertions` is {}, and it has to be an array of tables ([[assertions]])",
                    toml_type(other)
                ),
            ))
        }
    };
    if entries.is_empty() {
        return Err(no_checks());
    }
    let mut checks = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let locator = format!("[[assertions]] #{}", i + 1);
        let toml::Value::Table(table) = entry else {
            return Err(err(
                LoadErrorKind::Invalid,
                Some(&locator),
                None,
                "this entry is not a table",
            ));
        };
        checks.push(build_entry(table, &locator)?);
    }
    Ok(checks)
}

fn type_lists() -> String {
    format!(
        "\n  per case: {}\n  per run:  {}",
        PER_CASE_TYPES.join(", "),
        PER_RUN_TYPES.join(", ")
    )
}

fn build_entry(table: &toml::Table, locator: &str) -> Result<DeclaredCheck, LoadError> {
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
                &format!("`type` is {}, and it has to be the name of a check", toml_type(other)),
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
    build(&token, &params).map_err(|e| build_error(&e, locator))
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
            err(LoadErrorKind::Unknown, Some(&place), Some("type"), &sentence)
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
        BuildErrorKind::Invalid { key, .. } => err(
            LoadErrorKind::Invalid,
            Some(&place),
            key.as_deref(),
            &e.to_string(),
        ),
        BuildErrorKind::NotBuiltYet { .. } => {
            err(LoadErrorKind::NotBuiltYet, Some(&place), Some("type"), &e.to_string())
        }
        BuildErrorKind::PythonOnly { .. } => {
            err(LoadErrorKind::PythonOnly, Some(&place), None, &e.to_string())
        }
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

fn load_target(value: Option<&toml::Value>) -> Result<HttpTargetSpec, LoadError> {
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
        Some(toml::Value::String(t)) if t == "http" => http_target(table),
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
            Err(err(
                LoadErrorKind::NotBuiltYet,
                AT,
                Some("type"),
                "`type = \"provider\"` asks a hosted model, and model providers are not built \
                 yet in this release. Put the model behind an HTTP service (`type = \"http\"`) \
                 for now",
            ))
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
        return Err(unknown_keys(AT, Some("http"), "parameter", &unknown, HTTP_KEYS));
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
    let output_path = text("output_path")?.unwrap_or_default();
    let cost_path = text("cost_path")?;
    let latency_from_response = text("latency_from_response")?;
    let config_path = text("config_path")?;
    let body = match table.get("body") {
        Some(toml::Value::Table(body)) => {
            match toml_to_json(&toml::Value::Table(body.clone())) {
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
            }
        }
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
                        &format!("`{name}` is {}, and a header value is a string", toml_type(value)),
                    ));
                };
                let vars = header_variables(value).map_err(|why| {
                    err(LoadErrorKind::Invalid, Some("[target.headers]"), Some(name), &format!("`{name}`: {why}"))
                })?;
                if carries_credential(name) && vars.is_empty() {
                    return Err(err(
                        LoadErrorKind::Credential,
                        Some("[target.headers]"),
                        Some(name),
                        &format!(
                            "`{name}` carries a credential, and its value is written into the \
                             suite file, which gets committed. Take it from the environment \
                             instead, e.g. {name} = \"Bearer ${{SUPPORT_TOKEN}}\""
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

/// True for a header whose name carries a credential: `Authorization`,
/// `Proxy-Authorization`, `Cookie`, or any name containing `key`, `token`
/// or `secret` (case-insensitive). Its value must come from `${NAME}`.
pub fn carries_credential(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(lower.as_str(), "authorization" | "proxy-authorization" | "cookie")
        || ["key", "token", "secret"].iter().any(|w| lower.contains(w))
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
