//! The payload boundary across every surface at once (`00-product.md`
//! decision 4): one marker suite whose outputs, judge reasons, case vars,
//! metadata, expected values, context, suspension reasons, run `--meta`
//! values and prompt text each carry a distinct string. The run document
//! holds them all (asserted first, so the test proves a boundary rather
//! than an empty field); none may appear in the terminal text of `run`,
//! `list`, `compare`, `diff`, `gate`, `publish`, `report`, `rejudge`, in any
//! `--json`, the comment (as posted and as written), the job summary,
//! `GITHUB_OUTPUT`, the annotations, JUnit, `outcome.json`, the gate's
//! report, a `--redacted` report, MCP responses, or stderr at the default
//! log level.

use std::path::Path;

use serde_json::{json, Value};

use crate::fake_llm::{self, ok, Seen};
use crate::forges::{fake_github, Mode};
use crate::gate::{actions_env, digline_env, read};
use crate::mcp::Session;
use crate::util::{run_file, stub, Ran};

/// (what, marker): each payload field and the string it carries.
const MARKERS: [(&str, &str); 9] = [
    ("output", "PAYLOAD-OUTPUT-b01"),
    ("judge reason", "PAYLOAD-REASON-b02"),
    ("case var", "PAYLOAD-VAR-b03"),
    ("case metadata", "PAYLOAD-CASEMETA-b04"),
    ("expected", "PAYLOAD-EXPECTED-b05"),
    ("context", "PAYLOAD-CONTEXT-b06"),
    ("suspension reason", "PAYLOAD-SUSPENDED-b07"),
    ("run --meta value", "PAYLOAD-RUNMETA-b08"),
    ("prompt", "PAYLOAD-PROMPT-b09"),
];

fn marker(what: &str) -> &'static str {
    MARKERS.iter().find(|(w, _)| *w == what).unwrap().1
}

/// The marker suite: an HTTP target on the stub, a prompt artifact, an
/// `llm_rubric` judged by the fake Anthropic API, and `equals` (which reads
/// `expected`).
fn marker_suite(root: &Path, port: u16) {
    std::fs::write(
        root.join("prompt.txt"),
        format!("You are polite. {}\n", marker("prompt")),
    )
    .unwrap();
    std::fs::write(
        root.join("suite.toml"),
        format!(
            r#"[suite]
tenant = "marker"
environment = "ci"
name = "boundary"
cases = "cases.json"
artifacts = ["prompt.txt"]
record_responses = true

[target]
type = "http"
url = "http://127.0.0.1:{port}/answer"
output_path = "data.answer"

[target.body]
id = "case.id"
question = "case.vars.question"

[[assertions]]
type = "contains"
needle = "signed"

[[assertions]]
type = "equals"

[[assertions]]
type = "llm_rubric"
rubric = "Polite and on topic."
judge = "anthropic/claude-haiku-4-5"
threshold = 0.7
tolerance = 0.1
"#
        ),
    )
    .unwrap();
    let cases = json!([
        {"id": "alpha", "vars": {"question": marker("case var")},
         "metadata": {"note": marker("case metadata")},
         "expected": marker("expected"), "context": [marker("context")]},
        {"id": "beta", "vars": {"question": "plain"}, "expected": "x"},
        {"id": "gamma", "vars": {"question": "q"}, "expected": "x",
         "suspended": marker("suspension reason")},
        {"id": "delta", "vars": {"question": "d"}, "expected": "x"},
    ]);
    std::fs::write(root.join("cases.json"), cases.to_string()).unwrap();
}

/// The stub's table: every answer carries the output marker; `worse`
/// unsigns `alpha` and makes `delta` answer something that is not JSON
/// (whose text an error cause could quote).
fn answers(root: &Path, worse: bool) {
    let out = marker("output");
    let table = if worse {
        json!({
            "alpha": {"answer": format!("{out} BAD")},
            "delta": {"raw": format!("not json: {out}")},
            "*": {"answer": format!("{out} GOOD signed")},
        })
    } else {
        json!({"*": {"answer": format!("{out} GOOD signed")}})
    };
    std::fs::write(root.join("answers.json"), table.to_string()).unwrap();
}

/// Collects every text a surface produced, labelled.
struct Surfaces {
    root: std::path::PathBuf,
    texts: Vec<(String, String)>,
}

impl Surfaces {
    fn add(&mut self, label: &str, text: String) {
        self.texts.push((label.to_string(), text));
    }
    /// Run digline in the root; keep its stdout and stderr.
    fn go(&mut self, label: &str, args: &[&str], vars: &[(&str, String)], code: i32) -> Ran {
        let ran = digline_env(&self.root, args, vars);
        assert_eq!(ran.code, code, "{label}: {}{}", ran.stdout, ran.stderr);
        self.ran(label, &ran);
        ran
    }
    /// A command's stdout and stderr (the default log level).
    fn ran(&mut self, label: &str, ran: &Ran) {
        self.add(&format!("{label} stdout"), ran.stdout.clone());
        self.add(&format!("{label} stderr"), ran.stderr.clone());
    }
}

#[test]
fn no_payload_crosses_any_surface() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    answers(root, false);
    let server = stub(&root.join("answers.json"));
    marker_suite(root, server.port);
    let judge = fake_llm::start(Box::new(|seen: &Seen, _| {
        let score = if seen.user().contains("GOOD") {
            0.9
        } else {
            0.2
        };
        let reply = json!({"score": score, "reason": marker("judge reason")});
        ok(seen, &reply.to_string(), 10, 10)
    }));
    let mut vars = vec![
        ("ANTHROPIC_BASE_URL", judge.base()),
        ("ANTHROPIC_API_KEY", "sk-ant-boundary".to_string()),
    ];
    let meta = format!("build={}", marker("run --meta value"));
    let suite = ["--suite", "suite.toml"];
    let mut seen = Surfaces {
        root: root.to_path_buf(),
        texts: Vec::new(),
    };

    // The reference, then a worse run.
    let first = seen.go(
        "run",
        &[&["run"][..], &suite, &["--meta", &meta]].concat(),
        &vars,
        0,
    );
    let first = first.stdout.trim().to_string();
    seen.go(
        "promote",
        &[&["promote"][..], &suite, &["--run", &first]].concat(),
        &vars,
        0,
    );
    answers(root, true);
    let second = seen.go(
        "run --json",
        &[&["run"][..], &suite, &["--meta", &meta, "--json"]].concat(),
        &vars,
        0,
    );
    let second: Value = serde_json::from_str(second.stdout.trim()).unwrap();
    let second = second["key"].as_str().unwrap().to_string();

    let stored = read(run_file(root, &second));
    // The markers are in the store (case metadata, expected and context
    // only in the cases file, which the document does not copy).
    let cases = read(root.join("cases.json"));
    for (what, text) in MARKERS {
        let held = match what {
            "case metadata" | "expected" | "context" => &cases,
            _ => &stored,
        };
        assert!(held.contains(text), "no {what} is stored");
    }

    seen.go("list", &[&["list"][..], &suite].concat(), &vars, 0);
    let run = ["--run", second.as_str()];
    let compared = seen.go(
        "compare",
        &[&["compare"][..], &suite, &run].concat(),
        &vars,
        1,
    );
    assert!(compared.stdout.contains("alpha"), "{}", compared.stdout);
    seen.go(
        "compare --json",
        &[&["compare"][..], &suite, &run, &["--json"]].concat(),
        &vars,
        1,
    );
    seen.go(
        "compare --json full",
        &[&["compare"][..], &suite, &run, &["--json", "full"]].concat(),
        &vars,
        1,
    );
    let keys = [first.as_str(), second.as_str()];
    seen.go("diff", &[&["diff"][..], &suite, &keys].concat(), &vars, 0);
    for form in ["counts", "full"] {
        seen.go(
            &format!("diff --json {form}"),
            &[&["diff"][..], &suite, &["--json", form], &keys].concat(),
            &vars,
            0,
        );
    }
    seen.go(
        "report --redacted",
        &[
            &["report"][..],
            &suite,
            &run,
            &["--locale", "en", "--redacted", "--out", "redacted.html"],
        ]
        .concat(),
        &vars,
        1,
    );
    seen.add("report --redacted file", read(root.join("redacted.html")));
    // The control: the full report carries payload, so the search sees it.
    seen.go(
        "report",
        &[
            &["report"][..],
            &suite,
            &run,
            &["--locale", "en", "--out", "full.html"],
        ]
        .concat(),
        &vars,
        1,
    );
    let full = read(root.join("full.html"));
    for what in ["judge reason", "suspension reason"] {
        assert!(
            full.contains(marker(what)),
            "the full report shows the {what}"
        );
    }
    // An error's stored reason quotes what the system answered (`not JSON:
    // '…'`): even the full report says the cause in digline's words instead.
    assert!(
        !full.contains(marker("output")),
        "the full report quotes no answer"
    );
    assert!(
        full.contains("answered something that is not JSON."),
        "the full report says why delta could not be judged"
    );

    // The gate, publishing to a fake GitHub, then `publish` again.
    let github = fake_github(Mode::Normal);
    vars.extend(actions_env(root, &github));
    let gated = seen.go(
        "gate",
        &[
            &["gate"][..],
            &suite,
            &["--out", "out", "--publish", "github"],
        ]
        .concat(),
        &vars,
        1,
    );
    assert!(
        gated.stdout.contains("::error"),
        "an annotation: {}",
        gated.stdout
    );
    seen.go(
        "publish",
        &[
            "publish",
            "--outcome",
            "out/outcome.json",
            "--publish",
            "github",
        ],
        &vars,
        0,
    );
    let comments = github.comments();
    assert!(!comments.is_empty());
    assert!(comments[0].1.contains("alpha"), "{}", comments[0].1);
    for (_, body) in comments {
        seen.add("the posted comment", body);
    }
    for request in github.seen() {
        seen.add(
            "a request to GitHub",
            format!("{} {}", request.url, request.body),
        );
    }
    for file in [
        "comment.md",
        "summary.md",
        "junit.xml",
        "outcome.json",
        "report.html",
    ] {
        seen.add(&format!("out/{file}"), read(root.join("out").join(file)));
    }
    seen.add("GITHUB_OUTPUT", read(root.join("gh-output")));
    seen.add("GITHUB_STEP_SUMMARY", read(root.join("gh-summary")));

    seen.go(
        "rejudge",
        &[&["rejudge"][..], &suite, &["--run", &first]].concat(),
        &vars,
        0,
    );

    // MCP: every tool.
    let stderr = root.join("mcp.stderr");
    let mut session = Session::start_with(root, &[], &vars, &stderr);
    let args = json!({"suite": "suite.toml"});
    let refused = session.refused("run", args.clone());
    let planned: u64 = refused
        .split("plans ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the planned count: {refused}"));
    session.ok(
        "run",
        json!({"suite": "suite.toml", "acknowledge_calls": planned}),
    );
    session.ok("list_runs", args.clone());
    session.ok("get_run", json!({"suite": "suite.toml", "run": second}));
    session.ok("get_baseline", args);
    session.ok("compare", json!({"suite": "suite.toml", "run": second}));
    session.ok(
        "diff",
        json!({"suite": "suite.toml", "run1": first, "run2": second}),
    );
    seen.add("MCP responses", session.transcript.join("\n"));
    assert_eq!(session.finish(), 0);
    seen.add("MCP stderr", read(&stderr));

    let mut leaks = Vec::new();
    for (label, text) in &seen.texts {
        for (what, payload) in MARKERS {
            if text.contains(payload) {
                leaks.push(format!("the {what} crossed into {label}"));
            }
        }
    }
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}
