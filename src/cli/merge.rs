//! `digline merge`: make the shard runs of one suite (`run --shard K/N`,
//! as CI artifacts arrive: files, or directories holding them) into the
//! one run a single job over every case would have stored, store it and
//! print its key, as `run` does. The merge is `app::merge`, which
//! `gate --shards` merges through too before gating the merged run once.
//!
//! Refused (64): a missing shard, a shard of another plan, suite, tenant or
//! configuration, overlapping or duplicated shards, a copy of another
//! shard, a shard whose cases lack what the suite declares for them
//! (`run::merge`). Never a gate: 0 when stored.

use std::path::PathBuf;

use clap::Args;

use crate::app::merge::MergeRequest;
use crate::report::locale::Locale;

use super::exit::ExitStatus;
use super::{CliError, SuiteArgs};

/// Flags of `digline merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Which suite, which repository (the merged run is stored there).
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The shard runs: files, or directories searched for *.json (every shard, once).
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    pub shards: Vec<PathBuf>,
}

/// Execute `digline merge`: print the merged run's key.
///
/// # Errors
/// A [`CliError`] (exit 64): a suite that does not load, a shard that does
/// not read, any refusal of the merge, a store that cannot take the run.
pub fn execute(args: MergeArgs, quiet: bool) -> Result<ExitStatus, CliError> {
    let request = MergeRequest {
        suite: args.suite.to_ref(),
        shards: args.shards,
    };
    let merged = crate::app::merge::merge(&request, &super::run::notices(quiet, Locale::En))?;
    crate::app::leave_to_exit(merged.loaded);
    super::output::outln(&merged.key)?;
    crate::app::leave_to_exit(merged.doc);
    Ok(ExitStatus::Proceed)
}
