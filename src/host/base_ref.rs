//! The base ref: the approved reference as the pull request's base has it,
//! read from git objects (no `git` binary). It tells whether the pull
//! request replaces the baseline file, and gives the base's baseline so the
//! gate can say what the run gives up against it (spec `50-gate.md`).

use std::path::Path;

use super::env::CiEnv;
use super::git_objects::{self, AtRevError};
use crate::core::compare::DeclaredCheck;
use crate::core::document::RunDocument;

/// Which revision is the base, and whether a person named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseRev {
    /// A revision `git rev-parse` accepts.
    pub rev: String,
    /// True when given as `--base-ref` (a failure to read it refuses, 64).
    pub explicit: bool,
}

/// `--base-ref` when given; else on GitHub Actions for a pull request the
/// merge commit's first parent (`HEAD^1`), on GitLab for a merge request
/// `CI_MERGE_REQUEST_DIFF_BASE_SHA`; else none.
pub fn choose(flag: Option<&str>, env: &CiEnv) -> Option<BaseRev> {
    if let Some(rev) = flag {
        return Some(BaseRev {
            rev: rev.to_string(),
            explicit: true,
        });
    }
    if env.github.actions && env.github.pull_request.is_some() {
        return Some(BaseRev {
            rev: "HEAD^1".into(),
            explicit: false,
        });
    }
    env.gitlab.diff_base_sha.as_ref().map(|sha| BaseRev {
        rev: sha.clone(),
        explicit: false,
    })
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
    let here = Path::new(".");
    let problem = |sentence: String| BaseProblem {
        sentence,
        refuses: base.explicit,
    };
    let old = match git_objects::file_at(here, &base.rev, baseline_path) {
        Ok(bytes) => bytes,
        Err(AtRevError::Absent(_)) => {
            return Err(problem(format!(
                "the base commit {} is not in this clone, so the approved reference it holds could not be read: fetch it (on GitHub, actions/checkout with `fetch-depth: 2`; on GitLab, a `GIT_DEPTH` that reaches the merge request's base)",
                base.rev
            )))
        }
        Err(AtRevError::NoRepository(why)) => {
            return Err(problem(format!(
                "the base ref {} could not be read because this directory is not a git checkout ({why})",
                base.rev
            )))
        }
    };
    let new = std::fs::read(baseline_path).ok();
    match (old, new) {
        (None, None) => Ok(BaseBaseline::Same),
        (Some(a), Some(b)) if a == b => Ok(BaseBaseline::Same),
        (None, Some(_)) => Ok(BaseBaseline::Replaced(None)),
        (Some(bytes), _) => {
            let shown = format!("{}:{}", base.rev, baseline_path.display());
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

/// The bytes of `path` at the base (at most 1 MiB); `None` when the base
/// cannot be read or has no such file.
pub fn file_at_base(base: &BaseRev, path: &Path) -> Option<Vec<u8>> {
    git_objects::file_at(Path::new("."), &base.rev, path)
        .ok()?
        .filter(|bytes| bytes.len() <= 1 << 20)
}

/// The checks `suite_path` declares at `base.rev` (read from git objects)
/// and in the working copy, for spelling out parameter edits; `None` when
/// either side cannot be read or parsed (the edit is then shown by id).
pub fn declared_checks(
    base: &BaseRev,
    suite_path: &Path,
) -> Option<(Vec<DeclaredCheck>, Vec<DeclaredCheck>)> {
    let old = git_objects::file_at(Path::new("."), &base.rev, suite_path).ok()??;
    let new = std::fs::read(suite_path).ok()?;
    Some((checks_of(&old)?, checks_of(&new)?))
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
