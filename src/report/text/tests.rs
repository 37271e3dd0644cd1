//! Golden tests of `compare`'s terminal text (all 19 scenarios of digline
//! 0.10.0) and unit tests of the pieces.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::*;
use crate::core::compare::golden_scenarios::SCENARIOS;
use crate::core::compare::{compare, exit_code, ConfigDelta, ConfigOutcome};
use crate::core::document::RunDocument;
use crate::report::gate::{causes, Causes};

fn dir(scenario: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/goldens/headlines")
        .join(scenario)
}

fn read(scenario: &str, file: &str) -> String {
    let path = dir(scenario).join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What this product prints where it is deliberately stricter than 0.10.0
/// (spec `40-compare.md`, coverage of the reference and rule changes): the
/// committed `strict.<stream>` beside 0.10.0's `compare.<stream>` when the
/// scenario has one, else 0.10.0's own. The 0.10.0 files stay as 0.10.0
/// wrote them.
fn expected(scenario: &str, stream: &str) -> String {
    let strict = dir(scenario).join(format!("strict.{stream}"));
    if strict.exists() {
        read(scenario, &format!("strict.{stream}"))
    } else {
        read(scenario, &format!("compare.{stream}"))
    }
}

fn document(scenario: &str, file: &str) -> RunDocument {
    serde_json::from_str(&read(scenario, file)).unwrap_or_else(|e| panic!("{scenario}/{file}: {e}"))
}

/// The one cause in the golden runs: every errored verdict's stored reason
/// is 0.10.0's `target raised ValueError: 127.0.0.1:18950 could not be
/// called: HTTP Error 500: Internal Server Error`.
const CAUSE_500: &str = "The target at 127.0.0.1:18950 answered HTTP 500.";

/// 0.10.0's text as digline prints it: the same lines, except that a check
/// that could not run also says why, after 0.10.0's words (issue 16: what
/// people read is digline's sentence; documents keep 0.10.0's bytes). The
/// golden files themselves are 0.10.0's output, untouched.
fn with_causes(golden: &str) -> String {
    golden
        .lines()
        .map(
            |line| match line.strip_suffix(" · The check could not run.") {
                Some(head) => format!("{head} · The check could not run. {CAUSE_500}\n"),
                None => format!("{line}\n"),
            },
        )
        .collect()
}

/// 0.10.0's text with its rows (`case · check · what happened`) in suite
/// order: those that got worse, then those that could not run, each group
/// with cases as the run lists them (then the reference's), checks as the
/// case lists them, whole-run measures last (0.10.0 listed them by
/// check-identity hash). Recomputed from the documents' own lists, not
/// through `SuiteOrder`, so the test does not grade itself.
fn in_suite_order(golden: &str, docs: [&RunDocument; 2]) -> String {
    let mut cases: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut measures: Vec<&str> = Vec::new();
    for doc in docs {
        for case in &doc.results {
            let names = case.verdicts.iter().map(|v| v.assertion.as_str());
            match cases.iter_mut().find(|(c, _)| *c == case.case_id) {
                Some((_, known)) => {
                    for n in names {
                        if !known.contains(&n) {
                            known.push(n);
                        }
                    }
                }
                None => cases.push((case.case_id.as_str(), names.collect())),
            }
        }
        for v in &doc.aggregate {
            if !measures.contains(&v.assertion.as_str()) {
                measures.push(&v.assertion);
            }
        }
    }
    let position = |line: &str| {
        let mut fields = line.split(" · ");
        let (case, check) = (
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
        );
        if case == "whole run" {
            let at = measures.iter().position(|m| *m == check);
            return (cases.len(), at.unwrap_or(usize::MAX));
        }
        let at = cases.iter().position(|(c, _)| *c == case);
        let check_at = at
            .and_then(|i| cases[i].1.iter().position(|n| *n == check))
            .unwrap_or(usize::MAX);
        (at.unwrap_or(usize::MAX), check_at)
    };
    let is_row = |l: &str| !l.starts_with(' ') && l.split(" · ").count() >= 3;
    let mut chunks: Vec<String> = golden
        .trim_end_matches('\n')
        .split("\n\n")
        .map(str::to_string)
        .collect();
    if let Some(block) = chunks.iter_mut().skip(1).find(|c| c.lines().all(is_row)) {
        let (mut errored, mut worse): (Vec<&str>, Vec<&str>) = block
            .lines()
            .partition(|l| l.ends_with("The check could not run."));
        worse.sort_by_cached_key(|l| position(l));
        errored.sort_by_cached_key(|l| position(l));
        *block = worse
            .into_iter()
            .chain(errored)
            .collect::<Vec<_>>()
            .join("\n");
    }
    let mut text = chunks.join("\n\n");
    if golden.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[test]
fn every_scenario_prints_what_0_10_0_printed() {
    let folders = std::fs::read_dir(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/goldens/headlines"),
    )
    .map(|entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .count()
    })
    .unwrap_or(0);
    assert_eq!(
        folders,
        SCENARIOS.len(),
        "a scenario folder is not in the table"
    );
    for scenario in SCENARIOS {
        let run = document(scenario, "run.json");
        let baseline = document(scenario, "baseline.json");
        let comparison = crate::report::order::compare_in_suite_order(&run, &baseline)
            .unwrap_or_else(|e| panic!("{scenario}: {e}"));
        let text = render_compare(
            &comparison,
            &causes(&run, crate::core::failed_calls::FailedCalls::none()),
            Locale::En,
        );
        assert_eq!(
            text.stdout,
            with_causes(&in_suite_order(
                &expected(scenario, "stdout"),
                [&run, &baseline]
            )),
            "{scenario}: stdout"
        );
        assert_eq!(
            text.stderr,
            expected(scenario, "stderr"),
            "{scenario}: stderr"
        );
        // Where this product is stricter, the first line still holds every
        // clause 0.10.0 wrote, in 0.10.0's words, bar "The suite is unchanged".
        let ours = text.stdout.lines().next().unwrap_or_default();
        let theirs = read(scenario, "compare.stdout");
        for clause in theirs.lines().next().unwrap_or_default().split(". ") {
            if !clause.starts_with("The suite is unchanged") {
                assert!(ours.contains(clause), "{scenario}: {clause:?} in {ours:?}");
            }
        }
        let code: i32 = expected(scenario, "exit").trim().parse().unwrap_or(-1);
        assert_eq!(exit_code(&comparison).code(), code, "{scenario}: exit code");
        // 13 and 17 changed the suite: the comparison reads only the two
        // documents, so the old suite.toml gave 0.10.0 the same answer (and
        // so it gives ours: nothing but the documents is read).
        if dir(scenario)
            .join("compare-with-baseline-suite.stdout")
            .exists()
        {
            assert_eq!(
                read(scenario, "compare.stdout"),
                read(scenario, "compare-with-baseline-suite.stdout"),
                "{scenario}"
            );
            assert_eq!(
                read(scenario, "compare.exit"),
                read(scenario, "compare-with-baseline-suite.exit"),
                "{scenario}: exit with the baseline's suite"
            );
        }
    }
}

fn delta(field: &str, outcome: ConfigOutcome, before: Value, after: Value) -> ConfigDelta {
    ConfigDelta {
        field: field.into(),
        outcome,
        before,
        after,
        withheld: false,
    }
}

#[test]
fn configuration_changes_read_as_0_10_0_writes_them() {
    let table = [
        (
            delta(
                "temperature",
                ConfigOutcome::Changed,
                json!(0.3),
                json!(0.7),
            ),
            "temperature 0.3 → 0.7",
        ),
        (
            delta(
                "max_tokens",
                ConfigOutcome::Changed,
                json!(1024),
                json!(512),
            ),
            "max_tokens 1024 → 512",
        ),
        (
            delta("cost", ConfigOutcome::Changed, json!(1e-05), json!(2.0)),
            "cost 1e-05 → 2.0",
        ),
        (
            delta("stream", ConfigOutcome::New, Value::Null, json!(true)),
            "stream true, not sent for the reference",
        ),
        (
            delta("seed", ConfigOutcome::Missing, json!(7), Value::Null),
            "seed 7, no longer sent",
        ),
        (
            delta(
                "resolved_model",
                ConfigOutcome::New,
                Value::Null,
                json!("m-1"),
            ),
            "resolved_model m-1, not reported for the reference",
        ),
        (
            delta("judge", ConfigOutcome::New, Value::Null, json!("a/b")),
            "a/b was added as a judge",
        ),
        (
            delta("judge", ConfigOutcome::Missing, json!("a/b"), Value::Null),
            "a/b no longer judges",
        ),
        (
            delta("model", ConfigOutcome::Changed, Value::Null, json!("x")),
            "model — → x",
        ),
    ];
    for (row, want) in table {
        assert_eq!(change(&row, &EN), want);
    }
    let mixed = [
        delta("a", ConfigOutcome::Same, json!(1), json!(1)),
        delta("b", ConfigOutcome::Unknown, json!(1), json!(2)),
        delta("c", ConfigOutcome::Changed, json!("x"), json!("y")),
    ];
    assert_eq!(config_changes(&mixed, &EN), "c x → y");
    assert_eq!(
        target_fact(&mixed, &EN),
        "The system under test answered under a different configuration: c x → y."
    );
    assert_eq!(target_fact(&mixed[1..2], &EN), EN.target_unknown);
    assert_eq!(target_fact(&mixed[..2], &EN), EN.target_unchanged);
    assert_eq!(target_fact(&[], &EN), "");
}

/// A document pair where `n` cases each lose one passing check.
fn many_regressions(n: usize) -> (RunDocument, RunDocument) {
    let make = |status: &str, score: f64| -> RunDocument {
        let results: Vec<Value> = (0..n)
            .map(|i| json!({"case_id": format!("case-{i:02}"), "suspended": false, "verdicts": [{
                "assertion": "contains", "assertion_id": "aaaaaaaaaaaaaaaa", "metadata": {},
                "reason": "r", "score": score, "status": status, "threshold": 1.0, "tolerance": 0.0
            }]}))
            .collect();
        let raw = json!({
            "aggregate": [], "artifacts": {}, "config_hash": "0", "created_at": "x",
            "digline_version": "0.10.0", "environment": "local", "git_commit": null,
            "judge_config": {}, "metadata": {}, "redacted": false, "results": results,
            "schema_version": 10, "suite": "s", "target_config": {}, "tenant": "t"
        });
        serde_json::from_value(raw).unwrap_or_else(|e| panic!("{e}"))
    };
    (make("fail", 0.0), make("pass", 1.0))
}

#[test]
fn summary_stops_at_twenty_and_says_so() {
    for (n, lines, last) in [
        (
            20,
            20,
            "case-19 · contains · Went from passing to failing (1.000000 → 0.000000).",
        ),
        (
            21,
            21,
            "showing the first 20 of 21; the full list is in the report",
        ),
        (
            25,
            21,
            "showing the first 20 of 25; the full list is in the report",
        ),
    ] {
        let (run, baseline) = many_regressions(n);
        let comparison = compare(&run, &baseline).unwrap_or_else(|e| panic!("{e}"));
        let got = summary_lines(&comparison, &Causes::new(), Locale::En, Some(SUMMARY_LIMIT));
        assert_eq!(got.len(), lines, "{n}");
        assert_eq!(got.last().map(String::as_str), Some(last), "{n}");
        assert_eq!(
            summary_lines(&comparison, &Causes::new(), Locale::En, None).len(),
            n
        );
    }
}

#[test]
fn strict_clauses_name_what_was_not_measured() {
    let (mut run, mut baseline) = many_regressions(1);
    // Rename every case: nothing pairs.
    run.results[0].case_id = "renamed".into();
    let comparison = compare(&run, &baseline).unwrap_or_else(|e| panic!("{e}"));
    let sentence = headline_sentence(&comparison, &comparison.headline(), &EN);
    assert!(sentence.starts_with(EN.nothing_compared), "{sentence}");
    assert!(!sentence.contains("Nothing got worse"), "{sentence}");

    // An aggregate that errored in the run is named.
    let (mut run, _) = many_regressions(1);
    run.results[0] = baseline.results[0].clone();
    let agg: crate::core::verdict::Verdict = serde_json::from_value(json!({
        "assertion": "precision", "assertion_id": "bbbbbbbbbbbbbbbb", "metadata": {},
        "reason": "empty denominator", "score": null, "status": "error", "threshold": 0.5, "tolerance": 0.0
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    run.aggregate.push(agg.clone());
    let mut second = agg;
    second.assertion = "recall".into();
    second.assertion_id = "cccccccccccccccc".into();
    let comparison = compare(&run, &baseline).unwrap_or_else(|e| panic!("{e}"));
    let sentence = headline_sentence(&comparison, &comparison.headline(), &EN);
    assert_eq!(
        sentence,
        "Nothing got worse compared with the reference. Every case could be judged. \
         The whole-run measure precision could not be computed. No case is suspended. \
         The cases or checks differ from the reference (0 missing, 1 new)."
    );
    run.aggregate.push(second);
    baseline.aggregate.clear();
    let comparison = compare(&run, &baseline).unwrap_or_else(|e| panic!("{e}"));
    let text = render_compare(
        &comparison,
        &causes(&run, crate::core::failed_calls::FailedCalls::none()),
        Locale::En,
    )
    .stdout;
    assert!(
        text.contains("2 whole-run measures could not be computed: precision, recall."),
        "{text}"
    );
    assert!(
        text.contains("whole run · precision · New here, and the check could not run. The check could not judge the answer it was given."),
        "{text}"
    );
    assert!(!text.contains("empty denominator"), "{text}");
}

#[test]
fn templates_fill_by_name_once() {
    let table = [
        ("{a} and {b}", vec![("a", "1"), ("b", "{a}")], "1 and {a}"),
        ("{missing} stays", vec![("a", "1")], "{missing} stays"),
        ("no braces", vec![], "no braces"),
        ("open { only", vec![], "open { only"),
    ];
    for (template, params, want) in table {
        assert_eq!(fill(template, &params), want, "{template}");
    }
}

#[test]
fn splitlines_and_tally_follow_python() {
    assert_eq!(
        py_splitlines("a\nb\r\nc\rd\u{2028}e\n"),
        vec!["a", "b", "c", "d", "e"]
    );
    assert_eq!(py_splitlines(""), Vec::<&str>::new());
    assert_eq!(py_splitlines("\n\n"), vec!["", ""]);
    let artifact = |before: &str, after: &str| ArtifactDelta {
        path: "p.md".into(),
        outcome: ArtifactOutcome::Changed,
        before_text: Some(before.into()),
        after_text: Some(after.into()),
        withheld: false,
    };
    assert_eq!(diff_tally(&artifact("a\nb\nc\n", "a\nB\nc\nd\n")), (2, 1));
    assert_eq!(diff_tally(&artifact("x", "x")), (0, 0));
    // 0.10.0 drops lines that look like file headers from its tally.
    assert_eq!(diff_tally(&artifact("--x\n", "++y\n")), (0, 0));
}

#[test]
fn long_names_are_shortened_keeping_both_ends() {
    assert_eq!(shorten_name("short"), "short");
    let long = format!("start{}end", "x".repeat(70_000));
    let shown = shorten_name(&long);
    assert_eq!(shown.chars().count(), NAME_SHOWN);
    assert!(
        shown.starts_with("startxx") && shown.ends_with("…nd"),
        "{shown}"
    );
    let exact = "y".repeat(NAME_SHOWN);
    assert_eq!(shorten_name(&exact), exact);
}

/// A base that could not be read: the headline names the pull request's
/// knobs, at most six, then how many more; none, the plain clause.
#[test]
fn the_unverified_clause_names_the_knobs_at_most_six() {
    use crate::core::evaluation::Knob;
    let knob = |n: usize| Knob {
        what: format!("[[assertions]] c{n} threshold"),
        value: "0.5".to_string(),
    };
    assert_eq!(
        unverified_clause(&[], &EN),
        "The suite was not verified against the base (it could not be read): its rules and knobs are the pull request's own, unverified."
    );
    assert_eq!(
        unverified_clause(&[knob(1)], &EN),
        "The suite was not verified against the base (it could not be read): its rules and knobs are the pull request's own, unverified ([[assertions]] c1 threshold = 0.5)."
    );
    let eight: Vec<Knob> = (1..=8).map(knob).collect();
    let clause = unverified_clause(&eight, &EN);
    assert!(clause.ends_with("c6 threshold = 0.5, … (+2))."), "{clause}");
    assert!(!clause.contains("c7"), "{clause}");
}
