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
use crate::host::runner::{CostOptions, Prepared, RunOptions};
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
    /// The judge memo and the spending cap (`--judge-memo`, `--max-usd`).
    pub cost: CostOptions,
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
    /// `--samples N`: ask every case N times to measure its noise (spec
    /// `45-statistics.md`); `None` keeps the suite's `samples`.
    pub samples: Option<u32>,
    /// `--case ID`: ask only these cases and take every other case's
    /// result from the approved reference (what the lucky-reference notice
    /// asks for); empty asks every case.
    pub cases: Vec<String>,
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

/// The suite, loaded, and what running it would ask: the calls to the
/// target and the judges (what an agent acknowledges before `run`).
///
/// # Errors
/// A [`Refusal`] for a suite that does not load.
pub fn plan(suite: &SuiteRef) -> Result<(LoadedSuite, Plan), Refusal> {
    let loaded = suite.load()?;
    let (anchors, canaries) = crate::host::runner::anchor_counts(&loaded);
    let plan = Plan::of(&loaded.suite).with_anchors(anchors, canaries);
    Ok((loaded, plan))
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
    if let Some(n) = request.samples {
        measure_noise(&mut loaded.suite, n, request.resume.is_some())?;
    }
    let mut metadata = request.metadata.clone();
    let mut quota = request.pool.quota;
    let mut cost = request.pool.cost;
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
        // And of the cap.
        cost.shards = shard.total;
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
    let from_reference = if request.cases.is_empty() {
        None
    } else {
        Some(FromReference::only(
            &mut loaded,
            &request.cases,
            &request.suite,
        )?)
    };
    let prepared = Prepared::prepare(loaded, request.max_calls)?;
    let options = options(request, metadata, quota, cost, notices);
    let (key, mut doc, plan) = prepared.execute(&options)?;
    if let Some(from_reference) = from_reference {
        let store = request.suite.store();
        if let Err(why) = from_reference.fill(&mut doc) {
            // Half a run must not be kept, nor promoted.
            let _ = store.remove_run(&doc.tenant, &doc.suite, &key);
            return Err(Refusal::usage(
                why,
                Some("run every case (drop --case) and promote that run".into()),
            ));
        }
        store
            .write_run(&doc)
            .map_err(|e| Refusal::Refused(e.to_string()))?;
    }
    if let Some(line) = request.retried.counts().sentence_in(notices.locale()) {
        notices.plan(line);
    }
    Ok(RunFacts { key, doc, plan })
}

/// `--case`: the approved reference's results of the cases not asked,
/// and the suite's order to put them back in.
struct FromReference {
    /// Every case id of the suite, in its order.
    order: Vec<String>,
    /// The reference's results by case id.
    results: std::collections::HashMap<String, crate::core::document::CaseResult>,
    /// The reference's whole-run measures.
    aggregate: Vec<crate::core::verdict::Verdict>,
    /// What the reference's target and judges said about themselves, and
    /// how its judges graded the anchors: the cases kept were measured
    /// under them, so the cases asked now must be too.
    target_config: Map<String, Value>,
    judge_config: Map<String, Value>,
    judge_anchors: Option<crate::core::anchors::AnchorsRecord>,
}

impl FromReference {
    /// Cut `loaded` down to `ids` and keep the reference's results of the
    /// rest.
    ///
    /// # Errors
    /// A usage refusal with `--shard` or `--resume`, for an unknown case
    /// (the near miss named) or one the reference lacks; a refusal without
    /// a reference, or when the suite's rules are not the reference's.
    fn only(loaded: &mut LoadedSuite, ids: &[String], suite: &SuiteRef) -> Result<Self, Refusal> {
        let suite_ = &mut loaded.suite;
        let known: Vec<&str> = suite_.cases.iter().map(|c| c.id.as_str()).collect();
        for id in ids {
            if !known.contains(&id.as_str()) {
                let hint = crate::host::near_miss::did_you_mean(id, &known)
                    .map(|near| format!("did you mean --case {near}?"));
                return Err(Refusal::usage(
                    format!(
                        "--case {id}: no case of {} has this id",
                        suite.file.display()
                    ),
                    hint,
                ));
            }
        }
        let Some(reference) = suite
            .store()
            .read_baseline(&suite_.tenant, &suite_.name)
            .map_err(|e| Refusal::Refused(e.to_string()))?
        else {
            return Err(Refusal::usage(
                format!(
                    "--case asks some cases again and keeps the approved reference's results of the others, and suite {} has no reference",
                    suite_.name
                ),
                Some("run every case and promote that run: drop --case".into()),
            ));
        };
        if reference.config_hash != suite_.config_hash() {
            return Err(Refusal::usage(
                format!(
                    "--case keeps the reference's results of the other cases, and the suite's rules changed since the reference was made (config hash {}, the reference's {})",
                    suite_.config_hash(),
                    reference.config_hash
                ),
                Some("run every case and promote that run: drop --case".into()),
            ));
        }
        let mut results: std::collections::HashMap<_, _> = reference
            .results
            .into_iter()
            .map(|r| (r.case_id.clone(), r))
            .collect();
        let order: Vec<String> = known.iter().map(|s| s.to_string()).collect();
        for id in &order {
            if !ids.contains(id) && !results.contains_key(id) {
                return Err(Refusal::usage(
                    format!(
                        "--case keeps the reference's results of the other cases, and case {id} is not in the reference (added since)"
                    ),
                    Some(format!("ask it too: --case {id}, or run every case")),
                ));
            }
        }
        results.retain(|id, _| !ids.contains(id));
        suite_.cases.retain(|c| ids.contains(&c.id));
        Ok(FromReference {
            order,
            results,
            aggregate: reference.aggregate,
            target_config: reference.target_config,
            judge_config: reference.judge_config,
            judge_anchors: reference.judge_anchors,
        })
    }

    /// Put the reference's results of the cases not asked into `doc`, in
    /// the suite's order; the whole-run measures stay the reference's (a
    /// case measured again does not measure the run again).
    ///
    /// # Errors
    /// The sentence saying what the cases asked now were measured under
    /// that the kept ones were not: another configuration of the target
    /// or of a judge, or a judge that graded the anchors otherwise.
    fn fill(mut self, doc: &mut RunDocument) -> Result<(), String> {
        let kept = "so the other cases' results, measured under the reference's, cannot be kept beside them";
        if let Some(changed) = changed_fields(&self.target_config, &doc.target_config) {
            return Err(format!(
                "--case: the system under test answered under another configuration than the reference ({changed}), {kept}"
            ));
        }
        if let Some(changed) = changed_fields(&self.judge_config, &doc.judge_config) {
            return Err(format!(
                "--case: the judges answered under another configuration than the reference ({changed}), {kept}"
            ));
        }
        if let Some(moved) = anchors_moved(self.judge_anchors.as_ref(), doc.judge_anchors.as_ref())
        {
            return Err(format!("--case: {moved}, {kept}"));
        }
        let mut asked: std::collections::HashMap<String, _> = std::mem::take(&mut doc.results)
            .into_iter()
            .map(|r| (r.case_id.clone(), r))
            .collect();
        doc.results = self
            .order
            .iter()
            .filter_map(|id| asked.remove(id).or_else(|| self.results.remove(id)))
            .collect();
        doc.aggregate = self.aggregate;
        Ok(())
    }
}

/// The fields of a self-description (`target_config`, `judge_config`)
/// that established a change against the reference's (`core::compare::
/// config`, as the gate itemizes them), named for a sentence; `None` when
/// none did.
fn changed_fields(before: &Map<String, Value>, now: &Map<String, Value>) -> Option<String> {
    let fields: Vec<String> = crate::core::compare::config_deltas(now, before)
        .into_iter()
        .filter(|d| d.outcome.is_change())
        .map(|d| crate::forge::escape::visible_line(&d.field))
        .collect();
    (!fields.is_empty()).then(|| format!("changed: {}", fields.join(", ")))
}

/// Why the anchors graded now do not match the reference's, if they do not:
/// one record without the other, or an anchor graded otherwise.
fn anchors_moved(
    before: Option<&crate::core::anchors::AnchorsRecord>,
    now: Option<&crate::core::anchors::AnchorsRecord>,
) -> Option<String> {
    use crate::core::anchors::AnchorVerdict;
    match (before, now) {
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            Some("the reference and this run do not both grade the judge anchors".to_string())
        }
        (Some(before), Some(now)) => {
            let same_judge = |j: &crate::core::anchors::JudgeRecord| {
                before.judge(&j.check).is_some_and(|b| {
                    b.coordinate == j.coordinate && b.identity.changed(&j.identity).is_empty()
                })
            };
            if before.judges.len() != now.judges.len() || !now.judges.iter().all(same_judge) {
                return Some("a judge's identity changed since the reference".to_string());
            }
            let graded: std::collections::HashMap<&str, AnchorVerdict> = before
                .anchors
                .iter()
                .map(|a| (a.key.as_str(), a.verdict))
                .collect();
            let moved = now
                .anchors
                .iter()
                .filter(|a| {
                    graded.get(a.key.as_str()).is_none_or(|v| {
                        *v != a.verdict
                            && *v != AnchorVerdict::Error
                            && a.verdict != AnchorVerdict::Error
                    })
                })
                .count();
            (moved > 0).then(|| {
                format!("the judges graded {moved} judge anchor(s) otherwise than in the reference, or graded anchors it does not have")
            })
        }
    }
}

/// How the calls of `request` are made.
fn options(
    request: &RunRequest,
    metadata: Map<String, Value>,
    quota: Quota,
    cost: CostOptions,
    notices: &Notifier,
) -> RunOptions {
    RunOptions {
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
        cost,
    }
}

/// `--samples N`: the suite asks every case `n` times for this run.
///
/// # Errors
/// A usage refusal for 0, more than the most samples, or with `--resume`
/// (a resumed run keeps the samples it started with).
fn measure_noise(
    suite: &mut crate::core::suite::Suite,
    n: u32,
    resuming: bool,
) -> Result<(), Refusal> {
    use crate::core::ratio::{sample_count, too_many_samples, SamplesRefused};
    if resuming {
        return Err(Refusal::usage(
            "--samples does not apply to --resume: a resumed run keeps the samples it started with",
            Some("drop --samples".into()),
        ));
    }
    match sample_count(i128::from(n), 1) {
        Ok(count) => {
            suite.measure_noise(count);
            Ok(())
        }
        Err(SamplesRefused::TooMany) => Err(Refusal::usage(
            format!("--samples: {}", too_many_samples(i128::from(n))),
            None,
        )),
        Err(SamplesRefused::TooFew) => Err(Refusal::usage(
            "--samples is 0, and at least one call per case is needed to judge anything",
            Some("ask each case 5 times to measure its noise: --samples 5".into()),
        )),
    }
}

/// The gate's re-ask phase for run `key` against `reference`: the checks
/// that failed where the reference passed are asked again (`run::reask`),
/// with `request`'s pool, and the evidence is kept beside the run
/// (`store::reasks`), where the gate, `compare` and MCP read it. A run
/// with nothing to re-ask is recorded too (empty), so `compare` of it
/// decides as the gate did; no call is made then.
///
/// # Errors
/// A [`Refusal`] when the target cannot be built again, the calls are
/// stopped, or the record cannot be written.
///
/// With `measured_only` (a gate of runs made elsewhere: `--shards`,
/// `--run`), only pairs whose reference measured its noise are re-asked —
/// a one-sample reference keeps 0.10.0's rule without a call — and a target
/// that cannot be built here (its secrets absent from this job, say) leaves
/// them not re-asked, which the gate answers 2, instead of refusing.
pub fn reask(
    request: &RunRequest,
    loaded: &LoadedSuite,
    key: &str,
    run: &RunDocument,
    reference: &RunDocument,
    notices: &Notifier,
    measured_only: bool,
) -> Result<(), Refusal> {
    let store = request.suite.store();
    // A run its spending cap stopped is not judged whole (exit 2 whatever
    // it found): no call past the cap is made to decide it.
    if store.run_capped(&run.tenant, &run.suite, key) {
        return Ok(());
    }
    let comparison = crate::core::compare::compare(run, reference)?;
    let mut triggered = if measured_only {
        crate::core::compare::reask::triggered_measured(&comparison, reference)
    } else {
        crate::core::compare::reask::triggered(&comparison)
    };
    // Earlier gates of this head against this reference: what they decided
    // is carried (never asked or decided again), and this gate is the next
    // attempt, at its share of the declared rate.
    let head =
        crate::host::trust::rerun_id(&request.suite.root, reference, &loaded.suite.config_hash());
    let earlier = head.as_ref().and_then(|(_, id)| {
        crate::host::trust::believed_rerun(
            &request.suite.workspace(),
            &store,
            (&run.tenant, &run.suite),
            id,
        )
    });
    let earlier = earlier.unwrap_or_default();
    let decided = earlier.decided_keys();
    triggered.retain(|k| !decided.contains(k));
    // A check whose judge moved on its anchors could not be judged: asking
    // its failures again would pay the moved judge to say so again.
    let mut judged = comparison;
    judged.judges = crate::core::anchors::read_documents(
        run,
        reference,
        &loaded.suite,
        &loaded.judge_anchors,
        loaded.min_judge_kappa,
    );
    let ungated = judged.ungated();
    triggered.retain(|k| !ungated.contains(k.assertion_id.as_str()));
    let comparison = judged;
    let exposed = crate::core::compare::reask::exposed(&comparison, reference);
    let nothing = crate::core::compare::reask::ReaskRecord {
        exposed,
        attempt: earlier.attempts + 1,
        carried: earlier.decided.clone(),
        ..crate::run::reask::nothing_to_reask(reference, loaded.suite.false_alarm_rate)
    };
    let record = if triggered.is_empty() {
        nothing
    } else {
        // A gate of runs made elsewhere may hold its cases shed of what a
        // merge never reads (`merge::plan_and_shed`): the failing cases are
        // read again, whole, to be asked.
        let source = if measured_only {
            let cases: std::collections::BTreeSet<&str> =
                triggered.iter().map(|k| k.case_id.as_str()).collect();
            let mut whole = request.suite.load()?;
            whole.suite.cases.retain(|c| cases.contains(c.id.as_str()));
            whole
        } else {
            loaded.clone()
        };
        let prepared = match Prepared::prepare(source, None) {
            Ok(prepared) => prepared,
            Err(refusal) if measured_only => {
                notices.warn(format!(
                    "the failures of run {key} could not be asked again here ({refusal}): they are not judged"
                ));
                let pairs = triggered
                    .iter()
                    .map(|k| crate::core::compare::reask::Reasked {
                        case_id: k.case_id.to_string(),
                        assertion_id: k.assertion_id.to_string(),
                        occurrence: k.occurrence,
                        failed: Vec::new(),
                    })
                    .collect();
                let record = crate::core::compare::reask::ReaskRecord { pairs, ..nothing };
                store.write_run_reasks(&run.tenant, &run.suite, key, &record)?;
                return Ok(());
            }
            Err(refusal) => return Err(refusal.into()),
        };
        let mut options = options(
            request,
            Map::new(),
            request.pool.quota,
            request.pool.cost,
            notices,
        );
        options.display = Display::Quiet;
        options.announce = false;
        options.resume = None;
        options.resume_hint_on_signal = None;
        // The run's cap holds the run and its re-asks together, and the
        // run's spend record counts both.
        let mut spend = store.read_run_spend(&run.tenant, &run.suite, key);
        let already = spend.as_ref().map_or(0.0, crate::core::spend::Spend::usd);
        let count = triggered.len();
        let (record, reasked) = prepared.reask(
            reference,
            crate::run::reask::to_ask(nothing, triggered),
            &options,
            already,
        )?;
        if let Some(spend) = spend.as_mut() {
            spend.absorb(&reasked);
            store.write_run_spend(&run.tenant, &run.suite, key, spend)?;
        }
        // Every request the re-asks sent to the target: retries and
        // re-asks that could not be judged included.
        let sent = usize::try_from(reasked.target.sent).unwrap_or(usize::MAX);
        notices.plan(ProgressStrings::of(notices.locale()).reasked(count, sent));
        record
    };
    store.write_run_reasks(&run.tenant, &run.suite, key, &record)?;
    // Kept for the next gate of this head only where it can be believed
    // there: sealed with the evidence key.
    if let (Some((tree, id)), true) = (head, crate::host::trust::evidence_key_set()) {
        let next = crate::core::compare::reask::RerunRecord {
            head_tree: tree,
            reference_created_at: reference.created_at.clone(),
            reference_config_hash: reference.config_hash.clone(),
            config_hash: loaded.suite.config_hash(),
            ..earlier
        }
        .after(&record, reference);
        store.write_rerun(&run.tenant, &run.suite, &id, &next)?;
    }
    Ok(())
}
