//! Grade a stored run's recorded answers again with the suite's current
//! checks and judges, and store the result as a new run: what
//! `digline rejudge` does.
//!
//! Two phases, so the front end can say what it read before the plan:
//! [`read`] (the suite, the source run, whether a newer digline wrote it)
//! and [`rejudge`] (the fit of run and suite, the judges' preflight, the
//! judging, the store). The target is never called (nor built).

use std::time::Duration;

use serde_json::{Map, Value};

use crate::core::document::RunDocument;
use crate::core::version::{ahead_note, INSTALLED};
use crate::host;
use crate::host::runner::{judges, warn_unpriced};
use crate::host::suite::LoadedSuite;
use crate::run::rejudge::Replay;
use crate::run::{preflight, Display, Judge, NoJudges, Notifier, Plan, RetryPolicy, RunContext};
use crate::store::repo::StoredRun;
use crate::store::StoreError;

use super::run::Pool;
use super::{Refusal, SuiteRef};

/// What to re-judge.
#[derive(Clone, Debug)]
pub struct RejudgeRequest {
    /// The suite.
    pub suite: SuiteRef,
    /// The source run: a key, or `latest`.
    pub run: String,
    /// Recorded in the new run's metadata.
    pub metadata: Map<String, Value>,
    /// The pool of judge calls.
    pub pool: Pool,
    /// The longest wait for a server.
    pub max_wait: Duration,
    /// Refuse if the re-judge plans more judge calls than this.
    pub max_calls: Option<usize>,
    /// How progress is shown.
    pub display: Display,
}

/// The suite and the source run, read.
pub struct Source {
    loaded: LoadedSuite,
    source: StoredRun,
    /// A newer digline wrote the source run: the note to warn with.
    pub ahead: Option<String>,
}

/// The new run, stored.
#[derive(Debug)]
pub struct RejudgeFacts {
    /// Its key.
    pub key: String,
    /// Its document.
    pub doc: RunDocument,
    /// What was planned.
    pub plan: Plan,
}

/// Read the suite and the source run.
///
/// # Errors
/// A [`Refusal`]: a bad suite, no such run, a run of another tenant or suite.
pub fn read(request: &RejudgeRequest) -> Result<Source, Refusal> {
    let loaded = request.suite.load()?;
    let suite = &loaded.suite;
    let source = request
        .suite
        .store()
        .read_run(&suite.tenant, &suite.name, &request.run)
        .map_err(|e| match e {
            StoreError::Misplaced {
                path,
                what,
                found,
                expected,
            } => Refusal::Refused(format!(
                "{} belongs to {what} '{found}', not to this suite's {what} '{expected}': a re-judge never crosses a tenant or a suite, so re-judge one of this suite's own runs (digline list --suite {} shows them)",
                path.display(),
                request.suite.named
            )),
            other => Refusal::Store(other),
        })?;
    let ahead = ahead_note([source.doc.digline_version.as_str()], INSTALLED);
    Ok(Source {
        loaded,
        source,
        ahead,
    })
}

/// Re-judge `source` and store the new run; the plan, unpriced judges and
/// the unjudged count go to `notices`.
///
/// # Errors
/// A [`Refusal`] for anything refused before the first judge call (a run
/// and suite that do not fit, a judge that cannot be built, more calls than
/// `max_calls`, a store that cannot take the run).
pub fn rejudge(
    request: &RejudgeRequest,
    source: Source,
    notices: &Notifier,
) -> Result<RejudgeFacts, Refusal> {
    let Source { loaded, source, .. } = source;
    let suite = &loaded.suite;
    // The run and the suite must fit before anything else is checked.
    let store = request.suite.store();
    // Which answers were masked decides what a judge is shown: a record the
    // workspace does not vouch for (`host::trust`) is refused, not guessed.
    let masked_path = store.run_masked_path(&suite.tenant, &suite.name, &source.key)?;
    if let Some(area) = masked_path.parent() {
        request
            .suite
            .workspace()
            .check(area, &masked_path)
            .map_err(|why| {
                Refusal::Refused(why.sentence(&format!("the masked record of run {}", source.key)))
            })?;
    }
    let masked = store.read_run_masked(&suite.tenant, &suite.name, &source.key);
    Replay::new(suite, &source.doc, &source.key, &masked)
        .map_err(|e| Refusal::Refused(e.to_string()))?;
    let plan = Plan::of(suite);
    let (judges, mut problems) = judges(suite)?;
    problems.extend(plan.replay_over(request.max_calls));
    preflight::refuse_if_any(&problems).map_err(Refusal::Refused)?;
    store.check_writable(&suite.tenant, &suite.name)?;
    notices.plan(plan.replay_sentence());
    warn_unpriced(&judges, notices);
    tracing::info!(
        tenant = %suite.tenant,
        suite = %suite.name,
        source = %source.key,
        judge_calls = plan.judge_calls(),
        "re-judging a stored run"
    );
    let ctx = RunContext {
        created_at: host::clock::now_iso(),
        git_commit: host::git::commit(&request.suite.root),
        digline_version: env!("CARGO_PKG_VERSION").to_string(),
        metadata: request.metadata.clone(),
        artifacts: Map::new(),
        concurrency: request.pool.concurrency,
        retry: RetryPolicy {
            max_retries: request.pool.max_retries,
            max_wait: request.max_wait,
            ..RetryPolicy::default()
        },
        display: request.display,
        notices: notices.clone(),
        seed: host::clock::seed(),
        quota: request.pool.quota,
        retried: crate::run::retry::Retried::default(),
        cost: request.pool.cost.controls(
            &store,
            &request.suite.root,
            suite,
            request.pool.quota,
            &crate::host::runner::quota_identity(crate::host::runner::judge_parties(&judges)),
        ),
        // A replay grades recorded answers: it is never a reference, and
        // its judges are measured by the gate that runs live.
        anchors: crate::run::driver::AnchorPlan::default(),
    };
    let judge: &dyn Judge = if judges.clients().is_empty() {
        &NoJudges
    } else {
        &judges
    };
    let (doc, spent, masked) =
        crate::run::rejudge::rejudge_spent(suite, &source.doc, &source.key, &masked, judge, &ctx)
            .map_err(|e| Refusal::Refused(e.to_string()))?;
    crate::host::runner::announce_spend(&spent, &request.pool.cost, doc.unjudged_cases(), notices);
    let key = store.write_run(&doc)?;
    // What the judges spent (and the memo saved), beside the new run.
    store.write_run_spend(&suite.tenant, &suite.name, &key, &spent)?;
    // Its answers are the source's: so is the record of those masked.
    store.write_run_masked(&suite.tenant, &suite.name, &key, &masked)?;
    tracing::info!(key = %key, unjudged = doc.unjudged_cases(), "re-judged run stored");
    if !masked.is_empty() {
        notices.plan(format!(
            "{} case(s) of run {} were kept with a secret masked, so their answers are not graded again: checks that are not judged keep that run's verdicts while nothing they depend on changed, and judged checks are not sent to a judge",
            masked.cases.len(),
            source.key
        ));
    }
    let unjudged = doc.unjudged_cases();
    if unjudged > 0 {
        notices.plan(format!(
            "{unjudged} of {} case(s) could not be judged; the run document ({key}) records why",
            plan.cases
        ));
    }
    Ok(RejudgeFacts { key, doc, plan })
}
