//! `digline run`: ask the system under test about every case, store the run.
//!
//! stdout carries only the run key (or one JSON line with `--json`); the
//! plan goes to stderr first, then progress (a bar on a terminal, plain
//! lines elsewhere, nothing with `-q`) and the spend. Never a gate: 0 when
//! the run is stored, 64 when refused (bad suite, nothing listening, a
//! missing header variable or API key, an unpriced model, a missing
//! template variable, more calls than `--max-calls`: every preflight
//! problem listed at once, before any call).

use clap::Args;
use serde_json::{Map, Value};

use std::time::Duration;

use crate::core::document::RunDocument;
use crate::core::pyjson::dumps_request_body;
use crate::host;
use crate::host::provider_suite;
use crate::host::suite::TargetSpec;
use crate::run::{
    execute as run_suite, preflight, Ask, Display, Judge, NoJudges, Plan, RetryPolicy, RunContext,
};
use crate::store::Store;
use crate::target::http::HttpTarget;
use crate::target::judge::Judges;
use crate::target::provider::ProviderTarget;

use super::{exit, load_suite, CliError, SuiteArgs};

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
    /// Cases in flight at once (the pool slows down on repeated 429s and recovers).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    /// Retries of a call that failed with 429, 5xx, a reset or a timeout (0 = none).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub max_retries: u32,
    /// Refuse the run if it plans more calls than this (target and judges together).
    #[arg(long, value_name = "N")]
    pub max_calls: Option<usize>,
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

/// The suite's judges (endpoints and keys from the environment) and their
/// preflight problems.
///
/// # Errors
/// A refusal when a judge cannot be set up at all.
pub(super) fn judges(suite: &crate::core::suite::Suite) -> Result<(Judges, Vec<String>), CliError> {
    let coordinates: Vec<&str> = suite
        .checks
        .iter()
        .filter_map(|c| c.judge_coordinate())
        .collect();
    let judges = Judges::new(coordinates, |kind| {
        provider_suite::endpoint(kind, None, &env)
    })
    .map_err(CliError::Refused)?;
    let problems = judges
        .clients()
        .iter()
        .filter_map(|j| j.preflight_problem())
        .collect();
    Ok((judges, problems))
}

/// The warning for each judge without a price (its spend is not counted).
pub(super) fn warn_unpriced(judges: &Judges) {
    for judge in judges.clients().iter().filter(|j| !j.is_priced()) {
        eprintln!(
            "digline: warning: the judge {} has no price, so its spend is not counted",
            judge.coordinate()
        );
    }
}

/// The process environment, read here (host's job) and passed down.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// How progress is shown: nothing with `-q`; in CI (`CI` set) a plain line
/// every 5 s and one at the end; a bar on a terminal; nothing on a pipe
/// outside CI (stderr keeps the plan and warnings only).
pub(super) fn display(quiet: bool) -> Display {
    use std::io::IsTerminal;
    if quiet {
        Display::Quiet
    } else if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        Display::Lines {
            every: Duration::from_secs(5),
        }
    } else if std::io::stderr().is_terminal() {
        Display::Bar
    } else {
        Display::Quiet
    }
}

/// The target, built: HTTP (headers expanded) or a provider (endpoint and key
/// from the environment), with its preflight problems.
enum Built {
    Http(HttpTarget),
    Provider(ProviderTarget),
}

/// Everything `run` does before printing: load, preflight, ask, store.
/// `gate` runs the suite through this too. Returns the key, the document
/// and the plan.
///
/// # Errors
/// A [`CliError`] (exit 64) for anything refused before or while starting.
pub fn run_and_store(args: &RunArgs, quiet: bool) -> Result<(String, RunDocument, Plan), CliError> {
    if args.target.is_some() {
        return Err(CliError::usage(
            format!(
                "--target does not apply to {}: a suite that is data declares its target in [target], so the suite file is the one place that says what is asked",
                args.suite.suite.display()
            ),
            Some("drop --target and edit [target] in the suite file".into()),
        ));
    }
    let metadata = metadata(&args.meta)?;
    let loaded = load_suite(&args.suite)?;
    let plan = Plan::of(&loaded.suite);
    let mut artifact_paths = loaded.suite.artifacts.clone();
    let mut problems: Vec<String> = Vec::new();
    let built = match &loaded.target {
        TargetSpec::Http(spec) => {
            let headers = host::suite::expand_headers(spec, env)?;
            Built::Http(HttpTarget::new(spec.clone(), headers).map_err(CliError::Refused)?)
        }
        TargetSpec::Provider(spec) => {
            for template in std::iter::once(&spec.prompt).chain(spec.system.as_ref()) {
                if let Some(path) = &template.origin {
                    if !artifact_paths.contains(path) {
                        artifact_paths.push(path.clone());
                    }
                }
            }
            let endpoint = provider_suite::endpoint(spec.kind, spec.base_url.as_deref(), &env);
            let target = ProviderTarget::new(spec.clone(), &endpoint).map_err(CliError::Refused)?;
            problems.extend(target.preflight_problems(&loaded.suite.cases));
            Built::Provider(target)
        }
    };
    let (judges, judge_problems) = judges(&loaded.suite)?;
    problems.extend(judge_problems);
    problems.extend(plan.over(args.max_calls));
    preflight::refuse_if_any(&problems).map_err(CliError::Refused)?;
    let store = Store::new(&args.suite.root);
    store.check_writable(&loaded.suite.tenant, &loaded.suite.name)?;
    if let Built::Http(target) = &built {
        if plan.cases > 0 {
            target.preflight().map_err(CliError::Refused)?;
        }
    }
    let artifacts = host::artifacts::record(&loaded.suite_dir, &artifact_paths)?;
    if !quiet {
        eprintln!("digline: {}", plan.sentence());
        if let Some(judging) = plan.judge_sentence() {
            eprintln!("digline: {judging}");
        }
        warn_unpriced(&judges);
    }
    tracing::info!(
        tenant = %loaded.suite.tenant,
        suite = %loaded.suite.name,
        calls = plan.calls(),
        concurrency = args.concurrency,
        "starting the run"
    );
    let ctx = RunContext {
        created_at: host::clock::now_iso(),
        git_commit: host::git::commit(&args.suite.root)
            .or_else(|| host::git::commit_from_files(&args.suite.root)),
        digline_version: env!("CARGO_PKG_VERSION").to_string(),
        metadata: metadata.clone(),
        artifacts,
        concurrency: args.concurrency as usize,
        retry: RetryPolicy {
            max_retries: args.max_retries,
            ..RetryPolicy::default()
        },
        display: display(quiet),
        seed: host::clock::seed(),
    };
    let target: &dyn Ask = match &built {
        Built::Http(t) => t,
        Built::Provider(t) => t,
    };
    let judge: &dyn Judge = if judges.clients().is_empty() {
        &NoJudges
    } else {
        &judges
    };
    let doc = run_suite(&loaded.suite, target, judge, &ctx)
        .map_err(|e| CliError::Refused(e.to_string()))?;
    let key = store.write_run(&doc)?;
    Ok((key, doc, plan))
}

/// Execute `digline run`.
///
/// # Errors
/// A [`CliError`] (exit 64) for anything refused before or while starting.
pub fn execute(args: RunArgs, quiet: bool) -> Result<i32, CliError> {
    let (key, doc, plan) = run_and_store(&args, quiet)?;
    tracing::info!(key = %key, unjudged = doc.unjudged_cases(), "run stored");
    let unjudged = doc.unjudged_cases();
    if unjudged > 0 && !quiet {
        eprintln!(
            "digline: {unjudged} of {} case(s) could not be judged; the run document ({key}) records why",
            plan.cases
        );
    }
    if args.json {
        let line = crate::wire::run::run_json(&key, &doc.tenant, &doc.suite, &plan.sentence());
        println!("{}", dumps_request_body(&line));
    } else {
        println!("{key}");
    }
    Ok(exit::OK)
}
