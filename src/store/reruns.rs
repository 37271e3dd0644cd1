//! Where the gates of one head keep what they decided, so that a rerun
//! adds to the evidence instead of starting again
//! (`core::compare::reask::RerunRecord`):
//!
//! ```text
//! <root>/.digline/<tenant>/reruns/runs/<suite>/<id>.json
//! ```
//!
//! `id` names the head's tree, the reference and the suite's configuration
//! together (`host::trust::rerun_id`): another commit, reference or
//! configuration is another record. The record is sealed (`store::sealed`)
//! with the store's key and bound to its place; a gate believes it only
//! through `host::trust::believed_rerun`.

use crate::core::compare::reask::RerunRecord;

use super::{Store, StoreError};

/// The record kind, the folder under the tenant.
const KIND: &str = "reruns";

impl Store {
    /// Keep the decisions of the gates of head `id`.
    ///
    /// # Errors
    /// An unsafe name, or the file cannot be written.
    pub fn write_rerun(
        &self,
        tenant: &str,
        suite: &str,
        id: &str,
        record: &RerunRecord,
    ) -> Result<(), StoreError> {
        let path = self.run_record_path(KIND, tenant, suite, id)?;
        if let Some(runs) = path.parent().and_then(|p| p.parent()) {
            self.ignore_folder(runs)?;
        }
        self.write_sealed(&path, (KIND, &place(tenant, suite, id)), record, 0o644)
    }

    /// Where the decisions of head `id` are kept.
    ///
    /// # Errors
    /// An unsafe name.
    pub fn rerun_path(
        &self,
        tenant: &str,
        suite: &str,
        id: &str,
    ) -> Result<std::path::PathBuf, StoreError> {
        self.run_record_path(KIND, tenant, suite, id)
    }

    /// The decisions of head `id` when this store's key sealed them there;
    /// `None` otherwise (none kept, another key, an edited byte).
    pub fn read_sealed_rerun(&self, tenant: &str, suite: &str, id: &str) -> Option<RerunRecord> {
        let path = self.run_record_path(KIND, tenant, suite, id).ok()?;
        self.read_sealed(&path, (KIND, &place(tenant, suite, id)))?
            .sealed()
    }
}

/// Where a record is filed, as its seal binds it.
fn place(tenant: &str, suite: &str, id: &str) -> String {
    format!("{tenant}/{suite}/{id}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::compare::reask::Carried;
    use crate::core::seal::Seal;
    use std::sync::Arc;

    fn record() -> RerunRecord {
        RerunRecord {
            head_tree: "t".repeat(40),
            reference_created_at: "2026-01-01T00:00:00+00:00".into(),
            reference_config_hash: "0123456789abcdef".into(),
            config_hash: "0123456789abcdef".into(),
            attempts: 1,
            decided: vec![Carried {
                case_id: "c".into(),
                assertion_id: "a".into(),
                occurrence: 0,
                verdict: "worse".into(),
                attempt: 1,
                failed: vec![true, true],
            }],
        }
    }

    #[test]
    fn only_a_record_sealed_by_this_key_at_this_place_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let sealed = Store::new(dir.path()).sealed_by(Arc::new(Seal::new(b"k-0123456789abcdef")));
        assert!(sealed.read_sealed_rerun("t", "s", "h").is_none());
        sealed.write_rerun("t", "s", "h", &record()).unwrap();
        assert_eq!(sealed.read_sealed_rerun("t", "s", "h"), Some(record()));
        // Another key, or the same bytes at another place: not believed.
        let other = Store::new(dir.path()).sealed_by(Arc::new(Seal::new(b"other-0123456789ab")));
        assert!(other.read_sealed_rerun("t", "s", "h").is_none());
        let from = sealed.rerun_path("t", "s", "h").unwrap();
        let to = sealed.rerun_path("t", "s", "g").unwrap();
        std::fs::copy(&from, &to).unwrap();
        assert!(sealed.read_sealed_rerun("t", "s", "g").is_none());
        // An edited verdict breaks the seal.
        let text = std::fs::read_to_string(&from).unwrap();
        std::fs::write(&from, text.replace("\"worse\"", "\"noise\"")).unwrap();
        assert!(sealed.read_sealed_rerun("t", "s", "h").is_none());
        // Without a key nothing is sealed, so nothing is believed.
        let plain = Store::new(dir.path());
        plain.write_rerun("t", "s", "p", &record()).unwrap();
        assert!(plain.read_sealed_rerun("t", "s", "p").is_none());
    }
}
