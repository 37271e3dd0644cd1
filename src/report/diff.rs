//! The text of `digline diff`: two runs, neither a reference, no verdict.
//!
//! English wording of digline 0.10.0's diff report: a line per run (its
//! label, its key when the label is not the key, its environment), what
//! differs about the systems and the files under test, the sentence of
//! counts, then one `<case> · <check> · <what the two runs said>` line per
//! differing check, in suite order. No word suggests a direction of travel: a difference
//! *favours* a run. Pure: no I/O.

use crate::core::compare::{ArtifactOutcome, ConfigOutcome, Scope};
use crate::core::diff::{CheckDifference, DiffOutcome, Difference, Interval};
use crate::core::verdict::Status;

use super::order::SuiteOrder;
use super::text::{diff_tally, fmt_score, fmt_value};

/// Between the fields of a summary line.
const SEP: &str = " · ";
/// At most this many summary lines, then a line saying how many were left out.
pub const SUMMARY_LIMIT: usize = 20;

/// `2026-09-04T09:12:33+00:00` → `2026-09-04 09:12` (or `…09:12:33` with
/// `seconds`); anything not shaped like that comes back untouched.
pub fn when(created_at: &str, seconds: bool) -> String {
    let Some((date, rest)) = created_at.split_once('T') else {
        return created_at.to_string();
    };
    let rest: Vec<char> = rest.chars().collect();
    if date.chars().count() != 10 || rest.len() < 5 {
        return created_at.to_string();
    }
    let take = if seconds && rest.len() >= 8 { 8 } else { 5 };
    format!("{date} {}", rest[..take].iter().collect::<String>())
}

/// A label per run at the coarsest resolution that tells them apart:
/// minutes, then seconds, then the full keys.
pub fn run_labels(
    left_created: &str,
    right_created: &str,
    left_key: &str,
    right_key: &str,
) -> (String, String) {
    for seconds in [false, true] {
        let (l, r) = (when(left_created, seconds), when(right_created, seconds));
        if l != r {
            return (l, r);
        }
    }
    (left_key.to_string(), right_key.to_string())
}

fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        one.to_string()
    } else {
        many.replace("{count}", &count.to_string())
    }
}

/// The sentence of counts, and — where both sides measured intervals — how
/// many advantages exceed both runs' observed intervals.
pub fn sentence(d: &Difference, labels: (&str, &str)) -> String {
    let c = d.counts();
    let (left, right) = labels;
    let head = if c.differing == 0 {
        format!("No check differs, out of {}.", c.total)
    } else {
        let mut parts = Vec::new();
        if c.favours_left > 0 {
            parts.push(
                plural(c.favours_left, "1 favours {run}", "{count} favour {run}")
                    .replace("{run}", left),
            );
        }
        if c.favours_right > 0 {
            parts.push(
                plural(c.favours_right, "1 favours {run}", "{count} favour {run}")
                    .replace("{run}", right),
            );
        }
        let one_side = c.only_left + c.only_right;
        if one_side > 0 {
            parts.push(plural(
                one_side,
                "1 present in only one run",
                "{count} present in only one run",
            ));
        }
        if c.errored > 0 {
            parts.push(plural(
                c.errored,
                "1 could not be judged",
                "{count} could not be judged",
            ));
        }
        if c.within_tolerance > 0 {
            parts.push(plural(
                c.within_tolerance,
                "1 within tolerance",
                "{count} within tolerance",
            ));
        }
        if c.differing == 1 {
            format!("1 of {} checks differs: {}.", c.total, parts.join(", "))
        } else {
            format!(
                "{} of {} checks differ: {}.",
                c.differing,
                c.total,
                parts.join(", ")
            )
        }
    };
    let mut out = vec![head];
    if c.interval_pairs > 0 {
        for (count, label) in [(c.left_exceeds, left), (c.right_exceeds, right)] {
            if count > 0 {
                out.push(
                    plural(
                        count,
                        "1 of {run}'s advantages exceeds both runs' observed intervals.",
                        "{count} of {run}'s advantages exceed both runs' observed intervals.",
                    )
                    .replace("{run}", label),
                );
            }
        }
    }
    out.join(" ")
}

/// What differs about the two systems and their files, before the scores.
pub fn header_lines(d: &Difference, labels: (&str, &str)) -> Vec<String> {
    let mut lines = Vec::new();
    let deltas = &d.target_config_deltas;
    if !deltas.is_empty() {
        let changed: Vec<String> = deltas
            .iter()
            .filter(|x| {
                matches!(
                    x.outcome,
                    ConfigOutcome::Changed | ConfigOutcome::New | ConfigOutcome::Missing
                )
            })
            .map(|x| {
                format!(
                    "{} {} vs {}",
                    x.field,
                    fmt_value(&x.before),
                    fmt_value(&x.after)
                )
            })
            .collect();
        lines.push(if !changed.is_empty() {
            format!("The systems differ: {}.", changed.join(", "))
        } else if deltas.iter().all(|x| x.outcome == ConfigOutcome::Unknown) {
            "The configuration is not recorded on both sides, so whether the systems differ is not known.".to_string()
        } else {
            "The two runs answered under the same recorded configuration.".to_string()
        });
    }
    let files = &d.artifact_deltas;
    if !files.is_empty() {
        if files.iter().any(|f| f.withheld) {
            lines.push(
                "The files under test are not included, so whether they differ is not known."
                    .to_string(),
            );
        } else {
            let differing: Vec<_> = files
                .iter()
                .filter(|f| !matches!(f.outcome, ArtifactOutcome::Same | ArtifactOutcome::Unknown))
                .collect();
            if differing.is_empty() {
                lines.push("The files under test are the same in both runs.".to_string());
            } else {
                lines.push(plural(
                    differing.len(),
                    "1 file under test differs between the two runs.",
                    "{count} files under test differ between the two runs.",
                ));
                for f in differing {
                    let detail = match f.outcome {
                        ArtifactOutcome::New => format!("declared in {} only", labels.1),
                        ArtifactOutcome::Missing => format!("declared in {} only", labels.0),
                        _ => match diff_tally(f) {
                            (0, 0) => "differs".to_string(),
                            (added, removed) => format!("+{added} −{removed} lines"),
                        },
                    };
                    lines.push(format!("{}{SEP}{detail}", f.path));
                }
            }
        }
    }
    if !d.judges.is_empty() {
        lines.push(format!("Both runs were graded by {}.", d.judges.join(", ")));
    }
    lines
}

fn interval(i: &Interval) -> String {
    format!(
        "{}–{} across {} samples",
        fmt_score(i.min),
        fmt_score(i.max),
        i.samples
    )
}

/// What the two runs said about one check.
pub fn detail(c: &CheckDifference, labels: (&str, &str)) -> String {
    let (left, right) = labels;
    match (c.outcome, c.left, c.right) {
        (DiffOutcome::OnlyLeft, ..) => format!("Checked in {left} only."),
        (DiffOutcome::OnlyRight, ..) => format!("Checked in {right} only."),
        (DiffOutcome::Errored, Some((ls, _)), Some((rs, _))) => {
            match (ls == Status::Error, rs == Status::Error) {
                (true, true) => "The check could not run in either run.".to_string(),
                (true, false) => format!("The check could not run in {left}."),
                _ => format!("The check could not run in {right}."),
            }
        }
        (_, Some((_, Some(ls))), Some((rs_status, Some(rs)))) => {
            let mut text = format!("{left} {}, {right} {}.", fmt_score(ls), fmt_score(rs));
            if c.flipped {
                let (pass, fail) = if rs_status == Status::Pass {
                    (right, left)
                } else {
                    (left, right)
                };
                text.push_str(&format!(" {pass} passes this check and {fail} does not."));
                return text;
            }
            if c.outcome == DiffOutcome::Same {
                text.push_str(&format!(
                    " Within the declared tolerance {}.",
                    fmt_score(c.tolerance)
                ));
            }
            if let (Some(li), Some(ri)) = (&c.left_interval, &c.right_interval) {
                if c.intervals_overlap {
                    text.push_str(&format!(
                        " Observed intervals {} and {} overlap, so these two are not distinguishable by this check.",
                        interval(li),
                        interval(ri)
                    ));
                } else if c.intervals_disjoint {
                    text.push_str(&format!(
                        " Observed intervals {} and {} do not overlap.",
                        interval(li),
                        interval(ri)
                    ));
                }
            }
            text
        }
        _ => "The check could not run in either run.".to_string(),
    }
}

/// One line per differing check, in suite order ([`SuiteOrder`]: cases as
/// `order`'s runs list them, checks as declared, whole-run measures last),
/// at most `limit`, with a last line saying how many were left out.
/// (digline 0.10.0 grouped the lines by outcome and sorted them by name;
/// the counts sentence above still says how many of each there are.)
pub fn summary_lines(
    d: &Difference,
    order: &SuiteOrder<'_>,
    labels: (&str, &str),
    limit: Option<usize>,
) -> Vec<String> {
    let mut chosen: Vec<&CheckDifference> = d.checks.iter().filter(|c| c.differs()).collect();
    chosen
        .sort_by_cached_key(|c| order.position(c.scope, &c.case_id, &c.assertion_id, c.occurrence));
    let shown = limit.map_or(chosen.len(), |n| n.min(chosen.len()));
    let mut lines: Vec<String> = chosen[..shown]
        .iter()
        .map(|c| {
            let case = if c.scope == Scope::Case {
                c.case_id.as_str()
            } else {
                "whole run"
            };
            format!("{case}{SEP}{}{SEP}{}", c.assertion, detail(c, labels))
        })
        .collect();
    if shown < chosen.len() {
        lines.push(format!(
            "showing the first {shown} of {}; the full list is in the report",
            chosen.len()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_escalate_from_minutes_to_seconds_to_keys() {
        let rows: &[(&str, &str, (&str, &str))] = &[
            (
                "2026-09-04T09:12:33+00:00",
                "2026-09-04T10:12:33+00:00",
                ("2026-09-04 09:12", "2026-09-04 10:12"),
            ),
            (
                "2026-09-04T09:12:33.1+00:00",
                "2026-09-04T09:12:34.1+00:00",
                ("2026-09-04 09:12:33", "2026-09-04 09:12:34"),
            ),
            (
                "2026-09-04T09:12:33.1+00:00",
                "2026-09-04T09:12:33.2+00:00",
                ("k1", "k2"),
            ),
            ("odd", "odd2", ("odd", "odd2")),
        ];
        for (l, r, want) in rows {
            let (a, b) = run_labels(l, r, "k1", "k2");
            assert_eq!((a.as_str(), b.as_str()), *want, "{l} {r}");
        }
        assert_eq!(when("2026-09-04TÉ", false), "2026-09-04TÉ");
    }
}
