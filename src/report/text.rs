//! The terminal text of `compare`: the headline sentence, the configuration
//! and artifact lines, and one line per regression and per check that could
//! not run — byte for byte what digline 0.10.0 prints in English.
//!
//! Layout of stdout (every line ends with `\n`):
//!
//! ```text
//! <headline sentence>
//!
//!   <file> · +N −M lines                 (one per changed artifact)
//!   system · model stub-1 → stub-2        (target, then judge, when moved)
//!
//! <case> · <check> · <what happened>     (regressions, then unjudged, each in suite order; at most 20)
//! showing the first 20 of N; the full list is in the report
//! ```
//!
//! One addition to 0.10.0's lines: a check that could not run says why,
//! after 0.10.0's "The check could not run.": digline's cause sentence
//! ([`super::cause::Cause::sentence`] — a category and measured facts such
//! as a status code, host:port, elapsed ms or the missing path; never the
//! stored reason's text).
//!
//! Each block after the sentence is printed only when it has lines. Nothing
//! goes to stderr in any of 0.10.0's compare scenarios ([`CompareText::stderr`]
//! is empty; the host adds the "written by a newer digline" warning itself).
//! Every sentence lives in the locales' strings files ([`Strings`], [`EN`]
//! for English), shared with the HTML report. No reason text, output or case input is
//! ever printed: everything is composed from the comparison's facts.

use std::sync::LazyLock;

use serde_json::Value;

use crate::core::compare::{
    ArtifactDelta, ArtifactOutcome, Comparison, ConfigDelta, ConfigOutcome, Delta, Headline, Noise,
    Outcome, Scope, IDENTITY_FIELD,
};
use crate::core::verdict::Status;

use super::cause::Cause;
use super::coverage::{self, IntegrityStrings};
use super::gate::Causes;
use super::locale::Locale;

/// How many summary lines the terminal shows before saying how many it left out.
pub const SUMMARY_LIMIT: usize = 20;

/// The most characters of a name a table or a line shows: a longer one is
/// cut to its first 117 and its last 2, with `…` between.
pub const NAME_SHOWN: usize = 120;

/// `name` as a table shows it: whole up to [`NAME_SHOWN`] characters, else
/// its start, `…` and its end, so one absurd case id cannot crowd out
/// every other row.
pub fn shorten_name(name: &str) -> String {
    let count = name.chars().count();
    if count <= NAME_SHOWN {
        return name.to_string();
    }
    let head: String = name.chars().take(NAME_SHOWN - 3).collect();
    let tail: String = name.chars().skip(count - 2).collect();
    format!("{head}…{tail}")
}

/// What separates the three fields of a summary line.
pub const SUMMARY_SEPARATOR: &str = " · ";

/// Fields a provider reports rather than a caller sends (their `new` and
/// `missing` rows say "reported", not "sent").
const OBSERVED_FIELDS: [&str; 2] = ["resolved_model", "fingerprint"];

/// A table of one locale's strings file as a struct of `&'static str`
/// fields, one per key of the `[section]` table, read by name. Placeholders
/// in the strings are `{name}`, filled by name. Used for `[compare]` here
/// and `[integrity]` in `coverage`.
macro_rules! strings_table {
    (
        $(#[$struct_doc:meta])* $name:ident = $section:literal;
        $($(#[$doc:meta])* $field:ident,)*
    ) => {
        $(#[$struct_doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name {
            $($(#[$doc])* pub $field: &'static str,)*
        }

        impl $name {
            /// The keys of the table, in field order (`<section>.<field>`).
            pub const KEYS: &'static [&'static str] =
                &[$(concat!($section, ".", stringify!($field)),)*];

            fn build(locale: Locale) -> $name {
                $name {
                    $($field: locale.text(concat!($section, ".", stringify!($field))),)*
                }
            }

            /// The strings of `locale`, built once.
            pub fn of(locale: Locale) -> &'static $name {
                static TABLES: [std::sync::OnceLock<$name>; Locale::ALL.len()] =
                    [const { std::sync::OnceLock::new() }; Locale::ALL.len()];
                TABLES[locale.index()].get_or_init(|| $name::build(locale))
            }
        }
    };
}
pub(crate) use strings_table;

strings_table! {
    /// Every sentence and fragment `compare`'s text is built from, for one
    /// locale: the `[compare]` table of `templates/locales/<code>.toml`.
    Strings = "compare";
    /// Nothing regressed.
    worse_none,
    /// One check regressed.
    worse_one,
    /// `{count}` checks regressed.
    worse_many,
    /// No verdict was shared by run and reference (this product's strictness).
    nothing_compared,
    /// One delta within noise.
    noise_one,
    /// `{count}` deltas within noise.
    noise_many,
    /// Nothing regressed beyond the measured noise (re-asked).
    worse_none_measured,
    /// One check regressed beyond the measured noise.
    worse_one_measured,
    /// `{count}` checks regressed beyond the measured noise.
    worse_many_measured,
    /// One re-asked check undecided.
    undecided_one,
    /// `{count}` re-asked checks undecided.
    undecided_many,
    /// One failing check whose re-asks could not be judged.
    unreasked_one,
    /// `{count}` failing checks whose re-asks could not be judged.
    unreasked_many,
    /// The title of the list of checks that wobbled within their measured noise.
    title_wobbled,
    /// The title of the list of undecided re-asked checks.
    title_undecided,
    /// `reference {k}/{n} · now {j}/{m} · p = {p}`.
    detail_reasked,
    /// `reference {k}/{n} · now {j}/{m} · too few reference samples to tell`.
    detail_thin,
    /// The title of what the gate can see (its power).
    title_power,
    /// `With {samples} samples a case …, catches … {rate} …`.
    power_case,
    /// `With {samples} samples a case …, cannot catch a single broken case …`.
    power_case_none,
    /// `With one sample a case …, no false-alarm rate can be stated …`.
    power_one,
    /// `{name}: a drop of {drop} or more is caught 8 times in 10.`
    power_measure,
    /// `{name}: its tolerance {tolerance} is below … ({drop}) …`.
    power_blind,
    /// `{name}: the reference did not vary …, any drop beyond its tolerance ({tolerance}) …`.
    power_steady,
    /// The title of the whole-run measures compared paired.
    title_paired,
    /// `{name}: {difference} over {cases} paired cases (…), McNemar p = {p}{verdict}`.
    paired_mcnemar,
    /// `{name}: {difference} over {cases} paired cases (…, paired bootstrap){verdict}`.
    paired_bootstrap,
    /// ` — a real drop`.
    paired_real,
    /// No case errored in the run.
    unjudged_none,
    /// One case errored.
    unjudged_one,
    /// `{count}` cases errored.
    unjudged_many,
    /// One run-level measure `{names}` errored (this product's strictness).
    uncomputed_one,
    /// `{count}` run-level measures `{names}` errored.
    uncomputed_many,
    /// No suspended case.
    suspended_none,
    /// One suspended case.
    suspended_one,
    /// `{count}` suspended cases.
    suspended_many,
    /// The config hashes differ.
    config_changed,
    /// The config hashes are equal.
    config_unchanged,
    /// The base could not be read: nothing is called unchanged.
    config_unverified,
    /// The base could not be read, and the pull request's suite declares
    /// `{knobs}` (`[suite] false_alarm_rate = 1e-9, …`), none verified.
    config_unverified_knobs,
    /// Declared files all the same.
    artifacts_unchanged,
    /// One declared file changed.
    artifacts_one,
    /// `{count}` declared files changed.
    artifacts_many,
    /// Declared files withheld, none known to change.
    artifacts_unknown,
    /// The run's answers were replayed.
    rejudged,
    /// One canary `{case}` moved `{before}` → `{after}`, then `{beyond}`.
    canary_one,
    /// `{count}` canary checks moved, naming `{case}`.
    canary_many,
    /// `, beyond the noise of this check ({interval})`.
    canary_beyond,
    /// The target moved: `{changes}`.
    target_changed,
    /// The target did not move.
    target_unchanged,
    /// One side recorded no target configuration.
    target_unknown,
    /// The judging moved: `{changes}`.
    judge_changed,
    /// `{field} {before} → {after}`.
    change_changed,
    /// `{field} {after}`, new in the run (sent).
    change_new,
    /// `{field} {before}`, gone from the run (sent).
    change_missing,
    /// `{field} {after}`, new in the run (reported by the provider).
    change_new_observed,
    /// `{field} {before}`, gone from the run (reported by the provider).
    change_missing_observed,
    /// A perimeter field (`base_url`) changed; its values are not shown.
    change_withheld,
    /// A judge `{judge}` joined.
    judge_added,
    /// A judge `{judge}` left.
    judge_removed,
    /// ` This drop coincides with {changes}.`
    coincides,
    /// The terminal label of the target's configuration line.
    terminal_target,
    /// The terminal label of the judges' configuration line.
    terminal_judge,
    /// `+{added} −{removed} lines`.
    artifacts_tally,
    /// An artifact changed with no line tally.
    artifact_changed,
    /// An artifact added.
    artifact_new,
    /// An artifact removed.
    artifact_missing,
    /// An artifact withheld.
    artifact_unknown,
    /// The case field of a run-level line.
    scope_run,
    /// More lines than the limit: `{shown}` of `{total}`.
    summary_truncated,
    /// A drop without interval: `{before}` → `{now}`.
    detail_dropped,
    /// A rise without interval.
    detail_rose,
    /// No movement: `{now}`.
    detail_unchanged,
    /// `{low}–{high} across {count} samples`.
    noise_interval,
    /// A move inside the interval `{noise}`.
    detail_within_noise,
    /// A drop beyond the interval `{noise}`.
    detail_dropped_beyond_noise,
    /// A rise beyond the interval `{noise}`.
    detail_rose_beyond_noise,
    /// A pass → fail flip.
    detail_flipped_worse,
    /// A fail → pass flip.
    detail_flipped_better,
    /// The threshold moved: `{before_threshold}` → `{now_threshold}`.
    detail_threshold_moved,
    /// A check only in the run.
    detail_new,
    /// A check only in the run, which errored.
    detail_new_errored,
    /// A check that failed where the reference passed, whose re-asks could
    /// not be judged.
    detail_unreasked,
    /// A check only in the reference.
    detail_missing,
    /// A check that could not run.
    detail_errored,
}

/// English, as digline 0.10.0 writes it (`templates/locales/en.toml`).
pub static EN: LazyLock<Strings> = LazyLock::new(|| *Strings::of(Locale::En));

/// What `compare` prints, split by stream. Both strings end with `\n` when
/// non-empty, ready to be written as they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompareText {
    /// Everything printed to stdout.
    pub stdout: String,
    /// Everything printed to stderr (empty: 0.10.0 prints nothing there for a
    /// comparison it could make).
    pub stderr: String,
}

/// Renders the whole terminal text of `compare` (see the module doc for the layout).
/// `causes` are the run's ([`super::gate::causes`]), for the lines of
/// checks that could not run.
pub fn render_compare(comparison: &Comparison, causes: &Causes, locale: Locale) -> CompareText {
    let s = Strings::of(locale);
    let head = comparison.headline();
    let mut out = headline_sentence(comparison, &head, s);
    out.push('\n');
    let moved: Vec<String> = artifact_lines(comparison, s)
        .into_iter()
        .chain(config_lines(comparison, s))
        .collect();
    if !moved.is_empty() {
        out.push('\n');
        for line in moved {
            out.push_str("  ");
            out.push_str(&line);
            out.push('\n');
        }
    }
    let lines = summary_lines(comparison, causes, locale, Some(SUMMARY_LIMIT));
    if !lines.is_empty() {
        out.push('\n');
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
    }
    let integrity = IntegrityStrings::of(locale_of(s));
    out.push_str(&coverage::terminal_blocks(
        comparison,
        s.scope_run,
        s.summary_truncated,
        integrity,
    ));
    CompareText {
        stdout: out,
        stderr: coverage::uncovered_hint(comparison, integrity),
    }
}

/// The locale a strings table was built for (English when none matches).
pub fn locale_of(s: &Strings) -> Locale {
    Locale::ALL
        .into_iter()
        .find(|l| {
            let t = Strings::of(*l);
            t.worse_none == s.worse_none && t.config_unchanged == s.config_unchanged
        })
        .unwrap_or(Locale::En)
}

/// The headline sentence: its clauses in fixed order — worse (or "nothing
/// was compared"), within noise, failing checks whose re-asks could not be
/// judged, unjudged cases, uncomputed measures,
/// suspended, suite, artifacts, replay, target configuration, canary, judges.
/// Clauses with nothing to say are left out.
pub fn headline_sentence(comparison: &Comparison, head: &Headline, s: &Strings) -> String {
    let mut clauses: Vec<String> = headline_clauses(comparison, head, s).into();
    // The reference not covered decides the exit code (2) unless something
    // got worse (1) or nothing was compared at all: then it comes right
    // after that clause, else first.
    let uncovered = clauses.remove(clause::UNCOVERED);
    let at = usize::from(head.worse || head.canary_moved || head.nothing_compared);
    clauses.insert(at, uncovered);
    // A judge that moved decides the exit code (2): said first.
    let judges = super::judges::lead(&comparison.judges, locale_of(s), &comparison.judge_rerun);
    clauses.insert(0, judges);
    clauses
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where each clause sits in [`headline_clauses`]' array.
pub mod clause {
    /// Worse (or "nothing was compared").
    pub const WORSE: usize = 0;
    /// Within noise.
    pub const NOISE: usize = 1;
    /// Failing checks whose re-asks could not be judged.
    pub const UNREASKED: usize = 2;
    /// Unjudged cases.
    pub const UNJUDGED: usize = 3;
    /// Uncomputed whole-run measures.
    pub const UNCOMPUTED: usize = 4;
    /// A moved canary.
    pub const CANARY: usize = 10;
    /// Passing reference checks not in the run (this product's strictness;
    /// [`super::headline_sentence`] puts it first when it decides the exit code).
    pub const UNCOVERED: usize = 12;
}

/// The headline's clauses in their fixed order (see [`headline_sentence`]);
/// a clause with nothing to say is empty. Positions: [`clause`].
pub fn headline_clauses(comparison: &Comparison, head: &Headline, s: &Strings) -> [String; 13] {
    let regressed = if head.judges_moved > 0 {
        comparison.gated_regressions()
    } else {
        head.counts.get(Outcome::Regressed)
    };
    let worse = if head.judges_moved > 0 && regressed == 0 && !head.nothing_compared {
        // The judge's sentence says what was not counted.
        String::new()
    } else if head.nothing_compared {
        s.nothing_compared.to_string()
    } else if head.reasked {
        plural(
            regressed,
            s.worse_none_measured,
            s.worse_one_measured,
            s.worse_many_measured,
        )
    } else {
        plural(regressed, s.worse_none, s.worse_one, s.worse_many)
    };
    let mut noise = match head.within_noise {
        0 => String::new(),
        n => plural(n, "", s.noise_one, s.noise_many),
    };
    if head.undecided > 0 {
        let undecided = plural(head.undecided, "", s.undecided_one, s.undecided_many);
        noise = [noise, undecided]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
    }
    let unreasked = plural(head.unreasked, "", s.unreasked_one, s.unreasked_many);
    let unjudged = plural(
        head.unjudged,
        s.unjudged_none,
        s.unjudged_one,
        s.unjudged_many,
    );
    let uncomputed = match head.uncomputed_measures.len() {
        0 => String::new(),
        1 => fill(s.uncomputed_one, &[("names", &head.uncomputed_measures[0])]),
        n => fill(
            s.uncomputed_many,
            &[
                ("count", &n.to_string()),
                ("names", &head.uncomputed_measures.join(", ")),
            ],
        ),
    };
    let suspended = plural(
        head.suspended,
        s.suspended_none,
        s.suspended_one,
        s.suspended_many,
    );
    let integrity = IntegrityStrings::of(locale_of(s));
    let config = if head.config_changed {
        s.config_changed.to_string()
    } else if head.coverage_changed {
        // Never "unchanged" when the set of cases or checks differs.
        coverage::differs_clause(comparison, integrity)
    } else if !comparison.evaluation_changes.is_empty() {
        // Nor when the pull request changes what is evaluated.
        fill(
            integrity.evaluation_differs,
            &[("count", &comparison.evaluation_changes.len().to_string())],
        )
    } else if comparison.base_unverified {
        // Never "unchanged" when the base that would say so was not read;
        // the knobs the pull request declares are named, unverified.
        unverified_clause(&comparison.unverified_knobs, s)
    } else {
        s.config_unchanged.to_string()
    };
    let artifacts = artifact_fact(&comparison.artifact_deltas, s);
    let rejudged = if head.rejudged {
        s.rejudged.to_string()
    } else {
        String::new()
    };
    let target = target_fact(&comparison.target_config_deltas, s);
    let canary = canary_fact(comparison, s);
    let judge_changes = config_changes(&comparison.judge_config_deltas, s);
    let judge = if judge_changes.is_empty() {
        String::new()
    } else {
        fill(s.judge_changed, &[("changes", &judge_changes)])
    };
    let uncovered = coverage::uncovered_clause(head.uncovered_passes, integrity);
    [
        worse, noise, unreasked, unjudged, uncomputed, suspended, config, artifacts, rejudged,
        target, canary, judge, uncovered,
    ]
}

/// The most knobs the headline names (the blocks list every one).
const HEADLINE_KNOBS: usize = 6;

/// The clause of a base that could not be read, naming the pull request's
/// knobs (`[suite] false_alarm_rate = 1e-9, …`) when it declares any: at
/// most [`HEADLINE_KNOBS`], then how many more (`… (+3)`).
fn unverified_clause(knobs: &[crate::core::evaluation::Knob], s: &Strings) -> String {
    if knobs.is_empty() {
        return s.config_unverified.to_string();
    }
    let mut named: Vec<String> = knobs
        .iter()
        .take(HEADLINE_KNOBS)
        .map(|k| format!("{} = {}", k.what, k.value))
        .collect();
    if knobs.len() > HEADLINE_KNOBS {
        named.push(format!("… (+{})", knobs.len() - HEADLINE_KNOBS));
    }
    fill(s.config_unverified_knobs, &[("knobs", &named.join(", "))])
}

/// One line per side whose configuration moved: `system · model a → b`,
/// then `judge · …`.
pub fn config_lines(comparison: &Comparison, s: &Strings) -> Vec<String> {
    [
        (s.terminal_target, &comparison.target_config_deltas),
        (s.terminal_judge, &comparison.judge_config_deltas),
    ]
    .into_iter()
    .filter_map(|(label, rows)| {
        let changes = config_changes(rows, s);
        (!changes.is_empty()).then(|| format!("{label}{SUMMARY_SEPARATOR}{changes}"))
    })
    .collect()
}

/// One line per changed declared file: `prompt.md · +3 −1 lines`, or the
/// outcome when there is no line tally. Nothing at all when any file was
/// withheld (a path is payload then).
pub fn artifact_lines(comparison: &Comparison, s: &Strings) -> Vec<String> {
    if comparison.artifact_deltas.iter().any(|d| d.withheld) {
        return Vec::new();
    }
    comparison
        .artifact_deltas
        .iter()
        .filter(|d| !matches!(d.outcome, ArtifactOutcome::Same | ArtifactOutcome::Unknown))
        .map(|d| {
            let detail = artifact_detail(d, s);
            format!("{}{SUMMARY_SEPARATOR}{detail}", d.path)
        })
        .collect()
}

/// What happened to one declared file: `+3 −1 lines`, or the outcome when
/// there is no line tally (`added since the reference`, …).
pub fn artifact_detail(d: &ArtifactDelta, s: &Strings) -> String {
    let (added, removed) = diff_tally(d);
    if added + removed > 0 {
        fill(
            s.artifacts_tally,
            &[
                ("added", &added.to_string()),
                ("removed", &removed.to_string()),
            ],
        )
    } else {
        match d.outcome {
            ArtifactOutcome::New => s.artifact_new,
            ArtifactOutcome::Missing => s.artifact_missing,
            ArtifactOutcome::Unknown => s.artifact_unknown,
            _ => s.artifact_changed,
        }
        .to_string()
    }
}

/// `<case> · <check> · <what happened>` for every regression, then every
/// other check whose run side errored, each group in the comparison's
/// listing order — suite order when it was made by
/// [`super::order::compare_in_suite_order`], as `compare` makes it (0.10.0
/// listed them by check-identity hash); with `limit`, at most that many,
/// plus a last line saying how many were left out.
pub fn summary_lines(
    comparison: &Comparison,
    causes: &Causes,
    locale: Locale,
    limit: Option<usize>,
) -> Vec<String> {
    let s = Strings::of(locale);
    let chosen: Vec<&Delta> = comparison
        .listed()
        .filter(|d| d.outcome == Outcome::Regressed)
        .chain(
            comparison
                .listed()
                .filter(|d| d.outcome != Outcome::Regressed && d.unjudged_now()),
        )
        .collect();
    let shown = limit.map_or(chosen.len(), |n| n.min(chosen.len()));
    let coincides = change_list(comparison.config_changes(), s);
    let mut lines: Vec<String> = chosen[..shown]
        .iter()
        .map(|d| {
            let case = match d.key.scope {
                Scope::Case => d.key.case_id.as_str(),
                Scope::Run => s.scope_run,
            };
            let mut happened = check_line(d, &coincides, s);
            if d.outcome != Outcome::Regressed && d.errored_now() {
                let key = (
                    d.key.scope,
                    d.key.case_id.to_string(),
                    d.key.assertion_id.to_string(),
                    d.key.occurrence,
                );
                let cause = causes.get(&key).cloned().unwrap_or_else(Cause::unknown);
                happened.push(' ');
                happened.push_str(&cause.sentence(locale));
            }
            [case, d.assertion.as_str(), &happened].join(SUMMARY_SEPARATOR)
        })
        .collect();
    if shown < chosen.len() {
        lines.push(fill(
            s.summary_truncated,
            &[
                ("shown", &shown.to_string()),
                ("total", &chosen.len().to_string()),
            ],
        ));
    }
    lines
}

/// The moved target parameters (`model a → b`) a regression coincides with.
pub fn coincides_text(comparison: &Comparison, s: &Strings) -> String {
    change_list(comparison.config_changes(), s)
}

/// What happened to one check, in one sentence; `coincides` (the moved
/// target parameters, e.g. `model a → b`) is appended to a regression.
pub fn check_line(delta: &Delta, coincides: &str, s: &Strings) -> String {
    let mut text = detail_text(delta, s);
    if !coincides.is_empty() && delta.outcome == Outcome::Regressed {
        text.push_str(&fill(s.coincides, &[("changes", coincides)]));
    }
    text
}

fn detail_text(delta: &Delta, s: &Strings) -> String {
    match delta.outcome {
        Outcome::New if delta.errored_now() => return s.detail_new_errored.to_string(),
        Outcome::New => return s.detail_new.to_string(),
        Outcome::Missing => return s.detail_missing.to_string(),
        Outcome::Errored if delta.unreasked => return s.detail_unreasked.to_string(),
        Outcome::Errored => return s.detail_errored.to_string(),
        _ => {}
    }
    let (Some(now), Some(before)) = (&delta.after, &delta.before) else {
        return s.detail_errored.to_string();
    };
    let (Some(now_score), Some(before_score)) = (now.score, before.score) else {
        return s.detail_errored.to_string();
    };
    let was = fmt_score(before_score);
    let is_now = fmt_score(now_score);
    if now.status != before.status {
        let key = if before.status == Status::Pass {
            s.detail_flipped_worse
        } else {
            s.detail_flipped_better
        };
        let mut text = fill(key, &[("before", &was), ("now", &is_now)]);
        if now.threshold != before.threshold {
            text.push_str(&fill(
                s.detail_threshold_moved,
                &[
                    ("before_threshold", &fmt_score(before.threshold)),
                    ("now_threshold", &fmt_score(now.threshold)),
                ],
            ));
        }
        return text;
    }
    let noise = delta
        .noise
        .map(|n| noise_interval(&n, s))
        .unwrap_or_default();
    let template = if delta.within_noise {
        s.detail_within_noise
    } else {
        match (delta.outcome, noise.is_empty()) {
            (Outcome::Regressed, true) => s.detail_dropped,
            (Outcome::Regressed, false) => s.detail_dropped_beyond_noise,
            (Outcome::Improved, true) => s.detail_rose,
            (Outcome::Improved, false) => s.detail_rose_beyond_noise,
            _ => s.detail_unchanged,
        }
    };
    fill(
        template,
        &[("before", &was), ("now", &is_now), ("noise", &noise)],
    )
}

fn noise_interval(noise: &Noise, s: &Strings) -> String {
    fill(
        s.noise_interval,
        &[
            ("low", &fmt_score(noise.min)),
            ("high", &fmt_score(noise.max)),
            ("count", &noise.samples.to_string()),
        ],
    )
}

fn canary_fact(comparison: &Comparison, s: &Strings) -> String {
    let moved = comparison.moved_canaries();
    let Some(first) = moved.first() else {
        return String::new();
    };
    let score = |side: &Option<crate::core::compare::Side>| {
        side.as_ref()
            .and_then(|x| x.score)
            .map(fmt_score)
            .unwrap_or_default()
    };
    let beyond = first
        .noise
        .map(|n| fill(s.canary_beyond, &[("interval", &noise_interval(&n, s))]))
        .unwrap_or_default();
    let case = if first.key.case_id.is_empty() {
        first.assertion.as_str()
    } else {
        first.key.case_id.as_str()
    };
    let template = if moved.len() == 1 {
        s.canary_one
    } else {
        s.canary_many
    };
    fill(
        template,
        &[
            ("count", &moved.len().to_string()),
            ("case", case),
            ("before", &score(&first.before)),
            ("after", &score(&first.after)),
            ("beyond", &beyond),
        ],
    )
}

/// The headline clause about declared files (empty when none is declared).
pub fn artifact_fact(deltas: &[ArtifactDelta], s: &Strings) -> String {
    if deltas.is_empty() {
        return String::new();
    }
    let changed = deltas
        .iter()
        .filter(|d| !matches!(d.outcome, ArtifactOutcome::Same | ArtifactOutcome::Unknown))
        .count();
    let unknown = deltas.iter().any(|d| d.outcome == ArtifactOutcome::Unknown);
    match changed {
        0 if unknown => s.artifacts_unknown.to_string(),
        n => plural(n, s.artifacts_unchanged, s.artifacts_one, s.artifacts_many),
    }
}

fn target_fact(deltas: &[ConfigDelta], s: &Strings) -> String {
    if deltas.is_empty() {
        return String::new();
    }
    let changes = config_changes(deltas, s);
    if !changes.is_empty() {
        fill(s.target_changed, &[("changes", &changes)])
    } else if deltas.iter().all(|d| d.outcome == ConfigOutcome::Unknown) {
        s.target_unknown.to_string()
    } else {
        s.target_unchanged.to_string()
    }
}

/// `model a → b, temperature 0.3 → 0.7`: the rows that are changes.
fn config_changes(deltas: &[ConfigDelta], s: &Strings) -> String {
    change_list(deltas.iter().filter(|d| d.outcome.is_change()).collect(), s)
}

fn change_list(deltas: Vec<&ConfigDelta>, s: &Strings) -> String {
    deltas
        .into_iter()
        .map(|d| change(d, s))
        .collect::<Vec<_>>()
        .join(", ")
}

fn change(delta: &ConfigDelta, s: &Strings) -> String {
    if delta.field == IDENTITY_FIELD {
        let (template, label) = if delta.outcome == ConfigOutcome::New {
            (s.judge_added, &delta.after)
        } else {
            (s.judge_removed, &delta.before)
        };
        return fill(template, &[("judge", &fmt_value(label))]);
    }
    if delta.withheld && delta.before.is_null() && delta.after.is_null() {
        return fill(s.change_withheld, &[("field", &delta.field)]);
    }
    let observed = OBSERVED_FIELDS.contains(&delta.field.as_str());
    let template = match (delta.outcome, observed) {
        (ConfigOutcome::New, false) => s.change_new,
        (ConfigOutcome::New, true) => s.change_new_observed,
        (ConfigOutcome::Missing, false) => s.change_missing,
        (ConfigOutcome::Missing, true) => s.change_missing_observed,
        _ => s.change_changed,
    };
    fill(
        template,
        &[
            ("field", &delta.field),
            ("before", &fmt_value(&delta.before)),
            ("after", &fmt_value(&delta.after)),
        ],
    )
}

/// A score as printed: six decimals, a dot in every locale (`0.978723`).
pub fn fmt_score(value: f64) -> String {
    format!("{value:.6}")
}

/// A configuration value as a reader sees it: Python's `str()` (`0.3`,
/// `1e-05`, `true`), `—` for none.
pub fn fmt_value(value: &Value) -> String {
    match value {
        Value::Null => "—".to_string(),
        Value::String(text) => text.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr()` of a JSON value (`True`/`False` only inside containers,
/// where Python would print them so; top-level booleans read `true`/`false`).
fn py_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".to_string(),
        Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => py_float(f),
            _ => n.to_string(),
        },
        Value::String(text) => format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'")),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(py_inner).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", py_inner(&Value::String(k.clone())), py_inner(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

fn py_inner(value: &Value) -> String {
    match value {
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        other => py_repr(other),
    }
}

fn py_float(f: f64) -> String {
    if f.is_nan() {
        "nan".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        crate::core::python::dumps::float_repr(f)
    }
}

/// Lines added and removed between the two recorded texts (Python
/// `unified_diff` over `splitlines()`, counting lines that start with `+` but
/// not `+++`, and `-` but not `---`, as 0.10.0 does). `(0, 0)` when a side
/// has no text.
pub fn diff_tally(delta: &ArtifactDelta) -> (usize, usize) {
    let (Some(before), Some(after)) = (&delta.before_text, &delta.after_text) else {
        return (0, 0);
    };
    if delta.withheld {
        return (0, 0);
    }
    let a = py_splitlines(before);
    let b = py_splitlines(after);
    let mut matcher = difflib::sequencematcher::SequenceMatcher::new(&a, &b);
    let (mut added, mut removed) = (0, 0);
    for op in matcher.get_opcodes() {
        if op.tag == "equal" {
            continue;
        }
        removed += a[op.first_start..op.first_end]
            .iter()
            .filter(|line| !line.starts_with("--"))
            .count();
        added += b[op.second_start..op.second_end]
            .iter()
            .filter(|line| !line.starts_with("++"))
            .count();
    }
    (added, removed)
}

/// Python's `str.splitlines()`: splits on every line boundary Python knows,
/// `\r\n` as one, and drops a final empty piece.
fn py_splitlines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let boundary = matches!(
            c,
            '\n' | '\r'
                | '\u{0b}'
                | '\u{0c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if boundary {
            lines.push(&text[start..i]);
            let mut end = i + c.len_utf8();
            if c == '\r' {
                if let Some(&(j, '\n')) = chars.peek() {
                    end = j + 1;
                    chars.next();
                }
            }
            start = end;
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Picks the none/one/many form and fills `{count}`.
pub fn plural(count: usize, none: &str, one: &str, many: &str) -> String {
    match count {
        0 => none.to_string(),
        1 => one.to_string(),
        n => fill(many, &[("count", &n.to_string())]),
    }
}

/// Replaces each `{name}` in `template` by its value, in one left-to-right
/// pass (values are never re-scanned, so a value containing braces is safe).
pub fn fill(template: &str, params: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let replaced = after.find('}').and_then(|close| {
            let name = &after[..close];
            params
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (close, *v))
        });
        match replaced {
            Some((close, value)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
