//! End to end against digline 0.10.0's run documents (`tests/goldens/documents`):
//! our binary runs each suite against our stub serving the same answers
//! table, and the stored document must equal 0.10.0's byte for byte (but for
//! `created_at`, `digline_version` and `git_commit`). The documents were made
//! on port 18950, which target error reasons name; it is swapped for ours.

use serde_json::Value;

use crate::util::{digline, golden, run_file, stub};

fn replay(name: &str) {
    let src = golden(&format!("documents/{name}"));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::copy(src.join("cases.json"), root.join("cases.json")).unwrap();
    std::fs::copy(src.join("answers.json"), root.join("answers.json")).unwrap();
    let server = stub(&root.join("answers.json"));
    let port = format!("127.0.0.1:{}", server.port);
    let suite = std::fs::read_to_string(src.join("suite.toml")).unwrap();
    std::fs::write(
        root.join("suite.toml"),
        suite.replace("127.0.0.1:18950", &port),
    )
    .unwrap();

    let command = std::fs::read_to_string(src.join("command.txt")).unwrap();
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let ran = digline(root, &args);
    assert_eq!(ran.code, 0, "{name}: {}", ran.stderr);
    let want_stderr = std::fs::read_to_string(src.join("run.stderr")).unwrap();
    let (plan, rest) = ran
        .stderr
        .split_at(ran.stderr.find('\n').map_or(0, |i| i + 1));
    assert_eq!(plan, want_stderr, "{name}: the plan line");
    // digline adds lines 0.10.0 did not print: how many calls were tried
    // again (counts only), and how many cases could not be judged.
    let added: Vec<&str> = rest
        .lines()
        .filter(|l| !(l.starts_with("digline: ") && l.contains(" call(s) were tried again (")))
        .collect();
    assert!(
        added.is_empty() || (added.len() == 1 && added[0].contains("could not be judged")),
        "{name}: {rest}"
    );

    let ours = std::fs::read_to_string(run_file(root, ran.stdout.trim())).unwrap();
    let want = std::fs::read_to_string(src.join("run.json")).unwrap();
    let theirs: Value = serde_json::from_str(&want).unwrap();
    let mut mine: Value = serde_json::from_str(&ours).unwrap();
    for key in ["created_at", "digline_version", "git_commit"] {
        mine[key] = theirs[key].clone();
    }
    let mine = digline::core::python::dumps::dumps_document(&mine);
    assert_eq!(
        mine,
        want.replace("127.0.0.1:18950", &port),
        "{name}: the run document"
    );
    drop(server);
}

#[test]
fn unicode_text_matches_0_10_0() {
    replay("01-unicode-text");
}

#[test]
fn json_checks_match_0_10_0() {
    replay("02-json-checks");
}

#[test]
fn errors_match_0_10_0() {
    replay("05-errors");
}
