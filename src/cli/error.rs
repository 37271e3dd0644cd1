//! The front end's words for a refusal: every refusal is an
//! [`app::Refusal`](crate::app::Refusal) (its facts, its hint as data), and
//! this file says it as the command line does.
//!
//! All of them are exit 64 (refused); a panic is caught apart and is 70.
//! Hints are data, not words baked into the sentence: the front end prints
//! the sentence as `digline: <sentence>` and then each hint once, as a
//! `(hint: …)` line ([`render`]) — or none with `-q`.

use crate::app::Refusal;

use super::exit::ExitStatus;

/// Why a command refused to act: the use cases' refusal, worded here.
pub type CliError = Refusal;

/// How the command line says a refusal.
pub trait Words {
    /// The sentence (after `digline: `).
    fn sentence(&self) -> String;

    /// What to do instead, if anything: printed after the sentence.
    fn hints(&self) -> Vec<String>;

    /// The exit status for this refusal (always [`ExitStatus::Refused`]).
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Refused
    }

    /// The text printed on stderr (no trailing newline); `quiet` (`-q`)
    /// leaves the hints out.
    fn render(&self, quiet: bool) -> String {
        let hints = self.hints();
        let hints: Vec<&str> = hints.iter().map(String::as_str).collect();
        render(&self.sentence(), &hints, quiet)
    }
}

impl Words for Refusal {
    fn sentence(&self) -> String {
        match self {
            Refusal::FlagMismatch { .. } => {
                format!("{self}: the suite decides, and this flag only verifies")
            }
            other => other.to_string(),
        }
    }

    fn hints(&self) -> Vec<String> {
        let hint = match self {
            Refusal::Usage { hint, .. } => hint.clone(),
            Refusal::FlagMismatch { flag, declared, .. } => {
                Some(format!("drop {flag}, or pass {flag} {declared}"))
            }
            Refusal::NoBaseline { run_key, named, .. } => Some(format!(
                "look at the run, then make it the reference: digline promote --suite {named} --run {run_key}"
            )),
            Refusal::ShardRun { named, .. } => Some(format!(
                "merge every shard first: digline merge --suite {named} --shards <the shard runs>"
            )),
            Refusal::SameRun { named, .. } => Some(format!(
                "name two different runs; digline list --suite {named} shows them"
            )),
            _ => None,
        };
        hint.into_iter().collect()
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
