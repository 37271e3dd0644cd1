//! `digline publish`: post or update the comment and the job summary from
//! a gate's outcome file (the Action runs it after uploading the report,
//! with the artifact's link). Publishing never changes the verdict: this
//! command exits 0 whatever the forge said (a warning says what failed),
//! 64 only when the outcome file cannot be read.

use std::path::PathBuf;

use clap::Args;

use crate::forge::outcome::Outcome;
use crate::host::env::CiEnv;

use super::gate::PublishArgs;
use super::output::{errln, outln};
use super::{CliError, ExitStatus};

/// Flags of `digline publish`.
#[derive(Debug, Args)]
pub struct PublishCmdArgs {
    /// The gate's outcome file (`outcome.json` in the gate's --out).
    #[arg(long, value_name = "FILE")]
    pub outcome: PathBuf,
    /// Publishing.
    #[command(flatten)]
    pub publishing: PublishArgs,
}

/// Execute `digline publish`.
///
/// # Errors
/// [`CliError`] (64) when the outcome file, the comment or the summary cannot be read.
pub fn execute(args: PublishCmdArgs, quiet: bool) -> Result<ExitStatus, CliError> {
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p).map_err(|e| {
            CliError::usage(
                format!("cannot read {}: {e}", p.display()),
                Some("pass the outcome.json that digline gate wrote into its --out".into()),
            )
        })
    };
    let text = read(&args.outcome)?;
    let outcome = Outcome::from_json(&text).map_err(|e| {
        CliError::usage(
            format!("{} is not a gate outcome file: {e}", args.outcome.display()),
            Some("pass the outcome.json that digline gate wrote into its --out".into()),
        )
    })?;
    outcome.check_marker().map_err(|why| {
        CliError::usage(
            format!(
                "{} is not this gate's outcome: {why}",
                args.outcome.display()
            ),
            Some("pass the outcome.json that digline gate wrote into its --out".into()),
        )
    })?;
    // The comment and summary sit beside the outcome file (its recorded
    // paths may be another machine's, e.g. inside the gate's container).
    let dir = args
        .outcome
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let comment = read(&dir.join("comment.md"))?;
    let summary = read(&dir.join("summary.md"))?;
    let env = CiEnv::read();
    let published = crate::app::publish::publish(
        &outcome,
        &comment,
        &summary,
        &args.publishing.publishing(),
        &env,
    );
    for line in published.stdout {
        outln(&line)?;
    }
    if !quiet {
        for line in published.stderr {
            errln(&line);
        }
    }
    Ok(ExitStatus::Proceed)
}
