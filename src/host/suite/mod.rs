//! Loading `suite.toml` + `cases.json` into a [`Suite`] and a
//! [`TargetSpec`], refusing bad input with located sentences.
//!
//! The shape, in two passes:
//!
//! 1. **Parse** (`parse_toml`): the text (BOM dropped, CR LF folded) is
//!    parsed once into the toml crate's spanned tree
//!    ([`toml::de::DeTable`]), which keeps a span on every key and value
//!    and keeps integers apart from floats. A syntax error, or a number no
//!    TOML value holds, is refused here at its line and column.
//! 2. **Validate** (`from_table`): each section reads its table through
//!    the field helper (`fields::Fields`): `known` refuses the keys
//!    nobody knows with the near miss, `missing` names the required keys
//!    that are absent, `optional`/`bounded` read a key as one value shape
//!    (`fields::FromToml`) whose refusal is one sentence, "`` `key` is
//!    <what it is>, and <what it has to be> ``". Every refusal is placed
//!    when it is made, by the span of what it blames: the key, the
//!    element of an array, or the table's header for an absent key.
//!    Nothing re-reads a locator string to find a place.
//!
//! The sections are asked in 0.10.0's load order (python-input.md §1.2),
//! which is also the precedence of errors: top-level keys; `[suite]`
//! present; `[[assertions]]` present and each entry built in file order;
//! `[suite]` keys; `disclosure`; `cases` named, inside the root, read; the
//! `artifacts`; the `[suite]` values; then `[target]`. A section notes
//! every independent problem and goes on; only a rule whose input was
//! already refused is skipped, so a problem is never reported twice.
//! The places a refusal found after the load can blame (a header's
//! `${NAME}`, an artifact that cannot be read) are kept as [`Places`].
//!
//! One file per section:
//!
//! | file | section |
//! |---|---|
//! | `fields` | the field helper and the value shapes |
//! | [`toml_values`] | type phrases, numbers, TOML to JSON |
//! | [`suite_table`] | `[suite]`: names, `samples`, `min_agreement`, `artifacts` |
//! | [`assertions`] | `[[assertions]]`: checks (built by `core::checks`) and aggregates |
//! | [`target`] | `[target]`: its form and the inline-credential rule |
//! | [`http`] | `[target] type = "http"`, its headers and `${NAME}` expansion |
//! | [`provider`] | `[target] type = "provider"` and where a provider is reached |
//! | [`cases`] | the cases file (JSON; its places found by [`located::in_cases`]) |
//! | [`anchors`] | the judge anchors file `judge_anchors` names (JSON, placed like cases) |
//! | [`errors`] | the located refusal ([`LoadError`]) |
//!
//! Paths (`cases`, `artifacts`) resolve against the suite file's directory
//! and must stay inside `root` after symlinks are resolved ([`paths`]). A
//! UTF-8 BOM and CRLF line endings are tolerated in both files; invalid
//! UTF-8 is refused with its byte offset. Header values may name
//! environment variables as `${NAME}`; [`expand_headers`] fills them in
//! before the first call. Spec `10-suite.md`, `25-targets.md`.

pub mod anchors;
pub mod assertions;
pub mod cases;
pub mod errors;
mod fields;
pub mod http;
pub mod located;
pub mod paths;
pub mod provider;
pub mod suite_table;
pub mod target;
pub mod toml_values;

use std::path::{Path, PathBuf};

use toml::de::DeTable;

use self::assertions::{build_assertions, check_aggregates};
use self::cases::decode_utf8;
use self::errors::{LoadError, LoadErrorKind};
use self::fields::Fields;
use self::http::check_body_against_cases;
use self::located::LineColumn;
use self::suite_table::suite_values;
use self::target::load_target;
use self::toml_values::{kind, overflowing};
use crate::client::http::HttpTargetSpec;
use crate::client::provider::ProviderSpec;
use crate::core::suite::Suite;

pub use self::http::{carries_credential, expand_headers, header_secrets, header_variables};

const SUITE_FILE: &str = "suite.toml";

/// Top-level tables of `suite.toml`.
const TOP_LEVEL: &[&str] = &["assertions", "suite", "target"];

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
    /// `[suite] judge_anchors`: the fixed, labelled answers every judge
    /// grades on every gate (empty without the key).
    pub judge_anchors: Vec<crate::core::anchors::Anchor>,
    /// `[suite] min_judge_kappa`: the least κ (judge against people) under
    /// which judged checks cannot gate.
    pub min_judge_kappa: Option<f64>,
    /// Where the keys a refusal found after the load can blame are
    /// written ([`LoadedSuite::place`]).
    pub places: Places,
}

impl LoadedSuite {
    /// Place a refusal about the suite file found after the load (a
    /// `${NAME}` the environment does not set, an artifact that cannot be
    /// read) at its `file:line:column`, under the file's own name, like a
    /// refusal of the load itself.
    pub fn place(&self, error: LoadError) -> LoadError {
        if error.file == SUITE_FILE {
            let at = self.places.of_error(&error);
            error.at(at).in_file(&shown_path(&self.suite_path))
        } else {
            error
        }
    }
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
    let name = shown_path(suite_path);
    load_named(suite_path, root).map_err(|e| {
        if e.file == SUITE_FILE {
            e.in_file(&name)
        } else {
            e
        }
    })
}

/// The suite file as the user called it (`--suite ci/support.toml` is
/// named `ci/support.toml`, not `support.toml`): with several suites in a
/// repository, a refusal says which file it means.
fn shown_path(suite_path: &Path) -> String {
    // `./support.toml` (a root of `.` joined to the name) reads as `support.toml`.
    let path = suite_path.strip_prefix(".").unwrap_or(suite_path);
    if path.as_os_str().is_empty() {
        SUITE_FILE.to_string()
    } else {
        path.display().to_string()
    }
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
    let folded = crate::host::crlf::fold_crlf(text);
    let text: &str = &folded;
    let parsed = parse_toml(text)?;
    let mut loaded = from_table(&parsed, &suite_dir, &root)?;
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

/// The suite file parsed once: its text (BOM dropped, CR LF folded) and
/// the spanned tree of it ([`DeTable`], a span on every key and value,
/// integers kept apart from floats), which the validation pass reads.
struct Parsed<'t> {
    text: &'t str,
    tree: DeTable<'t>,
}

/// Parse the suite file's text; a syntax error, or a number no TOML
/// value holds, is placed at its line and column.
fn parse_toml(text: &str) -> Result<Parsed<'_>, LoadError> {
    let refusal = |at: Option<usize>, why: &str| {
        let refusal = err(
            LoadErrorKind::Syntax,
            None,
            None,
            &format!("this is not valid TOML: {}", why.trim_end_matches('\n')),
        );
        match at {
            Some(at) => refusal.at(located::line_column(text, at)),
            None => refusal,
        }
    };
    let tree = DeTable::parse(text)
        .map_err(|e| refusal(e.span().map(|s| s.start), e.message()))?
        .into_inner();
    if let Some((at, why)) = overflowing(&tree) {
        return Err(refusal(Some(at), &why));
    }
    Ok(Parsed { text, tree })
}

/// Keep `result`'s value, or note its error among `problems`.
fn noted<T>(problems: &mut Vec<LoadError>, result: Result<T, LoadError>) -> Option<T> {
    result.map_err(|e| problems.push(e)).ok()
}

/// The problems noted, all carried by the first; else what `build` makes
/// of the values, each of which is there since no problem was noted.
fn finish<T>(problems: Vec<LoadError>, build: impl FnOnce() -> Option<T>) -> Result<T, LoadError> {
    match LoadError::all(problems) {
        Some(error) => Err(error),
        None => Ok(build().unwrap_or_else(|| unreachable!("every refused value noted a problem"))),
    }
}

/// Validate the parsed suite file section by section. Every independent
/// problem is collected, in 0.10.0's load order (so the first is the one
/// 0.10.0 names); a rule whose input was already refused is not run, so a
/// problem is never reported twice under two names.
fn from_table(
    parsed: &Parsed<'_>,
    suite_dir: &Path,
    root: &Path,
) -> Result<LoadedSuite, LoadError> {
    let top = Fields {
        text: parsed.text,
        locator: None,
        at: 0,
        table: &parsed.tree,
    };
    let mut problems = Vec::new();
    // 1. top-level keys
    let top_level = Fields {
        locator: Some("top level"),
        ..top
    };
    let misspelled = top_level.known(TOP_LEVEL, &[], None, "table", &mut problems);
    // 2. [suite]
    let suite_table = noted(&mut problems, section(&top, "suite", "[suite]"));
    // 3. [[assertions]]
    let (checks, rules, declared_aggregates) = build_assertions(&top, &mut problems);
    let assertions_ok = problems.is_empty();
    // 4.–9. the [suite] keys and values, the cases file, the artifacts
    let suite = suite_table.and_then(|t| suite_values(&t, suite_dir, root, &mut problems));
    // The judge anchors, once the judged checks are known.
    let judged: Vec<&str> = (checks.iter())
        .filter(|c| c.judge_coordinate().is_some())
        .map(|c| c.name.as_str())
        .collect();
    let anchors = match suite_table {
        Some(t) if assertions_ok => noted(
            &mut problems,
            suite_table::judge_anchors(&t, &judged, suite_dir, root),
        ),
        _ => None,
    };
    let aggregates = match &suite {
        Some(values) if assertions_ok => noted(
            &mut problems,
            check_aggregates(&top, &checks, declared_aggregates, values),
        ),
        _ => None,
    };
    // 10. [target]
    let target = noted(&mut problems, load_target(&top, suite_dir, root));
    if let (Some(TargetSpec::Http(spec)), Some(values)) = (&target, &suite) {
        noted(&mut problems, check_body_against_cases(spec, values));
    }
    // A misspelled table (`[[assertion]]`, `[targt]`) is refused once, by
    // its near miss: "no [[assertions]]" would repeat the same mistake.
    problems.retain(|p| {
        !(p.kind == LoadErrorKind::Missing
            && p.locator.is_none()
            && p.key.as_deref().is_some_and(|k| misspelled.contains(&k)))
    });
    finish(problems, || {
        let values = suite?;
        let (judge_anchors, min_judge_kappa) = anchors?;
        Some(LoadedSuite {
            suite: Suite {
                tenant: values.tenant,
                environment: values.environment,
                name: values.name,
                samples: values.samples,
                min_agreement: values.min_agreement,
                checks,
                cases: values.cases,
                record_responses: values.record_responses,
                max_usd: values.max_usd,
                false_alarm_rate: values.false_alarm_rate,
                declared_sampling: None,
                artifacts: values.artifacts,
                rules,
                aggregates: aggregates?,
            },
            target: target?,
            suite_path: PathBuf::new(),
            suite_dir: suite_dir.to_path_buf(),
            root: root.to_path_buf(),
            cases_path: values.cases_path,
            artifact_paths: values.artifact_paths,
            judge_anchors,
            min_judge_kappa,
            places: Places::of(&top),
        })
    })
}

/// The top-level table `key` (`[suite]`, `[target]`): present, and a table.
fn section<'a, 't>(
    top: &Fields<'a, 't>,
    key: &str,
    locator: &'a str,
) -> Result<Fields<'a, 't>, LoadError> {
    match top.get(key) {
        None => Err(top.refuse(
            LoadErrorKind::Missing,
            Some(key),
            top.at_key(key),
            &format!(
                "no {locator} table, and every suite needs one: {}",
                match key {
                    "suite" => "it names the tenant, the environment, the suite and its cases file",
                    _ => "it says what system the cases are asked of",
                }
            ),
        )),
        Some(value) => top.table(key, Some(locator)).ok_or_else(|| {
            top.invalid(
                key,
                &format!("{locator} is {}, not a table", kind(value.get_ref())),
            )
        }),
    }
}

/// Where the keys a refusal after the load can blame are written (the
/// `url`, `base_url` and headers of `[target]`, `artifacts`), read off
/// the spans at load.
#[derive(Clone, Debug, Default)]
pub struct Places(Vec<(String, String, LineColumn)>);

impl Places {
    fn of(top: &Fields<'_, '_>) -> Places {
        let mut found = Vec::new();
        let mut note = |fields: &Fields<'_, '_>, key: &str| {
            let at = located::line_column(fields.text, fields.at_key(key));
            found.push((
                fields.locator.unwrap_or_default().to_string(),
                key.to_string(),
                at,
            ));
        };
        if let Some(suite) = top.table("suite", Some("[suite]")) {
            note(&suite, "artifacts");
        }
        if let Some(target) = top.table("target", Some("[target]")) {
            note(&target, "url");
            note(&target, "base_url");
            if let Some(headers) = target.table("headers", Some("[target.headers]")) {
                for (name, _) in headers.entries() {
                    note(&headers, name);
                }
            }
        }
        Places(found)
    }

    /// Where `error`'s key is written (the file's first line when it is
    /// none of these).
    fn of_error(&self, error: &LoadError) -> LineColumn {
        self.0
            .iter()
            .find(|(locator, key, _)| {
                error.locator.as_deref() == Some(locator) && error.key.as_deref() == Some(key)
            })
            .map_or((1, 1), |(_, _, at)| *at)
    }
}

#[cfg(test)]
mod tests;
