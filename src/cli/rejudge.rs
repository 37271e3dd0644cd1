//! `digline rejudge`: grade a stored run's recorded answers again with the
//! suite's current checks and judges, and store the result as a new run.
//!
//! The target is never called (nor built: a dead endpoint is fine), so the
//! only spend is the judges'. The new run names its source in
//! `rejudged_from`, carries the source's `target_config` and `artifacts`,
//! and can never be promoted. stdout carries only the new key (or one JSON
//! line with `--json`); the plan goes to stderr first. Never a gate: 0 when
//! the run is stored, 64 when refused (see `run::rejudge` for the
//! refusals), all before the first judge call.

use std::sync::Arc;

use clap::Args;

use crate::core::python::dumps::dumps_request_body;
use crate::host;
use crate::run::rejudge::{rejudge_spent, Replay};
use crate::run::{preflight, Judge, NoJudges, Notifier, Plan, RetryPolicy, RunContext};
use crate::store::{Store, StoreError};

use super::output::{outln, StderrNotices};
use super::run::metadata;
use super::warn::warn_if_ahead;
use super::{load_suite, CliError, ExitStatus, SuiteArgs};
use crate::host::runner::{display, judges, warn_unpriced};

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
    /// The judge memo and the spending cap (the judges' spend only: the target is not called).
    #[command(flatten)]
    pub cost: super::cost::CostArgs,
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
    let metadata = metadata(&args.meta)?;
    let loaded = load_suite(&args.suite)?;
    let suite = &loaded.suite;
    let store = Store::new(&args.suite.root);
    let source = store
        .read_run(&suite.tenant, &suite.name, &args.run)
        .map_err(|e| match e {
            StoreError::Misplaced {
                path,
                what,
                found,
                expected,
            } => CliError::Refused(format!(
                "{} belongs to {what} '{found}', not to this suite's {what} '{expected}': a re-judge never crosses a tenant or a suite, so re-judge one of this suite's own runs (digline list --suite {} shows them)",
                path.display(),
                args.suite.suite.display()
            )),
            other => CliError::Store(other),
        })?;
    warn_if_ahead(std::iter::once(&source.doc));
    // The run and the suite must fit before anything else is checked.
    Replay::new(suite, &source.doc, &source.key).map_err(|e| CliError::Refused(e.to_string()))?;
    let plan = Plan::of(suite);
    let (judges, mut problems) = judges(suite)?;
    problems.extend(plan.replay_over(args.max_calls));
    preflight::refuse_if_any(&problems).map_err(CliError::Refused)?;
    store.check_writable(&suite.tenant, &suite.name)?;
    let notices = Notifier::new(Arc::new(StderrNotices { quiet }));
    notices.plan(plan.replay_sentence());
    warn_unpriced(&judges, &notices);
    tracing::info!(
        tenant = %suite.tenant,
        suite = %suite.name,
        source = %source.key,
        judge_calls = plan.judge_calls(),
        "re-judging a stored run"
    );
    let ctx = RunContext {
        created_at: host::clock::now_iso(),
        git_commit: host::git::commit(&args.suite.root),
        digline_version: env!("CARGO_PKG_VERSION").to_string(),
        metadata,
        artifacts: serde_json::Map::new(),
        concurrency: args.pool.workers(),
        retry: RetryPolicy {
            max_retries: args.pool.max_retries,
            max_wait: std::time::Duration::from_secs(args.max_wait),
            ..RetryPolicy::default()
        },
        display: display(quiet),
        notices: notices.clone(),
        seed: host::clock::seed(),
        quota: args.pool.quota(),
        retried: crate::run::retry::Retried::default(),
        cost: args.cost.options().controls(
            &store,
            &args.suite.root,
            suite,
            args.pool.quota(),
            &crate::host::runner::quota_identity(crate::host::runner::judge_parties(&judges)),
        ),
    };
    let judge: &dyn Judge = if judges.clients().is_empty() {
        &NoJudges
    } else {
        &judges
    };
    let (doc, spent) = rejudge_spent(suite, &source.doc, &source.key, judge, &ctx)
        .map_err(|e| CliError::Refused(e.to_string()))?;
    crate::host::runner::announce_spend(
        &spent,
        &args.cost.options(),
        doc.unjudged_cases(),
        &notices,
    );
    let key = store.write_run(&doc)?;
    store.write_run_spend(&suite.tenant, &suite.name, &key, &spent)?;
    tracing::info!(key = %key, unjudged = doc.unjudged_cases(), "re-judged run stored");
    let unjudged = doc.unjudged_cases();
    if unjudged > 0 {
        notices.plan(format!(
            "{unjudged} of {} case(s) could not be judged; the run document ({key}) records why",
            plan.cases
        ));
    }
    if args.json {
        let line =
            crate::wire::run::run_json(&key, &doc.tenant, &doc.suite, &plan.replay_sentence());
        outln(&dumps_request_body(&line))?;
    } else {
        outln(&key)?;
    }
    Ok(ExitStatus::Proceed)
}
