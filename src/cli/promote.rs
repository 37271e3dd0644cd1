//! `digline promote`: make a run the baseline, only when it is safe to.
//!
//! Never a gate: 0 when the baseline is written, 64 when refused (other
//! suite, other rules, an errored check, a moved reference).

use clap::Args;

use crate::core::document::run_key;
use crate::host;
use crate::store::promote::{promote, PromotionRequest};
use crate::store::repo::LATEST;
use crate::store::Store;

use super::output::{errln, outln};
use super::warn::warn_if_ahead;
use super::{load_suite, CliError, ExitStatus, SuiteArgs};

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
    let loaded = load_suite(&args.suite)?;
    let suite = &loaded.suite;
    let store = Store::new(&args.suite.root);
    let stored = store.read_run(&suite.tenant, &suite.name, &args.run)?;
    crate::app::merge::refuse_a_shard(&stored.key, &stored.doc, &args.suite.to_ref())?;
    let current = store.read_baseline(&suite.tenant, &suite.name)?;
    warn_if_ahead(std::iter::once(&stored.doc).chain(current.as_ref()));
    let config_hash = suite.config_hash();
    let promoted_at = host::clock::now_iso();
    let suite_arg = args.suite.suite.display().to_string();
    let baseline = promote(&PromotionRequest {
        run: &stored.doc,
        run_key: &stored.key,
        tenant: &suite.tenant,
        suite: &suite.name,
        suite_arg: &suite_arg,
        config_hash: &config_hash,
        replacing,
        current: current.as_ref(),
        promoted_at: &promoted_at,
    })?;
    let path = store.write_baseline(&baseline)?;
    // The reference's spend (money and tokens) follows it, beside it.
    store.promote_spend(&suite.tenant, &suite.name, &stored.key)?;
    let spend_path = store
        .read_baseline_spend(&suite.tenant, &suite.name)
        .and_then(|_| store.baseline_spend_path(&suite.tenant, &suite.name).ok());
    outln(&format!(
        "{} baseline set to {}",
        suite.name,
        run_key(&baseline.created_at, &baseline.config_hash)
    ))?;
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
