//! `digline rejudge`: grade a stored run's recorded answers again with the
//! suite's current checks and judges, and store the result as a new run.
//!
//! The target is never called (nor built: a dead endpoint is fine), so the
//! only spend is the judges'. The new run names its source in
//! `rejudged_from`, carries the source's `target_config` and `artifacts`,
//! and can never be promoted. stdout carries only the new key (or one JSON
//! line with `--json`); the plan goes to stderr first. Never a gate: 0 when
//! the run is stored, 64 when refused (see `run::rejudge` for the
//! refusals), all before the first judge call. The work is `app::rejudge`.

use std::sync::Arc;

use clap::Args;

use crate::app::rejudge::{RejudgeFacts, RejudgeRequest};
use crate::core::python::dumps::dumps_request_body;
use crate::host::runner::display;
use crate::run::Notifier;

use super::output::{outln, StderrNotices};
use super::run::metadata;
use super::warn::warn;
use super::{CliError, ExitStatus, SuiteArgs};

/// Flags of `digline rejudge`.
#[derive(Debug, Args)]
pub struct RejudgeArgs {
    /// Which suite, which repository.
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The run whose recorded answers are graded again: a key, or `latest`.
    #[arg(long, value_name = "KEY|latest")]
    pub run: String,
    /// Record KEY=VALUE in the new run's metadata (repeatable; payload: never printed).
    #[arg(long, value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// Print one JSON line ({key, tenant, suite, sentence, output_version}) instead of the key.
    #[arg(long)]
    pub json: bool,
    /// Concurrency, retries and pace of the judge calls.
    #[command(flatten)]
    pub pool: super::pool::PoolArgs,
    /// The longest wait for a server, in seconds: a 429 asking for longer fails that call at once; no wait is longer.
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    pub max_wait: u64,
    /// Refuse if the re-judge plans more judge calls than this (the target is never called).
    #[arg(long, value_name = "N")]
    pub max_calls: Option<usize>,
}

/// Execute `digline rejudge`.
///
/// # Errors
/// A [`CliError`] (exit 64) for anything refused before the first judge call.
pub fn execute(args: RejudgeArgs, quiet: bool) -> Result<ExitStatus, CliError> {
    let request = RejudgeRequest {
        suite: args.suite.to_ref(),
        run: args.run,
        metadata: metadata(&args.meta)?,
        pool: args.pool.pool(),
        max_wait: std::time::Duration::from_secs(args.max_wait),
        max_calls: args.max_calls,
        display: display(quiet),
    };
    let source = crate::app::rejudge::read(&request)?;
    if let Some(note) = &source.ahead {
        warn(note);
    }
    let notices = Notifier::new(Arc::new(StderrNotices { quiet }));
    let RejudgeFacts { key, doc, plan } = crate::app::rejudge::rejudge(&request, source, &notices)?;
    if args.json {
        let line =
            crate::wire::run::run_json(&key, &doc.tenant, &doc.suite, &plan.replay_sentence());
        outln(&dumps_request_body(&line))?;
    } else {
        outln(&key)?;
    }
    Ok(ExitStatus::Proceed)
}
