//! `digline diff RUN RUN`: what differs between two runs of one suite.
//!
//! Neither run is a reference, so there is no verdict: exit 0 when the
//! report is printed, 64 when refused — a run diffed with itself, runs of
//! different suites (`config_hash`) or judges, an unreadable document.
//! Text on stdout (the runs, what differs about the systems, the sentence,
//! the differing checks in suite order), or `--json counts|full`.

use clap::{Args, ValueEnum};

use crate::app::list::DiffRequest;
use crate::report::diff::{header_lines, summary_lines, SUMMARY_LIMIT};
use crate::report::order::SuiteOrder;
use crate::wire::compare::print;
use crate::wire::diff::diff_json;

use super::output::out;
use super::warn::warn;
use super::{CliError, ExitStatus, SuiteArgs};

/// How much JSON `diff --json` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffJson {
    /// The figures.
    Counts,
    /// The figures plus every check and the configuration rows.
    Full,
}

/// Flags of `digline diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Which suite, which repository.
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The two runs: keys, or `latest`.
    #[arg(value_name = "RUN", num_args = 2, required = true)]
    pub runs: Vec<String>,
    /// Print JSON: `counts` for the figures, `full` to add every check.
    #[arg(long, value_enum, value_name = "counts|full")]
    pub json: Option<DiffJson>,
}

/// Execute `digline diff`.
///
/// # Errors
/// A [`CliError`] (exit 64): bad suite, unknown or unreadable run, the same
/// run twice, runs measured under other rules or judges.
pub fn execute(args: DiffArgs) -> Result<ExitStatus, CliError> {
    let (Some(first), Some(second)) = (args.runs.first(), args.runs.get(1)) else {
        return Err(CliError::usage(
            "diff takes two runs",
            Some("digline diff --suite suite.toml KEY1 KEY2".into()),
        ));
    };
    let pair = crate::app::list::read_pair(&DiffRequest {
        suite: args.suite.to_ref(),
        left: first.clone(),
        right: second.clone(),
    })?;
    if let Some(note) = &pair.ahead {
        warn(note);
    }
    let facts = crate::app::list::diff(pair)?;
    let (left, right, difference) = (&facts.left, &facts.right, &facts.difference);
    let (l, r) = (&facts.labels.0, &facts.labels.1);
    let labels = (l.as_str(), r.as_str());
    let text = &facts.sentence;
    if let Some(depth) = args.json {
        let value = diff_json(
            difference,
            (&left.key, l, &left.doc),
            (&right.key, r, &right.doc),
            text,
            depth == DiffJson::Full,
        );
        out(&print(&value))?;
        return Ok(ExitStatus::Proceed);
    }
    let mut page = String::new();
    for (key, label, doc) in [(&left.key, l, &left.doc), (&right.key, r, &right.doc)] {
        let stamp = if label == key {
            String::new()
        } else {
            format!("  {key}")
        };
        page.push_str(&format!("{label}{stamp}  {}\n", doc.environment));
    }
    let opening = header_lines(difference, labels);
    if !opening.is_empty() {
        page.push('\n');
        for line in opening {
            page.push_str(&format!("  {line}\n"));
        }
    }
    page.push_str(&format!("\n{text}\n"));
    // Suite order: the newer run's (it was run from today's cases file),
    // then what only the older one has.
    let (newer, older) = if right.doc.created_at >= left.doc.created_at {
        (&right.doc, &left.doc)
    } else {
        (&left.doc, &right.doc)
    };
    let order = SuiteOrder::new(newer, Some(older));
    let lines = summary_lines(difference, &order, labels, Some(SUMMARY_LIMIT));
    if !lines.is_empty() {
        page.push('\n');
        for line in lines {
            page.push_str(&format!("{line}\n"));
        }
    }
    out(&super::fence::fenced(&page))?;
    Ok(ExitStatus::Proceed)
}
