//! Coverage of the reference and rule changes: what a comparison must say
//! beyond its outcomes so that a pull request cannot quietly loosen its own
//! verdict (spec `40-compare.md`, "decided after the first release").
//!
//! - A verdict that **passed** in the reference and is absent from the run
//!   (its case not suspended in the run) means the run did not cover what
//!   was approved: [`uncovered_passes`] counts them, and the comparison
//!   could not be judged (exit 2).
//! - [`rule_changes`] itemizes every check whose threshold or tolerance
//!   differs between the two sides of a pair, and every check whose
//!   parameters changed its identity (a `missing` and a `new` verdict of the
//!   same case with the same check name, paired in order), labelled
//!   *loosened* or *tightened* where the direction is defined.
//!
//! Pure: names, ids and numbers only — never an output or a reason.

use std::collections::{BTreeMap, BTreeSet};

use super::{Delta, Outcome, PairKey, Scope};
use crate::core::verdict::Status;

/// Which rule of a check moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleField {
    /// The bar a score must meet.
    Threshold,
    /// How far a score may move before it counts.
    Tolerance,
    /// The declared parameters (the check's identity changed).
    Parameters,
}

impl RuleField {
    /// The word printed in JSON (`threshold`, `tolerance`, `parameters`).
    pub fn as_str(self) -> &'static str {
        match self {
            RuleField::Threshold => "threshold",
            RuleField::Tolerance => "tolerance",
            RuleField::Parameters => "parameters",
        }
    }
}

/// Whether a rule change makes the check easier or harder to pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// Easier to pass: threshold down, tolerance up.
    Loosened,
    /// Harder to pass: threshold up, tolerance down.
    Tightened,
}

impl Direction {
    /// The word printed in JSON (`loosened`, `tightened`).
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Loosened => "loosened",
            Direction::Tightened => "tightened",
        }
    }
}

/// One itemized rule change: a check, what moved, before → after.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleChange {
    /// The check's reported name.
    pub check: String,
    /// What moved.
    pub field: RuleField,
    /// The reference's value: a 6-decimal number, or the old assertion id.
    pub before: String,
    /// The run's value: a 6-decimal number, or the new assertion id.
    pub after: String,
    /// Loosened or tightened; `None` where the direction is not defined
    /// (a parameter edit, which the documents do not spell out).
    pub direction: Option<Direction>,
    /// How many case · check pairs the change touches.
    pub pairs: usize,
    /// For a parameter edit spelled out from the base's `suite.toml`: the
    /// parameter's key (`maximum`), with `before`/`after` its values.
    pub parameter: Option<String>,
    /// The first pair the change was met on (for a parameter edit, the
    /// reference's verdict): where the change sorts in suite order.
    pub key: PairKey,
}

/// Counts the verdicts that passed in the reference and are absent from the
/// run, for cases the run did not suspend.
pub fn uncovered_passes(deltas: &[Delta], suspended_in_run: &BTreeSet<&str>) -> usize {
    deltas
        .iter()
        .filter(|d| is_uncovered_pass(d, suspended_in_run))
        .count()
}

/// True for a `missing` delta whose reference verdict passed, outside a
/// case the run suspended.
pub fn is_uncovered_pass(d: &Delta, suspended_in_run: &BTreeSet<&str>) -> bool {
    d.outcome == Outcome::Missing
        && d.before.as_ref().is_some_and(|b| b.status == Status::Pass)
        && !(d.key.scope == Scope::Case && suspended_in_run.contains(d.key.case_id.as_str()))
}

/// Every rule change, deduplicated per (check, field, before, after), in
/// the order first met in `deltas`.
pub fn rule_changes(deltas: &[Delta]) -> Vec<RuleChange> {
    let mut out: Vec<RuleChange> = Vec::new();
    let mut add = |change: RuleChange| match out.iter_mut().find(|c| {
        c.check == change.check
            && c.field == change.field
            && c.before == change.before
            && c.after == change.after
    }) {
        Some(seen) => seen.pairs += 1,
        None => out.push(change),
    };
    for d in deltas {
        let (Some(b), Some(a)) = (&d.before, &d.after) else {
            continue;
        };
        // A lower threshold or a wider tolerance lets more through.
        let bounds = [
            bound_moved(
                d,
                RuleField::Threshold,
                (b.threshold, a.threshold),
                a.threshold < b.threshold,
            ),
            bound_moved(
                d,
                RuleField::Tolerance,
                (b.tolerance, a.tolerance),
                a.tolerance > b.tolerance,
            ),
        ];
        for change in bounds.into_iter().flatten() {
            add(change);
        }
    }
    // A parameter edit changes the check's id: its verdicts become missing
    // on one side and new on the other. Pair them per (scope, case, name),
    // in order, so the edit is named instead of two unrelated lists.
    type Slot<'a> = (Scope, &'a str, &'a str);
    let mut missing: BTreeMap<Slot<'_>, Vec<&Delta>> = BTreeMap::new();
    let mut new: BTreeMap<Slot<'_>, Vec<&Delta>> = BTreeMap::new();
    for d in deltas {
        let slot = (d.key.scope, d.key.case_id.as_str(), d.assertion.as_str());
        match d.outcome {
            Outcome::Missing => missing.entry(slot).or_default().push(d),
            Outcome::New => new.entry(slot).or_default().push(d),
            _ => {}
        }
    }
    for d in deltas.iter().filter(|d| d.outcome == Outcome::Missing) {
        let slot = (d.key.scope, d.key.case_id.as_str(), d.assertion.as_str());
        let (Some(gone), Some(came)) = (missing.get(&slot), new.get(&slot)) else {
            continue;
        };
        let Some(i) = gone.iter().position(|g| std::ptr::eq(*g, d)) else {
            continue;
        };
        let Some(replacement) = came.get(i) else {
            continue;
        };
        if replacement.key.assertion_id == d.key.assertion_id {
            continue;
        }
        add(RuleChange {
            check: d.assertion.to_string(),
            field: RuleField::Parameters,
            before: d.key.assertion_id.to_string(),
            after: replacement.key.assertion_id.to_string(),
            direction: None,
            pairs: 1,
            parameter: None,
            key: d.key.clone(),
        });
    }
    out
}

/// The longest parameter value shown; longer ones are cut with `…`.
pub const PARAMETER_VALUE_LIMIT: usize = 60;

/// One declared check of a suite file: its reported name and its
/// parameters (key → value as TOML writes it), without `name` and `type`.
pub type DeclaredCheck = (String, BTreeMap<String, String>);

/// Replaces each parameter edit (check id a → b) whose check is declared
/// once with that name on both sides by one change per parameter that
/// differs: `maximum 40 → 50`, *loosened* where the direction is defined
/// ([`parameter_direction`]). Edits that cannot be matched stay as they are.
pub fn spell_parameters(
    changes: Vec<RuleChange>,
    before: &[DeclaredCheck],
    after: &[DeclaredCheck],
) -> Vec<RuleChange> {
    let only = |checks: &'_ [DeclaredCheck], name: &str| -> Option<BTreeMap<String, String>> {
        let mut found = checks.iter().filter(|(n, _)| n == name);
        match (found.next(), found.next()) {
            (Some((_, params)), None) => Some(params.clone()),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for change in changes {
        if change.field != RuleField::Parameters || change.parameter.is_some() {
            out.push(change);
            continue;
        }
        let (Some(old), Some(new)) = (only(before, &change.check), only(after, &change.check))
        else {
            out.push(change);
            continue;
        };
        let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        let spelled: Vec<RuleChange> = keys
            .into_iter()
            .filter(|k| old.get(*k) != new.get(*k))
            .map(|k| {
                let was = old.get(k).map_or("—".to_string(), |v| cut(v));
                let is = new.get(k).map_or("—".to_string(), |v| cut(v));
                RuleChange {
                    check: change.check.clone(),
                    field: RuleField::Parameters,
                    direction: parameter_direction(k, old.get(k), new.get(k)),
                    before: was,
                    after: is,
                    pairs: change.pairs,
                    parameter: Some(k.clone()),
                    key: change.key.clone(),
                }
            })
            .collect();
        if spelled.is_empty() {
            out.push(change);
        } else {
            out.extend(spelled);
        }
    }
    out
}

/// Loosened or tightened for the parameters whose direction is defined:
/// `maximum`/`max_*` up, `minimum`/`min_*` down, `threshold` down,
/// `tolerance` up are loosened; `None` for any other key or a value that
/// is not a number on both sides.
pub fn parameter_direction(
    key: &str,
    before: Option<&String>,
    after: Option<&String>,
) -> Option<Direction> {
    let before: f64 = before?.parse().ok()?;
    let after: f64 = after?.parse().ok()?;
    if before == after {
        return None;
    }
    let up_loosens = if key == "maximum" || key.starts_with("max_") || key == "tolerance" {
        true
    } else if key == "minimum" || key.starts_with("min_") || key == "threshold" {
        false
    } else {
        return None;
    };
    Some(if (after > before) == up_loosens {
        Direction::Loosened
    } else {
        Direction::Tightened
    })
}

/// `value` cut to [`PARAMETER_VALUE_LIMIT`] characters, `…` marking a cut.
fn cut(value: &str) -> String {
    if value.chars().count() <= PARAMETER_VALUE_LIMIT {
        return value.to_string();
    }
    let mut out: String = value.chars().take(PARAMETER_VALUE_LIMIT).collect();
    out.push('…');
    out
}

/// The change of a numeric bound of `d`'s check (`field`, `(before,
/// after)`) when it moved at 6 decimals; `loosened` says which way.
fn bound_moved(
    d: &Delta,
    field: RuleField,
    (before, after): (f64, f64),
    loosened: bool,
) -> Option<RuleChange> {
    (fmt6(before) != fmt6(after)).then(|| RuleChange {
        check: d.assertion.to_string(),
        field,
        before: fmt6(before),
        after: fmt6(after),
        direction: Some(if loosened {
            Direction::Loosened
        } else {
            Direction::Tightened
        }),
        pairs: 1,
        parameter: None,
        key: d.key.clone(),
    })
}

fn fmt6(value: f64) -> String {
    format!("{value:.6}")
}
