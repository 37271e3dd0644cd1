//! `digline list`: the stored runs of a suite, newest first.
//!
//! The table digline 0.10.0 prints (`KEY CREATED ENV COMMIT CASES`, `*`
//! on the baseline's run), newest first by the recorded `created_at`; then
//! the note of what was left out (`ignored: 2 run(s) at schema 9, 1
//! unreadable file(s)`) with the advice in the direction the versions say
//! (older: `digline migrate`; newer: upgrade digline), and on stderr why
//! each unreadable file was left out. Never a gate: 0 when it listed.

use clap::Args;

use super::output::{errln, out};
use super::warn::warn;
use super::{CliError, ExitStatus, SuiteArgs};

/// Flags of `digline list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Which suite, which repository.
    #[command(flatten)]
    pub suite: SuiteArgs,
}

/// Execute `digline list`; `quiet` (`-q`) leaves out the stderr notes.
///
/// # Errors
/// A [`CliError`] (exit 64) for a bad suite or an unlistable store.
pub fn execute(args: ListArgs, quiet: bool) -> Result<ExitStatus, CliError> {
    let facts = crate::app::list::list(&args.suite.to_ref())?;
    let baseline_key = match &facts.baseline_key {
        Ok(key) => key.clone(),
        Err(e) => {
            if !quiet {
                errln(&format!("digline: the baseline is not marked: {e}"));
            }
            None
        }
    };
    let (listing, tenant, suite) = (&facts.listing, &facts.tenant, &facts.suite);
    let mut page = String::new();
    let mut line = |text: String| {
        page.push_str(&text);
        page.push('\n');
    };
    if listing.runs.is_empty() {
        line(format!("no runs for suite '{suite}' in tenant '{tenant}'"));
    } else {
        line(format!(
            "  {:<50} {:<34} {:<13} {:<15} CASES",
            "KEY", "CREATED", "ENV", "COMMIT"
        ));
        for run in &listing.runs {
            let mark = if baseline_key.as_deref() == Some(run.key.as_str()) {
                '*'
            } else {
                ' '
            };
            line(format!(
                "{mark} {:<50} {:<34} {:<13} {:<15} {}",
                run.key,
                run.doc.created_at,
                run.doc.environment,
                short_commit(run.doc.git_commit.as_deref()),
                run.cases
            ));
        }
        if baseline_key.is_some() {
            line("\n* = current baseline".to_string());
        }
    }
    if let Some(note) = listing.note() {
        // Below the table: what is not in it. Never a silently shorter list.
        if !listing.runs.is_empty() {
            line(String::new());
        }
        line(note);
        for advice in listing.advice() {
            line(advice.to_string());
        }
    }
    // The base branch's history names a lucky reference before it blocks.
    for l in &facts.lucky {
        line(format!(
            "lucky reference: {} · {}: the reference passed {} of {}, the base branch failed {} of {} answers (p = {:.4})",
            l.case, l.check, l.passed, l.samples, l.failed, l.asked, l.p
        ));
    }
    if !facts.lucky.is_empty() {
        line(format!(
            "re-measure just these cases, then promote the run: {}",
            facts.remeasure
        ));
    }
    out(&page)?;
    if !quiet {
        for (_, why) in &listing.unreadable {
            errln(&format!("digline: left out: {why}"));
        }
    }
    if let Some(note) = &facts.ahead {
        warn(note);
    }
    Ok(ExitStatus::Proceed)
}

/// `abc1234` or `abc1234-dirty` (7 characters of the sha), `-` when unknown.
fn short_commit(commit: Option<&str>) -> String {
    let Some(c) = commit else {
        return "-".to_string();
    };
    let (sha, dirty) = match c.split_once("-dirty") {
        Some((sha, _)) => (sha, "-dirty"),
        None => (c, ""),
    };
    let short: String = sha.chars().take(7).collect();
    format!("{short}{dirty}")
}

#[cfg(test)]
mod tests {
    use super::short_commit;

    #[test]
    fn commits_are_shortened_as_0_10_0_does() {
        let rows: &[(Option<&str>, &str)] = &[
            (None, "-"),
            (Some(""), ""),
            (Some("cf9bf47dc38afadb7c5d1f8ae887a289ce994d0d"), "cf9bf47"),
            (
                Some("cf9bf47dc38afadb7c5d1f8ae887a289ce994d0d-dirty"),
                "cf9bf47-dirty",
            ),
            (Some("é"), "é"),
        ];
        for (commit, want) in rows {
            assert_eq!(short_commit(*commit), *want, "{commit:?}");
        }
    }
}
