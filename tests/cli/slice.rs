//! End to end against digline 0.10.0: five suites of our own (`tests/goldens/slice`)
//! were run by 0.10.0 (baseline run, promote, second run, compare); here our
//! binary and our stub replay them and must produce the same document bytes
//! (but for `created_at`, `digline_version`, `git_commit`, the key and
//! `promoted_at`), the same compare text, JSON and exit code.

use serde_json::Value;

use crate::util::{digline, golden, run_file, set_port, stub};

/// Our document's bytes with the run-specific fields set to 0.10.0's, and
/// the golden's port swapped for ours.
fn comparable(ours: &str, golden: &str, port: u16) -> (String, String) {
    let theirs: Value = serde_json::from_str(golden).unwrap();
    let mut mine: Value = serde_json::from_str(ours).unwrap();
    for key in ["created_at", "digline_version", "git_commit", "promoted_at"] {
        if let Some(v) = theirs.get(key) {
            mine[key] = v.clone();
        }
    }
    let mine = digline::core::python::dumps::dumps_document(&mine);
    (
        mine,
        golden.replace("127.0.0.1:18951", &format!("127.0.0.1:{port}")),
    )
}

fn replay(name: &str) {
    let src = golden(&format!("slice/{name}"));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::copy(src.join("suite.toml"), root.join("suite.toml")).unwrap();
    std::fs::copy(src.join("cases.json"), root.join("cases.json")).unwrap();
    std::fs::copy(src.join("baseline-answers.json"), root.join("answers.json")).unwrap();
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);

    // The baseline run.
    let ran = digline(root, &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{name} run: {}", ran.stderr);
    let want_stderr = std::fs::read_to_string(src.join("baseline-run.stderr")).unwrap();
    assert_eq!(ran.stderr, want_stderr, "{name}: the plan line");
    let key = ran.stdout.trim().to_string();
    let ours = std::fs::read_to_string(run_file(root, &key)).unwrap();
    let want = std::fs::read_to_string(src.join("baseline-run.json")).unwrap();
    let (ours, want) = comparable(&ours, &want, server.port);
    assert_eq!(ours, want, "{name}: the baseline run document");

    // Promotion.
    let ran = digline(
        root,
        &["promote", "--suite", "suite.toml", "--run", "latest"],
    );
    assert_eq!(ran.code, 0, "{name} promote: {}", ran.stderr);
    let baseline_path = std::fs::read_dir(root.join(".digline"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("baselines"))
        .find(|p| p.exists())
        .unwrap();
    let baseline_file = std::fs::read_dir(baseline_path)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let ours = std::fs::read_to_string(baseline_file).unwrap();
    let baseline_doc: Value = serde_json::from_str(&ours).unwrap();
    let want = std::fs::read_to_string(src.join("baseline.json")).unwrap();
    let (ours, want) = comparable(&ours, &want, server.port);
    assert_eq!(ours, want, "{name}: the baseline");

    // The second run, with the run's answers (and cases).
    std::fs::copy(src.join("run-answers.json"), root.join("answers.json")).unwrap();
    if src.join("run-cases.json").exists() {
        std::fs::copy(src.join("run-cases.json"), root.join("cases.json")).unwrap();
    }
    let ran = digline(root, &["run", "--suite", "suite.toml"]);
    assert_eq!(ran.code, 0, "{name} second run: {}", ran.stderr);
    let want_stderr = std::fs::read_to_string(src.join("run.stderr")).unwrap();
    assert!(
        ran.stderr.starts_with(&want_stderr),
        "{name}: the plan line"
    );
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(run_file(root, ran.stdout.trim())).unwrap())
            .unwrap();
    let unjudged = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c["verdicts"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v["status"] == "error")
        })
        .count();
    assert_eq!(
        ran.stderr.contains("could not be judged"),
        unjudged > 0,
        "{name}: the unjudged line says how many cases errored: {}",
        ran.stderr
    );
    let key = ran.stdout.trim().to_string();
    let ours = std::fs::read_to_string(run_file(root, &key)).unwrap();
    let want = std::fs::read_to_string(src.join("run.json")).unwrap();
    let (ours, want) = comparable(&ours, &want, server.port);
    assert_eq!(ours, want, "{name}: the run document");

    // The comparison: text, exit code, JSON.
    let ran = digline(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
    );
    let want_code: i32 = std::fs::read_to_string(src.join("compare.exit"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(ran.code, want_code, "{name}: compare exit\n{}", ran.stderr);
    let want_text = crate::util::compare_in_suite_order(
        &std::fs::read_to_string(src.join("compare.stdout")).unwrap(),
        &[&doc, &baseline_doc],
    );
    // 0.10.0's lines, rows in suite order, plus digline's cause sentences
    // (`plus_causes`).
    assert_eq!(
        ran.stdout,
        crate::util::plus_causes(&ran.stdout, &want_text),
        "{name}: compare text"
    );

    let ran = digline(
        root,
        &[
            "compare",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--json",
            "full",
        ],
    );
    assert_eq!(ran.code, want_code, "{name}: compare --json exit");
    let mut ours: Value = serde_json::from_str(&ran.stdout).unwrap();
    let theirs: Value = serde_json::from_str(
        &std::fs::read_to_string(src.join("compare-json-full.stdout")).unwrap(),
    )
    .unwrap();
    for added in digline::wire::compare::ADDED_KEYS {
        ours.as_object_mut().unwrap().remove(added);
    }
    assert_eq!(ours, theirs, "{name}: compare --json full");
    drop(dir);
    drop(server);
}

#[test]
fn quickstart_matches_0_10_0() {
    replay("01-quickstart");
}

#[test]
fn unicode_and_numbers_match_0_10_0() {
    replay("02-unicode-numbers");
}

#[test]
fn budgets_match_0_10_0() {
    replay("03-budgets");
}

#[test]
fn errors_and_suspension_match_0_10_0() {
    replay("04-errors-suspended");
}

#[test]
fn regex_parity_matches_0_10_0() {
    replay("05-regex-parity");
}

#[test]
fn every_scenario_has_a_test() {
    let n = std::fs::read_dir(golden("slice"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(n, 5);
}
