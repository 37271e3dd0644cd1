//! Where the judge memo is kept ([`MemoEntry`], keyed by `core::memo`):
//!
//! ```text
//! <root>/.digline/<tenant>/memo/.gitignore          `*`, written if absent
//! <root>/.digline/<tenant>/memo/<k0k1>/<key>.json   one reply, mode 0600
//! ```
//!
//! A memo is a cache, never a committed file: its folder ignores itself,
//! and an entry the workspace does not vouch for (tracked by git, or
//! reached through a link out of the memo: `host::trust`, which reads git,
//! answers through [`MemoReader::vouched_by`]) is never read. An entry is
//! sealed with the store's key (`store::sealed`); a reader that
//! [`requires seals`](MemoReader::requiring_seals) (a gate) reads only
//! sealed entries. An entry is read only when it is a regular file inside
//! the store, at most 1 MiB, filed under the key its fields hash to;
//! anything else is a miss, never an error. Writes are atomic (temp file,
//! fsync, rename), so two processes writing the same key leave one whole
//! entry.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::core::memo::{MemoEntry, MemoFields, MemoPlace};

use super::repo::{safe as segment, Store};
use super::{StoreError, Vouch};

/// The kind a memo entry is sealed as.
const KIND: &str = "memo";

/// True when `key` is 64 lower-case hex digits (a [`MemoFields::key`]).
fn is_key(key: &str) -> bool {
    key.len() == 64
        && key
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Store {
    /// `<tenant>/memo/`.
    ///
    /// # Errors
    /// An unsafe tenant name.
    pub fn memo_dir(&self, tenant: &str) -> Result<PathBuf, StoreError> {
        Ok(self.dir().join(segment("tenant", tenant)?).join("memo"))
    }

    /// `<tenant>/memo/<k0k1>/<key>.json`.
    ///
    /// # Errors
    /// An unsafe tenant name, or a key that is not 64 hex digits.
    pub fn memo_path(&self, tenant: &str, key: &str) -> Result<PathBuf, StoreError> {
        if !is_key(key) {
            return Err(StoreError::UnsafeName {
                kind: "memo key",
                value: key.to_string(),
            });
        }
        Ok(self
            .memo_dir(tenant)?
            .join(&key[..2])
            .join(format!("{key}.json")))
    }

    /// Keep one reply (mode 0600: a judge's reply is payload).
    ///
    /// # Errors
    /// An unsafe name, a folder that leaves the store, a failed write.
    pub fn write_memo(&self, tenant: &str, entry: &MemoEntry) -> Result<(), StoreError> {
        let dir = self.memo_dir(tenant)?;
        self.ignore_folder(&dir)?;
        let path = self.memo_path(tenant, &entry.fields.key())?;
        let place = format!("{tenant}/{}", entry.fields.key());
        self.write_sealed(&path, (KIND, &place), entry, 0o600)
    }
}

/// Reads a tenant's memo: only the entries the workspace vouches for, and
/// only sealed ones when seals are required.
#[derive(Clone, Debug)]
pub struct MemoReader {
    store: Store,
    tenant: String,
    vouch: Option<Arc<dyn Vouch>>,
    seals_required: bool,
    /// The readable entries by (suite, case), read once on the first
    /// [`MemoReader::nearest`]: a replay with many misses reads the memo
    /// once, not once a miss. Dropped when an entry is written.
    by_place: Arc<Mutex<Option<Arc<ByPlace>>>>,
}

/// Entries by (suite, case).
type ByPlace = HashMap<(String, String), Vec<MemoEntry>>;

impl MemoReader {
    /// A reader of `tenant`'s memo in `store`.
    pub fn new(store: Store, tenant: &str) -> MemoReader {
        MemoReader {
            store,
            tenant: tenant.to_string(),
            vouch: None,
            seals_required: false,
            by_place: Arc::default(),
        }
    }

    /// Read only the entries `vouch` vouches for (the memo folder is the
    /// area no link may leave).
    #[must_use]
    pub fn vouched_by(mut self, vouch: Arc<dyn Vouch>) -> MemoReader {
        self.vouch = Some(vouch);
        self.by_place = Arc::default();
        self
    }

    /// Read only entries sealed with the store's key (a gate's reader: an
    /// unsealed entry may have been written by anything in the workspace).
    #[must_use]
    pub fn requiring_seals(mut self, required: bool) -> MemoReader {
        self.seals_required = required;
        self.by_place = Arc::default();
        self
    }

    /// The store the memo is in.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The tenant.
    pub fn tenant(&self) -> &str {
        &self.tenant
    }

    fn readable(&self, path: &Path) -> Option<MemoEntry> {
        if let Some(vouch) = &self.vouch {
            let area = self.store.memo_dir(&self.tenant).ok()?;
            if !vouch.vouches(&area, path) {
                return None;
            }
        }
        let key = path.file_stem()?.to_str()?;
        let place = format!("{}/{key}", self.tenant);
        let read = self.store.read_sealed(path, (KIND, &place))?;
        if self.seals_required {
            read.sealed()
        } else {
            Some(read.either())
        }
    }

    /// The entry filed under `key`, when one fits it.
    pub fn get(&self, key: &str) -> Option<MemoEntry> {
        let path = self.store.memo_path(&self.tenant, key).ok()?;
        self.readable(&path).filter(|e| e.fits(key))
    }

    /// Keep one reply.
    ///
    /// # Errors
    /// As [`Store::write_memo`].
    pub fn put(&self, entry: &MemoEntry) -> Result<(), StoreError> {
        self.by_place
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        self.store.write_memo(&self.tenant, entry)
    }

    /// Every readable entry of the tenant, by (suite, case): read once.
    fn by_place(&self) -> Arc<ByPlace> {
        let mut held = self.by_place.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(index) = held.as_ref() {
            return Arc::clone(index);
        }
        let mut index = ByPlace::new();
        let shards = self
            .store
            .memo_dir(&self.tenant)
            .ok()
            .and_then(|dir| std::fs::read_dir(dir).ok());
        for shard in shards.into_iter().flatten().flatten() {
            let Ok(files) = std::fs::read_dir(shard.path()) else {
                continue;
            };
            for file in files.flatten() {
                let path = file.path();
                let Some(key) = path.file_stem().and_then(|s| s.to_str()) else {
                    continue;
                };
                if let Some(entry) = self.readable(&path).filter(|e| e.fits(key)) {
                    index
                        .entry((entry.place.suite.clone(), entry.place.case.clone()))
                        .or_default()
                        .push(entry);
                }
            }
        }
        let index = Arc::new(index);
        *held = Some(Arc::clone(&index));
        index
    }

    /// Of the entries recorded for `place`'s suite and case, the one whose
    /// fields differ least from `fields` (another check's entry counts
    /// "check declaration" as one more), with the names of what differs
    /// (read only on a miss; the memo is read once, on the first).
    pub fn nearest(
        &self,
        fields: &MemoFields,
        place: &MemoPlace,
    ) -> Option<(MemoEntry, Vec<&'static str>)> {
        let index = self.by_place();
        let entries = index.get(&(place.suite.clone(), place.case.clone()))?;
        let mut best: Option<(&MemoEntry, Vec<&'static str>)> = None;
        for entry in entries {
            let mut differs = fields.differences(&entry.fields);
            if entry.place.check != place.check {
                // A check whose declaration changed has another id.
                differs.push("check declaration");
            }
            if best.as_ref().is_none_or(|(_, d)| differs.len() < d.len()) {
                best = Some((entry, differs));
            }
        }
        best.map(|(entry, differs)| (entry.clone(), differs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::memo::MemoInputs;

    fn entry(answer: &[u8], sample: u32) -> MemoEntry {
        MemoEntry {
            fields: MemoFields::of(&MemoInputs {
                provider: "openai",
                model: "m",
                endpoint: "127.0.0.1:1",
                base_url: "http://127.0.0.1:1",
                params: "{}",
                system: "s",
                prompt: &format!("rubric {}", String::from_utf8_lossy(answer)),
                answer,
                sample,
                draw: 0,
            }),
            place: MemoPlace {
                suite: "s".into(),
                case: "c1".into(),
                check: "0123456789abcdef".into(),
            },
            reply: "{\"score\": 1.0, \"reason\": \"ok\"}".into(),
            cost_usd: Some(0.25),
            tokens: Some((10, 2)),
        }
    }

    #[test]
    fn a_reply_is_kept_read_back_and_the_folder_ignores_itself() {
        let dir = tempfile::tempdir().unwrap();
        let reader = MemoReader::new(Store::new(dir.path()), "t");
        let kept = entry(b"yes", 0);
        let key = kept.fields.key();
        assert_eq!(reader.get(&key), None);
        reader.put(&kept).unwrap();
        assert_eq!(reader.get(&key), Some(kept.clone()));
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".digline/t/memo/.gitignore")).unwrap(),
            "# Generated by digline: records of runs, as ephemeral as the runs.\n*\n"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let path = reader.store().memo_path("t", &key).unwrap();
            let mode = std::fs::metadata(path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // The nearest entry at the same place names what moved.
        let other = entry(b"no", 0);
        let (near, differs) = reader.nearest(&other.fields, &other.place).unwrap();
        assert_eq!(near, kept);
        assert_eq!(differs, ["answer"]);
        let edited = MemoPlace {
            check: "fedcba9876543210".into(),
            ..other.place.clone()
        };
        let (_, differs) = reader.nearest(&other.fields, &edited).unwrap();
        assert_eq!(differs, ["answer", "check declaration"]);
        let elsewhere = MemoPlace {
            case: "c2".into(),
            ..other.place.clone()
        };
        assert!(reader.nearest(&other.fields, &elsewhere).is_none());
    }

    /// A replay's misses read the memo once, not once a miss (2,000
    /// misses took 179 s when each read every entry).
    #[test]
    fn the_nearest_entry_reads_the_memo_once() {
        let dir = tempfile::tempdir().unwrap();
        let reader = MemoReader::new(Store::new(dir.path()), "t");
        let kept = entry(b"yes", 0);
        reader.put(&kept).unwrap();
        let other = entry(b"no", 0);
        assert!(reader.nearest(&other.fields, &other.place).is_some());
        // The files are gone: every later miss answers from what was read.
        std::fs::remove_dir_all(dir.path().join(".digline/t/memo")).unwrap();
        for _ in 0..3 {
            let (near, differs) = reader.nearest(&other.fields, &other.place).unwrap();
            assert_eq!((near, differs), (kept.clone(), vec!["answer"]));
        }
        // A write reads it again.
        reader.put(&entry(b"maybe", 0)).unwrap();
        let (near, _) = reader.nearest(&other.fields, &other.place).unwrap();
        assert_eq!(near, entry(b"maybe", 0));
    }

    #[test]
    fn forged_misfiled_and_tracked_entries_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let reader = MemoReader::new(store.clone(), "t");
        let kept = entry(b"yes", 0);
        let key = kept.fields.key();
        reader.put(&kept).unwrap();
        let path = store.memo_path("t", &key).unwrap();
        // An entry whose fields were edited no longer hashes to its name.
        let mut forged = kept.clone();
        forged.fields.sample = 7;
        std::fs::write(&path, serde_json::to_string(&forged).unwrap()).unwrap();
        assert_eq!(reader.get(&key), None);
        // A well-formed entry the workspace does not vouch for is never read.
        reader.put(&kept).unwrap();
        assert!(reader.get(&key).is_some());
        #[derive(Debug)]
        struct Refusing(PathBuf);
        impl Vouch for Refusing {
            fn vouches(&self, _: &Path, file: &Path) -> bool {
                file != self.0
            }
        }
        let refusing = reader.clone().vouched_by(Arc::new(Refusing(path.clone())));
        assert_eq!(refusing.get(&key), None);
        assert!(refusing.nearest(&kept.fields, &kept.place).is_none());
        // A reader requiring seals reads no entry an unkeyed store wrote,
        // and reads one a keyed store sealed (at its own key only).
        let sealing = store
            .clone()
            .sealed_by(Arc::new(crate::core::seal::Seal::new(b"0123456789abcdef")));
        let strict = MemoReader::new(sealing.clone(), "t").requiring_seals(true);
        assert_eq!(strict.get(&key), None);
        strict.put(&kept).unwrap();
        assert_eq!(strict.get(&key), Some(kept.clone()));
        let mut text = std::fs::read_to_string(&path).unwrap();
        text = text.replace("\"score\\\": 1.0", "\"score\\\": 0.0");
        std::fs::write(&path, &text).unwrap();
        assert_eq!(strict.get(&key), None, "{text}");
        // Keys that are not 64 hex never name a file.
        for bad in ["../x", "AB", &"g".repeat(64)] {
            assert!(store.memo_path("t", bad).is_err(), "{bad}");
            assert_eq!(reader.get(bad), None);
        }
        assert!(store.memo_path("../t", &key).is_err());
    }
}
