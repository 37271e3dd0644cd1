//! The HTML report: one self-contained, localized document for a reader who
//! does not read code (spec `60-report.md`).
//!
//! [`render`] turns a run (and, when there is one, its baseline and their
//! comparison) into the bytes of `report.html`: the template
//! `templates/report.html` and the stylesheet `templates/report.css`, compiled
//! in, filled with a view built here from the documents and the locale's
//! `[report]` and `[compare]` strings. The page has one inline stylesheet,
//! no script, nothing fetched, and a Content-Security-Policy that forbids all
//! three anyway (the stylesheet is allowed by its SHA-256 hash).
//!
//! Every value printed by the template goes through [`escape::html`]
//! (autoescape is on, and the formatter is ours): a model output, case id or
//! check name holding `<script>`, `</details>` or a bidi override renders as
//! text. Pure and deterministic: no clock, no I/O, same inputs → same bytes.
//! Case inputs and outputs never appear; reasons only when neither run is
//! redacted and `redacted` was not asked for.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::OnceLock;

use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Serde, Value as JinjaValue};
use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::core::compare::{
    config_deltas, exit_code as comparison_exit_code, index_verdicts, Comparison, ConfigDelta,
    ConfigOutcome, Delta, Outcome, PairKey, Scope,
};
use crate::core::document::{run_key, RunDocument};
use crate::core::exit::ExitStatus;
use crate::core::failed_calls::FailedCalls;
use crate::core::verdict::{Status, Verdict};

use super::cause::{voice, Cause};
use super::cost::Spends;
use super::escape;
use super::gate;
use super::locale::Locale;
use super::order::SuiteOrder;
use super::redact::redact_owned;
use super::text::{
    artifact_detail, artifact_fact, check_line, fill, fmt_score, fmt_value, headline_sentence,
    plural, Strings,
};

/// The page template (minijinja, autoescaped HTML).
const TEMPLATE: &str = include_str!("../../templates/report.html");

/// The page's only stylesheet, inlined and allowed by its hash.
const CSS: &str = include_str!("../../templates/report.css");

/// Why a report could not be rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportError(String);

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReportError {}

/// Renders the report of `run`.
///
/// - `baseline: None`: the single-run form (no answer to "did it get worse?").
/// - `baseline: Some(b)`: the comparison form; `comparison` is `compare(run, b)`
///   when the caller already has it (the gate), or `None` to compute it here.
/// - `redacted`: drop every payload field of both runs first (judge and
///   suspension reasons, metadata, artifact texts, perimeter configuration)
///   and say so on the page. The comparison's verdicts still come from the
///   complete runs.
///
/// # Errors
/// The run and the baseline belong to different tenants; or the template
/// failed (a bug: the tests render every form in every locale).
pub fn render(
    run: &RunDocument,
    baseline: Option<&RunDocument>,
    comparison: Option<&Comparison>,
    locale: Locale,
    redacted: bool,
) -> Result<String, ReportError> {
    render_with_spend(
        run,
        baseline,
        comparison,
        locale,
        redacted,
        Spends::default(),
        FailedCalls::none(),
    )
}

/// [`render`], with what the run and the reference spent as recorded
/// beside their documents (`store::spend`): the cost row then names the
/// judges and the tokens too; and how long the run's failed calls took
/// (`store::timings`), said beside their causes.
///
/// # Errors
/// As [`render`].
pub fn render_with_spend(
    run: &RunDocument,
    baseline: Option<&RunDocument>,
    comparison: Option<&Comparison>,
    locale: Locale,
    redacted: bool,
    spends: Spends,
    failed: &FailedCalls,
) -> Result<String, ReportError> {
    render_from(
        Cow::Borrowed(run),
        baseline.map(Cow::Borrowed),
        comparison.map(Cow::Borrowed),
        locale,
        redacted,
        spends,
        failed,
        None,
        String::new(),
    )
}

/// [`render_with_spend`] from documents and a comparison the caller gives
/// up (the gate, which renders its report last): a redacted report strips
/// them in place instead of copying them first, so a 100,000-case gate
/// does not hold each document twice. The footer states `exit`, the
/// gate's exit code: with no baseline the gate refuses (64), so its report
/// must not say 0. With a comparison, the answer ("did it get worse?")
/// follows `exit` too, and its sentence is the gate's `headline`: every
/// surface of one gate tells the same story (a run the gate could not
/// judge never reads "Nothing got worse" here). `charts` is the base
/// branch's history drawn (`report::history::charts`, safe HTML), empty
/// without one.
///
/// # Errors
/// As [`render`].
#[allow(clippy::too_many_arguments)]
pub fn render_consuming(
    run: RunDocument,
    baseline: Option<RunDocument>,
    comparison: Option<Comparison>,
    locale: Locale,
    redacted: bool,
    spends: Spends,
    failed: &FailedCalls,
    (exit, headline): (ExitStatus, String),
    charts: String,
) -> Result<String, ReportError> {
    render_from(
        Cow::Owned(run),
        baseline.map(Cow::Owned),
        comparison.map(Cow::Owned),
        locale,
        redacted,
        spends,
        failed,
        Some((exit, headline)),
        charts,
    )
}

#[allow(clippy::too_many_arguments)]
fn render_from(
    run: Cow<'_, RunDocument>,
    baseline: Option<Cow<'_, RunDocument>>,
    comparison: Option<Cow<'_, Comparison>>,
    locale: Locale,
    redacted: bool,
    spends: Spends,
    failed: &FailedCalls,
    gate: Option<(ExitStatus, String)>,
    charts: String,
) -> Result<String, ReportError> {
    let comparison: Option<Cow<'_, Comparison>> = match (&baseline, comparison) {
        (Some(_), Some(c)) => Some(c),
        (Some(b), None) => Some(Cow::Owned(
            super::order::compare_in_suite_order(&run, b)
                .map_err(|e| ReportError(e.to_string()))?,
        )),
        (None, _) => None,
    };
    // Causes are categories and facts, never payload: read from the
    // complete run, so a redacted report still says why.
    let causes = gate::causes(&run, failed);
    let (run, baseline) = if redacted {
        (
            Cow::Owned(redact_owned(run.into_owned())),
            baseline.map(|b| Cow::Owned(redact_owned(b.into_owned()))),
        )
    } else {
        (run, baseline)
    };
    let comparison = comparison.map(|c| match (redacted, &baseline) {
        (true, Some(b)) => Cow::Owned(strip(c.into_owned(), &run, b)),
        _ => c,
    });
    let mut view = match (&baseline, &comparison) {
        (Some(b), Some(c)) => compared_view(&run, b, c, locale, redacted, &causes),
        _ => single_view(&run, locale, redacted, &causes),
    };
    // The command writing the page knows its exit code (the gate refuses a
    // run with no baseline): the footer states that one.
    if let Some((code, headline)) = gate {
        view.footer = footer(code, locale);
        if comparison.is_some() {
            (view.answer.state, view.answer.word) = answer_of(code, locale);
            view.answer.sentence = headline;
        }
    }
    view.charts = JinjaValue::from_safe_string(charts);
    let compared_with = baseline.as_deref().filter(|_| comparison.is_some());
    cost_meta(&mut view.meta, &run, compared_with, spends, locale);
    let env = environment().map_err(|e| ReportError(e.clone()))?;
    let template = env
        .get_template("report.html")
        .map_err(|e| ReportError(format!("the report template: {e}")))?;
    template
        .render(Serde(&view))
        .map_err(|e| ReportError(format!("the report template: {e:#}")))
}

/// The exit code of `report`: the comparison's ([`comparison_exit_code`]) or,
/// for a run on its own, 2 when a case or an overall measure could not be
/// judged, else 0 — never 1, since nothing says what "worse" would mean.
pub fn exit_code(run: &RunDocument, comparison: Option<&Comparison>) -> ExitStatus {
    match comparison {
        Some(c) => comparison_exit_code(c),
        None if run.unjudged_cases() > 0
            || run.aggregate.iter().any(|v| v.status == Status::Error) =>
        {
            ExitStatus::Unjudged
        }
        None => ExitStatus::Proceed,
    }
}

/// The comparison with the payload it carries removed, and configuration
/// rows recomputed from the redacted documents (perimeter fields withheld).
fn strip(mut out: Comparison, run: &RunDocument, baseline: &RunDocument) -> Comparison {
    out.reasons_available = false;
    for a in &mut out.artifact_deltas {
        a.before_text = None;
        a.after_text = None;
        a.withheld = true;
    }
    out.target_config_deltas = config_deltas(&run.target_config, &baseline.target_config);
    out.judge_config_deltas = config_deltas(&run.judge_config, &baseline.judge_config);
    out
}

/// The template environment, built once: autoescape on for everything, our
/// escaping in the formatter, undefined values an error.
fn environment() -> Result<&'static Environment<'static>, &'static String> {
    static ENV: OnceLock<Result<Environment<'static>, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::Html);
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_syntax(
            SyntaxConfig::builder()
                .trim_blocks(true)
                .lstrip_blocks(true)
                .build()
                .map_err(|e| format!("the report template syntax: {e}"))?,
        );
        env.set_formatter(|out, state, value| {
            if value.is_safe() || matches!(state.auto_escape(), AutoEscape::None) {
                return minijinja::escape_formatter(out, state, value);
            }
            let mut buf = String::new();
            match value.as_str() {
                Some(text) => escape::push_html(&mut buf, text),
                None => escape::push_html(&mut buf, &value.to_string()),
            }
            out.write_str(&buf)?;
            Ok(())
        });
        env.add_template("report.html", TEMPLATE)
            .map_err(|e| format!("the report template: {e}"))?;
        Ok(env)
    })
    .as_ref()
}

/// The Content-Security-Policy of every report: nothing may load or run;
/// the one inline stylesheet is allowed by its digest.
pub fn content_security_policy() -> &'static str {
    static CSP: OnceLock<String> = OnceLock::new();
    CSP.get_or_init(|| {
        let digest = Sha256::digest(CSS.as_bytes());
        format!(
            "default-src 'none'; style-src 'sha256-{}'; img-src 'none'; font-src 'none'; \
             connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; \
             form-action 'none'",
            base64(&digest)
        )
    })
}

/// Standard base64 with padding (for the CSP hash).
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

// ---------------------------------------------------------------------------
// The view: everything the template prints, already localized.

#[derive(Serialize)]
struct View {
    lang: &'static str,
    csp: &'static str,
    css: JinjaValue,
    t: BTreeMap<&'static str, &'static str>,
    title: String,
    meta: Vec<MetaRow>,
    notice: String,
    answer: Answer,
    measures: Vec<MeasureRow>,
    measures_note: String,
    configs: Vec<ConfigTable>,
    artifacts: Option<Artifacts>,
    sections: Vec<Section>,
    /// The base branch's history drawn: safe HTML, empty without one.
    charts: JinjaValue,
    footer: Vec<String>,
}

#[derive(Serialize)]
struct MetaRow {
    label: &'static str,
    value: String,
    code: bool,
}

#[derive(Serialize)]
struct Answer {
    /// `worse`, `fine`, `unknown` or `none` (the CSS class).
    state: &'static str,
    question: &'static str,
    word: &'static str,
    sentence: String,
    tally: Vec<TallyItem>,
}

#[derive(Serialize)]
struct TallyItem {
    label: &'static str,
    count: usize,
    /// `bad`, `warn`, `good`, `zero` or `plain` (the CSS class).
    tone: &'static str,
}

#[derive(Serialize)]
struct MeasureRow {
    name: String,
    result: String,
    counted: String,
    why: String,
    failing: bool,
}

#[derive(Serialize)]
struct ConfigTable {
    title: &'static str,
    summary: String,
    compared: bool,
    rows: Vec<ConfigRow>,
}

#[derive(Serialize)]
struct ConfigRow {
    field: String,
    now: String,
    before: String,
    state: &'static str,
    moved: bool,
}

#[derive(Serialize)]
struct Artifacts {
    sentence: String,
    rows: Vec<(String, String)>,
}

#[derive(Serialize)]
struct Section {
    /// The CSS class and what the rows are (`worse`, `unjudged`, …).
    kind: &'static str,
    title: &'static str,
    open: bool,
    /// True for Case · Why sections (set aside).
    short: bool,
    headers: Vec<&'static str>,
    rows: Vec<Row>,
    /// How many rows the section has, listed or not.
    count: usize,
    /// The sentence saying how many rows were not listed (collapsed), or empty.
    more: String,
}

/// Rows listed in a section of what passed or stayed the same; the rest are
/// counted, not listed (what got worse and what could not be judged are
/// always listed in full).
pub const LISTED_LIMIT: usize = 1_000;

#[derive(Serialize)]
struct Row {
    case: String,
    check: String,
    happened: String,
    why: String,
}

/// What a section shows about reasons: the reason, or why it is absent.
struct Why {
    available: bool,
    withheld: &'static str,
    none: &'static str,
}

impl Why {
    fn of(locale: Locale, available: bool) -> Why {
        Why {
            available,
            withheld: locale.text("report.why_withheld"),
            none: locale.text("report.why_none"),
        }
    }

    fn text(&self, reason: Option<&str>) -> String {
        match reason {
            _ if !self.available => self.withheld.to_string(),
            Some(r) if !r.is_empty() => r.to_string(),
            _ => self.none.to_string(),
        }
    }
}

/// The `[report]` table of `locale`, English filling any gap.
fn report_table(locale: Locale) -> BTreeMap<&'static str, &'static str> {
    let mut table = Locale::En.catalog().table("report");
    table.extend(locale.catalog().table("report"));
    table
}

fn tr(locale: Locale, key: &str) -> &'static str {
    locale.text(&format!("report.{key}"))
}

fn base_view(run: &RunDocument, locale: Locale) -> View {
    View {
        lang: locale.code(),
        csp: content_security_policy(),
        css: JinjaValue::from_safe_string(CSS.to_string()),
        t: report_table(locale),
        title: fill(tr(locale, "document_title"), &[("suite", &run.suite)]),
        meta: Vec::new(),
        notice: String::new(),
        answer: Answer {
            state: "none",
            question: tr(locale, "answer_question"),
            word: "",
            sentence: String::new(),
            tally: Vec::new(),
        },
        measures: Vec::new(),
        measures_note: String::new(),
        configs: Vec::new(),
        artifacts: None,
        sections: Vec::new(),
        charts: JinjaValue::from_safe_string(String::new()),
        footer: Vec::new(),
    }
}

fn run_meta(run: &RunDocument, locale: Locale) -> Vec<MetaRow> {
    let row = |key: &str, value: String, code: bool| MetaRow {
        label: tr(locale, key),
        value,
        code,
    };
    let mut meta = vec![
        row("meta_customer", run.tenant.clone(), false),
        row("meta_suite", run.suite.clone(), false),
        row(
            "meta_run",
            format!("{} — {}", run.environment, run.created_at),
            false,
        ),
        row(
            "meta_run_key",
            run_key(&run.created_at, &run.config_hash),
            true,
        ),
    ];
    if let Some(commit) = run.git_commit.as_deref().filter(|c| !c.is_empty()) {
        let value = match commit.strip_suffix("-dirty") {
            Some(clean) => fill(tr(locale, "meta_commit_dirty"), &[("commit", clean)]),
            None => commit.to_string(),
        };
        meta.push(row("meta_commit", value, !commit.ends_with("-dirty")));
    }
    meta
}

fn finish_meta(meta: &mut Vec<MetaRow>, run: &RunDocument, locale: Locale, omitted: bool) {
    meta.push(MetaRow {
        label: tr(locale, "meta_recorded_by"),
        value: format!("digline {}", run.digline_version),
        code: false,
    });
    if omitted {
        meta.push(MetaRow {
            label: tr(locale, "meta_omitted"),
            value: tr(locale, "meta_omitted_value").to_string(),
            code: false,
        });
    }
}

/// What the run spent, next to the reference, when the runs recorded it.
fn cost_meta(
    meta: &mut Vec<MetaRow>,
    run: &RunDocument,
    baseline: Option<&RunDocument>,
    spends: Spends,
    locale: Locale,
) {
    let sentence = super::cost::sentence(run, baseline, spends, locale);
    if !sentence.is_empty() {
        meta.push(MetaRow {
            label: tr(locale, "meta_cost"),
            value: sentence,
            code: false,
        });
    }
}

fn notice(locale: Locale, redacted: bool, reasons_available: bool) -> String {
    if redacted {
        tr(locale, "redacted_notice").to_string()
    } else if !reasons_available {
        tr(locale, "reasons_unavailable_notice").to_string()
    } else {
        String::new()
    }
}

fn compared_view(
    run: &RunDocument,
    baseline: &RunDocument,
    c: &Comparison,
    locale: Locale,
    redacted: bool,
    causes: &gate::Causes,
) -> View {
    let s = Strings::of(locale);
    let reasons = c.reasons_available && !redacted && !run.redacted && !baseline.redacted;
    let why = Why::of(locale, reasons);
    let mut view = base_view(run, locale);

    view.meta = run_meta(run, locale);
    let at = view
        .meta
        .iter()
        .position(|m| m.label == tr(locale, "meta_run_key"))
        .map_or(view.meta.len(), |i| i + 1);
    let mut reference = vec![MetaRow {
        label: tr(locale, "meta_reference"),
        value: format!("{} — {}", baseline.environment, baseline.created_at),
        code: false,
    }];
    if let Some(approved) = baseline.promoted_at.as_deref().filter(|p| !p.is_empty()) {
        reference.push(MetaRow {
            label: tr(locale, "meta_reference_approved"),
            value: approved.to_string(),
            code: false,
        });
    }
    reference.push(MetaRow {
        label: tr(locale, "meta_reference_key"),
        value: run_key(&baseline.created_at, &baseline.config_hash),
        code: true,
    });
    view.meta.splice(at..at, reference);
    finish_meta(&mut view.meta, run, locale, !reasons);
    view.notice = notice(locale, redacted, reasons);

    let head = c.headline();
    let code = comparison_exit_code(c);
    let counts = head.counts;
    (view.answer.state, view.answer.word) = answer_of(code, locale);
    view.answer.sentence = headline_sentence(c, &head, s);
    view.answer.tally = Outcome::ALL
        .into_iter()
        .map(|o| {
            let count = counts.get(o);
            let tone = match (o, count) {
                (_, 0) => "zero",
                (Outcome::Regressed, _) => "bad",
                (Outcome::Errored, _) => "warn",
                (Outcome::Improved, _) => "good",
                _ => "plain",
            };
            TallyItem {
                label: gate::counted(locale, &format!("report.tally_{}", o.as_str()), count),
                count,
                tone,
            }
        })
        .collect();

    view.measures = measures(run, locale, &why);
    if !head.worse && view.measures.iter().any(|m| m.failing) {
        view.measures_note = tr(locale, "overall_below_note").to_string();
    }
    view.configs = [
        ("section_target", &c.target_config_deltas),
        ("section_judge", &c.judge_config_deltas),
    ]
    .into_iter()
    .filter(|(_, rows)| !rows.is_empty())
    .map(|(title, rows)| config_table(tr(locale, title), rows, true, locale))
    .collect();
    if !c.artifact_deltas.is_empty() {
        let hidden = redacted || c.artifact_deltas.iter().any(|d| d.withheld);
        view.artifacts = Some(Artifacts {
            sentence: if hidden {
                s.artifacts_unknown.to_string()
            } else {
                artifact_fact(&c.artifact_deltas, s)
            },
            rows: if hidden {
                Vec::new()
            } else {
                c.artifact_deltas
                    .iter()
                    .map(|d| (d.path.clone(), artifact_detail(d, s)))
                    .collect()
            },
        });
    }

    // The verdicts are looked up for their reasons only: a report that
    // withholds reasons (the gate's) does not index every verdict twice.
    let (now, before) = if reasons {
        (index_verdicts(run), index_verdicts(baseline))
    } else {
        (Default::default(), Default::default())
    };
    let coincides = c
        .config_changes()
        .into_iter()
        .map(|d| change_phrase(d, s))
        .collect::<Vec<_>>()
        .join(", ");
    let row = |d: &Delta| {
        if d.errored_now() {
            let cause = gate::cause_of(causes, d);
            return Row {
                case: case_label(&d.key, s),
                check: d.assertion.to_string(),
                happened: check_line(d, &coincides, s),
                why: cause.sentence(locale),
            };
        }
        let verdict = now
            .get(&d.key.as_ref())
            .or_else(|| before.get(&d.key.as_ref()));
        Row {
            case: case_label(&d.key, s),
            check: d.assertion.to_string(),
            happened: check_line(d, &coincides, s),
            why: why.text(verdict.map(|v| voice(&v.reason)).as_deref()),
        }
    };
    let order = SuiteOrder::new(run, Some(baseline));
    let sorted = order.sort(&c.deltas);
    // Only the rows a section lists are built: a collapsed section of
    // 400,000 unchanged checks shows the first LISTED_LIMIT and a count.
    let pick = |kind: &str, wanted: &[Outcome]| -> (Vec<Row>, usize) {
        let picked = sorted.iter().filter(|d| wanted.contains(&d.outcome));
        let count = picked.clone().count();
        let rows = picked.take(listed(kind)).map(|d| row(d)).collect();
        (rows, count)
    };
    let full = full_headers(locale);
    view.sections = vec![
        section(
            "worse",
            "section_worse",
            true,
            &full,
            pick("worse", &[Outcome::Regressed]),
            locale,
        ),
        section(
            "unjudged",
            "section_unjudged",
            true,
            &full,
            pick("unjudged", &[Outcome::Errored]),
            locale,
        ),
        suspended_section(run, locale, &why),
        section(
            "changed",
            "section_added_removed",
            // Open when the reference was not covered: that decides the exit code.
            c.uncovered_passes > 0,
            &full,
            pick("changed", &[Outcome::New, Outcome::Missing]),
            locale,
        ),
        section(
            "better",
            "section_better",
            false,
            &full,
            pick("better", &[Outcome::Improved]),
            locale,
        ),
        section(
            "same",
            "section_same",
            false,
            &full,
            pick("same", &[Outcome::Unchanged]),
            locale,
        ),
    ];
    if !c.rule_changes.is_empty() {
        let rules = crate::report::coverage::IntegrityStrings::of(locale);
        let mut changes: Vec<_> = c.rule_changes.iter().collect();
        changes.sort_by_cached_key(|r| order.key(&r.key));
        let rows: Vec<Row> = changes
            .into_iter()
            .map(|r| Row {
                case: "—".to_string(),
                check: r.check.clone(),
                happened: crate::report::coverage::rule_detail(r, rules),
                why: String::new(),
            })
            .collect();
        // Right after what got worse and what could not be judged.
        insert_rules(&mut view.sections, 2, rules.title_rules, &full, rows);
    }
    if !c.evaluation_changes.is_empty() {
        // What the pull request changes about the evaluation (against the
        // base ref): after the rule changes.
        let strings = crate::report::coverage::IntegrityStrings::of(locale);
        let rows: Vec<Row> = c
            .evaluation_changes
            .iter()
            .map(|e| Row {
                case: "—".to_string(),
                check: String::new(),
                happened: crate::report::coverage::evaluation_line(e, strings),
                why: String::new(),
            })
            .collect();
        insert_rules(&mut view.sections, 3, strings.title_evaluation, &full, rows);
    }
    if !c.unverified_knobs.is_empty() {
        // The pull request's knobs, the base unread: after the rest.
        let strings = crate::report::coverage::IntegrityStrings::of(locale);
        let rows: Vec<Row> = c
            .unverified_knobs
            .iter()
            .map(|k| Row {
                case: "—".to_string(),
                check: String::new(),
                happened: crate::report::coverage::knob_line(k, strings),
                why: String::new(),
            })
            .collect();
        insert_rules(&mut view.sections, 3, strings.title_unverified, &full, rows);
    }
    view.footer = footer(code, locale);
    view
}

/// An open section of lines about the suite's rules and evaluation
/// (`kind` "rules"), inserted at `at`, or last when there are fewer.
fn insert_rules(
    sections: &mut Vec<Section>,
    at: usize,
    title: &'static str,
    headers: &[&'static str],
    rows: Vec<Row>,
) {
    let at = sections.len().min(at);
    sections.insert(
        at,
        Section {
            kind: "rules",
            title,
            open: true,
            short: false,
            headers: headers.to_vec(),
            count: rows.len(),
            more: String::new(),
            rows,
        },
    );
}

fn single_view(run: &RunDocument, locale: Locale, redacted: bool, causes: &gate::Causes) -> View {
    let s = Strings::of(locale);
    let reasons = !redacted && !run.redacted;
    let why = Why::of(locale, reasons);
    let mut view = base_view(run, locale);
    view.meta = run_meta(run, locale);
    finish_meta(&mut view.meta, run, locale, !reasons);
    view.notice = notice(locale, redacted, reasons);

    let checks: usize = run.results.iter().map(|c| c.verdicts.len()).sum();
    view.answer.word = tr(locale, "answer_none");
    view.answer.sentence = tr(locale, "answer_none_sentence").to_string();
    let unjudged = run.unjudged_cases();
    let suspended = run.suspended_cases();
    let item = |key: &str, count: usize, tone: &'static str| TallyItem {
        label: gate::counted(locale, &format!("report.{key}"), count),
        count,
        tone: if count == 0 { "zero" } else { tone },
    };
    view.answer.tally = vec![
        item("tally_cases", run.results.len(), "plain"),
        item("tally_checks", checks, "plain"),
        item("tally_unjudged", unjudged, "warn"),
        item("tally_suspended", suspended, "plain"),
    ];
    view.measures = measures(run, locale, &why);
    let empty = Map::new();
    view.configs = [
        ("section_target", &run.target_config),
        ("section_judge", &run.judge_config),
    ]
    .into_iter()
    .map(|(title, raw)| (title, config_deltas(raw, &empty)))
    .filter(|(_, rows)| !rows.is_empty())
    .map(|(title, rows)| config_table(tr(locale, title), &rows, false, locale))
    .collect();

    let why = &why;
    let rows = |kind: &str, status: Status| -> (Vec<Row>, usize) {
        let picked = run.results.iter().flat_map(|case| {
            case.verdicts
                .iter()
                .scan(HashMap::<&str, usize>::new(), move |seen, v| {
                    let n = seen.entry(v.assertion_id.as_str()).or_insert(0);
                    let occurrence = *n;
                    *n += 1;
                    Some((case, v, occurrence))
                })
                .filter(move |(_, v, _)| v.status == status)
        });
        let count = picked.clone().count();
        let rows = picked
            .take(listed(kind))
            .map(|(case, v, occurrence)| Row {
                case: case.case_id.clone(),
                check: v.assertion.to_string(),
                happened: single_happened(v, locale, s),
                why: match v.status {
                    Status::Error => causes
                        .get(&(
                            Scope::Case,
                            case.case_id.clone(),
                            v.assertion_id.to_string(),
                            occurrence,
                        ))
                        .cloned()
                        .unwrap_or_else(Cause::unknown)
                        .sentence(locale),
                    _ => why.text(Some(&voice(&v.reason))),
                },
            })
            .collect();
        (rows, count)
    };
    let full = full_headers(locale);
    view.sections = vec![
        section(
            "worse",
            "section_failed",
            true,
            &full,
            rows("worse", Status::Fail),
            locale,
        ),
        section(
            "unjudged",
            "section_unjudged",
            true,
            &full,
            rows("unjudged", Status::Error),
            locale,
        ),
        suspended_section(run, locale, why),
        section(
            "same",
            "section_passed",
            false,
            &full,
            rows("same", Status::Pass),
            locale,
        ),
    ];
    view.footer = footer(exit_code(run, None), locale);
    view
}

fn single_happened(v: &Verdict, locale: Locale, s: &Strings) -> String {
    match (v.status, v.score) {
        (Status::Error, _) | (_, None) => s.detail_errored.to_string(),
        (_, Some(score)) => fill(
            tr(locale, "single_scored"),
            &[
                ("score", &fmt_score(score)),
                ("threshold", &fmt_score(*v.threshold)),
            ],
        ),
    }
}

fn full_headers(locale: Locale) -> Vec<&'static str> {
    ["col_case", "col_check", "col_happened", "col_why"]
        .into_iter()
        .map(|k| tr(locale, k))
        .collect()
}

/// How many rows a section of `kind` lists: every regression, error and
/// failure; the first [`LISTED_LIMIT`] of what passed, improved or changed.
fn listed(kind: &str) -> usize {
    if matches!(kind, "same" | "better" | "changed") {
        LISTED_LIMIT
    } else {
        usize::MAX
    }
}

fn section(
    kind: &'static str,
    title: &str,
    open: bool,
    headers: &[&'static str],
    (rows, count): (Vec<Row>, usize),
    locale: Locale,
) -> Section {
    let mut more = String::new();
    if count > rows.len() {
        more = fill(
            tr(locale, "section_more"),
            &[("count", &(count - rows.len()).to_string())],
        );
    }
    Section {
        kind,
        title: tr(locale, title),
        open,
        short: false,
        headers: headers.to_vec(),
        rows,
        count,
        more,
    }
}

fn suspended_section(run: &RunDocument, locale: Locale, why: &Why) -> Section {
    let rows: Vec<Row> = run
        .results
        .iter()
        .filter(|c| c.suspended)
        .map(|c| Row {
            case: c.case_id.clone(),
            check: String::new(),
            happened: String::new(),
            why: why.text(c.suspended_reason.as_deref()),
        })
        .collect();
    Section {
        count: rows.len(),
        more: String::new(),
        kind: "suspended",
        title: tr(locale, "section_suspended"),
        open: true,
        short: true,
        headers: vec![tr(locale, "col_case"), tr(locale, "col_why")],
        rows,
    }
}

fn case_label(key: &PairKey, s: &Strings) -> String {
    match key.scope {
        Scope::Case => key.case_id.to_string(),
        Scope::Run => s.scope_run.to_string(),
    }
}

/// `model a → b`: a changed target row, as a regression "coincides with" it.
fn change_phrase(d: &ConfigDelta, s: &Strings) -> String {
    fill(
        s.change_changed,
        &[
            ("field", &d.field),
            ("before", &fmt_value(&d.before)),
            ("after", &fmt_value(&d.after)),
        ],
    )
}

fn measures(run: &RunDocument, locale: Locale, why: &Why) -> Vec<MeasureRow> {
    run.aggregate
        .iter()
        .map(|v| MeasureRow {
            name: v.assertion.to_string(),
            result: match v.score {
                Some(score) if v.status != Status::Error => fill(
                    tr(locale, "result_scored"),
                    &[
                        ("score", &fmt_score(score)),
                        ("threshold", &fmt_score(*v.threshold)),
                    ],
                ),
                _ => tr(locale, "result_error").to_string(),
            },
            counted: counted(&v.metadata, locale),
            why: why.text(Some(&v.reason)),
            failing: v.status != Status::Pass,
        })
        .collect()
}

/// `cases counted: 4 · set aside: 1 · …` from an aggregate's metadata.
fn counted(metadata: &crate::core::verdict::Metadata, locale: Locale) -> String {
    [
        ("considered", "counted_considered", true),
        ("suspended_excluded", "counted_suspended", false),
        ("errored_excluded", "counted_errored", false),
        ("canary_excluded", "counted_canary", false),
        ("unlabelled_excluded", "counted_unlabelled", false),
    ]
    .into_iter()
    .filter_map(|(field, key, always)| {
        let n = metadata.get(field)?.as_u64()?;
        (always || n > 0).then(|| fill(tr(locale, key), &[("count", &n.to_string())]))
    })
    .collect::<Vec<_>>()
    .join(" · ")
}

fn config_table(
    title: &'static str,
    rows: &[ConfigDelta],
    compared: bool,
    locale: Locale,
) -> ConfigTable {
    let withheld = tr(locale, "value_withheld");
    let shown = |value: &Value, held: bool| {
        if value.is_null() && held {
            withheld.to_string()
        } else {
            fmt_value(value)
        }
    };
    let moved = rows.iter().filter(|d| d.outcome.is_change()).count();
    ConfigTable {
        title,
        summary: if compared {
            plural(
                moved,
                tr(locale, "settings_changed_none"),
                tr(locale, "settings_changed_one"),
                tr(locale, "settings_changed_many"),
            )
        } else {
            String::new()
        },
        compared,
        rows: rows
            .iter()
            .map(|d| ConfigRow {
                field: d.field.clone(),
                now: shown(&d.after, d.withheld),
                before: shown(&d.before, d.withheld),
                state: if compared {
                    match d.outcome {
                        ConfigOutcome::Same => "",
                        ConfigOutcome::Changed => tr(locale, "setting_changed"),
                        ConfigOutcome::New => tr(locale, "setting_new"),
                        ConfigOutcome::Missing => tr(locale, "setting_missing"),
                        ConfigOutcome::Unknown => tr(locale, "setting_unknown"),
                    }
                } else {
                    ""
                },
                moved: compared && d.outcome.is_change(),
            })
            .collect(),
    }
}

/// The answer to "did it get worse?" for exit code `code`: its state (the
/// page's colour) and its word.
fn answer_of(code: ExitStatus, locale: Locale) -> (&'static str, &'static str) {
    let (state, word) = match code {
        ExitStatus::Worse => ("worse", "answer_yes"),
        ExitStatus::Unjudged => ("unknown", "answer_unknown"),
        _ => ("fine", "answer_no"),
    };
    (state, tr(locale, word))
}

fn footer(code: ExitStatus, locale: Locale) -> Vec<String> {
    let meaning = tr(
        locale,
        match code {
            ExitStatus::Worse => "exit_meaning_worse",
            ExitStatus::Unjudged => "exit_meaning_unjudged",
            ExitStatus::Refused => "exit_meaning_refused",
            _ => "exit_meaning_ok",
        },
    );
    vec![
        fill(
            tr(locale, "footer_exit"),
            &[("code", &code.code().to_string()), ("meaning", meaning)],
        ),
        tr(locale, "footer_deterministic").to_string(),
    ]
}

#[cfg(test)]
mod tests;
