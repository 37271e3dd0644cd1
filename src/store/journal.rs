//! The journal of an unfinished run: `runs/<suite>/.pending/<key>.<leg>.jsonl`.
//!
//! A run appends one compact JSON line per event (its header first, then
//! every answer and every finished case), each handed to the kernel with
//! one `write` before the run goes on, so a run stopped at any point —
//! Ctrl-C, SIGTERM, SIGKILL, a CI timeout — leaves what it had learnt. The
//! leg is flushed to the disk (`fsync`) every [`SYNC_EVERY`] records: a
//! machine that loses power loses at most that many answers, which a
//! resume asks again (an `fsync` per record cost 2–3 s of a 10,000-case
//! run, see `docs/performance.md`). Each start or resume of the run
//! writes a new *leg*, created exclusively with mode 0600: a leg that was
//! cut while a line was written ends in a torn line, which is ignored (only
//! the last line of a leg may be torn; anything else is refused), and is
//! never appended to again. When the run document is written, every leg
//! goes and `.pending/` too if it is empty.
//!
//! One run, one writer: the process that writes a run's journal holds an
//! advisory lock on `.pending/<key>.lock` (which holds its process id) for
//! as long as it runs ([`Store::lock_run`]); a second process — a `run
//! --resume` while the run is still going — is refused in one sentence
//! naming the live process, instead of asking the unanswered cases again
//! in parallel. The operating system drops the lock when the process ends
//! however it ends, so a killed run never leaves a lock that blocks a resume.
//!
//! This module knows files and lines; what the records mean is
//! `run::journal`'s business.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

use super::repo::is_safe_name;
use super::{Store, StoreError};

/// The journal directory's name under `runs/<suite>/`.
pub const PENDING: &str = ".pending";

/// Records appended between two flushes of a leg to the disk.
pub const SYNC_EVERY: usize = 64;

/// One leg open for appending.
#[derive(Debug)]
pub struct Leg {
    path: PathBuf,
    file: Mutex<LegFile>,
}

/// The open file and how many records it holds that are not yet on disk.
#[derive(Debug)]
pub struct LegFile {
    file: File,
    unsynced: usize,
}

impl LegFile {
    /// Flush what the leg holds to the disk now (the signal path does,
    /// holding the leg, before the process exits).
    ///
    /// # Errors
    /// The `fsync` error.
    pub fn sync(&mut self) -> std::io::Result<()> {
        self.file.sync_data()?;
        self.unsynced = 0;
        Ok(())
    }
}

impl Leg {
    /// The leg's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one record as a line, with one `write` (the kernel has it
    /// when this returns: a killed process loses nothing), and flush the
    /// leg to the disk every [`SYNC_EVERY`] records. Lines from several
    /// threads never interleave.
    ///
    /// # Errors
    /// [`StoreError::Io`] naming the leg.
    pub fn append(&self, record: &Value) -> Result<(), StoreError> {
        let mut line = serde_json::to_string(record)
            .map_err(|e| StoreError::Journal(format!("{}: {e}", self.path.display())))?;
        line.push('\n');
        let mut leg = self.hold();
        leg.file
            .write_all(line.as_bytes())
            .map_err(|e| StoreError::io(&self.path, e))?;
        leg.unsynced += 1;
        if leg.unsynced >= SYNC_EVERY {
            leg.file
                .sync_data()
                .map_err(|e| StoreError::io(&self.path, e))?;
            leg.unsynced = 0;
        }
        Ok(())
    }

    /// Hold the leg so no line is being written while the caller holds
    /// the guard (the signal path exits the process under it).
    pub fn hold(&self) -> std::sync::MutexGuard<'_, LegFile> {
        self.file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
impl Leg {
    /// A leg writing to `file` as it is (a test points it at `/dev/full`).
    pub(crate) fn on_file(path: PathBuf, file: File) -> Leg {
        Leg {
            path,
            file: Mutex::new(LegFile { file, unsynced: 0 }),
        }
    }
}

/// What a journal holds: its legs' records in order, torn tails left out.
#[derive(Clone, Debug, Default)]
pub struct Records {
    /// Every whole record, leg after leg.
    pub records: Vec<Value>,
    /// Legs found (the next leg's number).
    pub legs: u32,
    /// Legs whose last line was torn (cut while it was written).
    pub torn: u32,
}

/// The lock of a run being written: held until dropped (or the process ends).
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl Store {
    /// Take the lock of run `key` (see the module doc), creating
    /// `.pending/` if needed, and write this process's id into it.
    ///
    /// # Errors
    /// [`StoreError::Journal`] when another process holds it, naming that
    /// process; [`StoreError::Io`] when the lock file cannot be opened or locked.
    pub fn lock_run(&self, tenant: &str, suite: &str, key: &str) -> Result<RunLock, StoreError> {
        let dir = self.pending_dir(tenant, suite)?;
        std::fs::create_dir_all(&dir).map_err(|e| StoreError::io(&dir, e))?;
        let path = dir.join(lock_name(key)?);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| StoreError::io(&path, e))?;
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => {
                // The id only names the holder in a refusal: a disk too full
                // to take it costs the name ("another process"), not the lock.
                let _ = file
                    .set_len(0)
                    .and_then(|()| writeln!(file, "{}", std::process::id()));
                Ok(RunLock { _file: file })
            }
            Err(fs4::TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = std::io::Read::read_to_string(&mut file, &mut text);
                let holder = match text.trim().parse::<u32>() {
                    Ok(pid) => format!("process {pid}"),
                    Err(_) => "another process".to_string(),
                };
                Err(StoreError::Journal(format!(
                    "run {key} is still going: {holder} is writing its journal ({}), and a second writer would ask its cases again; wait for that process to end, or stop it, then resume",
                    path.display()
                )))
            }
            Err(fs4::TryLockError::Error(e)) => Err(StoreError::io(&path, e)),
        }
    }

    /// `<tenant>/runs/<suite>/.pending/`.
    ///
    /// # Errors
    /// [`StoreError::UnsafeName`].
    pub fn pending_dir(&self, tenant: &str, suite: &str) -> Result<PathBuf, StoreError> {
        Ok(self.runs_dir(tenant, suite)?.join(PENDING))
    }

    /// Start leg `leg` of run `key`, writing `header` as its first line.
    ///
    /// # Errors
    /// [`StoreError::Io`] when the leg exists already or cannot be written.
    pub fn start_leg(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
        leg: u32,
        header: &Value,
    ) -> Result<Leg, StoreError> {
        let dir = self.pending_dir(tenant, suite)?;
        let path = dir.join(leg_name(key, leg)?);
        self.place_inside(&path)?;
        // The header is written to a temporary file and linked into place
        // (never replacing one): a kill can leave no leg, or a leg that
        // starts with its header — never a leg without one.
        let mut line = serde_json::to_string(header)
            .map_err(|e| StoreError::Journal(format!("{}: {e}", path.display())))?;
        line.push('\n');
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-leg-")
            .tempfile_in(&dir)
            .map_err(|e| StoreError::io(&dir, e))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(|e| StoreError::io(&path, e))?;
        }
        tmp.write_all(line.as_bytes())
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(|e| StoreError::io(&path, e))?;
        tmp.persist_noclobber(&path)
            .map_err(|e| StoreError::io(&path, e.error))?;
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| StoreError::io(&path, e))?;
        Ok(Leg {
            path,
            file: Mutex::new(LegFile { file, unsynced: 0 }),
        })
    }

    /// The keys of the unfinished runs of a suite, oldest first (keys start
    /// with their time).
    ///
    /// # Errors
    /// [`StoreError::Io`] when `.pending/` exists but cannot be listed.
    pub fn pending_keys(&self, tenant: &str, suite: &str) -> Result<Vec<String>, StoreError> {
        let dir = self.pending_dir(tenant, suite)?;
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io(&dir, e)),
        };
        let mut keys: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|name| split_leg(&name).map(|(key, _)| key.to_string()))
            .collect();
        keys.sort();
        keys.dedup();
        Ok(keys)
    }

    /// Read every leg of run `key`, in leg order.
    ///
    /// # Errors
    /// [`StoreError::Journal`] when no leg exists, a line other than a leg's
    /// last is not a JSON object, or a leg is missing in the sequence;
    /// [`StoreError::Io`] when a leg cannot be read.
    pub fn read_journal(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
    ) -> Result<Records, StoreError> {
        let dir = self.pending_dir(tenant, suite)?;
        let mut legs: Vec<u32> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter_map(|name| match split_leg(&name) {
                    Some((k, leg)) if k == key => Some(leg),
                    _ => None,
                })
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(StoreError::io(&dir, e)),
        };
        legs.sort_unstable();
        if legs.is_empty() {
            return Err(StoreError::Journal(format!(
                "no unfinished run '{key}' of suite '{suite}' in tenant '{tenant}' ({} holds no journal for it)",
                dir.display()
            )));
        }
        let mut out = Records::default();
        for (expected, leg) in (0u32..).zip(&legs) {
            let path = dir.join(leg_name(key, *leg)?);
            if *leg != expected {
                return Err(StoreError::Journal(format!(
                    "the journal of run '{key}' lacks leg {expected} (found {}): it cannot be resumed; delete {} and run the suite again",
                    path.display(),
                    dir.display()
                )));
            }
            let bytes = std::fs::read(&path).map_err(|e| StoreError::io(&path, e))?;
            let (records, torn) = parse_leg(&path, &bytes)?;
            out.records.extend(records);
            out.torn += u32::from(torn);
        }
        out.legs = legs.len().try_into().unwrap_or(u32::MAX);
        Ok(out)
    }

    /// Remove every leg of run `key`, and `.pending/` when it is left empty.
    ///
    /// # Errors
    /// [`StoreError::Io`] when a leg cannot be removed.
    pub fn remove_journal(&self, tenant: &str, suite: &str, key: &str) -> Result<(), StoreError> {
        let dir = self.pending_dir(tenant, suite)?;
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(StoreError::io(&dir, e)),
        };
        for name in entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
        {
            if split_leg(&name).is_some_and(|(k, _)| k == key) || name == lock_name(key)? {
                let path = dir.join(&name);
                std::fs::remove_file(&path).map_err(|e| StoreError::io(&path, e))?;
            }
        }
        // Not empty (another unfinished run) is fine: it stays.
        let _ = std::fs::remove_dir(&dir);
        Ok(())
    }
}

/// `<key>.<leg>.jsonl`, the key checked.
fn leg_name(key: &str, leg: u32) -> Result<String, StoreError> {
    if is_safe_name(key) {
        Ok(format!("{key}.{leg}.jsonl"))
    } else {
        Err(StoreError::UnsafeName {
            kind: "run key",
            value: key.to_string(),
        })
    }
}

/// `<key>.lock`, the key checked.
fn lock_name(key: &str) -> Result<String, StoreError> {
    if is_safe_name(key) {
        Ok(format!("{key}.lock"))
    } else {
        Err(StoreError::UnsafeName {
            kind: "run key",
            value: key.to_string(),
        })
    }
}

/// `(key, leg)` of a leg's file name.
fn split_leg(name: &str) -> Option<(&str, u32)> {
    let stem = name.strip_suffix(".jsonl")?;
    let (key, leg) = stem.rsplit_once('.')?;
    let leg = leg.parse().ok()?;
    is_safe_name(key).then_some((key, leg))
}

/// The whole records of one leg and whether its last line was torn.
fn parse_leg(path: &Path, bytes: &[u8]) -> Result<(Vec<Value>, bool), StoreError> {
    let mut records = Vec::new();
    let mut torn = false;
    let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        let whole = line.ends_with(b"\n");
        match serde_json::from_slice::<Value>(line) {
            Ok(value @ Value::Object(_)) if whole => records.push(value),
            _ if last => torn = true,
            _ => {
                return Err(StoreError::Journal(format!(
                    "{} line {} is not a journal record, and only a leg's last line may be cut short: the journal cannot be resumed; delete it and run the suite again",
                    path.display(),
                    i + 1
                )))
            }
        }
    }
    Ok((records, torn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &str = "2026-01-01T00-00-00-00-00-0123456789abcdef";

    #[test]
    fn legs_append_read_and_go() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let leg = store
            .start_leg("t", "s", KEY, 0, &json!({"kind": "header"}))
            .unwrap();
        leg.append(&json!({"kind": "case", "n": 1})).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(leg.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(
            store.start_leg("t", "s", KEY, 0, &json!({})).is_err(),
            "a leg is written once"
        );
        // A torn last line (cut mid-write) is ignored.
        std::fs::OpenOptions::new()
            .append(true)
            .open(leg.path())
            .unwrap()
            .write_all(b"{\"kind\": \"ca")
            .unwrap();
        let leg1 = store
            .start_leg("t", "s", KEY, 1, &json!({"kind": "header"}))
            .unwrap();
        leg1.append(&json!({"kind": "case", "n": 2})).unwrap();
        assert_eq!(store.pending_keys("t", "s").unwrap(), vec![KEY.to_string()]);
        let read = store.read_journal("t", "s", KEY).unwrap();
        assert_eq!((read.legs, read.torn, read.records.len()), (2, 1, 4));
        assert_eq!(read.records[3]["n"], 2);
        store.remove_journal("t", "s", KEY).unwrap();
        assert!(!store.pending_dir("t", "s").unwrap().exists());
        assert!(store.pending_keys("t", "s").unwrap().is_empty());
        let err = store.read_journal("t", "s", KEY).unwrap_err().to_string();
        assert!(err.contains("no unfinished run"), "{err}");
    }

    #[test]
    fn every_record_is_readable_at_once_whether_or_not_flushed_to_disk() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let leg = store
            .start_leg("t", "s", KEY, 0, &json!({"kind": "header"}))
            .unwrap();
        // Across two flushes and into a third batch: each record is read
        // back as soon as `append` returns (what a killed run leaves).
        for n in 0..(2 * SYNC_EVERY + 3) {
            leg.append(&json!({"kind": "case", "n": n})).unwrap();
            let read = store.read_journal("t", "s", KEY).unwrap();
            assert_eq!(read.records.len(), n + 2, "after record {n}");
            assert_eq!(read.records[n + 1]["n"], n);
        }
        assert_eq!(leg.hold().unsynced, 3);
        leg.hold().sync().unwrap();
        assert_eq!(leg.hold().unsynced, 0);
    }

    #[test]
    fn a_torn_line_before_the_last_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let leg = store
            .start_leg("t", "s", KEY, 0, &json!({"kind": "header"}))
            .unwrap();
        std::fs::write(
            leg.path(),
            b"{\"kind\":\"header\"}\n{\"ki\n{\"kind\":\"case\"}\n",
        )
        .unwrap();
        let err = store.read_journal("t", "s", KEY).unwrap_err().to_string();
        assert!(err.contains("line 2 is not a journal record"), "{err}");
    }

    #[test]
    fn a_missing_leg_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        store
            .start_leg("t", "s", KEY, 1, &json!({"kind": "header"}))
            .unwrap();
        let err = store.read_journal("t", "s", KEY).unwrap_err().to_string();
        assert!(err.contains("lacks leg 0"), "{err}");
    }
}
