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

/// `gate --out` never writes through a symbolic link: a committed
/// `digline-gate/comment.md -> ../victim.txt` is replaced, not followed,
/// and an `--out` directory that is a link is refused (64, one sentence)
/// before anything is written.
#[test]
fn gate_out_never_writes_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    crate::gate::quickstart(root, true);
    let server = stub(&root.join("answers.json"));
    crate::util::set_port(&root.join("suite.toml"), server.port);
    std::fs::write(root.join("victim.txt"), "keep me").unwrap();
    std::fs::create_dir(root.join("digline-gate")).unwrap();
    for name in [
        "comment.md",
        "summary.md",
        "junit.xml",
        "outcome.json",
        "report.html",
    ] {
        std::os::unix::fs::symlink("../victim.txt", root.join("digline-gate").join(name)).unwrap();
    }
    let args = [
        "gate",
        "--suite",
        "suite.toml",
        "--out",
        "digline-gate",
        "--publish",
        "none",
    ];
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(read(root.join("victim.txt")), "keep me");
    let comment = std::fs::symlink_metadata(root.join("digline-gate/comment.md")).unwrap();
    assert!(comment.file_type().is_file());
    assert!(read(root.join("digline-gate/comment.md")).contains("digline-gate"));

    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), root.join("linked")).unwrap();
    let args = [
        "gate",
        "--suite",
        "suite.toml",
        "--out",
        "linked",
        "--publish",
        "none",
    ];
    let ran = digline_env(root, &args, &[]);
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(
        ran.stderr.trim_end().lines().last().unwrap(),
        "digline: linked is a symbolic link: digline does not write its output through one (a \
         link committed in a pull request could point anywhere), so nothing was written; remove \
         the link or choose another place"
    );
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);

    // `report --out` alike.
    let ran = digline_env(
        root,
        &[
            "report",
            "--suite",
            "suite.toml",
            "--run",
            "latest",
            "--out",
            "linked/r.html",
        ],
        &[],
    );
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
}

/// The store's inside-the-store rule holds for writes as for reads:
/// `promote` into a `baselines` directory linked out of the store is
/// refused before writing (64, one sentence).
#[test]
fn promote_refuses_a_baselines_link_out_of_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    crate::gate::quickstart(root, false);
    let server = stub(&root.join("answers.json"));
    crate::util::set_port(&root.join("suite.toml"), server.port);
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), root.join(".digline/quickstart/baselines"))
        .unwrap();
    let ran = digline_env(
        root,
        &["promote", "--suite", "suite.toml", "--run", "latest"],
        &[],
    );
    assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
    let store = root.join(".digline").canonicalize().unwrap();
    assert_eq!(
        ran.stderr.trim_end(),
        format!(
            "digline: {}/.digline/quickstart/baselines resolves outside the store {}: digline writes \
             only inside .digline/, so nothing was written; remove the symbolic link",
            ".",
            store.display()
        )
    );
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
}

/// `publish` recomputes the marker from the outcome's root, tenant and
/// suite: an empty or foreign marker (which would find and overwrite any
/// comment) is refused, 64, and nothing is posted.
#[test]
fn publish_refuses_a_marker_it_did_not_compute() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    crate::gate::quickstart(root, true);
    let server = stub(&root.join("answers.json"));
    crate::util::set_port(&root.join("suite.toml"), server.port);
    let args = [
        "gate",
        "--suite",
        "suite.toml",
        "--out",
        "o",
        "--publish",
        "none",
    ];
    assert_eq!(digline_env(root, &args, &[]).code, 0);
    let mut outcome: Value = serde_json::from_str(&read(root.join("o/outcome.json"))).unwrap();
    let fake = fake_github(Mode::Normal);
    let vars = actions_env(root, &fake);
    for forged in ["", "<!-- digline-gate 0000000000000000 other/suite -->"] {
        outcome["marker"] = json!(forged);
        std::fs::write(root.join("o/outcome.json"), outcome.to_string()).unwrap();
        let ran = digline_env(root, &["publish", "--outcome", "o/outcome.json"], &vars);
        assert_eq!(ran.code, 64, "{}{}", ran.stdout, ran.stderr);
        assert_eq!(
            ran.stderr.lines().next().unwrap(),
            "digline: o/outcome.json is not this gate's outcome: its marker is not the one \
             digline computes for root '.', tenant 'quickstart' and suite 'support', and a \
             marker that does not match could find and overwrite another comment, so nothing \
             was published"
        );
        assert!(fake.comments().is_empty());
    }
}

/// A `suite.toml` saved with CRLF line ends reads as 0.10.0 reads it:
/// a triple-quoted needle holds `\n`, so an answer with that line break
/// passes `contains`; the answer itself is never folded (an answer with
/// `\r\n` does not hold the needle).
#[test]
fn a_crlf_suite_folds_its_line_ends_and_never_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("answers.json"),
        json!({
            "lf": {"answer": "line one\nline two"},
            "crlf": {"answer": "line one\r\nline two"},
        })
        .to_string(),
    )
    .unwrap();
    let server = stub(&root.join("answers.json"));
    let suite = format!(
        "[suite]\ntenant = \"t\"\nenvironment = \"ci\"\nname = \"crlf\"\ncases = \"cases.json\"\n\n\
         [target]\ntype = \"http\"\nurl = \"http://127.0.0.1:{}/answer\"\noutput_path = \"data.answer\"\n\n\
         [target.body]\nid = \"case.id\"\n\n\
         [[assertions]]\ntype = \"contains\"\nneedle = \"\"\"\nline one\nline two\"\"\"\n",
        server.port
    );
    std::fs::write(root.join("suite.toml"), suite.replace('\n', "\r\n")).unwrap();
    std::fs::write(
        root.join("cases.json"),
        r#"[{"id": "lf", "vars": {"question": "lf"}}, {"id": "crlf", "vars": {"question": "crlf"}}]"#,
    )
    .unwrap();
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let run: Value = serde_json::from_str(&read(run_file(root, ran.stdout.trim()))).unwrap();
    let status = |i: usize| run["results"][i]["verdicts"][0]["status"].clone();
    assert_eq!(status(0), json!("pass"), "{run}");
    assert_eq!(status(1), json!("fail"), "{run}");
}

/// One rule for configuration values that name infrastructure: a
/// `base_url` change is named on every printed or published surface
/// (terminal, comment as posted and written, summary, annotation, Actions
/// outputs, `--json`), never with its values; the run document keeps them.
#[test]
fn a_base_url_is_named_never_published() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let answer = |host: &str| {
        json!({"*": {"raw": json!({
            "data": {"answer": "Order 4821 ships Monday."},
            "config": {"provider": "p", "model": "m", "base_url": format!("https://{host}/v1")},
        }).to_string()}})
        .to_string()
    };
    std::fs::write(
        root.join("answers.json"),
        answer("gw-a.internal.example:8443"),
    )
    .unwrap();
    let server = stub(&root.join("answers.json"));
    std::fs::write(
        root.join("suite.toml"),
        format!(
            "[suite]\ntenant = \"t\"\nenvironment = \"ci\"\nname = \"infra\"\ncases = \"cases.json\"\n\n\
             [target]\ntype = \"http\"\nurl = \"http://127.0.0.1:{}/answer\"\noutput_path = \"data.answer\"\nconfig_path = \"config\"\n\n\
             [target.body]\nid = \"case.id\"\n\n\
             [[assertions]]\ntype = \"contains\"\nneedle = \"Monday\"\n",
            server.port
        ),
    )
    .unwrap();
    std::fs::write(root.join("cases.json"), r#"[{"id": "a"}]"#).unwrap();
    let ran = digline_env(root, &["run", "--suite", "suite.toml"], &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let ran = digline_env(
        root,
        &["promote", "--suite", "suite.toml", "--run", "latest"],
        &[],
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    std::fs::write(
        root.join("answers.json"),
        answer("gw-b.internal.example:9443"),
    )
    .unwrap();

    let github = fake_github(Mode::Normal);
    let vars = actions_env(root, &github);
    let gate = digline_env(
        root,
        &[
            "gate",
            "--suite",
            "suite.toml",
            "--out",
            "o",
            "--comment-on-success",
        ],
        &vars,
    );
    assert_eq!(gate.code, 0, "{}{}", gate.stdout, gate.stderr);
    let run_key = serde_json::from_str::<Value>(&read(root.join("o/outcome.json"))).unwrap()
        ["run_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        read(run_file(root, &run_key)).contains("gw-b.internal.example:9443"),
        "the run document keeps the value"
    );
    let compare = digline_env(
        root,
        &["compare", "--suite", "suite.toml", "--run", "latest"],
        &[],
    );
    let json = digline_env(
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
        &[],
    );
    let comments: Vec<String> = github.comments().into_iter().map(|(_, b)| b).collect();
    assert_eq!(comments.len(), 1);
    let surfaces = [
        ("gate stdout (annotation)", gate.stdout.clone()),
        ("gate stderr", gate.stderr.clone()),
        ("comment as posted", comments[0].clone()),
        ("comment as written", read(root.join("o/comment.md"))),
        ("summary", read(root.join("o/summary.md"))),
        ("job summary", read(root.join("gh-summary"))),
        ("outputs", read(root.join("gh-output"))),
        ("outcome", read(root.join("o/outcome.json"))),
        ("compare", compare.stdout.clone()),
        ("compare --json", json.stdout.clone()),
    ];
    for (what, text) in &surfaces {
        assert!(!text.contains("gw-a.internal"), "{what}: {text}");
        assert!(!text.contains("gw-b.internal"), "{what}: {text}");
    }
    assert!(
        compare
            .stdout
            .contains("base_url changed (the value is not included)"),
        "{}",
        compare.stdout
    );
    assert!(
        comments[0].contains(r"base\_url changed \(the value is not included\)"),
        "{}",
        comments[0]
    );
}
