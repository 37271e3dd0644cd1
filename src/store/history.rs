//! Where the CI keeps its base branch's gates (`core::history`), one JSON
//! line per gate:
//!
//! ```text
//! <root>/.digline/<tenant>/history/<suite>.jsonl
//! ```
//!
//! The folder ignores itself in git (a `.gitignore` of `*`): the history
//! travels in the CI's cache, never in a commit. It is read only as a
//! regular file inside the store of at most [`MAX_BYTES`]; anything else
//! reads as no history. It is rewritten whole and atomically, keeping its
//! last N lines.

use std::path::PathBuf;

use crate::core::history::{appended, Line};

use super::atomic::write_atomic;
use super::repo::safe;
use super::{Store, StoreError};

/// The largest history read (200 gates of 10,000 cases, a fifth failing, fit).
pub const MAX_BYTES: u64 = 256 << 20;

impl Store {
    /// `<tenant>/history/<suite>.jsonl`.
    ///
    /// # Errors
    /// An unsafe name.
    pub fn history_path(&self, tenant: &str, suite: &str) -> Result<PathBuf, StoreError> {
        Ok(self
            .dir()
            .join(safe("tenant", tenant)?)
            .join("history")
            .join(format!("{}.jsonl", safe("suite", suite)?)))
    }

    /// The history's text; `None` when there is none, or it is not a regular
    /// file inside the store of at most [`MAX_BYTES`].
    pub fn read_history(&self, tenant: &str, suite: &str) -> Option<String> {
        let path = self.history_path(tenant, suite).ok()?;
        let meta = std::fs::symlink_metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > MAX_BYTES {
            return None;
        }
        self.place_inside(&path).ok()?;
        std::fs::read_to_string(&path).ok()
    }

    /// Append `line` to the history, keeping its last `keep` lines.
    ///
    /// # Errors
    /// An unsafe name, a folder that leaves the store, or the file cannot be written.
    pub fn append_history(
        &self,
        tenant: &str,
        suite: &str,
        line: &Line,
        keep: usize,
    ) -> Result<(), StoreError> {
        let path = self.history_path(tenant, suite)?;
        if let Some(folder) = path.parent() {
            self.ignore_folder(folder)?;
        }
        self.place_inside(&path)?;
        let old = self.read_history(tenant, suite).unwrap_or_default();
        write_atomic(&path, appended(&old, line, keep).as_bytes(), 0o644)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(at: &str) -> Line {
        Line {
            v: 1,
            at: at.into(),
            commit: None,
            reference: "r".into(),
            reference_config: "h".into(),
            config: "h".into(),
            exit: 0,
            usd: None,
            checks: vec![("answer".into(), 1, 1)],
            flagged: vec![],
        }
    }

    #[test]
    fn the_history_is_appended_bounded_and_ignored_by_git() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        assert!(store.read_history("t", "s").is_none());
        for day in 1..=4 {
            store
                .append_history("t", "s", &line(&format!("2026-12-0{day}T00:00:00Z")), 2)
                .unwrap();
        }
        let path = store.history_path("t", "s").unwrap();
        assert!(
            path.ends_with(".digline/t/history/s.jsonl"),
            "{}",
            path.display()
        );
        let text = store.read_history("t", "s").unwrap();
        assert_eq!(text.lines().count(), 2);
        assert!(text.starts_with(r#"{"v":1,"at":"2026-12-03"#), "{text}");
        let ignore = std::fs::read_to_string(path.parent().unwrap().join(".gitignore")).unwrap();
        assert!(ignore.ends_with("*\n"));
    }

    #[test]
    fn a_history_that_is_a_link_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let path = store.history_path("t", "s").unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let elsewhere = dir.path().join("elsewhere.jsonl");
        std::fs::write(&elsewhere, line("2026-12-01T00:00:00Z").to_json()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        assert!(store.read_history("t", "s").is_none());
    }
}
