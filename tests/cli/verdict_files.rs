//! Every file the gate writes agrees with its exit code (issue 25, item 5):
//! the no-baseline report states exit 64; JUnit carries the gate's verdict
//! per (case, check), one name per check, valid XML for any name; long
//! names are shortened and line separators shown, never carried.

use std::path::Path;

use crate::gate::{digline_env, read, validate_junit};
use crate::util::{set_port, stub, Stub};

use crate::integrity::GATE;

const SIGNED: &str = "Hello. — Northwind Support";

/// Three checks: two unnamed `contains` (one name, two checks) and one
/// that fails everywhere (in the reference too).
fn suite(root: &Path, ids: &[String]) -> Stub {
    std::fs::write(
        root.join("suite.toml"),
        r#"[suite]
tenant = "vf"
environment = "local"
name = "files"
cases = "cases.json"

[target]
type = "http"
url = "http://127.0.0.1:8731/answer"
output_path = "data.answer"
timeout = 10

[target.body]
id = "case.id"
question = "case.vars.question"

[[assertions]]
type = "contains"
needle = "Northwind"

[[assertions]]
type = "contains"
needle = "Support"

[[assertions]]
name = "never"
type = "contains"
needle = "a phrase nobody writes"
"#,
    )
    .unwrap();
    let cases: Vec<serde_json::Value> = ids
        .iter()
        .map(|id| serde_json::json!({"id": id, "vars": {"question": "hi"}}))
        .collect();
    std::fs::write(
        root.join("cases.json"),
        serde_json::to_string(&cases).unwrap(),
    )
    .unwrap();
    answer(root, &[]);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    server
}

/// Every case signs its answer, but those in `unsigned`.
fn answer(root: &Path, unsigned: &[&String]) {
    let mut table = serde_json::Map::new();
    table.insert("*".into(), serde_json::json!({"answer": SIGNED}));
    for id in unsigned {
        table.insert((*id).clone(), serde_json::json!({"answer": "Hello."}));
    }
    std::fs::write(
        root.join("answers.json"),
        serde_json::Value::Object(table).to_string(),
    )
    .unwrap();
}

/// Run the suite in `root` and promote the run as its baseline.
pub(crate) fn promote(root: &Path) {
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let ran = digline_env(
        root,
        &["promote", "--suite", "suite.toml", "--run", "latest"],
        &[],
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
}

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn the_no_baseline_report_states_the_refusal_not_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = suite(root, &["a".to_string()]);
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    let report = read(root.join("out/report.html"));
    assert!(
        report.contains(
            "Exit code for the CI job: 64, nothing was compared: there is no approved reference."
        ),
        "{report}"
    );
    assert!(!report.contains("Exit code for the CI job: 0"), "{report}");
    let outcome: serde_json::Value =
        serde_json::from_str(&read(root.join("out/outcome.json"))).unwrap();
    assert_eq!(outcome["exit_code"], 64);
}

#[test]
fn junit_carries_the_gates_verdict_with_one_name_per_check() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let ids: Vec<String> = vec!["plain".into(), "other".into()];
    let _server = suite(root, &ids);
    promote(root);
    // Green: the check failing in the reference fails again; not a failure.
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let junit = read(root.join("out/junit.xml"));
    validate_junit(&root.join("out/junit.xml"));
    assert_eq!(count(&junit, "<failure"), 0, "{junit}");
    assert_eq!(count(&junit, "<error"), 0, "{junit}");
    assert!(junit.contains("tests=\"6\""), "{junit}");
    // Red: `other` lost its signature — two regressions, two failures.
    answer(root, &[&ids[1]]);
    let ran = digline_env(root, &GATE, &[]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let junit = read(root.join("out/junit.xml"));
    assert_eq!(count(&junit, "<failure"), 2, "{junit}");
    let report = quick_junit::Report::deserialize_from_str(&junit).expect("junit.xml parses");
    let names: Vec<String> = report.test_suites[0]
        .test_cases
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    let unique: std::collections::BTreeSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    // The two unnamed `contains` are told apart, in JUnit and the comment.
    let comment = read(root.join("out/comment.md"));
    let rows: Vec<&str> = comment
        .lines()
        .filter(|l| l.starts_with("| other |"))
        .collect();
    assert_eq!(rows.len(), 2, "{comment}");
    assert_ne!(rows[0], rows[1], "{comment}");
    assert!(rows[0].contains("| contains \\["), "{comment}");
}

#[test]
fn any_name_makes_valid_files_and_a_long_one_leaves_the_others_shown() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let long = format!("long-{}", "x".repeat(70_000));
    let odd = "sep\u{2028}line\u{2029}nc\u{FFFE}\u{FFFF}".to_string();
    let ids: Vec<String> = vec![long.clone(), odd.clone(), "other".into()];
    let _server = suite(root, &ids);
    promote(root);
    answer(root, &[&ids[0], &ids[1], &ids[2]]);
    for locale in ["en", "de", "es", "fr", "it", "pt"] {
        let mut args = GATE.to_vec();
        args.extend(["--locale", locale]);
        let ran = digline_env(root, &args, &[]);
        assert_eq!(ran.code, 1, "{locale}: {}{}", ran.stdout, ran.stderr);
        let junit = read(root.join("out/junit.xml"));
        validate_junit(&root.join("out/junit.xml"));
        for c in ['\u{2028}', '\u{2029}', '\u{FFFE}', '\u{FFFF}'] {
            assert!(
                !junit.contains(c),
                "{locale}: U+{:04X} in junit.xml",
                c as u32
            );
        }
        assert!(quick_junit::Report::deserialize_from_str(&junit).is_ok());
        for file in ["comment.md", "summary.md"] {
            let text = read(root.join("out").join(file));
            for c in ['\u{2028}', '\u{2029}', '\u{FFFE}', '\u{FFFF}'] {
                assert!(!text.contains(c), "{locale}: U+{:04X} in {file}", c as u32);
            }
            assert!(text.contains("sep&lt;U\\+2028&gt;line"), "{locale}: {text}");
            // The other cases' regressions are still listed.
            assert_eq!(
                text.lines().filter(|l| l.starts_with("| other |")).count(),
                2,
                "{locale}: {text}"
            );
            assert!(!text.contains(&"x".repeat(200)), "{locale}: shortened");
        }
        assert!(!ran.stdout.contains('\u{2028}'), "{}", ran.stdout);
        assert!(!ran.stdout.contains(&"x".repeat(200)), "{}", ran.stdout);
    }
}

#[test]
fn promote_accepts_a_run_whose_whole_run_measure_could_not_be_computed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _server = suite(root, &["a".to_string(), "b".to_string()]);
    // Every case positive and failing `never`: no case is predicted
    // positive, so precision has nothing to measure.
    let text = read(root.join("suite.toml"))
        + "\n[[assertions]]\ntype = \"precision\"\nover = \"never\"\nthreshold = 0.5\ntolerance = 0.0\n";
    std::fs::write(root.join("suite.toml"), text).unwrap();
    let cases = serde_json::json!([
        {"id": "a", "vars": {"question": "hi"}, "label": "positive"},
        {"id": "b", "vars": {"question": "hi"}, "label": "positive"}
    ]);
    std::fs::write(root.join("cases.json"), cases.to_string()).unwrap();
    promote(root);
    let baseline = read(root.join(".digline/vf/baselines/files.json"));
    assert!(baseline.contains("nothing to measure"), "{baseline}");
}

#[test]
fn localized_counts_take_the_singular_after_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let ids: Vec<String> = vec!["a".into(), "b".into(), "c".into()];
    let _server = suite(root, &ids);
    promote(root);
    answer(root, &[&ids[0]]);
    let mut args = GATE.to_vec();
    args.extend(["--locale", "fr"]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let summary = read(root.join("out/summary.md"));
    assert!(
        summary.contains("Cas \\: 1 dégradé · 2 inchangés\\."),
        "{summary}"
    );
    args.truncate(GATE.len());
    args.extend(["--locale", "it"]);
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 1);
    assert!(
        read(root.join("out/summary.md")).contains("1 peggiorato · 2 invariati"),
        "{}",
        read(root.join("out/summary.md"))
    );
}
