//! Golden tests of `compare --json` and `--json full` against the 19
//! scenarios digline 0.10.0 produced, and the payload boundary.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::*;
use crate::core::compare::golden_scenarios::SCENARIOS;
use crate::core::compare::{compare, exit_code};
use crate::core::document::RunDocument;

fn read(scenario: &str, file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/goldens/headlines")
        .join(scenario)
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn document(scenario: &str, file: &str) -> RunDocument {
    serde_json::from_str(&read(scenario, file)).unwrap_or_else(|e| panic!("{scenario}/{file}: {e}"))
}

fn object(value: &Value) -> &Map<String, Value> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
}

/// Asserts that `ours` holds every key/value of `golden` and, beyond them,
/// exactly [`ADDED_KEYS`]; then that without those keys it prints to the
/// golden bytes.
fn assert_matches(scenario: &str, what: &str, ours: &Value, golden_text: &str) {
    let golden: Value =
        serde_json::from_str(golden_text).unwrap_or_else(|e| panic!("{scenario} {what}: {e}"));
    let ours_map = object(ours);
    for (key, value) in object(&golden) {
        assert_eq!(
            ours_map.get(key),
            Some(value),
            "{scenario} {what}: key {key}"
        );
    }
    let mut extra: Vec<&str> = ours_map
        .keys()
        .filter(|k| !object(&golden).contains_key(*k))
        .map(String::as_str)
        .collect();
    extra.sort_unstable();
    assert_eq!(extra, ADDED_KEYS.to_vec(), "{scenario} {what}: extra keys");
    let mut trimmed = ours_map.clone();
    for key in ADDED_KEYS {
        trimmed.remove(key);
    }
    assert_eq!(
        print(&Value::Object(trimmed)),
        golden_text,
        "{scenario} {what}: bytes"
    );
}

/// The exit code this product gives where it is deliberately stricter than
/// 0.10.0 (a passing reference check missing from the run: 2), from the
/// scenario's committed `strict.exit`; `None` where it agrees with 0.10.0.
fn strict_exit(scenario: &str) -> Option<i64> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/goldens/headlines")
        .join(scenario)
        .join("strict.exit");
    let text = std::fs::read_to_string(path).ok()?;
    text.trim().parse().ok()
}

/// 0.10.0's JSON with `exit_code` set to this product's stricter code, where
/// it has one; every other key and byte as 0.10.0 printed it.
fn strict(scenario: &str, golden: &str) -> String {
    let Some(code) = strict_exit(scenario) else {
        return golden.to_string();
    };
    let mut value: Value = serde_json::from_str(golden).unwrap_or_else(|e| panic!("{e}"));
    value["exit_code"] = json!(code);
    print(&value)
}

#[test]
fn every_scenario_prints_the_json_0_10_0_printed() {
    for scenario in SCENARIOS {
        let run = document(scenario, "run.json");
        let baseline = document(scenario, "baseline.json");
        let comparison = compare(&run, &baseline).unwrap_or_else(|e| panic!("{scenario}: {e}"));
        // The CLI passes the sentence the text renderer made; the text golden
        // test proves that equals the first line of `compare.stdout`.
        let stdout = read(scenario, "compare.stdout");
        let sentence = stdout.lines().next().unwrap_or_default();

        let head = headline_json(&comparison, sentence);
        assert_matches(
            scenario,
            "--json",
            &head,
            &strict(scenario, &read(scenario, "compare-json.stdout")),
        );
        let full = full_json(&comparison, sentence);
        assert_matches(
            scenario,
            "--json full",
            &full,
            &strict(scenario, &read(scenario, "compare-json-full.stdout")),
        );

        for (value, exit_file) in [
            (&head, "compare-json.exit"),
            (&full, "compare-json-full.exit"),
        ] {
            let code: i64 = match strict_exit(scenario) {
                Some(code) => code,
                None => read(scenario, exit_file).trim().parse().unwrap_or(-1),
            };
            assert_eq!(value["exit_code"], json!(code), "{scenario} {exit_file}");
            assert_eq!(
                i64::from(exit_code(&comparison).code()),
                code,
                "{scenario} {exit_file}"
            );
        }
        assert_eq!(head["nothing_compared"], json!(false), "{scenario}");
        assert_eq!(head["uncomputed_measures"], json!([]), "{scenario}");
    }
}

/// Every string in a document that is payload: reasons, suspension reasons.
fn payload_strings(doc: &RunDocument) -> Vec<String> {
    let mut out = Vec::new();
    for case in &doc.results {
        out.extend(case.suspended_reason.clone());
        out.extend(case.verdicts.iter().map(|v| v.reason.clone()));
    }
    out.extend(doc.aggregate.iter().map(|v| v.reason.clone()));
    out
}

#[test]
fn no_reason_ever_reaches_the_json() {
    let scenario = "17-everything-at-once";
    let run = document(scenario, "run.json");
    let baseline = document(scenario, "baseline.json");
    let comparison = compare(&run, &baseline).unwrap_or_else(|e| panic!("{e}"));
    let printed = print(&full_json(&comparison, "sentence"));
    let reasons: Vec<String> = payload_strings(&run)
        .into_iter()
        .chain(payload_strings(&baseline))
        .filter(|r| !r.is_empty())
        .collect();
    assert!(
        reasons.len() > 10,
        "scenario 17 should carry reasons to look for"
    );
    assert!(
        reasons.iter().any(|r| r.contains("could not be called")),
        "an error reason is among them"
    );
    for reason in &reasons {
        assert!(
            !printed.contains(reason.as_str()),
            "reason leaked: {reason}"
        );
    }
    assert!(!printed.contains("\"reason\""));
}

#[test]
fn strict_keys_say_what_was_not_measured() {
    let scenario = "01-nothing-changed";
    let mut run = document(scenario, "run.json");
    let baseline = document(scenario, "baseline.json");
    for case in &mut run.results {
        case.case_id.push_str("-renamed");
    }
    let comparison = compare(&run, &baseline).unwrap_or_else(|e| panic!("{e}"));
    let head = headline_json(&comparison, "s");
    assert_eq!(head["nothing_compared"], json!(true));
    assert_eq!(head["exit_code"], json!(2));
    assert_eq!(head["worse"], json!(false));
}

#[test]
fn config_and_delta_rows_have_the_documented_keys() {
    let scenario = "14-target-config-change";
    let comparison = compare(
        &document(scenario, "run.json"),
        &document(scenario, "baseline.json"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let full = full_json(&comparison, "s");
    let keys = |v: &Value| object(v).keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        keys(&full["target_config_deltas"][0]),
        ["after", "before", "field", "outcome", "withheld"]
    );
    assert_eq!(
        keys(&full["deltas"][0]),
        [
            "after",
            "assertion",
            "before",
            "canary",
            "case_id",
            "delta",
            "noise_max",
            "noise_min",
            "noise_samples",
            "outcome",
            "scope",
            "within_noise"
        ]
    );
    assert!(print(&full).ends_with("}\n") && !print(&full).ends_with("\n\n"));
}
