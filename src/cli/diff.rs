//! `digline diff RUN RUN`: what differs between two runs of one suite.
//!
//! Neither run is a reference, so there is no verdict: exit 0 when the
//! report is printed, 64 when refused — a run diffed with itself, runs of
//! different suites (`config_hash`) or judges, an unreadable document.
//! Text on stdout (the runs, what differs about the systems, the sentence,
//! the differing checks), or `--json counts|full`.

use clap::{Args, ValueEnum};

use crate::core::diff::diff;
use crate::report::diff::{header_lines, run_labels, sentence, summary_lines, SUMMARY_LIMIT};
use crate::store::Store;
use crate::wire::compare::print;
use crate::wire::diff::diff_json;

use super::output::out;
use super::warn::warn_if_ahead;
use super::{load_suite, CliError, ExitStatus, SuiteArgs};

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
    let loaded = load_suite(&args.suite)?;
    let suite = &loaded.suite;
    let store = Store::new(&args.suite.root);
    let (Some(first), Some(second)) = (args.runs.first(), args.runs.get(1)) else {
        return Err(CliError::usage(
            "diff takes two runs",
            Some("digline diff --suite suite.toml KEY1 KEY2".into()),
        ));
    };
    let left = store.read_run(&suite.tenant, &suite.name, first)?;
    let right = store.read_run(&suite.tenant, &suite.name, second)?;
    if left.key == right.key {
        return Err(CliError::usage(
            format!(
                "both arguments resolve to the run {}: a run diffed with itself has nothing to report",
                left.key
            ),
            Some(format!(
                "name two different runs; digline list --suite {} shows them",
                args.suite.suite.display()
            )),
        ));
    }
    warn_if_ahead([&left.doc, &right.doc]);
    let difference = diff(&left.doc, &right.doc).map_err(|e| CliError::Refused(e.to_string()))?;
    let (l, r) = run_labels(
        &left.doc.created_at,
        &right.doc.created_at,
        &left.key,
        &right.key,
    );
    let labels = (l.as_str(), r.as_str());
    let text = sentence(&difference, labels);
    if let Some(depth) = args.json {
        let value = diff_json(
            &difference,
            (&left.key, &l, &left.doc),
            (&right.key, &r, &right.doc),
            &text,
            depth == DiffJson::Full,
        );
        out(&print(&value))?;
        return Ok(ExitStatus::Proceed);
    }
    let mut page = String::new();
    for (key, label, doc) in [(&left.key, &l, &left.doc), (&right.key, &r, &right.doc)] {
        let stamp = if label == key {
            String::new()
        } else {
            format!("  {key}")
        };
        page.push_str(&format!("{label}{stamp}  {}\n", doc.environment));
    }
    let opening = header_lines(&difference, labels);
    if !opening.is_empty() {
        page.push('\n');
        for line in opening {
            page.push_str(&format!("  {line}\n"));
        }
    }
    page.push_str(&format!("\n{text}\n"));
    let lines = summary_lines(&difference, labels, Some(SUMMARY_LIMIT));
    if !lines.is_empty() {
        page.push('\n');
        for line in lines {
            page.push_str(&format!("{line}\n"));
        }
    }
    out(&super::fence::fenced(&page))?;
    Ok(ExitStatus::Proceed)
}
