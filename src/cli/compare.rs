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

use crate::core::compare::exit_code;
use crate::report::locale::Locale;
use crate::report::text::{headline_sentence, render_compare, Strings};
use crate::store::Store;
use crate::wire::compare::{full_json, headline_json, print};

use super::output::{err, out};
use super::warn::warn_if_ahead;
use super::{load_suite, CliError, ExitStatus, SuiteArgs};

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
    let loaded = load_suite(&args.suite)?;
    let suite = &loaded.suite;
    let store = Store::new(&args.suite.root);
    let (run, baseline) = store.read_run_and_baseline(&suite.tenant, &suite.name, &args.run)?;
    super::merge::refuse_a_shard(&run.key, &run.doc, &args.suite)?;
    let Some(baseline) = baseline else {
        return Err(CliError::usage(
            format!(
                "suite '{}' has no baseline for tenant '{}' yet, so there is nothing to compare with",
                suite.name, suite.tenant
            ),
            Some(format!(
                "look at the run, then make it the reference: digline promote --suite {} --run {}",
                args.suite.suite.display(),
                run.key
            )),
        ));
    };
    let run_file = store
        .runs_dir(&suite.tenant, &suite.name)?
        .join(format!("{}.json", run.key));
    crate::host::run_trust::refuse_untrusted_latest(&args.run, &run.key, &run.doc, &run_file)
        .map_err(CliError::Refused)?;
    warn_if_ahead([&run.doc, &baseline]);
    let mut comparison = crate::report::order::compare_in_suite_order(&run.doc, &baseline)
        .map_err(|e| CliError::Refused(e.to_string()))?;
    // The gate's re-asks and statistics, for a run the gate judged (spec
    // 45-statistics.md); two documents alone compare as 0.10.0 did.
    if let Some(record) = store.read_run_reasks(&suite.tenant, &suite.name, &run.key) {
        comparison.apply_reasks(&record, &baseline);
        comparison.state_power(&baseline, suite.false_alarm_rate);
        let paired = crate::core::compare::paired::paired_measures(
            suite,
            &run.doc,
            &baseline,
            suite.false_alarm_rate,
        );
        comparison.apply_paired(paired, true);
    }
    // Infrastructure values (`base_url`) are named, never printed.
    crate::report::redact::withhold_perimeter_values(&mut comparison);
    let code = exit_code(&comparison);
    match args.json {
        Some(depth) => {
            let sentence = headline_sentence(&comparison, &comparison.headline(), strings);
            let value = match depth {
                JsonDepth::Headline => headline_json(&comparison, &sentence),
                JsonDepth::Full => full_json(&comparison, &sentence),
            };
            out(&print(&value))?;
        }
        None => {
            // Why a check could not run: a category and measured facts
            // read from the run's stored reasons, never their text.
            let failed = store.read_run_timings(&suite.tenant, &suite.name, &run.key);
            let causes = crate::report::gate::causes(&run.doc, &failed);
            let mut text = render_compare(&comparison, &causes, locale);
            text.stdout
                .push_str(&crate::report::noise::terminal_block(&comparison, strings));
            out(&super::fence::fenced(&text.stdout))?;
            if !super::output::quiet() {
                err(&text.stderr);
            }
        }
    }
    super::leave_to_exit((run, baseline, comparison));
    Ok(code)
}
