//! The pull/merge-request comment and the job summary: rendered from
//! `templates/comment.md.j2` with minijinja, verdict-only, under GitHub's
//! 65,536-character limit.
//!
//! Pure: a function of [`CommentData`] (which holds no payload by
//! construction — see `cli::gate`). Long tables collapse ("…and 412 more —
//! see the report") until the body fits; the marker and the headline always
//! survive. Every case id and check name is escaped
//! ([`crate::forge::escape::markdown`]).

use std::collections::BTreeMap;

use minijinja::Environment;
use serde::Serialize;

use super::escape;
use super::outcome::Kind;

/// GitHub refuses comment bodies over this many characters.
pub const GITHUB_LIMIT: usize = 65_536;

/// What the gate aims under: the limit, less room for `publish` to put a
/// report link in place of the report line.
pub const BUDGET: usize = GITHUB_LIMIT - 4_096;

/// Rows shown per table before collapsing starts.
pub const MAX_ROWS: usize = 100;

const TEMPLATE: &str = include_str!("../../templates/comment.md.j2");

/// The line in the comment that `publish` replaces with the report link.
pub const REPORT_MARKER: &str = "<!-- digline-report -->";

/// One table row: case · check · before → after (scores and statuses only).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The case id (`run` for a run-level measure). Escaped when rendered.
    pub case: String,
    /// The check's name. Escaped when rendered.
    pub check: String,
    /// The baseline's side, e.g. `pass 1.000000`, `error`, `—`.
    pub before: String,
    /// The run's side.
    pub after: String,
}

/// Everything the comment says.
#[derive(Clone, Debug, PartialEq)]
pub struct CommentData {
    /// Which of the five outcomes.
    pub kind: Kind,
    /// The headline sentence.
    pub headline: String,
    /// The suite's name.
    pub suite: String,
    /// The suite's tenant.
    pub tenant: String,
    /// The run's key.
    pub run_key: String,
    /// The baseline's key, when there is a baseline.
    pub baseline_key: Option<String>,
    /// No baseline: the run is shown on its own.
    pub no_baseline: bool,
    /// Where the baseline is (or was looked for).
    pub baseline_path: String,
    /// The `promote` command a person would run.
    pub promote: String,
    /// Title of the first table ("What got worse", or with no baseline "Failing in this run").
    pub worse_title: String,
    /// What got worse.
    pub worse: Vec<Row>,
    /// What could not be judged.
    pub unjudged: Vec<Row>,
    /// Configuration changes, one line each.
    pub config: Vec<String>,
    /// The counts line (already safe Markdown: words and numbers).
    pub counts: String,
    /// The report line (already safe Markdown).
    pub report: String,
    /// Further sections after the configuration changes: a replaced
    /// reference, rule changes, verdicts not in the run or new in it.
    pub sections: Vec<Section>,
}

/// One row of a [`Section`]: case · check · what happened (names escaped
/// when rendered; `detail` is composed from words and scores).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SectionRow {
    /// The case id (`run` for a run-level measure).
    pub case: String,
    /// The check's name.
    pub check: String,
    /// What happened, e.g. `in the reference, not in this run (pass 1.000000)`.
    pub detail: String,
}

/// A titled section of the comment: a table of rows, or a list of lines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Section {
    /// The heading.
    pub title: String,
    /// Table rows (case · check · what happened).
    pub rows: Vec<SectionRow>,
    /// List lines (escaped when rendered).
    pub lines: Vec<String>,
}

impl Section {
    /// A section holding a table.
    pub fn rows(title: &str, rows: Vec<SectionRow>) -> Section {
        Section {
            title: title.to_string(),
            rows,
            lines: Vec::new(),
        }
    }

    /// A section holding a list.
    pub fn lines(title: &str, lines: Vec<String>) -> Section {
        Section {
            title: title.to_string(),
            rows: Vec::new(),
            lines,
        }
    }
}

/// A Markdown code span holding `text` verbatim (one line).
pub fn code_span(text: &str) -> String {
    let text = escape::one_line(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') || text.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env.add_filter("md", |s: String| escape::markdown(&s));
    env.add_filter("code", |s: String| code_span(&s));
    env
}

fn render_once(
    env: &Environment<'_>,
    data: &CommentData,
    marker: Option<&str>,
    rows: usize,
) -> String {
    let take = |v: &[Row]| {
        v.iter()
            .take(rows)
            .map(|r| {
                BTreeMap::from([
                    ("case".to_string(), r.case.clone()),
                    ("check".to_string(), r.check.clone()),
                    ("before".to_string(), r.before.clone()),
                    ("after".to_string(), r.after.clone()),
                ])
            })
            .collect::<Vec<_>>()
    };
    let more = |n: usize| n.saturating_sub(rows);
    let config: Vec<String> = data.config.iter().take(rows).cloned().collect();
    let ctx = minijinja::context! {
        marker => marker,
        suite => data.suite.clone(),
        tenant => data.tenant.clone(),
        answer => data.kind.answer(),
        headline => data.headline.clone(),
        no_baseline => data.no_baseline,
        baseline_path => data.baseline_path.clone(),
        promote => data.promote.clone(),
        worse_title => data.worse_title.clone(),
        worse => take(&data.worse),
        worse_more => more(data.worse.len()),
        unjudged => take(&data.unjudged),
        unjudged_more => more(data.unjudged.len()),
        config => config,
        config_more => more(data.config.len()),
        counts => data.counts.clone(),
        run_key => data.run_key.clone(),
        baseline_key => data.baseline_key.clone(),
        report => data.report.clone(),
        report_marker => REPORT_MARKER,
        sections => data.sections.iter().map(|sec| {
            minijinja::context! {
                title => sec.title.clone(),
                rows => sec.rows.iter().take(rows).map(|r| {
                    BTreeMap::from([
                        ("case".to_string(), r.case.clone()),
                        ("check".to_string(), r.check.clone()),
                        ("detail".to_string(), r.detail.clone()),
                    ])
                }).collect::<Vec<_>>(),
                rows_more => more(sec.rows.len()),
                lines => sec.lines.iter().take(rows).cloned().collect::<Vec<_>>(),
                lines_more => more(sec.lines.len()),
            }
        }).collect::<Vec<_>>(),
    };
    match env.render_str(TEMPLATE, ctx) {
        Ok(text) => text,
        // The template is compiled in and tested; should it ever fail, the
        // comment still says what happened.
        Err(_) => format!(
            "{}\n{} {}\n",
            marker.unwrap_or(""),
            data.kind.answer(),
            escape::markdown(&data.headline)
        ),
    }
}

/// Render the comment (with `marker`) or the job summary (without), under
/// [`BUDGET`] characters: tables collapse, halving their rows, until the
/// body fits. With no rows left and still too long (a headline of absurd
/// length), the headline is cut — the marker never is.
pub fn render(data: &CommentData, marker: Option<&str>) -> String {
    let env = environment();
    let mut rows = MAX_ROWS;
    loop {
        let text = render_once(&env, data, marker, rows);
        if text.chars().count() <= BUDGET {
            return text;
        }
        if rows == 0 {
            let mut cut = data.clone();
            let keep = BUDGET / 8;
            cut.headline = cut.headline.chars().take(keep).collect::<String>() + "…";
            return render_once(&env, &cut, marker, 0);
        }
        rows /= 2;
    }
}

/// Replace the report line of a rendered comment with `line` (safe Markdown).
pub fn set_report_line(body: &str, line: &str) -> String {
    body.lines()
        .map(|l| {
            if l.starts_with(REPORT_MARKER) {
                format!("{REPORT_MARKER}{line}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if body.ends_with('\n') { "\n" } else { "" }
}

/// The report line for an `http(s)` URL: a link whose target cannot break
/// out of the parentheses. `None` for anything else.
pub fn report_link(url: &str) -> Option<String> {
    let ok = (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() < 2_000
        && url.chars().all(|c| c.is_ascii_graphic());
    if !ok {
        return None;
    }
    let safe: String = url
        .chars()
        .map(|c| match c {
            '(' => "%28".to_string(),
            ')' => "%29".to_string(),
            '<' => "%3C".to_string(),
            '>' => "%3E".to_string(),
            '"' => "%22".to_string(),
            '`' => "%60".to_string(),
            c => c.to_string(),
        })
        .collect();
    Some(format!("The full report: [the report]({safe})."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize) -> CommentData {
        CommentData {
            kind: Kind::SomethingGotWorse,
            headline: "1 check got worse compared with the reference.".into(),
            suite: "support".into(),
            tenant: "acme".into(),
            run_key: "2026-01-01T00-00-00-abc".into(),
            baseline_key: Some("2025-12-31T00-00-00-abc".into()),
            no_baseline: false,
            baseline_path: ".digline/acme/baselines/support.json".into(),
            promote: "digline promote --suite suite.toml --run latest".into(),
            worse_title: "What got worse".into(),
            worse: (0..n)
                .map(|i| Row {
                    case: format!("case-{i:05}-with-a-rather-long-identifier-[x](y)"),
                    check: "contains_signature_of_the_support_team".into(),
                    before: "pass 1.000000".into(),
                    after: "fail 0.000000".into(),
                })
                .collect(),
            unjudged: vec![],
            config: vec!["system · model stub-1 → stub-2".into()],
            counts: "regressed 1".into(),
            report: "The report is in the job's artifacts.".into(),
            sections: vec![],
        }
    }

    #[test]
    fn a_small_comment_shows_every_row() {
        let text = render(&data(3), Some("<!-- m -->"));
        assert!(
            text.starts_with("<!-- m -->\n### digline — `support` (tenant `acme`)\n"),
            "{text}"
        );
        assert!(text.contains("| case\\-00002\\-with"), "{text}");
        assert!(!text.contains("more — see the report"));
        assert!(text.contains("**Something got worse.** 1 check got worse"));
    }

    #[test]
    fn five_thousand_rows_fit_with_the_headline() {
        let text = render(&data(5_000), Some("<!-- m -->"));
        assert!(text.chars().count() <= GITHUB_LIMIT);
        assert!(text.starts_with("<!-- m -->\n"));
        assert!(text.contains("1 check got worse compared with the reference\\."));
        assert!(text.contains("…and 4900 more — see the report."), "{text}");
    }

    #[test]
    fn rows_collapse_further_when_ids_are_long() {
        let mut d = data(3_000);
        for row in &mut d.worse {
            row.case = "<".repeat(400);
        }
        let text = render(&d, Some("<!-- m -->"));
        assert!(text.chars().count() <= BUDGET);
        assert!(text.contains("more — see the report"));
    }

    #[test]
    fn the_report_line_is_replaced() {
        let body = render(&data(1), None);
        let link = report_link("https://github.com/o/r/actions/runs/1/artifacts/2").unwrap();
        let out = set_report_line(&body, &link);
        assert!(out.contains("[the report](https://github.com/o/r/actions/runs/1/artifacts/2)"));
        assert!(report_link("javascript:alert(1)").is_none());
        assert_eq!(code_span("a`b"), "``a`b``");
    }
}
