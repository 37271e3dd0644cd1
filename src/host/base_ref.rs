//! The base ref: the approved reference as the pull request's base has it,
//! read from git objects (no `git` binary). It tells whether the pull
//! request replaces the baseline file, and gives the base's baseline so the
//! gate can say what the run gives up against it (spec `50-gate.md`).

use std::path::{Path, PathBuf};

use super::env::CiEnv;
use super::git_objects::{self, AtRevError};
use crate::core::compare::DeclaredCheck;
use crate::core::document::RunDocument;
use crate::core::evaluation::{self, EvalChange};

/// Which revision is the base, and whether a person named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseRev {
    /// A revision `git rev-parse` accepts.
    pub rev: String,
    /// True when given as `--base-ref` (a failure to read it refuses, 64).
    pub explicit: bool,
    /// A folder of the repository it is read in: the suite's root
    /// (`--root`), never the process's working directory.
    pub dir: PathBuf,
}

/// `--base-ref` when given; else on GitHub Actions for a pull request the
/// event's base commit (`pull_request.base.sha`), or the merge commit's
/// first parent (`HEAD^1`) when the event names none; on GitLab for a merge
/// request `CI_MERGE_REQUEST_DIFF_BASE_SHA`; else none. It is read in the
/// repository holding `root`.
pub fn choose(flag: Option<&str>, env: &CiEnv, root: &Path) -> Option<BaseRev> {
    let dir = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    if let Some(rev) = flag {
        return Some(BaseRev {
            rev: rev.to_string(),
            explicit: true,
            dir,
        });
    }
    if env.github.actions && env.github.pull_request.is_some() {
        return Some(BaseRev {
            rev: env
                .github
                .base_sha
                .clone()
                .unwrap_or_else(|| "HEAD^1".into()),
            explicit: false,
            dir,
        });
    }
    env.gitlab.diff_base_sha.as_ref().map(|sha| BaseRev {
        rev: sha.clone(),
        explicit: false,
        dir,
    })
}

/// The bytes of `path` (against the working directory, or absolute) at
/// the base, in the repository holding the base's folder.
fn at(base: &BaseRev, path: &Path) -> Result<Option<Vec<u8>>, AtRevError> {
    git_objects::file_at(&base.dir, &base.rev, &absolute(path))
}

/// `path` made absolute against the working directory (lexically).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What the base says about the baseline file.
#[derive(Clone, Debug)]
pub enum BaseBaseline {
    /// The file has the same bytes at the base: nothing replaced.
    Same,
    /// The pull request replaces the file; the base's document, when the
    /// base had one (`None`: the pull request adds the first baseline).
    Replaced(Option<Box<RunDocument>>),
}

/// Why the base could not be read: one sentence, and whether it refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseProblem {
    /// The sentence (what to fetch, or what is wrong).
    pub sentence: String,
    /// Exit 64 (the base was named explicitly) rather than a warning.
    pub refuses: bool,
}

/// Reads `baseline_path` (relative to the current directory, or absolute)
/// at `base.rev` and compares it with the working copy's bytes.
///
/// # Errors
/// A [`BaseProblem`]: not a repository, the base commit is not in this
/// clone, or the base's baseline is not a readable document.
pub fn read(base: &BaseRev, baseline_path: &Path) -> Result<BaseBaseline, BaseProblem> {
    read_moved(base, baseline_path, baseline_path)
}

/// [`read`], the base's baseline read at `at_base` (the path the base's
/// own suite names: a pull request that renames the suite moves its
/// baseline) and compared with the working copy's `baseline_path`.
///
/// # Errors
/// As [`read`].
pub fn read_moved(
    base: &BaseRev,
    at_base: &Path,
    baseline_path: &Path,
) -> Result<BaseBaseline, BaseProblem> {
    let problem = |sentence: String| BaseProblem {
        sentence,
        refuses: base.explicit,
    };
    let old = at(base, at_base).map_err(|e| problem(refusal(&base.rev, &e)))?;
    let new = std::fs::read(baseline_path).ok();
    match (old, new) {
        (None, None) => Ok(BaseBaseline::Same),
        (Some(a), Some(b)) if same_text(&a, &b) => Ok(BaseBaseline::Same),
        (None, Some(_)) => Ok(BaseBaseline::Replaced(None)),
        (Some(bytes), _) => {
            let shown = format!("{}:{}", base.rev, at_base.display());
            let doc =
                crate::store::document::from_bytes(Path::new(&shown), &bytes).map_err(|e| {
                    problem(format!(
                    "the approved reference at the base ({shown}) is not a readable document: {e}"
                ))
                })?;
            Ok(BaseBaseline::Replaced(Some(Box::new(doc))))
        }
    }
}

/// What to do when `rev` cannot be read, one sentence per case: a commit
/// id not fetched, a relative revision past a shallow clone's edge, a name
/// that is nowhere in the clone, an object that is not a commit, no git.
pub fn refusal(rev: &str, e: &AtRevError) -> String {
    let hex = rev.len() >= 7 && rev.bytes().all(|b| b.is_ascii_hexdigit());
    match e {
        AtRevError::Absent(_) if hex => format!(
            "the base commit {rev} is not in this clone, so the approved reference it holds could not be read: fetch it before the gate (`git fetch --depth=1 origin {rev}`; on GitHub, actions/checkout with `fetch-depth: 2` usually reaches it; on GitLab, a `GIT_DEPTH` that reaches the merge request's base)"
        ),
        AtRevError::Absent(_) if rev.contains(['^', '~']) => format!(
            "the base commit {rev} is not in this clone, so the approved reference it holds could not be read: fetch it (on GitHub, actions/checkout with `fetch-depth: 2`; on GitLab, a `GIT_DEPTH` that reaches the merge request's base)"
        ),
        AtRevError::Absent(_) => format!(
            "the base ref {rev} names no commit, branch or tag in this clone, nor origin/{rev}: fetch the base branch before the gate (`git fetch --depth=1 origin {rev}`), or name the base commit by its sha"
        ),
        AtRevError::NotACommit(kind) => format!(
            "the base ref {rev} names a {kind}, not a commit: name the pull request's base commit (its sha, a branch such as origin/main, or HEAD^1)"
        ),
        AtRevError::NoRepository(why) => format!(
            "the base ref {rev} could not be read because this directory is not a git checkout ({why}): run the gate in the repository's clone, or leave --base-ref out"
        ),
    }
}

/// The same document text: equal bytes, or equal once CR LF is folded to
/// LF (a `.gitattributes` `eol=crlf` rule writes the working copy with CR
/// LF; a JSON document holds no raw line break inside a string, so the
/// fold cannot hide a change of content).
fn same_text(a: &[u8], b: &[u8]) -> bool {
    fn fold(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                i += 1;
                continue;
            }
            out.push(bytes[i]);
            i += 1;
        }
        out
    }
    a == b || fold(a) == fold(b)
}

/// The `(tenant, name)` the base's own `suite_path` declares, when the
/// base can be read and they differ from `now` (the pull request renames
/// the suite, and with it the baseline's path).
pub fn renamed_suite(
    base: &BaseRev,
    suite_path: &Path,
    now: (&str, &str),
) -> Option<(String, String)> {
    let old = at(base, suite_path).ok()??;
    let table = suite_json(&old)?;
    let suite = table.get("suite")?;
    let field = |k: &str| suite.get(k)?.as_str().map(str::to_string);
    let (tenant, name) = (field("tenant")?, field("name")?);
    ((tenant.as_str(), name.as_str()) != now).then_some((tenant, name))
}

/// A store the pull request moved: the base kept its baseline under
/// another root (`--root`, the folder holding `.digline/`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovedStore {
    /// The base's baseline file, to read at the base.
    pub baseline: PathBuf,
    /// The base's store root, to read its other records at the base.
    pub root: PathBuf,
    /// The base's store root, relative to the repository (`.` for its top).
    pub from: String,
    /// This run's store root, relative to the repository.
    pub to: String,
}

/// Where the base kept the baseline when it is not at `root/in_root` there
/// (`in_root`: `.digline/<tenant>/baselines/<suite>.json`): a pull request
/// that moves `.digline/` or runs the gate with another `--root` must
/// still be compared with the approved reference the base holds.
///
/// The base's folders holding `in_root` are the candidates (at most
/// [`git_objects::folders_holding`]'s bound of trees is searched). One
/// is the answer; among several, the one whose root holds `suite_file`
/// most closely (the deepest root above it), when exactly one is. `None`
/// when the base holds the file at `root`, cannot be read, or the choice
/// is not clear.
pub fn moved_store(
    base: &BaseRev,
    root: &Path,
    in_root: &Path,
    suite_file: &Path,
) -> Option<MovedStore> {
    let here = base.dir.as_path();
    let (root, suite_file) = (absolute(root), absolute(suite_file));
    if at(base, &root.join(in_root)).ok()?.is_some() {
        return None;
    }
    let mut parts = in_root.components();
    let store_dir = parts.next()?.as_os_str().to_str()?.to_string();
    let below = parts.as_path();
    let (workdir, found) = git_objects::folders_holding(here, &base.rev, &store_dir, below).ok()?;
    let now = git_objects::in_work_tree(here, &root)?;
    let candidates: Vec<PathBuf> = found.into_iter().filter(|f| *f != now).collect();
    let chosen = match candidates.as_slice() {
        [one] => one.clone(),
        [] => return None,
        several => {
            let suite = git_objects::in_work_tree(here, &suite_file)?;
            let depth = |p: &PathBuf| suite.starts_with(p).then(|| p.components().count());
            let best = several.iter().filter_map(depth).max()?;
            let mut at_best = several.iter().filter(|p| depth(p) == Some(best));
            let one = at_best.next()?.clone();
            if at_best.next().is_some() {
                return None;
            }
            one
        }
    };
    let shown = |p: &Path| {
        if p.as_os_str().is_empty() {
            ".".to_string()
        } else {
            p.display().to_string()
        }
    };
    Some(MovedStore {
        baseline: workdir.join(&chosen).join(in_root),
        root: workdir.join(&chosen),
        from: shown(&chosen),
        to: shown(&now),
    })
}

/// The bytes of `path` at the base (at most 1 MiB); `None` when the base
/// cannot be read or has no such file.
pub fn file_at_base(base: &BaseRev, path: &Path) -> Option<Vec<u8>> {
    at(base, path).ok()?.filter(|bytes| bytes.len() <= 1 << 20)
}

/// The checks `suite_path` declares at `base.rev` (read from git objects)
/// and in the working copy, for spelling out parameter edits; `None` when
/// either side cannot be read or parsed (the edit is then shown by id).
pub fn declared_checks(
    base: &BaseRev,
    suite_path: &Path,
) -> Option<(Vec<DeclaredCheck>, Vec<DeclaredCheck>)> {
    let old = at(base, suite_path).ok()??;
    let new = std::fs::read(suite_path).ok()?;
    Some((checks_of(&old)?, checks_of(&new)?))
}

/// What the pull request changes about the evaluation against the base:
/// `[suite]` and `[target]` of `suite_path`, and the cases of the file each
/// side's `[suite] cases` names (relative to each side's suite file). A
/// suite file the base holds elsewhere (the pull request moved it: the
/// base's one suite file declaring the same tenant and name) is compared
/// with that one, and the move itemized; a suite file the base has
/// nowhere is itemized as added, never read as unchanged. `None` when
/// the base cannot be read or the suite file does not parse; a cases file
/// that cannot be read on one side counts as empty there, so its cases
/// read as added or removed.
pub fn evaluation_changes(base: &BaseRev, suite_path: &Path) -> Option<Vec<EvalChange>> {
    let new_bytes = std::fs::read(suite_path).ok()?;
    let new = suite_json(&new_bytes)?;
    let here = git_objects::in_work_tree(&base.dir, &absolute(suite_path));
    let shown = |p: &Path| p.display().to_string();
    let mut out = Vec::new();
    let (old, old_path) = match at(base, suite_path).ok()? {
        Some(bytes) => (suite_json(&bytes)?, absolute(suite_path)),
        None => match moved_suite(base, &new) {
            Some((workdir, from, bytes)) => {
                out.push(evaluation::suite_file_moved(
                    Some(shown(&from)),
                    here.as_deref().map_or_else(|| shown(suite_path), shown),
                ));
                (suite_json(&bytes)?, workdir.join(from))
            }
            None => {
                out.push(evaluation::suite_file_moved(
                    None,
                    here.as_deref().map_or_else(|| shown(suite_path), shown),
                ));
                return Some(out);
            }
        },
    };
    out.extend(evaluation::suite_changes(&old, &new));
    let cases_path = |suite: &serde_json::Map<String, serde_json::Value>, file: &Path| {
        let name = suite.get("suite")?.get("cases")?.as_str()?;
        Some(file.parent().unwrap_or(Path::new("")).join(name))
    };
    let parse = |bytes: Option<Vec<u8>>| -> Vec<serde_json::Value> {
        bytes
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    };
    let old_cases = cases_path(&old, &old_path).and_then(|p| at(base, &p).ok()?);
    let new_cases = cases_path(&new, suite_path).and_then(|p| std::fs::read(p).ok());
    out.extend(evaluation::case_changes(
        &parse(old_cases),
        &parse(new_cases),
    ));
    // The judge anchors: outside `config_hash`, so itemized here.
    let anchors_path = |suite: &serde_json::Map<String, serde_json::Value>, file: &Path| {
        let name = suite.get("suite")?.get("judge_anchors")?.as_str()?;
        Some(file.parent().unwrap_or(Path::new("")).join(name))
    };
    let old_anchors = anchors_path(&old, &old_path).and_then(|p| at(base, &p).ok()?);
    let new_anchors = anchors_path(&new, suite_path).and_then(|p| std::fs::read(p).ok());
    out.extend(evaluation::anchors_changed(
        old_anchors.as_deref(),
        new_anchors.as_deref(),
    ));
    Some(out)
}

/// The knobs `suite_path` declares in the working copy
/// (`core::evaluation::declared_knobs`), for a base that could not be read:
/// empty when the file cannot be read or parsed.
pub fn declared_knobs(suite_path: &Path) -> Vec<evaluation::Knob> {
    std::fs::read(suite_path)
        .ok()
        .and_then(|bytes| suite_json(&bytes))
        .map(|suite| evaluation::declared_knobs(&suite))
        .unwrap_or_default()
}

/// The base's suite file declaring the same `[suite] tenant` and `name` as
/// `now` (the one the pull request moved): the work tree, its path there
/// and its bytes; `None` unless exactly one file at the base does.
fn moved_suite(
    base: &BaseRev,
    now: &serde_json::Map<String, serde_json::Value>,
) -> Option<(PathBuf, PathBuf, Vec<u8>)> {
    let identity = |suite: &serde_json::Map<String, serde_json::Value>| {
        let table = suite.get("suite")?;
        Some((
            table.get("tenant")?.as_str()?.to_string(),
            table.get("name")?.as_str()?.to_string(),
        ))
    };
    let wanted = identity(now)?;
    let (workdir, files) = git_objects::files_ending(&base.dir, &base.rev, ".toml").ok()?;
    let mut found = files.into_iter().filter_map(|rel| {
        let bytes = at(base, &workdir.join(&rel)).ok()??;
        (bytes.len() <= 1 << 20
            && suite_json(&bytes).and_then(|s| identity(&s)) == Some(wanted.clone()))
        .then_some((rel, bytes))
    });
    let (rel, bytes) = found.next()?;
    found.next().is_none().then_some((workdir, rel, bytes))
}

/// A suite file's bytes as JSON (CR LF folded, as the loader reads it).
fn suite_json(bytes: &[u8]) -> Option<serde_json::Map<String, serde_json::Value>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let table: toml::Table = crate::host::crlf::fold_crlf(text).parse().ok()?;
    match serde_json::to_value(&table).ok()? {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The `[[assertions]]` of a suite file's bytes: reported name (`name`,
/// else `type`) and every other key as TOML writes its value.
fn checks_of(bytes: &[u8]) -> Option<Vec<DeclaredCheck>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let table: toml::Table = text.parse().ok()?;
    let Some(toml::Value::Array(list)) = table.get("assertions") else {
        return Some(Vec::new());
    };
    let mut out = Vec::new();
    for entry in list {
        let toml::Value::Table(check) = entry else {
            continue;
        };
        let name = check
            .get("name")
            .or_else(|| check.get("type"))
            .and_then(toml::Value::as_str)
            .unwrap_or_default()
            .to_string();
        let params = check
            .iter()
            .filter(|(k, _)| k.as_str() != "name" && k.as_str() != "type")
            .map(|(k, v)| {
                let shown = match v {
                    toml::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), shown)
            })
            .collect();
        out.push((name, params));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_event_base_sha_is_the_default_base_on_actions() {
        let mut env = CiEnv::default();
        env.github.actions = true;
        env.github.pull_request = Some(7);
        assert_eq!(choose(None, &env, Path::new(".")).unwrap().rev, "HEAD^1");
        let sha = "0123456789abcdef0123456789abcdef01234567";
        env.github.base_sha = Some(sha.into());
        let base = choose(None, &env, Path::new(".")).unwrap();
        assert_eq!((base.rev.as_str(), base.explicit), (sha, false));
        let named = choose(Some("main"), &env, Path::new(".")).unwrap();
        assert_eq!((named.rev.as_str(), named.explicit), ("main", true));
        assert_eq!(choose(None, &CiEnv::default(), Path::new(".")), None);
    }

    #[test]
    fn each_refusal_says_what_to_do_for_its_case() {
        let absent = AtRevError::Absent("x".into());
        let sha = "0123456789abcdef0123456789abcdef01234567";
        assert!(refusal(sha, &absent).contains(&format!("`git fetch --depth=1 origin {sha}`")));
        assert!(refusal("HEAD^1", &absent).contains("`fetch-depth: 2`"));
        let name = refusal("main", &absent);
        assert!(name.contains("nor origin/main"), "{name}");
        assert!(!name.contains("fetch-depth"), "{name}");
        let tree = refusal("HEAD^{tree}", &AtRevError::NotACommit("tree"));
        assert!(tree.contains("names a tree, not a commit"), "{tree}");
        assert!(!tree.contains("fetch"), "{tree}");
        let none = refusal("main", &AtRevError::NoRepository("no .git".into()));
        assert!(none.contains("leave --base-ref out"), "{none}");
    }

    #[test]
    fn line_ends_alone_do_not_replace_a_document() {
        assert!(same_text(
            b"{\n  \"a\": 1\n}\n",
            b"{\r\n  \"a\": 1\r\n}\r\n"
        ));
        assert!(!same_text(b"{\"a\": 1}\n", b"{\"a\": 2}\r\n"));
    }

    #[test]
    fn checks_of_reads_names_and_parameters() {
        let checks = checks_of(
            b"[[assertions]]\ntype = \"length\"\nmaximum = 40\n\n[[assertions]]\nname = \"tone\"\ntype = \"regex\"\npattern = '^a'\n",
        )
        .unwrap();
        assert_eq!(checks.len(), 2);
        assert_eq!(checks[0].0, "length");
        assert_eq!(checks[0].1.get("maximum").map(String::as_str), Some("40"));
        assert_eq!(checks[1].0, "tone");
        assert_eq!(checks[1].1.get("pattern").map(String::as_str), Some("^a"));
        assert!(!checks[1].1.contains_key("type"));
        assert!(checks_of(b"not = [toml").is_none());
    }
}
