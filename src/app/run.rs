//! Ask the system under test about every case (or one shard's share) and
//! store the run: what `digline run` does, and what the gate does when it
//! is not given a stored run.
//!
//! The steps: load the suite, restrict it to a shard when asked (by the hash
//! of the case id, or balanced by recorded durations), preflight every
//! problem at once, ask, store (`host::runner`). The plan, progress and
//! warnings go to the request's notices as they happen.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::core::document::RunDocument;
use crate::host::runner::{Prepared, RunOptions};
use crate::host::suite::LoadedSuite;
use crate::report::progress::ProgressStrings;
use crate::run::quota::Quota;
use crate::run::retry::Retried;
use crate::run::{Display, Notifier, Plan};

use super::{Refusal, SuiteRef};

/// How calls are pooled, retried and paced.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pool {
    /// Calls in flight at once.
    pub concurrency: usize,
    /// Retries of a call that failed with 429, 5xx, a reset or a timeout.
    pub max_retries: u32,
    /// The quota to pace to.
    pub quota: Quota,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct RunRequest {
    /// The suite.
    pub suite: SuiteRef,
    /// Recorded in the run's metadata (payload: never printed).
    pub metadata: Map<String, Value>,
    /// The pool.
    pub pool: Pool,
    /// The longest wait for a server.
    pub max_wait: Duration,
    /// Refuse the run if it plans more calls than this.
    pub max_calls: Option<usize>,
    /// Finish this unfinished run (a key, or `latest`).
    pub resume: Option<String>,
    /// Run only this shard: `K/N` or `auto`.
    pub shard: Option<String>,
    /// With `shard`: split by the durations recorded in the newest full run.
    pub balance: bool,
    /// How progress is shown.
    pub display: Display,
    /// Say the plan before asking.
    pub announce: bool,
    /// Counts the calls tried again (the gate's outcome reports them).
    pub retried: Retried,
    /// Stop on Ctrl-C/SIGTERM, keep the journal and say how to resume (a
    /// command line); `false` leaves signals alone (a long-lived server).
    pub stop_on_signal: bool,
}

/// The stored run.
#[derive(Debug)]
pub struct RunFacts {
    /// Its key.
    pub key: String,
    /// Its document.
    pub doc: RunDocument,
    /// What was planned.
    pub plan: Plan,
}

/// Run the suite and store the run; the retry counts go to `notices` as a
/// plan line when any call was tried again.
///
/// # Errors
/// A [`Refusal`] for anything refused before or while starting.
pub fn run(request: &RunRequest, notices: &Notifier) -> Result<RunFacts, Refusal> {
    run_loaded(request, request.suite.load()?, notices)
}

/// [`run`], for a suite the caller has loaded already (to show its plan
/// first).
///
/// # Errors
/// As [`run`].
pub fn run_loaded(
    request: &RunRequest,
    mut loaded: LoadedSuite,
    notices: &Notifier,
) -> Result<RunFacts, Refusal> {
    let mut metadata = request.metadata.clone();
    let mut quota = request.pool.quota;
    if let Some(spec) = &request.shard {
        let shard = crate::host::shards::resolve(spec, &crate::host::runner::env)
            .map_err(|why| Refusal::usage(why, None))?;
        let strings = ProgressStrings::of(notices.locale());
        let record = if request.balance {
            let store = request.suite.store();
            let source = crate::host::shards::newest_full_run(
                &store,
                &loaded.suite.tenant,
                &loaded.suite.name,
            )?;
            let (record, timed) = crate::host::shards::restrict_balanced(
                &mut loaded,
                shard,
                source.as_ref().map(|(_, doc)| doc),
            );
            notices.plan(match &source {
                Some((key, _)) => strings.shard_balanced(&shard.to_string(), timed, key),
                None => strings.shard_unbalanced(&shard.to_string()),
            });
            record
        } else {
            let (record, others) = crate::host::shards::restrict(&mut loaded, shard);
            // The other shards' cases are not needed again in this process.
            super::leave_to_exit(others);
            record
        };
        // Each shard takes its share of a quota the shards hold together.
        quota = quota.share(shard.index, shard.total);
        notices.plan(strings.shard(
            &shard.to_string(),
            loaded.suite.cases.len(),
            &record.plan.to_string(),
        ));
        metadata.insert(
            crate::core::shard::RECORD_KEY.to_string(),
            Value::String(record.to_value()),
        );
    }
    let prepared = Prepared::prepare(loaded, request.max_calls)?;
    let options = RunOptions {
        root: request.suite.root.clone(),
        metadata,
        concurrency: request.pool.concurrency,
        max_retries: request.pool.max_retries,
        max_wait: request.max_wait,
        quota,
        retried: request.retried.clone(),
        resume: request.resume.clone(),
        display: request.display,
        announce: request.announce,
        notices: notices.clone(),
        resume_hint_on_signal: request
            .stop_on_signal
            .then(|| format!("digline run --suite {}", request.suite.named)),
    };
    let (key, doc, plan) = prepared.execute(&options)?;
    if let Some(line) = request.retried.counts().sentence_in(notices.locale()) {
        notices.plan(line);
    }
    Ok(RunFacts { key, doc, plan })
}
