//! What the gate says of its judges, read on their anchors
//! (`core::anchors::JudgeReading`): the lead sentences of the judges whose
//! checks cannot gate, one line per judge for the terminal, the comment
//! and the summary (the `judges` objects of `outcome.json` and `--json`
//! are `wire::compare::judges_json`).
//!
//! Pure: counts, shares, p-values, identity field names and the check's
//! name and coordinate only — never an anchor's answer, vars or context,
//! nor a judge's reason.

use super::locale::Locale;
use super::text::fill;
use crate::core::anchors::{Drift, JudgeReading, Reading};

/// A share as a whole percentage, signed when `signed`: `-50 %`, `+10 %`.
fn percent(share: f64, signed: bool) -> String {
    let points = (share * 100.0).round();
    if signed && points > 0.0 {
        format!("+{points:.0} %")
    } else {
        format!("{:.0} %", if points == 0.0 { 0.0 } else { points })
    }
}

/// A p-value: four decimals, or `< 0.0001`.
fn p_value(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".to_string()
    } else {
        format!("{p:.4}")
    }
}

/// The sentence saying what `reading` found, in `locale`; `rerun` is the
/// command that re-measures the reference with the judge as it is now.
pub fn sentence(reading: &JudgeReading, locale: Locale, rerun: &str) -> String {
    let drift = &reading.drift;
    let t = |key: &str| locale.text(key);
    let anchors = drift.anchors.to_string();
    let fields = drift.changed.join(", ");
    let base: [(&'static str, &str); 3] = [
        ("check", &reading.check),
        ("coordinate", &reading.coordinate),
        ("anchors", &anchors),
    ];
    let with = |extra: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
        base.iter()
            .chain(extra.iter())
            .map(|(k, v)| (*k, v.to_string()))
            .collect()
    };
    let filled = |key: &str, params: Vec<(&str, String)>| {
        let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        fill(t(key), &refs)
    };
    match drift.reading {
        Reading::Moved => {
            let identity = if fields.is_empty() {
                String::new()
            } else {
                fill(t("gate.judge_identity"), &[("fields", &fields)])
            };
            let moved = filled(
                "gate.judge_moved",
                with(&[
                    ("lost", &drift.lost.to_string()),
                    ("gained", &drift.gained.to_string()),
                    ("shift", &percent(drift.shift, true)),
                    ("low", &percent(drift.moved.low, false)),
                    ("high", &percent(drift.moved.high, false)),
                    ("p", &p_value(drift.p)),
                    ("identity", &identity),
                ]),
            );
            format!(
                "{moved} {}",
                fill(t("gate.judge_rerun"), &[("command", rerun)])
            )
        }
        Reading::Unproven => {
            let kappa = drift.agreement.and_then(|a| a.kappa).map_or_else(
                || t("gate.judge_kappa_none").to_string(),
                |k| {
                    fill(
                        t("gate.judge_kappa"),
                        &[
                            ("kappa", &format!("{:.3}", k.kappa)),
                            ("low", &format!("{:.3}", k.low)),
                        ],
                    )
                },
            );
            let labels = drift.labels_needed.map_or_else(
                || t("gate.judge_labels_none").to_string(),
                |n| fill(t("gate.judge_labels"), &[("count", &n.to_string())]),
            );
            let floor = drift_floor(drift);
            filled(
                "gate.judge_unproven",
                with(&[("kappa", &kappa), ("labels", &labels), ("floor", &floor)]),
            )
        }
        Reading::Unanchored => {
            let unanchored = filled(
                "gate.judge_unanchored",
                with(&[("expected", &drift.expected.to_string())]),
            );
            format!(
                "{unanchored} {}",
                fill(t("gate.judge_rerun"), &[("command", rerun)])
            )
        }
        Reading::Renamed => filled("gate.judge_renamed", with(&[("fields", &fields)])),
        Reading::Steady => {
            let seen = drift.detectable.map_or_else(
                || t("gate.judge_detectable_none").to_string(),
                |d| fill(t("gate.judge_detectable"), &[("shift", &percent(d, false))]),
            );
            filled("gate.judge_steady", with(&[("detectable", &seen)]))
        }
    }
}

/// The floor a reading was held to, as written (`min_judge_kappa`);
/// empty when none was.
fn drift_floor(drift: &Drift) -> String {
    drift.floor.map(|f| format!("{f}")).unwrap_or_default()
}

/// The lead of a gate some of whose judges cannot gate: their sentences,
/// in check order; empty when every judge gates.
pub fn lead(readings: &[JudgeReading], locale: Locale, rerun: &str) -> String {
    readings
        .iter()
        .filter(|r| !r.drift.reading.gates())
        .map(|r| sentence(r, locale, rerun))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The report's block: the same lines under the same title, escaped
/// (safe HTML); empty without a judge read.
pub fn html(readings: &[JudgeReading], locale: Locale, rerun: &str) -> String {
    if readings.is_empty() {
        return String::new();
    }
    let mut out = String::from("<section class=\"block judges\">\n<h2>");
    super::escape::push_html(&mut out, locale.text("gate.judge_title"));
    out.push_str("</h2>\n<ul>\n");
    for line in lines(readings, locale, rerun) {
        out.push_str("<li>");
        super::escape::push_html(&mut out, &line);
        out.push_str("</li>\n");
    }
    out.push_str("</ul>\n</section>\n");
    out
}

/// One line per judge, in check order.
pub fn lines(readings: &[JudgeReading], locale: Locale, rerun: &str) -> Vec<String> {
    readings
        .iter()
        .map(|r| sentence(r, locale, rerun))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::anchors::{Label, Regraded};

    fn reading(
        graded: &[Regraded],
        changed: Vec<&'static str>,
        floor: Option<f64>,
    ) -> JudgeReading {
        JudgeReading {
            check: "polite".into(),
            assertion_id: "0123456789abcdef".into(),
            coordinate: "openai/gpt-4o".into(),
            reference_coordinate: "openai/gpt-4o".into(),
            drift: Drift::measure(graded, changed, 0.05, floor),
        }
    }

    fn same(n: usize, passed: bool, label: Option<Label>) -> Vec<Regraded> {
        vec![
            Regraded {
                reference: passed,
                now: passed,
                label,
            };
            n
        ]
    }

    const RERUN: &str = "digline run --suite suite.toml --judge-memo off";

    #[test]
    fn each_reading_is_said_in_full() {
        let mut moved = same(4, true, None);
        moved.push(Regraded {
            reference: true,
            now: false,
            label: None,
        });
        let moved = reading(&moved, vec!["answered_model"], None);
        assert_eq!(
            sentence(&moved, Locale::En, RERUN),
            "The judge of polite (openai/gpt-4o) changed: of its 5 anchors, 1 that passed in the \
             reference fail now and 0 that failed pass (shift -20 %; 1 % to 72 % of the anchors \
             moved; McNemar p = 1.0000); its identity changed: answered_model. Its checks could \
             not be judged — the judge changed — so what they show as worse is not counted. \
             Re-measure the reference with the judge as it is now: digline run --suite \
             suite.toml --judge-memo off, then a person promotes that run."
        );
        assert_eq!(
            lead(std::slice::from_ref(&moved), Locale::En, RERUN),
            sentence(&moved, Locale::En, RERUN)
        );
        let steady = reading(&same(5, true, None), Vec::new(), None);
        assert_eq!(
            sentence(&steady, Locale::En, RERUN),
            "The judge of polite (openai/gpt-4o) held on its 5 anchors: too few anchors to see \
             any shift."
        );
        assert_eq!(lead(&[steady], Locale::En, RERUN), "");
        // 40 labelled anchors, people and judge agreeing on all but 4:
        // κ = 0.8, its lower bound under a 0.7 floor; more labels decide.
        let mut labelled = same(18, true, Some(Label::Pass));
        labelled.extend(same(18, false, Some(Label::Fail)));
        labelled.extend(same(2, true, Some(Label::Fail)));
        labelled.extend(same(2, false, Some(Label::Pass)));
        let unproven = reading(&labelled, Vec::new(), Some(0.7));
        assert_eq!(
            sentence(&unproven, Locale::En, RERUN),
            "The judge of polite (openai/gpt-4o) is not shown to agree with people as \
             min_judge_kappa = 0.7 asks (κ = 0.800, lower bound 0.614; about 139 labelled \
             anchors in all would decide). Its checks cannot gate."
        );
        let renamed = reading(
            &same(5, true, None),
            vec!["requested_model", "endpoint"],
            None,
        );
        assert_eq!(
            sentence(&renamed, Locale::En, RERUN),
            "The judge of polite (openai/gpt-4o) changed its identity (requested_model, \
             endpoint), and its 5 anchors all graded as before: a rename, not drift; its checks \
             gate on."
        );
    }
}
