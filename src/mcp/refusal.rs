//! A refusal as the agent reads it: digline's own sentence, never a generic
//! "error executing tool".
//!
//! Every error type digline refuses with (a bad suite, the store, a compare
//! or diff refusal, a run that cannot start) converts into a [`Refusal`];
//! nothing else does. A panic is not a refusal: it stays an internal error
//! (ADR 0011 §10), so a bug is never dressed up as a sentence about the
//! suite.

use std::fmt;

use crate::core::compare::CompareError;
use crate::core::diff::DiffRefused;
use crate::host::suite::errors::LoadError;
use crate::run::RunError;
use crate::store::StoreError;

/// Why a tool refused to act: the sentence, and what to do instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The sentence (the same words the CLI prints after `digline: `).
    pub message: String,
    /// What to do instead, when there is something to do.
    pub hint: Option<String>,
}

impl Refusal {
    /// A refusal without a hint.
    pub fn new(message: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            hint: None,
        }
    }

    /// The same refusal with `hint`.
    pub fn hint(mut self, hint: impl Into<String>) -> Refusal {
        self.hint = Some(hint.into());
        self
    }

    /// The text of the tool error: the sentence, then `(hint: …)`.
    pub fn text(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{}\n(hint: {hint})", self.message),
            None => self.message.clone(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl From<crate::host::runner::RunRefusal> for Refusal {
    fn from(refusal: crate::host::runner::RunRefusal) -> Refusal {
        match refusal {
            crate::host::runner::RunRefusal::Usage {
                message,
                hint: Some(hint),
            } => Refusal::new(message).hint(hint),
            other => Refusal::new(other.to_string()),
        }
    }
}

impl From<LoadError> for Refusal {
    /// Every problem of the files, one per line, as the CLI prints them.
    fn from(e: LoadError) -> Refusal {
        Refusal::new(e.to_string())
    }
}

impl From<StoreError> for Refusal {
    fn from(e: StoreError) -> Refusal {
        Refusal::new(e.to_string())
    }
}

impl From<CompareError> for Refusal {
    fn from(e: CompareError) -> Refusal {
        Refusal::new(e.to_string())
    }
}

impl From<DiffRefused> for Refusal {
    fn from(e: DiffRefused) -> Refusal {
        Refusal::new(e.0)
    }
}

impl From<RunError> for Refusal {
    fn from(e: RunError) -> Refusal {
        Refusal::new(e.to_string())
    }
}

impl From<crate::app::Refusal> for Refusal {
    /// The server's words for a use case's refusal: the CLI's sentence;
    /// a hint names what a person runs, never what this server cannot do.
    fn from(refusal: crate::app::Refusal) -> Refusal {
        use crate::app::Refusal as App;
        match refusal {
            App::Usage {
                message,
                hint: Some(hint),
            } => Refusal::new(message).hint(hint),
            App::FlagMismatch {
                flag,
                given,
                declared,
                named,
            } => Refusal::new(format!(
                "this server was started with {flag} '{given}', and the suite '{named}' declares '{declared}': the suite decides, and the flag only verifies"
            ))
            .hint(format!(
                "use a suite of {flag} '{given}', or ask whoever configured this server"
            )),
            ref no @ App::NoBaseline {
                ref run_key,
                ref named,
                ..
            } => Refusal::new(no.to_string()).hint(format!(
                "a person looks at the run, then makes it the reference: digline promote --suite {named} --run {run_key}. This server cannot promote."
            )),
            ref shard @ App::ShardRun { ref named, .. } => {
                Refusal::new(shard.to_string()).hint(format!(
                    "a person merges every shard first: digline merge --suite {named} --shards <the shard runs>"
                ))
            }
            ref same @ App::SameRun { .. } => {
                Refusal::new(same.to_string()).hint("name two different runs; list_runs shows them")
            }
            other => Refusal::new(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_follows_the_sentence() {
        assert_eq!(Refusal::new("no").text(), "no");
        assert_eq!(Refusal::new("no").hint("yes").text(), "no\n(hint: yes)");
    }
}
