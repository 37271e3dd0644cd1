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

use crate::core::document::RunDocument;
use crate::core::python::dumps::dumps_request_body;
use crate::host::runner::{display, Prepared, RunOptions};
use crate::report::locale::Locale;
use crate::report::progress::ProgressStrings;
use crate::run::retry::Retried;
use crate::run::{Notifier, Plan};
use crate::store::repo::LATEST;

use super::output::{outln, StderrNotices};
use super::pool::PoolArgs;
use super::{load_suite, CliError, ExitStatus, SuiteArgs};

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

/// Everything `run` does before printing: load, preflight, ask, store
/// (`host::runner`). `gate` runs the suite through this too. Returns the
/// key, the document and the plan.
///
/// # Errors
/// A [`CliError`] (exit 64) for anything refused before or while starting.
pub fn run_and_store(args: &RunArgs, quiet: bool) -> Result<(String, RunDocument, Plan), CliError> {
    run_and_count(args, quiet, &Retried::default())
}

/// [`run_and_store`], counting the retries into `retried`; prints the
/// counts on stderr (unless `quiet`) when any call was tried again.
///
/// # Errors
/// As [`run_and_store`].
pub fn run_and_count(
    args: &RunArgs,
    quiet: bool,
    retried: &Retried,
) -> Result<(String, RunDocument, Plan), CliError> {
    if args.target.is_some() {
        return Err(CliError::usage(
            format!(
                "--target does not apply to {}: a suite that is data declares its target in [target], so the suite file is the one place that says what is asked",
                args.suite.suite.display()
            ),
            Some("drop --target and edit [target] in the suite file".into()),
        ));
    }
    if args.resume.is_some() && !args.meta.is_empty() {
        return Err(CliError::usage(
            "--meta does not apply to --resume: a resumed run keeps the metadata it started with",
            Some("drop --meta".into()),
        ));
    }
    let mut metadata = metadata(&args.meta)?;
    let mut loaded = load_suite(&args.suite)?;
    if let Some(n) = args.samples {
        measure_noise(&mut loaded.suite, n, args.resume.is_some())?;
    }
    let mut quota = args.pool.quota();
    if let Some(spec) = &args.shard {
        let shard = crate::host::shards::resolve(spec, &crate::host::runner::env)
            .map_err(|why| CliError::usage(why, None))?;
        let record = match &args.balance {
            None => {
                let (record, others) = crate::host::shards::restrict(&mut loaded, shard);
                // The other shards' cases are not needed again in this process.
                super::leave_to_exit(others);
                record
            }
            Some(_) => {
                let store = crate::store::Store::new(&args.suite.root);
                let source = crate::host::shards::newest_full_run(
                    &store,
                    &loaded.suite.tenant,
                    &loaded.suite.name,
                )?;
                let (record, timed) = crate::host::shards::restrict_balanced(
                    &mut loaded,
                    shard,
                    source.as_ref().map(|(_, doc)| doc),
                );
                let strings = ProgressStrings::of(args.locale);
                notices(quiet, args.locale).plan(match &source {
                    Some((key, _)) => strings.shard_balanced(&shard.to_string(), timed, key),
                    None => strings.shard_unbalanced(&shard.to_string()),
                });
                record
            }
        };
        // Each shard takes its share of a quota the shards hold together.
        quota = quota.share(shard.index, shard.total);
        notices(quiet, args.locale).plan(ProgressStrings::of(args.locale).shard(
            &shard.to_string(),
            loaded.suite.cases.len(),
            &record.plan.to_string(),
        ));
        metadata.insert(
            crate::core::shard::RECORD_KEY.to_string(),
            Value::String(record.to_value()),
        );
    }
    let prepared = Prepared::prepare(loaded, args.max_calls)?;
    let options = RunOptions {
        root: args.suite.root.clone(),
        metadata,
        concurrency: args.pool.workers(),
        max_retries: args.pool.max_retries,
        max_wait: std::time::Duration::from_secs(args.max_wait),
        quota,
        retried: retried.clone(),
        resume: args.resume.clone(),
        display: display(quiet),
        announce: !quiet,
        notices: notices(quiet, args.locale),
        resume_hint_on_signal: Some(format!(
            "digline run --suite {}",
            args.suite.suite.display()
        )),
    };
    let stored = prepared.execute(&options)?;
    if let Some(line) = retried.counts().sentence_in(args.locale) {
        if !quiet {
            super::output::errln(&format!("digline: {line}"));
        }
    }
    Ok(stored)
}

/// The gate's re-ask phase for run `key` against `reference`: the pairs
/// that failed where the reference passed are asked again (`run::reask`),
/// and the evidence is kept beside the run (`store::reasks`), where the
/// gate, `compare` and MCP read it. No call is made, and nothing is
/// written, when nothing was triggered.
///
/// # Errors
/// A [`CliError`] when the target cannot be built again, the calls are
/// stopped, or the record cannot be written.
pub fn reask_against(
    args: &RunArgs,
    loaded: &crate::host::suite::LoadedSuite,
    key: &str,
    run: &RunDocument,
    reference: &RunDocument,
    quiet: bool,
) -> Result<(), CliError> {
    let comparison = crate::core::compare::compare(run, reference)
        .map_err(|e| CliError::Refused(e.to_string()))?;
    let triggered = crate::core::compare::reask::triggered(&comparison);
    let store = crate::store::Store::new(&args.suite.root);
    if triggered.is_empty() {
        // Kept empty all the same: the run was gated under this rule, and
        // `compare` of it then decides as the gate did.
        let record = crate::run::reask::nothing_to_reask(reference, loaded.suite.false_alarm_rate);
        return Ok(store.write_run_reasks(&run.tenant, &run.suite, key, &record)?);
    }
    let prepared = Prepared::prepare(loaded.clone(), None)?;
    let options = RunOptions {
        root: args.suite.root.clone(),
        metadata: Map::new(),
        concurrency: args.pool.workers(),
        max_retries: args.pool.max_retries,
        max_wait: std::time::Duration::from_secs(args.max_wait),
        quota: args.pool.quota(),
        retried: Retried::default(),
        resume: None,
        display: display(true),
        announce: false,
        notices: notices(quiet, args.locale),
        resume_hint_on_signal: None,
    };
    let record = prepared.reask(reference, &comparison, &options)?;
    store.write_run_reasks(&run.tenant, &run.suite, key, &record)?;
    if !quiet {
        super::output::errln(&format!(
            "digline: {}",
            ProgressStrings::of(args.locale).reasked(triggered.len(), record.calls())
        ));
    }
    Ok(())
}

/// `--samples N`: the suite asks every case `n` times for this run.
///
/// # Errors
/// A usage refusal for 0, more than the most samples, or with `--resume`
/// (a resumed run keeps the samples it started with).
fn measure_noise(
    suite: &mut crate::core::suite::Suite,
    n: u32,
    resuming: bool,
) -> Result<(), CliError> {
    use crate::core::ratio::{sample_count, too_many_samples, SamplesRefused};
    if resuming {
        return Err(CliError::usage(
            "--samples does not apply to --resume: a resumed run keeps the samples it started with",
            Some("drop --samples".into()),
        ));
    }
    match sample_count(i128::from(n), 1) {
        Ok(count) => {
            suite.measure_noise(count);
            Ok(())
        }
        Err(SamplesRefused::TooMany) => Err(CliError::usage(
            format!("--samples: {}", too_many_samples(i128::from(n))),
            None,
        )),
        Err(SamplesRefused::TooFew) => Err(CliError::usage(
            "--samples is 0, and at least one call per case is needed to judge anything",
            Some("ask each case 5 times to measure its noise: --samples 5".into()),
        )),
    }
}

/// Execute `digline run`.
///
/// # Errors
/// A [`CliError`] (exit 64) for anything refused before or while starting.
pub fn execute(args: RunArgs, quiet: bool) -> Result<ExitStatus, CliError> {
    let (key, doc, plan) = run_and_store(&args, quiet)?;
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
