//! The base branch's history as people read it: a strip and a sentence per
//! flagged check for the comment, the history's own lines (how many gates,
//! lines skipped, a lucky reference), and the report's charts — inline SVG,
//! no script, each with a title and a text table beside it.
//!
//! Worded as history, never as a verdict: nothing here changes an exit code.
//! Names, counts, rates and dates only (`core::history` keeps no payload).
//!
//! Pure.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::core::compare::reask::PairDecision;
use crate::core::history::{History, Lucky};
use crate::core::stats::wilson;

use super::escape;
use super::locale::Locale;
use super::text::fill;

/// What the comment says of the history: a cell per flagged (case, check),
/// and the lines of its own section.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistoryNote {
    /// Per (case, check): the strip and its words.
    pub cells: HashMap<(String, String), String>,
    /// The history section's lines (gates read, lines skipped, not read).
    pub lines: Vec<String>,
    /// The lucky references, one line each.
    pub lucky: Vec<String>,
}

/// The words of one flagged check's history: `▇▇▁▇ passed in 3 of the last 4 gates …`.
pub fn cell(h: &History, case: &str, check: &str, locale: Locale) -> Option<String> {
    let p = h.pair(case, check)?;
    let (passed, gates) = p.passed_of();
    let values = [
        ("strip", p.strip()),
        ("passed", passed.to_string()),
        ("gates", gates.to_string()),
        ("date", p.first_failed.clone().unwrap_or_default()),
    ];
    let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let key = if p.first_failed.is_some() {
        "history.cell_first"
    } else {
        "history.cell"
    };
    Some(fill(locale.text(key), &values))
}

/// The comment's note: cells for `flagged` (case, check) pairs, the
/// history's lines, and each lucky reference with the command that
/// re-measures its case (`command`).
pub fn note<'a>(
    h: &History,
    lucky: &[Lucky],
    flagged: impl Iterator<Item = (&'a str, &'a str)>,
    command: &dyn Fn(&Lucky) -> String,
    locale: Locale,
) -> HistoryNote {
    let mut cells = HashMap::new();
    for (case, check) in flagged {
        if let Some(text) = cell(h, case, check, locale) {
            cells.insert((case.to_string(), check.to_string()), text);
        }
    }
    let mut lines = vec![fill(
        locale.text("history.gates"),
        &[("gates", &h.lines.len().to_string())],
    )];
    if h.skipped_total() > 0 {
        let why: Vec<String> = h
            .skipped
            .iter()
            .map(|(skip, n)| {
                fill(
                    locale.text(&format!("history.skip_{}", skip.as_str())),
                    &[("count", &n.to_string())],
                )
            })
            .collect();
        lines.push(fill(
            locale.text("history.skipped"),
            &[
                ("count", &h.skipped_total().to_string()),
                ("why", &why.join(", ")),
            ],
        ));
    }
    let lucky = lucky
        .iter()
        .map(|l| {
            fill(
                locale.text("history.lucky"),
                &[
                    ("case", &l.case),
                    ("check", &l.check),
                    ("k", &l.passed.to_string()),
                    ("n", &l.samples.to_string()),
                    ("f", &l.failed.to_string()),
                    ("a", &l.asked.to_string()),
                    ("p", &p_text(l.p)),
                    ("command", &command(l)),
                ],
            )
        })
        .collect();
    HistoryNote {
        cells,
        lines,
        lucky,
    }
}

/// A p-value as the sentences show it: `p = ` and four decimals, `p < 0.0001` below.
fn p_text(p: f64) -> String {
    if p < 1e-4 {
        "p < 0.0001".to_string()
    } else {
        format!("p = {p:.4}")
    }
}

/// The sentence said instead when the history file is tracked by git.
pub fn tracked_line(path: &str, locale: Locale) -> String {
    fill(locale.text("history.tracked"), &[("path", path)])
}

/// How many flagged cases the report draws at most.
pub const CHARTED: usize = 50;

/// How many checks the pass-rate chart draws at most.
pub const CHARTED_CHECKS: usize = 12;

/// The report's history block (safe HTML): three charts, each an inline
/// SVG with a `<title>`, and a table beside it.
pub fn charts(
    h: &History,
    reasked: &[PairDecision],
    lucky: &[Lucky],
    note: &HistoryNote,
    alpha: f64,
    locale: Locale,
) -> String {
    let t = |key: &str| locale.text(&format!("history.{key}"));
    let mut out = String::new();
    out.push_str("<section class=\"block history\">\n<h2>");
    escape::push_html(&mut out, t("title"));
    out.push_str("</h2>\n");
    for line in note.lines.iter().chain(&note.lucky) {
        out.push_str("<p>");
        escape::push_html(&mut out, line);
        out.push_str("</p>\n");
    }
    check_chart(&mut out, h, locale);
    flagged_chart(&mut out, h, reasked, lucky, alpha, locale);
    spend_chart(&mut out, h, locale);
    out.push_str("</section>\n");
    out
}

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 200.0;
const PAD: f64 = 36.0;
const COLOURS: [&str; 6] = [
    "#1f6feb", "#b35900", "#1a7f37", "#8250df", "#cf222e", "#57606a",
];

fn svg_open(out: &mut String, id: &str, title: &str, height: f64) {
    let _ = write!(
        out,
        "<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-labelledby=\"{id}\"><title id=\"{id}\">"
    );
    escape::push_html(out, title);
    out.push_str("</title>\n");
}

fn axes(out: &mut String, height: f64) {
    let bottom = height - PAD;
    let _ = writeln!(
        out,
        "<path d=\"M{PAD} {} V{bottom} H{}\" fill=\"none\" stroke=\"#57606a\" stroke-width=\"1\"/>",
        PAD / 2.0,
        WIDTH - PAD / 2.0
    );
    for (frac, label) in [(0.0, "0"), (0.5, "0.5"), (1.0, "1")] {
        let y = y_of(frac, height);
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\" fill=\"#57606a\">{label}</text>",
            PAD - 4.0,
            y + 3.0
        );
    }
}

fn y_of(rate: f64, height: f64) -> f64 {
    let top = PAD / 2.0;
    let bottom = height - PAD;
    bottom - rate.clamp(0.0, 1.0) * (bottom - top)
}

fn x_of(i: usize, n: usize) -> f64 {
    let span = WIDTH - PAD * 1.5;
    if n <= 1 {
        return PAD + span / 2.0;
    }
    PAD + span * i as f64 / (n - 1) as f64
}

fn table_open(out: &mut String, caption: &str, headers: &[&str]) {
    out.push_str("<table class=\"grid chart-table\"><caption>");
    escape::push_html(out, caption);
    out.push_str("</caption><thead><tr>");
    for h in headers {
        out.push_str("<th scope=\"col\">");
        escape::push_html(out, h);
        out.push_str("</th>");
    }
    out.push_str("</tr></thead><tbody>\n");
}

fn table_row(out: &mut String, cells: &[String]) {
    out.push_str("<tr>");
    for c in cells {
        out.push_str("<td>");
        escape::push_html(out, c);
        out.push_str("</td>");
    }
    out.push_str("</tr>\n");
}

fn rate(x: f64) -> String {
    format!("{x:.3}")
}

/// Per check, its pass rate in each gate of the history.
fn check_chart(out: &mut String, h: &History, locale: Locale) {
    let t = |key: &str| locale.text(&format!("history.{key}"));
    let rates = h.check_rates();
    if rates.is_empty() {
        return;
    }
    let mut svg = String::new();
    svg_open(&mut svg, "chart-checks", t("chart_checks"), HEIGHT);
    axes(&mut svg, HEIGHT);
    for (i, (name, series)) in rates.iter().take(CHARTED_CHECKS).enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        svg.push_str("<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"");
        svg.push_str(colour);
        svg.push_str("\" points=\"");
        for (j, r) in series.iter().enumerate() {
            let _ = write!(svg, "{:.1},{:.1} ", x_of(j, series.len()), y_of(*r, HEIGHT));
        }
        svg.push_str("\"><title>");
        escape::push_html(&mut svg, name);
        svg.push_str("</title></polyline>\n");
    }
    svg.push_str("</svg></figure>\n");
    table_open(
        out,
        t("chart_checks"),
        &[
            t("col_check"),
            t("col_gates"),
            t("col_mean"),
            t("col_lowest"),
            t("col_last"),
        ],
    );
    for (name, series) in rates.iter().take(CHARTED_CHECKS) {
        let mean = series.iter().sum::<f64>() / series.len() as f64;
        let lowest = series.iter().copied().fold(1.0, f64::min);
        table_row(
            out,
            &[
                name.clone(),
                series.len().to_string(),
                rate(mean),
                rate(lowest),
                rate(*series.last().unwrap_or(&0.0)),
            ],
        );
    }
    out.push_str("</tbody></table>\n");
    out.push_str(&svg);
}

/// One flagged pair's three rates and intervals.
struct Flagged {
    case: String,
    check: String,
    bars: [(u64, u64); 3],
}

/// Per flagged case: the reference's pass rate, the history's and this
/// gate's re-asks, each with its Wilson interval.
fn flagged_chart(
    out: &mut String,
    h: &History,
    reasked: &[PairDecision],
    lucky: &[Lucky],
    alpha: f64,
    locale: Locale,
) {
    let t = |key: &str| locale.text(&format!("history.{key}"));
    let mut rows: Vec<Flagged> = Vec::new();
    for d in reasked {
        let (case, check) = (d.key.case_id.to_string(), d.assertion.to_string());
        let e = d.evidence;
        let hist = h
            .pair(&case, &check)
            .map_or((0, 0), |p| (p.asked - p.failed, p.asked));
        rows.push(Flagged {
            case,
            check,
            bars: [
                (e.reference_passed, e.reference_samples),
                hist,
                (e.now_passed, e.now_asked),
            ],
        });
    }
    for l in lucky {
        if rows.iter().any(|r| r.case == l.case && r.check == l.check) {
            continue;
        }
        rows.push(Flagged {
            case: l.case.clone(),
            check: l.check.clone(),
            bars: [(l.passed, l.samples), (l.asked - l.failed, l.asked), (0, 0)],
        });
    }
    if rows.is_empty() {
        return;
    }
    rows.truncate(CHARTED);
    let row_h = 30.0;
    let height = PAD + 18.0 + row_h * rows.len() as f64;
    let left = 200.0;
    let span = WIDTH - left - PAD / 2.0;
    let x = |r: f64| left + r.clamp(0.0, 1.0) * span;
    let mut svg = String::new();
    svg_open(&mut svg, "chart-flagged", t("chart_flagged"), height);
    for frac in [0.0, 0.5, 1.0] {
        let _ = writeln!(
            svg,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"4\" y2=\"{1:.1}\" stroke=\"#d0d7de\"/><text x=\"{0:.1}\" y=\"{2:.1}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#57606a\">{frac}</text>",
            x(frac),
            height - PAD + 4.0,
            height - PAD + 16.0
        );
    }
    let labels = [t("col_reference"), t("col_history"), t("col_now")];
    for (j, label) in labels.iter().enumerate() {
        let lx = left + 140.0 * j as f64;
        let _ = writeln!(
            svg,
            "<circle cx=\"{lx:.1}\" cy=\"{ly:.1}\" r=\"4\" fill=\"{c}\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#1f2328\">{}</text>",
            lx + 8.0,
            height - 8.0,
            escape::html(label),
            ly = height - 12.0,
            c = COLOURS[j],
        );
    }
    let mut table = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let top = 4.0 + row_h * i as f64;
        svg.push_str("<text x=\"4\" font-size=\"11\" fill=\"#1f2328\" y=\"");
        let _ = write!(svg, "{:.1}\">", top + 16.0);
        let label: String = format!("{} · {}", row.case, row.check)
            .chars()
            .take(30)
            .collect();
        escape::push_html(&mut svg, &label);
        svg.push_str("</text>\n");
        let mut cells = vec![row.case.clone(), row.check.clone()];
        for (j, (passed, asked)) in row.bars.iter().enumerate() {
            if *asked == 0 {
                cells.push("—".into());
                continue;
            }
            let (lo, hi) = wilson(*passed, *asked, alpha);
            let point = *passed as f64 / *asked as f64;
            let y = top + 6.0 + 8.0 * j as f64;
            let _ = writeln!(
                svg,
                "<g><title>{}: {passed}/{asked}</title><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{c}\" stroke-width=\"2\"/><circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{c}\"/></g>",
                escape::html(labels[j]),
                x(lo),
                x(hi),
                x(point),
                c = COLOURS[j],
            );
            cells.push(format!("{passed}/{asked} ({} – {})", rate(lo), rate(hi)));
        }
        table.push(cells);
    }
    svg.push_str("</svg></figure>\n");
    table_open(
        out,
        t("chart_flagged"),
        &[
            t("col_case"),
            t("col_check"),
            labels[0],
            labels[1],
            labels[2],
        ],
    );
    for cells in &table {
        table_row(out, cells);
    }
    out.push_str("</tbody></table>\n");
    out.push_str(&svg);
}

/// What each gate of the history spent.
fn spend_chart(out: &mut String, h: &History, locale: Locale) {
    let t = |key: &str| locale.text(&format!("history.{key}"));
    let spent: Vec<(String, f64)> = h
        .lines
        .iter()
        .filter_map(|l| Some((l.at.chars().take(10).collect(), l.usd?)))
        .collect();
    if spent.is_empty() {
        return;
    }
    let most = spent.iter().map(|s| s.1).fold(0.0, f64::max).max(1e-9);
    let mut svg = String::new();
    svg_open(&mut svg, "chart-spend", t("chart_spend"), HEIGHT);
    let bottom = HEIGHT - PAD;
    let _ = writeln!(
        svg,
        "<path d=\"M{PAD} {} V{bottom} H{}\" fill=\"none\" stroke=\"#57606a\"/>\n<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\" fill=\"#57606a\">{most:.2}</text>",
        PAD / 2.0,
        WIDTH - PAD / 2.0,
        PAD - 4.0,
        PAD / 2.0 + 3.0
    );
    svg.push_str("<polyline fill=\"none\" stroke=\"#1a7f37\" stroke-width=\"1.5\" points=\"");
    for (i, (_, usd)) in spent.iter().enumerate() {
        let _ = write!(
            svg,
            "{:.1},{:.1} ",
            x_of(i, spent.len()),
            y_of(usd / most, HEIGHT)
        );
    }
    svg.push_str("\"/>\n</svg></figure>\n");
    let total: f64 = spent.iter().map(|s| s.1).sum();
    let least = spent.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
    table_open(
        out,
        t("chart_spend"),
        &[
            t("col_gates"),
            t("col_first"),
            t("col_last_gate"),
            t("col_mean_usd"),
            t("col_least_usd"),
            t("col_most_usd"),
        ],
    );
    table_row(
        out,
        &[
            spent.len().to_string(),
            spent[0].0.clone(),
            spent[spent.len() - 1].0.clone(),
            format!("{:.4}", total / spent.len() as f64),
            format!("{least:.4}"),
            format!("{most:.4}"),
        ],
    );
    out.push_str("</tbody></table>\n");
    out.push_str(&svg);
}

#[cfg(test)]
mod tests;
