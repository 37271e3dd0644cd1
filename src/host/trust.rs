//! The one trust rule for every file the gate reads from the workspace:
//! runs (`latest` included), baselines' neighbours, shard runs, re-ask
//! records, judge-memo entries and masked records. Anything that later
//! reads a record of its own from the workspace (a per-head record, a
//! history file under `.digline/`) asks here too, through one API:
//!
//! - [`Workspace::of`] — the workspace of a suite's root (`--root`, or
//!   the suite's repository): git is asked about the repository that
//!   *holds each file*, never the process's working directory;
//! - [`Workspace::check`] — may `file`, kept in the store area `area`, be
//!   read as digline's own? Every symbolic link on the way from `area` is
//!   resolved: one that leaves `area`, or that git tracks, and a file (or
//!   any folder or link above it, up to its repository's work tree) that
//!   git tracks, is refused as a [`Distrust`] naming the path. A
//!   committed file is written by the pull request being judged;
//! - [`seal`] — the key that seals the evidence the gate writes for itself
//!   (`core::seal`): `DIGLINE_EVIDENCE_KEY` when set (held only by a step
//!   that runs no code of the pull request), otherwise a key made for this
//!   process alone, so that evidence is believed only by the process that
//!   wrote it; [`believed_reasks`] reads a re-ask record only when it is
//!   both vouched for and sealed.
//!
//! What this defends and what it does not: `docs/reliability.md`
//! ("Threat model of the gate's workspace files").

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::git_objects;
use crate::core::document::RunDocument;
use crate::core::seal::Seal;
use crate::store::{Store, Vouch};

/// How far in the future a run may be dated (clock skew between machines).
pub const SKEW_SECONDS: i64 = 300;

/// The variable holding the key that seals the gate's evidence.
pub const EVIDENCE_KEY: &str = "DIGLINE_EVIDENCE_KEY";

/// Why a workspace file is not believed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Distrust {
    /// The file, or a link or file on its way, is tracked by git.
    Tracked {
        /// The tracked path.
        path: PathBuf,
    },
    /// A symbolic link on the way leads out of the store area (or nowhere).
    LeavesArea {
        /// The link.
        path: PathBuf,
        /// The area it should stay in.
        area: PathBuf,
    },
}

impl Distrust {
    /// The sentence naming the path and why: `what` names the file's role
    /// (`"the re-ask record"`).
    pub fn sentence(&self, what: &str) -> String {
        match self {
            Distrust::Tracked { path } => format!(
                "{what} is not read: {} is tracked by git, and a committed file can be written by the pull request being judged",
                path.display()
            ),
            Distrust::LeavesArea { path, area } => format!(
                "{what} is not read: {} is a symbolic link that leads out of {} (or nowhere), and a link can point the gate at a file the pull request wrote",
                path.display(),
                area.display()
            ),
        }
    }
}

/// The workspace of one suite root, with the indexes of the repositories
/// asked so far.
#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
    /// Folder (canonical) → the work tree of the repository holding it.
    repos: Mutex<HashMap<PathBuf, Option<PathBuf>>>,
    /// Work tree → the paths its index tracks.
    indexes: Mutex<HashMap<PathBuf, Arc<HashSet<PathBuf>>>>,
}

impl Workspace {
    /// The workspace whose store is `root/.digline` (`--root`).
    pub fn of(root: &Path) -> Workspace {
        Workspace {
            root: root.to_path_buf(),
            repos: Mutex::new(HashMap::new()),
            indexes: Mutex::new(HashMap::new()),
        }
    }

    /// The root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `Ok` when `file`, kept in the store area `area` (a folder under
    /// `.digline/`, or a shard directory), may be read as digline's own: no
    /// link on the way leaves `area`, and neither the file, nor what it
    /// resolves to, nor a folder or link above it is tracked by git. A
    /// file that does not exist is `Ok` (there is nothing to believe).
    ///
    /// # Errors
    /// The [`Distrust`] naming the path.
    pub fn check(&self, area: &Path, file: &Path) -> Result<(), Distrust> {
        // Paths as given (relative to the working directory, or absolute):
        // a sentence names them as the person wrote them.
        let leaves = |path: &Path| Distrust::LeavesArea {
            path: path.to_path_buf(),
            area: area.to_path_buf(),
        };
        let Ok(relative) = file.strip_prefix(area) else {
            return Err(leaves(file));
        };
        // What git tracks above the area (a committed `.digline` link…).
        self.refuse_tracked_above(&absolute(area))?;
        let Ok(area_real) = area.canonicalize() else {
            return Ok(());
        };
        let mut at = area.to_path_buf();
        for part in relative.components() {
            at.push(part);
            let Ok(meta) = std::fs::symlink_metadata(&at) else {
                return Ok(());
            };
            self.refuse_tracked(&at)?;
            if meta.file_type().is_symlink() {
                let real = at.canonicalize().map_err(|_| leaves(&at))?;
                if !real.starts_with(&area_real) {
                    return Err(leaves(&at));
                }
                self.refuse_tracked(&real)?;
            }
        }
        if let Ok(real) = file.canonicalize() {
            self.refuse_tracked(&real)?;
            // A folder where a file should be: what git tracks under it
            // (a committed `history/s.jsonl/x` would otherwise pass).
            if real.is_dir() {
                self.refuse_tracked_under(&real)?;
            }
        }
        Ok(())
    }

    /// Refuses the canonical folder `dir` when its repository tracks
    /// anything under it.
    fn refuse_tracked_under(&self, dir: &Path) -> Result<(), Distrust> {
        let Some(top) = self.work_tree(dir) else {
            return Ok(());
        };
        let Ok(relative) = dir.strip_prefix(&top) else {
            return Ok(());
        };
        if let Some(inside) = self.index(&top).iter().find(|p| p.starts_with(relative)) {
            return Err(Distrust::Tracked {
                path: top.join(inside),
            });
        }
        Ok(())
    }

    /// `area` and each folder above it, up to its repository's work tree.
    fn refuse_tracked_above(&self, area: &Path) -> Result<(), Distrust> {
        let mut at = Some(area);
        while let Some(path) = at {
            if path.as_os_str().is_empty() || self.at_work_tree(path) {
                break;
            }
            if std::fs::symlink_metadata(path).is_ok() {
                self.refuse_tracked(path)?;
            }
            at = path.parent();
        }
        Ok(())
    }

    /// True when `path` is the top of a repository's work tree (or of none).
    fn at_work_tree(&self, path: &Path) -> bool {
        match path.canonicalize() {
            Ok(real) => self.work_tree(&real).is_none_or(|top| top == real),
            Err(_) => false,
        }
    }

    /// Refuses `path` when the repository holding it tracks it.
    fn refuse_tracked(&self, path: &Path) -> Result<(), Distrust> {
        if self.tracked(path) {
            return Err(Distrust::Tracked {
                path: path.to_path_buf(),
            });
        }
        Ok(())
    }

    /// True when the repository holding `path`'s folder tracks `path`
    /// (the folder is resolved, the last name is not: a link is itself).
    fn tracked(&self, path: &Path) -> bool {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return false;
        };
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        let Ok(parent) = parent.canonicalize() else {
            return false;
        };
        let Some(top) = self.work_tree(&parent) else {
            return false;
        };
        let Ok(relative) = parent.join(name).strip_prefix(&top).map(Path::to_path_buf) else {
            return false;
        };
        self.index(&top).contains(&relative)
    }

    /// The work tree of the repository holding the canonical folder `dir`.
    fn work_tree(&self, dir: &Path) -> Option<PathBuf> {
        let mut repos = self.repos.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = repos.get(dir) {
            return known.clone();
        }
        let found = git_objects::index_paths(dir).map(|(top, paths)| {
            self.indexes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(top.clone())
                .or_insert_with(|| Arc::new(paths));
            top
        });
        repos.insert(dir.to_path_buf(), found.clone());
        found
    }

    fn index(&self, top: &Path) -> Arc<HashSet<PathBuf>> {
        self.indexes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(top)
            .cloned()
            .unwrap_or_default()
    }
}

impl Vouch for Workspace {
    fn vouches(&self, area: &Path, file: &Path) -> bool {
        match self.check(area, file) {
            Ok(()) => true,
            Err(why) => {
                tracing::warn!("{}", why.sentence("a judge memo entry"));
                false
            }
        }
    }
}

/// `path` made absolute against the working directory (lexically: links
/// are resolved by [`Workspace::check`], one by one).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The key that seals the gate's evidence: `DIGLINE_EVIDENCE_KEY` when it
/// is set (at least 16 bytes: a shorter one is no secret and is not
/// used), otherwise a key made for this process and never written down.
pub fn seal() -> Arc<Seal> {
    static SEAL: OnceLock<Arc<Seal>> = OnceLock::new();
    SEAL.get_or_init(|| {
        let key = evidence_key().unwrap_or_else(process_key);
        Arc::new(Seal::new(&key))
    })
    .clone()
}

/// True when the evidence key is set (evidence is believed across
/// processes, shards and later gates of the same run).
pub fn evidence_key_set() -> bool {
    evidence_key().is_some()
}

fn evidence_key() -> Option<Vec<u8>> {
    std::env::var(EVIDENCE_KEY)
        .ok()
        .map(String::into_bytes)
        .filter(|k| k.len() >= 16)
}

/// 32 bytes no other process can know: the standard library's per-process
/// random hash keys (drawn from the system), the process id and the clock.
fn process_key() -> Vec<u8> {
    use std::hash::{BuildHasher, Hasher};
    let mut material = Vec::new();
    for round in 0u64..8 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(round);
        material.extend_from_slice(&h.finish().to_le_bytes());
    }
    material.extend_from_slice(&std::process::id().to_le_bytes());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    material.extend_from_slice(&nanos.to_le_bytes());
    crate::core::identity::sha256_hex(&material, 32).into_bytes()
}

/// Refuses a run resolved from `latest` that is dated after now (beyond
/// [`SKEW_SECONDS`]) or that the workspace does not vouch for (tracked by
/// git, or reached through a link out of `runs/`). `which` is what the
/// user asked for: a run named by its key is a person's explicit choice
/// and is not refused. `run_file` is where the store keeps the run.
///
/// # Errors
/// The refusal sentence (the caller exits 64).
pub fn refuse_untrusted_latest(
    workspace: &Workspace,
    which: &str,
    key: &str,
    doc: &RunDocument,
    run_file: &Path,
) -> Result<(), String> {
    if which != crate::store::repo::LATEST {
        return Ok(());
    }
    refuse_future(key, &doc.created_at, OffsetDateTime::now_utc())?;
    let runs = run_file.parent().unwrap_or(Path::new("."));
    workspace.check(runs, run_file).map_err(|why| {
        format!(
            "{}; runs stay out of git (.digline/.gitignore) — remove it from the index, run the suite again, or name a run by its key",
            why.sentence(&format!("the newest run {key} (latest)"))
        )
    })
}

/// The re-asks a gate kept for run `key` (`store::reasks`), `None` when
/// there are none, when the workspace does not vouch for the record
/// (tracked, or linked out of its folder), or when it does not carry this
/// gate's seal ([`seal`]): a record written by anything else could excuse
/// any failure as a wobble. Without a record the comparison keeps 0.10.0's
/// rule, the stricter one, and a gate asks the failures again.
pub fn believed_reasks(
    workspace: &Workspace,
    store: &Store,
    tenant: &str,
    suite: &str,
    key: &str,
) -> Option<crate::core::compare::reask::ReaskRecord> {
    let path = store.run_reasks_path(tenant, suite, key).ok()?;
    let area = path.parent()?;
    if let Err(why) = workspace.check(area, &path) {
        tracing::warn!("{}", why.sentence("the re-ask record"));
        return None;
    }
    let record = store.read_sealed_run_reasks(tenant, suite, key);
    if record.is_none() && path.exists() {
        tracing::warn!(
            record = %path.display(),
            "the re-ask record carries no valid seal of this gate ({EVIDENCE_KEY}): it is not believed, and the failures are asked again"
        );
    }
    record
}

/// The head's tree and the name of the record the gates of that head keep
/// (`store::reruns`): the tree, the reference and the suite's
/// configuration, hashed together. `None` outside git (no head to carry
/// evidence for).
pub fn rerun_id(
    root: &Path,
    reference: &RunDocument,
    config_hash: &str,
) -> Option<(String, String)> {
    let tree = git_objects::head_tree(root)?;
    let text = format!(
        "{tree}\n{}\n{}\n{config_hash}",
        reference.created_at, reference.config_hash
    );
    let id = crate::core::identity::sha256_hex(text.as_bytes(), 16);
    Some((tree, id))
}

/// What earlier gates of this head decided (`store::reruns`), believed
/// only with the evidence key set ([`EVIDENCE_KEY`]: a process's own key
/// dies with it), when the workspace vouches for the file and the key
/// sealed it at its place: a record anything else wrote could call a
/// broken case "within noise" for every rerun.
pub fn believed_rerun(
    workspace: &Workspace,
    store: &Store,
    (tenant, suite): (&str, &str),
    id: &str,
) -> Option<crate::core::compare::reask::RerunRecord> {
    if !evidence_key_set() {
        return None;
    }
    let path = store.rerun_path(tenant, suite, id).ok()?;
    let area = path.parent()?;
    if let Err(why) = workspace.check(area, &path) {
        tracing::warn!(
            "{}",
            why.sentence("the record of this head's earlier gates")
        );
        return None;
    }
    let record = store.read_sealed_rerun(tenant, suite, id);
    if record.is_none() && path.exists() {
        tracing::warn!(
            record = %path.display(),
            "the record of this head's earlier gates carries no valid seal ({EVIDENCE_KEY}): it is not believed, and this gate starts afresh"
        );
    }
    record
}

/// The future-date refusal alone, against `now` (tests pass their own).
///
/// # Errors
/// The refusal sentence.
pub fn refuse_future(key: &str, created_at: &str, now: OffsetDateTime) -> Result<(), String> {
    let Ok(when) = OffsetDateTime::parse(created_at, &Rfc3339) else {
        return Err(format!(
            "the newest run {key} has a creation date that is not a date ({created_at:?}), so it is not gated as latest; run the suite again, or name a run by its key"
        ));
    };
    if (when - now).whole_seconds() > SKEW_SECONDS {
        return Err(format!(
            "the newest run {key} is dated {created_at}, after now ({}), so it is not gated as latest: a run from the future was written by hand or on a machine with a wrong clock; run the suite again, or name a run by its key",
            super::clock::iso(now)
        ));
    }
    Ok(())
}

/// A warning when the run records a commit other than the checkout's HEAD
/// (the run may not be the run of this change); `None` when they agree or
/// either is unknown.
pub fn commit_warning(key: &str, doc: &RunDocument, dir: &Path) -> Option<String> {
    let recorded = doc.git_commit.as_deref()?;
    let recorded_sha = recorded.trim_end_matches("-dirty");
    let head = git_objects::head_commit(dir)?;
    (recorded_sha != head).then(|| {
        format!(
            "the run {key} was made at commit {recorded}, but the checkout is at {head}: it may not be the run of this change"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git runs (the tests make repositories with it)");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    /// A repository with `.digline/t/memo/` and `.digline/t/forged/`.
    fn repo() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let memo = root.join(".digline/t/memo");
        std::fs::create_dir_all(memo.join("da")).unwrap();
        std::fs::create_dir_all(root.join(".digline/t/forged/da")).unwrap();
        git(&root, &["init", "-q"]);
        (dir, root, memo)
    }

    #[cfg(unix)]
    #[test]
    fn tracked_files_links_out_of_the_area_and_links_to_tracked_files_are_refused() {
        use std::os::unix::fs::symlink;
        let (_dir, root, memo) = repo();
        let ws = Workspace::of(&root);
        // Untracked, plain: believed; absent: nothing to believe.
        let entry = memo.join("da/one.json");
        std::fs::write(&entry, "{}").unwrap();
        assert_eq!(ws.check(&memo, &entry), Ok(()));
        assert_eq!(ws.check(&memo, &memo.join("da/none.json")), Ok(()));
        // Committed (forced past .gitignore): the pull request's.
        let tracked = memo.join("da/two.json");
        std::fs::write(&tracked, "{}").unwrap();
        git(&root, &["add", "-f", ".digline/t/memo/da/two.json"]);
        let ws = Workspace::of(&root);
        assert_eq!(
            ws.check(&memo, &tracked),
            Err(Distrust::Tracked {
                path: tracked.clone()
            })
        );
        // `memo/db -> ../forged/da`: leaves the memo.
        std::fs::write(root.join(".digline/t/forged/da/three.json"), "{}").unwrap();
        symlink("../forged/da", memo.join("db")).unwrap();
        let through = memo.join("db/three.json");
        assert_eq!(
            ws.check(&memo, &through),
            Err(Distrust::LeavesArea {
                path: memo.join("db"),
                area: memo.clone()
            })
        );
        // A link inside the memo to a tracked entry: the tracked entry.
        symlink("two.json", memo.join("da/four.json")).unwrap();
        assert_eq!(
            ws.check(&memo, &memo.join("da/four.json")),
            Err(Distrust::Tracked {
                path: tracked.canonicalize().unwrap()
            })
        );
        // A link to nowhere.
        symlink("/nowhere/at/all", memo.join("da/five.json")).unwrap();
        assert!(matches!(
            ws.check(&memo, &memo.join("da/five.json")),
            Err(Distrust::LeavesArea { .. })
        ));
        // A path outside the area is never inside it.
        assert!(matches!(
            ws.check(&memo, &root.join("x.json")),
            Err(Distrust::LeavesArea { .. })
        ));
        assert!(ws
            .check(&memo, &through)
            .unwrap_err()
            .sentence("a judge memo entry")
            .starts_with("a judge memo entry is not read: "));
    }

    #[cfg(unix)]
    #[test]
    fn the_repository_holding_the_file_decides_not_the_working_directory() {
        use std::os::unix::fs::symlink;
        let (_dir, root, memo) = repo();
        let entry = memo.join("da/one.json");
        std::fs::write(&entry, "{}").unwrap();
        git(&root, &["add", "-f", ".digline/t/memo/da/one.json"]);
        // The process's working directory (this crate's checkout) is not
        // the repository: the answer is the same from anywhere.
        let ws = Workspace::of(&root);
        assert!(matches!(
            ws.check(&memo, &entry),
            Err(Distrust::Tracked { .. })
        ));
        // A committed `memo/dc` link (even to an untracked folder inside
        // the memo) is the pull request's word.
        std::fs::create_dir_all(memo.join("dd")).unwrap();
        std::fs::write(memo.join("dd/six.json"), "{}").unwrap();
        symlink("dd", memo.join("dc")).unwrap();
        let ws = Workspace::of(&root);
        assert_eq!(ws.check(&memo, &memo.join("dc/six.json")), Ok(()));
        git(&root, &["add", "-f", ".digline/t/memo/dc"]);
        let ws = Workspace::of(&root);
        assert_eq!(
            ws.check(&memo, &memo.join("dc/six.json")),
            Err(Distrust::Tracked {
                path: memo.join("dc")
            })
        );
        // A committed `.digline` link above the area.
        let other = tempfile::tempdir().unwrap();
        let second = other.path().join("repo2");
        std::fs::create_dir_all(second.join("store/t/memo/da")).unwrap();
        std::fs::write(second.join("store/t/memo/da/seven.json"), "{}").unwrap();
        git(&second, &["init", "-q"]);
        symlink("store", second.join(".digline")).unwrap();
        git(&second, &["add", "-f", ".digline"]);
        let ws = Workspace::of(&second);
        let memo2 = second.join(".digline/t/memo");
        assert_eq!(
            ws.check(&memo2, &memo2.join("da/seven.json")),
            Err(Distrust::Tracked {
                path: second.join(".digline")
            })
        );
    }

    #[test]
    fn the_process_key_is_new_for_every_process_and_an_evidence_key_is_long() {
        assert_ne!(process_key(), process_key(), "drawn afresh");
        assert_eq!(process_key().len(), 64);
    }

    #[test]
    fn a_run_from_the_future_is_refused_and_skew_is_allowed() {
        let now = OffsetDateTime::parse("2026-12-01T12:00:00+00:00", &Rfc3339).unwrap();
        assert!(refuse_future("k", "2026-12-01T12:04:59+00:00", now).is_ok());
        assert!(refuse_future("k", "2026-11-30T12:00:00.5+00:00", now).is_ok());
        assert_eq!(
            refuse_future("k", "2026-12-01T12:10:00+00:00", now).unwrap_err(),
            "the newest run k is dated 2026-12-01T12:10:00+00:00, after now (2026-12-01T12:00:00+00:00), so it is not gated as latest: a run from the future was written by hand or on a machine with a wrong clock; run the suite again, or name a run by its key"
        );
        // An offset does not hide the future.
        assert!(refuse_future("k", "2026-12-02T01:00:00+12:00", now).is_err());
        assert!(refuse_future("k", "tomorrow", now).is_err());
    }
}
