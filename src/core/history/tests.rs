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
fn lines_no_gate_of_this_reference_writes_are_skipped() {
    // A failing gate of `lucky`, as the gate writes it: read.
    let good = gate_line(3, "fail", &[true, false]);
    let forged = |f: &dyn Fn(&mut Line)| {
        let mut line = good.clone();
        line.at = "2026-12-04T10:00:00Z".into();
        f(&mut line);
        line.to_json()
    };
    let text = [
        good.to_json(),
        // The same gate again.
        good.to_json(),
        // More re-asks failed than made; more made than any gate makes.
        forged(&|l| l.flagged[0].4 = 3),
        forged(&|l| {
            l.flagged[0].3 = 4_294_967_296;
            l.flagged[0].4 = 4_294_967_296;
        }),
        // The pair listed twice: the reference has it once.
        forged(&|l| {
            l.flagged.push(l.flagged[0].clone());
            l.checks[0].2 = 0;
        }),
        // Passed more often than judged; judged more often than the reference has it.
        forged(&|l| l.checks[0].2 = 10),
        forged(&|l| l.checks[0] = ("answer".into(), 5000, 4999)),
        // A failing pair the counts do not show, and the reverse.
        forged(&|l| l.checks[0].2 = 2),
        forged(&|l| l.flagged.clear()),
        // A case or a check the reference does not have.
        forged(&|l| l.flagged[0].0 = "other".into()),
        forged(&|l| l.checks.push(("other".into(), 1, 1))),
        // An exit code or a spend no gate records.
        forged(&|l| l.exit = 70),
        forged(&|l| l.usd = Some(-1e308)),
    ]
    .join("\n");
    let h = History::read(&text, &reference(), now());
    assert_eq!(h.lines.len(), 1);
    assert_eq!(
        h.skipped,
        BTreeMap::from([(Skip::Inconsistent, 11), (Skip::Duplicate, 1)])
    );
    let p = h.pair("lucky", "answer").unwrap();
    assert_eq!((p.asked, p.failed), (3, 2));
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

/// The lines of `gates` gates (from 2 December) of a reference of
/// `cases`: per gate, the cases that failed with their re-asks (`true`:
/// failed again).
fn gates_of(
    reference: &RunDocument,
    gates: u32,
    failing: impl Fn(u32) -> Vec<(String, Vec<bool>)>,
) -> String {
    (0..gates)
        .map(|g| {
            let failed = failing(g);
            let cases: Vec<(String, &str)> = reference
                .results
                .iter()
                .map(|c| {
                    let fails = failed.iter().any(|(id, _)| *id == c.case_id);
                    (c.case_id.clone(), if fails { "fail" } else { "pass" })
                })
                .collect();
            let cases: Vec<(&str, &str, &[f64])> = cases
                .iter()
                .map(|(id, st)| (id.as_str(), *st, &[][..]))
                .collect();
            let run = doc("2026-12-02T00:00:00+00:00", "abcd", &cases);
            let record = ReaskRecord {
                reference_created_at: REF_AT.into(),
                reference_config_hash: "abcd".into(),
                false_alarm_rate: 0.05,
                exposed: failed.len(),
                attempt: 1,
                carried: Vec::new(),
                pairs: failed
                    .iter()
                    .map(|(id, again)| Reasked {
                        case_id: id.to_string(),
                        assertion_id: "a1".into(),
                        occurrence: 0,
                        failed: again.clone(),
                    })
                    .collect(),
            };
            let at = format!("2026-12-{:02}T{:02}:00:00Z", 2 + g / 24, g % 24);
            Line::of(&run, reference, Some(&record), (0, None, None, at)).to_json() + "\n"
        })
        .collect()
}

/// A reference of `lucky` cases named `lucky-N` and `steady` cases, every
/// one passed 5 of 5.
fn reference_of(lucky: usize, steady: usize) -> RunDocument {
    let ids: Vec<String> = (0..lucky)
        .map(|i| format!("lucky-{i}"))
        .chain((0..steady).map(|i| format!("steady-{i}")))
        .collect();
    let cases: Vec<(&str, &str, &[f64])> = ids
        .iter()
        .map(|id| (id.as_str(), "pass", &[1.0; 5][..]))
        .collect();
    doc(REF_AT, "abcd", &cases)
}

#[test]
fn a_reference_that_passed_five_of_five_is_named_lucky_when_main_fails_it_often() {
    // Ten gates: the case failed in every other one, and two of its three
    // re-asks failed again: 15 failed of 25 answers.
    let text: String = (2..=11)
        .map(|d| {
            let fails = d % 2 == 0;
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
    assert_eq!((l.failed, l.asked), (15, 25));
    // scipy.stats.boschloo_exact([[5, 10], [0, 15]], alternative="greater")
    assert!((l.p - 0.008_270_392_284_039_125).abs() < 1e-9, "{}", l.p);
}

#[test]
fn nine_gates_are_not_enough_and_the_tenth_names_it() {
    let reference = reference_of(1, 1);
    let always = |_| vec![("lucky-0".to_string(), vec![true, true, true])];
    let nine = History::read(&gates_of(&reference, 9, always), &reference, now());
    assert_eq!(nine.lines.len(), 9);
    assert!(nine.lucky(&reference, 0.05).is_empty());
    let ten = History::read(&gates_of(&reference, 10, always), &reference, now());
    let named = ten.lucky(&reference, 0.05);
    assert_eq!(named.len(), 1);
    assert_eq!((named[0].failed, named[0].asked), (40, 40));
}

#[test]
fn hundreds_of_steady_cases_do_not_divide_the_rate() {
    // A case the base branch failed in 9 of 19 answers (3 of 10 gates, each
    // with two of three re-asks failed) against a reference of 5 of 5,
    // beside 300 cases that never failed: those could not be named whatever
    // happened, so the rate is not divided among them.
    let reference = reference_of(1, 300);
    let text = gates_of(&reference, 10, |g| {
        if g % 3 == 0 && g < 9 {
            vec![("lucky-0".to_string(), vec![true, true, false])]
        } else {
            Vec::new()
        }
    });
    let h = History::read(&text, &reference, now());
    let named = h.lucky(&reference, 0.05);
    assert_eq!(named.len(), 1, "{named:?}");
    assert_eq!((named[0].failed, named[0].asked), (9, 19));
    // scipy.stats.boschloo_exact([[5, 10], [0, 9]], alternative="greater")
    assert!(
        (named[0].p - 0.027_799_594_969_920_62).abs() < 1e-9,
        "{}",
        named[0].p
    );
    // Fisher's p of the same table is 0.0707: the exact unconditional test
    // is what names it.
    let fisher = crate::core::stats::fisher_worse(5, 5, 9, 19);
    assert!((fisher - 0.070_652_173_913_043_49).abs() < 1e-9, "{fisher}");
}

#[test]
fn three_checks_that_could_be_named_divide_the_rate() {
    // The same 9 of 19 in three cases: each could be named, so each is
    // tested at a third of the rate, and 0.0278 is not under 0.0167.
    let reference = reference_of(3, 50);
    let text = gates_of(&reference, 10, |g| {
        if g % 3 == 0 && g < 9 {
            (0..3)
                .map(|i| (format!("lucky-{i}"), vec![true, true, false]))
                .collect()
        } else {
            Vec::new()
        }
    });
    let h = History::read(&text, &reference, now());
    assert!(h.lucky(&reference, 0.05).is_empty());
    // At a declared rate of 0.09 each is tested at 0.03, and named.
    assert_eq!(h.lucky(&reference, 0.09).len(), 3);
}

#[test]
fn a_steady_case_failing_now_and_then_is_not_named() {
    // Hundreds of steady cases over 30 gates, each failing once in a while
    // (one answer in 200, its re-asks passing): none is named.
    let reference = reference_of(0, 200);
    let text = gates_of(&reference, 30, |g| {
        (0..200)
            .filter(|i| (i * 7 + g as usize * 13).is_multiple_of(200))
            .map(|i| (format!("steady-{i}"), vec![false, false]))
            .collect()
    });
    let h = History::read(&text, &reference, now());
    assert_eq!(h.lines.len(), 30);
    assert!(h.lucky(&reference, 0.05).is_empty());
}

#[test]
fn a_case_failing_once_is_not_named_lucky() {
    let text: String = (2..=13)
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
    let text: String = (2..=13)
        .map(|d| gate_line(d, "fail", &[true, true, true]).to_json() + "\n")
        .collect();
    let h = History::read(&text, &once, now());
    assert_eq!(h.lines.len(), 12);
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
