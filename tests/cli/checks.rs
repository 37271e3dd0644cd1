//! The checks of this catalogue against digline 0.10.0, one input at a time
//! (`tests/goldens/checks/catalogue.json`, made by `generate_catalogue.py`
//! with the oracle): each row's `[[assertions]]` keys go through our
//! `build`, the check judges the row's inputs, and the verdict must be
//! 0.10.0's (name, status, score, reason, metadata, threshold, tolerance).
//! A row where 0.10.0's check raised must be an `error` whose reason is what
//! 0.10.0's driver records: `assertion raised <T>: <message>`.

use digline::core::checks::{build, Inputs};
use serde_json::{Map, Value};

use crate::util::golden;

#[test]
fn every_catalogue_row_judges_as_0_10_0() {
    let text = std::fs::read_to_string(golden("checks/catalogue.json")).unwrap();
    let rows: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(rows.len() > 900, "the catalogue is there");
    let mut failures = Vec::new();
    for row in &rows {
        let label = row["label"].as_str().unwrap_or_default();
        let mut params = row["check"].as_object().cloned().unwrap_or_default();
        let token = params
            .remove("type")
            .and_then(|t| t.as_str().map(String::from))
            .unwrap_or_default();
        let check = build(&token, &params).unwrap_or_else(|e| panic!("{label}: {e}"));
        let inputs = &row["inputs"];
        let response: Map<String, Value> =
            inputs["response"].as_object().cloned().unwrap_or_default();
        let expected = (!inputs["expected"].is_null()).then_some(&inputs["expected"]);
        let verdict = check.evaluate(&Inputs {
            output: &inputs["output"],
            input: None,
            expected,
            context: &[],
            cost_usd: None,
            latency_ms: None,
            response_metadata: &response,
        });
        assert!(verdict.is_consistent(), "{label}: {verdict:?}");
        let got = serde_json::to_value(&verdict).unwrap();
        let want = match (&row["verdict"], row["raised"].as_str()) {
            (Value::Object(v), _) => Value::Object(v.clone()),
            (_, Some(raised)) => serde_json::json!({
                "assertion": got["assertion"], "status": "error", "score": null,
                "reason": format!("assertion raised {raised}"), "metadata": {},
                "threshold": got["threshold"], "tolerance": got["tolerance"],
            }),
            _ => panic!("{label}: neither verdict nor raised"),
        };
        for key in [
            "assertion",
            "status",
            "score",
            "reason",
            "metadata",
            "threshold",
            "tolerance",
        ] {
            if got[key] != want[key] {
                failures.push(format!(
                    "{label}: {key}\n  ours:   {}\n  0.10.0: {}",
                    got[key], want[key]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn two_long_answers_are_judged_fast() {
    let mut params = Map::new();
    params.insert("type".into(), Value::from("levenshtein"));
    params.remove("type");
    let check = build("levenshtein", &params).unwrap();
    let answer: String = "the quick brown fox jumps over the lazy dog 😀 "
        .chars()
        .cycle()
        .take(50_000)
        .collect();
    let expected = Value::String(answer.chars().rev().collect());
    let output = Value::String(answer);
    let started = std::time::Instant::now();
    let verdict = check.evaluate(&Inputs {
        output: &output,
        input: None,
        expected: Some(&expected),
        context: &[],
        cost_usd: None,
        latency_ms: None,
        response_metadata: &Map::new(),
    });
    let elapsed = started.elapsed();
    assert_eq!(verdict.status.as_str(), "fail");
    // A guard against a quadratic table (50k × 50k cells would take minutes
    // and gigabytes), not a timing: the speed is measured in `bench/`.
    assert!(elapsed.as_secs_f64() < 20.0, "{elapsed:?}");
}
