//! The examples under `examples/`, run as their READMEs tell a person to:
//! each gate is green (exit 0) on its committed baseline, red (exit 1)
//! after the README's one documented change, and each committed baseline
//! was made under the suite's current rules.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{copy_files, digline_env, repo, stub, Ran};

#[path = "../../examples/spring-http/stub_server.rs"]
mod spring_server;

#[path = "../../examples/rag/mock_judge_server.rs"]
mod mock_judge_server;

/// The examples with a suite: folder, tenant, suite name.
const EXAMPLES: [(&str, &str, &str); 5] = [
    ("quickstart", "quickstart", "support"),
    ("spring-http", "acme", "assistant"),
    ("classifier", "triage", "urgency"),
    ("rag", "northwind", "help-centre"),
    ("sampled-canary", "northwind", "sampled"),
];

/// A copy of `examples/<name>` (its files and committed baselines) in `root`.
fn example_copy(name: &str, root: &Path) {
    let src = repo().join("examples").join(name);
    copy_files(&src, root);
    let (_, tenant, _) = EXAMPLES.iter().find(|e| e.0 == name).unwrap();
    let baselines = format!(".digline/{tenant}/baselines");
    std::fs::create_dir_all(root.join(&baselines)).unwrap();
    copy_files(&src.join(&baselines), &root.join(&baselines));
}

/// Replace `from` with `to` in the file at `path`, which must contain it.
fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Point the suite at a test port instead of the example's fixed one.
fn set_port(root: &Path, from: u16, to: u16) {
    edit(
        &root.join("suite.toml"),
        &format!("127.0.0.1:{from}/"),
        &format!("127.0.0.1:{to}/"),
    );
}

/// `digline gate` as the example's `gate.sh` calls it.
fn gate(root: &Path, vars: &[(&str, &str)]) -> Ran {
    digline_env(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--publish",
            "none",
            "--out",
            "out",
        ],
        vars,
    )
}

fn outcome(root: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root.join("out/outcome.json")).unwrap()).unwrap()
}

/// Green on the committed baseline: 0, nothing got worse, and the run was
/// compared with that baseline.
fn assert_green(root: &Path, ran: &Ran) {
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.starts_with("Nothing got worse"),
        "{}",
        ran.stdout
    );
    assert_eq!(outcome(root)["outcome"], "nothing_got_worse");
}

fn assert_red(ran: &Ran, lines: &[&str]) {
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    for line in lines {
        assert!(ran.stdout.contains(line), "{line:?} in:\n{}", ran.stdout);
    }
}

#[test]
fn spring_http_gate_is_green_then_red_and_needs_its_token() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    example_copy("spring-http", root);
    let server = spring_server::start(root.join("answers.json"), 0, "t0k3n".into()).unwrap();
    set_port(root, 8732, server.port);
    let token = [("ASSISTANT_TOKEN", "t0k3n")];

    assert_green(root, &gate(root, &token));

    // No token in the environment: refused before any call, and the token
    // the suite names is said by name.
    let ran = gate(root, &[]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stderr.contains("ASSISTANT_TOKEN"), "{}", ran.stderr);

    // The README's change: a reply leaks an internal order reference.
    edit(
        &root.join("answers.json"),
        "until the end of the period.",
        "until the end of the period (ref ORD-INT-5521).",
    );
    assert_red(
        &gate(root, &token),
        &["cancel-subscription · not_contains · Went from passing to failing (1.000000 → 0.000000)."],
    );
}

#[test]
fn spring_http_config_must_be_mapped_to_the_contract() {
    // `meta.model` is {"provider", "name"}: not digline's configuration
    // contract, so every case errors (exit 2) — the README's reason for
    // `meta.modelConfig`.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    example_copy("spring-http", root);
    let server = spring_server::start(root.join("answers.json"), 0, "t0k3n".into()).unwrap();
    set_port(root, 8732, server.port);
    edit(
        &root.join("suite.toml"),
        "config_path = \"meta.modelConfig\"",
        "config_path = \"meta.model\"",
    );
    let ran = gate(root, &[("ASSISTANT_TOKEN", "t0k3n")]);
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    let run = std::fs::read_to_string(latest_run(root)).unwrap();
    assert!(
        run.contains("'meta.model' declares name, which is not part of the configuration contract"),
        "{run}"
    );
}

/// The newest run document under `root/.digline`.
fn latest_run(root: &Path) -> PathBuf {
    let mut runs: Vec<PathBuf> = Vec::new();
    for tenant in std::fs::read_dir(root.join(".digline")).unwrap().flatten() {
        let Ok(suites) = std::fs::read_dir(tenant.path().join("runs")) else {
            continue;
        };
        for suite in suites.flatten() {
            runs.extend(
                std::fs::read_dir(suite.path())
                    .unwrap()
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "json")),
            );
        }
    }
    runs.sort();
    runs.pop().expect("a stored run")
}

#[test]
fn classifier_gate_is_green_then_red_on_precision() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    example_copy("classifier", root);
    let server = stub(&root.join("answers.json"));
    set_port(root, 8733, server.port);

    assert_green(root, &gate(root, &[]));
    // The baseline is not a threshold: the missed urgent ticket
    // (shipping-damaged) is in the baseline, and stays a known failure.
    let junit = std::fs::read_to_string(root.join("out/junit.xml")).unwrap();
    assert!(junit.contains("shipping-damaged"), "{junit}");

    // The README's change: a routine ticket is escalated.
    edit(
        &root.join("answers.json"),
        "\"shipping-eta\": \"routine\"",
        "\"shipping-eta\": \"urgent\"",
    );
    assert_red(
        &gate(root, &[]),
        &[
            "shipping-eta · label · Went from passing to failing (1.000000 → 0.000000).",
            "whole run · precision · Went from passing to failing (1.000000 → 0.750000).",
            "whole run · f1 · Went from passing to failing (0.857143 → 0.750000).",
        ],
    );
}

#[test]
fn rag_gate_is_green_then_red_on_faithfulness_with_the_mock_judge() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    example_copy("rag", root);
    let judge = mock_judge_server::start(0).unwrap();
    let server = stub(&root.join("answers.json"));
    set_port(root, 8735, server.port);
    let base = format!("http://127.0.0.1:{}", judge.port);
    let vars = [("ANTHROPIC_BASE_URL", base.as_str())];

    let ran = gate(root, &vars);
    assert!(
        ran.stderr
            .contains("plus 6 calls to judges (2 per answer × 3 answers)"),
        "{}",
        ran.stderr
    );
    assert_green(root, &ran);

    // The README's change: the answer claims a refund window the context
    // does not give.
    edit(
        &root.join("answers.json"),
        "within 30 days",
        "within 60 days",
    );
    assert_red(
        &gate(root, &vars),
        &["refund-window · faithfulness · Went from passing to failing (1.000000 → 0.500000)."],
    );
}

#[test]
fn sampled_canary_gate_is_green_then_the_canary_moves() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    example_copy("sampled-canary", root);
    let server = stub(&root.join("answers.json"));
    set_port(root, 8736, server.port);

    let ran = gate(root, &[]);
    assert!(
        ran.stderr.contains("3 cases × 3 samples = 9 calls"),
        "{}",
        ran.stderr
    );
    assert_green(root, &ran);
    // Once more: the varying answers stay within the measured noise.
    assert_green(root, &gate(root, &[]));

    // The README's change: the canary's fixed sentence is worded anew —
    // still passing, but it moved.
    edit(
        &root.join("answers.json"),
        "\"canary-fixed-sentence\": \"Thank you for contacting Northwind Support.\"",
        "\"canary-fixed-sentence\": \"Thanks for contacting Northwind Support!\"",
    );
    let ran = gate(root, &[]);
    assert_red(
        &ran,
        &[
            "The model under this alias likely changed: the canary canary-fixed-sentence moved from 1.000000 to 0.883721",
            "canary-fixed-sentence · levenshtein · Score fell from 1.000000 to 0.883721",
        ],
    );
    let comment = std::fs::read_to_string(root.join("out/comment.md")).unwrap();
    assert!(
        comment.contains(
            "| canary\\-fixed\\-sentence | levenshtein | pass 1.000000 → pass 0.883721 |"
        ),
        "{comment}"
    );
}

#[test]
fn every_committed_baseline_is_current_and_alone() {
    for (name, tenant, suite) in EXAMPLES {
        let dir = repo().join("examples").join(name);
        let baselines = dir.join(".digline").join(tenant).join("baselines");
        let files: Vec<_> = std::fs::read_dir(&baselines)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(files, [format!("{suite}.json")], "{name}");
        let baseline: Value = serde_json::from_str(
            &std::fs::read_to_string(baselines.join(format!("{suite}.json"))).unwrap(),
        )
        .unwrap();
        let loaded = digline::host::suite::load(&dir.join("suite.toml"), &dir).unwrap();
        assert_eq!(
            baseline["config_hash"],
            loaded.suite.config_hash().as_str(),
            "{name}: the committed baseline was made under other rules"
        );
        assert_eq!(baseline["tenant"], tenant, "{name}");
    }
}
