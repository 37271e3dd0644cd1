//! `digline run`: ask the system under test about every case, store the run.
//!
//! stdout carries only the run key (or one JSON line with `--json`); the
//! plan goes to stderr first, then progress (a bar on a terminal, plain
//! lines elsewhere, nothing with `-q`) and the spend. Never a gate: 0 when
//! the run is stored, 64 when refused (bad suite, nothing listening, a
//! missing header variable or API key, an unpriced model, a missing
//! template variable, more calls than `--max-calls`: every preflight
//! problem listed at once, before any call).
//!
//! Every answer goes to the run's journal as it arrives
//! (`runs/<suite>/.pending/<key>.<leg>.jsonl`); the run document is written
//! only when the run is complete, and the journal removed after it. On
//! Ctrl-C or SIGTERM the run stops asking, the journal is left whole, one
//! line says how to resume, and the exit code is 64 (never 0, 1 or 2: the
//! run was not stored). `--resume [KEY]` finishes an unfinished run (the
//! latest without KEY), asking only for the cases nobody has an answer to;
//! it keeps the run's `created_at`, so the document and its key are the
//! ones the uninterrupted run would have written.

use clap::Args;
use serde_json::{Map, Value};

use crate::app::run::{RunFacts, RunRequest};
use crate::core::python::dumps::dumps_request_body;
use crate::host::runner::display;
use crate::report::locale::Locale;
use crate::report::progress::ProgressStrings;
use crate::run::retry::Retried;
use crate::run::Notifier;
use crate::store::repo::LATEST;

use super::output::{outln, StderrNotices};
use super::pool::PoolArgs;
use super::{CliError, ExitStatus, SuiteArgs};

/// Flags of `digline run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Which suite, which repository.
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Record KEY=VALUE in the run's metadata (repeatable; payload: never printed).
    #[arg(long, value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// Print one JSON line ({key, tenant, suite, sentence, output_version}) instead of the key.
    #[arg(long)]
    pub json: bool,
    /// Not for a suite that is data: its target is declared in [target].
    #[arg(long, hide = true, value_name = "SPEC")]
    pub target: Option<String>,
    /// Concurrency, retries and pace of the calls.
    #[command(flatten)]
    pub pool: PoolArgs,
    /// The judge memo and the spending cap.
    #[command(flatten)]
    pub cost: super::cost::CostArgs,
    /// The longest wait for a server, in seconds: a 429 asking for longer fails that call at once; no wait is longer.
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    pub max_wait: u64,
    /// Refuse the run if it plans more calls than this (target and judges together).
    #[arg(long, value_name = "N")]
    pub max_calls: Option<usize>,
    /// Finish an unfinished run (stopped by Ctrl-C, SIGTERM, a kill or a CI
    /// timeout) from its journal, asking only for the cases nobody has an
    /// answer to; KEY defaults to the latest unfinished run of the suite.
    #[arg(long, value_name = "KEY", num_args = 0..=1, default_missing_value = LATEST)]
    pub resume: Option<String>,
    /// Run only this job's share of the cases: K/N (1-based), or auto
    /// (GitLab's CI_NODE_INDEX/CI_NODE_TOTAL; on GitHub,
    /// DIGLINE_SHARD_INDEX/DIGLINE_SHARD_TOTAL from strategy.job-index/job-total).
    /// `digline merge` makes the shards one run.
    #[arg(long, value_name = "K/N|auto")]
    pub shard: Option<String>,
    /// With --shard: split the cases by the durations recorded in the newest
    /// full run (record_responses = true), not by the hash of the case id.
    #[arg(long, value_name = "durations", value_parser = ["durations"], requires = "shard")]
    pub balance: Option<String>,
    /// Ask every case N times to measure its noise (overrides [suite]
    /// samples for this run; no case errors for a missed min_agreement).
    /// Promote such a run: the gate then knows each case's own pass rate.
    #[arg(long, value_name = "N")]
    pub samples: Option<u32>,
    /// Ask only this case (repeatable) and keep the approved reference's
    /// results of every other case: a reference measured again where its
    /// history shows it was lucky. Promote the run to approve it.
    #[arg(long = "case", value_name = "ID", conflicts_with_all = ["shard", "resume"])]
    pub cases: Vec<String>,
    /// The language of the plan, progress and other lines on stderr.
    #[arg(long, default_value = "en", value_parser = super::locale::parser())]
    pub locale: Locale,
}

/// `--meta K=V` pairs as run metadata (string values).
///
/// # Errors
/// A usage refusal for a pair without `=` or with an empty key.
pub(super) fn metadata(pairs: &[String]) -> Result<Map<String, Value>, CliError> {
    let mut metadata = Map::new();
    for pair in pairs {
        let Some((k, v)) = pair.split_once('=') else {
            return Err(CliError::usage(
                format!("--meta '{pair}' is not KEY=VALUE"),
                Some("write it as --meta build=1234".into()),
            ));
        };
        if let Some(why) = crate::host::shards::reserved_meta(k) {
            return Err(CliError::usage(why, Some("choose another key".into())));
        }
        if k.is_empty() {
            return Err(CliError::usage(
                format!("--meta '{pair}' has an empty key"),
                Some("write it as --meta build=1234".into()),
            ));
        }
        metadata.insert(k.to_string(), Value::String(v.to_string()));
    }
    Ok(metadata)
}

impl RunArgs {
    /// The run's request, once the flags that do not apply are refused.
    ///
    /// # Errors
    /// A usage refusal: `--target`, `--meta` with `--resume`, a bad `--meta`.
    fn request(&self, quiet: bool) -> Result<RunRequest, CliError> {
        if self.target.is_some() {
            return Err(CliError::usage(
                format!(
                    "--target does not apply to {}: a suite that is data declares its target in [target], so the suite file is the one place that says what is asked",
                    self.suite.suite.display()
                ),
                Some("drop --target and edit [target] in the suite file".into()),
            ));
        }
        if self.resume.is_some() && !self.meta.is_empty() {
            return Err(CliError::usage(
                "--meta does not apply to --resume: a resumed run keeps the metadata it started with",
                Some("drop --meta".into()),
            ));
        }
        Ok(RunRequest {
            suite: self.suite.to_ref(),
            metadata: metadata(&self.meta)?,
            pool: self.cost.pool(self.pool.pool()),
            max_wait: std::time::Duration::from_secs(self.max_wait),
            max_calls: self.max_calls,
            resume: self.resume.clone(),
            shard: self.shard.clone(),
            balance: self.balance.is_some(),
            display: display(quiet),
            announce: !quiet,
            retried: Retried::default(),
            stop_on_signal: true,
            samples: self.samples,
            cases: self.cases.clone(),
        })
    }
}

/// Execute `digline run`.
///
/// # Errors
/// A [`CliError`] (exit 64) for anything refused before or while starting.
pub fn execute(args: RunArgs, quiet: bool) -> Result<ExitStatus, CliError> {
    let request = args.request(quiet)?;
    let RunFacts { key, doc, plan } = crate::app::run::run(&request, &notices(quiet, args.locale))?;
    tracing::info!(key = %key, unjudged = doc.unjudged_cases(), "run stored");
    let unjudged = doc.unjudged_cases();
    if unjudged > 0 {
        notices(quiet, args.locale)
            .plan(ProgressStrings::of(args.locale).unjudged(unjudged, plan.cases, &key));
    }
    if args.json {
        let line = crate::wire::run::run_json(&key, &doc.tenant, &doc.suite, &plan.sentence());
        outln(&dumps_request_body(&line))?;
    } else {
        outln(&key)?;
    }
    Ok(ExitStatus::Proceed)
}

/// The command line's sink for the run's notices: stderr, nothing but a
/// stop with `-q`, worded in `locale`.
pub(super) fn notices(quiet: bool, locale: Locale) -> Notifier {
    Notifier::new(std::sync::Arc::new(StderrNotices { quiet })).in_locale(locale)
}
