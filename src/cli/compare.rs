//! `digline compare`: a stored run against the baseline — the gate's verdict.
//!
//! Prints the headline sentence, the lines that got worse and those that
//! could not be judged, each with its cause (category and measured facts;
//! never the stored reason) — or, with `--json`, the headline object
//! (`full` adds the deltas) — and exits
//! 0 (nothing got worse), 1 (worse, or a canary moved) or 2 (could not be
//! judged). No baseline is a refusal (64): a gate is never green without a
//! comparison.

use clap::{Args, ValueEnum};

use crate::app::compare::CompareRequest;
use crate::report::locale::Locale;
use crate::report::text::{headline_sentence, render_compare, Strings};
use crate::wire::compare::{full_json, headline_json, print};

use super::output::{err, out};
use super::warn::warn;
use super::{CliError, ExitStatus, SuiteArgs};

/// How much JSON `--json` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum JsonDepth {
    /// The headline object alone (with `exit_code`).
    Headline,
    /// The headline plus every delta and the configuration deltas.
    Full,
}

/// Flags of `digline compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Which suite, which repository.
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The run to compare: a key, or `latest`.
    #[arg(long, value_name = "KEY|latest")]
    pub run: String,
    /// Print JSON instead of text: the headline alone, or `full` to add the deltas.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "headline", value_name = "headline|full")]
    pub json: Option<JsonDepth>,
    /// The language of the text (the JSON keys never change).
    #[arg(long, default_value = "en", value_parser = super::locale::parser())]
    pub locale: Locale,
}

/// Execute `digline compare`; returns the contract exit code.
///
/// # Errors
/// A [`CliError`] (exit 64): bad suite, no such run, no baseline, an
/// unreadable document, runs of different tenants.
pub fn execute(args: CompareArgs) -> Result<ExitStatus, CliError> {
    let locale = args.locale;
    let strings = Strings::of(locale);
    let read = crate::app::compare::read(&CompareRequest {
        suite: args.suite.to_ref(),
        run: args.run,
        causes: args.json.is_none(),
    })?;
    if let Some(note) = &read.ahead {
        warn(note);
    }
    let facts = crate::app::compare::compare(read)?;
    let comparison = &facts.comparison;
    match args.json {
        Some(depth) => {
            let sentence = headline_sentence(comparison, &comparison.headline(), strings);
            let value = match depth {
                JsonDepth::Headline => headline_json(comparison, &sentence),
                JsonDepth::Full => full_json(comparison, &sentence),
            };
            out(&print(&value))?;
        }
        None => {
            // Why a check could not run: a category and measured facts
            // read from the run's stored reasons, never their text.
            let none = crate::report::gate::Causes::default();
            let mut text =
                render_compare(comparison, facts.causes.as_ref().unwrap_or(&none), locale);
            text.stdout
                .push_str(&crate::report::noise::terminal_block(comparison, strings));
            out(&super::fence::fenced(&text.stdout))?;
            if !super::output::quiet() {
                err(&text.stderr);
            }
        }
    }
    let code = facts.exit;
    crate::app::leave_to_exit(facts);
    Ok(code)
}
