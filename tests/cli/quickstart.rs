//! The README's main job, as a new user meets it: the quickstart suite
//! against the stub, compared with the committed baseline — exit 0; the
//! documented one-line change — exit 1 with the line that got worse; the
//! stub stopped — exit 64 in one sentence.

use std::path::Path;

use crate::util::{copy_files, digline, repo, set_port, stub};

/// A copy of `examples/quickstart` with its committed baseline.
fn quickstart_copy(root: &Path) {
    let src = repo().join("examples/quickstart");
    copy_files(&src, root);
    let baselines = root.join(".digline/quickstart/baselines");
    std::fs::create_dir_all(&baselines).unwrap();
    copy_files(&src.join(".digline/quickstart/baselines"), &baselines);
}

#[test]
fn the_gate_is_green_then_red_then_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart_copy(root);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let suite = ["--suite", "suite.toml"];

    let ran = digline(root, &["run", suite[0], suite[1]]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "digline: 3 cases × 1 sample = 3 calls to the target\n"
    );
    let ran = digline(root, &["compare", suite[0], suite[1], "--run", "latest"]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout
            .starts_with("Nothing got worse compared with the reference."),
        "{}",
        ran.stdout
    );

    // The README's one-line change: the return answer loses its signature.
    let answers = std::fs::read_to_string(root.join("answers.json")).unwrap();
    let line = answers
        .lines()
        .find(|l| l.contains("\"how-do-i-return\""))
        .unwrap();
    let changed = answers.replace(line, &line.replace(" — Northwind Support", ""));
    assert_ne!(changed, answers);
    std::fs::write(root.join("answers.json"), changed).unwrap();
    let ran = digline(root, &["run", "-q", suite[0], suite[1]]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stderr, "", "-q prints nothing but errors");
    let ran = digline(root, &["compare", suite[0], suite[1], "--run", "latest"]);
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains(
            "how-do-i-return · contains · Went from passing to failing (1.000000 → 0.000000)."
        ),
        "{}",
        ran.stdout
    );

    // The stub stopped: the run is refused before any case, in one sentence.
    let port = server.port;
    drop(server);
    let ran = digline(root, &["run", suite[0], suite[1]]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    // digline's own sentence, not Python's `<urlopen error [Errno 111] …>`.
    assert_eq!(
        ran.stderr,
        format!(
            "digline: connection refused at 127.0.0.1:{port}: nothing is listening there. \
             Every case would fail the same way, so the run stops before the first one — \
             start the application, or point the target at it\n"
        )
    );
    // In the reader's locale.
    let ran = digline(root, &["run", suite[0], suite[1], "--locale", "de"]);
    assert_eq!(ran.code, 64, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        format!(
            "digline: Verbindung abgelehnt bei 127.0.0.1:{port}: dort lauscht nichts. Jeder Fall \
             würde genauso scheitern, daher hält der Lauf vor dem ersten an — starte die \
             Anwendung oder richte das System auf sie aus\n"
        )
    );
    assert!(ran.stdout.is_empty());
}

#[test]
fn the_committed_baseline_is_current() {
    // The committed baseline was made under the suite's current rules, or
    // `promote` and the gate would compare different rules.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart_copy(root);
    let baseline: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".digline/quickstart/baselines/support.json")).unwrap(),
    )
    .unwrap();
    let loaded = digline::host::suite::load(&root.join("suite.toml"), root).unwrap();
    assert_eq!(baseline["config_hash"], loaded.suite.config_hash().as_str());
}
