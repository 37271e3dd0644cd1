//! Errors of the store: every one is a refusal (exit 64) with a sentence
//! naming the file.

use std::path::PathBuf;

/// Why the store refused to read or write.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A tenant, suite or run key that is not one safe path segment.
    #[error("invalid {kind} name: '{value}' (letters, digits, dot, dash and underscore are allowed, and it starts with a letter or digit)")]
    UnsafeName {
        /// `tenant`, `suite` or `run key`.
        kind: &'static str,
        /// The refused value.
        value: String,
    },
    /// A file that could not be read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's words.
        cause: String,
    },
    /// A document that is not a readable schema-10 run document.
    #[error("{path} is not a readable run document: {cause}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong, in one sentence.
        cause: String,
    },
    /// A document written with a newer schema than this binary reads.
    #[error("{path} is at schema {found}, newer than the schema {supported} this digline reads: upgrade digline to read it")]
    Newer {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// ours.
        supported: i64,
    },
    /// A document written with an older schema.
    #[error("{path} is at schema {found}, older than the schema {supported} this digline reads: run `digline migrate` to bring it up to date")]
    Older {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// ours.
        supported: i64,
    },
    /// No run stored under that key.
    #[error("no run '{key}' is stored for suite '{suite}' in tenant '{tenant}' ({path}); digline list --suite <suite.toml> shows the stored runs")]
    RunNotFound {
        /// The key asked for.
        key: String,
        /// The suite.
        suite: String,
        /// The tenant.
        tenant: String,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// `--run latest` with no readable run stored.
    #[error("no runs stored for suite '{suite}' in tenant '{tenant}', so there is no latest one. Run it first: digline run --suite <suite.toml>")]
    NoRuns {
        /// The suite.
        suite: String,
        /// The tenant.
        tenant: String,
    },
    /// `--run latest` when the newest stored run is at another schema (or
    /// none is readable at schema 10): stepping past it would compare an
    /// older run.
    #[error("no readable latest run for suite '{suite}' in tenant '{tenant}': the newest stored run is at another schema ({note}). {advice}")]
    NoReadableRuns {
        /// The suite.
        suite: String,
        /// The tenant.
        tenant: String,
        /// What was left out (`ignored: 2 run(s) at schema 9`).
        note: String,
        /// What to do, in the direction the versions say.
        advice: String,
    },
    /// A run file whose name is not the key of the run it holds.
    #[error("{path} holds the run {key}, not the one its name says: a run is filed under its created_at and config_hash. Rename it to {key}.json")]
    Misfiled {
        /// The file.
        path: PathBuf,
        /// The key of the run inside it.
        key: String,
    },
    /// A document filed under a tenant or suite other than the one it declares.
    #[error("{path} declares {what} '{found}' but is filed under {what} '{expected}': a document is read only where it belongs")]
    Misplaced {
        /// The file.
        path: PathBuf,
        /// `tenant` or `suite`.
        what: &'static str,
        /// What the document declares.
        found: String,
        /// Where it was found.
        expected: String,
    },
    /// `--run latest` while a file among the runs cannot be read: it might be the newest.
    #[error("cannot tell which run is the latest: {path} cannot be read ({cause}). Remove or repair it, or name the run by its key")]
    LatestUnknown {
        /// The unreadable file.
        path: PathBuf,
        /// Why it cannot be read.
        cause: String,
    },
    /// The store cannot take a new run (checked before the first call).
    #[error("a run cannot be stored in {path}: {cause}. Nothing was asked of the target; fix the directory (or --root) and run again")]
    NotWritable {
        /// The runs directory.
        path: PathBuf,
        /// The operating system's words.
        cause: String,
    },
    /// A path that resolves outside `.digline/`.
    #[error(
        "{path} resolves outside the store {store}: a document is read only from inside .digline/"
    )]
    OutsideStore {
        /// The file.
        path: PathBuf,
        /// The store directory.
        store: PathBuf,
    },
    /// A write whose place resolves outside `.digline/` (a symlinked
    /// directory or file): refused before anything is written.
    #[error(
        "{path} resolves outside the store {store}: digline writes only inside .digline/, so nothing was written; remove the symbolic link"
    )]
    WriteOutside {
        /// The file or directory.
        path: PathBuf,
        /// The store directory.
        store: PathBuf,
    },
    /// A write through a symbolic link that stays inside the store (one
    /// record written over another): refused before anything is written.
    #[error(
        "{path} is a symbolic link inside the store: digline writes under .digline/ only through real folders and files, so nothing was written; remove the link"
    )]
    WriteThroughLink {
        /// The link.
        path: PathBuf,
    },
    /// `.digline` is a symbolic link to a place outside the repository (a
    /// link a pull request could commit): nothing is written there.
    #[error(
        "{path} is a symbolic link to {store}, outside the repository: digline writes its store only inside the repository, so nothing was written; remove the link or point it inside the repository"
    )]
    StoreOutsideRoot {
        /// `<root>/.digline`.
        path: PathBuf,
        /// Where it leads.
        store: PathBuf,
    },
    /// An output file whose directory is a symbolic link (or lies under
    /// one, for a relative path): refused before anything is written.
    #[error(
        "{path} is a symbolic link: digline does not write its output through one (a link committed in a pull request could point anywhere), so nothing was written; remove the link or choose another place"
    )]
    OutputThroughLink {
        /// The link.
        path: PathBuf,
    },
    /// A promotion condition failed; the sentence says which and what to do.
    #[error("{0}")]
    PromotionRefused(String),
    /// A journal of an unfinished run that cannot be resumed, in one sentence.
    #[error("{0}")]
    Journal(String),
}

impl StoreError {
    pub(crate) fn io(path: &std::path::Path, err: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.to_path_buf(),
            cause: io_cause(&err),
        }
    }
}

/// The operating system's words for a failed read or write, with a full
/// disk (`ENOSPC`) or an exhausted quota (`EDQUOT`) said plainly: a
/// refusal (64) the person can act on, never a bug (70).
pub fn io_cause(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::StorageFull => {
            format!("no space is left on the device ({err}): free some space and run again")
        }
        std::io::ErrorKind::QuotaExceeded => {
            format!("the disk quota is exhausted ({err}): free some space and run again")
        }
        _ => err.to_string(),
    }
}
