//! The front end's one error type: every refusal knows its exit status,
//! its sentence and its hints.
//!
//! All of them are exit 64 (refused); a panic is caught apart and is 70.
//! Hints are data, not words baked into the sentence: the front end prints
//! the sentence as `digline: <sentence>` and then each hint once, as a
//! `(hint: …)` line ([`render`]) — or none with `-q`.

use crate::host::suite::errors::LoadError;
use crate::store::StoreError;

use super::exit::ExitStatus;

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

    /// The exit status for this error (always [`ExitStatus::Refused`]).
    pub fn exit_status(&self) -> ExitStatus {
        ExitStatus::Refused
    }

    /// What to do instead, if anything: printed after the sentence.
    pub fn hints(&self) -> Vec<&str> {
        match self {
            CliError::Usage {
                hint: Some(hint), ..
            } => vec![hint.as_str()],
            _ => Vec::new(),
        }
    }

    /// The text printed on stderr (no trailing newline); `quiet` (`-q`)
    /// leaves the hints out.
    pub fn render(&self, quiet: bool) -> String {
        render(&self.to_string(), &self.hints(), quiet)
    }
}

/// A refusal as stderr shows it: `digline: <sentence>`, then one
/// `(hint: …)` line per hint unless `quiet`. No trailing newline.
pub fn render(sentence: &str, hints: &[&str], quiet: bool) -> String {
    let mut out = format!("digline: {sentence}");
    if !quiet {
        for hint in hints {
            out.push_str(&format!("\n(hint: {hint})"));
        }
    }
    out
}

impl From<crate::app::Refusal> for CliError {
    /// The command line's words for a use case's refusal.
    fn from(refusal: crate::app::Refusal) -> CliError {
        use crate::app::Refusal;
        match refusal {
            Refusal::Load(e) => CliError::Load(e),
            Refusal::Store(e) => CliError::Store(e),
            Refusal::Usage { message, hint } => CliError::Usage { message, hint },
            Refusal::FlagMismatch {
                flag,
                given,
                declared,
                ..
            } => CliError::usage(
                format!("{flag} '{given}' does not match the suite, which declares '{declared}': the suite decides, and this flag only verifies"),
                Some(format!("drop {flag}, or pass {flag} {declared}")),
            ),
            ref no @ Refusal::NoBaseline {
                ref run_key,
                ref named,
                ..
            } => CliError::usage(
                no.to_string(),
                Some(format!(
                    "look at the run, then make it the reference: digline promote --suite {named} --run {run_key}"
                )),
            ),
            ref shard @ Refusal::ShardRun { ref named, .. } => CliError::usage(
                shard.to_string(),
                Some(format!(
                    "merge every shard first: digline merge --suite {named} --shards <the shard runs>"
                )),
            ),
            ref same @ Refusal::SameRun { ref named, .. } => CliError::usage(
                same.to_string(),
                Some(format!(
                    "name two different runs; digline list --suite {named} shows them"
                )),
            ),
            other => CliError::Refused(other.to_string()),
        }
    }
}
