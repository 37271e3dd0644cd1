//! Where a gate's re-asks are kept: beside the run, never in it (a
//! schema-10 document keeps digline 0.10.0's bytes):
//!
//! ```text
//! <root>/.digline/<tenant>/reasks/runs/<suite>/<key>.json
//! ```
//!
//! The record holds the evidence only (each re-ask failed again or not)
//! and the reference it was made against; `compare`, MCP and a later gate
//! of the same run recompute the verdicts from it with the same code
//! (`core::compare::reask`). A missing or unreadable record is "not
//! re-asked": the comparison keeps 0.10.0's rule.

use crate::core::compare::reask::ReaskRecord;

use super::{Store, StoreError};

/// The record kind, the folder under the tenant.
const KIND: &str = "reasks";

impl Store {
    /// Keep the re-asks of run `key`.
    ///
    /// # Errors
    /// An unsafe name, or the file cannot be written.
    pub fn write_run_reasks(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
        record: &ReaskRecord,
    ) -> Result<(), StoreError> {
        let path = self.run_record_path(KIND, tenant, suite, key)?;
        if let Some(runs) = path.parent().and_then(|p| p.parent()) {
            self.ignore_folder(runs)?;
        }
        self.write_record(&path, record)
    }

    /// Where the re-asks of run `key` are kept.
    ///
    /// # Errors
    /// An unsafe name.
    pub fn run_reasks_path(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
    ) -> Result<std::path::PathBuf, StoreError> {
        self.run_record_path(KIND, tenant, suite, key)
    }

    /// The re-asks of run `key`, `None` when there are none.
    pub fn read_run_reasks(&self, tenant: &str, suite: &str, key: &str) -> Option<ReaskRecord> {
        self.read_record(&self.run_record_path(KIND, tenant, suite, key).ok()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::compare::reask::Reasked;

    #[test]
    fn a_record_is_written_beside_the_run_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        assert!(store.read_run_reasks("t", "s", "k").is_none());
        let record = ReaskRecord {
            reference_created_at: "2026-01-01T00:00:00+00:00".into(),
            reference_config_hash: "0123456789abcdef".into(),
            false_alarm_rate: 0.05,
            exposed: 3,
            attempt: 1,
            carried: Vec::new(),
            pairs: vec![Reasked {
                case_id: "c".into(),
                assertion_id: "a".into(),
                occurrence: 0,
                failed: vec![true, false],
            }],
        };
        store.write_run_reasks("t", "s", "k", &record).unwrap();
        assert_eq!(store.read_run_reasks("t", "s", "k"), Some(record));
        assert!(dir.path().join(".digline/t/reasks/runs/s/k.json").is_file());
        assert!(store
            .write_run_reasks(
                "t",
                "../s",
                "k",
                &store.read_run_reasks("t", "s", "k").unwrap()
            )
            .is_err());
    }
}
