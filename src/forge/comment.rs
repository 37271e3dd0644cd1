//! The pull/merge-request comment and the job summary: rendered from
//! `templates/comment.md.j2` with minijinja, verdict-only, under GitHub's
//! 65,536-character limit.
//!
//! Pure: a function of [`CommentData`] (which holds no payload by
//! construction — see `cli::gate`). Long names are shortened
//! ([`shorten_name`]); long tables collapse ("…and 412 more — see the
//! report") until the body fits, and a table collapsed to no row still says
//! how many it left out; the marker and the headline always survive. Every case id and check name is escaped
//! ([`crate::forge::escape::markdown`]).

use std::collections::{BTreeMap, HashMap};

use minijinja::Environment;

use super::escape;
use crate::report::gate::{GateRow, GateView};
use crate::report::locale::Locale;
use crate::report::text::{fill, shorten_name};

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

/// Everything the comment says, beside the [`GateView`].
#[derive(Clone, Debug, PartialEq)]
pub struct CommentData {
    /// The reader's language.
    pub locale: Locale,
    /// What the gate says (headline, rows, counts), in that language.
    pub view: GateView,
    /// The suite's name.
    pub suite: String,
    /// The suite's tenant.
    pub tenant: String,
    /// The run's key.
    pub run_key: String,
    /// The baseline's key, when there is a baseline.
    pub baseline_key: Option<String>,
    /// The `promote` command a person would run.
    pub promote: String,
    /// The report line (already safe Markdown).
    pub report: String,
    /// What the run spent, one sentence (plain text; empty when unknown).
    pub cost: String,
    /// Further sections after the configuration changes: a replaced
    /// reference, rule changes, verdicts not in the run or new in it.
    pub sections: Vec<Section>,
    /// Per flagged (case, check): its history on the base branch, a strip
    /// and its words (`report::history::cell`); empty without a history,
    /// and the tables then have no history column.
    pub history: HashMap<(String, String), String>,
}

/// One row of a [`Section`]: case · check · what happened (plain text,
/// escaped when rendered; `detail` is composed from words and scores).
#[derive(Clone, Debug, PartialEq)]
pub struct SectionRow {
    /// The case id (`run` for a run-level measure).
    pub case: String,
    /// The check's name.
    pub check: String,
    /// What happened, e.g. `in the reference, not in this run (pass 1.000000)`.
    pub detail: String,
}

/// A titled section of the comment: a table of rows, or a list of lines
/// (plain text, escaped when rendered).
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// The heading.
    pub title: String,
    /// Table rows (case · check · what happened).
    pub rows: Vec<SectionRow>,
    /// List lines.
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

/// A Markdown code span holding `text` verbatim (one visible line).
pub fn code_span(text: &str) -> String {
    let text = escape::visible_line(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') || text.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Fill a locale's `template` for Markdown: its own words escaped, each
/// `{name}` replaced by `values`' already-safe Markdown.
pub fn fill_md(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let found = after.find('}').and_then(|close| {
            values
                .iter()
                .find(|(k, _)| *k == &after[..close])
                .map(|(_, v)| (close, *v))
        });
        match found {
            Some((close, value)) => {
                out.push_str(&escape::markdown(&rest[..open]));
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&escape::markdown(&rest[..=open]));
                rest = after;
            }
        }
    }
    out.push_str(&escape::markdown(rest));
    out
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env
}

/// A row's history cell (safe Markdown), `—` when the history has none.
fn history_md(history: &HashMap<(String, String), String>, case: &str, check: &str) -> String {
    history
        .get(&(case.to_string(), check.to_string()))
        .map_or_else(|| "—".to_string(), |t| escape::markdown(t))
}

fn rows_md(
    rows: &[GateRow],
    take: usize,
    locale: Locale,
    history: &HashMap<(String, String), String>,
) -> Vec<BTreeMap<&'static str, String>> {
    rows.iter()
        .take(take)
        .map(|r| {
            BTreeMap::from([
                ("history", history_md(history, &r.case, &r.check)),
                ("case", escape::markdown(&shorten_name(&r.case))),
                ("check", escape::markdown(&shorten_name(&r.check))),
                ("before", r.before.clone()),
                ("after", r.after.clone()),
                (
                    "cause",
                    r.cause
                        .as_ref()
                        .map(|c| escape::markdown(&c.sentence(locale)))
                        // A check not judged for another reason than its own
                        // error (its re-asks could not be judged) says so.
                        .unwrap_or_else(|| escape::markdown(&r.happened)),
                ),
            ])
        })
        .collect()
}

fn render_once(
    env: &Environment<'_>,
    data: &CommentData,
    marker: Option<&str>,
    rows: usize,
) -> String {
    let l = data.locale;
    let v = &data.view;
    let more = |n: usize| {
        if n > rows {
            escape::markdown(&fill(
                l.text("gate.more_rows"),
                &[("count", &(n - rows).to_string())],
            ))
        } else {
            String::new()
        }
    };
    let title = if data.tenant == data.suite {
        fill_md(l.text("gate.title"), &[("suite", &code_span(&data.suite))])
    } else {
        fill_md(
            l.text("gate.title_tenant"),
            &[
                ("suite", &code_span(&data.suite)),
                ("tenant", &code_span(&data.tenant)),
            ],
        )
    };
    let rest = if v.no_baseline {
        fill_md(
            l.text("gate.no_baseline_path"),
            &[("path", &code_span(&baseline_path_of(v)))],
        )
    } else {
        escape::markdown(&v.rest)
    };
    let keys = match &data.baseline_key {
        Some(b) => fill_md(
            l.text("gate.keys"),
            &[
                ("run", &code_span(&data.run_key)),
                ("baseline", &code_span(b)),
            ],
        ),
        None => fill_md(
            l.text("gate.keys_single"),
            &[("run", &code_span(&data.run_key))],
        ),
    };
    let counts = [v.counts.as_str(), v.measure_counts.as_str()]
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| escape::markdown(t))
        .collect::<Vec<_>>()
        .join(" ");
    let config: Vec<String> = v
        .config
        .iter()
        .take(rows)
        .map(|c| escape::markdown(c))
        .collect();
    let ctx = minijinja::context! {
        marker => marker,
        title => title,
        lead => escape::markdown(&v.lead),
        rest => rest,
        no_baseline => v.no_baseline,
        promote_sentence => escape::markdown(l.text("gate.no_baseline_promote")),
        promote => code_span(&data.promote),
        worse_title => escape::markdown(&v.worse_title),
        unjudged_title => escape::markdown(l.text("report.section_unjudged")),
        config_title => escape::markdown(l.text("gate.section_config")),
        col_case => escape::markdown(l.text("report.col_case")),
        col_check => escape::markdown(l.text("report.col_check")),
        col_before_after => escape::markdown(l.text("gate.col_before_after")),
        col_cause => escape::markdown(l.text("gate.col_cause")),
        worse => rows_md(&v.worse, rows, l, &data.history),
        worse_more => more(v.worse.len()),
        unjudged => rows_md(&v.unjudged, rows, l, &data.history),
        unjudged_more => more(v.unjudged.len()),
        config => config,
        config_more => more(v.config.len()),
        counts => counts,
        cost => escape::markdown(&data.cost),
        keys => keys,
        report => data.report.clone(),
        report_marker => REPORT_MARKER,
        legend => escape::markdown(l.text("gate.legend")),
        col_happened => escape::markdown(l.text("report.col_happened")),
        has_history => !data.history.is_empty(),
        col_history => escape::markdown(l.text("history.col")),
        sections => data.sections.iter().map(|sec| {
            minijinja::context! {
                title => escape::markdown(&sec.title),
                rows => sec.rows.iter().take(rows).map(|r| {
                    BTreeMap::from([
                        ("case", escape::markdown(&shorten_name(&r.case))),
                        ("check", escape::markdown(&shorten_name(&r.check))),
                        ("detail", escape::markdown(&r.detail)),
                        ("history", history_md(&data.history, &r.case, &r.check)),
                    ])
                }).collect::<Vec<_>>(),
                rows_more => more(sec.rows.len()),
                lines => sec.lines.iter().take(rows).map(|t| escape::markdown(t)).collect::<Vec<_>>(),
                lines_more => more(sec.lines.len()),
            }
        }).collect::<Vec<_>>(),
    };
    match env.render_str(TEMPLATE, ctx) {
        Ok(text) => text,
        // The template is compiled in and tested; should it ever fail, the
        // comment still says what happened.
        Err(_) => format!(
            "{}\n**{}**\n",
            marker.unwrap_or(""),
            escape::markdown(&v.headline())
        ),
    }
}

/// The path a no-baseline view names (the `{path}` of its rest sentence).
fn baseline_path_of(v: &GateView) -> String {
    v.baseline_path.clone().unwrap_or_default()
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
            cut.view.lead = cut.view.lead.chars().take(keep).collect::<String>() + "…";
            cut.view.rest = cut.view.rest.chars().take(keep).collect::<String>() + "…";
            return render_once(&env, &cut, marker, 0);
        }
        rows /= 2;
    }
}

/// Replace the report line of a rendered comment (the line that ends with
/// [`REPORT_MARKER`]) with `line` (safe Markdown).
pub fn set_report_line(body: &str, line: &str) -> String {
    body.lines()
        .map(|l| {
            if l.ends_with(REPORT_MARKER) {
                format!("{line} {REPORT_MARKER}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if body.ends_with('\n') { "\n" } else { "" }
}

/// An `http(s)` URL made safe as a link target (it cannot break out of the
/// parentheses); `None` for anything else.
fn link_target(url: &str) -> Option<String> {
    let ok = (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() < 2_000
        && url.chars().all(|c| c.is_ascii_graphic());
    if !ok {
        return None;
    }
    Some(
        url.chars()
            .map(|c| match c {
                '(' => "%28".to_string(),
                ')' => "%29".to_string(),
                '<' => "%3C".to_string(),
                '>' => "%3E".to_string(),
                '"' => "%22".to_string(),
                '`' => "%60".to_string(),
                c => c.to_string(),
            })
            .collect(),
    )
}

/// The report line for an `http(s)` URL, in `locale`: a link to the report
/// (`artifacts`: the link is the job's artifacts page). `None` when `url`
/// is not an `http(s)` address.
pub fn report_link(url: &str, locale: Locale, artifacts: bool) -> Option<String> {
    let target = link_target(url)?;
    let text = locale.text(if artifacts {
        "gate.artifacts_link_text"
    } else {
        "gate.report_link_text"
    });
    let link = format!("[{}]({target})", escape::markdown(text));
    Some(fill_md(locale.text("gate.report_link"), &[("link", &link)]))
}

/// The report line when no link is known.
pub fn report_in_artifacts(locale: Locale) -> String {
    escape::markdown(locale.text("gate.report_in_artifacts"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME_SHOWN_PROBE: usize = crate::report::text::NAME_SHOWN + 1;

    fn view(n: usize) -> GateView {
        GateView {
            exit_code: crate::core::exit::ExitStatus::Worse,
            lead: "1 check got worse compared with the reference.".into(),
            rest: "Every case could be judged.".into(),
            no_baseline: false,
            baseline_path: None,
            worse_title: "What got worse".into(),
            worse: (0..n)
                .map(|i| GateRow {
                    case: format!("case-{i:05}-with-a-rather-long-identifier-[x](y)"),
                    check: "contains_signature_of_the_support_team".into(),
                    before: "pass 1.000000".into(),
                    after: "fail 0.000000".into(),
                    happened: String::new(),
                    cause: None,
                })
                .collect(),
            unjudged: vec![],
            config: vec!["system · model stub-1 → stub-2".into()],
            counts: "Cases: 1 got worse.".into(),
            measure_counts: String::new(),
            case_counts: BTreeMap::new(),
        }
    }

    fn data(n: usize) -> CommentData {
        CommentData {
            locale: Locale::En,
            view: view(n),
            suite: "support".into(),
            tenant: "acme".into(),
            run_key: "2026-01-01T00-00-00-abc".into(),
            baseline_key: Some("2025-12-31T00-00-00-abc".into()),
            promote: "digline promote --suite suite.toml --run latest".into(),
            report: report_in_artifacts(Locale::En),
            cost: String::new(),
            sections: vec![],
            history: HashMap::new(),
        }
    }

    #[test]
    fn a_small_comment_shows_every_row() {
        let text = render(&data(3), Some("<!-- m -->"));
        assert!(
            text.starts_with("<!-- m -->\n### digline — `support` \\(tenant `acme`\\)\n"),
            "{text}"
        );
        assert!(text.contains("| case\\-00002\\-with"), "{text}");
        assert!(!text.contains("more — see the report"));
        assert!(
            text.contains("**1 check got worse compared with the reference\\.** Every case"),
            "{text}"
        );
    }

    #[test]
    fn five_thousand_rows_fit_with_the_headline() {
        let text = render(&data(5_000), Some("<!-- m -->"));
        assert!(text.chars().count() <= GITHUB_LIMIT);
        assert!(text.starts_with("<!-- m -->\n"));
        assert!(text.contains("1 check got worse compared with the reference\\."));
        assert!(
            text.contains("…and 4900 more — see the report\\."),
            "{text}"
        );
    }

    #[test]
    fn rows_collapse_further_when_ids_are_long() {
        let mut d = data(3_000);
        for row in &mut d.view.worse {
            row.case = "<".repeat(400);
        }
        let text = render(&d, Some("<!-- m -->"));
        assert!(text.chars().count() <= BUDGET);
        assert!(text.contains("more — see the report"));
    }

    #[test]
    fn one_absurd_case_id_leaves_every_other_row_and_the_count() {
        let mut d = data(3);
        d.view.worse[0].case = "x".repeat(70_000);
        let text = render(&d, Some("<!-- m -->"));
        assert!(text.contains("| case\\-00001\\-with"), "{text}");
        assert!(text.contains("| case\\-00002\\-with"), "{text}");
        assert!(!text.contains(&"x".repeat(NAME_SHOWN_PROBE)), "shortened");
        assert!(
            text.contains(&format!("{}…xx |", "x".repeat(117))),
            "{text}"
        );
    }

    #[test]
    fn a_table_collapsed_to_no_row_still_says_how_many_it_left_out() {
        let mut d = data(2);
        d.sections.push(Section::rows(
            "Not in this run",
            vec![SectionRow {
                case: "c".into(),
                check: "contains".into(),
                detail: "y".repeat(BUDGET),
            }],
        ));
        let text = render(&d, Some("<!-- m -->"));
        assert!(text.chars().count() <= BUDGET);
        assert!(text.contains("#### What got worse"), "{text}");
        assert!(text.contains("…and 2 more — see the report\\."), "{text}");
        assert!(text.contains("#### Not in this run"), "{text}");
        assert!(text.contains("…and 1 more — see the report\\."), "{text}");
    }

    #[test]
    fn the_report_line_is_replaced_and_never_starts_with_the_marker() {
        let body = render(&data(1), None);
        assert!(!body.lines().any(|l| l.starts_with("<!--")), "{body}");
        let link = report_link(
            "https://github.com/o/r/actions/runs/1/artifacts/2",
            Locale::En,
            false,
        )
        .unwrap();
        let out = set_report_line(&body, &link);
        assert!(out.contains(
            "\nThe full report\\: [the report](https://github.com/o/r/actions/runs/1/artifacts/2)\\. <!-- digline-report -->\n"
        ), "{out}");
        assert!(report_link("javascript:alert(1)", Locale::En, false).is_none());
        assert_eq!(code_span("a`b"), "``a`b``");
    }

    #[test]
    fn fill_md_escapes_the_words_and_keeps_the_values() {
        assert_eq!(
            fill_md("Run {run} (see #1) {other}.", &[("run", "`k`")]),
            "Run `k` \\(see \\#\u{200D}1\\) \\{other\\}\\."
        );
    }
}
