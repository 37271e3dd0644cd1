//! Unit tests of the history's lines, their checks, strips and the lucky-reference test.

use serde_json::{json, Value};

use super::*;
use crate::core::compare::reask::Reasked;

fn now() -> OffsetDateTime {
    OffsetDateTime::parse("2026-12-31T12:00:00Z", &Rfc3339).unwrap()
}

/// `(case, status, samples)` verdicts of one check `answer`.
fn doc(created_at: &str, hash: &str, cases: &[(&str, &str, &[f64])]) -> RunDocument {
    let results: Vec<Value> = cases
        .iter()
        .map(|(id, status, samples)| {
            let mut v = json!({
                "assertion": "answer", "assertion_id": "a1", "metadata": {}, "reason": "secret",
                "score": if *status == "error" { Value::Null } else { json!(1.0) },
                "status": status, "threshold": 0.5, "tolerance": 0.0
            });
            if !samples.is_empty() {
                v["samples"] = json!(samples);
                v["sample_min"] = json!(0.0);
                v["sample_max"] = json!(1.0);
            }
            json!({"case_id": id, "suspended": false, "verdicts": [v]})
        })
        .collect();
    serde_json::from_value(json!({
        "aggregate": [], "artifacts": {}, "config_hash": hash,
        "created_at": created_at, "digline_version": "0.10.0",
        "environment": "local", "git_commit": null, "judge_config": {}, "metadata": {"secret": "vars"},
        "redacted": false, "results": results, "schema_version": 10, "suite": "s",
        "target_config": {}, "tenant": "s"
    }))
    .unwrap()
}

const REF_AT: &str = "2026-12-01T00:00:00+00:00";

fn reference() -> RunDocument {
    doc(
        REF_AT,
        "abcd",
        &[("lucky", "pass", &[1.0; 5]), ("steady", "pass", &[1.0; 5])],
    )
}

fn gate_line(day: u32, lucky: &str, reasks: &[bool]) -> Line {
    let run = doc(
        "2026-12-02T00:00:00+00:00",
        "abcd",
        &[("lucky", lucky, &[]), ("steady", "pass", &[])],
    );
    let record = ReaskRecord {
        reference_created_at: REF_AT.into(),
        reference_config_hash: "abcd".into(),
        false_alarm_rate: 0.05,
        exposed: 1,
        attempt: 1,
        carried: Vec::new(),
        pairs: vec![Reasked {
            case_id: "lucky".into(),
            assertion_id: "a1".into(),
            occurrence: 0,
            failed: reasks.to_vec(),
        }],
    };
    Line::of(
        &run,
        &reference(),
        Some(&record),
        (
            0,
            Some(0.5),
            Some("c0ffee".into()),
            format!("2026-12-{day:02}T10:00:00Z"),
        ),
    )
}

#[test]
fn a_line_lists_only_what_did_not_pass_and_no_payload() {
    let line = gate_line(2, "fail", &[true, false]);
    let text = line.to_json();
    assert_eq!(
        text,
        r#"{"v":1,"at":"2026-12-02T10:00:00Z","commit":"c0ffee","reference":"2026-12-01T00:00:00+00:00","reference_config":"abcd","config":"abcd","exit":0,"usd":0.5,"checks":[["answer",2,1]],"flagged":[["lucky","answer","f",2,1]]}"#
    );
    assert!(!text.contains("secret") && !text.contains("vars"));
}

#[test]
fn a_history_is_read_back_and_a_pair_shows_its_strip() {
    let text: String = (2..=6)
        .map(|d| gate_line(d, if d == 4 { "fail" } else { "pass" }, &[]).to_json() + "\n")
        .collect();
    let h = History::read(&text, &reference(), now());
    assert_eq!((h.lines.len(), h.skipped_total()), (5, 0));
    let p = h.pair("lucky", "answer").unwrap();
    assert_eq!(p.strip(), "▇▇▁▇▇");
    assert_eq!(p.passed_of(), (4, 5));
    assert_eq!(p.first_failed.as_deref(), Some("2026-12-04"));
    assert_eq!((p.asked, p.failed), (5, 1));
    let steady = h.pair("steady", "answer").unwrap();
    assert_eq!(
        (steady.strip().as_str(), steady.first_failed),
        ("▇▇▇▇▇", None)
    );
    assert!(h.pair("lucky", "other check").is_none());
}

#[test]
fn a_strip_and_its_count_show_the_last_twenty_gates_and_the_first_failure_of_all() {
    let text: String = (1..=22)
        .map(|d| gate_line(d + 1, if d == 1 { "error" } else { "pass" }, &[]).to_json() + "\n")
        .collect();
    let p = History::read(&text, &reference(), now())
        .pair("lucky", "answer")
        .unwrap();
    assert_eq!(p.strip(), "▇".repeat(20));
    assert_eq!(p.passed_of(), (20, 20));
    assert_eq!(p.marks.len(), 22);
    assert_eq!(p.first_failed.as_deref(), Some("2026-12-02"));
    assert_eq!(
        (p.asked, p.failed),
        (21, 0),
        "a gate that could not judge asked nothing"
    );
}

#[test]
fn forged_lines_are_skipped_and_counted_by_why() {
    let good = gate_line(3, "pass", &[]);
    let mut other = good.clone();
    other.reference = "2026-11-01T00:00:00+00:00".into();
    let mut config = good.clone();
    config.config = "ffff".into();
    let mut future = good.clone();
    future.at = "2027-01-01T00:00:00Z".into();
    let mut before = good.clone();
    before.at = "2026-11-30T00:00:00Z".into();
    let mut code = good.clone();
    code.flagged
        .push(("lucky".into(), "answer".into(), "p".into(), 0, 0));
    let text = [
        good.to_json(),
        other.to_json(),
        config.to_json(),
        future.to_json(),
        before.to_json(),
        code.to_json(),
        "{not json".into(),
        r#"{"v":2}"#.into(),
    ]
    .join("\n");
    let h = History::read(&text, &reference(), now());
    assert_eq!(h.lines.len(), 1);
    assert_eq!(
        h.skipped,
        BTreeMap::from([
            (Skip::Malformed, 3),
            (Skip::OtherReference, 1),
            (Skip::WrongConfig, 1),
            (Skip::Date, 2)
        ])
    );
    assert_eq!(h.skipped_total(), 7);
}

#[test]
fn appending_keeps_the_last_n_lines() {
    let mut text = String::new();
    for d in 1..=5 {
        text = appended(&text, &gate_line(d, "pass", &[]), 3);
    }
    let days: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Line>(l).unwrap().at[..10].to_string())
        .collect();
    assert_eq!(days, ["2026-12-03", "2026-12-04", "2026-12-05"]);
    assert_eq!(
        appended("garbage\n", &gate_line(1, "pass", &[]), 3)
            .lines()
            .count(),
        1
    );
}

#[test]
fn a_reference_that_passed_five_of_five_is_named_lucky_when_main_fails_it_often() {
    // Eight gates: the case failed in five, and its re-asks failed again.
    let text: String = (2..=9)
        .map(|d| {
            let fails = d % 2 == 0 || d == 9;
            gate_line(
                d,
                if fails { "fail" } else { "pass" },
                if fails { &[true, true, false] } else { &[] },
            )
            .to_json()
                + "\n"
        })
        .collect();
    let h = History::read(&text, &reference(), now());
    let lucky = h.lucky(&reference(), 0.05);
    assert_eq!(lucky.len(), 1);
    let l = &lucky[0];
    assert_eq!((l.case.as_str(), l.passed, l.samples), ("lucky", 5, 5));
    assert_eq!((l.failed, l.asked), (15, 23));
    assert!(l.p <= 0.025, "{}", l.p);
}

#[test]
fn a_case_failing_once_is_not_named_lucky() {
    let text: String = (2..=9)
        .map(|d| {
            gate_line(d, if d == 5 { "fail" } else { "pass" }, &[false, false]).to_json() + "\n"
        })
        .collect();
    let h = History::read(&text, &reference(), now());
    assert!(h.lucky(&reference(), 0.05).is_empty());
}

#[test]
fn a_reference_measured_once_is_never_named_lucky() {
    let once = doc(
        REF_AT,
        "abcd",
        &[("lucky", "pass", &[]), ("steady", "pass", &[])],
    );
    let text: String = (2..=9)
        .map(|d| gate_line(d, "fail", &[true, true, true]).to_json() + "\n")
        .collect();
    let h = History::read(&text, &once, now());
    assert_eq!(h.lines.len(), 8);
    assert!(h.lucky(&once, 0.05).is_empty());
}

#[test]
fn check_rates_are_per_gate() {
    let text = [
        gate_line(2, "fail", &[]).to_json(),
        gate_line(3, "pass", &[]).to_json(),
    ]
    .join("\n");
    let h = History::read(&text, &reference(), now());
    assert_eq!(
        h.check_rates(),
        BTreeMap::from([("answer".to_string(), vec![0.5, 1.0])])
    );
}
