//! Compare a stored run with the baseline: the verdict `digline compare`
//! prints and MCP's `compare` tool answers, from this one function.
//!
//! The steps, in order: load the suite, read the run and the baseline,
//! refuse a shard run (a share of the cases is never compared on its own),
//! refuse without a baseline, refuse an untrusted `latest`, then compare in
//! the suite's order with infrastructure values withheld.

use crate::core::compare::{exit_code, Comparison};
use crate::core::document::RunDocument;
use crate::core::exit::ExitStatus;
use crate::core::version::{ahead_note, INSTALLED};
use crate::report::gate::Causes;

use super::{Refusal, SuiteRef};

/// What to compare.
#[derive(Clone, Debug)]
pub struct CompareRequest {
    /// The suite.
    pub suite: SuiteRef,
    /// The run: a key, or `latest`.
    pub run: String,
    /// Read why checks could not run (a category and measured facts, from
    /// the failed calls recorded beside the run): the terminal text says it.
    pub causes: bool,
}

/// The comparison and what it was made of.
#[derive(Debug)]
pub struct CompareFacts {
    /// The run's key.
    pub run_key: String,
    /// The run.
    pub run: RunDocument,
    /// The baseline.
    pub baseline: RunDocument,
    /// The comparison (perimeter values withheld).
    pub comparison: Comparison,
    /// The contract's exit status of the comparison.
    pub exit: ExitStatus,
    /// A newer digline wrote one of the documents: the note to warn with.
    pub ahead: Option<String>,
    /// Why checks could not run, when asked for.
    pub causes: Option<Causes>,
}

/// Compare the run `request` names with the suite's baseline.
///
/// # Errors
/// A [`Refusal`]: a bad suite, no such run, a shard run, no baseline, an
/// untrusted `latest`, an unreadable document, runs of different tenants.
pub fn compare(request: &CompareRequest) -> Result<CompareFacts, Refusal> {
    let loaded = request.suite.load()?;
    let suite = &loaded.suite;
    let store = request.suite.store();
    let (run, baseline) = store.read_run_and_baseline(&suite.tenant, &suite.name, &request.run)?;
    super::merge::refuse_a_shard(&run.key, &run.doc, &request.suite)?;
    let Some(baseline) = baseline else {
        return Err(Refusal::NoBaseline {
            suite: suite.name.clone(),
            tenant: suite.tenant.clone(),
            run_key: run.key,
            named: request.suite.named.clone(),
        });
    };
    let run_file = store
        .runs_dir(&suite.tenant, &suite.name)?
        .join(format!("{}.json", run.key));
    crate::host::run_trust::refuse_untrusted_latest(&request.run, &run.key, &run.doc, &run_file)
        .map_err(Refusal::Refused)?;
    let ahead = ahead_note(
        [&run.doc, &baseline].map(|d| d.digline_version.as_str()),
        INSTALLED,
    );
    let mut comparison = crate::report::order::compare_in_suite_order(&run.doc, &baseline)?;
    // Infrastructure values (`base_url`) are named, never printed.
    crate::report::redact::withhold_perimeter_values(&mut comparison);
    let exit = exit_code(&comparison);
    let causes = request.causes.then(|| {
        let failed = store.read_run_timings(&suite.tenant, &suite.name, &run.key);
        crate::report::gate::causes(&run.doc, &failed)
    });
    Ok(CompareFacts {
        run_key: run.key,
        run: run.doc,
        baseline,
        comparison,
        exit,
        ahead,
        causes,
    })
}
