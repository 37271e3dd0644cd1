//! The words and lines of coverage, rule changes and a replaced reference,
//! shared by the terminal text, the comment, the job summary and the HTML
//! report: the `[integrity]` table of `templates/locales/<code>.toml`.
//!
//! Pure: built from a [`Comparison`]'s names, ids and numbers only.

use crate::core::compare::{Comparison, Delta, Direction, Outcome, RuleChange, RuleField, Scope};

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
            ] {
                assert!(!text.is_empty(), "{locale}");
            }
            if locale != Locale::En {
                assert_ne!(
                    s.title_rules,
                    IntegrityStrings::of(Locale::En).title_rules,
                    "{locale} is translated"
                );
            }
        }
    }
}
