//! `digline report`: the localized HTML report of a stored run — compared
//! with the baseline when there is one, on its own otherwise.
//!
//! Writes one self-contained HTML file (to `--out`, or stdout) and exits
//! like a gate: the comparison's code (0, 1, 2); with no baseline yet, 2 when
//! a case could not be judged, else 0 — never 1. `--locale` is mandatory (a
//! document has a recipient); an unknown one is refused (64) with the list.

use std::path::PathBuf;

use clap::Args;

use crate::app::report::ReportRequest;
use crate::report::locale::Locale;

use super::{CliError, ExitStatus, SuiteArgs};

/// Flags of `digline report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Which suite, which repository.
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The run to report: a key, or `latest`.
    #[arg(long, value_name = "KEY|latest")]
    pub run: String,
    /// The language of the report (dates and numbers stay ISO and dot-decimal).
    #[arg(long, required = true, value_parser = super::locale::parser())]
    pub locale: Locale,
    /// Write the report here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Leave out every payload field (judge and suspension reasons,
    /// metadata, file contents); the report says so.
    #[arg(long)]
    pub redacted: bool,
}

/// Execute `digline report`; returns the contract exit code.
///
/// # Errors
/// A [`CliError`] (exit 64): bad suite, unknown locale, no such run, an
/// unreadable document, runs of different tenants, an unwritable `--out`.
pub fn execute(args: ReportArgs) -> Result<ExitStatus, CliError> {
    let facts = crate::app::report::report(&ReportRequest {
        suite: args.suite.to_ref(),
        run: args.run,
        locale: args.locale,
        redacted: args.redacted,
    })?;
    match &args.out {
        Some(path) => {
            crate::store::atomic::write_output(path, facts.page.as_bytes()).map_err(
                |e| match e {
                    crate::store::StoreError::Io { cause, .. } => CliError::usage(
                        format!("cannot write the report to {}: {cause}", path.display()),
                        Some(
                            "pass --out a file in a directory that exists and is writable"
                                .to_string(),
                        ),
                    ),
                    other => CliError::Store(other),
                },
            )?;
        }
        None => super::output::out(&facts.page)?,
    }
    let code = facts.exit;
    crate::app::leave_to_exit(facts);
    Ok(code)
}
