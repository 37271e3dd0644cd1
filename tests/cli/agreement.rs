//! The CLI and the MCP server answer from the same code (`app::compare`):
//! asked the same questions, `digline compare --json full` and the MCP
//! `compare` tool give the same exit code and the same counts — or refuse
//! with the same sentence (the CLI's exit 64, the tool's error).
//!
//! The questions: a normal run, a shard run (refused by both: a share of
//! the cases is never compared on its own), a run with missing checks (the
//! suite dropped one since the baseline), and a replaced baseline.

use std::path::Path;

use serde_json::{json, Value};

use crate::mcp::{quickstart_copy, Session};
use crate::util::{digline, set_port, stub};

/// One answer: the exit code and the counts, or 64 and the sentence.
#[derive(Debug, PartialEq)]
enum Answer {
    Verdict { exit_code: i64, counts: Value },
    Refused(String),
}

fn cli_answer(root: &Path, run: &str) -> Answer {
    let ran = digline(
        root,
        &[
            "compare",
            "--suite",
            "suite.toml",
            "--run",
            run,
            "--json",
            "full",
        ],
    );
    if ran.code == 64 {
        let first = ran.stderr.lines().next().unwrap_or_default();
        return Answer::Refused(first.trim_start_matches("digline: ").to_string());
    }
    let value: Value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("compare --json full prints JSON ({e}): {}", ran.stdout));
    assert_eq!(value["exit_code"], json!(ran.code), "{value}");
    Answer::Verdict {
        exit_code: i64::from(ran.code),
        counts: value["counts"].clone(),
    }
}

fn mcp_answer(session: &mut Session, run: &str) -> Answer {
    let result = session.call("compare", json!({"suite": "suite.toml", "run": run}));
    if result["isError"] == json!(true) {
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        return Answer::Refused(text.lines().next().unwrap_or_default().to_string());
    }
    let value = &result["structuredContent"];
    Answer::Verdict {
        exit_code: value["exit_code"].as_i64().unwrap_or(-1),
        counts: value["counts"].clone(),
    }
}

/// The stored run's key, from `digline run -q … extra`.
fn run(root: &Path, extra: &[&str]) -> String {
    let ran = digline(
        root,
        &[&["run", "-q", "--suite", "suite.toml"], extra].concat(),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    ran.stdout.trim().to_string()
}

#[test]
fn the_cli_and_the_mcp_server_give_the_same_verdicts_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    quickstart_copy(root);
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let mut session = Session::start(root, &[]);
    let ask = |session: &mut Session, run: &str| {
        let (cli, mcp) = (cli_answer(root, run), mcp_answer(session, run));
        assert_eq!(cli, mcp, "compare {run}: the CLI and MCP disagree");
        cli
    };

    // A normal run: a verdict, with every check counted.
    let whole = run(root, &[]);
    let normal = ask(&mut session, &whole);
    assert!(
        matches!(normal, Answer::Verdict { exit_code: 0, .. }),
        "{normal:?}"
    );

    // A shard run: refused by both, never a verdict on a share.
    let shard = run(root, &["--shard", "1/2"]);
    let refused = ask(&mut session, &shard);
    let Answer::Refused(sentence) = &refused else {
        panic!("a shard run is refused: {refused:?}");
    };
    assert!(
        sentence.contains("of a sharded run, not the whole suite"),
        "{sentence}"
    );

    // Missing checks: the suite dropped one since the baseline.
    let suite = root.join("suite.toml");
    let text = std::fs::read_to_string(&suite).unwrap();
    let dropped = text.replacen(
        "[[assertions]]\ntype = \"not_contains\"\nneedle = \"as an AI\"\ncase_sensitive = false\n",
        "",
        1,
    );
    assert_ne!(dropped, text, "the fixture's check is there to drop");
    std::fs::write(&suite, &dropped).unwrap();
    let fewer = run(root, &[]);
    let missing = ask(&mut session, &fewer);
    let Answer::Verdict { counts, .. } = &missing else {
        panic!("a run with missing checks is judged: {missing:?}");
    };
    assert_ne!(
        Some(counts),
        match &normal {
            Answer::Verdict { counts, .. } => Some(counts),
            Answer::Refused(_) => None,
        },
        "the missing checks are counted"
    );
    ask(&mut session, "latest");

    // A replaced baseline: the whole run becomes the reference; both read it.
    std::fs::write(&suite, &text).unwrap();
    let baseline_key =
        match session.ok("get_baseline", json!({"suite": "suite.toml"}))["key"].as_str() {
            Some(key) => key.to_string(),
            None => panic!("the quickstart has a baseline"),
        };
    let promoted = digline(
        root,
        &[
            "promote",
            "-q",
            "--suite",
            "suite.toml",
            "--run",
            &whole,
            "--replacing",
            &baseline_key,
        ],
    );
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
    let replaced = ask(&mut session, &fewer);
    assert!(matches!(replaced, Answer::Verdict { .. }), "{replaced:?}");
    ask(&mut session, &whole);
    drop(server);
    assert_eq!(session.finish(), 0);
}
