//! Judging against 0.10.0's goldens: the golden documents' checks, the
//! golden check cases, and the output-kind refusals.

use std::sync::Arc;

use serde_json::{json, Map, Number};

use super::super::{budget, contains, length, pattern, regex, Grader, Inputs, LengthUnit};
use super::*;

const GOLDENS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/goldens");

fn read_json(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The parameters of the checks these tests judge, by type (the check
/// files' own parameter types, built without the loader's validation so a
/// golden case may widen `accepts` or leave a bound out).
enum Check {
    Contains {
        needle: String,
        case_sensitive: bool,
    },
    NotContains {
        needle: String,
        case_sensitive: bool,
    },
    Regex(regex::Regex),
    Length(length::Length),
    CostBudget {
        max_usd: Number,
    },
    LatencyBudget {
        max_ms: Number,
    },
}

/// A declared check as the loader would build it, with 0.10.0's defaults
/// for name, threshold, tolerance and accepts.
fn declared(check: Check, id: &str) -> DeclaredCheck {
    let (token, threshold, accepts, grader): (_, _, _, Arc<dyn Grader>) = match check {
        Check::Contains {
            needle,
            case_sensitive,
        } => (
            "contains",
            1.0,
            vec![OutputKind::Text],
            Arc::new(contains::Substring {
                needle,
                case_sensitive,
                absent: false,
            }),
        ),
        Check::NotContains {
            needle,
            case_sensitive,
        } => (
            "not_contains",
            1.0,
            vec![OutputKind::Text],
            Arc::new(contains::Substring {
                needle,
                case_sensitive,
                absent: true,
            }),
        ),
        Check::Regex(regex) => ("regex", 1.0, vec![OutputKind::Text], Arc::new(regex)),
        Check::Length(length) => ("length", 1.0, vec![OutputKind::Text], Arc::new(length)),
        Check::CostBudget { max_usd } => (
            "cost_budget",
            0.5,
            all_kinds(),
            Arc::new(budget::Cap {
                budget: budget::Budget::Cost,
                cap: max_usd,
            }),
        ),
        Check::LatencyBudget { max_ms } => (
            "latency_budget",
            0.5,
            all_kinds(),
            Arc::new(budget::Cap {
                budget: budget::Budget::Latency,
                cap: max_ms,
            }),
        ),
    };
    DeclaredCheck {
        token: token.to_string(),
        name: token.to_string(),
        grader,
        threshold: threshold.into(),
        tolerance: 0.0.into(),
        accepts,
        assertion_id: id.to_string(),
        identity_payload: Value::Null,
    }
}

fn all_kinds() -> Vec<OutputKind> {
    vec![
        OutputKind::Text,
        OutputKind::Structured,
        OutputKind::Conversation,
    ]
}

fn regex(pattern: &str) -> Check {
    let compiled = pattern::compile(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
    Check::Regex(regex::Regex {
        pattern: pattern.to_string(),
        compiled,
    })
}

fn number(value: &Value) -> Option<Number> {
    value.as_number().cloned()
}

fn judge(check: &DeclaredCheck, output: &Value, cost: Option<f64>, latency: Option<f64>) -> Value {
    let metadata = Map::new();
    let inputs = Inputs {
        output,
        input: None,
        expected: None,
        context: &[],
        cost_usd: cost,
        latency_ms: latency,
        response_metadata: &metadata,
    };
    let verdict = check.evaluate(&inputs);
    assert!(verdict.is_consistent(), "{verdict:?}");
    serde_json::to_value(&verdict).unwrap_or(Value::Null)
}

/// The checks of golden documents 01, 04 and 05 (ids from their run.json).
fn document_checks(document: &str) -> Vec<DeclaredCheck> {
    let contains = |needle: &str, case_sensitive: bool| Check::Contains {
        needle: needle.to_string(),
        case_sensitive,
    };
    match document {
        "01-unicode-text" => {
            let mut budget = declared(
                Check::CostBudget {
                    max_usd: Number::from(2),
                },
                "720a0c9bd22a8a64",
            );
            budget.tolerance = 0.1.into();
            vec![
                declared(contains("Grüße", false), "8261ede35b34d98c"),
                declared(
                    Check::NotContains {
                        needle: "STRASSE".into(),
                        case_sensitive: false,
                    },
                    "f4cdf33b9f45c2b4",
                ),
                declared(
                    Check::Length(length::Length {
                        minimum: Some(Number::from(2)),
                        maximum: Some(Number::from(8)),
                        unit: LengthUnit::Words,
                    }),
                    "d4447dde9feba2e6",
                ),
                declared(
                    Check::Length(length::Length {
                        minimum: Some(Number::from(5)),
                        maximum: Some(Number::from(40)),
                        unit: LengthUnit::Characters,
                    }),
                    "fceca031fbe9e7e5",
                ),
                declared(regex(r"\d{3}"), "fb5cdfe09d4f3628"),
                budget,
            ]
        }
        "04-aggregates" => {
            let mut named = declared(contains("refund", false), "9f4b9bbfcfb15b9f");
            named.name = "mentions-refund".into();
            vec![named]
        }
        "05-errors" => {
            let max_usd = Number::from_f64(0.01).unwrap_or_else(|| Number::from(0));
            vec![
                declared(contains("Northwind", true), "88a931f8f1842070"),
                declared(Check::CostBudget { max_usd }, "1ce7dd96f1671c89"),
            ]
        }
        _ => Vec::new(),
    }
}

#[test]
fn golden_documents_judge_as_0_10_0() {
    let mut compared = 0;
    for document in ["01-unicode-text", "04-aggregates", "05-errors"] {
        let dir = format!("{GOLDENS}/documents/{document}");
        let run = read_json(&format!("{dir}/run.json"));
        let answers = read_json(&format!("{dir}/answers.json"));
        let checks = document_checks(document);
        for result in run["results"].as_array().into_iter().flatten() {
            let case_id = result["case_id"].as_str().unwrap_or_default();
            let entry = answers.get(case_id).unwrap_or(&answers["*"]);
            let (output, cost) = match entry {
                Value::String(s) => (Value::from(s.as_str()), 0.001),
                other => (
                    other["answer"].clone(),
                    other["cost_usd"].as_f64().unwrap_or(0.001), // the stub's default
                ),
            };
            for golden in result["verdicts"].as_array().into_iter().flatten() {
                let reason = golden["reason"].as_str().unwrap_or_default();
                if reason.starts_with("target raised") {
                    continue; // the target failed: no check ran
                }
                let Some(check) = checks
                    .iter()
                    .find(|c| golden["assertion_id"] == c.assertion_id.as_str())
                else {
                    continue; // a check of another catalogue entry
                };
                let got = judge(check, &output, Some(cost), Some(5.0));
                assert_eq!(&got, golden, "{document} / {case_id}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 30 + 6 + 6);
}

/// A check from `tests/goldens/checks/cases.json`'s `check` object.
fn case_check(spec: &Value) -> DeclaredCheck {
    let text = |key: &str| spec[key].as_str().unwrap_or_default().to_string();
    let case_sensitive = spec["case_sensitive"].as_bool().unwrap_or(true);
    let check = match spec["type"].as_str().unwrap_or_default() {
        "contains" => Check::Contains {
            needle: text("needle"),
            case_sensitive,
        },
        "not_contains" => Check::NotContains {
            needle: text("needle"),
            case_sensitive,
        },
        "regex" => regex(&text("pattern")),
        "length" => Check::Length(length::Length {
            minimum: number(&spec["minimum"]),
            maximum: number(&spec["maximum"]),
            unit: if spec["unit"] == "words" {
                LengthUnit::Words
            } else {
                LengthUnit::Characters
            },
        }),
        "cost_budget" => Check::CostBudget {
            max_usd: number(&spec["max_usd"]).unwrap_or_else(|| Number::from(1)),
        },
        "latency_budget" => Check::LatencyBudget {
            max_ms: number(&spec["max_ms"]).unwrap_or_else(|| Number::from(1)),
        },
        other => panic!("unknown type {other}"),
    };
    let mut declared = declared(check, "id");
    if let Some(name) = spec["name"].as_str() {
        declared.name = name.to_string();
    }
    if let Some(threshold) = spec["threshold"].as_number() {
        declared.threshold = crate::core::level::Level::declared(threshold);
    }
    if let Some(tolerance) = spec["tolerance"].as_number() {
        declared.tolerance = crate::core::level::Level::declared(tolerance);
    }
    if let Some(accepts) = spec["accepts"].as_array() {
        declared.accepts = all_kinds()
            .into_iter()
            .filter(|k| accepts.iter().any(|a| a == k.as_str()))
            .collect();
    }
    declared
}

#[test]
fn golden_cases_judge_as_0_10_0() {
    let cases = read_json(&format!("{GOLDENS}/checks/cases.json"));
    let cases = cases.as_array().cloned().unwrap_or_default();
    assert!(cases.len() > 150, "the golden cases are there");
    for case in &cases {
        let check = case_check(&case["check"]);
        let inputs = &case["inputs"];
        let mut got = judge(
            &check,
            &inputs["output"],
            inputs["cost_usd"].as_f64(),
            inputs["latency_ms"].as_f64(),
        );
        if let Some(map) = got.as_object_mut() {
            map.remove("assertion_id");
        }
        assert_eq!(got, case["verdict"], "{}", case["label"]);
    }
}

#[test]
fn text_checks_refuse_other_kinds() {
    let mut widened = declared(
        Check::Contains {
            needle: "x".into(),
            case_sensitive: true,
        },
        "id",
    );
    widened.accepts = all_kinds();
    let rows: Vec<(&DeclaredCheck, Value, &str)> = vec![
        (
            &widened,
            json!({"a": 1}),
            "contains can only judge text output, not 'structured'",
        ),
        (
            &widened,
            json!([]),
            "contains can only judge text output, not 'conversation'",
        ),
        (
            &widened,
            json!(7),
            "output of type int is not a valid Output (expected str, Mapping or Sequence[Message])",
        ),
    ];
    for (check, output, reason) in rows {
        let got = judge(check, &output, None, None);
        assert_eq!(got["status"], "error");
        assert_eq!(got["score"], Value::Null);
        assert_eq!(got["reason"], reason);
    }
    let fine = judge(&widened, &json!("axb"), None, None);
    assert_eq!(fine["status"], "pass");
}

#[test]
fn budgets_ignore_the_output_kind() {
    let budget = declared(
        Check::LatencyBudget {
            max_ms: Number::from(800),
        },
        "id",
    );
    for output in [json!(null), json!(7), json!({"a": 1}), json!("x")] {
        let got = judge(&budget, &output, None, Some(5.0));
        assert_eq!(got["score"], json!(0.993789), "{output}");
    }
    let missing = judge(&budget, &json!("x"), None, None);
    assert_eq!(missing["status"], "error");
}
