//! Executing a suite: ask, grade, assemble.
//!
//! Cases are asked by a bounded pool of workers (`--concurrency`) paced by
//! a shared [`Throttle`]; results land in case order whatever the
//! completion order. With `[suite] samples = N` a case is asked N times,
//! **one call after the other by the same worker**, so a case's samples are
//! numbered in call order (a target that answers per call, like the test
//! stub's `answers` lists, gives sample k its k-th answer); different cases
//! still run in parallel. Each attempt that fails transiently (429, 5xx, a
//! reset, a timeout) is retried ([`retrying`]). Each check grades every
//! sample and the N verdicts fold into one (`core::sampling`, with the
//! suite's `min_agreement`); judged checks (`llm_rubric`, `faithfulness`,
//! also inside `repeated`) call their judge in the same worker, with the
//! same retries, and a judge that cannot be called or read errors that
//! check only. A call that still fails on any sample errors every check of
//! that case with a one-line cause (`target raised ValueError: …`, the
//! wording digline 0.10.0 records); it never fails a check, and the case's
//! remaining samples are not asked. The first unsuspended case is asked
//! alone, so the configuration it reports (which the target holds every
//! later answer to) is the first in case order, as in digline 0.10.0's
//! sequential run. Aggregates are counted last, over the folded verdicts
//! (`core::aggregate`). `rejudge` runs this same driver over a stored run's
//! recorded answers (`run::rejudge::Replay`), so both grade alike. After
//! the cases, the suite's judge anchors are graded by the judges of their
//! checks through the same judging path (`grade_anchors`: a live canary
//! per judge, the memo for the rest while nothing says the judge moved)
//! and recorded beside the case results.
//!
//! [`execute_journaled`] also writes every answer and every graded case to
//! the run's journal as it arrives, reuses what a journal of the same run
//! already holds (no call is made for an answer recorded before), and
//! stops picking cases once asked to stop (`super::journal`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use super::budget::{Budget, BUDGET_REASON};
use super::journal::{Prior, Recorder};
use super::memo::{JudgeMemo, Lookup};
use super::notice::Notifier;
use super::progress::{Display, Progress};
use super::quota::{Pacer, Quota};
use super::retry::{retrying, Retried, RetryPolicy, Throttle};
use crate::client::failure::Failure;
use crate::client::http::{HttpTarget, Response};
use crate::client::judge::{JudgeAnswer, JudgeClient, JudgeIdentity, Judges};
use crate::client::mask::{mask_text, mask_value};
use crate::client::provider::ProviderTarget;
use crate::client::rate_limits::Meter;
use crate::core::aggregate::{self, CaseOutcome};
use crate::core::anchors::{Anchor, AnchorVerdict, AnchorsRecord, GradedAnchor, JudgeRecord};
use crate::core::checks::judged::JudgeRequest;
use crate::core::checks::{output_kind, DeclaredCheck, Inputs};
use crate::core::document::{CaseResult, RunDocument, SCHEMA_VERSION};
use crate::core::failed_calls::FailedCalls;
use crate::core::masked::{graded_against, MaskedCase, MaskedRecord};
use crate::core::memo::{MemoEntry, MemoFields, MemoInputs, MemoPlace};
use crate::core::python::dumps::{dumps, Escape, Style};
use crate::core::sampling;
use crate::core::spend::Spend;
use crate::core::suite::{Case, Suite};
use crate::core::verdict::{Status, Verdict};

/// Something that answers a case: the HTTP target, a provider, or a fake.
pub trait Ask: Sync {
    /// One attempt at one case (the driver retries transient failures).
    ///
    /// # Errors
    /// A [`Failure`]: a one-line cause, naming the endpoint by host:port at
    /// most, and whether another attempt could help.
    fn ask(&self, case: &Case) -> Result<Response, Failure>;

    /// What the system under test reported about itself (`{"values": {...}}`,
    /// or `{}`), fixed by the first answer in case order.
    fn target_config(&self) -> Map<String, Value>;

    /// True when the answers come from a recording (`rejudge`): their
    /// recorded cost is not spent again, so progress counts none.
    fn replayed(&self) -> bool {
        false
    }

    /// A resumed run: hold later answers to the configuration (a
    /// `target_config`) the run's earlier answers reported.
    fn resume_config(&self, _target_config: &Map<String, Value>) {}

    /// What the target's calls report to the pacer (tokens, exhausted
    /// quotas), when it is a provider.
    fn meter(&self) -> Option<std::sync::Arc<Meter>> {
        None
    }

    /// The secrets masked in what is kept of the answers (journal, run
    /// document, reasons); the checks grade the answers unmasked.
    fn secrets(&self) -> Vec<String> {
        Vec::new()
    }

    /// The most one call for `case` can cost, USD (`--max-usd` reserves
    /// it before the call); `None` when unknown (the call is charged what
    /// it reports).
    fn worst_case_usd(&self, _case: &Case) -> Option<f64> {
        None
    }

    /// The endpoint the calls go to, as messages name it (`host[:port]`),
    /// when there is one: a failed call's cause is said with it.
    fn endpoint(&self) -> Option<String> {
        None
    }

    /// For a recording (`rejudge`) that kept `case`'s answers with a secret
    /// masked: the run's record of it, carried to the new run (`None`: the
    /// answers are the target's own, or no record says otherwise).
    fn recorded_masked(&self, _case: &Case) -> Option<MaskedCase> {
        None
    }

    /// For a recording that kept `case`'s answers with a secret masked:
    /// the verdict `check` gets instead of grading them, since they are not
    /// the answers the target gave (`None`: grade them).
    fn instead_of_grading(&self, _case: &Case, _check: &DeclaredCheck) -> Option<Verdict> {
        None
    }
}

/// The reason of a judged check not sent to its judge because the answer
/// (or another input the judge would be shown) holds a secret: sending it
/// would take the secret out of the process, and a masked stand-in is not
/// the answer. The verdict is an error, so the gate answers 2.
pub const NOT_SENT_TO_JUDGE: &str = "not judged: the answer holds a value digline masks (a secret the target echoed back, shown as *** in what is kept), so it was not sent to the judge; a masked copy would not be the answer";

impl Ask for HttpTarget {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        self.attempt(case)
    }

    fn target_config(&self) -> Map<String, Value> {
        HttpTarget::target_config(self)
    }

    fn resume_config(&self, target_config: &Map<String, Value>) {
        if let Some(Value::Object(values)) = target_config.get("values") {
            self.hold_first(values);
        }
    }

    fn secrets(&self) -> Vec<String> {
        HttpTarget::secrets(self).to_vec()
    }

    fn endpoint(&self) -> Option<String> {
        Some(HttpTarget::endpoint(self).to_string())
    }
}

impl Ask for ProviderTarget {
    fn ask(&self, case: &Case) -> Result<Response, Failure> {
        self.attempt(case)
    }

    fn target_config(&self) -> Map<String, Value> {
        ProviderTarget::target_config(self)
    }

    fn meter(&self) -> Option<std::sync::Arc<Meter>> {
        Some(std::sync::Arc::clone(self.meter()))
    }

    fn secrets(&self) -> Vec<String> {
        ProviderTarget::secrets(self)
    }

    fn worst_case_usd(&self, case: &Case) -> Option<f64> {
        ProviderTarget::worst_case_usd(self, case)
    }

    fn endpoint(&self) -> Option<String> {
        Some(ProviderTarget::endpoint(self).to_string())
    }
}

/// Something that answers a judging request: the judges of a suite, or a fake.
pub trait Judge: Sync {
    /// One attempt at one judging request.
    ///
    /// # Errors
    /// A [`Failure`] as for [`Ask::ask`] (a judge the suite does not hold
    /// is a permanent one).
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, Failure>;

    /// The run's `judge_config` (`{}` without judges).
    fn judge_config(&self) -> Map<String, Value>;

    /// What the judges' calls report to the pacer.
    fn meters(&self) -> Vec<std::sync::Arc<Meter>> {
        Vec::new()
    }

    /// The secrets masked in what is kept of the judges' replies.
    fn secrets(&self) -> Vec<String> {
        Vec::new()
    }

    /// Who answers requests for `coordinate` (the judge memo's key).
    fn identity(&self, coordinate: &str) -> JudgeIdentity {
        JudgeIdentity::of_coordinate(coordinate)
    }

    /// The most one judging call can cost, USD; `None` when unknown.
    fn worst_case_usd(&self, _request: &JudgeRequest) -> Option<f64> {
        None
    }
}

impl Judge for Judges {
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, Failure> {
        match self.get(&request.coordinate) {
            Some(client) => client.ask(request.system, &request.prompt),
            None => NoJudges.judge(request),
        }
    }

    fn judge_config(&self) -> Map<String, Value> {
        self.config()
    }

    fn meters(&self) -> Vec<std::sync::Arc<Meter>> {
        self.clients()
            .iter()
            .map(|c| std::sync::Arc::clone(c.meter()))
            .collect()
    }

    fn secrets(&self) -> Vec<String> {
        Judges::secrets(self)
    }

    fn identity(&self, coordinate: &str) -> JudgeIdentity {
        self.get(coordinate).map_or_else(
            || JudgeIdentity::of_coordinate(coordinate),
            JudgeClient::identity,
        )
    }

    fn worst_case_usd(&self, request: &JudgeRequest) -> Option<f64> {
        self.get(&request.coordinate)?
            .worst_case_usd(request.system, &request.prompt)
    }
}

/// The judge of a suite without judged checks.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoJudges;

impl Judge for NoJudges {
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, Failure> {
        Err(Failure::permanent(format!(
            "no judge {} was set up for this run",
            request.coordinate
        )))
    }

    fn judge_config(&self) -> Map<String, Value> {
        Map::new()
    }
}

/// What the caller knows that the driver must not look up itself.
#[derive(Clone, Debug)]
pub struct RunContext {
    /// `host::clock::now_iso()` at the start of the run.
    pub created_at: String,
    /// The repository's commit, if any.
    pub git_commit: Option<String>,
    /// This binary's version (`CARGO_PKG_VERSION`).
    pub digline_version: String,
    /// `--meta K=V` pairs; payload.
    pub metadata: Map<String, Value>,
    /// Declared artifacts: path → `{sha, text}`.
    pub artifacts: Map<String, Value>,
    /// Cases in flight at most (≥ 1).
    pub concurrency: usize,
    /// How transient failures are retried.
    pub retry: RetryPolicy,
    /// How progress is shown on stderr.
    pub display: Display,
    /// Where the progress lines go (the front end's sink).
    pub notices: Notifier,
    /// Seeds the retry jitter (any value; the caller may use the clock).
    pub seed: u64,
    /// `--rate`: the quota the calls are paced to (unlimited by default).
    pub quota: Quota,
    /// Where the retries are counted (a handle the caller may keep).
    pub retried: Retried,
    /// The judge memo and the spending cap (none by default).
    pub cost: CostControls,
    /// The suite's judge anchors and the reference's grading of them
    /// (none by default).
    pub anchors: AnchorPlan,
}

/// The judge anchors a run grades after its cases (`grade_anchors`).
#[derive(Clone, Debug, Default)]
pub struct AnchorPlan {
    /// The suite's anchors (`[suite] judge_anchors`), in file order.
    pub anchors: Vec<Anchor>,
    /// How the reference graded them, when it did: decides which anchors
    /// are graded live and which come from the memo.
    pub reference: Option<AnchorsRecord>,
}

#[cfg(test)]
impl RunContext {
    /// A quiet context created at `created_at`, `concurrency` cases at once,
    /// default retries, no cap: what the tests start from.
    pub fn for_tests(created_at: &str, concurrency: usize) -> RunContext {
        RunContext {
            created_at: created_at.into(),
            git_commit: None,
            digline_version: "0".into(),
            metadata: Map::new(),
            artifacts: Map::new(),
            concurrency,
            retry: RetryPolicy::default(),
            display: Display::Quiet,
            notices: crate::run::Notifier::silent(),
            seed: 1,
            quota: Quota::default(),
            retried: Retried::default(),
            cost: CostControls::default(),
            anchors: AnchorPlan::default(),
        }
    }
}

/// What bounds and avoids a run's spend and shares its quota: the judge
/// memo (`--judge-memo`, `super::memo`), the cap (`--max-usd`,
/// `super::budget`) and the quota's bucket shared by processes.
#[derive(Clone, Debug, Default)]
pub struct CostControls {
    /// Asked before every judge call; `None` is `--judge-memo off`.
    pub memo: Option<std::sync::Arc<JudgeMemo>>,
    /// Reserved from before every call; `None` is no cap.
    pub budget: Option<std::sync::Arc<Budget>>,
    /// The `--rate` bucket this process shares with the others on the
    /// machine calling with the same key (`super::shared_quota`); `None`:
    /// it paces alone.
    pub shared_quota: Option<std::sync::Arc<crate::run::shared_quota::SharedQuota>>,
}

/// Why a run could not be executed at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The suite asks for something this release cannot run yet.
    #[error("{0}")]
    NotSupported(String),
    /// Asked to stop (Ctrl-C, SIGTERM) before every case was answered; the
    /// journal holds what was.
    #[error("the run was stopped with {pending} case(s) not answered")]
    Stopped {
        /// Cases still without an answer.
        pending: usize,
    },
}

/// The longest cause recorded in a reason, in characters.
const MAX_CAUSE: usize = 500;

fn clip(text: &str) -> String {
    if text.chars().count() <= MAX_CAUSE {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX_CAUSE).collect();
        s.push('…');
        s
    }
}

/// What the workers share.
struct Services<'a> {
    target: &'a dyn Ask,
    judge: &'a dyn Judge,
    retry: RetryPolicy,
    throttle: Throttle,
    progress: Progress,
    prior: &'a Prior,
    recorder: &'a Recorder<'a>,
    /// What is masked in everything kept: the target's and the judges'
    /// secrets.
    secrets: Vec<String>,
    /// The memo and the cap.
    cost: &'a CostControls,
    /// The suite's name (where a memo entry was recorded).
    suite: &'a str,
    /// The cases whose kept answers had a secret masked, by case id.
    masked: Mutex<std::collections::HashMap<String, MaskedCase>>,
    /// Judge calls actually sent (memo hits and refusals not counted).
    judged_live: AtomicUsize,
}

impl Services<'_> {
    /// An answer as it is kept (journal, run document): every secret
    /// masked (borrowed as it is when there is no secret to mask).
    fn kept<'r>(&self, response: &'r Response) -> std::borrow::Cow<'r, Response> {
        if self.secrets.is_empty() {
            return std::borrow::Cow::Borrowed(response);
        }
        let mut kept = response.clone();
        mask_value(&mut kept.output, &self.secrets);
        kept.input = mask_text(&kept.input, &self.secrets);
        std::borrow::Cow::Owned(kept)
    }

    /// Is `response` kept other than it was given (a secret masked)?
    fn masks(&self, response: &Response) -> bool {
        *self.kept(response) != *response
    }

    /// Note that `case`'s kept answers had a secret masked.
    fn note_masked(&self, entry: MaskedCase) {
        self.masked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(entry.case_id.clone(), entry);
    }

    /// The cases noted by [`Services::note_masked`], in `suite`'s case order.
    fn masked_record(&self, suite: &Suite) -> MaskedRecord {
        let mut noted = std::mem::take(
            &mut *self
                .masked
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        MaskedRecord {
            cases: suite
                .cases
                .iter()
                .filter_map(|c| noted.remove(&c.id))
                .collect(),
        }
    }

    /// A verdict as it is kept: its reason and metadata masked.
    fn kept_verdict(&self, mut verdict: Verdict) -> Verdict {
        verdict.reason = mask_text(&verdict.reason, &self.secrets);
        let mut metadata = Value::Object(std::mem::take(&mut verdict.metadata).into_map());
        mask_value(&mut metadata, &self.secrets);
        if let Value::Object(map) = metadata {
            verdict.metadata = map.into();
        }
        verdict
    }

    /// The target's configuration as it is kept.
    fn kept_config(&self) -> Map<String, Value> {
        let mut config = Value::Object(self.target.target_config());
        mask_value(&mut config, &self.secrets);
        match config {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }
}

/// Run `suite` against `target`, grading judged checks with `judge`, and
/// return the run document (not yet stored).
///
/// # Errors
/// None in this release (every suite the loader accepts runs); the
/// `Result` stays for suites a later release may refuse here.
pub fn execute(
    suite: &Suite,
    target: &dyn Ask,
    judge: &dyn Judge,
    ctx: &RunContext,
) -> Result<RunDocument, RunError> {
    execute_journaled(
        suite,
        target,
        judge,
        ctx,
        &Prior::none(),
        &Recorder::new(None, None),
    )
}

/// [`execute`], writing to a journal through `recorder` and reusing what
/// `prior` (a journal of the same run) holds: a case graded before is not
/// asked or graded again, a case with some samples answered is asked only
/// for the rest.
///
/// # Errors
/// [`RunError::Stopped`] when the recorder was told to stop before every
/// case was answered.
pub fn execute_journaled(
    suite: &Suite,
    target: &dyn Ask,
    judge: &dyn Judge,
    ctx: &RunContext,
    prior: &Prior,
    recorder: &Recorder,
) -> Result<RunDocument, RunError> {
    execute_spent(suite, target, judge, ctx, prior, recorder).map(|(doc, ..)| doc)
}

/// [`execute_journaled`], also returning what this execution spent (the
/// target's and the judges' money and tokens; calls a resumed run made
/// before it stopped are not in it), how long each failed target call
/// took (a failed case is asked again on resume, so these are complete)
/// and which cases' answers were kept with a secret masked (a resumed
/// run's included: its journal says so).
///
/// # Errors
/// As [`execute_journaled`].
pub fn execute_spent(
    suite: &Suite,
    target: &dyn Ask,
    judge: &dyn Judge,
    ctx: &RunContext,
    prior: &Prior,
    recorder: &Recorder,
) -> Result<(RunDocument, Spend, FailedCalls, MaskedRecord), RunError> {
    // Pattern searches measure their time budget with this clock.
    crate::core::checks::search::use_clock(std::time::Instant::now);
    if let Some(config) = prior.target_config() {
        target.resume_config(config);
        recorder.seen_config(config);
    }
    let samples = suite.samples.max(1) as usize;
    let asked = suite
        .cases
        .iter()
        .filter(|c| c.suspended.is_none() && prior.graded(&c.id, samples).is_none())
        .count();
    let services = Services {
        target,
        judge,
        retry: ctx.retry,
        throttle: Throttle::new(ctx.concurrency, ctx.seed)
            .with_retried(ctx.retried.clone())
            .with_pacer(
                Pacer::new(
                    ctx.quota,
                    target.meter().into_iter().chain(judge.meters()).collect(),
                )
                .with_shared(ctx.cost.shared_quota.clone())
                .with_max_wait(ctx.retry.max_wait),
            ),
        progress: Progress::new(asked, ctx.display, ctx.notices.clone()),
        prior,
        recorder,
        secrets: target
            .secrets()
            .into_iter()
            .chain(judge.secrets())
            .collect(),
        cost: &ctx.cost,
        suite: &suite.name,
        masked: Mutex::default(),
        judged_live: AtomicUsize::new(0),
    };
    let outcomes = run_all(suite, &services);
    // A run stopped (or capped) before every case was asked is not stored
    // whole: its anchors are not worth a call.
    let whole = suite
        .cases
        .iter()
        .zip(&outcomes)
        .all(|(c, o)| c.suspended.is_some() || o.is_some());
    let judge_anchors = if whole {
        grade_anchors(suite, &ctx.anchors, &services)
    } else {
        None
    };
    let mut spent = services.progress.finish().spend;
    if let Some(memo) = &ctx.cost.memo {
        spent.memo = memo.tally();
    }
    if let Some(budget) = &ctx.cost.budget {
        spent.max_usd = Some(budget.cap());
        spent.budget_exhausted = budget.exhausted();
        spent.overbilled = budget.overbilled();
    }
    let outcomes = not_asked_for_budget(suite, outcomes, ctx.cost.budget.as_deref());
    let mut failed_calls = services.progress.failed_calls();
    failed_calls.endpoint = target.endpoint().filter(|e| !e.is_empty());
    let pending = suite
        .cases
        .iter()
        .zip(&outcomes)
        .filter(|(c, o)| c.suspended.is_none() && o.is_none())
        .count();
    if pending > 0 {
        return Err(RunError::Stopped { pending });
    }
    let mut results = Vec::with_capacity(suite.cases.len());
    for (case, outcome) in suite.cases.iter().zip(outcomes) {
        let mut result = CaseResult {
            case_id: case.id.clone(),
            suspended: case.suspended.is_some(),
            suspended_reason: case.suspended.clone(),
            canary: case.canary.then_some(true),
            verdicts: Vec::new(),
            responses: None,
        };
        if let Some((verdicts, responses)) = outcome {
            result.verdicts = verdicts;
            if suite.record_responses {
                result.responses = responses.map(|r| r.iter().map(recorded).collect());
            }
        }
        results.push(result);
    }
    let aggregate = count_aggregates(suite, &results);
    let doc = RunDocument {
        aggregate,
        artifacts: ctx.artifacts.clone(),
        config_hash: suite.config_hash(),
        created_at: ctx.created_at.clone(),
        digline_version: ctx.digline_version.clone(),
        environment: suite.environment.clone(),
        git_commit: ctx.git_commit.clone(),
        judge_config: judge.judge_config(),
        metadata: ctx.metadata.clone(),
        redacted: false,
        results,
        schema_version: SCHEMA_VERSION,
        suite: suite.name.clone(),
        target_config: services.kept_config(),
        tenant: suite.tenant.clone(),
        rejudged_from: None,
        promoted_at: None,
        judge_anchors,
    };
    let masked = services.masked_record(suite);
    Ok((doc, spent, failed_calls, masked))
}

/// A case's verdicts and the answers they graded (none when a call failed);
/// `None` for a suspended case.
type Outcome = Option<(Vec<Verdict>, Option<Vec<Response>>)>;

/// Ask one case `samples` times (each call with retries, stopping at the
/// first failure) and grade every check on every sample, folded.
/// `None` when the run was told to stop before every sample was answered.
fn run_case(suite: &Suite, case: &Case, svc: &Services) -> Outcome {
    let samples = suite.samples.max(1) as usize;
    if let Some((verdicts, answers)) = svc.prior.graded(&case.id, samples) {
        // Its masked fact is noted where `run_all` takes it (the same check).
        return Some((verdicts, Some(answers)));
    }
    // A kept answer with a secret masked is not the answer: asked again.
    let mut known = svc.prior.answers_as_given(&case.id);
    known.truncate(samples);
    let mut done = known;
    let mut failed: Option<String> = None;
    let mut any_sent = false;
    while done.len() < samples {
        if svc.recorder.stopped() {
            return None;
        }
        let sample = done.len();
        // When the last attempt started: a failed call's elapsed time is a
        // measured fact shown beside its cause (`core::failed_calls`).
        let attempt_started = std::cell::Cell::new(std::time::Instant::now());
        // Whether any attempt was sent (a call the cap kept back was not).
        let sent = std::cell::Cell::new(false);
        let asked = retrying(&svc.retry, &svc.throttle, &case.id, || {
            attempt_started.set(std::time::Instant::now());
            reserved(
                svc.cost.budget.as_deref(),
                svc.target.worst_case_usd(case),
                || {
                    sent.set(true);
                    svc.progress.target_sent();
                    svc.target.ask(case)
                },
                |r| r.cost_usd,
            )
        });
        if sent.get() && !any_sent {
            any_sent = true;
            svc.progress.case_sent();
        }
        match asked {
            Ok(r) => {
                tracing::debug!(case = %case.id, latency_ms = r.latency_ms, "answered");
                let kept = svc.kept(&r);
                svc.recorder.answered(&case.id, sample, &kept, *kept != r);
                done.push(r);
            }
            Err(cause) => {
                tracing::debug!(case = %case.id, "the call failed; its checks will be errors");
                // A call never sent took no time: no elapsed time is shown.
                if sent.get() {
                    let elapsed = attempt_started.get().elapsed().as_millis();
                    svc.progress
                        .call_failed(&case.id, u64::try_from(elapsed).unwrap_or(u64::MAX));
                }
                failed = Some(cause);
                break;
            }
        }
    }
    let answers: Result<Vec<Response>, String> = match failed {
        Some(cause) => Err(cause),
        None => Ok(done),
    };
    let min_agreement = suite.required_agreement();
    let (verdicts, responses) = match answers {
        Ok(responses) => {
            let verdicts: Vec<Verdict> = suite
                .checks
                .iter()
                .map(|c| {
                    let graded = grade(c, case, &responses, min_agreement, svc);
                    svc.kept_verdict(graded.at_storage_precision())
                })
                .collect();
            // Graded as answered; kept masked from here on, and the case
            // noted when that changed what is kept.
            let kept: Vec<Response> = if svc.secrets.is_empty() {
                responses
            } else {
                let kept: Vec<Response> =
                    responses.iter().map(|r| svc.kept(r).into_owned()).collect();
                if kept != responses {
                    svc.note_masked(MaskedCase {
                        case_id: case.id.clone(),
                        graded_against: graded_against(case, min_agreement),
                    });
                }
                kept
            };
            if let Some(entry) = svc.target.recorded_masked(case) {
                svc.note_masked(entry);
            }
            (verdicts, Some(kept))
        }
        Err(cause) => {
            let reason = if cause.starts_with(BUDGET_REASON) {
                cause
            } else {
                format!("target raised ValueError: {}", clip(&cause))
            };
            let reason = mask_text(&reason, &svc.secrets);
            let verdicts = suite
                .checks
                .iter()
                .map(|c| c.errored(reason.clone()))
                .collect();
            (verdicts, None)
        }
    };
    if responses.is_some() {
        let masked = svc
            .masked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&case.id)
            .cloned();
        svc.recorder
            .graded(&case.id, &verdicts, svc.kept_config(), masked.as_ref());
    }
    let errored = verdicts.iter().any(|v: &Verdict| v.status == Status::Error);
    let cost: f64 = if svc.target.replayed() {
        0.0
    } else {
        for r in responses.iter().flatten() {
            svc.progress.target_answered(r.cost_usd, r.tokens);
        }
        responses.iter().flatten().filter_map(|r| r.cost_usd).sum()
    };
    svc.progress.case_done(errored, cost);
    // Answers are kept to the end of the run only when the document records
    // them: a 10,000-case run otherwise holds every answer and request body.
    let responses = responses.filter(|_| suite.record_responses);
    Some((verdicts, responses))
}

/// One check's verdict on one case: every sample graded, then folded.
fn grade(
    check: &DeclaredCheck,
    case: &Case,
    responses: &[Response],
    min_agreement: f64,
    svc: &Services,
) -> Verdict {
    if let Some(verdict) = svc.target.instead_of_grading(case, check) {
        return verdict;
    }
    let metadata = Map::new();
    // Every check grades the answer as given. A judge is a third party: it
    // is sent the answer only when masking would not change what it is
    // sent (`grade_one`), so the answer as kept is at hand for judged checks.
    let judged = check.judge_coordinate().is_some();
    let samples: Vec<Verdict> = responses
        .iter()
        .enumerate()
        .map(|(sample, given)| {
            let kept = if judged && svc.masks(given) {
                Some(svc.kept(given).into_owned())
            } else {
                None
            };
            let at = Draw {
                case_id: &case.id,
                sample: u32::try_from(sample).unwrap_or(u32::MAX),
                draw: 0,
            };
            let masked = kept.as_ref().map(|k| inputs(case, k, &metadata));
            let given = inputs(case, given, &metadata);
            grade_one(check, &given, masked.as_ref(), &at, svc)
        })
        .collect();
    let mut verdict = sampling::fold(&samples, min_agreement)
        .unwrap_or_else(|| check.errored("the target gave no answer to judge".to_string()));
    if judged {
        verdict.judged = Some(true);
    }
    verdict
}

/// What a check sees of `response` to `case`.
fn inputs<'r>(
    case: &'r Case,
    response: &'r Response,
    metadata: &'r Map<String, Value>,
) -> Inputs<'r> {
    Inputs {
        output: &response.output,
        input: Some(&response.input),
        expected: case.expected.as_ref(),
        context: &case.context,
        cost_usd: response.cost_usd,
        latency_ms: Some(response.latency_ms),
        response_metadata: metadata,
    }
}

/// Which grading of a case a judge call is: the case, the sample of its
/// answers, the draw of a `repeated` check (part of the memo's key).
struct Draw<'a> {
    case_id: &'a str,
    sample: u32,
    draw: u32,
}

/// One check on one answer; judged checks (also inside `repeated`) through
/// the judge. `masked`: the same answer as it is kept, when masking changed
/// it — then a judge whose request would change with the mask is not asked
/// ([`NOT_SENT_TO_JUDGE`]).
fn grade_one(
    check: &DeclaredCheck,
    inputs: &Inputs,
    masked: Option<&Inputs>,
    at: &Draw,
    svc: &Services,
) -> Verdict {
    if let Some(repetition) = check.repetition() {
        if repetition.inner.judge_coordinate().is_some() {
            let verdicts: Vec<Verdict> = (0..repetition.samples.max(1))
                .map(|draw| {
                    let at = Draw { draw, ..*at };
                    grade_one(repetition.inner, inputs, masked, &at, svc)
                })
                .collect();
            return check
                .fold_repeated(&verdicts)
                .unwrap_or_else(|| check.evaluate(inputs));
        }
    }
    match check.judge_request(inputs) {
        None => check.evaluate(inputs),
        Some(Err(verdict)) => verdict,
        Some(Ok(request)) if masking_changes(check, &request, masked) => {
            check.errored(NOT_SENT_TO_JUDGE.to_string())
        }
        Some(Ok(request)) => ask_judge(check, inputs, &request, at, svc),
    }
}

/// Would the judge be sent something else for the answer as it is kept
/// (`masked`) than for the answer as given (`request`)? Then the request
/// holds a secret.
fn masking_changes(check: &DeclaredCheck, request: &JudgeRequest, masked: Option<&Inputs>) -> bool {
    let Some(masked) = masked else {
        return false;
    };
    match check.judge_request(masked) {
        Some(Ok(shown)) => shown.prompt != request.prompt || shown.system != request.system,
        // Masking changed whether the judge is asked at all.
        _ => true,
    }
}

/// Ask the judge (the memo first, the cap before the call) and read its
/// reply into `check`'s verdict.
fn ask_judge(
    check: &DeclaredCheck,
    inputs: &Inputs,
    request: &JudgeRequest,
    at: &Draw,
    svc: &Services,
) -> Verdict {
    consult(check, inputs, request, at, svc, false).verdict
}

/// What one judging gave: the verdict, the model the provider says
/// answered (a live call's), and whether a call was sent.
struct Consulted {
    verdict: Verdict,
    answered: Option<String>,
    live: bool,
}

/// [`ask_judge`], `live`: the memo is not read (a reply is still kept).
fn consult(
    check: &DeclaredCheck,
    inputs: &Inputs,
    request: &JudgeRequest,
    at: &Draw,
    svc: &Services,
    live: bool,
) -> Consulted {
    let from_memo = |verdict: Verdict| Consulted {
        verdict,
        answered: None,
        live: false,
    };
    let memo = svc.cost.memo.as_deref().map(|memo| {
        let identity = svc.judge.identity(&request.coordinate);
        let answer = match inputs.output {
            Value::String(text) => text.as_bytes().to_vec(),
            other => serde_json::to_vec(other).unwrap_or_default(),
        };
        let fields = MemoFields::of(&MemoInputs {
            provider: &identity.provider,
            model: &identity.model,
            endpoint: &identity.endpoint,
            base_url: &identity.base_url,
            params: &identity.params,
            system: request.system,
            prompt: &request.prompt,
            answer: &answer,
            sample: at.sample,
            draw: at.draw,
        });
        let place = MemoPlace {
            suite: svc.suite.to_string(),
            case: at.case_id.to_string(),
            check: check.assertion_id.clone(),
        };
        (memo, fields, place)
    });
    if let Some((memo, fields, place)) = &memo {
        if !live || memo.replays() {
            match memo.lookup(fields, place) {
                Lookup::Hit(entry) => return from_memo(check.judged_verdict(Ok(&entry.reply))),
                Lookup::Refused(why) => return from_memo(check.errored(why)),
                Lookup::Ask => {}
            }
        }
    }
    let answer = retrying(&svc.retry, &svc.throttle, at.case_id, || {
        reserved(
            svc.cost.budget.as_deref(),
            svc.judge.worst_case_usd(request),
            || {
                svc.progress.judge_sent();
                svc.judged_live.fetch_add(1, Ordering::SeqCst);
                svc.judge.judge(request)
            },
            |a| a.cost_usd,
        )
    });
    match answer {
        Ok(answer) => {
            svc.progress.judge_spent(answer.cost_usd, answer.tokens);
            if let Some((memo, fields, place)) = memo {
                memo.keep(&MemoEntry {
                    fields,
                    place,
                    reply: mask_text(&answer.text, &svc.secrets),
                    cost_usd: answer.cost_usd,
                    tokens: answer.tokens,
                });
            }
            Consulted {
                verdict: check.judged_verdict(Ok(&answer.text)),
                answered: answer.model,
                live: true,
            }
        }
        Err(cause) => Consulted {
            verdict: check.judged_verdict(Err(&clip(&cause))),
            answered: None,
            live: true,
        },
    }
}

/// Grade the suite's judge anchors, each by the judge of its check, after
/// the cases and through the same path (memo, cap, retries, spend).
///
/// Per judged check the first anchor is the *canary*: always graded live,
/// so the reply's `model` says who answers. The others come from the memo
/// unless something says the judge may have moved: no reference grading,
/// a case judging of this run that was asked live (the memo missed, so a
/// verdict of this gate rests on the judge as it is now), an identity
/// other than the reference's, or a canary graded otherwise than in the
/// reference — then every anchor is graded live. `None` without anchors.
fn grade_anchors(suite: &Suite, plan: &AnchorPlan, svc: &Services) -> Option<AnchorsRecord> {
    if plan.anchors.is_empty() {
        return None;
    }
    let cases_live = svc.judged_live.load(Ordering::SeqCst) > 0;
    let mut graded: Vec<Option<GradedAnchor>> = vec![None; plan.anchors.len()];
    let mut judges = Vec::new();
    for check in &suite.checks {
        let Some(coordinate) = check.judge_coordinate() else {
            continue;
        };
        let mine: Vec<usize> = (0..plan.anchors.len())
            .filter(|&i| plan.anchors[i].check == check.name)
            .collect();
        let Some((&canary, rest)) = mine.split_first() else {
            continue;
        };
        let grader = check.repetition().map_or(check, |r| r.inner);
        let client = svc.judge.identity(coordinate);
        let mut identity = crate::core::anchors::JudgeIdentity {
            provider: client.provider.clone(),
            requested_model: client.model.clone(),
            answered_model: None,
            endpoint: client.endpoint.clone(),
            base_url_hash: crate::core::identity::digest(&json!(client.base_url)),
            prompt_hash: String::new(),
            protocol: String::new(),
        };
        let first = grade_anchor(grader, &plan.anchors[canary], svc, true);
        identity.answered_model = first.answered.clone();
        identity.prompt_hash = first.prompt_hash.clone();
        identity.protocol = first.protocol.clone();
        let reference = plan.reference.as_ref();
        let before = reference.and_then(|r| r.judge(&check.name));
        let canary_key = plan.anchors[canary].key();
        let canary_held = reference.is_some_and(|r| {
            r.anchors
                .iter()
                .any(|a| a.check == check.name && a.key == canary_key && a.verdict == first.verdict)
        });
        let all_live = cases_live
            || !canary_held
            || before.is_none_or(|b| !b.identity.changed(&identity).is_empty());
        let mut live = u64::from(first.live);
        graded[canary] = Some(GradedAnchor {
            key: canary_key,
            check: check.name.clone(),
            verdict: first.verdict,
        });
        let gradings = grade_in_pool(rest.len(), svc, |n| {
            grade_anchor(grader, &plan.anchors[rest[n]], svc, all_live)
        });
        for (&i, one) in rest.iter().zip(gradings) {
            let anchor = &plan.anchors[i];
            live += u64::from(one.live);
            if identity.answered_model.is_none() {
                identity.answered_model = one.answered;
            }
            if identity.prompt_hash.is_empty() {
                (identity.prompt_hash, identity.protocol) = (one.prompt_hash, one.protocol);
            }
            graded[i] = Some(GradedAnchor {
                key: anchor.key(),
                check: check.name.clone(),
                verdict: one.verdict,
            });
        }
        judges.push(JudgeRecord {
            check: check.name.clone(),
            coordinate: coordinate.to_string(),
            identity,
            live,
        });
    }
    Some(AnchorsRecord {
        anchors: graded.into_iter().flatten().collect(),
        judges,
    })
}

/// `grade(0..count)`, graded by the run's pool: as many at once as the
/// throttle lets cases be asked (`--concurrency`), in order of the result.
fn grade_in_pool<T: Send>(
    count: usize,
    svc: &Services,
    grade: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let slots: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let workers = svc.throttle.limit().min(count).max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= count {
                    break;
                }
                svc.throttle.enter();
                let one = grade(i);
                svc.throttle.leave();
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(one);
                }
            });
        }
    });
    slots
        .into_iter()
        .filter_map(|slot| slot.into_inner().ok().flatten())
        .collect()
}

/// One anchor graded by `check`'s judge.
struct AnchorGrading {
    verdict: AnchorVerdict,
    answered: Option<String>,
    live: bool,
    /// 16 hex of the judge's system prompt and the check's declaration
    /// (its rubric): empty when no request could be composed.
    prompt_hash: String,
    /// How the reply is read: the judging kind and 16 hex of the request's
    /// parameters.
    protocol: String,
}

fn grade_anchor(
    check: &DeclaredCheck,
    anchor: &Anchor,
    svc: &Services,
    live: bool,
) -> AnchorGrading {
    let output = Value::String(anchor.answer.clone());
    // The judge is shown the vars as the request the answer came from.
    let input = (!anchor.vars.is_empty())
        .then(|| crate::core::python::dumps::dumps_canonical(&Value::Object(anchor.vars.clone())));
    let metadata = Map::new();
    let inputs = Inputs {
        output: &output,
        input: input.as_deref(),
        expected: None,
        context: &anchor.context,
        cost_usd: None,
        latency_ms: None,
        response_metadata: &metadata,
    };
    let errored = AnchorGrading {
        verdict: AnchorVerdict::Error,
        answered: None,
        live: false,
        prompt_hash: String::new(),
        protocol: String::new(),
    };
    let Some(Ok(request)) = check.judge_request(&inputs) else {
        return errored;
    };
    let key = format!("anchor {}", anchor.key());
    let at = Draw {
        case_id: &key,
        sample: 0,
        draw: 0,
    };
    let consulted = consult(check, &inputs, &request, &at, svc, live);
    let params = svc.judge.identity(&request.coordinate).params;
    AnchorGrading {
        verdict: match consulted.verdict.status {
            Status::Pass => AnchorVerdict::Pass,
            Status::Fail => AnchorVerdict::Fail,
            Status::Error => AnchorVerdict::Error,
        },
        answered: consulted.answered,
        live: consulted.live,
        prompt_hash: crate::core::identity::digest(&json!([
            request.system,
            check.identity_payload
        ])),
        protocol: format!(
            "{}-v1+{}",
            match request.kind {
                crate::core::checks::judged::JudgeKind::Score => "score",
                crate::core::checks::judged::JudgeKind::Claims => "claims",
            },
            crate::core::identity::sha16(&params)
        ),
    }
}

/// One attempt of a call under the cap: its worst case reserved before it
/// is sent (a call that does not fit is not sent: a permanent failure
/// naming the budget), settled at `cost` of what it answered.
fn reserved<T>(
    budget: Option<&Budget>,
    worst: Option<f64>,
    call: impl FnOnce() -> Result<T, Failure>,
    cost: impl Fn(&T) -> Option<f64>,
) -> Result<T, Failure> {
    let Some(budget) = budget else {
        return call();
    };
    let Some(reservation) = budget.reserve(worst) else {
        return Err(Failure::permanent(format!(
            "{BUDGET_REASON}: the call's worst case did not fit in what is left of {:.6} USD, so it was not sent",
            budget.cap()
        )));
    };
    let result = call();
    match &result {
        Ok(answer) => budget.settle(reservation, cost(answer)),
        Err(_) => budget.release(reservation),
    }
    result
}

/// The cases the cap kept from being asked: every check not judged, the
/// cause "budget". Untouched without a cap or when it was not reached.
fn not_asked_for_budget(
    suite: &Suite,
    outcomes: Vec<Outcome>,
    budget: Option<&Budget>,
) -> Vec<Outcome> {
    if !budget.is_some_and(Budget::exhausted) {
        return outcomes;
    }
    let reason = format!("{BUDGET_REASON} before this case was asked");
    suite
        .cases
        .iter()
        .zip(outcomes)
        .map(|(case, outcome)| match outcome {
            None if case.suspended.is_none() => Some((
                suite
                    .checks
                    .iter()
                    .map(|c| c.errored(reason.clone()))
                    .collect(),
                None,
            )),
            other => other,
        })
        .collect()
}

/// The suite's aggregates (group copies included) over the graded cases.
pub(crate) fn count_aggregates(suite: &Suite, results: &[CaseResult]) -> Vec<Verdict> {
    suite
        .aggregates
        .iter()
        .map(|declared| {
            // The loader guarantees exactly one check carries the `over` name.
            let over_id = suite
                .checks
                .iter()
                .find(|c| c.name == declared.over)
                .map(|c| c.assertion_id.as_str());
            let outcomes: Vec<CaseOutcome> = suite
                .cases
                .iter()
                .zip(results)
                .map(|(case, result)| CaseOutcome {
                    label: case.label.as_deref(),
                    verdict: result
                        .verdicts
                        .iter()
                        .find(|v| Some(v.assertion_id.as_str()) == over_id),
                    canary: case.canary,
                    group: case.group.as_deref(),
                })
                .collect();
            aggregate::evaluate(declared, &outcomes).at_storage_precision()
        })
        .collect()
}

/// One recorded answer (`record_responses`), as 0.10.0 writes it: a
/// structured output as its compact, key-sorted JSON text (raw UTF-8), any
/// other output as is; `cost_usd` only when the target reported one.
fn recorded(response: &Response) -> Value {
    let kind = output_kind(&response.output).map_or("invalid", |k| k.as_str());
    let output = match &response.output {
        Value::Object(_) => Value::String(dumps(
            &response.output,
            Style {
                indent: None,
                item_separator: ",",
                key_separator: ":",
                escape: Escape::Utf8,
            },
        )),
        other => other.clone(),
    };
    let mut entry = Map::new();
    if let Some(cost) = response.cost_usd {
        entry.insert("cost_usd".into(), json!(cost));
    }
    entry.insert("input".into(), json!(response.input));
    entry.insert("kind".into(), json!(kind));
    entry.insert("latency_ms".into(), json!(response.latency_ms));
    entry.insert("output".into(), output);
    Value::Object(entry)
}

/// Run every unsuspended case, the pool's limit at a time (a case's samples
/// in order, on one worker); `None` for suspended cases. Case order kept.
fn run_all(suite: &Suite, svc: &Services) -> Vec<Outcome> {
    let slots: Vec<Mutex<Outcome>> = suite.cases.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    // Cases graded in an earlier leg take their slots first; the first
    // case still to ask is then asked alone.
    let samples = suite.samples.max(1) as usize;
    for (case, slot) in suite.cases.iter().zip(&slots) {
        if let Some((verdicts, answers)) = svc.prior.graded(&case.id, samples) {
            if let Some(entry) = svc.prior.masked(&case.id) {
                svc.note_masked(entry);
            }
            if let Ok(mut slot) = slot.lock() {
                *slot = Some((verdicts, Some(answers)));
            }
        }
    }
    let to_ask = |c: &Case| c.suspended.is_none() && svc.prior.graded(&c.id, samples).is_none();
    if let Some(first) = suite.cases.iter().position(to_ask) {
        // The first case holds a place in the pool too: a throttled retry
        // gives its place back while it waits (`retry::retrying`).
        svc.throttle.enter();
        let outcome = run_case(suite, &suite.cases[first], svc);
        svc.throttle.leave();
        if let Ok(mut slot) = slots[first].lock() {
            *slot = outcome;
        }
        next.store(first + 1, Ordering::SeqCst);
    }
    let workers = svc.throttle.limit().min(suite.cases.len()).max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                svc.throttle.enter();
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = suite.cases.get(i) else {
                    svc.throttle.leave();
                    break;
                };
                if !to_ask(case) {
                    svc.throttle.leave();
                    continue;
                }
                if svc.recorder.stopped()
                    || svc.cost.budget.as_deref().is_some_and(Budget::exhausted)
                {
                    svc.throttle.leave();
                    break;
                }
                let outcome = run_case(suite, case, svc);
                svc.throttle.leave();
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = outcome;
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect()
}

#[cfg(test)]
mod cost_tests;
#[cfg(test)]
mod pool_tests;
#[cfg(test)]
mod tests;
