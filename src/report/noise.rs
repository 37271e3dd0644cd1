//! What a reviewer reads about re-asked checks: the ones that wobbled
//! within their measured noise and the ones the re-asks could not decide,
//! each as case · check · reference k/N · now j/m · p — apart from what
//! got worse. Counts and names only, never payload. Pure.

use crate::core::compare::power::Power;
use crate::core::compare::reask::{PairDecision, PairVerdict};
use crate::core::compare::Comparison;

use super::text::{fill, Strings};

/// One listed row: case, check, evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoiseRow {
    /// The case id.
    pub case: String,
    /// The check's name.
    pub check: String,
    /// `reference 5/5 · now 2/3 · p = 0.0152`.
    pub detail: String,
}

/// The listed groups, in order (wobbled, then undecided), each with its
/// title; a group without a row is left out.
pub fn noise_groups(comparison: &Comparison, s: &Strings) -> Vec<(String, Vec<NoiseRow>)> {
    [
        (PairVerdict::Noise, s.title_wobbled),
        (PairVerdict::Undecided, s.title_undecided),
    ]
    .into_iter()
    .map(|(verdict, title)| {
        let rows: Vec<NoiseRow> = comparison.reasked_as(verdict).map(|d| row(d, s)).collect();
        (title.to_string(), rows)
    })
    .filter(|(_, rows)| !rows.is_empty())
    .collect()
}

fn row(d: &PairDecision, s: &Strings) -> NoiseRow {
    let e = d.evidence;
    let p = d
        .decision
        .p
        .map_or_else(|| "—".to_string(), |p| format!("{p:.4}"));
    // Undecided without a re-ask: the reference was too thin for any
    // evidence to decide it (its p-value says nothing).
    let thin = d.decision.verdict == crate::core::compare::reask::PairVerdict::Undecided
        && e.now_asked == 1
        && e.reference_samples > 1;
    NoiseRow {
        case: d.key.case_id.to_string(),
        check: d.assertion.to_string(),
        detail: fill(
            if thin {
                s.detail_thin
            } else {
                s.detail_reasked
            },
            &[
                ("k", &e.reference_passed.to_string()),
                ("n", &e.reference_samples.to_string()),
                ("j", &e.now_passed.to_string()),
                ("m", &e.now_asked.to_string()),
                ("p", &p),
            ],
        ),
    }
}

/// What the gate can see, one sentence a line: the smallest drop of a
/// case's pass rate, then each whole-run measure's (a tolerance it cannot
/// see said plainly). Empty when the reference measured no noise.
pub fn power_lines(comparison: &Comparison, s: &Strings) -> Vec<String> {
    comparison
        .power
        .as_ref()
        .map_or_else(Vec::new, |power| power_sentences(power, s))
}

/// [`power_lines`] of a [`Power`] (the gate says it before the run too).
pub fn power_sentences(power: &Power, s: &Strings) -> Vec<String> {
    let alpha = percent(power.alpha);
    let samples = power.samples.to_string();
    let mut lines = vec![match power.case_drop {
        Some(rate) if power.samples == 1 => fill(s.power_one, &[("rate", &percent(rate))]),
        Some(rate) => fill(
            s.power_case,
            &[
                ("samples", &samples),
                ("rate", &percent(rate)),
                ("alpha", &alpha),
            ],
        ),
        None => fill(
            s.power_case_none,
            &[("samples", &samples), ("alpha", &alpha)],
        ),
    }];
    for m in &power.measures {
        let drop = format!("{:.3}", m.drop);
        lines.push(if m.steady() {
            fill(
                s.power_steady,
                &[
                    ("name", &m.name),
                    ("tolerance", &format!("{}", m.tolerance)),
                ],
            )
        } else if m.tolerance_undetectable() {
            fill(
                s.power_blind,
                &[
                    ("name", &m.name),
                    ("tolerance", &format!("{}", m.tolerance)),
                    ("drop", &drop),
                ],
            )
        } else {
            fill(s.power_measure, &[("name", &m.name), ("drop", &drop)])
        });
    }
    lines
}

/// The whole-run measures compared paired, one sentence each: the
/// difference (run − reference) over the paired cases, its interval, the
/// test, and whether the drop is real.
pub fn paired_lines(comparison: &Comparison, s: &Strings) -> Vec<String> {
    comparison
        .paired_measures
        .iter()
        .map(|m| {
            let number = |x: f64| format!("{x:+.3}");
            let params = [
                ("name", m.name.clone()),
                ("difference", number(m.difference)),
                ("cases", m.cases.to_string()),
                ("low", number(m.interval.0)),
                ("high", number(m.interval.1)),
                ("p", m.p.map_or_else(String::new, |p| format!("{p:.4}"))),
                (
                    "verdict",
                    if m.real_drop {
                        s.paired_real.to_string()
                    } else {
                        String::new()
                    },
                ),
            ];
            let params: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let template = if m.p.is_some() {
                s.paired_mcnemar
            } else {
                s.paired_bootstrap
            };
            fill(template, &params)
        })
        .collect()
}

/// `5 %`, `47 %`: a share as a whole percent; below 1 %, two significant
/// digits (`0.5 %`, `0.01 %`, `0.0000001 %`): a small rate is never shown
/// as `0.0 %`.
fn percent(share: f64) -> String {
    let value = share * 100.0;
    if value >= 1.0 || value <= 0.0 || !value.is_finite() {
        return format!("{value:.0} %");
    }
    // Decimals to show the first two significant digits.
    let decimals = (1.0 - value.log10().floor()).max(1.0) as usize;
    let text = format!("{value:.decimals$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} %")
}

/// The power and the groups as terminal text: a blank line, `Title:`, then
/// one line per sentence or `case · check · detail` row; empty when the
/// reference measured no noise and nothing was re-asked.
pub fn terminal_block(comparison: &Comparison, s: &Strings) -> String {
    let mut out = String::new();
    let power = power_lines(comparison, s);
    if !power.is_empty() {
        out.push_str(&format!("\n{}:\n", s.title_power));
        for line in power {
            out.push_str(&format!("{line}\n"));
        }
    }
    let paired = paired_lines(comparison, s);
    if !paired.is_empty() {
        out.push_str(&format!("\n{}:\n", s.title_paired));
        for line in paired {
            out.push_str(&format!("{line}\n"));
        }
    }
    for (title, rows) in noise_groups(comparison, s) {
        out.push_str(&format!("\n{title}:\n"));
        for r in rows {
            out.push_str(&format!("{} · {} · {}\n", r.case, r.check, r.detail));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_rate_is_never_zero_percent() {
        assert_eq!(percent(0.05), "5 %");
        assert_eq!(percent(0.47), "47 %");
        assert_eq!(percent(0.005), "0.5 %");
        assert_eq!(percent(0.0001), "0.01 %");
        assert_eq!(percent(1e-6), "0.0001 %");
        assert_eq!(percent(1e-9), "0.0000001 %");
        assert_eq!(percent(0.00123), "0.12 %");
        assert_eq!(percent(0.0), "0 %");
    }
}
