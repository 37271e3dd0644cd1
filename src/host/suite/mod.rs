//! Loading `suite.toml` + `cases.json` into a [`Suite`] and a
//! [`TargetSpec`], refusing bad input with located sentences.
//!
//! One pass parses, one validates. The suite file is parsed once into
//! the toml crate's tree; the validation pass ([`from_table`]) then asks
//! each section in 0.10.0's load order (python-input.md §1.2), which is
//! also the precedence of errors: top-level keys; `[suite]` present;
//! `[[assertions]]` present and each entry built in file order; `[suite]`
//! keys; `disclosure`; `cases` named, inside the root, read; the
//! `artifacts`; the `[suite]` values; then `[target]`. A section notes
//! every independent problem and goes on; only a rule whose input was
//! already refused is skipped, so a problem is never reported twice.
//! Every refusal is then placed at `file:line:column` ([`located`]).
//!
//! One file per section:
//!
//! | file | section |
//! |---|---|
//! | [`suite_table`] | `[suite]`: names, `samples`, `min_agreement`, `artifacts` |
//! | [`assertions`] | `[[assertions]]`: checks (built by `core::checks`) and aggregates |
//! | [`target`] | `[target]`: its form and the inline-credential rule |
//! | [`http`] | `[target] type = "http"`, its headers and `${NAME}` expansion |
//! | [`provider`] | `[target] type = "provider"` and where a provider is reached |
//! | [`cases`] | the cases file |
//! | [`errors`] | the located refusal ([`LoadError`]) |
//!
//! Paths (`cases`, `artifacts`) resolve against the suite file's directory
//! and must stay inside `root` after symlinks are resolved ([`paths`]). A
//! UTF-8 BOM and CRLF line endings are tolerated in both files; invalid
//! UTF-8 is refused with its byte offset. Header values may name
//! environment variables as `${NAME}`; [`expand_headers`] fills them in
//! before the first call. Spec `10-suite.md`, `25-targets.md`.

pub mod assertions;
pub mod cases;
pub mod errors;
pub mod http;
pub mod located;
pub mod paths;
pub mod provider;
pub mod suite_table;
pub mod target;
pub mod toml_values;

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::de::DeTable;

use self::assertions::{build_assertions, check_aggregates};
use self::cases::decode_utf8;
use self::errors::{LoadError, LoadErrorKind};
use self::http::check_body_against_cases;
use self::suite_table::{suite_section, suite_values};
use self::target::load_target;
use crate::client::http::HttpTargetSpec;
use crate::client::provider::ProviderSpec;
use crate::core::suite::Suite;
use crate::host::near_miss::{did_you_mean, hint, listing};

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
    /// The suite file's text as validated (BOM dropped, CR LF folded):
    /// what places a refusal found after the load ([`LoadedSuite::place`]).
    pub suite_text: String,
}

impl LoadedSuite {
    /// Place a refusal about the suite file found after the load (a
    /// `${NAME}` the environment does not set, an artifact that cannot be
    /// read) at its `file:line:column`, under the file's own name, like a
    /// refusal of the load itself.
    pub fn place(&self, error: LoadError) -> LoadError {
        let placed = match DeTable::parse(&self.suite_text) {
            Ok(tree) => located::place(error, Some((&self.suite_text, tree.get_ref())), None),
            Err(_) => error,
        };
        if placed.file == SUITE_FILE {
            placed.in_file(&shown_path(&self.suite_path))
        } else {
            placed
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

/// The suite file parsed once: the spanned tree ([`DeTable`], a span on
/// every key and value, which places every refusal) and the values the
/// validation pass reads, deserialized from that same tree.
pub(super) struct Parsed<'t> {
    /// The file's text (BOM dropped, CR LF folded).
    pub(super) text: &'t str,
    /// The spanned tree of `text`.
    pub(super) tree: DeTable<'t>,
    /// The values of `tree`.
    pub(super) table: toml::Table,
}

/// Parse the suite file's text (BOM dropped, CR LF folded); a syntax
/// error is placed at its line and column.
fn parse_toml(text: &str) -> Result<Parsed<'_>, LoadError> {
    let refusal = |e: toml::de::Error| {
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
    };
    // The same two steps as `text.parse::<toml::Table>()`, keeping the tree.
    let tree = DeTable::parse(text).map_err(refusal)?;
    let table =
        toml::Table::deserialize(toml::de::Deserializer::from(tree.clone())).map_err(refusal)?;
    Ok(Parsed {
        text,
        tree: tree.into_inner(),
        table,
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

/// The refusal naming every `required` key `table` does not give
/// (`"<needer> needs `url`, `body`, which this table does not give it."`),
/// leaving out the keys a typo'd key stands for (`meant`): that typo is
/// the one problem. `None` when nothing is missing.
fn missing_keys(
    table: &toml::Table,
    at: Option<&str>,
    needer: &str,
    required: &[&str],
    meant: &[&str],
) -> Option<LoadError> {
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|k| !table.contains_key(*k) && !meant.contains(k))
        .collect();
    let first = *missing.first()?;
    let named: Vec<String> = missing.iter().map(|k| format!("`{k}`")).collect();
    Some(err(
        LoadErrorKind::Missing,
        at,
        Some(first),
        &format!(
            "{needer} needs {}, which this table does not give it.",
            named.join(", ")
        ),
    ))
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
    parsed: &Parsed<'_>,
    suite_dir: &Path,
    root: &Path,
) -> Result<LoadedSuite, LoadError> {
    let table = &parsed.table;
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
    // A misspelled table (`[[assertion]]`, `[targt]`) is refused once, by
    // its near miss: "no [[assertions]]" would repeat the same mistake.
    let misspelled: Vec<&str> = unknown
        .iter()
        .filter_map(|k| crate::host::near_miss::did_you_mean(k, TOP_LEVEL))
        .collect();
    problems.retain(|p| {
        !(p.kind == LoadErrorKind::Missing
            && p.line_column().is_none()
            && p.key.as_deref().is_some_and(|k| misspelled.contains(&k)))
    });
    if let Some(error) = LoadError::all(problems) {
        let cases = suite
            .as_ref()
            .map(|v| (v.cases_name.as_str(), v.cases_text.as_str()));
        return Err(located::place(
            error,
            Some((parsed.text, &parsed.tree)),
            cases,
        ));
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
            false_alarm_rate: values.false_alarm_rate,
            declared_sampling: None,
        },
        target,
        suite_path: PathBuf::new(),
        suite_dir: suite_dir.to_path_buf(),
        root: root.to_path_buf(),
        cases_path: values.cases_path,
        artifact_paths: values.artifact_paths,
        suite_text: parsed.text.to_string(),
    })
}

#[cfg(test)]
mod tests;
