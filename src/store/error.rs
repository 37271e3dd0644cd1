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
    #[error("no run '{key}' is stored for suite '{suite}' in tenant '{tenant}' ({path})")]
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
    /// A promotion condition failed; the sentence says which and what to do.
    #[error("{0}")]
    PromotionRefused(String),
}

impl StoreError {
    pub(crate) fn io(path: &std::path::Path, err: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.to_path_buf(),
            cause: err.to_string(),
        }
    }
}
