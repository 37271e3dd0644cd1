//! Where a run's failed-call timings ([`FailedCalls`]) are kept: beside the
//! documents, never in them (schema-10 documents keep digline 0.10.0's
//! bytes, which record no time for a call that failed):
//!
//! ```text
//! <root>/.digline/<tenant>/timings/runs/<suite>/<key>.json   written with the run, when a call failed
//! ```
//!
//! A missing or unreadable record is "not recorded" (runs made by 0.10.0,
//! runs where no call failed): the cause is then shown without its time.

use std::path::PathBuf;

use crate::core::failed_calls::FailedCalls;

use super::atomic::write_atomic;
use super::layout::Store;
use super::spend::segment;
use super::StoreError;

impl Store {
    /// `<tenant>/timings/runs/<suite>/<key>.json`.
    ///
    /// # Errors
    /// An unsafe tenant, suite or key.
    pub fn run_timings_path(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
    ) -> Result<PathBuf, StoreError> {
        Ok(self
            .dir()
            .join(segment("tenant", tenant)?)
            .join("timings")
            .join("runs")
            .join(segment("suite", suite)?)
            .join(format!("{}.json", segment("run key", key)?)))
    }

    /// Record run `key`'s failed calls (nothing is written when none failed).
    ///
    /// # Errors
    /// An unsafe name, or the file cannot be written.
    pub fn write_run_timings(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
        failed: &FailedCalls,
    ) -> Result<(), StoreError> {
        if failed.is_empty() {
            return Ok(());
        }
        let path = self.run_timings_path(tenant, suite, key)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
        }
        let mut text = serde_json::to_string_pretty(failed).unwrap_or_default();
        text.push('\n');
        write_atomic(&path, text.as_bytes(), 0o644)
    }

    /// Run `key`'s failed calls; empty when not recorded or unreadable.
    pub fn read_run_timings(&self, tenant: &str, suite: &str, key: &str) -> FailedCalls {
        self.run_timings_path(tenant, suite, key)
            .ok()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_beside_the_documents_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let mut failed = FailedCalls::default();
        store.write_run_timings("t", "s", "k1", &failed).unwrap();
        assert!(
            !dir.path().join(".digline/t/timings").exists(),
            "none failed: no file"
        );
        failed.elapsed_ms.insert("c1".into(), 42);
        store.write_run_timings("t", "s", "k1", &failed).unwrap();
        let path = dir.path().join(".digline/t/timings/runs/s/k1.json");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"elapsed_ms\": {\n    \"c1\": 42\n  }\n}\n"
        );
        assert_eq!(store.read_run_timings("t", "s", "k1"), failed);
        assert!(store.read_run_timings("t", "s", "k2").is_empty());
        std::fs::write(&path, "not json").unwrap();
        assert!(store.read_run_timings("t", "s", "k1").is_empty());
        assert!(store.run_timings_path("../x", "s", "k").is_err());
        assert!(store.write_run_timings("t", "s", "../k", &failed).is_err());
    }
}
