//! From an `[[assertions]]` entry to a [`DeclaredCheck`]: parameter
//! validation, defaults, reported name and identity.
//!
//! (Skeleton: filled in by the check catalogue work.)

use serde_json::{Map, Value};

use super::DeclaredCheck;

/// Why an `[[assertions]]` entry could not become a check. The loader adds
/// the location (file, entry) and the near-miss hint.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildError {
    /// What went wrong.
    pub kind: BuildErrorKind,
}

/// The kinds of [`BuildError`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BuildErrorKind {
    /// Keys the check does not take; `known` lists the keys it does take.
    UnknownParameters {
        /// The check's token (the owner in the message).
        token: String,
        /// The unknown keys, in file order.
        keys: Vec<String>,
        /// Every parameter the check takes, sorted.
        known: Vec<String>,
    },
    /// Mandatory parameters the entry does not give.
    MissingParameters {
        /// The check's token.
        token: String,
        /// The missing keys.
        keys: Vec<String>,
    },
    /// A parameter has a value the check refuses; `message` is a full sentence.
    Invalid {
        /// The check's token.
        token: String,
        /// The parameter, when one is to blame.
        key: Option<String>,
        /// What is wrong and what would be right.
        message: String,
    },
    /// No check has this `type`.
    UnknownType {
        /// The token as written.
        token: String,
    },
    /// A check digline knows but this release does not run yet.
    NotBuiltYet {
        /// The token.
        token: String,
    },
    /// Something only a Python suite can express; `message` names the wall.
    PythonOnly {
        /// The full sentence.
        message: String,
    },
}

/// Validate one entry (`type` token plus its other keys, TOML integers and
/// floats kept apart) into a [`DeclaredCheck`].
///
/// # Errors
/// A [`BuildError`] saying which key is wrong and why.
pub fn build(token: &str, params: &Map<String, Value>) -> Result<DeclaredCheck, BuildError> {
    let _ = params;
    Err(BuildError {
        kind: BuildErrorKind::NotBuiltYet {
            token: token.to_string(),
        },
    })
}
