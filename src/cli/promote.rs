//! `digline promote`: make a run the baseline, only when it is safe to.
//!
//! Never a gate: 0 when the baseline is written, 64 when refused (other
//! suite, other rules, an errored check, a moved reference).

use clap::Args;

use crate::app::promote::{PromoteRequest, Promoted};
use crate::store::repo::LATEST;

use super::output::{errln, outln};
use super::warn::warn;
use super::{CliError, ExitStatus, SuiteArgs};

/// Flags of `digline promote`.
#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// Which suite, which repository.
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The run to promote: a key, or `latest`.
    #[arg(long, value_name = "KEY|latest")]
    pub run: String,
    /// Only if the current baseline is this run (`none`: only if there is no baseline yet).
    #[arg(long, value_name = "KEY|none")]
    pub replacing: Option<String>,
}

/// Execute `digline promote`.
///
/// # Errors
/// A [`CliError`] (exit 64) naming the condition that failed.
pub fn execute(args: PromoteArgs, quiet: bool) -> Result<ExitStatus, CliError> {
    let replacing = match args.replacing.as_deref() {
        None => None,
        Some("none") => Some(None),
        Some(key) if crate::store::repo::is_safe_name(key) && key != LATEST => Some(Some(key)),
        Some(other) => {
            return Err(CliError::usage(
                format!("--replacing '{other}' is neither a run key nor none: it names the baseline you reviewed, exactly"),
                Some("see the current baseline's key with digline list --suite <suite.toml> (marked *), or pass --replacing none when there is none".into()),
            ))
        }
    };
    let request = PromoteRequest {
        suite: args.suite.to_ref(),
        run: args.run,
        replacing: replacing.map(|r| r.map(str::to_string)),
    };
    let read = crate::app::promote::read(&request)?;
    if let Some(note) = &read.ahead {
        warn(note);
    }
    let Promoted {
        suite,
        key,
        path,
        spend_path,
    } = crate::app::promote::promote(&request, read)?;
    outln(&format!("{suite} baseline set to {key}"))?;
    if !quiet {
        match spend_path {
            Some(spend) => errln(&format!(
                "digline: commit {} and {} so the gate compares against it and shows what it spent",
                path.display(),
                spend.display()
            )),
            None => errln(&format!(
                "digline: commit {} so the gate compares against it",
                path.display()
            )),
        }
    }
    Ok(ExitStatus::Proceed)
}
