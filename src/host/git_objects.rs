//! git, read as objects with `gix` (no `git` binary: the image has none):
//! a file as it was at another revision (the base ref's baseline), the
//! commit `HEAD` names, and whether a path is tracked by the index.
//!
//! Every answer is about the repository that holds the given directory. A
//! revision is anything `git rev-parse` accepts (`HEAD^1`, a sha, a branch).

use std::path::{Path, PathBuf};

/// Why a file could not be read at a revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AtRevError {
    /// The directory is not inside a git repository (or it has no work tree).
    NoRepository(String),
    /// The revision does not resolve to a commit present in this clone (a
    /// shallow clone without the base, a sha never fetched).
    Absent(String),
    /// The revision names an object that is not a commit (`tree`, `blob`).
    NotACommit(&'static str),
}

/// A revision resolved to a commit: its id, and the name it was resolved
/// through when git's branch rule applied (`main` → `origin/main`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The commit, 40 hex.
    pub commit: String,
    /// `origin/<name>` when a bare branch name was found only as the
    /// remote-tracking branch.
    pub via: Option<String>,
}

/// Resolves `rev` in the repository holding `dir` to a commit, as git
/// does: what `git rev-parse` accepts, else a bare branch name found only
/// as `origin/<name>` (a CI clone has no local branch of the base). A tag
/// is peeled to its commit; a tree or a blob is not a commit.
///
/// # Errors
/// [`AtRevError`]: not a repository, nothing of that name in this clone, or
/// an object that is not a commit.
pub fn resolve(dir: &Path, rev: &str) -> Result<Resolved, AtRevError> {
    let repo = gix::discover(dir).map_err(|e| AtRevError::NoRepository(one_line(&e)))?;
    resolve_in(&repo, rev)
}

fn resolve_in(repo: &gix::Repository, rev: &str) -> Result<Resolved, AtRevError> {
    let (id, via) = match repo.rev_parse_single(rev) {
        Ok(id) => (id.detach(), None),
        Err(e) => {
            let remote = format!("origin/{rev}");
            let plain = !rev.is_empty()
                && !rev.starts_with('-')
                && !rev.contains(['^', '~', ':', '@', ' ', '\\'])
                && !rev.contains("..");
            match plain
                .then(|| {
                    repo.rev_parse_single(format!("refs/remotes/{remote}").as_str())
                        .ok()
                })
                .flatten()
            {
                Some(id) => (id.detach(), Some(remote)),
                None => return Err(AtRevError::Absent(one_line(&e))),
            }
        }
    };
    let object = repo
        .find_object(id)
        .map_err(|e| AtRevError::Absent(one_line(&e)))?;
    let kind = object.kind;
    let commit = object.peel_to_commit().map_err(|_| {
        AtRevError::NotACommit(if kind.is_tree() {
            "tree"
        } else if kind.is_blob() {
            "blob"
        } else {
            "tag"
        })
    })?;
    Ok(Resolved {
        commit: commit.id.to_string(),
        via,
    })
}

/// The repository holding `dir`, and `path` relative to its work tree.
fn locate(dir: &Path, path: &Path) -> Result<(gix::Repository, PathBuf), AtRevError> {
    let repo = gix::discover(dir).map_err(|e| AtRevError::NoRepository(one_line(&e)))?;
    let workdir = repo
        .workdir()
        .ok_or_else(|| AtRevError::NoRepository("the repository has no work tree".into()))?;
    let workdir = workdir
        .canonicalize()
        .map_err(|e| AtRevError::NoRepository(e.to_string()))?;
    let absolute = absolute(dir, path);
    let relative = absolute
        .strip_prefix(&workdir)
        .map_err(|_| {
            AtRevError::NoRepository(format!(
                "{} is outside the repository at {}",
                absolute.display(),
                workdir.display()
            ))
        })?
        .to_path_buf();
    Ok((repo, relative))
}

/// `path` made absolute against `dir` and canonical as far as it exists
/// (the file itself may be absent: its directory is canonicalized).
fn absolute(dir: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    };
    if let Ok(real) = joined.canonicalize() {
        return real;
    }
    // Canonicalize the longest existing ancestor, then append the rest.
    let mut rest = Vec::new();
    let mut cur = joined.as_path();
    while let Some(parent) = cur.parent() {
        if let Some(name) = cur.file_name() {
            rest.push(name.to_os_string());
        }
        if let Ok(real) = parent.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        cur = parent;
    }
    joined
}

/// The bytes of `path` (relative to `dir`, or absolute) at revision `rev`;
/// `Ok(None)` when the file does not exist at that revision.
///
/// # Errors
/// [`AtRevError`]: not a repository, or the revision is not in this clone.
pub fn file_at(dir: &Path, rev: &str, path: &Path) -> Result<Option<Vec<u8>>, AtRevError> {
    let (repo, relative) = locate(dir, path)?;
    let resolved = resolve_in(&repo, rev)?;
    let id = gix::ObjectId::from_hex(resolved.commit.as_bytes())
        .map_err(|e| AtRevError::Absent(one_line(&e)))?;
    let commit = repo
        .find_commit(id)
        .map_err(|e| AtRevError::Absent(one_line(&e)))?;
    let tree = commit
        .tree()
        .map_err(|e| AtRevError::Absent(one_line(&e)))?;
    let Some(entry) = tree
        .lookup_entry_by_path(&relative)
        .map_err(|e| AtRevError::Absent(one_line(&e)))?
    else {
        return Ok(None);
    };
    let object = entry
        .object()
        .map_err(|e| AtRevError::Absent(one_line(&e)))?;
    if !object.kind.is_blob() {
        return Ok(None);
    }
    Ok(Some(object.data.clone()))
}

/// The most trees [`folders_holding`] reads: a repository of this many
/// folders is searched no further (the answer is then what was found).
const MAX_TREES: usize = 50_000;

/// The folders, at revision `rev`, that hold a folder named `name` with a
/// file at `inside` below it: their paths relative to the work tree
/// (empty for the top), in tree order, together with the work tree. Used
/// to find the store a base kept before a pull request moved it.
///
/// # Errors
/// [`AtRevError`]: not a repository, or the revision is not in this clone.
pub fn folders_holding(
    dir: &Path,
    rev: &str,
    name: &str,
    inside: &Path,
) -> Result<(PathBuf, Vec<PathBuf>), AtRevError> {
    let (repo, _) = locate(dir, Path::new("."))?;
    let workdir = repo
        .workdir()
        .ok_or_else(|| AtRevError::NoRepository("the repository has no work tree".into()))?
        .canonicalize()
        .map_err(|e| AtRevError::NoRepository(e.to_string()))?;
    let resolved = resolve_in(&repo, rev)?;
    let id = gix::ObjectId::from_hex(resolved.commit.as_bytes())
        .map_err(|e| AtRevError::Absent(one_line(&e)))?;
    let tree = repo
        .find_commit(id)
        .and_then(|c| c.tree())
        .map_err(|e| AtRevError::Absent(one_line(&e)))?;
    let mut found = Vec::new();
    let mut queue = std::collections::VecDeque::from([(PathBuf::new(), tree)]);
    let mut read = 0usize;
    while let Some((here, tree)) = queue.pop_front() {
        read += 1;
        if read > MAX_TREES {
            break;
        }
        for entry in tree.iter().filter_map(Result::ok) {
            if !entry.mode().is_tree() {
                continue;
            }
            let Ok(segment) = std::str::from_utf8(entry.filename()) else {
                continue;
            };
            let Ok(sub) = repo.find_tree(entry.object_id()) else {
                continue;
            };
            if segment == name {
                let blob = sub
                    .lookup_entry_by_path(inside)
                    .ok()
                    .flatten()
                    .is_some_and(|e| e.mode().is_blob());
                if blob {
                    found.push(here.clone());
                }
                continue;
            }
            queue.push_back((here.join(segment), sub));
        }
    }
    Ok((workdir, found))
}

/// `path` (relative to `dir`, or absolute) relative to the work tree of the
/// repository holding `dir`; `None` outside git or outside its work tree.
pub fn in_work_tree(dir: &Path, path: &Path) -> Option<PathBuf> {
    locate(dir, path).ok().map(|(_, relative)| relative)
}

/// The commit `HEAD` names, as 40 hex; `None` outside git or on an unborn branch.
pub fn head_commit(dir: &Path) -> Option<String> {
    let repo = gix::discover(dir).ok()?;
    let id = repo.head_id().ok()?;
    Some(id.to_string())
}

/// True when `path` (relative to `dir`, or absolute) is tracked by the index
/// of the repository holding `dir` (it was `git add`ed, forced or not).
/// False outside git.
pub fn is_tracked(dir: &Path, path: &Path) -> bool {
    let Ok((repo, relative)) = locate(dir, path) else {
        return false;
    };
    let Ok(index) = repo.index_or_empty() else {
        return false;
    };
    let Some(text) = relative.to_str() else {
        return false;
    };
    let key = text.replace(std::path::MAIN_SEPARATOR, "/");
    index.entry_by_path(key.as_str().into()).is_some()
}

/// The files under `folder` (relative to `dir`, or absolute) that the
/// index of the repository holding `dir` tracks, as paths relative to
/// `folder`. Empty outside git.
pub fn tracked_under(dir: &Path, folder: &Path) -> Vec<PathBuf> {
    use gix::bstr::ByteSlice;
    let Ok((repo, relative)) = locate(dir, folder) else {
        return Vec::new();
    };
    let Ok(index) = repo.index_or_empty() else {
        return Vec::new();
    };
    let Some(text) = relative.to_str() else {
        return Vec::new();
    };
    let prefix = format!("{}/", text.replace(std::path::MAIN_SEPARATOR, "/"));
    index
        .entries()
        .iter()
        .filter_map(|entry| {
            let path = entry.path(&index).to_str().ok()?;
            path.strip_prefix(prefix.as_str()).map(PathBuf::from)
        })
        .collect()
}

fn one_line(e: &impl std::fmt::Display) -> String {
    e.to_string().lines().next().unwrap_or("").to_string()
}
