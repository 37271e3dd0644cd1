//! Micro-benchmarks of the hot paths (divan): check evaluation, the
//! Python-compatible document writer, comparison pairing and the HTML
//! report's template rendering. `cargo bench --bench hot_paths`.
//!
//! Benchmarks, not tests: nothing here fails on time. The end-to-end
//! numbers (and what they are compared with) are `bench/run.sh`'s; see
//! docs/performance.md.

use std::path::Path;

use digline::core::checks::{build, DeclaredCheck, Inputs};
use digline::core::compare::compare;
use digline::core::document::RunDocument;
use digline::report::html;
use digline::report::locale::Locale;
use digline::store::document::{from_bytes, to_bytes};
use divan::{black_box, Bencher};
use serde_json::{json, Map, Value};

fn main() {
    divan::main();
}

const ANSWER: &str = "Your order left our warehouse on Monday and arrives on Thursday; \
                      the tracking link is in your mailbox. — Northwind Support";

/// The four deterministic checks of the bench suites (bench/gen.py).
fn checks() -> Vec<DeclaredCheck> {
    let declared = [
        ("contains", json!({"needle": "Northwind Support"})),
        (
            "not_contains",
            json!({"needle": "as an AI", "case_sensitive": false}),
        ),
        ("length", json!({"unit": "words", "maximum": 40})),
        (
            "regex",
            json!({"name": "no_internal_ticket", "pattern": r"^(?!.*\bINT-\d+).*$"}),
        ),
    ];
    declared
        .iter()
        .map(|(token, params)| {
            let params: Map<String, Value> = params.as_object().cloned().unwrap_or_default();
            build(token, &params).expect("a valid check")
        })
        .collect()
}

/// A stored run of `cases` cases × 4 verdicts; every `flip`-th case fails
/// `contains` (0 = none).
fn document(cases: usize, flip: usize, created_at: &str) -> RunDocument {
    let results: Vec<Value> = (0..cases)
        .map(|i| {
            let failed = flip > 0 && i % flip == 0;
            let verdict = |assertion: &str, id: &str, ok: bool, reason: &str| {
                json!({
                    "assertion": assertion, "assertion_id": id, "metadata": {},
                    "reason": reason, "score": if ok { 1.0 } else { 0.0 },
                    "status": if ok { "pass" } else { "fail" },
                    "threshold": 1.0, "tolerance": 0.0
                })
            };
            json!({
                "case_id": format!("case-{i:06}"),
                "suspended": false,
                "verdicts": [
                    verdict("contains", "e989302a5befb3b2", !failed,
                        if failed { "'Northwind Support' not found in the output" }
                        else { "'Northwind Support' found in the output" }),
                    verdict("not_contains", "1a2b3c4d5e6f7081", true, "'as an AI' not found in the output"),
                    verdict("length", "ff325ab83dcbebdf", true, "21 words, within bounds (at most 40)"),
                    verdict("no_internal_ticket", "0011223344556677", true, "the output matches"),
                ]
            })
        })
        .collect();
    let doc = json!({
        "aggregate": [], "artifacts": {}, "config_hash": "d4d9fd58fc759255",
        "created_at": created_at, "digline_version": "0.11.0",
        "environment": "local", "git_commit": null, "judge_config": {},
        "metadata": {}, "redacted": false, "results": results,
        "schema_version": 10, "suite": "bench", "target_config": {}, "tenant": "bench"
    });
    let bytes = serde_json::to_vec(&doc).expect("json");
    from_bytes(Path::new("bench.json"), &bytes).expect("a valid document")
}

const SIZES: [usize; 3] = [100, 1_000, 10_000];

/// Four checks on one answer (what a worker does per call).
#[divan::bench]
fn evaluate_four_checks(bencher: Bencher) {
    let checks = checks();
    let output = Value::String(ANSWER.to_string());
    let metadata = Map::new();
    let inputs = Inputs {
        output: &output,
        input: Some("{\"id\": \"case-000001\"}"),
        expected: None,
        context: &[],
        cost_usd: Some(0.001),
        latency_ms: Some(5.0),
        response_metadata: &metadata,
    };
    bencher.bench(|| {
        for check in &checks {
            black_box(check.evaluate(black_box(&inputs)));
        }
    });
}

/// The run document as 0.10.0 writes it (sorted keys, indent 2, \uXXXX).
#[divan::bench(args = SIZES)]
fn serialize_document(bencher: Bencher, cases: usize) {
    let doc = document(cases, 0, "2026-01-01T00:00:00.000000+00:00");
    bencher.bench(|| black_box(to_bytes(black_box(&doc))));
}

/// Reading a stored document back (what compare, list and report start with).
#[divan::bench(args = SIZES)]
fn parse_document(bencher: Bencher, cases: usize) {
    let doc = document(cases, 0, "2026-01-01T00:00:00.000000+00:00");
    let bytes = to_bytes(&doc);
    bencher.bench(|| black_box(from_bytes(Path::new("bench.json"), black_box(&bytes))));
}

/// Pairing a run with its baseline, verdict by verdict.
#[divan::bench(args = SIZES)]
fn compare_pairing(bencher: Bencher, cases: usize) {
    let baseline = document(cases, 0, "2026-01-01T00:00:00.000000+00:00");
    let run = document(cases, 50, "2026-01-02T00:00:00.000000+00:00");
    bencher.bench(|| black_box(compare(black_box(&run), black_box(&baseline))));
}

/// The HTML report of a compared run (view building + minijinja).
#[divan::bench(args = [100, 1_000, 10_000], sample_count = 10)]
fn render_report(bencher: Bencher, cases: usize) {
    let baseline = document(cases, 0, "2026-01-01T00:00:00.000000+00:00");
    let run = document(cases, 50, "2026-01-02T00:00:00.000000+00:00");
    let comparison = compare(&run, &baseline).expect("comparable");
    let locale = Locale::parse("en").expect("en");
    bencher.bench(|| {
        black_box(html::render(
            &run,
            Some(&baseline),
            Some(&comparison),
            locale,
            false,
        ))
    });
}
