//! Compare a stored run with the baseline: the verdict `digline compare`
//! prints and MCP's `compare` tool answers, from this one function.
//!
//! Two phases: [`read`] (then the front end says whether a newer digline
//! wrote a document) and [`compare`]. The steps, in order: load the suite, read the run and the baseline,
//! refuse a shard run (a share of the cases is never compared on its own),
//! refuse without a baseline, refuse an untrusted `latest`, then compare in
//! the suite's order with infrastructure values withheld; for a run the gate
//! judged, apply its re-asks, power and paired measures again.

use crate::core::compare::paired::paired_measures;
use crate::core::compare::reask::ReaskRecord;
use crate::core::compare::{exit_code, Comparison};
use crate::core::document::RunDocument;
use crate::core::exit::ExitStatus;
use crate::core::suite::Suite;
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
    /// Why checks could not run, when asked for.
    pub causes: Option<Causes>,
}

/// The run and the baseline a comparison reads.
#[derive(Debug)]
pub struct Read {
    run_key: String,
    run: RunDocument,
    baseline: RunDocument,
    failed: Option<crate::core::failed_calls::FailedCalls>,
    /// The gate's re-asks of this run and the suite, when the gate judged
    /// it (spec `45-statistics.md`): its statistics are applied again.
    gated: Option<(ReaskRecord, Suite)>,
    /// The run's spending cap stopped it (its spend record): exit 2.
    capped: bool,
    /// Its judges read on their anchors against the reference's, and the
    /// command that re-measures the reference.
    judges: (Vec<crate::core::anchors::JudgeReading>, String),
    /// A newer digline wrote one of the documents: the note to warn with
    /// (said before the comparison, which may refuse).
    pub ahead: Option<String>,
}

/// Read the run `request` names and the suite's baseline.
///
/// # Errors
/// A [`Refusal`]: a bad suite, no such run, a shard run, no baseline, an
/// untrusted `latest`, an unreadable document.
pub fn read(request: &CompareRequest) -> Result<Read, Refusal> {
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
    let workspace = request.suite.workspace();
    crate::host::trust::refuse_untrusted_latest(
        &workspace,
        &request.run,
        &run.key,
        &run.doc,
        &run_file,
    )
    .map_err(Refusal::Refused)?;
    let ahead = ahead_note(
        [&run.doc, &baseline].map(|d| d.digline_version.as_str()),
        INSTALLED,
    );
    let failed = request
        .causes
        .then(|| store.read_run_timings(&suite.tenant, &suite.name, &run.key));
    let capped = store.run_capped(&suite.tenant, &suite.name, &run.key);
    let judges = (
        crate::core::anchors::read_documents(
            &run.doc,
            &baseline,
            suite,
            &loaded.judge_anchors,
            loaded.min_judge_kappa,
        ),
        super::gate::judge_rerun(&request.suite.file),
    );
    let gated = crate::host::trust::believed_reasks(
        &workspace,
        &store,
        &suite.tenant,
        &suite.name,
        &run.key,
    )
    .map(|record| (record, loaded.suite));
    Ok(Read {
        run_key: run.key,
        run: run.doc,
        baseline,
        failed,
        gated,
        capped,
        judges,
        ahead,
    })
}

/// Compare the run with the baseline, in the suite's order.
///
/// # Errors
/// [`Refusal::Refused`] for documents that cannot be compared (runs of
/// different tenants).
pub fn compare(read: Read) -> Result<CompareFacts, Refusal> {
    let Read {
        run_key,
        run,
        baseline,
        failed,
        gated,
        capped,
        judges,
        ..
    } = read;
    let mut comparison = crate::report::order::compare_in_suite_order(&run, &baseline)?;
    comparison.capped = capped;
    (comparison.judges, comparison.judge_rerun) = judges;
    // A run the gate judged is decided as the gate decided it: its re-asks,
    // the power, the whole-run measures paired. Two documents alone compare
    // as 0.10.0 did.
    if let Some((record, suite)) = gated {
        comparison.apply_reasks(&record, &baseline);
        comparison.state_power(&baseline, suite.false_alarm_rate);
        let paired = paired_measures(&suite, &run, &baseline, suite.false_alarm_rate);
        comparison.apply_paired(paired, true);
    }
    // Infrastructure values (`base_url`) are named, never printed.
    crate::report::redact::withhold_perimeter_values(&mut comparison);
    let exit = exit_code(&comparison);
    let causes = failed.map(|failed| crate::report::gate::causes(&run, &failed));
    Ok(CompareFacts {
        run_key,
        run,
        baseline,
        comparison,
        exit,
        causes,
    })
}
