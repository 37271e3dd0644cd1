//! Why a use case refused to act, as facts: the front ends word them.
//!
//! Each variant holds what the sentence and the hint are made of (the run's
//! key, the suite's name and tenant, the flag and what the suite declares),
//! never the words: `cli::error` renders them as `digline: …` plus
//! `(hint: …)`, `mcp::refusal` as the tool's error text. Every one is exit
//! 64 (refused).

use crate::host::suite::errors::LoadError;
use crate::store::StoreError;

/// Why a use case refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The suite or cases file is malformed.
    #[error("{0}")]
    Load(#[from] LoadError),
    /// A document or the store refused.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// A request that cannot be honoured, with what to do instead.
    #[error("{message}")]
    Usage {
        /// The sentence.
        message: String,
        /// What to do instead, if anything.
        hint: Option<String>,
    },
    /// Refused with one sentence (nothing answers at the target, a run
    /// from the future, an output directory that cannot be made).
    #[error("{0}")]
    Refused(String),
    /// `--tenant`/`--env` named something other than what the suite declares.
    #[error("{flag} '{given}' does not match the suite, which declares '{declared}'")]
    FlagMismatch {
        /// `--tenant` or `--env`.
        flag: &'static str,
        /// What the flag said.
        given: String,
        /// What the suite declares.
        declared: String,
        /// The suite as the request named it.
        named: String,
    },
    /// The suite has no baseline: nothing to compare with.
    #[error("suite '{suite}' has no baseline for tenant '{tenant}' yet, so there is nothing to compare with")]
    NoBaseline {
        /// The suite's name.
        suite: String,
        /// The suite's tenant.
        tenant: String,
        /// The run a person may look at and promote.
        run_key: String,
        /// The suite as the request named it (for the promote command).
        named: String,
    },
    /// A shard run asked to be compared, gated or promoted on its own.
    #[error("run {key} is {} of a sharded run, not the whole suite: a share of the cases is never gated, compared or promoted on its own", shard.as_deref().map_or_else(|| "a shard".to_string(), |s| format!("shard {s}")))]
    ShardRun {
        /// The run's key.
        key: String,
        /// Which shard (`2/3`), when its record reads.
        shard: Option<String>,
        /// The suite as the request named it (for the merge command).
        named: String,
    },
    /// A diff of a run with itself.
    #[error(
        "both arguments resolve to the run {key}: a run diffed with itself has nothing to report"
    )]
    SameRun {
        /// The run both arguments name.
        key: String,
        /// The suite as the request named it.
        named: String,
    },
    /// The shard runs cannot be read or merged: every problem found, each
    /// naming its path, one per line after the first's `merge refused: `.
    #[error("merge refused: {}", problems.join("\n"))]
    Merge {
        /// Every problem, in the order of the files.
        problems: Vec<String>,
    },
}

impl Refusal {
    /// A usage refusal with a hint.
    pub fn usage(message: impl Into<String>, hint: Option<String>) -> Refusal {
        Refusal::Usage {
            message: message.into(),
            hint,
        }
    }
}

impl From<crate::host::runner::RunRefusal> for Refusal {
    fn from(refusal: crate::host::runner::RunRefusal) -> Refusal {
        use crate::host::runner::RunRefusal;
        match refusal {
            RunRefusal::Load(e) => Refusal::Load(e),
            RunRefusal::Store(e) => Refusal::Store(e),
            RunRefusal::Refused(s) => Refusal::Refused(s),
            RunRefusal::Usage { message, hint } => Refusal::Usage { message, hint },
        }
    }
}

impl From<crate::core::compare::CompareError> for Refusal {
    fn from(e: crate::core::compare::CompareError) -> Refusal {
        Refusal::Refused(e.to_string())
    }
}
