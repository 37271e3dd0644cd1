//! The gate: the CI job in one use case, as named phases over one
//! [`GateFacts`] value — load → base → plan → run or merge → compare →
//! itemize → render → publish. Never promotes.
//!
//! [`verdict`] runs every phase up to the files in `--out` (outcome.json,
//! comment.md, summary.md, junit.xml, report.html) and returns what the
//! front end prints; [`publish`] is the last phase, run by the front end
//! once the terminal text is out.
//!
//! No baseline: no verdict. The run is rendered and published on its own,
//! naming the baseline path looked for and the `promote` command a person
//! runs — exit 64. A gate is never green without a comparison.
//!
//! Payload boundary: every file here is built from names, keys, statuses
//! and scores ([`Comparison`] holds no payload; the no-baseline tables read
//! only statuses and scores of the run).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::core::compare::paired::PairedMeasure;
use crate::core::compare::power;
use crate::core::compare::{Comparison, Delta, Outcome, Scope, Side};
use crate::core::document::{run_key, RunDocument};
use crate::core::exit::ExitStatus;
use crate::core::failed_calls::FailedCalls;
use crate::forge::comment::{self, CommentData, Section, SectionRow};
use crate::forge::outcome::{Kind, Outcome as GateOutcome, Paths};
use crate::forge::{self, junit};
use crate::host::base_ref::{self, BaseBaseline, BaseRev};
use crate::host::env::CiEnv;
use crate::host::suite::LoadedSuite;
use crate::report::cost;
use crate::report::coverage::{self as integrity_text, IntegrityStrings};
use crate::report::gate::{self as gate_view, side, GateView};
use crate::report::locale::Locale;
use crate::report::order::compare_in_suite_order;
use crate::report::progress::ProgressStrings;
use crate::run::retry::Retried;
use crate::run::{Display, Notifier};
use crate::store::Store;

use super::history::{HistoryMode, HistoryRead};
use super::publish::Publishing;
use super::run::{Pool, RunRequest};
use super::{Refusal, SuiteRef};

/// What to gate, and how.
#[derive(Clone, Debug)]
pub struct GateRequest {
    /// The suite.
    pub suite: SuiteRef,
    /// Gate this stored run (a key, or `latest`) instead of running the suite.
    pub run: Option<String>,
    /// Run only this shard and store it, without a verdict.
    pub shard: Option<String>,
    /// With `shard`: split by recorded durations.
    pub balance: bool,
    /// Merge these shard runs, then gate the merged run once.
    pub shards: Vec<PathBuf>,
    /// The language of everything written for people.
    pub locale: Locale,
    /// Where the files go (`None`: `$RUNNER_TEMP/digline` on GitHub, `digline-gate/` elsewhere).
    pub out: Option<PathBuf>,
    /// The pool.
    pub pool: Pool,
    /// Refuse to start when the plan needs more calls than this.
    pub max_calls: Option<usize>,
    /// Let the HTML report carry judge and suspension reasons.
    pub report_payload: bool,
    /// The pull request's base revision (`None`: the CI's default).
    pub base_ref: Option<String>,
    /// Publishing.
    pub publishing: Publishing,
    /// How the run's progress is shown.
    pub display: Display,
    /// Say the plan before asking.
    pub announce: bool,
    /// What the gate does with the base branch's history (`--history`).
    pub history: HistoryMode,
    /// How many gates the history keeps (`--history-keep`).
    pub history_keep: usize,
}

/// How a gate ended before publishing.
#[derive(Debug)]
pub enum GateEnd {
    /// `--shard K/N`: the shard is stored, no verdict (0): the job that
    /// runs `gate --shards` gates the whole.
    ShardStored {
        /// The shard run's key.
        key: String,
        /// Which shard (`2/3`).
        shard: String,
    },
    /// A verdict (or the no-baseline refusal), its files written.
    Verdict(Box<GateVerdict>),
}

/// What the front end prints and publishes once the files are written.
#[derive(Debug)]
pub struct GateVerdict {
    /// The contract's exit status (64 without a baseline).
    pub exit: ExitStatus,
    /// `outcome.json`'s contents.
    pub outcome: GateOutcome,
    /// `comment.md`.
    pub comment_md: String,
    /// `summary.md`.
    pub summary_md: String,
    /// The terminal text (stdout), not yet made visible.
    pub terminal: String,
    /// Without a baseline: the suite's name and tenant, for the refusal.
    pub no_baseline: Option<(String, String)>,
    /// The command a person runs to make this run the reference.
    pub promote: String,
    /// The hint about checks the reference does not cover (stderr).
    pub uncovered_hint: String,
    /// A base found by default that could not be read.
    pub base_warning: Option<String>,
}

/// Every fact the renderers read: the run, its reference, the comparison
/// and what the gate itemized from them.
pub struct GateFacts {
    /// The run's key.
    pub key: String,
    /// The run (reasons dropped unless the report carries them).
    pub doc: RunDocument,
    /// The reference, if any.
    pub baseline: Option<RunDocument>,
    /// Where the reference was looked for.
    pub baseline_path: PathBuf,
    /// The comparison, when there is a reference.
    pub comparison: Option<Comparison>,
    /// The verdict view (headline, rows, exit code).
    pub view: GateView,
    /// Outcome counts (or, without a reference, status counts).
    pub counts: BTreeMap<String, usize>,
    /// The contract's exit status.
    pub exit: ExitStatus,
    /// The comment's extra sections (replaced reference, rules, coverage).
    pub sections: Vec<Section>,
    /// The same, as terminal blocks.
    pub blocks: String,
    /// What the run and its reference spent.
    pub spends: cost::Spends,
    /// How long the run's failed calls took.
    pub failed_calls: FailedCalls,
    /// The pull request replaces the reference: `Some(true/false)` as read
    /// at the base, `None` when no base could be read (unknown).
    pub baseline_changed: Option<bool>,
    /// The calls tried again, when the gate ran the suite.
    pub retried: Option<Retried>,
    /// A base found by default that could not be read.
    pub base_warning: Option<String>,
    /// The base branch's history, as read against the reference.
    pub history: HistoryRead,
}

/// The load and plan phases: the suite, the store, where the files go,
/// and the merge's plan when shards are merged.
struct Loaded {
    loaded: LoadedSuite,
    store: Store,
    out_dir: PathBuf,
    plan: Option<String>,
}

/// The base phase: the reference, and the base ref's view of it.
struct Base {
    baseline_path: PathBuf,
    baseline: Option<RunDocument>,
    base: Option<BaseRev>,
    base_baseline: Option<BaseBaseline>,
    /// The store root moved against the base (its baseline read there).
    moved: Option<base_ref::MovedStore>,
    warning: Option<String>,
}

impl Base {
    /// The base, when its baseline could be read: the rule changes and
    /// the reference's spend are read from it too.
    fn read(&self) -> Option<&BaseRev> {
        self.base.as_ref().filter(|_| self.base_baseline.is_some())
    }
}

/// Run every phase up to the files in `--out`.
///
/// # Errors
/// A [`Refusal`] (exit 64) for a refusal before a verdict: bad suite, bad
/// flags, no such run, a shard run, an unreadable document, a cross-tenant
/// baseline, an output directory that cannot be written.
pub fn verdict(request: &GateRequest, env: &CiEnv, notices: &Notifier) -> Result<GateEnd, Refusal> {
    let mut loaded = load(request, env)?;
    let base = base(request, env, &loaded)?;
    let retried = Retried::default();
    let (key, mut doc) = match run_or_merge(request, &mut loaded, &base, notices, &retried)? {
        Ran::Shard { key, shard } => return Ok(GateEnd::ShardStored { key, shard }),
        Ran::Run { key, doc } => (key, *doc),
    };
    // Stored whole; held from here on as the gate shows it.
    if !request.report_payload {
        doc.drop_case_reasons();
    }
    // Whole-run measures paired over the same cases, while the cases are here.
    let paired = base.baseline.as_ref().map(|b| {
        let suite = &loaded.loaded.suite;
        crate::core::compare::paired::paired_measures(suite, &doc, b, suite.false_alarm_rate)
    });
    // The cases are in the run now: the rest of the gate reads documents,
    // so a large suite's cases are not held beside the run and its baseline.
    drop(std::mem::take(&mut loaded.loaded.suite.cases));
    // What reading the cases, the reference and the shards freed goes back
    // to the system before the comparison is built beside the documents.
    crate::host::memory::return_freed();
    let comparison = compare(request, &loaded, &base, &key, &doc, paired)?;
    let ran = request.run.is_none().then_some(retried);
    let mut facts = itemize(request, &loaded, base, key, doc, comparison, ran);
    // The history phase: read against the reference; this gate's line
    // made now, appended once its files are written. Never the exit code.
    let suite = &loaded.loaded.suite;
    let mode = request.history.resolve(env);
    let names = (suite.tenant.as_str(), suite.name.as_str());
    let workspace = request.suite.workspace();
    facts.history = super::history::read(
        mode,
        &workspace,
        &loaded.store,
        names,
        facts.baseline.as_ref(),
        suite.false_alarm_rate,
    );
    let line = super::history::line(
        mode,
        (&facts.doc, facts.baseline.as_ref()),
        crate::host::trust::believed_reasks(
            &workspace,
            &loaded.store,
            names.0,
            names.1,
            &facts.key,
        )
        .as_ref(),
        (facts.exit.code(), gate_usd(&facts)),
        env,
    )
    // A history tracked by git is neither read nor written.
    .filter(|_| facts.history.tracked.is_none());
    let verdict = render(request, env, &loaded, facts, notices)?;
    if let Some(line) = line {
        let kept = loaded
            .store
            .append_history(names.0, names.1, &line, request.history_keep);
        if let Err(e) = kept {
            notices.warn(format!("the history was not recorded: {e}"));
        }
    }
    Ok(GateEnd::Verdict(Box::new(verdict)))
}

/// What the gate's run spent, the target's and the judges' USD together.
fn gate_usd(facts: &GateFacts) -> Option<f64> {
    let target = cost::target_usd_of(&facts.doc, facts.spends.run.as_ref());
    let judges = facts.spends.run.as_ref().and_then(|s| s.judges.usd);
    match (target, judges) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// The load and plan phases.
fn load(request: &GateRequest, env: &CiEnv) -> Result<Loaded, Refusal> {
    let out_dir = request
        .out
        .clone()
        .unwrap_or_else(|| match &env.github.runner_temp {
            Some(t) if env.github.actions => t.join("digline"),
            _ => PathBuf::from("digline-gate"),
        });
    let mut loaded = request.suite.load()?;
    // A merge reads little of the cases once their plan is taken: the rest
    // goes before the reference is read beside them.
    let plan = (!request.shards.is_empty()).then(|| super::merge::plan_and_shed(&mut loaded));
    Ok(Loaded {
        loaded,
        store: request.suite.store(),
        out_dir,
        plan,
    })
}

/// The base phase. Everything that can refuse without the run is read
/// first: the base ref (a base named with `--base-ref` that cannot be read
/// refuses), and the baseline (a corrupt one refuses before the first call
/// is paid for).
fn base(request: &GateRequest, env: &CiEnv, loaded: &Loaded) -> Result<Base, Refusal> {
    let suite = &loaded.loaded.suite;
    let baseline_path = loaded.store.baseline_path(&suite.tenant, &suite.name)?;
    let base = base_ref::choose(request.base_ref.as_deref(), env, &request.suite.root);
    // A pull request renaming the suite moves its baseline: the base's is
    // read where the base's own suite file puts it.
    let (tenant, name) = base
        .as_ref()
        .and_then(|b| base_ref::renamed_suite(b, &request.suite.file, (&suite.tenant, &suite.name)))
        .unwrap_or_else(|| (suite.tenant.clone(), suite.name.clone()));
    let at_base = loaded
        .store
        .baseline_path(&tenant, &name)
        .unwrap_or_else(|_| baseline_path.clone());
    // One moving `.digline/` (or gating with another `--root`) too: the
    // base's is read under the root the base kept it in.
    let moved = base.as_ref().and_then(|b| {
        let in_root = Store::new(Path::new(""))
            .baseline_path(&tenant, &name)
            .ok()?;
        base_ref::moved_store(b, &request.suite.root, &in_root, &request.suite.file)
    });
    let at_base = moved.as_ref().map_or(at_base, |m| m.baseline.clone());
    let (base_baseline, warning) = read_base(base.as_ref(), &at_base, &baseline_path)?;
    // A redacted report (the default) shows no pass or fail reason, and no
    // other surface of the gate shows any: the documents the gate holds
    // keep an error's reason (its cause) only. 100,000 cases hold ≈40 MB
    // less.
    let mut baseline = loaded.store.read_baseline(&suite.tenant, &suite.name)?;
    if !request.report_payload {
        if let Some(baseline) = &mut baseline {
            baseline.drop_case_reasons();
        }
    }
    Ok(Base {
        baseline_path,
        baseline,
        base,
        base_baseline,
        moved,
        warning,
    })
}

/// Reads the base ref's baseline (when there is a base): what the gate says
/// about a replaced reference, and a warning when a base found by default
/// could not be read.
///
/// # Errors
/// [`Refusal::Refused`] when `--base-ref` was given and cannot be read.
fn read_base(
    base: Option<&BaseRev>,
    at_base: &Path,
    baseline_path: &Path,
) -> Result<(Option<BaseBaseline>, Option<String>), Refusal> {
    let Some(base) = base else {
        return Ok((None, None));
    };
    match base_ref::read_moved(base, at_base, baseline_path) {
        Ok(found) => Ok((Some(found), None)),
        Err(p) if p.refuses => Err(Refusal::Refused(p.sentence)),
        Err(p) => Ok((None, Some(p.sentence))),
    }
}

/// What the run-or-merge phase gives the gate.
enum Ran {
    /// A shard stored: no verdict.
    Shard { key: String, shard: String },
    /// The run to gate.
    Run { key: String, doc: Box<RunDocument> },
}

/// The run-or-merge phase: a stored run (`--run`), the merged shards
/// (`--shards`), or the suite run now (one shard of it with `--shard`).
fn run_or_merge(
    request: &GateRequest,
    loaded: &mut Loaded,
    base: &Base,
    notices: &Notifier,
    retried: &Retried,
) -> Result<Ran, Refusal> {
    // A gate believes only the memo entries sealed with its key: an entry
    // the workspace holds unsealed may be the pull request's own.
    let mut pool = request.pool;
    pool.cost.memo_sealed_only = true;
    let run_request = RunRequest {
        suite: request.suite.clone(),
        metadata: serde_json::Map::new(),
        pool,
        max_wait: std::time::Duration::from_secs(request.publishing.max_wait),
        max_calls: request.max_calls,
        resume: None,
        shard: request.shard.clone(),
        balance: request.balance,
        display: request.display,
        announce: request.announce,
        retried: retried.clone(),
        stop_on_signal: true,
        samples: None,
        cases: Vec::new(),
    };
    let suite = &loaded.loaded.suite;
    if let Some(which) = &request.run {
        let stored = loaded.store.read_run(&suite.tenant, &suite.name, which)?;
        super::merge::refuse_a_shard(&stored.key, &stored.doc, &request.suite)?;
        let run_file = loaded
            .store
            .runs_dir(&suite.tenant, &suite.name)?
            .join(format!("{}.json", stored.key));
        let workspace = request.suite.workspace();
        crate::host::trust::refuse_untrusted_latest(
            &workspace,
            which,
            &stored.key,
            &stored.doc,
            &run_file,
        )
        .map_err(Refusal::Refused)?;
        if let Some(warning) =
            crate::host::trust::commit_warning(&stored.key, &stored.doc, &request.suite.root)
        {
            notices.warn(warning);
        }
        // A run made elsewhere (`digline run`) carries no re-asks, and a
        // record this gate cannot believe (`host::trust`) is none: its
        // measured failures are asked again here.
        let believed = crate::host::trust::believed_reasks(
            &workspace,
            &loaded.store,
            &suite.tenant,
            &suite.name,
            &stored.key,
        );
        if believed.is_none() {
            reask(
                &run_request,
                loaded,
                base,
                (&stored.key, &stored.doc),
                notices,
                true,
            )?;
        }
        return Ok(Ran::Run {
            key: stored.key,
            doc: Box::new(stored.doc),
        });
    }
    if let Some(plan) = loaded.plan.take() {
        let merged = super::merge::merge_and_store(
            &request.suite,
            &loaded.loaded,
            plan,
            &request.shards,
            notices,
        )?;
        // The shards' measured failures are asked again by the merging job.
        reask(
            &run_request,
            loaded,
            base,
            (&merged.key, &merged.doc),
            notices,
            true,
        )?;
        return Ok(Ran::Run {
            key: merged.key,
            doc: Box::new(merged.doc),
        });
    }
    // Judge anchors against a reference that graded none: said, never
    // silently relied on (issue 32).
    if !loaded.loaded.judge_anchors.is_empty()
        && base
            .baseline
            .as_ref()
            .is_some_and(|b| b.judge_anchors.is_none())
    {
        notices.warn(crate::report::text::fill(
            request.locale.text("gate.anchors_unrecorded"),
            &[("count", &loaded.loaded.judge_anchors.len().to_string())],
        ));
    }
    // What the reference lets the gate see, said with the plan.
    let alpha = loaded.loaded.suite.false_alarm_rate;
    if let Some(power) = base
        .baseline
        .as_ref()
        .and_then(|b| power::power(b, alpha).or_else(|| power::one_sample(b, alpha)))
    {
        if request.announce {
            let strings = crate::report::text::Strings::of(request.locale);
            for line in crate::report::noise::power_sentences(&power, strings) {
                notices.plan(line);
            }
        }
    }
    let stored = super::run::run(&run_request, notices)?;
    if let Some(shard) = super::merge::shard_of(&stored.doc) {
        return Ok(Ran::Shard {
            key: stored.key,
            shard,
        });
    }
    // The re-ask phase: a failure where the reference passed is asked
    // again before it is believed (spec 45-statistics.md).
    reask(
        &run_request,
        loaded,
        base,
        (&stored.key, &stored.doc),
        notices,
        false,
    )?;
    Ok(Ran::Run {
        key: stored.key,
        doc: Box::new(stored.doc),
    })
}

/// The re-ask phase of run `key` against the reference, when there is one
/// (`app::run::reask`; `measured_only` for runs made elsewhere).
fn reask(
    run_request: &RunRequest,
    loaded: &Loaded,
    base: &Base,
    (key, doc): (&str, &RunDocument),
    notices: &Notifier,
    measured_only: bool,
) -> Result<(), Refusal> {
    match &base.baseline {
        Some(reference) => super::run::reask(
            run_request,
            &loaded.loaded,
            key,
            doc,
            reference,
            notices,
            measured_only,
        ),
        None => Ok(()),
    }
}

/// The compare phase: the run against the reference, in the suite's order,
/// infrastructure values withheld, parameter edits spelled from the base.
fn compare(
    request: &GateRequest,
    loaded: &Loaded,
    base: &Base,
    key: &str,
    doc: &RunDocument,
    paired: Option<Vec<PairedMeasure>>,
) -> Result<Option<Comparison>, Refusal> {
    let Some(b) = &base.baseline else {
        return Ok(None);
    };
    let mut c = compare_in_suite_order(doc, b)?;
    // The statistics of the verdict: re-asked checks decided against their
    // measured noise, the power, the whole-run measures paired.
    let suite = &loaded.loaded.suite;
    if let Some(record) = crate::host::trust::believed_reasks(
        &request.suite.workspace(),
        &loaded.store,
        &suite.tenant,
        &suite.name,
        key,
    ) {
        c.apply_reasks(&record, b);
    }
    c.state_power(b, suite.false_alarm_rate);
    c.apply_paired(paired.unwrap_or_default(), true);
    c.capped = loaded.store.run_capped(&suite.tenant, &suite.name, key);
    // The judges, each read on its anchors against the reference's.
    c.judges = crate::core::anchors::read_documents(
        doc,
        b,
        suite,
        &loaded.loaded.judge_anchors,
        loaded.loaded.min_judge_kappa,
    );
    c.judge_rerun = judge_rerun(&request.suite.file);
    // Infrastructure values (`base_url`) are named, never published.
    crate::report::redact::withhold_perimeter_values(&mut c);
    spell_parameter_edits(&mut c, &request.suite.file, base.read());
    // A base looked for and not read verifies nothing: never "unchanged".
    c.base_unverified = base.base.is_some() && base.read().is_none();
    if c.base_unverified {
        // Nothing says the pull request did not loosen them: each is shown.
        c.unverified_knobs = base_ref::declared_knobs(&request.suite.file);
    }
    // Everything else that defines the evaluation, against the base.
    if let Some(b) = base.read() {
        c.evaluation_changes =
            base_ref::evaluation_changes(b, &request.suite.file).unwrap_or_default();
        if let Some(m) = &base.moved {
            let moved = crate::core::evaluation::store_root_moved(&m.from, &m.to);
            c.evaluation_changes.insert(0, moved);
        }
    }
    Ok(Some(c))
}

/// The command that re-measures the reference with the judges as they are
/// now: a run that asks every judge live (then a person promotes it).
pub(crate) fn judge_rerun(suite_file: &Path) -> String {
    format!(
        "digline run --suite {} --judge-memo off",
        suite_file.display()
    )
}

/// With a readable base ref, each parameter edit (check id a → b) is shown
/// as the base's `suite.toml` and this one spell it: `maximum 40 → 50`,
/// loosened or tightened where defined. Without one, the ids stay.
fn spell_parameter_edits(c: &mut Comparison, suite_file: &Path, base: Option<&BaseRev>) {
    let Some(base) = base else {
        return;
    };
    if !c
        .rule_changes
        .iter()
        .any(|r| r.field == crate::core::compare::RuleField::Parameters)
    {
        return;
    }
    if let Some((before, after)) = base_ref::declared_checks(base, suite_file) {
        let changes = std::mem::take(&mut c.rule_changes);
        c.rule_changes = crate::core::compare::spell_parameters(changes, &before, &after);
    }
}

/// The itemize phase: the verdict view, the counts, a replaced reference,
/// the rule changes and coverage as sections, what was spent.
fn itemize(
    request: &GateRequest,
    loaded: &Loaded,
    base: Base,
    key: String,
    doc: RunDocument,
    comparison: Option<Comparison>,
    retried: Option<Retried>,
) -> GateFacts {
    let locale = request.locale;
    let suite = &loaded.loaded.suite;
    let store = &loaded.store;
    let base_read = base.read().cloned();
    // The baseline as the base has it: its spend record is then read from
    // the base too (a pull request cannot restate what the reference spent
    // without replacing the reference, which the gate says first).
    let base_same = matches!(base.base_baseline, Some(BaseBaseline::Same));
    let baseline_changed = base
        .base_baseline
        .as_ref()
        .map(|b| matches!(b, BaseBaseline::Replaced(_)));
    let replaced = Replaced::judge(&doc, base.base_baseline, |old| {
        crate::core::anchors::read_documents(
            &doc,
            old,
            suite,
            &loaded.loaded.judge_anchors,
            loaded.loaded.min_judge_kappa,
        )
    });
    let integrity = IntegrityStrings::of(locale);
    // How long the run's failed calls took, as recorded beside it (a run of
    // 0.10.0 has no record: the causes are then said without their time).
    let failed_calls = store.read_run_timings(&suite.tenant, &suite.name, &key);
    let (exit, mut view, counts) = match (&comparison, &base.baseline) {
        (Some(c), Some(b)) => {
            let view = gate_view::compared(&doc, b, c, locale, &failed_calls);
            let counts = Outcome::ALL
                .iter()
                .map(|o| (o.as_str().to_string(), c.headline().counts.get(*o)))
                .collect();
            (view.exit_code, view, counts)
        }
        _ => {
            let path = base.baseline_path.display().to_string();
            let view = gate_view::single(&doc, &path, locale, ExitStatus::Refused, &failed_calls);
            (ExitStatus::Refused, view, status_counts(&doc))
        }
    };
    // A run stopped by its spending cap was not asked whole: whatever it
    // found, it could not be judged (exit 2, never 1), and it says so first.
    if let Some(c) = comparison.as_ref().filter(|c| c.capped) {
        // Every case asked: the cap stopped the re-asks of its failures.
        let key = if c.unjudged == 0 {
            "gate.budget_lead_reasks"
        } else {
            "gate.budget_lead"
        };
        view.lead = format!("{} {}", locale.text(key), view.lead);
    }
    // A judge that moved (or is not shown to agree with people) is said
    // first: its checks could not be judged (exit 2, never 1).
    let judge_lines = comparison.as_ref().map_or_else(Vec::new, |c| {
        let rerun = &c.judge_rerun;
        let lead = crate::report::judges::lead(&c.judges, locale, rerun);
        if !lead.is_empty() {
            view.lead = if view.lead.is_empty() {
                lead
            } else {
                format!("{lead} {}", view.lead)
            };
        }
        crate::report::judges::lines(&c.judges, locale, rerun)
    });
    // A replaced reference is said first, everywhere the headline goes.
    if let Some(r) = &replaced {
        let rerun = judge_rerun(&request.suite.file);
        view.lead = format!("{} {}", r.sentence(integrity, locale, &rerun), view.lead);
    }
    let mut sections = Vec::new();
    let mut blocks = String::new();
    if let Some(r) = &replaced {
        let rows = r.worse_rows(locale);
        if !rows.is_empty() {
            blocks.push_str(&format!("\n{}:\n", integrity.title_replaced_worse));
            for row in &rows {
                blocks.push_str(&format!("{} · {} · {}\n", row.case, row.check, row.detail));
            }
            sections.push(Section::rows(integrity.title_replaced_worse, rows));
        }
        let given_up = r.given_up_rows(integrity);
        if !given_up.is_empty() {
            blocks.push_str(&format!("\n{}:\n", integrity.title_replaced_given_up));
            for row in &given_up {
                blocks.push_str(&format!("{} · {} · {}\n", row.case, row.check, row.detail));
            }
            sections.push(Section::rows(integrity.title_replaced_given_up, given_up));
        }
    }
    if !judge_lines.is_empty() {
        let title = locale.text("gate.judge_title");
        blocks.push_str(&format!("\n{title}:\n"));
        for line in &judge_lines {
            blocks.push_str(&format!("{line}\n"));
        }
        sections.push(Section::lines(title, judge_lines));
    }
    if let Some(c) = &comparison {
        noise_sections(c, locale, &mut sections, &mut blocks);
        sections.extend(coverage_sections(c, integrity, locale));
        let strings = crate::report::text::Strings::of(locale);
        blocks.push_str(&integrity_text::terminal_blocks(
            c,
            strings.scope_run,
            strings.summary_truncated,
            integrity,
        ));
    }
    // What the run and the reference spent, as recorded beside their
    // documents (a run of 0.10.0, or a resumed one, has no record).
    let spends = cost::Spends {
        run: store.read_run_spend(&suite.tenant, &suite.name, &key),
        reference: base.baseline.as_ref().and_then(|_| {
            if let Some(rev) = base_read.as_ref().filter(|_| base_same) {
                // Under the root the base kept it in, when the store moved.
                let path = match &base.moved {
                    Some(m) => Store::new(&m.root).baseline_spend_path(&suite.tenant, &suite.name),
                    None => store.baseline_spend_path(&suite.tenant, &suite.name),
                }
                .ok()?;
                serde_json::from_slice(&base_ref::file_at_base(rev, &path)?).ok()
            } else {
                store.read_baseline_spend(&suite.tenant, &suite.name)
            }
        }),
    };
    GateFacts {
        key,
        doc,
        baseline: base.baseline,
        baseline_path: base.baseline_path,
        comparison,
        view,
        counts,
        exit,
        sections,
        blocks,
        spends,
        failed_calls,
        baseline_changed,
        retried,
        base_warning: base.warning,
        history: HistoryRead::default(),
    }
}

/// What the gate can see, the whole-run measures paired, and the checks
/// that wobbled within their measured noise (or stayed undecided), apart
/// from what got worse: comment sections and terminal text.
fn noise_sections(
    c: &Comparison,
    locale: Locale,
    sections: &mut Vec<Section>,
    blocks: &mut String,
) {
    let strings = crate::report::text::Strings::of(locale);
    let power = crate::report::noise::power_lines(c, strings);
    if !power.is_empty() {
        sections.push(Section::lines(strings.title_power, power));
    }
    let paired = crate::report::noise::paired_lines(c, strings);
    if !paired.is_empty() {
        sections.push(Section::lines(strings.title_paired, paired));
    }
    for (title, rows) in crate::report::noise::noise_groups(c, strings) {
        let rows = rows
            .into_iter()
            .map(|r| SectionRow {
                case: r.case,
                check: r.check,
                detail: r.detail,
            })
            .collect();
        sections.push(Section::rows(&title, rows));
    }
    blocks.push_str(&crate::report::noise::terminal_block(c, strings));
}

/// Without a reference: how many verdicts have each status, and how many
/// cases are suspended.
fn status_counts(doc: &RunDocument) -> BTreeMap<String, usize> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let statuses = doc
        .results
        .iter()
        .flat_map(|c| c.verdicts.iter())
        .chain(doc.aggregate.iter());
    for v in statuses {
        *counts.entry(v.status.as_str().to_string()).or_insert(0) += 1;
    }
    counts.insert("suspended".into(), doc.suspended_cases());
    counts
}

/// The render phase: comment, summary, JUnit, outcome and the HTML report
/// from the facts, written atomically into `--out`; the terminal text and
/// what stderr says are handed back to the front end.
fn render(
    request: &GateRequest,
    env: &CiEnv,
    loaded: &Loaded,
    facts: GateFacts,
    notices: &Notifier,
) -> Result<GateVerdict, Refusal> {
    let locale = request.locale;
    let suite = &loaded.loaded.suite;
    let out_dir = &loaded.out_dir;
    let promote = format!(
        "digline promote --suite {} --root {} --run {}",
        request.suite.file.display(),
        request.suite.root.display(),
        facts.key
    );
    let root_text = request.suite.root.display().to_string();
    let marker = forge::marker(&root_text, &suite.tenant, &suite.name);
    let report_line = super::publish::report_line(&request.publishing, env, out_dir, locale);
    let integrity = IntegrityStrings::of(locale);
    let uncovered_hint = facts
        .comparison
        .as_ref()
        .map(|c| integrity_text::uncovered_hint(c, integrity))
        .unwrap_or_default();
    let mut causes: BTreeMap<String, usize> = BTreeMap::new();
    for row in &facts.view.unjudged {
        if let Some(cause) = &row.cause {
            *causes
                .entry(cause.category.as_str().to_string())
                .or_insert(0) += 1;
        }
    }
    let doc = &facts.doc;
    let baseline = facts.baseline.as_ref();
    let cost = cost::sentence(doc, baseline, facts.spends, locale);
    let data = CommentData {
        locale,
        view: facts.view.clone(),
        suite: suite.name.clone(),
        tenant: suite.tenant.clone(),
        run_key: facts.key.clone(),
        baseline_key: baseline.map(|b| run_key(&b.created_at, &b.config_hash)),
        promote: promote.clone(),
        report: report_line,
        cost,
        sections: facts.sections.clone(),
        history: Default::default(),
    };
    let (data, charts) = with_history(data, &facts, request, locale);
    // The judges read on their anchors, in the report before the history.
    let charts = match &facts.comparison {
        Some(c) => format!(
            "{}{charts}",
            crate::report::judges::html(&c.judges, locale, &c.judge_rerun)
        ),
        None => charts,
    };
    let comment_md = comment::render(&data, Some(&order_marker(&marker, &doc.created_at)));
    let summary_md = comment::render(&data, None);
    let junit_xml = junit::render(doc, facts.comparison.as_ref(), locale, &facts.failed_calls);
    let spent_usd = spent_usd(doc, baseline, facts.spends);
    let terminal = format!("{}{}", facts.view.terminal(locale), facts.blocks);
    let headline = facts.view.headline();
    let (exit, key, spends, counts) = (
        facts.exit,
        facts.key.clone(),
        facts.spends,
        facts.counts.clone(),
    );
    let cases = facts.view.case_counts.clone();
    let (baseline_changed, retried) = (facts.baseline_changed, facts.retried.clone());
    let evaluation_changes = facts
        .comparison
        .as_ref()
        .map_or(0, |c| c.evaluation_changes.len());
    let unverified_knobs = facts
        .comparison
        .as_ref()
        .map(|c| {
            c.unverified_knobs
                .iter()
                .map(|k| crate::forge::outcome::UnverifiedKnob {
                    knob: k.what.clone(),
                    value: k.value.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let no_baseline = facts.baseline.is_none();
    let baseline_path = facts.baseline_path.display().to_string();
    let base_warning = facts.base_warning.clone();
    let judges = facts
        .comparison
        .as_ref()
        .map(|c| crate::wire::compare::judges_json(&c.judges))
        .unwrap_or_default();
    let html = render_html_report(facts, locale, request.report_payload, notices, charts);

    prepare_out(out_dir)?;
    let path = |name: &str| out_dir.join(name).display().to_string();
    let outcome = GateOutcome {
        output_version: crate::wire::OUTPUT_VERSION,
        exit_code: exit.code(),
        outcome: Kind::of(exit),
        no_baseline,
        headline,
        tenant: suite.tenant.clone(),
        suite: suite.name.clone(),
        suite_path: request.suite.file.display().to_string(),
        root: root_text,
        run_key: Some(key),
        baseline_key: data.baseline_key.clone(),
        baseline_path: Some(baseline_path),
        counts,
        cases,
        causes,
        spent_usd,
        spent: spends.run,
        reference_spent: spends.reference,
        locale: locale.code().to_string(),
        marker,
        baseline_changed,
        evaluation_changes,
        unverified_knobs,
        paths: Paths {
            outcome: path("outcome.json"),
            comment: path("comment.md"),
            summary: path("summary.md"),
            junit: path("junit.xml"),
            report: html.as_ref().map(|_| path("report.html")),
        },
        retries: retried.map(|r| crate::forge::outcome::retry_counts(&r.counts())),
        judges,
    };
    let mut files: Vec<(&str, String)> = vec![
        ("comment.md", comment_md.clone()),
        ("summary.md", summary_md.clone()),
        ("junit.xml", junit_xml),
        ("outcome.json", outcome.to_json()),
    ];
    if let Some(html) = html {
        files.push(("report.html", html));
    }
    for (name, text) in &files {
        write_file(&out_dir.join(name), text)?;
    }
    Ok(GateVerdict {
        exit,
        outcome,
        comment_md,
        summary_md,
        terminal,
        no_baseline: no_baseline.then(|| (suite.name.clone(), suite.tenant.clone())),
        promote,
        uncovered_hint,
        base_warning,
    })
}

/// What the run and the reference spent, target and judges, in USD.
fn spent_usd(
    doc: &RunDocument,
    baseline: Option<&RunDocument>,
    spends: cost::Spends,
) -> BTreeMap<String, Option<f64>> {
    BTreeMap::from([
        (
            "target".to_string(),
            cost::target_usd_of(doc, spends.run.as_ref()),
        ),
        (
            "reference_target".to_string(),
            baseline.and_then(|b| cost::target_usd_of(b, spends.reference.as_ref())),
        ),
        (
            "judges".to_string(),
            spends.run.as_ref().and_then(|s| s.judges.usd),
        ),
        (
            "reference_judges".to_string(),
            spends.reference.as_ref().and_then(|s| s.judges.usd),
        ),
    ])
}

/// The HTML report's one call site: redacted (no judge or suspension
/// reasons) unless `--report-payload` widens the boundary. A template
/// failure is a warning, never a changed verdict: the gate writes no
/// report then.
///
/// Rendered last, from the documents and the comparison the gate gives up:
/// the redacted report strips them in place rather than copying them.
fn render_html_report(
    facts: GateFacts,
    locale: Locale,
    payload: bool,
    notices: &Notifier,
    charts: String,
) -> Option<String> {
    match crate::report::html::render_consuming(
        facts.doc,
        facts.baseline,
        facts.comparison,
        locale,
        !payload,
        facts.spends,
        &facts.failed_calls,
        (facts.exit, facts.view.headline()),
        charts,
    ) {
        Ok(page) => Some(page),
        Err(e) => {
            notices.warn(ProgressStrings::of(locale).report_not_written(&e.to_string()));
            None
        }
    }
}

/// The history in the comment (a cell per flagged row, its own section,
/// a lucky reference named) and the report's charts (safe HTML, empty
/// without a history).
fn with_history(
    mut data: CommentData,
    facts: &GateFacts,
    request: &GateRequest,
    locale: Locale,
) -> (CommentData, String) {
    use crate::report::history as words;
    let title = locale.text("history.title");
    if let Some(path) = &facts.history.tracked {
        data.sections.push(Section::lines(
            title,
            vec![words::tracked_line(path, locale)],
        ));
    }
    let Some(history) = &facts.history.history else {
        return (data, String::new());
    };
    let view = &facts.view;
    let flagged = view
        .worse
        .iter()
        .chain(&view.unjudged)
        .map(|r| (r.case.as_str(), r.check.as_str()))
        .chain(
            facts
                .sections
                .iter()
                .flat_map(|s| &s.rows)
                .map(|r| (r.case.as_str(), r.check.as_str())),
        );
    let command = |l: &crate::core::history::Lucky| {
        super::history::remeasure_command(&request.suite, std::slice::from_ref(l))
    };
    let note = words::note(history, &facts.history.lucky, flagged, &command, locale);
    let reasked = facts
        .comparison
        .as_ref()
        .map(|c| c.reasked.as_slice())
        .unwrap_or_default();
    let charts = words::charts(history, reasked, &facts.history.lucky, &note, 0.05, locale);
    data.history = note.cells;
    if !note.lucky.is_empty() {
        data.sections.insert(
            0,
            Section::lines(locale.text("history.lucky_title"), note.lucky),
        );
    }
    data.sections.push(Section::lines(title, note.lines));
    (data, charts)
}

/// Make the output directory (never through a symbolic link).
fn prepare_out(out_dir: &Path) -> Result<(), Refusal> {
    crate::store::atomic::prepare_output_dir(out_dir).map_err(|e| match e {
        crate::store::StoreError::Io { cause, .. } => Refusal::Refused(format!(
            "cannot create the output directory {}: {cause}",
            out_dir.display()
        )),
        other => Refusal::Store(other),
    })
}

/// Write one output file: atomically, never through a symbolic link.
fn write_file(path: &Path, text: &str) -> Result<(), Refusal> {
    crate::store::atomic::write_output(path, text.as_bytes()).map_err(|e| match e {
        crate::store::StoreError::Io { cause, .. } => {
            Refusal::Refused(format!("cannot write {}: {cause}", path.display()))
        }
        other => Refusal::Store(other),
    })
}

/// The publish phase: the comment, summary, outputs and annotation.
pub fn publish(verdict: &GateVerdict, publishing: &Publishing, env: &CiEnv) -> forge::Published {
    super::publish::publish(
        &verdict.outcome,
        &verdict.comment_md,
        &verdict.summary_md,
        publishing,
        env,
    )
}

/// A pull request that replaces the baseline file, and the run compared
/// with the base's reference (when the base had one).
struct Replaced {
    against_old: Option<Comparison>,
}

impl Replaced {
    /// `judges` reads the run's judges on their anchors against the
    /// replaced reference: a pull request that rewrites the reference's
    /// anchor verdicts does not hide a judge that moved against the one
    /// approved.
    fn judge(
        run: &RunDocument,
        base: Option<BaseBaseline>,
        judges: impl Fn(&RunDocument) -> Vec<crate::core::anchors::JudgeReading>,
    ) -> Option<Replaced> {
        match base? {
            BaseBaseline::Same => None,
            BaseBaseline::Replaced(old) => Some(Replaced {
                // Another tenant's document at the base cannot be compared:
                // the replacement is still said, without the comparison.
                against_old: old.and_then(|o| {
                    let mut c = compare_in_suite_order(run, &o).ok()?;
                    c.judges = judges(&o);
                    Some(c)
                }),
            }),
        }
    }

    /// "This pull request replaces the approved reference. Against …, N
    /// checks got worse." — or, when a judge moved against it, what its
    /// anchors say (its checks' regressions not counted as worse).
    fn sentence(&self, s: &IntegrityStrings, locale: Locale, rerun: &str) -> String {
        let Some(old) = &self.against_old else {
            return s.replaced.to_string();
        };
        let worse = old.gated_regressions();
        let judges = crate::report::judges::lead(&old.judges, locale, rerun);
        let then = match worse {
            0 if !judges.is_empty() => String::new(),
            0 => s.replaced_worse_none.to_string(),
            1 => s.replaced_worse_one.to_string(),
            n => s.replaced_worse_many.replace("{count}", &n.to_string()),
        };
        let then = if judges.is_empty() {
            then
        } else {
            let moved = s.replaced_judges.replace("{judges}", &judges);
            [then, moved]
                .into_iter()
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let also = integrity_text::given_up_clause(old, s);
        if also.is_empty() {
            format!("{} {then}", s.replaced)
        } else {
            format!("{} {then} {also}", s.replaced)
        }
    }

    /// What the replacement loosens or drops against the base's reference.
    fn given_up_rows(&self, s: &IntegrityStrings) -> Vec<SectionRow> {
        self.against_old
            .as_ref()
            .map(|old| {
                integrity_text::given_up_rows(old, "run", s)
                    .into_iter()
                    .map(|(case, check, detail)| SectionRow {
                        case,
                        check,
                        detail,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// What got worse against the base's reference.
    fn worse_rows(&self, locale: Locale) -> Vec<SectionRow> {
        self.against_old
            .as_ref()
            .map(|old| {
                let ungated = old.ungated();
                old.listed()
                    .filter(|d| d.outcome == Outcome::Regressed)
                    .filter(|d| !ungated.contains(d.key.assertion_id.as_str()))
                    .map(|d| SectionRow {
                        case: case_field(d),
                        check: d.assertion.to_string(),
                        detail: format!("{} → {}", side(&d.before, locale), side(&d.after, locale)),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The case field of a row (`run` for a run-level measure).
fn case_field(d: &Delta) -> String {
    match d.key.scope {
        Scope::Case => d.key.case_id.to_string(),
        Scope::Run => "run".to_string(),
    }
}

/// The comment's sections for rule changes and coverage of the reference.
fn coverage_sections(c: &Comparison, s: &IntegrityStrings, locale: Locale) -> Vec<Section> {
    let mut out = Vec::new();
    let changes: Vec<String> = c
        .evaluation_changes
        .iter()
        .map(|e| integrity_text::evaluation_line(e, s))
        .collect();
    if !changes.is_empty() {
        out.push(Section::lines(s.title_evaluation, changes));
    }
    let knobs: Vec<String> = c
        .unverified_knobs
        .iter()
        .map(|k| integrity_text::knob_line(k, s))
        .collect();
    if !knobs.is_empty() {
        out.push(Section::lines(s.title_unverified, knobs));
    }
    let rules: Vec<String> = c
        .rule_changes
        .iter()
        .map(|r| integrity_text::rule_line(r, s))
        .collect();
    if !rules.is_empty() {
        out.push(Section::lines(s.title_rules, rules));
    }
    let listed = |deltas: Vec<&Delta>, what: &str, side_of: fn(&Delta) -> &Option<Side>| {
        deltas
            .into_iter()
            .map(|d| SectionRow {
                case: case_field(d),
                check: d.assertion.to_string(),
                detail: format!("{what} ({})", side(side_of(d), locale)),
            })
            .collect::<Vec<_>>()
    };
    let gone = listed(integrity_text::not_in_run(c), s.detail_not_in_run, |d| {
        &d.before
    });
    if !gone.is_empty() {
        out.push(Section::rows(s.title_not_in_run, gone));
    }
    let came = listed(integrity_text::new_in_run(c), s.detail_new_in_run, |d| {
        &d.after
    });
    if !came.is_empty() {
        out.push(Section::rows(s.title_new_in_run, came));
    }
    out
}

/// The comment's marker, then the ordering guard: the run's creation time,
/// so an older run never overwrites a comment that reports a newer one.
fn order_marker(marker: &str, created_at: &str) -> String {
    let safe: String = created_at
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '.' | '+' | '-'))
        .take(64)
        .collect();
    format!("{marker}\n{}", forge::order_line(&safe))
}
