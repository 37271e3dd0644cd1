//! Where a run's spend ([`Spend`]) is kept: beside the documents, never in
//! them (schema-10 documents keep digline 0.10.0's bytes, and 0.10.0 reads
//! every `*.json` under `runs/` and `baselines/`):
//!
//! ```text
//! <root>/.digline/<tenant>/spend/runs/<suite>/<key>.json   a run's, written with it
//! <root>/.digline/<tenant>/spend/baselines/<suite>.json    the reference's, copied on promote
//! ```
//!
//! A missing or unreadable record is "not recorded" (runs made by 0.10.0
//! or before this release have none): spend is shown, never gated on.

use std::path::PathBuf;

use crate::core::spend::Spend;

use super::repo::{safe as segment, Store};
use super::StoreError;

impl Store {
    fn spend_dir(&self, tenant: &str) -> Result<PathBuf, StoreError> {
        Ok(self.dir().join(segment("tenant", tenant)?).join("spend"))
    }

    /// `<tenant>/spend/runs/<suite>/<key>.json`.
    pub fn run_spend_path(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
    ) -> Result<PathBuf, StoreError> {
        self.run_record_path("spend", tenant, suite, key)
    }

    /// `<tenant>/spend/baselines/<suite>.json`.
    pub fn baseline_spend_path(&self, tenant: &str, suite: &str) -> Result<PathBuf, StoreError> {
        Ok(self
            .spend_dir(tenant)?
            .join("baselines")
            .join(format!("{}.json", segment("suite", suite)?)))
    }

    /// Record what run `key` spent.
    ///
    /// # Errors
    /// An unsafe name, or the file cannot be written.
    pub fn write_run_spend(
        &self,
        tenant: &str,
        suite: &str,
        key: &str,
        spend: &Spend,
    ) -> Result<(), StoreError> {
        self.ignore_folder(&self.spend_dir(tenant)?.join("runs"))?;
        self.write_record(&self.run_spend_path(tenant, suite, key)?, spend)
    }

    /// What run `key` spent, `None` when not recorded.
    pub fn read_run_spend(&self, tenant: &str, suite: &str, key: &str) -> Option<Spend> {
        self.read_record(&self.run_spend_path(tenant, suite, key).ok()?)
    }

    /// Whether run `key`'s spending cap stopped it (its spend record says
    /// so); false without a record.
    pub fn run_capped(&self, tenant: &str, suite: &str, key: &str) -> bool {
        self.read_run_spend(tenant, suite, key)
            .is_some_and(|spent| spent.budget_exhausted)
    }

    /// What the reference spent, `None` when not recorded.
    pub fn read_baseline_spend(&self, tenant: &str, suite: &str) -> Option<Spend> {
        self.read_record(&self.baseline_spend_path(tenant, suite).ok()?)
    }

    /// On promote: the run's spend becomes the reference's; a run with
    /// none leaves the reference with none (an older record is removed).
    ///
    /// # Errors
    /// An unsafe name, or the file cannot be written or removed.
    pub fn promote_spend(&self, tenant: &str, suite: &str, key: &str) -> Result<(), StoreError> {
        let to = self.baseline_spend_path(tenant, suite)?;
        // Written or removed only through real folders: a committed link
        // (`spend/baselines -> ../baselines`) would put the record over the
        // baseline, or remove it.
        self.place_inside(&to)?;
        match self.read_run_spend(tenant, suite, key) {
            Some(spend) => self.write_record(&to, &spend),
            None => match std::fs::remove_file(&to) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(StoreError::io(&to, e)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_written_read_promoted_and_refused_outside_their_place() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let mut spend = Spend::default();
        spend.target.add(Some(0.5), Some((10, 2)));
        store.write_run_spend("t", "s", "k1", &spend).unwrap();
        assert_eq!(store.read_run_spend("t", "s", "k1"), Some(spend));
        assert_eq!(store.read_run_spend("t", "s", "k2"), None, "not recorded");
        // Promote copies the record; a run with none removes the older one.
        store.promote_spend("t", "s", "k1").unwrap();
        assert_eq!(store.read_baseline_spend("t", "s"), Some(spend));
        store.promote_spend("t", "s", "k2").unwrap();
        assert_eq!(store.read_baseline_spend("t", "s"), None);
        // A record that does not read is "not recorded", never an error.
        let path = store.run_spend_path("t", "s", "k1").unwrap();
        std::fs::write(&path, "{\"target\": 1}").unwrap();
        assert_eq!(store.read_run_spend("t", "s", "k1"), None);
        // Names from a pull request never leave the store's place.
        for (tenant, suite, key) in [("../x", "s", "k"), ("t", "../s", "k"), ("t", "s", "../k")] {
            assert!(
                store.write_run_spend(tenant, suite, key, &spend).is_err(),
                "{tenant}/{suite}/{key}"
            );
            assert_eq!(store.read_run_spend(tenant, suite, key), None);
        }
        assert!(store.promote_spend("t", "a/b", "k1").is_err());
    }

    #[test]
    fn run_records_are_never_committed_and_never_written_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let spend = Spend::default();
        store.write_run_spend("t", "s", "k1", &spend).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".digline/t/spend/runs/.gitignore")).unwrap(),
            "# Generated by digline: records of runs, as ephemeral as the runs.\n*\n"
        );
        store.promote_spend("t", "s", "k1").unwrap();
        assert!(
            !dir.path()
                .join(".digline/t/spend/baselines/.gitignore")
                .exists(),
            "the reference's record is committed with the baseline"
        );
        // A pull request commits `.digline/u/spend -> <elsewhere>`.
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".digline/u")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(".digline/u/spend"))
                .unwrap();
            let err = store.write_run_spend("u", "s", "k1", &spend).unwrap_err();
            assert!(matches!(err, StoreError::WriteOutside { .. }), "{err}");
            assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_the_store_never_put_a_record_over_a_document() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let baselines = dir.path().join(".digline/t/baselines");
        std::fs::create_dir_all(&baselines).unwrap();
        std::fs::write(baselines.join("s.json"), "the baseline").unwrap();
        std::fs::create_dir_all(dir.path().join(".digline/t/spend")).unwrap();
        symlink(
            "../baselines",
            dir.path().join(".digline/t/spend/baselines"),
        )
        .unwrap();
        let spend = Spend::default();
        store.write_run_spend("t", "s", "k1", &spend).unwrap();
        // Promote writes the record through the link: refused.
        let err = store.promote_spend("t", "s", "k1").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}/.digline/t/spend/baselines is a symbolic link inside the store: digline writes under .digline/ only through real folders and files, so nothing was written; remove the link",
                dir.path().display()
            )
        );
        // A run with no record would remove the reference's: refused too.
        assert!(store.promote_spend("t", "s", "k2").is_err());
        assert_eq!(
            std::fs::read_to_string(baselines.join("s.json")).unwrap(),
            "the baseline"
        );
        // A record that is a device or leads out of the store reads as none.
        std::fs::remove_file(dir.path().join(".digline/t/spend/baselines")).unwrap();
        std::fs::create_dir_all(dir.path().join(".digline/t/spend/baselines")).unwrap();
        symlink(
            "/dev/zero",
            dir.path().join(".digline/t/spend/baselines/s.json"),
        )
        .unwrap();
        assert_eq!(store.read_baseline_spend("t", "s"), None);
        let big = dir.path().join(".digline/t/spend/runs/s/k3.json");
        std::fs::write(&big, vec![b' '; (1 << 20) + 1]).unwrap();
        assert_eq!(store.read_run_spend("t", "s", "k3"), None);
    }
}
