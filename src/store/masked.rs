//! Where a run's [`MaskedRecord`] is kept: beside the run, never in it (a
//! schema-10 document keeps digline 0.10.0's bytes):
//!
//! ```text
//! <root>/.digline/<tenant>/masked/runs/<suite>/<key>.json
//! ```
//!
//! Written only when some case's kept answers had a secret masked. A
//! missing or unreadable record is "none recorded" (no answer was masked,
//! or the run was made by 0.10.0, an earlier release, or merged from
//! shards): `rejudge` then grades the recorded answers as they are kept.

use crate::core::masked::MaskedRecord;

use super::{Store, StoreError};

/// The record kind, the folder under the tenant.
const KIND: &str = "masked";

impl Store {
    /// Keep which cases of run `key` had answers masked (nothing is
    /// written for an empty record).
    ///
    /// # Errors
    /// An unsafe name, or the file cannot be written.
    pub fn write_run_masked(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
        record: &MaskedRecord,
    ) -> Result<(), StoreError> {
        if record.is_empty() {
            return Ok(());
        }
        let path = self.run_record_path(KIND, tenant, suite, key)?;
        if let Some(runs) = path.parent().and_then(|p| p.parent()) {
            self.ignore_folder(runs)?;
        }
        self.write_record(&path, record)
    }

    /// Where the masked cases of run `key` are kept.
    ///
    /// # Errors
    /// An unsafe name.
    pub fn run_masked_path(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
    ) -> Result<std::path::PathBuf, StoreError> {
        self.run_record_path(KIND, tenant, suite, key)
    }

    /// Which cases of run `key` had answers masked; empty when none is
    /// recorded.
    pub fn read_run_masked(&self, tenant: &str, suite: &str, key: &str) -> MaskedRecord {
        self.run_record_path(KIND, tenant, suite, key)
            .ok()
            .and_then(|path| self.read_record(&path))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::masked::MaskedCase;

    #[test]
    fn a_record_is_written_beside_the_run_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        assert!(store.read_run_masked("t", "s", "k").is_empty());
        store
            .write_run_masked("t", "s", "k", &MaskedRecord::default())
            .unwrap();
        assert!(!dir.path().join(".digline/t/masked").exists());
        let record = MaskedRecord {
            cases: vec![MaskedCase {
                case_id: "c".into(),
                graded_against: "0123456789abcdef".into(),
            }],
        };
        store.write_run_masked("t", "s", "k", &record).unwrap();
        assert_eq!(store.read_run_masked("t", "s", "k"), record);
        assert!(dir.path().join(".digline/t/masked/runs/s/k.json").is_file());
        assert!(dir
            .path()
            .join(".digline/t/masked/runs/.gitignore")
            .is_file());
        assert!(store.write_run_masked("t", "../s", "k", &record).is_err());
    }
}
