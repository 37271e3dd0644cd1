//! Load errors: located sentences for bad suite and cases files.
//!
//! (Skeleton: filled in by the suite loader work.)

/// A refusal while loading a suite: always exit 64, before any call.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct LoadError {
    /// The full located sentence (`suite.toml, [[assertions]] #2: …`).
    pub message: String,
}
