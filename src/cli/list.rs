//! `digline list`: the stored runs of a suite, newest first.
//!
//! The table digline 0.10.0 prints (`KEY CREATED ENV COMMIT CASES`, `*`
//! on the baseline's run), then one line per unreadable file. Never a gate.

use clap::Args;

use crate::core::document::run_key;
use crate::store::Store;

use super::{exit, load_suite, CliError, SuiteArgs};

/// Flags of `digline list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Which suite, which repository.
    #[command(flatten)]
    pub suite: SuiteArgs,
}

/// Execute `digline list`.
///
/// # Errors
/// A [`CliError`] (exit 64) for a bad suite or an unlistable store.
pub fn execute(args: ListArgs) -> Result<i32, CliError> {
    let loaded = load_suite(&args.suite)?;
    let suite = &loaded.suite;
    let store = Store::new(&args.suite.root);
    let listing = store.list_runs(&suite.tenant, &suite.name)?;
    let baseline_key = store
        .read_baseline(&suite.tenant, &suite.name)
        .ok()
        .flatten()
        .map(|b| run_key(&b.created_at, &b.config_hash));
    println!(
        "  {:<50} {:<34} {:<13} {:<15} CASES",
        "KEY", "CREATED", "ENV", "COMMIT"
    );
    for run in &listing.runs {
        let mark = if baseline_key.as_deref() == Some(run.key.as_str()) {
            '*'
        } else {
            ' '
        };
        let commit = match run.doc.git_commit.as_deref() {
            None | Some("") => "-".to_string(),
            Some(c) => {
                let (sha, dirty) = match c.strip_suffix("-dirty") {
                    Some(sha) => (sha, "-dirty"),
                    None => (c, ""),
                };
                format!("{}{dirty}", &sha[..sha.len().min(7)])
            }
        };
        println!(
            "{mark} {:<50} {:<34} {:<13} {:<15} {}",
            run.key,
            run.doc.created_at,
            run.doc.environment,
            commit,
            run.doc.results.len()
        );
    }
    if baseline_key.is_some() {
        println!("\n* = current baseline");
    }
    for (path, why) in &listing.unreadable {
        eprintln!("digline: left out {}: {why}", path.display());
    }
    Ok(exit::OK)
}
