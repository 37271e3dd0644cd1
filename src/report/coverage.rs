//! The words and lines of coverage, rule changes and a replaced reference,
//! shared by the terminal text, the comment, the job summary and the HTML
//! report: the `[integrity]` table of `templates/locales/<code>.toml`.
//!
//! Pure: built from a [`Comparison`]'s names, ids and numbers only.

use crate::core::compare::{Comparison, Delta, Direction, Outcome, RuleChange, RuleField, Scope};
use crate::core::evaluation::{Change, EvalChange, Knob, Subject};

use super::locale::Locale;
use super::text::{fill, SUMMARY_LIMIT, SUMMARY_SEPARATOR};

super::text::strings_table! {
    /// The `[integrity]` strings of one locale: coverage, rule changes and a
    /// replaced reference.
    IntegrityStrings = "integrity";
    /// One passing reference verdict is not in the run.
    uncovered_one,
    /// `{count}` passing reference verdicts are not in the run.
    uncovered_many,
    /// The set of cases or checks differs: `{missing}`, `{new}`.
    coverage_differs,
    /// The pull request replaces the baseline file.
    replaced,
    /// Against the replaced reference nothing got worse.
    replaced_worse_none,
    /// `Against the approved reference it replaces: {judges}` — the lead of
    /// the judges that moved against it.
    replaced_judges,
    /// Against the replaced reference one check got worse.
    replaced_worse_one,
    /// Against the replaced reference `{count}` checks got worse.
    replaced_worse_many,
    /// Title of the list of reference verdicts absent from the run.
    title_not_in_run,
    /// Title of the list of verdicts new in the run.
    title_new_in_run,
    /// Title of the itemized rule changes.
    title_rules,
    /// Title of what got worse against the replaced reference.
    title_replaced_worse,
    /// The "what happened" of a reference verdict absent from the run.
    detail_not_in_run,
    /// The "what happened" of a verdict new in the run.
    detail_new_in_run,
    /// `threshold {before} → {after}`.
    rule_threshold,
    /// `tolerance {before} → {after}`.
    rule_tolerance,
    /// `parameters changed (check id {before} → {after})`.
    rule_parameters,
    /// A rule made easier to pass.
    loosened,
    /// A rule made harder to pass.
    tightened,
    /// The way out when the reference is not covered.
    hint_uncovered,
    /// The clause standing for "unchanged" when the pull request changes
    /// what is evaluated: `{count}` changes.
    evaluation_differs,
    /// Title of the itemized changes to what is evaluated.
    title_evaluation,
    /// `{what}: {before} → {after}`.
    eval_values,
    /// `{what}` changed, its value withheld.
    eval_withheld,
    /// `{what}` added.
    eval_added,
    /// `{what}` removed.
    eval_removed,
    /// Case `{id}`: `{fields}` changed.
    eval_case_edited,
    /// Case `{id}` added.
    eval_case_added,
    /// Case `{id}` removed.
    eval_case_removed,
    /// What a moved store root is called in `{what}: {before} → {after}`.
    eval_store_root,
    /// The suite file (moved, or not at the base).
    eval_suite_file,
    /// The judge anchors file's content (`[suite] judge_anchors`).
    eval_anchors_file,
    /// Title of the knobs a pull request declares when its base could not
    /// be read.
    title_unverified,
    /// `{what} = {value}`, not verified against the base.
    knob_unverified,
    /// Against the replaced reference: `{rules}` loosened, `{dropped}` dropped.
    replaced_gives_up,
    /// `1 rule` (in `{rules}` of `replaced_gives_up`).
    gives_up_rules_one,
    /// `{count} rules` (0 too).
    gives_up_rules_many,
    /// `1 check` (in `{dropped}`).
    gives_up_checks_one,
    /// `{count} checks` (0 too).
    gives_up_checks_many,
    /// Title of what the replacement loosens or drops.
    title_replaced_given_up,
    /// `rule loosened: {rule}`.
    detail_rule_loosened,
    /// A check of the replaced reference the run does not have.
    detail_dropped,
}

/// What a replaced reference gives up beside its regressions: the rules
/// the run loosens against it, and the checks it held that the run does
/// not (a case deleted from both the cases and the new baseline).
pub fn given_up(old: &Comparison) -> (Vec<&RuleChange>, Vec<&Delta>) {
    let loosened = old
        .rule_changes
        .iter()
        .filter(|r| r.direction == Some(Direction::Loosened))
        .collect();
    let dropped = old
        .listed()
        .filter(|d| d.outcome == Outcome::Missing && !old.suspended_here(d))
        .collect();
    (loosened, dropped)
}

/// "Against it, this pull request also loosens 1 rule and drops 3
/// checks." — empty when it gives up nothing beyond regressions.
pub fn given_up_clause(old: &Comparison, s: &IntegrityStrings) -> String {
    let (loosened, dropped) = given_up(old);
    if loosened.is_empty() && dropped.is_empty() {
        return String::new();
    }
    let counted = |n: usize, one: &str, many: &str| {
        let many = fill(many, &[("count", &n.to_string())]);
        super::text::plural(n, &many, one, &many)
    };
    fill(
        s.replaced_gives_up,
        &[
            (
                "rules",
                &counted(loosened.len(), s.gives_up_rules_one, s.gives_up_rules_many),
            ),
            (
                "dropped",
                &counted(dropped.len(), s.gives_up_checks_one, s.gives_up_checks_many),
            ),
        ],
    )
}

/// The rows of [`given_up`]: `(case, check, what)`, rules first (their
/// case is `—`: a rule holds for every case).
pub fn given_up_rows(
    old: &Comparison,
    scope_run: &str,
    s: &IntegrityStrings,
) -> Vec<(String, String, String)> {
    let (loosened, dropped) = given_up(old);
    let mut out: Vec<(String, String, String)> = loosened
        .into_iter()
        .map(|r| {
            (
                "—".to_string(),
                r.check.clone(),
                fill(s.detail_rule_loosened, &[("rule", &rule_detail(r, s))]),
            )
        })
        .collect();
    out.extend(dropped.into_iter().map(|d| {
        (
            case_field(d, scope_run).to_string(),
            d.assertion.to_string(),
            s.detail_dropped.to_string(),
        )
    }));
    out
}

/// One line of what the pull request changes about the evaluation:
/// `[target] url changed (the value is withheld)`, `[suite] samples: 3 → 1
/// · loosened`, `case opening-hours: expected, vars changed`.
pub fn evaluation_line(c: &EvalChange, s: &IntegrityStrings) -> String {
    let what = match &c.subject {
        Subject::Suite(key) => format!("[suite] {key}"),
        Subject::Target(key) => format!("[target] {key}"),
        Subject::Case(_) => String::new(),
        Subject::StoreRoot => s.eval_store_root.to_string(),
        Subject::SuiteFile => s.eval_suite_file.to_string(),
        Subject::AnchorsFile => s.eval_anchors_file.to_string(),
    };
    let mut line = match (&c.subject, c.change) {
        (Subject::Case(id), Change::Added) => fill(s.eval_case_added, &[("id", id)]),
        (Subject::Case(id), Change::Removed) => fill(s.eval_case_removed, &[("id", id)]),
        (Subject::Case(id), Change::Edited) => fill(
            s.eval_case_edited,
            &[("id", id), ("fields", &c.fields.join(", "))],
        ),
        (_, Change::Added) if c.withheld => fill(s.eval_added, &[("what", &what)]),
        (_, Change::Removed) if c.withheld => fill(s.eval_removed, &[("what", &what)]),
        _ if c.withheld => fill(s.eval_withheld, &[("what", &what)]),
        _ => fill(
            s.eval_values,
            &[
                ("what", &what),
                ("before", c.before.as_deref().unwrap_or("—")),
                ("after", c.after.as_deref().unwrap_or("—")),
            ],
        ),
    };
    if let Some(direction) = c.direction {
        line.push_str(SUMMARY_SEPARATOR);
        line.push_str(match direction {
            Direction::Loosened => s.loosened,
            Direction::Tightened => s.tightened,
        });
    }
    line
}

/// One knob of the pull request's suite, not verified against the base:
/// `[suite] false_alarm_rate = 1e-9 · not verified against the base`.
pub fn knob_line(k: &Knob, s: &IntegrityStrings) -> String {
    fill(s.knob_unverified, &[("what", &k.what), ("value", &k.value)])
}

/// The headline's first clause when passing reference verdicts are absent
/// from the run; empty otherwise.
pub fn uncovered_clause(count: usize, s: &IntegrityStrings) -> String {
    match count {
        0 => String::new(),
        1 => s.uncovered_one.to_string(),
        n => fill(s.uncovered_many, &[("count", &n.to_string())]),
    }
}

/// The clause that stands for "the suite is unchanged" when the set of
/// verdicts differs from the reference.
pub fn differs_clause(comparison: &Comparison, s: &IntegrityStrings) -> String {
    let counts = comparison.counts();
    fill(
        s.coverage_differs,
        &[
            ("missing", &counts.get(Outcome::Missing).to_string()),
            ("new", &counts.get(Outcome::New).to_string()),
        ],
    )
}

/// The case field of a row (`run` for a run-level measure, as the locale says it).
fn case_field<'a>(d: &'a Delta, scope_run: &'a str) -> &'a str {
    match d.key.scope {
        Scope::Case => d.key.case_id.as_str(),
        Scope::Run => scope_run,
    }
}

/// The reference verdicts absent from the run, in listing order.
pub fn not_in_run(comparison: &Comparison) -> Vec<&Delta> {
    comparison
        .listed()
        .filter(|d| d.outcome == Outcome::Missing)
        .collect()
}

/// The verdicts new in the run, in listing order.
pub fn new_in_run(comparison: &Comparison) -> Vec<&Delta> {
    comparison
        .listed()
        .filter(|d| d.outcome == Outcome::New)
        .collect()
}

/// `check · threshold 0.800000 → 0.500000 · loosened`.
pub fn rule_line(change: &RuleChange, s: &IntegrityStrings) -> String {
    format!(
        "{}{SUMMARY_SEPARATOR}{}",
        change.check,
        rule_detail(change, s)
    )
}

/// `threshold 0.800000 → 0.500000 · loosened` (what moved, without the check).
pub fn rule_detail(change: &RuleChange, s: &IntegrityStrings) -> String {
    let template = match change.field {
        RuleField::Threshold => s.rule_threshold,
        RuleField::Tolerance => s.rule_tolerance,
        RuleField::Parameters => s.rule_parameters,
    };
    let mut what = match &change.parameter {
        // A parameter spelled out from the base's suite file: its key is
        // the suite's own word, the same in every locale.
        Some(key) => format!("{key} {} → {}", change.before, change.after),
        None => fill(
            template,
            &[("before", &change.before), ("after", &change.after)],
        ),
    };
    if let Some(direction) = change.direction {
        what.push_str(SUMMARY_SEPARATOR);
        what.push_str(direction_word(direction, s));
    }
    what
}

/// `loosened` or `tightened`, in the locale.
pub fn direction_word(direction: Direction, s: &IntegrityStrings) -> &'static str {
    match direction {
        Direction::Loosened => s.loosened,
        Direction::Tightened => s.tightened,
    }
}

/// `case · check · in the reference, not in this run` (or `… new`).
pub fn coverage_line(d: &Delta, scope_run: &str, s: &IntegrityStrings) -> String {
    let detail = if d.outcome == Outcome::New {
        s.detail_new_in_run
    } else {
        s.detail_not_in_run
    };
    [case_field(d, scope_run), d.assertion.as_str(), detail].join(SUMMARY_SEPARATOR)
}

/// The terminal blocks: rule changes, then the reference verdicts absent
/// from the run, then the new ones — each a title line and its rows (at
/// most [`SUMMARY_LIMIT`], then how many were left out). Empty when there
/// is nothing to say.
pub fn terminal_blocks(
    comparison: &Comparison,
    scope_run: &str,
    truncated: &str,
    s: &IntegrityStrings,
) -> String {
    let mut out = String::new();
    let mut block = |title: &str, rows: Vec<String>, indent: &str| {
        if rows.is_empty() {
            return;
        }
        out.push('\n');
        out.push_str(title);
        out.push_str(":\n");
        let shown = rows.len().min(SUMMARY_LIMIT);
        for row in &rows[..shown] {
            out.push_str(indent);
            out.push_str(row);
            out.push('\n');
        }
        if shown < rows.len() {
            out.push_str(&fill(
                truncated,
                &[
                    ("shown", &shown.to_string()),
                    ("total", &rows.len().to_string()),
                ],
            ));
            out.push('\n');
        }
    };
    block(
        s.title_evaluation,
        comparison
            .evaluation_changes
            .iter()
            .map(|c| evaluation_line(c, s))
            .collect(),
        "  ",
    );
    block(
        s.title_unverified,
        comparison
            .unverified_knobs
            .iter()
            .map(|k| knob_line(k, s))
            .collect(),
        "  ",
    );
    block(
        s.title_rules,
        comparison
            .rule_changes
            .iter()
            .map(|c| rule_line(c, s))
            .collect(),
        "  ",
    );
    block(
        s.title_not_in_run,
        not_in_run(comparison)
            .into_iter()
            .map(|d| coverage_line(d, scope_run, s))
            .collect(),
        "",
    );
    block(
        s.title_new_in_run,
        new_in_run(comparison)
            .into_iter()
            .map(|d| coverage_line(d, scope_run, s))
            .collect(),
        "",
    );
    out
}

/// The stderr hint when the reference is not covered; empty otherwise.
pub fn uncovered_hint(comparison: &Comparison, s: &IntegrityStrings) -> String {
    if comparison.uncovered_passes == 0 {
        return String::new();
    }
    format!("(hint: {})\n", s.hint_uncovered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_locale_has_every_integrity_string() {
        for locale in Locale::ALL {
            let s = IntegrityStrings::of(locale);
            for text in [
                s.uncovered_one,
                s.uncovered_many,
                s.coverage_differs,
                s.replaced,
                s.title_rules,
                s.detail_not_in_run,
                s.loosened,
                s.hint_uncovered,
                s.title_unverified,
                s.knob_unverified,
            ] {
                assert!(!text.is_empty(), "{locale}");
            }
            if locale != Locale::En {
                assert_ne!(
                    s.title_rules,
                    IntegrityStrings::of(Locale::En).title_rules,
                    "{locale} is translated"
                );
                assert_ne!(
                    s.knob_unverified,
                    IntegrityStrings::of(Locale::En).knob_unverified,
                    "{locale} is translated"
                );
            }
        }
    }
}
