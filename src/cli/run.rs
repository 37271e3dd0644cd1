//! `digline run`: ask the system under test about every case, store the run.
//!
//! stdout carries only the run key (or one JSON line with `--json`); the
//! plan goes to stderr first. Never a gate: 0 when the run is stored, 64
//! when refused (bad suite, nothing listening, a missing header variable).

use clap::Args;
use serde_json::{Map, Value};

use crate::core::pyjson::dumps_request_body;
use crate::host;
use crate::run::{execute as run_suite, Plan, RunContext};
use crate::store::Store;
use crate::target::http::HttpTarget;

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
    /// Calls to the target in flight at once.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
}

/// Execute `digline run`.
///
/// # Errors
/// A [`CliError`] (exit 64) for anything refused before or while starting.
pub fn execute(args: RunArgs, quiet: bool) -> Result<i32, CliError> {
    if args.target.is_some() {
        return Err(CliError::usage(
            format!(
                "--target does not apply to {}: a suite that is data declares its target in [target], so the suite file is the one place that says what is asked",
                args.suite.suite.display()
            ),
            Some("drop --target and edit [target] in the suite file".into()),
        ));
    }
    let mut metadata = Map::new();
    for pair in &args.meta {
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
    let loaded = load_suite(&args.suite)?;
    let headers = host::suite::expand_headers(&loaded.target, |name| std::env::var(name).ok())?;
    let artifacts = host::artifacts::record(&loaded.suite_dir, &loaded.suite.artifacts)?;
    let target = HttpTarget::new(loaded.target.clone(), headers).map_err(CliError::Refused)?;
    let plan = Plan::of(&loaded.suite);
    let store = Store::new(&args.suite.root);
    store.check_writable(&loaded.suite.tenant, &loaded.suite.name)?;
    if plan.cases > 0 {
        target.preflight().map_err(CliError::Refused)?;
    }
    if !quiet {
        eprintln!("digline: {}", plan.sentence());
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
        git_commit: host::git::commit(&args.suite.root),
        digline_version: env!("CARGO_PKG_VERSION").to_string(),
        metadata,
        artifacts,
        concurrency: args.concurrency as usize,
    };
    let doc =
        run_suite(&loaded.suite, &target, &ctx).map_err(|e| CliError::Refused(e.to_string()))?;
    let key = store.write_run(&doc)?;
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
