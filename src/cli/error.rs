//! The front end's one error type: every refusal knows its exit code and
//! its sentence.
//!
//! All of them are exit 64 (refused); a panic is caught apart and is 70.
//! Messages go to stderr as `digline: <sentence>`, with `(hint: …)` lines
//! when there is something to do.

use crate::host::load_errors::LoadError;
use crate::store::StoreError;

use super::exit;

/// Why a command refused to act.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// The suite or cases file is malformed.
    #[error("{0}")]
    Load(#[from] LoadError),
    /// A document or the store refused.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// A flag or argument that cannot be honoured, with an optional hint.
    #[error("{message}")]
    Usage {
        /// The sentence.
        message: String,
        /// What to do instead, if anything.
        hint: Option<String>,
    },
    /// The run cannot start (e.g. nothing answers at the target).
    #[error("{0}")]
    Refused(String),
}

impl From<crate::host::runner::RunRefusal> for CliError {
    fn from(refusal: crate::host::runner::RunRefusal) -> CliError {
        use crate::host::runner::RunRefusal;
        match refusal {
            RunRefusal::Load(e) => CliError::Load(e),
            RunRefusal::Store(e) => CliError::Store(e),
            RunRefusal::Refused(s) => CliError::Refused(s),
            RunRefusal::Usage { message, hint } => CliError::Usage { message, hint },
        }
    }
}

impl CliError {
    /// A usage refusal with a hint.
    pub fn usage(message: impl Into<String>, hint: Option<String>) -> CliError {
        CliError::Usage {
            message: message.into(),
            hint,
        }
    }

    /// The process exit code for this error (always [`exit::REFUSED`]).
    pub fn exit_code(&self) -> i32 {
        exit::REFUSED
    }

    /// The text printed on stderr.
    pub fn render(&self) -> String {
        let mut out = format!("digline: {self}");
        if let CliError::Usage {
            hint: Some(hint), ..
        } = self
        {
            out.push_str(&format!("\n(hint: {hint})"));
        }
        out
    }
}
