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

/// A classifier of 40 labelled cases whose `over` check is `contains "yes"`:
/// the 20 positives answer "yes", the 20 negatives "no" (accuracy 0.50 in
/// the aggregates' cells: 20 TP, 20 FP). `flip` negatives answer `answers`.
fn classifier(root: &Path, flip: &Value) {
    let suite = "[suite]\ntenant = \"t\"\nenvironment = \"local\"\nname = \"cls\"\n\
                 cases = \"cases.json\"\n\n\
                 [target]\ntype = \"http\"\nurl = \"http://127.0.0.1:8731/answer\"\n\
                 output_path = \"data.answer\"\n\n[target.body]\nid = \"case.id\"\n\n\
                 [[assertions]]\nname = \"says_yes\"\ntype = \"contains\"\nneedle = \"yes\"\n\n\
                 [[assertions]]\ntype = \"accuracy\"\nover = \"says_yes\"\nthreshold = 0.0\n\
                 tolerance = 0.0\n";
    std::fs::write(root.join("suite.toml"), suite).unwrap();
    let mut cases = Vec::new();
    let mut answers = serde_json::Map::new();
    for i in 0..40 {
        let (id, label) = if i < 20 {
            (format!("pos{i:02}"), "positive")
        } else {
            (format!("neg{i:02}"), "negative")
        };
        let answer = match i {
            0..=19 => json!("yes"),
            20..=25 => flip.clone(),
            _ => json!("no"),
        };
        answers.insert(id.clone(), answer);
        cases.push(json!({"id": id, "label": label}));
    }
    std::fs::write(root.join("cases.json"), Value::Array(cases).to_string()).unwrap();
    std::fs::write(
        root.join("answers.json"),
        Value::Object(answers).to_string(),
    )
    .unwrap();
}

/// Whole-run measures read the aggregates' cells (`docs/checks.md`: a
/// negative case that passes is a true negative). A reference whose third
/// sample let six negatives pass (accuracy 0.50, sampled 0.50–0.65), then a
/// pull request where those six pass: accuracy rose to 0.65. The gate,
/// `compare` of the gate's run and the MCP tool all call it a rise (never
/// "a real drop", never exit 1); `compare` of a plain run agrees on the
/// exit code and, as the docs say, shows no paired measures.
#[test]
fn an_accuracy_that_rose_is_never_a_real_drop_on_any_surface() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    classifier(root, &json!({"answers": ["no", "no", "yes"]}));
    let server = stub(&root.join("answers.json"));
    set_port(&root.join("suite.toml"), server.port);
    let reference = run(root, &["--samples", "3"]);
    let promoted = digline(
        root,
        &[
            "promote",
            "-q",
            "--suite",
            "suite.toml",
            "--run",
            &reference,
        ],
    );
    assert_eq!(promoted.code, 0, "{}", promoted.stderr);
    classifier(root, &json!("yes"));
    set_port(&root.join("suite.toml"), server.port);
    let gate = digline(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--out",
            "out",
            "--publish",
            "none",
        ],
    );
    assert_eq!(gate.code, 0, "{}{}", gate.stdout, gate.stderr);
    let text = std::fs::read_to_string(root.join("out/comment.md")).unwrap()
        + &std::fs::read_to_string(root.join("out/report.html")).unwrap()
        + &gate.stdout;
    assert!(!text.contains("real drop"), "{text}");
    let mut session = Session::start(root, &[]);
    let mut ask = |key: &str, gated: bool| {
        let (cli, mcp) = (cli_answer(root, key), mcp_answer(&mut session, key));
        assert_eq!(cli, mcp, "compare {key}: the CLI and MCP disagree");
        assert!(
            matches!(cli, Answer::Verdict { exit_code: 0, .. }),
            "{cli:?}"
        );
        let ran = digline(
            root,
            &[
                "compare",
                "--suite",
                "suite.toml",
                "--run",
                key,
                "--json",
                "full",
            ],
        );
        let value: Value = serde_json::from_str(&ran.stdout).unwrap();
        let paired = &value["paired_measures"];
        if !gated {
            // Two documents the gate never saw compare as 0.10.0 did, byte
            // for byte (`docs/statistics.md`): no paired measures.
            assert!(paired.is_null(), "{value}");
            return;
        }
        // The gate's run: its measures when the gate's record is read
        // (the workspace trust rule decides that), never a real drop.
        if paired.is_null() {
            return;
        }
        assert_eq!(paired[0]["name"], json!("accuracy"), "{value}");
        assert_eq!(paired[0]["cases"], json!(40), "{value}");
        assert_eq!(paired[0]["real_drop"], json!(false), "{value}");
        let difference = paired[0]["difference"].as_f64().unwrap();
        assert!((difference - 0.15).abs() < 1e-9, "{value}");
    };
    // The gate's run, then a plain run the gate never saw.
    ask("latest", true);
    let plain = run(root, &[]);
    ask(&plain, false);
    drop(server);
    assert_eq!(session.finish(), 0);
}
