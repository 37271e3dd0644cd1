//! What `digline gate` says, before it is laid out: the headline led by
//! what decides the exit code, the rows of what got worse and of what could
//! not be judged (each with its [`Cause`]), configuration lines, and the
//! counts in the headline's unit (cases). The terminal text is laid out
//! here; the comment and job summary (Markdown) and JUnit (XML) are laid
//! out by `forge` from the same [`GateView`].
//!
//! Every sentence comes from the locale's `[gate]`, `[compare]`, `[report]`
//! and `[cause]` tables; rows are in suite order ([`SuiteOrder`]). Names
//! (case ids, check names) are carried raw: each surface makes them inert
//! its own way. No payload: a cause is a category and measured facts.
//!
//! Pure.

use std::collections::{BTreeMap, HashMap};

use crate::core::compare::{
    keyed_verdicts, CheckLabels, Comparison, Delta, KeyRef, Outcome, Scope, Side,
};
use crate::core::document::RunDocument;
use crate::core::exit::ExitStatus;
use crate::core::failed_calls::FailedCalls;
use crate::core::verdict::{Status, Verdict};

use super::cause::{classify, endpoint, Category, Cause, Party};
use super::locale::Locale;
use super::order::SuiteOrder;
use super::text::{
    artifact_lines, check_line, clause, coincides_text, config_lines, fill, fmt_score,
    headline_clauses, plural, shorten_name, Strings, SUMMARY_LIMIT, SUMMARY_SEPARATOR,
};

/// One row: case · check · before → after, and for what could not be
/// judged, why.
#[derive(Clone, Debug, PartialEq)]
pub struct GateRow {
    /// The case id, or the locale's "whole run" for a run-level measure.
    pub case: String,
    /// The check's name.
    pub check: String,
    /// The reference's side (`pass 1.000000`, `error`, `—`).
    pub before: String,
    /// The run's side.
    pub after: String,
    /// What happened, in one sentence (terminal text).
    pub happened: String,
    /// Why the check could not judge, when it could not.
    pub cause: Option<Cause>,
}

/// Everything the gate says, in one locale.
#[derive(Clone, Debug, PartialEq)]
pub struct GateView {
    /// The contract exit status this view explains.
    pub exit_code: ExitStatus,
    /// The sentence that decides the exit code.
    pub lead: String,
    /// The rest of the headline (may be empty).
    pub rest: String,
    /// No baseline: the run on its own, no verdict.
    pub no_baseline: bool,
    /// With no baseline, where it was looked for.
    pub baseline_path: Option<String>,
    /// Title of the first table.
    pub worse_title: String,
    /// What got worse (no baseline: what fell short of its bar).
    pub worse: Vec<GateRow>,
    /// What could not be judged.
    pub unjudged: Vec<GateRow>,
    /// Configuration and declared-file lines.
    pub config: Vec<String>,
    /// The counts sentence, in cases (plain text).
    pub counts: String,
    /// The counts sentence of whole-run measures, when any moved or errored.
    pub measure_counts: String,
    /// Case tallies by slug (`got_worse`, `could_not_be_judged`, …).
    pub case_counts: BTreeMap<String, usize>,
}

impl GateView {
    /// The headline: the lead, then the rest (either may be empty).
    pub fn headline(&self) -> String {
        if self.rest.is_empty() {
            self.lead.clone()
        } else {
            format!("{} {}", self.lead, self.rest)
        }
    }

    /// The terminal text (stdout): the headline, the configuration lines,
    /// then one line per row of what got worse and of what could not be
    /// judged, at most [`SUMMARY_LIMIT`], in suite order.
    pub fn terminal(&self, locale: Locale) -> String {
        let s = Strings::of(locale);
        let mut out = self.headline();
        out.push('\n');
        if !self.config.is_empty() {
            out.push('\n');
            for line in &self.config {
                out.push_str("  ");
                out.push_str(line);
                out.push('\n');
            }
        }
        let rows: Vec<&GateRow> = self.worse.iter().chain(&self.unjudged).collect();
        if !rows.is_empty() {
            out.push('\n');
            for row in rows.iter().take(SUMMARY_LIMIT) {
                out.push_str(
                    &[
                        shorten_name(&row.case).as_str(),
                        shorten_name(&row.check).as_str(),
                        row.happened.as_str(),
                    ]
                    .join(SUMMARY_SEPARATOR),
                );
                out.push('\n');
            }
            if rows.len() > SUMMARY_LIMIT {
                out.push_str(&fill(
                    s.summary_truncated,
                    &[
                        ("shown", &SUMMARY_LIMIT.to_string()),
                        ("total", &rows.len().to_string()),
                    ],
                ));
                out.push('\n');
            }
        }
        out
    }
}

/// How a case fared, in the headline's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fared {
    Worse,
    Unjudged,
    Better,
    Added,
    Removed,
    Same,
    SetAside,
}

impl Fared {
    fn slug(self) -> &'static str {
        match self {
            Fared::Worse => "got_worse",
            Fared::Unjudged => "could_not_be_judged",
            Fared::Better => "got_better",
            Fared::Added => "added",
            Fared::Removed => "removed",
            Fared::Same => "stayed_the_same",
            Fared::SetAside => "set_aside",
        }
    }

    /// The word after a count of `n` cases (singular after 1).
    fn word(self, locale: Locale, n: usize) -> &'static str {
        counted(
            locale,
            match self {
                Fared::Worse => "report.tally_regressed",
                Fared::Unjudged => "report.tally_errored",
                Fared::Better => "report.tally_improved",
                Fared::Added => "report.tally_new",
                Fared::Removed => "report.tally_missing",
                Fared::Same => "report.tally_unchanged",
                Fared::SetAside => "gate.set_aside",
            },
            n,
        )
    }

    fn of(deltas: &[&Delta]) -> Fared {
        let any = |o: Outcome| deltas.iter().any(|d| d.outcome == o);
        if any(Outcome::Regressed) {
            Fared::Worse
        } else if deltas.iter().any(|d| d.unjudged_now()) {
            Fared::Unjudged
        } else if any(Outcome::Improved) {
            Fared::Better
        } else if !deltas.is_empty() && deltas.iter().all(|d| d.outcome == Outcome::New) {
            Fared::Added
        } else if !deltas.is_empty() && deltas.iter().all(|d| d.outcome == Outcome::Missing) {
            Fared::Removed
        } else {
            Fared::Same
        }
    }
}

/// The locale's word for `key` after a count of `n`: its `_one` form
/// after exactly 1 ("1 dégradé", "2 dégradés").
pub fn counted(locale: Locale, key: &str, n: usize) -> &'static str {
    if n == 1 {
        let one = locale.text(&format!("{key}_one"));
        if !one.is_empty() {
            return one;
        }
    }
    locale.text(key)
}

fn tally_line(template: &str, tally: &[(&'static str, usize)], locale: Locale) -> String {
    let items: Vec<String> = tally
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(what, n)| {
            fill(
                locale.text("gate.count_item"),
                &[("count", &n.to_string()), ("what", what)],
            )
        })
        .collect();
    if items.is_empty() {
        return String::new();
    }
    fill(template, &[("counts", &items.join(SUMMARY_SEPARATOR))])
}

/// A verdict's side as the tables show it: `pass 1.000000`, `error`.
pub fn side_text(status: Status, score: Option<f64>, locale: Locale) -> String {
    let word = |status: Status| {
        locale.text(match status {
            Status::Pass => "gate.status_pass",
            Status::Fail => "gate.status_fail",
            Status::Error => "gate.status_error",
        })
    };
    match (status, score) {
        (Status::Error, _) | (_, None) => word(Status::Error).to_string(),
        (s, Some(v)) => format!("{} {}", word(s), fmt_score(v)),
    }
}

/// One side of a delta as the tables show it: [`side_text`], or `—` when
/// the check is absent on that side.
pub fn side(side: &Option<Side>, locale: Locale) -> String {
    side.as_ref()
        .map_or_else(|| "—".to_string(), |s| side_text(s.status, s.score, locale))
}

/// Causes by (scope, case id, check id, occurrence).
pub type Causes = HashMap<(Scope, String, String, usize), Cause>;

/// Why the check of `d` could not run: its cause, or the unknown cause.
pub fn cause_of(causes: &Causes, d: &Delta) -> Cause {
    causes
        .get(&(
            d.key.scope,
            d.key.case_id.to_string(),
            d.key.assertion_id.to_string(),
            d.key.occurrence,
        ))
        .cloned()
        .unwrap_or_else(Cause::unknown)
}

/// The causes of every errored verdict of `run`, by (scope, case, check id,
/// occurrence) — read from the complete run, before any redaction — with
/// the elapsed milliseconds of the case's failed call to the target when
/// `failed` (the run's side record) has them.
pub fn causes(run: &RunDocument, failed: &FailedCalls) -> Causes {
    let mut out = HashMap::new();
    let mut add = |scope: Scope, case: &str, verdicts: &[Verdict]| {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for v in verdicts {
            let n = seen.entry(v.assertion_id.as_str()).or_insert(0);
            if v.status == Status::Error {
                let mut cause = classify(&v.reason);
                if cause.party == Party::Target
                    && scope == Scope::Case
                    && cause.category != Category::CaseInput
                {
                    cause.elapsed_ms = failed.elapsed_ms(case);
                    // A reason that does not name the endpoint (an answer
                    // without the output) is said with the one called.
                    if cause.endpoint.is_none() && cause.elapsed_ms.is_some() {
                        cause.endpoint = failed.endpoint.as_deref().and_then(endpoint);
                    }
                }
                out.insert(
                    (scope, case.to_string(), v.assertion_id.to_string(), *n),
                    cause,
                );
            }
            *n += 1;
        }
    };
    for case in &run.results {
        add(Scope::Case, &case.case_id, &case.verdicts);
    }
    add(Scope::Run, "", &run.aggregate);
    out
}

/// The view of a comparison of `run` with `baseline`.
pub fn compared(
    run: &RunDocument,
    baseline: &RunDocument,
    c: &Comparison,
    locale: Locale,
    failed: &FailedCalls,
) -> GateView {
    let s = Strings::of(locale);
    let head = c.headline();
    let code = crate::core::compare::headline_exit_code(&head);
    let clauses = headline_clauses(c, &head, s);
    let (lead, skip): (String, Vec<usize>) = match code {
        ExitStatus::Worse if head.worse => (clauses[clause::WORSE].clone(), vec![clause::WORSE]),
        ExitStatus::Worse => (clauses[clause::CANARY].clone(), vec![clause::CANARY]),
        ExitStatus::Unjudged if head.nothing_compared => {
            (clauses[clause::WORSE].clone(), vec![clause::WORSE])
        }
        // A passing reference check missing from the run decides exit 2
        // when no case errored: said first.
        ExitStatus::Unjudged if head.unjudged == 0 && head.uncovered_passes > 0 => {
            (clauses[clause::UNCOVERED].clone(), vec![clause::UNCOVERED])
        }
        ExitStatus::Unjudged if head.unjudged > 0 => (
            plural(
                head.unjudged,
                "",
                locale.text("gate.lead_unjudged_one"),
                locale.text("gate.lead_unjudged_many"),
            ),
            vec![clause::WORSE, clause::UNJUDGED],
        ),
        // A failure whose re-asks could not be judged: said first.
        ExitStatus::Unjudged if head.unreasked > 0 => (
            clauses[clause::UNREASKED].clone(),
            vec![clause::WORSE, clause::UNREASKED],
        ),
        // A judge that moved: its sentence, which names the rerun command,
        // is the gate's to write (`app::gate`), in front of the rest.
        ExitStatus::Unjudged if head.judges_moved > 0 => (String::new(), vec![clause::WORSE]),
        ExitStatus::Unjudged => (
            locale.text("gate.lead_uncomputed").to_string(),
            vec![clause::WORSE],
        ),
        _ => (clauses[clause::WORSE].clone(), vec![clause::WORSE]),
    };
    let rest = clauses
        .iter()
        .enumerate()
        .filter(|(i, text)| !skip.contains(i) && !text.is_empty())
        .map(|(_, text)| text.as_str())
        .collect::<Vec<_>>()
        .join(" ");

    let order = SuiteOrder::new(run, Some(baseline));
    let sorted = order.sort(&c.deltas);
    let causes = causes(run, failed);
    let coincides = coincides_text(c, s);
    let labels = CheckLabels::new(c.deltas.iter().map(|d| (d.key.as_ref(), &*d.assertion)));
    let row = |d: &Delta, unjudged: bool| {
        let cause = unjudged.then(|| cause_of(&causes, d));
        let happened = match &cause {
            Some(cause) => format!("{} {}", s.detail_errored, cause.sentence(locale)),
            None => check_line(d, &coincides, s),
        };
        GateRow {
            case: match d.key.scope {
                Scope::Case => d.key.case_id.to_string(),
                Scope::Run => s.scope_run.to_string(),
            },
            check: labels.label(d.key.as_ref(), &d.assertion),
            before: side(&d.before, locale),
            after: side(&d.after, locale),
            happened,
            cause,
        }
    };
    let worse: Vec<GateRow> = sorted
        .iter()
        .filter(|d| d.outcome == Outcome::Regressed || (d.canary && d.outcome == Outcome::Improved))
        .map(|d| row(d, false))
        .collect();
    let unjudged: Vec<GateRow> = sorted
        .iter()
        .filter(|d| d.outcome != Outcome::Regressed && d.unjudged_now())
        .map(|d| row(d, d.errored_now()))
        .collect();

    // Counts, in cases (and whole-run measures apart).
    let suspended: Vec<&str> = run
        .results
        .iter()
        .filter(|r| r.suspended)
        .map(|r| r.case_id.as_str())
        .collect();
    let mut by_case: Vec<(&str, Vec<&Delta>)> = Vec::new();
    let mut measures: Vec<&Delta> = Vec::new();
    for d in &sorted {
        match d.key.scope {
            Scope::Run => measures.push(d),
            Scope::Case if suspended.contains(&d.key.case_id.as_str()) => {}
            Scope::Case => match by_case.last_mut() {
                Some((id, list)) if *id == d.key.case_id => list.push(d),
                _ => by_case.push((d.key.case_id.as_str(), vec![d])),
            },
        }
    }
    let mut tally: BTreeMap<Fared, usize> = BTreeMap::new();
    for (_, deltas) in &by_case {
        *tally.entry(Fared::of(deltas)).or_insert(0) += 1;
    }
    if !suspended.is_empty() {
        tally.insert(Fared::SetAside, suspended.len());
    }
    let words: Vec<(&'static str, usize)> = tally
        .iter()
        .map(|(f, n)| (f.word(locale, *n), *n))
        .collect();
    let counts = tally_line(locale.text("gate.counts"), &words, locale);
    let mut measure_tally: BTreeMap<Fared, usize> = BTreeMap::new();
    for d in &measures {
        *measure_tally.entry(Fared::of(&[d])).or_insert(0) += 1;
    }
    let measure_counts = if measure_tally
        .keys()
        .any(|f| matches!(f, Fared::Worse | Fared::Unjudged))
    {
        let words: Vec<(&'static str, usize)> = measure_tally
            .iter()
            .map(|(f, n)| (f.word(locale, *n), *n))
            .collect();
        tally_line(locale.text("gate.counts_measures"), &words, locale)
    } else {
        String::new()
    };
    let case_counts = tally
        .iter()
        .map(|(f, n)| (f.slug().to_string(), *n))
        .collect();

    GateView {
        exit_code: code,
        lead,
        rest,
        no_baseline: false,
        baseline_path: None,
        worse_title: locale.text("report.section_worse").to_string(),
        worse,
        unjudged,
        config: artifact_lines(c, s)
            .into_iter()
            .chain(config_lines(c, s))
            .collect(),
        counts,
        measure_counts,
        case_counts,
    }
}

/// The view of a run with no baseline: no verdict (exit 64); what fell short
/// of its bar and what could not be judged, in suite order.
pub fn single(
    run: &RunDocument,
    baseline_path: &str,
    locale: Locale,
    exit_code: ExitStatus,
    failed: &FailedCalls,
) -> GateView {
    let s = Strings::of(locale);
    let causes = causes(run, failed);
    let labels = CheckLabels::new(
        keyed_verdicts(run)
            .into_iter()
            .map(|(k, v)| (k, &*v.assertion)),
    );
    let mut worse = Vec::new();
    let mut unjudged = Vec::new();
    let mut visit = |scope: Scope, case: &str, label: &str, verdicts: &[Verdict]| {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for v in verdicts {
            let n = seen.entry(v.assertion_id.as_str()).or_insert(0);
            let occurrence = *n;
            *n += 1;
            let cause = (v.status == Status::Error).then(|| {
                let key = (
                    scope,
                    case.to_string(),
                    v.assertion_id.to_string(),
                    occurrence,
                );
                causes.get(&key).cloned().unwrap_or_else(Cause::unknown)
            });
            let happened = match (&cause, v.score) {
                (Some(cause), _) => format!("{} {}", s.detail_errored, cause.sentence(locale)),
                (None, Some(score)) => fill(
                    locale.text("report.single_scored"),
                    &[
                        ("score", &fmt_score(score)),
                        ("threshold", &fmt_score(*v.threshold)),
                    ],
                ),
                (None, None) => s.detail_errored.to_string(),
            };
            let key = KeyRef {
                scope,
                case_id: case,
                assertion_id: &v.assertion_id,
                occurrence,
            };
            let row = GateRow {
                case: label.to_string(),
                check: labels.label(key, &v.assertion),
                before: "—".into(),
                after: side_text(v.status, v.score, locale),
                happened,
                cause,
            };
            match v.status {
                Status::Fail => worse.push(row),
                Status::Error => unjudged.push(row),
                Status::Pass => {}
            }
        }
    };
    let mut fared: BTreeMap<&'static str, usize> = BTreeMap::new();
    for case in &run.results {
        visit(Scope::Case, &case.case_id, &case.case_id, &case.verdicts);
        let word = if case.suspended {
            "gate.set_aside"
        } else if case.verdicts.iter().any(|v| v.status == Status::Error) {
            "report.tally_errored"
        } else if case.verdicts.iter().any(|v| v.status == Status::Fail) {
            "gate.single_failed"
        } else {
            "gate.single_passed"
        };
        *fared.entry(word).or_insert(0) += 1;
    }
    visit(Scope::Run, "", s.scope_run, &run.aggregate);
    let order = [
        "gate.single_failed",
        "report.tally_errored",
        "gate.single_passed",
        "gate.set_aside",
    ];
    let words: Vec<(&'static str, usize)> = order
        .iter()
        .map(|k| {
            let n = fared.get(k).copied().unwrap_or(0);
            (counted(locale, k, n), n)
        })
        .collect();
    let counts = tally_line(locale.text("gate.counts"), &words, locale);
    let slug = |k: &str| match k {
        "gate.single_failed" => "fell_short",
        "report.tally_errored" => "could_not_be_judged",
        "gate.single_passed" => "met_every_bar",
        _ => "set_aside",
    };
    let case_counts = order
        .iter()
        .map(|k| (slug(k).to_string(), fared.get(k).copied().unwrap_or(0)))
        .collect();
    GateView {
        exit_code,
        lead: locale.text("gate.lead_no_baseline").to_string(),
        rest: fill(
            locale.text("gate.no_baseline_path"),
            &[("path", baseline_path)],
        ),
        no_baseline: true,
        baseline_path: Some(baseline_path.to_string()),
        worse_title: locale.text("gate.section_failed").to_string(),
        worse,
        unjudged,
        config: Vec::new(),
        counts,
        measure_counts: String::new(),
        case_counts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_words_are_the_readers_language() {
        assert_eq!(
            side_text(Status::Pass, Some(1.0), Locale::En),
            "pass 1.000000"
        );
        assert_eq!(
            side_text(Status::Fail, Some(0.0), Locale::En),
            "fail 0.000000"
        );
        assert_eq!(side_text(Status::Error, Some(0.0), Locale::En), "error");
        assert_eq!(
            side_text(Status::Fail, Some(0.0), Locale::Fr),
            "échoué 0.000000"
        );
        for locale in &Locale::ALL[1..] {
            for status in [Status::Pass, Status::Fail] {
                let shown = side_text(status, Some(0.5), *locale);
                let english = side_text(status, Some(0.5), Locale::En);
                assert_ne!(shown, english, "{locale}: {status:?}");
                assert!(shown.ends_with(" 0.500000"), "{shown}");
            }
            let error = side_text(Status::Error, None, *locale);
            assert!(
                !error.is_empty() && !error.contains(' '),
                "{locale}: {error}"
            );
        }
    }
}
