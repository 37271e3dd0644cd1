//! Evidence the gate keeps for itself (re-ask records, judge-memo
//! entries), sealed: the record's JSON object carries one more key,
//! `"seal"`, the HMAC (`core::seal`) of its compact JSON without that key,
//! under the store's key, bound to the record's kind and place. A record
//! is [`Sealed`](Unsealed::Sealed) only when that seal verifies; anything
//! else (no seal, another key, an edited byte, a record copied to another
//! place) is [`Unsealed`](Unsealed::Unsealed) and the caller decides
//! whether it may be believed (`host::trust`).
//!
//! Whether a workspace file may be read at all is the host's question
//! (git, links): the store asks it through [`Vouch`].

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::atomic::write_atomic;
use super::{Store, StoreError};

/// The key in a sealed record.
const SEAL_KEY: &str = "seal";

/// Whether a file the store is about to read may be believed as digline's
/// own: answered by the host (`host::trust::Workspace`), which reads git.
pub trait Vouch: Send + Sync + std::fmt::Debug {
    /// True when `file`, kept in the store area `area`, may be read.
    fn vouches(&self, area: &Path, file: &Path) -> bool;
}

/// A record read back, with whether its seal verified.
#[derive(Clone, Debug, PartialEq)]
pub enum Unsealed<T> {
    /// The store's key sealed it, at this place, as this kind.
    Sealed(T),
    /// No valid seal.
    Unsealed(T),
}

impl<T> Unsealed<T> {
    /// The record when sealed.
    pub fn sealed(self) -> Option<T> {
        match self {
            Unsealed::Sealed(t) => Some(t),
            Unsealed::Unsealed(_) => None,
        }
    }

    /// The record, sealed or not.
    pub fn either(self) -> T {
        match self {
            Unsealed::Sealed(t) | Unsealed::Unsealed(t) => t,
        }
    }
}

impl Store {
    /// This store sealing what it keeps with `seal`.
    #[must_use]
    pub fn sealed_by(mut self, seal: std::sync::Arc<crate::core::seal::Seal>) -> Store {
        self.seal = Some(seal);
        self
    }

    /// Write `record` whole at `path` (mode `mode`), sealed as `kind` at
    /// `place` when the store holds a key; every folder down to it made
    /// or checked inside the store.
    ///
    /// # Errors
    /// A folder that leaves the store, or the file cannot be written.
    pub fn write_sealed<T: Serialize>(
        &self,
        path: &Path,
        (kind, place): (&str, &str),
        record: &T,
        mode: u32,
    ) -> Result<(), StoreError> {
        self.place_inside(path)?;
        let mut value = serde_json::to_value(record).unwrap_or(Value::Null);
        if let (Some(seal), Value::Object(map)) = (&self.seal, &mut value) {
            map.remove(SEAL_KEY);
            let bytes = serde_json::to_vec(&Value::Object(map.clone())).unwrap_or_default();
            map.insert(
                SEAL_KEY.into(),
                Value::String(seal.tag(kind, place, &bytes)),
            );
        }
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        write_atomic(path, text.as_bytes(), mode)
    }

    /// The record at `path` (as [`Store::read_record`] reads one) and
    /// whether the store's key sealed it as `kind` at `place`.
    pub fn read_sealed<T: DeserializeOwned>(
        &self,
        path: &Path,
        (kind, place): (&str, &str),
    ) -> Option<Unsealed<T>> {
        let mut value: Value = self.read_record(path)?;
        let tag = match &mut value {
            Value::Object(map) => map.remove(SEAL_KEY),
            _ => None,
        };
        let bytes = serde_json::to_vec(&value).ok()?;
        let record = serde_json::from_value(value).ok()?;
        let verified = match (&self.seal, tag) {
            (Some(seal), Some(Value::String(tag))) => seal.verifies(kind, place, &bytes, &tag),
            _ => false,
        };
        Some(if verified {
            Unsealed::Sealed(record)
        } else {
            Unsealed::Unsealed(record)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::seal::Seal;
    use std::sync::Arc;

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq, Clone)]
    struct R {
        rate: f64,
        pairs: Vec<String>,
    }

    #[test]
    fn only_the_key_at_the_place_seals() {
        let dir = tempfile::tempdir().unwrap();
        let sealing = Store::new(dir.path()).sealed_by(Arc::new(Seal::new(b"0123456789abcdef")));
        let path = sealing.dir().join("t/x.json");
        let r = R {
            rate: 0.05,
            pairs: vec!["c".into()],
        };
        sealing
            .write_sealed(&path, ("k", "t/x"), &r, 0o644)
            .unwrap();
        assert_eq!(
            sealing.read_sealed(&path, ("k", "t/x")),
            Some(Unsealed::Sealed(r.clone()))
        );
        // Another place, another kind, another key, no key: not sealed.
        for (store, at) in [
            (sealing.clone(), ("k", "t/y")),
            (sealing.clone(), ("m", "t/x")),
            (
                Store::new(dir.path()).sealed_by(Arc::new(Seal::new(b"fedcba9876543210"))),
                ("k", "t/x"),
            ),
            (Store::new(dir.path()), ("k", "t/x")),
        ] {
            assert_eq!(
                store.read_sealed(&path, at),
                Some(Unsealed::Unsealed(r.clone()))
            );
        }
        // An edited value keeps its old seal, which no longer fits.
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("0.05", "1e-9")).unwrap();
        let read = sealing.read_sealed::<R>(&path, ("k", "t/x")).unwrap();
        assert!(matches!(read, Unsealed::Unsealed(R { rate, .. }) if rate == 1e-9));
        // A store without a key writes no seal.
        Store::new(dir.path())
            .write_sealed(&path, ("k", "t/x"), &r, 0o644)
            .unwrap();
        assert!(!std::fs::read_to_string(&path).unwrap().contains("seal"));
    }
}
