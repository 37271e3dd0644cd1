//! Which suite a request is about, and loading it: the suite decides its
//! tenant and environment; `--tenant`/`--env` only verify them.

use std::path::PathBuf;

use crate::host::suite::LoadedSuite;
use crate::store::Store;

use super::Refusal;

/// A suite as a request names it.
#[derive(Clone, Debug)]
pub struct SuiteRef {
    /// The suite file, as the loader reads it.
    pub file: PathBuf,
    /// The repository root holding `.digline/`.
    pub root: PathBuf,
    /// The suite as the person or agent named it (for hints: the command to run).
    pub named: String,
    /// `--tenant`: verified, never overriding.
    pub tenant: Option<String>,
    /// `--env`: verified, never overriding.
    pub environment: Option<String>,
}

impl SuiteRef {
    /// The store of the repository, sealing the evidence it keeps with
    /// the gate's key (`host::trust::seal`).
    pub fn store(&self) -> Store {
        Store::new(&self.root).sealed_by(crate::host::trust::seal())
    }

    /// The workspace the store is in: what it may believe (`host::trust`).
    pub fn workspace(&self) -> crate::host::trust::Workspace {
        crate::host::trust::Workspace::of(&self.root)
    }

    /// Load the suite and verify `--tenant`/`--env` against it.
    ///
    /// # Errors
    /// [`Refusal::Load`] for a bad suite, [`Refusal::FlagMismatch`] for a
    /// flag that does not match what the suite declares.
    pub fn load(&self) -> Result<LoadedSuite, Refusal> {
        let loaded = crate::host::suite::load(&self.file, &self.root)?;
        let checks = [
            ("--tenant", &self.tenant, &loaded.suite.tenant),
            ("--env", &self.environment, &loaded.suite.environment),
        ];
        for (flag, given, declared) in checks {
            if let Some(given) = given {
                if given != declared {
                    return Err(Refusal::FlagMismatch {
                        flag,
                        given: given.clone(),
                        declared: declared.clone(),
                        named: self.named.clone(),
                    });
                }
            }
        }
        Ok(loaded)
    }
}
