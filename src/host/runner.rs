//! Running a loaded suite: the steps `digline run`, `digline gate` and the
//! MCP `run` tool share — build the target and the judges from the
//! environment, the preflight (every problem at once, before any call),
//! the run context (clock, git, version), the journal, the driver, storing.
//!
//! It lives in `host` because it reads the environment (endpoints, keys,
//! `CI`), the clock and git; the front ends only parse their arguments,
//! call [`Prepared::prepare`] (where MCP checks its acknowledgement against
//! the plan) and [`Prepared::execute`], and print. Nothing here prints: the
//! plan, the resume line and warnings are notices handed to the front end's
//! sink ([`RunOptions::notices`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::client::http::HttpTarget;
use crate::client::judge::Judges;
use crate::client::provider::ProviderTarget;
use crate::core::document::{run_key, RunDocument};
use crate::core::exit::ExitStatus;
use crate::core::spend::Spend;
use crate::host;
use crate::host::suite::errors::LoadError;
use crate::host::suite::provider;
use crate::host::suite::{LoadedSuite, TargetSpec};
use crate::report::progress::ProgressStrings;
use crate::run::budget::Budget;
use crate::run::journal::{self, Prior, Recorder};
use crate::run::memo::{JudgeMemo, MemoMode};
use crate::run::shared_quota::SharedQuota;
use crate::run::{
    execute_spent, preflight, Ask, CostControls, Display, Judge, NoJudges, Notice, Notifier, Plan,
    RetryPolicy, RunContext, RunError,
};
use crate::store::journal::Leg;
use crate::store::memo::MemoReader;
use crate::store::repo::LATEST;
use crate::store::{Store, StoreError};

/// Why a run was refused (every one is exit 64 for the CLI, a tool error for MCP).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunRefusal {
    /// The suite, its headers or artifacts.
    #[error("{0}")]
    Load(#[from] LoadError),
    /// The store.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// Anything else that stops the run before or while it starts: a
    /// preflight, nothing listening, a stopped run.
    #[error("{0}")]
    Refused(String),
    /// A request that cannot be honoured, with what to do instead.
    #[error("{message}")]
    Usage {
        /// The sentence.
        message: String,
        /// What to do instead.
        hint: Option<String>,
    },
}

/// How the run is asked for, beyond the suite.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The repository root (`--root`).
    pub root: std::path::PathBuf,
    /// `--meta` pairs; payload.
    pub metadata: Map<String, Value>,
    /// Cases in flight at once (≥ 1).
    pub concurrency: usize,
    /// Retries of a transient failure (0 = none).
    pub max_retries: u32,
    /// `--max-wait`: the longest wait for a server (longer asked: the call fails at once).
    pub max_wait: Duration,
    /// `--rate`: the quota the calls are paced to (already this shard's share).
    pub quota: crate::run::quota::Quota,
    /// Where the retries are counted; the caller keeps a clone to read them.
    pub retried: crate::run::retry::Retried,
    /// `--resume [KEY]`: finish an unfinished run (`latest` or a key).
    pub resume: Option<String>,
    /// How progress is shown.
    pub display: Display,
    /// Send the plan, the resume line and warnings to `notices`.
    pub announce: bool,
    /// The front end's sink for notices (plan, progress, warnings, a stop).
    pub notices: Notifier,
    /// Stop on Ctrl-C/SIGTERM, keep the journal and exit 64 with this
    /// resume hint (the CLI); `None` leaves signals alone (MCP).
    pub resume_hint_on_signal: Option<String>,
    /// `--judge-memo` and `--max-usd`.
    pub cost: CostOptions,
}

/// How a run's spend is avoided and bounded (`--judge-memo`, `--max-usd`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostOptions {
    /// `--judge-memo` (`on` by default).
    pub memo: MemoMode,
    /// `--max-usd`: the cap of this process, USD (the stricter of it and
    /// `[suite] max_usd` holds).
    pub max_usd: Option<f64>,
    /// Under `--shard K/N`, N: each shard holds an N-th of the cap.
    pub shards: u32,
    /// Believe only memo entries sealed with the evidence key (a gate:
    /// `host::trust`); otherwise unsealed entries are a cost saver too.
    pub memo_sealed_only: bool,
}

impl Default for CostOptions {
    fn default() -> CostOptions {
        CostOptions {
            memo: MemoMode::On,
            max_usd: None,
            shards: 1,
            memo_sealed_only: false,
        }
    }
}

impl CostOptions {
    /// The cap this process holds to: the stricter of `--max-usd` and the
    /// suite's, divided among the shards.
    pub fn cap(&self, suite_cap: Option<f64>) -> Option<f64> {
        let cap = match (self.max_usd, suite_cap) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }?;
        Some(crate::run::budget::share(cap, self.shards))
    }

    /// The memo, the cap and the shared quota of one run of `suite` in
    /// `store`. A memo entry the workspace does not vouch for
    /// (`host::trust`: tracked by git, linked out of the memo) is never
    /// read: the memo is a cache; with `memo_sealed_only` (a gate) an
    /// entry without the evidence seal is not read either. `quota` (`--rate`)
    /// is shared with the other processes on this machine calling with the
    /// same keys (`identity`, from [`quota_identity`]) at the same rate,
    /// unless the run is a shard (a shard paces to its own share, wherever
    /// it runs) or the workspace does not vouch for the bucket
    /// ([`vouched_bucket`]).
    pub fn controls(
        &self,
        store: &Store,
        root: &std::path::Path,
        suite: &crate::core::suite::Suite,
        quota: crate::run::quota::Quota,
        identity: &str,
    ) -> CostControls {
        let memo = (self.memo != MemoMode::Off).then(|| {
            let reader = MemoReader::new(store.clone(), &suite.tenant)
                .vouched_by(Arc::new(host::trust::Workspace::of(root)))
                .requiring_seals(self.memo_sealed_only);
            Arc::new(JudgeMemo::new(self.memo, reader))
        });
        let shared_quota = (!quota.is_unlimited() && self.shards <= 1).then(|| {
            let dir = env("DIGLINE_QUOTA_DIR")
                .or_else(|| env("RUNNER_TEMP"))
                .filter(|d| !d.is_empty())
                .map_or_else(std::env::temp_dir, std::path::PathBuf::from);
            SharedQuota::new(&dir, identity, quota)
        });
        let shared_quota = shared_quota
            .filter(|bucket| vouched_bucket(root, bucket))
            .map(Arc::new);
        CostControls {
            memo,
            budget: self
                .cap(suite.max_usd)
                .map(|cap| Arc::new(Budget::estimating(cap, target_call_price(store, suite)))),
            shared_quota,
        }
    }
}

/// True when the shared quota's bucket may be read and written: the
/// workspace of `root` vouches for it (`host::trust`: not tracked by git in
/// the repository holding its folder, no link out of the folder). A bucket
/// the pull request committed, or a link it planted, could hold the run's
/// calls or point the gate's writes at another file; it is left alone, said
/// with its path, and the run paces to `--rate` alone.
fn vouched_bucket(root: &std::path::Path, bucket: &SharedQuota) -> bool {
    let Some(folder) = bucket.path().parent() else {
        return false;
    };
    match host::trust::Workspace::of(root).check(folder, bucket.path()) {
        Ok(()) => true,
        Err(why) => {
            tracing::warn!(
                "{}; this run paces to --rate alone",
                why.sentence("the shared quota's bucket")
            );
            false
        }
    }
}

/// Who a run's calls go to, for the shared quota: each endpoint with a
/// hash of its secrets (never a secret), sorted.
pub fn quota_identity(parties: impl IntoIterator<Item = (String, Vec<String>)>) -> String {
    let mut parts: Vec<String> = parties
        .into_iter()
        .map(|(endpoint, secrets)| {
            let hash = crate::core::identity::sha256_hex(secrets.join("\n").as_bytes(), 8);
            format!(
                "{}#{hash}",
                crate::run::shared_quota::endpoint_key(&endpoint)
            )
        })
        .collect();
    parts.sort();
    parts.dedup();
    parts.join(" ")
}

/// The judges' endpoints and secrets, for [`quota_identity`].
pub fn judge_parties(judges: &Judges) -> Vec<(String, Vec<String>)> {
    judges
        .clients()
        .iter()
        .map(|j| (j.identity().base_url, j.secrets()))
        .collect()
}

/// The target, built: HTTP (headers expanded) or a provider (endpoint and
/// key from the environment).
#[allow(
    clippy::large_enum_variant,
    reason = "one value per run, never moved in a loop"
)]
enum Built {
    Http(HttpTarget),
    Provider(ProviderTarget),
}

/// A loaded suite with its target and judges built and the preflight passed:
/// nothing has been called yet.
pub struct Prepared {
    loaded: LoadedSuite,
    plan: Plan,
    built: Built,
    judges: Judges,
    artifact_paths: Vec<String>,
}

/// The process environment (this layer's job), passed down as a function.
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// How progress is shown: nothing with `quiet`; in CI (`CI` set) a plain
/// line every 5 s and one at the end; a bar on a terminal; nothing on a
/// pipe outside CI (stderr keeps the plan and warnings only).
pub fn display(quiet: bool) -> Display {
    use std::io::IsTerminal;
    if quiet {
        Display::Quiet
    } else if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        Display::Lines {
            every: Duration::from_secs(5),
        }
    } else if std::io::stderr().is_terminal() {
        Display::Bar
    } else {
        Display::Quiet
    }
}

/// The suite's judges (endpoints and keys from the environment) and their
/// preflight problems.
///
/// # Errors
/// A refusal when a judge cannot be set up at all.
pub fn judges(suite: &crate::core::suite::Suite) -> Result<(Judges, Vec<String>), RunRefusal> {
    let coordinates: Vec<&str> = suite
        .checks
        .iter()
        .filter_map(|c| c.judge_coordinate())
        .collect();
    // A judge's endpoint is the operator's (never the suite's), so the CI
    // allows it; checked all the same, so no key leaves by this path either.
    for kind in coordinates
        .iter()
        .filter_map(|c| crate::client::provider::parse_coordinate(c).ok())
        .map(|(kind, _)| kind)
    {
        let endpoint = host::endpoints::judge_endpoint(kind, &env);
        if endpoint.key.is_some() {
            host::allowed_hosts::check(
                host::endpoints::judge_base_url_variable(kind),
                &endpoint.base_url,
                kind.key_variable(),
                kind.key_variable(),
                &env,
            )
            .map_err(RunRefusal::Refused)?;
        }
    }
    let judges = Judges::new(coordinates, |kind| {
        host::endpoints::judge_endpoint(kind, &env)
    })
    .map_err(RunRefusal::Refused)?;
    let problems = judges
        .clients()
        .iter()
        .filter_map(|j| j.preflight_problem())
        .collect();
    Ok((judges, problems))
}

/// A refusal about the suite file's `[target]`, placed at `key` in it and
/// named as the user named the file.
fn located(loaded: &LoadedSuite, locator: &str, key: &str, sentence: &str) -> RunRefusal {
    use host::suite::errors::{LoadError, LoadErrorKind};
    let error = LoadError::new(
        LoadErrorKind::Credential,
        "suite.toml",
        Some(locator),
        Some(key),
        sentence,
    );
    RunRefusal::Load(loaded.place(error))
}

/// An HTTP target's `${NAME}` values go only to a host the CI allows
/// (`host::allowed_hosts`): the first header taking one names the refusal.
/// With one on board, a `Host` header (any case; `expanded` holds the
/// values as sent) must name the URL's own host too.
fn credentials_allowed(
    loaded: &LoadedSuite,
    spec: &crate::client::http::HttpTargetSpec,
    expanded: &[(String, String)],
) -> Result<(), RunRefusal> {
    let mut carried: Option<String> = None;
    for (name, value) in &spec.headers {
        let vars = host::suite::header_variables(value).unwrap_or_default();
        for var in vars.iter().filter(|var| env(var).is_some()) {
            let what = format!("${{{var}}} (header `{name}`)");
            host::allowed_hosts::check("url", &spec.url, var, &what, &env)
                .map_err(|why| located(loaded, "[target]", "url", &why))?;
            carried.get_or_insert(what);
        }
    }
    let Some(carried) = carried else {
        return Ok(());
    };
    for (name, written) in &spec.headers {
        if !name.eq_ignore_ascii_case("host") {
            continue;
        }
        let sent = expanded
            .iter()
            .find(|(n, _)| n == name)
            .map_or(written.as_str(), |(_, v)| v.as_str());
        host::allowed_hosts::check_host_header(&spec.url, name, written, sent, &carried, &env)
            .map_err(|why| located(loaded, "[target.headers]", name, &why))?;
    }
    Ok(())
}

/// The warning for each judge without a price (its spend is not counted).
pub fn warn_unpriced(judges: &Judges, notices: &Notifier) {
    for judge in judges.clients().iter().filter(|j| !j.is_priced()) {
        notices.warn(ProgressStrings::of(notices.locale()).unpriced_judge(judge.coordinate()));
    }
}

impl Prepared {
    /// Build the target and the judges and run the preflight: every problem
    /// (a missing key, an unpriced model, a missing template variable, more
    /// calls than `max_calls`) listed at once. Nothing is called.
    ///
    /// # Errors
    /// A [`RunRefusal`] with every preflight problem, or the one that stops
    /// building.
    pub fn prepare(loaded: LoadedSuite, max_calls: Option<usize>) -> Result<Prepared, RunRefusal> {
        let (anchors, canaries) = anchor_counts(&loaded);
        let plan = Plan::of(&loaded.suite).with_anchors(anchors, canaries);
        let mut artifact_paths = loaded.suite.artifacts.clone();
        let mut problems: Vec<String> = Vec::new();
        let built = match &loaded.target {
            TargetSpec::Http(spec) => {
                let headers =
                    host::suite::expand_headers(spec, env).map_err(|e| loaded.place(e))?;
                credentials_allowed(&loaded, spec, &headers)?;
                let secrets = host::suite::header_secrets(spec, env);
                Built::Http(
                    HttpTarget::new(spec.clone(), headers)
                        .map_err(RunRefusal::Refused)?
                        .with_secrets(secrets),
                )
            }
            TargetSpec::Provider(spec) => {
                for template in std::iter::once(&spec.prompt).chain(spec.system.as_ref()) {
                    if let Some(path) = &template.origin {
                        if !artifact_paths.contains(path) {
                            artifact_paths.push(path.clone());
                        }
                    }
                }
                let endpoint = provider::endpoint(spec.kind, spec.base_url.as_deref(), &env);
                let target =
                    ProviderTarget::new(spec.clone(), &endpoint).map_err(RunRefusal::Refused)?;
                if endpoint.key.is_some() {
                    let variable = spec.kind.key_variable();
                    host::allowed_hosts::check(
                        "base_url",
                        &endpoint.base_url,
                        variable,
                        variable,
                        &env,
                    )
                    .map_err(|why| located(&loaded, "[target]", "base_url", &why))?;
                }
                problems.extend(target.preflight_problems(&loaded.suite.cases));
                Built::Provider(target)
            }
        };
        let (judges, judge_problems) = judges(&loaded.suite)?;
        problems.extend(judge_problems);
        problems.extend(plan.over(max_calls));
        preflight::refuse_if_any(&problems).map_err(RunRefusal::Refused)?;
        Ok(Prepared {
            loaded,
            plan,
            built,
            judges,
            artifact_paths,
        })
    }

    /// The plan: cases, samples, target and judge calls.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The loaded suite.
    pub fn loaded(&self) -> &LoadedSuite {
        &self.loaded
    }

    /// The gate's re-ask phase: `pairs` (checks of a comparison that failed
    /// where `reference` passed) are asked again until the rule decides them
    /// or their cap is spent (`run::reask`). Nothing is stored here; no call is
    /// made when nothing was triggered. The run's spending cap holds the
    /// run and its re-asks together: the re-asks may spend what the run,
    /// which spent `spent` USD, left of it. Returns the evidence and what
    /// the re-asks spent.
    ///
    /// # Errors
    /// A [`RunRefusal`] when the calls cannot be made (a stopped run).
    pub fn reask(
        &self,
        reference: &RunDocument,
        record: crate::core::compare::reask::ReaskRecord,
        options: &RunOptions,
        spent: f64,
    ) -> Result<(crate::core::compare::reask::ReaskRecord, Spend), RunRefusal> {
        let mut cost = options.cost.controls(
            &Store::new(&options.root).sealed_by(host::trust::seal()),
            &options.root,
            &self.loaded.suite,
            options.quota,
            &quota_identity(
                std::iter::once(target_party(&self.built)).chain(judge_parties(&self.judges)),
            ),
        );
        if let Some(budget) = &cost.budget {
            cost.budget = Some(Arc::new(budget.after(spent)));
        }
        let ctx = RunContext {
            created_at: host::clock::now_iso(),
            git_commit: None,
            digline_version: env!("CARGO_PKG_VERSION").to_string(),
            metadata: Map::new(),
            artifacts: Map::new(),
            concurrency: options.concurrency,
            retry: RetryPolicy {
                max_retries: options.max_retries,
                max_wait: options.max_wait,
                ..RetryPolicy::default()
            },
            display: crate::run::Display::Quiet,
            notices: options.notices.clone(),
            seed: host::clock::seed(),
            quota: options.quota,
            retried: options.retried.clone(),
            cost,
            anchors: crate::run::driver::AnchorPlan::default(),
        };
        let target: &dyn Ask = match &self.built {
            Built::Http(t) => t,
            Built::Provider(t) => t,
        };
        let judge: &dyn Judge = if self.judges.clients().is_empty() {
            &NoJudges
        } else {
            &self.judges
        };
        crate::run::reask::reask(&self.loaded.suite, reference, record, target, judge, &ctx)
            .map_err(|e| RunRefusal::Refused(e.to_string()))
    }

    /// Ask, grade and store: the run's key, its document and the plan.
    /// Checks the store can take the run and (HTTP) that something listens
    /// before the first call; journals every answer; on a resume, asks only
    /// for what nobody has an answer to.
    ///
    /// # Errors
    /// A [`RunRefusal`]: the store, nothing listening, a journal that does
    /// not fit, a stopped run.
    pub fn execute(self, options: &RunOptions) -> Result<(String, RunDocument, Plan), RunRefusal> {
        let Prepared {
            loaded,
            plan,
            built,
            judges,
            artifact_paths,
        } = self;
        let store = Store::new(&options.root).sealed_by(host::trust::seal());
        let (tenant, suite_name) = (&loaded.suite.tenant, &loaded.suite.name);
        store.check_writable(tenant, suite_name)?;
        let artifacts = host::artifacts::record(&loaded.suite_dir, &artifact_paths)
            .map_err(|e| loaded.place(e))?;
        let fresh = RunContext {
            created_at: host::clock::now_iso(),
            git_commit: host::git::commit(&options.root)
                .or_else(|| host::git::commit_from_files(&options.root)),
            digline_version: env!("CARGO_PKG_VERSION").to_string(),
            metadata: options.metadata.clone(),
            artifacts,
            concurrency: options.concurrency,
            retry: RetryPolicy {
                max_retries: options.max_retries,
                max_wait: options.max_wait,
                ..RetryPolicy::default()
            },
            display: options.display,
            notices: options.notices.clone(),
            seed: host::clock::seed(),
            quota: options.quota,
            retried: options.retried.clone(),
            cost: options.cost.controls(
                &store,
                &options.root,
                &loaded.suite,
                options.quota,
                &quota_identity(
                    std::iter::once(target_party(&built)).chain(judge_parties(&judges)),
                ),
            ),
            // The anchors, and how the reference graded them: which of
            // them the memo may serve (`run::driver::grade_anchors`).
            // Under `--shard K/N` the first shard alone grades them (the
            // merged run keeps its record).
            anchors: crate::run::driver::AnchorPlan {
                anchors: if first_shard(&options.metadata) {
                    loaded.judge_anchors.clone()
                } else {
                    Vec::new()
                },
                reference: (!loaded.judge_anchors.is_empty())
                    .then(|| store.read_baseline(tenant, suite_name).ok().flatten())
                    .flatten()
                    .and_then(|b| b.judge_anchors),
            },
        };
        // One run, one writer: the journal's lock is held to the end.
        let mut held_lock = None;
        let (mut ctx, prior, mut key, leg) = match &options.resume {
            None => {
                let (fresh, key) = free_key(&store, tenant, suite_name, &loaded.suite, fresh)?;
                (fresh, Prior::none(), key, 0)
            }
            Some(which) => {
                let key = if which == LATEST {
                    store.pending_keys(tenant, suite_name)?.pop().ok_or_else(|| {
                        RunRefusal::Usage {
                            message: format!("there is no unfinished run of suite '{suite_name}' to resume: every run was stored, or none was started"),
                            hint: Some("run it without --resume".into()),
                        }
                    })?
                } else {
                    which.clone()
                };
                if !crate::store::repo::is_safe_name(&key) {
                    return Err(StoreError::UnsafeName {
                        kind: "run key",
                        value: key,
                    }
                    .into());
                }
                if store.pending_keys(tenant, suite_name)?.contains(&key) {
                    held_lock = Some(store.lock_run(tenant, suite_name, &key)?);
                }
                let stored = store
                    .runs_dir(tenant, suite_name)?
                    .join(format!("{key}.json"));
                if stored.is_file() {
                    // Stopped after the document was written, before the journal went.
                    store.remove_journal(tenant, suite_name, &key)?;
                    if options.announce {
                        options.notices.plan(
                            ProgressStrings::of(options.notices.locale()).already_complete(&key),
                        );
                    }
                    let doc = store.read_run(tenant, suite_name, &key)?.doc;
                    return Ok((key, doc, plan));
                }
                let records = store.read_journal(tenant, suite_name, &key)?;
                let (ctx, prior) =
                    Prior::read(&records.records, &loaded.suite, &fresh).map_err(|e| {
                        RunRefusal::Usage {
                            message: format!("run {key} cannot be resumed: {e}"),
                            hint: None,
                        }
                    })?;
                if run_key(&ctx.created_at, &loaded.suite.config_hash()) != key {
                    return Err(RunRefusal::Usage {
                        message: format!(
                            "run {key} cannot be resumed: its journal's header belongs to another run"
                        ),
                        hint: Some("delete the journal and run the suite again".into()),
                    });
                }
                (ctx, prior, key, records.legs)
            }
        };
        let samples = loaded.suite.samples.max(1) as usize;
        let answered = loaded
            .suite
            .cases
            .iter()
            .filter(|c| c.suspended.is_none() && prior.graded(&c.id, samples).is_some())
            .count();
        let to_ask = plan.cases.saturating_sub(answered);
        if let Built::Http(target) = &built {
            if to_ask > 0 {
                target
                    .preflight_in(options.notices.locale())
                    .map_err(RunRefusal::Refused)?;
            }
        }
        if options.announce {
            let locale = options.notices.locale();
            if options.resume.is_some() {
                options
                    .notices
                    .plan(ProgressStrings::of(locale).resuming(&key, answered, plan.cases, to_ask));
            }
            options.notices.plan(plan.sentence_in(locale));
            // The canaries are counted where the anchors are graded: the
            // first shard alone.
            let judging = if first_shard(&options.metadata) {
                plan.judge_sentence_in(locale)
            } else {
                plan.clone().with_anchors(0, 0).judge_sentence_in(locale)
            };
            if let Some(judging) = judging {
                options.notices.plan(judging);
            }
            let anchors = first_shard(&options.metadata)
                .then(|| anchors_plan(&loaded, locale))
                .flatten();
            if let Some(anchors) = anchors {
                options.notices.plan(anchors);
            }
            warn_unpriced(&judges, &options.notices);
            if let Some(cap) = options.cost.cap(loaded.suite.max_usd) {
                let estimate = last_spend(&store, tenant, suite_name)
                    .and_then(|(spent, cases)| crate::run::budget::estimate(&spent, cases, to_ask));
                options
                    .notices
                    .plan(ProgressStrings::of(locale).budget_plan(cap, estimate, to_ask));
            }
        }
        tracing::info!(
            tenant = %loaded.suite.tenant,
            suite = %loaded.suite.name,
            calls = plan.calls(),
            concurrency = options.concurrency,
            "starting the run"
        );
        let target: &dyn Ask = match &built {
            Built::Http(t) => t,
            Built::Provider(t) => t,
        };
        let judge: &dyn Judge = if judges.clients().is_empty() {
            &NoJudges
        } else {
            &judges
        };
        // A fresh run's first leg claims its key: created only where none
        // is, so a run started at the same moment elsewhere in this store
        // (shards at once) makes this one take the next moment's key.
        let mut tries = 0;
        let leg = loop {
            let header = journal::header(&loaded.suite, &ctx, leg);
            match store.start_leg(tenant, suite_name, &key, leg, &header) {
                Ok(started) => break Arc::new(started),
                Err(_)
                    if options.resume.is_none()
                        && tries < 1000
                        && store.pending_keys(tenant, suite_name)?.contains(&key) =>
                {
                    tries += 1;
                    let (later, next) =
                        free_key(&store, tenant, suite_name, &loaded.suite, ctx.clone())?;
                    (ctx, key) = (later, next);
                }
                Err(e) => return Err(e.into()),
            }
        };
        // A fresh run's key is its own once its first leg exists: its lock
        // is taken right after (a resumed one's may be held already).
        let held_lock = match held_lock {
            Some(lock) => lock,
            None => store.lock_run(tenant, suite_name, &key)?,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let finishing = Arc::new(AtomicBool::new(false));
        if let Some(hint) = &options.resume_hint_on_signal {
            let (leg, stop, finishing, hint, notices) = (
                Arc::clone(&leg),
                Arc::clone(&stop),
                Arc::clone(&finishing),
                format!("{hint} --resume {key}"),
                options.notices.clone(),
            );
            host::signals::on_stop(move |signal| {
                stop.store(true, Ordering::SeqCst);
                stopped(
                    &leg,
                    &finishing,
                    &ProgressStrings::of(notices.locale()).stopped_by(signal),
                    &hint,
                    &notices,
                );
            })
            .map_err(|e| RunRefusal::Refused(format!("digline cannot watch for Ctrl-C: {e}")))?;
        }
        let recorder = Recorder::new(Some(&leg), Some(&stop)).with_notices(options.notices.clone());
        let (doc, spent, failed_calls, masked) =
            match execute_spent(&loaded.suite, target, judge, &ctx, &prior, &recorder) {
                Ok(done) => done,
                Err(RunError::Stopped { pending }) => {
                    if let Some(hint) = &options.resume_hint_on_signal {
                        stopped(
                            &leg,
                            &finishing,
                            &ProgressStrings::of(options.notices.locale()).stopped_pending(pending),
                            &format!("{hint} --resume {key}"),
                            &options.notices,
                        );
                    }
                    return Err(RunRefusal::Refused("the run was stopped".into()));
                }
                Err(e) => return Err(RunRefusal::Refused(e.to_string())),
            };
        {
            // From here a signal no longer stops the run: it is being stored.
            let _held = leg.hold();
            finishing.store(true, Ordering::SeqCst);
        }
        if options.announce {
            announce_spend(
                &spent,
                &options.cost,
                doc.unjudged_cases(),
                &options.notices,
            );
        }
        let key = store.write_run(&doc)?;
        // What it spent, beside the document (schema 10 has no place for
        // it). A resumed run's calls before the stop are not counted here,
        // so a resumed run records none rather than too little.
        if options.resume.is_none() {
            store.write_run_spend(tenant, suite_name, &key, &spent)?;
        }
        // How long each failed call took, beside the document too (0.10.0
        // records no time for a call that failed).
        store.write_run_timings(tenant, suite_name, &key, &failed_calls)?;
        // Which cases' answers were kept with a secret masked, beside it
        // too: `rejudge` must not grade those as the target's answers.
        store.write_run_masked(tenant, suite_name, &key, &masked)?;
        store.remove_journal(tenant, suite_name, &key)?;
        drop(held_lock);
        Ok((key, doc, plan))
    }
}

/// A new run's key no journal or document of the store holds. Shards
/// started at once in one store (or any two runs) can read the same
/// microsecond from the clock, so a key that is taken is passed over for
/// the next moment's (the first leg then claims it: `Store::start_leg`).
fn free_key(
    store: &Store,
    tenant: &str,
    suite_name: &str,
    suite: &crate::core::suite::Suite,
    mut fresh: RunContext,
) -> Result<(RunContext, String), RunRefusal> {
    for _ in 0..1000 {
        let key = run_key(&fresh.created_at, &suite.config_hash());
        let stored = store
            .runs_dir(tenant, suite_name)?
            .join(format!("{key}.json"));
        if !stored.exists() && !store.pending_keys(tenant, suite_name)?.contains(&key) {
            return Ok((fresh, key));
        }
        std::thread::sleep(Duration::from_micros(200));
        fresh.created_at = host::clock::now_iso();
    }
    Err(StoreError::Journal(format!(
        "no new run key of suite '{suite_name}' could be had: every moment tried was taken by another run"
    ))
    .into())
}

/// What one call to the target cost in the suite's last recorded spend
/// (the newest run's, else the reference's): what a call whose price is
/// known only after it answers reserves under a cap before one answered.
fn target_call_price(store: &Store, suite: &crate::core::suite::Suite) -> Option<f64> {
    let spent = last_spend(store, &suite.tenant, &suite.name)
        .map(|(spent, _)| spent)
        .or_else(|| store.read_baseline_spend(&suite.tenant, &suite.name))?;
    let usd = spent.target.usd?;
    (spent.target.calls > 0).then(|| usd / spent.target.calls as f64)
}

/// The spend record of the newest run of a suite that has one, with that
/// run's number of cases: what the plan's estimate is made from.
fn last_spend(
    store: &Store,
    tenant: &str,
    suite: &str,
) -> Option<(crate::core::spend::Spend, usize)> {
    let listing = store.list_run_headers(tenant, suite).ok()?;
    listing
        .runs
        .iter()
        .find_map(|run| Some((store.read_run_spend(tenant, suite, &run.key)?, run.cases)))
}

/// After a run (or a re-judge): what the judge memo did (when it answered
/// anything, or under `replay`), and the cap when it was reached, as
/// notices.
pub fn announce_spend(
    spent: &crate::core::spend::Spend,
    cost: &CostOptions,
    unjudged: usize,
    notices: &Notifier,
) {
    let strings = ProgressStrings::of(notices.locale());
    if spent.memo.hits > 0 || (cost.memo == MemoMode::Replay && !spent.memo.is_empty()) {
        notices.plan(strings.memo_done(
            cost.memo.as_str(),
            spent.memo.hits,
            spent.memo.misses,
            spent.memo.saved_usd,
        ));
    }
    if let (true, Some(cap)) = (spent.budget_exhausted, spent.max_usd) {
        notices.plan(strings.budget_exhausted(cap, crate::run::budget::total(spent), unjudged));
    }
}

/// The target's endpoint and secrets, for [`quota_identity`].
fn target_party(built: &Built) -> (String, Vec<String>) {
    match built {
        Built::Http(t) => (t.endpoint().to_string(), t.secrets().to_vec()),
        Built::Provider(t) => (
            format!("{}@{}", t.spec().kind.name(), t.endpoint()),
            t.secrets(),
        ),
    }
}

/// Stop for good unless the run is being stored: with no journal line
/// being written (the leg is held until the process ends), say how to
/// resume and exit 64 (the run was not stored: never 0, 1 or 2).
fn stopped(leg: &Leg, finishing: &AtomicBool, what: &str, hint: &str, notices: &Notifier) {
    let mut held = leg.hold();
    if finishing.load(Ordering::SeqCst) {
        return;
    }
    // What the leg holds since its last flush goes to the disk too.
    let _ = held.sync();
    let folder = leg
        .path()
        .parent()
        .map_or_else(String::new, |p| p.display().to_string());
    notices.send(Notice::Stopped(
        ProgressStrings::of(notices.locale()).stopped(what, &folder, hint),
    ));
    // The signal path: the front end that asked for it (the command line,
    // through `resume_hint_on_signal`) wants the process to end here.
    std::process::exit(ExitStatus::Refused.code());
}

/// True unless `metadata` marks a shard other than the first.
fn first_shard(metadata: &Map<String, Value>) -> bool {
    !matches!(
        crate::core::shard::Record::of(metadata),
        Some(Ok(record)) if record.shard.index != 1
    )
}

/// What grading the judge anchors costs, said with the plan
/// (`run::driver::grade_anchors`): one live canary per judged check with
/// anchors, every anchor live when something says the judge may have
/// moved. `None` without anchors.
pub fn anchors_plan(loaded: &LoadedSuite, locale: crate::report::locale::Locale) -> Option<String> {
    let (anchors, judges) = anchor_counts(loaded);
    if anchors == 0 {
        return None;
    }
    Some(crate::report::text::fill(
        locale.text("progress.anchors_plan"),
        &[
            ("anchors", &anchors.to_string()),
            ("judges", &judges.to_string()),
            ("canaries", &judges.to_string()),
        ],
    ))
}

/// The judge anchors a run of `loaded` grades, and how many judged checks
/// have anchors (one canary each, graded live every run).
pub fn anchor_counts(loaded: &LoadedSuite) -> (usize, usize) {
    let anchors = &loaded.judge_anchors;
    let judges = (loaded.suite.checks.iter())
        .filter(|c| c.judge_coordinate().is_some() && anchors.iter().any(|a| a.check == c.name))
        .count();
    (anchors.len(), judges)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh(created_at: &str) -> RunContext {
        RunContext::for_tests(created_at, 1)
    }

    #[test]
    fn a_key_another_run_holds_or_stored_is_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let suite = crate::core::suite::Suite::for_tests(Vec::new(), ["a".to_string()]);
        let moment = "2026-12-04T15:03:36.965855+00:00";
        let key = run_key(moment, &suite.config_hash());
        // Free: the moment's own key.
        let (_, first) = free_key(&store, "t", "s", &suite, fresh(moment)).unwrap();
        assert_eq!(first, key);
        // Its journal started by another run: a later moment's key.
        store
            .start_leg("t", "s", &key, 0, &serde_json::json!({"header": true}))
            .unwrap();
        let (ctx, second) = free_key(&store, "t", "s", &suite, fresh(moment)).unwrap();
        assert_ne!(second, key);
        assert_eq!(second, run_key(&ctx.created_at, &suite.config_hash()));
        store.remove_journal("t", "s", &key).unwrap();
        // Stored already: passed over too.
        let runs = store.runs_dir("t", "s").unwrap();
        std::fs::create_dir_all(&runs).unwrap();
        std::fs::write(runs.join(format!("{key}.json")), "{}").unwrap();
        let (_, third) = free_key(&store, "t", "s", &suite, fresh(moment)).unwrap();
        assert_ne!(third, key);
    }
}
