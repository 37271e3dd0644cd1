//! git, read as objects with `gix` (no `git` binary: the image has none):
//! a file as it was at another revision (the base ref's baseline), the
//! commit `HEAD` names, and the paths the index tracks (read by
//! `host::trust`, the one place that decides what a file is worth).
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
    // As the tree names it: links below the work tree are not followed
    // (a linked `cases.json` or `.digline` is read at the base through
    // the base's own link, by [`file_at`]).
    if let Some(relative) = lexical_in(&workdir, dir, path) {
        return Ok((repo, relative));
    }
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

/// `path` (against `dir`) relative to `workdir` without resolving a link
/// below it: the nearest folder above the path that *is* the work tree
/// (once resolved) is stripped, `..` taken lexically.
fn lexical_in(workdir: &Path, dir: &Path, path: &Path) -> Option<PathBuf> {
    let joined = std::path::absolute(dir.join(path)).ok()?;
    let normal = normalize(&joined)?;
    normal
        .ancestors()
        .find(|a| a.canonicalize().is_ok_and(|real| real == workdir))
        .and_then(|top| normal.strip_prefix(top).ok())
        .map(Path::to_path_buf)
}

/// `path` with `.` dropped and `..` taken lexically; `None` when a `..`
/// climbs above its start.
fn normalize(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
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
    // A symbolic link in the tree is followed inside the tree (a few hops,
    // never above its top), as a checkout of that revision would.
    let mut wanted = relative;
    'hops: for _ in 0..MAX_LINK_HOPS {
        let parts: Vec<_> = wanted.components().collect();
        let mut at = PathBuf::new();
        for (i, part) in parts.iter().enumerate() {
            at.push(part);
            let Some(entry) = tree
                .lookup_entry_by_path(&at)
                .map_err(|e| AtRevError::Absent(one_line(&e)))?
            else {
                return Ok(None);
            };
            let mode = entry.mode();
            if mode.is_link() {
                let object = entry
                    .object()
                    .map_err(|e| AtRevError::Absent(one_line(&e)))?;
                let target = PathBuf::from(String::from_utf8_lossy(&object.data).into_owned());
                if target.is_absolute() {
                    return Ok(None);
                }
                let rest: PathBuf = parts[i + 1..].iter().collect();
                let base = at.parent().unwrap_or(Path::new(""));
                let Some(next) = normalize(&Path::new("/").join(base).join(target).join(rest))
                else {
                    return Ok(None);
                };
                wanted = next.strip_prefix("/").unwrap_or(&next).to_path_buf();
                continue 'hops;
            }
            if i + 1 == parts.len() {
                let object = entry
                    .object()
                    .map_err(|e| AtRevError::Absent(one_line(&e)))?;
                if !object.kind.is_blob() {
                    return Ok(None);
                }
                return Ok(Some(object.data.clone()));
            }
        }
        return Ok(None);
    }
    Ok(None)
}

/// The most symbolic links [`file_at`] follows for one file.
const MAX_LINK_HOPS: usize = 8;

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
    let (repo, workdir) = repository_with_work_tree(dir)?;
    let tree = tree_at(&repo, rev)?;
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

/// The repository holding `dir` and its work tree, canonical.
fn repository_with_work_tree(dir: &Path) -> Result<(gix::Repository, PathBuf), AtRevError> {
    let (repo, _) = locate(dir, Path::new("."))?;
    let workdir = repo
        .workdir()
        .ok_or_else(|| AtRevError::NoRepository("the repository has no work tree".into()))?
        .canonicalize()
        .map_err(|e| AtRevError::NoRepository(e.to_string()))?;
    Ok((repo, workdir))
}

/// The tree of the commit `rev` names in `repo`.
fn tree_at<'r>(repo: &'r gix::Repository, rev: &str) -> Result<gix::Tree<'r>, AtRevError> {
    let resolved = resolve_in(repo, rev)?;
    let id = gix::ObjectId::from_hex(resolved.commit.as_bytes())
        .map_err(|e| AtRevError::Absent(one_line(&e)))?;
    repo.find_commit(id)
        .and_then(|c| c.tree())
        .map_err(|e| AtRevError::Absent(one_line(&e)))
}

/// The most files [`files_ending`] returns.
const MAX_FILES: usize = 500;

/// The files at revision `rev` whose names end with `suffix` (`.toml`),
/// relative to the work tree of the repository holding `dir`, in tree
/// order (at most [`MAX_FILES`], searching at most `MAX_TREES` folders),
/// together with the work tree. Used to find a suite file a pull request
/// moved.
///
/// # Errors
/// [`AtRevError`]: not a repository, or the revision is not in this clone.
pub fn files_ending(
    dir: &Path,
    rev: &str,
    suffix: &str,
) -> Result<(PathBuf, Vec<PathBuf>), AtRevError> {
    let (repo, workdir) = repository_with_work_tree(dir)?;
    let tree = tree_at(&repo, rev)?;
    let mut found = Vec::new();
    let mut queue = std::collections::VecDeque::from([(PathBuf::new(), tree)]);
    let mut read = 0usize;
    while let Some((here, tree)) = queue.pop_front() {
        read += 1;
        if read > MAX_TREES || found.len() >= MAX_FILES {
            break;
        }
        for entry in tree.iter().filter_map(Result::ok) {
            let Ok(name) = std::str::from_utf8(entry.filename()) else {
                continue;
            };
            if entry.mode().is_tree() {
                if let Ok(sub) = repo.find_tree(entry.object_id()) {
                    queue.push_back((here.join(name), sub));
                }
            } else if entry.mode().is_blob() && name.ends_with(suffix) {
                found.push(here.join(name));
            }
        }
    }
    found.truncate(MAX_FILES);
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

/// The tree `HEAD`'s commit holds, as hex; `None` outside git or on an
/// unborn branch. Two commits with the same content share it.
pub fn head_tree(dir: &Path) -> Option<String> {
    let repo = gix::discover(dir).ok()?;
    let commit = repo.head_commit().ok()?;
    Some(commit.tree_id().ok()?.to_string())
}

/// The work tree of the repository holding `dir` (canonical) and every
/// path its index tracks, relative to that work tree; `None` outside git.
pub fn index_paths(dir: &Path) -> Option<(PathBuf, std::collections::HashSet<PathBuf>)> {
    use gix::bstr::ByteSlice;
    let repo = gix::discover(dir).ok()?;
    let workdir = repo.workdir()?.canonicalize().ok()?;
    let index = repo.index_or_empty().ok()?;
    let paths = index
        .entries()
        .iter()
        .filter_map(|entry| entry.path(&index).to_str().ok().map(PathBuf::from))
        .collect();
    Some((workdir, paths))
}

fn one_line(e: &impl std::fmt::Display) -> String {
    e.to_string().lines().next().unwrap_or("").to_string()
}
