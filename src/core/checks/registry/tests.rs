//! The registry's tests: defaults and ids of built checks, refusals by key,
//! the order of refusals, nested `repeated` checks and `by_group` copies.

use serde_json::json;

use super::*;

fn params(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[test]
fn the_six_checks_build_with_defaults_and_ids() {
    let table: &[(&str, Value, &str, f64, &str)] = &[
        (
            "contains",
            json!({"needle": "Northwind"}),
            "contains",
            1.0,
            "88a931f8f1842070",
        ),
        (
            "not_contains",
            json!({"needle": "refund"}),
            "not_contains",
            1.0,
            "8acc90829c64bf98",
        ),
        (
            "regex",
            json!({"pattern": "\\d{4}"}),
            "regex",
            1.0,
            "3f987980db643d4b",
        ),
        (
            "length",
            json!({"maximum": 60}),
            "length",
            1.0,
            "ff325ab83dcbebdf",
        ),
        (
            "cost_budget",
            json!({"max_usd": 1, "tolerance": 0.0}),
            "cost_budget",
            0.5,
            "826d9de4ef07cb58",
        ),
        (
            "latency_budget",
            json!({"max_ms": 800.0, "tolerance": 0.0}),
            "latency_budget",
            0.5,
            "b0f42e6ea7e15d56",
        ),
    ];
    for (token, p, name, threshold, id) in table {
        let check = build(token, &params(p.clone())).unwrap_or_else(|e| panic!("{token}: {e}"));
        assert_eq!(check.name, *name);
        assert_eq!(*check.threshold, *threshold);
        assert_eq!(check.assertion_id, *id, "{token}");
    }
}

#[test]
fn bad_values_are_refused_with_the_key_named() {
    let table: &[(&str, Value, &str)] = &[
        ("contains", json!({"needle": ""}), "needle"),
        ("contains", json!({"needle": 5}), "needle"),
        (
            "contains",
            json!({"needle": "x", "case_sensitive": "no"}),
            "case_sensitive",
        ),
        (
            "contains",
            json!({"needle": "x", "threshold": "high"}),
            "threshold",
        ),
        (
            "contains",
            json!({"needle": "x", "threshold": 1.5}),
            "threshold",
        ),
        (
            "contains",
            json!({"needle": "x", "tolerance": -0.1}),
            "tolerance",
        ),
        (
            "contains",
            json!({"needle": "x", "accepts": ["txt"]}),
            "accepts",
        ),
        ("contains", json!({"needle": "x", "accepts": []}), "accepts"),
        (
            "contains",
            json!({"needle": "x", "accepts": "text"}),
            "accepts",
        ),
        ("contains", json!({"needle": "x", "name": ""}), "name"),
        ("regex", json!({"pattern": "(unclosed"}), "pattern"),
        ("regex", json!({"pattern": ""}), "pattern"),
        ("length", json!({}), "minimum"),
        ("length", json!({"minimum": -1}), "minimum"),
        ("length", json!({"minimum": 5, "maximum": 2}), "minimum"),
        ("length", json!({"maximum": "60"}), "maximum"),
        ("length", json!({"maximum": 6, "unit": "lines"}), "unit"),
        (
            "cost_budget",
            json!({"max_usd": 0, "tolerance": 0}),
            "max_usd",
        ),
        (
            "cost_budget",
            json!({"max_usd": "1", "tolerance": 0}),
            "max_usd",
        ),
        (
            "latency_budget",
            json!({"max_ms": -5, "tolerance": 0}),
            "max_ms",
        ),
    ];
    for (token, p, key) in table {
        let err = build(token, &params(p.clone())).expect_err(&format!("{token} {p}"));
        match err.kind {
            BuildErrorKind::Invalid { key: Some(k), .. } => assert_eq!(k, *key, "{token} {p}"),
            other => panic!("{token} {p}: {other:?}"),
        }
    }
}

#[test]
fn structure_errors_come_before_values() {
    type Row = (&'static str, Value, fn(&BuildErrorKind) -> bool);
    let cases: &[Row] = &[
        ("contain", json!({}), |k| {
            matches!(k, BuildErrorKind::UnknownType { .. })
        }),
        ("from_autoevals", json!({}), |k| {
            matches!(k, BuildErrorKind::PythonOnly { .. })
        }),
        (
            "contains",
            json!({"needle": "", "treshold": 1}),
            |k| matches!(k, BuildErrorKind::UnknownParameters { keys, .. } if keys == &["treshold"]),
        ),
        (
            "cost_budget",
            json!({"max_usd": 1}),
            |k| matches!(k, BuildErrorKind::MissingParameters { keys, .. } if keys == &["tolerance"]),
        ),
        ("pii_absent", json!({"patterns": []}), |k| {
            matches!(k, BuildErrorKind::PythonOnly { .. })
        }),
        (
            "llm_rubric",
            json!({"rubric": "r", "judge": "pkg:Class", "threshold": 0.5, "tolerance": 0}),
            |k| matches!(k, BuildErrorKind::PythonOnly { .. }),
        ),
        (
            "llm_rubric",
            json!({"rubric": "r", "judge": {"p": 1}, "threshold": 0.5, "tolerance": 0}),
            |k| matches!(k, BuildErrorKind::PythonOnly { .. }),
        ),
        (
            "llm_rubric",
            json!({"rubric": "r", "judge": "anthropic", "threshold": 0.5, "tolerance": 0}),
            |k| matches!(k, BuildErrorKind::Invalid { key: Some(key), .. } if key == "judge"),
        ),
        (
            "llm_rubric",
            json!({"rubric": " ", "judge": "anthropic/m", "threshold": 0.5, "tolerance": 0}),
            |k| matches!(k, BuildErrorKind::Invalid { key: Some(key), .. } if key == "rubric"),
        ),
        (
            "precision",
            json!({"over": "x", "threshold": 0.5, "tolerance": 0}),
            |k| matches!(k, BuildErrorKind::NotBuiltYet { .. }),
        ),
        (
            "precision",
            json!({"over": "x", "threshold": 0.5, "tolerance": 0, "group": "g"}),
            |k| matches!(k, BuildErrorKind::UnknownParameters { .. }),
        ),
        (
            "repeated",
            json!({"samples": 3, "min_agreement": "2/3", "threshold": 1}),
            |k| matches!(k, BuildErrorKind::UnknownParameters { .. }),
        ),
    ];
    for (token, p, want) in cases {
        let err = build(token, &params(p.clone())).expect_err(token);
        assert!(want(&err.kind), "{token} {p}: {:?}", err.kind);
    }
}

#[test]
fn an_inner_error_is_located_in_inner() {
    let p = params(json!({"samples": 3, "min_agreement": "2/3",
        "inner": {"type": "contains", "neddle": "x"}}));
    let err = build("repeated", &p).unwrap_err();
    assert_eq!(err.within, vec!["inner".to_string()]);
    assert!(matches!(err.kind, BuildErrorKind::UnknownParameters { .. }));
    let p = params(json!({"samples": 3, "min_agreement": "2/3", "inner": {"needle": "x"}}));
    assert_eq!(
        build("repeated", &p).unwrap_err().kind,
        BuildErrorKind::MissingType
    );
    let p = params(json!({"samples": 3, "min_agreement": "2/3",
        "inner": {"type": "precision", "over": "x", "threshold": 1, "tolerance": 0}}));
    assert!(matches!(
        build("repeated", &p).unwrap_err().kind,
        BuildErrorKind::Invalid { .. }
    ));
    let p = params(json!({"samples": 3, "min_agreement": "2/5", "inner": {"type": "equals"}}));
    assert!(matches!(
        build("repeated", &p).unwrap_err().kind,
        BuildErrorKind::Invalid { .. }
    ));
}

#[test]
fn repeated_payload_nests_the_inner_check() {
    let p = params(json!({"samples": 3, "min_agreement": "2/3",
        "inner": {"type": "contains", "needle": "Northwind"}}));
    let payload = identity_payload("repeated", &p).unwrap();
    assert_eq!(
        crate::core::python::dumps::dumps_canonical(&payload),
        r#"{"__type__":"Repeated","accepts":["text"],"inner":{"accepts":["text"],"case_sensitive":true,"name":"contains","needle":"Northwind","threshold":1.0,"tolerance":0.0},"min_agreement":0.666667,"name":"contains","samples":3}"#
    );
    assert_eq!(identity::digest(&payload), "cabbf7b8bcbc2d95");
}

#[test]
fn group_copies_carry_their_group_in_the_name() {
    let p = params(
        json!({"over": "contains", "threshold": "9/10", "tolerance": 0.05, "by_group": true}),
    );
    let payload = identity_payload("accuracy", &p).unwrap();
    assert_eq!(identity::digest(&payload), "ddb968366023a5a1");
    assert_eq!(
        identity::digest(&group_copy_payload(&payload, "alpha")),
        "ecc5117c4cecaff1"
    );
    assert_eq!(
        identity::digest(&group_copy_payload(&payload, "beta")),
        "e6ee5e9153bf89d6"
    );
}

#[test]
fn the_registry_lists_every_0_10_0_type_once_in_order() {
    assert_eq!(
        per_case_types(),
        [
            "affix",
            "contains",
            "cost_budget",
            "equals",
            "faithfulness",
            "is_json",
            "json_schema",
            "latency_budget",
            "length",
            "levenshtein",
            "llm_rubric",
            "not_contains",
            "pii_absent",
            "regex",
            "repeated",
            "tools_called",
        ]
    );
    assert_eq!(per_run_types(), ["accuracy", "f1", "precision", "recall"]);
    for kind in KINDS {
        assert_eq!(is_built(kind.token), !kind.per_run, "{}", kind.token);
        assert_eq!(is_aggregate(kind.token), kind.per_run, "{}", kind.token);
        let mut names: Vec<&str> = kind.fields.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names.len(),
            kind.fields.len(),
            "{}: a field twice",
            kind.token
        );
    }
    assert!(!is_built("from_autoevals") && !is_built("contain"));
    assert_eq!(default_threshold("levenshtein"), Some(0.9));
    assert_eq!(default_threshold("cost_budget"), Some(0.5));
    assert_eq!(default_threshold("llm_rubric"), None);
    assert_eq!(default_threshold("repeated"), None);
}

/// Each problem of the entry as (where inside it, the key, the sentence).
fn every_problem(token: &str, p: Value) -> Vec<(Vec<String>, Option<String>, String)> {
    let err = build(token, &params(p)).expect_err(token);
    err.problems()
        .map(|e| {
            let key = match &e.kind {
                BuildErrorKind::Invalid { key, .. } => key.clone(),
                BuildErrorKind::MissingParameters { keys, .. } => keys.first().cloned(),
                BuildErrorKind::UnknownParameters { keys, .. } => keys.first().cloned(),
                BuildErrorKind::MissingType => Some("type".to_string()),
                _ => None,
            };
            (e.within.clone(), key, e.to_string())
        })
        .collect()
}

#[test]
fn every_independent_problem_of_an_entry_is_reported_in_validation_order() {
    let got = every_problem(
        "contains",
        json!({"needle": "", "treshold": 1, "threshold": "high", "case_sensitive": "yes",
               "accepts": ["text", 3]}),
    );
    let keys: Vec<Option<&str>> = got.iter().map(|(_, k, _)| k.as_deref()).collect();
    assert_eq!(
        keys,
        [
            Some("treshold"),
            Some("accepts"),
            Some("threshold"),
            Some("needle"),
            Some("case_sensitive"),
        ]
    );
    // `accepts` is read twice (identity, then kinds) and blamed once.
    assert_eq!(
        got[1].2,
        "`contains`: `accepts` holds 3, and every entry has to be one of \"text\", \
         \"structured\", \"conversation\""
    );
    assert_eq!(
        got[2].2,
        "`contains`: `threshold` is 'high', which is not a number or a fraction like \"2/3\""
    );
    // length: each bound and the unit on its own; the bounds' relation
    // only once both are readable.
    let got = every_problem(
        "length",
        json!({"minimum": -1, "maximum": "ten", "unit": "lines"}),
    );
    let keys: Vec<Option<&str>> = got.iter().map(|(_, k, _)| k.as_deref()).collect();
    assert_eq!(keys, [Some("minimum"), Some("maximum"), Some("unit")]);
    let got = every_problem("length", json!({"minimum": 5, "maximum": 2, "unit": "x"}));
    let keys: Vec<Option<&str>> = got.iter().map(|(_, k, _)| k.as_deref()).collect();
    assert_eq!(keys, [Some("unit")], "{got:?}");
}

#[test]
fn a_problem_that_follows_from_another_is_not_reported() {
    // A misspelled mandatory key: not also "needs `needle`", nor "`needle`
    // is None"; the independent bad threshold still is.
    let got = every_problem("contains", json!({"neddle": "x", "threshold": 2}));
    let sentences: Vec<&str> = got.iter().map(|(_, _, s)| s.as_str()).collect();
    assert_eq!(
        sentences,
        [
            "`contains` has no parameter `neddle`.",
            "`contains`: `threshold` is 2, outside 0–1: a score is a share",
        ]
    );
    // A misspelled optional bound: not also "needs `minimum`, `maximum` or both".
    let got = every_problem("length", json!({"minimun": 3}));
    assert_eq!(got.len(), 1, "{got:?}");
    // A Python-only judge is not also "not a coordinate"; the empty rubric is its own.
    let got = every_problem(
        "llm_rubric",
        json!({"rubric": "", "judge": {"p": 1}, "threshold": 0.5, "tolerance": 0}),
    );
    let keys: Vec<Option<&str>> = got.iter().map(|(_, k, _)| k.as_deref()).collect();
    assert_eq!(keys, [None, Some("rubric")], "{got:?}");
    // An aggregate as `inner` is one refusal, not also the aggregate's own.
    let got = every_problem(
        "repeated",
        json!({"samples": 3, "min_agreement": "2/3",
               "inner": {"type": "precision", "over": "x", "threshold": 1, "tolerance": 0}}),
    );
    assert_eq!(got.len(), 1, "{got:?}");
}

#[test]
fn a_repeated_reports_its_own_problems_and_its_inner_check_s() {
    let got = every_problem(
        "repeated",
        json!({"samples": 1, "name": 7,
               "inner": {"type": "regex", "pattern": "(", "tolerance": -0.5, "neddle": 1}}),
    );
    let places: Vec<(Vec<String>, Option<&str>)> = got
        .iter()
        .map(|(within, key, _)| (within.clone(), key.as_deref()))
        .collect();
    let inner = || vec!["inner".to_string()];
    assert_eq!(
        places,
        [
            (inner(), Some("neddle")),
            (vec![], Some("min_agreement")),
            (vec![], Some("samples")),
            (inner(), Some("tolerance")),
            (inner(), Some("pattern")),
            (vec![], Some("name")),
        ],
        "{got:?}"
    );
}

/// Any two parameters of any check type, each given any of a few values
/// (good, bad or of the wrong type), with or without an unknown key: the
/// validation never panics, and a refusal never says the same thing twice.
#[test]
fn no_pair_of_parameter_values_makes_validation_panic() {
    let values = [
        json!(""),
        json!("x"),
        json!("anthropic/m"),
        json!(2),
        json!(-1),
        json!(0.5),
        json!(true),
        json!(["text"]),
        json!({"type": "contains", "needle": "a"}),
        json!({"type": "precision"}),
    ];
    let mut refused = 0;
    for kind in KINDS {
        let names: Vec<&str> = kind.fields.iter().map(|f| f.name).collect();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i..] {
                for va in &values {
                    for vb in &values {
                        for extra in [false, true] {
                            let mut p = Map::new();
                            p.insert(a.to_string(), va.clone());
                            p.insert(b.to_string(), vb.clone());
                            if extra {
                                p.insert("colour".to_string(), json!(1));
                            }
                            if let Err(e) = build(kind.token, &p) {
                                refused += 1;
                                let said: Vec<(Vec<String>, String)> = e
                                    .problems()
                                    .map(|p| (p.within.clone(), p.to_string()))
                                    .collect();
                                for (n, one) in said.iter().enumerate() {
                                    assert!(!said[n + 1..].contains(one), "{p:?}: {said:?}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(refused > 0);
}
