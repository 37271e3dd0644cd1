//! `digline migrate [--dry-run]`: bring every stored document up to schema 10.
//!
//! Walks every tenant and suite under `<root>/.digline/` (or, with
//! `--suite`, that suite's runs and baseline only, as digline 0.10.0 does),
//! applies the additive steps of ADR 0014 §2, re-reads each result with the
//! current reader and rewrites it atomically. `--dry-run` says what would
//! change and writes nothing. A refused file (a newer schema: upgrade
//! digline; older than 4: not migratable) is named on stderr and left as it
//! was; the others are still migrated. Exit 0 when nothing was refused,
//! 64 otherwise. Never run implicitly: reads never migrate.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::store::migrate::migrate_paths;
use crate::store::Store;

use super::output::{errln, outln};
use super::{load_suite, CliError, ExitStatus, SuiteArgs};

/// Flags of `digline migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The repository root holding .digline/.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Only this suite's runs and baseline (default: every tenant and suite).
    #[arg(long, value_name = "SUITE.toml")]
    pub suite: Option<PathBuf>,
    /// Report what would change without writing anything.
    #[arg(long)]
    pub dry_run: bool,
}

/// Execute `digline migrate`.
///
/// # Errors
/// A [`CliError`] (exit 64) for a bad `--suite` or an unlistable store;
/// refused files are reported and make the exit code 64 without an error.
pub fn execute(args: MigrateArgs) -> Result<ExitStatus, CliError> {
    let store = Store::new(&args.root);
    let paths = match &args.suite {
        None => store.document_paths()?,
        Some(suite) => {
            let loaded = load_suite(&SuiteArgs {
                suite: suite.clone(),
                root: args.root.clone(),
                tenant: None,
                environment: None,
            })?;
            let s = &loaded.suite;
            let prefix = store.runs_dir(&s.tenant, &s.name)?;
            let baseline = store.baseline_path(&s.tenant, &s.name)?;
            store
                .document_paths()?
                .into_iter()
                .filter(|p| p.parent() == Some(prefix.as_path()) || *p == baseline)
                .collect()
        }
    };
    for path in &paths {
        store.ensure_inside(path)?;
    }
    if paths.is_empty() {
        outln(&format!("nothing stored under {}", store.dir().display()))?;
        return Ok(ExitStatus::Proceed);
    }
    let report = migrate_paths(&paths, args.dry_run);
    let verb = if args.dry_run {
        "would migrate"
    } else {
        "migrated"
    };
    for (path, from) in &report.migrated {
        outln(&format!(
            "{verb} {} from schema {from}",
            shown(&args.root, path)
        ))?;
    }
    outln(&format!(
        "{} {verb}, {} already current, {} refused",
        report.migrated.len(),
        report.current,
        report.refused.len()
    ))?;
    for (_, why) in &report.refused {
        errln(&format!("digline: refused: {why}"));
    }
    Ok(if report.refused.is_empty() {
        ExitStatus::Proceed
    } else {
        ExitStatus::Refused
    })
}

/// `path` relative to `root` when it is below it.
fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}
