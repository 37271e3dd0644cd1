//! Unit tests of the history's words and charts.

use serde_json::json;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::*;
use crate::core::document::RunDocument;
use crate::core::history::Line;

fn reference() -> RunDocument {
    serde_json::from_value(json!({
        "aggregate": [], "artifacts": {}, "config_hash": "abcd",
        "created_at": "2026-12-01T00:00:00+00:00", "digline_version": "0.10.0",
        "environment": "local", "git_commit": null, "judge_config": {}, "metadata": {},
        "redacted": false, "results": [{"case_id": "c<1>", "suspended": false, "verdicts": [{
            "assertion": "answer", "assertion_id": "a1", "metadata": {}, "reason": "secret",
            "score": 1.0, "status": "pass", "threshold": 0.5, "tolerance": 0.0,
            "samples": [1.0, 1.0, 1.0, 1.0, 1.0], "sample_min": 1.0, "sample_max": 1.0
        }]}], "schema_version": 10, "suite": "s", "target_config": {}, "tenant": "s"
    }))
    .unwrap()
}

fn history(fails: &[bool]) -> History {
    let text: String = fails
        .iter()
        .enumerate()
        .map(|(i, fail)| {
            let line = Line {
                v: 1,
                at: format!("2026-12-{:02}T00:00:00Z", i + 2),
                commit: None,
                reference: "2026-12-01T00:00:00+00:00".into(),
                reference_config: "abcd".into(),
                config: "abcd".into(),
                exit: 0,
                usd: Some(0.25 + i as f64 / 100.0),
                checks: vec![("answer".into(), 1, u64::from(!fail))],
                flagged: if *fail {
                    vec![("c<1>".into(), "answer".into(), "f".into(), 2, 2)]
                } else {
                    vec![]
                },
            };
            line.to_json() + "\n"
        })
        .collect();
    let now = OffsetDateTime::parse("2026-12-30T00:00:00Z", &Rfc3339).unwrap();
    History::read(&(text + "forged\n"), &reference(), now)
}

#[test]
fn a_cell_says_the_strip_in_words_in_every_locale() {
    let h = history(&[false, false, true, false]);
    assert_eq!(
        cell(&h, "c<1>", "answer", Locale::En).unwrap(),
        "▇▇▁▇ passed in 3 of the last 4 gates on the base branch; first failed 2026-12-04"
    );
    for locale in Locale::ALL {
        let text = cell(&h, "c<1>", "answer", locale).unwrap();
        assert!(
            text.starts_with("▇▇▁▇ ") && text.contains('3') && text.contains("2026-12-04"),
            "{text}"
        );
    }
    assert!(cell(&h, "c<1>", "other", Locale::En).is_none());
}

#[test]
fn the_note_counts_what_was_skipped_and_names_a_lucky_reference() {
    let h = history(&[true; 10]);
    let lucky = h.lucky(&reference(), 0.05);
    assert_eq!(lucky.len(), 1);
    let note = note(
        &h,
        &lucky,
        [("c<1>", "answer")].into_iter(),
        &|_| "digline run --samples 20".to_string(),
        Locale::En,
    );
    assert_eq!(
        note.lines,
        [
            "10 gates on the base branch against this reference are in the history (▇ passed, ▁ failed, · not judged; oldest first). History informs: it never changes the exit code.",
            "1 history lines were skipped for failing their own checks (1 not a history line).",
        ]
    );
    assert!(note.lucky[0].starts_with("c<1> · answer: the reference passed 5 of 5, but the base branch's gates failed it in 30 of 30 answers"), "{}", note.lucky[0]);
    assert!(note.lucky[0].ends_with("digline run --samples 20"));
    assert_eq!(note.cells.len(), 1);
}

#[test]
fn the_charts_are_inline_svg_with_titles_and_tables_and_escape_names() {
    let h = history(&[false, true, false, true, true, true, true, true, true, true]);
    let lucky = h.lucky(&reference(), 0.05);
    let n = note(
        &h,
        &lucky,
        std::iter::empty(),
        &|_| "cmd".to_string(),
        Locale::De,
    );
    let html = charts(&h, &[], &lucky, &n, 0.05, Locale::De);
    assert_eq!(html.matches("<svg ").count(), 3, "{html}");
    assert_eq!(html.matches("<title id=").count(), 3);
    assert_eq!(html.matches("<table ").count(), 3);
    assert!(html.contains("Bestehensrate je Prüfung"));
    assert!(html.contains("c&lt;1&gt;") && !html.contains("c<1>"));
    assert!(!html.contains("<script") && !html.contains("https://"));
    assert_eq!(
        html.matches("http://").count(),
        html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    assert!(!html.contains("secret"));
}

#[test]
fn no_history_draws_no_chart() {
    let h = history(&[]);
    let n = note(
        &h,
        &[],
        std::iter::empty(),
        &|_| "cmd".to_string(),
        Locale::En,
    );
    let html = charts(&h, &[], &[], &n, 0.05, Locale::En);
    assert!(!html.contains("<svg"));
    assert!(html.contains("0 gates on the base branch"));
}
