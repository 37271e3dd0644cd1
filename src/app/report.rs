//! The localized HTML report of a stored run — compared with the baseline
//! when there is one, on its own otherwise: what `digline report` renders.
//! The page and the exit code come back; the front end writes the page.

use crate::core::compare::Comparison;
use crate::core::document::RunDocument;
use crate::core::exit::ExitStatus;
use crate::report::html;
use crate::report::locale::Locale;
use crate::report::order::compare_in_suite_order;

use super::{Refusal, SuiteRef};

/// What to report.
#[derive(Clone, Debug)]
pub struct ReportRequest {
    /// The suite.
    pub suite: SuiteRef,
    /// The run: a key, or `latest`.
    pub run: String,
    /// The language of the report.
    pub locale: Locale,
    /// Leave out every payload field.
    pub redacted: bool,
}

/// The page, its exit code, and what it was made of.
pub struct ReportFacts {
    /// The HTML page.
    pub page: String,
    /// The comparison's code (0, 1, 2); with no baseline, 2 when a case
    /// could not be judged, else 0 — never 1.
    pub exit: ExitStatus,
    /// The run, the baseline and the comparison (the caller frees them).
    pub documents: (RunDocument, Option<RunDocument>, Option<Comparison>),
}

/// Render the report of the run `request` names.
///
/// # Errors
/// A [`Refusal`]: a bad suite, no such run, an unreadable document, runs
/// of different tenants, a template that does not render.
pub fn report(request: &ReportRequest) -> Result<ReportFacts, Refusal> {
    let loaded = request.suite.load()?;
    let suite = &loaded.suite;
    let store = request.suite.store();
    let (run, baseline) = store.read_run_and_baseline(&suite.tenant, &suite.name, &request.run)?;
    let comparison = baseline
        .as_ref()
        .map(|b| compare_in_suite_order(&run.doc, b))
        .transpose()?;
    let spends = crate::report::cost::Spends {
        run: store.read_run_spend(&suite.tenant, &suite.name, &run.key),
        reference: baseline
            .as_ref()
            .and_then(|_| store.read_baseline_spend(&suite.tenant, &suite.name)),
    };
    let page = html::render_with_spend(
        &run.doc,
        baseline.as_ref(),
        comparison.as_ref(),
        request.locale,
        request.redacted,
        spends,
        &store.read_run_timings(&suite.tenant, &suite.name, &run.key),
    )
    .map_err(|e| Refusal::Refused(e.to_string()))?;
    let exit = html::exit_code(&run.doc, comparison.as_ref());
    Ok(ReportFacts {
        page,
        exit,
        documents: (run.doc, baseline, comparison),
    })
}
