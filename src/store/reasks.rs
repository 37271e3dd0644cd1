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
//!
//! The record is sealed (`store::sealed`) with the store's key, bound to
//! its tenant, suite and run: a gate believes only a sealed record
//! ([`Store::read_sealed_run_reasks`], through `host::trust`).

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
        self.write_sealed(&path, (KIND, &place(tenant, suite, key)), record, 0o644)
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

    /// The re-asks of run `key`, sealed or not; `None` when there are none.
    pub fn read_run_reasks(&self, tenant: &str, suite: &str, key: &str) -> Option<ReaskRecord> {
        let path = self.run_record_path(KIND, tenant, suite, key).ok()?;
        self.read_sealed(&path, (KIND, &place(tenant, suite, key)))
            .map(super::sealed::Unsealed::either)
    }

    /// The re-asks of run `key` when this store's key sealed them for this
    /// run; `None` otherwise.
    pub fn read_sealed_run_reasks(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
    ) -> Option<ReaskRecord> {
        let path = self.run_record_path(KIND, tenant, suite, key).ok()?;
        self.read_sealed(&path, (KIND, &place(tenant, suite, key)))?
            .sealed()
    }
}

/// Where a record is filed, as its seal binds it.
fn place(tenant: &str, suite: &str, key: &str) -> String {
    format!("{tenant}/{suite}/{key}")
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
        assert_eq!(store.read_run_reasks("t", "s", "k"), Some(record.clone()));
        // Unsealed (a store without a key wrote it): never read as sealed.
        assert!(store.read_sealed_run_reasks("t", "s", "k").is_none());
        let sealing = store
            .clone()
            .sealed_by(std::sync::Arc::new(crate::core::seal::Seal::new(
                b"0123456789abcdef",
            )));
        sealing.write_run_reasks("t", "s", "k", &record).unwrap();
        assert_eq!(
            sealing.read_sealed_run_reasks("t", "s", "k"),
            Some(record.clone())
        );
        // The same bytes copied to another run are not that run's.
        let runs = dir.path().join(".digline/t/reasks/runs/s");
        std::fs::copy(runs.join("k.json"), runs.join("k2.json")).unwrap();
        assert!(sealing.read_sealed_run_reasks("t", "s", "k2").is_none());
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
